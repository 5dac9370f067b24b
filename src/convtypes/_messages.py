"""Messages, tool calls and thinking blocks: a conversation's turns.

``Message`` is a union of six frozen Structs tagged on ``"role"``, built with
keywords only. A consumer matches on the classes, and a type checker can
prove such a ``match`` handles every role.
"""

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal, Union, get_args

from msgspec import Struct, field

from ._canonical import json_equal
from ._content import CONTENT_BLOCK_TYPES, ContentBlock
from ._hashing import hash_json
from ._jsonvalue import (
    ARGUMENTS_DEPTH,
    ITEMS_DEPTH,
    DecodedJson,
    JsonValue,
    as_json_array,
    as_json_object,
)
from ._provenance import LenientProvenance, Provenance, as_provenance
from ._unknown import UnknownBlock, UnknownMessage
from ._value import Check, ValueMeta, as_optional_text, as_text, as_tuple_of, replaced

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._changes import (
        _AssistantChanges,
        _ItemsChanges,
        _MultimodalChanges,
        _SystemChanges,
        _ThinkingChanges,
        _ToolCallChanges,
        _ToolResultChanges,
        _UserChanges,
    )

Checks = Mapping[str, Check]

__all__ = [
    "AssistantMessage",
    "JsonValue",
    "LenientContentBlock",
    "LenientMessage",
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


def _no_tool_calls() -> "tuple[ToolCall, ...]":
    return ()


LenientContentBlock = Union[ContentBlock, UnknownBlock]
"""A content block as a multimodal message can hold it: a known one or an unknown one."""

# How the classes below speak to type checkers and to msgspec at once.
# msgspec reads the annotations that run (the ``else`` branches) to build
# its decoders; a type checker reads the ``TYPE_CHECKING`` branches, which
# say what a field can really hold once lenient decoding has been at it
# (an UnknownBlock, an UnknownProvenance), name the public JsonValue rather
# than the decoder's bounded JSON type, and give the constructors what they
# take at run time (a wire string for a provenance, any mapping for the
# arguments, a list for items), which the field checks then hold to.


class ToolCall(
    Struct,
    metaclass=ValueMeta,
    frozen=True,
    kw_only=True,
    gc=False,
    omit_defaults=True,
    forbid_unknown_fields=True,
):
    """A tool invocation the model asked for.

    ``id`` is the provider's correlation id (``call_…``, ``toolu_…``); when it
    is ``None`` a backend pairs calls with results by position instead.
    ``arguments`` is kept exactly as read: key order and big integers survive.
    A call built in Python has its arguments checked (JSON types only, finite
    floats, nesting within the reference's limit); change them by building a
    new call (see :func:`convtypes.replace`), not by mutating the dict, or the
    check is bypassed.
    """

    id: str | None = None
    name: str
    if TYPE_CHECKING:
        arguments: dict[str, JsonValue]

        def __init__(
            self, *, id: str | None = None, name: str, arguments: Mapping[str, object]
        ) -> None: ...
    else:
        arguments: dict[str, DecodedJson]

    _checks: ClassVar[Checks] = {
        "id": as_optional_text,
        "name": as_text,
        "arguments": as_json_object(ARGUMENTS_DEPTH),
    }

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_ToolCallChanges]) -> "ToolCall":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...

    # Arguments compare as JSON compares (see _canonical): ``true`` is not
    # ``1``, ``1.0`` is ``1``, key order does not count; so == agrees with
    # convtypes.address. Carriers compare their own way (_value.py).
    # Hidden from type checkers, which narrow ``x == ToolCall(...)`` to a
    # ToolCall only for a class that keeps the default equality: this one
    # is still equal to nothing but a ToolCall.
    _json_fields: ClassVar[tuple[str, ...]] = ("arguments",)

    if not TYPE_CHECKING:

        def __eq__(self, other):
            if type(other) is not ToolCall or type(self) is not ToolCall:
                return NotImplemented
            return (
                self.id == other.id
                and self.name == other.name
                and json_equal(self.arguments, other.arguments)
            )

    def __hash__(self) -> int:
        # The arguments are a dict, which Python does not hash (see _hashing).
        return hash((ToolCall, self.id, self.name, hash_json(self.arguments)))

    if not TYPE_CHECKING:  # each class types it for checkers, with its own fields

        def __replace__(self, /, **changes):
            """What ``copy.replace`` calls: :func:`convtypes.replace`, checks and all."""
            return replaced(self, changes)


