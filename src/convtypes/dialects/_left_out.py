"""What a request leaves out of the transcript it was built from.

A dialect sends what its provider can take and drops the rest: another
provider's reasoning, items only their own API understands, media the API
has no part for. Each dialect's ``left_out(transcript)`` names those pieces,
so that a backend switching providers can log them, warn, or pick another
model, instead of losing them unannounced.
"""

from __future__ import annotations

from typing import Final, Literal

from msgspec import Struct

from .._content import ContentBlock

__all__ = ["LEFT_OUT_KINDS", "LeftOut", "LeftOutKind", "media_word"]

LeftOutKind = Literal[
    "thinking",
    "signature",
    "redacted-thinking",
    "items",
    "text",
    "image",
    "audio",
    "video",
    "detail",
    "fps",
    "max-frames",
    "sample-rate",
    "call",
    "annotations",
    "cache-control",
]
"""The kinds of content a request can leave out, each a fixed word to match on.

- ``"thinking"``: reasoning the provider takes no copy of (another
  provider's, or any, for an API without a field for it);
- ``"signature"``: a signature the thinking is sent without (the text goes,
  the proof that its provider wrote it does not);
- ``"redacted-thinking"``: encrypted reasoning only its own provider reads;
- ``"items"``: provider output items of another protocol, or parts of this
  protocol's items that the API takes no input for;
- ``"text"``: text the API refuses or ignores (blank text);
- ``"image"``, ``"audio"``, ``"video"``: a media block the API has no part for
  (with ``unsupported="note"`` a short note stands in its place);
- ``"detail"``: an image's ``detail`` the API does not know;
- ``"fps"``: a video's frame rate, which the API cannot be told;
- ``"max-frames"``: a video's limit on the frames to sample, which the API
  cannot be told;
- ``"sample-rate"``: audio's sample rate, which the API cannot be told;
- ``"call"``: a tool call that goes without its arguments or is not sent
  (one cut off at the token limit, which no result answers);
- ``"annotations"``: annotations of a kept reply (citations of a web
  search) that the API has no input field for;
- ``"cache-control"``: a cache marker found in an older transcript's
  items, which the request sends without.
"""

LEFT_OUT_KINDS: Final[tuple[LeftOutKind, ...]] = (
    "thinking",
    "signature",
    "redacted-thinking",
    "items",
    "text",
    "image",
    "audio",
    "video",
    "detail",
    "fps",
    "max-frames",
    "sample-rate",
    "call",
    "annotations",
    "cache-control",
)


class LeftOut(Struct, frozen=True, gc=False):
    """One piece of a transcript that a request does not send.

    ``index`` is the position in the transcript of the message it belongs
    to, ``what`` one of :data:`LeftOutKind`, and ``why`` a sentence for a
    log or a person.
    """

    index: int
    what: LeftOutKind
    why: str


def media_word(block: ContentBlock) -> LeftOutKind:
    """The kind a whole media block is reported as: ``"video"``, ``"audio"`` or ``"image"``."""
    if block.is_video():
        return "video"
    if block.is_audio():
        return "audio"
    return "image"
