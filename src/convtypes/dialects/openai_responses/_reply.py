"""A Responses API response to messages: output items, stop reason, usage."""

from __future__ import annotations

from typing import Any, Final

from ..._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    ThinkingBlock,
    ToolCall,
)
from .._errors import LEAKS, ResponseError, raise_response_failure, reported_error, short
from .._json import built, field, parse_arguments, plain, tool_call
from .._reply import Reply, StopReason, Usage, token_count
from ._request import _part_texts, _sent, _without_nulls
from ._wire import CUSTOM_INPUT, PROTOCOL

# Output items that wait on the caller: the reply stops for the caller to
# run them (or, for an MCP approval request, to answer it).
_CALLER_ITEMS: Final = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "computer_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "mcp_approval_request",
    }
)


def _read(
    items: list[Any],
    what: str,
    cut: bool,
    unfinished: frozenset[int] = frozenset(),
    leave_unfinished: bool = False,
) -> list[Message]:
    """The items message and the assistant message for these output items.

    ``cut`` says the reply stopped before its end (an incomplete response,
    or a stream so far): a call whose arguments are not whole JSON is then
    no call, rather than an error. The items at the positions in
    ``unfinished`` are still arriving: a function call among them is a call
    only once its arguments are a whole object, and with
    ``leave_unfinished`` they are read but not kept.
    """
    kept: list[Any] = []
    texts: list[str] = []
    refusals: list[str] = []
    calls: list[ToolCall] = []
    thinking: list[ThinkingBlock] = []
    for number, raw in enumerate(items):
        where = f"{what}[{number}]"
        if not isinstance(raw, dict):
            raise ResponseError(f"{where}: expected an object, got {short(raw)}")
        item = _without_nulls(_sent(raw))
        still_open = number in unfinished
        if not (still_open and leave_unfinished):
            kept.append(item)
        kind = item.get("type")
        if kind == "message":
            for position, part in enumerate(field(item, "content", list, where, None) or ()):
                at = f"{where}.content[{position}]"
                if not isinstance(part, dict):
                    raise ResponseError(f"{at}: expected an object, got {short(part)}")
                if part.get("type") == "output_text":
                    texts.append(field(part, "text", str, at))
                elif part.get("type") == "refusal":
                    refusals.append(field(part, "refusal", str, at))
        elif kind == "function_call":
            call = _read_call(item, where, cut, still_open)
            if call is not None:
                calls.append(call)
        elif kind == "custom_tool_call":
            call = _read_custom(item, where, still_open)
            if call is not None:
                calls.append(call)
        elif kind == "reasoning":
            for key in ("summary", "content"):
                for position, part in enumerate(field(item, key, list, where, None) or ()):
                    text = field(part, "text", str, f"{where}.{key}[{position}]", "")
                    if text:
                        thinking.append(ThinkingBlock(text=text))
        # Any other item (server tool calls and their results) is provider
        # state: it is in the items message and goes back from there.
    assistant = AssistantMessage(
        content="".join(texts) or "".join(refusals),
        tool_calls=tuple(calls),
        thinking=tuple(thinking),
    )
    items_message = built(
        lambda: ProviderOutputItemsMessage(protocol=PROTOCOL, items=tuple(kept)), what
    )
    return [items_message, assistant]


def _read_call(item: dict[str, Any], where: str, cut: bool, still_open: bool) -> ToolCall | None:
    """The ``ToolCall`` of a function call item, or ``None`` if it never completed."""
    text = field(item, "arguments", str, where)
    call_id = field(item, "call_id", str, where)
    name = field(item, "name", str, where)
    status = item.get("status")
    if status == "incomplete":
        return None
    still_open = still_open or status == "in_progress"
    if still_open and (text == "" or text.isspace()):
        return None  # no argument has arrived yet
    try:
        arguments = parse_arguments(text)
    except ValueError as err:
        if cut or still_open:
            return None
        raise ResponseError(f"{where}: {err}") from None
    return tool_call(call_id, name, arguments, where)


