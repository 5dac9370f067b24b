"""boto3's ``bedrock-runtime``, offline: its own checks of a request, its own reading of a reply.

Shared by the Bedrock tests. No network and no credentials: a client gets
fixed fake keys, and its transport is replaced by one that answers with the
bytes a test gives.

- :func:`validate` checks a request the way the service would: botocore's
  ``ParamValidator`` on the ``Converse`` input shape (types, required
  members, one member per union, unknown members, minimum lengths), then
  the rules botocore leaves to the server, read from the same service
  model: string patterns (matched whole, as the service matches them) and
  maximum lengths, enums, list and number bounds, blobs given as ``bytes``
  (boto3 would base64 a ``str`` a second time), documents that are JSON.
  Then the rules the API reference states in prose, which no model encodes:
  roles alternate from a user turn, no blank text block, every ``toolUse``
  answered by a ``toolResult`` in the next user turn, unique ids, at most
  four cache points, none where the API refuses one.
- :func:`parsed_response` and :func:`parsed_events` give what boto3 returns
  for a reply written as the REST JSON: botocore's own parser over the
  body, and its own ``EventStream`` over the events encoded as AWS
  event-stream frames, bytes where the model says blob.
- :func:`client` is a real client on a stubbed transport, for the tests
  that go through ``converse`` and ``converse_stream`` themselves.
"""

from __future__ import annotations

import binascii
import functools
import json
import math
import re
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("botocore")
pytest.importorskip("boto3")

import boto3  # type: ignore[import-untyped]
import botocore.awsrequest  # type: ignore[import-untyped]
import botocore.eventstream  # type: ignore[import-untyped]
import botocore.parsers  # type: ignore[import-untyped]
import botocore.session  # type: ignore[import-untyped]
import botocore.validate  # type: ignore[import-untyped]

MODEL_ID = "anthropic.claude-sonnet-4-5-20250929-v1:0"


@functools.cache
def service() -> Any:
    return botocore.session.get_session().get_service_model("bedrock-runtime")


def _shape(operation: str, which: str) -> Any:
    model = service().operation_model(operation)
    return model.input_shape if which == "input" else model.output_shape


# --- requests ----------------------------------------------------------------------


class RequestInvalid(AssertionError):
    """A request the service would refuse, with every reason found."""


@functools.cache
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text, re.S)


def _document(value: Any, path: str, errors: list[str], depth: int = 0) -> None:
    """A document member must be JSON: text keys, finite numbers."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                errors.append(f"{path}: a document key that is not text: {key!r}")
            _document(item, f"{path}.{key}", errors, depth + 1)
    elif isinstance(value, list):
        for at, item in enumerate(value):
            _document(item, f"{path}[{at}]", errors, depth + 1)
    elif isinstance(value, float) and not math.isfinite(value):
        errors.append(f"{path}: {value} is not a JSON number")
    elif value is not None and not isinstance(value, (str, int, float, bool)):
        errors.append(f"{path}: {type(value).__name__} in a document")


def _rules(value: Any, shape: Any, path: str, errors: list[str]) -> None:
    """The service model's constraints that ``ParamValidator`` does not check."""
    meta = shape.metadata
    kind = shape.type_name
    if kind == "structure":
        if meta.get("document"):
            _document(value, path, errors)
            return
        if isinstance(value, dict):
            for key, item in value.items():
                member = shape.members.get(key)
                if member is not None:
                    _rules(item, member, f"{path}.{key}", errors)
        return
    if kind == "list":
        if isinstance(value, list):
            if "max" in meta and len(value) > meta["max"]:
                errors.append(f"{path}: {len(value)} entries, more than {meta['max']}")
            for at, item in enumerate(value):
                _rules(item, shape.member, f"{path}[{at}]", errors)
        return
    if kind == "map":
        if isinstance(value, dict):
            for key, item in value.items():
                _rules(key, shape.key, f"{path} key", errors)
                _rules(item, shape.value, f"{path}.{key}", errors)
        return
    if kind == "string" and isinstance(value, str):
        if "enum" in meta and value not in meta["enum"]:
            errors.append(f"{path}: {value!r} is not one of {meta['enum']}")
        if "max" in meta and len(value) > meta["max"]:
            errors.append(f"{path}: {len(value)} characters, more than {meta['max']}")
        if "pattern" in meta and _pattern(meta["pattern"]).fullmatch(value) is None:
            errors.append(f"{path}: {value!r:.80} does not match {meta['pattern']}")
        return
    if kind == "blob":
        if not isinstance(value, (bytes, bytearray)):
            errors.append(f"{path}: a blob given as {type(value).__name__}, not bytes")
        elif len(value) < meta.get("min", 0):
            errors.append(f"{path}: {len(value)} bytes, fewer than {meta['min']}")
        return
    if kind in ("integer", "long", "float", "double") and isinstance(value, (int, float)):
        if "max" in meta and value > meta["max"]:
            errors.append(f"{path}: {value} is more than {meta['max']}")


