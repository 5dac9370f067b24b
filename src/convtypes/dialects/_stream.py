"""The part of every dialect's ``Accumulator`` that is the same for all."""

from __future__ import annotations

from typing import ClassVar

from .._messages import Message
from ._errors import LEAKS, StreamError, raise_stream_failure


class StreamReader:
    """What every dialect's ``Accumulator`` shares.

    Events are numbered as they are fed, and whatever goes wrong while one
    is taken, or while the result is put together, leaves as a
    :class:`StreamError` naming the event. A dialect says what it calls an
    event (``_noun``) and what marks the end of a stream (``_end``), and
    implements ``_take`` and ``_result``; ``_take`` sets ``_finished`` when
    the end arrives.
    """

    _noun: ClassVar[str] = "event"
    _end: ClassVar[str] = "its last event"

    def __init__(self) -> None:
        self._count = 0
        self._finished = False

    def feed(self, event: object) -> None:
        """Take one streamed event (a dict or the SDK's object), in order.

        Raises :class:`StreamError` if it is malformed.
        """
        number = self._count
        self._count += 1
        try:
            self._take(number, event)
        except LEAKS as err:
            raise_stream_failure(err, self._noun, number, event)

    def result(self) -> list[Message]:
        """The messages for the whole stream; :class:`StreamError` if it did not end."""
        if not self._finished:
            raise StreamError(
                f"the stream ended after {self._count} {self._noun}s without {self._end}",
                None,
                None,
            )
        try:
            return self._result()
        except LEAKS as err:
            raise_stream_failure(err, self._noun, None, None)

    def _take(self, number: int, event: object) -> None:
        raise NotImplementedError

    def _result(self) -> list[Message]:
        raise NotImplementedError
