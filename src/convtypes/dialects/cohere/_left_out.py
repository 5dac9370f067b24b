"""What a Cohere request leaves out of a transcript, and why: the notes ``left_out`` gives."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from ..._conversation import repeated
from ..._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ..._unknown import UnknownMessage
from .._chat_kept import is_text_part
from .._chat_omitted import kept_item_left_out, media_left_out, own_items, sendable
from .._errors import (
    Unsupported,
    not_a_message,
)
from .._left_out import PAST_RESULTS, LeftOut, duplicate, in_item, waits_for_results
from .._newer import newer_notes
from ._assistant import _Kept, _runnable, _said
from ._request import _MEDIA, to_request
from ._wire import _INPUT_KEYS, DIALECT, PROTOCOL


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
    place); an image ``detail`` it does not know. Each ``why`` begins with
    where the piece sits in its message (see
    :class:`~convtypes.dialects.LeftOut`). ``unsupported`` is read as
    ``to_request`` reads it, and the media are named under either value.
    What ``to_request`` refuses outright (a block a newer writer made, a
    call without its result), this refuses too. A message of a role this
    version does not know is named (``"unknown"``), as ``to_request`` with
    ``unknown="skip"`` leaves it out, and so is each field a newer writer
    added to a known message, which no request sends.
    """
    transcript = sendable(messages, unsupported, to_request)
    out: list[LeftOut] = []
    kept: _Kept | None = None
    # The turn so far: whether it says anything (text or calls), and what its items
    # lose if it does not, for then it is not sent at all.
    said = False
    unsaid: list[LeftOut] = []
    copies = repeated(transcript)
    for index, message in enumerate(transcript):
        if copies and index in copies:
            out.append(duplicate(index, copies[index]))
            continue  # walked past, as to_request does
        out += newer_notes(index, message)
        if isinstance(message, UnknownMessage):
            continue  # walked past: the turn and what follows stay as they were
        previous, kept = kept, None
        if isinstance(message, AssistantMessage):
            _left_out_thinking(index, message, previous, out)
            said = said or _adds(message, previous)
            continue
        if isinstance(message, ProviderOutputItemsMessage):
            for place, item in own_items(index, message, out, PROTOCOL, DIALECT):
                out += kept_item_left_out(index, place, item, _INPUT_KEYS, _runnable)
                said = said or _says(item)
                unsaid += _unsaid(index, place, item)
                kept = _Kept(item)
            continue
        if not said:
            out += unsaid
        said, unsaid = False, []
        if isinstance(message, UserMultimodalMessage):
            out += media_left_out(index, message, _MEDIA, _OTHER_AUDIO)
        elif isinstance(message, SystemMessage):
            if waits_for_results(transcript, index, PROTOCOL):
                out.append(LeftOut(index, "position", PAST_RESULTS))
        elif not isinstance(message, (UserMessage, SystemMessage, ToolResultMessage)):
            raise not_a_message(index, message)
    if not said:
        out += unsaid
    out.sort(key=lambda piece: piece.index)  # a turn's items come before what followed them
    return out


_NO_TURN: Final = (
    "its turn has neither text nor calls, so none of it is sent: "
    f"{DIALECT} takes an assistant message only with text or calls"
)

_OTHER_AUDIO: Final = "has no content item for audio"

_REDACTED: Final = f"{DIALECT} cannot read redacted thinking"

_FOREIGN_THINKING: Final = f"{DIALECT} takes thinking only as its own replies hold it"

_EDITED_THINKING: Final = (
    "the kept reply before this turn is sent in its place, with its own thinking"
)

_NO_SIGNATURE: Final = f"{DIALECT} has no place for a thinking signature"


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
        if is_text_part(part):
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
