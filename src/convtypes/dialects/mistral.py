"""Mistral chat completions, as the ``mistralai`` SDK sends and reads them.

``to_request`` builds ``{"messages": [...]}`` for ``chat.complete`` and
``chat.stream``; ``tools_to_request`` the ``tools`` and ``tool_choice``
fields; ``from_response``, ``read_reply`` and :class:`Accumulator` turn a
``ChatCompletionResponse``, or its stream of ``CompletionChunk`` events,
into messages (from the first choice); ``left_out`` names what a request
leaves out of a transcript.

What a reply becomes: one ``AssistantMessage`` with the text, the function
calls, and the reasoning of Mistral's reasoning models (``thinking`` chunks
in the content) as unsigned thinking blocks. When the message holds
more than that turn can say, so that replaying the turn would send
something else than what came (reference chunks and other content chunks,
a signed or interleaved thinking chunk, argument text spelled otherwise
than convtypes' compact JSON, which Mistral's usually is, a call cut off at
the token limit), the message as sent is kept first, as a
``ProviderOutputItemsMessage`` of protocol ``mistral`` holding one item,
the message object. This dialect replays that item in place of the turn;
the others drop it and send the ``AssistantMessage``.

What changes on the way out, so that Mistral's rules on a conversation
hold (the order of roles and the pairing of calls that the API checks):

- Every system message goes first, joined into one (Mistral refuses a
  system message after an assistant or tool message).
- The assistant messages and provider items of one turn go as one
  assistant message: the calls of a turn must all be answered before the
  next assistant message. Thinking goes as ``thinking`` chunks before the
  text; redacted thinking and signatures are left out.
- Tool-call ids are exactly nine letters and digits, as Mistral requires:
  a call whose id has another shape gets one made from its place, and its
  results follow it. Each result is a ``tool`` message naming its call's
  tool. A tool name Mistral refuses (another provider's, with a dot, say)
  goes with ``_`` for each character it refuses, cut to 64.
- A user message right after tool results gets an assistant message
  ``"OK"`` before it, since Mistral refuses a user message after a tool
  message (the workaround pydantic-ai uses).
- An assistant message last in the request, without calls, goes with
  ``"prefix": true``: Mistral continues it (and its reply repeats it).
- Images go as ``image_url`` chunks (base64 as ``data:`` URLs), base64 WAV
  or MP3 audio as ``input_audio``; video, other audio and other images
  raise ``UnsupportedContent``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .._content import AudioBase64Block, ImageBase64Block, ImageUrlBlock, TextBlock
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
    not_a_message,
    note_text,
    raise_response_failure,
    reported_error,
    short,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from ._ids import Alnum9Ids, CallIds, usable_alnum9
from ._json import arguments_json, built, field, parse_arguments, plain, tool_call
from ._left_out import LeftOut, in_item
from ._media import image_type
from ._objects import in_declared_order
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
from ._tools import ToolSpec, checked_tools, object_parameters, spelled_name

__all__ = [
    "PROTOCOL",
    "Accumulator",
    "from_response",
    "left_out",
    "read_reply",
    "to_request",
    "tools_to_request",
]

DIALECT: Final = "Mistral"
PROTOCOL: Final = "mistral"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
DETAILS: Final = frozenset({"low", "high", "auto"})
AUDIO_TYPES: Final = frozenset(
    {"audio/wav", "audio/x-wav", "audio/wave", "audio/mpeg", "audio/mp3"}
)

BRIDGE: Final = "OK"
"""The assistant text sent between tool results and a user message."""

SYSTEM_JOIN: Final = "\n\n"
"""What separates system messages joined into the first one."""

# What an assistant message in a request takes, of what a reply's message
# holds: the rest (fields a newer API adds) has no input field.
_INPUT_KEYS: Final = frozenset({"role", "content", "tool_calls", "prefix"})
_CUT_REASONS: Final = frozenset({"length", "model_length"})
# A schema's own labels, which constrain nothing: Mistral's grammar refuses them.
_SCHEMA_LABELS: Final = ("$schema", "$id")


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
        elif isinstance(block, AudioBase64Block):
            if block.media_type.lower() in AUDIO_TYPES:
                out.append({"type": "input_audio", "input_audio": block.data})
                continue
            why = f"takes audio only as base64 WAV or MP3, not {block.media_type!r}"
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        elif block.is_audio():  # type: ignore[attr-defined]
            why = "takes audio only inline, as base64 WAV or MP3"
        else:
            why = "has no chunk for video"
        if unsupported == "note":
            out.append({"type": "text", "text": note_text(DIALECT, block)})
        else:
            raise unsupported_block(DIALECT, index, position, block, why)
    return out


def _thinking_chunk(text: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": [{"type": "text", "text": text}]}


def _flat_content(message: AssistantMessage) -> list[Any]:
    """The content pieces of a turn: its thinking chunks, then its text (a ``str``)."""
    pieces: list[Any] = [
        _thinking_chunk(block.text)
        for block in message.thinking
        if block.redacted_data is None and block.text
    ]
    if message.content:
        pieces.append(message.content)
    return pieces


def _call_out(call_id: str | None, call: ToolCall) -> dict[str, Any]:
    function = {"name": spelled_name(call.name), "arguments": arguments_json(call.arguments)}
    if call_id is None:
        return {"type": "function", "function": function}
    return {"id": call_id, "type": "function", "function": function}


class _Turn:
    """One assistant message of the request, gathered from a run of messages and items.

    ``pieces`` are its content in order: text as ``str``, chunks as dicts;
    ``calls`` its tool calls as the API takes them.
    """

    __slots__ = ("calls", "pieces")

    def __init__(self) -> None:
        self.pieces: list[Any] = []
        self.calls: list[Any] = []

    def flat(self, index: int, message: AssistantMessage, ids: CallIds) -> None:
        self.pieces += _flat_content(message)
        self.calls += [
            _call_out(ids.call(index, position, call), call)
            for position, call in enumerate(message.tool_calls)
        ]

    def after_kept(self, index: int, message: AssistantMessage, kept: _Kept, ids: CallIds) -> None:
        """The turn read from a kept message: only what it adds to the message."""
        if message.content and message.content != kept.text:
            self.pieces.append(message.content)
        self.calls += [
            _call_out(ids.call(index, position, call), call)
            for position, call in enumerate(message.tool_calls)
            if not kept.holds(position, call)
        ]

    def item(self, index: int, item: dict[str, Any], ids: CallIds) -> None:
        """A kept message, as it came: its content, and its calls with ids entered in ``ids``."""
        content = item.get("content")
        if isinstance(content, str):
            if content:
                self.pieces.append(content)
        elif isinstance(content, list):
            self.pieces += [copy_json(chunk) for chunk in content]
        calls = item.get("tool_calls")
        if isinstance(calls, list):
            self.calls += _replayed_calls(index, calls, ids)

    def message(self) -> dict[str, Any] | None:
        """The assistant message, or ``None`` when the turn has nothing to send."""
        turn: dict[str, Any] = {"role": "assistant"}
        if len(self.pieces) == 1 and isinstance(self.pieces[0], str):
            turn["content"] = self.pieces[0]
        elif self.pieces:
            turn["content"] = [
                {"type": "text", "text": piece} if isinstance(piece, str) else piece
                for piece in self.pieces
            ]
        elif not self.calls:
            return None
        if self.calls:
            turn["tool_calls"] = self.calls
        return turn


def _runnable(call: dict[str, Any]) -> bool:
    """Whether a kept call is one a backend could run: not one cut off at the token limit."""
    if call.get("type", "function") != "function":
        return True
    function = call.get("function")
    arguments = function.get("arguments") if isinstance(function, dict) else None
    if isinstance(arguments, dict):
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
    """A kept message's calls, each with an id Mistral takes, entered in ``ids``.

    A call cut off at the token limit is left out: no result will answer
    it. A call keeps the id it came with when that id is nine letters and
    digits and no earlier call of the request has it; otherwise it gets one
    made from its place, and a result answers it as it answers its
    ``ToolCall``: by the id it came with, or by its place.
    """
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
        if isinstance(call_id, str) and ids.free(call_id) and usable_alnum9(call_id):
            ids.carried(index, call_id, call_id, name)
        else:
            key = call_id if isinstance(call_id, str) else positional_call_id(position)
            call["id"] = ids.fresh(index, position, key, name)
        if call.get("type", "function") == "function":
            position += 1
        out.append(call)
    return out


def _said(item: dict[str, Any]) -> str:
    """The text of a kept message: its string content, or its text chunks joined."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        chunk["text"]
        for chunk in content
        if isinstance(chunk, dict)
        and chunk.get("type") == "text"
        and isinstance(chunk.get("text"), str)
    )


