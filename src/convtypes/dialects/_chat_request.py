"""The walk of a transcript into the ``messages`` of a chat-completions-shaped request.

OpenAI's Chat Completions, Mistral, Cohere and Ollama take a conversation as
a list of role-tagged messages, and each of their dialects walks the
transcript the same way: a tool result answers its call's id, a user message
opens a user turn, an assistant message follows the kept message (a provider
output item of the dialect's own protocol) before it by sending only what
that item lacks, another provider's items are dropped, and a message a newer
writer made is refused, or walked past under ``unknown="skip"``
(:meth:`ChatWalk.skip`). :class:`ChatWalk` is that walk; a dialect
subclasses it and overrides the hooks its wire differs in (the shape of a
result, of a user's media, of an assistant turn). Where a wire gathers the
assistant messages and items of one turn into one message (Mistral,
Cohere), :class:`GatheredWalk` keeps the turn open until a message of
another role comes, and :class:`ChatTurn` is the turn being gathered.

The walk hands each message to the hook for its type, with the kept message
right before it (``previous``); the hook returns the kept message the next
one follows (``None`` for all but a dialect's own items). Hooks are looked up
once a walk, by the message's exact type, so that a long transcript pays one
dict lookup a message, not a chain of ``isinstance`` checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from .._content import AudioBase64Block, ImageBase64Block, ImageUrlBlock, TextBlock
from .._conversation import repeated
from .._messages import (
    AssistantMessage,
    ProviderOutputItemsMessage,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from .._unknown import UnknownBlock, UnknownMessage
from ._chat_kept import KeptCalls
from ._copy import copy_json
from ._errors import (
    Unsupported,
    not_a_message,
    note_text,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from ._ids import CallIds
from ._json import arguments_json
from ._left_out import PAST_RESULTS, LeftOut, duplicate, media_kind, waits_for_results
from ._media import image_type
from ._newer import Unknown, newer_notes
from ._send import data_url, tool_result_text

Hook = Callable[[int, Any, Any], Any]
"""A walk's hook: given a message's index, the message and the kept message before it,
it sends the message and returns the kept message the next one follows."""


def function_call(call_id: str | None, call: ToolCall, name: str | None = None) -> dict[str, Any]:
    """A function call as chat-completions wires take it: arguments as JSON text, no id if none.

    ``name`` is the call's name as the wire spells it (its own by default).
    """
    function = {
        "name": call.name if name is None else name,
        "arguments": arguments_json(call.arguments),
    }
    if call_id is None:
        return {"type": "function", "function": function}
    return {"id": call_id, "type": "function", "function": function}


class ChatWalk:
    """One walk of a transcript into a request's ``messages``; a dialect subclasses it.

    ``ids`` names each call and finds each result's call; ``notes``, when
    not ``None``, gets what the request leaves out (``left_out`` walks with
    it); ``thinking`` is the dialect's own say on earlier thinking, if it
    has one (OpenAI Chat's ``reasoning=`` field, Ollama's ``thinking=``).
    Override :meth:`assistant` and :meth:`item` always, and the other
    hooks where the wire differs from the plain Chat Completions shape.
    """

    protocol: ClassVar[str]
    """The ``protocol`` of the provider output items the dialect replays."""

    results_first: ClassVar[bool] = False
    """Whether the API wants a turn's tool results right after its calls.

    Where it does (OpenAI Chat, Cohere), a system message standing between
    calls and their results is sent after the results, and noted as moved
    (see :func:`~convtypes.dialects._left_out.waits_for_results`).
    """

    __slots__ = (
        "fence_external",
        "ids",
        "notes",
        "out",
        "thinking",
        "turn",
        "unknown",
        "unsupported",
    )

    def __init__(
        self,
        ids: CallIds,
        fence_external: bool,
        unsupported: Unsupported,
        notes: list[LeftOut] | None,
        thinking: Any = None,
        unknown: Unknown = "raise",
    ) -> None:
        self.ids = ids
        self.fence_external = fence_external
        self.unsupported = unsupported
        self.notes = notes
        self.thinking = thinking
        self.unknown = unknown
        self.out: list[dict[str, Any]] = []
        self.turn: ChatTurn | None = None  # the turn being gathered (see GatheredWalk)

    def walk(self, transcript: list[Any]) -> list[dict[str, Any]]:
        """The request's messages for ``transcript``, in order."""
        hooks: dict[type, Hook] = {
            ToolResultMessage: self.result,
            AssistantMessage: self.assistant,
            UserMessage: self.user,
            UserMultimodalMessage: self.user_blocks,
            SystemMessage: self.system,
            ProviderOutputItemsMessage: self.items,
        }
        if self.unknown == "skip":
            hooks[UnknownMessage] = self.skip
        notes = self.notes
        kept: Any = None
        held: list[tuple[int, SystemMessage]] = []  # system messages waiting for results
        copies = repeated(transcript)
        for index, message in enumerate(transcript):
            if copies and index in copies:
                if notes is not None:
                    notes.append(duplicate(index, copies[index]))
                continue  # sent once: walked past, as an unknown message is
            hook = hooks.get(type(message))
            if hook is None:
                hook = self._hook_of(index, message, hooks)
            waits = (
                self.results_first
                and isinstance(message, SystemMessage)
                and waits_for_results(transcript, index, self.protocol)
            )
            if held and not waits and not self._passes(message):
                for at, system in held:
                    kept = self.system(at, system, kept)
                held = []
            if waits:
                held.append((index, message))
                if notes is not None:
                    notes.append(LeftOut(index, "position", PAST_RESULTS))
            else:
                kept = hook(index, message, kept)
            if notes is not None:
                notes += newer_notes(index, message)
        for at, system in held:
            kept = self.system(at, system, kept)
        self.finish()
        return self.out

    def _passes(self, message: object) -> bool:
        """Whether held system messages still wait past ``message`` (see ``results_first``)."""
        return isinstance(message, (ToolResultMessage, UnknownMessage)) or (
            isinstance(message, ProviderOutputItemsMessage) and message.protocol != self.protocol
        )

    @staticmethod
    def _hook_of(index: int, message: object, hooks: dict[type, Hook]) -> Hook:
        """The hook for a message of a subclass of a message type; refuse anything else."""
        for kind, hook in hooks.items():
            if isinstance(message, kind):
                return hook
        if isinstance(message, UnknownMessage):
            raise unknown_message(index, message)
        raise not_a_message(index, message)

    # --- hooks ---------------------------------------------------------------------------

    def skip(self, index: int, message: UnknownMessage, previous: Any) -> Any:
        """A message a newer writer made, under ``unknown="skip"``: walked past, unsent.

        What the next message follows is what this one would have: the walk
        goes on as if it were not there (see :mod:`convtypes.dialects._newer`).
        """
        return previous

    def assistant(self, index: int, message: AssistantMessage, previous: Any) -> Any:
        """Send an assistant message (after ``previous``, only what that kept item lacks)."""
        raise NotImplementedError

    def item(self, index: int, place: int, item: dict[str, Any]) -> Any:
        """Send one of the dialect's own items, the ``place``-th of its message; its kept form."""
        raise NotImplementedError

    def result(self, index: int, message: ToolResultMessage, previous: Any) -> Any:
        """A ``tool`` message naming the call it answers by its id."""
        if self.turn is not None:
            self.close()
        self.out.append(
            {
                "role": "tool",
                "tool_call_id": self.ids.result(index, message).out_id,
                "content": tool_result_text(message, self.fence_external),
            }
        )

    def user(self, index: int, message: UserMessage, previous: Any) -> Any:
        if self.turn is not None:
            self.close()
        self.ids.user(index)
        self.out.append({"role": "user", "content": message.content})

    def user_blocks(self, index: int, message: UserMultimodalMessage, previous: Any) -> Any:
        if self.turn is not None:
            self.close()
        self.ids.user(index)
        self.out.append({"role": "user", "content": self.parts(index, message.content)})

    def parts(self, index: int, blocks: Iterable[object]) -> list[dict[str, Any]]:
        """A user message's content parts, for :meth:`user_blocks`."""
        raise NotImplementedError

    def system(self, index: int, message: SystemMessage, previous: Any) -> Any:
        if self.turn is not None:
            self.close()
        self.out.append({"role": "system", "content": message.content})

    def items(self, index: int, message: ProviderOutputItemsMessage, previous: Any) -> Any:
        """Hand each of the dialect's own items to :meth:`item`; another provider's are dropped."""
        if message.protocol != self.protocol:
            return self.foreign(index, message, previous)
        kept = None
        for place, item in enumerate(message.items):
            if isinstance(item, dict):
                self.ids.assistant()
                kept = self.item(index, place, item)
            elif self.notes is not None:
                self.notes.append(LeftOut(index, "items", self.not_an_object(place)))
        return kept

    def foreign(self, index: int, message: ProviderOutputItemsMessage, previous: Any) -> Any:
        """Another provider's items: they have no place here. What the next message follows."""
        return None

    def not_an_object(self, place: int) -> str:
        """Why an item that is no message object is left out (for ``notes``)."""
        return f"item {place}: an item that is not a message object has no place in the request"

    def close(self) -> None:
        """End the assistant turn being gathered, if any (see :class:`GatheredWalk`)."""

    def finish(self) -> None:
        """After the last message: end the turn being gathered, if any."""
        self.close()


