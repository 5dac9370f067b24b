"""Gemini recordings (gemini-cli's integration tests) through ``convtypes.dialects.gemini``.

For every recorded stream: the REST chunks, the chunks as google-genai
objects and their ``model_dump()`` give the same messages and the same
reply, equal to ``read_reply`` of the response the chunks add up to (built
here on its own, as REST JSON, and read as a dict, an SDK object and its
dump); the deltas add up to the reply's text, thinking and calls; the
replay validates against google-genai's request types and sends back every
part as it came (in snake_case), except an empty unsigned text part, which
the API refuses. For every recorded unstreamed response, the same for
``read_reply``. The dumps are taken both in Python mode (bytes) and in JSON
mode (camelCase, bytes as URL-safe base64).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from _recorded import Outcome

import convtypes as ct
from convtypes.dialects import gemini
from convtypes.dialects._reply import TextDelta, ThinkingDelta, ToolCallDelta, ToolCallStart


def snake(value: Any, opaque: bool = False) -> Any:
    """REST JSON in snake_case, as the dialect keeps it (arguments as they are)."""
    if opaque:
        return value
    if isinstance(value, dict):
        return {
            re.sub(r"(?<!^)([A-Z])", lambda m: "_" + m.group(1).lower(), key): snake(
                item, key in ("args", "response")
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [snake(item) for item in value]
    return value


def added_up(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The response a stream's chunks add up to, as REST JSON.

    Parts in order; a chunk's first part joins the one before when both are
    text of the same kind and it brings no signature. The last finish
    reason, the last usage metadata.
    """
    parts: list[dict[str, Any]] = []
    candidate: dict[str, Any] = {"index": 0}
    response: dict[str, Any] = {}
    for chunk in chunks:
        if "usageMetadata" in chunk:
            response["usageMetadata"] = chunk["usageMetadata"]
        for key in ("modelVersion", "responseId"):
            if key in chunk and key not in response:
                response[key] = chunk[key]
        for cand in chunk.get("candidates", ()):
            if cand.get("index", 0) != 0:
                continue
            for number, part in enumerate(cand.get("content", {}).get("parts", ())):
                text_like = set(part) <= {"text", "thought", "thoughtSignature"}
                if (
                    number == 0
                    and parts
                    and text_like
                    and "thoughtSignature" not in part
                    and set(parts[-1]) <= {"text", "thought", "thoughtSignature"}
                    and bool(parts[-1].get("thought")) == bool(part.get("thought"))
                ):
                    parts[-1] = {**parts[-1], "text": parts[-1]["text"] + part["text"]}
                else:
                    parts.append(dict(part))
            if "finishReason" in cand:
                candidate["finishReason"] = cand["finishReason"]
    candidate["content"] = {"role": "model", "parts": parts}
    response["candidates"] = [candidate]
    return response


def validate(body: dict[str, Any]) -> None:
    from google.genai import types

    for content in body["contents"]:
        types.Content.model_validate(content)
    json.dumps(body)


def sendable(part: dict[str, Any]) -> bool:
    return not (
        part.get("text") == "" and set(part) <= {"text", "thought"} and not part.get("thought")
    )


def check_replay(
    out: Outcome, name: str, messages: list[ct.Message], sent: list[dict[str, Any]]
) -> None:
    body = gemini.to_request([ct.UserMessage(content="q"), *messages])
    try:
        validate(body)
        out.check(True, "")
    except Exception as err:
        out.check(False, f"{name}: replay does not validate: {err}")
    expected = [snake(part) for part in sent if sendable(part)]
    model = [content for content in body["contents"] if content["role"] == "model"]
    replayed = model[0]["parts"] if model else []
    out.check(
        replayed == expected and len(model) <= 1,
        f"{name}: replay differs:\n    sent   {expected}\n    replay {replayed}",
    )


