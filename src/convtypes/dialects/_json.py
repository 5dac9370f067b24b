"""JSON as the dialects meet it: SDK objects, argument text, checked fields.

Nothing here imports a provider SDK. A response or event given as an SDK
object is read through its ``model_dump`` method (pydantic), so the SDKs are
needed only by the caller, never by convtypes.
"""

from __future__ import annotations

import base64
import enum
from collections.abc import Callable
from typing import Any, Final

import msgspec

from .._errors import MAX_DEPTH, WireError
from .._jsonvalue import ARGUMENTS_DEPTH
from .._messages import ToolCall
from .._nesting import excess_depth
from ._errors import ResponseError, short


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

    An SDK object is dumped with only the fields it was given, under their
    wire names (a field the SDK calls ``from_`` is ``from`` on the wire),
    which for one parsed from the API is the JSON the API sent, plus any
    field the SDK itself adds (``parsed`` and the like), which each dialect
    removes where it keeps content. Pydantic's serialization warnings are
    off: objects the SDK builds without validation (its stream helpers')
    make it warn of union members it did not expect, which says nothing
    about the JSON, and building each warning's text costs more than the dump.
    """
    if isinstance(value, dict):
        return value
    dump = getattr(value, "model_dump", None)
    if dump is None:
        raise ResponseError(
            f"expected {what} as a dict or an SDK object, got {type(value).__name__}"
        )
    result = dump(mode="json", exclude_unset=True, by_alias=True, warnings=False)
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
