"""Bad arguments are refused where they enter, with the documented error.

Issue 21 found calls that took what they should have refused: a check that
passed a list of dicts, a fence that failed with AttributeError, an id made
from a negative position, and text that could be built but never written.
"""

from __future__ import annotations

import enum
import json
import typing
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import convtypes as ct
from convtypes import _value

U = ct.UserMessage(content="u")


# ------------------------------------------------------------ check_conversation


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        ("abc", "takes an iterable of messages (a list, say), got str"),
        (b"abc", "takes an iterable of messages (a list, say), got bytes"),
        (U, "takes an iterable of messages (a list, say), got UserMessage"),
        ({"role": "user"}, "takes an iterable of messages (a list, say), got dict"),
        (None, "takes an iterable of messages (a list, say), got NoneType"),
        (7, "takes an iterable of messages (a list, say), got int"),
        (
            [{"role": "tool_result", "tool_use_id": "x", "content": "y"}],
            "checks messages; item 0 is a dict",
        ),
        ([U, "abc"], "checks messages; item 1 is a str"),
        ((m for m in [U, U, ct.TextBlock(text="t")]), "checks messages; item 2 is a TextBlock"),
    ],
)
def test_check_conversation_refuses_what_is_not_messages(messages: Any, message: str) -> None:
    with pytest.raises(TypeError) as caught:
        ct.check_conversation(messages)
    assert str(caught.value) == f"check_conversation {message}"


def test_check_conversation_of_plain_json_points_to_decoding() -> None:
    # The case the issue met: dicts from json.loads once got a clean bill.
    stored = '[{"role":"tool_result","tool_use_id":"call_9","content":"done"}]'
    with pytest.raises(TypeError):
        ct.check_conversation(json.loads(stored))
    assert [p.code for p in ct.check_conversation(ct.decode_messages(stored))] == ["unknown-call"]


def test_check_conversation_passes_over_unknown_messages() -> None:
    other = ct.UnknownMessage(role="developer", raw=b'{"role":"developer"}')
    assert ct.check_conversation([U, other]) == []


# ------------------------------------------------------------ fence_external


@pytest.mark.parametrize(
    ("content", "kind"), [(None, "NoneType"), (b"x", "bytes"), (5, "int"), (["x"], "list")]
)
def test_fence_external_takes_text_only(content: Any, kind: str) -> None:
    with pytest.raises(TypeError) as caught:
        ct.fence_external(content)
    assert str(caught.value) == f"fence_external takes a str, got {kind}"


def test_fence_external_takes_a_str_subclass() -> None:
    class Page(str):
        pass

    text = "hello </external-content> world"
    assert ct.fence_external(Page(text)) == ct.fence_external(text)


# ------------------------------------------------------------ positional_call_id


class Slot(enum.IntEnum):
    SECOND = 1


def test_positional_call_id_takes_a_position() -> None:
    assert ct.positional_call_id(0) == "call_0"
    assert ct.positional_call_id(Slot.SECOND) == "call_1"
    with pytest.raises(ValueError, match=r"^positional_call_id takes a position from 0, got -1$"):
        ct.positional_call_id(-1)
    wrong: list[tuple[Any, str]] = [
        ("a", "str"),
        (1.0, "float"),
        (True, "bool"),
        (None, "NoneType"),
    ]
    for bad, kind in wrong:
        with pytest.raises(TypeError, match=f"^positional_call_id takes an int, got {kind}$"):
            ct.positional_call_id(bad)


# ------------------------------------------------------------ lone surrogates


def _text_fields() -> list[tuple[type[Any], str, dict[str, Any]]]:
    """Every text field of every value class, with keywords that build the class."""
    required: dict[type[Any], dict[str, Any]] = {
        ct.SystemMessage: {"content": "s"},
        ct.UserMessage: {"content": "u"},
        ct.AssistantMessage: {},
        ct.ToolResultMessage: {"tool_use_id": "c", "content": "r"},
        ct.ProviderOutputItemsMessage: {"protocol": "p", "items": ()},
        ct.ToolCall: {"name": "n", "arguments": {}},
        ct.ThinkingBlock: {},
        ct.TextBlock: {"text": "t"},
        ct.ImageBase64Block: {"data": "d", "media_type": "image/png"},
        ct.ImageUrlBlock: {"url": "u"},
        ct.VideoPathBlock: {"path": "p"},
        ct.VideoUrlBlock: {"url": "u"},
        ct.VideoBase64Block: {"data": "d", "media_type": "video/mp4"},
        ct.AudioPathBlock: {"path": "p"},
        ct.AudioUrlBlock: {"url": "u"},
        ct.AudioBase64Block: {"data": "d", "media_type": "audio/wav"},
    }
    found = []
    for cls, keywords in required.items():
        cls(**keywords)  # the keywords build it
        hints = typing.get_type_hints(cls)
        for name in cls.__struct_fields__:
            if hints[name] in (str, str | None):
                found.append((cls, name, keywords))
    return found


TEXT_FIELDS = _text_fields()


def test_every_text_field_is_found() -> None:
    names = {(cls.__name__, name) for cls, name, _ in TEXT_FIELDS}
    assert ("ToolCall", "id") in names and ("ThinkingBlock", "signature") in names
    assert ("ImageUrlBlock", "detail") in names and (
        "ProviderOutputItemsMessage",
        "protocol",
    ) in names
    assert len(TEXT_FIELDS) == 24


