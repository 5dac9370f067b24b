"""The Gemini API (``generateContent``), in the field names of the google-genai SDK.

``to_request`` builds ``{"contents": [...], "system_instruction": {...}}``
(the REST body's conversation part), ``tools_to_request`` its ``tools`` and
``tool_config``, and ``to_sdk_request`` turns such a body into the keyword
arguments of google-genai's ``generate_content``, which takes the system
instruction and the tools only inside ``config``. What they return is the
caller's: it shares no dict or list with the transcript or the tools.
``left_out`` names what ``to_request`` of the same transcript does not
send. ``from_response``,
``read_reply`` and :class:`Accumulator` turn a ``GenerateContentResponse``,
or the chunks of a streamed one, into two messages: a
``ProviderOutputItemsMessage`` of protocol ``gemini`` holding the model
turn's parts as sent, then the ``AssistantMessage`` read from them.

Why keep the parts, always: Gemini hands out thought signatures on the part
they belong to (a text part, a function call, sometimes an empty text part
at the end of a stream), and it checks that each comes back on that same
part. A ``ThinkingBlock`` has no notion of "the part after the thoughts",
and a Gemini signature in one would be sent to Anthropic as if it were
Anthropic's. So the parts go back verbatim, in place, exactly once, as the
Responses dialect does with its items; the assistant message beside them is
for every other dialect, and this one sends from it only what the parts do
not already carry. Thought summaries become unsigned ``ThinkingBlock``\\ s,
for display; code execution, generated media and parts this version does
not know stay in the items only.

Parts are kept in snake_case (the SDK's names, which the REST API reads as
well), signatures as standard base64, and without ``null`` fields, so that
the REST JSON, the SDK's object and its ``model_dump()`` give equal
messages. An unstreamed response's parts are kept one for one. A stream
sends a part in pieces across chunks; the chunks add up to the response
whose parts are every chunk's parts in order, except that the first part
of a chunk joins the part before it when both are text of the same kind
(thought or not) and the later one brings no signature of its own (a
signature opens a new part). ``Accumulator.result()`` equals
``from_response`` of that response.

What a reply says beyond its parts (:func:`read_reply`):

- ``stop_reason``: ``STOP`` is ``"end_turn"``, or ``"tool_use"`` when the
  reply calls functions; ``MAX_TOKENS`` is ``"max_tokens"``; ``SAFETY``,
  ``RECITATION``, ``BLOCKLIST``, ``PROHIBITED_CONTENT``, ``SPII``,
  ``MODEL_ARMOR`` and the ``IMAGE_*`` safety reasons are
  ``"content_filter"``; anything else (``MALFORMED_FUNCTION_CALL``,
  ``LANGUAGE``, ``OTHER``...) is ``"other"``. Gemini ends a stop sequence
  with ``STOP`` too, so ``"stop_sequence"`` never comes.
- A candidate without content (a reply filtered before any part) reads as
  an empty reply, with its finish reason. A response without candidates is
  a blocked prompt: an empty reply, ``"content_filter"``, with the
  ``prompt_feedback.block_reason`` as ``provider_stop_reason``.
- ``usage``: ``input_tokens`` is ``prompt_token_count`` (cached tokens
  included) plus ``tool_use_prompt_token_count`` (what built-in tools such
  as Google Search added to the prompt, which Gemini bills as input);
  ``output_tokens`` is ``candidates_token_count`` plus
  ``thoughts_token_count``, so that the two add up to
  ``total_token_count``. Gemini leaves zero counts out of its JSON; an
  output with neither count is what the total says beyond the input.
  ``cache_read_tokens`` is ``cached_content_token_count``,
  ``reasoning_tokens`` is ``thoughts_token_count``; Gemini reports no cache
  writes. ``raw`` is ``usage_metadata`` in snake_case. In a stream each
  chunk's usage replaces the one before.
- ``model`` is ``model_version``, ``id`` is ``response_id``.

Only the first candidate (``index`` 0) is read: the others are alternatives
to it. Candidate metadata (grounding, citations, safety ratings, log
probabilities) is not part of the turn, and a request has no field for it.
A function call streamed in pieces (``partial_args``, from the Vertex
option ``stream_function_call_arguments``) is refused.

What changes on the way out:

- Turns alternate as ``user`` and ``model``: consecutive user messages and
  tool results become one user turn, function responses first.
- Tool calls go as ``function_call`` parts, results as ``function_response``
  parts named after their call, with ``{"output": text}`` as the response.
  Gemini pairs them by order, so the responses of a turn go in the order of
  the calls they answer, whatever their order in the transcript; an ``id``
  is sent only where Gemini gave one. A result's ``is_error`` has no field
  in the wire format, so none is sent.
- Thinking blocks are dropped (signatures travel in the parts); items of
  other protocols are dropped. A call another provider made goes without a
  signature; ``unsigned_calls="sentinel"`` gives the first call of each
  step of the current turn Google's placeholder (:data:`SENTINEL_SIGNATURE`)
  where it has none, for Gemini 3, which refuses such a step. Empty text
  is left out, and empty turns; so is a replayed part of empty text with
  no signature, which says nothing and which Gemini has refused as "an
  empty text parameter".
- Images (PNG, JPEG, WebP, HEIC, HEIF; media types read case-insensitively,
  ``image/jpg`` as JPEG), audio and video go inline (``inline_data``) or by
  URL (``file_data``, with a MIME type guessed from the URL's extension when
  it has a known one). A ``data:`` URL goes inline, since Gemini fetches no
  such URL. ``fps`` goes as ``video_metadata``; ``max_frames``,
  ``sample_rate`` and an image's ``detail`` have no field and are dropped.
  A local path raises ``UnsupportedContent``: the API cannot read this
  machine's files.
"""

from __future__ import annotations

import base64
import bisect
import enum
import functools
import re
from collections.abc import Iterable, Mapping
from operator import countOf
from typing import Any, Final, Literal
from urllib.parse import unquote_to_bytes