class ThinkingBlock(
    Struct,
    metaclass=ValueMeta,
    frozen=True,
    kw_only=True,
    gc=False,
    omit_defaults=True,
    forbid_unknown_fields=True,
):
    """One block of extended thinking, kept so it can be replayed unchanged.

    A normal block has ``text`` (empty when the provider hides it) and an
    opaque ``signature``; a redacted one carries ``redacted_data`` instead.
    Providers refuse a replayed block that was altered in any way.
    """

    text: str = field(default_factory=_empty_text)
    signature: str | None = None
    redacted_data: str | None = None

    _checks: ClassVar[Checks] = {
        "text": as_text,
        "signature": as_optional_text,
        "redacted_data": as_optional_text,
    }

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_ThinkingChanges]) -> "ThinkingBlock":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...

    if not TYPE_CHECKING:  # each class types it for checkers, with its own fields

        def __replace__(self, /, **changes):
            """What ``copy.replace`` calls: :func:`convtypes.replace`, checks and all."""
            return replaced(self, changes)


# Every message shares these options: frozen for immutable values, kw_only so
# wire order can put required fields after defaulted ones (repeated on each
# class, since msgspec applies it to the fields the class itself declares),
# omit_defaults so optional fields add no bytes, and gc=False. Under the
# declared field types
# nothing a message holds can refer back to a message (JSON values hold only
# JSON values), so no reference cycle can pass through one; untracked, a long
# transcript no longer makes every collection pass walk its messages.
# forbid_unknown_fields: see _content.py; unknown fields are never refused.
class _Message(
    Struct,
    metaclass=ValueMeta,
    frozen=True,
    kw_only=True,
    gc=False,
    omit_defaults=True,
    forbid_unknown_fields=True,
    tag_field="role",
):
    if not TYPE_CHECKING:  # each class types it for checkers, with its own fields

        def __replace__(self, /, **changes):
            """What ``copy.replace`` calls: :func:`convtypes.replace`, checks and all."""
            return replaced(self, changes)


class SystemMessage(_Message, frozen=True, kw_only=True, tag="system"):
    """The system prompt; it belongs once, at the start."""

    content: str

    _checks: ClassVar[Checks] = {"content": as_text}

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_SystemChanges]) -> "SystemMessage":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...


class UserMessage(_Message, frozen=True, kw_only=True, tag="user"):
    """A user turn made of text only."""

    content: str

    _checks: ClassVar[Checks] = {"content": as_text}

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_UserChanges]) -> "UserMessage":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...


class UserMultimodalMessage(_Message, frozen=True, kw_only=True, tag="user_multimodal"):
    """A user turn of content blocks: text, images, video, audio.

    Lenient decoding may also place an :class:`UnknownBlock` here, and one
    may be built with it, so that a newer writer's turn survives a copy.
    So ``content`` is typed as a tuple of :data:`LenientContentBlock`: a
    ``match`` over a block must handle ``UnknownBlock`` too.
    """

    if TYPE_CHECKING:
        content: tuple[LenientContentBlock, ...]
    else:
        content: tuple[ContentBlock, ...]

    _checks: ClassVar[Checks] = {
        "content": as_tuple_of((*CONTENT_BLOCK_TYPES, UnknownBlock), "a content block"),
    }

    if TYPE_CHECKING:

        def __replace__(
            self, /, **changes: Unpack[_MultimodalChanges[LenientContentBlock]]
        ) -> "UserMultimodalMessage":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...

    _nested: ClassVar[tuple[str, ...]] = ("content",)


