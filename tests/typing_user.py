# pyright: strict
"""A user's program, written the way the README teaches, in strict mode.

A backend that builds requests, a sync layer that keeps what newer writers
send, and a migration check. tests/test_typing.py has mypy --strict and
pyright --strict accept it, refuse the mistakes in typing_refused.py, and
runs it on every kind of value a decode can return, lenient ones included:
a program both checkers accept must not fail at run time on what convtypes
hands it. docs/typing.md quotes it.
"""

from __future__ import annotations

import copy
import functools
import sys
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

import msgspec

import convtypes as ct
from convtypes.dialects import Dialect, TextDelta, ToolSpec, openai_chat
from convtypes.mcp import from_result


# A match's last case: both checkers refuse a call they can reach. In typing
# from Python 3.11 on; written out so that the program runs on 3.10 with
# nothing but convtypes installed.
def assert_never(value: NoReturn) -> NoReturn:
    raise AssertionError(f"unhandled: {value!r}")


# ------------------------------------------------------------------ a backend


def build_turns(query: str, page: str) -> list[ct.Message]:
    """The README's calls, as written there."""
    args = {"q": query, "n": 3}
    call = ct.ToolCall(id="call_1", name="web_search", arguments=args)
    return [
        ct.SystemMessage(content="You are terse."),
        ct.UserMessage(content=f"Weather in {query}?"),
        ct.AssistantMessage(tool_calls=(call,)),
        ct.ToolResultMessage(tool_use_id="call_1", content=page, provenance="external"),
    ]


def trusted(provenance: ct.LenientProvenance) -> bool:
    """Whether a tool result's text may be shown to a model without a fence."""
    match provenance:
        case ct.Provenance.INTERNAL:
            return True
        case ct.Provenance.EXTERNAL:
            return False
        case ct.UnknownProvenance():
            return False  # a newer writer's value: not trusted, whatever it says
        case _:
            assert_never(provenance)


def block_text(block: ct.LenientContentBlock) -> str:
    match block:
        case ct.TextBlock(text=text):
            return text
        case ct.ImageBase64Block(media_type=kind) | ct.VideoBase64Block(media_type=kind):
            return f"[inline {kind}]"
        case ct.AudioBase64Block(media_type=kind):
            return f"[inline {kind}]"
        case ct.ImageUrlBlock(url=url) | ct.VideoUrlBlock(url=url) | ct.AudioUrlBlock(url=url):
            return f"[{url}]"
        case ct.VideoPathBlock(path=path) | ct.AudioPathBlock(path=path):
            return f"[{path}]"
        case ct.UnknownBlock(type=kind):
            return f"[a {kind} block this version does not know]"
        case _:
            assert_never(block)


def prompt_lines(message: ct.LenientMessage) -> list[str]:
    """What a simple backend shows a model for one stored message."""
    match message:
        case ct.SystemMessage(content=text) | ct.UserMessage(content=text):
            return [text]
        case ct.UserMultimodalMessage(content=blocks):
            return [block_text(block) for block in blocks]
        case ct.AssistantMessage(content=text, tool_calls=calls):
            return [text, *(f"{call.name}({sorted(call.arguments)})" for call in calls)]
        case ct.ToolResultMessage(content=text, provenance=provenance):
            return [text if trusted(provenance) else ct.fence_external(text)]
        case ct.ProviderOutputItemsMessage(items=items):
            return [f"{len(items)} provider items"]
        case ct.UnknownMessage(role=role):
            return [f"[a {role} message this version does not know]"]
        case _:
            assert_never(message)


# ------------------------------------------------------------------ a sync layer


def first_block(data: bytes) -> str:
    """decode is typed by what it is asked for: a block, here."""
    return block_text(ct.decode(data, ct.ContentBlock))


def first_message(data: bytes) -> list[str]:
    return prompt_lines(ct.decode(data, ct.Message))


def read_oplog(path: Path, bad: list[tuple[int, bytes]]) -> Iterator[ct.LenientMessage]:
    """Every message of an oplog; each bad line goes to ``bad``, none is lost."""

    def keep(err: ct.WireError, line: bytes) -> None:
        bad.append((err.line or 0, line))

    yield from ct.iter_jsonl(path, lenient=True, on_error=keep)


def append_or_repair(path: Path, messages: list[ct.LenientMessage]) -> int:
    """Append; after a crash tore the last line, repair first and append again."""
    try:
        ct.append_jsonl(path, messages)
    except ct.TornLineError:
        cut = ct.repair_jsonl(path)
        ct.append_jsonl(path, messages)
        return cut
    return 0


def shortened(message: ct.Message) -> ct.Message:
    """replace is checked: the fields and value types of each class."""
    match message:
        case ct.ToolResultMessage(content=text):
            return ct.replace(message, content=text[:100], provenance="external")
        case ct.AssistantMessage(tool_calls=calls):
            kept = tuple(ct.replace(call, arguments={"q": "Oslo", "n": 3}) for call in calls)
            return ct.replace(message, tool_calls=kept)
        case _:
            return message


# ------------------------------------------------------------------ a migration check


def stored_problems(data: bytes) -> list[str]:
    transcript = ct.decode(data, list[ct.Message])
    return [f"{p.index}: {p.code}" for p in ct.check_conversation(transcript)]


def keep_newer_turn(raw: bytes) -> ct.UserMultimodalMessage:
    """The documented way to keep a newer writer's block in a built turn."""
    return ct.UserMultimodalMessage(
        content=(ct.TextBlock(text="see:"), ct.UnknownBlock(type="hologram", raw=raw))
    )


