"""What every dialect module has, as a type: :class:`Dialect`.

A program that serves several providers passes the dialect module itself
(``anthropic``, ``gemini``...) to its own functions. Annotated
``ModuleType``, the module loses every type; annotated :class:`Dialect`, a
Protocol that each dialect module satisfies, its calls keep theirs. Type
checkers match a module against a Protocol by its names, so nothing here
runs.

The Protocol holds what all dialects share, and no more: a dialect may add
keyword-only options with defaults (Ollama's ``thinking=``, Gemini's
``json_schema=``) and still satisfy it. A member every dialect gains later
is one more line here; ``tests/test_dialect_protocol.py`` checks every
dialect module against it, at run time and with both type checkers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from .._messages import Message
from .._unknown import UnknownMessage
from ._errors import Unsupported
from ._left_out import LeftOut
from ._newer import Unknown
from ._reply import Delta, Reply
from ._tools import ToolSpec

__all__ = ["Dialect", "StreamAccumulator"]


class StreamAccumulator(Protocol):
    """What a dialect's ``Accumulator()`` makes: one reply's stream, read event by event."""

    def feed(self, event: object, /) -> list[Delta]:
        """Take one streamed event; returns what it added, as deltas."""
        ...

    def partial(self) -> list[Message]:
        """The messages so far, at any point of the stream."""
        ...

    def result(self) -> list[Message]:
        """The messages of the whole stream, once it ended."""
        ...

    def reply(self) -> Reply:
        """The whole reply, with stop reason and usage, once the stream ended."""
        ...

    @property
    def finished(self) -> bool:
        """Whether the event that ends the stream has arrived."""
        ...


class Dialect(Protocol):
    """A dialect module, as a type: what every dialect module has.

    Annotate a parameter ``dialect: Dialect`` and pass the module:
    ``stream_turn(anthropic, events)``. Each member is described on the
    dialect modules (see :mod:`convtypes.dialects`).
    """

    @property
    def PROTOCOL(self) -> str:
        """The name a ``ProviderOutputItemsMessage`` of this dialect carries."""
        ...

    def to_request(
        self,
        messages: Iterable[Message | UnknownMessage],
        /,
        *,
        fence_external: bool = ...,
        unsupported: Unsupported = ...,
        unknown: Unknown = ...,
    ) -> dict[str, Any]:
        """The conversation part of a request body."""
        ...

    def tools_to_request(
        self, tools: Iterable[ToolSpec], /, *, choice: str = ...
    ) -> dict[str, Any]:
        """The request fields that offer ``tools`` to the model."""
        ...

    def from_response(self, response: object, /) -> list[Message]:
        """The messages a whole response adds to the transcript."""
        ...

    def read_reply(self, response: object, /) -> Reply:
        """The same messages in a :class:`Reply`, with stop reason and usage."""
        ...

    def left_out(
        self,
        messages: Iterable[Message | UnknownMessage],
        /,
        *,
        unsupported: Unsupported = ...,
    ) -> list[LeftOut]:
        """What ``to_request`` of the same transcript does not send."""
        ...

    @property
    def Accumulator(self) -> Callable[[], StreamAccumulator]:
        """The class whose instances read one reply's stream."""
        ...
