"""The changes ``replace`` and ``copy.replace`` take, one TypedDict a class.

Only type checkers read this module. It stands below the values: each value
class names its changes in its ``__replace__``, and ``replace`` names them
in its overloads, so the values need not import ``replace`` to be typed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Generic, Literal, TypedDict, TypeVar

    from ._provenance import LenientProvenance

    # The classes a few changes hold (tool calls, thinking, content blocks)
    # are parameters here, filled in where the changes are used: this module
    # sits below the values it describes and imports none of them.
    _Block = TypeVar("_Block")
    _Call = TypeVar("_Call")
    _Thought = TypeVar("_Thought")

    # The fields each class lets replace change, typed as its constructor takes
    # them, so that a type checker refuses a misspelt field or a wrong value.
    # Only type checkers read these (defining them would cost import time);
    # tests/test_typing.py holds them to the classes' fields.
    class _SystemChanges(TypedDict, total=False):
        content: str

    class _UserChanges(TypedDict, total=False):
        content: str

    class _MultimodalChanges(TypedDict, Generic[_Block], total=False):
        content: tuple[_Block, ...]

    class _AssistantChanges(TypedDict, Generic[_Call, _Thought], total=False):
        content: str
        tool_calls: tuple[_Call, ...]
        thinking: tuple[_Thought, ...]

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
