"""Hostile input: nothing but WireError escapes, and what is written reads back."""

from __future__ import annotations

import json
import threading
import tracemalloc
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import convtypes as ct
from convtypes import strategies as cst

from budget import examples

TRANSCRIPT = list[ct.Message]
TARGETS: list[Any] = [ct.Message, TRANSCRIPT, ct.ContentBlock, ct.ToolCall, ct.ThinkingBlock]


def decode_all_ways(data: bytes) -> list[Any]:
    """Decode ``data`` as every type; return what was accepted.

    Any exception other than WireError fails the calling test.
    """
    accepted = []
    for tp in TARGETS:
        try:
            accepted.append(ct.decode(data, tp))
        except ct.WireError as err:
            assert err.path.startswith("$")
            assert err.reason
    return accepted


def assert_stable(value: Any) -> None:
    first = ct.encode(value)
    assert (
        ct.encode(ct.decode(first, type(value) if not isinstance(value, list) else TRANSCRIPT))
        == first
    )


# ------------------------------------------------------------------ classes


@pytest.mark.parametrize(
    "doc,path,words",
    [
        (b"", "$", "ends early"),
        (b"   ", "$", "ends early"),
        (b'[{"role":"us', "$[0].role", "ends early"),
        (b'[{"role":"user","content":"a"},{"role"', "$[1].role", "ends early"),
        (b'\xef\xbb\xbf[{"role":"user","content":"a"}]', "$", "byte-order mark"),
        (b'[{"role":"user","content":"\xff\xfe"}]', "$[0].content", "UTF-8"),
        (b'[{"role":"user","content":"\xed\xa0\x80"}]', "$[0].content", "UTF-8"),  # CESU surrogate
        (b'[{"role":"user","content":"\\ud800"}]', "$[0].content", "lone surrogate"),
        (b'[{"role":"user","content":"x\\udc00y"}]', "$[0].content", "lone surrogate"),
        (b'[{"role":"user","content":"a"}] []', "$", "trailing characters"),
        (b'[{"role":"user","content":"a"}]\x00', "$", "trailing characters"),
        (b'[{"role":"user","content":"a"}', "$", "ends early"),
    ],
)
def test_malformed_bytes(doc: bytes, path: str, words: str) -> None:
    with pytest.raises(ct.WireError) as info:
        ct.decode_messages(doc)
    assert info.value.path == path
    assert words in info.value.reason


@pytest.mark.parametrize(
    "doc,path",
    [
        (b'{"type":"video_path","path":"p","max_frames":4294967296}', "$.max_frames"),
        (b'{"type":"video_path","path":"p","max_frames":-1}', "$.max_frames"),
        (b'{"type":"video_path","path":"p","max_frames":1' + b"0" * 40 + b"}", "$.max_frames"),
        (b'{"type":"audio_base64","data":"d","media_type":"m","sample_rate":1e3}', "$.sample_rate"),
        (b'{"type":"video_url","url":"u","fps":3.5e38}', "$.fps"),
        (b'{"type":"video_url","url":"u","fps":-3.5e38}', "$.fps"),
        (b'{"type":"video_url","url":"u","fps":1e400}', "$.fps"),
        (b'{"type":"video_url","url":"u","fps":1' + b"0" * 400 + b"}", "$.fps"),
    ],
)
def test_numbers_out_of_range(doc: bytes, path: str) -> None:
    with pytest.raises(ct.WireError) as info:
        ct.decode(doc, ct.ContentBlock)
    assert info.value.path == path


def test_number_out_of_range_inside_json_values() -> None:
    with pytest.raises(ct.WireError) as info:
        ct.decode(b'{"name":"n","arguments":{"a":[1,-1e999]}}', ct.ToolCall)
    # msgspec names a key inside free-form JSON [...]; the bytes name it.
    assert info.value.path == "$.arguments.a[1]"
    assert info.value.offset == 32


_WRONG = ["null", "true", "0", "-1.5", '"s"', "[]", "{}", '[{"type":"text","text":"t"}]']


def _sample_messages() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
        {
            "role": "user_multimodal",
            "content": [{"type": "video_url", "url": "u", "fps": 2.0, "max_frames": 3}],
        },
        {
            "role": "assistant",
            "content": "a",
            "tool_calls": [{"id": "q", "name": "n", "arguments": {"k": 1}}],
            "thinking": [{"text": "t", "signature": "s", "redacted_data": "opaque"}],
        },
        {"role": "tool_result", "tool_use_id": "q", "content": "out", "provenance": "external"},
        {"role": "provider_output_items", "protocol": "p", "items": [{"x": 1}]},
    ]


def _positions(value: Any, path: str = "$") -> list[tuple[str, list[Any]]]:
    """Every position in a sample document, with the path msgspec reports."""
    out: list[tuple[str, list[Any]]] = []
    if isinstance(value, dict):
        for key in value:
            out.append((f"{path}.{key}", [key]))
            for sub, keys in _positions(value[key], f"{path}.{key}"):
                out.append((sub, [key, *keys]))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.append((f"{path}[{index}]", [index]))
            for sub, keys in _positions(item, f"{path}[{index}]"):
                out.append((sub, [index, *keys]))
    return out


