"""The Anthropic Messages API.

``to_request`` builds ``{"system": ..., "messages": [...]}`` (no ``system`` key
when the transcript has none); ``from_response`` and :class:`Accumulator`
turn a ``Message`` response, or its raw stream events, into one
``AssistantMessage``.

What changes on the way out:

- System messages are joined with a blank line into the top-level ``system``.
- Turns alternate: consecutive user messages and tool results become one
  user turn, tool results first; consecutive assistant messages become one
  assistant turn. The first turn must be a user turn, or ``DialectError``.
- Thinking goes first in its turn and verbatim: signed blocks as
  ``thinking``, redacted ones as ``redacted_thinking``. When assistant
  messages merge into one turn, the thinking of all of them comes first, in
  order, then their text and calls. A block with neither
  a signature nor redacted data (another provider's, or a summary) is left
  out: the API refuses it, and a signature cannot be made up.
- Empty text, and text of white space only, is left out, in user and
  assistant turns alike (the API refuses such text blocks, and they say
  nothing to the model); a turn left with nothing is dropped.
- A tool call without its result by the next user message raises
  ``UnansweredCall``, as the API refuses it; calls open at the end are sent.
- Video and audio, and images other than JPEG, PNG, GIF and WebP, have no
  place: ``UnsupportedContent`` (or a text note with ``unsupported="note"``).
- Provider output items of any protocol are dropped: they are another
  provider's state.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .._content import ImageBase64Block, ImageUrlBlock, TextBlock
from .._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from .._unknown import UnknownBlock, UnknownMessage
from ._errors import (
    LEAKS,
    DialectError,
    ResponseError,
    StreamError,
    Unsupported,
    check_unsupported,
    label,
    not_a_message,
    note_text,
    raise_response_failure,
    short,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from ._ids import CallIds, safe_id
from ._json import field, parse_arguments, plain, tool_call
from ._reply import Delta
from ._send import tool_result_text
from ._stream import StreamReader

__all__ = ["Accumulator", "from_response", "to_request"]

DIALECT: Final = "Anthropic"

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The image media types the Messages API takes inline."""

_usable_id = safe_id(64)


def _has_text(text: str) -> bool:
    """Whether a text block may be sent: the API refuses empty and white-space text."""
    return text != "" and not text.isspace()


