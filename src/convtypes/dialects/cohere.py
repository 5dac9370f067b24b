"""Cohere's v2 chat, as the ``cohere`` SDK sends and reads it.

``to_request`` builds ``{"messages": [...]}`` for ``ClientV2.chat`` and
``chat_stream``; ``tools_to_request`` the ``tools`` and ``tool_choice``
arguments; ``from_response``, ``read_reply`` and :class:`Accumulator` turn
a ``V2ChatResponse``, or its stream of v2 events, into messages;
``left_out`` names what a request leaves out of a transcript.

What a reply becomes: one ``AssistantMessage`` whose text is the reply's
text, or its ``tool_plan`` (what the model says it will do with its tools)
in a turn of calls; its function calls; and the thinking of Cohere's
reasoning models (``thinking`` content) as unsigned thinking blocks. When the
message holds more than that turn can say, so that replaying the turn
would send something else than what came (citations, thinking, argument
text spelled otherwise than convtypes' compact JSON, content types this
version does not know, a call cut off at the token limit), the message as
sent is kept first, as a ``ProviderOutputItemsMessage`` of protocol
``cohere`` holding one item, the message object. This dialect replays that
item in place of the turn; the others drop it and send the
``AssistantMessage``.

What changes on the way out, so that Cohere's rules hold:

- The assistant messages and provider items of one turn go as one
  assistant message, its calls answered by the ``tool`` messages after it.
- An assistant message with calls carries no text: Cohere refuses text
  beside calls, and takes it as the ``tool_plan`` instead. Text without
  calls goes as a text content item.
- Thinking is sent only as it came, in a kept reply: Cohere reads thinking
  content from a model that thinks, and refuses it otherwise.
- Results go as ``tool`` messages with the call's id, their text as a
  string; ids are made unique and fit ``[A-Za-z0-9_-]``, at most 64 long.
- Images go as ``image_url`` items (base64 as ``data:`` URLs); audio and
  video raise ``UnsupportedContent``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .._content import ImageBase64Block, ImageUrlBlock, TextBlock
from .._conversation import positional_call_id
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
from ._copy import copy_json
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
from ._left_out import LeftOut, in_item
from ._media import image_type
from ._reply import (
    Delta,
    Reply,
    StopReason,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    Usage,
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

DIALECT: Final = "Cohere"
PROTOCOL: Final = "cohere"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
DETAILS: Final = frozenset({"low", "high", "auto"})
PLAN_JOIN: Final = "\n\n"
"""What separates texts joined into one ``tool_plan``."""

# What an assistant message in a request takes, of what a reply's message holds.
_INPUT_KEYS: Final = frozenset({"role", "content", "tool_plan", "tool_calls", "citations"})
_CUT_REASONS: Final = frozenset({"MAX_TOKENS"})

_usable_id = safe_id(64)


# --- requests -------------------------------------------------------------------------


def _parts(index: int, blocks: Iterable[object], unsupported: Unsupported) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            out.append({"type": "text", "text": block.text})
            continue
        if isinstance(block, ImageUrlBlock):
            image: dict[str, Any] = {"url": block.url}
            if block.detail in DETAILS:
                image["detail"] = block.detail
            out.append({"type": "image_url", "image_url": image})
            continue
        if isinstance(block, ImageBase64Block):
            media_type = image_type(block.media_type)
            if media_type in IMAGE_TYPES:
                url = data_url(media_type, block.data)
                out.append({"type": "image_url", "image_url": {"url": url}})
                continue
            why = f"takes no {block.media_type!r} image (only JPEG, PNG, GIF and WebP)"
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        elif block.is_audio():  # type: ignore[attr-defined]
            why = "has no content item for audio"
        else:
            why = "has no content item for video"
        if unsupported == "note":
            out.append({"type": "text", "text": note_text(DIALECT, block)})
        else:
            raise unsupported_block(DIALECT, index, position, block, why)
    return out


def _call_out(call_id: str | None, call: ToolCall) -> dict[str, Any]:
    function = {"name": call.name, "arguments": arguments_json(call.arguments)}
    if call_id is None:
        return {"type": "function", "function": function}
    return {"id": call_id, "type": "function", "function": function}


def _text_item(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


class _Turn:
    """One assistant message of the request, gathered from a run of messages and items.

    ``content`` holds its content items in order, ``plan`` the tool plans it
    came with, ``calls`` and ``citations`` what they are.
    """

    __slots__ = ("calls", "citations", "content", "plan")

    def __init__(self) -> None:
        self.content: list[Any] = []
        self.plan: list[str] = []
        self.calls: list[Any] = []
        self.citations: list[Any] = []

    def flat(self, index: int, message: AssistantMessage, ids: CallIds) -> None:
        if message.content:
            self.content.append(_text_item(message.content))
        self.calls += [
            _call_out(ids.call(index, position, call), call)
            for position, call in enumerate(message.tool_calls)
        ]

    def after_kept(self, index: int, message: AssistantMessage, kept: _Kept, ids: CallIds) -> None:
        """The turn read from a kept message: only what it adds to the message."""
        if message.content and message.content != kept.text:
            self.content.append(_text_item(message.content))
        self.calls += [
            _call_out(ids.call(index, position, call), call)
            for position, call in enumerate(message.tool_calls)
            if not kept.holds(position, call)
        ]

    def item(self, index: int, item: dict[str, Any], ids: CallIds) -> None:
        """A kept message, as it came, its calls' ids entered in ``ids``."""
        content = item.get("content")
        if isinstance(content, str):
            if content:
                self.content.append(_text_item(content))
        elif isinstance(content, list):
            self.content += [copy_json(part) for part in content]
        plan = item.get("tool_plan")
        if isinstance(plan, str) and plan:
            self.plan.append(plan)
        calls = item.get("tool_calls")
        if isinstance(calls, list):
            self.calls += _replayed_calls(index, calls, ids)
        citations = item.get("citations")
        if isinstance(citations, list):
            self.citations += copy_json(citations)

    def message(self) -> dict[str, Any] | None:
        """The assistant message, or ``None`` when it has neither text nor calls.

        Beside calls, text goes into the ``tool_plan``; without calls, a
        plan (of a turn whose only call was cut off) is text.
        """
        texts = [part for part in self.content if _is_text(part)]
        others = [part for part in self.content if not _is_text(part)]
        plan = list(self.plan)
        if self.calls:
            plan += [part["text"] for part in texts if part["text"]]
            content = others
        else:
            content = self.content + [_text_item(text) for text in plan]
            plan = []
            if not any(_is_text(part) and part["text"] for part in content):
                return None  # nothing Cohere takes: no turn
        turn: dict[str, Any] = {"role": "assistant"}
        if content:
            turn["content"] = content
        if plan:
            turn["tool_plan"] = PLAN_JOIN.join(plan)
        if self.calls:
            turn["tool_calls"] = self.calls
        if self.citations:
            turn["citations"] = self.citations
        return turn


