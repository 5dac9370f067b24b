"""Amazon Bedrock's Converse and ConverseStream APIs, in the shapes boto3 speaks.

``to_request`` builds the ``messages`` and ``system`` of a ``converse`` (or
``converse_stream``) call and ``tools_to_request`` its ``toolConfig``, as
the Python values boto3's ``bedrock-runtime`` client takes: media and
redacted reasoning as ``bytes``. The caller adds ``modelId``,
``inferenceConfig``, and what only some models read
(``additionalModelRequestFields``: a reasoning budget, ``top_k``), which
never goes into the messages. ``from_response``, ``read_reply`` and
:class:`Accumulator` read what the client returns: the ``converse``
response dict, or the events of ``converse_stream``'s ``stream``, each a
dict keyed by the event's name. The REST JSON reads the same, its base64
text standing where boto3 gives bytes.

What a reply becomes: an ``AssistantMessage`` with the text, the reasoning
(``reasoningText`` with its ``signature``, or ``redactedContent`` as base64
text in ``redacted_data``) and the client tool calls (``toolUse``). When
the content holds more than that message can say, so that replaying the
message would send something else than what came, the blocks as sent are
kept first, as a ``ProviderOutputItemsMessage`` of protocol
``bedrock-converse``: a server tool's ``toolUse`` and its ``toolResult``,
``citationsContent``, images, blocks in an order the flat message cannot
keep, and block types this version does not know. Bytes in a block are kept
as base64 text, as the REST JSON spells them. Text blocks next to each
other join with nothing between them (a cited passage is part of the
text); texts that other blocks separate join with a blank line. A
``toolUse`` cut off at the token limit (the last block of a reply that
stopped at ``max_tokens`` or ``model_context_window_exceeded``) is not a
``ToolCall``: it stays in the items and does not go back.

Stop reasons by meaning: ``end_turn``, ``tool_use``, ``max_tokens`` and
``stop_sequence`` are themselves; ``model_context_window_exceeded`` is
``"max_tokens"``; ``guardrail_intervened`` and ``content_filtered`` are
``"content_filter"``; anything else (``malformed_tool_use``...) is
``"other"``. Usage: Bedrock's ``inputTokens`` counts only the prompt tokens
neither read from nor written to the cache, so ``Usage.input_tokens`` is
``inputTokens + cacheReadInputTokens + cacheWriteInputTokens``; the last two
are ``cache_read_tokens`` and ``cache_write_tokens``. ``model`` is the model
a prompt router chose (``trace.promptRouter.invokedModelId``), and ``id``
the request id boto3 puts in ``ResponseMetadata``; a stream's events carry
neither id nor model name.

What changes on the way out:

- Each system message is a ``system`` text block; blank ones are left out.
- Turns alternate: consecutive user messages and tool results become one
  user turn, results first; consecutive assistant messages (and
  ``bedrock-converse`` items) one assistant turn, its reasoning first. The
  first turn must be a user turn, and a transcript with no turn at all is
  refused: ``DialectError``.
- ``bedrock-converse`` items go back verbatim, in place and once, their
  base64 text as bytes, and the ``AssistantMessage`` right after them sends
  only what they do not carry. Left out of them: blank text, reasoning
  without a signature, a ``cachePoint`` an older version kept, a block boto3
  could not read (``SDK_UNKNOWN_MEMBER``), a client ``toolUse`` the
  ``AssistantMessage`` after them does not hold (one cut off), and a server
  tool's ``toolUse`` whose ``toolResult`` never came. Items of other
  protocols are dropped.
- Reasoning goes back verbatim: signed as ``reasoningText``, redacted as
  ``redactedContent``. Reasoning without a signature (another provider's,
  DeepSeek's) is left out, as the API refuses it; so is an assistant turn
  that would hold nothing but reasoning, which newer models refuse.
- Blank text is left out, in every turn; a turn left with nothing is
  dropped. A tool result goes as ``[{"text": ...}]`` without a ``status``.
- Tool-call ids are made unique and fit ``[A-Za-z0-9_.:-]{1,64}``; a tool
  name the API refuses is spelled with ``_`` for each character it refuses,
  cut to 64. A call without its result by the next user message raises
  ``UnansweredCall``; calls open at the end are sent.
- Images (JPEG, PNG, GIF, WebP), video and audio go as bytes (base64
  decoded, a ``data:`` URL too) or as an ``s3Location`` (an ``s3://`` URL,
  its format read from the name); the API fetches no other URL. An image's
  ``detail``, a video's ``fps`` and ``max_frames`` and an audio block's
  ``sample_rate`` have no field. What cannot go raises
  ``UnsupportedContent`` (or becomes a note with ``unsupported="note"``).

:func:`left_out` names what a request leaves out of a transcript.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from typing import Any, Final

from .._content import (
    AudioBase64Block,
    AudioPathBlock,
    AudioUrlBlock,
    ImageUrlBlock,
    TextBlock,
    VideoBase64Block,
    VideoPathBlock,
    VideoUrlBlock,
)
from .._messages import (
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
from .._unknown import UnknownBlock, UnknownMessage
from ._bedrock_media import media_block
from ._cache import Cache, cache_ttl
from ._errors import (
    LEAKS,
    DialectError,
    ResponseError,
    StreamError,
    Unsupported,
    check_unsupported,
    label,
    not_a_message,
    note_text,
    raise_response_failure,
    short,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from ._ids import CallIds
from ._json import built, field, jsonable, parse_arguments, plain, tool_call
from ._left_out import LeftOut, LeftOutKind, in_item, media_kind
from ._partial_json import read_partial_object
from ._reply import (
    Delta,
    Reply,
    StopReason,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    Usage,
    token_count,
)
from ._send import tool_result_text, transcript_of
from ._stream import StreamReader
from ._tools import ToolSpec, checked_tools, object_parameters, spelled_name

__all__ = [
    "PROTOCOL",
    "Accumulator",
    "from_response",
    "left_out",
    "read_reply",
    "to_request",
    "tools_to_request",
]

DIALECT: Final = "Bedrock"
PROTOCOL: Final = "bedrock-converse"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

# The API's own rules for a toolUseId and a tool's name (its service model).
_ID: Final = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_NAME: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
# Stop reasons that cut the reply at a token limit, perhaps inside a block.
_CUT: Final = frozenset({"max_tokens", "model_context_window_exceeded"})
# Between texts that other blocks separate, in the flat message's content.
_GAP: Final = "\n\n"
# A block a cache point may follow: the API refuses one after reasoning, a
# document or a video, and one with nothing before it in its message.
_CACHEABLE: Final = frozenset({"text", "image", "toolResult"})
_SERVER_CALL: Final = "server_tool_use"


def _usable_id(call_id: str) -> bool:
    return _ID.fullmatch(call_id) is not None


def _has_text(text: str) -> bool:
    """Whether a text block may be sent: the API refuses blank text."""
    return text != "" and not text.isspace()


_CONTAINERS: Final = (dict, list)


def _copied(value: Any) -> Any:
    """A copy of JSON ``value`` sharing no dict or list with it."""
    if type(value) is dict:
        return {
            key: _copied(item) if type(item) in _CONTAINERS else item for key, item in value.items()
        }
    if type(value) is list:
        return [_copied(item) if type(item) in _CONTAINERS else item for item in value]
    return value


def _member(block: dict[str, Any]) -> str | None:
    """The one member of a Converse union (a content block), or ``None``."""
    if len(block) != 1:
        return None
    for key in block:
        return key if isinstance(key, str) else None
    return None  # pragma: no cover - a dict of one entry always yields it


def _point(ttl: str) -> dict[str, Any]:
    """A ``cachePoint`` block; the five-minute default goes without a ``ttl``."""
    return {"cachePoint": {"type": "default", "ttl": "1h"} if ttl == "1h" else {"type": "default"}}


# --- the request ------------------------------------------------------------------


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
    runs: list[str] = []
    run: list[str] = []
    for block in blocks:
        text = _text_of(block)
        if text is not None:
            run.append(text)
        elif run:
            runs.append("".join(run))
            run = []
    if run:
        runs.append("".join(run))
    return _GAP.join(text for text in runs if text)


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

    __slots__ = ("content", "notes", "opened", "role", "sources", "thought_end", "turns")

    def __init__(self, notes: list[LeftOut] | None) -> None:
        self.turns: list[dict[str, Any]] = []
        self.opened: list[int] = []  # the message that opened each turn
        self.role = ""
        self.content: list[dict[str, Any]] = []
        self.thought_end = 0
        self.sources: list[tuple[int, str]] = []
        self.notes = notes

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
    after = transcript[index + 1] if index + 1 < len(transcript) else None
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
) -> dict[str, Any]:
    ids = CallIds(transcript, _usable_id, DIALECT)
    system: list[dict[str, Any]] = []
    turns = _Turns(notes)
    kept: _Kept | None = None
    for index, message in enumerate(transcript):
        previous, kept = kept, None
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
            if _has_text(message.content):
                system.append({"text": message.content})
            else:
                _note(notes, index, "text", "a blank system prompt, which the API refuses")
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
            raise unknown_message(index, message)
        raise not_a_message(index, message)
    messages = turns.finish()
    if ttl is not None:
        if system:
            system.append(_point(ttl))
        _mark(messages, ttl)
    if system:
        return {"system": system, "messages": messages}
    return {"messages": messages}


def _mark(messages: list[dict[str, Any]], ttl: str) -> None:
    """A cache point at the end of each of the last two user turns.

    It goes after the turn's last block a cache point may follow (text, an
    image, a tool result): a document, video or audio after it stays after
    it. A turn with no such block gets none.
    """
    marked = 0
    for turn in reversed(messages):
        if turn["role"] != "user":
            continue
        content = turn["content"]
        for at in range(len(content) - 1, -1, -1):
            if _member(content[at]) in _CACHEABLE:
                content.insert(at + 1, _point(ttl))
                break
        marked += 1
        if marked == 2:
            return


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
    cache: Cache = False,
) -> dict[str, Any]:
    """The ``messages`` and ``system`` of a Converse call, as boto3 takes them.

    Returns ``{"system": [...], "messages": [...]}``, without ``system``
    when no system message is given: pass them to ``client.converse(modelId=
    ..., **body)`` with ``inferenceConfig`` and the fields of
    :func:`tools_to_request`. External tool results are fenced unless
    ``fence_external`` is False. With ``cache`` (``True`` or ``"5m"``, or
    ``"1h"``), a ``cachePoint`` ends the system prompt and each of the last
    two user turns: at most 3, so that with the one
    :func:`tools_to_request` may add the request stays within the API's 4.
    ``bedrock-converse`` items go back as they came (see the module). The
    request shares no dict or list with the transcript.
    """
    check_unsupported(unsupported)
    ttl = cache_ttl(cache)
    return _build(transcript_of(messages, "to_request"), fence_external, unsupported, ttl, None)


def left_out(
    messages: Iterable[Message | UnknownMessage], *, unsupported: Unsupported = "raise"
) -> list[LeftOut]:
    """What :func:`to_request` of ``messages`` does not send, in transcript order.

    Each :class:`~convtypes.dialects.LeftOut` names the message, a fixed
    word for what is left out, and why: blank text (``"text"``), reasoning
    without a signature or a turn of reasoning alone (``"thinking"``,
    ``"redacted-thinking"``), items of other protocols and blocks of these
    items the API takes no input for (``"items"``, ``"cache-control"``), a
    cut call (``"call"``), media Converse cannot take (``"image"``,
    ``"video"``, ``"audio"``, whether ``to_request`` raises for them or sends
    a note) and fields a sent medium goes without (``"detail"``, ``"fps"``,
    ``"max-frames"``, ``"sample-rate"``). It takes ``unsupported`` as
    ``to_request`` does, and names those media under either value. Raises
    what ``to_request`` raises for a transcript it cannot send at all.
    """
    check_unsupported(unsupported)
    notes: list[LeftOut] = []
    _build(transcript_of(messages, "left_out"), True, "note", None, notes)
    notes.sort(key=lambda note: note.index)
    return notes


# --- tools --------------------------------------------------------------------


def tools_to_request(
    tools: Iterable[ToolSpec], *, choice: str = "auto", cache: Cache = False
) -> dict[str, Any]:
    """The ``toolConfig`` that offers ``tools`` to the model.

    Each tool goes as a ``toolSpec`` with its JSON Schema in
    ``inputSchema.json`` (no ``description`` when it is blank), its root an
    object as the API requires (a root ``$ref`` to one of its own
    definitions is inlined, a root without a ``type`` gets ``"object"``).
    ``choice`` ``"auto"`` sends no ``toolChoice`` (auto is the default, and
    some models refuse the field); ``"required"`` sends ``{"any": {}}`` and a
    tool's name ``{"tool": {"name": ...}}``. Converse has no way to forbid
    calls, so ``"none"`` offers no tools and gives ``{}``, as no tools do;
    mind that the API refuses ``toolUse`` and ``toolResult`` blocks in a
    request without a ``toolConfig``. With ``cache``, a ``cachePoint`` ends
    the tools. Raises :class:`~convtypes.dialects.ToolSchemaError` for a
    name the API refuses, a name given twice, a choice that names no tool,
    or a root that is not an object.
    """
    ttl = cache_ttl(cache)
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if not specs or choice == "none":
        return {}
    out: list[dict[str, Any]] = []
    for spec in specs:
        tool: dict[str, Any] = {"name": spec.name}
        if _has_text(spec.description):
            tool["description"] = spec.description
        tool["inputSchema"] = {"json": _copied(object_parameters(spec, DIALECT))}
        out.append({"toolSpec": tool})
    if ttl is not None:
        out.append(_point(ttl))
    config: dict[str, Any] = {"tools": out}
    if chosen is not None:
        config["toolChoice"] = {"tool": {"name": chosen}}
    elif choice == "required":
        config["toolChoice"] = {"any": {}}
    return {"toolConfig": config}


# --- responses ----------------------------------------------------------------


def _flat(message: AssistantMessage) -> list[dict[str, Any]] | None:
    """The content ``to_request`` sends for ``message`` alone (items' spelling).

    ``None`` where the ids or names would go out otherwise than they came.
    """
    out = _thought_items(message.thinking)
    if _has_text(message.content):
        out.append({"text": message.content})
    seen: set[str] = set()
    for call in message.tool_calls:
        if call.id is None or call.id in seen or not _usable_id(call.id):
            return None
        if _NAME.fullmatch(call.name) is None:
            return None
        seen.add(call.id)
        use = {"toolUseId": call.id, "name": call.name, "input": call.arguments}
        out.append({"toolUse": use})
    return out


def _carried(items: list[dict[str, Any]], assistant: AssistantMessage) -> bool:
    """Whether replaying ``assistant`` alone sends the content that came.

    Blocks the API refuses as input do not count: they go back neither way.
    A block boto3 could not read is kept, so the transcript says one came.
    """
    flat = _flat(assistant)
    if flat is None or any("SDK_UNKNOWN_MEMBER" in item for item in items):
        return False
    replayed = [block for block, _, _ in map(_replayable, items) if block is not None]
    return replayed == flat


def _thought(reasoning: object, at: str) -> ThinkingBlock | None:
    """The thinking of a ``reasoningContent`` block; ``None`` for a kind unknown here."""
    if not isinstance(reasoning, dict):
        raise ResponseError(f"{at}: reasoningContent should be an object, got {short(reasoning)}")
    inner = reasoning.get("reasoningText")
    if inner is not None:
        text = field(inner, "text", str, f"{at}.reasoningText")
        signature = field(inner, "signature", str, f"{at}.reasoningText", None)
        return ThinkingBlock(text=text, signature=signature)
    data = reasoning.get("redactedContent")
    if data is not None:
        if not isinstance(data, str):
            raise ResponseError(f"{at}: redactedContent should be bytes, got {short(data)}")
        return ThinkingBlock(redacted_data=data)
    return None


def _read(blocks: list[Any], incomplete: set[int], where: str) -> list[Message]:
    """The messages for a reply's content blocks.

    ``incomplete`` holds the positions of blocks that were cut off; a
    ``toolUse`` among them is kept in the items only.
    """
    runs: list[str] = []
    run: list[str] = []
    calls: list[ToolCall] = []
    thinking: list[ThinkingBlock] = []
    items: list[dict[str, Any]] = []
    for number, block in enumerate(blocks):
        at = f"{where}.content[{number}]"
        if not isinstance(block, dict):
            raise ResponseError(f"{at}: expected an object, got {short(block)}")
        item: dict[str, Any] = jsonable(block)
        items.append(item)
        kind = _member(item)
        if kind is None:
            raise ResponseError(
                f"{at}: a content block holds one member (text, toolUse...), got {short(block)}"
            )
        if kind == "text":
            run.append(field(item, "text", str, at))
            continue
        if kind == "citationsContent":
            run.append(_cited_text(item[kind], at))
            continue
        if run:
            runs.append("".join(run))
            run = []
        if kind == "reasoningContent":
            thought = _thought(item[kind], at)
            if thought is not None:
                thinking.append(thought)
        elif kind == "toolUse":
            use = field(item, kind, dict, at)
            if use.get("type") == _SERVER_CALL or number in incomplete:
                continue  # the server's own call, or one cut off: in the items only
            call_id = field(use, "toolUseId", str, f"{at}.toolUse")
            name = field(use, "name", str, f"{at}.toolUse")
            arguments = field(use, "input", dict, f"{at}.toolUse")
            calls.append(tool_call(call_id, name, arguments, at))
        # Any other block (a server tool's result, an image, a type this
        # version does not know) says nothing the flat message can hold.
    if run:
        runs.append("".join(run))
    text = _GAP.join(text for text in runs if text)
    assistant = built(
        lambda: AssistantMessage(content=text, tool_calls=tuple(calls), thinking=tuple(thinking)),
        where,
    )
    if _carried(items, assistant):
        return [assistant]
    kept = built(lambda: ProviderOutputItemsMessage(protocol=PROTOCOL, items=tuple(items)), where)
    return [kept, assistant]


def from_response(response: object) -> list[Message]:
    """The messages to append for a Converse response.

    ``response`` is what boto3's ``converse`` returns (a dict, its bytes as
    bytes) or the REST JSON (bytes as base64 text). Text becomes the
    assistant's ``content``, reasoning ``ThinkingBlock``\\ s in order, client
    ``toolUse`` blocks ``ToolCall``\\ s with their ids; what that message
    cannot say is kept before it as ``bedrock-converse`` items (see the
    module).
    """
    return read_reply(response).messages


def _reported(data: dict[str, Any]) -> str | None:
    """What an error in place of a reply says: boto3's ``ClientError.response``,
    the REST error body, or an exception event."""
    for key, value in data.items():
        if key == "Error" or (isinstance(key, str) and key.endswith("Exception")):
            return f"the provider reported an error: {short(value, 200)}"
    message = data.get("message")
    if isinstance(message, str):
        return f"the provider reported an error: {short(message, 200)}"
    return None


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage, model and id."""
    try:
        data = plain(response, "the response")
        if "output" not in data:
            error = _reported(data)
            if error is not None:
                raise ResponseError(error)
        output = field(data, "output", dict, "the response")
        message = field(output, "message", dict, "the response's output")
        content = field(message, "content", list, "the response's output.message")
        reason = data.get("stopReason")
        cut = isinstance(reason, str) and reason in _CUT
        incomplete = {len(content) - 1} if cut and content else set()
        messages = _read(content, incomplete, "response")
        metadata = data.get("ResponseMetadata")
        request_id = metadata.get("RequestId") if isinstance(metadata, dict) else None
        return _reply(messages, reason, data.get("usage"), _routed(data.get("trace")), request_id)
    except LEAKS as err:
        raise_response_failure(err)


