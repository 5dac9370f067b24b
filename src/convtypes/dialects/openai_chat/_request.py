"""The Chat Completions request: a transcript walked into ``messages``, and what that leaves out."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..._content import AudioBase64Block, ImageBase64Block, ImageUrlBlock, TextBlock
from ..._conversation import positional_call_id
from ..._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ..._unknown import UnknownBlock, UnknownMessage
from .._copy import copy_object
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
from .._json import arguments_json
from .._left_out import LeftOut, in_item, media_kind
from .._media import image_type
from .._send import data_url, tool_result_text, transcript_of
from ._assistant import _call_name, _Kept, _runnable, _turn
from ._omitted import _CUT_CALL, _kept_notes, _thinking_notes, _uncarried_notes
from ._wire import (
    _INPUT_KEYS,
    _REASONING_KEYS,
    AUDIO_FORMATS,
    DETAILS,
    DIALECT,
    IMAGE_TYPES,
    PROTOCOL,
    Reasoning,
)

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