def _thoughts(item: dict[str, Any]) -> list[str]:
    """The text of each thinking chunk of a kept message, as the flat turn reads them."""
    content = item.get("content")
    if not isinstance(content, list):
        return []
    out: list[str] = []
    for chunk in content:
        if isinstance(chunk, dict) and chunk.get("type") == "thinking":
            text = _thinking_text(chunk.get("thinking"))
            if text:
                out.append(text)
    return out


def _thinking_text(inner: object) -> str:
    if not isinstance(inner, list):
        return ""
    return "".join(
        part["text"]
        for part in inner
        if isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    )


class _Kept:
    """What a kept ``mistral`` message already says: its text, thinking and calls."""

    __slots__ = ("calls", "text", "thoughts")

    def __init__(self, item: dict[str, Any]) -> None:
        self.text = _said(item)
        self.thoughts = _thoughts(item)
        raw_calls = item.get("tool_calls")
        self.calls: list[tuple[str | None, str]] = []
        for call in raw_calls if isinstance(raw_calls, list) else ():
            if (
                isinstance(call, dict)
                and call.get("type", "function") == "function"
                and _runnable(call)
            ):
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
    """The conversation part of a chat completions request body: ``{"messages": [...]}``.

    The caller adds ``model`` and the rest (``tools_to_request`` gives the
    tool fields). External tool results are fenced unless
    ``fence_external`` is False. See the module for how the transcript is
    shaped to Mistral's rules. The request shares no mutable value with the
    transcript.
    """
    check_unsupported(unsupported)
    transcript = transcript_of(messages, "to_request")
    ids = Alnum9Ids(transcript, usable_alnum9, DIALECT)
    system: list[str] = []
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
        if isinstance(message, SystemMessage):
            system.append(message.content)
            kept = previous  # it goes first, so the turn around it goes on
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
                    "name": spelled_name(call.name),  # as its call goes
                    "content": tool_result_text(message, fence_external),
                }
            )
        elif isinstance(message, (UserMessage, UserMultimodalMessage)):
            ids.user(index)
            if out and out[-1]["role"] == "tool":
                out.append({"role": "assistant", "content": BRIDGE})
            if isinstance(message, UserMessage):
                out.append({"role": "user", "content": message.content})
            else:
                out.append({"role": "user", "content": _parts(index, message.content, unsupported)})
        elif isinstance(message, UnknownMessage):
            raise unknown_message(index, message)
        else:
            raise not_a_message(index, message)
    if turn is not None:
        said = turn.message()
        if said is not None:
            out.append(said)
    if out and out[-1]["role"] == "assistant" and "tool_calls" not in out[-1]:
        out[-1]["prefix"] = True
    if system:
        out.insert(0, {"role": "system", "content": SYSTEM_JOIN.join(system)})
    return {"messages": out}


