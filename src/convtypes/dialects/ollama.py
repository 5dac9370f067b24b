"""Ollama's own chat API (``POST /api/chat``), as the server and the ``ollama`` package speak it.

``to_request`` builds ``{"messages": [...]}``; ``tools_to_request`` the
``tools`` field (both the caller's: they share no dict or list with the
transcript or the tools); ``left_out`` names what ``to_request`` of the
same transcript does not send; ``from_response``, ``read_reply`` and
:class:`Accumulator` turn a chat response, or the NDJSON chunks of a
streamed one, into messages. A response may be the JSON as a dict or the
``ollama`` package's ``ChatResponse``.

What a reply becomes: one ``AssistantMessage`` with the text, the
``thinking`` as an unsigned ``ThinkingBlock``, and the tool calls, whose
arguments Ollama sends as JSON objects. When the message holds more than
that turn can say, so that replaying the turn would send something else
than what came (output ``images``, a field this version does not know,
arguments that are not an object, or a call spelled in a way the turn does
not keep), the message as sent is kept first, as a
``ProviderOutputItemsMessage`` of protocol ``ollama`` holding one item, the
message object. This dialect replays that item in place of the turn; the
others drop it and send the ``AssistantMessage``. A call whose arguments are
not an object is no call a backend could run: it stays in the item only.
Ollama parses tool calls on the server and sends each one whole, so a call
cut off at the token limit never arrives as a call (its start may arrive as
text).

What changes on the way out:

- Messages map one to one: ``system``, ``user``, ``assistant`` and
  ``tool``; an assistant message with nothing to send (a reply cancelled
  before its first token) sends no turn. A tool result is ``{"role":
  "tool", "content", "tool_name"}`` with the name of the call it
  answers. Ollama renders results in order, so the results that follow a
  turn go in the order of the calls they answer, whatever their order in
  the transcript.
- A call goes as ``{"function": {"name", "arguments": {...}}}``, its
  arguments an object with their key order and big integers kept. A call
  that has an id goes with it (``"id"``), and its result names it as
  ``tool_call_id``: servers since 0.12.10 give and take call ids, older
  ones ignore them. (The ``ollama`` package's types have no field for
  either yet, and its ``chat()`` drops them; POSTing the body keeps them.)
  A call without an id goes without one and is answered by position.
- Earlier thinking goes back in the assistant's ``thinking`` field, which
  Ollama's templates read (``thinking=False`` leaves it out). Redacted
  thinking has no text and is left out.
- A user message's text blocks join into ``content`` (a blank line
  between), and its images go as base64 in ``images``: JPEG, PNG and WebP,
  inline or as a ``data:`` URL. Ollama fetches no URL and takes no audio or
  video: those raise ``UnsupportedContent`` (or become a note under
  ``unsupported="note"``). Where an image stood among the text is lost.
- ``ollama`` items go back verbatim, in place, once; the assistant message
  right after them sends only what they do not already carry. Items of
  other protocols are dropped.

Reply facts: ``done_reason`` ``"stop"`` is ``end_turn``, or ``tool_use`` when
the reply calls tools; ``"length"`` is ``max_tokens``; anything else
(``"load"``, ``"unload"``, none at all) is ``other``. Ollama says ``stop`` for
a stop sequence too, and has no refusal or content filter. Usage:
``input_tokens`` is ``prompt_eval_count`` (the prompt tokens Ollama
reports evaluating) and ``output_tokens`` is ``eval_count`` (every token
generated, thinking included); Ollama reports no cache or reasoning counts,
so those are ``None``. ``raw`` holds the count and duration fields as sent.
A reply has a ``model`` and no id.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Any, Final

from .._content import ImageBase64Block, ImageUrlBlock, TextBlock
from .._conversation import positional_call_id
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
from ._json import arguments_json, built, field, parse_arguments, plain, tool_call
from ._left_out import LeftOut, in_item, media_kind
from ._media import image_type, parse_data_url
from ._objects import PLAIN, fields
from ._ollama_schema import describe, parameters
from ._reply import (
    Delta,
    Reply,
    StopReason,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    Usage,
)
from ._send import tool_result_text, transcript_of
from ._stream import StreamReader
from ._tools import ToolSchemaError, ToolSpec, checked_tools

__all__ = [
    "PROTOCOL",
    "Accumulator",
    "from_response",
    "left_out",
    "read_reply",
    "to_request",
    "tools_to_request",
]

DIALECT: Final = "Ollama"
PROTOCOL: Final = "ollama"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/webp"})
# The usage and timing fields of a response's last object, kept as ``Usage.raw``.
_COUNTS: Final = (
    "total_duration",
    "load_duration",
    "prompt_eval_count",
    "prompt_eval_duration",
    "eval_count",
    "eval_duration",
)
# Message fields whose empty value says nothing, as Ollama omits them.
_OMITTED_WHEN_EMPTY: Final = frozenset({"thinking", "images", "tool_calls"})


def _usable_id(call_id: str) -> bool:
    # Ollama takes any text as an id; only an empty one says nothing.
    return call_id != ""


# --- requests -----------------------------------------------------------------


def _user_parts(
    index: int, blocks: Iterable[object], unsupported: Unsupported, report: list[LeftOut] | None
) -> tuple[str, list[str]]:
    """A user message's text, joined, and its images as base64."""
    texts: list[str] = []
    images: list[str] = []
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            if block.text:
                texts.append(block.text)
            elif report is not None:
                report.append(
                    LeftOut(index, "text", f"block {position}: empty text, which adds nothing")
                )
            continue
        if isinstance(block, ImageBase64Block):
            if image_type(block.media_type) in IMAGE_TYPES:
                images.append(block.data)
                continue
            why = f"takes no {block.media_type!r} image (only JPEG, PNG and WebP)"
        elif isinstance(block, ImageUrlBlock):
            inline = parse_data_url(block.url)
            if inline is not None and inline.media_type in IMAGE_TYPES:
                images.append(inline.data)
                if report is not None and block.detail != "auto":
                    report.append(
                        LeftOut(
                            index,
                            "detail",
                            f"block {position}: Ollama has no field for an image's detail",
                        )
                    )
                continue
            why = (
                "fetches no image by URL (a base64 image or a data: URL goes inline)"
                if inline is None
                else f"takes no {inline.media_type!r} image (only JPEG, PNG and WebP)"
            )
        elif isinstance(block, UnknownBlock):
            raise unknown_block(DIALECT, index, position, block)
        elif block.is_audio():  # type: ignore[attr-defined]
            why = "has no field for audio"
        else:
            why = "has no field for video"
        if unsupported == "note":
            texts.append(note_text(DIALECT, block))
            if report is not None:
                report.append(
                    LeftOut(
                        index,
                        media_kind(block),
                        f"block {position}: Ollama {why}; a note stands in its place",
                    )
                )
        else:
            raise unsupported_block(DIALECT, index, position, block, why)
    return "\n\n".join(texts), images