def _read_custom(item: dict[str, Any], where: str, still_open: bool) -> ToolCall | None:
    """The ``ToolCall`` of a custom tool's call: its free text as ``{"input": <text>}``.

    ``None`` while it is still arriving (its input may not be whole yet).
    """
    text = field(item, "input", str, where)
    call_id = field(item, "call_id", str, where)
    name = field(item, "name", str, where)
    if still_open or item.get("status") in ("in_progress", "incomplete"):
        return None
    return tool_call(call_id, name, {CUSTOM_INPUT: text}, where)


def _stop_reason(messages: list[Message], status: object, details: object) -> StopReason:
    """The reply's stop reason by meaning (see the module's docstring)."""
    if status == "incomplete":
        reason = details.get("reason") if isinstance(details, dict) else None
        if reason == "max_output_tokens":
            return "max_tokens"
        return "content_filter" if reason == "content_filter" else "other"
    if status is not None and status != "completed":
        return "other"
    items = messages[0]
    assert isinstance(items, ProviderOutputItemsMessage)
    refused = False
    for item in items.items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind in _CALLER_ITEMS or (
            kind == "tool_search_call" and item.get("execution") == "client"
        ):
            return "tool_use"  # a tool search run by the client waits on it too
        if kind == "message" and not refused:
            refused = bool(_part_texts(item, "refusal", "refusal"))
    return "refusal" if refused else "end_turn"


def _provider_stop_reason(status: object, details: object) -> str | None:
    if status == "incomplete":
        reason = details.get("reason") if isinstance(details, dict) else None
        return reason if isinstance(reason, str) else "incomplete"
    return status if isinstance(status, str) else None


def _usage(raw: object) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    return Usage(
        input_tokens=token_count(raw, "input_tokens"),
        output_tokens=token_count(raw, "output_tokens"),
        cache_read_tokens=token_count(raw, "input_tokens_details", "cached_tokens"),
        cache_write_tokens=token_count(raw, "input_tokens_details", "cache_write_tokens"),
        reasoning_tokens=token_count(raw, "output_tokens_details", "reasoning_tokens"),
        raw=raw,
    )


def _reply(
    messages: list[Message],
    response: dict[str, Any],
    status: object,
    audio: dict[str, str] | None = None,
) -> Reply:
    details = response.get("incomplete_details")
    model = response.get("model")
    reply_id = response.get("id")
    said: dict[str, Any] = {}
    if details is not None:
        said["incomplete_details"] = details
    if audio:
        said["audio"] = audio
    return Reply(
        messages=messages,
        stop_reason=_stop_reason(messages, status, details),
        provider_stop_reason=_provider_stop_reason(status, details),
        usage=_usage(response.get("usage")),
        model=model if isinstance(model, str) else None,
        id=reply_id if isinstance(reply_id, str) else None,
        details=said,
    )


def _check_not_failed(response: dict[str, Any]) -> None:
    if response.get("status") == "failed":
        raise ResponseError(f"the response failed: {short(response.get('error'), 200)}")


def from_response(response: object) -> list[Message]:
    """The messages to append for a ``Response`` (dict or SDK object).

    Returns the output items, as the API sent them, as a
    ``ProviderOutputItemsMessage`` of protocol ``openai-responses``, then an
    ``AssistantMessage`` with the output text (or the refusal when there is
    no text), the completed function calls with ``call_id`` as their id, and
    each reasoning summary and reasoning text as an unsigned
    ``ThinkingBlock``. A response whose status is ``failed`` raises.
    """
    return read_reply(response).messages


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage, model and id."""
    try:
        data = plain(response, "the response")
        error = reported_error(data, "output")
        if error is not None:
            raise ResponseError(error)
        _check_not_failed(data)
        status = data.get("status")
        output = field(data, "output", list, "the response")
        messages = _read(output, "output", cut=status not in (None, "completed"))
        return _reply(messages, data, status)
    except LEAKS as err:
        raise_response_failure(err)
