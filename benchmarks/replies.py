"""What a request made of replies costs: ``to_request`` where the transcript holds provider items.

    python benchmarks/replies.py                        # 300 turns, 21 rounds
    python benchmarks/replies.py --quick                # 3 rounds
    python benchmarks/replies.py --before 900d624       # against another commit

``dialects.py`` times a transcript of plain messages. Here every turn is a
reply as the provider sent it, read back with the dialect's own
``from_response``: for Responses, a reasoning item with encrypted content,
function calls and a cited message, all kept as items; for Chat
Completions, a refusal and a cited answer, kept as the message sent; for
Anthropic, signed thinking, a web search and a cited answer, kept as
blocks; for Gemini, a thought and a signed call, kept as parts. The request
now owns those items (it copies them), so this is where that copy shows.
Both versions run side by side in one process, taking turns within
each round; a ratio is the median of the per-round ratios, with their
range. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import importlib
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

import convtypes as ct
from convtypes.dialects import anthropic, gemini, openai_chat, openai_responses

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _baseline

Builder = Callable[[list[Any]], dict[str, Any]]


def _responses_reply(serial: int) -> dict[str, Any]:
    return {
        "id": f"resp_{serial}",
        "status": "completed",
        "output": [
            {
                "type": "reasoning",
                "id": f"rs_{serial}",
                "encrypted_content": "gAAAAB" + "x" * 2_000,
                "summary": [{"type": "summary_text", "text": f"Look up item {serial}. " * 5}],
            },
            *(
                {
                    "type": "function_call",
                    "id": f"fc_{serial}_{n}",
                    "call_id": f"call_{serial}_{n}",
                    "name": "search",
                    "arguments": f'{{"query": "item {serial}", "options": {{"page": {n}}}}}',
                    "status": "completed",
                }
                for n in range(2)
            ),
        ],
    }


def _responses_answer(serial: int) -> dict[str, Any]:
    return {
        "id": f"resp_{serial}b",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": f"msg_{serial}",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {
                        "type": "output_text",
                        "text": f"Item {serial} is fine, as the source says.",
                        "annotations": [
                            {
                                "type": "url_citation",
                                "start_index": 0,
                                "end_index": 9,
                                "url": f"https://example.org/{serial}",
                                "title": "Source",
                            }
                        ],
                    }
                ],
            }
        ],
    }


def responses_transcript(turns: int) -> list[ct.Message]:
    """``turns`` exchanges: a question, a reply of calls, their results, a cited answer."""
    messages: list[ct.Message] = [ct.SystemMessage(content="You are a careful agent.")]
    for serial in range(turns):
        messages.append(ct.UserMessage(content=f"Step {serial}: look up item {serial}."))
        reply = openai_responses.read_reply(_responses_reply(serial))
        messages += reply.messages
        messages += [
            ct.ToolResultMessage(tool_use_id=call.id, content=f"Result {serial}: " + "ipsum " * 20)
            for call in reply.tool_calls
        ]
        messages += openai_responses.from_response(_responses_answer(serial))
    return messages


def chat_transcript(turns: int) -> list[ct.Message]:
    """``turns`` exchanges whose replies each keep the message sent (a refusal, citations)."""
    messages: list[ct.Message] = [ct.SystemMessage(content="You are a careful agent.")]
    for serial in range(turns):
        messages.append(ct.UserMessage(content=f"Step {serial}: may I see item {serial}?"))
        sent = (
            {"role": "assistant", "content": None, "refusal": "I can't share that."}
            if serial % 2
            else {
                "role": "assistant",
                "content": f"Item {serial} is fine.",
                "annotations": [
                    {"type": "url_citation", "url_citation": {"url": "https://example.org"}}
                ],
            }
        )
        completion = {"choices": [{"index": 0, "message": sent, "finish_reason": "stop"}]}
        messages += openai_chat.from_response(completion)
    return messages


def anthropic_transcript(turns: int) -> list[ct.Message]:
    """``turns`` exchanges whose replies searched the web and cite it: kept as items."""
    messages: list[ct.Message] = [ct.SystemMessage(content="You are a careful agent.")]
    for serial in range(turns):
        messages.append(ct.UserMessage(content=f"Step {serial}: what is new in item {serial}?"))
        search = f"srvtoolu_{serial}"
        page = {
            "type": "web_search_result",
            "url": f"https://example.org/{serial}",
            "title": "Source",
            "encrypted_content": "Eq" + "x" * 1_000,
            "page_age": None,
        }
        cited = {
            "type": "web_search_result_location",
            "url": page["url"],
            "title": "Source",
            "encrypted_index": "Eo" + "y" * 40,
            "cited_text": "Item is fine. " * 3,
        }
        response = {
            "id": f"msg_{serial}",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "stop_reason": "end_turn",
            "content": [
                {
                    "type": "thinking",
                    "thinking": f"Search for item {serial}. " * 5,
                    "signature": "Sig" + "z" * 300,
                },
                {
                    "type": "server_tool_use",
                    "id": search,
                    "name": "web_search",
                    "input": {"query": f"item {serial}"},
                },
                {"type": "web_search_tool_result", "tool_use_id": search, "content": [page] * 3},
                {"type": "text", "text": "Item is fine.", "citations": [cited]},
            ],
            "usage": {"input_tokens": 10, "output_tokens": 20},
        }
        messages += anthropic.from_response(response)
    return messages


def gemini_transcript(turns: int) -> list[ct.Message]:
    """``turns`` exchanges whose replies carry thought signatures: every part kept as items."""
    messages: list[ct.Message] = [ct.SystemMessage(content="You are a careful agent.")]
    for serial in range(turns):
        messages.append(ct.UserMessage(content=f"Step {serial}: look up item {serial}."))
        parts = [
            {"text": f"Looking up item {serial}. " * 3, "thought": True},
            {
                "functionCall": {"name": "search", "args": {"query": f"item {serial}", "page": 1}},
                "thoughtSignature": "Cs" + "q" * 400,
            },
        ]
        response = {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]
        }
        reply = gemini.read_reply(response)
        messages += reply.messages
        messages += [
            ct.ToolResultMessage(tool_use_id=call.id, content=f"Result {serial}: " + "ipsum " * 20)
            for call in reply.tool_calls
        ]
    return messages


CASES: dict[str, tuple[Callable[[int], list[ct.Message]], Builder]] = {
    "anthropic": (anthropic_transcript, anthropic.to_request),
    "openai_chat": (chat_transcript, openai_chat.to_request),
    "openai_responses": (responses_transcript, openai_responses.to_request),
    "gemini": (gemini_transcript, gemini.to_request),
}


def _time(build: Builder, messages: list[Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        build(messages)
    return (time.perf_counter() - start) / calls


def run(quick: bool, before: str = _baseline.BEFORE) -> str:
    """Time each dialect's ``to_request`` on a transcript of replies against ``before``."""
    package = _baseline.load(before)
    rounds = 3 if quick else 21
    calls = 3 if quick else 20
    lines = [
        f"Transcripts of 300 exchanges read from replies; {rounds} rounds of {calls} builds each; "
        f"Python {platform.python_version()}, msgspec {msgspec.__version__}. Before: commit "
        + (before if package is not None else f"{before} (not found: no git history here)")
        + ".",
        "",
        "| dialect | messages | to_request | before | to_request time vs before |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, (make, build) in CASES.items():
        messages = make(300)
        ours: list[float] = []
        then: list[float] = []
        old_build: Builder | None = None
        old_messages: list[Any] = []
        if package is not None:
            old_build = importlib.import_module(f"convtypes_before.dialects.{name}").to_request
            old_messages = package.decode_messages(ct.encode(messages))
        for _ in range(rounds):
            ours.append(_time(build, messages, calls))
            if old_build is not None:
                then.append(_time(old_build, old_messages, calls))
        against = sorted(a / b for a, b in zip(ours, then, strict=True)) if then else []
        before_cell = f"{statistics.median(then) * 1e3:.2f} ms" if then else "n/a"
        against_cell = (
            f"{statistics.median(against):.2f}x ({against[0]:.2f}\u2013{against[-1]:.2f})"
            if against
            else "n/a"
        )
        lines.append(
            f"| {name} | {len(messages)} | {statistics.median(ours) * 1e3:.2f} ms "
            f"| {before_cell} | {against_cell} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--before", default=_baseline.BEFORE, help="the commit to compare with")
    options = parser.parse_args()
    sys.stdout.write(run(options.quick, options.before) + "\n")