def _turn(text: str, calls: list[dict[str, Any]], thought: str) -> dict[str, Any]:
    """An assistant message as Ollama takes it: content always, then thinking and calls."""
    turn: dict[str, Any] = {"role": "assistant", "content": text}
    if thought:
        turn["thinking"] = thought
    if calls:
        turn["tool_calls"] = calls
    return turn


def _call_out(call_id: str | None, call: ToolCall) -> dict[str, Any]:
    function = {"name": call.name, "arguments": call.arguments}
    return {"function": function} if call_id is None else {"id": call_id, "function": function}


def _thought(blocks: Iterable[ThinkingBlock]) -> str:
    return "".join(block.text for block in blocks if block.redacted_data is None)


def _thinking_left_out(
    index: int, blocks: Iterable[ThinkingBlock], sent: bool, report: list[LeftOut]
) -> None:
    """Report what of message ``index``'s thinking the request leaves out.

    ``sent`` says whether its text goes (in the ``thinking`` field): then
    only a signature (which has no field) and redacted thinking (which has
    no text) stay behind; otherwise every block does.
    """
    for position, block in enumerate(blocks):
        where = f"thinking block {position}"
        if block.redacted_data is not None:
            report.append(
                LeftOut(
                    index, "redacted-thinking", f"{where}: redacted thinking has no text to send"
                )
            )
        elif not sent and block.text:
            report.append(LeftOut(index, "thinking", f"{where}: thinking=False leaves it out"))
        elif block.signature is not None:
            report.append(
                LeftOut(index, "signature", f"{where}: Ollama's thinking has no signature field")
            )


