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
    LenientContentBlock,
    ProviderOutputItemsMessage,
    SystemMessage,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ._unknown import UnknownBlock, UnknownMessage
from ._value import ValueMeta, replaced

__all__ = ["replace"]


if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._changes import (
        _AssistantChanges,
        _AudioBase64Changes,
        _AudioPathChanges,
        _AudioUrlChanges,
        _ImageBase64Changes,
        _ImageUrlChanges,
        _ItemsChanges,
        _MultimodalChanges,
        _SystemChanges,
        _TextChanges,
        _ThinkingChanges,
        _ToolCallChanges,
        _ToolResultChanges,
        _UnknownBlockChanges,
        _UnknownMessageChanges,
        _UserChanges,
        _VideoBase64Changes,
        _VideoPathChanges,
        _VideoUrlChanges,
    )


@overload
def replace(value: SystemMessage, /, **changes: Unpack[_SystemChanges]) -> SystemMessage: ...
@overload
def replace(value: UserMessage, /, **changes: Unpack[_UserChanges]) -> UserMessage: ...
@overload
def replace(
    value: UserMultimodalMessage, /, **changes: Unpack[_MultimodalChanges[LenientContentBlock]]
) -> UserMultimodalMessage: ...
@overload
def replace(
    value: AssistantMessage, /, **changes: Unpack[_AssistantChanges[ToolCall, ThinkingBlock]]
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
    return replaced(value, changes)
