"""A transcript to the Responses API's ``input`` and ``instructions``, with items replayed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from ..._content import ImageBase64Block, ImageUrlBlock, TextBlock
from ..._conversation import repeated
from ..._errors import MAX_DEPTH
from ..._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
    ThinkingBlock,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ..._unknown import UnknownBlock, UnknownMessage
from .._copy import copy_json
from .._errors import (
    Unsupported,
    check_unsupported,
    not_a_message,
    note_text,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from .._ids import CallIds, safe_id
from .._json import arguments_json, parse_arguments
from .._left_out import LeftOut, LeftOutKind, duplicate, in_item, media_kind
from .._media import image_type, parse_data_url
from .._newer import Unknown, check_unknown, newer_notes
from .._send import data_url, tool_result_text, transcript_of
from ._wire import DIALECT, PROTOCOL

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
DETAILS: Final = frozenset({"low", "high", "auto", "original"})

# Fields the openai SDK adds to what the API sent (``ParsedResponse``); they
# are not part of the wire, and the API refuses them as input.
_SDK_ONLY_IN_PART: Final = "parsed"
_SDK_ONLY_IN_CALL: Final = "parsed_arguments"

_usable_id = safe_id(64)


def _parts(
    index: int, blocks: Iterable[object], unsupported: Unsupported, notes: list[LeftOut] | None
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            out.append({"type": "input_text", "text": block.text})
            continue
        if isinstance(block, ImageUrlBlock):
            detail = block.detail
            if detail not in DETAILS:
                if notes is not None:
                    why = f"the API knows no image detail {detail!r:.40}; it goes as 'auto'"
                    notes.append(LeftOut(index, "detail", f"block {position}: {why}"))
                detail = "auto"
            inline = parse_data_url(block.url)
            if inline is None:
                out.append({"type": "input_image", "image_url": block.url, "detail": detail})
                continue
            # The API reads a data: URL itself; its media type is spelled
            # the registered way, and must be one the API takes.
            if inline.media_type in IMAGE_TYPES:
                url = data_url(inline.media_type, inline.data)
                out.append({"type": "input_image", "image_url": url, "detail": detail})
                continue
            why = f"takes no {inline.media_type!r} image (only JPEG, PNG, GIF and WebP)"
        elif isinstance(block, ImageBase64Block):
            media_type = image_type(block.media_type)
            if media_type in IMAGE_TYPES:
                url = data_url(media_type, block.data)
                out.append({"type": "input_image", "image_url": url, "detail": "auto"})
                continue
            why = f"takes no {block.media_type!r} image (only JPEG, PNG, GIF and WebP)"
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        else:
            why = "has no input part for video or audio"
        if unsupported == "note":
            out.append({"type": "input_text", "text": note_text(DIALECT, block)})
            if notes is not None:
                notes.append(
                    LeftOut(index, media_kind(block), f"block {position}: {DIALECT} {why}")
                )
        else:
            raise unsupported_block(DIALECT, index, position, block, why)
    return out


def _carried(items: Iterable[object]) -> str:
    """The assistant text the items already say.

    The text is the one ``from_response`` gives the assistant message: the
    output text, or the refusal when there is none.
    """
    texts: list[str] = []
    refusals: list[str] = []
    for item in items:
        if isinstance(item, dict) and item.get("type") == "message":
            texts.extend(_part_texts(item, "output_text", "text"))
            refusals.extend(_part_texts(item, "refusal", "refusal"))
    return "".join(texts) or "".join(refusals)


def _carried_thinking(items: Iterable[object]) -> list[ThinkingBlock]:
    """The thinking ``from_response`` reads from the items' reasoning, in order."""
    thinking: list[ThinkingBlock] = []
    for item in items:
        if isinstance(item, dict) and item.get("type") == "reasoning":
            for key in ("summary", "content"):
                parts = item.get(key)
                for part in parts if isinstance(parts, list) else ():
                    text = part.get("text") if isinstance(part, dict) else None
                    if isinstance(text, str) and text:
                        thinking.append(ThinkingBlock(text=text))
    return thinking


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