from .._content import (
    AudioBase64Block,
    AudioUrlBlock,
    ImageBase64Block,
    ImageUrlBlock,
    TextBlock,
    VideoBase64Block,
    VideoUrlBlock,
)
from .._conversation import positional_call_id
from .._errors import MAX_DEPTH
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
from ._copy import copy_json, owned
from ._errors import (
    LEAKS,
    ResponseError,
    StreamError,
    Unsupported,
    check_unsupported,
    not_a_message,
    note_text,
    raise_response_failure,
    reported_error,
    short,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from ._gemini_schema import parameters as _parameters
from ._ids import CallIds, any_id
from ._json import arguments_json, built, jsonable, tool_call
from ._left_out import LeftOut, media_kind
from ._media import image_type, media_type, parse_data_url
from ._objects import PLAIN_BY_NAME, fields, in_declared_order
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
from ._tools import ToolSpec, checked_tools

__all__ = [
    "PROTOCOL",
    "SENTINEL_SIGNATURE",
    "Accumulator",
    "UnsignedCalls",
    "from_response",
    "left_out",
    "read_reply",
    "to_request",
    "to_sdk_request",
    "tools_to_request",
]

DIALECT: Final = "Gemini"
PROTOCOL: Final = "gemini"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

IMAGE_TYPES: Final = frozenset(
    {"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}
)
_EXTENSIONS: Final = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
    "heic": "image/heic",
    "heif": "image/heif",
    "mp4": "video/mp4",
    "mpeg": "video/mpeg",
    "mov": "video/mov",
    "avi": "video/avi",
    "webm": "video/webm",
    "wmv": "video/wmv",
    "3gp": "video/3gpp",
    "wav": "audio/wav",
    "mp3": "audio/mp3",
    "aiff": "audio/aiff",
    "aac": "audio/aac",
    "ogg": "audio/ogg",
    "flac": "audio/flac",
}


def _file(url: str) -> dict[str, Any]:
    """A ``file_data`` part, with the MIME type the URL's extension names."""
    data: dict[str, Any] = {"file_uri": url}
    path = url.split("?", 1)[0].split("#", 1)[0]
    tail = path.rsplit("/", 1)[-1]
    if "." in tail:
        mime_type = _EXTENSIONS.get(tail.rsplit(".", 1)[-1].lower())
        if mime_type is not None:
            data["mime_type"] = mime_type
    return {"file_data": data}


def _with_fps(part: dict[str, Any], fps: float | None) -> dict[str, Any]:
    if fps is not None:
        part["video_metadata"] = {"fps": fps}
    return part


def _inline_url(url: str) -> tuple[str, str] | None:
    """The media type and base64 data of a ``data:`` URL; ``None`` for another URL.

    A base64 URL is taken apart; one of percent-encoded bytes is decoded and
    its bytes encoded as base64, since ``inline_data`` takes only base64.
    """
    if url[:5].lower() != "data:":
        return None
    parsed = parse_data_url(url)
    if parsed is not None:
        return parsed.media_type, parsed.data
    head, comma, payload = url[5:].partition(",")
    if not comma:
        return None
    kind = image_type(head.split(";", 1)[0]) or "text/plain"
    return kind, base64.b64encode(unquote_to_bytes(payload)).decode("ascii")


def _inline(mime_type: str, data: str) -> dict[str, Any]:
    return {"inline_data": {"mime_type": mime_type, "data": data}}


def _lost_settings(index: int, position: int, block: object, report: list[LeftOut]) -> None:
    """Report what a sent media block says that Gemini has no field for."""
    if isinstance(block, ImageUrlBlock) and block.detail != "auto":
        report.append(
            LeftOut(index, "detail", f"block {position}: Gemini has no field for an image's detail")
        )
    if getattr(block, "max_frames", None) is not None:
        report.append(
            LeftOut(
                index,
                "max-frames",
                f"block {position}: Gemini has no field for a video's max_frames",
            )
        )
    if getattr(block, "sample_rate", None) is not None:
        report.append(
            LeftOut(
                index,
                "sample-rate",
                f"block {position}: Gemini has no field for audio's sample_rate",
            )
        )


def _parts(
    index: int,
    blocks: Iterable[object],
    unsupported: Unsupported,
    report: list[LeftOut] | None,
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        why = "cannot read a local path"
        sent = len(out)
        if isinstance(block, TextBlock):
            if block.text:
                out.append({"text": block.text})
            elif report is not None:
                report.append(
                    LeftOut(index, "text", f"block {position}: Gemini takes no empty text")
                )
            continue
        if isinstance(block, (ImageUrlBlock, AudioUrlBlock, VideoUrlBlock)):
            inline = _inline_url(block.url)
            fps = block.fps if isinstance(block, VideoUrlBlock) else None
            if inline is None:
                out.append(_with_fps(_file(block.url), fps))
            else:
                kind, data = inline
                if isinstance(block, ImageUrlBlock):
                    fits, noun = kind in IMAGE_TYPES, "an image"
                elif isinstance(block, VideoUrlBlock):
                    fits, noun = kind.startswith("video/"), "a video"
                else:
                    fits, noun = kind.startswith("audio/"), "an audio"
                if fits:
                    out.append(_with_fps(_inline(kind, data), fps))
                else:
                    why = f"takes no {kind!r} data URL as {noun} block"
        elif isinstance(block, ImageBase64Block):
            kind = image_type(block.media_type)
            if kind in IMAGE_TYPES:
                out.append(_inline(kind, block.data))
            else:
                why = f"takes no {block.media_type!r} image (only PNG, JPEG, WebP, HEIC and HEIF)"
        elif isinstance(block, AudioBase64Block):
            if media_type(block.media_type).startswith("audio/"):
                out.append(_inline(block.media_type, block.data))
            else:
                why = f"takes audio with an audio/* media type, not {block.media_type!r}"
        elif isinstance(block, VideoBase64Block):
            if media_type(block.media_type).startswith("video/"):
                out.append(_with_fps(_inline(block.media_type, block.data), block.fps))
            else:
                why = f"takes video with a video/* media type, not {block.media_type!r}"
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        if len(out) > sent:
            if report is not None:
                _lost_settings(index, position, block, report)
            continue
        if unsupported == "note":
            out.append({"text": note_text(DIALECT, block)})
            if report is not None:
                report.append(
                    LeftOut(
                        index,
                        media_kind(block),
                        f"block {position}: Gemini {why}; a note stands in its place",
                    )
                )
        else:
            raise unsupported_block(DIALECT, index, position, block, why)
    return out


class _Carried:
    """What a ``gemini`` items message already says: its text, its calls, its thoughts."""

    __slots__ = ("calls", "text", "thoughts")

    def __init__(self, parts: Iterable[object]) -> None:
        texts: list[str] = []
        self.calls: list[dict[str, Any]] = []
        self.thoughts: list[str] = []
        for part in parts:
            if not isinstance(part, dict):
                continue
            call = part.get("function_call")
            text = part.get("text")
            if isinstance(call, dict):
                self.calls.append(call)
            elif isinstance(text, str):
                if not part.get("thought"):
                    texts.append(text)
                elif text:
                    self.thoughts.append(text)
        self.text = "".join(texts)

    def holds(self, position: int, call: ToolCall) -> bool:
        if position >= len(self.calls):
            return False
        carried = self.calls[position]
        return (
            carried.get("name") == call.name
            and (carried.get("args") or {}) == call.arguments
            and carried.get("id") == call.id
        )


def _says_nothing(part: object) -> bool:
    """A part of empty text, no thought and no signature: it carries nothing back."""
    return (
        isinstance(part, dict)
        and part.get("text") == ""
        and not part.get("thought")
        and part.keys() <= {"text", "thought"}
    )


def _thinking_left_out(
    index: int,
    blocks: Iterable[ThinkingBlock],
    carried: _Carried | None,
    report: list[LeftOut],
) -> None:
    """Report the thinking blocks of message ``index`` that no kept part carries.

    Gemini's own thought summaries are read from its parts, which go back
    as they came; every other thinking block (another provider's, signed or
    redacted) has no part to go in.
    """
    thoughts = list(carried.thoughts) if carried is not None else []
    for position, block in enumerate(blocks):
        if block.redacted_data is not None:
            report.append(
                LeftOut(
                    index,
                    "redacted-thinking",
                    f"thinking block {position}: redacted thinking only its own provider reads",
                )
            )
        elif block.signature is None and block.text in thoughts:
            thoughts.remove(block.text)  # a thought part of the items before it
        elif block.text:
            report.append(
                LeftOut(
                    index,
                    "thinking",
                    f"thinking block {position}: Gemini takes back only its own thought parts",
                )
            )
        elif block.signature is not None:
            report.append(
                LeftOut(
                    index,
                    "signature",
                    f"thinking block {position}: a signature Gemini cannot check",
                )
            )


UnsignedCalls = Literal["keep", "sentinel"]
"""What :func:`to_request` does with a function call of the current turn that has no signature.

``"keep"`` sends it as it is; ``"sentinel"`` gives the first call of each
model step :data:`SENTINEL_SIGNATURE` (see :func:`to_request`).
"""

SENTINEL_SIGNATURE: Final = base64.b64encode(b"skip_thought_signature_validator").decode("ascii")
"""The placeholder thought signature Google documents for calls Gemini did not make.

The bytes are the text ``skip_thought_signature_validator``, written as
every signature is here, in standard base64: what google-genai sends for
``thought_signature=b"skip_thought_signature_validator"``.
"""

_UNSIGNED_CHOICES: Final = ("keep", "sentinel")


def _turn_start(contents: list[dict[str, Any]]) -> int:
    """Where the current turn begins: the last user content that holds more than responses."""
    for position in range(len(contents) - 1, -1, -1):
        content = contents[position]
        if content["role"] == "user" and any(
            "function_response" not in part for part in content["parts"]
        ):
            return position
    return 0


def _sign_current_turn(contents: list[dict[str, Any]]) -> None:
    """Give the first call of each model step since the user last wrote the sentinel.

    Gemini checks one signature per step, on its first call; the calls
    after it in a step of parallel calls come unsigned from Gemini itself,
    and a placeholder on them would change what Gemini sent.
    """
    for content in contents[_turn_start(contents) :]:
        if content["role"] != "model":
            continue
        for part in content["parts"]:
            if isinstance(part, dict) and "function_call" in part:
                if not part.get("thought_signature"):
                    part["thought_signature"] = SENTINEL_SIGNATURE
                break


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
    unsigned_calls: UnsignedCalls = "keep",
) -> dict[str, Any]:
    """The conversation part of a ``generateContent`` request.

    Returns ``{"contents": [...]}`` plus ``"system_instruction": {"parts":
    [{"text": ...}]}`` when the transcript has system text (system messages
    joined with a blank line). Field names are the SDK's snake_case, which
    the REST API also reads; thought signatures are base64 text. Give it to
    google-genai through :func:`to_sdk_request`. External tool results are
    fenced unless ``fence_external`` is False. The request shares no dict or
    list with the transcript: change it as you like.

    ``unsigned_calls="sentinel"`` is for a turn that went on with Gemini
    after another model made calls (or after a Gemini model that signs
    nothing): Gemini 3 refuses a step of the current turn (everything since
    the last user message that is not tool results) whose first call has no
    thought signature. Each such call gets :data:`SENTINEL_SIGNATURE`,
    Google's placeholder, which makes Gemini skip the check, and gives up
    the model's own reasoning for that step; a real signature is never
    replaced. The default, ``"keep"``, sends every call as it is.
    """
    check_unsupported(unsupported)
    if type(unsigned_calls) is not str or unsigned_calls not in _UNSIGNED_CHOICES:
        raise ValueError(
            f'unsigned_calls= must be "keep" or "sentinel", not {unsigned_calls!r:.80}'
        )
    request = _build(transcript_of(messages, "to_request"), fence_external, unsupported, None)
    if unsigned_calls == "sentinel":
        _sign_current_turn(request["contents"])
    return request


def left_out(
    messages: Iterable[Message | UnknownMessage], *, unsupported: Unsupported = "raise"
) -> list[LeftOut]:
    """What :func:`to_request` of ``messages`` does not send, one piece at a time, in order.

    Reported, each with the index of its message: thinking that no kept
    part carries (``"thinking"``, ``"redacted-thinking"``, ``"signature"``),
    items of other protocols (``"items"``), empty text (``"text"``: an
    empty user message or text block, system messages that are all empty,
    and the empty unsigned part at the end of many Gemini streams), media
    settings Gemini has no field for (``"detail"``, ``"max-frames"``,
    ``"sample-rate"``), and with ``unsupported="note"`` each media block a
    note stands in for (``"image"``, ``"audio"``, ``"video"``). A call is
    never reported for a missing signature: the transcript holds none to
    leave out. It walks the transcript as :func:`to_request` does, so it
    raises what :func:`to_request` raises.
    """
    check_unsupported(unsupported)
    report: list[LeftOut] = []
    _build(transcript_of(messages, "left_out"), True, unsupported, report)
    report.sort(key=_by_index)
    return report


def _by_index(piece: LeftOut) -> int:
    return piece.index


def _build(
    transcript: list[Any],
    fence_external: bool,
    unsupported: Unsupported,
    report: list[LeftOut] | None,
) -> dict[str, Any]:
    """The request (see :func:`to_request`); ``report`` gets what it leaves out, if given."""
    ids = CallIds(transcript, any_id, DIALECT)
    copy = copy_json  # bound here: the loop copies every call's arguments
    system: list[str] = []
    contents: list[dict[str, Any]] = []
    role = ""  # the role of the last content
    parts: list[dict[str, Any]] = []  # the parts of the last content
    carried: _Carried | None = None
    # Gemini pairs function responses with the calls of the model turn before
    # them by order, not by id (it sends none unless it gave one). So each
    # response goes in at the place of its call: ``placed`` holds the call
    # order of the responses at the head of the current user turn. Nothing
    # else can stand before them there, since a user message closes the
    # calls' scope and no result may follow it in the same turn.
    placed: list[int] = []
    # The methods the loop calls for nearly every message, looked up once.
    answer, make_call = ids.result, ids.call
    for index, message in enumerate(transcript):
        previous, carried = carried, None
        if isinstance(message, ToolResultMessage):
            answered = answer(index, message)
            response: dict[str, Any] = {
                "name": answered.name,
                "response": {"output": tool_result_text(message, fence_external)},
            }
            if answered.send_id:
                response["id"] = answered.out_id
            if role != "user":
                parts = []
                contents.append({"role": "user", "parts": parts})
                role = "user"
                placed = []
            order = answered.order
            if placed and order < placed[-1]:  # a result ahead of an earlier call's
                place = bisect.bisect(placed, order)
                placed.insert(place, order)
                parts.insert(place, {"function_response": response})
            else:  # as usual, in the calls' order: it goes last
                placed.append(order)
                parts.append({"function_response": response})
            continue
        if isinstance(message, AssistantMessage):
            ids.assistant()
            new: list[dict[str, Any]] = []
            if message.content and (previous is None or message.content != previous.text):
                new.append({"text": message.content})
            if message.tool_calls:
                for position, call in enumerate(message.tool_calls):
                    if previous is not None and previous.holds(position, call):
                        continue
                    make_call(index, position, call, False)
                    new.append({"function_call": {"name": call.name, "args": copy(call.arguments)}})
            if report is not None and message.thinking:
                _thinking_left_out(index, message.thinking, previous, report)
            speaker = "model"
        elif isinstance(message, UserMessage):
            ids.user(index)
            if message.content:
                new = [{"text": message.content}]
            else:
                new = []
                if report is not None:
                    report.append(LeftOut(index, "text", "Gemini takes no empty text"))
            speaker = "user"
        elif isinstance(message, ProviderOutputItemsMessage):
            if message.protocol == PROTOCOL and message.items:
                ids.assistant()
                sent = [part for part in message.items if not _says_nothing(part)]
                if report is not None and len(sent) < len(message.items):
                    _empty_parts(index, message.items, report)
                if sent:
                    if role != "model":
                        parts = []
                        contents.append({"role": "model", "parts": parts})
                        role = "model"
                    parts.extend(copy(sent))
                carried = _Carried(message.items)
                for position, part in enumerate(carried.calls):
                    name = part.get("name")
                    call_id = part.get("id")
                    given = isinstance(call_id, str)
                    key = call_id if isinstance(call_id, str) else positional_call_id(position)
                    ids.carried(index, key, key, name if isinstance(name, str) else "", given)
                continue
            if report is not None and message.items:
                report.append(
                    LeftOut(
                        index,
                        "items",
                        f"{len(message.items)} item(s) of protocol {message.protocol!r:.40}, "
                        "which Gemini does not read",
                    )
                )
            # Items of another protocol have no meaning here: as if they were not
            # there, so they part no kept reply from the message read from it.
            carried = previous
            continue
        elif isinstance(message, UserMultimodalMessage):
            ids.user(index)
            new = _parts(index, message.content, unsupported, report)
            speaker = "user"
        elif isinstance(message, SystemMessage):
            system.append(message.content)
            continue
        elif isinstance(message, UnknownMessage):
            raise unknown_message(index, message)
        else:
            raise not_a_message(index, message)
        if new:
            if role != speaker:
                parts = []
                contents.append({"role": speaker, "parts": parts})
                role = speaker
            parts.extend(new)
    instruction = "\n\n".join(system)
    if instruction:
        return {"contents": contents, "system_instruction": {"parts": [{"text": instruction}]}}
    if report is not None and system:
        report.extend(
            LeftOut(index, "text", "the system text is empty, and Gemini takes no empty text")
            for index, message in enumerate(transcript)
            if isinstance(message, SystemMessage)
        )
    return {"contents": contents}


def _empty_parts(index: int, items: Iterable[object], report: list[LeftOut]) -> None:
    for position, part in enumerate(items):
        if _says_nothing(part):
            report.append(
                LeftOut(
                    index,
                    "text",
                    f"item {position}: empty text with no signature, which says nothing "
                    "and which Gemini refuses",
                )
            )


# --- tools and the SDK's call -------------------------------------------------------

# Gemini's rule for a function name: a letter or underscore first, then
# letters, digits, underscores, dots, colons or dashes, 128 at most.
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}")
_MODES: Final = {"auto": "AUTO", "none": "NONE", "required": "ANY"}


