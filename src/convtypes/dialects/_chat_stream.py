"""Reading a chat-completions-shaped stream: the chunks of its choices, its calls checked.

OpenAI's Chat Completions and Mistral stream a reply as chunks of
``choices``, each choice a ``delta`` of the message and, at its end, a
``finish_reason``; Cohere streams events of its own. Their readers share
the end of the work: the message so far, whose calls are the ones whose
arguments are whole (:func:`calls_so_far`), read as the reply reader reads a
whole message, each call's arguments checked once the stream is done
(:class:`ChatStream`); and the first two share the reading of a chunk's
choices (:class:`ChoicesStream`), which is the hot path of a stream fed as
dicts, written once, inline, with no hook called for a piece of text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Protocol, TypeVar

from .._messages import Message
from ._errors import StreamError, short
from ._json import parse_arguments
from ._reply import Delta, TextDelta
from ._stream import StreamReader


def whole_object(text: str) -> bool:
    """Whether streamed argument text is already a complete JSON object."""
    if text == "" or text.isspace():
        return False
    try:
        parse_arguments(text)
    except ValueError:
        return False
    return True


class StreamedCall(Protocol):
    """A call as a stream reader gathers it: where it began, and its arguments so far."""

    started: int

    def whole(self) -> bool:
        """Whether its arguments are complete, so that it may show before the stream ends."""
        ...

    def unchecked(self) -> str | None:
        """The argument text to check once the stream is done; ``None`` where there is none."""
        ...


_Call = TypeVar("_Call", bound=StreamedCall)


def calls_so_far(calls: list[_Call], final: bool) -> list[_Call]:
    """The calls the message holds: all once the stream is done; before, the whole ones.

    A call shows when a later call has begun, or when its text so far is
    already a complete object.
    """
    if final:
        return calls
    return [call for number, call in enumerate(calls) if number < len(calls) - 1 or call.whole()]


class ChatStream(StreamReader):
    """A reader of a chat-completions-shaped stream; a dialect subclasses it.

    The subclass keeps the finish reason so far in ``_reason`` and says
    which reasons mean the reply was cut off at a token limit
    (``_cut_reasons``), what the message so far is (``_message``), how a
    whole message is read (``_read_message``), and which calls it has
    (``_numbered_calls``).
    """

    _cut_reasons: ClassVar[frozenset[str]]

    def __init__(self) -> None:
        super().__init__()
        self._reason: str | None = None

    def _message(self, final: bool) -> dict[str, Any]:
        """The message so far, as the whole reply would hold it."""
        raise NotImplementedError

    def _read_message(self, message: dict[str, Any], cut: bool, where: str) -> list[Message]:
        """The messages a whole reply's ``message`` gives (the reply reader's)."""
        raise NotImplementedError

    def _numbered_calls(self) -> Sequence[tuple[int, StreamedCall]]:
        """Each call so far, in order, with the number a fault names it by."""
        raise NotImplementedError

    def _messages(self, final: bool) -> list[Message]:
        cut = self._reason in self._cut_reasons or not final
        if final:
            self._check_arguments(cut)
        return self._read_message(self._message(final), cut, "the streamed message")

    def _check_arguments(self, cut: bool) -> None:
        """Refuse a call whose argument text is not an object, naming where it began.

        When the reply was ``cut`` off, its last call may be too: that one
        stays only in the kept message.
        """
        calls = self._numbered_calls()
        for number, (at, call) in enumerate(calls):
            text = call.unchecked()
            if text is None or (cut and number == len(calls) - 1):
                continue
            try:
                parse_arguments(text)
            except ValueError as err:
                raise StreamError(
                    f"tool call {at} (started in {self._noun} {call.started}): {err}",
                    call.started,
                    None,
                ) from None


class ChoicesStream(ChatStream):
    """A reader of a stream of ``choices`` chunks (OpenAI's Chat Completions, Mistral).

    A chunk as a dict with its ``choices`` is read here at once; anything
    else goes to ``_read_object`` (an SDK's object, read from its fields) and
    then to ``_unwrap`` (the object dumped, or an event around a chunk). The
    first choice's deltas go to ``_delta``, but for a piece of text alone,
    which goes straight into ``_texts``; the other choices are alternatives,
    not more of the reply.
    """

    _noun = "chunk"
    _end = "a finish_reason"

    def __init__(self) -> None:
        super().__init__()
        self._texts: list[Any] = []  # the content so far, in pieces
        self._usage: object = None
        self._facts: dict[str, Any] = {}

    def _read_object(self, event: object) -> list[Delta] | None:
        """The deltas of an SDK's object, read from its fields; ``None`` where only its
        dump can tell (it then goes to ``_unwrap``)."""
        raise NotImplementedError

    def _unwrap(self, event: object) -> tuple[dict[str, Any], object] | list[Delta]:
        """The chunk of an event that is not a dict with ``choices``, and the event a fault
        names; or its deltas, where there is nothing more to read of it."""
        raise NotImplementedError

    def _error(self, data: dict[str, Any]) -> str | None:
        """What a chunk without a choices list reports as an error, if it is one."""
        raise NotImplementedError

    def _delta(self, delta: dict[str, Any], number: int, fail: Any, deltas: list[Delta]) -> None:
        """Take a delta of the first choice; ``deltas`` gets what it adds."""
        raise NotImplementedError

    def _adds_nothing(self, delta: dict[str, Any]) -> bool:
        """Whether a delta after the finish reason says nothing (and is let pass)."""
        raise NotImplementedError

    def _take(self, number: int, event: object) -> list[Delta]:
        if type(event) is dict and "choices" in event:
            data = event  # a raw chunk as JSON: the common case, checked first
        else:
            if type(event) is not dict:
                read = self._read_object(event)
                if read is not None:
                    return read
            unwrapped = self._unwrap(event)
            if isinstance(unwrapped, list):
                return unwrapped
            data, event = unwrapped

        def fail(reason: str) -> StreamError:
            return StreamError(f"chunk {number}: {reason}", number, event)

        choices = data.get("choices")
        if not isinstance(choices, list):
            error = self._error(data)  # a server that fails part-way
            raise fail(error if error is not None else "has no choices list")
        if not self._facts:
            self._facts = {"id": data.get("id"), "model": data.get("model")}
        usage = data.get("usage")
        if usage is not None:
            self._usage = usage
        deltas: list[Delta] = []
        for choice in choices:
            if not isinstance(choice, dict):
                raise fail("a choice is not an object")
            if choice.get("index", 0) != 0:
                continue  # another choice: from_response reads the first only
            delta = choice.get("delta")
            reason = choice.get("finish_reason")
            if delta is None:
                # Azure's content-filter annotations come in choices without a
                # delta, during the stream and after its finish_reason.
                delta = {}
            elif not isinstance(delta, dict):
                raise fail(f"the choice's delta is not an object: {short(delta)}")
            if self._finished:
                if reason in (None, self._reason) and self._adds_nothing(delta):
                    continue
                raise fail("more of the first choice after its finish_reason")
            if len(delta) == 1 and type(delta.get("content")) is str:
                # Most chunks bring a piece of text and nothing else.
                text = delta["content"]
                self._texts.append(text)
                if text:
                    deltas.append(TextDelta(text))
            else:
                self._delta(delta, number, fail, deltas)
            if reason is not None:
                if not isinstance(reason, str):
                    raise fail(f"the finish_reason is not text: {short(reason)}")
                self._reason = reason
                self._finished = True
        return deltas