def _blank(text: object) -> bool:
    return isinstance(text, str) and (text == "" or text.isspace())


def _member(block: dict[str, Any]) -> str:
    assert len(block) == 1, block
    return next(iter(block))


# Blocks the API refuses a cache point after (its reference and reported refusals).
_NO_POINT_AFTER = frozenset({"reasoningContent", "document", "video", "audio", "cachePoint"})


def _conversation(params: dict[str, Any], errors: list[str]) -> None:
    """What the API reference says of a conversation, beyond its types."""
    messages = params.get("messages", [])
    if not messages:
        errors.append("messages: none")
        return
    if messages[0].get("role") != "user":
        errors.append("messages[0]: the conversation must start with a user message")
    points = 0
    seen_ids: set[str] = set()
    pending: list[str] = []  # the client calls of the last assistant message
    for at, message in enumerate(messages):
        where = f"messages[{at}]"
        role = message.get("role")
        if at and role == messages[at - 1].get("role"):
            errors.append(f"{where}: two {role} messages in a row")
        content = message.get("content", [])
        if not content:
            errors.append(f"{where}: no content")
            continue
        kinds = [_member(block) for block in content]
        if role == "assistant" and all(kind == "reasoningContent" for kind in kinds):
            errors.append(f"{where}: an assistant message of reasoning alone")
        calls: list[str] = []
        results: list[str] = []
        for position, (block, kind) in enumerate(zip(content, kinds, strict=True)):
            place = f"{where}.content[{position}]"
            if kind == "text" and _blank(block["text"]):
                errors.append(f"{place}: blank text")
            elif kind == "cachePoint":
                points += 1
                if position == 0 or kinds[position - 1] in _NO_POINT_AFTER:
                    previous = kinds[position - 1] if position else "nothing"
                    errors.append(f"{place}: a cache point after {previous}")
            elif kind == "toolUse":
                use = block["toolUse"]
                if not isinstance(use.get("input"), dict):
                    errors.append(f"{place}: toolUse input is no object")
                if use["toolUseId"] in seen_ids:
                    errors.append(f"{place}: repeated toolUseId {use['toolUseId']!r}")
                seen_ids.add(use["toolUseId"])
                if use.get("type") != "server_tool_use" and role == "assistant":
                    calls.append(use["toolUseId"])
            elif kind == "toolResult" and role == "user":
                results.append(block["toolResult"]["toolUseId"])
                if not block["toolResult"].get("content"):
                    errors.append(f"{place}: a tool result without content")
        if role == "user":
            # Every call of the assistant message before is answered here, and
            # nothing else is.
            if sorted(results) != sorted(pending):
                errors.append(f"{where}: results {results} do not answer the calls {pending}")
            pending = []
        else:
            pending = calls
    for position, block in enumerate(params.get("system", [])):
        kind = _member(block)
        if kind == "cachePoint":
            points += 1
            if position == 0:
                errors.append("system[0]: a cache point with nothing before it")
    tools = params.get("toolConfig", {}).get("tools", [])
    for position, tool in enumerate(tools):
        if _member(tool) == "cachePoint":
            points += 1
            if position == 0:
                errors.append("toolConfig.tools[0]: a cache point with nothing before it")
        elif "toolSpec" in tool and not isinstance(tool["toolSpec"]["inputSchema"]["json"], dict):
            errors.append(f"toolConfig.tools[{position}]: the schema is no object")
    if points > 4:
        errors.append(f"{points} cache points, more than 4")
    names = {t["toolSpec"]["name"] for t in tools if "toolSpec" in t}
    choice = params.get("toolConfig", {}).get("toolChoice", {}).get("tool")
    if choice is not None and choice["name"] not in names:
        errors.append("toolChoice names no tool given")
    if seen_ids and not tools:
        errors.append("toolUse blocks in a request without a toolConfig")


def validate(body: dict[str, Any], tools: dict[str, Any] | None = None, **extra: Any) -> None:
    """Raise :class:`RequestInvalid` unless the service would take this request.

    ``body`` is what ``to_request`` built, ``tools`` what ``tools_to_request``
    built (a request holding calls needs one; without, a one-tool config is
    made up), ``extra`` any other parameters of the call.
    """
    params: dict[str, Any] = {"modelId": MODEL_ID, **body, **extra}
    if tools is not None:
        params.update(tools)
    elif _holds_calls(body):
        params["toolConfig"] = {
            "tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]
        }
    shape = _shape("Converse", "input")
    report = botocore.validate.ParamValidator().validate(params, shape)
    errors = [report.generate_report()] if report.has_errors() else []
    for key, value in params.items():
        member = shape.members.get(key)
        if member is not None:
            _rules(value, member, key, errors)
    _conversation(params, errors)
    if errors:
        raise RequestInvalid("\n".join(errors))


def validate_tools(tools: dict[str, Any]) -> None:
    """A ``toolConfig`` alone, in a request of one user message."""
    validate({"messages": [{"role": "user", "content": [{"text": "q"}]}]}, tools)


