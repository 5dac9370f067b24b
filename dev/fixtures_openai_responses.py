"""Responses API recordings through ``convtypes.dialects.openai_responses``.

For every recorded stream: the raw events, the events as SDK objects, and
the events of the SDK's ``responses.stream()`` helper (run through its
``ResponseStreamState``, no network) all give the same messages and the same
reply, equal to ``from_response`` and ``read_reply`` of the helper's final
``ParsedResponse`` (as an object and as its dump); the deltas add up to the
text, thinking and arguments; ``partial()`` at the end equals ``result()``.
The same holds with every ``output_item.done`` event left out (the reply is
then read from ``response.completed``). For every recorded response, the
same for ``from_response`` of the dict, the SDK's ``Response`` and the
``ParsedResponse`` that ``responses.parse()`` returns. Every replay
validates against the SDK's request types and sends back the output items
exactly as the API sent them, without the SDK's additions.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

from _recorded import Outcome, jest_snapshots, sse_events

import convtypes as ct
from convtypes.dialects import TextDelta as Text
from convtypes.dialects import ThinkingDelta, ToolCallDelta, openai_responses


def no_nulls(value: Any) -> Any:
    """JSON without null object fields: what the API reads the same as absent ones."""
    if isinstance(value, dict):
        return {k: no_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [no_nulls(v) for v in value]
    return value


def validate(body: dict[str, Any]) -> None:
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming
    from pydantic import TypeAdapter

    adapter = TypeAdapter(ResponseCreateParamsNonStreaming)
    adapter.validate_python({"model": "gpt-5", **body})
    json.dumps(body)  # plain JSON


def check_replay(out: Outcome, name: str, messages: list[ct.Message], sent: list[Any]) -> None:
    body = openai_responses.to_request([ct.UserMessage(content="q"), *messages])
    try:
        validate(body)
        out.check(True, "")
    except Exception as err:
        out.check(False, f"{name}: replay does not validate: {err}")
    replayed = body["input"][1:]
    sent = no_nulls(sent)
    out.check(
        replayed == sent,
        f"{name}: replay differs:\n    sent   {sent}\n    replay {replayed}",
    )
    text = json.dumps(replayed)
    out.check('"parsed' not in text, f"{name}: the replay carries an SDK field")


def feed_all(events: list[Any]) -> tuple[openai_responses.Accumulator, list[Any]]:
    accumulator = openai_responses.Accumulator()
    deltas = [delta for event in events for delta in accumulator.feed(event)]
    return accumulator, deltas


def check_deltas(out: Outcome, name: str, messages: list[ct.Message], deltas: list[Any]) -> None:
    assistant = messages[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    text = "".join(d.text for d in deltas if isinstance(d, Text))
    out.check(text == assistant.content, f"{name}: text deltas do not add up to the content")
    thought = "".join(d.text for d in deltas if isinstance(d, ThinkingDelta))
    said = "".join(block.text for block in assistant.thinking)
    out.check(thought == said, f"{name}: thinking deltas do not add up to the thinking")
    for number, call in enumerate(assistant.tool_calls):
        pieces = "".join(
            d.arguments for d in deltas if isinstance(d, ToolCallDelta) and d.index == number
        )
        out.check(json.loads(pieces or "{}") == call.arguments, f"{name}: call {number} deltas")


def check_stream(out: Outcome, name: str, events: list[dict[str, Any]]) -> None:
    from openai import omit
    from openai._models import construct_type
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent

    raw, deltas = feed_all(events)
    messages = raw.result()
    reply = raw.reply()
    out.check(reply.messages == messages, f"{name}: reply().messages != result()")
    out.check(raw.partial() == messages, f"{name}: partial() at the end != result()")
    check_deltas(out, name, messages, deltas)
    # As the SDK's stream reads them: built without validation.
    objects: list[Any] = [construct_type(type_=ResponseStreamEvent, value=e) for e in events]
    sdk, sdk_deltas = feed_all(objects)
    out.check(sdk.result() == messages, f"{name}: SDK events differ from dict events")
    out.check(sdk.reply() == reply, f"{name}: SDK events give another reply")
    out.check(sdk_deltas == deltas, f"{name}: SDK events give other deltas")
    state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
    helper_events = [e for event in objects for e in state.handle_event(event)]
    helper, helper_deltas = feed_all(helper_events)
    out.check(helper.result() == messages, f"{name}: helper-stream events differ")
    out.check(helper.reply() == reply, f"{name}: helper-stream events give another reply")
    out.check(helper_deltas == deltas, f"{name}: helper-stream events give other deltas")
    final = state._completed_response
    from_final = openai_responses.from_response(final)
    out.check(
        from_final == messages,
        f"{name}: from_response(final) differs:\n    stream {messages}\n    final  {from_final}",
    )
    out.check(
        openai_responses.from_response(final.model_dump()) == messages,
        f"{name}: from_response(final.model_dump()) differs",
    )
    out.check(openai_responses.read_reply(final) == reply, f"{name}: read_reply(final) != reply()")
    print(
        f"  {name}: {reply.stop_reason} ({reply.provider_stop_reason}), "
        f"{len(messages)} message(s), usage {reply.usage.input_tokens}/"
        f"{reply.usage.output_tokens} (cached {reply.usage.cache_read_tokens}, "
        f"reasoning {reply.usage.reasoning_tokens}), {len(deltas)} deltas"
    )
    sent = [e for e in events if e["type"] == "response.completed"][-1]["response"]["output"]
    check_replay(out, name, messages, sent)


def check_response(out: Outcome, name: str, data: dict[str, Any]) -> None:
    from openai import omit
    from openai.lib._parsing._responses import parse_response
    from openai.types.responses import Response

    messages = openai_responses.from_response(data)
    reply = openai_responses.read_reply(data)
    response = Response.model_validate(data)
    out.check(openai_responses.from_response(response) == messages, f"{name}: SDK object differs")
    parsed = parse_response(text_format=omit, input_tools=omit, response=response)
    out.check(openai_responses.from_response(parsed) == messages, f"{name}: ParsedResponse differs")
    out.check(
        openai_responses.from_response(parsed.model_dump()) == messages,
        f"{name}: ParsedResponse.model_dump() differs",
    )
    out.check(openai_responses.read_reply(parsed) == reply, f"{name}: read_reply differs")
    print(
        f"  {name}: {reply.stop_reason} ({reply.provider_stop_reason}), "
        f"{len(messages)} message(s), usage {reply.usage.input_tokens}/"
        f"{reply.usage.output_tokens} (cached {reply.usage.cache_read_tokens}, "
        f"written {reply.usage.cache_write_tokens})"
    )
    check_replay(out, name, messages, data["output"])


def run(root: Path) -> bool:
    # The SDK's own model_dump() of the objects its stream helper builds
    # warns of union members it did not expect; that is the SDK's noise.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings")
    out = Outcome()
    for entry in json.loads((root / "openai-python/extracted/responses.json").read_text()):
        check_response(out, entry["test"], json.loads(entry["body"]))
    snap = root / "openai-node/tests/lib/__snapshots__/ResponseStream.test.ts.snap"
    for name, body in jest_snapshots(snap):
        # This snapshot was written with its string escaped (\" and \\).
        events = sse_events(re.sub(r'\\(["\\])', r"\1", body))
        check_stream(out, name, events)
        without_done = [e for e in events if e["type"] != "response.output_item.done"]
        if len(without_done) < len(events):
            check_stream(out, f"{name} (no output_item.done)", without_done)
    return out.report("openai_responses")
