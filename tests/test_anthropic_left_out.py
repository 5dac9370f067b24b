"""What an Anthropic request leaves out of its transcript, named exactly by ``left_out``.

Each kind on its own, with the exact list and a check that the transcript
without the reported pieces sends the same request; then, on generated
transcripts, an independent stripper written from the documented rules
must take out what ``left_out`` reports and nothing else, and what remains
must all be in the request.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any, TypeGuard

import pytest
from anthropic_rules import SERVER_USES, marker_faults, ttl_of
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_anthropic_between_turns import GROUPS, STREAMS, numbered, session, stop_for
from test_anthropic_turn import (
    SEARCH_CALL,
    SEARCH_RESULT,
    SEARCHED,
    client_call,
    reply_of,
    validate,
)

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import DialectError, LeftOut, UnsupportedContent, anthropic
from convtypes.dialects._errors import note_text

from budget import examples
from ownership import assert_owned

pytest.importorskip("anthropic")

Q = ct.UserMessage(content="Question?")


def kinds(transcript: list[Any], **options: Any) -> list[tuple[int, str]]:
    return [(lo.index, lo.what) for lo in anthropic.left_out(transcript, **options)]


def same_request(transcript: list[Any], without: list[Any], **options: Any) -> None:
    """``without`` (the transcript with the reported pieces taken out) sends the same."""
    assert anthropic.to_request(transcript, **options) == anthropic.to_request(without, **options)
    assert anthropic.left_out(without, **options) == []


def test_a_transcript_this_dialect_made_leaves_out_only_blank_text() -> None:
    transcript = [
        ct.SystemMessage(content="Be terse."),
        Q,
        *anthropic.from_response(STREAMS["parallel-calls"]),
        ct.ToolResultMessage(tool_use_id="toolu_01", content="a"),
        ct.ToolResultMessage(tool_use_id="toolu_02", content="b"),
        *anthropic.from_response(STREAMS["redacted"]),
        Q,
        *anthropic.from_response(reply_of(SEARCHED)),
        Q,
        *anthropic.from_response(reply_of([{"type": "text", "text": ""}], stop="refusal")),
        Q,
        *anthropic.from_response(STREAMS["cut-at-the-limit"]),
    ]
    # SEARCHED holds a text block of one space between its two cited texts, and the
    # reply cut at the limit a call that never came whole.
    assert kinds(transcript) == [(7, "text"), (12, "call")]
    assert [lo.why for lo in anthropic.left_out(transcript)] == [
        "item 4: the API refuses a text block with nothing but white space in it",
        "item 1: the reply's message does not hold this call (it was cut off at the token "
        "limit), so no result will answer it",
    ]


def test_blank_text() -> None:
    items = ct.ProviderOutputItemsMessage(
        protocol="anthropic",
        items=(
            {"type": "text", "text": "a"},
            {"type": "text", "text": " "},
            client_call("toolu_09"),
            {"type": "text", "text": "b"},
        ),
    )
    after = ct.AssistantMessage(
        content="a \n\nb",
        tool_calls=(ct.ToolCall(id="toolu_09", name="read_file", arguments={"path": "notes.txt"}),),
    )
    transcript = [
        ct.UserMessage(content="  "),
        Q,
        ct.UserMultimodalMessage(content=(ct.TextBlock(text=""), ct.TextBlock(text="hi"))),
        ct.AssistantMessage(content="\n"),
        ct.AssistantMessage(content=""),  # no text at all: nothing left out
        ct.UserMessage(content=""),
        items,
        after,
        ct.ToolResultMessage(tool_use_id="toolu_09", content="r"),
    ]
    assert kinds(transcript) == [(0, "text"), (2, "text"), (3, "text"), (6, "text")]
    kept_items = (items.items[0], items.items[2], items.items[3])
    without = [
        ct.UserMessage(content=""),
        Q,
        ct.UserMultimodalMessage(content=(ct.TextBlock(text="hi"),)),
        ct.AssistantMessage(content=""),
        ct.AssistantMessage(content=""),
        ct.UserMessage(content=""),
        ct.ProviderOutputItemsMessage(protocol="anthropic", items=kept_items),
        # The reply's text as read from the items it now has.
        ct.AssistantMessage(content="a\n\nb", tool_calls=after.tool_calls),
        transcript[-1],
    ]
    same_request(transcript, without)


def test_thinking() -> None:
    unsigned = ct.ThinkingBlock(text="another provider's")
    signed = ct.ThinkingBlock(text="mine", signature="c2ln")
    redacted = ct.ThinkingBlock(redacted_data="cmVk")
    items = ct.ProviderOutputItemsMessage(
        protocol="anthropic",
        items=(
            {"type": "thinking", "thinking": "cut off", "signature": ""},
            {"type": "thinking", "thinking": "whole", "signature": "c2lnMg"},
            SEARCH_CALL,
            SEARCH_RESULT,
        ),
    )
    read = (
        ct.ThinkingBlock(text="cut off", signature=""),
        ct.ThinkingBlock(text="whole", signature="c2lnMg"),
    )
    transcript: list[ct.Message] = [
        Q,
        ct.AssistantMessage(content="x", thinking=(unsigned, signed, redacted)),
        ct.AssistantMessage(
            content="y", thinking=(ct.ThinkingBlock(text="seen", redacted_data="cmVkMg"),)
        ),
        Q,
        items,
        # What the items hold is said once, at the items; what they lack, here
        # (a redacted block whole, under its own word).
        ct.AssistantMessage(content="", thinking=(*read, signed, redacted)),
    ]
    assert kinds(transcript) == [
        (1, "thinking"),
        (2, "thinking"),
        (4, "thinking"),
        (5, "thinking"),
        (5, "redacted-thinking"),
    ]
    without = [
        Q,
        ct.AssistantMessage(content="x", thinking=(signed, redacted)),
        ct.AssistantMessage(content="y", thinking=(ct.ThinkingBlock(redacted_data="cmVkMg"),)),
        Q,
        ct.ProviderOutputItemsMessage(protocol="anthropic", items=items.items[1:]),
        ct.AssistantMessage(content="", thinking=read[1:]),
    ]
    same_request(transcript, without)
    # Another provider's thinking is never sent: the switch case.
    body = anthropic.to_request(transcript[:2])
    assert [b["type"] for b in body["messages"][1]["content"]] == [
        "thinking",
        "redacted_thinking",
        "text",
    ]
    assert body["messages"][1]["content"][0]["signature"] == "c2ln"


def test_items() -> None:
    foreign = ct.ProviderOutputItemsMessage(
        protocol="openai-responses", items=({"type": "reasoning", "id": "rs_1"},)
    )
    aged = ct.ProviderOutputItemsMessage(
        protocol="anthropic",
        items=(
            "not a block",
            {"type": "text", "text": "Parsed.", "parsed_output": {"x": 1}},
            client_call("toolu_05"),
        ),
    )
    after = ct.AssistantMessage(
        content="Parsed.",
        tool_calls=(ct.ToolCall(id="toolu_05", name="read_file", arguments={"path": "notes.txt"}),),
    )
    transcript = [
        Q,
        foreign,
        ct.AssistantMessage(content="Hi."),
        ct.ProviderOutputItemsMessage(protocol="gemini", items=()),  # holds nothing
        Q,
        aged,
        after,
    ]
    assert kinds(transcript) == [(1, "items"), (5, "items"), (5, "items")]
    without = [
        Q,
        ct.ProviderOutputItemsMessage(protocol="openai-responses", items=()),
        transcript[2],
        transcript[3],
        Q,
        ct.ProviderOutputItemsMessage(
            protocol="anthropic",
            items=({"type": "text", "text": "Parsed."}, client_call("toolu_05")),
        ),
        after,
    ]
    same_request(transcript, without)


def test_calls() -> None:
    cut = ct.ProviderOutputItemsMessage(
        protocol="anthropic", items=({"type": "text", "text": "Writing."}, client_call("toolu_06"))
    )
    searched = ct.ProviderOutputItemsMessage(
        protocol="anthropic",
        items=({"type": "text", "text": "Looking."}, SEARCH_CALL, client_call("toolu_07")),
    )
    call = ct.ToolCall(id="toolu_07", name="read_file", arguments={"path": "notes.txt"})
    transcript = [
        Q,
        cut,
        ct.AssistantMessage(content="Writing."),
        Q,
        searched,
        ct.AssistantMessage(content="Looking.", tool_calls=(call,)),
        ct.ToolResultMessage(tool_use_id="toolu_07", content="r"),
    ]
    assert kinds(transcript) == [(1, "call"), (4, "call")]
    without = [
        Q,
        ct.ProviderOutputItemsMessage(protocol="anthropic", items=cut.items[:1]),
        transcript[2],
        Q,
        ct.ProviderOutputItemsMessage(
            protocol="anthropic", items=(searched.items[0], searched.items[2])
        ),
        *transcript[5:],
    ]
    same_request(transcript, without)


def test_media_and_detail() -> None:
    video = ct.VideoUrlBlock(url="https://v.example/a.mp4")
    audio = ct.AudioBase64Block(data="AAAA", media_type="audio/wav")
    bmp = ct.ImageBase64Block(data="Qk0=", media_type="image/bmp")
    fetched = ct.ImageUrlBlock(url="data:image/png,not-base64")
    sharp = ct.ImageUrlBlock(url="https://img.example/a.png", detail="high")
    transcript = [
        ct.UserMultimodalMessage(
            content=(ct.TextBlock(text="Look."), video, audio, bmp, fetched, sharp)
        )
    ]
    assert kinds(transcript, unsupported="note") == [
        (0, "video"),
        (0, "audio"),
        (0, "image"),
        (0, "image"),
        (0, "detail"),
    ]
    whys = [lo.why for lo in anthropic.left_out(transcript, unsupported="note")]
    assert whys[0] == (
        "block 1: Anthropic has no block for video or audio; a short note goes in its place"
    )
    assert whys[2] == (
        "block 3: Anthropic takes no 'image/bmp' image (only JPEG, PNG, GIF and WebP); "
        "a short note goes in its place"
    )
    assert whys[4] == "block 5: Anthropic has no field for an image's detail ('high')"
    # With the default, to_request refuses what left_out names, and says so.
    assert kinds(transcript) == kinds(transcript, unsupported="note")
    assert anthropic.left_out(transcript)[0].why.endswith('refuses it unless unsupported="note"')
    with pytest.raises(UnsupportedContent):
        anthropic.to_request(transcript)
    # With notes, the media's place holds the note, and the image goes without its detail.
    notes = tuple(
        ct.TextBlock(text=note_text("Anthropic", block)) for block in (video, audio, bmp, fetched)
    )
    without = [
        ct.UserMultimodalMessage(
            content=(
                ct.TextBlock(text="Look."),
                *notes,
                ct.ImageUrlBlock(url="https://img.example/a.png"),
            )
        )
    ]
    assert anthropic.to_request(transcript, unsupported="note") == anthropic.to_request(without)
    assert anthropic.left_out(without) == []


def test_left_out_refuses_what_to_request_refuses() -> None:
    unknown = ct.UnknownMessage(role="critic", raw=b'{"role":"critic"}')
    with pytest.raises(DialectError, match="message 1"):
        anthropic.to_request([Q, unknown])
    # A message a newer writer made is named, as to_request(..., unknown="skip") leaves it out.
    assert [(p.index, p.what) for p in anthropic.left_out([Q, unknown])] == [(1, "unknown")]
    block = ct.UnknownBlock(type="hologram", raw=b'{"type":"hologram"}')
    with pytest.raises(DialectError, match="hologram"):
        anthropic.left_out([ct.UserMultimodalMessage(content=(block,))])
    with pytest.raises(TypeError, match="message 1: not a convtypes message"):
        anthropic.left_out([Q, {"role": "user"}])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="left_out takes an iterable of messages"):
        anthropic.left_out("Question?")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match='unsupported= must be "raise" or "note"'):
        anthropic.left_out([Q], unsupported="drop")  # type: ignore[arg-type]


def test_hostile_ids_in_items_are_passed_over_not_crashed_on() -> None:
    items = ct.ProviderOutputItemsMessage(
        protocol="anthropic",
        items=(
            {"type": "thinking", "thinking": [1], "signature": {"s": 1}},
            {"type": "redacted_thinking", "data": {}},
            {"type": "server_tool_use", "id": {"a": 1}, "name": "web_search", "input": {}},
            {"type": "tool_use", "id": [1], "caller": {"tool_id": {}}},
            {"type": "web_search_tool_result", "tool_use_id": [2], "content": []},
        ),
    )
    after = ct.AssistantMessage(thinking=(ct.ThinkingBlock(text="x", signature="s"),))
    transcript: list[ct.Message] = [Q, items, after, ct.UserMessage(content="u")]
    # Thinking without a signature in text, and the call, are left out; the
    # other odd blocks go as they are (the API judges them); and the
    # message's thinking, which the items do not hold, is said too.
    assert kinds(transcript) == [(1, "thinking"), (1, "call"), (2, "thinking")]
    body = anthropic.to_request(transcript)
    assert [b["type"] for b in body["messages"][1]["content"]] == [
        "redacted_thinking",
        "server_tool_use",
        "web_search_tool_result",
    ]


# --- left_out, exactly: an independent stripper, and what is sent ---------------------------

_USERS = st.one_of(
    st.builds(ct.UserMessage, content=cst.texts(12)),
    st.lists(
        st.one_of(
            st.builds(ct.TextBlock, text=cst.texts(12)),
            st.builds(
                ct.ImageUrlBlock,
                url=st.just("https://img.example/a.png"),
                detail=st.sampled_from(["auto", "low", "high"]),
            ),
            st.builds(
                ct.ImageBase64Block,
                data=st.just("iVBORw0KGgo="),
                media_type=st.sampled_from(["image/png", "image/JPG"]),
            ),
        ),
        max_size=3,
    ).map(lambda blocks: ct.UserMultimodalMessage(content=tuple(blocks))),
)


@st.composite
def _aged(draw: st.DrawFn, message: ct.ProviderOutputItemsMessage) -> ct.ProviderOutputItemsMessage:
    """The items as an older version or an edited request may have left them."""
    items: list[Any] = []
    for raw in message.items:
        item: Any = raw
        if isinstance(item, dict):
            if draw(st.integers(0, 3)) == 0:
                item = {**item, "cache_control": {"type": "ephemeral"}}
            if draw(st.integers(0, 5)) == 0:
                item = {**item, "parsed_output": None}
        items.append(item)
    if draw(st.integers(0, 4)) == 0:
        items.insert(draw(st.integers(0, len(items))), "stray")
    return ct.ProviderOutputItemsMessage(protocol="anthropic", items=items)


@st.composite
def stored(draw: st.DrawFn, aged: bool = True) -> list[Any]:
    """Transcripts as a backend stores them: replies read by this dialect (some with
    items an older version left), messages written by hand or by other dialects,
    blank text, thinking of any kind, images with a detail; every call answered."""
    serial = itertools.count()
    messages: list[Any] = []
    if draw(st.booleans()):
        messages.append(ct.SystemMessage(content=draw(cst.texts(12))))
    for _ in range(draw(st.integers(1, 3))):
        messages.append(Q)
        if aged and draw(st.booleans()):
            messages.append(draw(_USERS))
        for _ in range(draw(st.integers(1, 2))):
            kind = draw(st.sampled_from(["reply", "message", "foreign"] if aged else ["reply"]))
            if kind == "reply":
                blocks = numbered(draw(GROUPS), serial)
                limit = aged and draw(st.booleans())
                for message in anthropic.from_response(reply_of(blocks, stop_for(blocks, limit))):
                    if aged and isinstance(message, ct.ProviderOutputItemsMessage):
                        message = draw(_aged(message))
                    messages.append(message)
            elif kind == "message":
                calls = tuple(
                    ct.ToolCall(
                        id=f"toolu_{next(serial):04d}",
                        name="f",
                        arguments=draw(
                            st.dictionaries(cst.texts(6), cst.json_values(4), max_size=2)
                        ),
                    )
                    for _ in range(draw(st.integers(0, 2)))
                )
                thinking = tuple(draw(st.lists(cst.thinking_blocks(), max_size=2)))
                messages.append(
                    ct.AssistantMessage(
                        content=draw(cst.texts(12)), tool_calls=calls, thinking=thinking
                    )
                )
            else:
                items = tuple(draw(st.lists(cst.json_values(3), max_size=2)))
                messages.append(
                    ct.ProviderOutputItemsMessage(protocol="openai-responses", items=items)
                )
                messages.append(ct.AssistantMessage(content=draw(cst.texts(12))))
            messages = ct.close_open_calls(messages, "r")
    return messages


def _anthropic_items(message: object) -> TypeGuard[ct.ProviderOutputItemsMessage]:
    return isinstance(message, ct.ProviderOutputItemsMessage) and message.protocol == "anthropic"


def joined(items: tuple[Any, ...]) -> str:
    """The reply text kept items say: adjacent texts as one, runs a blank line apart."""
    runs: list[str] = [""]
    for item in items:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "text":
            runs[-1] += item["text"] if isinstance(item.get("text"), str) else ""
        elif runs[-1]:
            runs.append("")
    return "\n\n".join(run for run in runs if run)


def _thought(text: Any, signature: Any, data: Any) -> tuple[Any, ...]:
    return ("redacted", data) if data is not None else ("signed", text, signature or "")


def held(items: tuple[Any, ...]) -> set[tuple[Any, ...]]:
    out = set()
    for item in items:
        if isinstance(item, dict) and item.get("type") == "thinking":
            out.add(_thought(item.get("thinking"), item.get("signature"), None))
        elif isinstance(item, dict) and item.get("type") == "redacted_thinking":
            out.add(_thought(None, None, item.get("data")))
    return out


def _open_uses(transcript: list[Any], index: int, answered: set[Any]) -> set[str]:
    """The documented rule: server uses with no result in their turn once a user follows."""
    items = [i for i in transcript[index].items if isinstance(i, dict)]
    uses = {i["id"] for i in items if i.get("type") in SERVER_USES and isinstance(i.get("id"), str)}
    uses -= {i.get("tool_use_id") for i in items}
    uses -= {
        i["caller"].get("tool_id")
        for i in items
        if i.get("type") == "tool_use"
        and i.get("id") in answered
        and isinstance(i.get("caller"), dict)
    }
    for later in transcript[index + 1 :]:
        if isinstance(later, (ct.UserMessage, ct.UserMultimodalMessage, ct.ToolResultMessage)):
            return uses
        if _anthropic_items(later):
            uses -= {i.get("tool_use_id") for i in later.items if isinstance(i, dict)}
    return set()


def _stripped_items(
    transcript: list[Any], index: int, removed: Counter[tuple[int, str]]
) -> tuple[Any, ...]:
    after = transcript[index + 1] if index + 1 < len(transcript) else None
    answered = {c.id for c in after.tool_calls} if isinstance(after, ct.AssistantMessage) else set()
    uses = _open_uses(transcript, index, answered)
    out = []
    for item in transcript[index].items:
        kind = item.get("type") if isinstance(item, dict) else None
        if not isinstance(item, dict):
            removed[(index, "items")] += 1
        elif kind == "text" and not str(item.get("text", "")).strip():
            removed[(index, "text")] += 1
        elif kind == "thinking" and not item.get("signature"):
            removed[(index, "thinking")] += 1
        elif kind == "tool_use" and item.get("id") not in answered:
            removed[(index, "call")] += 1
        elif kind in SERVER_USES and item.get("id") in uses:
            removed[(index, "call")] += 1
        else:
            if "parsed_output" in item:
                removed[(index, "items")] += 1
            removed[(index, "cache-control")] += "cache_control" in item
            out.append(
                {
                    key: value
                    for key, value in item.items()
                    if key not in ("parsed_output", "cache_control")
                }
            )
    return tuple(out)


def ends_in_thinking(note: LeftOut) -> bool:
    """Whether ``note`` names thinking not sent because its assistant turn would end in it."""
    return (
        note.what in ("thinking", "redacted-thinking")
        and "whose final block is thinking" in note.why
    )


def strip(transcript: list[Any]) -> tuple[list[Any], Counter[tuple[int, str]]]:
    """The transcript without what the Anthropic page says a request leaves out,
    and how many pieces of each kind were taken from each message.

    Written from the documented rules, apart from the dialect's code.
    """
    removed: Counter[tuple[int, str]] = Counter()
    out: list[Any] = []
    for index, message in enumerate(transcript):
        before = transcript[index - 1] if index else None
        if isinstance(message, ct.AssistantMessage):
            content = message.content
            thinking: list[ct.ThinkingBlock] = []
            if _anthropic_items(before):
                had, has = held(before.items), held(out[index - 1].items)
                for thought in message.thinking:
                    key = _thought(thought.text, thought.signature, thought.redacted_data)
                    if key not in had:
                        redacted = thought.redacted_data is not None
                        removed[(index, "redacted-thinking" if redacted else "thinking")] += 1
                    elif key in has:
                        thinking.append(thought)
                if content == joined(before.items):
                    content = joined(out[index - 1].items)
                elif content.isspace():
                    content, removed[(index, "text")] = "", removed[(index, "text")] + 1
            else:
                for thought in message.thinking:
                    if thought.redacted_data is not None:
                        if thought.text or thought.signature:
                            removed[(index, "thinking")] += 1
                        thinking.append(ct.ThinkingBlock(redacted_data=thought.redacted_data))
                    elif thought.signature:
                        thinking.append(thought)
                    else:
                        removed[(index, "thinking")] += 1
                if content.isspace():
                    content, removed[(index, "text")] = "", removed[(index, "text")] + 1
            out.append(
                ct.AssistantMessage(
                    content=content, tool_calls=message.tool_calls, thinking=tuple(thinking)
                )
            )
        elif isinstance(message, ct.UserMessage) and message.content.isspace():
            removed[(index, "text")] += 1
            out.append(ct.UserMessage(content=""))
        elif isinstance(message, ct.UserMultimodalMessage):
            blocks: list[Any] = []
            for block in message.content:
                if isinstance(block, ct.TextBlock) and not block.text.strip():
                    removed[(index, "text")] += 1
                elif isinstance(block, ct.ImageUrlBlock) and block.detail != "auto":
                    removed[(index, "detail")] += 1
                    blocks.append(ct.ImageUrlBlock(url=block.url))
                else:
                    blocks.append(block)
            out.append(ct.UserMultimodalMessage(content=tuple(blocks)))
        elif isinstance(message, ct.ProviderOutputItemsMessage):
            if _anthropic_items(message):
                items = _stripped_items(transcript, index, removed)
            else:
                removed[(index, "items")] += bool(message.items)
                items = ()
            out.append(ct.ProviderOutputItemsMessage(protocol=message.protocol, items=items))
        else:
            out.append(message)
    return out, +removed


def unsent(transcript: list[Any], body: dict[str, Any]) -> list[str]:
    """What of ``transcript`` the request ``body`` does not hold."""
    blocks = [block for turn in body["messages"] for block in turn["content"]]
    texts = {block["text"] for block in blocks if block["type"] == "text"}
    system = body.get("system", "")
    prompt = system if isinstance(system, str) else system[0]["text"]
    missing: list[str] = []
    for index, m in enumerate(transcript):
        before = transcript[index - 1] if index else None
        if isinstance(m, ct.SystemMessage) and m.content not in prompt:
            missing.append(f"{index}: system")
        elif isinstance(m, ct.UserMessage) and m.content and m.content not in texts:
            missing.append(f"{index}: text")
        elif isinstance(m, ct.UserMultimodalMessage):
            for block in m.content:
                if isinstance(block, ct.TextBlock):
                    found = block.text in texts
                elif isinstance(block, ct.ImageUrlBlock):
                    found = any(b.get("source", {}).get("url") == block.url for b in blocks)
                else:
                    assert isinstance(block, ct.ImageBase64Block)  # the only other kind made
                    found = any(b.get("source", {}).get("data") == block.data for b in blocks)
                if not found:
                    missing.append(f"{index}: {block}")
        elif isinstance(m, ct.AssistantMessage):
            said = m.content in texts or (
                _anthropic_items(before) and m.content == joined(before.items)
            )
            if m.content and not said:
                missing.append(f"{index}: text")
            for t in m.thinking:
                sent = (
                    {"type": "redacted_thinking", "data": t.redacted_data}
                    if t.redacted_data is not None
                    else {"type": "thinking", "thinking": t.text, "signature": t.signature}
                )
                if sent not in blocks:
                    missing.append(f"{index}: {t}")
            for c in m.tool_calls:
                if not any(
                    b["type"] == "tool_use" and b["name"] == c.name and b["input"] == c.arguments
                    for b in blocks
                ):
                    missing.append(f"{index}: {c}")
        elif isinstance(m, ct.ToolResultMessage):
            if not any(b["type"] == "tool_result" and m.content in b["content"] for b in blocks):
                missing.append(f"{index}: result")
        elif _anthropic_items(m):
            missing += [f"{index}: {item}" for item in m.items if item not in blocks]
        elif isinstance(m, ct.ProviderOutputItemsMessage) and m.items:
            missing.append(f"{index}: items")
    return missing


def test_the_unsent_check_finds_what_a_request_lacks() -> None:
    transcript, removed = strip(session())
    assert removed == Counter({(2, "text"): 1})  # the space between two cited texts
    body = anthropic.to_request(transcript)
    assert unsent(transcript, body) == []
    del body["messages"][1]["content"][0]  # the signed thinking
    body["messages"][0]["content"].pop()  # the image
    body["system"] = "Other."
    # The thinking is missed twice: as an item, and as the reply's thinking.
    assert [m.split(":")[0] for m in unsent(transcript, body)] == ["0", "1", "2", "3"]


@settings(max_examples=examples(200, 40))
@given(stored())
def test_left_out_names_exactly_what_is_not_sent(transcript: list[Any]) -> None:
    reported = anthropic.left_out(transcript)
    # A turn that would end in thinking has tests of its own (test_anthropic_thinking_tail).
    assume(not any(ends_in_thinking(note) for note in reported))
    assert [lo.index for lo in reported] == sorted(lo.index for lo in reported)
    without, removed = strip(transcript)
    assert Counter((lo.index, lo.what) for lo in reported) == removed
    body = anthropic.to_request(transcript)
    validate(body, beta=True)
    # What was reported was not sent: without it, the same request.
    assert anthropic.to_request(without) == body
    # And nothing else was dropped: the rest is all in the request.
    assert anthropic.left_out(without) == []
    assert unsent(without, body) == []


@settings(max_examples=examples(100, 20))
@given(stored(aged=False))
def test_a_transcript_of_replies_leaves_out_only_what_the_api_refuses(
    transcript: list[Any],
) -> None:
    # Replies read by this dialect, the user's questions and the results: only blank text
    # between blocks, server uses the API left without a result, and a reply cut after its
    # thinking (the API refuses a turn that ends in thinking) are not sent.
    reported = anthropic.left_out(transcript)
    assert {lo.what for lo in reported if not ends_in_thinking(lo)} <= {"text", "call"}


@settings(max_examples=examples(100, 20))
@given(stored(), st.sampled_from([False, True, "1h"]))
def test_any_request_is_the_callers(transcript: list[Any], cache: Any) -> None:
    body = assert_owned(lambda: anthropic.to_request(transcript, cache=cache), transcript)
    assert marker_faults(body, ttl_of(cache)) == []
