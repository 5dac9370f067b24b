"""Messages API recordings through ``convtypes.dialects.anthropic``.

For every recorded stream: the raw events, the events as SDK objects (the
``anthropic.types`` and the ``anthropic.types.beta`` ones) and the events of
the SDK's ``messages.stream()`` helper (plain and beta) all give the same
messages, equal to ``from_response`` of the helper's final message (as an
object and as its dump), with the same stop reason, usage, model and id;
``partial()`` at the end equals ``result()``, and the deltas add up to the
text, thinking and calls. For every recorded response, the same for
``from_response`` (dict, SDK object, beta object, parsed object). Every
replay validates against the SDK's request types (the plain ones, or the
beta ones for beta-only blocks) and carries the content that came back
block for block, but for what the API refuses as input, which is listed.
Where the SDK's tool runner sent the reply back in a second request, our
replay must equal the SDK's.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from _recorded import Outcome, sse_events

import convtypes as ct
from convtypes.dialects import (
    Reply,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    anthropic,
)

_CUT = ("max_tokens", "model_context_window_exceeded")


@functools.cache  # kept alive: pydantic's lazy iterators need their adapter
def _validator(beta: bool) -> Any:
    from pydantic import TypeAdapter

    if beta:
        from anthropic.types.beta.message_create_params import MessageCreateParamsNonStreaming
    else:
        from anthropic.types.message_create_params import (  # type: ignore[assignment]
            MessageCreateParamsNonStreaming,
        )
    return TypeAdapter(MessageCreateParamsNonStreaming)


def _force(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _force(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)) or hasattr(value, "__next__"):
        return [_force(item) for item in value]
    return value


def validate(body: dict[str, Any]) -> str:
    """Which SDK request types take the body: "plain", or "beta" (else raises)."""
    full = {"model": "claude-sonnet-4-5", "max_tokens": 1024, **body}
    try:
        _force(_validator(False).validate_python(full))
        return "plain"
    except Exception:
        _force(_validator(True).validate_python(full))
        return "beta"


def sent_content(content: list[Any], reason: object) -> tuple[list[Any], list[str]]:
    """The content as it may go back, and what the API refuses of it (and why)."""
    out: list[Any] = []
    refused: list[str] = []
    last = len(content) - 1
    for number, block in enumerate(content):
        block = {k: v for k, v in block.items() if v is not None and k != "parsed_output"}
        kind = block.get("type")
        if kind == "text" and not block["text"].strip():
            refused.append(f"text block {number} of white space only ({block['text']!r})")
            continue
        if kind == "thinking" and not block.get("signature"):
            refused.append(f"thinking block {number} without a signature")
            continue
        if kind == "tool_use" and reason in _CUT and number == last:
            refused.append(f"tool_use block {number} cut off at the token limit (no result)")
            continue
        out.append(block)
    return out, refused


def check_replay(
    out: Outcome,
    name: str,
    messages: list[ct.Message],
    sent: list[Any],
    reason: object,
    sdk_sent: list[Any] | None = None,
) -> None:
    body = anthropic.to_request([ct.UserMessage(content="q"), *messages])
    try:
        kind = validate(body)
        out.check(True, "")
    except Exception as err:
        kind = "none"
        out.check(False, f"{name}: replay does not validate: {str(err)[:300]}")
    turns = body["messages"][1:]
    replayed = turns[0]["content"] if turns else []
    expected, refused = sent_content(sent, reason)
    out.check(
        replayed == expected,
        f"{name}: replay differs:\n    sent   {expected}\n    replay {replayed}",
    )
    if sdk_sent is not None:
        out.check(
            replayed == sdk_sent,
            f"{name}: replay differs from the SDK tool runner's:\n"
            f"    sdk    {sdk_sent}\n    replay {replayed}",
        )
    note = f" [validates as {kind} types]" if kind != "plain" else ""
    for what in refused:
        print(f"    exception to exact replay: {what}")
    if note:
        print(f"    {note.strip()}")


def _same_reply(out: Outcome, name: str, got: Reply, want: Reply, what: str) -> None:
    """Equal replies; ``got.usage.raw`` may hold more than the SDK's final copy keeps."""
    out.check(got.messages == want.messages, f"{name}: {what}: messages differ")
    for field in ("stop_reason", "provider_stop_reason", "model", "id"):
        out.check(
            getattr(got, field) == getattr(want, field),
            f"{name}: {what}: {field} {getattr(got, field)!r} != {getattr(want, field)!r}",
        )
    for field in (
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
    ):
        out.check(
            getattr(got.usage, field) == getattr(want.usage, field),
            f"{name}: {what}: usage.{field} {getattr(got.usage, field)} != "
            f"{getattr(want.usage, field)}",
        )
    raw, final = got.usage.raw or {}, want.usage.raw or {}
    missing = {k: v for k, v in final.items() if raw.get(k) != v and v is not None}
    out.check(not missing, f"{name}: {what}: usage.raw lacks {missing}")
    extra = sorted(set(raw) - set(final))
    if extra:
        print(f"    {what}: usage.raw keeps what the SDK's final message drops: {extra}")