def tools_to_request(
    tools: Iterable[ToolSpec], *, choice: str = "auto", json_schema: bool = False
) -> dict[str, Any]:
    """The ``tools`` and ``tool_config`` fields that offer ``tools`` to the model.

    Each tool is a function declaration, all in one ``tools`` entry. By
    default its JSON Schema is translated into Gemini's own ``Schema``
    (``parameters``; see :mod:`convtypes.dialects._gemini_schema` for what
    is said another way and what is refused), which every Gemini model and
    API version takes; a tool without properties gets no ``parameters``, as
    Gemini refuses an object without any. With ``json_schema=True`` the
    schema goes as it is (a copy), as ``parameters_json_schema``, which
    newer models read as JSON Schema (recursive models included); convtypes
    then checks nothing in it. The fields share nothing with the tools.
    ``choice`` maps to ``function_calling_config``: ``"auto"`` to ``AUTO``,
    ``"none"`` to ``NONE``, ``"required"`` to ``ANY``, and a tool's name to
    ``ANY`` with that name as the only one allowed. With no tools the
    result is ``{}``.

    Raises :class:`~convtypes.dialects.ToolSchemaError` (``.tool``,
    ``.path``) for a schema Gemini's ``Schema`` cannot say without
    accepting other values, a name Gemini refuses, a name given twice, or a
    choice that names no tool.
    """
    specs, chosen = checked_tools(tools, choice, DIALECT, _NAME)
    if not specs:
        return {}
    declarations: list[dict[str, Any]] = []
    for spec in specs:
        declaration: dict[str, Any] = {"name": spec.name}
        if spec.description:
            declaration["description"] = spec.description
        if json_schema:
            declaration["parameters_json_schema"] = owned(spec.parameters)
        else:
            translated = _parameters(spec.parameters, spec.name)
            if translated is not None:
                # The translation may hand on pieces of the schema (an enum, a default).
                declaration["parameters"] = owned(translated)
        declarations.append(declaration)
    config: dict[str, Any] = (
        {"mode": _MODES[choice]}
        if chosen is None
        else {"mode": "ANY", "allowed_function_names": [chosen]}
    )
    return {
        "tools": [{"function_declarations": declarations}],
        "tool_config": {"function_calling_config": config},
    }


