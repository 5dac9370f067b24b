"""Messages, tool calls and thinking blocks: a conversation's turns.

``Message`` is a union of six frozen Structs tagged on ``"role"``. A consumer
matches on the classes, and a type checker can prove such a ``match``
handles every role.
"""

from __future__ import annotations

from typing import Any, Final, Union, get_args

from msgspec import Struct
from msgspec.structs import force_setattr

from ._content import ContentBlock
from ._jsonvalue import ARGUMENTS_DEPTH, ITEMS_DEPTH, JsonValue, check_json
from ._provenance import Provenance

__all__ = [
    "AssistantMessage",
    "JsonValue",
    "Message",
    "ProviderOutputItemsMessage",
    "SystemMessage",
    "ThinkingBlock",
    "ToolCall",
    "ToolResultMessage",
    "UserMessage",
    "UserMultimodalMessage",
]


# A field that the reference always writes, even at its default, cannot use a
# plain default under omit_defaults: msgspec would drop it. These fill-in
# markers are defaults that no real value is identical to; __post_init__
# swaps them for the real empty value, so an instance never holds one and the
# field is always written, whether the value was decoded or built in Python.
class _FillInStr(str):
    __slots__ = ()


class _FillInTuple(tuple[Any, ...]):
    __slots__ = ()


_EMPTY_STR: Final[Any] = _FillInStr()
_EMPTY_TUPLE: Final[Any] = _FillInTuple()


class ToolCall(Struct, frozen=True, kw_only=True, gc=False, omit_defaults=True):
    """A tool invocation the model asked for.

    ``id`` is the provider's correlation id (``call_…``, ``toolu_…``); when it
    is ``None`` a backend pairs calls with results by position instead.
    ``arguments`` is kept exactly as read: key order and big integers survive.
    It is checked when the call is built or decoded (JSON types only, finite
    floats, nesting within the reference's limit); change it by building a
    new call, not by mutating the dict, or the check is bypassed.
    """

    id: str | None = None
    name: str
    arguments: dict[str, JsonValue]

    def __post_init__(self) -> None:
        check_json(self.arguments, ARGUMENTS_DEPTH, "arguments")


class ThinkingBlock(Struct, frozen=True, kw_only=True, gc=False, omit_defaults=True):
    """One block of extended thinking, kept so it can be replayed unchanged.

    A normal block has ``text`` (empty when the provider hides it) and an
    opaque ``signature``; a redacted one carries ``redacted_data`` instead.
    Providers refuse a replayed block that was altered in any way.
    """

    text: str = _EMPTY_STR
    signature: str | None = None
    redacted_data: str | None = None

    def __post_init__(self) -> None:
        if self.text is _EMPTY_STR:
            force_setattr(self, "text", "")


# Every message shares these options: frozen for immutable values, kw_only so
# wire order can put required fields after defaulted ones, omit_defaults so
# optional fields add no bytes, and gc=False. Under the declared field types
# nothing a message holds can refer back to a message (JSON values hold only
# JSON values), so no reference cycle can pass through one; untracked, a long
# transcript no longer makes every collection pass walk its messages.
class _Message(Struct, frozen=True, kw_only=True, gc=False, omit_defaults=True, tag_field="role"):
    pass


class SystemMessage(_Message, frozen=True, tag="system"):
    """The system prompt; it belongs once, at the start."""

    content: str


class UserMessage(_Message, frozen=True, tag="user"):
    """A user turn made of text only."""

    content: str


class UserMultimodalMessage(_Message, frozen=True, tag="user_multimodal"):
    """A user turn of content blocks: text, images, video, audio."""

    content: tuple[ContentBlock, ...]


class AssistantMessage(_Message, frozen=True, tag="assistant"):
    """A model turn: its text, the tools it called, and its thinking.

    ``content`` and ``tool_calls`` are always written; ``thinking`` only
    when there is some, so a turn without it looks as it did before the
    field existed.
    """

    content: str = _EMPTY_STR
    tool_calls: tuple[ToolCall, ...] = _EMPTY_TUPLE
    thinking: tuple[ThinkingBlock, ...] = ()

    def __post_init__(self) -> None:
        if self.content is _EMPTY_STR:
            force_setattr(self, "content", "")
        if self.tool_calls is _EMPTY_TUPLE:
            force_setattr(self, "tool_calls", ())


class ToolResultMessage(_Message, frozen=True, tag="tool_result"):
    """What a tool returned, answering the call with id ``tool_use_id``.

    ``provenance`` says whether ``content`` came from outside the trust
    boundary. It is written only when ``EXTERNAL``, and a stored result
    without it reads as ``INTERNAL``.
    """

    tool_use_id: str
    content: str
    provenance: Provenance = Provenance.INTERNAL


class ProviderOutputItemsMessage(_Message, frozen=True, tag="provider_output_items"):
    """Opaque provider items that must go back to the provider verbatim.

    ``protocol`` names the format (``"openai-responses"``); a request builder
    for another provider should drop the message, since the items have no
    portable meaning.
    """

    protocol: str
    items: tuple[JsonValue, ...]

    def __post_init__(self) -> None:
        check_json(self.items, ITEMS_DEPTH, "items")


Message = Union[
    SystemMessage,
    UserMessage,
    UserMultimodalMessage,
    AssistantMessage,
    ToolResultMessage,
    ProviderOutputItemsMessage,
]
"""Any message; ``role`` on the wire says which."""

MESSAGE_TYPES: Final = get_args(Message)
