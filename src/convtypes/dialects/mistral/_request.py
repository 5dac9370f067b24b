"""The Mistral request: a transcript walked into ``messages``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from ..._content import AudioBase64Block
from ..._messages import (
    Message,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ..._unknown import UnknownMessage
from .._chat_request import GatheredWalk, Media, user_parts
from .._errors import (
    Unsupported,
    check_unsupported,
)
from .._ids import Alnum9Ids, CallIds, usable_alnum9
from .._newer import Unknown, check_unknown
from .._send import tool_result_text, transcript_of
from .._tools import spelled_name
from ._assistant import _Kept, _Turn
from ._wire import AUDIO_TYPES, BRIDGE, DETAILS, DIALECT, IMAGE_TYPES, PROTOCOL, SYSTEM_JOIN


def _audio(block: AudioBase64Block) -> dict[str, Any] | None:
    if block.media_type.lower() in AUDIO_TYPES:
        return {"type": "input_audio", "input_audio": block.data}
    return None


_MEDIA: Final = Media(
    DIALECT,
    IMAGE_TYPES,
    DETAILS,
    no_video="has no chunk for video",
    audio=_audio,
    no_audio="takes audio only inline, as base64 WAV or MP3",
)


class _Walk(GatheredWalk):
    """The walk to Mistral's rules: system messages first, a bridge before a user after tools."""

    protocol = PROTOCOL
    __slots__ = ("moved", "system_texts")

    def __init__(
        self, ids: CallIds, fence_external: bool, unsupported: Unsupported, unknown: Unknown
    ) -> None:
        super().__init__(ids, fence_external, unsupported, None, unknown=unknown)
        self.system_texts: list[str] = []
        self.moved: list[int] = []  # the system messages that came after a sent message

    new_turn = _Turn
    kept = _Kept

    def result(self, index: int, message: ToolResultMessage, previous: Any) -> Any:
        if self.turn is not None:
            self.close()
        call = self.ids.result(index, message)
        self.out.append(
            {
                "role": "tool",
                "tool_call_id": call.out_id,
                "name": spelled_name(call.name),  # as its call goes
                "content": tool_result_text(message, self.fence_external),
            }
        )

    def user(self, index: int, message: UserMessage, previous: Any) -> Any:
        self._bridge(index)
        self.out.append({"role": "user", "content": message.content})

    def user_blocks(self, index: int, message: UserMultimodalMessage, previous: Any) -> Any:
        self._bridge(index)
        self.out.append({"role": "user", "content": self.parts(index, message.content)})

    def _bridge(self, index: int) -> None:
        """Open a user turn; Mistral refuses one right after a tool message: an assistant
        message goes between."""
        if self.turn is not None:
            self.close()
        self.ids.user(index)
        out = self.out
        if out and out[-1]["role"] == "tool":
            out.append({"role": "assistant", "content": BRIDGE})

    def parts(self, index: int, blocks: Iterable[object]) -> list[dict[str, Any]]:
        return user_parts(index, blocks, self.unsupported, None, _MEDIA)

    def system(self, index: int, message: SystemMessage, previous: Any) -> Any:
        self.system_texts.append(message.content)
        if message.content and (self.out or self.turn is not None):
            self.moved.append(index)
        return previous  # it goes first, so the turn around it goes on

    def finish(self) -> None:
        self.close()
        out = self.out
        if out and out[-1]["role"] == "assistant" and "tool_calls" not in out[-1]:
            out[-1]["prefix"] = True
        if self.system_texts:
            out.insert(0, {"role": "system", "content": SYSTEM_JOIN.join(self.system_texts)})


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
    unknown: Unknown = "raise",
) -> dict[str, Any]:
    """The conversation part of a chat completions request body: ``{"messages": [...]}``.

    The caller adds ``model`` and the rest (``tools_to_request`` gives the
    tool fields). External tool results are fenced unless
    ``fence_external`` is False. See the module for how the transcript is
    shaped to Mistral's rules. A message of a role this version does not
    know raises ``UnsupportedContent``, or with ``unknown="skip"`` is left
    out. The request shares no mutable value with the transcript.
    """
    check_unsupported(unsupported)
    check_unknown(unknown)
    transcript = transcript_of(messages, "to_request")
    ids = Alnum9Ids(transcript, usable_alnum9, DIALECT)
    return {"messages": _Walk(ids, fence_external, unsupported, unknown).walk(transcript)}


def _moved(transcript: list[Any], unsupported: Unsupported, unknown: Unknown) -> list[int]:
    """Walk ``transcript`` as :func:`to_request` does (raising what it raises); the indexes
    of the system messages it moves to the front, having met them after a sent message."""
    ids = Alnum9Ids(transcript, usable_alnum9, DIALECT)
    walk = _Walk(ids, True, unsupported, unknown)
    walk.walk(transcript)
    return walk.moved