def _user_blocks(
    index: int, blocks: Iterable[object], unsupported: Unsupported
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            if _has_text(block.text):
                out.append({"type": "text", "text": block.text})
            continue
        if isinstance(block, ImageUrlBlock):
            out.append({"type": "image", "source": {"type": "url", "url": block.url}})
            continue
        if isinstance(block, ImageBase64Block):
            media_type = block.media_type
            if media_type in IMAGE_TYPES:
                source = {"type": "base64", "media_type": media_type, "data": block.data}
                out.append({"type": "image", "source": source})
                continue
            why = f"takes no {media_type!r} image (only JPEG, PNG, GIF and WebP)"
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        else:
            why = "has no block for video or audio"
        if unsupported == "note":
            out.append({"type": "text", "text": note_text(DIALECT, block)})
        else:
            raise unsupported_block(DIALECT, index, position, block, why)
    return out


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
) -> dict[str, Any]:
    """The conversation part of a Messages API request body.

    Returns ``{"system": str, "messages": [...]}``, without ``system`` when no
    system message is given. The caller adds ``model``, ``max_tokens``,
    ``tools`` and the rest. External tool results are fenced unless
    ``fence_external`` is False. Tool-call ids are made unique and fit
    ``^[A-Za-z0-9_-]{1,64}$``; a result follows its call's new id.

    The request shares tool arguments with the transcript: copy them before
    changing them in place.
    """
    check_unsupported(unsupported)
    transcript = messages if isinstance(messages, list) else list(messages)
    ids = CallIds(transcript, _usable_id, DIALECT)
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    role = ""  # the role of the last turn
    first_index = -1  # the message that opened the first turn
    thought_end = 0  # in an assistant turn, where its thinking ends
    # A merged user turn holds its tool results first without any sorting:
    # a user message closes the calls' scope, so no result can follow one
    # within a turn (it would be refused as unmatched).
    content: list[dict[str, Any]] = []
    for index, message in enumerate(transcript):
        if isinstance(message, ToolResultMessage):
            result = {
                "type": "tool_result",
                "tool_use_id": ids.result(index, message).out_id,
                "content": tool_result_text(message, fence_external),
            }
            if role != "user":
                content = []
                turns.append({"role": "user", "content": content})
                role = "user"
            content.append(result)
            continue
        if isinstance(message, AssistantMessage):
            ids.assistant()
            thoughts: list[dict[str, Any]] = []
            for thought in message.thinking:
                if thought.redacted_data is not None:
                    thoughts.append({"type": "redacted_thinking", "data": thought.redacted_data})
                elif thought.signature:
                    thoughts.append(
                        {
                            "type": "thinking",
                            "thinking": thought.text,
                            "signature": thought.signature,
                        }
                    )
                # else unsigned: the API refuses it back, and a signature cannot be made up
            blocks: list[dict[str, Any]] = []
            if _has_text(message.content):
                blocks.append({"type": "text", "text": message.content})
            for position, call in enumerate(message.tool_calls):
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": ids.call(index, position, call),
                        "name": call.name,
                        "input": call.arguments,
                    }
                )
            if thoughts or blocks:
                if role != "assistant":
                    content = []
                    turns.append({"role": "assistant", "content": content})
                    role = "assistant"
                    thought_end = 0
                    if first_index < 0:
                        first_index = index
                # A merged turn keeps all its thinking first, in order: a later
                # message's thinking goes after the earlier thinking, before
                # the earlier text and calls.
                content[thought_end:thought_end] = thoughts
                thought_end += len(thoughts)
                content.extend(blocks)
            continue
        if isinstance(message, UserMessage):
            ids.user(index)
            blocks = (
                [{"type": "text", "text": message.content}] if _has_text(message.content) else []
            )
        elif isinstance(message, UserMultimodalMessage):
            ids.user(index)
            blocks = _user_blocks(index, message.content, unsupported)
        elif isinstance(message, SystemMessage):
            system.append(message.content)
            continue
        elif isinstance(message, ProviderOutputItemsMessage):
            continue  # another provider's state: it has no meaning here
        elif isinstance(message, UnknownMessage):
            raise unknown_message(index, message)
        else:
            raise not_a_message(index, message)
        if blocks:
            if role != "user":
                content = []
                turns.append({"role": "user", "content": content})
                role = "user"
                if first_index < 0:
                    first_index = index
            content.extend(blocks)
    if turns and turns[0]["role"] != "user":
        raise DialectError(
            f"message {first_index}: the Messages API needs the first turn to be a user turn, "
            "and this transcript (once empty and white-space text is left out) starts with "
            "the assistant",
            first_index,
        )
    if system:
        return {"system": "\n\n".join(system), "messages": turns}
    return {"messages": turns}


# --- responses ----------------------------------------------------------------


def _message(blocks: list[dict[str, Any]], what: str) -> AssistantMessage:
    texts: list[str] = []
    calls: list[ToolCall] = []
    thinking: list[ThinkingBlock] = []
    for number, block in enumerate(blocks):
        where = f"{what}.content[{number}]"
        if not isinstance(block, dict):
            raise ResponseError(f"{where}: expected an object, got {short(block)}")
        kind = block.get("type")
        if kind == "text":
            texts.append(field(block, "text", str, where))
        elif kind == "tool_use":
            arguments = field(block, "input", dict, where)
            call_id = field(block, "id", str, where)
            name = field(block, "name", str, where)
            calls.append(tool_call(call_id, name, arguments, where))
        elif kind == "thinking":
            thinking.append(
                ThinkingBlock(
                    text=field(block, "thinking", str, where),
                    signature=field(block, "signature", str, where),
                )
            )
        elif kind == "redacted_thinking":
            thinking.append(ThinkingBlock(redacted_data=field(block, "data", str, where)))
        else:
            raise ResponseError(
                f"{where}: a {short(kind)} block has no place in a convtypes message; "
                "it is refused rather than dropped"
            )
    return AssistantMessage(
        content="".join(texts), tool_calls=tuple(calls), thinking=tuple(thinking)
    )


def from_response(response: object) -> list[Message]:
    """The messages to append for a Messages API response.

    ``response`` is the response JSON as a dict or the SDK's ``Message``.
    Text blocks are joined into the assistant's ``content`` (citations are
    not kept); thinking and redacted thinking become ``ThinkingBlock``\\ s in
    order; ``tool_use`` blocks become ``ToolCall``\\ s with their ids. Any
    other block (server tools and their results) raises ``ResponseError``.
    """
    try:
        data = plain(response, "the response")
        content = field(data, "content", list, "the response")
        return [_message(content, "response")]
    except LEAKS as err:
        raise_response_failure(err)


_IGNORED_EVENTS: Final = frozenset(
    # ping keeps the connection open; message_delta carries the stop reason
    # and usage. The rest are the SDK's MessageStream helpers, which repeat
    # what the raw deltas already said.
    {"ping", "message_delta", "text", "thinking", "signature", "input_json", "citation"}
)


