"""Reading a chat-completions-shaped reply: its calls, its turn and kept message, its facts.

OpenAI's Chat Completions, Mistral, Cohere and Ollama answer with one
assistant message (Chat Completions and Mistral inside a list of choices),
and each of their dialects reads it alike: the calls it holds (the last of
them maybe cut off at the token limit), the ``AssistantMessage`` it becomes,
and the message as sent, kept before it when the turn cannot say all of it.
A dialect says how it reads a call and when its turn carries the message;
the stop reason and usage are its own, and :func:`chat_reply` puts them in
a :class:`~convtypes.dialects.Reply`.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from typing import Any

from .._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    ThinkingBlock,
    ToolCall,
)
from ._chat_request import ChatTurn
from ._errors import ResponseError, short
from ._json import built, field
from ._reply import Reply, StopReason, Usage


def first_choice(data: dict[str, Any]) -> dict[str, Any]:
    """The first of a response's ``choices``: the others are alternatives, not more of it."""
    choices = field(data, "choices", list, "the response")
    if not choices:
        raise ResponseError("the response has no choices")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise ResponseError(f"choices[0]: expected an object, got {short(choice)}")
    return choice


def clean_call(
    call: object,
    dropped: Callable[[str, Any], bool],
    function_dropped: Container[str] = (),
) -> object:
    """A call as sent, without its ``null`` fields and those ``dropped`` says say nothing.

    The same call read whole or built from a stream then compares equal,
    however the provider spelled what it left unsaid.
    """
    if not isinstance(call, dict):
        return call
    out = {
        key: value for key, value in call.items() if value is not None and not dropped(key, value)
    }
    function = out.get("function")
    if isinstance(function, dict):
        out["function"] = {
            key: value
            for key, value in function.items()
            if value is not None and key not in function_dropped
        }
    return out


def read_calls(
    raw_calls: list[Any], cut: bool, where: str, read: Callable[[object, str], ToolCall | None]
) -> list[ToolCall]:
    """The calls of a message, each read by ``read`` (``None`` for one that is no ``ToolCall``).

    ``cut`` when the reply stopped at the token limit: its last call may
    then be cut off, and one that cannot be read is not a call a backend
    could run; it stays only in the kept message.
    """
    calls: list[ToolCall] = []
    for number, raw in enumerate(raw_calls):
        try:
            call = read(raw, f"{where}.tool_calls[{number}]")
        except ResponseError:
            if cut and number == len(raw_calls) - 1:
                continue
            raise
        if call is not None:
            calls.append(call)
    return calls


def turn_and_kept(
    text: str,
    calls: list[ToolCall],
    thinking: Iterable[ThinkingBlock],
    item: dict[str, Any],
    carried: Callable[[dict[str, Any], AssistantMessage], bool],
    protocol: str,
    where: str,
) -> list[Message]:
    """The messages for a reply's message: its turn, with ``item`` kept before it if need be.

    ``item`` is the message as sent, cleaned of what says nothing;
    ``carried`` says whether replaying the turn sends what it said. When it
    does not, the item is kept first, as a ``ProviderOutputItemsMessage`` of
    ``protocol``, for the dialect to replay in place of the turn.
    """
    assistant = built(
        lambda: AssistantMessage(content=text, tool_calls=tuple(calls), thinking=tuple(thinking)),
        where,
    )
    if carried(item, assistant):
        return [assistant]
    kept = built(lambda: ProviderOutputItemsMessage(protocol=protocol, items=(item,)), where)
    return [kept, assistant]


def _as_is(part: object) -> object:
    return part


def read_content(
    content: object,
    where: str,
    thought: Callable[[dict[str, Any], str], str],
    *,
    part_name: str = "content item",
    shape: str = "a list",
    unwrap: Callable[[object], object] = _as_is,
) -> tuple[str, list[ThinkingBlock]]:
    """The text and the thinking of a message's content: text, or a list of typed parts.

    ``thought`` reads a ``thinking`` part's text (at ``where``); parts of
    other types say neither. ``unwrap`` gives the part an SDK wraps;
    ``part_name`` and ``shape`` name a part and the content in a fault.
    """
    if content is None:
        return "", []
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        raise ResponseError(f"{where}: 'content' should be {shape}, got {short(content)}")
    text: list[str] = []
    thinking: list[ThinkingBlock] = []
    for number, part in enumerate(content):
        part = unwrap(part)
        at = f"{where}.content[{number}]"
        if not isinstance(part, dict):
            raise ResponseError(f"{at}: expected an object, got {short(part)}")
        kind = part.get("type")
        if kind == "text":
            text.append(field(part, "text", str, at))
        elif kind == "thinking":
            said = thought(part, at)
            if said:
                thinking.append(ThinkingBlock(text=said))
        elif not isinstance(kind, str):
            raise ResponseError(f"{at}: a {part_name} without a type")
    return "".join(text), thinking


def sent_alike(
    item: dict[str, Any],
    assistant: AssistantMessage,
    turn: ChatTurn,
    normal: Callable[[dict[str, Any]], dict[str, Any]],
) -> bool:
    """Whether a fresh ``turn`` of ``assistant`` alone sends what ``item`` said.

    ``normal`` takes out of a message what says nothing to the wire, so that
    the two compare by what they say, not by how they spell it.
    """
    return normal(item) == normal(turn.alone(assistant))


def stop_by_table(
    stops: dict[str, StopReason], messages: list[Message], reason: object
) -> StopReason:
    """The finish reason by meaning: by ``stops``, and a turn of calls is ``tool_use``
    whatever an ordinary stop says; a reason ``stops`` does not know is ``other``."""
    stop = stops.get(reason, "other") if isinstance(reason, str) else "other"
    assistant = messages[-1]
    if stop == "end_turn" and isinstance(assistant, AssistantMessage) and assistant.tool_calls:
        return "tool_use"
    return stop


def chat_reply(
    messages: list[Message],
    stop: StopReason,
    reason: object,
    usage: Usage,
    model: object = None,
    reply_id: object = None,
) -> Reply:
    """A :class:`~convtypes.dialects.Reply`, keeping only the facts that are text."""
    return Reply(
        messages=messages,
        stop_reason=stop,
        provider_stop_reason=reason if isinstance(reason, str) else None,
        usage=usage,
        model=model if isinstance(model, str) else None,
        id=reply_id if isinstance(reply_id, str) else None,
    )
