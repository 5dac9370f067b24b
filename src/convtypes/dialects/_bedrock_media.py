"""Media for Bedrock's Converse API: formats by name, bytes inline, files on S3.

Converse names a medium's format with a word of its own (``jpeg``, ``mov``,
``three_gp``) rather than a media type, takes the data as raw bytes (boto3
encodes them), and fetches nothing from the web: the only location it reads
is an object on S3. So a base64 block is decoded here, a ``data:`` URL too,
an ``s3://`` URL goes as an ``s3Location`` with the format its extension
names, and any other URL cannot be sent.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Final

from .._content import (
    AudioBase64Block,
    AudioUrlBlock,
    ImageBase64Block,
    ImageUrlBlock,
    VideoBase64Block,
    VideoUrlBlock,
)
from ._media import image_type, media_type, parse_data_url

__all__ = ["media_block"]

IMAGE_FORMATS: Final = {
    "image/jpeg": "jpeg",
    "image/png": "png",
    "image/gif": "gif",
    "image/webp": "webp",
}
VIDEO_FORMATS: Final = {
    "video/x-matroska": "mkv",
    "video/quicktime": "mov",
    "video/mp4": "mp4",
    "video/webm": "webm",
    "video/x-flv": "flv",
    "video/mpeg": "mpeg",
    "video/x-ms-wmv": "wmv",
    "video/3gpp": "three_gp",
}
AUDIO_FORMATS: Final = {
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
    "audio/opus": "opus",
    "audio/ogg": "ogg",
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/aac": "aac",
    "audio/x-aac": "x-aac",
    "audio/flac": "flac",
    "audio/x-flac": "flac",
    "audio/mp4": "mp4",
    "audio/m4a": "m4a",
    "audio/x-m4a": "m4a",
    "audio/x-matroska": "mka",
    "audio/webm": "webm",
    "audio/pcm": "pcm",
}
# The format an S3 object's extension names, for each medium.
_EXTENSIONS: Final = {
    "image": {"jpg": "jpeg", "jpeg": "jpeg", "png": "png", "gif": "gif", "webp": "webp"},
    "video": {
        "mkv": "mkv",
        "mov": "mov",
        "mp4": "mp4",
        "webm": "webm",
        "flv": "flv",
        "mpeg": "mpeg",
        "mpg": "mpg",
        "wmv": "wmv",
        "3gp": "three_gp",
    },
    "audio": {
        "mp3": "mp3",
        "opus": "opus",
        "ogg": "ogg",
        "wav": "wav",
        "aac": "aac",
        "flac": "flac",
        "m4a": "m4a",
        "mka": "mka",
    },
}
# The S3 URIs the API takes (its own pattern and length).
_S3_URI: Final = re.compile(r"s3://[a-z0-9][\.\-a-z0-9]{1,61}[a-z0-9](/.*)?", re.S)
_S3_MAX: Final = 1024


def decoded(data: str) -> bytes | None:
    """The bytes of base64 text, or ``None`` if it is not base64 or holds nothing.

    Line breaks and spaces in the text are skipped, as most decoders skip
    them; a wrong length or a character outside the alphabet's ASCII is not.
    """
    try:
        raw = base64.b64decode(data)
    except (ValueError, binascii.Error):
        return None
    return raw or None


def _inline(kind: str, formats: dict[str, str], given: str, data: str) -> tuple[Any, str]:
    name = image_type(given) if kind == "image" else media_type(given)
    fmt = formats.get(name)
    if fmt is None:
        known = ", ".join(sorted(formats))
        return None, f"takes no {given!r:.60} {kind} (only {known})"
    raw = decoded(data)
    if raw is None:
        return None, f"takes {kind} data as bytes, and this {kind}'s base64 is empty or malformed"
    return {kind: {"format": fmt, "source": {"bytes": raw}}}, ""


def _by_url(kind: str, formats: dict[str, str], url: str) -> tuple[Any, str]:
    if url[:5].lower() == "data:":
        inline = parse_data_url(url)
        if inline is None:
            return None, "takes a data: URL only in base64"
        return _inline(kind, formats, inline.media_type, inline.data)
    if url[:5].lower() != "s3://":
        return None, f"cannot fetch {kind} from a URL; it reads s3:// locations and data: URLs"
    if len(url) > _S3_MAX or _S3_URI.fullmatch(url) is None:
        return None, "takes S3 locations of the form s3://bucket/key, with a lower-case bucket"
    name = url.rsplit("/", 1)[-1]
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    fmt = _EXTENSIONS[kind].get(extension)
    if fmt is None:
        return None, f"cannot tell this S3 object's {kind} format from its name"
    return {kind: {"format": fmt, "source": {"s3Location": {"uri": url}}}}, ""


def media_block(block: object) -> tuple[dict[str, Any] | None, str]:
    """The Converse block for a media block, or ``None`` and why it cannot go.

    ``block`` is any content block but text; the reason is worded to follow
    "Bedrock", as the dialects word their refusals.
    """
    if isinstance(block, ImageBase64Block):
        return _inline("image", IMAGE_FORMATS, block.media_type, block.data)
    if isinstance(block, ImageUrlBlock):
        return _by_url("image", IMAGE_FORMATS, block.url)
    if isinstance(block, VideoBase64Block):
        return _inline("video", VIDEO_FORMATS, block.media_type, block.data)
    if isinstance(block, VideoUrlBlock):
        return _by_url("video", VIDEO_FORMATS, block.url)
    if isinstance(block, AudioBase64Block):
        return _inline("audio", AUDIO_FORMATS, block.media_type, block.data)
    if isinstance(block, AudioUrlBlock):
        return _by_url("audio", AUDIO_FORMATS, block.url)
    return None, "cannot read a local path"
