"""The Messages API's rules that the anthropic SDK's request types cannot state.

Shared by the Anthropic tests: a request may validate against the SDK's
types and still be refused (a call without its result, blank text,
unsigned thinking, a server tool's use with no result, a misplaced or fifth
cache breakpoint). Each checker returns the faults it finds, so a test can
show them; ``test_anthropic_between_turns`` tests the checkers themselves.
"""

from __future__ import annotations

from typing import Any

from convtypes.dialects.anthropic import _cache_marks

SERVER_USES = ("server_tool_use", "mcp_tool_use")


def _callers(content: list[dict[str, Any]]) -> set[Any]:
    return {
        block["caller"].get("tool_id") for block in content if isinstance(block.get("caller"), dict)
    }


def pairing_faults(body: dict[str, Any]) -> list[str]:
    """What the Messages API would refuse in ``body`` that its SDK types let pass.

    Turns alternate from a user turn, none empty; no blank text, no
    unsigned thinking; each ``tool_use`` id once, answered by a
    ``tool_result`` at the head of the next user turn when one follows;
    every result answers a call of the turn before; a server tool's use is
    answered later in its own turn once a user turn follows, unless a call
    of the turn names it as its caller.
    """
    faults: list[str] = []
    turns = body["messages"]
    if not turns or turns[0]["role"] != "user":
        faults.append("the first turn is not the user's")
    seen: set[str] = set()
    for n, turn in enumerate(turns):
        content = turn["content"]
        if not content:
            faults.append(f"turn {n} is empty")
        if n and turns[n - 1]["role"] == turn["role"]:
            faults.append(f"turns {n - 1} and {n} are both {turn['role']}")
        for block in content:
            if block["type"] == "text" and not block["text"].strip():
                faults.append(f"turn {n} has blank text")
            if block["type"] == "thinking" and not block.get("signature"):
                faults.append(f"turn {n} has unsigned thinking")
        followed = n + 1 < len(turns)
        if turn["role"] == "assistant":
            calls = [block["id"] for block in content if block["type"] == "tool_use"]
            if seen & set(calls) or len(set(calls)) != len(calls):
                faults.append(f"turn {n} repeats a call id")
            seen.update(calls)
            callers = _callers(content)
            for at, block in enumerate(content):
                if block["type"] in SERVER_USES and followed and block["id"] not in callers:
                    if not any(b.get("tool_use_id") == block["id"] for b in content[at + 1 :]):
                        faults.append(f"turn {n}: server use {block['id']} has no result")
            if calls and followed:
                after = turns[n + 1]["content"]
                results = [b["tool_use_id"] for b in after if b["type"] == "tool_result"]
                if sorted(results) != sorted(calls):
                    faults.append(f"turn {n}: calls {calls} answered by {results}")
                if any(b["type"] != "tool_result" for b in after[: len(results)]):
                    faults.append(f"turn {n + 1}: the results do not come first")
        else:
            asked = (
                {b["id"] for b in turns[n - 1]["content"] if b["type"] == "tool_use"}
                if n
                else set()
            )
            for block in content:
                if block["type"] == "tool_result" and block["tool_use_id"] not in asked:
                    faults.append(f"turn {n}: result {block['tool_use_id']} answers no call")
    return faults


def markers(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every block (or tool) of a request that carries a ``cache_control``, at any depth.

    A call's ``input`` is the model's own JSON, where the key is data: not looked in.
    """
    found = []
    stack: list[Any] = [body]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if "cache_control" in value:
                found.append(value)
            stack.extend(item for key, item in value.items() if key != "input")
        elif isinstance(value, list):
            stack.extend(value)
    return found


def marker_faults(body: dict[str, Any], ttl: str | None) -> list[str]:
    """Where ``to_request``'s markers break the API's rules or the documented placement."""
    expected_marker = (
        {"type": "ephemeral"} if ttl in (None, "5m") else {"type": "ephemeral", "ttl": ttl}
    )
    faults: list[str] = []
    found = markers(body)
    if ttl is None:
        return [f"marked without cache: {block}" for block in found]
    if len(found) > 3:
        faults.append(f"{len(found)} breakpoints")
    expected: list[dict[str, Any]] = []
    system = body.get("system")
    if isinstance(system, list):
        expected.append(system[-1])
    elif isinstance(system, str) and system.strip():
        faults.append("a system prompt with text is not marked")
    users = [turn for turn in body["messages"] if turn["role"] == "user"][-2:]
    for turn in users:
        takers = [block for block in turn["content"] if _cache_marks._markable(block)]
        if takers:
            expected.append(takers[-1])
    if sorted(map(id, found)) != sorted(map(id, expected)):
        faults.append(f"marked {found}, expected {expected}")
    for block in found:
        if block["cache_control"] != expected_marker:
            faults.append(f"marker {block['cache_control']}")
        if block.get("type") in ("thinking", "redacted_thinking"):
            faults.append("a thinking block is marked")
        if block.get("type") == "text" and not block["text"].strip():
            faults.append("blank text is marked")
    return faults


def ttl_of(cache: Any) -> str | None:
    """The lifetime a ``cache=`` value asks for, as the markers say it."""
    return None if cache is False else ("1h" if cache == "1h" else "5m")