class _Kept:
    """What a kept ``ollama`` message already says: its text, calls and thinking."""

    __slots__ = ("calls", "text", "thinking")

    def __init__(self, item: dict[str, Any]) -> None:
        content = item.get("content")
        self.text = content if isinstance(content, str) else ""
        thinking = item.get("thinking")
        self.thinking = thinking if isinstance(thinking, str) else ""
        raw_calls = item.get("tool_calls")
        # The calls a reader made ToolCalls of, in order: (id, name, arguments).
        self.calls: list[tuple[str | None, str, dict[str, Any]]] = []
        for raw in raw_calls if isinstance(raw_calls, list) else ():
            try:
                call_id, name, arguments = _call_parts(raw, "an item's call")
            except ResponseError:
                continue  # not a call a reader would have read
            if arguments is not None:
                self.calls.append((call_id, name, arguments))

    def holds(self, position: int, call: ToolCall) -> bool:
        if position >= len(self.calls):
            return False
        call_id, name, arguments = self.calls[position]
        return call_id == call.id and name == call.name and arguments == call.arguments


def to_request(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
    thinking: bool = True,
) -> dict[str, Any]:
    """The conversation part of an ``/api/chat`` request body: ``{"messages": [...]}``.

    The caller adds ``model`` and the rest (``tools_to_request`` gives the
    ``tools`` field). External tool results are fenced unless
    ``fence_external`` is False. ``thinking=False`` leaves earlier thinking
    out, from assistant messages and from replayed items alike. An
    assistant message with nothing to send (no text, no calls, no thinking
    that goes) sends no turn. The request shares no dict or list with the
    transcript: change it as you like.
    """
    check_unsupported(unsupported)
    if type(thinking) is not bool:
        raise TypeError(f"thinking= must be True or False, not {thinking!r:.80}")
    transcript = transcript_of(messages, "to_request")
    return {"messages": _build(transcript, fence_external, unsupported, thinking, None)}


def left_out(
    messages: Iterable[Message | UnknownMessage],
    *,
    unsupported: Unsupported = "raise",
    thinking: bool = True,
) -> list[LeftOut]:
    """What :func:`to_request` of ``messages`` does not send, one piece at a time, in order.

    Reported, each with the index of its message: a thinking block's
    signature (``"signature"``) and redacted thinking
    (``"redacted-thinking"``), which Ollama has no field for; with
    ``thinking=False`` all thinking (``"thinking"``), kept items' included;
    items of other protocols, and items that are no message object
    (``"items"``); an empty text block of a multimodal message (``"text"``);
    an image's ``detail`` (``"detail"``); and with ``unsupported="note"``
    each media block a note stands in for (``"image"``, ``"audio"``,
    ``"video"``). It walks the transcript as :func:`to_request` does, so it
    raises what :func:`to_request` raises.
    """
    check_unsupported(unsupported)
    if type(thinking) is not bool:
        raise TypeError(f"thinking= must be True or False, not {thinking!r:.80}")
    report: list[LeftOut] = []
    _build(transcript_of(messages, "left_out"), True, unsupported, thinking, report)
    return report