_STOPS: Final[dict[str, StopReason]] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "stop_sequence": "stop_sequence",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
}


def _stop_reason(messages: list[Message], reason: object) -> StopReason:
    stop = _STOPS.get(reason, "other") if isinstance(reason, str) else "other"
    assistant = messages[-1]
    if stop == "end_turn" and isinstance(assistant, AssistantMessage) and assistant.tool_calls:
        return "tool_use"
    return stop


def _usage(raw: object) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    fresh = token_count(raw, "inputTokens")
    read = token_count(raw, "cacheReadInputTokens")
    written = token_count(raw, "cacheWriteInputTokens")
    return Usage(
        input_tokens=None if fresh is None else fresh + (read or 0) + (written or 0),
        output_tokens=token_count(raw, "outputTokens"),
        cache_read_tokens=read,
        cache_write_tokens=written,
        raw=raw,
    )


def _routed(trace: object) -> str | None:
    """The model a prompt router sent the request to, from a reply's ``trace``."""
    router = trace.get("promptRouter") if isinstance(trace, dict) else None
    model = router.get("invokedModelId") if isinstance(router, dict) else None
    return model if isinstance(model, str) else None


def _reply(
    messages: list[Message], reason: object, usage: object, model: object, reply_id: object
) -> Reply:
    return Reply(
        messages=messages,
        stop_reason=_stop_reason(messages, reason),
        provider_stop_reason=reason if isinstance(reason, str) else None,
        usage=_usage(usage),
        model=model if isinstance(model, str) else None,
        id=reply_id if isinstance(reply_id, str) else None,
    )


