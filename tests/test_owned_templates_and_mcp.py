"""chat_template.to_messages and convtypes.mcp hand out values of their own.

A chat template's messages, and the ToolSpec an MCP tool becomes, are the
caller's to change: a change must not reach the transcript, nor the MCP
tool definition they were read from.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import convtypes as ct
from convtypes import mcp
from convtypes import strategies as cst
from convtypes.dialects.chat_template import to_messages

from budget import examples
from ownership import assert_owned

NESTED = {"filter": {"tags": ["a", {"deep": [1, 2]}]}, "limit": 10**30}


def test_chat_messages_share_nothing_with_the_transcript() -> None:
    transcript: list[ct.Message] = [
        ct.UserMessage(content="Find it."),
        ct.AssistantMessage(
            tool_calls=(
                ct.ToolCall(id="a", name="search", arguments=NESTED),
                ct.ToolCall(name="flat", arguments={"q": "x"}),
            ),
        ),
        ct.ToolResultMessage(tool_use_id="a", content="r"),
        ct.ToolResultMessage(tool_use_id="call_1", content="r"),
        ct.ProviderOutputItemsMessage(protocol="gemini", items=[{"text": "x", "n": [1]}]),
        ct.AssistantMessage(content="Done."),
    ]
    for ids in ("default", "alnum9"):
        messages = assert_owned(lambda: to_messages(transcript, ids=ids), transcript)  # noqa: B023
        assert messages[1]["tool_calls"][0]["function"]["arguments"] == NESTED


@settings(max_examples=examples(100, 20))
@given(cst.conversations(), st.sampled_from(["default", "alnum9"]))
def test_any_chat_messages_share_nothing_with_their_transcript(
    transcript: list[ct.Message], ids: Any
) -> None:
    assert_owned(lambda: to_messages(transcript, unsupported="note", ids=ids), transcript)


def test_a_tool_spec_shares_nothing_with_the_mcp_tool() -> None:
    tool: dict[str, Any] = {
        "name": "search",
        "description": "Search.",
        "inputSchema": {
            "type": "object",
            "properties": {"tags": {"type": "array", "items": {"type": "string"}, "default": []}},
            "required": ["tags"],
        },
    }
    spec = assert_owned(lambda: mcp.tool_spec(tool).parameters, tool)
    assert spec == tool["inputSchema"]


def test_result_messages_share_nothing_with_the_mcp_result() -> None:
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": "found"}],
        "structuredContent": {"hits": [{"id": 1, "tags": ["a"]}]},
    }
    messages = assert_owned(lambda: mcp.from_results({"c1": result}), result)
    assert isinstance(messages[0], ct.ToolResultMessage)
