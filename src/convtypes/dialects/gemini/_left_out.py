"""What a Gemini request leaves out of a transcript, and why."""

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
    """What :func:`to_request` of ``messages`` does not send, one piece at a time, in order.

    Reported, each with the index of its message: thinking that no kept
    part carries (``"thinking"``, ``"redacted-thinking"``, ``"signature"``),
    items of other protocols (``"items"``), empty text (``"text"``: an
    empty user message or text block, system messages that are all empty,
    and the empty unsigned part at the end of many Gemini streams), media
    settings Gemini has no field for (``"detail"``, ``"max-frames"``,
    ``"sample-rate"``), and with ``unsupported="note"`` each media block a
    note stands in for (``"image"``, ``"audio"``, ``"video"``), and each
    system message after the first turn (``"position"``): Gemini takes
    system text only in ``system_instruction``, ahead of every turn. A call is
    never reported for a missing signature: the transcript holds none to
    leave out. What a newer writer made is named too (``"unknown"``): a
    message of a role this version does not know, which
    ``to_request(..., unknown="skip")`` leaves out, and each field no
    request sends. It walks the transcript as :func:`to_request` does, so
    it raises what :func:`to_request` raises, but never for an unknown
    message.
    """
    check_unsupported(unsupported)
    report: list[LeftOut] = []
    _build(transcript_of(messages, "left_out"), True, unsupported, report, "skip")
    report.sort(key=_by_index)
    return report


def _by_index(piece: LeftOut) -> int:
    return piece.index
