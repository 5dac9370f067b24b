"""A reply with its facts (why it stopped, what it cost), and the deltas of a stream.

These are the same for every dialect, so one loop over a stream and one
read of a reply serve all providers. They are plain frozen Structs: cheap to
make once per streamed event, and safe to hand to another thread. Unlike the
wire types, the deltas also take their fields by position
(``TextDelta("hi")``) and match by position (``case TextDelta(text)``): a
dialect makes one for nearly every event, and a positional call is the
cheaper one.
"""

from __future__ import annotations

from typing import Any, Final, Literal, Union

from msgspec import Struct, field

from .._canonical import json_equal
from .._conversation import positional_call_id
from .._errors import WireError
from .._hashing import hash_json
from .._messages import MESSAGE_TYPES, AssistantMessage, Message
from .._pending import PendingCall, check_fields

__all__ = [
    "STOP_REASONS",
    "Delta",
    "PendingCall",
    "Reply",
    "StopReason",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallDelta",
    "ToolCallStart",
    "Usage",
]

StopReason = Literal[
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
    "refusal",
    "content_filter",
    "pause_turn",
    "other",
]
"""Why a reply ended, by meaning rather than by any one provider's spelling.

- ``"end_turn"``: the model finished its answer;
- ``"tool_use"``: it ended by calling tools, whatever the provider says
  (Gemini says ``STOP``);
- ``"max_tokens"``: it was cut at the output limit;
- ``"stop_sequence"``: it produced one of the caller's stop sequences;
- ``"refusal"``: it declined to answer, even where the provider's finish
  reason says an ordinary stop;
- ``"content_filter"``: a safety system blocked or cut it;
- ``"pause_turn"``: the provider paused a long turn and expects it to be
  sent back to continue;
- ``"other"``: anything else (the provider's own value is kept beside it).
"""

STOP_REASONS: Final[tuple[StopReason, ...]] = (
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
    "refusal",
    "content_filter",
    "pause_turn",
    "other",
)


_COUNTS: Final = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