def _holds_calls(body: dict[str, Any]) -> bool:
    return any(
        "toolUse" in block or "toolResult" in block
        for message in body.get("messages", ())
        for block in message.get("content", ())
    )


# --- replies, as boto3 reads them ----------------------------------------------------


def parsed_response(body: dict[str, Any], request_id: str | None = None) -> dict[str, Any]:
    """What boto3's ``converse`` returns when the service sends this JSON body."""
    headers = {"x-amzn-requestid": request_id} if request_id else {}
    response = {"body": json.dumps(body).encode(), "headers": headers, "status_code": 200}
    parsed: dict[str, Any] = botocore.parsers.RestJSONParser().parse(
        response, _shape("Converse", "output")
    )
    return parsed


_EVENT_SHAPE_NAME = "stream"


def _event_stream_shape() -> Any:
    return _shape("ConverseStream", "output").members[_EVENT_SHAPE_NAME]


def frame(name: str, payload: dict[str, Any]) -> bytes:
    """One AWS event-stream message carrying event (or exception) ``name``."""
    exception = name.endswith("Exception")
    headers = {
        ":event-type" if not exception else ":exception-type": name,
        ":content-type": "application/json",
        ":message-type": "exception" if exception else "event",
    }
    encoded = b"".join(
        bytes([len(key)]) + key.encode() + b"\x07" + len(value).to_bytes(2, "big") + value.encode()
        for key, value in headers.items()
    )
    body = json.dumps(payload).encode()
    total = 12 + len(encoded) + len(body) + 4
    prelude = total.to_bytes(4, "big") + len(encoded).to_bytes(4, "big")
    message = prelude + binascii.crc32(prelude).to_bytes(4, "big") + encoded + body
    return message + binascii.crc32(message).to_bytes(4, "big")


class _Raw:
    """The transport's body: bytes given back in pieces, as a socket would."""

    def __init__(self, data: bytes, size: int = 97) -> None:
        self.data = data
        self.size = size

    def stream(self, **options: Any) -> Iterator[bytes]:
        for at in range(0, len(self.data), self.size):
            yield self.data[at : at + self.size]

    def read(self, *args: Any) -> bytes:
        return self.data

    def close(self) -> None:
        pass


def encoded_events(events: list[dict[str, Any]]) -> bytes:
    """A stream of events (each ``{name: payload}``, blobs as base64 text) as frames."""
    return b"".join(frame(*next(iter(event.items()))) for event in events)


def parsed_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What iterating boto3's ``converse_stream(...)["stream"]`` yields for these events.

    An exception event raises botocore's ``EventStreamError`` there, as it
    does for a live stream.
    """
    stream = botocore.eventstream.EventStream(
        _Raw(encoded_events(events)),
        _event_stream_shape(),
        botocore.parsers.EventStreamJSONParser(),
        "ConverseStream",
    )
    return list(stream)


def parsed_event(event: dict[str, Any]) -> dict[str, Any]:
    """One event as boto3 yields it (an exception event as botocore parses it)."""
    name, payload = next(iter(event.items()))
    exception = isinstance(name, str) and name.endswith("Exception")
    response = {
        "headers": {
            ":event-type" if not exception else ":exception-type": name,
            ":message-type": "exception" if exception else "event",
            ":content-type": "application/json",
        },
        "body": json.dumps(payload).encode(),
        "status_code": 400 if exception else 200,
    }
    parsed: dict[str, Any] = botocore.parsers.EventStreamJSONParser().parse(
        response, _event_stream_shape()
    )
    return parsed


# --- a real client on a stubbed transport ----------------------------------------------


class Transport:
    """Answers every request with the next canned body, and keeps what was sent."""

    def __init__(self) -> None:
        self.replies: list[tuple[bytes, str]] = []
        self.sent: list[dict[str, Any]] = []

    def reply_json(self, body: dict[str, Any]) -> None:
        self.replies.append((json.dumps(body).encode(), "application/json"))

    def reply_stream(self, events: list[dict[str, Any]]) -> None:
        self.replies.append((encoded_events(events), "application/vnd.amazon.eventstream"))

    def __call__(self, request: Any, **kwargs: Any) -> Any:
        self.sent.append(json.loads(request.body))
        data, content_type = self.replies.pop(0)
        headers = {"content-type": content_type, "x-amzn-requestid": "req-0001"}
        return botocore.awsrequest.AWSResponse(request.url, 200, headers, _Raw(data))


def client() -> tuple[Any, Transport]:
    """A ``bedrock-runtime`` client that never leaves the process."""
    session = boto3.session.Session(
        aws_access_key_id="AKIDEXAMPLEFAKE",
        aws_secret_access_key="not-a-secret",
        region_name="us-east-1",
    )
    made = session.client("bedrock-runtime")
    transport = Transport()
    made.meta.events.register("before-send.bedrock-runtime.*", transport)
    return made, transport
