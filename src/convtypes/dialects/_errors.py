"""The dialects' errors, and the boundary that turns any failure into one.

A reader (``from_response``, ``feed``, ``result``) lets nothing out but a
:class:`ResponseError` or a :class:`StreamError`; a request builder raises
other :class:`DialectError` subclasses for a transcript it cannot send. The
helpers at the end word the refusals so every dialect says them alike.
"""

from __future__ import annotations

import reprlib
from typing import Any, Final, Literal, NoReturn

from .._unknown import UnknownBlock, UnknownMessage

Unsupported = Literal["raise", "note"]
"""What ``to_request`` does with a block its dialect cannot carry.

``"raise"`` (the default) raises :class:`UnsupportedContent`; ``"note"`` sends
a short text part in its place that says what was left out, so the model
knows the user attached something it cannot see. Any other value raises
``ValueError`` when ``to_request`` is called.
"""


UNSUPPORTED_CHOICES: Final = ("raise", "note")


def check_unsupported(unsupported: object) -> None:
    """Refuse an ``unsupported=`` value other than ``"raise"`` and ``"note"``.

    A plain ``ValueError``, not a ``DialectError``: the call is wrong, not
    the transcript, and a caller who handles ``DialectError`` should not
    mistake one for the other.
    """
    if type(unsupported) is not str or unsupported not in UNSUPPORTED_CHOICES:
        raise ValueError(f'unsupported= must be "raise" or "note", not {unsupported!r:.80}')


class DialectError(ValueError):
    """A transcript, response or stream that a dialect cannot translate.

    ``index`` is the position of the message (in ``to_request``) or of the
    event (in an ``Accumulator``) the error concerns, or ``None`` when it
    concerns the whole input.
    """

    def __init__(self, text: str, index: int | None = None) -> None:
        super().__init__(text)
        self.index = index

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle calls the class with ``args`` (the text alone), which the
        # subclasses' own signatures refuse: a worker's error would break a
        # process pool instead of reaching the caller. Rebuild without
        # ``__init__``, with every attribute as it was.
        return (rebuild_error, (type(self), self.args, self.__dict__))


def rebuild_error(kind: type[BaseException], args: tuple[Any, ...], state: dict[str, Any]) -> Any:
    """An error of ``kind`` with ``args`` and attributes ``state``, as it was pickled."""
    error = kind.__new__(kind, *args)
    error.args = args
    error.__dict__.update(state)
    return error


class UnsupportedContent(DialectError):
    """A message or block the dialect has no place for.

    ``index`` is the message's position in the transcript and ``block`` the
    block itself (an ``UnknownMessage`` when the whole message is one a newer
    writer made).
    """

    def __init__(self, text: str, index: int, block: object) -> None:
        super().__init__(text, index)
        self.block = block


class UnmatchedResult(DialectError):
    """A tool result that answers no call of the assistant turn before it."""

    def __init__(self, text: str, index: int, tool_use_id: str) -> None:
        super().__init__(text, index)
        self.tool_use_id = tool_use_id


class UnansweredCall(DialectError):
    """A tool call left without its result when a later user message comes.

    ``index`` is the position of the message that made the call (as in
    ``check_conversation``'s ``unanswered-call``), ``call_id`` the id a
    result would answer it by (``positional_call_id`` of its place for a
    call without an id), and ``user_index`` the position of the user message.
    Calls still open at the end of the transcript are not refused: the
    caller may be about to run them.
    """

    def __init__(self, text: str, index: int, call_id: str, user_index: int) -> None:
        super().__init__(text, index)
        self.call_id = call_id
        self.user_index = user_index


class ResponseError(DialectError):
    """A provider response this dialect cannot turn into messages."""


class StreamError(DialectError):
    """A malformed stream; ``event`` is the event at fault (``None`` at the end)."""

    def __init__(self, text: str, index: int | None, event: object) -> None:
        super().__init__(text, index)
        self.event = event


# --- the boundary of from_response, feed and result -----------------------------

