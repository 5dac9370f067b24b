"""What a Mistral request leaves out of a transcript, and why: the notes ``left_out`` gives."""

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
from .._chat_omitted import kept_item_left_out, media_left_out, own_items, sendable
from .._errors import (
    Unsupported,
    not_a_message,
)
from .._left_out import LeftOut, duplicate
from .._newer import Unknown, newer_notes
from ._assistant import _Kept, _runnable
from ._request import _MEDIA, _moved
from ._wire import _INPUT_KEYS, DIALECT, PROTOCOL


def left_out(
    messages: Iterable[Message | UnknownMessage], *, unsupported: Unsupported = "raise"
) -> list[LeftOut]:
    """What :func:`to_request` of ``messages`` does not send, message by message.

    Named: a system message after the first turn, which goes first
    (``"position"``); another provider's items (``"items"``), and the fields of a kept
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
    block a newer writer made, a call without its result). A message of a
    role this version does not know is named (``"unknown"``), as ``to_request``
    with ``unknown="skip"`` leaves it out, and so is each field a newer
    writer added to a known message, which no request sends.
    """
    moved: list[int] = []

    def walk(transcript: list[Any], *, unsupported: Unsupported, unknown: Unknown) -> None:
        moved.extend(_moved(transcript, unsupported, unknown))

    transcript = sendable(messages, unsupported, walk)
    out: list[LeftOut] = []
    kept: _Kept | None = None
    copies = repeated(transcript)
    for index, message in enumerate(transcript):
        if copies and index in copies:
            out.append(duplicate(index, copies[index]))
            continue  # walked past, as to_request does
        out += newer_notes(index, message)
        if isinstance(message, UnknownMessage):
            continue  # walked past: the next message follows what this one would
        previous, kept = kept, None
        if isinstance(message, AssistantMessage):
            _left_out_thinking(index, message, previous, out)
        elif isinstance(message, ProviderOutputItemsMessage):
            for place, item in own_items(index, message, out, PROTOCOL, DIALECT):
                out += kept_item_left_out(index, place, item, _INPUT_KEYS, _runnable)
                kept = _Kept(item)
        elif isinstance(message, SystemMessage):
            kept = previous
            if index in moved:
                out.append(LeftOut(index, "position", _MOVED))
        elif isinstance(message, UserMultimodalMessage):
            out += media_left_out(index, message, _MEDIA, _OTHER_AUDIO)
        elif not isinstance(message, (UserMessage, ToolResultMessage)):
            raise not_a_message(index, message)
    return out


_MOVED: Final = (
    f"a system message after the first turn goes first, joined into one: {DIALECT} refuses "
    "a system message after an assistant or tool message"
)

_OTHER_AUDIO: Final = "takes audio only inline, as WAV or MP3"

_REDACTED: Final = f"{DIALECT} cannot read redacted thinking"

_UNSIGNED: Final = f"the thinking goes as a {DIALECT} thinking chunk, without its signature"

_NO_SIGNATURE: Final = f"{DIALECT} has no place for a thinking signature"

_EDITED_THINKING: Final = (
    "the kept message before this turn is sent in its place, with its own thinking"
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
