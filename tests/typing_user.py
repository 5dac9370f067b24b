# pyright: strict
"""A user's program, written the way the README teaches, in strict mode.

A backend that builds requests, a tool loop written once for every
provider, a sync layer that keeps what newer writers send, and a migration
check. tests/test_typing.py has mypy --strict and
pyright --strict accept it, refuse the mistakes in typing_refused.py, and
runs it on every kind of value a decode can return, lenient ones included:
a program both checkers accept must not fail at run time on what convtypes
hands it. docs/typing.md quotes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

from typing_extensions import assert_never

import convtypes as ct
from convtypes.dialects import (
    Delta,
    LeftOut,
    Reply,
    TextDelta,
    Unsupported,
    anthropic,
    bedrock,
    cohere,
    gemini,
    mistral,
    ollama,
    openai_chat,
    openai_responses,
)

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


# ------------------------------------------------------------------ a tool loop, once for all


class Stream(Protocol):
    def feed(self, event: object) -> list[Delta]: ...
    def partial(self) -> list[ct.Message]: ...
    def reply(self) -> Reply: ...


class Dialect(Protocol):
    """What a backend calls on every provider's module alike."""

    def to_request(
        self,
        messages: Iterable[ct.Message | ct.UnknownMessage],
        *,
        fence_external: bool = ...,
        unsupported: Unsupported = ...,
    ) -> dict[str, Any]: ...

    def read_reply(self, response: object) -> Reply: ...

    def left_out(
        self, messages: Iterable[ct.Message | ct.UnknownMessage], *, unsupported: Unsupported = ...
    ) -> list[LeftOut]: ...

    @property
    def Accumulator(self) -> Callable[[], Stream]: ...


# Every dialect module is a Dialect: both checkers compare each one with it.
DIALECTS: dict[str, Dialect] = {
    "anthropic": anthropic,
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "gemini": gemini,
    "ollama": ollama,
    "bedrock": bedrock,
    "mistral": mistral,
    "cohere": cohere,
}


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
