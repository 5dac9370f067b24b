"""A transcript another dialect produced goes to Mistral and Cohere, with what is lost named.

Each other dialect's seed reply (the recorded-style replies the fuzz test
starts from: thinking with signatures, server tools, citations, items,
calls with and without ids) is read by its own dialect, its calls
answered, and the conversation sent through ``mistral`` and ``cohere``.
The request must validate as every request of theirs does, and
``left_out`` must name each piece the request does not carry, and no other:
another protocol's items, and the thinking each dialect cannot send.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from test_dialects_fuzz import SEEDS

import convtypes as ct
from convtypes.dialects import LeftOut, cohere, mistral

from provider_rules import validate_cohere, validate_mistral

OTHERS = ["anthropic", "openai_chat", "openai_responses", "gemini", "ollama"]
TARGETS: dict[str, tuple[ModuleType, Any]] = {
    "mistral": (mistral, validate_mistral),
    "cohere": (cohere, validate_cohere),
}


def _transcript(name: str) -> list[ct.Message]:
    module, response, _, _, _ = SEEDS[name]
    reply = module.read_reply(response)
    answers = [ct.ToolResultMessage(tool_use_id=c.id, content="ok") for c in reply.tool_calls]
    return [
        ct.SystemMessage(content="s"),
        ct.UserMessage(content="q"),
        *reply.messages,
        *answers,
        ct.UserMessage(content="next"),
    ]


def _expected(target: str, transcript: list[ct.Message]) -> list[tuple[int, str]]:
    """What the target cannot send, found from the transcript alone."""
    found: list[tuple[int, str]] = []
    for index, message in enumerate(transcript):
        if isinstance(message, ct.ProviderOutputItemsMessage):
            found.append((index, "items"))
        elif isinstance(message, ct.AssistantMessage):
            for block in message.thinking:
                if block.redacted_data is not None:
                    found.append((index, "redacted-thinking"))
                elif target == "cohere" and (block.text or block.signature):
                    found.append((index, "thinking"))  # Cohere sends only its own
                elif block.signature:
                    found.append((index, "signature"))  # Mistral sends the text alone
    return found


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("name", OTHERS)
def test_another_dialects_transcript_goes_through_with_its_losses_named(
    name: str, target: str
) -> None:
    module, validate = TARGETS[target]
    transcript = _transcript(name)
    body = module.to_request(transcript)
    validate(body)
    lost: list[LeftOut] = module.left_out(transcript)
    assert [(lo.index, lo.what) for lo in lost] == _expected(target, transcript)
    # A signature or redacted thinking named as left out is nowhere in the request.
    sent = str(body)
    for lo in lost:
        message = transcript[lo.index]
        if lo.what == "redacted-thinking":
            assert isinstance(message, ct.AssistantMessage)
            assert all(b.redacted_data not in sent for b in message.thinking if b.redacted_data)
        if lo.what == "signature":
            assert isinstance(message, ct.AssistantMessage)
            assert all(b.signature not in sent for b in message.thinking if b.signature)
    # Every call of the reply went out, with a result that answers it.
    calls = [c["id"] for m in body["messages"] for c in m.get("tool_calls") or ()]
    results = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    assert sorted(calls) == sorted(results)
    replied = sum(len(m.tool_calls) for m in transcript if isinstance(m, ct.AssistantMessage))
    assert len(calls) == replied
