"""A Mistral ``ChatCompletionResponse`` read into messages: its message, its finish reason, its
usage.
"""

from __future__ import annotations

from typing import Any, Final

from ..._messages import (
    AssistantMessage,
    Message,
    ToolCall,
)
from .._chat_reply import (
    chat_reply,
    clean_call,
    first_choice,
    read_calls,
    read_content,
    sent_alike,
    stop_by_table,
    turn_and_kept,
)
from .._errors import (
    LEAKS,
    ResponseError,
    raise_response_failure,
    reported_error,
    short,
)
from .._json import field, parse_arguments, plain, tool_call
from .._reply import (
    Reply,
    StopReason,
    Usage,
    token_count,
)
from ._assistant import _Turn
from ._wire import _CUT_REASONS, PROTOCOL


def _unwrapped(chunk: object) -> object:
    """A content chunk as the API sent it.

    The SDK holds a chunk type it does not know as ``{"raw": chunk}``; the
    chunk inside is what came.
    """
    if type(chunk) is dict and len(chunk) == 1 and isinstance(chunk.get("raw"), dict):
        return chunk["raw"]
    return chunk


def _clean_chunk(chunk: object) -> object:
    chunk = _unwrapped(chunk)
    if not isinstance(chunk, dict):
        return chunk
    out = {key: value for key, value in chunk.items() if value is not None}
    if out.get("type") == "thinking" and out.get("closed") is True:
        # Every finished thinking chunk says so; the API reads one without it the same.
        del out["closed"]
    return out


def _clean_call(call: object) -> object:
    return clean_call(call, _unsaid)


def _unsaid(key: str, value: Any) -> bool:
    """A stream's ``index`` of a call, and its type when it is the only one, ``function``."""
    return key == "index" or (key == "type" and value == "function")


def _clean(message: dict[str, Any]) -> dict[str, Any]:
    """The message as sent, without empty fields, stream indices or the SDK's wrappers.

    The same message read whole or built from a stream comes out the same,
    whichever of its optional fields the provider spelled as ``null`` or
    empty, and whether a call said its (only) type.
    """
    out: dict[str, Any] = {}
    for key, value in message.items():
        if value is None or (key == "prefix" and value is False):
            continue
        if key == "content":
            if isinstance(value, list):
                value = [_clean_chunk(chunk) for chunk in value]
            if value == "" or value == []:
                continue
        elif key == "tool_calls" and isinstance(value, list):
            value = [_clean_call(call) for call in value]
            if not value:
                continue
        out[key] = value
    out["role"] = "assistant"
    return out


def _thought(chunk: dict[str, Any], where: str) -> str:
    """A ``thinking`` chunk's text: its text parts joined."""
    inner = field(chunk, "thinking", list, where)
    pieces = []
    for number, part in enumerate(inner):
        part_at = f"{where}.thinking[{number}]"
        if not isinstance(part, dict):
            raise ResponseError(f"{part_at}: expected an object, got {short(part)}")
        if part.get("type") == "text":
            pieces.append(field(part, "text", str, part_at))
    return "".join(pieces)


def _read_call(raw: object, where: str) -> ToolCall | None:
    """The call, or ``None`` for one of a type convtypes cannot hold as a call."""
    if not isinstance(raw, dict):
        raise ResponseError(f"{where}: expected an object, got {short(raw)}")
    kind = raw.get("type")
    if kind is not None and kind != "function":
        return None
    function = field(raw, "function", dict, where)
    name = field(function, "name", str, f"{where}.function")
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            parsed = parse_arguments(arguments)
        except ValueError as err:
            raise ResponseError(f"{where}: {err}") from None
    elif isinstance(arguments, dict):
        parsed = arguments
    else:
        raise ResponseError(
            f"{where}.function: 'arguments' should be text or an object, got {short(arguments)}"
        )
    call_id = field(raw, "id", str, where, None)
    return tool_call(call_id, name, parsed, where)


