"""What ``convtypes.dialects`` costs: ``to_request`` against dict literals by hand.

    python benchmarks/dialects.py           # 1,000-turn transcript, 21 rounds
    python benchmarks/dialects.py --quick   # 3 rounds
    python benchmarks/dialects.py --baseline REV   # against another commit

For each dialect, the same request is built three ways from one transcript of
1,000 turns (a user asks, the assistant thinks and calls tools, external
results come back): by ``to_request``, by the ``to_request`` of the baseline
commit (imported beside today's, see ``_baseline.py``), and by the loop a
backend would write by hand, with dict literals and nothing checked. The two must give equal
requests (the tests check it). They run side by side in one process, taking
turns within each round; a ratio is the median of the per-round ratios,
with their range. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

import convtypes as ct
from convtypes.dialects import (
    anthropic,
    bedrock,
    cohere,
    gemini,
    mistral,
    openai_chat,
    openai_responses,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _baseline

Builder = Callable[[list[ct.Message]], dict[str, Any]]


def transcript(turns: int = 1_000) -> list[ct.Message]:
    """A seeded agent session of ``turns`` messages after the system prompt."""
    messages: list[ct.Message] = [ct.SystemMessage(content="You are a careful agent.")]
    serial = 0
    while len(messages) <= turns:
        serial += 1
        messages.append(ct.UserMessage(content=f"Step {serial}: look up item {serial}."))
        calls = tuple(
            ct.ToolCall(
                id=f"toolu_{serial:05d}_{n}",
                name="search" if n == 0 else "read_file",
                arguments={"query": f"item {serial}", "options": {"limit": 5, "page": n}},
            )
            for n in range(2)
        )
        thinking = (ct.ThinkingBlock(text=f"I should search for {serial}.", signature="c2ln" * 8),)
        messages.append(
            ct.AssistantMessage(content="Searching.", tool_calls=calls, thinking=thinking)
        )
        for n, call in enumerate(calls):
            messages.append(
                ct.ToolResultMessage(
                    tool_use_id=call.id or "",
                    content=f"Result {serial}.{n}: " + "lorem ipsum " * 20,
                    provenance=ct.Provenance.EXTERNAL if n == 0 else ct.Provenance.INTERNAL,
                )
            )
        messages.append(ct.AssistantMessage(content=f"Item {serial} is fine."))
    return messages[: turns + 1]


# --- the same requests, built by hand -------------------------------------------


def _fenced(message: ct.ToolResultMessage) -> str:
    internal = message.provenance.is_internal()
    return message.content if internal else ct.fence_external(message.content)


def hand_anthropic(messages: list[ct.Message]) -> dict[str, Any]:
    system = ""
    turns: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ct.SystemMessage):
            system = message.content
        elif isinstance(message, ct.UserMessage):
            block = {"type": "text", "text": message.content}
            if turns and turns[-1]["role"] == "user":
                turns[-1]["content"].append(block)
            else:
                turns.append({"role": "user", "content": [block]})
        elif isinstance(message, ct.AssistantMessage):
            blocks: list[dict[str, Any]] = [
                {"type": "thinking", "thinking": t.text, "signature": t.signature}
                for t in message.thinking
            ]
            if message.content:
                blocks.append({"type": "text", "text": message.content})
            blocks += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                for c in message.tool_calls
            ]
            turns.append({"role": "assistant", "content": blocks})
        elif isinstance(message, ct.ToolResultMessage):
            result = {
                "type": "tool_result",
                "tool_use_id": message.tool_use_id,
                "content": _fenced(message),
            }
            if turns and turns[-1]["role"] == "user":
                turns[-1]["content"].append(result)
            else:
                turns.append({"role": "user", "content": [result]})
    return {"system": system, "messages": turns}


def hand_openai_chat(messages: list[ct.Message]) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ct.SystemMessage):
            out.append({"role": "system", "content": message.content})
        elif isinstance(message, ct.UserMessage):
            out.append({"role": "user", "content": message.content})
        elif isinstance(message, ct.AssistantMessage):
            turn: dict[str, Any] = {"role": "assistant", "content": message.content}
            if message.tool_calls:
                turn["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                    }
                    for c in message.tool_calls
                ]
            out.append(turn)
        elif isinstance(message, ct.ToolResultMessage):
            out.append(
                {"role": "tool", "tool_call_id": message.tool_use_id, "content": _fenced(message)}
            )
    return {"messages": out}


def hand_openai_responses(messages: list[ct.Message]) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ct.SystemMessage):
            out.append({"role": "system", "content": message.content})
        elif isinstance(message, ct.UserMessage):
            out.append({"role": "user", "content": message.content})
        elif isinstance(message, ct.AssistantMessage):
            if message.content:
                out.append({"role": "assistant", "content": message.content})
            out += [
                {
                    "type": "function_call",
                    "call_id": c.id,
                    "name": c.name,
                    "arguments": json.dumps(c.arguments),
                }
                for c in message.tool_calls
            ]
        elif isinstance(message, ct.ToolResultMessage):
            out.append(
                {
                    "type": "function_call_output",
                    "call_id": message.tool_use_id,
                    "output": _fenced(message),
                }
            )
    return {"input": out}


def hand_gemini(messages: list[ct.Message]) -> dict[str, Any]:
    system = ""
    contents: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    for message in messages:
        if isinstance(message, ct.SystemMessage):
            system = message.content
        elif isinstance(message, ct.UserMessage):
            part = {"text": message.content}
            if contents and contents[-1]["role"] == "user":
                contents[-1]["parts"].append(part)
            else:
                contents.append({"role": "user", "parts": [part]})
        elif isinstance(message, ct.AssistantMessage):
            parts: list[dict[str, Any]] = [{"text": message.content}] if message.content else []
            for c in message.tool_calls:
                names[c.id or ""] = c.name
                parts.append({"function_call": {"name": c.name, "args": c.arguments}})
            contents.append({"role": "model", "parts": parts})
        elif isinstance(message, ct.ToolResultMessage):
            response = {
                "function_response": {
                    "name": names[message.tool_use_id],
                    "response": {"output": _fenced(message)},
                }
            }
            if contents and contents[-1]["role"] == "user":
                contents[-1]["parts"].append(response)
            else:
                contents.append({"role": "user", "parts": [response]})
    return {"contents": contents, "system_instruction": {"parts": [{"text": system}]}}


def hand_bedrock(messages: list[ct.Message]) -> dict[str, Any]:
    system: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ct.SystemMessage):
            system.append({"text": message.content})
        elif isinstance(message, ct.UserMessage):
            block = {"text": message.content}
            if turns and turns[-1]["role"] == "user":
                turns[-1]["content"].append(block)
            else:
                turns.append({"role": "user", "content": [block]})
        elif isinstance(message, ct.AssistantMessage):
            blocks: list[dict[str, Any]] = [
                {"reasoningContent": {"reasoningText": {"text": t.text, "signature": t.signature}}}
                for t in message.thinking
            ]
            if message.content:
                blocks.append({"text": message.content})
            blocks += [
                {"toolUse": {"toolUseId": c.id, "name": c.name, "input": c.arguments}}
                for c in message.tool_calls
            ]
            turns.append({"role": "assistant", "content": blocks})
        elif isinstance(message, ct.ToolResultMessage):
            result = {
                "toolResult": {
                    "toolUseId": message.tool_use_id,
                    "content": [{"text": _fenced(message)}],
                }
            }
            if turns and turns[-1]["role"] == "user":
                turns[-1]["content"].append(result)
            else:
                turns.append({"role": "user", "content": [result]})
    return {"system": system, "messages": turns}


def _base36(number: int, width: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while number:
        number, digit = divmod(number, 36)
        text = digits[digit] + text
    return text.rjust(width, "0")


def hand_mistral(messages: list[ct.Message]) -> dict[str, Any]:
    # Mistral's rules: system first, nine-character ids, an assistant turn
    # between tool results and a user message, a last assistant turn as prefix.
    system: list[str] = []
    out: list[dict[str, Any]] = []
    ids: dict[str, tuple[str, str]] = {}
    for index, message in enumerate(messages):
        if isinstance(message, ct.SystemMessage):
            system.append(message.content)
        elif isinstance(message, ct.UserMessage):
            if out and out[-1]["role"] == "tool":
                out.append({"role": "assistant", "content": "OK"})
            out.append({"role": "user", "content": message.content})
        elif isinstance(message, ct.AssistantMessage):
            content: Any = message.content
            if message.thinking:
                content = [
                    {"type": "thinking", "thinking": [{"type": "text", "text": t.text}]}
                    for t in message.thinking
                ] + [{"type": "text", "text": message.content}]
            turn: dict[str, Any] = {"role": "assistant", "content": content}
            calls = []
            for position, c in enumerate(message.tool_calls):
                new = f"c{_base36(index, 5)}{_base36(position, 3)}"
                ids[c.id or ""] = (new, c.name)
                function = {"name": c.name, "arguments": json.dumps(c.arguments)}
                calls.append({"id": new, "type": "function", "function": function})
            if calls:
                turn["tool_calls"] = calls
            out.append(turn)
        elif isinstance(message, ct.ToolResultMessage):
            new, name = ids[message.tool_use_id]
            out.append(
                {"role": "tool", "tool_call_id": new, "name": name, "content": _fenced(message)}
            )
    if out[-1]["role"] == "assistant" and "tool_calls" not in out[-1]:
        out[-1]["prefix"] = True
    return {"messages": [{"role": "system", "content": "\n\n".join(system)}, *out]}


def hand_cohere(messages: list[ct.Message]) -> dict[str, Any]:
    # Cohere's rules: text beside calls goes as the tool plan; thinking is not sent.
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ct.SystemMessage):
            out.append({"role": "system", "content": message.content})
        elif isinstance(message, ct.UserMessage):
            out.append({"role": "user", "content": message.content})
        elif isinstance(message, ct.AssistantMessage):
            if message.tool_calls:
                turn: dict[str, Any] = {"role": "assistant", "tool_plan": message.content}
                turn["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                    }
                    for c in message.tool_calls
                ]
            else:
                turn = {"role": "assistant", "content": [{"type": "text", "text": message.content}]}
            out.append(turn)
        elif isinstance(message, ct.ToolResultMessage):
            out.append(
                {"role": "tool", "tool_call_id": message.tool_use_id, "content": _fenced(message)}
            )
    return {"messages": out}


PAIRS: dict[str, tuple[Builder, Builder]] = {
    "anthropic": (anthropic.to_request, hand_anthropic),
    "openai_chat": (openai_chat.to_request, hand_openai_chat),
    "openai_responses": (openai_responses.to_request, hand_openai_responses),
    "gemini": (gemini.to_request, hand_gemini),
    "bedrock": (bedrock.to_request, hand_bedrock),
    "mistral": (mistral.to_request, hand_mistral),
    "cohere": (cohere.to_request, hand_cohere),
}


def same_request(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Equal as JSON: the hand-built arguments text spaces its JSON differently."""

    def normal(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: json.loads(item) if key == "arguments" else normal(item)
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [normal(item) for item in value]
        return value

    return bool(normal(first) == normal(second))


# --- timing ----------------------------------------------------------------------------


def _time(build: Builder, messages: list[ct.Message], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        build(messages)
    return (time.perf_counter() - start) / calls


def _before(messages: list[ct.Message], rev: str) -> tuple[dict[str, Builder], list[Any]]:
    """The baseline commit's ``to_request`` of each dialect, and the transcript in its types."""
    package = _baseline.load(rev)
    if package is None:
        return {}, []
    import importlib

    builders = {}
    for name in PAIRS:
        try:
            module = importlib.import_module(f"convtypes_before.dialects.{name}")
        except ImportError:
            continue  # a dialect the baseline did not have
        builders[name] = module.to_request
    return builders, package.decode_messages(ct.encode(messages))


def run(quick: bool, baseline: str = _baseline.BEFORE) -> str:
    """Time every dialect against its hand-built twin and its baseline; a markdown table."""
    messages = transcript()
    rounds = 3 if quick else 21
    calls = 3 if quick else 30
    before, old_messages = _before(messages, baseline)
    lines = [
        f"Transcript: {len(messages)} messages; {rounds} rounds of {calls} builds each; "
        f"Python {platform.python_version()}, msgspec {msgspec.__version__}. "
        f"Before: commit {baseline}"
        + ("" if before else " (not found: no git history here)")
        + ".",
        "",
        "| dialect | to_request | by hand | before | to_request time vs by hand "
        "| to_request time vs before |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, (dialect, by_hand) in PAIRS.items():
        if not same_request(dialect(messages), by_hand(messages)):
            raise AssertionError(f"{name}: the two builders disagree")
        ours: list[float] = []
        theirs: list[float] = []
        then: list[float] = []
        for _ in range(rounds):
            ours.append(_time(dialect, messages, calls))
            theirs.append(_time(by_hand, messages, calls))
            if name in before:
                then.append(_time(before[name], old_messages, calls))
        ratios = sorted(a / b for a, b in zip(ours, theirs, strict=True))
        against = sorted(a / b for a, b in zip(ours, then, strict=True)) if then else []
        before_cell = f"{statistics.median(then) * 1e3:.2f} ms" if then else "n/a"
        against_cell = (
            f"{statistics.median(against):.2f}x ({against[0]:.2f}\u2013{against[-1]:.2f})"
            if against
            else "n/a"
        )
        lines.append(
            f"| {name} | {statistics.median(ours) * 1e3:.2f} ms "
            f"| {statistics.median(theirs) * 1e3:.2f} ms | {before_cell} "
            f"| {statistics.median(ratios):.2f}x ({ratios[0]:.2f}\u2013{ratios[-1]:.2f}) "
            f"| {against_cell} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--baseline", default=_baseline.BEFORE, help="the commit to compare with")
    args = parser.parse_args()
    sys.stdout.write(run(args.quick, args.baseline) + "\n")