def _replace(doc: Any, keys: list[Any], new: Any) -> Any:
    copy = json.loads(json.dumps(doc))
    target = copy
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = new
    return copy


@pytest.mark.parametrize("sample", _sample_messages(), ids=lambda m: m["role"])
def test_wrong_json_type_at_every_position(sample: dict[str, Any]) -> None:
    # Free-form JSON (arguments values, items) takes any type; skip inside it.
    positions = [
        (path, keys)
        for path, keys in _positions(sample)
        if not any(k in ("arguments", "items") for k in keys[:-1] if isinstance(k, str))
    ]
    for path, keys in positions:
        refused = 0
        for wrong in _WRONG:
            doc = msgspec.json.encode(_replace(sample, keys, json.loads(wrong)))
            try:
                ct.decode_message(doc)
            except ct.WireError as err:
                refused += 1
                assert err.path.startswith(path) or path.startswith(err.path), (path, wrong, err)
        if not path.endswith(("].items", ".items")) and keys[-1] != "arguments":
            assert refused, f"every JSON type was accepted at {path}"


def test_a_100_megabyte_string_decodes_in_linear_memory() -> None:
    size = 100 * 1024 * 1024
    doc = b'{"role":"tool_result","tool_use_id":"k","content":"' + b"a" * size + b'"}'
    tracemalloc.start()
    try:
        message = ct.decode_message(doc)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(message, ct.ToolResultMessage)
    assert len(message.content) == size
    # The string itself plus a little: no copy of the input, no quadratic work.
    assert peak < size * 1.1, peak
    del message


# ------------------------------------------------------------------- fuzzing

FUZZ = settings(max_examples=examples(1500, 500), deadline=None)


@FUZZ
@given(st.binary(max_size=300))
def test_fuzz_raw_bytes(data: bytes) -> None:
    for value in decode_all_ways(data):
        assert_stable(value)


_MUTATIONS = st.sampled_from(["delete", "insert", "replace", "truncate", "duplicate"])


@FUZZ
@given(
    cst.transcripts(max_size=3),
    _MUTATIONS,
    st.integers(0, 10_000),
    st.binary(min_size=1, max_size=4),
)
def test_fuzz_one_mutation_of_a_valid_document(
    messages: list[ct.Message], mutation: str, where: int, junk: bytes
) -> None:
    doc = ct.encode(messages)
    at = where % (len(doc) + 1)
    if mutation == "delete":
        doc = doc[:at] + doc[at + 1 :]
    elif mutation == "insert":
        doc = doc[:at] + junk + doc[at:]
    elif mutation == "replace":
        doc = doc[:at] + junk + doc[at + len(junk) :]
    elif mutation == "truncate":
        doc = doc[:at]
    else:
        doc = doc[:at] + doc[at : at + 40] + doc[at:]
    for value in decode_all_ways(doc):
        assert_stable(value)


# ------------------------------------------------------------------- threads


def test_shared_codecs_are_safe_across_threads() -> None:
    docs = [
        ct.encode([ct.UserMessage(content=f"m{i}" * (i + 1)), ct.AssistantMessage(content=str(i))])
        for i in range(32)
    ]
    expected = [ct.decode_messages(doc) for doc in docs]
    failures: list[str] = []
    start = threading.Barrier(8)

    def work(offset: int) -> None:
        start.wait()
        for round_ in range(300):
            index = (offset + round_) % len(docs)
            try:
                got = ct.decode_messages(docs[index])
                if got != expected[index] or ct.encode(got) != docs[index]:
                    failures.append(f"thread {offset} round {round_}")
                ct.decode_message(b'{"role":"nope"}')
            except ct.WireError as err:
                if err.path != "$.role":
                    failures.append(str(err))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


# ------------------------------------------------------------ repeated keys


def test_repeated_key_reads_as_its_last_value_by_default() -> None:
    doc = b'{"role":"user","content":"a","content":"b"}'
    assert ct.decode_message(doc) == ct.UserMessage(content="b")


@pytest.mark.parametrize(
    "doc,path",
    [
        (b'{"role":"user","content":"a","content":"b"}', "$.content"),
        (b'{"role":"user","role":"user","content":"a"}', "$.role"),
        (
            b'{"role":"tool_result","tool_use_id":"k","content":"x","provenance":"external","provenance":"internal"}',
            "$.provenance",
        ),
        (b'{"role":"user","c\\u006fntent":"a","content":"b"}', "$.content"),
        (
            b'{"role":"assistant","tool_calls":[{"name":"n","arguments":{"a":1,"a":2}}]}',
            "$.tool_calls[0].arguments.a",
        ),
    ],
)
def test_repeated_keys_are_refused_on_request(doc: bytes, path: str) -> None:
    with pytest.raises(ct.WireError) as info:
        ct.decode_message(doc, reject_repeated_keys=True)
    assert info.value.path == path
    assert "once" in info.value.reason