def _sent(item: Any) -> Any:
    """The item as the API sent it: without the fields the openai SDK adds.

    The item itself when it has none of them (the common case), so that
    nothing is copied for nothing.
    """
    if not isinstance(item, dict):
        return item
    kind = item.get("type")
    if kind == "function_call":
        if _SDK_ONLY_IN_CALL in item:
            return {key: value for key, value in item.items() if key != _SDK_ONLY_IN_CALL}
    elif kind == "message":
        content = item.get("content")
        if isinstance(content, list) and any(
            isinstance(part, dict) and _SDK_ONLY_IN_PART in part for part in content
        ):
            parts = [
                {key: value for key, value in part.items() if key != _SDK_ONLY_IN_PART}
                if isinstance(part, dict)
                else part
                for part in content
            ]
            return {**item, "content": parts}
    return item


# Keys whose value is JSON an item carries as a value (a tool's schema, its
# arguments), where a null means what it says and is kept.
_VALUE_KEYS: Final = frozenset({"arguments", "input_schema", "parameters", "schema", "attributes"})


def _without_nulls(value: Any, room: int = MAX_DEPTH) -> Any:
    """``value`` without the object fields whose value is null, at every level.

    A null field of an output item says nothing the missing field does not:
    the API sends some, and an SDK object's ``model_dump()`` writes one for
    every field the API left out. Leaving them all out reads an item the
    same whichever way it came. JSON under :data:`_VALUE_KEYS` is kept as it
    is. ``value`` itself is returned when it has no null field; a value
    nested past ``room`` is left for the items message to refuse.
    """
    if room <= 0:
        return value
    if isinstance(value, dict):
        out: dict[str, Any] | None = None
        for key, item in value.items():
            new = item if key in _VALUE_KEYS else _without_nulls(item, room - 1)
            if new is not item or new is None:
                if out is None:
                    out = {}
                    for earlier, kept in value.items():
                        if earlier == key:
                            break
                        out[earlier] = kept
                if new is not None:
                    out[key] = new
            elif out is not None:
                out[key] = item
        return value if out is None else out
    if isinstance(value, list):
        items: list[Any] | None = None
        for position, item in enumerate(value):
            new = _without_nulls(item, room - 1)
            if new is not item and items is None:
                items = value[:position]
            if items is not None:
                items.append(new)
        return value if items is None else items
    return value


def _cut(item: dict[str, Any]) -> bool:
    """Whether a function call item never completed, by the reader's rule.

    Status ``incomplete``, or a call not marked ``completed`` whose
    arguments are not a whole JSON object: :func:`_read_call` makes no
    ``ToolCall`` of it, so no backend ran it and no result is owed.
    """
    status = item.get("status")
    if status == "completed":
        return False
    if status == "incomplete":
        return True
    text = item.get("arguments")
    if not isinstance(text, str):
        return True
    try:
        parse_arguments(text)
    except ValueError:
        return True
    return False


def _answered(transcript: list[Any], index: int, call_id: str) -> bool:
    """Whether a result for ``call_id`` follows the items at ``index`` in their turn.

    The turn is the one :class:`CallIds` pairs results in: the items, the
    assistant message after them, then the results, up to the next
    assistant turn or user message.
    """
    results = False
    for at in range(index + 1, len(transcript)):
        message = transcript[at]
        if isinstance(message, ToolResultMessage):
            if message.tool_use_id == call_id:
                return True
            results = True
        elif isinstance(message, AssistantMessage) or (
            isinstance(message, ProviderOutputItemsMessage) and message.protocol == PROTOCOL
        ):
            if results:
                return False
        elif not isinstance(message, (SystemMessage, ProviderOutputItemsMessage, UnknownMessage)):
            return False
    return False


