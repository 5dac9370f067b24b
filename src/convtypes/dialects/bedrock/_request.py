"""A transcript to Converse's ``messages`` and ``system``, as boto3 takes them."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from typing import Any

from ..._content import (
    AudioBase64Block,
    AudioPathBlock,
    AudioUrlBlock,
    ImageUrlBlock,
    TextBlock,
    VideoBase64Block,
    VideoPathBlock,
    VideoUrlBlock,
)
from ..._conversation import repeated
from ..._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ..._unknown import UnknownBlock, UnknownMessage
from .._bedrock_media import media_block
from .._block_text import joined_text
from .._cache import Cache, cache_ttl
from .._errors import (
    DialectError,
    ResponseError,
    Unsupported,
    check_unsupported,
    label,
    not_a_message,
    note_text,
    short,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from .._ids import CallIds
from .._left_out import (
    PAST_RESULTS,
    LeftOut,
    LeftOutKind,
    duplicate,
    in_item,
    media_kind,
    waits_for_results,
)
from .._newer import Unknown, check_unknown, newer_notes, next_known
from .._send import tool_result_text, transcript_of
from .._tools import spelled_name
from ._cache_marks import _mark, _point
from ._wire import _SERVER_CALL, DIALECT, PROTOCOL, _copied, _has_text, _member, _usable_id


def _thought_items(thinking: Iterable[ThinkingBlock]) -> list[dict[str, Any]]:
    """The reasoning blocks the API takes back, as items hold them (base64 as text)."""
    out: list[dict[str, Any]] = []
    for thought in thinking:
        if thought.redacted_data is not None:
            out.append({"reasoningContent": {"redactedContent": thought.redacted_data}})
        elif thought.signature:
            reasoning = {"text": thought.text, "signature": thought.signature}
            out.append({"reasoningContent": {"reasoningText": reasoning}})
    return out


def _b64(text: str) -> bytes:
    """Base64 text as bytes; ``ValueError`` for text that is not base64."""
    try:
        return base64.b64decode(text, validate=True)
    except (ValueError, binascii.Error):
        raise ValueError("its bytes are not base64 text") from None


def _source_bytes(media: object) -> None:
    if isinstance(media, dict):
        source = media.get("source")
        if isinstance(source, dict) and isinstance(source.get("bytes"), str):
            source["bytes"] = _b64(source["bytes"])


def _wire(item: dict[str, Any]) -> dict[str, Any]:
    """A kept block as boto3 takes it: a copy, its base64 text back to bytes."""
    block: dict[str, Any] = _copied(item)
    reasoning = block.get("reasoningContent")
    if isinstance(reasoning, dict) and isinstance(reasoning.get("redactedContent"), str):
        reasoning["redactedContent"] = _b64(reasoning["redactedContent"])
    for key in ("image", "document", "video", "audio"):
        _source_bytes(block.get(key))
    guard = block.get("guardContent")
    if isinstance(guard, dict):
        _source_bytes(guard.get("image"))
    result = block.get("toolResult")
    if isinstance(result, dict) and isinstance(result.get("content"), list):
        for part in result["content"]:
            if isinstance(part, dict):
                for key in ("image", "document", "video"):
                    _source_bytes(part.get(key))
    return block


def _replayable(item: object) -> tuple[dict[str, Any] | None, LeftOutKind, str]:
    """A kept block as it goes back (item space), or ``None`` with what and why not."""
    if not isinstance(item, dict) or _member(item) is None:
        return None, "items", "an item that is not one Converse content block"
    kind = _member(item)
    if kind == "text":
        text = item["text"]
        if not isinstance(text, str) or not _has_text(text):
            return None, "text", "blank text, which the API refuses"
    elif kind == "reasoningContent":
        reasoning = item["reasoningContent"]
        inner = reasoning.get("reasoningText") if isinstance(reasoning, dict) else None
        if isinstance(inner, dict):
            signature = inner.get("signature")
            if not isinstance(signature, str) or not signature:
                return None, "thinking", "reasoning without a signature, which the API refuses"
    elif kind == "cachePoint":
        return None, "cache-control", "a cache point kept by an older version"
    elif kind == "SDK_UNKNOWN_MEMBER":
        return None, "items", "a block boto3 could not read, whose content it dropped"
    elif kind == "toolUse":
        use = item["toolUse"]
        if isinstance(use, dict) and use.get("type") == "tool_use":
            # The API's own spelling of a client call in a reply, which its
            # request model does not list: a client call goes without it.
            return {"toolUse": {k: v for k, v in use.items() if k != "type"}}, "items", ""
    return item, "items", ""


def _cited_text(cited: object, at: str) -> str:
    """The generated text of a ``citationsContent`` block."""
    if not isinstance(cited, dict):
        raise ResponseError(f"{at}: citationsContent should be an object, got {short(cited)}")
    content = cited.get("content", [])
    if not isinstance(content, list):
        raise ResponseError(f"{at}: citationsContent.content should be a list")
    return "".join(
        part["text"] for part in content if isinstance(part, dict) and type(part.get("text")) is str
    )


def _text_of(block: object) -> str | None:
    """The flat text a kept block adds (text, or cited text), ``None`` for another block."""
    if not isinstance(block, dict):
        return None
    kind = _member(block)
    if kind == "text" and isinstance(block["text"], str):
        text: str = block["text"]
        return text
    if kind == "citationsContent":
        try:
            return _cited_text(block[kind], "")
        except ResponseError:
            return None
    return None


def _joined_text(blocks: Iterable[object]) -> str:
    """The flat text of kept blocks: adjacent texts joined, separated ones a blank line apart."""
    return joined_text(map(_text_of, blocks))


class _Kept:
    """What kept ``bedrock-converse`` items already say: their text and their call ids."""

    __slots__ = ("call_ids", "text")

    def __init__(self, items: Iterable[Any]) -> None:
        blocks = [item for item in items if isinstance(item, dict)]
        self.text = _joined_text(blocks)
        self.call_ids: set[str] = set()
        for block in blocks:
            use = block.get("toolUse")
            if (
                isinstance(use, dict)
                and use.get("type") != _SERVER_CALL
                and isinstance(use.get("toolUseId"), str)
            ):
                self.call_ids.add(use["toolUseId"])


class _Turns:
    """The request's messages as they are built: merged by role, reasoning first.

    ``sources`` follows the content of the open assistant turn with the
    transcript index of each block and its place in its message (see
    :class:`LeftOut`), when what is left out is being noted.
    """

    __slots__ = (
        "content",
        "held",
        "held_at",
        "notes",
        "opened",
        "role",
        "sources",
        "thought_end",
        "turns",
    )

    def __init__(self, notes: list[LeftOut] | None) -> None:
        self.turns: list[dict[str, Any]] = []
        self.opened: list[int] = []  # the message that opened each turn
        self.role = ""
        self.content: list[dict[str, Any]] = []
        self.thought_end = 0
        self.sources: list[tuple[int, str]] = []
        self.notes = notes
        # System text after the first turn, placed before the next message
        # that is neither a tool result nor system text (see waits_for_results).
        self.held: list[dict[str, Any]] = []
        self.held_at = -1  # the message of the first text held

    def _open(self, role: str, index: int) -> None:
        self.content = []
        self.turns.append({"role": role, "content": self.content})
        self.opened.append(index)
        self.role = role

    def user(self, index: int, blocks: list[dict[str, Any]]) -> None:
        if self.role == "assistant":
            self._close()
        if self.role != "user":
            self._open("user", index)
        self.content.extend(blocks)

    def hold(self, index: int, text: str) -> None:
        """Keep a system message's text for :meth:`system` to place."""
        if not self.held:
            self.held_at = index
        self.held.append({"text": text})

    def system(self) -> None:
        """Place the system text held since the last turn: a ``system`` message."""
        if self.role == "assistant":
            self._close()
        if self.role != "system":
            self._open("system", self.held_at)
        self.content += self.held
        self.held = []

    def assistant(
        self,
        index: int,
        thoughts: list[dict[str, Any]],
        blocks: list[dict[str, Any]],
        places: list[str] | None = None,
    ) -> None:
        """Add an assistant message's reasoning (first in the turn) and other blocks.

        ``places`` names each thought's place in the message, when noting.
        """
        if self.role != "assistant":
            self._open("assistant", index)
            self.thought_end = 0
            self.sources = []
        # A merged turn keeps all its reasoning first, in order.
        self.content[self.thought_end : self.thought_end] = thoughts
        if self.notes is not None and places is not None:
            self.sources[self.thought_end : self.thought_end] = [(index, at) for at in places]
            self.sources.extend([(index, "")] * len(blocks))
        self.thought_end += len(thoughts)
        self.content.extend(blocks)

    def items(self, index: int, blocks: list[dict[str, Any]], places: list[str]) -> None:
        """Add kept blocks as they came, their reasoning where it stands.

        ``places`` names each block's item, when noting.
        """
        if self.role != "assistant":
            self._open("assistant", index)
            self.thought_end = 0
            self.sources = []
        if self.thought_end == len(self.content):
            for block in blocks:
                if "reasoningContent" not in block:
                    break
                self.thought_end += 1
        if self.notes is not None:
            self.sources.extend((index, at) for at in places)
        self.content.extend(blocks)

    def _close(self) -> None:
        """Drop the assistant turn just built if it holds reasoning alone.

        Newer models refuse such a turn (as prefill), and it tells the
        model nothing it can use without the answer that followed.
        """
        # Reasoning is kept first in the turn, so the turn is reasoning alone
        # exactly when all of it is that leading run.
        if self.role != "assistant" or self.thought_end != len(self.content):
            return
        if self.notes is not None:
            for block, (index, place) in zip(self.content, self.sources, strict=True):
                redacted = "redactedContent" in block["reasoningContent"]
                self.notes.append(
                    LeftOut(
                        index,
                        "redacted-thinking" if redacted else "thinking",
                        f"{place}: an assistant turn of reasoning alone, which newer models refuse",
                    )
                )
        self.turns.pop()
        self.opened.pop()
        if self.turns:
            self.role = self.turns[-1]["role"]
            self.content = self.turns[-1]["content"]
        else:
            self.role = ""
            self.content = []

    def finish(self) -> list[dict[str, Any]]:
        if self.held:
            self.system()
        self._close()
        if not self.turns:
            raise DialectError(
                "the transcript has no turn to send (once blank text is left out), and "
                "Converse needs at least one user message"
            )
        if self.turns[0]["role"] != "user":
            raise DialectError(
                f"message {self.opened[0]}: Converse needs the conversation to start with a "
                "user message, and this transcript (once blank text is left out) starts with "
                "the assistant",
                self.opened[0],
            )
        return self.turns