def test_reference_refuses_a_repeated_tag_with_another_value() -> None:
    # msgspec and the reference agree here even without the option.
    with pytest.raises(ct.WireError):
        ct.decode_message(b'{"role":"user","role":"system","content":"x"}')


@given(cst.transcripts())
def test_no_repeated_keys_in_what_convtypes_writes(messages: list[ct.Message]) -> None:
    doc = ct.encode(messages)
    assert ct.decode_messages(doc, reject_repeated_keys=True) == messages


# ------------------------------------------------------------ encode side


@pytest.mark.parametrize(
    "build,words",
    [
        (lambda: ct.VideoPathBlock(path="p", max_frames=2**32), "0..4294967295"),
        (lambda: ct.VideoBase64Block(data="d", media_type="m", max_frames=-1), "0..4294967295"),
        (lambda: ct.AudioUrlBlock(url="u", sample_rate=2**40), "0..4294967295"),
        (lambda: ct.VideoUrlBlock(url="u", fps=float("nan")), "finite"),
        (lambda: ct.VideoUrlBlock(url="u", fps=float("inf")), "finite"),
        (lambda: ct.VideoUrlBlock(url="u", fps=-1e39), "f32 range"),
        (lambda: ct.ToolCall(name="n", arguments={"x": float("nan")}), "finite"),
        (lambda: ct.ToolCall(name="n", arguments={"x": [float("-inf")]}), "finite"),
        (lambda: ct.ToolCall(name="n", arguments={"x": {1: 2}}), "string key"),
        (lambda: ct.ToolCall(name="n", arguments={"x": (1, 2)}), "JSON value"),
        (lambda: ct.ToolCall(name="n", arguments={"x": b"raw"}), "JSON value"),
        (lambda: ct.ToolCall(name="n", arguments=[]), "dict"),  # type: ignore[arg-type]
        (
            lambda: ct.ProviderOutputItemsMessage(protocol="p", items=({"a": {1.5, 2}},)),
            "JSON value",
        ),
    ],
)
def test_values_the_reference_cannot_read_are_refused(build: Any, words: str) -> None:
    # Refused when the value is built, so encode never meets it.
    with pytest.raises(ct.WireError) as info:
        value = build()
        ct.encode(value)
        ct.encode([ct.AssistantMessage(tool_calls=(value,))])
    assert words in info.value.reason


def test_deep_json_is_refused_when_built() -> None:
    value: Any = []
    for _ in range(ct.MAX_DEPTH):
        value = [value]
    with pytest.raises(ct.WireError, match="127 levels"):
        ct.encode(ct.ToolCall(name="n", arguments={"deep": value}))
    with pytest.raises(ct.WireError, match="127 levels"):
        ct.encode(ct.ProviderOutputItemsMessage(protocol="p", items=(value,)))


def test_lone_surrogates_are_refused_when_built_and_at_encode() -> None:
    # Refused where they enter: UTF-8 cannot carry them, so no value holds one.
    with pytest.raises(ct.WireError) as info:
        ct.ToolCall(name="n", arguments={"q": "bad \ud800"})
    assert info.value.path == "$.arguments.q"
    with pytest.raises(ct.WireError) as info:
        ct.UserMessage(content="\udfff")
    assert info.value.path == "$.content"
    # Changing the arguments in place gets past the build; encode still
    # refuses, naming the place.
    call = ct.ToolCall(name="n", arguments={"q": "fine"})
    message = ct.AssistantMessage(content="ok", tool_calls=(call,))
    call.arguments["q"] = "bad \ud800"
    with pytest.raises(ct.WireError) as info:
        ct.encode([ct.UserMessage(content="fine"), message])
    assert info.value.path == "$[1].tool_calls[0].arguments.q"
    assert info.value.reason == "expected text encodable as UTF-8, found a lone surrogate"


def test_replace_runs_the_same_checks() -> None:
    block = ct.VideoPathBlock(path="p")
    with pytest.raises(ct.WireError) as info:
        ct.replace(block, max_frames=-5)
    assert info.value.path == "$.max_frames"
    assert ct.replace(block, fps=29.970000001).fps == 29.97


@given(cst.transcripts())
def test_what_is_written_reads_back_equal(messages: list[ct.Message]) -> None:
    assert ct.decode_messages(ct.encode(messages)) == messages


@pytest.mark.parametrize("junk", [b"\x0b", b"\x0c", b"\x00", b"\x7f", b"\xff", b"}", b"]", b":"])
def test_stray_bytes_never_stall_error_reporting(junk: bytes) -> None:
    # Found by the fuzz test: a form feed once made the error locator loop.
    for doc in (
        junk,
        b"[" + junk + b"!",
        b'{"role":' + junk,
        b'[{"role":"user","content":"a"},' + junk + b"]",
    ):
        with pytest.raises(ct.WireError):
            ct.decode_messages(doc)
        with pytest.raises(ct.WireError):
            ct.decode_message(doc, reject_repeated_keys=True)