class Accumulator(StreamReader):
    """Builds the messages of a streamed Messages API response.

    ``feed`` every raw event (a dict or the SDK's event object) in order, then
    ``result()`` gives what ``from_response`` gives for the final message.
    """

    _noun = "event"
    _end = "message_stop"

    def __init__(self) -> None:
        super().__init__()
        self._blocks: dict[int, dict[str, Any]] = {}
        self._json: dict[int, list[str]] = {}
        self._stopped: set[int] = set()
        self._started = False

    def _take(self, number: int, event: object) -> list[Delta]:
        data = plain(event, "an event")
        kind = data.get("type")
        kind_label = label(kind)

        def fail(reason: str) -> StreamError:
            return StreamError(f"event {number} ({kind_label}): {reason}", number, event)

        if not isinstance(kind, str):
            raise fail("has no type")
        if self._finished:
            raise fail("the stream already ended with message_stop")
        if kind == "message_start":
            if self._started:
                raise fail("a second message_start")
            self._started = True
            message = data.get("message")
            if isinstance(message, dict):
                blocks = message.get("content")
                if blocks is not None and not isinstance(blocks, list):
                    raise fail("the message's content is not a list")
                for position, block in enumerate(blocks or ()):
                    if not isinstance(block, dict):
                        raise fail(f"the message's content block {position} is not an object")
                    self._blocks[position] = dict(block)
                    self._stopped.add(position)
            return []
        if kind in _IGNORED_EVENTS:
            return []
        if kind == "error":
            raise fail(f"the provider reported an error: {short(data.get('error'), 200)}")
        if not self._started:
            raise fail("came before message_start")
        if kind == "message_stop":
            open_blocks = sorted(set(self._blocks) - self._stopped)
            if open_blocks:
                raise fail(f"content block {open_blocks[0]} was never stopped")
            self._finished = True
            return []
        at = data.get("index")
        if type(at) is not int:
            raise fail("has no integer index")
        if kind == "content_block_start":
            if at in self._blocks:
                raise fail(f"content block {at} was already started")
            block = data.get("content_block")
            if not isinstance(block, dict):
                raise fail("has no content_block")
            self._blocks[at] = dict(block)
            return []
        block = self._blocks.get(at)
        if block is None:
            raise fail(f"names content block {at}, which was never started")
        if at in self._stopped:
            raise fail(f"content block {at} was already stopped")
        if kind == "content_block_stop":
            self._stopped.add(at)
            pieces = self._json.pop(at, None)
            if pieces is not None:
                try:
                    block["input"] = parse_arguments("".join(pieces))
                except ValueError as err:
                    raise fail(f"the tool input of block {at} does not parse: {err}") from None
            return []
        if kind != "content_block_delta":
            raise fail("is not an event of the Messages stream")
        delta = data.get("delta")
        if not isinstance(delta, dict):
            raise fail("has no delta")
        delta_type = delta.get("type")
        block_type = block.get("type")
        if delta_type == "text_delta" and block_type == "text":
            _grow(block, "text", _delta_text(delta, "text", fail), at, fail)
        elif delta_type == "input_json_delta" and block_type == "tool_use":
            self._json.setdefault(at, []).append(_delta_text(delta, "partial_json", fail))
        elif delta_type == "thinking_delta" and block_type == "thinking":
            _grow(block, "thinking", _delta_text(delta, "thinking", fail), at, fail)
        elif delta_type == "signature_delta" and block_type == "thinking":
            _grow(block, "signature", _delta_text(delta, "signature", fail), at, fail)
        elif delta_type == "citations_delta" and block_type == "text":
            pass  # citations are not kept, as in from_response
        else:
            raise fail(
                f"a {short(delta_type, 40)} delta cannot apply to a {short(block_type, 40)} block"
            )
        return []

    def _messages(self, final: bool) -> list[Message]:
        blocks = [self._blocks[at] for at in sorted(self._blocks)]
        return [_message(blocks, "stream")]


def _delta_text(delta: dict[str, Any], key: str, fail: Any) -> str:
    value = delta.get(key)
    if not isinstance(value, str):
        raise fail(f"the delta has no {key!r} text")
    return value


def _grow(block: dict[str, Any], key: str, piece: str, at: int, fail: Any) -> None:
    """Add a delta's text to the block's ``key`` text, which must be text if present."""
    before = block.get(key, "")
    if not isinstance(before, str):
        raise fail(f"content block {at} has a {key!r} that is not text: {short(before)}")
    block[key] = before + piece
