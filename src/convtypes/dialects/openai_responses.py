"""The OpenAI Responses API.

``to_request`` builds ``{"input": [...]}`` (with ``store=False``, a
self-contained request for stateless use); ``left_out`` names what it does
not send; ``tools_to_request`` the ``tools`` and ``tool_choice`` fields;
``from_response``, ``read_reply`` and
:class:`Accumulator` turn a ``Response``, or its stream of events (raw, or
the SDK's ``responses.stream()`` helper events), into two messages: a
``ProviderOutputItemsMessage`` holding every output item as the API sent it,
then the ``AssistantMessage`` read from those items (its text, its function
calls, its reasoning summaries and reasoning text as unsigned thinking).

The items are the provider's state (ids, encrypted reasoning, server tool
calls, annotations): they go back verbatim and in place. The assistant
message is what every other dialect reads. The items are kept for every
reply, even one the assistant message alone could carry: an output item
always has an id and a status that the flat message has no place for, so a
reply is always these two messages. So that nothing goes out twice, an
assistant message right after ``openai-responses`` items sends only what the
items do not already carry: its text unless it is the text the items hold
(their output text, or their refusal when they have no output text), and
its calls whose ``call_id`` the items do not hold.

Reading:

- Fields the openai SDK adds to what the API sent (``parsed`` on the text
  parts and ``parsed_arguments`` on the function calls of a
  ``ParsedResponse``, from ``responses.parse()`` or
  ``stream().get_final_response()``) are left out of the items; the API
  refuses them as input. ``to_request`` leaves them out of items stored by
  an older version too.
- A function call that never completed (status ``incomplete``, or cut at
  the token limit with arguments that are not whole JSON) is no
  ``ToolCall``: it stays in the items only, and goes back with them.
- A ``failed`` response raises ``ResponseError`` with the provider's error.

The facts of a reply (``read_reply``, ``Accumulator.reply``):

- ``stop_reason``: status ``completed`` is ``"tool_use"`` when the reply
  holds a call the caller must answer (a function call, or a custom, computer,
  shell, local shell or apply-patch call, or an MCP approval request),
  ``"refusal"`` when a message holds a refusal part, else ``"end_turn"``.
  ``incomplete`` is ``"max_tokens"`` for ``max_output_tokens``,
  ``"content_filter"`` for ``content_filter``, ``"other"`` for any other
  reason. Any other status (``cancelled``, ``queued``, ``in_progress``) is
  ``"other"``.
- ``provider_stop_reason``: the ``incomplete_details.reason`` of an
  incomplete response (``"max_output_tokens"``, ``"content_filter"``), or
  ``"incomplete"`` when it gives none; otherwise the ``status``.
- ``usage``: the API's ``input_tokens`` already counts cached and
  cache-written tokens, and its ``output_tokens`` the reasoning tokens, so
  they are taken as they are; ``cache_read_tokens`` is
  ``input_tokens_details.cached_tokens``, ``cache_write_tokens``
  ``input_tokens_details.cache_write_tokens`` and ``reasoning_tokens``
  ``output_tokens_details.reasoning_tokens``.

What changes on the way out (``left_out`` names each piece):

- Thinking blocks are dropped (reasoning goes back as items); items of
  other protocols are dropped.
- A ``reasoning`` item goes only just before the item that followed it in
  the output (the API refuses it alone): one left by a cut stream or an
  incomplete reply stays in the items and is not sent. Nor is a function
  call that never completed, unless a result answers it.
- With ``store=False``, a ``reasoning`` item without ``encrypted_content``
  and an ``item_reference`` are not sent: the server kept nothing to
  resolve them by. Item ids go as they came, beside the encrypted content.
- The request shares no dict or list with the transcript: items are copied.
- Tool-call ids are made unique and fit ``[A-Za-z0-9_-]``, at most 64 long;
  ids carried by items are kept as they are.
- Images go as ``input_image`` (base64 as ``data:`` URLs, which the API
  reads; a ``detail`` the API does not know becomes ``auto``). Media types
  are read case-insensitively, ``image/jpg`` as JPEG. Video and audio raise
  ``UnsupportedContent``, and so do images other than JPEG, PNG, GIF and WebP.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .._content import ImageBase64Block, ImageUrlBlock, TextBlock
from .._errors import MAX_DEPTH
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
from ._copy import copy_json, copy_object
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
    reported_error,
    short,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from ._ids import CallIds, safe_id
from ._json import arguments_json, built, field, parse_arguments, plain, tool_call
from ._left_out import LeftOut, LeftOutKind, in_item, media_kind
from ._media import image_type, parse_data_url
from ._reply import (
    Delta,
    Reply,
    StopReason,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    Usage,
    token_count,
)
from ._send import data_url, tool_result_text, transcript_of
from ._stream import StreamReader
from ._tools import ToolSpec, checked_tools, object_parameters

__all__ = [
    "PROTOCOL",
    "Accumulator",
    "from_response",
    "left_out",
    "read_reply",
    "to_request",
    "tools_to_request",
]

DIALECT: Final = "OpenAI Responses"
PROTOCOL: Final = "openai-responses"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

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
        elif not isinstance(message, (SystemMessage, ProviderOutputItemsMessage)):
            return False
    return False


def _replayed_items(
    index: int, transcript: list[Any], store: bool, notes: list[LeftOut] | None
) -> tuple[list[Any], dict[str, str]]:
    """The items of message ``index`` to send back, owned by the request, and
    the function calls among them (``call_id`` to name).

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
            if kind == "function_call":
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
) -> dict[str, Any]:
    """The conversation part of a Responses API request body: ``{"input": [...]}``.

    The caller adds ``model``, the tools (``tools_to_request``) and the rest
    (and must not also pass ``previous_response_id`` for the same turns).
    External tool results are fenced unless ``fence_external`` is False.
    With ``store=False`` (stateless use, zero data retention) the request is
    self-contained: it holds ``"store": False`` and
    ``"include": ["reasoning.encrypted_content"]``, and leaves out what only
    the server could resolve (see :func:`left_out`). The request shares no
    dict or list with the transcript: change it freely.
    """
    check_unsupported(unsupported)
    _check_store(store)
    body: dict[str, Any] = {"input": _input(messages, fence_external, unsupported, store, None)}
    if not store:
        body["store"] = False
        body["include"] = ["reasoning.encrypted_content"]
    return body


