"""What a Responses API request leaves out of a transcript, and why."""

from __future__ import annotations

from collections.abc import Iterable

from ..._messages import Message
from ..._unknown import UnknownMessage
from .._errors import Unsupported, check_unsupported
from .._left_out import LeftOut
from ._request import _check_store, _input


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
    under ``unsupported="note"``, with ``store=False`` what only the server
    kept, and what a newer writer made (``"unknown"``): a message of a role
    this version does not know, which ``to_request(..., unknown="skip")``
    leaves out, and each field no request sends. Raises what
    :func:`to_request` raises, but never for an unknown message.
    """
    check_unsupported(unsupported)
    _check_store(store)
    notes: list[LeftOut] = []
    _input(messages, True, unsupported, store, notes, "skip")
    return notes
