"""The Cohere request: a transcript walked into ``messages``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from ..._messages import (
    Message,
)
from ..._unknown import UnknownMessage
from .._chat_request import GatheredWalk, Media, user_parts
from .._errors import (
    Unsupported,
    check_unsupported,
)
from .._ids import CallIds
from .._newer import Unknown, check_unknown
from .._send import transcript_of
from ._assistant import _Kept, _Turn, _usable_id
from ._wire import DETAILS, DIALECT, IMAGE_TYPES, PROTOCOL

_MEDIA: Final = Media(
    DIALECT,
    IMAGE_TYPES,
    DETAILS,
    no_video="has no content item for video",
    no_audio="has no content item for audio",
)


class _Walk(GatheredWalk):
    """The walk to Cohere's rules: the messages and items of a turn go as one message."""

    protocol = PROTOCOL
    results_first = True
    __slots__ = ()

    new_turn = _Turn
    kept = _Kept

    def parts(self, index: int, blocks: Iterable[object]) -> list[dict[str, Any]]:
        return user_parts(index, blocks, self.unsupported, None, _MEDIA)


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
    unknown: Unknown = "raise",
) -> dict[str, Any]:
    """The conversation part of a v2 chat request: ``{"messages": [...]}``.

    Pass it to ``ClientV2.chat(model=..., **body)`` with the fields of
    ``tools_to_request``, or POST it as JSON. External tool results are
    fenced unless ``fence_external`` is False. See the module for how the
    transcript is shaped to Cohere's rules. The request shares no mutable
    value with the transcript. A message of a role this version does not
    know raises ``UnsupportedContent``, or with ``unknown="skip"`` is left
    out.
    """
    check_unsupported(unsupported)
    check_unknown(unknown)
    transcript = transcript_of(messages, "to_request")
    ids = CallIds(transcript, _usable_id, DIALECT)
    return {
        "messages": _Walk(ids, fence_external, unsupported, None, unknown=unknown).walk(transcript)
    }