def _read_message(message: dict[str, Any], cut: bool, where: str) -> list[Message]:
    """The messages for one choice's message; ``cut`` when it stopped at a token limit.

    A call cut off at the limit is not a call a backend could run: it stays
    only in the kept message.
    """
    text, thinking = read_content(
        message.get("content"),
        where,
        _thought,
        part_name="chunk",
        shape="text or a list",
        unwrap=_unwrapped,
    )
    raw_calls = field(message, "tool_calls", list, where, None) or []
    calls = read_calls(raw_calls, cut, where, _read_call)
    return turn_and_kept(text, calls, thinking, _clean(message), _carried, PROTOCOL, where)


def _normal(message: dict[str, Any]) -> dict[str, Any]:
    """A message with what says nothing to the API taken out, to compare two of them.

    Empty content is no content; a list of plain text chunks is their text;
    a call's ``"type": "function"`` is the default.
    """
    out = dict(message)
    out.pop("role", None)
    content = out.get("content")
    if content is None or content == "" or content == []:
        out.pop("content", None)
    elif isinstance(content, list) and all(
        isinstance(chunk, dict) and chunk.keys() == {"type", "text"} and chunk["type"] == "text"
        for chunk in content
    ):
        out["content"] = "".join(str(chunk["text"]) for chunk in content)
    calls = out.get("tool_calls")
    if calls is None or calls == []:
        out.pop("tool_calls", None)
    elif isinstance(calls, list):
        out["tool_calls"] = [_clean_call(call) for call in calls]
    return out


def _carried(item: dict[str, Any], assistant: AssistantMessage) -> bool:
    """Whether replaying ``assistant`` sends what the message ``item`` said."""
    return sent_alike(item, assistant, _Turn(), _normal)


_STOPS: Final[dict[str, StopReason]] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "model_length": "max_tokens",
    "tool_calls": "tool_use",
    "error": "other",
}


def _usage(raw: object) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    cached = token_count(raw, "prompt_tokens_details", "cached_tokens")
    if cached is None:
        cached = token_count(raw, "num_cached_tokens")
    return Usage(
        input_tokens=token_count(raw, "prompt_tokens"),
        output_tokens=token_count(raw, "completion_tokens"),
        cache_read_tokens=cached,
        reasoning_tokens=token_count(raw, "completion_tokens_details", "reasoning_tokens"),
        raw=raw,
    )


def _reply(messages: list[Message], reason: object, usage: object, data: dict[str, Any]) -> Reply:
    stop = stop_by_table(_STOPS, messages, reason)
    return chat_reply(messages, stop, reason, _usage(usage), data.get("model"), data.get("id"))


def _error(data: dict[str, Any]) -> str | None:
    """What an error body says, when ``data`` is one in place of a completion.

    Mistral's own errors are ``{"object": "error", "message": ...}``, and a
    request the API could not parse is answered ``{"detail": [...]}``.
    """
    error = reported_error(data, "choices")
    if error is not None or "choices" in data:
        return error
    if data.get("object") == "error":
        return f"the provider reported an error: {short(data.get('message'), 200)}"
    if "detail" in data:
        return f"the provider reported an error: {short(data.get('detail'), 200)}"
    return None


def from_response(response: object) -> list[Message]:
    """The messages to append for a ``ChatCompletionResponse`` (dict or SDK object).

    Only the first choice is read. Arguments are parsed from their JSON text
    (key order and big integers kept). What the ``AssistantMessage`` cannot
    say is kept before it as a ``mistral`` items message (see the module).
    """
    return read_reply(response).messages


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage, model and id.

    ``usage.input_tokens`` is ``prompt_tokens`` (cached tokens included),
    ``output_tokens`` is ``completion_tokens`` (thinking included).
    """
    try:
        data = plain(response, "the response")
        error = _error(data)
        if error is not None:
            raise ResponseError(error)
        choice = first_choice(data)
        reason = choice.get("finish_reason")
        message = field(choice, "message", dict, "choices[0]")
        messages = _read_message(message, reason in _CUT_REASONS, "choices[0].message")
        return _reply(messages, reason, data.get("usage"), data)
    except LEAKS as err:
        raise_response_failure(err)
