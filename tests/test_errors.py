"""Every way a document can be wrong: WireError, with what and where."""

from __future__ import annotations

from typing import Any, Union

import pytest

import convtypes as ct

TRANSCRIPT = list[ct.Message]
DEEP_ITEMS = (
    b'{"role":"provider_output_items","protocol":"p","items":' + b"[" * 200 + b"]" * 200 + b"}"
)

# (type, document, path, words the reason must contain)
BAD: list[tuple[Any, bytes, str, str]] = [
    # shape and tags
    (ct.Message, b'{"content":"x"}', "$", "missing required field 'role'"),
    (ct.Message, b'{"role":"developer","content":"x"}', "$.role", "got 'developer'"),
    (ct.Message, b'{"role":null,"content":"x"}', "$.role", "expected str"),
    (ct.Message, b'"user"', "$", "expected object, got str"),
    (ct.Message, b"[]", "$", "expected object, got array"),
    (TRANSCRIPT, b"{}", "$", "expected array, got object"),
    (
        TRANSCRIPT,
        b'[{"role":"user","content":"a"},{"role":"tool","content":"x"}]',
        "$[1].role",
        "one of",
    ),
    # wrong JSON type at each kind of position
    (ct.Message, b'{"role":"user","content":null}', "$.content", "expected str, got null"),
    (
        ct.Message,
        b'{"role":"user_multimodal","content":"t"}',
        "$.content",
        "expected array, got str",
    ),
    (
        TRANSCRIPT,
        b'[{"role":"user","content":"a"},{"role":"user_multimodal","content":[{"type":"text","text":1}]}]',
        "$[1].content[0].text",
        "expected str, got int",
    ),
    (
        TRANSCRIPT,
        b'[{"role":"user_multimodal","content":[{"type":"text","text":"a"},{"type":"nope"}]}]',
        "$[0].content[1].type",
        "got 'nope'",
    ),
    (
        ct.Message,
        b'{"role":"assistant","tool_calls":null}',
        "$.tool_calls",
        "expected array, got null",
    ),
    (
        ct.Message,
        b'{"role":"assistant","tool_calls":[{"name":"x"}]}',
        "$.tool_calls[0]",
        "'arguments'",
    ),
    (
        ct.Message,
        b'{"role":"assistant","thinking":[{"text":null}]}',
        "$.thinking[0].text",
        "expected str",
    ),
    (
        ct.Message,
        b'{"role":"tool_result","tool_use_id":"k","content":"x","provenance":"External"}',
        "$.provenance",
        "'internal' or 'external'",
    ),
    (
        ct.Message,
        b'{"role":"provider_output_items","protocol":"p","items":{}}',
        "$.items",
        "expected array",
    ),
    (ct.ToolCall, b'{"name":"x","arguments":[]}', "$.arguments", "expected object, got array"),
    (ct.ToolCall, b'{"id":7,"name":"x","arguments":{}}', "$.id", "expected str | null, got int"),
    (ct.ThinkingBlock, b'{"signature":1}', "$.signature", "expected str | null"),
    (ct.Provenance, b'"Internal"', "$", "'internal' or 'external'"),
    # numbers
    (
        ct.ContentBlock,
        b'{"type":"video_path","path":"p","max_frames":-1}',
        "$.max_frames",
        "0..4294967295",
    ),
    (
        ct.ContentBlock,
        b'{"type":"video_path","path":"p","max_frames":4294967296}',
        "$.max_frames",
        "0..4294967295",
    ),
    (
        ct.ContentBlock,
        b'{"type":"video_path","path":"p","max_frames":1.5}',
        "$.max_frames",
        "got float",
    ),
    (
        ct.ContentBlock,
        b'{"type":"audio_url","url":"u","sample_rate":-1}',
        "$.sample_rate",
        "0..4294967295",
    ),
    (ct.ContentBlock, b'{"type":"video_url","url":"u","fps":"30"}', "$.fps", "got str"),
    (ct.ContentBlock, b'{"type":"video_url","url":"u","fps":1e39}', "$.fps", "f32 range"),
    (
        TRANSCRIPT,
        b'[{"role":"user_multimodal","content":[{"type":"video_url","url":"u","fps":-1e300}]}]',
        "$[0].content[0].fps",
        "f32 range",
    ),
    (
        ct.Message,
        b'{"role":"provider_output_items","protocol":"p","items":[1e400]}',
        "$.items[0]",
        "64-bit float",
    ),
    # syntax
    (ct.Message, b"", "$", "ends early"),
    (ct.Message, b'{"role":"user","content":"x"', "$.content", "ends early"),
    (ct.Message, b'{"role":"user","content":"x"} trailing', "$", "trailing characters"),
    (ct.Message, b'{"role":"user","content":"x",}', "$", "trailing comma"),
    (ct.Message, b'{"role":"user","content":"\\x"}', "$.content", "invalid escape"),
    (
        TRANSCRIPT,
        b'[{"role":"user","content":"a"},{"role":"user","content":x}]',
        "$[1].content",
        "malformed JSON",
    ),
    (
        ct.Message,
        b'{"role":"provider_output_items","protocol":"p","items":[NaN]}',
        "$.items[0]",
        "malformed JSON",
    ),
    # nesting
    (ct.Message, DEEP_ITEMS, "$.items" + "[0]" * 125, "127 levels"),
    (TRANSCRIPT, b"[" + DEEP_ITEMS[:-1] + b"}]", "$[0].items" + "[0]" * 125, "127 levels"),
]


