"""What a request leaves out of the transcript it was built from.

A dialect sends what its provider can take and drops the rest: another
provider's reasoning, items only their own API understands, media the API
has no part for. Each dialect's ``left_out(transcript)`` names those pieces,
so that a backend switching providers can log them, warn, or pick another
model, instead of losing them unannounced.
"""

from __future__ import annotations

from typing import Any, Final, Literal
from urllib.parse import quote

from msgspec import Struct

from .._errors import WireError
from .._messages import ProviderOutputItemsMessage, SystemMessage, ToolResultMessage
from .._pending import check_fields
from .._unknown import UnknownMessage

__all__ = [
    "LEFT_OUT_KINDS",
    "LeftOut",
    "LeftOutKind",
    "in_item",
    "media_kind",
    "pointer",
    "waits_for_results",
]

PAST_RESULTS: Final = (
    "a system message between tool calls and their results goes after the results, "
    "which the API wants right after the calls"
)
"""The ``why`` of a system message that :func:`waits_for_results` moved."""

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
    "position",
    "unknown",
    "duplicate",
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
  items, which the request sends without;
- ``"position"``: a message that is sent, but not where the transcript has
  it: a system message after the conversation began, which goes to the
  top of the request because the API takes system text nowhere else
  (Gemini's ``system_instruction``, Mistral's first message), or that
  stood between tool calls and their results and goes after the results,
  because Anthropic and Bedrock want the results right after the calls
  (see :func:`waits_for_results`). What the model reads of it no longer
  stands where the transcript put it;
- ``"unknown"``: what a newer writer made that this version does not know:
  a message of an unknown role, which ``to_request(..., unknown="skip")``
  leaves out, or a field a known message, block or call carries from lenient
  decoding, which no request sends;
- ``"duplicate"``: a message that is a copy of an earlier one (a reply or a
  tool result stored twice, ids and all, as a sync merge can leave it),
  which goes once: the whole message is left out (see
  :func:`convtypes.check_conversation`'s ``duplicate-reply``).
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
    "position",
    "unknown",
    "duplicate",
)


class LeftOut(Struct, frozen=True, gc=False):
    """One piece of a transcript that a request does not send.

    ``index`` is the position in the transcript of the message it belongs
    to, ``what`` one of :data:`LeftOutKind`, and ``why`` a sentence for a
    log or a person. Every dialect starts ``why`` with the piece's place in
    its message, in the same words, so that a program can find the piece:

    - ``"block N: "``: content block ``N`` of a multimodal user message;
    - ``"thinking block N: "``: thinking block ``N`` of an assistant message;
    - ``"item N: "``: item ``N`` of a provider items message, the whole item
      (a Gemini part, an Anthropic block, a Responses item);
    - ``"item N at /a/b: "``: what item ``N`` holds at that JSON Pointer (RFC
      6901, in its URI fragment form without the ``#``), such as
      ``"item 0 at /annotations: "`` or ``"item 0 at /tool_calls/2: "``;
    - ``"at /a: "``, ``"block N at /a: "``, ``"call N at /a: "``,
      ``"thinking block N at /a: "``: a field that lenient decoding kept on
      the message itself, on its content block ``N``, its tool call ``N`` or
      its thinking block ``N`` (``"unknown"``).

    A ``why`` with no place names the message itself: its text, for
    ``"text"`` (the blank text of a system, user or assistant message), or
    the whole message (items of another protocol, a message of an unknown
    role).
    """

    index: int
    what: LeftOutKind
    why: str

    def __post_init__(self) -> None:
        # Checked when built, as every convtypes value is.
        index: Any = self.index
        if type(index) is not int or index < 0:
            raise WireError(
                f"expected a message index (an int from 0), got {index!r:.40}", "$.index"
            )
        what: Any = self.what
        if type(what) is not str or what not in LEFT_OUT_KINDS:
            raise WireError(f"expected one of LeftOutKind's words, got {what!r:.40}", "$.what")
        check_fields(self, ("why",))


def waits_for_results(transcript: list[Any], index: int, protocol: str) -> bool:
    """Whether the system message at ``index`` stands before tool results.

    Anthropic and Bedrock take a system message among the turns, but a
    turn's tool calls must be answered by the very next user turn, so a
    system message between the calls and their results (or between two of
    the results) waits until the results are given. It is so when the next
    message that the request sends something of is a tool result: system
    messages, unknown ones and another ``protocol``'s items are passed over.
    """
    for message in transcript[index + 1 :]:
        if isinstance(message, (SystemMessage, UnknownMessage)) or (
            isinstance(message, ProviderOutputItemsMessage) and message.protocol != protocol
        ):
            continue
        return isinstance(message, ToolResultMessage)
    return False


def in_item(position: int, *path: str | int) -> str:
    """The place of item ``position`` of an items message, or of what it holds at ``path``.

    ``in_item(0)`` is ``"item 0"``; ``in_item(0, "tool_calls", 2)`` is
    ``"item 0 at /tool_calls/2"``, each step escaped as RFC 6901 asks and
    percent-encoded, so that the place ends at the first ``": "``.
    """
    if not path:
        return f"item {position}"
    return f"item {position} at {pointer(*path)}"


def pointer(*path: str | int) -> str:
    """``path`` as a JSON Pointer in its URI fragment form: ``pointer("a", 2)`` is ``"/a/2"``.

    Each step is escaped as RFC 6901 asks and percent-encoded, so that a
    place written with it ends at the first ``": "``.
    """
    steps = (quote(str(step).replace("~", "~0").replace("/", "~1"), safe="~") for step in path)
    return "/" + "/".join(steps)


def media_kind(block: object) -> LeftOutKind:
    """The word for a media block a request leaves out: ``"video"``, ``"audio"`` or ``"image"``."""
    is_video = getattr(block, "is_video", None)
    if callable(is_video) and is_video():
        return "video"
    is_audio = getattr(block, "is_audio", None)
    if callable(is_audio) and is_audio():
        return "audio"
    return "image"


def duplicate(index: int, copy: str) -> LeftOut:
    """The note for message ``index``, a copy that is not sent (``copy`` as ``repeated`` says)."""
    what = "reply" if copy == "reply" else "tool result"
    return LeftOut(index, "duplicate", f"a copy of a {what} stored earlier; it goes once")