def tools_to_request(tools: Iterable[ToolSpec], *, choice: str = "auto") -> dict[str, Any]:
    """The ``tools`` and ``tool_choice`` fields that offer ``tools`` to the model.

    Each tool goes as a ``function`` tool with its JSON Schema as
    ``parameters``, its root an object (as for OpenAI: a root ``$ref`` is
    inlined, a root without ``type`` gets ``"object"``). ``choice`` is
    ``"auto"``, ``"none"``, ``"required"`` (sent as Mistral's ``"any"``) or
    a tool's name. A root ``$schema`` or ``$id``, which label a schema and
    constrain nothing, is left out: Mistral's grammar refuses them (as
    LiteLLM found). With no tools the result is ``{}``. Raises
    :class:`~convtypes.dialects.ToolSchemaError` for a name Mistral refuses,
    a name given twice, a choice that names no tool, or a schema whose root
    is not an object.
    """
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if not specs:
        return {}
    out: list[dict[str, Any]] = []
    for spec in specs:
        function: dict[str, Any] = {"name": spec.name}
        if spec.description:
            function["description"] = spec.description
        parameters = copy_json(object_parameters(spec, DIALECT))
        for key in _SCHEMA_LABELS:
            parameters.pop(key, None)
        function["parameters"] = parameters
        out.append({"type": "function", "function": function})
    tool_choice: Any
    if chosen is not None:
        tool_choice = {"type": "function", "function": {"name": chosen}}
    else:
        tool_choice = "any" if choice == "required" else choice
    return {"tools": out, "tool_choice": tool_choice}


# --- what a request leaves out ------------------------------------------------------------