def _replayed_items(
    index: int, transcript: list[Any], store: bool, notes: list[LeftOut] | None
) -> tuple[list[Any], dict[str, str]]:
    """The items of message ``index`` to send back, owned by the request, and
    the function and custom tool calls among them (``call_id`` to name).

    Left out: a function call that never completed and that no result
    answers (no backend ran it, and the API refuses a call without its
    output); with ``store`` False, what only the server could resolve (a
    ``reasoning`` item without ``encrypted_content``, an ``item_reference``);
    and a ``reasoning`` item whose following item in the output is not
    sent, which the API refuses. The fields the openai SDK adds are dropped.
    One pass: a reasoning item waits until the item after it is known.
    """
    out: list[Any] = []
    calls: dict[str, str] = {}
    waiting: Any = None  # a reasoning item, sent only if the next item is
    waiting_at = 0  # its position among the items
    for position, item in enumerate(transcript[index].items):
        if type(item) is not dict:
            sent = copy_json(item)
        else:
            kind = item.get("type")
            dropped: LeftOut | None = None
            if kind == "function_call":
                call_id = item.get("call_id")
                if _cut(item) and not (
                    isinstance(call_id, str) and _answered(transcript, index, call_id)
                ):
                    dropped = LeftOut(index, "call", f"{in_item(position)}: {_CUT_CALL}")
            elif not store and (
                kind == "item_reference"
                or (kind == "reasoning" and not item.get("encrypted_content"))
            ):
                what: LeftOutKind = "items" if kind == "item_reference" else "thinking"
                dropped = LeftOut(index, what, f"{in_item(position)}: {_STORED[kind]}")
            if dropped is not None:
                if waiting is not None:
                    if notes is not None:
                        lone = f"{in_item(waiting_at)}: {_LONE_REASONING}"
                        notes.append(LeftOut(index, "thinking", lone))
                    waiting = None
                if notes is not None:
                    notes.append(dropped)
                continue
            sent = copy_json(item)
            if kind == "function_call" or kind == "custom_tool_call":  # what a result answers
                call_id, name = sent.get("call_id"), sent.get("name")
                if isinstance(call_id, str) and isinstance(name, str):
                    calls[call_id] = name
                if _SDK_ONLY_IN_CALL in sent:
                    del sent[_SDK_ONLY_IN_CALL]
                    if notes is not None:
                        field = f"{in_item(position, _SDK_ONLY_IN_CALL)}: {_SDK_FIELD}"
                        notes.append(LeftOut(index, "items", field))
            elif kind == "message":
                parsed = _drop_parsed(sent)
                if parsed and notes is not None:
                    for part in parsed:
                        field = in_item(position, "content", part, _SDK_ONLY_IN_PART)
                        notes.append(LeftOut(index, "items", f"{field}: {_SDK_FIELD}"))
            if kind == "reasoning":
                if waiting is not None:
                    out.append(waiting)  # its follower, this item, is sent
                waiting, waiting_at = sent, position
                continue
        if waiting is not None:
            out.append(waiting)
            waiting = None
        out.append(sent)
    if waiting is not None and notes is not None:
        notes.append(LeftOut(index, "thinking", f"{in_item(waiting_at)}: {_LONE_REASONING}"))
    return out, calls


def _custom_ids(items: Iterable[object], sent: dict[str, str]) -> list[str]:
    """The ids of the custom tool calls among ``items`` that went out (in ``sent``)."""
    return [
        item["call_id"]
        for item in items
        if isinstance(item, dict)
        and item.get("type") == "custom_tool_call"
        and isinstance(item.get("call_id"), str)
        and item["call_id"] in sent
    ]


def _drop_parsed(item: dict[str, Any]) -> list[int]:
    """Drop the SDK's ``parsed`` from the parts of a message item (a copy); the parts it was in."""
    content = item.get("content")
    found: list[int] = []
    for position, part in enumerate(content if type(content) is list else ()):
        if type(part) is dict and _SDK_ONLY_IN_PART in part:
            del part[_SDK_ONLY_IN_PART]
            found.append(position)
    return found


_CUT_CALL: Final = (
    "a function call cut off before it completed, which no result answers, is not sent "
    "(the API refuses a call without its output)"
)
_LONE_REASONING: Final = (
    "a reasoning item goes only with the item that followed it in the output, which is not sent"
)
_STORED: Final = {
    "reasoning": "with store=False, a reasoning item without encrypted_content refers to "
    "reasoning only the server kept",
    "item_reference": "with store=False, an item_reference names an item the server did not keep",
}
_SDK_FIELD: Final = "the openai SDK's parsed fields are not sent (the API refuses them as input)"


def _check_store(store: object) -> None:
    if type(store) is not bool:
        raise TypeError(f"store= must be True or False, not {store!r:.80}")


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
    store: bool = True,
    unknown: Unknown = "raise",
) -> dict[str, Any]:
    """The conversation part of a Responses API request body: ``{"input": [...]}``.

    The caller adds ``model``, the tools (``tools_to_request``) and the rest
    (and must not also pass ``previous_response_id`` for the same turns).
    External tool results are fenced unless ``fence_external`` is False.
    With ``store=False`` (stateless use, zero data retention) the request is
    self-contained: it holds ``"store": False`` and
    ``"include": ["reasoning.encrypted_content"]``, and leaves out what only
    the server could resolve (see :func:`left_out`). A message of a role
    this version does not know raises ``UnsupportedContent``, or with
    ``unknown="skip"`` is left out, walked past as if it were not there. The
    request shares no dict or list with the transcript: change it freely.
    """
    check_unsupported(unsupported)
    _check_store(store)
    check_unknown(unknown)
    sent = _input(messages, fence_external, unsupported, store, None, unknown)
    body: dict[str, Any] = {"input": sent}
    if not store:
        body["store"] = False
        body["include"] = ["reasoning.encrypted_content"]
    return body