class ChatTurn:
    """One assistant message of a request, gathered from a run of messages and items.

    ``calls`` are its tool calls as the wire takes them. A dialect says how
    a message's own content goes (:meth:`said`), how text is added
    (:meth:`text`), how a call is written (:meth:`call_out`) and how a kept
    item's content is taken (:meth:`content_parts`); :meth:`message` writes the
    turn.
    """

    __slots__ = ("calls",)

    def __init__(self) -> None:
        self.calls: list[Any] = []

    def said(self, message: AssistantMessage) -> None:
        """Add what ``message`` says besides its calls."""
        if message.content:
            self.text(message.content)

    def text(self, text: str) -> None:
        raise NotImplementedError

    def call_out(self, call_id: str | None, call: ToolCall) -> dict[str, Any]:
        raise NotImplementedError

    def content_parts(self, parts: list[Any]) -> None:
        """Add a kept item's list of content parts, as they came."""
        raise NotImplementedError

    def replayed(self, index: int, calls: list[Any], ids: CallIds) -> list[Any]:
        """A kept item's calls as they go back, their ids entered in ``ids``."""
        raise NotImplementedError

    def flat(self, index: int, message: AssistantMessage, ids: CallIds) -> None:
        """Add an assistant message that follows no kept item."""
        self.said(message)
        call_out = self.call_out
        self.calls += [
            call_out(ids.call(index, position, call), call)
            for position, call in enumerate(message.tool_calls)
        ]

    def after_kept(
        self, index: int, message: AssistantMessage, kept: KeptCalls, ids: CallIds
    ) -> None:
        """The turn read from a kept item: only what it adds to the item."""
        if message.content and message.content != kept.text:
            self.text(message.content)
        call_out = self.call_out
        self.calls += [
            call_out(ids.call(index, position, call), call)
            for position, call in enumerate(message.tool_calls)
            if not kept.holds(position, call)
        ]

    def item(self, index: int, item: dict[str, Any], ids: CallIds) -> None:
        """A kept item, as it came: its content, and its calls with ids entered in ``ids``."""
        content = item.get("content")
        if isinstance(content, str):
            if content:
                self.text(content)
        elif isinstance(content, list):
            self.content_parts([copy_json(part) for part in content])
        calls = item.get("tool_calls")
        if isinstance(calls, list):
            self.calls += self.replayed(index, calls, ids)

    def message(self) -> dict[str, Any] | None:
        """The assistant message, or ``None`` when the turn has nothing to send."""
        raise NotImplementedError

    def alone(self, message: AssistantMessage) -> dict[str, Any]:
        """What a fresh turn sends for ``message`` alone, its ids as they are, without its role.

        A reader compares it with the message a reply holds, to tell whether
        the turn says all of it.
        """
        self.said(message)
        call_out = self.call_out
        self.calls = [call_out(call.id, call) for call in message.tool_calls]
        sent = self.message() or {}
        sent.pop("role", None)
        return sent


