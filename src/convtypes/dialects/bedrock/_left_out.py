"""What a Converse request leaves out of a transcript, and why."""

from __future__ import annotations

from collections.abc import Iterable

from ..._messages import Message
from ..._unknown import UnknownMessage
from .._errors import Unsupported, check_unsupported
from .._left_out import LeftOut
from .._send import transcript_of
from ._request import _build


def left_out(
    messages: Iterable[Message | UnknownMessage], *, unsupported: Unsupported = "raise"
) -> list[LeftOut]:
    """What :func:`to_request` of ``messages`` does not send, in transcript order.

    Each :class:`~convtypes.dialects.LeftOut` names the message, a fixed
    word for what is left out, and why: blank text (``"text"``), reasoning
    without a signature or a turn of reasoning alone (``"thinking"``,
    ``"redacted-thinking"``), items of other protocols and blocks of these
    items the API takes no input for (``"items"``, ``"cache-control"``), a
    cut call (``"call"``), media Converse cannot take (``"image"``,
    ``"video"``, ``"audio"``, whether ``to_request`` raises for them or sends
    a note) and fields a sent medium goes without (``"detail"``, ``"fps"``,
    ``"max-frames"``, ``"sample-rate"``). It takes ``unsupported`` as
    ``to_request`` does, and names those media under either value; and what
    a newer writer made (``"unknown"``): a message of a role this version
    does not know, which ``to_request(..., unknown="skip")`` leaves out, and
    each field no request sends. Raises what ``to_request`` raises for a
    transcript it cannot send at all, never for an unknown message.
    """
    check_unsupported(unsupported)
    notes: list[LeftOut] = []
    _build(transcript_of(messages, "left_out"), True, "note", None, notes, "skip")
    notes.sort(key=lambda note: note.index)
    return notes