def left_out(
    messages: Iterable[Message | UnknownMessage], *, unsupported: Unsupported = "raise"
) -> list[LeftOut]:
    """What :func:`to_request` of ``messages`` does not send, message by message.

    Named: another provider's items (``"items"``), and the fields of a kept
    message that an assistant message takes no input for; a kept call cut
    off at the token limit (``"call"``); redacted thinking
    (``"redacted-thinking"``) and the signatures of thinking sent as text
    (``"signature"``); thinking beside a kept message that the message does
    not hold (``"thinking"``); images, audio and video Mistral has no chunk
    for (with ``unsupported="note"`` a note stands in their place); an
    image ``detail`` Mistral does not know, and audio's ``sample_rate``
    (``"sample-rate"``), which ``input_audio`` has no field for. Each
    ``why`` starts with the piece's place in its message (see
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
    for index, message in enumerate(transcript):
        previous, kept = kept, None
        if isinstance(message, AssistantMessage):
            _left_out_thinking(index, message, previous, out)
        elif isinstance(message, ProviderOutputItemsMessage):
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
                kept = _Kept(item)
        elif isinstance(message, SystemMessage):
            kept = previous
        elif isinstance(message, UserMultimodalMessage):
            _left_out_media(index, message, out)
        elif not isinstance(message, (UserMessage, ToolResultMessage, UnknownMessage)):
            raise not_a_message(index, message)
    return out


_NOT_A_MESSAGE: Final = "an item that is not a message object has no place in the request"
_NO_FIELD: Final = "an assistant message takes no such input field"
_CUT_CALL: Final = "a call cut off at the token limit is not sent: no result answers it"
_REDACTED: Final = f"{DIALECT} cannot read redacted thinking"
_UNSIGNED: Final = f"the thinking goes as a {DIALECT} thinking chunk, without its signature"
_NO_SIGNATURE: Final = f"{DIALECT} has no place for a thinking signature"
_EDITED_THINKING: Final = (
    "the kept message before this turn is sent in its place, with its own thinking"
)


def _left_out_item(index: int, place: int, item: dict[str, Any], out: list[LeftOut]) -> None:
    """What of a kept message its replay does not send: fields with no input, cut calls."""
    for key in item:
        if key not in _INPUT_KEYS:
            out.append(LeftOut(index, "items", f"{in_item(place, key)}: {_NO_FIELD}"))
    calls = item.get("tool_calls")
    for position, call in enumerate(calls if isinstance(calls, list) else ()):
        if isinstance(call, dict) and not _runnable(call):
            out.append(
                LeftOut(index, "call", f"{in_item(place, 'tool_calls', position)}: {_CUT_CALL}")
            )


def _left_out_thinking(
    index: int, message: AssistantMessage, kept: _Kept | None, out: list[LeftOut]
) -> None:
    """The thinking of ``message`` that does not go: redacted blocks and signatures, and,
    after a kept message (which goes in its place), each block whose text it does not hold."""
    held = list(kept.thoughts) if kept is not None else None
    for position, block in enumerate(message.thinking):
        where = f"thinking block {position}"
        if block.redacted_data is not None:
            out.append(LeftOut(index, "redacted-thinking", f"{where}: {_REDACTED}"))
            continue
        if held is not None and block.text:
            if block.text not in held:
                out.append(LeftOut(index, "thinking", f"{where}: {_EDITED_THINKING}"))
                continue
            held.remove(block.text)
        if block.signature:
            why = _UNSIGNED if kept is None and block.text else _NO_SIGNATURE
            out.append(LeftOut(index, "signature", f"{where}: {why}"))


def _left_out_media(index: int, message: UserMultimodalMessage, out: list[LeftOut]) -> None:
    for position, block in enumerate(message.content):
        where = f"block {position}"
        if isinstance(block, TextBlock):
            continue
        if isinstance(block, ImageUrlBlock):
            if block.detail not in DETAILS:
                why = f"{DIALECT} knows no image detail {block.detail!r:.40}"
                out.append(LeftOut(index, "detail", f"{where}: {why}"))
        elif isinstance(block, ImageBase64Block):
            if image_type(block.media_type) not in IMAGE_TYPES:
                why = f"{DIALECT} takes no {block.media_type!r:.40} image"
                out.append(LeftOut(index, "image", f"{where}: {why}"))
        elif isinstance(block, AudioBase64Block):
            if block.media_type.lower() not in AUDIO_TYPES:
                why = f"{DIALECT} takes no {block.media_type!r:.40} audio"
                out.append(LeftOut(index, "audio", f"{where}: {why}"))
            elif block.sample_rate is not None:
                why = "input_audio has no field for a sample rate"
                out.append(LeftOut(index, "sample-rate", f"{where}: {why}"))
        elif isinstance(block, UnknownBlock):
            continue  # refused by to_request, never sent
        elif block.is_audio():
            why = f"{DIALECT} takes audio only inline, as WAV or MP3"
            out.append(LeftOut(index, "audio", f"{where}: {why}"))
        else:
            out.append(LeftOut(index, "video", f"{where}: {DIALECT} has no chunk for video"))


# --- responses ----------------------------------------------------------------------------


def _unwrapped(chunk: object) -> object:
    """A content chunk as the API sent it.

    The SDK holds a chunk type it does not know as ``{"raw": chunk}``; the
    chunk inside is what came.
    """
    if type(chunk) is dict and len(chunk) == 1 and isinstance(chunk.get("raw"), dict):
        return chunk["raw"]
    return chunk


def _clean_chunk(chunk: object) -> object:
    chunk = _unwrapped(chunk)
    if not isinstance(chunk, dict):
        return chunk
    out = {key: value for key, value in chunk.items() if value is not None}
    if out.get("type") == "thinking" and out.get("closed") is True:
        # Every finished thinking chunk says so; the API reads one without it the same.
        del out["closed"]
    return out


def _clean_call(call: object) -> object:
    if not isinstance(call, dict):
        return call
    out = {
        key: value
        for key, value in call.items()
        if value is not None and key != "index" and not (key == "type" and value == "function")
    }
    function = out.get("function")
    if isinstance(function, dict):
        out["function"] = {key: value for key, value in function.items() if value is not None}
    return out


def _clean(message: dict[str, Any]) -> dict[str, Any]:
    """The message as sent, without empty fields, stream indices or the SDK's wrappers.

    The same message read whole or built from a stream comes out the same,
    whichever of its optional fields the provider spelled as ``null`` or
    empty, and whether a call said its (only) type.
    """
    out: dict[str, Any] = {}
    for key, value in message.items():
        if value is None or (key == "prefix" and value is False):
            continue
        if key == "content":
            if isinstance(value, list):
                value = [_clean_chunk(chunk) for chunk in value]
            if value == "" or value == []:
                continue
        elif key == "tool_calls" and isinstance(value, list):
            value = [_clean_call(call) for call in value]
            if not value:
                continue
        out[key] = value
    out["role"] = "assistant"
    return out


def _read_content(content: object, where: str) -> tuple[str, list[ThinkingBlock]]:
    """The text and the thinking of a message's content (a string or a list of chunks)."""
    if content is None:
        return "", []
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        raise ResponseError(f"{where}: 'content' should be text or a list, got {short(content)}")
    text: list[str] = []
    thinking: list[ThinkingBlock] = []
    for number, chunk in enumerate(content):
        chunk = _unwrapped(chunk)
        at = f"{where}.content[{number}]"
        if not isinstance(chunk, dict):
            raise ResponseError(f"{at}: expected an object, got {short(chunk)}")
        kind = chunk.get("type")
        if kind == "text":
            text.append(field(chunk, "text", str, at))
        elif kind == "thinking":
            inner = field(chunk, "thinking", list, at)
            pieces = []
            for part_number, part in enumerate(inner):
                part_at = f"{at}.thinking[{part_number}]"
                if not isinstance(part, dict):
                    raise ResponseError(f"{part_at}: expected an object, got {short(part)}")
                if part.get("type") == "text":
                    pieces.append(field(part, "text", str, part_at))
            said = "".join(pieces)
            if said:
                thinking.append(ThinkingBlock(text=said))
        elif not isinstance(kind, str):
            raise ResponseError(f"{at}: a chunk without a type")
    return "".join(text), thinking


