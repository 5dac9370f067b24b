"""What every dialect shares: errors, call-id planning, fencing, JSON helpers.

Nothing here imports a provider SDK. A response or event given as an SDK
object is read through its ``model_dump`` method (pydantic), so the SDKs are
needed only by the caller, never by convtypes.
"""

from __future__ import annotations

import base64
import enum
import re
import reprlib
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Final, Literal, NoReturn

import msgspec

from .._conversation import positional_call_id
from .._errors import MAX_DEPTH, WireError
from .._fence import fence_external
from .._jsonvalue import ARGUMENTS_DEPTH
from .._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    ToolCall,
    ToolResultMessage,
)
from .._nesting import excess_depth
from .._unknown import UnknownBlock, UnknownMessage

__all__ = [
    "CallIds",
    "DialectError",
    "ResponseError",
    "StreamError",
    "UnansweredCall",
    "UnmatchedResult",
    "Unsupported",
    "UnsupportedContent",
]

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


def built(make: Callable[[], Any], where: str) -> Any:
    """``make()``, with a ``WireError`` (NaN, nesting past the limit) as ``ResponseError``."""
    try:
        return make()
    except WireError as err:
        raise ResponseError(f"{where}: {err}") from err


def tool_call(call_id: str | None, name: str, arguments: dict[str, Any], where: str) -> ToolCall:
    """A ``ToolCall``; arguments it cannot hold (NaN, too deep) raise ``ResponseError``.

    Stdlib ``json.loads`` reads ``NaN`` and ``Infinity``, and an SDK object
    may hold any float: such arguments are refused here, naming the place.
    """
    try:
        return ToolCall(id=call_id, name=name, arguments=arguments)
    except WireError as err:
        raise ResponseError(f"{where}: the tool call cannot be kept: {err}") from err


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


def not_a_message(index: int, message: object) -> DialectError:
    return DialectError(f"message {index}: not a convtypes message: {short(message)}", index)


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


def tool_result_text(message: ToolResultMessage, fence: bool) -> str:
    """The result's text, fenced unless its provenance is internal.

    A provenance this version does not know reports ``is_internal()`` False
    and so is fenced: the check fails closed.
    """
    if fence and not message.provenance.is_internal():
        return fence_external(message.content)
    return message.content


def data_url(media_type: str, data: str) -> str:
    return f"data:{media_type};base64,{data}"


# --- JSON -------------------------------------------------------------------

_ENCODER: Final = msgspec.json.Encoder()
_DECODER: Final = msgspec.json.Decoder()


def arguments_json(arguments: dict[str, Any]) -> str:
    """Tool-call arguments as JSON text, in their key order, big integers exact."""
    return _ENCODER.encode(arguments).decode()


def parse_arguments(text: str) -> dict[str, Any]:
    """Arguments JSON text as an object; raises ``ValueError`` otherwise.

    An empty string, which some models send for a call without arguments,
    reads as ``{}``.
    """
    if text == "" or text.isspace():
        return {}
    # The text comes from the network: its nesting is checked before msgspec
    # recurses into it, as for any document convtypes reads.
    if excess_depth(text, ARGUMENTS_DEPTH + 1) is not None:
        raise ValueError(f"arguments nest deeper than {MAX_DEPTH} levels allow")
    try:
        value = _DECODER.decode(text)
    except msgspec.DecodeError as err:
        raise ValueError(f"arguments are not valid JSON ({err})") from None
    if type(value) is not dict:
        raise ValueError(f"arguments are JSON but not an object: {text[:60]!r}")
    return value


def plain(value: object, what: str) -> dict[str, Any]:
    """A response or event as a JSON object: a dict as is, an SDK object dumped.

    An SDK object is dumped with only the fields it was given, which for one
    parsed from the API is exactly the JSON the API sent.
    """
    if isinstance(value, dict):
        return value
    dump = getattr(value, "model_dump", None)
    if dump is None:
        raise ResponseError(
            f"expected {what} as a dict or an SDK object, got {type(value).__name__}"
        )
    result = dump(mode="json", exclude_unset=True)
    if not isinstance(result, dict):  # pragma: no cover - pydantic models dump to dicts
        raise ResponseError(f"{what} did not dump to a JSON object")
    return result


def jsonable(value: object, room: int = MAX_DEPTH) -> Any:
    """Plain JSON from a Python-mode dump: bytes as standard base64, enums as values.

    Refuses (``ResponseError``) a value nested deeper than a document may be,
    before the recursion here could go deep.
    """
    if isinstance(value, (dict, list, tuple)) and room <= 0:
        raise ResponseError(f"a response nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        return {key: jsonable(item, room - 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(item, room - 1) for item in value]
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, enum.Enum):
        return value.value
    return value


def field(obj: object, key: str, kind: type, what: str, default: Any = ...) -> Any:
    """``obj[key]`` checked to be a ``kind``; a clear ``ResponseError`` otherwise.

    ``obj`` itself must be a dict.
    """
    if not isinstance(obj, dict):
        raise ResponseError(f"{what}: expected an object, got {short(obj)}")
    value = obj.get(key, default)
    if value is ...:
        raise ResponseError(f"{what}: missing {key!r}")
    if value is not default and not isinstance(value, kind):
        raise ResponseError(f"{what}: {key!r} should be {kind.__name__}, got {short(value)}")
    return value


# --- tool-call ids ------------------------------------------------------------

_SAFE_ID = re.compile(r"[A-Za-z0-9_-]+")


def safe_id(limit: int) -> Callable[[str], bool]:
    """A test for ids made of ``[A-Za-z0-9_-]`` and at most ``limit`` long."""

    def usable(call_id: str) -> bool:
        return 0 < len(call_id) <= limit and _SAFE_ID.fullmatch(call_id) is not None

    return usable


