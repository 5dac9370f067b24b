"""The OpenAI Chat Completions API, and the servers that speak it.

``to_request`` builds ``{"messages": [...]}``; ``left_out`` names what it
does not send; ``tools_to_request`` the ``tools`` and ``tool_choice``
fields; ``from_response``, ``read_reply`` and
:class:`Accumulator` turn a ``ChatCompletion``, or its ``ChatCompletionChunk``
stream, into messages (from the first choice).

What a reply becomes: one ``AssistantMessage`` with the text (or the
refusal's words, when the model refused), the function calls, and the
reasoning that OpenAI-compatible servers (vLLM, llama.cpp, DeepSeek, Groq)
send as ``reasoning_content`` or ``reasoning``, as an unsigned
``ThinkingBlock``. When the message holds more than that turn can say, so
that replaying the turn would send something else than what came (a
refusal, output audio, annotations, a custom tool call, a call cut off at
the token limit, argument text spelled differently from convtypes' compact
JSON), the message as sent is kept first, as a ``ProviderOutputItemsMessage``
of protocol ``openai-chat`` holding one item, the message object. This
dialect replays that item in place of the turn; the others drop it and send
the ``AssistantMessage``.

What changes on the way out (``left_out`` names each piece):

- Messages map one to one; tool calls ride on their assistant message with
  their arguments as JSON text, and each result is a ``tool`` message. An
  assistant message with nothing to send sends no turn.
- The request shares no dict or list with the transcript.
- Thinking is left out unless ``reasoning=`` names the field a server reads
  it from (OpenAI itself takes none); provider output items of other
  protocols are dropped.
- Tool-call ids are made unique and fit ``[A-Za-z0-9_-]``, at most 40 long.
- Images go as ``image_url`` parts (base64 as ``data:`` URLs); a ``detail``
  other than ``low``, ``high`` or ``auto`` is left out. Base64 WAV or MP3
  audio goes as ``input_audio``. Video, other audio, and images other than
  JPEG, PNG, GIF and WebP raise ``UnsupportedContent``.
- A kept message goes back with what the API takes as input: its content,
  refusal, tool calls and audio (by id). Annotations have no input field
  and are left out, and so is a call cut off at the token limit, which no
  result will answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, Literal

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
from ._copy import copy_object
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
from ._ids import CallIds, safe_id
from ._json import arguments_json, built, field, parse_arguments, plain, tool_call
from ._left_out import LeftOut, in_item, media_kind
from ._media import image_type
from ._objects import PLAIN, declared, dumps_as_declared, fields, flat, given
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
    "Reasoning",
    "from_response",
    "left_out",
    "read_reply",
    "to_request",
    "tools_to_request",
]

DIALECT: Final = "OpenAI Chat Completions"
PROTOCOL: Final = "openai-chat"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
DETAILS: Final = frozenset({"low", "high", "auto"})
AUDIO_FORMATS: Final = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}

Reasoning = Literal["reasoning_content", "reasoning"]
"""The assistant-message field a server reads earlier reasoning from."""

_REASONING_KEYS: Final = ("reasoning_content", "reasoning")
# What a chunk is read for from the SDK's object's fields, without its dump
# (see Accumulator._object_chunk).
_FACTS: Final = frozenset({"id", "model"})
_TEXT_OR_NONE: Final = frozenset({str, type(None)})
_MISSING: Final = object()
_INDEX_AND_FUNCTION: Final = frozenset({"index", "function"})
_CHUNK_KEYS: Final = frozenset({"choices", "usage", "type"})
_CHOICE_KEYS: Final = frozenset({"index", "delta", "finish_reason"})
_FUNCTION_OR_NONE: Final = (None, "function")
# Fields the openai SDK adds to what the API sent (``.parse()`` and the
# stream helpers); they are not part of the wire and the API refuses them.
_SDK_ONLY: Final = frozenset({"parsed"})
_SDK_ONLY_IN_FUNCTION: Final = frozenset({"parsed_arguments"})
# What an assistant message in a request may carry, of what a response's
# message holds; ``annotations`` has no input field.
_INPUT_KEYS: Final = ("role", "content", "refusal", "tool_calls", "function_call", "name")

_usable_id = safe_id(40)


def _parts(
    index: int, blocks: Iterable[object], unsupported: Unsupported, notes: list[LeftOut] | None
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            out.append({"type": "text", "text": block.text})
            continue
        if isinstance(block, ImageUrlBlock):
            image: dict[str, Any] = {"url": block.url}
            if block.detail in DETAILS:
                image["detail"] = block.detail
            elif notes is not None:
                why = f"the API knows no image detail {block.detail!r:.40}; it is left out"
                notes.append(LeftOut(index, "detail", f"block {position}: {why}"))
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
            audio_format = AUDIO_FORMATS.get(block.media_type.lower())
            if audio_format is not None:
                audio = {"data": block.data, "format": audio_format}
                out.append({"type": "input_audio", "input_audio": audio})
                if notes is not None and block.sample_rate is not None:
                    why = "input_audio has no field for a sample rate"
                    notes.append(LeftOut(index, "sample-rate", f"block {position}: {why}"))
                continue
            why = f"takes audio only as base64 WAV or MP3, not {block.media_type!r}"
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        elif block.is_audio():  # type: ignore[attr-defined]
            why = "takes audio only inline, as base64 WAV or MP3"
        else:
            why = "has no part for video"
        if unsupported == "note":
            out.append({"type": "text", "text": note_text(DIALECT, block)})
            if notes is not None:
                notes.append(
                    LeftOut(index, media_kind(block), f"block {position}: {DIALECT} {why}")
                )
        else:
            raise unsupported_block(DIALECT, index, position, block, why)
    return out


def _calls_out(
    index: int, calls: Iterable[tuple[int, ToolCall]], ids: CallIds
) -> list[dict[str, Any]]:
    return [
        {
            "id": ids.call(index, position, call),
            "type": "function",
            "function": {"name": call.name, "arguments": arguments_json(call.arguments)},
        }
        for position, call in calls
    ]


def _turn(
    text: str, calls: list[dict[str, Any]], thinking: Iterable[ThinkingBlock], reasoning: str | None
) -> dict[str, Any]:
    """An assistant turn as the API takes it: content always, unless calls stand alone."""
    if not calls:
        turn: dict[str, Any] = {"role": "assistant", "content": text}
    elif text:
        turn = {"role": "assistant", "content": text, "tool_calls": calls}
    else:
        turn = {"role": "assistant", "tool_calls": calls}
    if reasoning is not None:
        said = "".join(thought.text for thought in thinking if thought.redacted_data is None)
        if said:
            turn[reasoning] = said
    return turn


def _replayed(
    item: dict[str, Any],
    reasoning: str | None,
    index: int,
    place: int,
    ids: CallIds,
    notes: list[LeftOut] | None,
) -> dict[str, Any] | None:
    """A kept message as a request's assistant turn: what the API takes as input.

    ``content`` goes back as it came, ``null`` included, unless calls stand
    without it. A call cut off at the token limit is left out (see
    :func:`_replayed_calls`); a turn left with nothing to say is ``None``.
    The turn is the request's own: nothing in it is shared with the item.
    ``place`` is the item's position in its message, for ``notes``.
    """
    turn = {key: item[key] for key in _INPUT_KEYS if item.get(key) is not None}
    calls = turn.get("tool_calls")
    if isinstance(calls, list):
        # An empty list (vLLM writes one) is refused by the API: no calls, no field.
        calls = turn["tool_calls"] = _replayed_calls(index, place, calls, ids, notes)
        if not calls:
            del turn["tool_calls"]
            said = turn.get("content") or turn.get("refusal") or item.get("audio")
            if not said and "function_call" not in turn:
                # It held only a cut call: no turn.
                if notes is not None:
                    notes.extend(_kept_notes(index, place, item, None, None))
                return None
    audio = item.get("audio")
    if isinstance(audio, dict) and "id" in audio:
        turn["audio"] = {"id": audio["id"]}
    turn["role"] = "assistant"
    if "content" not in turn and "tool_calls" not in turn:
        turn["content"] = None
    thought = None
    if reasoning is not None:
        thought = next((key for key in _REASONING_KEYS if isinstance(item.get(key), str)), None)
        if thought is not None and item[thought]:
            turn[reasoning] = item[thought]
        else:
            thought = None
    if notes is not None:
        notes.extend(_kept_notes(index, place, item, turn, thought))
    return copy_object(turn)


def _kept_notes(
    index: int,
    place: int,
    item: dict[str, Any],
    turn: dict[str, Any] | None,
    thought: str | None,
) -> list[LeftOut]:
    """What of a kept message its replayed ``turn`` does not send (its cut calls aside).

    ``thought`` is the item's reasoning field that went out, if one did.
    A field that says nothing (null, empty) is not named.
    """
    out: list[LeftOut] = []
    for key, value in item.items():
        if key in ("role", "tool_calls") or value is None or value in ("", [], {}):
            continue
        where = in_item(place, key)
        if key in _REASONING_KEYS:
            if key != thought:
                out.append(LeftOut(index, "thinking", f"{where}: {_REASONING_NOT_SENT}"))
        elif turn is not None and key in turn:
            continue
        elif key == "annotations":
            out.append(LeftOut(index, "annotations", f"{where}: {_ANNOTATIONS}"))
        elif key == "audio":
            out.append(LeftOut(index, "audio", f"{where}: {_AUDIO_WITHOUT_ID}"))
        elif key not in ("content", "refusal"):
            why = "the API takes no such field on an assistant message"
            out.append(LeftOut(index, "items", f"{where}: {why}"))
    return out


_REASONING_NOT_SENT: Final = (
    f"{DIALECT} takes no reasoning back unless reasoning= names the field a server reads"
)
_ANNOTATIONS: Final = "the API takes no annotations (citations) as input"
_AUDIO_WITHOUT_ID: Final = "output audio without an id cannot be referred to"
_CUT_CALL: Final = (
    "a call cut off at the token limit is not sent: no result answers it, and the API "
    "refuses a call without its result"
)


def _runnable(call: dict[str, Any]) -> bool:
    """Whether a kept call is one a backend could run: not one cut off at the token limit.

    A function call whose argument text is not a whole JSON object never
    completed: a reader keeps it only in the item, never as a ``ToolCall``.
    """
    if call.get("type", "function") != "function":
        return True
    function = call.get("function")
    text = function.get("arguments") if isinstance(function, dict) else None
    if not isinstance(text, str):
        return False
    try:
        parse_arguments(text)
    except ValueError:
        return False
    return True


class _Kept:
    """What a kept ``openai-chat`` message already says: its text and its function calls.

    ``calls`` holds each function call's id (``None`` when it came without
    one) and name, in order: the order of the calls read from it.
    """

    __slots__ = ("calls", "item", "text")

    def __init__(self, item: dict[str, Any]) -> None:
        self.item = item
        self.text = _said(item)
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
        """Whether the kept message holds ``call``, the ``position``-th of the turn read from it.

        A call with an id is found by it; one without, by its place and name.
        """
        if call.id:
            return any(call_id == call.id for call_id, _ in self.calls)
        return position < len(self.calls) and self.calls[position] == (call.id, call.name)

    def thinking(self) -> tuple[ThinkingBlock, ...]:
        """The thinking of the turn read from the kept message."""
        for key in _REASONING_KEYS:
            value = self.item.get(key)
            if value is not None:
                return (ThinkingBlock(text=value),) if isinstance(value, str) and value else ()
        return ()


def _replayed_calls(
    index: int, place: int, kept: list[Any], ids: CallIds, notes: list[LeftOut] | None
) -> list[Any]:
    """A kept message's calls, each with an id the API takes, entered in ``ids``.

    A call cut off at the token limit is left out: no result will answer
    it, every provider refuses a call without its result, and some
    servers refuse argument text that is not JSON. A call that came with an
    id goes back with it, unless an earlier call of the request has it
    already (a server that numbers each turn's calls from ``0``). Such a
    call, and one that came without an id (some compatible servers send
    none, or an empty one), gets a fresh id, and a result answers it as it
    answers its ``ToolCall``: by the id it came with, or by
    :func:`~convtypes.positional_call_id` of its place.
    """
    out: list[Any] = []
    position = 0
    for at, call in enumerate(kept):
        if not isinstance(call, dict):
            out.append(call)
            continue
        if not _runnable(call):
            if notes is not None:
                where = in_item(place, "tool_calls", at)
                notes.append(LeftOut(index, "call", f"{where}: {_CUT_CALL}"))
            continue
        call_id = call.get("id")
        name = _call_name(call)
        if isinstance(call_id, str) and ids.free(call_id):
            ids.carried(index, call_id, call_id, name)
        elif isinstance(call_id, str) or call.get("type", "function") == "function":
            key = call_id if isinstance(call_id, str) else positional_call_id(position)
            fresh = ids.fresh(index, position, key, name)
            call = {"id": fresh, **{k: v for k, v in call.items() if k != "id"}}
        if call.get("type", "function") == "function":
            position += 1
        out.append(call)
    return out


def _check_reasoning(reasoning: object) -> None:
    if reasoning is not None and reasoning not in _REASONING_KEYS:
        raise ValueError(
            f'reasoning= must be None, "reasoning_content" or "reasoning", not {reasoning!r:.80}'
        )


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
    reasoning: Reasoning | None = None,
) -> dict[str, Any]:
    """The conversation part of a Chat Completions request body: ``{"messages": [...]}``.

    The caller adds ``model`` and the rest (``tools_to_request`` gives the
    tool fields). External tool results are fenced unless
    ``fence_external`` is False. ``reasoning`` names the assistant field to
    send earlier thinking in, for servers that want it back
    (``"reasoning_content"`` for vLLM, llama.cpp and DeepSeek, ``"reasoning"``
    for others); by default thinking is not sent, as OpenAI takes none. An
    assistant message with nothing to send (no text, no call, no reasoning
    asked for) sends no turn. The request shares no dict or list with the
    transcript: change it freely.
    """
    check_unsupported(unsupported)
    _check_reasoning(reasoning)
    return {"messages": _messages(messages, fence_external, unsupported, reasoning, None)}


def left_out(
    messages: Iterable[Message | UnknownMessage],
    *,
    unsupported: Unsupported = "raise",
    reasoning: Reasoning | None = None,
) -> list[LeftOut]:
    """What :func:`to_request` of the same transcript and options does not send.

    One :class:`~convtypes.dialects.LeftOut` per piece, in transcript order:
    thinking (all of it by default; with ``reasoning=`` the signatures and
    the redacted blocks), items of other protocols, annotations and calls
    cut off in a kept reply, an image ``detail`` the API does not know,
    audio's ``sample_rate``, and media noted in place under
    ``unsupported="note"``. Raises what :func:`to_request` raises.
    """
    check_unsupported(unsupported)
    _check_reasoning(reasoning)
    notes: list[LeftOut] = []
    _messages(messages, True, unsupported, reasoning, notes)
    return notes


def _thinking_notes(
    index: int, thinking: Iterable[ThinkingBlock], reasoning: str | None
) -> list[LeftOut]:
    """The thinking an assistant turn leaves out: every block, or with ``reasoning`` their
    signatures and the redacted blocks."""
    out: list[LeftOut] = []
    for position, block in enumerate(thinking):
        where = f"thinking block {position}"
        if block.redacted_data is not None:
            out.append(LeftOut(index, "redacted-thinking", f"{where}: {_REDACTED}"))
        elif reasoning is None:
            out.append(LeftOut(index, "thinking", f"{where}: {_REASONING_NOT_SENT}"))
        elif block.signature is not None:
            out.append(LeftOut(index, "signature", f"{where}: {_SIGNATURE}"))
    return out


_REDACTED: Final = f"{DIALECT} cannot read another provider's encrypted thinking"
_SIGNATURE: Final = "the thinking goes as text; its signature has no field"
_EDITED_THINKING: Final = (
    "an assistant message after a kept reply sends only the text and calls that reply "
    "lacks; its reasoning goes from the kept reply"
)


def _uncarried_notes(
    index: int, thinking: Iterable[ThinkingBlock], carried: Iterable[ThinkingBlock]
) -> list[LeftOut]:
    """The thinking of an assistant message after a kept reply that the reply does not hold.

    What the kept message holds goes (or is named) with it; each of its
    blocks answers for one block here.
    """
    held = list(carried)
    out: list[LeftOut] = []
    for at, block in enumerate(thinking):
        if block in held:
            held.remove(block)
        elif block.redacted_data is not None:
            out.append(LeftOut(index, "redacted-thinking", f"thinking block {at}: {_REDACTED}"))
        else:
            out.append(LeftOut(index, "thinking", f"thinking block {at}: {_EDITED_THINKING}"))
    return out


def _messages(
    messages: Iterable[Message | UnknownMessage],
    fence_external: bool,
    unsupported: Unsupported,
    reasoning: str | None,
    notes: list[LeftOut] | None,
) -> list[dict[str, Any]]:
    """The request's ``messages``, and (into ``notes``, when given) what it leaves out."""
    transcript = transcript_of(messages, "to_request" if notes is None else "left_out")
    ids = CallIds(transcript, _usable_id, DIALECT)
    out: list[dict[str, Any]] = []
    kept: _Kept | None = None
    for index, message in enumerate(transcript):
        previous, kept = kept, None
        if isinstance(message, ToolResultMessage):
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": ids.result(index, message).out_id,
                    "content": tool_result_text(message, fence_external),
                }
            )
        elif isinstance(message, AssistantMessage):
            ids.assistant()
            text = message.content
            if previous is None:
                calls = _calls_out(index, enumerate(message.tool_calls), ids)
                turn = _turn(text, calls, message.thinking, reasoning)
                if calls or text or len(turn) > 2:
                    out.append(turn)  # else nothing to say: no turn
                if notes is not None:
                    notes.extend(_thinking_notes(index, message.thinking, reasoning))
                continue
            # The turn read from the kept message: send only what it adds.
            if text == previous.text:
                text = ""
            kept_calls = [
                (at, call)
                for at, call in enumerate(message.tool_calls)
                if not previous.holds(at, call)
            ]
            if text or kept_calls:
                out.append(_turn(text, _calls_out(index, kept_calls, ids), (), reasoning))
            if notes is not None and message.thinking != previous.thinking():
                notes.extend(_uncarried_notes(index, message.thinking, previous.thinking()))
        elif isinstance(message, UserMessage):
            ids.user(index)
            out.append({"role": "user", "content": message.content})
        elif isinstance(message, UserMultimodalMessage):
            ids.user(index)
            parts = _parts(index, message.content, unsupported, notes)
            out.append({"role": "user", "content": parts})
        elif isinstance(message, SystemMessage):
            out.append({"role": "system", "content": message.content})
        elif isinstance(message, ProviderOutputItemsMessage):
            if message.protocol != PROTOCOL:
                if notes is not None and message.items:
                    why = f"items of protocol {message.protocol!r:.40} mean nothing to {DIALECT}"
                    notes.append(LeftOut(index, "items", why))
                continue  # another provider's state has no place here
            for place, item in enumerate(message.items):
                if not isinstance(item, dict):
                    if notes is not None:
                        why = "an item that is not a message object has no place in the request"
                        notes.append(LeftOut(index, "items", f"item {place}: {why}"))
                    continue
                ids.assistant()
                replayed = _replayed(item, reasoning, index, place, ids, notes)
                if replayed is not None:
                    out.append(replayed)
                kept = _Kept(item)
        elif isinstance(message, UnknownMessage):
            raise unknown_message(index, message)
        else:
            raise not_a_message(index, message)
    return out


