"""A ``ChatCompletion`` read into messages: the first choice's message, its finish reason, its
usage.
"""

from __future__ import annotations

from typing import Any, Final

from ..._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    ThinkingBlock,
    ToolCall,
)
from .._chat_reply import (
    chat_reply,
    clean_call,
    first_choice,
    read_calls,
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
from ._assistant import _flat, _said
from ._wire import _REASONING_KEYS, CUSTOM_INPUT, PROTOCOL

# Fields the openai SDK adds to what the API sent (``.parse()`` and the
# stream helpers); they are not part of the wire and the API refuses them.
_SDK_ONLY: Final = frozenset({"parsed"})

_SDK_ONLY_IN_FUNCTION: Final = frozenset({"parsed_arguments"})


def _clean(message: dict[str, Any]) -> dict[str, Any]:
    """The message as sent, without the SDK's additions, empty fields or stream indices.

    The same message read whole or built from a stream comes out the same,
    whichever of its optional fields the provider spelled as ``null``; an
    empty refusal or list of annotations says nothing and is left out too.
    """
    out: dict[str, Any] = {}
    for key, value in message.items():
        if (
            value is None
            or key in _SDK_ONLY
            or (key == "annotations" and value == [])
            or (key == "refusal" and value == "")
        ):
            continue
        if key == "tool_calls" and isinstance(value, list):
            value = [_clean_call(call) for call in value]
            if not value:
                continue
        out[key] = value
    return out


def _clean_call(call: object) -> object:
    return clean_call(call, _stream_index, _SDK_ONLY_IN_FUNCTION)


def _stream_index(key: str, value: Any) -> bool:
    """A stream's ``index`` of a call, which a whole message has not."""
    return key == "index"


def _read_call(raw: object, where: str) -> ToolCall | None:
    """The call, or ``None`` for a kind of call this version does not know.

    A custom tool's call carries free text, not a JSON object: it becomes a
    ``ToolCall`` whose ``arguments`` are ``{"input": <the text>}`` (see
    :data:`CUSTOM_INPUT`), so that a program sees it, and answers it, as
    any other call. The message as sent is kept for the exact replay.
    """
    if not isinstance(raw, dict):
        raise ResponseError(f"{where}: expected an object, got {short(raw)}")
    kind = raw.get("type", "function")
    if kind == "custom":
        custom = field(raw, "custom", dict, where)
        text = field(custom, "input", str, f"{where}.custom")
        call_id = field(raw, "id", str, where, None)
        name = field(custom, "name", str, f"{where}.custom")
        return tool_call(call_id, name, {CUSTOM_INPUT: text}, where)
    if kind != "function":
        return None
    function = field(raw, "function", dict, where)
    text = field(function, "arguments", str, f"{where}.function")
    try:
        arguments = parse_arguments(text)
    except ValueError as err:
        raise ResponseError(f"{where}: {err}") from None
    call_id = field(raw, "id", str, where, None)  # some compatible servers send none
    name = field(function, "name", str, f"{where}.function")
    return tool_call(call_id, name, arguments, where)


def _reasoning_text(message: dict[str, Any], where: str) -> str:
    for key in _REASONING_KEYS:
        value = message.get(key)
        if value is not None:
            if not isinstance(value, str):
                raise ResponseError(f"{where}: {key!r} should be str, got {short(value)}")
            return value
    return ""


def _read_message(message: dict[str, Any], cut: bool, where: str) -> list[Message]:
    """The messages for one choice's message; ``cut`` when it stopped at the token limit.

    A refusal is the model's answer in words, so it becomes the text when
    there is no other. A call cut off at the token limit is not a call a
    backend could run: it stays only in the kept message.
    """
    for key, kind in (("content", str), ("refusal", str), ("audio", dict)):
        field(message, key, kind, where, None)  # a wrong type is refused, naming the field
    raw_calls = field(message, "tool_calls", list, where, None) or []
    thought = _reasoning_text(message, where)
    calls = read_calls(raw_calls, cut, where, _read_call)
    thinking = (ThinkingBlock(text=thought),) if thought else ()
    item = _clean(message)
    item["role"] = "assistant"  # as the turn says it (replaying the turn leaves it aside)
    return turn_and_kept(_said(message), calls, thinking, item, _carried, PROTOCOL, where)


def _carried(item: dict[str, Any], assistant: AssistantMessage) -> bool:
    """Whether replaying ``assistant`` sends what the message ``item`` said.

    Reasoning is carried by the thinking block. A ``null``, missing or empty
    ``content`` say the same to the API, beside calls or alone.
    """
    sent = {key: value for key, value in item.items() if key not in _REASONING_KEYS}
    sent.pop("role", None)
    if "tool_calls" not in sent:
        sent.setdefault("content", "")
    elif sent.get("content") == "":
        del sent["content"]
    return sent == _flat(assistant)


def from_response(response: object) -> list[Message]:
    """The messages to append for a ``ChatCompletion`` (dict or SDK object).

    Only the first choice is read: the others are alternatives to it, not
    more of the same turn. Arguments are parsed from their JSON text (key
    order and big integers kept). What the ``AssistantMessage`` cannot say
    is kept before it as an ``openai-chat`` items message (see the module).
    """
    return read_reply(response).messages


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage, model and id."""
    try:
        data = plain(response, "the response")
        error = reported_error(data, "choices")
        if error is not None:
            raise ResponseError(error)
        choice = first_choice(data)
        reason = choice.get("finish_reason")
        message = field(choice, "message", dict, "choices[0]")
        messages = _read_message(message, reason == "length", "choices[0].message")
        return _reply(messages, reason, data.get("usage"), data)
    except LEAKS as err:
        raise_response_failure(err)


_STOPS: Final[dict[str, StopReason]] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "content_filter",
}


def _stop_reason(messages: list[Message], reason: object) -> StopReason:
    """The finish reason by meaning: a refusal, or a turn of calls, whatever ``stop`` says."""
    stop = stop_by_table(_STOPS, messages, reason)
    kept = messages[0] if isinstance(messages[0], ProviderOutputItemsMessage) else None
    if (
        kept is not None
        and isinstance(reason, str)
        and _STOPS.get(reason) == "end_turn"
        and any(isinstance(item, dict) and item.get("refusal") for item in kept.items)
    ):
        return "refusal"
    return stop


def _usage(raw: object) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    return Usage(
        input_tokens=token_count(raw, "prompt_tokens"),
        output_tokens=token_count(raw, "completion_tokens"),
        cache_read_tokens=token_count(raw, "prompt_tokens_details", "cached_tokens"),
        cache_write_tokens=token_count(raw, "prompt_tokens_details", "cache_write_tokens"),
        reasoning_tokens=token_count(raw, "completion_tokens_details", "reasoning_tokens"),
        raw=raw,
    )


def _reply(messages: list[Message], reason: object, usage: object, data: dict[str, Any]) -> Reply:
    stop = _stop_reason(messages, reason)
    return chat_reply(messages, stop, reason, _usage(usage), data.get("model"), data.get("id"))