def left_out(
    messages: Iterable[Message | UnknownMessage],
    *,
    unsupported: Unsupported = "raise",
    store: bool = True,
) -> list[LeftOut]:
    """What :func:`to_request` of the same transcript and options does not send.

    One :class:`~convtypes.dialects.LeftOut` per piece, in transcript order:
    thinking it takes no copy of, items of other protocols, a reasoning item
    without the item that followed it, a call cut off that no result
    answers, an image ``detail`` the API does not know, media noted in place
    under ``unsupported="note"``, and with ``store=False`` what only the
    server kept. Raises what :func:`to_request` raises.
    """
    check_unsupported(unsupported)
    _check_store(store)
    notes: list[LeftOut] = []
    _input(messages, True, unsupported, store, notes)
    return notes


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
) -> list[dict[str, Any]]:
    """The request's ``input`` list, and (into ``notes``, when given) what it leaves out."""
    transcript = transcript_of(messages, "to_request" if notes is None else "left_out")
    ids = CallIds(transcript, _usable_id, DIALECT)
    out: list[dict[str, Any]] = []
    carried_text: str | None = None
    carried_calls: dict[str, str] = {}
    carried_thinking: list[ThinkingBlock] | None = None
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
            raise unknown_message(index, message)
        else:
            raise not_a_message(index, message)
        carried_text = None
        carried_calls = {}
        carried_thinking = None
    return out


# --- tools --------------------------------------------------------------------


def tools_to_request(tools: Iterable[ToolSpec], *, choice: str = "auto") -> dict[str, Any]:
    """The ``tools`` and ``tool_choice`` fields that offer ``tools`` to the model.

    Each tool goes as a ``function`` tool with its JSON Schema as
    ``parameters`` and ``"strict": False``: strict mode asks that every
    property be required and ``additionalProperties`` be false, which a
    schema with optional fields is not. To turn it on for a tool whose schema
    meets those rules, set ``"strict": True`` on its entry in the result.
    ``choice`` is ``"auto"``, ``"none"``, ``"required"`` or a tool's name.
    With no tools the result is ``{}``. Raises
    :class:`~convtypes.dialects.ToolSchemaError` for a name the API refuses,
    a name given twice, a choice that names no tool, or a schema whose root
    is not an object. A root that is only a ``$ref`` to one of its own
    definitions (a recursive pydantic model) is replaced by that
    definition, and a root with no ``type`` gets ``"type": "object"``.
    """
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if not specs:
        return {}
    out: list[dict[str, Any]] = []
    for spec in specs:
        tool: dict[str, Any] = {"type": "function", "name": spec.name}
        if spec.description:
            tool["description"] = spec.description
        tool["parameters"] = copy_object(object_parameters(spec, DIALECT))
        tool["strict"] = False
        out.append(tool)
    tool_choice: Any = choice if chosen is None else {"type": "function", "name": chosen}
    return {"tools": out, "tool_choice": tool_choice}