def _call_name(call: dict[str, Any]) -> str:
    for key in ("function", "custom"):
        inner = call.get(key)
        if isinstance(inner, dict) and isinstance(inner.get("name"), str):
            return str(inner["name"])
    return ""


def tools_to_request(tools: Iterable[ToolSpec], *, choice: str = "auto") -> dict[str, Any]:
    """The ``tools`` and ``tool_choice`` fields that offer ``tools`` to the model.

    Each tool goes as a ``function`` tool with its JSON Schema as
    ``parameters``, with an object at its root as the API requires (see
    :func:`~convtypes.dialects.openai_responses.tools_to_request`; Chat
    Completions reads the rest of JSON Schema as it is). ``choice`` is
    ``"auto"``, ``"none"``, ``"required"`` or a tool's name. With no tools
    the result is ``{}``: the API refuses a ``tool_choice`` without tools.
    Raises :class:`~convtypes.dialects.ToolSchemaError` for a name the API
    refuses, a name given twice, a choice that names no tool, or a schema
    whose root is not an object.
    """
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if not specs:
        return {}
    out: list[dict[str, Any]] = []
    for spec in specs:
        function: dict[str, Any] = {"name": spec.name}
        if spec.description:
            function["description"] = spec.description
        function["parameters"] = copy_object(object_parameters(spec, DIALECT))
        out.append({"type": "function", "function": function})
    tool_choice: Any = (
        choice if chosen is None else {"type": "function", "function": {"name": chosen}}
    )
    return {"tools": out, "tool_choice": tool_choice}


