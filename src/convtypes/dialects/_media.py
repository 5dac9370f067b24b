"""Media types and ``data:`` URLs, read the way the providers mean them.

A media type is case-insensitive (RFC 2045), and ``image/jpg``, which many
programs write, means JPEG. A ``data:`` URL carries its bytes inline: no
provider fetches one, so a dialect that would send a URL by reference sends
its data inline instead.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["DataUrl", "image_type", "media_type", "parse_data_url"]

_ALIASES: Final = {"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg"}


def media_type(value: str) -> str:
    """``value`` in lower case, without parameters (``; charset=...``) or spaces."""
    return value.split(";", 1)[0].strip().lower()


def image_type(value: str) -> str:
    """An image media type in its registered spelling: ``IMAGE/JPG`` is ``image/jpeg``."""
    kind = media_type(value)
    return _ALIASES.get(kind, kind)


class DataUrl:
    """A base64 ``data:`` URL taken apart: its media type and its base64 text."""

    __slots__ = ("data", "media_type")

    def __init__(self, media_type: str, data: str) -> None:
        self.media_type = media_type
        self.data = data


_DATA_URL: Final = re.compile(r"data:([^,;]*)((?:;[^,;]*)*?);base64,(.*)", re.S | re.I)


def parse_data_url(url: str) -> DataUrl | None:
    """The media type and data of a base64 ``data:`` URL; ``None`` for any other URL.

    Only base64 URLs are taken apart; a ``data:`` URL of percent-encoded text
    is returned as ``None`` too, and a dialect sends it as it would any URL.
    """
    if url[:5].lower() != "data:":
        return None
    match = _DATA_URL.fullmatch(url)
    if match is None:
        return None
    return DataUrl(image_type(match.group(1)) or "text/plain", match.group(3))