def _build(
    transcript: list[Any],
    fence_external: bool,
    unsupported: Unsupported,
    thinking: bool,
    report: list[LeftOut] | None,
) -> list[dict[str, Any]]:
    """The request's messages (see :func:`to_request`); ``report`` gets what it leaves out."""
    ids = CallIds(transcript, _usable_id, DIALECT)
    copy = copy_json  # bound here: the loop copies every call's arguments
    out: list[dict[str, Any]] = []
    kept: _Kept | None = None
    # Results go in the order of their calls: ``run`` is where the current
    # run of tool messages begins in ``out``, ``placed`` their calls' order.
    run = -1
    placed: list[int] = []
    # The methods the loop calls for nearly every message, looked up once.
    answer, make_call = ids.result, ids.call
    for index, message in enumerate(transcript):
        previous, kept = kept, None
        if isinstance(message, ToolResultMessage):
            answered = answer(index, message)
            result: dict[str, Any] = {
                "role": "tool",
                "content": tool_result_text(message, fence_external),
                "tool_name": answered.name,
            }
            if answered.send_id:
                result["tool_call_id"] = answered.out_id
            if run < 0:
                run, placed = len(out), []
            order = answered.order
            if placed and order < placed[-1]:  # a result ahead of an earlier call's
                place = bisect.bisect(placed, order)
                placed.insert(place, order)
                out.insert(run + place, result)
            else:  # as usual, in the calls' order: it goes last
                placed.append(order)
                out.append(result)
            continue
        if isinstance(message, AssistantMessage):
            ids.assistant()
            text = message.content
            calls: Iterable[tuple[int, ToolCall]] = enumerate(message.tool_calls)
            thoughts: tuple[ThinkingBlock, ...] = message.thinking if thinking else ()
            if previous is not None:
                # The turn read from the kept message: send only what it adds.
                if text == previous.text:
                    text = ""
                calls = [(at, call) for at, call in calls if not previous.holds(at, call)]
                if report is not None and message.thinking:
                    _kept_thinking_left_out(index, message.thinking, previous, thinking, report)
                thoughts = ()
                if not text and not calls:
                    continue
            elif report is not None and message.thinking:
                _thinking_left_out(index, message.thinking, thinking, report)
            sent: list[dict[str, Any]] = []
            for at, call in calls:
                # A call without an id goes without one, and is answered by position.
                out_id = make_call(index, at, call, call.id is not None)
                function = {"name": call.name, "arguments": copy(call.arguments)}
                sent.append(
                    {"function": function}
                    if call.id is None
                    else {"id": out_id, "function": function}
                )
            thought = _thought(thoughts) if thoughts else ""
            if text or sent or thought:
                out.append(_turn(text, sent, thought))
            else:
                continue  # nothing to say: no turn
        elif isinstance(message, UserMessage):
            ids.user(index)
            out.append({"role": "user", "content": message.content})
        elif isinstance(message, UserMultimodalMessage):
            ids.user(index)
            text, images = _user_parts(index, message.content, unsupported, report)
            user: dict[str, Any] = {"role": "user", "content": text}
            if images:
                user["images"] = images
            out.append(user)
        elif isinstance(message, SystemMessage):
            out.append({"role": "system", "content": message.content})
        elif isinstance(message, ProviderOutputItemsMessage):
            if message.protocol != PROTOCOL:
                if report is not None and message.items:
                    report.append(
                        LeftOut(
                            index,
                            "items",
                            f"{len(message.items)} item(s) of protocol "
                            f"{message.protocol!r:.40}, which Ollama does not read",
                        )
                    )
                # Another provider's state has no place here: as if it were not
                # there, so it parts no kept message from the turn read from it.
                kept = previous
                continue
            for position, item in enumerate(message.items):
                if not isinstance(item, dict):
                    if report is not None:
                        report.append(
                            LeftOut(index, "items", f"item {position}: not a message object")
                        )
                    continue
                ids.assistant()
                kept = _Kept(item)
                for at, (call_id, name, _) in enumerate(kept.calls):
                    key = call_id if call_id is not None else positional_call_id(at)
                    ids.carried(index, key, key, name, send_id=call_id is not None)
                item = owned(item)
                if not thinking and "thinking" in item:
                    del item["thinking"]
                    if report is not None:
                        report.append(
                            LeftOut(
                                index,
                                "thinking",
                                f"{in_item(position, 'thinking')}: thinking=False leaves it out",
                            )
                        )
                out.append(item)
            if kept is None:
                continue
        elif isinstance(message, UnknownMessage):
            raise unknown_message(index, message)
        else:
            raise not_a_message(index, message)
        run = -1
    return out