# --- responses ----------------------------------------------------------------


def _clean(message: dict[str, Any]) -> dict[str, Any]:
    """The message as sent, without the SDK's additions, empty fields or stream indices.

    The same message read whole or built from a stream comes out the same,
    whichever of its optional fields the provider spelled as ``null``; an
    empty refusal or list of annotations says nothing and is left out too.
    """
    out: dict[str, Any] = {}
    for key, value in message.items():
        if (
            value is None
            or key in _SDK_ONLY
            or (key == "annotations" and value == [])
            or (key == "refusal" and value == "")
        ):
            continue
        if key == "tool_calls" and isinstance(value, list):
            value = [_clean_call(call) for call in value]
            if not value:
                continue
        out[key] = value
    return out


def _clean_call(call: object) -> object:
    if not isinstance(call, dict):
        return call
    out = {key: value for key, value in call.items() if value is not None and key != "index"}
    function = out.get("function")
    if isinstance(function, dict):
        out["function"] = {
            key: value
            for key, value in function.items()
            if key not in _SDK_ONLY_IN_FUNCTION and value is not None
        }
    return out


def _read_call(raw: object, where: str) -> ToolCall | None:
    """The call, or ``None`` for one convtypes cannot hold as a call (custom tools)."""
    if not isinstance(raw, dict):
        raise ResponseError(f"{where}: expected an object, got {short(raw)}")
    kind = raw.get("type", "function")
    if kind != "function":
        return None
    function = field(raw, "function", dict, where)
    text = field(function, "arguments", str, f"{where}.function")
    try:
        arguments = parse_arguments(text)
    except ValueError as err:
        raise ResponseError(f"{where}: {err}") from None
    call_id = field(raw, "id", str, where, None)  # some compatible servers send none
    name = field(function, "name", str, f"{where}.function")
    return tool_call(call_id, name, arguments, where)


