"""Messages, tool calls and thinking blocks: a conversation's turns.

``Message`` is a union of six frozen Structs tagged on ``"role"``. A consumer
matches on the classes, and a type checker can prove such a ``match``
handles every role.
"""

from __future__ import annotations

from typing import Final, Union, get_args

from msgspec import Struct, field

from ._content import ContentBlock
from ._jsonvalue import ARGUMENTS_DEPTH, FLAT_TYPES, ITEMS_DEPTH, JsonValue, check_json
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


# A field the reference always writes, even when empty, cannot have a plain
# default under omit_defaults: msgspec would leave it out. msgspec treats a
# value as the default only when it is the default object itself or, for the
# builtin collection factories, an empty collection; a default made by a
# factory of our own is never matched, so the field is always written, and a
# missing field still reads as empty. The golden tests pin this behaviour.
def _empty_text() -> str:
    return ""


def _no_tool_calls() -> tuple[ToolCall, ...]:
    return ()


class ToolCall(
    Struct, frozen=True, kw_only=True, gc=False, omit_defaults=True, forbid_unknown_fields=True
):
    """A tool invocation the model asked for.

    ``id`` is the provider's correlation id (``call_…``, ``toolu_…``); when it
    is ``None`` a backend pairs calls with results by position instead.
    ``arguments`` is kept exactly as read: key order and big integers survive.
    It is checked when the call is built or decoded (JSON types only,
    finite floats, nesting within the reference's limit); change it by
    building a new call, not by mutating the dict, or the check is bypassed.
    """

    id: str | None = None
    name: str
    arguments: dict[str, JsonValue]

    def __post_init__(self) -> None:
        arguments = self.arguments
        if type(arguments) is dict:
            # Most calls take a few strings and numbers; settle those here,
            # without a further call (this runs for every decoded call).
            for key, value in arguments.items():
                if type(value) not in FLAT_TYPES or type(key) is not str:
                    break
            else:
                return
        check_json(arguments, ARGUMENTS_DEPTH, "arguments")


class ThinkingBlock(
    Struct, frozen=True, kw_only=True, gc=False, omit_defaults=True, forbid_unknown_fields=True
):
    """One block of extended thinking, kept so it can be replayed unchanged.

    A normal block has ``text`` (empty when the provider hides it) and an
    opaque ``signature``; a redacted one carries ``redacted_data`` instead.
    Providers refuse a replayed block that was altered in any way.
    """

    text: str = field(default_factory=_empty_text)
    signature: str | None = None
    redacted_data: str | None = None


# Every message shares these options: frozen for immutable values, kw_only so
# wire order can put required fields after defaulted ones, omit_defaults so
# optional fields add no bytes, and gc=False. Under the declared field types
# nothing a message holds can refer back to a message (JSON values hold only
# JSON values), so no reference cycle can pass through one; untracked, a long
# transcript no longer makes every collection pass walk its messages.
# forbid_unknown_fields: see _content.py; unknown fields are never refused.
class _Message(
    Struct,
    frozen=True,
    kw_only=True,
    gc=False,
    omit_defaults=True,
    forbid_unknown_fields=True,
    tag_field="role",
):
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

    content: str = field(default_factory=_empty_text)
    tool_calls: tuple[ToolCall, ...] = field(default_factory=_no_tool_calls)
    thinking: tuple[ThinkingBlock, ...] = ()


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