def _is_text(part: object) -> bool:
    return (
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
    )


def _runnable(call: dict[str, Any]) -> bool:
    """Whether a kept call is one a backend could run: not one cut off at the token limit."""
    function = call.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        return False
    arguments = function.get("arguments")
    if arguments is None:
        return True
    if not isinstance(arguments, str):
        return False
    try:
        parse_arguments(arguments)
    except ValueError:
        return False
    return True


def _call_name(call: dict[str, Any]) -> str:
    function = call.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else ""


def _replayed_calls(index: int, kept: list[Any], ids: CallIds) -> list[Any]:
    """A kept message's calls with ids Cohere takes, entered in ``ids``; cut calls left out."""
    out: list[Any] = []
    position = 0
    for call in kept:
        if not isinstance(call, dict):
            out.append(copy_json(call))
            continue
        if not _runnable(call):
            continue
        call = copy_json(call)
        call_id = call.get("id")
        name = _call_name(call)
        if isinstance(call_id, str) and ids.free(call_id) and _usable_id(call_id):
            ids.carried(index, call_id, call_id, name)
        else:
            key = call_id if isinstance(call_id, str) else positional_call_id(position)
            call["id"] = ids.fresh(index, position, key, name)
        position += 1
        out.append(call)
    return out


def _said(item: dict[str, Any]) -> str:
    """The text of a kept message as the flat turn reads it: its plan, then its text."""
    content = item.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "".join(part["text"] for part in content if _is_text(part))
    else:
        text = ""
    plan = item.get("tool_plan")
    plan = plan if isinstance(plan, str) else ""
    return PLAN_JOIN.join(part for part in (plan, text) if part)


def _thoughts(item: dict[str, Any]) -> list[str]:
    content = item.get("content")
    parts = content if isinstance(content, list) else []
    return [
        part["thinking"]
        for part in parts
        if isinstance(part, dict)
        and part.get("type") == "thinking"
        and isinstance(part.get("thinking"), str)
        and part["thinking"]
    ]


class _Kept:
    """What a kept ``cohere`` message already says: its text, thinking and calls."""

    __slots__ = ("calls", "text", "thoughts")

    def __init__(self, item: dict[str, Any]) -> None:
        self.text = _said(item)
        self.thoughts = _thoughts(item)
        raw_calls = item.get("tool_calls")
        self.calls: list[tuple[str | None, str]] = []
        for call in raw_calls if isinstance(raw_calls, list) else ():
            if isinstance(call, dict) and _runnable(call):
                call_id = call.get("id")
                self.calls.append((call_id if isinstance(call_id, str) else None, _call_name(call)))

    def holds(self, position: int, call: ToolCall) -> bool:
        """Whether the kept message holds ``call``, the ``position``-th of the turn read from it."""
        if call.id:
            return any(call_id == call.id for call_id, _ in self.calls)
        return position < len(self.calls) and self.calls[position] == (call.id, call.name)


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
) -> dict[str, Any]:
    """The conversation part of a v2 chat request: ``{"messages": [...]}``.

    Pass it to ``ClientV2.chat(model=..., **body)`` with the fields of
    ``tools_to_request``, or POST it as JSON. External tool results are
    fenced unless ``fence_external`` is False. See the module for how the
    transcript is shaped to Cohere's rules. The request shares no mutable
    value with the transcript.
    """
    check_unsupported(unsupported)
    transcript = transcript_of(messages, "to_request")
    ids = CallIds(transcript, _usable_id, DIALECT)
    out: list[dict[str, Any]] = []
    turn: _Turn | None = None
    kept: _Kept | None = None
    for index, message in enumerate(transcript):
        previous, kept = kept, None
        if isinstance(message, AssistantMessage):
            ids.assistant()
            turn = turn or _Turn()
            if previous is None:
                turn.flat(index, message, ids)
            else:
                turn.after_kept(index, message, previous, ids)
            continue
        if isinstance(message, ProviderOutputItemsMessage):
            if message.protocol != PROTOCOL:
                continue  # another provider's state has no place here
            for item in message.items:
                if isinstance(item, dict):
                    ids.assistant()
                    turn = turn or _Turn()
                    turn.item(index, item, ids)
                    kept = _Kept(item)
            continue
        if turn is not None:
            said = turn.message()
            if said is not None:
                out.append(said)
            turn = None
        if isinstance(message, ToolResultMessage):
            call = ids.result(index, message)
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": call.out_id,
                    "content": tool_result_text(message, fence_external),
                }
            )
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
    if turn is not None:
        said = turn.message()
        if said is not None:
            out.append(said)
    return {"messages": out}


