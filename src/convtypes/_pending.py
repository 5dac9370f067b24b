"""A tool call that waits for its result, with the id that result must carry.

``ToolCall.id`` may be ``None`` (Gemini sends calls without ids), but a
result always names its call, so code that answers calls wants an id it
can rely on. :func:`~convtypes.open_calls` and a dialect reply's
``tool_calls`` both give calls in this form. It lives in the core, below
the dialects, because ``open_calls`` gives it too.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from ._canonical import json_equal
from ._errors import WireError
from ._hashing import hash_json
from ._jsonvalue import ARGUMENTS_DEPTH, JsonValue, check_json
from ._value import as_text

__all__ = ["PendingCall"]


class PendingCall(Struct, frozen=True, kw_only=True, gc=False):
    """A tool call, ready to run and answer.

    ``id`` is always text: the provider's id for the call, or, for a call
    that came without one (Gemini's), the id every dialect pairs its result
    by (:func:`~convtypes.positional_call_id` of its place in its message).
    So ``ToolResultMessage(tool_use_id=call.id, ...)`` answers it on every
    dialect. ``arguments`` are the call's, the same dict object.

    Checked when built, as every convtypes value is: a field of the wrong
    type raises :class:`~convtypes.WireError` naming it (``$.id``).
    """

    id: str
    name: str
    arguments: dict[str, JsonValue]

    def __post_init__(self) -> None:
        check_fields(self, ("id", "name"))
        arguments: Any = self.arguments
        if type(arguments) is not dict:
            raise WireError(f"expected a dict, got {type(arguments).__name__}", "$.arguments")
        check_json(arguments, ARGUMENTS_DEPTH, "arguments")

    def __eq__(self, other: object) -> bool:
        # ``arguments`` compare as a ToolCall's do (see convtypes._canonical).
        if type(other) is not PendingCall:
            return NotImplemented
        return (
            self.id == other.id
            and self.name == other.name
            and json_equal(self.arguments, other.arguments)
        )

    def __hash__(self) -> int:
        # ``arguments`` is a dict: hashed as the JSON it holds, as a ToolCall is.
        return hash((PendingCall, self.id, self.name, hash_json(self.arguments)))


def check_fields(value: object, names: tuple[str, ...]) -> None:
    """Raise :class:`WireError` unless each field of ``names`` holds text (``str``)."""
    for name in names:
        given = getattr(value, name)
        if type(given) is not str or not given.isascii():
            as_text(given, name)