def any_id(call_id: str) -> bool:
    return True


class Call:
    """A call in scope: the id it goes out with, its tool name, whether sent.

    ``order`` grows with every call entered, so sorting results by the
    ``order`` of their calls puts them in the order the calls were sent.
    ``key`` is the id a result answers it by, and ``index`` the message
    that made it.
    """

    __slots__ = ("answered", "index", "key", "name", "order", "out_id", "send_id")

    def __init__(
        self, out_id: str, name: str, send_id: bool, order: int = -1, key: str = "", index: int = -1
    ) -> None:
        self.out_id = out_id
        self.name = name
        self.send_id = send_id
        self.order = order
        self.key = key
        self.index = index
        self.answered = False


_AMBIGUOUS: Final = Call("", "", False)


class CallIds:
    """Gives every tool call a unique id the provider accepts, and pairs results.

    Calls are kept in scope from the first assistant message of a turn (a
    run of assistant messages and provider items) until the next user
    message or the next assistant turn; a result looks its ``tool_use_id`` up
    there. A call keeps its own id when the id is usable and not used before
    in the request; otherwise it gets ``call_<message index>_<position>``, made
    unique against every explicit id of the transcript. A call without an id
    is found by :func:`positional_call_id` of its place in its message.

    Every provider refuses a call whose result has not come by the next user
    message, so a user message with a call still unanswered since the last
    one raises :class:`UnansweredCall`, by the rule of
    ``check_conversation``'s ``unanswered-call``. Calls open at the end of
    the transcript stay allowed.
    """

    __slots__ = (
        "_entered",
        "_messages",
        "_open",
        "_reserved",
        "_scope",
        "_turn_open",
        "_usable",
        "_used",
        "dialect",
    )

    def __init__(self, messages: list[Any], usable: Callable[[str], bool], dialect: str) -> None:
        self._messages = messages
        self._usable = usable
        self._used: set[str] = set()
        self._reserved: set[str] | None = None
        self._scope: dict[str, Call] = {}
        self._turn_open = False
        self._entered = 0
        self._open: list[Call] = []  # every call made since the last user message
        self.dialect = dialect

    def assistant(self) -> None:
        """An assistant message or provider items: the turn goes on or begins."""
        if not self._turn_open:
            self._scope = {}
            self._turn_open = True

    def user(self, index: int) -> None:
        """A user message closes the turn: no later result may answer its calls.

        Raises :class:`UnansweredCall` for the first call made since the last
        user message that has no result.
        """
        for call in self._open:
            if not call.answered:
                raise UnansweredCall(
                    f"message {call.index}: tool call {call.key!r} ({call.name}) has no result "
                    f"before the user message at {index}, and {self.dialect} refuses a call "
                    "without its result",
                    call.index,
                    call.key,
                    index,
                )
        self._open = []
        self._scope = {}
        self._turn_open = False

    def call(self, index: int, position: int, call: ToolCall, send_id: bool = True) -> str:
        """The id to send for ``call``, the ``position``-th call of message ``index``."""
        call_id = call.id
        if call_id is not None and call_id not in self._used and self._usable(call_id):
            out = call_id
        else:
            out = self._fresh(index, position)
        self._used.add(out)
        key = call_id if call_id is not None else positional_call_id(position)
        self._enter(index, key, out, call.name, send_id)
        return out

    def carried(self, index: int, key: str, out_id: str, name: str, send_id: bool = True) -> None:
        """A call that provider items (message ``index``) carry verbatim, with their id."""
        self._used.add(out_id)
        self._enter(index, key, out_id, name, send_id)

    def _enter(self, index: int, key: str, out_id: str, name: str, send_id: bool) -> None:
        self._entered += 1
        call = Call(out_id, name, send_id, self._entered, key, index)
        self._open.append(call)
        # Two calls of one turn answered by the same id: neither can be told apart.
        self._scope[key] = _AMBIGUOUS if key in self._scope else call

    def result(self, index: int, message: ToolResultMessage) -> Call:
        """The call that result ``index`` answers; raises if there is none."""
        self._turn_open = False
        key = message.tool_use_id
        call = self._scope.get(key)
        if call is None:
            raise UnmatchedResult(
                f"message {index}: tool result {key!r} answers no call of the assistant turn "
                f"before it, and {self.dialect} refuses a result without its call",
                index,
                key,
            )
        if call is _AMBIGUOUS:
            raise UnmatchedResult(
                f"message {index}: tool result {key!r} could answer more than one call of "
                "the turn before it",
                index,
                key,
            )
        if call.answered:
            raise UnmatchedResult(
                f"message {index}: tool result {key!r} answers a call that is already answered",
                index,
                key,
            )
        call.answered = True
        return call

    def _fresh(self, index: int, position: int) -> str:
        if self._reserved is None:
            self._reserved = _explicit_ids(self._messages)
        base = f"call_{index}_{position}"
        candidate = base
        serial = 0
        while candidate in self._reserved or candidate in self._used:
            serial += 1
            candidate = f"{base}_{serial}"
        return candidate


def _explicit_ids(messages: Iterable[Any]) -> set[str]:
    ids: set[str] = set()
    for message in messages:
        if isinstance(message, AssistantMessage):
            ids.update(call.id for call in message.tool_calls if call.id is not None)
        elif isinstance(message, ProviderOutputItemsMessage):
            # Items go back verbatim, ids and all: a made-up id must avoid theirs.
            for item in message.items:
                if isinstance(item, dict):
                    carried = item.get("call_id")
                    function_call = item.get("function_call")
                    if isinstance(function_call, dict):
                        carried = function_call.get("id")
                    if isinstance(carried, str):
                        ids.add(carried)
    return ids