@pytest.mark.parametrize("tp,doc,path,words", BAD, ids=[repr(b[1][:50]) for b in BAD])
def test_bad_document_names_what_and_where(tp: Any, doc: bytes, path: str, words: str) -> None:
    with pytest.raises(ct.WireError) as info:
        ct.decode(doc, tp)
    err = info.value
    assert err.path == path
    assert words in err.reason
    where = f" (byte {err.offset})" if err.offset is not None else ""
    assert str(err) == f"{err.reason} at {err.path}{where}"
    assert isinstance(err, ValueError)


@pytest.mark.parametrize(
    ("doc", "first"),
    [
        (b'{"role":"user","content":"x"}x', "x"),
        (b'{"role":"user","content":"x"}  \n  {"role":"user"}', "{"),
        (b'{"role":"user","content":"x"}}', "}"),
        (b'{"role":"user","content":"x"} 7', "7"),
        (b'{"role":"user","content":"x"}\t"s"', '"'),
    ],
    ids=["glued", "second-document", "brace", "number", "string"],
)
def test_trailing_characters_are_placed_at_the_first_of_them(doc: bytes, first: str) -> None:
    # msgspec names the byte after it; a reader (and convtypes check's
    # LINE:COL) wants the one that is wrong.
    with pytest.raises(ct.WireError, match="trailing characters") as caught:
        ct.decode_message(doc)
    offset = caught.value.offset
    assert offset is not None and doc[offset:].startswith(first.encode())
    assert doc[:offset].rstrip() == b'{"role":"user","content":"x"}'
    with pytest.raises(ct.WireError, match="trailing characters") as listed:
        ct.decode_messages(b"[]" + doc[len(b'{"role":"user","content":"x"}') :])
    assert listed.value.offset == offset - len(b'{"role":"user","content":"x"}') + 2


def test_decode_message_and_messages_raise_the_same_error() -> None:
    with pytest.raises(ct.WireError, match=r"at \$\.role$"):
        ct.decode_message(b'{"role":"tool","content":"x"}')
    with pytest.raises(ct.WireError, match=r"at \$\[0\]\.role$"):
        ct.decode_messages(b'[{"role":"tool","content":"x"}]')


def _items_transcript(levels: int) -> bytes:
    """A transcript whose deepest point is ``levels`` levels down."""
    inner = b"[" * (levels - 2) + b"]" * (levels - 2)
    return b'[{"role":"provider_output_items","protocol":"p","items":' + inner + b"}]"


def _arguments_transcript(levels: int) -> bytes:
    inner = b"[" * (levels - 5) + b"]" * (levels - 5)
    return b'[{"role":"assistant","tool_calls":[{"name":"n","arguments":{"a":' + inner + b"}}]}]"


@pytest.mark.parametrize("build", [_items_transcript, _arguments_transcript])
def test_nesting_limit_in_a_transcript_is_the_references(build: Any) -> None:
    # serde_json refuses the 128th level and reads the 127th.
    assert ct.decode_messages(build(ct.MAX_DEPTH))
    with pytest.raises(ct.WireError, match="127 levels"):
        ct.decode_messages(build(ct.MAX_DEPTH + 1))