_BODY_KEYS: Final = {"model": "model", "contents": "contents"}
_GENERATION: Final = ("generation_config", "generationConfig")


def to_sdk_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of google-genai's ``generate_content`` for a REST body.

    The REST body puts ``system_instruction``, ``tools``, ``tool_config``,
    ``safety_settings`` and the like beside ``contents``, and the generation
    settings in ``generation_config``; the SDK takes all of them flat in one
    ``config``. So ``model`` and ``contents`` stay, the fields of
    ``generation_config`` go into ``config``, and so does everything else::

        client.models.generate_content(**gemini.to_sdk_request(
            {"model": "gemini-2.5-flash", **gemini.to_request(transcript),
             **gemini.tools_to_request(tools)}))

    A setting given both in ``generation_config`` and beside it raises
    ``ValueError``. The values are ``body``'s own, moved, not copied: a body
    built by :func:`to_request` and :func:`tools_to_request` belongs to the
    caller, and so does what this makes of it.
    """
    if not isinstance(body, Mapping):
        raise TypeError(f"body must be a dict, not {type(body).__name__}")
    out: dict[str, Any] = {}
    config: dict[str, Any] = {}
    for key, value in body.items():
        if key in _BODY_KEYS:
            out[key] = value
        elif key in _GENERATION:
            if not isinstance(value, Mapping):
                raise TypeError(f"{key} must be a dict, not {type(value).__name__}")
            for name, setting in value.items():
                if name in config:
                    raise ValueError(f"{name!r} is given twice, in {key} and beside it")
                config[name] = setting
        else:
            if key in config:
                raise ValueError(f"{key!r} is given twice, in generation_config and beside it")
            config[key] = value
    if config:
        out["config"] = config
    return out


# --- responses ----------------------------------------------------------------

# REST JSON names fields in camelCase; the SDK in snake_case. Parts are kept
# in snake_case, but the keys inside a call's arguments, a function's
# response or a part's metadata are the caller's own and are never renamed.
_OPAQUE_KEYS: Final = frozenset({"args", "response", "part_metadata", "partMetadata"})
# What google-genai adds to a response that the API did not send.
_SDK_ONLY: Final = frozenset({"sdk_http_response", "automatic_function_calling_history", "parsed"})

_FILTERED: Final = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "MODEL_ARMOR",
    }
)


def _snake(name: str) -> str:
    """``name`` in snake_case: a field name of the REST JSON as the SDK's dump spells it."""
    if type(name) is str:
        return _snake_str(name)
    return _to_snake(name)