def _note(notes: list[LeftOut] | None, index: int, what: LeftOutKind, why: str) -> None:
    if notes is not None:
        notes.append(LeftOut(index, what, why))


def _unsent_fields(index: int, position: int, block: object, notes: list[LeftOut]) -> None:
    """The fields of a sent media block that Converse has no place for."""
    where = f"block {position}"
    if isinstance(block, ImageUrlBlock) and block.detail != "auto":
        notes.append(LeftOut(index, "detail", f"{where}: Converse has no image detail"))
    elif isinstance(block, (VideoBase64Block, VideoUrlBlock)):
        if block.fps is not None:
            notes.append(LeftOut(index, "fps", f"{where}: Converse cannot be told a frame rate"))
        if block.max_frames is not None:
            notes.append(
                LeftOut(index, "max-frames", f"{where}: Converse cannot be told a frame count")
            )
    elif isinstance(block, (AudioBase64Block, AudioUrlBlock)) and block.sample_rate is not None:
        notes.append(
            LeftOut(index, "sample-rate", f"{where}: Converse cannot be told a sample rate")
        )


def _user_blocks(
    index: int, blocks: Iterable[object], unsupported: Unsupported, notes: list[LeftOut] | None
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            if _has_text(block.text):
                out.append({"text": block.text})
            else:
                _note(notes, index, "text", f"block {position}: blank text, which the API refuses")
            continue
        if isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        if isinstance(block, (AudioPathBlock, VideoPathBlock)):
            made, why = None, "cannot read a local path"
        else:
            made, why = media_block(block)
        if made is not None:
            out.append(made)
            if notes is not None:
                _unsent_fields(index, position, block, notes)
            continue
        if notes is not None:
            notes.append(LeftOut(index, media_kind(block), f"block {position}: {DIALECT} {why}"))
        elif unsupported == "raise":
            raise unsupported_block(DIALECT, index, position, block, why)
        out.append({"text": note_text(DIALECT, block)})
    return out


def _replayed(
    index: int,
    items: Iterable[Any],
    transcript: list[Any],
    ids: CallIds,
    notes: list[LeftOut] | None,
    places: list[str] | None,
) -> list[dict[str, Any]]:
    """The blocks of the items at ``index`` that go back, as boto3 takes them.

    ``places`` (when noting) gets the place of each block that goes.

    A client ``toolUse`` goes back only if the ``AssistantMessage`` right
    after the items holds it as a call: one it lacks was cut off at the
    token limit, and no result will ever answer it. A server tool's
    ``toolUse`` goes back only beside its ``toolResult``.
    """
    after = next_known(transcript, index)
    answered = {call.id for call in after.tool_calls} if isinstance(after, AssistantMessage) else ()
    kept = list(items)
    served: set[str] = set()
    for item in kept:
        result = item.get("toolResult") if isinstance(item, dict) else None
        if isinstance(result, dict) and isinstance(result.get("toolUseId"), str):
            served.add(result["toolUseId"])
    blocks: list[dict[str, Any]] = []
    for position, item in enumerate(kept):
        where = in_item(position)
        block, what, why = _replayable(item)
        if block is None:
            _note(notes, index, what, f"{where}: {why}")
            continue
        use = block.get("toolUse")
        if isinstance(use, dict):
            call_id = use.get("toolUseId")
            if use.get("type") == _SERVER_CALL:
                if not isinstance(call_id, str) or call_id not in served:
                    why = "a server tool's use whose result never came"
                    _note(notes, index, "call", f"{where}: {why}")
                    continue
            elif not isinstance(call_id, str) or call_id not in answered:
                _note(notes, index, "call", f"{where}: a tool call cut off at the token limit")
                continue
            else:
                name = use.get("name")
                ids.carried(index, call_id, call_id, name if isinstance(name, str) else "")
        if places is not None:
            places.append(where)
        try:
            blocks.append(_wire(block))
        except ValueError as err:
            raise DialectError(
                f"message {index}: a kept {label(_member(block), 40)} block cannot be sent: {err}",
                index,
            ) from None
    return blocks


def _redacted(
    index: int, thoughts: list[dict[str, Any]], notes: list[LeftOut] | None, places: list[str]
) -> None:
    """Reasoning blocks as boto3 takes them: redacted data as bytes, or left out.

    ``places`` names each thought's place (when noting), and loses those left out.
    """
    dropped: list[LeftOut] = []
    for at in range(len(thoughts) - 1, -1, -1):
        reasoning = thoughts[at]["reasoningContent"]
        data = reasoning.get("redactedContent")
        if data is None:
            continue
        try:
            reasoning["redactedContent"] = _b64(data)
        except ValueError:
            if notes is not None:
                why = f"{places[at]}: redacted data that is not base64 text"
                dropped.append(LeftOut(index, "redacted-thinking", why))
                del places[at]
            del thoughts[at]
    if notes is not None:
        notes.extend(reversed(dropped))


def _build(
    transcript: list[Any],
    fence: bool,
    unsupported: Unsupported,
    ttl: str | None,
    notes: list[LeftOut] | None,
    unknown: Unknown = "raise",
) -> dict[str, Any]:
    ids = CallIds(transcript, _usable_id, DIALECT)
    system: list[dict[str, Any]] = []
    turns = _Turns(notes)
    kept: _Kept | None = None
    copies = repeated(transcript)
    for index, message in enumerate(transcript):
        if copies and index in copies:
            if notes is not None:
                notes.append(duplicate(index, copies[index]))
            continue  # sent once: walked past, as an unknown message is
        if notes is not None:
            notes += newer_notes(index, message)
        previous, kept = kept, None
        if turns.held and not (
            isinstance(message, (ToolResultMessage, SystemMessage, UnknownMessage))
            or (isinstance(message, ProviderOutputItemsMessage) and message.protocol != PROTOCOL)
        ):
            turns.system()
        if isinstance(message, ToolResultMessage):
            result = {
                "toolUseId": ids.result(index, message).out_id,
                "content": [{"text": tool_result_text(message, fence)}],
            }
            turns.user(index, [{"toolResult": result}])
            continue
        if isinstance(message, AssistantMessage):
            ids.assistant()
            text = message.content
            calls: Iterable[tuple[int, ToolCall]] = enumerate(message.tool_calls)
            thoughts: list[dict[str, Any]] = []
            places: list[str] = []
            if previous is None:
                thoughts = _thought_items(message.thinking)
                if notes is not None:
                    for position, thought in enumerate(message.thinking):
                        where = f"thinking block {position}"
                        if thought.redacted_data is None and not thought.signature:
                            why = "reasoning without a signature, which the API refuses"
                            notes.append(LeftOut(index, "thinking", f"{where}: {why}"))
                        else:
                            places.append(where)
                _redacted(index, thoughts, notes, places)
            else:
                # The message read from the items before it: only what they lack.
                if text == previous.text:
                    text = ""
                calls = [(at, call) for at, call in calls if call.id not in previous.call_ids]
            blocks: list[dict[str, Any]] = []
            if _has_text(text):
                blocks.append({"text": text})
            elif text:
                _note(notes, index, "text", "blank text, which the API refuses")
            for position, call in calls:
                use = {
                    "toolUseId": ids.call(index, position, call),
                    "name": spelled_name(call.name),
                    "input": _copied(call.arguments),
                }
                blocks.append({"toolUse": use})
            if thoughts or blocks:
                turns.assistant(index, thoughts, blocks, places)
            continue
        if isinstance(message, UserMessage):
            ids.user(index)
            if _has_text(message.content):
                turns.user(index, [{"text": message.content}])
            else:
                _note(notes, index, "text", "blank text, which the API refuses")
            continue
        if isinstance(message, UserMultimodalMessage):
            ids.user(index)
            blocks = _user_blocks(index, message.content, unsupported, notes)
            if blocks:
                turns.user(index, blocks)
            continue
        if isinstance(message, SystemMessage):
            if not _has_text(message.content):
                _note(notes, index, "text", "a blank system prompt, which the API refuses")
            elif turns.turns:
                # After the first turn: in place, past the tool results it stands before.
                turns.hold(index, message.content)
                if notes is not None and waits_for_results(transcript, index, PROTOCOL):
                    notes.append(LeftOut(index, "position", PAST_RESULTS))
            else:
                system.append({"text": message.content})
            continue
        if isinstance(message, ProviderOutputItemsMessage):
            if message.protocol != PROTOCOL:
                if message.items:
                    _note(notes, index, "items", f"items of protocol {label(message.protocol)}")
                continue
            ids.assistant()
            sent_places: list[str] | None = [] if notes is not None else None
            blocks = _replayed(index, message.items, transcript, ids, notes, sent_places)
            kept = _Kept(message.items)
            if blocks:
                turns.items(index, blocks, sent_places or [])
            continue
        if isinstance(message, UnknownMessage):
            if unknown == "raise":
                raise unknown_message(index, message)
            kept = previous  # walked past: what comes next follows what came before
            continue
        raise not_a_message(index, message)
    messages = turns.finish()
    if ttl is not None:
        if system:
            system.append(_point(ttl))
        _mark(messages, ttl)
    if system:
        return {"system": system, "messages": messages}
    return {"messages": messages}


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
    cache: Cache = False,
    unknown: Unknown = "raise",
) -> dict[str, Any]:
    """The ``messages`` and ``system`` of a Converse call, as boto3 takes them.

    Returns ``{"system": [...], "messages": [...]}``, without ``system``
    when no system message is given. The system messages before the first
    turn are ``system``'s blocks; one after it is a ``{"role": "system",
    "content": [{"text": ...}]}`` message where it stands (Converse's
    ``ConversationRole`` has ``system``). Pass them to ``client.converse(modelId=
    ..., **body)`` with ``inferenceConfig`` and the fields of
    :func:`tools_to_request`. External tool results are fenced unless
    ``fence_external`` is False. With ``cache`` (``True`` or ``"5m"``, or
    ``"1h"``), a ``cachePoint`` ends the system prompt and each of the last
    two user turns: at most 3, so that with the one
    :func:`tools_to_request` may add the request stays within the API's 4.
    ``bedrock-converse`` items go back as they came (see the module). A
    message of a role this version does not know raises
    ``UnsupportedContent``, or with ``unknown="skip"`` is left out. The
    request shares no dict or list with the transcript.
    """
    check_unsupported(unsupported)
    check_unknown(unknown)
    ttl = cache_ttl(cache)
    transcript = transcript_of(messages, "to_request")
    return _build(transcript, fence_external, unsupported, ttl, None, unknown)