def _thinking_notes(
    index: int, message: AssistantMessage, carried: list[ThinkingBlock] | None
) -> list[LeftOut]:
    """The assistant's thinking blocks that the items before it do not carry.

    Each block read from the items' reasoning answers for one block here:
    it goes back in its item (or is named with it).
    """
    if not message.thinking or (carried is not None and list(message.thinking) == carried):
        return []
    held = list(carried) if carried is not None else []
    out: list[LeftOut] = []
    for position, block in enumerate(message.thinking):
        if block in held:
            held.remove(block)
        elif block.redacted_data is not None:
            out.append(
                LeftOut(index, "redacted-thinking", f"thinking block {position}: {_REDACTED}")
            )
        else:
            out.append(LeftOut(index, "thinking", f"thinking block {position}: {_THINKING}"))
    return out


_THINKING: Final = f"{DIALECT} takes no thinking block back; only its own reasoning items go back"
_REDACTED: Final = f"{DIALECT} cannot read another provider's encrypted thinking"


def _input(
    messages: Iterable[Message | UnknownMessage],
    fence_external: bool,
    unsupported: Unsupported,
    store: bool,
    notes: list[LeftOut] | None,
    unknown: Unknown = "raise",
) -> list[dict[str, Any]]:
    """The request's ``input`` list, and (into ``notes``, when given) what it leaves out."""
    transcript = transcript_of(messages, "to_request" if notes is None else "left_out")
    ids = CallIds(transcript, _usable_id, DIALECT)
    out: list[dict[str, Any]] = []
    custom: set[str] = set()  # the ids the custom tool calls of the items go out with
    carried_text: str | None = None
    carried_calls: dict[str, str] = {}
    carried_thinking: list[ThinkingBlock] | None = None
    copies = repeated(transcript)
    for index, message in enumerate(transcript):
        if copies and index in copies:
            if notes is not None:
                notes.append(duplicate(index, copies[index]))
            continue  # sent once: walked past, as an unknown message is
        if notes is not None:
            notes += newer_notes(index, message)
        if isinstance(message, ToolResultMessage):
            call_id = ids.result(index, message).out_id
            out.append(
                {
                    "type": "custom_tool_call_output"
                    if call_id in custom
                    else "function_call_output",
                    "call_id": call_id,
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
            if notes is not None:
                notes.extend(_thinking_notes(index, message, carried_thinking))
        elif isinstance(message, ProviderOutputItemsMessage):
            if message.protocol == PROTOCOL:
                ids.assistant()
                sent, carried_calls = _replayed_items(index, transcript, store, notes)
                out.extend(sent)
                carried_text = _carried(message.items)
                for call_id, name in carried_calls.items():
                    ids.carried(index, call_id, call_id, name)
                custom.update(_custom_ids(message.items, carried_calls))
                if notes is not None:
                    carried_thinking = _carried_thinking(message.items)
                continue  # keep what they carry for the next message
            if notes is not None and message.items:
                why = f"items of protocol {message.protocol!r:.40} mean nothing to {DIALECT}"
                notes.append(LeftOut(index, "items", why))
        elif isinstance(message, UserMessage):
            ids.user(index)
            out.append({"role": "user", "content": message.content})
        elif isinstance(message, UserMultimodalMessage):
            ids.user(index)
            parts = _parts(index, message.content, unsupported, notes)
            out.append({"role": "user", "content": parts})
        elif isinstance(message, SystemMessage):
            out.append({"role": "system", "content": message.content})
        elif isinstance(message, UnknownMessage):
            if unknown == "raise":
                raise unknown_message(index, message)
            continue  # walked past: what comes next follows what came before
        else:
            raise not_a_message(index, message)
        carried_text = None
        carried_calls = {}
        carried_thinking = None
    return out