def _to_snake(name: str) -> str:
    if name.islower() or not any(ch.isupper() for ch in name):
        return name
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in name)


# Remembered: a stream spells the same few dozen names chunk after chunk. Only
# for plain str, so that a name is never answered with another's subclass.
_snake_str: Final = functools.lru_cache(maxsize=1024)(_to_snake)


# Values a dump holds as JSON holds them.
_LEAVES: Final = frozenset({str, int, float, bool})


def _snake_keys(value: Any, room: int = MAX_DEPTH) -> Any:
    """``value`` as plain JSON in snake_case, without ``null`` fields, arguments untouched.

    A dict from the SDK's ``model_dump()`` holds bytes (signatures) and
    enums; they become standard base64 and their values, as in the REST
    JSON. Refuses (``ResponseError``) a value nested deeper than a document
    may be, before the recursion here could go deep.
    """
    if type(value) in _LEAVES:
        return value
    if isinstance(value, (dict, list)) and room <= 0:
        raise ResponseError(f"a response nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        # A leaf is taken as it is here, without a call of its own: most are.
        return {
            (_snake(key) if isinstance(key, str) else key): item
            if key in _OPAQUE_KEYS or type(item) in _LEAVES
            else _snake_keys(item, room - 1)
            for key, item in value.items()
            if item is not None
        }
    if isinstance(value, list):
        return [_snake_keys(item, room - 1) for item in value]
    if isinstance(value, (bytes, bytearray, enum.Enum)):
        return jsonable(value)
    return value


def _text(value: object) -> object:
    """An enum from a ``model_dump()`` as its value; anything else as it is."""
    return value.value if isinstance(value, enum.Enum) else value


class _Chunk:
    """What a response, or one chunk of a stream, says: read from any of its forms.

    ``candidate`` is the first candidate (``index`` 0) as sent, or ``None``
    (read from an SDK object's fields by ``_object_chunk``: those fields);
    ``parts`` its parts in snake_case, ``None`` when it has no content.
    """

    __slots__ = (
        "block",
        "candidate",
        "feedback",
        "id",
        "model",
        "parts",
        "plain",
        "reason",
        "usage",
    )

    def __init__(self, value: object, what: str) -> None:
        if isinstance(value, dict):
            data = value
        else:
            dump = getattr(value, "model_dump", None)
            if dump is None:
                raise ResponseError(
                    f"expected {what} as a dict or an SDK object, got {type(value).__name__}"
                )
            # Python mode, which is quicker; only what is read is made plain
            # JSON (``_snake_keys`` turns bytes and enums into their JSON).
            data = dump(exclude_none=True, exclude=_SDK_ONLY)
            if not isinstance(data, dict):
                raise ResponseError(f"{what} did not dump to a JSON object")
        error = reported_error(data, "candidates")
        if error is not None:
            raise ResponseError(f"{what}: {error}")
        candidate = _first(data.get("candidates"), what)
        self.candidate = candidate
        self.parts: list[dict[str, Any]] | None = None
        self.plain = False  # whether every part is known to be text (the fast readers')
        self.reason: str | None = None
        if candidate is not None:
            content = candidate.get("content")
            if content is not None:
                if not isinstance(content, dict):
                    raise ResponseError(f"{what}: the candidate's content is not an object")
                parts = content.get("parts")
                if parts is not None:
                    if not isinstance(parts, list):
                        raise ResponseError(f"{what}: candidates[0].content.parts is not a list")
                    self.parts = _checked(parts, what)
            reason = _text(_either(candidate, "finish_reason", "finishReason"))
            if reason is not None and not isinstance(reason, str):
                raise ResponseError(f"{what}: the finish reason is not text: {short(reason)}")
            self.reason = reason
        self.usage = _either(data, "usage_metadata", "usageMetadata")
        model = _either(data, "model_version", "modelVersion")
        reply_id = _either(data, "response_id", "responseId")
        self.model = model if isinstance(model, str) else None
        self.id = reply_id if isinstance(reply_id, str) else None
        feedback = _either(data, "prompt_feedback", "promptFeedback")
        self.feedback = feedback is not None
        block = (
            _either(feedback, "block_reason", "blockReason") if isinstance(feedback, dict) else None
        )
        self.block = block if isinstance(block, str) else None


class _UsageOf(tuple[Any]):
    """A streamed chunk's usage metadata, read from the SDK's object when the stream ends.

    Only the last chunk's usage counts, and google-genai's stream brings one
    in every chunk: it is dumped (as ``_Chunk`` dumps it) once, not each time.
    Made as ``_UsageOf((response,))``: a tuple, so that the chunk after chunk
    that make one run no Python code to do it.
    """

    __slots__ = ()

    def dumped(self) -> object:
        data = self[0].model_dump(exclude_none=True, include={"usage_metadata"})
        return data.get("usage_metadata") if isinstance(data, dict) else None


def _text_part(part: object) -> dict[str, Any] | None:
    """A part of text (or thought) as ``_checked`` reads its dump; ``None`` for any other."""
    cls = type(part)
    if not _TEXT_FIRST.get(cls) and (
        cls in _TEXT_FIRST or fields(part, by_alias=False) is None or not _text_first(cls)
    ):
        return None
    if part.__pydantic_extra__:  # type: ignore[attr-defined]
        return None
    found = part.__dict__
    text = found.get("text")
    if type(text) is not str:
        return None
    # The dump leaves out what is None: a part of text has besides its text
    # the thought flag, the thought signature (bytes, which ``_checked``
    # writes in standard base64), both, or neither, and nothing else.
    thought = found.get("thought")
    signature = found.get("thought_signature")
    # Counted by type, which compares by identity: a value that only claims
    # to equal None is still written by the dump.
    if len(found) - countOf(map(type, found.values()), _NONE) != (
        1 + (thought is not None) + (signature is not None)
    ):
        return None
    if thought is None:
        if signature is None:
            return {"text": text}
        kept: dict[str, Any] = {"text": text}
    elif type(thought) is bool:
        kept = {"text": text, "thought": thought}
    else:
        return None
    if signature is not None:
        if type(signature) is not bytes:
            return None
        kept["thought_signature"] = base64.b64encode(signature).decode("ascii")
    return kept


def _text_first(cls: type) -> bool:
    """Whether ``cls``, a model read by its fields, declares text, thought and signature in order.

    Remembered here too, for the check each part makes before the call.
    """
    known = _TEXT_FIRST.get(cls)
    if known is None:
        known = _TEXT_FIRST[cls] = in_declared_order(cls, "text", "thought", "thought_signature")
    return known


_TEXT_FIRST: Final[dict[type, bool]] = {}
_NONE: Final = type(None)


def _object_chunk(value: object) -> _Chunk | None:
    """A streamed chunk of text read from the fields of google-genai's object.

    What ``_Chunk`` reads from its dump (``model_dump(exclude_none=True)``,
    where a field is absent exactly when it is ``None``), for the chunks that
    come by the thousand and the last: a first candidate whose parts are all
    text or thought, maybe signed, or that has none, and no prompt feedback. Its usage is kept
    as :class:`_UsageOf`. ``None`` for any other chunk, or where the fields
    might not read as the dump does (see ``_objects``): ``_Chunk`` reads it.
    """
    outer = value.__dict__ if type(value) in PLAIN_BY_NAME else fields(value, by_alias=False)
    if (
        outer is None
        or value.__pydantic_extra__  # type: ignore[attr-defined]
        or outer.get("prompt_feedback") is not None
    ):
        return None
    candidates = outer.get("candidates")
    candidate = None
    if candidates is not None:
        if type(candidates) is not list:
            return None
        for item in candidates:
            found = item.__dict__ if type(item) in PLAIN_BY_NAME else fields(item, by_alias=False)
            if found is None or item.__pydantic_extra__:
                return None
            index = found.get("index")
            if index is None or (index == 0 and type(index) is int):
                candidate = found
                break
            if type(index) is not int:
                return None
    parts: list[dict[str, Any]] | None = None
    reason: str | None = None
    if candidate is not None:
        finish = candidate.get("finish_reason")
        if finish is not None:
            told = _text(finish)
            if type(told) is not str:
                return None
            reason = told
        content = candidate.get("content")
        if content is not None:
            inner = content.__dict__ if type(content) in PLAIN_BY_NAME else fields(content, False)
            if inner is None or content.__pydantic_extra__:
                return None
            given = inner.get("parts")
            if given is not None:
                if type(given) is not list:
                    return None
                parts = []
                for part in given:
                    kept = _text_part(part)
                    if kept is None:
                        return None
                    parts.append(kept)
    model = outer.get("model_version")
    reply_id = outer.get("response_id")
    chunk = _Chunk.__new__(_Chunk)
    chunk.candidate = candidate
    chunk.parts = parts
    chunk.reason = reason
    chunk.usage = _UsageOf((value,)) if outer.get("usage_metadata") is not None else None
    chunk.model = model if isinstance(model, str) else None
    chunk.id = reply_id if isinstance(reply_id, str) else None
    chunk.feedback = False
    chunk.block = None
    chunk.plain = True
    return chunk


# What ``_dict_chunk`` reads as it is: the keys of a text part that
# ``_snake_keys`` leaves unchanged, and the REST JSON's keys of a chunk and of
# its candidate whose values it reads under their camelCase name alone.
_PLAIN_TEXT_KEYS: Final = frozenset({"text", "thought"})
_CHUNK_KEYS: Final = frozenset(
    {"candidates", "usageMetadata", "modelVersion", "responseId", "createTime"}
)
_CANDIDATE_KEYS: Final = frozenset({"content", "index", "finishReason"})


def _dict_chunk(data: dict[str, Any]) -> _Chunk | None:
    """A streamed chunk of text given as a dict, read without the general walk.

    The chunks that come by the thousand hold one candidate (index 0 or none)
    whose parts are text or thought, unsigned, under the REST JSON's keys:
    ``_Chunk`` would copy each part unchanged, and that is what this does.
    ``None`` for any other chunk (another key, a signed or other part),
    which ``_Chunk`` reads.
    """
    candidates = data.get("candidates")
    if type(candidates) is not list or len(candidates) != 1 or not data.keys() <= _CHUNK_KEYS:
        return None
    candidate = candidates[0]
    if type(candidate) is not dict or not candidate.keys() <= _CANDIDATE_KEYS:
        return None
    index = candidate.get("index")
    if index is not None and (type(index) is not int or index != 0):
        return None
    reason = candidate.get("finishReason")
    content = candidate.get("content")
    if type(content) is not dict or (reason is not None and type(reason) is not str):
        return None
    given = content.get("parts")
    if type(given) is not list:
        return None
    parts: list[dict[str, Any]] = []
    for part in given:
        if (
            type(part) is not dict
            or type(part.get("text")) is not str
            or not part.keys() <= _PLAIN_TEXT_KEYS
            or ("thought" in part and type(part["thought"]) is not bool)
        ):
            return None
        parts.append(dict(part))
    model = data.get("modelVersion")
    reply_id = data.get("responseId")
    chunk = _Chunk.__new__(_Chunk)
    chunk.candidate = candidate
    chunk.parts = parts
    chunk.reason = reason
    chunk.usage = data.get("usageMetadata")
    chunk.model = model if isinstance(model, str) else None
    chunk.id = reply_id if isinstance(reply_id, str) else None
    chunk.feedback = False
    chunk.block = None
    chunk.plain = True
    return chunk


def _either(data: dict[str, Any], snake: str, camel: str) -> Any:
    value = data.get(snake)
    return data.get(camel) if value is None else value


def _first(candidates: object, what: str) -> dict[str, Any] | None:
    """The candidate of ``index`` 0 (an absent index is 0, as Gemini leaves zeros out)."""
    if candidates is None:
        return None
    if not isinstance(candidates, list):
        raise ResponseError(f"{what}: candidates is not a list: {short(candidates)}")
    for number, candidate in enumerate(candidates):
        if not isinstance(candidate, dict):
            raise ResponseError(f"{what}: candidates[{number}] is not an object")
        index = candidate.get("index")
        if index is None or (index == 0 and type(index) is int):
            return candidate
        if type(index) is not int:
            raise ResponseError(f"{what}: candidates[{number}].index is not an integer")
    return None


# URL-safe base64 (google-genai's JSON dump of bytes) into the standard alphabet
# the API writes; a standard string has neither character, so it is unchanged.
_STANDARD: Final = str.maketrans("-_", "+/")


def _checked(parts: list[Any], what: str) -> list[dict[str, Any]]:
    """The parts in snake_case, their bytes in standard base64, as the REST JSON has them."""
    out: list[dict[str, Any]] = []
    for number, part in enumerate(parts):
        if not isinstance(part, dict):
            raise ResponseError(f"{what}: part {number} is not an object")
        part = _snake_keys(part)
        signature = part.get("thought_signature")
        if isinstance(signature, str):
            part["thought_signature"] = signature.translate(_STANDARD)
        inline = part.get("inline_data")
        if isinstance(inline, dict) and isinstance(inline.get("data"), str):
            part["inline_data"] = {**inline, "data": inline["data"].translate(_STANDARD)}
        out.append(part)
    return out


def _is_text(part: dict[str, Any]) -> bool:
    return isinstance(part.get("text"), str) and part.keys() <= {
        "text",
        "thought",
        "thought_signature",
    }


def _in_pieces(call: object) -> bool:
    """Whether a function call is one piece of a call streamed in pieces."""
    return isinstance(call, dict) and (
        call.get("partial_args") is not None or bool(call.get("will_continue"))
    )


_IN_PIECES: Final = (
    "a function call streamed in pieces (stream_function_call_arguments) is not supported; "
    "leave that option off"
)


def _read_call(part: dict[str, Any], where: str) -> ToolCall:
    call = part["function_call"]
    if not isinstance(call, dict):
        raise ResponseError(f"{where}: a function call that is not an object")
    if _in_pieces(call):
        raise ResponseError(f"{where}: {_IN_PIECES}")
    name = call.get("name")
    arguments = call.get("args")
    if arguments is None:
        arguments = {}
    call_id = call.get("id")
    if not isinstance(name, str) or not isinstance(arguments, dict):
        raise ResponseError(f"{where}: a function call without a name or args")
    if call_id is not None and not isinstance(call_id, str):
        raise ResponseError(f"{where}: a function call id that is not text")
    return tool_call(call_id, name, arguments, where)


def _messages(parts: list[dict[str, Any]], final: bool = True) -> list[Message]:
    """The items message and the assistant message for ``parts``.

    A call that cannot be read raises ``ResponseError``, unless ``final`` is
    False (a partial reply), where it stays in the items only.
    """
    texts: list[str] = []
    calls: list[ToolCall] = []
    thinking: list[ThinkingBlock] = []
    for number, part in enumerate(parts):
        if "function_call" in part:
            try:
                calls.append(_read_call(part, f"parts[{number}]"))
            except ResponseError:
                if final:
                    raise
        elif isinstance(part.get("text"), str):
            if part.get("thought"):
                if part["text"]:
                    thinking.append(ThinkingBlock(text=part["text"]))
            else:
                texts.append(part["text"])
        # Other parts (code execution, generated media) stay in the items.
    assistant = AssistantMessage(
        content="".join(texts), tool_calls=tuple(calls), thinking=tuple(thinking)
    )
    kept = built(lambda: ProviderOutputItemsMessage(protocol=PROTOCOL, items=tuple(parts)), "parts")
    return [kept, assistant]


def _stop_reason(reason: str | None, blocked: bool, messages: list[Message]) -> StopReason:
    if reason is None:
        return "content_filter" if blocked else "other"
    if reason == "STOP":
        assistant = messages[-1]
        calls = isinstance(assistant, AssistantMessage) and bool(assistant.tool_calls)
        return "tool_use" if calls else "end_turn"
    if reason == "MAX_TOKENS":
        return "max_tokens"
    if reason in _FILTERED:
        return "content_filter"
    return "other"


def _usage(raw: object, what: str) -> Usage:
    """The usage metadata as a :class:`Usage` (see the module for the arithmetic)."""
    if raw is None:
        return Usage()
    if not isinstance(raw, dict):
        raise ResponseError(f"{what}: the usage metadata is not an object: {short(raw)}")
    usage = _snake_keys(raw)
    prompt = token_count(usage, "prompt_token_count")
    tools = token_count(usage, "tool_use_prompt_token_count")
    generated = token_count(usage, "candidates_token_count")
    thoughts = token_count(usage, "thoughts_token_count")
    total = token_count(usage, "total_token_count")
    given = [count for count in (prompt, tools) if count is not None]
    input_tokens = sum(given) if given else None
    if generated is not None or thoughts is not None:
        output_tokens: int | None = (generated or 0) + (thoughts or 0)
    elif total is not None and input_tokens is not None and total >= input_tokens:
        output_tokens = total - input_tokens
    else:
        output_tokens = None
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=token_count(usage, "cached_content_token_count"),
        reasoning_tokens=thoughts,
        raw=usage,
    )


