"""A transcript to Gemini's ``contents`` and ``systemInstruction``, thought signatures and all."""

from __future__ import annotations

import base64
import bisect
from collections.abc import Iterable
from typing import Any, Final, Literal
from urllib.parse import unquote_to_bytes

from ..._content import (
    AudioBase64Block,
    AudioUrlBlock,
    ImageBase64Block,
    ImageUrlBlock,
    TextBlock,
    VideoBase64Block,
    VideoUrlBlock,
)
from ..._conversation import positional_call_id, repeated
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
from .._copy import copy_json
from .._errors import (
    Unsupported,
    check_unsupported,
    not_a_message,
    note_text,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from .._ids import CallIds, any_id
from .._left_out import LeftOut, duplicate, media_kind
from .._media import image_type, media_type, parse_data_url
from .._newer import Unknown, check_unknown, newer_notes
from .._send import tool_result_text, transcript_of
from ._wire import DIALECT, PROTOCOL

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
    unknown: Unknown = "raise",
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

    A message of a role this version does not know raises
    ``UnsupportedContent``, or with ``unknown="skip"`` is left out, walked
    past as if it were not there.
    """
    check_unsupported(unsupported)
    if type(unsigned_calls) is not str or unsigned_calls not in _UNSIGNED_CHOICES:
        raise ValueError(
            f'unsigned_calls= must be "keep" or "sentinel", not {unsigned_calls!r:.80}'
        )
    check_unknown(unknown)
    transcript = transcript_of(messages, "to_request")
    request = _build(transcript, fence_external, unsupported, None, unknown)
    if unsigned_calls == "sentinel":
        _sign_current_turn(request["contents"])
    return request


def _build(
    transcript: list[Any],
    fence_external: bool,
    unsupported: Unsupported,
    report: list[LeftOut] | None,
    unknown: Unknown = "raise",
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
    copies = repeated(transcript)
    for index, message in enumerate(transcript):
        if copies and index in copies:
            if report is not None:
                report.append(duplicate(index, copies[index]))
            continue  # sent once: walked past, as an unknown message is
        if report is not None:
            report += newer_notes(index, message)
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
            if report is not None and contents and message.content:
                report.append(LeftOut(index, "position", _MOVED))
            continue
        elif isinstance(message, UnknownMessage):
            if unknown == "raise":
                raise unknown_message(index, message)
            carried = previous  # walked past: what comes next follows what came before
            continue
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


_MOVED: Final = (
    "a system message after the first turn goes to system_instruction, ahead of the "
    "turns it followed: Gemini takes system text nowhere else"
)


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