# --- streams ------------------------------------------------------------------

_EVENTS: Final = frozenset(
    {
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
    }
)


def _raw(data: object) -> bytes:
    """A blob from an event: boto3's bytes, or the REST JSON's base64 text."""
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    if isinstance(data, str):
        return _b64(data)
    raise ValueError(f"expected bytes, got {short(data)}")


class _Block:
    """A content block as it streams: its kind, its start, and what came since.

    Converse starts only tool uses, tool results and images with a
    ``contentBlockStart``; text and reasoning begin with their first delta.
    ``pieces`` are the text, the reasoning text or the input JSON;
    ``signature`` and ``redacted`` the reasoning's signature and redacted
    bytes; ``citations`` a text's citations (``None`` until one comes);
    ``results`` a tool result's content; ``media`` an image's source or
    error. ``call`` is a client call's position among the reply's calls
    (-1 for any other block), ``input`` the input parsed when it stopped.
    """

    __slots__ = (
        "call",
        "citations",
        "input",
        "kind",
        "media",
        "pieces",
        "redacted",
        "results",
        "signature",
        "start",
        "started",
        "stopped",
    )

    def __init__(self, kind: str, start: dict[str, Any], started: int) -> None:
        self.kind = kind
        self.start = start
        self.started = started
        self.pieces: list[str] = []
        self.signature: list[str] = []
        self.redacted: list[bytes] = []
        self.citations: list[Any] | None = None
        self.results: list[Any] = []
        self.media: dict[str, Any] = {}
        self.input: Any = None
        self.call = -1
        self.stopped = False

    def whole(self, at: int, final: bool) -> dict[str, Any]:
        """The block as a whole response would hold it, so far (base64 as text)."""
        kind = self.kind
        if kind == "text":
            text = "".join(self.pieces)
            if self.citations is None:
                return {"text": text}
            cited = {"content": [{"text": text}], "citations": list(self.citations)}
            return {"citationsContent": cited}
        if kind == "reasoning":
            if self.redacted:
                data = base64.b64encode(b"".join(self.redacted)).decode("ascii")
                return {"reasoningContent": {"redactedContent": data}}
            reasoning = {"text": "".join(self.pieces)}
            if self.signature:
                reasoning["signature"] = "".join(self.signature)
            return {"reasoningContent": {"reasoningText": reasoning}}
        if kind == "toolUse":
            use = {
                "toolUseId": self.start["toolUseId"],
                "name": self.start["name"],
                "input": self._input(at, final),
            }
            use.update((k, v) for k, v in self.start.items() if k not in use)
            return {"toolUse": use}
        if kind == "toolResult":
            return {"toolResult": {**self.start, "content": list(self.results)}}
        return {kind: {**self.start, **self.media}}

    def _input(self, at: int, final: bool) -> Any:
        if self.input is not None:
            return self.input
        text = "".join(self.pieces)
        if not text.strip():
            return {}
        # Never stopped: cut off, read as far as it came, as the SDKs read it.
        try:
            return read_partial_object(text)
        except ValueError as err:
            if final:
                raise StreamError(
                    f"content block {at} (started in event {self.started}): its input was "
                    f"cut off where it cannot be read: {err}",
                    self.started,
                    None,
                ) from None
            return {}


