"""The rules each provider's API checks beyond its SDK's types, and validators using both.

Shared by the dialect tests. Each ``validate_*`` takes a request body as a
dialect builds it, checks it against the provider SDK's own request model
made strict (see :mod:`strict_models`), and then against the rules the
provider's API enforces on a conversation, which no type states.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from strict_models import strict_validate

ALNUM9 = re.compile(r"[A-Za-z0-9]{9}")

# --- what Mistral takes ---------------------------------------------------------------

# After each role, the roles Mistral takes next (mistral-common's validator).
_NEXT: dict[str, set[str]] = {
    "system": {"user", "assistant", "system"},
    "user": {"assistant", "system", "user"},
    "assistant": {"assistant", "user", "tool"},
    "tool": {"assistant", "tool"},
}


def mistral_rules(messages: list[dict[str, Any]]) -> None:
    """Raise ``AssertionError`` for a message list Mistral's API refuses.

    The rules of mistral-common's serving validator, with the newest
    tokenizers' (v13) pairing by id: the order of roles; every call of an
    assistant message answered, once, by a ``tool`` message before the next
    assistant message or the end; ids of nine letters and digits; a
    ``prefix`` assistant message only last; the last message a user or tool
    message, or an assistant message with ``prefix``.
    """
    assert messages, "Conversation must have at least one message"
    roles = [message["role"] for message in messages]
    if len(messages) == 1:
        assert roles[0] in ("user", "system"), "a lone message must be user or system"
    else:
        last = messages[-1]
        assert last["role"] in ("user", "tool") or last.get("prefix") is True, (
            f"Expected last role User or Tool (or Assistant with prefix) but got {last['role']}"
        )
    for before, after in itertools.pairwise(roles):
        assert after in _NEXT[before], f"Unexpected role '{after}' after role '{before}'"
    expected: set[str] = set()
    seen: set[str] = set()
    for number, message in enumerate(messages):
        if message.get("prefix"):
            assert number == len(messages) - 1, "Assistant message with prefix must be last"
        if message["role"] == "tool":
            call_id = message["tool_call_id"]
            assert ALNUM9.fullmatch(call_id), f"Tool call id was {call_id}"
            assert call_id in expected and call_id not in seen, f"unexpected result {call_id}"
            seen.add(call_id)
        elif message["role"] == "assistant":
            assert len(expected) == len(seen), "Not the same number of function calls and responses"
            expected, seen = set(), set()
            for call in message.get("tool_calls") or ():
                assert ALNUM9.fullmatch(call["id"]), f"Tool call id was {call['id']}"
                assert call["id"] not in expected, f"Duplicate tool call id {call['id']}"
                expected.add(call["id"])
    assert len(expected) == len(seen), "Not the same number of function calls and responses"


def validate_mistral(body: dict[str, Any], tools: dict[str, Any] | None = None) -> None:
    """The request as the SDK's strict ``ChatCompletionRequest``, and Mistral's rules."""
    assert list(body) == ["messages"]
    full = {"model": "mistral-medium-latest", **body, **(tools or {})}
    from mistralai.client.models import ChatCompletionRequest

    strict_validate(ChatCompletionRequest, full)
    json.dumps(full)  # plain JSON, nothing else
    mistral_rules(body["messages"])


def calls_and_results(body: dict[str, Any]) -> tuple[list[str], list[str]]:
    messages = body["messages"]
    return (
        [c["id"] for m in messages for c in m.get("tool_calls") or ()],
        [m["tool_call_id"] for m in messages if m["role"] == "tool"],
    )
