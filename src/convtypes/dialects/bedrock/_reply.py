"""A Converse response to messages: content blocks, stop reason, usage."""

from __future__ import annotations

import re
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
from .._errors import LEAKS, ResponseError, raise_response_failure, short
from .._json import field, jsonable, plain, tool_call
from .._reply import Reply, StopReason
from ._request import _cited_text, _replayable, _thought_items
from ._wire import _CUT, _SERVER_CALL, PROTOCOL, _has_text, _member, _usable_id

# The API's own rule for a tool's name (its service model).
_NAME: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")


# What this wire says, for the reader that Anthropic and Bedrock share.
_STOPS: Final[dict[str, StopReason]] = {
    **BLOCK_STOPS,
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
}


_USAGE: Final = UsageKeys(
    fresh="inputTokens",
    read="cacheReadInputTokens",
    written="cacheWriteInputTokens",
    output="outputTokens",
)


def _flat(message: AssistantMessage) -> list[dict[str, Any]] | None:
    """The content ``to_request`` sends for ``message`` alone (items' spelling).

    ``None`` where the ids or names would go out otherwise than they came.
    """
    out = _thought_items(message.thinking)
    if _has_text(message.content):
        out.append({"text": message.content})
    seen: set[str] = set()
    for call in message.tool_calls:
        if call.id is None or call.id in seen or not _usable_id(call.id):
            return None
        if _NAME.fullmatch(call.name) is None:
            return None
        seen.add(call.id)
        use = {"toolUseId": call.id, "name": call.name, "input": call.arguments}
        out.append({"toolUse": use})
    return out


# Blocks that go back neither way but are kept, so that left_out names them.
_UNSAID: Final = frozenset({"SDK_UNKNOWN_MEMBER", "cachePoint"})


def _carried(items: list[dict[str, Any]], assistant: AssistantMessage) -> bool:
    """Whether replaying ``assistant`` alone sends the content that came.

    Blocks the API refuses as input do not count: they go back neither way.
    A block boto3 could not read is kept, so the transcript says one came,
    and so is a ``cachePoint`` (no reply is known to hold one, but if one
    does, ``left_out`` names it rather than the read dropping it unsaid).
    """
    flat = _flat(assistant)
    if flat is None or any(_UNSAID.intersection(item) for item in items):
        return False
    replayed = [block for block, _, _ in map(_replayable, items) if block is not None]
    return replayed == flat


def _thought(reasoning: object, at: str) -> ThinkingBlock | None:
    """The thinking of a ``reasoningContent`` block; ``None`` for a kind unknown here."""
    if not isinstance(reasoning, dict):
        raise ResponseError(f"{at}: reasoningContent should be an object, got {short(reasoning)}")
    inner = reasoning.get("reasoningText")
    if inner is not None:
        text = field(inner, "text", str, f"{at}.reasoningText")
        signature = field(inner, "signature", str, f"{at}.reasoningText", None)
        return ThinkingBlock(text=text, signature=signature)
    data = reasoning.get("redactedContent")
    if data is not None:
        if not isinstance(data, str):
            raise ResponseError(f"{at}: redactedContent should be bytes, got {short(data)}")
        return ThinkingBlock(redacted_data=data)
    return None


def _read(blocks: list[Any], incomplete: set[int], where: str) -> list[Message]:
    """The messages for a reply's content blocks.

    ``incomplete`` holds the positions of blocks that were cut off; a
    ``toolUse`` among them is kept in the items only.
    """
    runs: list[str] = []
    run: list[str] = []
    calls: list[ToolCall] = []
    thinking: list[ThinkingBlock] = []
    items: list[dict[str, Any]] = []
    for number, block in enumerate(blocks):
        at = f"{where}.content[{number}]"
        if not isinstance(block, dict):
            raise ResponseError(f"{at}: expected an object, got {short(block)}")
        item: dict[str, Any] = jsonable(block)
        items.append(item)
        kind = _member(item)
        if kind is None:
            raise ResponseError(
                f"{at}: a content block holds one member (text, toolUse...), got {short(block)}"
            )
        if kind == "text":
            run.append(field(item, "text", str, at))
            continue
        if kind == "citationsContent":
            run.append(_cited_text(item[kind], at))
            continue
        if run:
            runs.append("".join(run))
            run = []
        if kind == "reasoningContent":
            thought = _thought(item[kind], at)
            if thought is not None:
                thinking.append(thought)
        elif kind == "toolUse":
            use = field(item, kind, dict, at)
            if use.get("type") == _SERVER_CALL or number in incomplete:
                continue  # the server's own call, or one cut off: in the items only
            call_id = field(use, "toolUseId", str, f"{at}.toolUse")
            name = field(use, "name", str, f"{at}.toolUse")
            arguments = field(use, "input", dict, f"{at}.toolUse")
            calls.append(tool_call(call_id, name, arguments, at))
        # Any other block (a server tool's result, an image, a type this
        # version does not know) says nothing the flat message can hold.
    if run:
        runs.append("".join(run))
    return assistant_after_items(runs, calls, thinking, items, _carried, PROTOCOL, where)


def from_response(response: object) -> list[Message]:
    """The messages to append for a Converse response.

    ``response`` is what boto3's ``converse`` returns (a dict, its bytes as
    bytes) or the REST JSON (bytes as base64 text). Text becomes the
    assistant's ``content``, reasoning ``ThinkingBlock``\\ s in order, client
    ``toolUse`` blocks ``ToolCall``\\ s with their ids; what that message
    cannot say is kept before it as ``bedrock-converse`` items (see the
    module).
    """
    return read_reply(response).messages


def _reported(data: dict[str, Any]) -> str | None:
    """What an error in place of a reply says: boto3's ``ClientError.response``,
    the REST error body, or an exception event."""
    for key, value in data.items():
        if key == "Error" or (isinstance(key, str) and key.endswith("Exception")):
            return f"the provider reported an error: {short(value, 200)}"
    message = data.get("message")
    if isinstance(message, str):
        return f"the provider reported an error: {short(message, 200)}"
    return None


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage, model and id."""
    try:
        data = plain(response, "the response")
        if "output" not in data:
            error = _reported(data)
            if error is not None:
                raise ResponseError(error)
        output = field(data, "output", dict, "the response")
        message = field(output, "message", dict, "the response's output")
        content = field(message, "content", list, "the response's output.message")
        reason = data.get("stopReason")
        messages = _read(content, cut_off(content, reason, _CUT), "response")
        metadata = data.get("ResponseMetadata")
        request_id = metadata.get("RequestId") if isinstance(metadata, dict) else None
        return _reply(messages, reason, data.get("usage"), _routed(data.get("trace")), request_id)
    except LEAKS as err:
        raise_response_failure(err)


def _routed(trace: object) -> str | None:
    """The model a prompt router sent the request to, from a reply's ``trace``."""
    router = trace.get("promptRouter") if isinstance(trace, dict) else None
    model = router.get("invokedModelId") if isinstance(router, dict) else None
    return model if isinstance(model, str) else None


def _reply(
    messages: list[Message], reason: object, usage: object, model: object, reply_id: object
) -> Reply:
    return block_reply(messages, reason, cached_usage(usage, _USAGE), model, reply_id, _STOPS)