def _kept_thinking_left_out(
    index: int,
    blocks: tuple[ThinkingBlock, ...],
    kept: _Kept,
    thinking: bool,
    report: list[LeftOut],
) -> None:
    """Report the thinking of an assistant message read from the kept item before it.

    Its blocks are never sent: the item carries its reply's thinking. Blocks
    that say what the item says are the item's own, and only what a
    ``thinking`` field cannot hold stays behind; blocks that say something
    else, and any under ``thinking=False``, are left out.
    """
    if not thinking or _thought(blocks) == kept.thinking:
        _thinking_left_out(index, blocks, thinking, report)
        return
    for position, block in enumerate(blocks):
        if block.text or block.signature is not None or block.redacted_data is not None:
            report.append(
                LeftOut(
                    index,
                    "redacted-thinking" if block.redacted_data is not None else "thinking",
                    f"thinking block {position}: the kept message before it holds other thinking",
                )
            )


def tools_to_request(tools: Iterable[ToolSpec], *, choice: str = "auto") -> dict[str, Any]:
    """The ``tools`` field that offers ``tools`` to the model.

    Each tool goes as a ``function`` tool, its schema translated into what
    Ollama's tool type holds (see :mod:`convtypes.dialects._ollama_schema`:
    references inlined, optionals as type lists, other rules written into
    the descriptions). Ollama has no tool choice: ``"auto"`` sends the
    tools and ``"none"`` sends none (``{}``); ``"required"`` or a tool's name
    cannot be said and raise :class:`~convtypes.dialects.ToolSchemaError`,
    as do a name the check refuses, a name given twice, and a schema that
    cannot be translated (with ``.tool`` and ``.path``). No tools give ``{}``.
    The field shares nothing with the tools.
    """
    specs, chosen = checked_tools(tools, choice, DIALECT)
    if chosen is not None or choice == "required":
        raise ToolSchemaError(
            f"choice={choice!r:.80}: Ollama has no tool choice and cannot be made to call a "
            'tool; offer the tools with "auto", or none with "none"'
        )
    out: list[dict[str, Any]] = []
    for spec in specs:
        schema, notes = parameters(spec.parameters, spec.name)
        function: dict[str, Any] = {"name": spec.name}
        description = describe(spec.description, notes)
        if description:
            function["description"] = description
        function["parameters"] = owned(schema)  # the translation may hand on pieces of it
        out.append({"type": "function", "function": function})
    if choice == "none" or not out:
        return {}
    return {"tools": out}


# --- responses ----------------------------------------------------------------


def _call_parts(raw: object, where: str) -> tuple[str | None, str, dict[str, Any] | None]:
    """A call's id, name and arguments; arguments ``None`` when they are no object.

    Arguments given as JSON text are read when the text is an object; an
    absent or ``null`` value reads as no arguments.
    """
    if not isinstance(raw, dict):
        raise ResponseError(f"{where}: expected an object, got {short(raw)}")
    function = field(raw, "function", dict, where)
    name = field(function, "name", str, f"{where}.function")
    call_id = field(raw, "id", str, where, None)
    arguments = function.get("arguments")
    if arguments is None:
        return call_id, name, {}
    if isinstance(arguments, dict):
        return call_id, name, arguments
    if isinstance(arguments, str):
        try:
            return call_id, name, parse_arguments(arguments)
        except ValueError:
            pass
    return call_id, name, None


def _clean(message: dict[str, Any]) -> dict[str, Any]:
    """The message as sent, without ``null`` or empty fields and without call positions.

    Ollama omits an empty field, and numbers each call with its position in
    the reply (``function.index``); the turn keeps that position by order.
    """
    out: dict[str, Any] = {}
    for key, value in message.items():
        if value is None or (key in _OMITTED_WHEN_EMPTY and not value):
            continue
        if key == "tool_calls" and isinstance(value, list):
            value = [_clean_call(call, position) for position, call in enumerate(value)]
        out[key] = value
    return out