class GatheredWalk(ChatWalk):
    """A walk whose wire gathers the assistant messages and items of one turn into one message.

    The turn stays open while assistant messages and the dialect's items
    come, and is written (:meth:`ChatTurn.message`) when a message of
    another role comes, or the transcript ends. :meth:`new_turn` and
    :meth:`kept` are the dialect's.
    """

    __slots__ = ()

    def new_turn(self) -> ChatTurn:
        raise NotImplementedError

    def kept(self, item: dict[str, Any]) -> KeptCalls:
        """What a kept item already says, for the assistant message after it."""
        raise NotImplementedError

    def assistant(self, index: int, message: AssistantMessage, previous: Any) -> Any:
        self.ids.assistant()
        turn = self.turn or self.new_turn()
        self.turn = turn
        if previous is None:
            turn.flat(index, message, self.ids)
        else:
            turn.after_kept(index, message, previous, self.ids)

    def item(self, index: int, place: int, item: dict[str, Any]) -> Any:
        turn = self.turn or self.new_turn()
        self.turn = turn
        turn.item(index, item, self.ids)
        return self.kept(item)

    def close(self) -> None:
        turn = self.turn
        if turn is not None:
            said = turn.message()
            if said is not None:
                self.out.append(said)
            self.turn = None


class Media:
    """What a wire takes of a user's media, for :func:`user_parts`.

    Images of ``image_types``, with a ``detail`` among ``details``; inline
    audio as ``audio`` writes its part (``None`` where it takes none of that
    audio, or ``audio`` itself ``None`` where the wire takes no audio at all);
    ``no_audio`` and ``no_video`` say why the rest is refused.
    """

    __slots__ = ("audio", "details", "dialect", "image_types", "no_audio", "no_video")

    def __init__(
        self,
        dialect: str,
        image_types: frozenset[str],
        details: frozenset[str],
        no_video: str,
        audio: Callable[[AudioBase64Block], dict[str, Any] | None] | None = None,
        no_audio: str = "",
    ) -> None:
        self.dialect = dialect
        self.image_types = image_types
        self.details = details
        self.no_video = no_video
        self.audio = audio
        self.no_audio = no_audio

    def refused(self, block: object) -> str:
        """Why the wire takes no ``block``: audio it has no part for, or video."""
        if isinstance(block, AudioBase64Block) and self.audio is not None:
            return f"takes audio only as base64 WAV or MP3, not {block.media_type!r}"
        if block.is_audio():  # type: ignore[attr-defined]
            return self.no_audio
        return self.no_video