def test_values_are_budgeted_for_a_transcript_everywhere() -> None:
    # A lone message or call gets the same budget it would have inside a
    # transcript, so that any value convtypes holds can be written anywhere.
    # That refuses lone documents within 1 to 3 levels of the reference's
    # limit, which the reference itself would read.
    call = b'{"name":"n","arguments":{"a":' + b"[" * 123 + b"]" * 123 + b"}}"
    with pytest.raises(ct.WireError) as info:
        ct.decode(call, ct.ToolCall)
    assert info.value.path == "$.arguments.a" + "[0]" * 122
    fits = b'{"name":"n","arguments":{"a":' + b"[" * 122 + b"]" * 122 + b"}}"
    call_value = ct.decode(fits, ct.ToolCall)
    message = ct.AssistantMessage(tool_calls=(call_value,))
    transcript = ct.encode([message])
    assert ct.decode_messages(transcript) == [message]


def test_a_million_levels_is_a_wire_error() -> None:
    # A lone message is held to the 126 levels it has inside a transcript,
    # however deep the document goes: the error names the first level over,
    # as for the 200-level document above.
    deep = b'{"role":"provider_output_items","protocol":"p","items":' + b"[" * 1_000_000
    with pytest.raises(ct.WireError) as info:
        ct.decode_message(deep + b"]" * 1_000_000 + b"}")
    assert "127 levels" in info.value.reason
    assert info.value.path == "$.items" + "[0]" * 125
    # In a transcript the limit is the reference's own: the 128th level.
    with pytest.raises(ct.WireError) as info:
        ct.decode_messages(b"[" + deep + b"]" * 1_000_000 + b"}]")
    assert info.value.path == "$[0].items" + "[0]" * 125


def test_unknown_type_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        ct.decode(b"{}", dict)


def test_invalid_construction_raises_wire_error() -> None:
    with pytest.raises(ct.WireError, match=r"0\.\.4294967295"):
        ct.VideoPathBlock(path="p", max_frames=-1)
    with pytest.raises(ct.WireError, match=r"0\.\.4294967295"):
        ct.AudioPathBlock(path="p", sample_rate=2**32)
    with pytest.raises(ct.WireError, match=r"0\.\.4294967295"):
        ct.AudioPathBlock(path="p", sample_rate=True)
    with pytest.raises(ct.WireError, match="finite"):
        ct.VideoUrlBlock(url="u", fps=float("nan"))
    with pytest.raises(ct.WireError, match="f32 range"):
        ct.VideoUrlBlock(url="u", fps=1e39)


def test_a_document_cut_inside_a_key_names_the_key_without_its_quote() -> None:
    with pytest.raises(ct.WireError) as info:
        ct.decode_message(b'{"role":"assistant","tool_us')
    assert info.value.path == "$.tool_us"
    with pytest.raises(ct.WireError) as info:
        ct.decode_messages(b'[{"role":"assistant","content":"","caf\\u00e9')
    assert info.value.path == "$[0].café"


def test_a_specific_class_names_its_own_tag() -> None:
    for doc in (b'{"type":"image_url","url":"u"}', b'{"type":"image_url","url":"u","x":1}'):
        with pytest.raises(ct.WireError) as info:
            ct.decode(doc, ct.TextBlock)
        assert info.value.path == "$.type"
        assert info.value.reason == "expected type to be 'text', got 'image_url'"


@pytest.mark.parametrize("data", [5, None, ["[]"], object()])
def test_decoding_what_is_not_a_document_is_a_type_error(data: Any) -> None:
    for decode in (ct.decode_message, ct.decode_messages, lambda d: ct.decode(d, ct.ToolCall)):
        with pytest.raises(TypeError, match="bytes, bytearray, memoryview or str"):
            decode(data)


# ------------------------------------------------ what decode reads, as typed