def tools_to_request(tools: Iterable[ToolSpec], *, choice: str = "auto") -> dict[str, Any]:
    """The ``tools`` and ``tool_choice`` fields that offer ``tools`` to the model.

    Each tool goes as a ``function`` tool with its JSON Schema as
    ``parameters``, its root an object (a root ``$ref`` is inlined, a root
    without ``type`` gets ``"object"``). Cohere's ``tool_choice`` says only
    ``"REQUIRED"`` or ``"NONE"``: ``"auto"`` sends none (the default),
    ``"required"`` and ``"none"`` send those, and a tool's name sends that
    tool alone with ``"REQUIRED"``, the one way to make Cohere call it. With
    no tools the result is ``{}``. Raises
    :class:`~convtypes.dialects.ToolSchemaError` for a name Cohere refuses,
    a name given twice, a choice that names no tool, or a schema whose root
    is not an object.
    """
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if not specs:
        return {}
    if chosen is not None:
        specs = [spec for spec in specs if spec.name == chosen]
    out: list[dict[str, Any]] = []
    for spec in specs:
        function: dict[str, Any] = {"name": spec.name}
        if spec.description:
            function["description"] = spec.description
        function["parameters"] = copy_json(object_parameters(spec, DIALECT))
        out.append({"type": "function", "function": function})
    fields: dict[str, Any] = {"tools": out}
    if chosen is not None or choice == "required":
        fields["tool_choice"] = "REQUIRED"
    elif choice == "none":
        fields["tool_choice"] = "NONE"
    return fields


# --- what a request leaves out ------------------------------------------------------------


def left_out(
    messages: Iterable[Message | UnknownMessage], *, unsupported: Unsupported = "raise"
) -> list[LeftOut]:
    """What :func:`to_request` of ``messages`` does not send, message by message.

    Named: another provider's items (``"items"``), and the fields of a kept
    message an assistant message takes no input for; a kept call cut off at
    the token limit (``"call"``); thinking that did not come in a kept
    Cohere reply (``"thinking"``, ``"redacted-thinking"``), or that did but
    whose turn has neither text nor calls, so that it is not sent (with
    the rest its kept replies hold); images Cohere cannot read,
    audio and video (with ``unsupported="note"`` a note stands in their
    place); an image ``detail`` it does not know. Each ``why`` starts with
    the piece's place in its message (see
    :class:`~convtypes.dialects.LeftOut`). It takes ``unsupported`` as
    ``to_request`` does, and names those media under either value. Raises
    what ``to_request`` raises for a transcript it cannot send at all (a
    message or block a newer writer made, a call without its result).
    """
    check_unsupported(unsupported)
    transcript = transcript_of(messages, "left_out")
    to_request(transcript, unsupported="note")  # raises what it raises, media aside
    out: list[LeftOut] = []
    kept: _Kept | None = None
    # The turn so far: whether it says anything (text or calls), and what its items
    # lose if it does not, for then it is not sent at all.
    said = False
    unsaid: list[LeftOut] = []
    for index, message in enumerate(transcript):
        previous, kept = kept, None
        if isinstance(message, AssistantMessage):
            _left_out_thinking(index, message, previous, out)
            said = said or _adds(message, previous)
            continue
        if isinstance(message, ProviderOutputItemsMessage):
            if message.protocol != PROTOCOL:
                if message.items:
                    why = (
                        f"{message.protocol!r:.40} items belong to another provider; "
                        f"{DIALECT} is sent the assistant message beside them"
                    )
                    out.append(LeftOut(index, "items", why))
                continue
            for place, item in enumerate(message.items):
                if not isinstance(item, dict):
                    out.append(LeftOut(index, "items", f"{in_item(place)}: {_NOT_A_MESSAGE}"))
                    continue
                _left_out_item(index, place, item, out)
                said = said or _says(item)
                unsaid += _unsaid(index, place, item)
                kept = _Kept(item)
            continue
        if not said:
            out += unsaid
        said, unsaid = False, []
        if isinstance(message, UserMultimodalMessage):
            _left_out_media(index, message, out)
        elif not isinstance(
            message, (UserMessage, SystemMessage, ToolResultMessage, UnknownMessage)
        ):
            raise not_a_message(index, message)
    if not said:
        out += unsaid
    out.sort(key=lambda piece: piece.index)  # a turn's items come before what followed them
    return out


_NOT_A_MESSAGE: Final = "an item that is not a message object has no place in the request"
_NO_FIELD: Final = "an assistant message takes no such input field"
_CUT_CALL: Final = "a call cut off at the token limit is not sent: no result answers it"
_NO_TURN: Final = (
    "its turn has neither text nor calls, so none of it is sent: "
    f"{DIALECT} takes an assistant message only with text or calls"
)
_REDACTED: Final = f"{DIALECT} cannot read redacted thinking"
_FOREIGN_THINKING: Final = f"{DIALECT} takes thinking only as its own replies hold it"
_EDITED_THINKING: Final = (
    "the kept reply before this turn is sent in its place, with its own thinking"
)
_NO_SIGNATURE: Final = f"{DIALECT} has no place for a thinking signature"