LEAKS: Final = (
    TypeError,
    AttributeError,
    KeyError,
    IndexError,
    ValueError,  # WireError and DialectError among them
    RecursionError,
)
"""What reading a malformed response may raise short of a ``DialectError``.

Each public reader catches these at its boundary and raises a
``ResponseError`` or ``StreamError`` with the original as ``__cause__``. The
checks inside are meant to leave nothing for it to catch; it is there so
that a shape they missed is still a ``DialectError`` to the caller. Nothing
else is caught: ``KeyboardInterrupt``, ``MemoryError`` and the like go on.
"""

_SHORT: Final = reprlib.Repr()
_SHORT.maxlevel = 3
_SHORT.maxstring = 60
_SHORT.maxother = 60


def short(value: object, limit: int = 80) -> str:
    """A repr of ``value`` for an error message, bounded in depth and length.

    ``f"{value!r:.80}"`` builds the whole repr first, which for a value from
    the network may be huge, or nested past the recursion limit.
    """
    try:
        text = _SHORT.repr(value)
    except Exception:  # a broken __repr__ of a caller's object
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def label(value: object, limit: int = 60) -> str:
    """A name or reason from a response, as it reads: text bare, anything else by ``short``."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[: limit - 3] + "..."
    return short(value, limit)


def _why(err: BaseException) -> str:
    if isinstance(err, DialectError):
        return str(err)
    if isinstance(err, RecursionError):
        return "it nests too deeply to read"
    return f"it is malformed ({type(err).__name__}: {short(str(err), 160)})"


def reported_error(data: dict[str, Any], expected: str) -> str | None:
    """What a provider's error body says, when ``data`` is one in place of a reply.

    A body with a non-null ``error`` and without the ``expected`` field of a
    reply is an error: an HTTP error body handed to a reader, or what a
    server streams when it fails part-way. ``None`` for anything else.
    """
    error = data.get("error")
    if error is None or expected in data:
        return None
    return f"the provider reported an error: {short(error, 200)}"


def raise_response_failure(err: BaseException) -> NoReturn:
    """Raise ``err`` as a ``ResponseError``: itself if it is one, else one caused by it."""
    if isinstance(err, ResponseError):
        raise err
    raise ResponseError(f"the response cannot be read: {_why(err)}") from err


def raise_stream_failure(
    err: BaseException, noun: str, number: int | None, event: object
) -> NoReturn:
    """Raise ``err``, met in event ``number`` (``None``: at the end), as a ``StreamError``."""
    if isinstance(err, StreamError):
        raise err
    if isinstance(err, DialectError) and number is None:
        raise StreamError(str(err), None, None) from err
    where = f"{noun} {number}" if number is not None else "the stream"
    raise StreamError(f"{where}: {_why(err)}", number, event) from err


# --- describing what was refused -------------------------------------------


def block_tag(block: object) -> str:
    """The wire tag of a content block (``"audio_url"``), or its class name."""
    if isinstance(block, UnknownBlock):
        return block.type
    config = getattr(type(block), "__struct_config__", None)
    tag = getattr(config, "tag", None)
    return tag if isinstance(tag, str) else type(block).__name__


def unknown_message(index: int, message: UnknownMessage) -> UnsupportedContent:
    return UnsupportedContent(
        f"message {index}: role {message.role!r} is unknown to this version of convtypes "
        "and is never forwarded to a provider",
        index,
        message,
    )


def not_a_message(index: int, message: object) -> TypeError:
    """A wrong argument, not a transcript a provider refuses: ``TypeError``, as in the core."""
    return TypeError(f"message {index}: not a convtypes message: {short(message)}")


def unsupported_block(
    dialect: str, index: int, position: int, block: object, why: str
) -> UnsupportedContent:
    return UnsupportedContent(
        f"message {index}, block {position} ({block_tag(block)}): {dialect} {why}", index, block
    )


def unknown_block(
    dialect: str, index: int, position: int, block: UnknownBlock
) -> UnsupportedContent:
    return unsupported_block(
        dialect, index, position, block, "cannot send a block type this version does not know"
    )


def note_text(dialect: str, block: object) -> str:
    """The text sent in place of a block under ``unsupported="note"``."""
    return f"[{block_tag(block)} attachment not sent: {dialect} does not accept it]"
