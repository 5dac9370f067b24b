"""A changed copy of a value, checked like a new one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, overload

from ._content import (
    AudioBase64Block,
    AudioPathBlock,
    AudioUrlBlock,
    ImageBase64Block,
    ImageUrlBlock,
    TextBlock,
    VideoBase64Block,
    VideoPathBlock,
    VideoUrlBlock,
)
from ._messages import (
    AssistantMessage,
    ProviderOutputItemsMessage,
    SystemMessage,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ._unknown import UnknownBlock, UnknownMessage
from ._value import ValueMeta, public_class, rebuild, unknown_fields

__all__ = ["replace"]


if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Literal, TypedDict

    from typing_extensions import Unpack

    from ._messages import LenientContentBlock
    from ._provenance import LenientProvenance

    # The fields each class lets replace change, typed as its constructor takes
    # them, so that a type checker refuses a misspelt field or a wrong value.
    # Only type checkers read these (defining them would cost import time);
    # tests/test_typing.py holds them to the classes' fields.
    class _SystemChanges(TypedDict, total=False):
        content: str

    class _UserChanges(TypedDict, total=False):
        content: str

    class _MultimodalChanges(TypedDict, total=False):
        content: tuple[LenientContentBlock, ...]

    class _AssistantChanges(TypedDict, total=False):
        content: str
        tool_calls: tuple[ToolCall, ...]
        thinking: tuple[ThinkingBlock, ...]

    class _ToolResultChanges(TypedDict, total=False):
        tool_use_id: str
        content: str
        provenance: LenientProvenance | Literal["internal", "external"]

    class _ItemsChanges(TypedDict, total=False):
        protocol: str
        items: list[Any] | tuple[object, ...]

    class _ToolCallChanges(TypedDict, total=False):
        id: str | None
        name: str
        arguments: Mapping[str, object]

    class _ThinkingChanges(TypedDict, total=False):
        text: str
        signature: str | None
        redacted_data: str | None

    class _TextChanges(TypedDict, total=False):
        text: str

    class _ImageBase64Changes(TypedDict, total=False):
        data: str
        media_type: str

    class _ImageUrlChanges(TypedDict, total=False):
        url: str
        detail: str

    class _VideoPathChanges(TypedDict, total=False):
        path: str
        fps: float | None
        max_frames: int | None

    class _VideoUrlChanges(TypedDict, total=False):
        url: str
        fps: float | None
        max_frames: int | None

    class _VideoBase64Changes(TypedDict, total=False):
        data: str
        media_type: str
        fps: float | None
        max_frames: int | None

    class _AudioPathChanges(TypedDict, total=False):
        path: str
        sample_rate: int | None

    class _AudioUrlChanges(TypedDict, total=False):
        url: str
        sample_rate: int | None

    class _AudioBase64Changes(TypedDict, total=False):
        data: str
        media_type: str
        sample_rate: int | None

    class _UnknownMessageChanges(TypedDict, total=False):
        role: str
        raw: bytes

    class _UnknownBlockChanges(TypedDict, total=False):
        type: str
        raw: bytes


@overload
def replace(value: SystemMessage, /, **changes: Unpack[_SystemChanges]) -> SystemMessage: ...
@overload
def replace(value: UserMessage, /, **changes: Unpack[_UserChanges]) -> UserMessage: ...
@overload
def replace(
    value: UserMultimodalMessage, /, **changes: Unpack[_MultimodalChanges]
) -> UserMultimodalMessage: ...
@overload
def replace(
    value: AssistantMessage, /, **changes: Unpack[_AssistantChanges]
) -> AssistantMessage: ...
@overload
def replace(
    value: ToolResultMessage, /, **changes: Unpack[_ToolResultChanges]
) -> ToolResultMessage: ...
@overload
def replace(
    value: ProviderOutputItemsMessage, /, **changes: Unpack[_ItemsChanges]
) -> ProviderOutputItemsMessage: ...
@overload
def replace(value: ToolCall, /, **changes: Unpack[_ToolCallChanges]) -> ToolCall: ...
@overload
def replace(value: ThinkingBlock, /, **changes: Unpack[_ThinkingChanges]) -> ThinkingBlock: ...
@overload
def replace(value: TextBlock, /, **changes: Unpack[_TextChanges]) -> TextBlock: ...
@overload
def replace(
    value: ImageBase64Block, /, **changes: Unpack[_ImageBase64Changes]
) -> ImageBase64Block: ...
@overload
def replace(value: ImageUrlBlock, /, **changes: Unpack[_ImageUrlChanges]) -> ImageUrlBlock: ...
@overload
def replace(value: VideoPathBlock, /, **changes: Unpack[_VideoPathChanges]) -> VideoPathBlock: ...
@overload
def replace(value: VideoUrlBlock, /, **changes: Unpack[_VideoUrlChanges]) -> VideoUrlBlock: ...
@overload
def replace(
    value: VideoBase64Block, /, **changes: Unpack[_VideoBase64Changes]
) -> VideoBase64Block: ...
@overload
def replace(value: AudioPathBlock, /, **changes: Unpack[_AudioPathChanges]) -> AudioPathBlock: ...
@overload
def replace(value: AudioUrlBlock, /, **changes: Unpack[_AudioUrlChanges]) -> AudioUrlBlock: ...
@overload
def replace(
    value: AudioBase64Block, /, **changes: Unpack[_AudioBase64Changes]
) -> AudioBase64Block: ...
@overload
def replace(
    value: UnknownMessage, /, **changes: Unpack[_UnknownMessageChanges]
) -> UnknownMessage: ...
@overload
def replace(value: UnknownBlock, /, **changes: Unpack[_UnknownBlockChanges]) -> UnknownBlock: ...
def replace(value: Any, /, **changes: Any) -> Any:
    """A copy of ``value`` with the fields named in ``changes`` replaced.

    The copy goes through the same checks as a value built by calling its
    class, so it can always be encoded and read back equal. Fields a newer
    writer added (kept by lenient decoding) are kept on the copy. An unknown
    field name raises ``TypeError``, as calling the class would, and so
    does a ``value`` that is not a convtypes value; a type checker refuses
    both, and a change of the wrong type, before the program runs.

    Prefer this to ``msgspec.structs.replace``, which checks nothing and
    drops unknown fields.
    """
    if isinstance(value, UnknownMessage):
        return UnknownMessage(**{"role": value.role, "raw": value.raw, **changes})
    if isinstance(value, UnknownBlock):
        return UnknownBlock(**{"type": value.type, "raw": value.raw, **changes})
    if not isinstance(type(value), ValueMeta):
        raise TypeError(f"replace takes a convtypes value, not {type(value).__name__}")
    cls: Any = public_class(type(value))
    fields = {name: getattr(value, name) for name in cls.__struct_fields__}
    fields.update(changes)
    kept = unknown_fields(value)
    if kept:
        return rebuild(cls, fields, kept)
    return cls(**fields)
