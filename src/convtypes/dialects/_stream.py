"""The part of every dialect's ``Accumulator`` that is the same for all."""

from __future__ import annotations

from typing import ClassVar

from .._messages import Message
from ._errors import LEAKS, StreamError, raise_stream_failure
from ._reply import Delta, Reply


class StreamReader:
    """What every dialect's ``Accumulator`` shares.

    Events are numbered as they are fed, and whatever goes wrong while one
    is taken, or while the messages are put together, leaves as a
    :class:`StreamError` naming the event. A dialect says what it calls an
    event (``_noun``) and what marks the end of a stream (``_end``), and
    implements:

    - ``_take(number, event)``: take one event and return its deltas,
      setting ``_finished`` when the end arrives;
    - ``_messages(final)``: the messages so far; with ``final`` False only
      what is complete enough to keep (no tool call whose arguments are
      still arriving), with ``final`` True the whole reply;
    - ``_reply(messages)``: the :class:`Reply` around the final messages.
    """

    _noun: ClassVar[str] = "event"
    _end: ClassVar[str] = "its last event"

    def __init__(self) -> None:
        self._count = 0
        self._finished = False

    def feed(self, event: object) -> list[Delta]:
        """Take one streamed event (a dict or the SDK's object), in order.

        Returns what the event added to the reply, as deltas to show as they
        arrive (an empty list for an event that adds nothing visible).
        Raises :class:`StreamError` if the event is malformed.
        """
        number = self._count
        self._count += 1
        try:
            return self._take(number, event)
        except LEAKS as err:
            raise_stream_failure(err, self._noun, number, event)

    @property
    def finished(self) -> bool:
        """Whether the event that ends the stream has arrived."""
        return self._finished

    def result(self) -> list[Message]:
        """The messages for the whole stream; :class:`StreamError` if it did not end."""
        self._check_finished()
        try:
            return self._messages(True)
        except LEAKS as err:
            raise_stream_failure(err, self._noun, None, None)

    def partial(self) -> list[Message]:
        """The messages so far, at any point of the stream, even after a failed event.

        Text and thinking are kept as far as they arrived; a tool call is
        kept only once its arguments are complete. After the stream's end
        it equals :meth:`result`. This is what to append when a user cancels
        a reply half-way.
        """
        try:
            return self._messages(self._finished)
        except LEAKS as err:
            raise_stream_failure(err, self._noun, None, None)

    def reply(self) -> Reply:
        """The whole reply with its stop reason, usage, model and id.

        ``reply().messages`` equals :meth:`result`; :class:`StreamError` if
        the stream did not end.
        """
        self._check_finished()
        try:
            return self._reply(self._messages(True))
        except LEAKS as err:
            raise_stream_failure(err, self._noun, None, None)

    def _check_finished(self) -> None:
        if not self._finished:
            raise StreamError(
                f"the stream ended after {self._count} {self._noun}s without {self._end}",
                None,
                None,
            )

    def _take(self, number: int, event: object) -> list[Delta]:
        raise NotImplementedError

    def _messages(self, final: bool) -> list[Message]:
        raise NotImplementedError

    def _reply(self, messages: list[Message]) -> Reply:
        raise NotImplementedError
