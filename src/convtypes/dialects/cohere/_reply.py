"""A Cohere ``V2ChatResponse`` read into messages: its message, its finish reason, its usage."""

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
    short,
)
from .._json import field, parse_arguments, plain, tool_call
from .._reply import (
    Reply,
    StopReason,
    Usage,
)
from ._assistant import _text_item, _Turn
from ._wire import _CUT_REASONS, PLAN_JOIN, PROTOCOL


def _clean_call(call: object) -> object:
    """A call as it came, without its ``null`` fields: its ``type`` stays, to go back as it came."""
    return clean_call(call, _nothing)


def _compared_call(call: object) -> object:
    """A call to compare with one an ``AssistantMessage`` sends: ``type: "function"`` is
    Cohere's default, which a call written without it means as well."""
    return clean_call(call, _default_type)


def _nothing(key: str, value: Any) -> bool:
    return False


def _default_type(key: str, value: Any) -> bool:
    """A call's type when it is the only one, ``function``."""
    return key == "type" and value == "function"


def _clean_part(part: object) -> object:
    if not isinstance(part, dict):
        return part
    return {key: value for key, value in part.items() if value is not None}


def _clean(message: dict[str, Any]) -> dict[str, Any]:
    """The message as sent, without empty fields.

    The same message read whole or built from a stream comes out the same:
    the stream spells every field (``"tool_plan": ""``, empty lists), the
    whole reply only those it has.
    """
    out: dict[str, Any] = {}
    for key, value in message.items():
        if value is None or value == "" or value == []:
            continue
        if key == "content" and isinstance(value, list):
            value = [_clean_part(part) for part in value]
        elif key == "tool_calls" and isinstance(value, list):
            value = [_clean_call(call) for call in value]
        elif key == "citations" and isinstance(value, list):
            value = [_clean_part(citation) for citation in value]
        out[key] = value
    out["role"] = "assistant"
    return out


def _thought(part: dict[str, Any], where: str) -> str:
    """A ``thinking`` content item's text."""
    said: str = field(part, "thinking", str, where)
    return said


def _read_call(raw: object, where: str) -> ToolCall:
    if not isinstance(raw, dict):
        raise ResponseError(f"{where}: expected an object, got {short(raw)}")
    function = field(raw, "function", dict, where)
    name = field(function, "name", str, f"{where}.function")
    text = field(function, "arguments", str, f"{where}.function", None)
    try:
        arguments = parse_arguments(text or "")
    except ValueError as err:
        raise ResponseError(f"{where}: {err}") from None
    call_id = field(raw, "id", str, where, None)
    return tool_call(call_id, name, arguments, where)


def _read_message(message: dict[str, Any], cut: bool, where: str) -> list[Message]:
    """The messages for a reply's message; ``cut`` when it stopped at the token limit."""
    text, thinking = read_content(message.get("content"), where, _thought)
    plan = field(message, "tool_plan", str, where, None) or ""
    field(message, "citations", list, where, None)
    raw_calls = field(message, "tool_calls", list, where, None) or []
    calls = read_calls(raw_calls, cut, where, _read_call)
    said = PLAN_JOIN.join(part for part in (plan, text) if part)
    return turn_and_kept(said, calls, thinking, _clean(message), _carried, PROTOCOL, where)


def _normal(message: dict[str, Any]) -> dict[str, Any]:
    """A message with what says nothing to the API taken out, to compare two of them."""
    out = {
        key: value
        for key, value in message.items()
        if key != "role" and value is not None and value != "" and value != []
    }
    if isinstance(out.get("content"), str):
        out["content"] = [_text_item(out["content"])]
    calls = out.get("tool_calls")
    if isinstance(calls, list):
        out["tool_calls"] = [_compared_call(call) for call in calls]
    return out


def _carried(item: dict[str, Any], assistant: AssistantMessage) -> bool:
    """Whether replaying ``assistant`` sends what the message ``item`` said.

    A reply that holds only thinking, or nothing, sends no turn either way.
    """
    if not assistant.content and not assistant.tool_calls and assistant.thinking:
        return False
    return sent_alike(item, assistant, _Turn(), _normal)


_STOPS: Final[dict[str, StopReason]] = {
    "COMPLETE": "end_turn",
    "STOP_SEQUENCE": "stop_sequence",
    "MAX_TOKENS": "max_tokens",
    "TOOL_CALL": "tool_use",
    "ERROR": "other",
    "TIMEOUT": "other",
}


def _count(raw: object, *keys: str) -> int | None:
    """A count at ``raw[keys...]``: an integer, or a whole float, as the SDK holds counts."""
    value = raw
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer() and value >= 0:
        return int(value)
    return None


def _usage(raw: object) -> Usage:
    """The usage by ``tokens`` (the whole prompt, cached or not); ``billed_units`` stays in raw."""
    if not isinstance(raw, dict):
        return Usage()
    return Usage(
        input_tokens=_count(raw, "tokens", "input_tokens"),
        output_tokens=_count(raw, "tokens", "output_tokens"),
        cache_read_tokens=_count(raw, "cached_tokens"),
        raw=raw,
    )


def _reply(messages: list[Message], reason: object, usage: object, reply_id: object) -> Reply:
    stop = stop_by_table(_STOPS, messages, reason)
    return chat_reply(messages, stop, reason, _usage(usage), reply_id=reply_id)


def _error(data: dict[str, Any]) -> str | None:
    """What an error body says, when ``data`` is one in place of a reply or an event.

    Cohere's errors are ``{"message": "..."}`` (some with an ``id``): the
    message is text where a reply's is an object. ``None`` for anything else.
    """
    message = data.get("message")
    if isinstance(message, str):
        return f"the provider reported an error: {short(message, 200)}"
    error = data.get("error")
    if error is not None:
        return f"the provider reported an error: {short(error, 200)}"
    return None


def from_response(response: object) -> list[Message]:
    """The messages to append for a ``V2ChatResponse`` (dict or SDK object).

    Arguments are parsed from their JSON text (key order and big integers
    kept). What the ``AssistantMessage`` cannot say is kept before it as a
    ``cohere`` items message (see the module).
    """
    return read_reply(response).messages


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage and id.

    ``usage.input_tokens`` and ``output_tokens`` are Cohere's ``tokens``
    counts (the whole prompt, cached or not, and everything generated);
    ``cache_read_tokens`` is ``cached_tokens``. What Cohere bills
    (``billed_units``, without the tokens of its own system prompt) stays
    in ``usage.raw``. Cohere names no model in a reply.
    """
    try:
        data = plain(response, "the response")
        if not isinstance(data.get("message"), dict):
            error = _error(data)
            if error is not None:
                raise ResponseError(error)
        message = field(data, "message", dict, "the response")
        reason = data.get("finish_reason")
        messages = _read_message(message, reason in _CUT_REASONS, "message")
        return _reply(messages, reason, data.get("usage"), data.get("id"))
    except LEAKS as err:
        raise_response_failure(err)
