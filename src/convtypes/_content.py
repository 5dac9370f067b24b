"""Content blocks: the pieces of a multimodal user turn, tagged on ``"type"``.

Each block is a frozen msgspec Struct, built with keywords only. The field
order is the wire order.
Optional numbers (``fps``, ``max_frames``, ``sample_rate``) are left off the
wire when ``None``; ``ImageUrlBlock.detail`` is always written, as the
reference writes it.
"""

import math
import struct
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Final, Union, get_args

from msgspec import Meta, Struct
from msgspec.structs import force_setattr

from ._errors import WireError
from ._value import Check, ValueMeta, as_text, replaced

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._changes import (
        _AudioBase64Changes,
        _AudioPathChanges,
        _AudioUrlChanges,
        _ImageBase64Changes,
        _ImageUrlChanges,
        _TextChanges,
        _VideoBase64Changes,
        _VideoPathChanges,
        _VideoUrlChanges,
    )

Checks = Mapping[str, Check]

__all__ = [
    "U32_MAX",
    "AudioBase64Block",
    "AudioPathBlock",
    "AudioUrlBlock",
    "ContentBlock",
    "ImageBase64Block",
    "ImageUrlBlock",
    "TextBlock",
    "VideoBase64Block",
    "VideoPathBlock",
    "VideoUrlBlock",
]

U32_MAX: Final = 2**32 - 1
"""The largest ``max_frames`` or ``sample_rate``: the reference stores a u32."""

# msgspec checks these bounds while decoding, in C; the construction checks
# below hold values built in Python to the same bounds.
U32 = Annotated[int, Meta(ge=0, le=U32_MAX)]

_F32 = struct.Struct("<f")
_F32_MAX: Final = 3.4028234663852886e38
# Above this magnitude a double rounds to infinity as an f32 (FLT_MAX plus
# half a unit in the last place); below it, to at most FLT_MAX.
_F32_OVERFLOW: Final = 3.4028235677973366e38


def _as_f32(value: float) -> float:
    """Round a finite double to the nearest f32, as a Rust ``as f32`` cast does."""
    if abs(value) >= _F32_OVERFLOW:
        raise OverflowError
    if abs(value) > _F32_MAX:
        # struct refuses these although they round down to FLT_MAX.
        return math.copysign(_F32_MAX, value)
    return float(_F32.unpack(_F32.pack(value))[0])


def _round_to_f32(value: float) -> float:
    """Return the number the reference holds for ``value`` as an f32.

    The reference keeps ``fps`` in 32 bits and writes the shortest decimal
    that reads back to the same f32. Storing that decimal (as a Python float)
    makes the value equal to the reference's and, for ordinary frame rates,
    makes msgspec write the same digits.
    """
    if not math.isfinite(value):
        raise WireError(f"expected a finite fps, got {value!r}", "$.fps")
    try:
        single = _as_f32(value)
    except OverflowError:
        raise WireError(f"expected an fps within the f32 range, got {value!r}", "$.fps") from None
    for digits in range(1, 10):
        candidate = float(f"{single:.{digits}g}")
        if abs(candidate) < _F32_OVERFLOW and _as_f32(candidate) == single:
            return candidate
    return single  # pragma: no cover - nine digits always round-trip an f32


def _as_fps(value: Any, name: str) -> float | None:
    """Check an ``fps`` field: a finite number, held at f32 precision."""
    if value is None:
        return None
    if type(value) is not float:
        if type(value) is bool or not isinstance(value, (int, float)):
            raise WireError(f"expected a number, got {type(value).__name__}", f"$.{name}")
        try:
            value = float(value)
        except OverflowError:
            raise WireError("expected an fps within the f32 range", f"$.{name}") from None
    exact = _round_to_f32(value)
    return exact if exact != value else value


def _as_u32(value: Any, name: str) -> int | None:
    """Check a ``max_frames`` or ``sample_rate`` field: ``None`` or a u32."""
    if value is None:
        return None
    # bool is an int subclass but would be written as true/false.
    if type(value) is not int and isinstance(value, int) and type(value) is not bool:
        value = int(value)
    if type(value) is not int or not 0 <= value <= U32_MAX:
        shown = repr(value) if isinstance(value, (int, float)) else type(value).__name__
        raise WireError(f"expected an integer in 0..{U32_MAX}, got {shown}", f"$.{name}")
    return value


# Struct options shared by every block, chosen for speed without touching the
# wire: frozen values are immutable, and hashable when their fields are;
# gc=False because a block only holds strings and numbers, so it can never be
# part of a reference cycle and the collector need not track it; kw_only so
# that required fields may follow defaulted ones in wire order, so that a
# field added later cannot shift anyone's arguments, and so that call sites
# name every field (msgspec applies kw_only to the fields of the class that
# says so, hence it is repeated on every class). forbid_unknown_fields does
# not refuse anything in the end: it sends a document with unknown fields
# down the careful path in _careful.py, so the common document pays nothing
# to find out.
class _Block(
    Struct,
    metaclass=ValueMeta,
    frozen=True,
    kw_only=True,
    gc=False,
    omit_defaults=True,
    forbid_unknown_fields=True,
    tag_field="type",
):
    """Behaviour shared by every content block."""

    def is_video(self) -> bool:
        """``True`` when the block carries video, in any encoding."""
        return False

    def is_audio(self) -> bool:
        """``True`` when the block carries audio, in any encoding."""
        return False

    if not TYPE_CHECKING:  # each class types it for checkers, with its own fields

        def __replace__(self, /, **changes):
            """What ``copy.replace`` calls: :func:`convtypes.replace`, checks and all."""
            return replaced(self, changes)