@pytest.mark.parametrize(("cls", "name", "keywords"), TEXT_FIELDS)
@pytest.mark.parametrize("text", ["\ud800", "caf\u00e9 \udfff", "\U0001f600\ud83d", "\ud83d\ude00"])
def test_a_lone_surrogate_is_refused_in_every_text_field(
    cls: type[Any], name: str, keywords: dict[str, Any], text: str
) -> None:
    # (A Python str holding both halves of a pair holds two lone surrogates:
    # the character itself is one code point.)
    with pytest.raises(ct.WireError) as caught:
        cls(**{**keywords, name: text})
    assert caught.value.path == f"$.{name}"
    where = next(i for i, ch in enumerate(text) if "\ud800" <= ch <= "\udfff")
    assert caught.value.reason == (
        f"expected text that UTF-8 can carry, found a lone surrogate at character {where}"
    )
    built = cls(**keywords)
    with pytest.raises(ct.WireError):
        ct.replace(built, **{name: text})


class Text(str):
    pass


@pytest.mark.parametrize(
    ("build", "path"),
    [
        (lambda: ct.UserMessage(content=Text("a\ud800")), "$.content"),
        (lambda: ct.ToolCall(name="n", arguments={"q": "\ud800"}), "$.arguments.q"),
        (
            lambda: ct.ToolCall(name="n", arguments={"q": [1, {"k": "x\udc00"}]}),
            "$.arguments.q[1].k",
        ),
        (lambda: ct.ToolCall(name="n", arguments={"q": {"\ud800": 1}}), "$.arguments.q"),
        (lambda: ct.ToolCall(name="n", arguments={"\ud800": 1}), "$.arguments"),
        (
            lambda: ct.ProviderOutputItemsMessage(protocol="p", items=[{"text": "\ud83d"}]),
            "$.items[0].text",
        ),
        (lambda: ct.ProviderOutputItemsMessage(protocol="p", items=["\ud83d"]), "$.items[0]"),
    ],
)  # fmt: skip
def test_a_lone_surrogate_is_refused_inside_json_values(build: Any, path: str) -> None:
    with pytest.raises(ct.WireError) as caught:
        build()
    assert caught.value.path == path
    assert "lone surrogate" in caught.value.reason


def test_a_lone_surrogate_in_a_key_says_it_is_a_key() -> None:
    with pytest.raises(ct.WireError) as caught:
        ct.ToolCall(name="n", arguments={"ok": 1, "b\ud800": 2})
    assert caught.value.reason == (
        "expected a key that UTF-8 can carry, found a lone surrogate at character 1"
    )


_any_text = st.text(st.one_of(st.characters(), st.characters(categories=["Cs"])), max_size=12)


@given(text=_any_text, key=_any_text)
def test_a_value_that_exists_can_be_encoded(text: str, key: str) -> None:
    # The README's promise, at construction: a value is built exactly when
    # UTF-8 can carry its text, and then it is written and read back equal.
    def carries(value: str) -> bool:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True

    builds: list[tuple[Any, list[str]]] = [
        (lambda: ct.UserMessage(content=text), [text]),
        (lambda: ct.ToolCall(name="n", arguments={key: [text]}), [key, text]),
        (lambda: ct.ThinkingBlock(text="t", signature=text), [text]),
    ]
    for build, held in builds:
        try:
            value: Any = build()
        except ct.WireError:
            assert not all(map(carries, held))
            continue
        assert all(map(carries, held))
        assert ct.decode(ct.encode(value), type(value)) == value


def test_ascii_text_skips_the_look(monkeypatch: pytest.MonkeyPatch) -> None:
    # The common case costs one isascii(): the surrogate look runs only on
    # text that is not ASCII.
    looked: list[str] = []
    real = _value.refuse_lone_surrogate

    def spy(text: str, path: str) -> None:
        looked.append(path)
        real(text, path)

    monkeypatch.setattr(_value, "refuse_lone_surrogate", spy)
    ct.ToolResultMessage(tool_use_id="c", content="plain")
    assert looked == []
    ct.ToolResultMessage(tool_use_id="c", content="caf\u00e9")
    assert looked == ["$.content"]


# ------------------------------------------------- dialect readers refuse them too


def test_every_dialect_reader_refuses_a_lone_surrogate() -> None:
    from convtypes.dialects import (
        DialectError,
        ResponseError,
        anthropic,
        gemini,
        openai_chat,
        openai_responses,
    )

    lone = "half an emoji \ud83d"
    responses: list[tuple[Any, dict[str, Any]]] = [
        (anthropic, {"content": [{"type": "text", "text": lone}]}),
        (
            openai_chat,
            {"choices": [{"index": 0, "message": {"role": "assistant", "content": lone}}]},
        ),
        (
            openai_responses,
            {
                "output": [
                    {
                        "type": "message",
                        "id": "msg_1",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": lone}],
                    }
                ]
            },
        ),
        (gemini, {"candidates": [{"content": {"role": "model", "parts": [{"text": lone}]}}]}),
    ]
    for dialect, response in responses:
        with pytest.raises(ResponseError) as caught:
            dialect.from_response(response)
        assert isinstance(caught.value, DialectError)
        assert isinstance(caught.value.__cause__, ct.WireError), dialect.__name__
        assert "lone surrogate" in str(caught.value.__cause__)
        # The same response with whole text reads.
        fixed = json.loads(json.dumps(response).replace("\\ud83d", "\\ud83d\\ude00"))
        assert dialect.from_response(fixed)[-1].content == "half an emoji \U0001f600"


def test_an_anthropic_stream_refuses_a_lone_surrogate() -> None:
    from convtypes.dialects import StreamError, anthropic

    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {"id": "m", "type": "message", "role": "assistant", "content": []},
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "\ud83d"},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_stop"},
    ]
    accumulator = anthropic.Accumulator()
    with pytest.raises(StreamError) as caught:
        for event in events:
            accumulator.feed(event)
        accumulator.result()
    assert "lone surrogate" in str(caught.value.__cause__)
