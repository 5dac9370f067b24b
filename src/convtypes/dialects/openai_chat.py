"""The OpenAI Chat Completions API.

``to_request`` builds ``{"messages": [...]}``; ``from_response`` and
:class:`Accumulator` turn a ``ChatCompletion``, or its ``ChatCompletionChunk``
stream, into one ``AssistantMessage`` (from the first choice).

What changes on the way out:

- Messages map one to one; tool calls ride on their assistant message with
  their arguments as JSON text, and each result is a ``tool`` message.
- Thinking has no place in Chat Completions and is dropped, and so are
  provider output items of every protocol.
- Tool-call ids are made unique and fit ``[A-Za-z0-9_-]``, at most 40 long.
- Images go as ``image_url`` parts (base64 as ``data:`` URLs); a ``detail``
  other than ``low``, ``high`` or ``auto`` is left out. Base64 WAV or MP3
  audio goes as ``input_audio``. Video, other audio, and images other than
  JPEG, PNG, GIF and WebP raise ``UnsupportedContent``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .._content import AudioBase64Block, ImageBase64Block, ImageUrlBlock, TextBlock
from .._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
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
    not_a_message,
    note_text,
    raise_response_failure,
    short,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from ._ids import CallIds, safe_id
from ._json import arguments_json, field, parse_arguments, plain, tool_call
from ._reply import Delta
from ._send import data_url, tool_result_text
from ._stream import StreamReader

__all__ = ["Accumulator", "from_response", "to_request"]

DIALECT: Final = "OpenAI Chat Completions"

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
DETAILS: Final = frozenset({"low", "high", "auto"})
AUDIO_FORMATS: Final = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}

_usable_id = safe_id(40)


def _parts(index: int, blocks: Iterable[object], unsupported: Unsupported) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            out.append({"type": "text", "text": block.text})
            continue
        if isinstance(block, ImageUrlBlock):
            image: dict[str, Any] = {"url": block.url}
            if block.detail in DETAILS:
                image["detail"] = block.detail
            out.append({"type": "image_url", "image_url": image})
            continue
        if isinstance(block, ImageBase64Block):
            if block.media_type in IMAGE_TYPES:
                url = data_url(block.media_type, block.data)
                out.append({"type": "image_url", "image_url": {"url": url}})
                continue
            why = f"takes no {block.media_type!r} image (only JPEG, PNG, GIF and WebP)"
        elif isinstance(block, AudioBase64Block):
            audio_format = AUDIO_FORMATS.get(block.media_type)
            if audio_format is not None:
                audio = {"data": block.data, "format": audio_format}
                out.append({"type": "input_audio", "input_audio": audio})
                continue
            why = f"takes audio only as base64 WAV or MP3, not {block.media_type!r}"
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        elif block.is_audio():  # type: ignore[attr-defined]
            why = "takes audio only inline, as base64 WAV or MP3"
        else:
            why = "has no part for video"
        if unsupported == "note":
            out.append({"type": "text", "text": note_text(DIALECT, block)})
        else:
            raise unsupported_block(DIALECT, index, position, block, why)
    return out


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
) -> dict[str, Any]:
    """The conversation part of a Chat Completions request body: ``{"messages": [...]}``.

    The caller adds ``model``, ``tools`` and the rest. External tool results
    are fenced unless ``fence_external`` is False. The request shares no
    mutable value with the transcript (arguments go out as JSON text).
    """
    check_unsupported(unsupported)
    transcript = messages if isinstance(messages, list) else list(messages)
    ids = CallIds(transcript, _usable_id, DIALECT)
    out: list[dict[str, Any]] = []
    for index, message in enumerate(transcript):
        if isinstance(message, ToolResultMessage):
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": ids.result(index, message).out_id,
                    "content": tool_result_text(message, fence_external),
                }
            )
        elif isinstance(message, AssistantMessage):
            ids.assistant()
            turn: dict[str, Any] = {"role": "assistant"}
            if message.tool_calls:
                if message.content:
                    turn["content"] = message.content
                turn["tool_calls"] = [
                    {
                        "id": ids.call(index, position, call),
                        "type": "function",
                        "function": {
                            "name": call.name,
                            "arguments": arguments_json(call.arguments),
                        },
                    }
                    for position, call in enumerate(message.tool_calls)
                ]
            else:
                turn["content"] = message.content
            out.append(turn)
        elif isinstance(message, UserMessage):
            ids.user(index)
            out.append({"role": "user", "content": message.content})
        elif isinstance(message, UserMultimodalMessage):
            ids.user(index)
            out.append({"role": "user", "content": _parts(index, message.content, unsupported)})
        elif isinstance(message, SystemMessage):
            out.append({"role": "system", "content": message.content})
        elif isinstance(message, ProviderOutputItemsMessage):
            pass  # provider state has no place in Chat Completions
        elif isinstance(message, UnknownMessage):
            raise unknown_message(index, message)
        else:
            raise not_a_message(index, message)
    return {"messages": out}


# --- responses ----------------------------------------------------------------


def _call(raw: object, where: str) -> ToolCall:
    if not isinstance(raw, dict):
        raise ResponseError(f"{where}: expected an object, got {short(raw)}")
    kind = raw.get("type", "function")
    if kind != "function":
        raise ResponseError(
            f"{where}: a {short(kind, 40)} tool call has no place in a convtypes message"
        )
    function = field(raw, "function", dict, where)
    text = field(function, "arguments", str, f"{where}.function")
    try:
        arguments = parse_arguments(text)
    except ValueError as err:
        raise ResponseError(f"{where}: {err}") from None
    call_id = field(raw, "id", str, where)
    name = field(function, "name", str, f"{where}.function")
    return tool_call(call_id, name, arguments, where)


def _assistant(content: str, refusal: str, calls: list[ToolCall]) -> AssistantMessage:
    # A refusal is the model's answer in words; it becomes the text when
    # there is no other (the two never come together).
    text = content or refusal
    return AssistantMessage(content=text, tool_calls=tuple(calls))


def from_response(response: object) -> list[Message]:
    """The messages to append for a ``ChatCompletion`` (dict or SDK object).

    Only the first choice is read: the others are alternatives to it, not
    more of the same turn. Arguments are parsed from their JSON text (key
    order and big integers kept). A refusal becomes the text. Audio output
    and custom tool calls raise ``ResponseError``.
    """
    try:
        return _from_response(response)
    except LEAKS as err:
        raise_response_failure(err)


def _from_response(response: object) -> list[Message]:
    data = plain(response, "the response")
    choices = field(data, "choices", list, "the response")
    if not choices:
        raise ResponseError("the response has no choices")
    message = field(choices[0], "message", dict, "choices[0]")
    if message.get("audio") is not None:
        raise ResponseError("choices[0].message: audio output has no place in a convtypes message")
    content = field(message, "content", str, "choices[0].message", None) or ""
    refusal = field(message, "refusal", str, "choices[0].message", None) or ""
    raw_calls = field(message, "tool_calls", list, "choices[0].message", None) or []
    calls = [_call(raw, f"choices[0].message.tool_calls[{n}]") for n, raw in enumerate(raw_calls)]
    return [_assistant(content, refusal, calls)]


class Accumulator(StreamReader):
    """Builds the messages of a streamed Chat Completion.

    ``feed`` every ``ChatCompletionChunk`` (dict or SDK object); ``result()``
    then equals ``from_response`` of the whole completion. Tool calls arrive
    keyed by ``index``: the first delta of an index brings its id and name,
    later ones more argument text.
    """

    _noun = "chunk"
    _end = "a finish_reason"

    def __init__(self) -> None:
        super().__init__()
        self._content: list[str] = []
        self._refusal: list[str] = []
        self._calls: dict[int, tuple[str, str, list[str], int]] = {}

    def _take(self, number: int, event: object) -> list[Delta]:
        data = plain(event, "a chunk")

        def fail(reason: str) -> StreamError:
            return StreamError(f"chunk {number}: {reason}", number, event)

        choices = data.get("choices")
        if not isinstance(choices, list):
            raise fail("has no choices list")
        for choice in choices:
            if not isinstance(choice, dict):
                raise fail("a choice is not an object")
            if choice.get("index", 0) != 0:
                continue  # another choice: from_response reads the first only
            if self._finished:
                raise fail("more of the first choice after its finish_reason")
            delta = choice.get("delta")
            if not isinstance(delta, dict):
                raise fail("the choice has no delta")
            if delta.get("audio") is not None:
                raise fail("audio output has no place in a convtypes message")
            for key, pieces in (("content", self._content), ("refusal", self._refusal)):
                text = delta.get(key)
                if isinstance(text, str):
                    pieces.append(text)
                elif text is not None:
                    raise fail(f"the delta's {key!r} is not text: {short(text)}")
            calls = delta.get("tool_calls")
            if calls is not None and not isinstance(calls, list):
                raise fail(f"the delta's tool_calls is not a list: {short(calls)}")
            for call in calls or ():
                self._call(call, number, fail)
            if choice.get("finish_reason") is not None:
                self._finished = True
        return []

    def _call(self, call: object, number: int, fail: Any) -> None:
        if not isinstance(call, dict) or type(call.get("index")) is not int:
            raise fail(f"a tool-call delta without an integer index: {short(call)}")
        at: int = call["index"]
        function = call.get("function")
        if function is None:
            function = {}
        elif not isinstance(function, dict):
            raise fail(f"tool call {at}: 'function' is not an object: {short(function)}")
        arguments = function.get("arguments")
        if arguments is None:
            arguments = ""
        elif not isinstance(arguments, str):
            raise fail(f"tool call {at}: the arguments are not text: {short(arguments)}")
        call_id = call.get("id")
        name = function.get("name")
        known = self._calls.get(at)
        if known is None:
            if not isinstance(call_id, str) or not isinstance(name, str):
                raise fail(f"tool call {at} starts without an id and a name")
            kind = call.get("type") or "function"
            if kind != "function":
                raise fail(f"a {short(kind, 40)} tool call has no place in a convtypes message")
            self._calls[at] = (call_id, name, [arguments], number)
        else:
            if call_id is not None and call_id != known[0]:
                raise fail(f"tool call {at} changes its id")
            if name is not None and not isinstance(name, str):
                raise fail(f"tool call {at}: the name is not text: {short(name)}")
            known[2].append(arguments)

    def _messages(self, final: bool) -> list[Message]:
        calls: list[ToolCall] = []
        for at in sorted(self._calls):
            call_id, name, pieces, started = self._calls[at]
            where = f"tool call {at} (started in chunk {started})"
            try:
                arguments = parse_arguments("".join(pieces))
            except ValueError as err:
                raise StreamError(f"{where}: {err}", started, None) from None
            try:
                calls.append(tool_call(call_id, name, arguments, where))
            except ResponseError as err:
                raise StreamError(str(err), started, None) from err
        return [_assistant("".join(self._content), "".join(self._refusal), calls)]