def _reasoning_text(message: dict[str, Any], where: str) -> str:
    for key in _REASONING_KEYS:
        value = message.get(key)
        if value is not None:
            if not isinstance(value, str):
                raise ResponseError(f"{where}: {key!r} should be str, got {short(value)}")
            return value
    return ""


def _read_message(message: dict[str, Any], cut: bool, where: str) -> list[Message]:
    """The messages for one choice's message; ``cut`` when it stopped at the token limit.

    A refusal is the model's answer in words, so it becomes the text when
    there is no other. A call cut off at the token limit is not a call a
    backend could run: it stays only in the kept message.
    """
    for key, kind in (("content", str), ("refusal", str), ("audio", dict)):
        field(message, key, kind, where, None)  # a wrong type is refused, naming the field
    raw_calls = field(message, "tool_calls", list, where, None) or []
    thought = _reasoning_text(message, where)
    calls: list[ToolCall] = []
    for number, raw in enumerate(raw_calls):
        call_where = f"{where}.tool_calls[{number}]"
        try:
            call = _read_call(raw, call_where)
        except ResponseError:
            if cut and number == len(raw_calls) - 1:
                continue
            raise
        if call is not None:
            calls.append(call)
    text = _said(message)
    thinking = (ThinkingBlock(text=thought),) if thought else ()
    assistant = built(
        lambda: AssistantMessage(content=text, tool_calls=tuple(calls), thinking=thinking), where
    )
    item = _clean(message)
    if _carried(item, assistant):
        return [assistant]
    item["role"] = "assistant"
    kept = built(lambda: ProviderOutputItemsMessage(protocol=PROTOCOL, items=(item,)), where)
    return [kept, assistant]