def _clean_call(call: object, position: int) -> object:
    if not isinstance(call, dict):
        return call
    out = {key: value for key, value in call.items() if value is not None}
    function = out.get("function")
    if isinstance(function, dict):
        index = function.get("index")
        out["function"] = {
            key: value
            for key, value in function.items()
            if value is not None
            and not (key == "index" and type(index) is int and index == position)
        }
    return out


def _read_message(message: dict[str, Any], where: str) -> list[Message]:
    """The messages for one reply message (kept as an item when the turn cannot say it)."""
    content = field(message, "content", str, where, None) or ""
    thought = field(message, "thinking", str, where, None) or ""
    raw_calls = field(message, "tool_calls", list, where, None) or []
    field(message, "role", str, where, None)
    calls: list[ToolCall] = []
    for number, raw in enumerate(raw_calls):
        call_where = f"{where}.tool_calls[{number}]"
        call_id, name, arguments = _call_parts(raw, call_where)
        if arguments is not None:
            calls.append(tool_call(call_id, name, arguments, call_where))
    thinking = (ThinkingBlock(text=thought),) if thought else ()
    assistant = built(
        lambda: AssistantMessage(content=content, tool_calls=tuple(calls), thinking=thinking), where
    )
    item = _clean(message)
    if _carried(item, assistant):
        return [assistant]
    item.setdefault("role", "assistant")
    kept = built(lambda: ProviderOutputItemsMessage(protocol=PROTOCOL, items=(item,)), where)
    return [kept, assistant]


def _carried(item: dict[str, Any], assistant: AssistantMessage) -> bool:
    """Whether replaying ``assistant`` sends what the message ``item`` said.

    A missing ``role`` or ``content`` says what ``"assistant"`` and ``""`` say.
    """
    sent = dict(item)
    sent.setdefault("role", "assistant")
    sent.setdefault("content", "")
    calls = [_call_out(call.id, call) for call in assistant.tool_calls]
    return sent == _turn(assistant.content, calls, _thought(assistant.thinking))


def from_response(response: object) -> list[Message]:
    """The messages to append for an ``/api/chat`` response (dict or ``ChatResponse``).

    Arguments keep their key order and big integers. What the
    ``AssistantMessage`` cannot say is kept before it as an ``ollama`` items
    message (see the module). A stream's chunk (``"done": false``) is refused:
    feed chunks to an :class:`Accumulator`.
    """
    return read_reply(response).messages


def read_reply(response: object) -> Reply:
    """:func:`from_response`'s messages with the stop reason, usage and model."""
    try:
        data = plain(response, "the response")
        error = data.get("error")
        if error is not None:
            raise ResponseError(f"the provider reported an error: {label(error, 200)}")
        done = data.get("done")
        if done is not None and not isinstance(done, bool):
            raise ResponseError(f"the response: 'done' should be true or false, got {short(done)}")
        if done is False:
            raise ResponseError(
                "the response is a chunk of a stream ('done' is false): feed the chunks "
                "to an Accumulator"
            )
        message = field(data, "message", dict, "the response")
        reason = field(data, "done_reason", str, "the response", None)
        return _reply(_read_message(message, "message"), reason, data)
    except LEAKS as err:
        raise_response_failure(err)


def _stop_reason(messages: list[Message], reason: str | None) -> StopReason:
    if reason == "length":
        return "max_tokens"
    if reason == "stop" or reason is None:
        assistant = messages[-1]
        if isinstance(assistant, AssistantMessage) and assistant.tool_calls:
            return "tool_use"
        if reason == "stop":
            return "end_turn"
    return "other"


def _usage(data: dict[str, Any]) -> Usage:
    raw: dict[str, Any] = {key: data[key] for key in _COUNTS if key in data}
    if not raw:
        return Usage()
    prompt = raw.get("prompt_eval_count")
    generated = raw.get("eval_count")
    return Usage(
        input_tokens=prompt if type(prompt) is int else None,
        output_tokens=generated if type(generated) is int else None,
        raw=raw,
    )


