"""The Gemini API (``generateContent``), in the field names of the google-genai SDK.

``to_request`` builds ``{"contents": [...], "system_instruction": {...}}``,
leaving ``system_instruction`` out when the transcript has no system text;
``from_response`` and :class:`Accumulator` turn a ``GenerateContentResponse``,
or the chunks of a streamed one, into two messages: a
``ProviderOutputItemsMessage`` of protocol ``gemini`` holding the model
turn's parts, then the ``AssistantMessage`` read from them.

Why keep the parts: Gemini hands out thought signatures on the part they
belong to (a text part, a function call, sometimes an empty text part at
the end of a stream), and it checks that each comes back on that same part.
A ``ThinkingBlock`` has no notion of "the part after the thoughts", and a
Gemini signature in one would be sent to Anthropic as if it were Anthropic's.
So the parts go back verbatim, in place, exactly once, as the Responses
dialect does with its items; the assistant message beside them is for every
other dialect, and this one sends only what the parts do not already carry.
Thought summaries become unsigned ``ThinkingBlock``\\ s, for display.

What changes on the way out:

- Turns alternate as ``user`` and ``model``: consecutive user messages and
  tool results become one user turn, function responses first.
- Tool calls go as ``function_call`` parts, results as ``function_response``
  parts named after their call, with ``{"output": text}`` as the response.
  Gemini pairs them by order, so the responses of a turn go in the order of
  the calls they answer, whatever their order in the transcript; an ``id``
  is sent only where Gemini gave one.
- Thinking blocks are dropped (signatures travel in the parts); items of
  other protocols are dropped. Empty text is left out, and empty turns.
- Images (PNG, JPEG, WebP, HEIC, HEIF), audio and video go inline
  (``inline_data``) or by URL (``file_data``, with a MIME type guessed from
  the URL's extension when it has a known one). ``fps`` goes as
  ``video_metadata``; ``max_frames``, ``sample_rate`` and an image's
  ``detail`` have no field and are dropped. A local path raises
  ``UnsupportedContent``: the API cannot read this machine's files.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Any, Final

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
from ._errors import (
    LEAKS,
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
from ._ids import CallIds, any_id
from ._json import built, jsonable, tool_call
from ._reply import Delta
from ._send import tool_result_text
from ._stream import StreamReader

__all__ = ["PROTOCOL", "Accumulator", "from_response", "to_request"]

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


def _parts(index: int, blocks: Iterable[object], unsupported: Unsupported) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        why = "cannot read a local path"
        if isinstance(block, TextBlock):
            if block.text:
                out.append({"text": block.text})
            continue
        if isinstance(block, (ImageUrlBlock, AudioUrlBlock)):
            out.append(_file(block.url))
            continue
        if isinstance(block, VideoUrlBlock):
            out.append(_with_fps(_file(block.url), block.fps))
            continue
        if isinstance(block, ImageBase64Block):
            if block.media_type in IMAGE_TYPES:
                inline = {"mime_type": block.media_type, "data": block.data}
                out.append({"inline_data": inline})
                continue
            why = f"takes no {block.media_type!r} image (only PNG, JPEG, WebP, HEIC and HEIF)"
        elif isinstance(block, AudioBase64Block):
            if block.media_type.startswith("audio/"):
                out.append({"inline_data": {"mime_type": block.media_type, "data": block.data}})
                continue
            why = f"takes audio with an audio/* media type, not {block.media_type!r}"
        elif isinstance(block, VideoBase64Block):
            if block.media_type.startswith("video/"):
                inline = {"mime_type": block.media_type, "data": block.data}
                out.append(_with_fps({"inline_data": inline}, block.fps))
                continue
            why = f"takes video with a video/* media type, not {block.media_type!r}"
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        if unsupported == "note":
            out.append({"text": note_text(DIALECT, block)})
        else:
            raise unsupported_block(DIALECT, index, position, block, why)
    return out


class _Carried:
    """What a ``gemini`` items message already says: its text and its calls."""

    __slots__ = ("calls", "text")

    def __init__(self, parts: Iterable[object]) -> None:
        texts: list[str] = []
        self.calls: list[dict[str, Any]] = []
        for part in parts:
            if not isinstance(part, dict):
                continue
            call = part.get("function_call")
            if isinstance(call, dict):
                self.calls.append(call)
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                texts.append(part["text"])
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


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
) -> dict[str, Any]:
    """The conversation part of a ``generateContent`` request.

    Returns ``{"contents": [...]}`` plus ``"system_instruction": {"parts":
    [{"text": ...}]}`` when the transcript has system text (system messages
    joined with a blank line). Field names are the SDK's snake_case, which
    the REST API also reads; thought signatures are base64 text. External
    tool results are fenced unless ``fence_external`` is False. Parts
    replayed from items are shared with the transcript, not copied.
    """
    check_unsupported(unsupported)
    transcript = messages if isinstance(messages, list) else list(messages)
    ids = CallIds(transcript, any_id, DIALECT)
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
    for index, message in enumerate(transcript):
        if isinstance(message, ProviderOutputItemsMessage):
            if message.protocol == PROTOCOL and message.items:
                ids.assistant()
                if role != "model":
                    parts = []
                    contents.append({"role": "model", "parts": parts})
                    role = "model"
                parts.extend(message.items)  # type: ignore[arg-type]
                carried = _Carried(message.items)
                for position, part in enumerate(carried.calls):
                    name = part.get("name")
                    call_id = part.get("id")
                    sent = isinstance(call_id, str)
                    key = call_id if isinstance(call_id, str) else positional_call_id(position)
                    ids.carried(index, key, key, name if isinstance(name, str) else "", sent)
            continue  # items of another protocol have no meaning here
        previous, carried = carried, None
        if isinstance(message, ToolResultMessage):
            answered = ids.result(index, message)
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
            place = bisect.bisect(placed, answered.order)
            placed.insert(place, answered.order)
            parts.insert(place, {"function_response": response})
            continue
        if isinstance(message, AssistantMessage):
            ids.assistant()
            new: list[dict[str, Any]] = []
            if message.content and (previous is None or message.content != previous.text):
                new.append({"text": message.content})
            for position, call in enumerate(message.tool_calls):
                if previous is not None and previous.holds(position, call):
                    continue
                ids.call(index, position, call, send_id=False)
                new.append({"function_call": {"name": call.name, "args": call.arguments}})
            speaker = "model"
        elif isinstance(message, UserMessage):
            ids.user(index)
            new = [{"text": message.content}] if message.content else []
            speaker = "user"
        elif isinstance(message, UserMultimodalMessage):
            ids.user(index)
            new = _parts(index, message.content, unsupported)
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
    return {"contents": contents}


# --- responses ----------------------------------------------------------------

# REST JSON names fields in camelCase; the SDK in snake_case. Parts are kept
# in snake_case, but the keys inside a call's arguments or a function's
# response are the caller's own and are never renamed.
_OPAQUE_KEYS: Final = frozenset({"args", "response"})


def _snake(name: str) -> str:
    if name.islower() or not any(ch.isupper() for ch in name):
        return name
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in name)


def _snake_keys(value: Any, room: int = MAX_DEPTH) -> Any:
    """``value`` with its keys in snake_case, except inside arguments and responses.

    Refuses (``ResponseError``) a value nested deeper than a document may
    be, before the recursion here could go deep.
    """
    if isinstance(value, (dict, list)) and room <= 0:
        raise ResponseError(f"a response nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        return {
            (_snake(key) if isinstance(key, str) else key): item
            if key in _OPAQUE_KEYS
            else _snake_keys(item, room - 1)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_snake_keys(item, room - 1) for item in value]
    return value


def _plain(value: object, what: str) -> dict[str, Any]:
    if isinstance(value, dict):
        result = _snake_keys(value)
    else:
        dump = getattr(value, "model_dump", None)
        if dump is None:
            raise ResponseError(
                f"expected {what} as a dict or an SDK object, got {type(value).__name__}"
            )
        result = jsonable(dump(exclude_none=True))
    if not isinstance(result, dict):  # pragma: no cover - pydantic models dump to dicts
        raise ResponseError(f"{what} is not a JSON object")
    return result


def _is_text(part: dict[str, Any]) -> bool:
    return isinstance(part.get("text"), str) and part.keys() <= {
        "text",
        "thought",
        "thought_signature",
    }


def _append(parts: list[dict[str, Any]], part: dict[str, Any]) -> None:
    """Add ``part``, joining it to the text part before it when nothing is lost.

    A stream splits one text part into many; they join back here, and a
    response that was not streamed comes out the same. A part with its own
    signature is never joined to an earlier one: the signature stays where
    Gemini put it.
    """
    if parts and _is_text(part) and "thought_signature" not in part:
        last = parts[-1]
        if _is_text(last) and bool(last.get("thought")) == bool(part.get("thought")):
            parts[-1] = {**last, "text": last["text"] + part["text"]}
            return
    parts.append(part)


def _candidate_parts(data: dict[str, Any], what: str) -> tuple[list[Any] | None, Any]:
    """The first candidate's parts (``None`` when it has no content), its finish reason."""
    candidates = data.get("candidates")
    if not candidates:
        feedback = data.get("prompt_feedback") or {}
        reason = feedback.get("block_reason") if isinstance(feedback, dict) else None
        raise ResponseError(f"{what} has no candidates (block reason: {label(reason)})")
    if not isinstance(candidates, list):
        raise ResponseError(f"{what}: candidates is not a list: {short(candidates)}")
    first = candidates[0]
    if not isinstance(first, dict):
        raise ResponseError(f"{what}: candidates[0] is not an object")
    content = first.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    if parts is not None and not isinstance(parts, list):
        raise ResponseError(f"{what}: candidates[0].content.parts is not a list")
    return parts, first.get("finish_reason")


