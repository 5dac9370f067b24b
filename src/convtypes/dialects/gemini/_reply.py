"""A Gemini response to messages: parts, stop reason, usage."""

from __future__ import annotations

from typing import Any, Final

from ..._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    ThinkingBlock,
    ToolCall,
)
from .._errors import LEAKS, ResponseError, raise_response_failure, short
from .._json import built, tool_call
from .._reply import Reply, StopReason, Usage, token_count
from ._chunk import _FILTERED, _Chunk, _snake_keys
from ._wire import PROTOCOL


def _is_text(part: dict[str, Any]) -> bool:
    return isinstance(part.get("text"), str) and part.keys() <= {
        "text",
        "thought",
        "thought_signature",
    }


def _in_pieces(call: object) -> bool:
    """Whether a function call is one piece of a call streamed in pieces."""
    return isinstance(call, dict) and (
        call.get("partial_args") is not None or bool(call.get("will_continue"))
    )


_IN_PIECES: Final = (
    "a function call streamed in pieces (stream_function_call_arguments) is not supported; "
    "leave that option off"
)


def _read_call(part: dict[str, Any], where: str) -> ToolCall:
    call = part["function_call"]
    if not isinstance(call, dict):
        raise ResponseError(f"{where}: a function call that is not an object")
    if _in_pieces(call):
        raise ResponseError(f"{where}: {_IN_PIECES}")
    name = call.get("name")
    arguments = call.get("args")
    if arguments is None:
        arguments = {}
    call_id = call.get("id")
    if not isinstance(name, str) or not isinstance(arguments, dict):
        raise ResponseError(f"{where}: a function call without a name or args")
    if call_id is not None and not isinstance(call_id, str):
        raise ResponseError(f"{where}: a function call id that is not text")
    return tool_call(call_id, name, arguments, where)


def _messages(parts: list[dict[str, Any]], final: bool = True) -> list[Message]:
    """The items message and the assistant message for ``parts``.

    A call that cannot be read raises ``ResponseError``, unless ``final`` is
    False (a partial reply), where it stays in the items only.
    """
    texts: list[str] = []
    calls: list[ToolCall] = []
    thinking: list[ThinkingBlock] = []
    for number, part in enumerate(parts):
        if "function_call" in part:
            try:
                calls.append(_read_call(part, f"parts[{number}]"))
            except ResponseError:
                if final:
                    raise
        elif isinstance(part.get("text"), str):
            if part.get("thought"):
                if part["text"]:
                    thinking.append(ThinkingBlock(text=part["text"]))
            else:
                texts.append(part["text"])
        # Other parts (code execution, generated media) stay in the items.
    assistant = AssistantMessage(
        content="".join(texts), tool_calls=tuple(calls), thinking=tuple(thinking)
    )
    kept = built(lambda: ProviderOutputItemsMessage(protocol=PROTOCOL, items=tuple(parts)), "parts")
    return [kept, assistant]


def _stop_reason(reason: str | None, blocked: bool, messages: list[Message]) -> StopReason:
    if reason is None:
        return "content_filter" if blocked else "other"
    if reason == "STOP":
        assistant = messages[-1]
        calls = isinstance(assistant, AssistantMessage) and bool(assistant.tool_calls)
        return "tool_use" if calls else "end_turn"
    if reason == "MAX_TOKENS":
        return "max_tokens"
    if reason in _FILTERED:
        return "content_filter"
    return "other"


def _usage(raw: object, what: str) -> Usage:
    """The usage metadata as a :class:`Usage` (see the module for the arithmetic)."""
    if raw is None:
        return Usage()
    if not isinstance(raw, dict):
        raise ResponseError(f"{what}: the usage metadata is not an object: {short(raw)}")
    usage = _snake_keys(raw)
    prompt = token_count(usage, "prompt_token_count")
    tools = token_count(usage, "tool_use_prompt_token_count")
    generated = token_count(usage, "candidates_token_count")
    thoughts = token_count(usage, "thoughts_token_count")
    total = token_count(usage, "total_token_count")
    given = [count for count in (prompt, tools) if count is not None]
    input_tokens = sum(given) if given else None
    if generated is not None or thoughts is not None:
        output_tokens: int | None = (generated or 0) + (thoughts or 0)
    elif total is not None and input_tokens is not None and total >= input_tokens:
        output_tokens = total - input_tokens
    else:
        output_tokens = None
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=token_count(usage, "cached_content_token_count"),
        reasoning_tokens=thoughts,
        raw=usage,
    )


def _reply(
    messages: list[Message],
    reason: str | None,
    block: str | None,
    blocked: bool,
    usage: Usage,
    model: str | None,
    reply_id: str | None,
    details: dict[str, Any],
) -> Reply:
    return Reply(
        messages=messages,
        stop_reason=_stop_reason(reason, blocked, messages),
        provider_stop_reason=reason if reason is not None else block,
        usage=usage,
        model=model,
        id=reply_id,
        details=details,
    )


def from_response(response: object) -> list[Message]:
    """The messages to append for a ``GenerateContentResponse`` (dict or SDK object).

    Always two: the ``gemini`` items message with the first candidate's
    parts as sent, then the ``AssistantMessage`` read from them (its text,
    calls and thought summaries). A candidate without content, or a prompt
    blocked before any candidate, gives both empty; :func:`read_reply` says
    why. A response with neither a candidate nor prompt feedback raises
    ``ResponseError``.
    """
    return read_reply(response).messages


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage, model and id."""
    try:
        chunk = _Chunk(response, "the response")
        if chunk.candidate is None and not chunk.feedback:
            raise ResponseError(
                "the response has no first candidate, and no prompt feedback to say why"
            )
        messages = _messages(chunk.parts or [])
        return _reply(
            messages,
            chunk.reason,
            chunk.block,
            chunk.block is not None,
            _usage(chunk.usage, "the response"),
            chunk.model,
            chunk.id,
            chunk.details,
        )
    except LEAKS as err:
        raise_response_failure(err)