def _reply(messages: list[Message], reason: str | None, data: dict[str, Any]) -> Reply:
    model = data.get("model")
    return Reply(
        messages=messages,
        stop_reason=_stop_reason(messages, reason),
        provider_stop_reason=reason,
        usage=_usage(data),
        model=model if isinstance(model, str) else None,
    )


# --- streams ------------------------------------------------------------------


class _Malformed(Exception):
    """A chunk's fault, raised inside the Accumulator and named with the chunk at its edge."""


# The message of a streamed chunk of text or thinking, read from the SDK's
# object without its dump (see Accumulator._object_chunk): these fields only.
_FLAT_MESSAGE: Final = frozenset({"role", "content", "thinking"})


class Accumulator(StreamReader):
    """Builds the messages of a streamed ``/api/chat`` reply.

    ``feed`` every chunk (a dict of one NDJSON line, or the ``ChatResponse``
    the ``ollama`` package yields with ``stream=True``); ``result()`` then
    equals ``from_response`` of the whole reply, and ``reply()`` adds the
    stop reason, the usage and the model from the last chunk (``"done":
    true``). Text and thinking arrive in pieces; each tool call arrives
    whole, and gives a :class:`~convtypes.dialects.ToolCallStart` and one
    :class:`~convtypes.dialects.ToolCallDelta` with its arguments' JSON
    text. A field this version does not know is joined across chunks when
    it is text or a list, and otherwise taken from the last chunk.
    """

    _noun = "chunk"
    _end = "a last chunk (done: true)"

    def __init__(self) -> None:
        super().__init__()
        self._content: list[str] = []
        self._thinking: list[str] = []
        self._calls: list[object] = []  # every call as sent
        self._readable = 0  # how many of them are calls a backend can run
        self._extra: dict[str, Any] = {}  # other message fields (images, unknown ones)
        self._role: str | None = None
        self._reason: str | None = None
        self._last: dict[str, Any] = {}
        self._model: str | None = None

    def _take(self, number: int, event: object) -> list[Delta]:
        try:
            if type(event) is not dict and not self._finished:
                read = self._object_chunk(event)
                if read is not None:
                    return read
            return self._chunk(plain(event, "a chunk"))
        except _Malformed as err:
            raise StreamError(f"chunk {number}: {err}", number, event) from None

    def _object_chunk(self, event: object) -> list[Delta] | None:
        """A chunk of text or thinking read from the fields of the ``ChatResponse``.

        What ``_chunk`` reads from its dump, for the chunks that come by the
        thousand: not the last (``done`` false), no error, a message of role,
        text and thinking only. ``None`` for any other chunk, or where the
        fields might not read as the dump does (see ``_objects``): it is then
        read from its dump.
        """
        outer = event.__dict__ if type(event) in PLAIN else fields(event)
        if outer is None or event.__pydantic_extra__ or outer.get("error") is not None:  # type: ignore[attr-defined]
            return None
        given = event.__pydantic_fields_set__  # type: ignore[attr-defined]
        message = outer.get("message")
        if "message" not in given or (outer.get("done") is not False and "done" in given):
            return None
        inner = message.__dict__ if type(message) in PLAIN else fields(message)
        if inner is None or message.__pydantic_extra__:  # type: ignore[union-attr]
            return None
        said = message.__pydantic_fields_set__  # type: ignore[union-attr]
        if not said <= _FLAT_MESSAGE:
            return None
        role = inner.get("role") if "role" in said else None
        text = inner.get("content") if "content" in said else None
        thought = inner.get("thinking") if "thinking" in said else None
        if (
            (role is not None and type(role) is not str)
            or (text is not None and type(text) is not str)
            or (thought is not None and type(thought) is not str)
            or (text and thought)  # both: the dump's order says which comes first
        ):
            return None
        if self._model is None and "model" in given:
            model = outer.get("model")
            if isinstance(model, str):
                self._model = model
        # As _message reads them.
        if role is not None:
            self._role = role
        if text:
            self._content.append(text)
            return [TextDelta(text)]
        if thought:
            self._thinking.append(thought)
            return [ThinkingDelta(thought)]
        return []

    def _chunk(self, data: dict[str, Any]) -> list[Delta]:
        if self._finished:
            raise _Malformed("more after the last chunk (done: true)")
        error = data.get("error")
        if error is not None:
            raise _Malformed(f"the provider reported an error: {label(error, 200)}")
        done = data.get("done", False)
        if not isinstance(done, bool):
            raise _Malformed(f"'done' is not true or false: {short(done)}")
        if self._model is None:
            model = data.get("model")
            if isinstance(model, str):
                self._model = model
        deltas: list[Delta] = []
        message = data.get("message")
        if message is not None:
            if not isinstance(message, dict):
                raise _Malformed(f"the message is not an object: {short(message)}")
            self._message(message, deltas)
        if done:
            reason = data.get("done_reason")
            if reason is not None and not isinstance(reason, str):
                raise _Malformed(f"the done_reason is not text: {short(reason)}")
            self._reason = reason
            self._last = data
            self._finished = True
        return deltas

    def _message(self, message: dict[str, Any], deltas: list[Delta]) -> None:
        for key, value in message.items():
            if value is None:
                continue
            if key == "content":
                if not isinstance(value, str):
                    raise _Malformed(f"the message's content is not text: {short(value)}")
                if value:
                    self._content.append(value)
                    deltas.append(TextDelta(value))
            elif key == "thinking":
                if not isinstance(value, str):
                    raise _Malformed(f"the message's thinking is not text: {short(value)}")
                if value:
                    self._thinking.append(value)
                    deltas.append(ThinkingDelta(value))
            elif key == "role":
                if not isinstance(value, str):
                    raise _Malformed(f"the message's role is not text: {short(value)}")
                self._role = value
            elif key == "tool_calls":
                if not isinstance(value, list):
                    raise _Malformed(f"the message's tool_calls is not a list: {short(value)}")
                for call in value:
                    self._call(call, deltas)
            else:
                self._other(key, value)

    def _call(self, call: object, deltas: list[Delta] | None) -> None:
        """Take a call, whole; ``deltas`` gets its start and its arguments' JSON text."""
        position = len(self._calls)
        try:
            call_id, name, arguments = _call_parts(call, f"tool_calls[{position}]")
        except ResponseError as err:
            raise _Malformed(str(err)) from None
        self._calls.append(call)
        if arguments is None:
            return  # kept with the message, but no call to run
        at = self._readable
        self._readable += 1
        if deltas is not None:
            deltas.append(ToolCallStart(at, call_id, name))
            sent = call["function"].get("arguments")  # type: ignore[index]
            text = sent if isinstance(sent, str) else arguments_json(arguments)
            deltas.append(ToolCallDelta(at, text))

    def _other(self, key: str, value: Any) -> None:
        """A message field with no meaning here: text and lists grow, the rest is set."""
        known = self._extra.get(key)
        if isinstance(value, list):
            self._extra[key] = [*known, *value] if isinstance(known, list) else list(value)
        elif isinstance(value, str) and isinstance(known, str):
            self._extra[key] = known + value
        else:
            self._extra[key] = value

    def _messages(self, final: bool) -> list[Message]:
        # Calls arrive whole, so the messages so far hold every call so far.
        message: dict[str, Any] = {
            "role": self._role or "assistant",
            "content": "".join(self._content),
        }
        if self._thinking:
            message["thinking"] = "".join(self._thinking)
        if self._calls:
            message["tool_calls"] = list(self._calls)
        for key, value in self._extra.items():
            message.setdefault(key, value)
        return _read_message(message, "the streamed message")

    def _reply(self, messages: list[Message]) -> Reply:
        facts = dict(self._last)
        if not isinstance(facts.get("model"), str):
            facts["model"] = self._model
        return _reply(messages, self._reason, facts)