def _check_deltas(out: Outcome, name: str, deltas: list[Any], reply: Reply) -> None:
    assistant = reply.messages[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    text = "".join(d.text for d in deltas if isinstance(d, TextDelta))
    out.check(text == assistant.content, f"{name}: text deltas {text!r} != {assistant.content!r}")
    thought = "".join(d.text for d in deltas if isinstance(d, ThinkingDelta))
    out.check(
        thought == "".join(t.text for t in assistant.thinking),
        f"{name}: thinking deltas do not add up",
    )
    starts = [d for d in deltas if isinstance(d, ToolCallStart)]
    for call_at, call in enumerate(assistant.tool_calls):
        start = starts[call_at]
        pieces = "".join(
            d.arguments for d in deltas if isinstance(d, ToolCallDelta) and d.index == call_at
        )
        out.check(
            (start.index, start.id, start.name) == (call_at, call.id, call.name),
            f"{name}: call {call_at} started as {start}",
        )
        out.check(
            json.loads(pieces or "{}") == call.arguments,
            f"{name}: call {call_at}'s argument pieces do not add up",
        )
    cut = len(starts) - len(assistant.tool_calls)
    out.check(
        cut == 0 or (cut == 1 and reply.stop_reason == "max_tokens"),
        f"{name}: {len(starts)} calls started, {len(assistant.tool_calls)} in the message",
    )


class _Recorded:
    """Recorded SDK events in the place of the HTTP stream a ``MessageStream`` reads."""

    def __init__(self, events: list[Any]) -> None:
        self.events = events
        self.response = SimpleNamespace(request=SimpleNamespace(headers={}))

    def __iter__(self) -> Any:
        return iter(self.events)

    def close(self) -> None:
        pass


def _helper(events: list[Any], beta: bool) -> tuple[list[Any], Any]:
    """The events of the SDK's ``messages.stream()`` helper for ``events``, and its final."""
    import anthropic as sdk
    from anthropic.lib.streaming import BetaMessageStream, MessageStream

    kind: Any = BetaMessageStream if beta else MessageStream
    stream = kind(_Recorded(events), sdk.NOT_GIVEN)
    fired = list(stream)
    return fired, stream.get_final_message()


def check_stream(
    out: Outcome, name: str, events: list[dict[str, Any]], sdk_sent: list[Any] | None = None
) -> None:
    import anthropic as sdk
    from pydantic import TypeAdapter

    raw = anthropic.Accumulator()
    deltas = [d for event in events for d in raw.feed(event)]
    messages = raw.result()
    reply = raw.reply()
    print(
        f"  {name} (stream): {reply.stop_reason} ({reply.provider_stop_reason}), "
        f"{len(messages)} message(s), usage {reply.usage.input_tokens}/"
        f"{reply.usage.output_tokens}, {len(deltas)} deltas"
    )
    out.check(reply.messages == messages, f"{name}: reply().messages != result()")
    out.check(raw.partial() == messages, f"{name}: partial() != result() at the end")
    _check_deltas(out, name, deltas, reply)
    sent: list[Any] = []
    for beta in (False, True):
        kind = "beta" if beta else "plain"
        event_type = (
            sdk.types.beta.BetaRawMessageStreamEvent if beta else sdk.types.RawMessageStreamEvent
        )
        adapter: Any = TypeAdapter(event_type)
        try:
            # The SDK's stream drops ping events before it makes objects.
            objects = [
                adapter.validate_python(event) for event in events if event["type"] != "ping"
            ]
        except Exception as err:
            print(f"    the {kind} SDK's event types refuse this stream: {str(err)[:120]}")
            continue
        target = anthropic.Accumulator()
        for event in objects:
            target.feed(event)
        out.check(target.result() == messages, f"{name}: {kind} SDK events differ from dicts")
        fired, final = _helper(objects, beta)
        helper = anthropic.Accumulator()
        helper_deltas = [d for event in fired for d in helper.feed(event)]
        out.check(helper.result() == messages, f"{name}: {kind} helper-stream events differ")
        out.check(helper_deltas == deltas, f"{name}: {kind} helper-stream deltas differ")
        from_final = anthropic.from_response(final)
        if beta or from_final == messages:
            out.check(
                from_final == messages,
                f"{name}: from_response({kind} final) differs:\n"
                f"    stream {messages}\n    final  {from_final}",
            )
            dumped = final.model_dump(by_alias=True) if beta else final.model_dump()
            out.check(
                anthropic.from_response(dumped) == messages,
                f"{name}: from_response({kind} final.model_dump()) differs:\n"
                f"    stream {messages}\n    dump   {anthropic.from_response(dumped)}",
            )
            _same_reply(out, name, reply, anthropic.read_reply(final), f"read_reply({kind} final)")
        else:
            print(f"    the {kind} SDK's final message loses what the stream said (not compared)")
        if beta:
            sent = final.model_dump(mode="json", by_alias=True, exclude_unset=True)["content"]
    check_replay(out, name, messages, sent, reply.provider_stop_reason, sdk_sent)


def check_response(
    out: Outcome, name: str, data: dict[str, Any], sdk_sent: list[Any] | None = None
) -> None:
    import anthropic as sdk
    from anthropic.lib._parse._response import parse_beta_response, parse_response

    messages = anthropic.from_response(data)
    reply = anthropic.read_reply(data)
    print(
        f"  {name}: {reply.stop_reason} ({reply.provider_stop_reason}), "
        f"{len(messages)} message(s), usage {reply.usage.input_tokens}/"
        f"{reply.usage.output_tokens}"
    )
    plain_message = sdk.types.Message.model_validate(data)
    beta_message = sdk.types.beta.BetaMessage.model_validate(data)
    for what, value in (
        ("SDK Message", plain_message),
        ("SDK BetaMessage", beta_message),
        ("ParsedMessage", parse_response(output_format=sdk.NOT_GIVEN, response=plain_message)),
        (
            "ParsedBetaMessage",
            parse_beta_response(output_format=sdk.NOT_GIVEN, response=beta_message),
        ),
        ("Message.model_dump()", plain_message.model_dump()),
        ("BetaMessage.model_dump(by_alias)", beta_message.model_dump(by_alias=True)),
    ):
        got = anthropic.from_response(value)
        out.check(got == messages, f"{name}: {what} differs:\n    dict {messages}\n    sdk  {got}")
        if isinstance(value, dict):
            # A dump is not the JSON as sent: its usage has every field, null or not.
            _same_reply(out, name, reply, anthropic.read_reply(value), f"read_reply({what})")
        else:
            out.check(anthropic.read_reply(value) == reply, f"{name}: read_reply({what}) differs")
    check_replay(out, name, messages, data["content"], data.get("stop_reason"), sdk_sent)


def _recordings(root: Path) -> list[tuple[str, list[Any]]]:
    base = root / "anthropic-sdk-python/tests/lib"
    found = []
    for path in sorted(base.glob("**/__inline_snapshot__/**/*.json")):
        found.append((f"{path.parent.name}/{path.stem[:8]}", json.loads(path.read_text())))
    return found


def run(root: Path) -> bool:
    out = Outcome()
    base = root / "anthropic-sdk-python/tests"
    streams = sorted((base / "lib/streaming/fixtures").glob("*.txt")) + sorted(
        (base / "fixtures/fable-fallback").glob("*.sse")
    )
    for path in streams:
        check_stream(out, path.name, sse_events(path.read_text()))
    for name, exchanges in _recordings(root):
        for number, exchange in enumerate(exchanges):
            response = exchange["response"]
            if response["status_code"] != 200:
                continue
            body = response["body"]
            label = f"{name}#{number}"
            following = exchanges[number + 1] if number + 1 < len(exchanges) else None
            sdk_sent = None
            if following is not None:
                turns = following["request"]["body"]["messages"]
                assistant = [t for t in turns if t["role"] == "assistant"]
                if assistant:
                    sdk_sent = assistant[-1]["content"]
            if isinstance(body, str):
                check_stream(out, label, sse_events(body), sdk_sent)
            else:
                check_response(out, label, body, sdk_sent)
    return out.report("anthropic")
