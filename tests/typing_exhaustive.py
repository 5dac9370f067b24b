"""A consumer's match over every message role; mypy proves it exhaustive.

This file is type-checked with the rest of the tests, and test_typing.py
checks that dropping one case makes mypy reject it.
"""

from __future__ import annotations

from typing_extensions import assert_never

from convtypes import (
    AssistantMessage,
    LenientMessage,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
    ToolResultMessage,
    UnknownMessage,
    UserMessage,
    UserMultimodalMessage,
    decode_messages,
)


def describe(message: Message) -> str:
    match message:
        case SystemMessage(content=text):
            return f"system: {text}"
        case UserMessage(content=text):
            return f"user: {text}"
        case UserMultimodalMessage(content=blocks):
            return f"user: {len(blocks)} blocks"
        case AssistantMessage(content=text, tool_calls=calls):
            return f"assistant: {text} ({len(calls)} calls)"
        case ToolResultMessage(tool_use_id=call_id, provenance=provenance):
            return f"result for {call_id} ({provenance.value})"
        case ProviderOutputItemsMessage(protocol=protocol):
            return f"items for {protocol}"
        case _:
            assert_never(message)


def describe_lenient(message: LenientMessage) -> str:
    match message:
        case UnknownMessage(role=role):
            return f"unknown role {role}: kept, never shown to a model"
        case _:
            return describe(message)


def describe_stored(data: bytes) -> list[str]:
    # Lenient reads are typed as what they can return: a match over them
    # must handle UnknownMessage too.
    return [describe_lenient(message) for message in decode_messages(data, lenient=True)]