# --- responses ----------------------------------------------------------------

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
        if kind in _CALLER_ITEMS:
            return "tool_use"
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


def _reply(messages: list[Message], response: dict[str, Any], status: object) -> Reply:
    details = response.get("incomplete_details")
    model = response.get("model")
    reply_id = response.get("id")
    return Reply(
        messages=messages,
        stop_reason=_stop_reason(messages, status, details),
        provider_stop_reason=_provider_stop_reason(status, details),
        usage=_usage(response.get("usage")),
        model=model if isinstance(model, str) else None,
        id=reply_id if isinstance(reply_id, str) else None,
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


# --- streams ------------------------------------------------------------------

# Delta event: (the item's list of parts, the event's index into it, the
# part's text field, the delta to give).
_TextDelta = tuple[str, str, str, type[TextDelta] | type[ThinkingDelta]]
_TEXT_DELTAS: Final[dict[str, _TextDelta]] = {
    "response.output_text.delta": ("content", "content_index", "text", TextDelta),
    "response.refusal.delta": ("content", "content_index", "refusal", TextDelta),
    "response.reasoning_summary_text.delta": ("summary", "summary_index", "text", ThinkingDelta),
    "response.reasoning_text.delta": ("content", "content_index", "text", ThinkingDelta),
}
_PART_ADDED: Final = {
    "response.content_part.added": ("content", "content_index"),
    "response.reasoning_summary_part.added": ("summary", "summary_index"),
}
_ARGUMENTS_DELTA: Final = "response.function_call_arguments.delta"
_ADDED: Final = "response.output_item.added"
_DONE: Final = "response.output_item.done"
_ENDS: Final = frozenset({"response.completed", "response.incomplete"})
_FAILURES: Final = frozenset({"error", "response.failed"})
_STARTS: Final = frozenset({"response.created", "response.queued", "response.in_progress"})
# Everything else (text done, part done, annotations, server tool progress,
# audio...) only repeats or reports what the items carry, and is skipped
# without being read: the SDK helper's events grow a ``snapshot`` of the
# whole text, which must not be copied on every event.


class _Item:
    """An output item as it streams: the item as added, and its text in pieces.

    Text and argument deltas are kept as lists of pieces and joined only
    when the item is read (``snapshot``), so a long reply costs one join,
    not a copy of the text so far on every event.
    """

    __slots__ = ("arguments", "call", "done", "item", "streamed", "texts")

    def __init__(self, item: dict[str, Any], call: int | None) -> None:
        self.item = item
        self.call = call  # the index of its ToolCallStart, for a function call
        self.done = False
        self.streamed = False  # whether any delta came for it
        self.arguments: list[str] | None = None
        self.texts: dict[tuple[str, int, str], list[str]] = {}

    def snapshot(self) -> dict[str, Any]:
        """The item so far, as a response would hold it; never the added item itself."""
        if self.done:
            return self.item
        item = dict(self.item)
        if self.arguments is not None:
            item["arguments"] = "".join(self.arguments)
        for (key, position, text_key), pieces in self.texts.items():
            if item[key] is self.item[key]:
                item[key] = list(item[key])
            item[key][position] = {**item[key][position], text_key: "".join(pieces)}
        return item


def _copy(value: dict[str, Any]) -> dict[str, Any]:
    """A copy deep enough that parts added later never change the event they came in."""
    return {
        key: [dict(part) if isinstance(part, dict) else part for part in item]
        if isinstance(item, list)
        else item
        for key, item in value.items()
    }


def _whole(event: object, data: dict[str, Any] | None) -> dict[str, Any]:
    """The event as JSON: ``data`` if it was a dict, else the SDK object dumped."""
    return data if data is not None else plain(event, "an event")


def _whole_deltas(item: dict[str, Any], call: int | None) -> list[Delta]:
    """The deltas of an item that arrived whole, with no delta before it."""
    kind = item.get("type")
    out: list[Delta] = []
    if kind == "message":
        for part in item.get("content") or ():
            if isinstance(part, dict):
                text = part.get("text") if part.get("type") == "output_text" else None
                if part.get("type") == "refusal":
                    text = part.get("refusal")
                if isinstance(text, str) and text:
                    out.append(TextDelta(text=text))
    elif kind == "reasoning":
        for key in ("summary", "content"):
            for part in item.get(key) or ():
                text = part.get("text") if isinstance(part, dict) else None
                if isinstance(text, str) and text:
                    out.append(ThinkingDelta(text=text))
    elif kind == "function_call" and call is not None:
        arguments = item.get("arguments")
        if isinstance(arguments, str) and arguments:
            out.append(ToolCallDelta(index=call, arguments=arguments))
    return out


class Accumulator(StreamReader):
    """Builds the messages of a streamed Responses API call.

    ``feed`` every event, as a dict or the SDK's object, raw or from the
    SDK's ``responses.stream()`` helper; each call returns the event's
    deltas. ``result()`` then equals ``from_response`` of the final
    response, and ``reply()`` ``read_reply``. Each output item is built from
    its ``output_item.added`` event and the deltas that follow, and is then
    replaced by the whole item that ``output_item.done`` brings, which must
    agree with the deltas. The ``response.completed`` (or
    ``response.incomplete``) event ends the stream; when it lists the output
    items, as the API's does, the reply is read from them, as the SDK reads
    it; otherwise from the items built. Events that only report progress are
    skipped.

    ``partial()`` before the end gives the items that are done, and an
    assistant message with all the text and thinking so far and the calls
    whose arguments are whole.
    """

    _noun = "event"
    _end = "response.completed or response.incomplete"

    def __init__(self) -> None:
        super().__init__()
        self._items: dict[int, _Item] = {}
        self._calls = 0
        self._final: list[Any] | None = None
        self._response: dict[str, Any] = {}
        self._status: object = None
        self._facts: dict[str, str] = {}

    def _fail(self, number: int, event: object, kind: object, reason: str) -> StreamError:
        return StreamError(f"event {number} ({label(kind)}): {reason}", number, event)

    def _take(self, number: int, event: object) -> list[Delta]:
        if isinstance(event, dict):
            data: dict[str, Any] | None = event
            kind = event.get("type")
        else:
            # An SDK object: peek at its type and read only what is needed.
            data = None
            kind = getattr(event, "type", None)
            if not isinstance(kind, str):
                data = plain(event, "an event")
                kind = data.get("type")
        if not isinstance(kind, str):
            error = reported_error(_whole(event, data), "type")  # an error body, bare
            raise self._fail(number, event, kind, error if error is not None else "has no type")
        if self._finished:
            raise self._fail(number, event, kind, "came after the response completed")
        text_delta = _TEXT_DELTAS.get(kind)
        if text_delta is not None:
            return self._text(number, event, kind, data, text_delta)
        if kind == _ARGUMENTS_DELTA:
            return self._arguments(number, event, kind, data)
        if kind in _PART_ADDED:
            self._part(number, event, kind, _whole(event, data))
            return []
        if kind == _ADDED:
            return self._added(number, event, kind, _whole(event, data))
        if kind == _DONE:
            return self._done(number, event, kind, _whole(event, data))
        if kind in _ENDS:
            self._end_with(number, event, kind, _whole(event, data))
        elif kind in _FAILURES:
            data = _whole(event, data)
            what = short(data.get("error") or data, 200)
            raise self._fail(number, event, kind, f"the provider reported an error: {what}")
        elif kind in _STARTS:
            self._started(
                getattr(event, "response", None) if data is None else data.get("response")
            )
        return []

    def _open(self, number: int, event: object, kind: str, at: object) -> _Item:
        """The item an event names, which must be added and not done."""
        item = self._items.get(at) if type(at) is int else None
        if item is None:
            raise self._fail(
                number, event, kind, f"names output item {short(at, 40)}, which was never added"
            )
        if item.done:
            raise self._fail(number, event, kind, f"output item {at} is already done")
        return item

    def _text(
        self,
        number: int,
        event: object,
        kind: str,
        data: dict[str, Any] | None,
        spec: _TextDelta,
    ) -> list[Delta]:
        key, index_key, text_key, make = spec
        if data is not None:
            at, position, piece = data.get("output_index"), data.get(index_key), data.get("delta")
        else:
            at = getattr(event, "output_index", None)
            position = getattr(event, index_key, None)
            piece = getattr(event, "delta", None)
        item = self._open(number, event, kind, at)
        if type(position) is not int:
            raise self._fail(
                number,
                event,
                kind,
                f"{index_key} {short(position, 40)} names no part of output item {at}",
            )
        pieces = item.texts.get((key, position, text_key))
        if pieces is None:
            parts = item.item.get(key)
            if parts is not None and not isinstance(parts, list):
                raise self._fail(
                    number, event, kind, f"output item {at} has a {key!r} that is not a list"
                )
            if not 0 <= position < len(parts or ()):
                raise self._fail(
                    number,
                    event,
                    kind,
                    f"{index_key} {short(position, 40)} names no part of output item {at}",
                )
            part = parts[position]  # type: ignore[index]
            if not isinstance(part, dict):
                raise self._fail(
                    number, event, kind, f"part {position} of output item {at} is not an object"
                )
            before = part.get(text_key, "")
            if not isinstance(before, str):
                raise self._fail(
                    number,
                    event,
                    kind,
                    f"part {position} of output item {at} has a {text_key!r} not text",
                )
            pieces = item.texts[(key, position, text_key)] = [before]
        if not isinstance(piece, str):
            raise self._fail(number, event, kind, f"the delta is not text: {short(piece)}")
        pieces.append(piece)
        item.streamed = True
        return [make(text=piece)] if piece else []

    def _arguments(
        self, number: int, event: object, kind: str, data: dict[str, Any] | None
    ) -> list[Delta]:
        if data is not None:
            at, piece = data.get("output_index"), data.get("delta")
        else:
            at, piece = getattr(event, "output_index", None), getattr(event, "delta", None)
        item = self._open(number, event, kind, at)
        if item.call is None:
            raise self._fail(number, event, kind, f"output item {at} is not a function call")
        if item.arguments is None:
            before = item.item.get("arguments", "")
            if not isinstance(before, str):
                raise self._fail(
                    number, event, kind, f"output item {at} has arguments that are not text"
                )
            item.arguments = [before]
        if not isinstance(piece, str):
            raise self._fail(number, event, kind, f"the delta is not text: {short(piece)}")
        item.arguments.append(piece)
        item.streamed = True
        return [ToolCallDelta(index=item.call, arguments=piece)] if piece else []

    def _part(self, number: int, event: object, kind: str, data: dict[str, Any]) -> None:
        key, index_key = _PART_ADDED[kind]
        item = self._open(number, event, kind, data.get("output_index"))
        parts = item.item.get(key)
        if parts is None:
            parts = item.item[key] = []
        elif not isinstance(parts, list):
            at = data.get("output_index")
            raise self._fail(
                number, event, kind, f"output item {at} has a {key!r} that is not a list"
            )
        position = data.get(index_key)
        if type(position) is not int or position != len(parts):
            raise self._fail(
                number, event, kind, f"{index_key} {short(position, 40)} is not the next part"
            )
        parts.append(dict(field(data, "part", dict, f"event {number}")))

    def _new(
        self, number: int, event: object, kind: str, at: object, item: dict[str, Any]
    ) -> _Item:
        """A new output item at index ``at``, its call numbered if it is a function call."""
        if type(at) is not int or at in self._items:
            raise self._fail(
                number, event, kind, f"output index {short(at, 40)} is not a new integer index"
            )
        call: int | None = None
        if item.get("type") == "function_call":
            if not isinstance(item.get("call_id"), str) or not isinstance(item.get("name"), str):
                raise self._fail(
                    number,
                    event,
                    kind,
                    f"output item {at}: a function call without call_id and name",
                )
            call = self._calls
            self._calls += 1
        built_item = self._items[at] = _Item(item, call)
        return built_item

    def _added(self, number: int, event: object, kind: str, data: dict[str, Any]) -> list[Delta]:
        raw = data.get("item")
        if raw is None and "item" in data:
            return []  # an empty placeholder, as the SDK allows: the index stays unused
        raw = field(data, "item", dict, f"event {number}")
        item = self._new(number, event, kind, data.get("output_index"), _copy(raw))
        if item.call is None:
            return []
        start: list[Delta] = [ToolCallStart(index=item.call, id=raw["call_id"], name=raw["name"])]
        arguments = raw.get("arguments")
        if isinstance(arguments, str) and arguments:
            start.append(ToolCallDelta(index=item.call, arguments=arguments))
            item.streamed = True
        return start

    def _done(self, number: int, event: object, kind: str, data: dict[str, Any]) -> list[Delta]:
        at = data.get("output_index")
        final = field(data, "item", dict, f"event {number}")
        if type(at) is int and at not in self._items:
            # Done without being added: the item arrives whole.
            item = self._new(number, event, kind, at, final)
            item.done = True
            deltas = _whole_deltas(final, item.call)
            if item.call is not None:
                start = ToolCallStart(index=item.call, id=final["call_id"], name=final["name"])
                deltas.insert(0, start)
            self._check_arguments(number, event, kind, final)
            return deltas
        item = self._open(number, event, kind, at)
        self._check_done(number, event, kind, item, final)
        item.item = final
        item.done = True
        return [] if item.streamed else _whole_deltas(final, item.call)

    def _check_done(
        self, number: int, event: object, kind: str, item: _Item, final: dict[str, Any]
    ) -> None:
        if final.get("type") != item.item.get("type"):
            raise self._fail(
                number, event, kind, "the done item is of another type than the added one"
            )
        if item.call is not None:
            streamed = "".join(item.arguments or ())
            if streamed and streamed != final.get("arguments"):
                raise self._fail(
                    number, event, kind, "the done item's arguments differ from the streamed deltas"
                )
            self._check_arguments(number, event, kind, final)
        elif final.get("type") == "message":
            streamed_text = "".join(_output_text(item.snapshot()))
            if streamed_text and streamed_text != "".join(_output_text(final)):
                raise self._fail(
                    number, event, kind, "the done item's text differs from the streamed deltas"
                )

    def _check_arguments(
        self, number: int, event: object, kind: str, final: dict[str, Any]
    ) -> None:
        """A done function call's arguments are whole JSON, unless the call is incomplete."""
        if final.get("type") != "function_call" or final.get("status") == "incomplete":
            return
        arguments = final.get("arguments")
        try:
            parse_arguments(arguments if isinstance(arguments, str) else "")
        except ValueError as err:
            raise self._fail(
                number, event, kind, f"the function call's arguments never complete: {err}"
            ) from None

    def _started(self, response: object) -> None:
        """Note the id and model a starting event gives, in case the end omits them."""
        for key in ("id", "model"):
            value = (
                response.get(key) if isinstance(response, dict) else getattr(response, key, None)
            )
            if isinstance(value, str):
                self._facts[key] = value

    def _end_with(self, number: int, event: object, kind: str, data: dict[str, Any]) -> None:
        response = data.get("response")
        if not isinstance(response, dict):
            response = {}
        _check_not_failed(response)
        status = response.get("status")
        if not isinstance(status, str):
            status = "completed" if kind == "response.completed" else "incomplete"
        output = response.get("output")
        if isinstance(output, list) and (output or not self._items):
            self._final = output
        elif status == "completed":
            missing = sorted(at for at, item in self._items.items() if not item.done)
            if missing:
                raise self._fail(number, event, kind, f"output item {missing[0]} was never done")
        self._response = response
        self._status = status
        self._finished = True

    def _messages(self, final: bool) -> list[Message]:
        if final and self._final is not None:
            return _read(self._final, "output", cut=self._status != "completed")
        order = sorted(self._items)
        items = [self._items[at].snapshot() for at in order]
        unfinished = frozenset(
            number for number, at in enumerate(order) if not self._items[at].done
        )
        cut = not final or self._status != "completed"
        return _read(items, "output", cut, unfinished, leave_unfinished=not final)

    def _reply(self, messages: list[Message]) -> Reply:
        response = dict(self._response)
        for key, value in self._facts.items():
            if not isinstance(response.get(key), str):
                response[key] = value
        return _reply(messages, response, self._status)