def _messages(parts: list[dict[str, Any]]) -> list[Message]:
    texts: list[str] = []
    calls: list[ToolCall] = []
    thinking: list[ThinkingBlock] = []
    for number, part in enumerate(parts):
        call = part.get("function_call")
        if call is not None:
            where = f"parts[{number}]"
            if not isinstance(call, dict):
                raise ResponseError(f"{where}: a function call that is not an object")
            name = call.get("name")
            arguments = call.get("args")
            if arguments is None:
                arguments = {}
            call_id = call.get("id")
            if not isinstance(name, str) or not isinstance(arguments, dict):
                raise ResponseError(f"{where}: a function call without a name or args")
            if call_id is not None and not isinstance(call_id, str):
                raise ResponseError(f"{where}: a function call id that is not text")
            calls.append(tool_call(call_id, name, arguments, where))
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


def _checked(parts: list[Any], what: str) -> list[dict[str, Any]]:
    joined: list[dict[str, Any]] = []
    for number, part in enumerate(parts):
        if not isinstance(part, dict):
            raise ResponseError(f"{what}: part {number} is not an object")
        _append(joined, part)
    return joined


def from_response(response: object) -> list[Message]:
    """The messages to append for a ``GenerateContentResponse`` (dict or SDK object).

    Only the first candidate is read: the others are alternatives to it. A
    response without one (a blocked prompt), or whose candidate has no
    content, raises ``ResponseError`` naming the reason. Adjacent text parts
    are joined where no signature stands between them, as a stream's are.
    """
    try:
        data = _plain(response, "the response")
        parts, reason = _candidate_parts(data, "the response")
        if parts is None:
            raise ResponseError(
                f"the response's candidate has no content (finish reason: {label(reason)})"
            )
        return _messages(_checked(parts, "the response"))
    except LEAKS as err:
        raise_response_failure(err)