def _left_out_item(index: int, place: int, item: dict[str, Any], out: list[LeftOut]) -> None:
    """What of a kept message its replay does not send: fields with no input, cut calls."""
    for key in item:
        if key not in _INPUT_KEYS:
            out.append(LeftOut(index, "items", f"{in_item(place, key)}: {_NO_FIELD}"))
    calls = item.get("tool_calls")
    for position, call in enumerate(calls if isinstance(calls, list) else ()):
        if isinstance(call, dict) and not _runnable(call):
            where = in_item(place, "tool_calls", position)
            out.append(LeftOut(index, "call", f"{where}: {_CUT_CALL}"))


def _says(item: dict[str, Any]) -> bool:
    """Whether a kept message gives its turn text or a call, so that the turn is sent."""
    calls = item.get("tool_calls")
    runnable = any(
        not isinstance(call, dict) or _runnable(call)
        for call in (calls if isinstance(calls, list) else ())
    )
    return runnable or bool(_said(item))


def _adds(message: AssistantMessage, kept: _Kept | None) -> bool:
    """Whether ``message`` gives its turn text or a call (after ``kept``, what it lacks)."""
    if kept is None:
        return bool(message.content or message.tool_calls)
    return bool(message.content and message.content != kept.text) or any(
        not kept.holds(position, call) for position, call in enumerate(message.tool_calls)
    )


def _unsaid(index: int, place: int, item: dict[str, Any]) -> list[LeftOut]:
    """What a kept message loses when its turn says nothing and is not sent: its thinking,
    its other content but text (which would have said something), its citations."""
    out: list[LeftOut] = []
    content = item.get("content")
    for position, part in enumerate(content if isinstance(content, list) else ()):
        if _is_text(part):
            continue
        where = f"{in_item(place, 'content', position)}: {_NO_TURN}"
        if isinstance(part, dict) and part.get("type") == "thinking":
            if part.get("thinking"):
                out.append(LeftOut(index, "thinking", where))
        else:
            out.append(LeftOut(index, "items", where))
    if item.get("citations"):
        out.append(LeftOut(index, "annotations", f"{in_item(place, 'citations')}: {_NO_TURN}"))
    return out


def _left_out_thinking(
    index: int, message: AssistantMessage, kept: _Kept | None, out: list[LeftOut]
) -> None:
    """The thinking of ``message`` that does not go: all of it, unless a kept reply goes in
    its place; then each block whose text that reply does not hold, and signatures."""
    held = list(kept.thoughts) if kept is not None else None
    for position, block in enumerate(message.thinking):
        where = f"thinking block {position}"
        if block.redacted_data is not None:
            out.append(LeftOut(index, "redacted-thinking", f"{where}: {_REDACTED}"))
        elif held is None:
            if block.text or block.signature:
                out.append(LeftOut(index, "thinking", f"{where}: {_FOREIGN_THINKING}"))
        elif block.text and block.text not in held:
            out.append(LeftOut(index, "thinking", f"{where}: {_EDITED_THINKING}"))
        else:
            if block.text:
                held.remove(block.text)
            if block.signature:
                out.append(LeftOut(index, "signature", f"{where}: {_NO_SIGNATURE}"))


def _left_out_media(index: int, message: UserMultimodalMessage, out: list[LeftOut]) -> None:
    for position, block in enumerate(message.content):
        where = f"block {position}"
        if isinstance(block, (TextBlock, UnknownBlock)):
            continue
        if isinstance(block, ImageUrlBlock):
            if block.detail not in DETAILS:
                why = f"{DIALECT} knows no image detail {block.detail!r:.40}"
                out.append(LeftOut(index, "detail", f"{where}: {why}"))
        elif isinstance(block, ImageBase64Block):
            if image_type(block.media_type) not in IMAGE_TYPES:
                why = f"{DIALECT} takes no {block.media_type!r:.40} image"
                out.append(LeftOut(index, "image", f"{where}: {why}"))
        elif block.is_audio():
            why = f"{DIALECT} has no content item for audio"
            out.append(LeftOut(index, "audio", f"{where}: {why}"))
        else:
            why = f"{DIALECT} has no content item for video"
            out.append(LeftOut(index, "video", f"{where}: {why}"))


# --- responses ----------------------------------------------------------------------------


def _clean_call(call: object) -> object:
    if not isinstance(call, dict):
        return call
    out = {
        key: value
        for key, value in call.items()
        if value is not None and not (key == "type" and value == "function")
    }
    function = out.get("function")
    if isinstance(function, dict):
        out["function"] = {key: value for key, value in function.items() if value is not None}
    return out


def _clean_part(part: object) -> object:
    if not isinstance(part, dict):
        return part
    return {key: value for key, value in part.items() if value is not None}


def _clean(message: dict[str, Any]) -> dict[str, Any]:
    """The message as sent, without empty fields.

    The same message read whole or built from a stream comes out the same:
    the stream spells every field (``"tool_plan": ""``, empty lists), the
    whole reply only those it has.
    """
    out: dict[str, Any] = {}
    for key, value in message.items():
        if value is None or value == "" or value == []:
            continue
        if key == "content" and isinstance(value, list):
            value = [_clean_part(part) for part in value]
        elif key == "tool_calls" and isinstance(value, list):
            value = [_clean_call(call) for call in value]
        elif key == "citations" and isinstance(value, list):
            value = [_clean_part(citation) for citation in value]
        out[key] = value
    out["role"] = "assistant"
    return out