class Accumulator(StreamReader):
    """Builds the messages of a ConverseStream reply.

    ``feed`` every event of ``converse_stream(...)["stream"]``: a dict keyed
    by the event's name (``{"contentBlockDelta": {...}}``), with bytes as
    boto3 gives them or base64 text. ``result()`` then equals
    ``from_response`` of the same reply unstreamed, and ``reply()`` adds the
    stop reason (``messageStop``) and the usage (``metadata``, after it).
    ``feed`` returns the event's deltas: text and reasoning as they arrive
    (with the blank line that separates texts other blocks come between),
    and for each client ``toolUse`` a start and the pieces of its input
    JSON. An exception event (``throttlingException``,
    ``modelStreamErrorException``...) raises a ``StreamError`` saying the
    provider reported an error, in its words; event types newer than this
    version are skipped.
    """

    _noun = "event"
    _end = "messageStop"

    def __init__(self) -> None:
        super().__init__()
        self._blocks: dict[int, _Block] = {}
        self._started = False
        self._calls = 0  # client tool calls started
        self._said = False  # some text has been given out
        self._gap = False  # another block came since the last text
        self._reason: object = None
        self._usage: object = None
        self._model: object = None

    def _fail(self, number: int, event: object, kind: str, reason: str) -> StreamError:
        return StreamError(f"event {number} ({label(kind)}): {reason}", number, event)

    def _take(self, number: int, event: object) -> list[Delta]:
        data: dict[str, Any] = event if type(event) is dict else plain(event, "an event")
        if len(data) != 1:
            raise StreamError(
                f"event {number}: expected one event keyed by its name, as boto3 yields "
                f"them, got {short(data)}",
                number,
                event,
            )
        kind, body = next(iter(data.items()))
        if kind == "contentBlockDelta" and self._started and not self._finished:
            return self._delta(number, event, body)
        if kind not in _EVENTS:
            if kind == "Error" or (isinstance(kind, str) and kind.endswith("Exception")):
                # An exception event, as sent or as botocore reads it.
                raise self._fail(
                    number, event, kind, f"the provider reported an error: {short(body, 200)}"
                )
            return []  # an event type newer than this version
        if not isinstance(body, dict):
            raise self._fail(number, event, kind, f"is not an object: {short(body)}")
        if kind == "messageStart":
            if self._started:
                raise self._fail(number, event, kind, "a second messageStart")
            self._started = True
            return []
        if not self._started:
            raise self._fail(number, event, kind, "came before messageStart")
        if kind == "metadata":
            self._metadata(number, event, body)
            return []
        if self._finished:
            raise self._fail(number, event, kind, "the stream already ended with messageStop")
        if kind == "messageStop":
            self._stop_message(number, event, body)
            return []
        at = body.get("contentBlockIndex")
        if type(at) is not int or at < 0:
            raise self._fail(number, event, kind, "has no contentBlockIndex")
        if kind == "contentBlockStart":
            return self._start(number, event, at, body)
        return self._stop(number, event, at)  # contentBlockStop

    def _metadata(self, number: int, event: object, body: dict[str, Any]) -> None:
        usage = body.get("usage")
        if usage is not None:
            if not isinstance(usage, dict):
                raise self._fail(number, event, "metadata", "the usage is not an object")
            self._usage = usage
        model = _routed(body.get("trace"))
        if model is not None:
            self._model = model

    def _stop_message(self, number: int, event: object, body: dict[str, Any]) -> None:
        reason = body.get("stopReason")
        if not isinstance(reason, str):
            raise self._fail(number, event, "messageStop", f"has no stopReason: {short(reason)}")
        self._reason = reason
        open_blocks = sorted(at for at, block in self._blocks.items() if not block.stopped)
        # Cut at the token limit, a stream may end inside its last block.
        if open_blocks and not (reason in _CUT and open_blocks == [max(self._blocks)]):
            raise self._fail(
                number, event, "messageStop", f"content block {open_blocks[0]} was never stopped"
            )
        self._finished = True

    def _new(self, number: int, at: int, kind: str, start: dict[str, Any]) -> _Block:
        block = self._blocks[at] = _Block(kind, start, number)
        if kind != "text" and self._said:
            self._gap = True
        return block

    def _start(self, number: int, event: object, at: int, body: dict[str, Any]) -> list[Delta]:
        kind = "contentBlockStart"
        if at in self._blocks:
            raise self._fail(number, event, kind, f"content block {at} was already started")
        start = body.get("start")
        if not isinstance(start, dict) or len(start) != 1:
            raise self._fail(number, event, kind, "has no start holding one member")
        member, value = next(iter(start.items()))
        if not isinstance(value, dict):
            raise self._fail(number, event, kind, f"its {label(member)} is not an object")
        if member == "toolUse":
            call_id, name = value.get("toolUseId"), value.get("name")
            if not (isinstance(call_id, str) and isinstance(name, str)):
                # Refused before it is kept, so that partial() can go on without it.
                raise self._fail(number, event, kind, "a toolUse without a toolUseId and a name")
            block = self._new(number, at, "toolUse", dict(value))
            if value.get("type") == _SERVER_CALL:
                return []
            block.call = self._calls
            self._calls += 1
            return [ToolCallStart(block.call, call_id, name)]
        self._new(number, at, label(member), jsonable(value))
        return []

    def _stop(self, number: int, event: object, at: int) -> list[Delta]:
        kind = "contentBlockStop"
        block = self._blocks.get(at)
        if block is None:
            raise self._fail(number, event, kind, f"names content block {at}, which never began")
        if block.stopped:
            raise self._fail(number, event, kind, f"content block {at} was already stopped")
        if block.kind == "toolUse":
            try:
                block.input = parse_arguments("".join(block.pieces))
            except ValueError as err:
                # Left open: partial() shows no call whose input does not parse.
                raise self._fail(
                    number, event, kind, f"the tool input of block {at} does not parse: {err}"
                ) from None
        block.stopped = True
        return []

    def _text(self, piece: str) -> TextDelta:
        """A text delta, after the blank line that separates it from earlier text."""
        if self._gap:
            self._gap = False
            piece = _GAP + piece
        self._said = True
        return TextDelta(piece)

    def _delta(self, number: int, event: object, body: object) -> list[Delta]:
        kind = "contentBlockDelta"
        if not isinstance(body, dict):
            raise self._fail(number, event, kind, f"is not an object: {short(body)}")
        at = body.get("contentBlockIndex")
        if type(at) is not int or at < 0:
            raise self._fail(number, event, kind, "has no contentBlockIndex")
        delta = body.get("delta")
        if not isinstance(delta, dict) or len(delta) != 1:
            raise self._fail(number, event, kind, "has no delta holding one member")
        member, value = next(iter(delta.items()))
        block = self._blocks.get(at)
        if block is not None and block.stopped:
            raise self._fail(number, event, kind, f"content block {at} was already stopped")
        if member == "text":
            if not isinstance(value, str):
                raise self._fail(number, event, kind, f"the text is not text: {short(value)}")
            block = self._own(number, event, at, block, "text")
            block.pieces.append(value)
            return [self._text(value)] if value else []
        if member == "reasoningContent":
            return self._reasoning(number, event, at, block, value)
        if member == "citation":
            if not isinstance(value, dict):
                raise self._fail(number, event, kind, "the citation is not an object")
            block = self._own(number, event, at, block, "text")
            if block.citations is None:
                block.citations = []
            block.citations.append(jsonable(value))
            return []
        if member not in ("toolUse", "toolResult", "image"):
            return []  # a delta type newer than this version
        if block is None:
            raise self._fail(number, event, kind, f"names content block {at}, which never began")
        if block.kind != member:
            raise self._fail(
                number,
                event,
                kind,
                f"a {label(member)} delta cannot apply to a {label(block.kind)} block",
            )
        if member == "toolUse":
            piece = value.get("input") if isinstance(value, dict) else None
            if not isinstance(piece, str):
                raise self._fail(number, event, kind, "the toolUse delta has no input text")
            block.pieces.append(piece)
            if piece and block.call >= 0:
                return [ToolCallDelta(block.call, piece)]
            return []
        if member == "toolResult":
            if not isinstance(value, list):
                raise self._fail(number, event, kind, "the toolResult delta is not a list")
            for part in jsonable(value):
                previous = block.results[-1] if block.results else None
                if (
                    isinstance(part, dict)
                    and _member(part) == "text"
                    and isinstance(previous, dict)
                    and _member(previous) == "text"
                    and isinstance(part["text"], str)
                    and isinstance(previous["text"], str)
                ):
                    block.results[-1] = {"text": previous["text"] + part["text"]}
                else:
                    block.results.append(part)
            return []
        if not isinstance(value, dict):
            raise self._fail(number, event, kind, "the image delta is not an object")
        block.media.update(jsonable(value))
        return []

    def _own(self, number: int, event: object, at: int, block: _Block | None, kind: str) -> _Block:
        """Block ``at``, begun as a ``kind`` block by this delta if it is new."""
        if block is None:
            return self._new(number, at, kind, {})
        if block.kind != kind:
            raise self._fail(
                number,
                event,
                "contentBlockDelta",
                f"a {kind} delta cannot apply to a {label(block.kind)} block",
            )
        return block

    def _reasoning(
        self, number: int, event: object, at: int, block: _Block | None, value: object
    ) -> list[Delta]:
        kind = "contentBlockDelta"
        if not isinstance(value, dict) or len(value) != 1:
            raise self._fail(number, event, kind, "the reasoningContent delta holds no one member")
        block = self._own(number, event, at, block, "reasoning")
        member, piece = next(iter(value.items()))
        if member == "text":
            if not isinstance(piece, str) or block.redacted:
                raise self._fail(number, event, kind, "reasoning text that cannot be kept")
            block.pieces.append(piece)
            return [ThinkingDelta(piece)] if piece else []
        if member == "signature":
            if not isinstance(piece, str):
                raise self._fail(number, event, kind, f"the signature is not text: {short(piece)}")
            block.signature.append(piece)
            return []
        if member == "redactedContent":
            if block.pieces or block.signature:
                raise self._fail(number, event, kind, "redacted content after reasoning text")
            try:
                block.redacted.append(_raw(piece))
            except ValueError as err:
                raise self._fail(number, event, kind, f"the redacted content: {err}") from None
            return []
        return []  # a member newer than this version

    def _messages(self, final: bool) -> list[Message]:
        order = sorted(self._blocks)
        blocks = [self._blocks[at].whole(at, final) for at in order]
        incomplete = {n for n, at in enumerate(order) if not self._blocks[at].stopped}
        if isinstance(self._reason, str) and self._reason in _CUT and order:
            incomplete.add(len(order) - 1)
        return _read(blocks, incomplete, "stream")

    def _reply(self, messages: list[Message]) -> Reply:
        return _reply(messages, self._reason, self._usage, self._model, None)