@pytest.mark.parametrize(
    "kind",
    [ct.SystemMessage | ct.UserMessage, Union[ct.SystemMessage, ct.UserMessage]],
    ids=["operator", "typing"],
)
def test_decode_reads_a_union_of_message_classes(kind: Any) -> None:
    # The type checker types decode(data, SystemMessage | UserMessage) as
    # that union; it must read as one, on the fast path and the careful one.
    for doc in (b'{"role":"user","content":"a"}', b'{"role":"user","content":"a","n":1}'):
        assert ct.decode(doc, kind) == ct.UserMessage(content="a")
    for doc in (b'{"role":"assistant"}', b'{"role":"assistant","n":1}'):
        with pytest.raises(ct.WireError) as info:
            ct.decode(doc, kind)
        assert info.value.path == "$.role"
        assert info.value.reason == "expected role to be one of 'system', 'user', got 'assistant'"
    # An unknown field nested past a message's budget: refused before any
    # recursion, at the first level over it (a message may open 126).
    deep = b'{"role":"user","content":"a","x":' + b"[" * 200 + b"]" * 200 + b"}"
    with pytest.raises(ct.WireError) as info:
        ct.decode(deep, kind)
    assert info.value.path == "$.x" + "[0]" * 125  # the array at $.x is the second level


def test_decode_reads_a_union_of_block_classes() -> None:
    kind = ct.TextBlock | ct.ImageUrlBlock
    assert ct.decode(b'{"type":"image_url","url":"u","x":2}', kind) == ct.ImageUrlBlock(url="u")
    with pytest.raises(ct.WireError) as info:
        ct.decode(b'{"type":"audio_url","url":"u"}', kind)
    assert info.value.reason == "expected type to be one of 'text', 'image_url', got 'audio_url'"


@pytest.mark.parametrize(
    "kind",
    [
        int,
        dict,
        list[int],
        ct.UnknownMessage,
        ct.LenientMessage,
        ct.SystemMessage | ct.TextBlock,  # tagged on two fields: no one document is both
        ct.ToolCall | None,
        [ct.Message],  # not even hashable
    ],
    ids=repr,
)
def test_decode_refuses_a_type_it_cannot_read(kind: Any) -> None:
    with pytest.raises(TypeError, match=r"^decode reads a value class, Message, ContentBlock"):
        ct.decode(b"{}", kind)


# --- errors cross a process boundary ----------------------------------------------


def _every_error() -> list[BaseException]:
    """One of each error class convtypes raises, with every attribute set."""
    from convtypes import dialects, mcp
    from convtypes.dialects import chat_template

    return [
        ct.WireError("expected str, got int", "$.content", 12, 1, 13),
        ct.TornLineError("torn", "$", 40, 3, 1),
        dialects.DialectError("no turn", 2),
        dialects.ResponseError("bad response", None),
        dialects.StreamError("bad event", 4, {"type": "ping"}),
        dialects.UnsupportedContent("no audio", 1, ct.TextBlock(text="x")),
        dialects.UnmatchedResult("answers nothing", 3, "call_9"),
        dialects.UnansweredCall("left open", 1, "call_1", 4),
        dialects.ToolSchemaError("no $ref", "search", "/properties/q"),
        chat_template.TemplateError("refused", line=7, refusal="system first"),
        chat_template.OutputError("cut off", 12),
        mcp.MCPError("missing 'content'", "$[1]"),
        mcp.MCPContentError("unknown type", "$.content[0].type", "hologram"),
    ]


@pytest.mark.parametrize("error", _every_error(), ids=lambda error: type(error).__name__)
def test_every_error_pickles_with_its_attributes(error: BaseException) -> None:
    import pickle

    copied = pickle.loads(pickle.dumps(error))
    assert type(copied) is type(error)
    assert copied.args == error.args and str(copied) == str(error)
    assert vars(copied) == vars(error)


def test_an_error_in_a_worker_reaches_the_caller() -> None:
    # Unpickling the error used to fail in the pool's parent, which then
    # reported the worker as dead and refused all further work.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from convtypes.dialects.chat_template import OutputError, parse_output

    cut = '<tool_call>{"name": "search", "arguments": {'
    # Spawned, not forked: the test process has threads (pytest's, the big
    # stack's), and a fork of a threaded process may deadlock in the child.
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
        with pytest.raises(OutputError) as caught:
            pool.submit(parse_output, cut, style="hermes").result()
        assert caught.value.offset == 0
        assert pool.submit(len, "still working").result() == 13