def _read_content(content: object, where: str) -> tuple[str, list[ThinkingBlock]]:
    """The text and the thinking of a message's content items."""
    if content is None:
        return "", []
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        raise ResponseError(f"{where}: 'content' should be a list, got {short(content)}")
    text: list[str] = []
    thinking: list[ThinkingBlock] = []
    for number, part in enumerate(content):
        at = f"{where}.content[{number}]"
        if not isinstance(part, dict):
            raise ResponseError(f"{at}: expected an object, got {short(part)}")
        kind = part.get("type")
        if kind == "text":
            text.append(field(part, "text", str, at))
        elif kind == "thinking":
            said = field(part, "thinking", str, at)
            if said:
                thinking.append(ThinkingBlock(text=said))
        elif not isinstance(kind, str):
            raise ResponseError(f"{at}: a content item without a type")
    return "".join(text), thinking


def _read_call(raw: object, where: str) -> ToolCall:
    if not isinstance(raw, dict):
        raise ResponseError(f"{where}: expected an object, got {short(raw)}")
    function = field(raw, "function", dict, where)
    name = field(function, "name", str, f"{where}.function")
    text = field(function, "arguments", str, f"{where}.function", None)
    try:
        arguments = parse_arguments(text or "")
    except ValueError as err:
        raise ResponseError(f"{where}: {err}") from None
    call_id = field(raw, "id", str, where, None)
    return tool_call(call_id, name, arguments, where)


def _read_message(message: dict[str, Any], cut: bool, where: str) -> list[Message]:
    """The messages for a reply's message; ``cut`` when it stopped at the token limit."""
    text, thinking = _read_content(message.get("content"), where)
    plan = field(message, "tool_plan", str, where, None) or ""
    field(message, "citations", list, where, None)
    raw_calls = field(message, "tool_calls", list, where, None) or []
    calls: list[ToolCall] = []
    for number, raw in enumerate(raw_calls):
        try:
            calls.append(_read_call(raw, f"{where}.tool_calls[{number}]"))
        except ResponseError:
            if cut and number == len(raw_calls) - 1:
                continue
            raise
    said = PLAN_JOIN.join(part for part in (plan, text) if part)
    assistant = built(
        lambda: AssistantMessage(content=said, tool_calls=tuple(calls), thinking=tuple(thinking)),
        where,
    )
    item = _clean(message)
    if _carried(item, assistant):
        return [assistant]
    kept = built(lambda: ProviderOutputItemsMessage(protocol=PROTOCOL, items=(item,)), where)
    return [kept, assistant]


def _flat(message: AssistantMessage) -> dict[str, Any]:
    """What ``to_request`` sends for ``message`` alone (ids as they are), without its role."""
    turn = _Turn()
    if message.content:
        turn.content.append(_text_item(message.content))
    turn.calls = [_call_out(call.id, call) for call in message.tool_calls]
    sent = turn.message() or {}
    sent.pop("role", None)
    return sent


def _normal(message: dict[str, Any]) -> dict[str, Any]:
    """A message with what says nothing to the API taken out, to compare two of them."""
    out = {
        key: value
        for key, value in message.items()
        if key != "role" and value is not None and value != "" and value != []
    }
    if isinstance(out.get("content"), str):
        out["content"] = [_text_item(out["content"])]
    calls = out.get("tool_calls")
    if isinstance(calls, list):
        out["tool_calls"] = [_clean_call(call) for call in calls]
    return out


def _carried(item: dict[str, Any], assistant: AssistantMessage) -> bool:
    """Whether replaying ``assistant`` sends what the message ``item`` said.

    A reply that holds only thinking, or nothing, sends no turn either way.
    """
    if not assistant.content and not assistant.tool_calls and assistant.thinking:
        return False
    return _normal(item) == _normal(_flat(assistant))


_STOPS: Final[dict[str, StopReason]] = {
    "COMPLETE": "end_turn",
    "STOP_SEQUENCE": "stop_sequence",
    "MAX_TOKENS": "max_tokens",
    "TOOL_CALL": "tool_use",
    "ERROR": "other",
    "TIMEOUT": "other",
}


def _stop_reason(messages: list[Message], reason: object) -> StopReason:
    """The finish reason by meaning: a turn of calls is ``tool_use`` whatever it says."""
    stop = _STOPS.get(reason, "other") if isinstance(reason, str) else "other"
    assistant = messages[-1]
    if stop == "end_turn" and isinstance(assistant, AssistantMessage) and assistant.tool_calls:
        return "tool_use"
    return stop


def _count(raw: object, *keys: str) -> int | None:
    """A count at ``raw[keys...]``: an integer, or a whole float, as the SDK holds counts."""
    value = raw
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer() and value >= 0:
        return int(value)
    return None


def _usage(raw: object) -> Usage:
    """The usage by ``tokens`` (the whole prompt, cached or not); ``billed_units`` stays in raw."""
    if not isinstance(raw, dict):
        return Usage()
    return Usage(
        input_tokens=_count(raw, "tokens", "input_tokens"),
        output_tokens=_count(raw, "tokens", "output_tokens"),
        cache_read_tokens=_count(raw, "cached_tokens"),
        raw=raw,
    )


def _reply(messages: list[Message], reason: object, usage: object, reply_id: object) -> Reply:
    return Reply(
        messages=messages,
        stop_reason=_stop_reason(messages, reason),
        provider_stop_reason=reason if isinstance(reason, str) else None,
        usage=_usage(usage),
        id=reply_id if isinstance(reply_id, str) else None,
    )