class Usage(Struct, frozen=True, kw_only=True, gc=False):
    """The tokens a reply cost, counted the same way for every provider.

    ``input_tokens`` counts the whole prompt, cached or not, and
    ``output_tokens`` everything generated, reasoning included, so that the
    two add up to the bill's token count on every provider. Some providers
    count these differently (Anthropic leaves cache reads and writes out of
    its ``input_tokens``; Gemini leaves thoughts out of its candidate
    count); the dialects add them back. ``cache_read_tokens``,
    ``cache_write_tokens`` and ``reasoning_tokens`` are parts of those
    totals. A count the provider did not report is ``None``, never ``0``.
    ``raw`` is the provider's own usage object, as it sent it.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    raw: dict[str, Any] | None = None

    def __eq__(self, other: object) -> bool:
        # ``raw`` compares as JSON compares (see convtypes._canonical).
        if type(other) is not Usage:
            return NotImplemented
        counts = (self.input_tokens, self.output_tokens, self.cache_read_tokens)
        theirs = (other.input_tokens, other.output_tokens, other.cache_read_tokens)
        more = (self.cache_write_tokens, self.reasoning_tokens)
        their_more = (other.cache_write_tokens, other.reasoning_tokens)
        return counts == theirs and more == their_more and json_equal(self.raw, other.raw)

    def __post_init__(self) -> None:
        # Checked when built, as every convtypes value is.
        for name in _COUNTS:
            given = getattr(self, name)
            if given is not None and type(given) is not int:
                raise WireError(f"expected int or None, got {type(given).__name__}", f"$.{name}")
        if self.raw is not None and type(self.raw) is not dict:
            raise WireError(f"expected a dict or None, got {type(self.raw).__name__}", "$.raw")

    def __hash__(self) -> int:
        # ``raw`` is a dict, which Python does not hash (see convtypes._hashing).
        counts = (self.input_tokens, self.output_tokens, self.cache_read_tokens)
        more = (self.cache_write_tokens, self.reasoning_tokens)
        return hash((Usage, counts, more, hash_json(self.raw)))


class Reply(Struct, frozen=True, kw_only=True):
    """A provider's reply: the messages to append, and what a backend needs to know.

    ``messages`` is exactly what ``from_response`` (or ``result()``) returns.
    ``stop_reason`` is one of :data:`StopReason`; ``provider_stop_reason``
    is the provider's own value (``None`` if it sent none). ``model`` and
    ``id`` are the model that answered and the provider's id of the reply,
    when it gave them. ``tool_calls`` lists the calls to run, in order.

    ``details`` is what the provider said about the reply beside its
    messages, which no message has a place for, by the provider's own name
    for it and as sent: Anthropic's ``stop_details`` (why it refused),
    Responses' ``incomplete_details`` and the ``audio`` a stream brought,
    Gemini's ``safety_ratings`` and ``prompt_feedback``. It is empty when
    the provider said none of it. A stream's final reply holds the same as
    the reply read whole.
    """

    messages: list[Message]
    stop_reason: StopReason
    provider_stop_reason: str | None = None
    usage: Usage = Usage()
    model: str | None = None
    id: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Checked when built, as every convtypes value is: each field's type,
        # each message, and a stop reason that is one of StopReason's words.
        messages: Any = self.messages
        if type(messages) is not list:
            raise WireError(
                f"expected a list of messages, got {type(messages).__name__}", "$.messages"
            )
        for index, message in enumerate(messages):
            if not isinstance(message, MESSAGE_TYPES):
                raise WireError(
                    f"expected a message, got {type(message).__name__}", f"$.messages[{index}]"
                )
        stop: Any = self.stop_reason
        if type(stop) is not str or stop not in STOP_REASONS:
            raise WireError(
                f"expected one of {', '.join(STOP_REASONS)}, got {stop!r:.40}", "$.stop_reason"
            )
        for name in ("provider_stop_reason", "model", "id"):
            if getattr(self, name) is not None:
                check_fields(self, (name,))
        if type(self.usage) is not Usage:
            raise WireError(f"expected a Usage, got {type(self.usage).__name__}", "$.usage")
        if type(self.details) is not dict:
            raise WireError(f"expected a dict, got {type(self.details).__name__}", "$.details")
        for key in self.details:
            if type(key) is not str:
                raise WireError(f"expected text keys, got {type(key).__name__}", "$.details")

    @property
    def tool_calls(self) -> list[PendingCall]:
        """The reply's tool calls in order, each with the id its result must carry.

        These are the calls of the reply's assistant messages: what a
        backend runs before the next request. A call the provider cut off
        (at the token limit) is not among them, since no result answers it.
        """
        calls: list[PendingCall] = []
        for message in self.messages:
            if isinstance(message, AssistantMessage):
                for position, call in enumerate(message.tool_calls):
                    calls.append(
                        PendingCall(
                            id=call.id if call.id is not None else positional_call_id(position),
                            name=call.name,
                            arguments=call.arguments,
                        )
                    )
        return calls

    def __eq__(self, other: object) -> bool:
        # ``details`` compares as JSON compares (see convtypes._canonical), as ``Usage.raw``.
        if type(other) is not Reply:
            return NotImplemented
        return (
            self.messages == other.messages
            and self.stop_reason == other.stop_reason
            and self.provider_stop_reason == other.provider_stop_reason
            and self.usage == other.usage
            and self.model == other.model
            and self.id == other.id
            and json_equal(self.details, other.details)
        )

    def __hash__(self) -> int:
        # ``messages`` is a list: hashed as the messages it holds when asked.
        return hash(
            (
                Reply,
                tuple(self.messages),
                self.stop_reason,
                self.provider_stop_reason,
                self.usage,
                self.model,
                self.id,
                hash_json(self.details),
            )
        )


def token_count(usage: dict[str, Any], key: str, inner: str | None = None) -> int | None:
    """``usage[key]`` (or ``usage[key][inner]``) when it is an integer count, else ``None``.

    A count the provider left out, or sent as something other than an
    integer, is unknown rather than zero.
    """
    value = usage.get(key)
    if inner is not None:
        value = value.get(inner) if isinstance(value, dict) else None
    return value if type(value) is int else None


# --- deltas -------------------------------------------------------------------


class TextDelta(Struct, frozen=True, gc=False):
    """More of the answer's text, to show as it arrives."""

    text: str


class ThinkingDelta(Struct, frozen=True, gc=False):
    """More of the model's reasoning (or its summary), to show as it arrives."""

    text: str


class ToolCallStart(Struct, frozen=True, gc=False):
    """A tool call begins.

    ``index`` is the call's position in the reply's ``tool_calls``, the
    same for every provider; ``id`` is the provider's id for it (``None``
    where the provider gives none).
    """

    index: int
    id: str | None
    name: str


class ToolCallDelta(Struct, frozen=True, gc=False):
    """A piece of the JSON text of call ``index``'s arguments.

    The pieces of one call, joined, are its arguments as the provider sent
    them. A piece is not valid JSON on its own; the parsed arguments are on
    the call in ``partial()`` or ``result()`` once they are complete.
    """

    index: int
    arguments: str


Delta = Union[TextDelta, ThinkingDelta, ToolCallStart, ToolCallDelta]
"""What one streamed event added to the reply; ``feed`` returns a list of them."""
