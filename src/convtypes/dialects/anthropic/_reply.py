"""A Messages API response to messages: content blocks, stop reason, usage."""

from __future__ import annotations

from typing import Any, Final

from ..._messages import (
    AssistantMessage,
    Message,
    ThinkingBlock,
    ToolCall,
)
from .._block_reply import (
    BLOCK_STOPS,
    UsageKeys,
    assistant_after_items,
    block_reply,
    cached_usage,
    cut_off,
)
from .._errors import LEAKS, ResponseError, raise_response_failure, reported_error, short
from .._json import field, plain, tool_call
from .._reply import Reply, StopReason
from ._request import _replayable, _thoughts
from ._wire import _CUT, _SDK_ONLY, PROTOCOL, _has_text, _usable_id

# What this wire says, for the reader that Anthropic and Bedrock share.
_STOPS: Final[dict[str, StopReason]] = {
    **BLOCK_STOPS,
    "pause_turn": "pause_turn",
    # The beta's compaction pauses after writing its compaction block, for
    # the conversation to be sent back (as it is, or trimmed) to go on.
    "compaction": "pause_turn",
    "refusal": "refusal",
}


_USAGE: Final = UsageKeys(
    fresh="input_tokens",
    read="cache_read_input_tokens",
    written="cache_creation_input_tokens",
    output="output_tokens",
    reasoning=("output_tokens_details", "thinking_tokens"),
)


def _flat(message: AssistantMessage) -> list[dict[str, Any]] | None:
    """The content ``to_request`` sends for ``message`` alone; ``None`` if ids change."""
    out = _thoughts(message.thinking)
    if _has_text(message.content):
        out.append({"type": "text", "text": message.content})
    seen: set[str] = set()
    for call in message.tool_calls:
        if call.id is None or call.id in seen or not _usable_id(call.id):
            return None  # to_request would send another id than the one that came
        seen.add(call.id)
        out.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
    return out


def _carried(items: list[dict[str, Any]], assistant: AssistantMessage) -> bool:
    """Whether replaying ``assistant`` alone sends the content that came, as JSON.

    Blocks the API refuses as input do not count: they go back neither way.
    """
    flat = _flat(assistant)
    if flat is None:
        return False
    return [block for block in map(_replayable, items) if block is not None] == flat


def _read(blocks: list[Any], incomplete: set[int], where: str) -> list[Message]:
    """The messages for a reply's content blocks.

    ``incomplete`` holds the positions of blocks that were cut off; a
    ``tool_use`` among them is kept in the items only.
    """
    runs: list[str] = []
    run: list[str] = []
    calls: list[ToolCall] = []
    thinking: list[ThinkingBlock] = []
    items: list[dict[str, Any]] = []
    for number, block in enumerate(blocks):
        if not isinstance(block, dict):
            raise ResponseError(
                f"{where}.content[{number}]: expected an object, got {short(block)}"
            )
        items.append(
            {
                key: value
                for key, value in block.items()
                if value is not None and key not in _SDK_ONLY
            }
        )
        kind = block.get("type")
        if kind == "text":
            run.append(field(block, "text", str, f"{where}.content[{number}]"))
            continue
        if not isinstance(kind, str):
            raise ResponseError(
                f"{where}.content[{number}]: a block without a type: {short(block)}"
            )
        if run:
            runs.append("".join(run))
            run = []
        at = f"{where}.content[{number}]"
        if kind == "tool_use":
            if number in incomplete:
                continue  # cut off: its input may be half there
            arguments = field(block, "input", dict, at)
            call_id = field(block, "id", str, at)
            name = field(block, "name", str, at)
            calls.append(tool_call(call_id, name, arguments, at))
        elif kind == "thinking":
            thinking.append(
                ThinkingBlock(
                    text=field(block, "thinking", str, at),
                    signature=field(block, "signature", str, at),
                )
            )
        elif kind == "redacted_thinking":
            thinking.append(ThinkingBlock(redacted_data=field(block, "data", str, at)))
        # Any other block (server tools, compaction, a type this version does
        # not know) says nothing the flat message can hold: it is in the items.
    if run:
        runs.append("".join(run))
    return assistant_after_items(runs, calls, thinking, items, _carried, PROTOCOL, where)


def from_response(response: object) -> list[Message]:
    """The messages to append for a Messages API response.

    ``response`` is the response JSON as a dict or the SDK's ``Message``
    (``BetaMessage``, ``ParsedMessage`` and the stream helper's final
    message too). Text becomes the assistant's ``content``, thinking and
    redacted thinking ``ThinkingBlock``\\ s in order, ``tool_use`` blocks
    ``ToolCall``\\ s with their ids; what that message cannot say is kept
    before it as ``anthropic`` items (see the module).
    """
    return read_reply(response).messages


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage, model and id."""
    try:
        data = plain(response, "the response")
        error = reported_error(data, "content")
        if error is not None:
            raise ResponseError(error)
        content = field(data, "content", list, "the response")
        reason = data.get("stop_reason")
        messages = _read(content, cut_off(content, reason, _CUT), "response")
        details = reply_details(data)
        return _reply(
            messages, reason, data.get("usage"), data.get("model"), data.get("id"), details
        )
    except LEAKS as err:
        raise_response_failure(err)


def _reply(
    messages: list[Message],
    reason: object,
    usage: object,
    model: object,
    reply_id: object,
    details: dict[str, Any],
) -> Reply:
    usage_read = cached_usage(usage, _USAGE)
    return block_reply(messages, reason, usage_read, model, reply_id, _STOPS, details)


DETAIL_KEYS: Final = ("stop_details", "stop_sequence", "container")
"""What a Message says about itself beside its content, stop reason and usage: kept in
``Reply.details`` as sent (the refusal's category and explanation, the stop sequence
met, the code-execution container to name in the next request)."""


def reply_details(holder: dict[str, Any]) -> dict[str, Any]:
    """The :data:`DETAIL_KEYS` that ``holder`` (a message, or a ``message_delta``'s delta)
    gives, without a ``null`` one."""
    return {key: holder[key] for key in DETAIL_KEYS if holder.get(key) is not None}