def _error(data: dict[str, Any]) -> str | None:
    """What an error body says, when ``data`` is one in place of a reply or an event.

    Cohere's errors are ``{"message": "..."}`` (some with an ``id``): the
    message is text where a reply's is an object. ``None`` for anything else.
    """
    message = data.get("message")
    if isinstance(message, str):
        return f"the provider reported an error: {short(message, 200)}"
    error = data.get("error")
    if error is not None:
        return f"the provider reported an error: {short(error, 200)}"
    return None


def from_response(response: object) -> list[Message]:
    """The messages to append for a ``V2ChatResponse`` (dict or SDK object).

    Arguments are parsed from their JSON text (key order and big integers
    kept). What the ``AssistantMessage`` cannot say is kept before it as a
    ``cohere`` items message (see the module).
    """
    return read_reply(response).messages


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage and id.

    ``usage.input_tokens`` and ``output_tokens`` are Cohere's ``tokens``
    counts (the whole prompt, cached or not, and everything generated);
    ``cache_read_tokens`` is ``cached_tokens``. What Cohere bills
    (``billed_units``, without the tokens of its own system prompt) stays
    in ``usage.raw``. Cohere names no model in a reply.
    """
    try:
        data = plain(response, "the response")
        if not isinstance(data.get("message"), dict):
            error = _error(data)
            if error is not None:
                raise ResponseError(error)
        message = field(data, "message", dict, "the response")
        reason = data.get("finish_reason")
        messages = _read_message(message, reason in _CUT_REASONS, "message")
        return _reply(messages, reason, data.get("usage"), data.get("id"))
    except LEAKS as err:
        raise_response_failure(err)


# --- streams ------------------------------------------------------------------------------

_EVENTS: Final = frozenset(
    {
        "message-start",
        "content-start",
        "content-delta",
        "content-end",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "citation-start",
        "citation-end",
        "message-end",
    }
)


class _Call:
    """A streamed call: its id and name, its argument text as it grows, where it began.

    ``ended`` once its ``tool-call-end`` came: a call without arguments is
    whole then, though its text (``""``) is no object.
    """

    __slots__ = ("call_id", "ended", "name", "pieces", "position", "started")

    def __init__(self, call_id: str | None, name: str, position: int, started: int) -> None:
        self.call_id = call_id
        self.name = name
        self.pieces: list[str] = []
        self.position = position
        self.started = started
        self.ended = False

    def raw(self) -> dict[str, Any]:
        call: dict[str, Any] = {"function": {"name": self.name, "arguments": "".join(self.pieces)}}
        if self.call_id is not None:
            call = {"id": self.call_id, **call}
        return call


# The events that come by the thousand, read from an SDK object's attributes.
_PIECE_EVENTS: Final = frozenset({"content-delta", "tool-plan-delta", "tool-call-delta"})
# The events that only close what an index names, and the fields they have.
_END_EVENTS: Final = frozenset({"content-end", "citation-end", "tool-call-end"})
_END_FIELDS: Final = frozenset({"type", "index"})


class Accumulator(StreamReader):
    """Builds the messages of a streamed v2 chat.

    ``feed`` every event of ``ClientV2.chat_stream`` (the SDK's objects or
    dicts), from ``message-start`` to ``message-end``: text and thinking
    in ``content-delta`` events, the tool plan in ``tool-plan-delta``, each
    call's arguments in ``tool-call-delta``, citations in ``citation-start``,
    the finish reason and usage in ``message-end``. ``result()`` then equals
    ``from_response`` of the whole reply. Events of a type this version does
    not know, and ``debug`` events, add nothing.
    """

    _noun = "event"
    _end = "message-end"

    def __init__(self) -> None:
        super().__init__()
        self._content: dict[int, tuple[str, list[str]]] = {}  # index -> (type, pieces)
        self._plan: list[str] = []
        self._calls: dict[int, _Call] = {}
        self._citations: list[Any] = []
        self._reason: str | None = None
        self._usage: object = None
        self._id: object = None

    def _take(self, number: int, event: object) -> list[Delta]:
        if type(event) is dict:
            data = event
        else:
            fast = self._fast(event)
            if fast is not None:
                return fast
            data = plain(event, "an event")
        kind = data.get("type")

        def fail(reason: str) -> StreamError:
            return StreamError(f"event {number} ({label(kind)}): {reason}", number, event)

        if not isinstance(kind, str):
            error = _error(data)
            raise fail(error if error is not None else "has no type")
        if kind not in _EVENTS:
            return []  # debug events, and types newer than this version
        if self._finished:
            raise fail("came after message-end")
        message = _message_of(data, fail)
        if kind == "message-start":
            self._id = data.get("id")
            return []
        if kind == "tool-plan-delta":
            plan = message.get("tool_plan")
            if not isinstance(plan, str):
                raise fail(f"the tool plan is not text: {short(plan)}")
            self._plan.append(plan)
            return [TextDelta(plan)] if plan else []
        if kind == "message-end":
            return self._end_of(data, fail)
        if kind == "citation-start":
            citation = message.get("citations")
            if not isinstance(citation, dict):
                raise fail(f"the citation is not an object: {short(citation)}")
            self._citations.append(citation)
            return []
        if kind in ("citation-end", "content-end"):
            return []
        at = data.get("index")
        if kind == "tool-call-end":
            ended = self._calls.get(at) if type(at) is int else None
            if ended is not None:
                ended.ended = True
            return []
        if type(at) is not int:
            raise fail("has no integer index")
        if kind == "content-start" or kind == "content-delta":
            return self._content_of(kind, at, message, fail)
        return self._call_of(kind, at, number, message, fail)

    def _fast(self, event: object) -> list[Delta] | None:
        """The deltas of an SDK ``content-delta``, ``tool-plan-delta`` or ``tool-call-delta``.

        Those are most of a stream, and dumping each costs more than the
        rest of the work, so they are read from the object's attributes;
        anything else (``None``) goes through the dump.
        """
        try:
            outer = event.__dict__
            kind = outer["type"]
        except (AttributeError, KeyError):
            return None
        if self._finished or getattr(event, "__pydantic_extra__", None):
            return None
        if kind in _END_EVENTS:
            # Nothing but a type and an index, as the dict is read: no content.
            if outer.keys() - _END_FIELDS:
                return None
            if kind == "tool-call-end":
                at = outer.get("index")
                ended = self._calls.get(at) if type(at) is int else None
                if ended is not None:
                    ended.ended = True
            return []
        if kind == "message-start":
            return self._fast_start(outer)
        if kind == "content-start" or kind == "tool-call-start":
            return self._fast_open(kind, outer)
        if kind not in _PIECE_EVENTS:
            return None
        try:
            delta = outer["delta"]
            message = delta.__dict__["message"]
            inner = message.__dict__
            # An extra field bearing a read name is what the dump writes there.
            if delta.__pydantic_extra__ or message.__pydantic_extra__:
                return None
        except (AttributeError, KeyError):
            return None
        if kind == "tool-plan-delta":
            plan = inner.get("tool_plan")
            given = getattr(message, "__pydantic_fields_set__", ())
            if type(plan) is not str or "tool_plan" not in given:
                return None
            self._plan.append(plan)
            return [TextDelta(plan)] if plan else []
        at = outer.get("index")
        if type(at) is not int:
            return None
        if kind == "content-delta":
            known = self._content.get(at)
            content = inner.get("content")
            fields = getattr(content, "__pydantic_fields_set__", None)
            if known is None or fields is None or len(fields) != 1 or content.__pydantic_extra__:
                return None
            key = known[0]
            value = content.__dict__.get(key)
            if key not in fields or type(value) is not str:
                return None
            known[1].append(value)
            if not value:
                return []
            return [TextDelta(value)] if key == "text" else [ThinkingDelta(value)]
        call = self._calls.get(at)
        raw = inner.get("tool_calls")
        function = getattr(raw, "function", None)
        arguments = getattr(function, "arguments", None)
        if (
            call is None
            or type(arguments) is not str
            or getattr(raw, "__pydantic_extra__", True)
            or getattr(function, "__pydantic_extra__", True)
        ):
            return None
        call.pieces.append(arguments)
        return [ToolCallDelta(call.position, arguments)] if arguments else []

    def _fast_start(self, outer: dict[str, Any]) -> list[Delta] | None:
        """A ``message-start`` read from its fields: its id, where that is what its dump holds.

        The dump holds the id as it is when it is text or ``None``, and the
        delta and its message as objects when they are models; anything
        else goes to the dump, which also says what is wrong with it.
        """
        told = outer.get("id")
        delta = outer.get("delta")
        if told is not None and type(told) is not str:
            return None
        if delta is not None:
            if not hasattr(delta, "__pydantic_fields_set__") or delta.__pydantic_extra__:
                return None
            message = delta.__dict__.get("message")
            if message is not None and (
                not hasattr(message, "__pydantic_fields_set__") or message.__pydantic_extra__
            ):
                return None
        self._id = told
        return []

    def _fast_open(self, kind: str, outer: dict[str, Any]) -> list[Delta] | None:
        """A ``content-start`` or ``tool-call-start`` read from its fields, as from its dump.

        A field of a model that holds text or ``None`` reads as the dump's
        key does (the dump leaves out only what is ``None``); the opened
        part's type, the call's name and id must be text. Anything else goes
        to the dump, which also says what is wrong with it.
        """
        at = outer.get("index")
        message = _model_field(_model_field(outer.get("delta"), "message"), None)
        if type(at) is not int or message is None:
            return None
        if kind == "content-start":
            content = _model_field(message.get("content"), None)
            part = content.get("type") if content is not None else None
            if content is None or (part != "text" and part != "thinking") or at in self._content:
                return None
            value = content.get(part)
            if value is None:
                other = content.get("thinking" if part == "text" else "text")
                if other is not None:
                    return None
            elif type(value) is not str:
                return None
            self._content[at] = (part, [] if value is None else [value])
            if not value:
                return []
            return [TextDelta(value)] if part == "text" else [ThinkingDelta(value)]
        raw = _model_field(message.get("tool_calls"), None)
        function = _model_field(raw.get("function"), None) if raw is not None else None
        if raw is None or function is None or at in self._calls:
            return None
        call_id, name, arguments = raw.get("id"), function.get("name"), function.get("arguments")
        if (
            (call_id is not None and type(call_id) is not str)
            or type(name) is not str
            or not name
            or (arguments is not None and type(arguments) is not str)
        ):
            return None
        call = self._calls[at] = _Call(call_id, name, len(self._calls), self._count - 1)
        deltas: list[Delta] = [ToolCallStart(call.position, call_id, name)]
        if arguments:
            call.pieces.append(arguments)
            deltas.append(ToolCallDelta(call.position, arguments))
        return deltas

    def _content_of(self, kind: str, at: int, message: dict[str, Any], fail: Any) -> list[Delta]:
        content = message.get("content")
        if not isinstance(content, dict):
            raise fail(f"the content is not an object: {short(content)}")
        if kind == "content-start":
            if at in self._content:
                raise fail(f"content {at} was already started")
            part = content.get("type") or ("thinking" if "thinking" in content else "text")
            if part not in ("text", "thinking"):
                raise fail(f"content of a type this version does not know: {short(part)}")
            self._content[at] = (part, [])
        known = self._content.get(at)
        if known is None:
            raise fail(f"names content {at}, which was never started")
        part, pieces = known
        value = content.get(part)
        if value is None:
            other = "thinking" if part == "text" else "text"
            if content.get(other) is not None:
                raise fail(f"content {at} is {part}, and this piece is {other}")
            return []
        if not isinstance(value, str):
            raise fail(f"the content's {part!r} is not text: {short(value)}")
        pieces.append(value)
        if not value:
            return []
        return [TextDelta(value)] if part == "text" else [ThinkingDelta(value)]

    def _call_of(
        self, kind: str, at: int, number: int, message: dict[str, Any], fail: Any
    ) -> list[Delta]:
        raw = message.get("tool_calls")
        if not isinstance(raw, dict):
            raise fail(f"the tool call is not an object: {short(raw)}")
        function = raw.get("function")
        if function is None:
            function = {}
        elif not isinstance(function, dict):
            raise fail(f"the call's function is not an object: {short(function)}")
        arguments = function.get("arguments")
        if arguments is not None and not isinstance(arguments, str):
            raise fail(f"the call's arguments are not text: {short(arguments)}")
        deltas: list[Delta] = []
        if kind == "tool-call-start":
            if at in self._calls:
                raise fail(f"tool call {at} was already started")
            call_id = raw.get("id")
            name = function.get("name")
            if call_id is not None and not isinstance(call_id, str):
                raise fail(f"the call's id is not text: {short(call_id)}")
            if not isinstance(name, str) or not name:
                raise fail("a tool call starts without a name")
            call = self._calls[at] = _Call(call_id, name, len(self._calls), number)
            deltas.append(ToolCallStart(call.position, call_id, name))
        else:
            known = self._calls.get(at)
            if known is None:
                raise fail(f"names tool call {at}, which was never started")
            call = known
        if arguments:
            call.pieces.append(arguments)
            deltas.append(ToolCallDelta(call.position, arguments))
        return deltas

    def _end_of(self, data: dict[str, Any], fail: Any) -> list[Delta]:
        delta = data.get("delta")
        if delta is None:
            delta = {}
        elif not isinstance(delta, dict):
            raise fail(f"the delta is not an object: {short(delta)}")
        error = delta.get("error")
        if error:
            raise fail(f"the provider reported an error: {short(error, 200)}")
        reason = delta.get("finish_reason")
        if reason is not None and not isinstance(reason, str):
            raise fail(f"the finish_reason is not text: {short(reason)}")
        self._reason = reason
        self._usage = delta.get("usage")
        self._finished = True
        return []

    def _message(self, final: bool) -> dict[str, Any]:
        """The message so far, as the whole reply holds it."""
        content = []
        for at in sorted(self._content):
            part, pieces = self._content[at]
            content.append({"type": part, part: "".join(pieces)})
        calls = [self._calls[at] for at in sorted(self._calls)]
        if not final:
            # Only the calls whose arguments are whole: a later call has
            # begun, or the text so far is already a complete object.
            calls = [
                call for number, call in enumerate(calls) if number < len(calls) - 1 or _whole(call)
            ]
        return {
            "role": "assistant",
            "content": content,
            "tool_plan": "".join(self._plan),
            "tool_calls": [call.raw() for call in calls],
            "citations": self._citations,
        }

    def _messages(self, final: bool) -> list[Message]:
        cut = self._reason in _CUT_REASONS or not final
        if final:
            self._check_arguments(cut)
        return _read_message(self._message(final), cut, "the streamed message")

    def _check_arguments(self, cut: bool) -> None:
        """Refuse a call whose argument text is not an object, naming where it began."""
        order = sorted(self._calls)
        for at in order:
            call = self._calls[at]
            if cut and at == order[-1]:
                continue
            try:
                parse_arguments("".join(call.pieces))
            except ValueError as err:
                raise StreamError(
                    f"tool call {at} (started in event {call.started}): {err}", call.started, None
                ) from None

    def _reply(self, messages: list[Message]) -> Reply:
        return _reply(messages, self._reason, self._usage, self._id)


def _message_of(data: dict[str, Any], fail: Any) -> dict[str, Any]:
    """``delta.message`` of an event, or ``{}`` where the event has none."""
    delta = data.get("delta")
    if delta is None:
        return {}
    if not isinstance(delta, dict):
        raise fail(f"the delta is not an object: {short(delta)}")
    message = delta.get("message")
    if message is None:
        return {}
    if not isinstance(message, dict):
        raise fail(f"the delta's message is not an object: {short(message)}")
    return message


def _model_field(value: object, name: str | None) -> Any:
    """A model's fields (``name`` None), or its field ``name``; None where only the dump can tell.

    Only pydantic models without extra fields: a dict or anything else where
    a model belongs, or a model with extras, is read from the dump.
    """
    if value is None or getattr(value, "__pydantic_extra__", True):
        return None  # an extra field bearing a read name is what the dump writes there
    found = value.__dict__
    return found if name is None else found.get(name)


def _whole(call: _Call) -> bool:
    """Whether a call's arguments are complete: an object, or none once the call ended."""
    text = "".join(call.pieces)
    if text == "" or text.isspace():
        return call.ended
    try:
        parse_arguments(text)
    except ValueError:
        return False
    return True
