"""The Chat Completions request: a transcript walked into ``messages``, and what that leaves out."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from ..._content import AudioBase64Block
from ..._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    ToolCall,
)
from ..._unknown import UnknownMessage
from .._chat_request import ChatWalk, Media, user_parts
from .._copy import copy_object
from .._errors import (
    Unsupported,
    check_unsupported,
)
from .._ids import CallIds, safe_id
from .._json import arguments_json
from .._left_out import LeftOut, in_item
from .._newer import Unknown, check_unknown
from .._send import transcript_of
from ._assistant import _REPLAY, _Kept, _turn
from ._left_out import _CUT_CALL, _kept_notes, _thinking_notes, _uncarried_notes
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


def _audio(block: AudioBase64Block) -> dict[str, Any] | None:
    audio_format = AUDIO_FORMATS.get(block.media_type.lower())
    if audio_format is None:
        return None
    return {"type": "input_audio", "input_audio": {"data": block.data, "format": audio_format}}


_MEDIA: Final = Media(
    DIALECT,
    IMAGE_TYPES,
    DETAILS,
    no_video="has no part for video",
    audio=_audio,
    no_audio="takes audio only inline, as base64 WAV or MP3",
)


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
        calls = turn["tool_calls"] = _REPLAY.calls(index, calls, ids, _cut(index, place, notes))
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


def _cut(index: int, place: int, notes: list[LeftOut] | None) -> Callable[[int], None] | None:
    """What names, in ``notes``, a kept call cut off at the token limit, if anything does."""
    if notes is None:
        return None

    def cut(at: int) -> None:
        where = in_item(place, "tool_calls", at)
        notes.append(LeftOut(index, "call", f"{where}: {_CUT_CALL}"))

    return cut


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
    unknown: Unknown = "raise",
) -> dict[str, Any]:
    """The conversation part of a Chat Completions request body: ``{"messages": [...]}``.

    The caller adds ``model`` and the rest (``tools_to_request`` gives the
    tool fields). External tool results are fenced unless
    ``fence_external`` is False. ``reasoning`` names the assistant field to
    send earlier thinking in, for servers that want it back
    (``"reasoning_content"`` for vLLM, llama.cpp and DeepSeek, ``"reasoning"``
    for others); by default thinking is not sent, as OpenAI takes none. An
    assistant message with nothing to send (no text, no call, no reasoning
    asked for) sends no turn. A message of a role this version does not
    know raises ``UnsupportedContent``, or with ``unknown="skip"`` is left
    out. The request shares no dict or list with the transcript: change it
    freely.
    """
    check_unsupported(unsupported)
    _check_reasoning(reasoning)
    check_unknown(unknown)
    return {"messages": _messages(messages, fence_external, unsupported, reasoning, None, unknown)}


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
    audio's ``sample_rate``, media noted in place under
    ``unsupported="note"``, and what a newer writer made (``"unknown"``:
    messages of a role this version does not know, which
    ``unknown="skip"`` leaves out, and fields no request sends). Raises what
    :func:`to_request` raises, but never for an unknown message.
    """
    check_unsupported(unsupported)
    _check_reasoning(reasoning)
    notes: list[LeftOut] = []
    _messages(messages, True, unsupported, reasoning, notes, "skip")
    return notes


def _messages(
    messages: Iterable[Message | UnknownMessage],
    fence_external: bool,
    unsupported: Unsupported,
    reasoning: str | None,
    notes: list[LeftOut] | None,
    unknown: Unknown,
) -> list[dict[str, Any]]:
    """The request's ``messages``, and (into ``notes``, when given) what it leaves out."""
    transcript = transcript_of(messages, "to_request" if notes is None else "left_out")
    ids = CallIds(transcript, _usable_id, DIALECT)
    return _Walk(ids, fence_external, unsupported, notes, reasoning, unknown).walk(transcript)


class _Walk(ChatWalk):
    """The walk to the Chat Completions API: one message each, a kept message replayed in place."""

    protocol = PROTOCOL
    results_first = True
    __slots__ = ()

    def assistant(self, index: int, message: AssistantMessage, previous: Any) -> Any:
        ids, notes, reasoning = self.ids, self.notes, self.thinking
        ids.assistant()
        text = message.content
        if previous is None:
            calls = _calls_out(index, enumerate(message.tool_calls), ids)
            turn = _turn(text, calls, message.thinking, reasoning)
            if calls or text or len(turn) > 2:
                self.out.append(turn)  # else nothing to say: no turn
            if notes is not None:
                notes.extend(_thinking_notes(index, message.thinking, reasoning))
            return None
        # The turn read from the kept message: send only what it adds.
        if text == previous.text:
            text = ""
        kept_calls = [
            (at, call) for at, call in enumerate(message.tool_calls) if not previous.holds(at, call)
        ]
        if text or kept_calls:
            self.out.append(_turn(text, _calls_out(index, kept_calls, ids), (), reasoning))
        if notes is not None and message.thinking != previous.thinking():
            notes.extend(_uncarried_notes(index, message.thinking, previous.thinking()))
        return None

    def item(self, index: int, place: int, item: dict[str, Any]) -> Any:
        replayed = _replayed(item, self.thinking, index, place, self.ids, self.notes)
        if replayed is not None:
            self.out.append(replayed)
        return _Kept(item)

    def parts(self, index: int, blocks: Iterable[object]) -> list[dict[str, Any]]:
        return user_parts(index, blocks, self.unsupported, self.notes, _MEDIA)

    def foreign(self, index: int, message: ProviderOutputItemsMessage, previous: Any) -> Any:
        if self.notes is not None and message.items:
            why = f"items of protocol {message.protocol!r:.40} mean nothing to {DIALECT}"
            self.notes.append(LeftOut(index, "items", why))
        return None  # another provider's state has no place here
