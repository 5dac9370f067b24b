"""An assistant turn never ends in thinking on the Anthropic wire.

The Messages API refuses an assistant message whose final block is
thinking ("The final block in an assistant message cannot be `thinking`",
reported in tailcallhq/forgecode#2107). A reply cut at the token limit
right after a complete, signed thinking block reads as a turn of that block
alone; sending it back would be refused, so it is left out and ``left_out``
names it. Built from the anthropic SDK's own types.
"""

from __future__ import annotations

from typing import Any

from anthropic.types import Message as AnthropicMessage
from test_anthropic_turn import feed_all, reply_of, sdk_events, stream_of, validate

import convtypes as ct
from convtypes.dialects import anthropic

THOUGHT = {"type": "thinking", "thinking": "Start with the base case.", "signature": "EqQBCkYI"}
REDACTED = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"}
QUESTION = ct.UserMessage(content="Prove it by induction.")
GO_ON = ct.UserMessage(content="Go on.")


def _cut_after_thinking(*blocks: dict[str, Any]) -> list[ct.Message]:
    """The messages of a reply cut at the token limit after ``blocks``, read from the SDK."""
    whole = reply_of(list(blocks), "max_tokens")
    messages = anthropic.from_response(AnthropicMessage.model_validate(whole))
    # Streamed, the same: the stream ends after the thinking block stops.
    accumulator, _ = feed_all(sdk_events(stream_of(whole)))
    assert accumulator.result() == messages
    return messages


def test_a_reply_cut_after_its_thinking_is_not_sent_back() -> None:
    reply = _cut_after_thinking(THOUGHT)
    transcript = [QUESTION, *reply, GO_ON]
    body = anthropic.to_request(transcript)
    validate(body)
    # No assistant turn: the two user turns around it are one.
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": QUESTION.content},
                {"type": "text", "text": GO_ON.content},
            ],
        }
    ]
    notes = anthropic.left_out(transcript)
    assert [(note.index, note.what) for note in notes] == [(1, "thinking")]
    assert "final block is thinking" in notes[0].why


def test_a_cut_reply_at_the_end_leaves_the_request_ending_with_the_user() -> None:
    reply = _cut_after_thinking(THOUGHT, REDACTED)
    body = anthropic.to_request([QUESTION, *reply])
    validate(body)
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": QUESTION.content}]}
    ]


def test_thinking_built_in_python_alone_is_left_out_too() -> None:
    signed = ct.ThinkingBlock(text="Base case first.", signature="EqQBCkYI")
    transcript: list[ct.Message] = [QUESTION, ct.AssistantMessage(thinking=(signed,)), GO_ON]
    body = anthropic.to_request(transcript)
    validate(body)
    assert [turn["role"] for turn in body["messages"]] == ["user"]
    assert [(note.index, note.what) for note in anthropic.left_out(transcript)] == [(1, "thinking")]


def test_a_turn_with_an_answer_after_its_thinking_goes_whole() -> None:
    text = {"type": "text", "text": "For n = 0 it holds.", "citations": None}
    whole = reply_of([THOUGHT, text])
    reply = anthropic.from_response(AnthropicMessage.model_validate(whole))
    transcript = [QUESTION, *reply, GO_ON]
    body = anthropic.to_request(transcript)
    validate(body)
    assert body["messages"][1]["content"] == [THOUGHT, {"type": "text", "text": text["text"]}]
    assert anthropic.left_out(transcript) == []


def test_a_later_turn_s_thinking_goes_when_the_turn_ends_in_an_answer() -> None:
    # Thinking-only, then (a retry) a reply with an answer: only the first turn goes.
    retry = reply_of([THOUGHT, {"type": "text", "text": "Done."}])
    transcript = [
        QUESTION,
        *_cut_after_thinking(THOUGHT),
        GO_ON,
        *anthropic.from_response(retry),
        ct.UserMessage(content="Thanks."),
    ]
    body = anthropic.to_request(transcript)
    validate(body)
    assert [turn["role"] for turn in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"][-1] == {"type": "text", "text": "Done."}


def test_each_cut_block_is_named_where_it_is_kept() -> None:
    # Kept items whose last block is thinking: the note names that item, so a
    # program can take exactly it out (and the request is then the same).
    items = ct.ProviderOutputItemsMessage(
        protocol="anthropic",
        items=(
            {"type": "text", "text": "0"},
            {"type": "thinking", "thinking": "", "signature": "sig"},
        ),
    )
    after = ct.AssistantMessage(content="0", thinking=(ct.ThinkingBlock(text="", signature="sig"),))
    transcript: list[ct.Message] = [QUESTION, items, after]
    notes = anthropic.left_out(transcript)
    assert [(n.index, n.what, n.why.split(":")[0]) for n in notes] == [(1, "thinking", "item 1")]
    trimmed = ct.ProviderOutputItemsMessage(protocol="anthropic", items=items.items[:1])
    body = anthropic.to_request(transcript)
    assert anthropic.to_request([QUESTION, trimmed, ct.AssistantMessage(content="0")]) == body
    # Thinking alone, built in Python: each block by its place, redacted ones as such.
    alone = ct.AssistantMessage(
        content="",
        thinking=(ct.ThinkingBlock(text="t", signature="s"), ct.ThinkingBlock(redacted_data="r")),
    )
    notes = anthropic.left_out([QUESTION, alone])
    assert [(n.index, n.what, n.why.split(":")[0]) for n in notes] == [
        (1, "thinking", "thinking block 0"),
        (1, "redacted-thinking", "thinking block 1"),
    ]