def user_parts(
    index: int,
    blocks: Iterable[object],
    unsupported: Unsupported,
    notes: list[LeftOut] | None,
    media: Media,
) -> list[dict[str, Any]]:
    """A user message's content parts as chat-completions wires take them.

    Text as ``text`` parts, images as ``image_url`` parts (base64 as
    ``data:`` URLs, a ``detail`` the wire knows kept), audio as ``media``
    says; the rest raises ``UnsupportedContent``, or becomes a note under
    ``unsupported="note"``. ``notes``, when given, gets the image details
    left out, audio's sample rate, and each media block a note stands in for.
    """
    dialect = media.dialect
    out: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            out.append({"type": "text", "text": block.text})
            continue
        if isinstance(block, ImageUrlBlock):
            image: dict[str, Any] = {"url": block.url}
            if block.detail in media.details:
                image["detail"] = block.detail
            elif notes is not None:
                why = f"the API knows no image detail {block.detail!r:.40}; it is left out"
                notes.append(LeftOut(index, "detail", f"block {position}: {why}"))
            out.append({"type": "image_url", "image_url": image})
            continue
        if isinstance(block, ImageBase64Block):
            media_type = image_type(block.media_type)
            if media_type in media.image_types:
                url = data_url(media_type, block.data)
                out.append({"type": "image_url", "image_url": {"url": url}})
                continue
            why = f"takes no {block.media_type!r} image (only JPEG, PNG, GIF and WebP)"
        elif (
            isinstance(block, AudioBase64Block)
            and media.audio is not None
            and (part := media.audio(block)) is not None
        ):
            out.append(part)
            if notes is not None and block.sample_rate is not None:
                why = "input_audio has no field for a sample rate"
                notes.append(LeftOut(index, "sample-rate", f"block {position}: {why}"))
            continue
        elif isinstance(block, UnknownBlock):
            raise unknown_block(dialect, index, position, block)
        else:
            why = media.refused(block)
        if unsupported == "note":
            out.append({"type": "text", "text": note_text(dialect, block)})
            if notes is not None:
                notes.append(
                    LeftOut(index, media_kind(block), f"block {position}: {dialect} {why}")
                )
        else:
            raise unsupported_block(dialect, index, position, block, why)
    return out
