"""The rules each provider's API checks beyond its SDK's types, and validators using both.

Shared by the dialect tests. Each ``validate_*`` takes a request body as a
dialect builds it, checks it against the provider SDK's own request model
made strict (see :mod:`strict_models`), and then against the rules the
provider's API enforces on a conversation, which no type states.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from typing import Any

from strict_models import strict_validate

ALNUM9 = re.compile(r"[A-Za-z0-9]{9}")
FUNCTION_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")

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
    assistant message or the end; ids of nine letters and digits; function
    names (of a call, and of a ``tool`` message that names one) of letters,
    digits, ``_`` and ``-``, at most 64; a ``prefix`` assistant message only
    last; the last message a user or tool message, or an assistant message
    with ``prefix``.
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
            if "name" in message:
                assert FUNCTION_NAME.fullmatch(message["name"]), f"Function name {message['name']}"
            assert call_id in expected and call_id not in seen, f"unexpected result {call_id}"
            seen.add(call_id)
        elif message["role"] == "assistant":
            assert len(expected) == len(seen), "Not the same number of function calls and responses"
            expected, seen = set(), set()
            for call in message.get("tool_calls") or ():
                assert ALNUM9.fullmatch(call["id"]), f"Tool call id was {call['id']}"
                name = call.get("function", {}).get("name")
                if name is not None:
                    assert FUNCTION_NAME.fullmatch(name), f"Function name was {name}"
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


# --- Cohere -----------------------------------------------------------------------------


@functools.cache
def cohere_request_model() -> Any:
    """A strict copy of the request ``ClientV2.chat`` sends, from the method's own signature.

    The SDK has no model for the whole v2 request: its fields are the
    method's arguments, typed with the SDK's models. This builds a pydantic
    model with one field per argument (the required ones required) that
    forbids any other, and :func:`~strict_models.strict_validate` walks the
    SDK's nested models, which keep unknown fields, refusing them there too.
    """
    import inspect
    import typing

    from cohere import ClientV2
    from pydantic import ConfigDict, create_model

    hints = typing.get_type_hints(ClientV2.chat)
    fields: dict[str, Any] = {}
    for name, parameter in inspect.signature(ClientV2.chat).parameters.items():
        if name in ("self", "request_options"):
            continue
        required = parameter.default is inspect.Parameter.empty
        fields[name] = (hints[name], ... if required else None)
    return create_model("StrictV2ChatRequest", __config__=ConfigDict(extra="forbid"), **fields)


def cohere_rules(messages: list[dict[str, Any]], tool_choice: object = None) -> None:
    """Raise ``AssertionError`` for a v2 chat request Cohere refuses.

    What the API says in its 400s, and what its types leave open (they
    take any value for ``tool_choice``): an assistant message with calls
    has no text content (``text content is not allowed when tool_calls are
    provided``, its text goes as ``tool_plan``); an assistant message says
    something, text or calls; every ``tool`` message answers a call of the
    assistant turn before it, once, and every call is answered before the
    next user message; call ids are unique; ``tool_choice`` is ``REQUIRED``
    or ``NONE``; an image's ``detail`` is ``auto``, ``low`` or ``high``.
    """
    assert tool_choice in (None, "REQUIRED", "NONE"), f"tool_choice {tool_choice!r}"
    seen_ids: set[str] = set()
    open_calls: set[str] = set()
    answered: set[str] = set()
    for number, message in enumerate(messages):
        role = message["role"]
        if role == "assistant":
            content = message.get("content") or []
            texts = [c for c in content if isinstance(c, dict) and c.get("type") == "text"]
            calls = message.get("tool_calls") or []
            if calls:
                assert not texts, f"message {number}: text content is not allowed beside tool_calls"
            else:
                said = (isinstance(content, str) and content) or any(c["text"] for c in texts)
                assert said, f"message {number}: an assistant message without text or calls"
            for call in calls:
                assert call["id"] not in seen_ids, f"duplicate tool call id {call['id']}"
                seen_ids.add(call["id"])
            if calls:
                open_calls = {call["id"] for call in calls}
                answered = set()
        elif role == "tool":
            call_id = message["tool_call_id"]
            assert call_id in open_calls and call_id not in answered, f"unmatched {call_id}"
            answered.add(call_id)
        elif role == "user":
            assert answered == open_calls, f"message {number}: calls without results"
            open_calls, answered = set(), set()
            content = message["content"]
            for part in content if isinstance(content, list) else ():
                if part.get("type") == "image_url":
                    assert part["image_url"].get("detail", "auto") in ("auto", "low", "high")


def validate_cohere(body: dict[str, Any], tools: dict[str, Any] | None = None) -> None:
    """The request as the strict copy of the SDK's request types, and Cohere's rules."""
    assert list(body) == ["messages"]
    full = {"model": "command-a-03-2025", **body, **(tools or {})}
    strict_validate(cohere_request_model(), full)
    json.dumps(full)
    cohere_rules(body["messages"], full.get("tool_choice"))