def _read_call(raw: object, where: str) -> ToolCall | None:
    """The call, or ``None`` for one of a type convtypes cannot hold as a call."""
    if not isinstance(raw, dict):
        raise ResponseError(f"{where}: expected an object, got {short(raw)}")
    kind = raw.get("type")
    if kind is not None and kind != "function":
        return None
    function = field(raw, "function", dict, where)
    name = field(function, "name", str, f"{where}.function")
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            parsed = parse_arguments(arguments)
        except ValueError as err:
            raise ResponseError(f"{where}: {err}") from None
    elif isinstance(arguments, dict):
        parsed = arguments
    else:
        raise ResponseError(
            f"{where}.function: 'arguments' should be text or an object, got {short(arguments)}"
        )
    call_id = field(raw, "id", str, where, None)
    return tool_call(call_id, name, parsed, where)


def _read_message(message: dict[str, Any], cut: bool, where: str) -> list[Message]:
    """The messages for one choice's message; ``cut`` when it stopped at a token limit.

    A call cut off at the limit is not a call a backend could run: it stays
    only in the kept message.
    """
    text, thinking = _read_content(message.get("content"), where)
    raw_calls = field(message, "tool_calls", list, where, None) or []
    calls: list[ToolCall] = []
    for number, raw in enumerate(raw_calls):
        try:
            call = _read_call(raw, f"{where}.tool_calls[{number}]")
        except ResponseError:
            if cut and number == len(raw_calls) - 1:
                continue
            raise
        if call is not None:
            calls.append(call)
    assistant = built(
        lambda: AssistantMessage(content=text, tool_calls=tuple(calls), thinking=tuple(thinking)),
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
    turn.pieces = _flat_content(message)
    turn.calls = [_call_out(call.id, call) for call in message.tool_calls]
    sent = turn.message() or {}
    sent.pop("role", None)
    return sent


def _normal(message: dict[str, Any]) -> dict[str, Any]:
    """A message with what says nothing to the API taken out, to compare two of them.

    Empty content is no content; a list of plain text chunks is their text;
    a call's ``"type": "function"`` is the default.
    """
    out = dict(message)
    out.pop("role", None)
    content = out.get("content")
    if content is None or content == "" or content == []:
        out.pop("content", None)
    elif isinstance(content, list) and all(
        isinstance(chunk, dict) and chunk.keys() == {"type", "text"} and chunk["type"] == "text"
        for chunk in content
    ):
        out["content"] = "".join(str(chunk["text"]) for chunk in content)
    calls = out.get("tool_calls")
    if calls is None or calls == []:
        out.pop("tool_calls", None)
    elif isinstance(calls, list):
        out["tool_calls"] = [_clean_call(call) for call in calls]
    return out


def _carried(item: dict[str, Any], assistant: AssistantMessage) -> bool:
    """Whether replaying ``assistant`` sends what the message ``item`` said."""
    return _normal(item) == _normal(_flat(assistant))


_STOPS: Final[dict[str, StopReason]] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "model_length": "max_tokens",
    "tool_calls": "tool_use",
    "error": "other",
}


def _stop_reason(messages: list[Message], reason: object) -> StopReason:
    """The finish reason by meaning: a turn of calls is ``tool_use`` whatever ``stop`` says."""
    stop = _STOPS.get(reason, "other") if isinstance(reason, str) else "other"
    assistant = messages[-1]
    if stop == "end_turn" and isinstance(assistant, AssistantMessage) and assistant.tool_calls:
        return "tool_use"
    return stop


def _usage(raw: object) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    cached = token_count(raw, "prompt_tokens_details", "cached_tokens")
    if cached is None:
        cached = token_count(raw, "num_cached_tokens")
    return Usage(
        input_tokens=token_count(raw, "prompt_tokens"),
        output_tokens=token_count(raw, "completion_tokens"),
        cache_read_tokens=cached,
        reasoning_tokens=token_count(raw, "completion_tokens_details", "reasoning_tokens"),
        raw=raw,
    )


def _reply(messages: list[Message], reason: object, usage: object, data: dict[str, Any]) -> Reply:
    model = data.get("model")
    reply_id = data.get("id")
    return Reply(
        messages=messages,
        stop_reason=_stop_reason(messages, reason),
        provider_stop_reason=reason if isinstance(reason, str) else None,
        usage=_usage(usage),
        model=model if isinstance(model, str) else None,
        id=reply_id if isinstance(reply_id, str) else None,
    )


def _error(data: dict[str, Any]) -> str | None:
    """What an error body says, when ``data`` is one in place of a completion.

    Mistral's own errors are ``{"object": "error", "message": ...}``, and a
    request the API could not parse is answered ``{"detail": [...]}``.
    """
    error = reported_error(data, "choices")
    if error is not None or "choices" in data:
        return error
    if data.get("object") == "error":
        return f"the provider reported an error: {short(data.get('message'), 200)}"
    if "detail" in data:
        return f"the provider reported an error: {short(data.get('detail'), 200)}"
    return None


def _first_choice(data: dict[str, Any]) -> dict[str, Any]:
    choices = field(data, "choices", list, "the response")
    if not choices:
        raise ResponseError("the response has no choices")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise ResponseError(f"choices[0]: expected an object, got {short(choice)}")
    return choice


