"""What a request does with what a newer writer made: ``unknown=``, and what it names.

A transcript synced from a device running a newer convtypes may hold
messages of a role this version does not know (``UnknownMessage``) and known
messages, blocks and calls that carry fields it does not know (kept by
lenient decoding). No request sends either: this version cannot tell what
they mean to the model. By default ``to_request`` refuses an unknown message,
as it always has; ``unknown="skip"`` leaves it out so that the conversation
can still resume. An unknown field is never sent, under either value.

``left_out`` names both with ``what="unknown"``, whatever ``unknown=`` a
request would be built with, and never raises on an unknown message.

Pairing: a skipped message is walked past as if it were not there. The
message before it stays the one the next follows (a kept reply and the
assistant message after it still go as one turn), and a tool call and its
result on either side of it stay paired, since nothing of the skipped
message stands between them in the request. A request built with
``unknown="skip"`` is therefore the one the same transcript without the
unknown messages gives. A newer role that might answer a call is no result
to this version: a call only such a message follows is refused as
``UnansweredCall`` when a user message comes, as it would be with nothing
in between, and never sent without its result. An ``UnknownBlock`` inside
a known message is refused under either value: its message is the user's,
and leaving part of it out would change what the user said.
"""

from __future__ import annotations

import itertools
from typing import Any, Final, Literal

from .._unknown import UnknownMessage
from .._value import is_carrier, unknown_fields
from ._left_out import LeftOut, pointer

__all__ = [
    "UNKNOWN_CHOICES",
    "Unknown",
    "check_unknown",
    "newer_notes",
    "next_known",
    "skipped",
]

Unknown = Literal["raise", "skip"]
"""What ``to_request`` does with a message of a role this version does not know.

``"raise"`` (the default) raises :class:`UnsupportedContent`, as before;
``"skip"`` leaves the message out of the request, and ``left_out`` names it
(``what="unknown"``). Any other value raises ``ValueError`` when
``to_request`` is called.
"""

UNKNOWN_CHOICES: Final = ("raise", "skip")

# Where each field that holds values of their own is, in a ``why``.
_PLACES: Final = {"content": "block", "tool_calls": "call", "thinking": "thinking block"}

_FIELD: Final = "a field this version of convtypes does not know is never sent"


def check_unknown(unknown: object) -> None:
    """Refuse an ``unknown=`` value other than ``"raise"`` and ``"skip"``.

    A plain ``ValueError``, as for ``unsupported=``: the call is wrong, not
    the transcript.
    """
    if type(unknown) is not str or unknown not in UNKNOWN_CHOICES:
        raise ValueError(f'unknown= must be "raise" or "skip", not {unknown!r:.80}')


def next_known(transcript: list[Any], index: int) -> Any:
    """The first message after ``index`` that is not an unknown one, or ``None`` at the end.

    What a dialect that looks ahead (for the assistant message after a kept
    reply) reads, so that a skipped message between them changes nothing.
    """
    for later in itertools.islice(transcript, index + 1, None):
        if not isinstance(later, UnknownMessage):
            return later
    return None


def skipped(index: int, message: UnknownMessage) -> LeftOut:
    """The note for an unknown message that ``unknown="skip"`` leaves out: the whole message."""
    why = (
        f"role {message.role!r:.40} is unknown to this version of convtypes; "
        'with unknown="skip" the message is not sent'
    )
    return LeftOut(index, "unknown", why)


def newer_notes(index: int, message: Any) -> list[LeftOut]:
    """What a newer writer put in ``message`` that no request sends, one note per piece.

    An unknown message as a whole (:func:`skipped`); for a known message,
    each unknown field of its own (``"at /name: "``) and of each block, call
    and thinking block it holds (``"block N at /name: "``...). Empty, at the
    cost of one lookup, for a message built without any.
    """
    if isinstance(message, UnknownMessage):
        return [skipped(index, message)]
    # A value holding one with unknown fields is a carrier itself, so a
    # message that is not one holds none anywhere.
    if not is_carrier(type(message)):
        return []
    out = [
        LeftOut(index, "unknown", f"at {pointer(key)}: {_FIELD}") for key in unknown_fields(message)
    ]
    for name in type(message)._all_nested:
        place = _PLACES.get(name, name)
        for position, value in enumerate(getattr(message, name)):
            out += [
                LeftOut(index, "unknown", f"{place} {position} at {pointer(key)}: {_FIELD}")
                for key in unknown_fields(value)
            ]
    return out
