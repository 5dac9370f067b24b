"""The OpenAI Responses API.

``to_request`` builds ``{"input": [...]}``; ``from_response`` and
:class:`Accumulator` turn a ``Response``, or its stream of events, into two
messages: a ``ProviderOutputItemsMessage`` holding every output item as the
API sent it, then the ``AssistantMessage`` read from those items (its text,
its function calls, its reasoning summaries as unsigned thinking).

The items are the provider's state (encrypted reasoning, server tool
calls): they go back verbatim and in place. The assistant message is what
every other dialect reads. So that nothing goes out twice, an assistant
message right after ``openai-responses`` items sends only what the items do
not already carry: its text unless it is the text the items hold (their
output text, or their refusal when they have no output text), and its calls
whose ``call_id`` the items do not hold.

What changes on the way out:

- Thinking blocks are dropped (reasoning goes back as items); items of
  other protocols are dropped.
- Tool-call ids are made unique and fit ``[A-Za-z0-9_-]``, at most 64 long;
  ids carried by items are kept as they are.
- Images go as ``input_image`` (base64 as ``data:`` URLs; a ``detail`` the
  API does not know becomes ``auto``). Video and audio raise
  ``UnsupportedContent``, and so do images other than JPEG, PNG, GIF and WebP.
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
from ._json import arguments_json, built, field, parse_arguments, plain, tool_call
from ._reply import Delta
from ._send import data_url, tool_result_text
from ._stream import StreamReader

__all__ = ["PROTOCOL", "Accumulator", "from_response", "to_request"]

DIALECT: Final = "OpenAI Responses"
PROTOCOL: Final = "openai-responses"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
DETAILS: Final = frozenset({"low", "high", "auto", "original"})

_usable_id = safe_id(64)


def _parts(index: int, blocks: Iterable[object], unsupported: Unsupported) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            out.append({"type": "input_text", "text": block.text})
            continue
        if isinstance(block, ImageUrlBlock):
            detail = block.detail if block.detail in DETAILS else "auto"
            out.append({"type": "input_image", "image_url": block.url, "detail": detail})
            continue
        if isinstance(block, ImageBase64Block):
            if block.media_type in IMAGE_TYPES:
                url = data_url(block.media_type, block.data)
                out.append({"type": "input_image", "image_url": url, "detail": "auto"})
                continue
            why = f"takes no {block.media_type!r} image (only JPEG, PNG, GIF and WebP)"
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        else:
            why = "has no input part for video or audio"
        if unsupported == "note":
            out.append({"type": "input_text", "text": note_text(DIALECT, block)})
        else:
            raise unsupported_block(DIALECT, index, position, block, why)
    return out


def _carried(items: Iterable[object]) -> tuple[str, dict[str, str]]:
    """What the items already say: the assistant text read from them, and
    their function calls (call_id to name).

    The text is the one ``from_response`` gives the assistant message: the
    output text, or the refusal when there is none.
    """
    texts: list[str] = []
    refusals: list[str] = []
    calls: dict[str, str] = {}
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "message":
            texts.extend(_part_texts(item, "output_text", "text"))
            refusals.extend(_part_texts(item, "refusal", "refusal"))
        elif kind == "function_call":
            call_id = item.get("call_id")
            name = item.get("name")
            if isinstance(call_id, str) and isinstance(name, str):
                calls[call_id] = name
    return "".join(texts) or "".join(refusals), calls


def _part_texts(item: dict[str, Any], kind: str, key: str) -> list[str]:
    """The ``key`` text of each ``kind`` part of a message item, in order."""
    texts: list[str] = []
    content = item.get("content")
    if not isinstance(content, list):
        return texts
    for part in content:
        if isinstance(part, dict) and part.get("type") == kind:
            text = part.get(key)
            if isinstance(text, str):
                texts.append(text)
    return texts


def _output_text(item: dict[str, Any]) -> list[str]:
    return _part_texts(item, "output_text", "text")


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
) -> dict[str, Any]:
    """The conversation part of a Responses API request body: ``{"input": [...]}``.

    The caller adds ``model``, ``tools`` and the rest (and must not also pass
    ``previous_response_id`` for the same turns). External tool results are
    fenced unless ``fence_external`` is False. Provider items are shared
    with the transcript, not copied: copy them before changing them in place.
    """
    check_unsupported(unsupported)
    transcript = messages if isinstance(messages, list) else list(messages)
    ids = CallIds(transcript, _usable_id, DIALECT)
    out: list[dict[str, Any]] = []
    carried_text: str | None = None
    carried_calls: dict[str, str] = {}
    for index, message in enumerate(transcript):
        if isinstance(message, ToolResultMessage):
            out.append(
                {
                    "type": "function_call_output",
                    "call_id": ids.result(index, message).out_id,
                    "output": tool_result_text(message, fence_external),
                }
            )
        elif isinstance(message, AssistantMessage):
            ids.assistant()
            if message.content and message.content != carried_text:
                out.append({"role": "assistant", "content": message.content})
            for position, call in enumerate(message.tool_calls):
                if call.id is not None and call.id in carried_calls:
                    continue  # the items hold this call already
                out.append(
                    {
                        "type": "function_call",
                        "call_id": ids.call(index, position, call),
                        "name": call.name,
                        "arguments": arguments_json(call.arguments),
                    }
                )
        elif isinstance(message, ProviderOutputItemsMessage):
            if message.protocol == PROTOCOL:
                ids.assistant()
                out.extend(message.items)  # type: ignore[arg-type]
                carried_text, carried_calls = _carried(message.items)
                for call_id, name in carried_calls.items():
                    ids.carried(index, call_id, call_id, name)
                continue  # keep what they carry for the next message
        elif isinstance(message, UserMessage):
            ids.user(index)
            out.append({"role": "user", "content": message.content})
        elif isinstance(message, UserMultimodalMessage):
            ids.user(index)
            out.append({"role": "user", "content": _parts(index, message.content, unsupported)})
        elif isinstance(message, SystemMessage):
            out.append({"role": "system", "content": message.content})
        elif isinstance(message, UnknownMessage):
            raise unknown_message(index, message)
        else:
            raise not_a_message(index, message)
        carried_text = None
        carried_calls = {}
    return {"input": out}


# --- responses ----------------------------------------------------------------


def _messages(items: list[Any], what: str) -> list[Message]:
    texts: list[str] = []
    refusals: list[str] = []
    calls: list[ToolCall] = []
    thinking: list[ThinkingBlock] = []
    for number, item in enumerate(items):
        where = f"{what}[{number}]"
        if not isinstance(item, dict):
            raise ResponseError(f"{where}: expected an object, got {short(item)}")
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
            try:
                arguments = parse_arguments(field(item, "arguments", str, where))
            except ValueError as err:
                raise ResponseError(f"{where}: {err}") from None
            call_id = field(item, "call_id", str, where)
            name = field(item, "name", str, where)
            calls.append(tool_call(call_id, name, arguments, where))
        elif kind == "reasoning":
            for position, part in enumerate(field(item, "summary", list, where, None) or ()):
                at = f"{where}.summary[{position}]"
                text = field(part, "text", str, at, "")
                if text:
                    thinking.append(ThinkingBlock(text=text))
        # Any other item (server tool calls and their results) is provider
        # state: it is in the items message and goes back from there.
    assistant = AssistantMessage(
        content="".join(texts) or "".join(refusals),
        tool_calls=tuple(calls),
        thinking=tuple(thinking),
    )
    kept = built(lambda: ProviderOutputItemsMessage(protocol=PROTOCOL, items=tuple(items)), what)
    return [kept, assistant]


def from_response(response: object) -> list[Message]:
    """The messages to append for a ``Response`` (dict or SDK object).

    Returns the output items, verbatim, as a ``ProviderOutputItemsMessage``
    of protocol ``openai-responses``, then an ``AssistantMessage`` with the
    output text (or the refusal when there is no text), the function calls
    with ``call_id`` as their id, and each reasoning summary as an unsigned
    ``ThinkingBlock``. A response whose status is ``failed`` raises.
    """
    try:
        data = plain(response, "the response")
        if data.get("status") == "failed":
            raise ResponseError(f"the response failed: {short(data.get('error'), 200)}")
        return _messages(field(data, "output", list, "the response"), "output")
    except LEAKS as err:
        raise_response_failure(err)


_TEXT_DELTAS: Final = {
    "response.output_text.delta": ("content", "content_index", "text"),
    "response.refusal.delta": ("content", "content_index", "refusal"),
    "response.reasoning_summary_text.delta": ("summary", "summary_index", "text"),
}
_PART_ADDED: Final = {
    "response.content_part.added": ("content", "content_index", "part"),
    "response.reasoning_summary_part.added": ("summary", "summary_index", "part"),
}


class Accumulator(StreamReader):
    """Builds the messages of a streamed Responses API call.

    ``feed`` every event (dict or SDK object); ``result()`` then equals
    ``from_response`` of the final response. Each output item is built from
    its ``output_item.added`` event and the deltas that follow, and is then
    replaced by the whole item that ``output_item.done`` brings, which must
    agree with the deltas. Events that only report progress are skipped.
    """

    _noun = "event"
    _end = "response.completed"

    def __init__(self) -> None:
        super().__init__()
        self._items: dict[int, dict[str, Any]] = {}
        self._done: set[int] = set()
        self._final: list[Any] = []

    def _take(self, number: int, event: object) -> list[Delta]:
        data = plain(event, "an event")
        kind = data.get("type")
        kind_label = label(kind)

        def fail(reason: str) -> StreamError:
            return StreamError(f"event {number} ({kind_label}): {reason}", number, event)

        if not isinstance(kind, str):
            raise fail("has no type")
        if self._finished:
            raise fail("came after the response completed")
        if kind in ("error", "response.failed"):
            raise fail(f"the provider reported an error: {short(data.get('error') or data, 200)}")
        if kind in ("response.completed", "response.incomplete"):
            response = data.get("response")
            output = response.get("output") if isinstance(response, dict) else None
            if not self._items and isinstance(output, list):
                self._final = output
                self._finished = True
                return []
            missing = sorted(set(self._items) - self._done)
            if missing:
                raise fail(f"output item {missing[0]} was never done")
            self._final = [self._items[at] for at in sorted(self._items)]
            self._finished = True
            return []
        at = data.get("output_index")
        if kind == "response.output_item.added":
            if type(at) is not int or at in self._items:
                raise fail(f"output index {short(at, 40)} is not a new integer index")
            self._items[at] = _copy(field(data, "item", dict, f"event {number}"))
            return []
        if not kind.startswith(("response.output_", "response.content_part.", "response.refusal.")):
            if not kind.startswith(("response.function_call_", "response.reasoning_")):
                return []  # progress only (created, in_progress, server tool status...)
        if type(at) is not int or at not in self._items:
            raise fail(f"names output item {short(at, 40)}, which was never added")
        if at in self._done:
            raise fail(f"output item {at} is already done")
        item = self._items[at]
        if kind == "response.output_item.done":
            final = field(data, "item", dict, f"event {number}")
            self._check_done(item, final, fail)
            self._items[at] = final
            self._done.add(at)
        elif kind in _PART_ADDED:
            key, index_key, part_key = _PART_ADDED[kind]
            parts = item.get(key)
            if parts is None:
                parts = item[key] = []
            elif not isinstance(parts, list):
                raise fail(f"output item {at} has a {key!r} that is not a list")
            position = data.get(index_key)
            if type(position) is not int or position != len(parts):
                raise fail(f"{index_key} {short(position, 40)} is not the next part")
            parts.append(dict(field(data, part_key, dict, f"event {number}")))
        elif kind in _TEXT_DELTAS:
            key, index_key, text_key = _TEXT_DELTAS[kind]
            parts = item.get(key)
            if parts is None:
                parts = []
            elif not isinstance(parts, list):
                raise fail(f"output item {at} has a {key!r} that is not a list")
            position = data.get(index_key)
            if type(position) is not int or not 0 <= position < len(parts):
                raise fail(f"{index_key} {short(position, 40)} names no part of output item {at}")
            part = parts[position]
            if not isinstance(part, dict):
                raise fail(f"part {position} of output item {at} is not an object")
            delta = field(data, "delta", str, f"event {number}")
            before = part.get(text_key, "")
            if not isinstance(before, str):
                raise fail(f"part {position} of output item {at} has a {text_key!r} not text")
            part[text_key] = before + delta
        elif kind == "response.function_call_arguments.delta":
            if item.get("type") != "function_call":
                raise fail(f"output item {at} is not a function call")
            delta = field(data, "delta", str, f"event {number}")
            before = item.get("arguments", "")
            if not isinstance(before, str):
                raise fail(f"output item {at} has arguments that are not text")
            item["arguments"] = before + delta
        return []

    def _check_done(self, built: dict[str, Any], final: dict[str, Any], fail: Any) -> None:
        if final.get("type") != built.get("type"):
            raise fail("the done item is of another type than the added one")
        if final.get("type") == "function_call":
            arguments = final.get("arguments")
            streamed = built.get("arguments")
            if streamed and streamed != arguments:
                raise fail("the done item's arguments differ from the streamed deltas")
            try:
                parse_arguments(arguments if isinstance(arguments, str) else "")
            except ValueError as err:
                raise fail(f"the function call's arguments never complete: {err}") from None
        elif final.get("type") == "message":
            streamed_text = "".join(_output_text(built))
            if streamed_text and streamed_text != "".join(_output_text(final)):
                raise fail("the done item's text differs from the streamed deltas")

    def _messages(self, final: bool) -> list[Message]:
        return _messages(self._final, "output")


def _copy(value: dict[str, Any]) -> dict[str, Any]:
    """A copy deep enough that deltas never change the event they came in."""
    return {
        key: [dict(part) if isinstance(part, dict) else part for part in item]
        if isinstance(item, list)
        else item
        for key, item in value.items()
    }
