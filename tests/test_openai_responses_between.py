"""Between two Responses API turns: a cancel, a stateless store, what is left out.

After a cancel, the transcript (the partial reply, its open calls closed,
the user's next message) must make a request the API takes: every
``function_call`` with its ``function_call_output``, and no ``reasoning``
item without the item that followed it in the output (the API answers 400
"was provided without its required following item"). With ``store=False``
nothing in the request may refer to what only the server kept. The request
belongs to the caller, and ``left_out`` names exactly what it does not send.

The streams are the turn tests' recorded-style ones (``stream_of``), over
outputs drawn to hold every shape: reasoning (with and without encrypted
content, summaries and reasoning text), parallel calls, server tools,
citations, refusals, and replies cut at the token limit. Requests are
validated against the openai SDK's ``ResponseCreateParams``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_openai_responses_turn import (
    CITED,
    FILE_SEARCH,
    REASONING,
    WEB_SEARCH,
    call_item,
    feed,
    message_item,
    refusal_part,
    response,
    stream_of,
    text_part,
    validate_request,
)

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import LEFT_OUT_KINDS, LeftOut, ToolSpec, openai_responses
from convtypes.dialects.openai_responses import _request as req

from budget import examples
from ownership import assert_owned

R = openai_responses
QUESTION = ct.UserMessage(content="Weather in Oslo, and the time?")
NEVER_MIND = ct.UserMessage(content="Never mind.")


# --- outputs of every shape -----------------------------------------------------------


def reasoning(number: int, encrypted: bool = True, text: bool = False) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "reasoning",
        "id": f"rs_{number}",
        "summary": [{"type": "summary_text", "text": f"Thought {number}, in brief."}],
    }
    if text:
        item["content"] = [{"type": "reasoning_text", "text": f"Thought {number}, in full."}]
    if encrypted:
        item["encrypted_content"] = f"gAAAA-{number}-opaque"
    return item


@st.composite
def outputs(draw: st.DrawFn) -> tuple[list[dict[str, Any]], str]:
    """A reply's output items and its status, as the API sends them.

    One to three steps, each perhaps led by a reasoning item: a message, a
    refusal, parallel function calls, or server tools and a cited message.
    An incomplete reply may end in a reasoning item or a call cut off.
    """
    out: list[dict[str, Any]] = []
    serial = 0
    for _ in range(draw(st.integers(1, 3))):
        serial += 1
        if draw(st.booleans()):
            out.append(reasoning(serial, draw(st.booleans()), draw(st.booleans())))
        step = draw(st.sampled_from(["message", "refusal", "calls", "server"]))
        if step == "message":
            out.append(message_item(text_part(f"Answer {serial}."), item_id=f"msg_{serial}"))
        elif step == "refusal":
            out.append(message_item(refusal_part("I can't."), item_id=f"msg_{serial}"))
        elif step == "calls":
            for n in range(draw(st.integers(1, 3))):
                arguments = json.dumps({"city": "Oslo", "nested": {"n": [n, {"deep": None}]}})
                out.append(call_item(serial * 10 + n, f"tool{n}", arguments))
        else:
            out += [WEB_SEARCH, FILE_SEARCH, {**CITED, "id": f"msg_{serial}"}]
    if draw(st.booleans()):
        return out, "completed"
    ending = draw(st.sampled_from(["reasoning", "cut call", "as is"]))
    if ending == "reasoning":
        out.append(reasoning(99, draw(st.booleans())))
    elif ending == "cut call":
        out.append(call_item(99, "cut", '{"city": "Os', status="incomplete"))
    return out, "incomplete"


def followers(output: list[dict[str, Any]]) -> dict[str, str | None]:
    """For each reasoning item, the id of the item that followed it (``None``: none did)."""
    return {
        item["id"]: output[at + 1].get("id") if at + 1 < len(output) else None
        for at, item in enumerate(output)
        if item["type"] == "reasoning"
    }


# --- the provider's rules, checked on a request ----------------------------------------


def check_rules(body: dict[str, Any], following: dict[str, str | None]) -> None:
    """The pairing rules the API enforces, and nothing sent that says nothing.

    Every ``function_call`` has its ``function_call_output`` before the next
    user message (and no output comes without its call); every ``reasoning``
    item is followed by the item that followed it in the output; no
    assistant message is empty.
    """
    items: list[dict[str, Any]] = body["input"]
    waiting: dict[str, bool] = {}
    for at, item in enumerate(items):
        kind = item.get("type")
        if item.get("role") == "user":
            assert all(waiting.values()), f"input[{at}]: a call has no output before it"
            waiting = {}
        elif item.get("role") == "assistant" and kind is None:
            assert item["content"], f"input[{at}]: an empty assistant message"
        elif kind == "function_call":
            assert item["call_id"] not in waiting, f"input[{at}]: a call id given twice"
            waiting[item["call_id"]] = False
        elif kind == "function_call_output":
            assert waiting.get(item["call_id"]) is False, f"input[{at}]: an output without call"
            waiting[item["call_id"]] = True
        elif kind == "reasoning":
            expected = following.get(item["id"])
            assert expected is not None, f"input[{at}]: reasoning that nothing followed"
            assert at + 1 < len(items), f"input[{at}]: reasoning sent last"
            assert items[at + 1].get("id") == expected, f"input[{at}]: reasoning out of place"
    assert all(waiting.values())


def check_stateless(body: dict[str, Any]) -> None:
    """``store=False``: nothing refers to what only the server kept."""
    assert body["store"] is False
    assert body["include"] == ["reasoning.encrypted_content"]
    for item in body["input"]:
        assert item.get("type") != "item_reference"
        if item.get("type") == "reasoning":
            assert item["encrypted_content"]


# --- after a cancel, the next request is one the API takes -----------------------------


@settings(max_examples=examples(150, 20), deadline=None)
@given(outputs(), st.booleans(), st.booleans())
def test_a_stream_cut_after_any_event_makes_a_request_the_api_takes(
    drawn: tuple[list[dict[str, Any]], str], done: bool, store: bool
) -> None:
    output, status = drawn
    reason = "max_output_tokens" if status == "incomplete" else None
    events = stream_of(response(output, status=status, reason=reason), done=done)
    following = followers(output)
    history: list[ct.Message] = [ct.SystemMessage(content="Be brief."), QUESTION]
    for stop in range(len(events) + 1):
        accumulator, _ = feed(events[:stop])
        transcript = ct.close_open_calls([*history, *accumulator.partial()], "cancelled")
        transcript.append(NEVER_MIND)
        body = R.to_request(transcript, store=store)
        validate_request(body)
        check_rules(body, following)
        if not store:
            check_stateless(body)
        # What is left out is the partial reply's own: a lone reasoning item,
        # a call cut off, (stateless) reasoning only the server kept, and the
        # thinking of a reasoning item still streaming, which has no item yet.
        for note in R.left_out(transcript, store=store):
            assert note.index in (len(history), len(history) + 1)
            assert note.what in ("thinking", "call")


def test_a_cancel_after_the_reasoning_while_the_call_streams_sends_no_lone_reasoning() -> None:
    # The issue's case: the reasoning item is done, the function call is not.
    output = [REASONING, call_item(0, "weather", '{"city": "Oslo"}')]
    events = stream_of(response(output))
    cut = next(
        n for n, e in enumerate(events) if e["type"] == "response.function_call_arguments.delta"
    )
    accumulator, _ = feed(events[: cut + 1])
    items, assistant = accumulator.partial()
    assert isinstance(items, ct.ProviderOutputItemsMessage)
    assert items.items == (REASONING,)  # what arrived stays stored
    assert isinstance(assistant, ct.AssistantMessage) and assistant.tool_calls == ()
    transcript = ct.close_open_calls([QUESTION, items, assistant], "cancelled")
    body = R.to_request([*transcript, NEVER_MIND])
    validate_request(body)
    assert body["input"] == [
        {"role": "user", "content": QUESTION.content},
        {"role": "user", "content": "Never mind."},
    ]
    assert R.left_out(transcript) == [LeftOut(1, "thinking", f"item 0: {req._LONE_REASONING}")]


def test_a_whole_call_whose_item_is_not_done_goes_plain_and_its_reasoning_stays_out() -> None:
    output = [REASONING, call_item(0, "weather", '{"city": "Oslo"}')]
    events = stream_of(response(output))
    last_delta = max(
        n for n, e in enumerate(events) if e["type"] == "response.function_call_arguments.delta"
    )
    accumulator, _ = feed(events[: last_delta + 1])  # arguments whole, item not done
    transcript = ct.close_open_calls([QUESTION, *accumulator.partial()], "cancelled")
    assert ct.open_calls(transcript) == []
    body = R.to_request([*transcript, NEVER_MIND])
    validate_request(body)
    assert body["input"][1:3] == [
        {
            "type": "function_call",
            "call_id": "call_0b",
            "name": "weather",
            "arguments": '{"city":"Oslo"}',
        },
        {"type": "function_call_output", "call_id": "call_0b", "output": "cancelled"},
    ]
    assert R.left_out(transcript) == [LeftOut(1, "thinking", f"item 0: {req._LONE_REASONING}")]
    # Once the item is done, the reasoning goes with it.
    accumulator, _ = feed(events[: last_delta + 2])
    assert events[last_delta + 1]["type"] == "response.output_item.done"
    transcript = ct.close_open_calls([QUESTION, *accumulator.partial()], "cancelled")
    body = R.to_request([*transcript, NEVER_MIND])
    assert body["input"][1:3] == output
    assert R.left_out(transcript) == []


def test_an_incomplete_reply_holding_only_reasoning_sends_no_turn() -> None:
    whole = response([REASONING], status="incomplete", reason="max_output_tokens")
    reply = R.read_reply(whole)
    assert reply.stop_reason == "max_tokens" and reply.tool_calls == []
    transcript: list[ct.Message] = [QUESTION, *reply.messages, NEVER_MIND]
    body = R.to_request(transcript)
    validate_request(body)
    assert [item["content"] for item in body["input"]] == [QUESTION.content, "Never mind."]
    assert R.left_out(transcript) == [LeftOut(1, "thinking", f"item 0: {req._LONE_REASONING}")]
    # The same reply streamed reads the same, and sends the same.
    accumulator, _ = feed(stream_of(whole))
    assert R.to_request([QUESTION, *accumulator.result(), NEVER_MIND]) == body


def test_reasoning_goes_just_before_what_followed_it_or_not_at_all() -> None:
    first, second = reasoning(1), reasoning(2)
    message = message_item(text_part("Done."))
    cut = call_item(3, "f", '{"a": ', status="incomplete")
    items = ct.ProviderOutputItemsMessage(
        protocol="openai-responses", items=(first, second, message, reasoning(3), cut)
    )
    transcript: list[ct.Message] = [QUESTION, items, NEVER_MIND]
    body = R.to_request(transcript)
    validate_request(body)
    # The second reasoning item is followed by the message; the first by the
    # second (sent); the third by a call cut off, which goes nowhere.
    assert body["input"][1:4] == [first, second, message]
    assert len(body["input"]) == 5
    assert R.left_out(transcript) == [
        LeftOut(1, "thinking", f"item 3: {req._LONE_REASONING}"),
        LeftOut(1, "call", f"item 4: {req._CUT_CALL}"),
    ]
    # Without the two pieces named, the request is the same.
    trimmed = ct.ProviderOutputItemsMessage(
        protocol="openai-responses", items=(first, second, message)
    )
    assert R.to_request([QUESTION, trimmed, NEVER_MIND]) == body
    assert R.left_out([QUESTION, trimmed, NEVER_MIND]) == []


# --- stateless: store=False --------------------------------------------------------------


def test_store_false_asks_for_encrypted_reasoning_and_keeps_ids_beside_it() -> None:
    output = [REASONING, call_item(0, "weather", '{"city": "Oslo"}')]
    reply = R.read_reply(response(output))
    transcript: list[ct.Message] = [
        QUESTION,
        *reply.messages,
        ct.ToolResultMessage(tool_use_id="call_0b", content="Rain"),
    ]
    body = R.to_request(transcript, store=False)
    validate_request(body)
    check_stateless(body)
    # The items go back whole: the reasoning's id with its encrypted content
    # (the SDK's input types require the id, and the API checks the content
    # against it), the call's id too.
    assert body["input"][1:3] == output
    assert R.left_out(transcript, store=False) == []
    # With store=True (the default) the body holds neither field.
    assert set(R.to_request(transcript)) == {"input"}


def test_store_false_leaves_out_what_only_the_server_kept() -> None:
    bare = reasoning(1, encrypted=False)
    call = call_item(0, "weather", '{"city": "Oslo"}')
    reference = {"type": "item_reference", "id": "msg_0"}
    items = ct.ProviderOutputItemsMessage(
        protocol="openai-responses", items=(reference, bare, call)
    )
    transcript: list[ct.Message] = [
        QUESTION,
        items,
        ct.AssistantMessage(
            tool_calls=(ct.ToolCall(id="call_0b", name="weather", arguments={"city": "Oslo"}),),
            thinking=(ct.ThinkingBlock(text="Thought 1, in brief."),),
        ),
        ct.ToolResultMessage(tool_use_id="call_0b", content="Rain"),
        NEVER_MIND,
    ]
    body = R.to_request(transcript, store=False)
    validate_request(body)
    check_stateless(body)
    # What followed the reasoning still goes, and is still answered.
    assert [item.get("type") for item in body["input"]] == [
        None,
        "function_call",
        "function_call_output",
        None,
    ]
    assert body["input"][1] == call
    assert R.left_out(transcript, store=False) == [
        LeftOut(1, "items", f"item 0: {req._STORED['item_reference']}"),
        LeftOut(1, "thinking", f"item 1: {req._STORED['reasoning']}"),
    ]
    # Stored (the default), the server resolves both, and both go.
    stored = R.to_request(transcript)
    assert stored["input"][1:4] == [reference, bare, call]
    assert R.left_out(transcript) == []
    # Removing what was reported leaves the stateless request as it was.
    trimmed: list[ct.Message] = [
        QUESTION,
        ct.ProviderOutputItemsMessage(protocol="openai-responses", items=(call,)),
        *transcript[2:],
    ]
    assert R.to_request(trimmed, store=False) == body


@pytest.mark.parametrize("store", [None, 0, "false", 1.0])
def test_store_must_be_a_bool(store: Any) -> None:
    with pytest.raises(TypeError, match=r"store= must be True or False, not"):
        R.to_request([QUESTION], store=store)
    with pytest.raises(TypeError, match=r"store= must be True or False, not"):
        R.left_out([QUESTION], store=store)


def test_store_false_validates_with_the_callers_other_fields() -> None:
    body = {
        "model": "gpt-5",
        **R.to_request([QUESTION], store=False),
        "reasoning": {"effort": "low", "summary": "auto"},
    }
    validate_request(body)
    assert body["store"] is False


# --- the request belongs to the caller ----------------------------------------------------


def test_the_request_shares_nothing_with_the_transcript() -> None:
    reply = R.read_reply(
        response(
            [REASONING, WEB_SEARCH, FILE_SEARCH, CITED, call_item(0, "f", '{"a": {"b": [1]}}')]
        )
    )
    transcript: list[ct.Message] = [
        ct.SystemMessage(content="s"),
        QUESTION,
        *reply.messages,
        ct.ToolResultMessage(tool_use_id="call_0b", content="ok"),
        ct.AssistantMessage(
            content="More.",
            tool_calls=(ct.ToolCall(id="c9", name="g", arguments={"deep": {"list": [{"x": 1}]}}),),
        ),
        ct.ToolResultMessage(tool_use_id="c9", content="ok"),
        ct.UserMultimodalMessage(
            content=(ct.TextBlock(text="see"), ct.ImageUrlBlock(url="https://x.test/a.png"))
        ),
    ]
    for store in (True, False):

        def build(store: bool = store) -> dict[str, Any]:
            return R.to_request(transcript, store=store)

        assert_owned(build, transcript)


def test_the_tools_request_shares_nothing_with_the_specs() -> None:
    specs = [
        ToolSpec(
            name="lookup",
            parameters={
                "type": "object",
                "properties": {"where": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
                "$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array"}}}},
            },
        ),
        ToolSpec(
            name="recursive", parameters={"$ref": "#/$defs/N", "$defs": {"N": {"type": "object"}}}
        ),
    ]
    assert_owned(lambda: R.tools_to_request(specs, choice="lookup"), specs)


def _with_items(messages: list[ct.Message], items: list[Any]) -> list[ct.Message]:
    """The conversation with a Responses items message before its first assistant message."""
    for at, message in enumerate(messages):
        if isinstance(message, ct.AssistantMessage):
            stored = ct.ProviderOutputItemsMessage(protocol="openai-responses", items=tuple(items))
            return [*messages[:at], stored, *messages[at:]]
    return messages


@settings(max_examples=examples(100, 25), deadline=None)
@given(cst.conversations(), st.lists(st.dictionaries(cst.texts(8), cst.json_values(8)), max_size=3))
def test_any_request_shares_nothing_with_its_transcript(
    messages: list[ct.Message], items: list[dict[str, Any]]
) -> None:
    transcript = _with_items(messages, [{**item, "type": "web_search_call"} for item in items])
    assert_owned(lambda: R.to_request(transcript, unsupported="note"), transcript)


# --- calls ready to answer ------------------------------------------------------------------


@settings(max_examples=examples(100, 20), deadline=None)
@given(outputs())
def test_a_replys_calls_carry_the_call_id_their_output_needs(
    drawn: tuple[list[dict[str, Any]], str],
) -> None:
    output, status = drawn
    whole = response(
        output, status=status, reason="max_output_tokens" if status != "completed" else None
    )
    reply = R.read_reply(whole)
    accumulator, _ = feed(stream_of(whole))
    assert accumulator.reply().tool_calls == reply.tool_calls
    completed = [
        item
        for item in output
        if item["type"] == "function_call" and item.get("status") != "incomplete"
    ]
    assert [(c.id, c.name) for c in reply.tool_calls] == [
        (item["call_id"], item["name"]) for item in completed
    ]
    # Answered by those ids, the next request pairs every call with its output.
    results = [ct.ToolResultMessage(tool_use_id=c.id, content="ok") for c in reply.tool_calls]
    transcript: list[ct.Message] = [QUESTION, *reply.messages, *results]
    body = R.to_request([*transcript, NEVER_MIND])
    validate_request(body)
    check_rules(body, followers(output))
    # A whole reply, answered, leaves nothing out but what an incomplete one cut off.
    expected = {"thinking", "call"} if status != "completed" else set()
    assert {note.what for note in R.left_out(transcript)} <= expected


# --- left_out: exactly what is not sent ----------------------------------------------------


def _same_request(first: list[ct.Message], second: list[ct.Message], **options: Any) -> None:
    assert R.to_request(first, **options) == R.to_request(second, **options)


def test_left_out_names_each_kind_and_removing_it_changes_nothing() -> None:
    signed = ct.ThinkingBlock(text="Anthropic's thought.", signature="c2ln")
    redacted = ct.ThinkingBlock(redacted_data="b3BhcXVl")
    foreign = ct.ProviderOutputItemsMessage(protocol="anthropic", items=({"type": "x"},))
    image = ct.ImageUrlBlock(url="https://x.test/a.png", detail="ultra")
    video = ct.VideoUrlBlock(url="https://x.test/v.mp4")
    transcript: list[ct.Message] = [
        ct.UserMultimodalMessage(content=(ct.TextBlock(text="look"), image, video)),
        foreign,
        ct.AssistantMessage(content="Seen.", thinking=(signed, redacted)),
        NEVER_MIND,
    ]
    notes = R.left_out(transcript, unsupported="note")
    assert notes == [
        LeftOut(0, "detail", "block 1: the API knows no image detail 'ultra'; it goes as 'auto'"),
        LeftOut(0, "video", "block 2: OpenAI Responses has no input part for video or audio"),
        LeftOut(1, "items", "items of protocol 'anthropic' mean nothing to OpenAI Responses"),
        LeftOut(2, "thinking", f"thinking block 0: {req._THINKING}"),
        LeftOut(2, "redacted-thinking", f"thinking block 1: {req._REDACTED}"),
    ]
    assert all(note.what in LEFT_OUT_KINDS for note in notes)
    note_text = R.to_request(transcript, unsupported="note")["input"][0]["content"][2]["text"]
    removed: list[ct.Message] = [
        ct.UserMultimodalMessage(
            content=(
                ct.TextBlock(text="look"),
                ct.ImageUrlBlock(url=image.url, detail="auto"),
                ct.TextBlock(text=note_text),
            )
        ),
        ct.ProviderOutputItemsMessage(protocol="anthropic", items=()),
        ct.AssistantMessage(content="Seen."),
        NEVER_MIND,
    ]
    _same_request(transcript, removed, unsupported="note")
    assert R.left_out(removed, unsupported="note") == []
    # Each piece alone, too.
    for at, message in enumerate(removed):
        alone = [*transcript[:at], message, *transcript[at + 1 :]]
        _same_request(transcript, alone, unsupported="note")
    # With unsupported="raise", left_out raises what to_request raises.
    with pytest.raises(ct.dialects.UnsupportedContent):
        R.left_out(transcript)


def test_left_out_is_empty_for_a_transcript_this_dialect_made() -> None:
    output = [REASONING, WEB_SEARCH, FILE_SEARCH, CITED, call_item(0, "f", "{}")]
    reply = R.read_reply(response(output))
    transcript: list[ct.Message] = [
        ct.SystemMessage(content="s"),
        QUESTION,
        *reply.messages,
        ct.ToolResultMessage(tool_use_id="call_0b", content="ok"),
        NEVER_MIND,
    ]
    assert R.left_out(transcript) == []
    assert R.left_out(transcript, store=False) == []


def test_thinking_carried_by_the_items_is_not_named_but_thinking_added_is() -> None:
    reply = R.read_reply(response([REASONING, message_item(text_part("Hi."))]))
    items, assistant = reply.messages
    assert isinstance(assistant, ct.AssistantMessage)
    edited = ct.AssistantMessage(
        content=assistant.content, thinking=(*assistant.thinking, ct.ThinkingBlock(text="more"))
    )
    # The two blocks read from the reasoning item go back in it; only the added one stays.
    assert R.left_out([QUESTION, items, edited]) == [
        LeftOut(2, "thinking", f"thinking block 2: {req._THINKING}")
    ]
    _same_request([QUESTION, items, edited], [QUESTION, items, assistant])
    assert R.left_out([QUESTION, items, assistant]) == []


def test_left_out_raises_what_to_request_raises() -> None:
    unanswered: list[ct.Message] = [
        QUESTION,
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="c1", name="f", arguments={}),)),
        NEVER_MIND,
    ]
    with pytest.raises(ct.dialects.UnansweredCall):
        R.to_request(unanswered)
    with pytest.raises(ct.dialects.UnansweredCall):
        R.left_out(unanswered)
    with pytest.raises(ValueError, match="unsupported="):
        R.left_out([QUESTION], unsupported="skip")  # type: ignore[arg-type]