def _said(message: dict[str, Any]) -> str:
    """The turn's words: its text, else its refusal, else the transcript of its audio."""
    for text in (message.get("content"), message.get("refusal")):
        if isinstance(text, str) and text:
            return text
    audio = message.get("audio")
    transcript = audio.get("transcript") if isinstance(audio, dict) else None
    return transcript if isinstance(transcript, str) else ""


def _carried(item: dict[str, Any], assistant: AssistantMessage) -> bool:
    """Whether replaying ``assistant`` sends what the message ``item`` said.

    Reasoning is carried by the thinking block. A ``null``, missing or empty
    ``content`` say the same to the API, beside calls or alone.
    """
    sent = {key: value for key, value in item.items() if key not in _REASONING_KEYS}
    sent.pop("role", None)
    if "tool_calls" not in sent:
        sent.setdefault("content", "")
    elif sent.get("content") == "":
        del sent["content"]
    return sent == _flat(assistant)


def _flat_calls(message: AssistantMessage) -> list[dict[str, Any]]:
    """The calls as a response holds them: no ``id`` for a call that came without one."""
    out: list[dict[str, Any]] = []
    for call in message.tool_calls:
        function = {"name": call.name, "arguments": arguments_json(call.arguments)}
        if call.id is None:
            out.append({"type": "function", "function": function})
        else:
            out.append({"id": call.id, "type": "function", "function": function})
    return out


def _flat(message: AssistantMessage) -> dict[str, Any]:
    """What ``to_request`` sends for ``message`` (ids as they are), without its role."""
    turn = _turn(message.content, _flat_calls(message), (), None)
    del turn["role"]
    return turn


def _first_choice(data: dict[str, Any]) -> dict[str, Any]:
    choices = field(data, "choices", list, "the response")
    if not choices:
        raise ResponseError("the response has no choices")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise ResponseError(f"choices[0]: expected an object, got {short(choice)}")
    return choice


def from_response(response: object) -> list[Message]:
    """The messages to append for a ``ChatCompletion`` (dict or SDK object).

    Only the first choice is read: the others are alternatives to it, not
    more of the same turn. Arguments are parsed from their JSON text (key
    order and big integers kept). What the ``AssistantMessage`` cannot say
    is kept before it as an ``openai-chat`` items message (see the module).
    """
    return read_reply(response).messages


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage, model and id."""
    try:
        data = plain(response, "the response")
        error = reported_error(data, "choices")
        if error is not None:
            raise ResponseError(error)
        choice = _first_choice(data)
        reason = choice.get("finish_reason")
        message = field(choice, "message", dict, "choices[0]")
        messages = _read_message(message, reason == "length", "choices[0].message")
        return _reply(messages, reason, data.get("usage"), data)
    except LEAKS as err:
        raise_response_failure(err)


_STOPS: Final[dict[str, StopReason]] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "content_filter",
}


def _stop_reason(messages: list[Message], reason: object) -> StopReason:
    """The finish reason by meaning: a refusal, or a turn of calls, whatever ``stop`` says."""
    stop = _STOPS.get(reason, "other") if isinstance(reason, str) else "other"
    if stop != "end_turn":
        return stop
    kept = messages[0] if isinstance(messages[0], ProviderOutputItemsMessage) else None
    assistant = messages[-1]
    if kept is not None and any(
        isinstance(item, dict) and item.get("refusal") for item in kept.items
    ):
        return "refusal"
    if isinstance(assistant, AssistantMessage) and assistant.tool_calls:
        return "tool_use"
    return "end_turn"


def _usage(raw: object) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    return Usage(
        input_tokens=token_count(raw, "prompt_tokens"),
        output_tokens=token_count(raw, "completion_tokens"),
        cache_read_tokens=token_count(raw, "prompt_tokens_details", "cached_tokens"),
        cache_write_tokens=token_count(raw, "prompt_tokens_details", "cache_write_tokens"),
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


# --- streams ------------------------------------------------------------------

# The openai SDK's ``chat.completions.stream()`` wraps each chunk in a
# ``chunk`` event and adds events that repeat what the chunks said.
_HELPER_EVENTS: Final = frozenset(
    {
        "content.delta",
        "content.done",
        "refusal.delta",
        "refusal.done",
        "tool_calls.function.arguments.delta",
        "tool_calls.function.arguments.done",
        "logprobs.content.delta",
        "logprobs.content.done",
        "logprobs.refusal.delta",
        "logprobs.refusal.done",
    }
)


class _Call:
    """A streamed call: its id, its type's object as it grows, and the chunk that began it.

    A function call's ``arguments`` text and a custom call's ``input`` come
    in pieces; for a call type this version does not know, every text field
    but the name is joined the same way, so it is kept whole all the same.
    """

    __slots__ = ("call_id", "inner", "kind", "pieces", "position", "started")

    def __init__(self, call_id: str | None, kind: str, position: int, started: int) -> None:
        self.call_id = call_id
        self.kind = kind
        self.inner: dict[str, Any] = {}
        self.pieces: dict[str, list[str]] = {}
        self.position = position
        self.started = started

    def grow(self, inner: dict[str, Any]) -> str:
        """Take a delta's object; returns the new piece of argument text."""
        added = ""
        for key, value in inner.items():
            if value is None:
                continue
            if key != "name" and isinstance(value, str):
                self.pieces.setdefault(key, []).append(value)
                if key == "arguments":
                    added = value
            else:
                self.inner[key] = value
        return added

    def grow_arguments(self, piece: str) -> None:
        """Take a delta whose function object holds only a piece of arguments text."""
        self.pieces.setdefault("arguments", []).append(piece)

    def arguments(self) -> str:
        return "".join(self.pieces.get("arguments", ()))

    def raw(self) -> dict[str, Any]:
        """The call as the non-streamed message would hold it (no ``id`` if none came)."""
        inner = dict(self.inner)
        for key, pieces in self.pieces.items():
            inner[key] = "".join(pieces)
        if self.call_id is None:
            return {"type": self.kind, self.kind: inner}
        return {"id": self.call_id, "type": self.kind, self.kind: inner}


_CHUNKS: Final[set[type]] = set()