class Accumulator(StreamReader):
    """Builds the messages of a streamed ``generateContent`` call.

    ``feed`` every chunk (a ``GenerateContentResponse``, or its dict); each
    brings more parts of the first candidate, and text split across chunks
    joins back. ``result()`` equals ``from_response`` of the response the
    chunks add up to, and raises if no chunk gave a finish reason.
    """

    _noun = "chunk"
    _end = "a finish reason"

    def __init__(self) -> None:
        super().__init__()
        self._parts: list[dict[str, Any]] = []

    def _take(self, number: int, event: object) -> list[Delta]:
        data = _plain(event, "a chunk")
        if not data.get("candidates"):
            feedback = data.get("prompt_feedback")
            if feedback:
                raise StreamError(
                    f"chunk {number}: the prompt was blocked: {short(feedback, 200)}",
                    number,
                    event,
                )
            return []  # usage metadata only
        if self._finished:
            raise StreamError(
                f"chunk {number}: more content after the finish reason", number, event
            )
        try:
            parts, reason = _candidate_parts(data, f"chunk {number}")
            for part in _checked(parts or [], f"chunk {number}"):
                _append(self._parts, part)
        except ResponseError as err:
            raise StreamError(str(err), number, event) from None
        if reason is not None:
            self._finished = True
        return []

    def _messages(self, final: bool) -> list[Message]:
        return _messages(self._parts)