# ------------------------------------------------------------------ values as keys


def count_distinct(messages: Iterable[ct.LenientMessage]) -> dict[ct.LenientMessage, int]:
    """Messages hash (tool calls' arguments included), so they key a dict and fill a set."""
    seen: set[ct.LenientMessage] = set()
    counts: dict[ct.LenientMessage, int] = {}
    for message in messages:
        seen.add(message)
        counts[message] = counts.get(message, 0) + 1
    assert len(seen) == len(counts)
    return counts


@functools.cache  # keyed by tool specs, whose schemas are dicts
def offered(tools: tuple[ToolSpec, ...]) -> int:
    return len(openai_chat.tools_to_request(list(tools))["tools"])


def queued(messages: Sequence[ct.LenientMessage]) -> bytes:
    """encode takes any sequence of messages, as its type says."""
    return ct.encode(deque(messages))


def copied(message: ct.LenientMessage) -> ct.LenientMessage:
    """copy.replace (Python 3.13) is convtypes.replace: checked, unknown fields kept."""
    if sys.version_info >= (3, 13):
        match message:
            case ct.ToolResultMessage(content=text):
                return copy.replace(message, content=text[:100], provenance=ct.Provenance.EXTERNAL)
            case ct.UserMessage(content=text):
                return copy.replace(message, content=text.upper())
            case ct.AssistantMessage(tool_calls=calls):
                return copy.replace(message, tool_calls=calls[:1])
            case _:
                pass
    return message


class Snapshot(msgspec.Struct):
    """A record of the program's own that holds leniently decoded messages."""

    device: str
    messages: list[ct.LenientMessage]


def archived(messages: list[ct.LenientMessage]) -> bytes:
    """msgspec's own encoder writes lenient values with convtypes' hook."""
    record = Snapshot(device="phone", messages=messages)
    msgspec.to_builtins(record, enc_hook=ct.enc_hook)
    return msgspec.json.encode(record, enc_hook=ct.enc_hook)


# ------------------------------------------------------------------ MCP and dialects


def mcp_answer(result: object, call_id: str) -> ct.LenientProvenance:
    """The README's MCP example: the first message is the tool result."""
    messages = from_result(result, tool_use_id=call_id)
    return messages[0].provenance


def stream_turn(dialect: Dialect, events: Iterable[object]) -> tuple[str, list[ct.Message]]:
    """The README's loop, over any dialect module, typed."""
    accumulator = dialect.Accumulator()
    shown = ""
    for event in events:
        for delta in accumulator.feed(event):
            if isinstance(delta, TextDelta):
                shown += delta.text
    assert accumulator.finished
    return shown, accumulator.reply().messages


def next_request(
    dialect: Dialect, transcript: list[ct.Message], events: Iterable[object], log: list[str]
) -> dict[str, Any]:
    """Stream a reply, answer its calls by their ids, and build the next request."""
    stream = dialect.Accumulator()
    for event in events:
        for delta in stream.feed(event):
            if isinstance(delta, TextDelta):
                log.append(delta.text)
    reply = stream.reply()
    transcript += reply.messages
    for call in reply.tool_calls:  # call.id is a str, even for Gemini's calls
        transcript.append(ct.ToolResultMessage(tool_use_id=call.id, content=f"{call.name} ran"))
    log += [f"{piece.index}: {piece.what}" for piece in dialect.left_out(transcript)]
    return dialect.to_request(transcript)


def cancelled_turn(
    dialect: Dialect, events: Iterable[object], history: list[ct.Message]
) -> tuple[list[ct.Message], list[str]]:
    """The user stops the reply: keep what came, close its calls, go on; and what a switch drops."""
    accumulator = dialect.Accumulator()
    for event in events:
        accumulator.feed(event)
    transcript = ct.close_open_calls([*history, *accumulator.partial()], "Cancelled by the user.")
    transcript.append(ct.UserMessage(content="Never mind."))
    dialect.to_request(transcript)
    return transcript, [piece.what for piece in dialect.left_out(transcript)]


def cancel_open_calls(transcript: list[ct.Message]) -> list[ct.Message]:
    """The cancel loop by hand: one result per open call, by the id open_calls gives.

    ``call.id`` is a ``str`` here (a PendingCall), so both checkers take it
    as a ``tool_use_id`` with no ``None`` to rule out first.
    """
    answers = [
        ct.ToolResultMessage(tool_use_id=call.id, content=f"{call.name}: cancelled")
        for call in ct.open_calls(transcript)
    ]
    return [*transcript, *answers]


def recent_turns(log: deque[ct.Message], budget: int) -> list[ct.Message]:
    """A bounded log kept in a deque, trimmed to a budget: trim takes any Sequence."""
    return ct.trim(log, budget)


def request(dialect: Dialect, transcript: list[ct.Message], tools: list[ToolSpec]) -> int:
    body = dialect.to_request(transcript, fence_external=True, unsupported="note")
    body.update(dialect.tools_to_request(tools, choice="auto"))
    return len(body) + len(dialect.PROTOCOL)


def resume(dialect: Dialect, synced: list[ct.LenientMessage]) -> tuple[dict[str, Any], list[str]]:
    """Resume a transcript a newer device wrote: what this version does not know stays out.

    The request leaves out messages of roles this version does not know;
    ``left_out`` names them, and the fields no request sends, for a log.
    """
    body = dialect.to_request(synced, unknown="skip")
    return body, [piece.why for piece in dialect.left_out(synced) if piece.what == "unknown"]