def _chunk_fields(event: object) -> dict[str, Any] | None:
    """The fields of an SDK object that is a chunk, if they read as its dump does.

    A class with a ``type`` of its own is one of the helper's events, which
    ``_take`` tells apart by it; any other whose fields read as its dump
    does is noted in ``_CHUNKS``, so that the next object of it is not asked
    again.
    """
    found = fields(event)
    cls = type(event)
    if found is None or "type" in declared(cls) or getattr(cls, "type", None) is not None:
        return None
    _CHUNKS.add(type(event))
    return found


class Accumulator(StreamReader):
    """Builds the messages of a streamed Chat Completion.

    ``feed`` every ``ChatCompletionChunk`` (dict or SDK object), or every
    event of the SDK's ``chat.completions.stream()`` helper; ``result()``
    then equals ``from_response`` of the whole completion, and ``reply()``
    adds the finish reason and the usage (sent in a last chunk when the
    request asks for ``stream_options={"include_usage": True}``). Tool calls
    arrive keyed by ``index``: the first delta of an index brings its id and
    name, later ones more argument text. A choice without a delta (Azure's
    content-filter annotations), or with an empty one after the
    ``finish_reason``, adds nothing.
    """

    _noun = "chunk"
    _end = "a finish_reason"

    def __init__(self) -> None:
        super().__init__()
        self._content: list[str] = []
        self._refusal: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, _Call] = {}
        self._extra: dict[str, Any] = {}  # other message fields, as sent (audio, annotations)
        self._reason: str | None = None
        self._usage: object = None
        self._facts: dict[str, Any] = {}

    def _take(self, number: int, event: object) -> list[Delta]:
        if type(event) is dict and "choices" in event:
            data = event  # a raw chunk as JSON: the common case, checked first
        else:
            if type(event) is not dict:
                read = self._object_chunk(event)
                if read is not None:
                    return read
            kind = event.get("type") if isinstance(event, dict) else getattr(event, "type", None)
            if kind == "chunk":
                event = event["chunk"] if isinstance(event, dict) else getattr(event, "chunk", None)
                if type(event) is not dict:
                    read = self._object_chunk(event)  # the chunk of the helper's event
                    if read is not None:
                        return read
            elif kind in _HELPER_EVENTS:
                return []
            data = plain(event, "a chunk")

        def fail(reason: str) -> StreamError:
            return StreamError(f"chunk {number}: {reason}", number, event)

        choices = data.get("choices")
        if not isinstance(choices, list):
            error = reported_error(data, "choices")  # a server that fails part-way
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
                # Azure's content-filter annotations come in choices without a
                # delta, during the stream and after its finish_reason.
                delta = {}
            elif not isinstance(delta, dict):
                raise fail(f"the choice's delta is not an object: {short(delta)}")
            if self._finished:
                if reason in (None, self._reason) and _adds_nothing(delta):
                    continue
                raise fail("more of the first choice after its finish_reason")
            if len(delta) == 1 and type(delta.get("content")) is str:
                # Most chunks bring a piece of text and nothing else.
                text = delta["content"]
                self._content.append(text)
                if text:
                    deltas.append(TextDelta(text))
            else:
                self._delta(delta, number, fail, deltas)
            if reason is not None:
                if not isinstance(reason, str):
                    raise fail(f"the finish_reason is not text: {short(reason)}")
                self._reason = reason
                self._finished = True
        return deltas

    def _object_chunk(self, event: object) -> list[Delta] | None:
        """A chunk read from the fields of the SDK's object, as ``_take`` reads its dump.

        The chunks of every stream: its first (the id, the model, the role
        and maybe empty text), the pieces of text, refusal, reasoning and a
        call's arguments that come by the thousand, the one with the finish
        reason, and the last with the usage alone. ``None`` for any other,
        or where reading the fields might not give what the dump gives (see
        ``_objects``): it is then read from its dump. Nothing is taken until
        the whole chunk is known to read alike.
        """
        outer: Any = event.__dict__ if type(event) in _CHUNKS else _chunk_fields(event)
        try:
            choices = outer["choices"]
            usage = outer["usage"]
        except (KeyError, TypeError):  # not there, or not what it should be
            return None
        told = event.__pydantic_fields_set__  # type: ignore[attr-defined]
        # An extra field of a name read is what the dump holds there; a type
        # names a helper's event, read as _take reads those.
        extra = event.__pydantic_extra__  # type: ignore[attr-defined]
        if (
            "choices" not in told
            or type(choices) is not list
            or (extra and not _CHUNK_KEYS.isdisjoint(extra))
        ):
            return None
        facts = self._facts
        if facts and usage is None and len(choices) == 1 and not self._finished:
            piece = self._object_piece(choices[0])
            if piece is not None:
                return piece
        if not facts:
            found = given(event, _FACTS)
            if found is None or not all(type(value) in _TEXT_OR_NONE for value in found.values()):
                return None
            facts = {"id": found.get("id"), "model": found.get("model")}
        kept = None
        if usage is not None and "usage" in told:
            if fields(usage) is None or not dumps_as_declared(event, "usage", usage):
                return None
            kept = flat(usage)
            if kept is None:
                kept = plain(usage, "the usage")
        if not choices:
            deltas: list[Delta] = []
        elif len(choices) != 1 or self._finished:
            return None
        else:
            read = self._object_choice(choices[0])
            if read is None:
                return None
            deltas = read
        self._facts = facts
        if kept is not None:
            self._usage = kept
        return deltas

    def _object_piece(self, choice: object) -> list[Delta] | None:
        """The chunks that come by the thousand, read the quickest way: ``None`` for any other.

        A choice, the first, whose delta was given only a piece of text or
        refusal, or of the arguments of a call already begun, and no finish
        reason.
        """
        first: Any = choice.__dict__ if type(choice) in PLAIN else fields(choice)
        try:
            index, delta, reason = first["index"], first["delta"], first["finish_reason"]
            inner = delta.__dict__ if type(delta) in PLAIN else fields(delta)
            given_to = delta.__pydantic_fields_set__
        except (AttributeError, KeyError, TypeError):
            return None
        if (
            index != 0
            or reason is not None
            or inner is None
            or choice.__pydantic_extra__  # type: ignore[attr-defined]
            or delta.__pydantic_extra__
            or "delta" not in choice.__pydantic_fields_set__  # type: ignore[attr-defined]
            or len(given_to) != 1
        ):
            return None
        if "content" in given_to or "refusal" in given_to:
            key = "content" if "content" in given_to else "refusal"
            text = inner.get(key)
            if type(text) is not str:
                return None
            (self._content if key == "content" else self._refusal).append(text)
            return [TextDelta(text)] if text else []
        calls = inner.get("tool_calls")
        if "tool_calls" not in given_to or type(calls) is not list or len(calls) != 1:
            return None
        found = self._object_arguments(calls[0])
        if found is None:
            return None
        known, piece = found
        known.grow_arguments(piece)
        return [ToolCallDelta(known.position, piece)] if piece else []

    def _object_choice(self, choice: object) -> list[Delta] | None:
        """The deltas of a chunk's one choice, read from the SDK's object; ``None`` as above."""
        first: Any = choice.__dict__ if type(choice) in PLAIN else fields(choice)
        try:
            index, delta, reason = first["index"], first["delta"], first["finish_reason"]
        except (KeyError, TypeError):
            return None
        told = choice.__pydantic_fields_set__  # type: ignore[attr-defined]
        extra = choice.__pydantic_extra__  # type: ignore[attr-defined]
        if (extra and not _CHOICE_KEYS.isdisjoint(extra)) or type(index) is not int:
            return None
        if index != 0:
            # Another choice's piece: from_response reads the first only.
            return [] if "index" in told else None
        if "finish_reason" not in told:
            reason = None
        elif type(reason) not in _TEXT_OR_NONE:
            return None
        steps: list[tuple[str, Any]] = []
        if "delta" in told and delta is not None:
            found = self._object_steps(delta, steps)
            if not found:
                return None
        deltas: list[Delta] = []
        for key, value in steps:
            if key == "content" or key == "refusal":
                (self._content if key == "content" else self._refusal).append(value)
                if value:
                    deltas.append(TextDelta(value))
            elif key == "reasoning":
                self._reasoning.append(value)
                if value:
                    deltas.append(ThinkingDelta(value))
            elif key == "start":
                # A new function call, as ``_call`` begins one; the chunk's
                # number is the one ``feed`` is taking.
                at, call_id, name, piece = value
                position = sum(1 for other in self._calls.values() if other.kind == "function")
                begun = self._calls[at] = _Call(call_id, "function", position, self._count - 1)
                begun.inner["name"] = name
                deltas.append(ToolCallStart(position, call_id, name))
                if piece is not None:
                    begun.grow_arguments(piece)
                    if piece:
                        deltas.append(ToolCallDelta(position, piece))
            else:
                known, piece = value
                known.grow_arguments(piece)
                if piece:
                    deltas.append(ToolCallDelta(known.position, piece))
        if reason is not None:
            self._reason = reason
            self._finished = True
        return deltas

    def _object_steps(self, delta: object, steps: list[tuple[str, Any]]) -> bool:
        """What a choice's delta adds, in the order of its dump, into ``steps``; whether it can.

        Text, refusal and reasoning pieces, and a piece of the arguments of
        a call already begun; a role is passed over and a null adds nothing,
        as ``_delta`` reads them. False for anything else.
        """
        inner = delta.__dict__ if type(delta) in PLAIN else fields(delta)
        if inner is None:
            return False
        told = delta.__pydantic_fields_set__  # type: ignore[attr-defined]
        for key in declared(type(delta)):
            if key not in told:
                continue
            value = inner.get(key, _MISSING)
            if value is None or key == "role":
                continue
            if (key == "content" or key == "refusal") and type(value) is str:
                steps.append((key, value))
            elif key == "tool_calls" and type(value) is list and len(value) == 1:
                piece = self._object_arguments(value[0])
                if piece is not None:
                    steps.append((key, piece))
                    continue
                start = self._object_start(value[0])
                if start is None:
                    return False
                steps.append(("start", start))
            else:
                return False
        extra = delta.__pydantic_extra__  # type: ignore[attr-defined]
        if extra:
            for key, value in extra.items():
                if value is None:
                    continue
                if key not in _REASONING_KEYS or type(value) is not str:
                    return False
                steps.append(("reasoning", value))
        return True

    def _object_arguments(self, call: object) -> tuple[_Call, str] | None:
        """A piece of the arguments of a call already begun, read from the SDK's object."""
        try:
            found: Any = call.__dict__ if type(call) in PLAIN else fields(call)
            at, function, call_id, kind = (
                found["index"],
                found["function"],
                found["id"],
                found["type"],
            )
            inner: Any = function.__dict__ if type(function) in PLAIN else fields(function)
            piece, name = inner["arguments"], inner["name"]
            known = self._calls[at] if type(at) is int else None
        except (KeyError, TypeError):  # not there, or not what it should be
            return None
        if (
            known is None
            or known.kind != "function"
            or type(piece) is not str
            or name is not None
            or call_id is not None
            or kind not in _FUNCTION_OR_NONE
            or call.__pydantic_extra__  # type: ignore[attr-defined]
            or function.__pydantic_extra__
            or not _INDEX_AND_FUNCTION <= call.__pydantic_fields_set__  # type: ignore[attr-defined]
            or "arguments" not in function.__pydantic_fields_set__
        ):
            return None
        return known, piece

    def _object_start(self, call: object) -> tuple[int, str | None, str, str | None] | None:
        """A new function call read from the SDK's object: its index, id, name and arguments.

        What ``_call`` takes from the dump of a call not yet begun: the
        fields it was given, the id text or none, the name text, the
        arguments text or none (none adds no arguments at all), the type
        ``"function"`` or none. ``None`` for anything else.
        """
        try:
            found: Any = call.__dict__ if type(call) in PLAIN else fields(call)
            at, function = found["index"], found["function"]
            inner: Any = function.__dict__ if type(function) in PLAIN else fields(function)
            told = call.__pydantic_fields_set__  # type: ignore[attr-defined]
            named = function.__pydantic_fields_set__
            name = inner["name"] if "name" in named else None
            piece = inner["arguments"] if "arguments" in named else None
        except (AttributeError, KeyError, TypeError):  # not there, or not what it should be
            return None
        call_id = found.get("id") if "id" in told else None
        if (
            type(at) is not int
            or at in self._calls
            or not _INDEX_AND_FUNCTION <= told
            or type(name) is not str
            or (piece is not None and type(piece) is not str)
            or (call_id is not None and type(call_id) is not str)
            or ("type" in told and found.get("type") not in _FUNCTION_OR_NONE)
            or call.__pydantic_extra__  # type: ignore[attr-defined]
            or function.__pydantic_extra__
        ):
            return None
        return at, call_id, name, piece

    def _delta(self, delta: dict[str, Any], number: int, fail: Any, deltas: list[Delta]) -> None:
        for key, value in delta.items():
            if value is None or key == "role":
                continue
            if key == "content" or key == "refusal":
                if not isinstance(value, str):
                    raise fail(f"the delta's {key!r} is not text: {short(value)}")
                (self._content if key == "content" else self._refusal).append(value)
                if value:
                    deltas.append(TextDelta(value))
            elif key in _REASONING_KEYS:
                if not isinstance(value, str):
                    raise fail(f"the delta's {key!r} is not text: {short(value)}")
                self._reasoning.append(value)
                if value:
                    deltas.append(ThinkingDelta(value))
            elif key == "tool_calls":
                if not isinstance(value, list):
                    raise fail(f"the delta's tool_calls is not a list: {short(value)}")
                for call in value:
                    self._call(call, number, fail, deltas)
            elif key == "audio":
                if not isinstance(value, dict):
                    raise fail(f"the delta's audio is not an object: {short(value)}")
                self._audio(value)
            elif key == "annotations":
                if not isinstance(value, list):
                    raise fail(f"the delta's annotations is not a list: {short(value)}")
                self._extra.setdefault("annotations", []).extend(value)
            else:
                self._extra[key] = value  # a field this version does not know: kept as sent

    def _audio(self, piece: dict[str, Any]) -> None:
        """Output audio arrives in pieces: base64 data and transcript grow, the rest is set."""
        audio = self._extra.setdefault("audio", {})
        for key, value in piece.items():
            if key in ("data", "transcript") and isinstance(value, str):
                audio[key] = audio.get(key, "") + value
            elif value is not None:
                audio[key] = value

    def _call(self, call: object, number: int, fail: Any, deltas: list[Delta]) -> None:
        if not isinstance(call, dict) or type(call.get("index")) is not int:
            raise fail(f"a tool-call delta without an integer index: {short(call)}")
        at: int = call["index"]
        known = self._calls.get(at)
        kind = call.get("type") or (known.kind if known is not None else "function")
        if not isinstance(kind, str):
            raise fail(f"tool call {at}: the type is not text: {short(kind)}")
        inner = call.get(kind)
        if inner is None:
            inner = {}
        elif not isinstance(inner, dict):
            raise fail(f"tool call {at}: {kind!r} is not an object: {short(inner)}")
        name = inner.get("name")
        if name is not None and not isinstance(name, str):
            raise fail(f"tool call {at}: the name is not text: {short(name)}")
        if kind == "function" and not isinstance(inner.get("arguments", ""), (str, type(None))):
            raise fail(f"tool call {at}: the arguments are not text: {short(inner['arguments'])}")
        call_id = call.get("id")
        if call_id is not None and not isinstance(call_id, str):
            raise fail(f"tool call {at}: the id is not text: {short(call_id)}")
        if known is None:
            # Some compatible servers send a call without an id: it has none.
            if not isinstance(name, str):
                raise fail(f"tool call {at} starts without a name")
            position = sum(1 for other in self._calls.values() if other.kind == "function")
            known = self._calls[at] = _Call(call_id, kind, position, number)
            if kind == "function":
                deltas.append(ToolCallStart(position, call_id, name))
        elif call_id is not None and known.call_id is None:
            known.call_id = call_id  # the id came after the name
        elif call_id is not None and call_id != known.call_id:
            raise fail(f"tool call {at} changes its id")
        elif kind != known.kind:
            raise fail(f"tool call {at} changes its type")
        piece = known.grow(inner)
        if piece and kind == "function":
            deltas.append(ToolCallDelta(known.position, piece))

    def _message(self, final: bool) -> dict[str, Any]:
        """The message so far, as a non-streamed response would hold it."""
        message: dict[str, Any] = {"role": "assistant"}
        # A field no delta spelled out stays null, as in the whole message.
        message["content"] = "".join(self._content) if self._content else None
        if self._refusal:
            message["refusal"] = "".join(self._refusal)
        calls = [self._calls[at] for at in sorted(self._calls)]
        if not final:
            # Only the calls whose arguments are whole: a later call has
            # begun, or the text so far is already a complete object.
            calls = [
                call for number, call in enumerate(calls) if number < len(calls) - 1 or _whole(call)
            ]
        if calls:
            message["tool_calls"] = [call.raw() for call in calls]
        reasoning = "".join(self._reasoning)
        if reasoning:
            message["reasoning_content"] = reasoning
        message.update(self._extra)
        return message

    def _messages(self, final: bool) -> list[Message]:
        cut = self._reason == "length" or not final
        if final:
            self._check_arguments(cut)
        return _read_message(self._message(final), cut, "the streamed message")

    def _check_arguments(self, cut: bool) -> None:
        """Refuse a call whose argument text is not an object, naming where it began."""
        order = sorted(self._calls)
        for at in order:
            call = self._calls[at]
            if call.kind != "function" or (cut and at == order[-1]):
                continue
            try:
                parse_arguments(call.arguments())
            except ValueError as err:
                raise StreamError(
                    f"tool call {at} (started in chunk {call.started}): {err}", call.started, None
                ) from None

    def _reply(self, messages: list[Message]) -> Reply:
        return _reply(messages, self._reason, self._usage, self._facts)


def _adds_nothing(delta: dict[str, Any]) -> bool:
    """Whether a delta holds nothing but its role and empty or null fields."""
    return all(key == "role" or value is None or value == "" for key, value in delta.items())


def _whole(call: _Call) -> bool:
    """Whether a call's arguments are complete: a function's whose text is a whole object."""
    text = call.arguments()
    if call.kind != "function" or text == "" or text.isspace():
        return False
    try:
        parse_arguments(text)
    except ValueError:
        return False
    return True