def from_response(response: object) -> list[Message]:
    """The messages to append for a ``ChatCompletionResponse`` (dict or SDK object).

    Only the first choice is read. Arguments are parsed from their JSON text
    (key order and big integers kept). What the ``AssistantMessage`` cannot
    say is kept before it as a ``mistral`` items message (see the module).
    """
    return read_reply(response).messages


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage, model and id.

    ``usage.input_tokens`` is ``prompt_tokens`` (cached tokens included),
    ``output_tokens`` is ``completion_tokens`` (thinking included).
    """
    try:
        data = plain(response, "the response")
        error = _error(data)
        if error is not None:
            raise ResponseError(error)
        choice = _first_choice(data)
        reason = choice.get("finish_reason")
        message = field(choice, "message", dict, "choices[0]")
        messages = _read_message(message, reason in _CUT_REASONS, "choices[0].message")
        return _reply(messages, reason, data.get("usage"), data)
    except LEAKS as err:
        raise_response_failure(err)


# --- streams ------------------------------------------------------------------------------


class _Call:
    """A streamed call: its id, name, argument text as it grows, and where it began.

    Mistral sends a call whole in one chunk; a server that streams its
    arguments in pieces sends the rest with the call's ``index`` and no id.
    Arguments sent as an object (not text) are kept as that object.
    """

    __slots__ = ("call_id", "kind", "name", "pieces", "position", "started", "whole")

    def __init__(
        self, call_id: str | None, name: str, kind: str | None, position: int, started: int
    ) -> None:
        self.call_id = call_id
        self.name = name
        self.kind = kind
        self.pieces: list[str] = []
        self.whole: dict[str, Any] | None = None
        self.position = position
        self.started = started

    def arguments(self) -> str:
        if self.whole is not None:
            return arguments_json(self.whole)
        return "".join(self.pieces)

    def raw(self) -> dict[str, Any]:
        """The call as the non-streamed message holds it."""
        arguments: Any = self.whole if self.whole is not None else "".join(self.pieces)
        call: dict[str, Any] = {"function": {"name": self.name, "arguments": arguments}}
        if self.call_id is not None:
            call["id"] = self.call_id
        if self.kind is not None:
            call["type"] = self.kind
        return call


class Accumulator(StreamReader):
    """Builds the messages of a streamed chat completion.

    ``feed`` every chunk of ``chat.stream``: the SDK's ``CompletionEvent``
    (or its ``data``, a ``CompletionChunk``), or the same as dicts.
    ``result()`` then equals ``from_response`` of the whole completion, and
    ``reply()`` adds the finish reason and the usage (in the last chunk).
    Content arrives as text, or as a list of chunks: reasoning models send
    ``thinking`` chunks first, then text. Tool calls usually arrive whole,
    one chunk each.
    """

    _noun = "chunk"
    _end = "a finish_reason"

    def __init__(self) -> None:
        super().__init__()
        self._pieces: list[Any] = []  # text as str, other content chunks as dicts
        self._calls: list[_Call] = []
        self._by_index: dict[int, _Call] = {}
        self._extra: dict[str, Any] = {}  # other message fields, as sent
        self._reason: str | None = None
        self._usage: object = None
        self._facts: dict[str, Any] = {}

    def _take(self, number: int, event: object) -> list[Delta]:
        if type(event) is dict:
            data = event if "choices" in event else _inside(event)
        else:
            fast = self._fast(event)
            if fast is not None:
                return fast
            data = _inside(plain(event, "a chunk"))

        def fail(reason: str) -> StreamError:
            return StreamError(f"chunk {number}: {reason}", number, event)

        choices = data.get("choices")
        if not isinstance(choices, list):
            error = _error(data)
            raise fail(error if error is not None else "has no choices list")
        if not self._facts:
            self._facts = {"id": data.get("id"), "model": data.get("model")}
        usage = data.get("usage")
        if usage is not None:
            self._usage = usage
        deltas: list[Delta] = []
        for choice in choices:
            if not isinstance(choice, dict):
                raise fail("a choice is not an object")
            if choice.get("index", 0) != 0:
                continue  # another choice: from_response reads the first only
            delta = choice.get("delta")
            reason = choice.get("finish_reason")
            if delta is None:
                delta = {}
            elif not isinstance(delta, dict):
                raise fail(f"the choice's delta is not an object: {short(delta)}")
            if self._finished:
                if reason in (None, self._reason) and _adds_nothing(delta):
                    continue
                raise fail("more of the first choice after its finish_reason")
            self._delta(delta, number, fail, deltas)
            if reason is not None:
                if not isinstance(reason, str):
                    raise fail(f"the finish_reason is not text: {short(reason)}")
                self._reason = reason
                self._finished = True
        return deltas

    def _fast(self, event: object) -> list[Delta] | None:
        """The deltas of an SDK chunk that only adds content, read from its attributes.

        Most chunks bring a piece of text, or of thinking, and nothing else;
        dumping each whole costs more than the rest of the work. Anything
        else (``None``) goes the common way, through the dump.
        """
        chunk = getattr(event, "data", event)
        choices = getattr(chunk, "choices", None)
        if (
            self._finished
            or type(choices) is not list
            or len(choices) != 1
            or getattr(chunk, "usage", None) is not None
            or (chunk is not event and "data" not in getattr(event, "__pydantic_fields_set__", ()))
        ):
            return None
        facts: dict[str, Any] | None = None
        if not self._facts:
            # The first chunk: its id and model, as the dump has them when
            # it was given them as text (as the SDK's validated chunk was).
            told = getattr(chunk, "__pydantic_fields_set__", ())
            facts = {"id": getattr(chunk, "id", None), "model": getattr(chunk, "model", None)}
            if (
                type(facts["id"]) is not str
                or type(facts["model"]) is not str
                or "id" not in told
                or "model" not in told
            ):
                return None
        choice = choices[0]
        delta = getattr(choice, "delta", None)
        if (
            getattr(choice, "index", None) != 0
            or getattr(choice, "finish_reason", None) is not None
            or not getattr(delta, "__pydantic_fields_set__", {"tool_calls"}) <= {"role", "content"}
        ):
            return None
        content = getattr(delta, "content", None)
        if type(content) is str:
            if facts is not None:
                self._facts = facts
            self._pieces.append(content)
            return [TextDelta(content)] if content else []
        if type(content) is not list:
            return None
        pieces: list[Any] = []
        deltas: list[Delta] = []
        for part in content:
            kind = getattr(part, "type", None)
            fields = getattr(part, "__pydantic_fields_set__", None)
            if kind == "text" and fields is not None and fields <= {"type", "text"}:
                text = getattr(part, "text", None)
                if type(text) is not str:
                    return None
                pieces.append(text)
                if text:
                    deltas.append(TextDelta(text))
            elif kind == "thinking" and fields is not None and fields <= {"type", "thinking"}:
                inner = getattr(part, "thinking", None)
                if type(inner) is not list:
                    return None
                texts = []
                for piece in inner:
                    text = getattr(piece, "text", None)
                    piece_fields = getattr(piece, "__pydantic_fields_set__", None)
                    if (
                        getattr(piece, "type", None) != "text"
                        or type(text) is not str
                        or piece_fields is None
                        or not piece_fields <= {"type", "text"}
                    ):
                        return None
                    # In the order the dump writes them: the order declared.
                    texts.append(
                        {"text": text, "type": "text"}
                        if in_declared_order(type(piece), "text", "type")
                        else {"type": "text", "text": text}
                    )
                    if text:
                        deltas.append(ThinkingDelta(text))
                pieces.append(
                    {"thinking": texts, "type": "thinking"}
                    if in_declared_order(type(part), "thinking", "type")
                    else {"type": "thinking", "thinking": texts}
                )
            else:
                return None
        if facts is not None:
            self._facts = facts
        self._pieces += pieces
        return deltas

    def _delta(self, delta: dict[str, Any], number: int, fail: Any, deltas: list[Delta]) -> None:
        for key, value in delta.items():
            if value is None or key == "role" or key == "index":
                continue
            if key == "content":
                if isinstance(value, str):
                    self._pieces.append(value)
                    if value:
                        deltas.append(TextDelta(value))
                elif isinstance(value, list):
                    for chunk in value:
                        self._chunk(chunk, fail, deltas)
                else:
                    raise fail(f"the delta's content is neither text nor a list: {short(value)}")
            elif key == "tool_calls":
                if not isinstance(value, list):
                    raise fail(f"the delta's tool_calls is not a list: {short(value)}")
                for call in value:
                    self._call(call, number, fail, deltas)
            else:
                self._extra[key] = value  # a field this version does not know: kept as sent

    def _chunk(self, chunk: object, fail: Any, deltas: list[Delta]) -> None:
        chunk = _unwrapped(chunk)
        if not isinstance(chunk, dict):
            raise fail(f"a content chunk is not an object: {short(chunk)}")
        kind = chunk.get("type")
        if kind == "text":
            text = chunk.get("text")
            if not isinstance(text, str):
                raise fail(f"a text chunk without text: {short(chunk)}")
            self._pieces.append(text)
            if text:
                deltas.append(TextDelta(text))
        elif kind == "thinking":
            inner = chunk.get("thinking")
            if not isinstance(inner, list):
                raise fail(f"a thinking chunk whose thinking is not a list: {short(inner)}")
            parts = []
            for part in inner:
                part = _unwrapped(part)
                if not isinstance(part, dict):
                    raise fail(f"a part of a thinking chunk is not an object: {short(part)}")
                if part.get("type") == "text":
                    text = part.get("text")
                    if not isinstance(text, str):
                        raise fail(f"a thinking text part without text: {short(part)}")
                    if text:
                        deltas.append(ThinkingDelta(text))
                parts.append(dict(part))
            self._pieces.append({**chunk, "thinking": parts})
        elif isinstance(kind, str):
            self._pieces.append(dict(chunk))
        else:
            raise fail(f"a content chunk without a type: {short(chunk)}")

    def _call(self, raw: object, number: int, fail: Any, deltas: list[Delta]) -> None:
        if not isinstance(raw, dict):
            raise fail(f"a tool-call delta is not an object: {short(raw)}")
        call_id = raw.get("id")
        index = raw.get("index")
        kind = raw.get("type")
        function = raw.get("function")
        if call_id is not None and not isinstance(call_id, str):
            raise fail(f"a tool call's id is not text: {short(call_id)}")
        if index is not None and type(index) is not int:
            raise fail(f"a tool call's index is not an integer: {short(index)}")
        if kind is not None and not isinstance(kind, str):
            raise fail(f"a tool call's type is not text: {short(kind)}")
        if function is None:
            function = {}
        elif not isinstance(function, dict):
            raise fail(f"a tool call's function is not an object: {short(function)}")
        name = function.get("name")
        if name is not None and not isinstance(name, str):
            raise fail(f"a tool call's name is not text: {short(name)}")
        arguments = function.get("arguments")
        if arguments is not None and not isinstance(arguments, (str, dict)):
            raise fail(
                f"a tool call's arguments are neither text nor an object: {short(arguments)}"
            )
        known = self._known(call_id, index, name)
        if known is None:
            if not name:
                raise fail("a tool call starts without a name")
            known = _Call(call_id, name, kind, len(self._calls), number)
            self._calls.append(known)
            if index is not None:
                self._by_index[index] = known
            deltas.append(ToolCallStart(known.position, call_id, name))
        elif name and not known.name:
            known.name = name
        if isinstance(arguments, dict):
            known.whole = arguments
            deltas.append(ToolCallDelta(known.position, arguments_json(arguments)))
        elif arguments:
            if known.whole is not None:
                raise fail(f"tool call {known.position} had whole arguments and gets more")
            known.pieces.append(arguments)
            deltas.append(ToolCallDelta(known.position, arguments))

    def _known(self, call_id: str | None, index: int | None, name: str | None) -> _Call | None:
        """The call a delta goes on, or ``None`` when it begins a new one.

        A delta with an id goes on the call of that id; one without an id on
        the call of its ``index``, or the last call. A delta that names a
        tool when that call already has a name begins a new call: a call
        sent whole without an id.
        """
        if call_id is not None:
            for call in reversed(self._calls):
                if call.call_id == call_id:
                    return call
            return None
        known = self._by_index.get(index) if index is not None else None
        if known is None and index is None and self._calls:
            known = self._calls[-1]
        if known is not None and name and known.name:
            return None
        return known

    def _content(self) -> Any:
        """The content so far as the whole message holds it: text, or a list of chunks.

        Pieces of text are joined, and so are the pieces of one thinking
        chunk; a list is used only when a chunk other than text came.
        """
        merged: list[Any] = []
        text: list[str] = []
        for piece in self._pieces:
            if type(piece) is str:
                text.append(piece)
                continue
            if text:
                merged.append("".join(text))
                text = []
            last = merged[-1] if merged else None
            if (
                isinstance(last, dict)
                and last.get("type") == "thinking"
                and piece.get("type") == "thinking"
            ):
                merged[-1] = _joined_thinking(last, piece)
            else:
                merged.append(piece)
        if text:
            merged.append("".join(text))
        if all(type(piece) is str for piece in merged):
            return "".join(merged) if merged else None
        return [
            {"type": "text", "text": piece} if type(piece) is str else piece
            for piece in merged
            if piece != ""
        ]

    def _message(self, final: bool) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self._content()}
        calls = self._calls
        if not final:
            # Only the calls whose arguments are whole: a later call has
            # begun, or the text so far is already a complete object.
            calls = [
                call for number, call in enumerate(calls) if number < len(calls) - 1 or _whole(call)
            ]
        if calls:
            message["tool_calls"] = [call.raw() for call in calls]
        message.update(self._extra)
        return message

    def _messages(self, final: bool) -> list[Message]:
        cut = self._reason in _CUT_REASONS or not final
        if final:
            self._check_arguments(cut)
        return _read_message(self._message(final), cut, "the streamed message")

    def _check_arguments(self, cut: bool) -> None:
        """Refuse a call whose argument text is not an object, naming where it began."""
        for number, call in enumerate(self._calls):
            if call.whole is not None or (cut and number == len(self._calls) - 1):
                continue
            try:
                parse_arguments("".join(call.pieces))
            except ValueError as err:
                raise StreamError(
                    f"tool call {number} (started in chunk {call.started}): {err}",
                    call.started,
                    None,
                ) from None

    def _reply(self, messages: list[Message]) -> Reply:
        return _reply(messages, self._reason, self._usage, self._facts)


def _inside(data: dict[str, Any]) -> dict[str, Any]:
    """The chunk of an event: the SDK's ``CompletionEvent`` holds it as ``data``."""
    inner = data.get("data")
    return inner if "choices" not in data and isinstance(inner, dict) else data


def _joined_thinking(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Two pieces of one streamed thinking chunk as one: their text parts joined."""
    parts: list[Any] = list(first["thinking"])
    for part in second["thinking"]:
        last = parts[-1] if parts else None
        if (
            isinstance(last, dict)
            and last.keys() == {"type", "text"}
            and last["type"] == "text"
            and isinstance(part, dict)
            and part.keys() == {"type", "text"}
            and part["type"] == "text"
        ):
            parts[-1] = {"type": "text", "text": last["text"] + part["text"]}
        else:
            parts.append(part)
    return {**first, **second, "thinking": parts}


def _adds_nothing(delta: dict[str, Any]) -> bool:
    """Whether a delta holds nothing but its role and empty or null fields."""
    return all(
        key in ("role", "index") or value is None or value == "" or value == []
        for key, value in delta.items()
    )


def _whole(call: _Call) -> bool:
    """Whether a call's arguments are complete: an object, or text that is a whole object."""
    if call.whole is not None:
        return True
    text = "".join(call.pieces)
    if text == "" or text.isspace():
        return False
    try:
        parse_arguments(text)
    except ValueError:
        return False
    return True
