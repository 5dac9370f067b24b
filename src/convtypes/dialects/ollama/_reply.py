"""An Ollama chat response read into messages: its message, its finish reason, its usage."""

from __future__ import annotations

from typing import Any, Final

from ..._messages import (
    AssistantMessage,
    Message,
    ThinkingBlock,
    ToolCall,
)
from .._chat_reply import chat_reply, turn_and_kept
from .._errors import (
    LEAKS,
    ResponseError,
    label,
    raise_response_failure,
    short,
)
from .._json import field, plain, tool_call
from .._reply import (
    Reply,
    StopReason,
    Usage,
)
from ._assistant import _call_out, _call_parts, _thought, _turn
from ._wire import PROTOCOL

# The usage and timing fields of a response's last object, kept as ``Usage.raw``.
_COUNTS: Final = (
    "total_duration",
    "load_duration",
    "prompt_eval_count",
    "prompt_eval_duration",
    "eval_count",
    "eval_duration",
)

# Message fields whose empty value says nothing, as Ollama omits them.
_OMITTED_WHEN_EMPTY: Final = frozenset({"thinking", "images", "tool_calls"})


def _clean(message: dict[str, Any]) -> dict[str, Any]:
    """The message as sent, without ``null`` or empty fields and without call positions.

    Ollama omits an empty field, and numbers each call with its position in
    the reply (``function.index``); the turn keeps that position by order.
    """
    out: dict[str, Any] = {}
    for key, value in message.items():
        if value is None or (key in _OMITTED_WHEN_EMPTY and not value):
            continue
        if key == "tool_calls" and isinstance(value, list):
            value = [_clean_call(call, position) for position, call in enumerate(value)]
        out[key] = value
    return out


def _clean_call(call: object, position: int) -> object:
    if not isinstance(call, dict):
        return call
    out = {key: value for key, value in call.items() if value is not None}
    function = out.get("function")
    if isinstance(function, dict):
        index = function.get("index")
        out["function"] = {
            key: value
            for key, value in function.items()
            if value is not None
            and not (key == "index" and type(index) is int and index == position)
        }
    return out


def _read_message(message: dict[str, Any], where: str) -> list[Message]:
    """The messages for one reply message (kept as an item when the turn cannot say it)."""
    content = field(message, "content", str, where, None) or ""
    thought = field(message, "thinking", str, where, None) or ""
    raw_calls = field(message, "tool_calls", list, where, None) or []
    field(message, "role", str, where, None)
    calls: list[ToolCall] = []
    for number, raw in enumerate(raw_calls):
        call_where = f"{where}.tool_calls[{number}]"
        call_id, name, arguments = _call_parts(raw, call_where)
        if arguments is not None:
            calls.append(tool_call(call_id, name, arguments, call_where))
    thinking = (ThinkingBlock(text=thought),) if thought else ()
    item = _clean(message)
    item.setdefault("role", "assistant")  # as the turn says it
    return turn_and_kept(content, calls, thinking, item, _carried, PROTOCOL, where)


def _carried(item: dict[str, Any], assistant: AssistantMessage) -> bool:
    """Whether replaying ``assistant`` sends what the message ``item`` said.

    A missing ``role`` or ``content`` says what ``"assistant"`` and ``""`` say.
    """
    sent = dict(item)
    sent.setdefault("role", "assistant")
    sent.setdefault("content", "")
    calls = [_call_out(call.id, call) for call in assistant.tool_calls]
    return sent == _turn(assistant.content, calls, _thought(assistant.thinking))


def from_response(response: object) -> list[Message]:
    """The messages to append for an ``/api/chat`` response (dict or ``ChatResponse``).

    Arguments keep their key order and big integers. What the
    ``AssistantMessage`` cannot say is kept before it as an ``ollama`` items
    message (see the module). A stream's chunk (``"done": false``) is refused:
    feed chunks to an :class:`Accumulator`.
    """
    return read_reply(response).messages


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage and model."""
    try:
        data = plain(response, "the response")
        error = data.get("error")
        if error is not None:
            raise ResponseError(f"the provider reported an error: {label(error, 200)}")
        done = data.get("done")
        if done is not None and not isinstance(done, bool):
            raise ResponseError(f"the response: 'done' should be true or false, got {short(done)}")
        if done is False:
            raise ResponseError(
                "the response is a chunk of a stream ('done' is false): feed the chunks "
                "to an Accumulator"
            )
        message = field(data, "message", dict, "the response")
        reason = field(data, "done_reason", str, "the response", None)
        return _reply(_read_message(message, "message"), reason, data)
    except LEAKS as err:
        raise_response_failure(err)


def _stop_reason(messages: list[Message], reason: str | None) -> StopReason:
    if reason == "length":
        return "max_tokens"
    if reason == "stop" or reason is None:
        assistant = messages[-1]
        if isinstance(assistant, AssistantMessage) and assistant.tool_calls:
            return "tool_use"
        if reason == "stop":
            return "end_turn"
    return "other"


def _usage(data: dict[str, Any]) -> Usage:
    raw: dict[str, Any] = {key: data[key] for key in _COUNTS if key in data}
    if not raw:
        return Usage()
    prompt = raw.get("prompt_eval_count")
    generated = raw.get("eval_count")
    return Usage(
        input_tokens=prompt if type(prompt) is int else None,
        output_tokens=generated if type(generated) is int else None,
        raw=raw,
    )


def _reply(messages: list[Message], reason: str | None, data: dict[str, Any]) -> Reply:
    stop = _stop_reason(messages, reason)
    return chat_reply(messages, stop, reason, _usage(data), data.get("model"))
