"""Chat Completions recordings through ``convtypes.dialects.openai_chat``.

For every recorded stream: the raw chunks, the chunks as SDK objects and the
events of the SDK's ``chat.completions.stream()`` helper all give the same
messages, equal to ``from_response`` of the SDK's final completion (as an
object and as its dump); the replay validates against the SDK's request
types and carries back what the API sent. For every recorded completion,
the same for ``from_response``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _recorded import Outcome, jest_snapshots, sse_events

import convtypes as ct
from convtypes.dialects import TextDelta, openai_chat

_DROPPED = {"parsed", "annotations"}


def sent_turn(message: dict[str, Any]) -> dict[str, Any]:
    """What the API sent as the assistant message, in the form a request takes it."""
    out: dict[str, Any] = {}
    for key, value in message.items():
        if (value is None and key != "content") or key in _DROPPED:
            continue
        if key == "tool_calls":
            value = [
                {
                    k: (
                        {a: b for a, b in v.items() if a != "parsed_arguments"}
                        if k == "function"
                        else v
                    )
                    for k, v in call.items()
                    if k != "index"
                }
                for call in value
            ]
        if key == "audio":
            value = {"id": value["id"]}
        out[key] = value
    if "tool_calls" in out and not out.get("content"):
        out.pop("content", None)
    return out


def validate(body: dict[str, Any]) -> None:
    from openai.types.chat import ChatCompletionMessageParam
    from pydantic import TypeAdapter

    adapter = TypeAdapter(list[ChatCompletionMessageParam])
    validated = adapter.validate_python(body["messages"])
    json.dumps(body)  # plain JSON
    assert len(validated) == len(body["messages"])


def check_replay(out: Outcome, name: str, messages: list[ct.Message], sent: dict[str, Any]) -> None:
    body = openai_chat.to_request([ct.UserMessage(content="q"), *messages])
    try:
        validate(body)
        out.check(True, "")
    except Exception as err:
        out.check(False, f"{name}: replay does not validate: {err}")
    turns = body["messages"][1:]
    expected = sent_turn(sent)
    out.check(
        turns == [expected],
        f"{name}: replay differs:\n    sent   {expected}\n    replay {turns}",
    )


def check_stream(out: Outcome, name: str, events: list[dict[str, Any]]) -> None:
    from openai.lib.streaming.chat._completions import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    raw = openai_chat.Accumulator()
    deltas = [d for event in events for d in raw.feed(event)]
    messages = raw.result()
    reply = raw.reply()
    out.check(reply.messages == messages, f"{name}: reply().messages != result()")
    objects = openai_chat.Accumulator()
    for event in events:
        objects.feed(ChatCompletionChunk.model_validate(event))
    out.check(objects.result() == messages, f"{name}: SDK chunks differ from dict chunks")
    state: Any = ChatCompletionStreamState()
    helper = openai_chat.Accumulator()
    for event in events:
        for helper_event in state.handle_chunk(ChatCompletionChunk.model_validate(event)):
            helper.feed(helper_event)
    out.check(helper.result() == messages, f"{name}: helper-stream events differ")
    try:
        final = state.get_final_completion()
    except Exception:
        final = state.current_completion_snapshot
    from_final = openai_chat.from_response(final)
    out.check(
        from_final == messages,
        f"{name}: from_response(final) differs:\n    stream {messages}\n    final  {from_final}",
    )
    out.check(
        openai_chat.from_response(final.model_dump()) == messages,
        f"{name}: from_response(final.model_dump()) differs",
    )
    out.check(openai_chat.read_reply(final) == reply, f"{name}: read_reply(final) != reply()")
    text = "".join(d.text for d in deltas if isinstance(d, TextDelta))
    assistant = messages[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    out.check(text == assistant.content, f"{name}: text deltas do not add up to the content")
    print(
        f"  {name}: {reply.stop_reason} ({reply.provider_stop_reason}), "
        f"{len(messages)} message(s), usage {reply.usage.input_tokens}/{reply.usage.output_tokens}"
    )
    check_replay(out, name, messages, final.model_dump()["choices"][0]["message"])


def check_completion(out: Outcome, name: str, data: dict[str, Any]) -> None:
    from openai import NOT_GIVEN
    from openai.lib._parsing._completions import parse_chat_completion
    from openai.types.chat import ChatCompletion

    messages = openai_chat.from_response(data)
    completion = ChatCompletion.model_validate(data)
    out.check(openai_chat.from_response(completion) == messages, f"{name}: SDK object differs")
    try:
        parsed: Any = parse_chat_completion(
            response_format=NOT_GIVEN, input_tools=NOT_GIVEN, chat_completion=completion
        )
    except Exception:
        parsed = completion
    out.check(
        openai_chat.from_response(parsed) == messages, f"{name}: ParsedChatCompletion differs"
    )
    reply = openai_chat.read_reply(parsed)
    print(f"  {name}: {reply.stop_reason}, {len(messages)} message(s)")
    check_replay(out, name, messages, data["choices"][0]["message"])


def run(root: Path) -> bool:
    out = Outcome()
    for path in sorted((root / "openai-python/.inline-snapshot/external").glob("*.bin")):
        check_stream(out, path.name[:12], sse_events(path.read_text()))
    for entry in json.loads((root / "openai-python/extracted/chat_completions.json").read_text()):
        check_completion(out, entry["test"], json.loads(entry["body"]))
    snap = root / "openai-node/tests/lib/__snapshots__/ChatCompletionStream.test.ts.snap"
    for name, body in jest_snapshots(snap):
        check_stream(out, name, sse_events(body))
    return out.report("openai_chat")