def check_facts(out: Outcome, name: str, reply: Any, deltas: list[Any]) -> None:
    assistant = reply.messages[-1]
    assert isinstance(assistant, ct.AssistantMessage)
    text = "".join(d.text for d in deltas if isinstance(d, TextDelta))
    thought = "".join(d.text for d in deltas if isinstance(d, ThinkingDelta))
    out.check(text == assistant.content, f"{name}: text deltas do not add up to the content")
    out.check(
        thought == "".join(block.text for block in assistant.thinking),
        f"{name}: thinking deltas do not add up to the thinking",
    )
    starts = [d for d in deltas if isinstance(d, ToolCallStart)]
    arguments = {d.index: d.arguments for d in deltas if isinstance(d, ToolCallDelta)}
    calls = [
        ct.ToolCall(id=s.id, name=s.name, arguments=json.loads(arguments[s.index])) for s in starts
    ]
    out.check(calls == list(assistant.tool_calls), f"{name}: call deltas differ from the calls")
    usage = reply.usage
    raw = usage.raw or {}
    if raw.get("total_token_count") is not None:
        out.check(
            usage.input_tokens + usage.output_tokens == raw["total_token_count"],
            f"{name}: input + output != total ({usage})",
        )


def check_stream(out: Outcome, name: str, chunks: list[dict[str, Any]]) -> None:
    from google.genai import types

    raw = gemini.Accumulator()
    deltas = [d for chunk in chunks for d in raw.feed(chunk)]
    messages = raw.result()
    reply = raw.reply()
    out.check(reply.messages == messages, f"{name}: reply().messages != result()")
    out.check(raw.partial() == messages, f"{name}: partial() after the end != result()")
    objects = [types.GenerateContentResponse.model_validate(chunk) for chunk in chunks]
    for form, events in (
        ("SDK chunks", objects),
        ("dumped chunks", [o.model_dump() for o in objects]),
    ):
        other = gemini.Accumulator()
        for event in events:
            other.feed(event)
        out.check(other.reply() == reply, f"{name}: {form} give another reply")
    whole = added_up(chunks)
    sdk = types.GenerateContentResponse.model_validate(whole)
    json_dump = sdk.model_dump(mode="json", by_alias=True)
    for form, value in (
        ("dict", whole),
        ("SDK object", sdk),
        ("dump", sdk.model_dump()),
        ("JSON dump", json_dump),
    ):
        read = gemini.read_reply(value)
        out.check(
            read == reply,
            f"{name}: read_reply of the added-up response ({form}) differs:\n"
            f"    stream {reply}\n    whole  {read}",
        )
    check_facts(out, name, reply, deltas)
    print(
        f"  {name}: {reply.stop_reason} ({reply.provider_stop_reason}), "
        f"{len(messages[0].items)} part(s), "  # type: ignore[union-attr]
        f"usage {reply.usage.input_tokens}/{reply.usage.output_tokens}"
    )
    check_replay(out, name, messages, whole["candidates"][0]["content"]["parts"])


def check_response(out: Outcome, name: str, data: dict[str, Any]) -> None:
    from google.genai import types

    reply = gemini.read_reply(data)
    sdk = types.GenerateContentResponse.model_validate(data)
    out.check(gemini.read_reply(sdk) == reply, f"{name}: the SDK object gives another reply")
    out.check(gemini.read_reply(sdk.model_dump()) == reply, f"{name}: the dump gives another reply")
    json_dump = sdk.model_dump(mode="json", by_alias=True)
    out.check(gemini.read_reply(json_dump) == reply, f"{name}: the JSON dump gives another reply")
    out.check(gemini.from_response(data) == reply.messages, f"{name}: from_response differs")
    usage = reply.usage
    raw = usage.raw or {}
    if raw.get("total_token_count") is not None:
        out.check(
            usage.input_tokens + usage.output_tokens == raw["total_token_count"],
            f"{name}: input + output != total ({usage})",
        )
    print(
        f"  {name}: {reply.stop_reason} ({reply.provider_stop_reason}), "
        f"{len(reply.messages[0].items)} part(s), "  # type: ignore[union-attr]
        f"usage {reply.usage.input_tokens}/{reply.usage.output_tokens}"
    )
    check_replay(out, name, reply.messages, data["candidates"][0]["content"]["parts"])


def run(root: Path) -> bool:
    out = Outcome()
    seen: set[str] = set()
    for path in sorted((root / "gemini-cli/integration-tests").glob("*.responses")):
        for number, line in enumerate(path.read_text().splitlines()):
            if not line.strip():
                continue
            entry = json.loads(line)
            key = json.dumps(entry, sort_keys=True)
            if key in seen:
                continue  # the same recording again
            seen.add(key)
            name = f"{path.name.removesuffix('.responses')}:{number}"
            if entry["method"] == "generateContentStream":
                check_stream(out, name, entry["response"])
            else:
                check_response(out, name, entry["response"])
    return out.report(f"gemini ({len(seen)} distinct recordings)")