def _reply(
    messages: list[Message],
    reason: str | None,
    block: str | None,
    blocked: bool,
    usage: Usage,
    model: str | None,
    reply_id: str | None,
) -> Reply:
    return Reply(
        messages=messages,
        stop_reason=_stop_reason(reason, blocked, messages),
        provider_stop_reason=reason if reason is not None else block,
        usage=usage,
        model=model,
        id=reply_id,
    )


def from_response(response: object) -> list[Message]:
    """The messages to append for a ``GenerateContentResponse`` (dict or SDK object).

    Always two: the ``gemini`` items message with the first candidate's
    parts as sent, then the ``AssistantMessage`` read from them (its text,
    calls and thought summaries). A candidate without content, or a prompt
    blocked before any candidate, gives both empty; :func:`read_reply` says
    why. A response with neither a candidate nor prompt feedback raises
    ``ResponseError``.
    """
    return read_reply(response).messages


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage, model and id."""
    try:
        chunk = _Chunk(response, "the response")
        if chunk.candidate is None and not chunk.feedback:
            raise ResponseError(
                "the response has no first candidate, and no prompt feedback to say why"
            )
        messages = _messages(chunk.parts or [])
        return _reply(
            messages,
            chunk.reason,
            chunk.block,
            chunk.block is not None,
            _usage(chunk.usage, "the response"),
            chunk.model,
            chunk.id,
        )
    except LEAKS as err:
        raise_response_failure(err)


class Accumulator(StreamReader):
    """Builds the messages of a streamed ``generateContent`` call.

    ``feed`` every chunk (a ``GenerateContentResponse``, or its dict, REST or
    snake_case); each brings more parts of the first candidate. ``feed``
    returns what the chunk added: a :class:`TextDelta` or
    :class:`ThinkingDelta` for each piece of text, and for a function call
    (Gemini sends each whole) a :class:`ToolCallStart` and one
    :class:`ToolCallDelta` with its arguments as JSON text. ``result()``
    equals ``from_response`` of the response the chunks add up to (see the
    module), and raises if no chunk gave a finish reason; a chunk that says
    the prompt was blocked ends the stream too. ``reply()`` adds the finish
    reason and the last chunk's usage.
    """

    _noun = "chunk"
    _end = "a finish reason"

    def __init__(self) -> None:
        super().__init__()
        self._parts: list[dict[str, Any]] = []  # every part before the open one
        # The last part, while it is text a later chunk may continue: its first
        # piece as sent, and all its pieces, joined only when asked for (joining
        # on every chunk would copy the text so far each time).
        self._open: dict[str, Any] | None = None
        self._pieces: list[str] = []
        self._calls = 0
        self._reason: str | None = None
        self._block: str | None = None
        self._blocked = False
        self._usage: tuple[int, object] | None = None
        self._model: str | None = None
        self._id: str | None = None

    def _take(self, number: int, event: object) -> list[Delta]:
        if self._finished:
            chunk = None
        elif type(event) is dict:
            chunk = _dict_chunk(event)
        else:
            chunk = _object_chunk(event)
        if chunk is None:
            try:
                chunk = _Chunk(event, f"chunk {number}")
            except ResponseError as err:
                raise StreamError(str(err), number, event) from None
        if chunk.usage is not None:
            self._usage = (number, chunk.usage)
        if self._model is None:
            self._model = chunk.model
        if self._id is None:
            self._id = chunk.id
        if chunk.candidate is None:
            if chunk.block is not None:
                self._block = chunk.block
                self._blocked = True
                self._finished = True
                self._settle_usage()
            return []  # usage only, or another candidate's content
        if self._finished and (chunk.parts or (chunk.reason not in (None, self._reason))):
            raise StreamError(
                f"chunk {number}: more content after the finish reason", number, event
            )
        parts = chunk.parts
        if chunk.plain and self._open is not None and parts is not None and len(parts) == 1:
            # The chunk continues the open text part (what ``_add`` would find).
            part = parts[0]
            thought = part.get("thought")
            if "thought_signature" not in part and bool(self._open.get("thought")) == bool(thought):
                text = part["text"]
                self._pieces.append(text)
                if chunk.reason is not None:
                    self._reason = chunk.reason
                    self._finished = True
                    self._settle_usage()
                if not text:
                    return []
                return [ThinkingDelta(text=text) if thought else TextDelta(text=text)]
        deltas: list[Delta] = []
        for position, part in enumerate(parts or ()):
            self._add(part, position == 0)
            text = part.get("text")
            if "function_call" in part:
                self._call(part, number, event, deltas)
            elif isinstance(text, str) and text:
                deltas.append(
                    ThinkingDelta(text=text) if part.get("thought") else TextDelta(text=text)
                )
        if chunk.reason is not None:
            self._reason = chunk.reason
            self._finished = True
            self._settle_usage()
        return deltas

    def _settle_usage(self) -> None:
        """At the stream's end, the usage kept from an SDK object is dumped, as ``_Chunk`` would."""
        if self._usage is not None and isinstance(self._usage[1], _UsageOf):
            self._usage = (self._usage[0], self._usage[1].dumped())

    def _add(self, part: dict[str, Any], first: bool) -> None:
        """Add ``part``; a chunk's ``first`` part may continue the open text part.

        It does when both are text of the same kind (thought or not) and
        ``part`` brings no signature, which opens a part of its own.
        """
        text_only = _is_text(part)
        if (
            first
            and text_only
            and self._open is not None
            and "thought_signature" not in part
            and bool(self._open.get("thought")) == bool(part.get("thought"))
        ):
            self._pieces.append(part["text"])
            return
        if self._open is not None:
            self._parts.append(self._joined())
            self._open = None
        if text_only:
            self._open, self._pieces = part, [part["text"]]
        else:
            self._parts.append(part)

    def _joined(self) -> dict[str, Any]:
        """The open part with its pieces joined: a new dict, so earlier results stay."""
        assert self._open is not None
        if len(self._pieces) == 1:
            return self._open
        return {**self._open, "text": "".join(self._pieces)}

    def _call(self, part: dict[str, Any], number: int, event: object, deltas: list[Delta]) -> None:
        if _in_pieces(part["function_call"]):
            raise StreamError(f"chunk {number}: {_IN_PIECES}", number, event)
        try:
            call = _read_call(part, f"chunk {number}")
        except ResponseError:
            return  # refused at the end, naming the part's place in the reply
        index = self._calls
        self._calls += 1
        deltas.append(ToolCallStart(index=index, id=call.id, name=call.name))
        deltas.append(ToolCallDelta(index=index, arguments=arguments_json(call.arguments)))

    def _messages(self, final: bool) -> list[Message]:
        # Gemini sends each call whole: every call so far is complete.
        parts = self._parts if self._open is None else [*self._parts, self._joined()]
        return _messages(parts, final)

    def _reply(self, messages: list[Message]) -> Reply:
        usage = Usage()
        if self._usage is not None:
            number, raw = self._usage
            try:
                usage = _usage(raw, f"chunk {number}")
            except ResponseError as err:
                raise StreamError(str(err), number, None) from None
        return _reply(
            messages, self._reason, self._block, self._blocked, usage, self._model, self._id
        )