class AssistantMessage(_Message, frozen=True, kw_only=True, tag="assistant"):
    """A model turn: its text, the tools it called, and its thinking.

    ``content`` and ``tool_calls`` are always written; ``thinking`` only
    when there is some, so a turn without it looks as it did before the
    field existed.
    """

    content: str = field(default_factory=_empty_text)
    tool_calls: tuple[ToolCall, ...] = field(default_factory=_no_tool_calls)
    thinking: tuple[ThinkingBlock, ...] = ()

    _checks: ClassVar[Checks] = {
        "content": as_text,
        "tool_calls": as_tuple_of((ToolCall,), "a ToolCall"),
        "thinking": as_tuple_of((ThinkingBlock,), "a ThinkingBlock"),
    }

    if TYPE_CHECKING:

        def __replace__(
            self, /, **changes: Unpack[_AssistantChanges[ToolCall, ThinkingBlock]]
        ) -> "AssistantMessage":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...

    _nested: ClassVar[tuple[str, ...]] = ("tool_calls", "thinking")


class ToolResultMessage(_Message, frozen=True, kw_only=True, tag="tool_result"):
    """What a tool returned, answering the call with id ``tool_use_id``.

    ``provenance`` says whether ``content`` came from outside the trust
    boundary. It is written only when not ``INTERNAL``, and a stored result
    without it reads as ``INTERNAL``. It may be given as a
    :class:`Provenance` or as its wire string (``"external"``). Lenient
    decoding may leave an :class:`UnknownProvenance` here, so a ``match``
    over it must handle that too; ``provenance.is_internal()`` is the test
    of trust, and it holds for both kinds.
    """

    tool_use_id: str
    content: str
    if TYPE_CHECKING:
        provenance: LenientProvenance = Provenance.INTERNAL

        def __init__(
            self,
            *,
            tool_use_id: str,
            content: str,
            provenance: LenientProvenance | Literal["internal", "external"] = Provenance.INTERNAL,
        ) -> None: ...
    else:
        provenance: Provenance = Provenance.INTERNAL

    _checks: ClassVar[Checks] = {
        "tool_use_id": as_text,
        "content": as_text,
        "provenance": as_provenance,
    }

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_ToolResultChanges]) -> "ToolResultMessage":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...


class ProviderOutputItemsMessage(_Message, frozen=True, kw_only=True, tag="provider_output_items"):
    """Opaque provider items that must go back to the provider verbatim.

    ``protocol`` names the format (``"openai-responses"``); a request builder
    for another provider should drop the message, since the items have no
    portable meaning. The items are checked when built in Python, as tool
    arguments are.
    """

    protocol: str
    if TYPE_CHECKING:
        items: tuple[JsonValue, ...]

        def __init__(self, *, protocol: str, items: list[Any] | tuple[object, ...]) -> None: ...
    else:
        items: tuple[DecodedJson, ...]

    _checks: ClassVar[Checks] = {"protocol": as_text, "items": as_json_array(ITEMS_DEPTH)}

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_ItemsChanges]) -> "ProviderOutputItemsMessage":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...

    _json_fields: ClassVar[tuple[str, ...]] = ("items",)

    if not TYPE_CHECKING:  # as ToolCall's, hidden so that == still narrows

        def __eq__(self, other):
            # The items compare as JSON compares, as a ToolCall's arguments do.
            if type(other) is not ProviderOutputItemsMessage or type(self) is not type(other):
                return NotImplemented
            return self.protocol == other.protocol and json_equal(self.items, other.items)

    def __hash__(self) -> int:
        return hash((ProviderOutputItemsMessage, self.protocol, hash_json(self.items)))


Message = Union[
    SystemMessage,
    UserMessage,
    UserMultimodalMessage,
    AssistantMessage,
    ToolResultMessage,
    ProviderOutputItemsMessage,
]
"""Any message; ``role`` on the wire says which."""

LenientMessage = Union[Message, UnknownMessage]
"""A message as lenient decoding returns it: a known one or an unknown one."""

MESSAGE_TYPES: Final = get_args(Message)