class TextBlock(_Block, frozen=True, kw_only=True, tag="text"):
    """Plain text."""

    text: str

    _checks: ClassVar[Checks] = {"text": as_text}

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_TextChanges]) -> "TextBlock":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...


class ImageBase64Block(_Block, frozen=True, kw_only=True, tag="image_base64"):
    """An image sent inline as base64."""

    data: str
    media_type: str
    """A MIME type such as ``image/png``."""

    _checks: ClassVar[Checks] = {"data": as_text, "media_type": as_text}

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_ImageBase64Changes]) -> "ImageBase64Block":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...


# omit_defaults is off here: the reference always writes ``detail``, and
# msgspec would otherwise leave out a ``detail`` that is the default object.
class ImageUrlBlock(_Block, frozen=True, kw_only=True, tag="image_url", omit_defaults=False):
    """An image the provider fetches by URL."""

    url: str
    detail: str = "auto"
    """How closely the provider should look: ``auto``, ``low`` or ``high``."""

    _checks: ClassVar[Checks] = {"url": as_text, "detail": as_text}

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_ImageUrlChanges]) -> "ImageUrlBlock":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...


class _Video(_Block, frozen=True, kw_only=True):
    _checks: ClassVar[Checks] = {"fps": _as_fps, "max_frames": _as_u32}

    def is_video(self) -> bool:
        """``True``: this block carries video."""
        return True

    def __post_init__(self) -> None:
        # Runs for decoded values too: the reference holds fps as an f32, so
        # a decoded fps is rounded to what the reference would write. For a
        # value built in Python, the checks of ValueMeta run after this one,
        # so a value of the wrong type is left for them to report.
        fps = getattr(self, "fps", None)
        if type(fps) is float:
            exact = _round_to_f32(fps)
            if exact != fps:
                force_setattr(self, "fps", exact)


class VideoPathBlock(_Video, frozen=True, kw_only=True, tag="video_path"):
    """A video file on the local filesystem.

    ``fps`` asks the backend to sample that many frames a second, and
    ``max_frames`` caps how many frames it takes; ``None`` leaves both to the
    backend. ``fps`` is held at f32 precision, as the reference holds it.
    """

    path: str
    fps: float | None = None
    max_frames: U32 | None = None

    _checks: ClassVar[Checks] = {"path": as_text}

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_VideoPathChanges]) -> "VideoPathBlock":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...


class VideoUrlBlock(_Video, frozen=True, kw_only=True, tag="video_url"):
    """A video fetched over HTTP(S); ``fps`` and ``max_frames`` as for a path."""

    url: str
    fps: float | None = None
    max_frames: U32 | None = None

    _checks: ClassVar[Checks] = {"url": as_text}

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_VideoUrlChanges]) -> "VideoUrlBlock":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...


class VideoBase64Block(_Video, frozen=True, kw_only=True, tag="video_base64"):
    """A video sent inline as base64; costly, so prefer a path or URL."""

    data: str
    media_type: str
    fps: float | None = None
    max_frames: U32 | None = None

    _checks: ClassVar[Checks] = {"data": as_text, "media_type": as_text}

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_VideoBase64Changes]) -> "VideoBase64Block":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...


class _Audio(_Block, frozen=True, kw_only=True):
    _checks: ClassVar[Checks] = {"sample_rate": _as_u32}

    def is_audio(self) -> bool:
        """``True``: this block carries audio."""
        return True


class AudioPathBlock(_Audio, frozen=True, kw_only=True, tag="audio_path"):
    """An audio file on the local filesystem.

    ``sample_rate`` is a hint in Hz; most backends resample anyway.
    """

    path: str
    sample_rate: U32 | None = None

    _checks: ClassVar[Checks] = {"path": as_text}

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_AudioPathChanges]) -> "AudioPathBlock":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...


class AudioUrlBlock(_Audio, frozen=True, kw_only=True, tag="audio_url"):
    """Audio fetched over HTTP(S)."""

    url: str
    sample_rate: U32 | None = None

    _checks: ClassVar[Checks] = {"url": as_text}

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_AudioUrlChanges]) -> "AudioUrlBlock":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...


class AudioBase64Block(_Audio, frozen=True, kw_only=True, tag="audio_base64"):
    """Audio sent inline as base64."""

    data: str
    media_type: str
    sample_rate: U32 | None = None

    _checks: ClassVar[Checks] = {"data": as_text, "media_type": as_text}

    if TYPE_CHECKING:

        def __replace__(self, /, **changes: Unpack[_AudioBase64Changes]) -> "AudioBase64Block":
            """What ``copy.replace`` (Python 3.13) calls: :func:`convtypes.replace`."""
            ...


ContentBlock = Union[
    TextBlock,
    ImageBase64Block,
    ImageUrlBlock,
    VideoPathBlock,
    VideoUrlBlock,
    VideoBase64Block,
    AudioPathBlock,
    AudioUrlBlock,
    AudioBase64Block,
]
"""Any content block; ``type`` on the wire says which."""

CONTENT_BLOCK_TYPES: Final = get_args(ContentBlock)
