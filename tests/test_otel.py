"""convtypes.otel: conversations as the OpenTelemetry GenAI conventions record them.

What is exported is held to the pinned schemas strictly (a part of a named
type by that type's own schema, never through ``GenericPart``; see
``otel_schema``), and to what the schemas cannot say: each call answered
once, after it; the order kept; no system message among the inputs; one
finish reason per output message. Transcripts and replies come from all
eight dialects, built the way ``test_switch_providers`` builds them, and for
each every string the transcript holds is found in the export, unless
``left_out`` names its place.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from otel_schema import NAMED, git_blob, loose, problems, raw, strict
from test_switch_providers import PROVIDERS, Provider, transcripts, with_ids_of

import convtypes as ct
from convtypes import otel
from convtypes import strategies as cst
from convtypes.dialects import LEFT_OUT_KINDS, LeftOut, Reply
from convtypes.otel._items import PROTOCOLS, UNREAD

from budget import examples

INPUT = strict("input-messages")
OUTPUT = strict("output-messages")
SYSTEM = strict("system-instructions")

# --- the schemas, and the strict check --------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "blob"),
    [
        ("input-messages", "8e2a4082915904499cfb632ecb55bde508beacbd"),
        ("output-messages", "6a202ff5d718dc27b454afc7828b2127614ae057"),
        ("system-instructions", "46b4690fb08498e9a1db9c8f5990f623a8b575ab"),
    ],
)
def test_the_schemas_are_the_pinned_ones(name: str, blob: str) -> None:
    assert git_blob(raw(name)) == blob


@pytest.mark.parametrize("name", ["input-messages", "output-messages"])
def test_the_strict_validator_refuses_what_the_loose_one_lets_through(name: str) -> None:
    no_content = [{"role": "user", "parts": [{"type": "text"}]}]
    assert problems(loose(name), no_content) == []
    assert problems(strict(name), no_content) != []
    # A peer's own spelling of reasoning passes as a generic part, and not here.
    own_type = [{"role": "assistant", "parts": [{"type": "thinking", "content": "hm"}]}]
    assert problems(loose(name), own_type) == []
    assert problems(strict(name), own_type) != []
    call_without_name = [{"role": "assistant", "parts": [{"type": "tool_call", "id": "c"}]}]
    assert problems(loose(name), call_without_name) == []
    assert problems(strict(name), call_without_name) != []
    # What the strict one takes: named parts whole, and provider-namespaced others.
    fine = [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": "hi"}, {"type": "anthropic.fallback"}],
        }
    ]
    assert problems(strict(name), fine) == []


# --- the structure the schemas cannot express ------------------------------------------------


def _types(messages: list[dict[str, Any]]) -> set[str]:
    return {part["type"] for message in messages for part in message["parts"]}


def check_structure(transcript: list[Any], exported: list[dict[str, Any]]) -> None:
    """Each call answered once, after it; order kept; no system message among the inputs."""
    assert all(message["role"] != "system" for message in exported)
    # A call without an id has the id its result answers by position, so an id may
    # come again in a later turn: each call is answered once before its id is reused.
    waiting: dict[str, bool] = {}
    for message in exported:
        for part in message["parts"]:
            if part["type"] == "tool_call":
                assert not waiting.get(part["id"]), part
                waiting[part["id"]] = True
            elif part["type"] == "tool_call_response":
                assert waiting.get(part["id"]), part  # after its call, and only once
                waiting[part["id"]] = False
    unanswered = {name for name, waits in waiting.items() if waits}
    assert unanswered == {call.id or "" for call in ct.open_calls(transcript)} - {""}
    # Order: the exported messages follow the transcript's, one for one, an items
    # message and the assistant message read from it making one.
    expected: list[str] = []
    for index, message in enumerate(transcript):
        if isinstance(message, ct.SystemMessage):
            continue
        if isinstance(message, ct.ProviderOutputItemsMessage):
            after = transcript[index + 1] if index + 1 < len(transcript) else None
            if isinstance(after, ct.AssistantMessage):
                continue
            if not any(isinstance(piece, dict) for piece in message.items):
                continue
        roles: dict[type, str] = {
            ct.UserMessage: "user",
            ct.UserMultimodalMessage: "user",
            ct.ToolResultMessage: "tool",
        }
        expected.append(roles.get(type(message), "assistant"))
    assert [message["role"] for message in exported] == expected


# --- every message and block type ------------------------------------------------------------

_EVERY = [
    ct.SystemMessage(content="Be brief."),
    ct.UserMessage(content="Hello"),
    ct.UserMultimodalMessage(
        content=(
            ct.TextBlock(text="Look:"),
            ct.ImageBase64Block(data="iVBORw0KGgo=", media_type="image/png"),
            ct.ImageUrlBlock(url="https://img.example/a.png", detail="high"),
            ct.ImageUrlBlock(url="data:image/jpeg;base64,/9j/4AAQ"),
            ct.VideoPathBlock(path="/tmp/my clip.mp4", fps=2.0, max_frames=16),
            ct.VideoUrlBlock(url="https://vid.example/v.mp4"),
            ct.VideoBase64Block(data="AAAAIGZ0eXA=", media_type="video/mp4"),
            ct.AudioPathBlock(path="sounds/a.wav", sample_rate=16000),
            ct.AudioUrlBlock(url="https://snd.example/a.mp3"),
            ct.AudioBase64Block(data="UklGRgAAAAA=", media_type="audio/wav"),
        )
    ),
    ct.AssistantMessage(
        content="Two calls.",
        tool_calls=(
            ct.ToolCall(id="call_w", name="weather", arguments={"city": "Oslo"}),
            ct.ToolCall(name="clock", arguments={}),
        ),
        thinking=(
            ct.ThinkingBlock(text="Weather first.", signature="c2lnbmVk"),
            ct.ThinkingBlock(redacted_data="ZW5jcnlwdGVk"),
            ct.ThinkingBlock(text="A summary."),
        ),
    ),
    ct.ToolResultMessage(tool_use_id="call_w", content="Rain", provenance=ct.Provenance.EXTERNAL),
    ct.ToolResultMessage(tool_use_id=ct.positional_call_id(1), content="12:00"),
]


def test_every_message_and_block_type_maps_to_its_named_part() -> None:
    assert otel.system_instructions(_EVERY) == [{"type": "text", "content": "Be brief."}]
    assert otel.input_messages(_EVERY) == [
        {"role": "user", "parts": [{"type": "text", "content": "Hello"}]},
        {
            "role": "user",
            "parts": [
                {"type": "text", "content": "Look:"},
                {
                    "type": "blob",
                    "modality": "image",
                    "mime_type": "image/png",
                    "content": "iVBORw0KGgo=",
                },
                {
                    "type": "uri",
                    "modality": "image",
                    "uri": "https://img.example/a.png",
                    "detail": "high",
                },
                {
                    "type": "blob",
                    "modality": "image",
                    "mime_type": "image/jpeg",
                    "content": "/9j/4AAQ",
                },
                {
                    "type": "uri",
                    "modality": "video",
                    "uri": "file:///tmp/my%20clip.mp4",
                    "fps": 2.0,
                    "max_frames": 16,
                },
                {"type": "uri", "modality": "video", "uri": "https://vid.example/v.mp4"},
                {
                    "type": "blob",
                    "modality": "video",
                    "mime_type": "video/mp4",
                    "content": "AAAAIGZ0eXA=",
                },
                {"type": "uri", "modality": "audio", "uri": "sounds/a.wav", "sample_rate": 16000},
                {"type": "uri", "modality": "audio", "uri": "https://snd.example/a.mp3"},
                {
                    "type": "blob",
                    "modality": "audio",
                    "mime_type": "audio/wav",
                    "content": "UklGRgAAAAA=",
                },
            ],
        },
        {
            "role": "assistant",
            "parts": [
                {"type": "reasoning", "content": "Weather first."},
                {"type": "reasoning", "content": "A summary."},
                {"type": "text", "content": "Two calls."},
                {
                    "type": "tool_call",
                    "id": "call_w",
                    "name": "weather",
                    "arguments": {"city": "Oslo"},
                },
                {
                    "type": "tool_call",
                    "id": ct.positional_call_id(1),
                    "name": "clock",
                    "arguments": {},
                },
            ],
        },
        {
            "role": "tool",
            "parts": [
                {
                    "type": "tool_call_response",
                    "id": "call_w",
                    "response": "Rain",
                    "provenance": "external",
                }
            ],
        },
        {
            "role": "tool",
            "parts": [
                {"type": "tool_call_response", "id": ct.positional_call_id(1), "response": "12:00"}
            ],
        },
    ]
    assert otel.left_out(_EVERY) == [
        LeftOut(3, "signature", "thinking block 0: " + _why(3, "signature")),
        LeftOut(3, "redacted-thinking", "thinking block 1: " + _why(3, "redacted-thinking")),
    ]
    exported = otel.input_messages(_EVERY)
    assert problems(INPUT, exported) == []
    assert problems(SYSTEM, otel.system_instructions(_EVERY)) == []
    check_structure(_EVERY, exported)
    # Nothing opaque in it.
    text = json.dumps(exported)
    assert "c2lnbmVk" not in text and "ZW5jcnlwdGVk" not in text


def test_inline_audio_and_video_by_data_url_are_blobs_as_images_are() -> None:
    # A base64 data: URL is inline media, whatever its modality: a blob, whose payload
    # truncation empties, never a uri that would carry the base64 as an address.
    transcript = [
        ct.UserMultimodalMessage(
            content=(
                ct.AudioUrlBlock(url="data:audio/wav;base64,UklGRgAAAAA=", sample_rate=8000),
                ct.VideoUrlBlock(url="data:video/mp4;base64,AAAAIGZ0eXA=", fps=1.0),
            )
        )
    ]
    assert otel.input_messages(transcript)[0]["parts"] == [
        {
            "type": "blob",
            "modality": "audio",
            "mime_type": "audio/wav",
            "content": "UklGRgAAAAA=",
            "sample_rate": 8000,
        },
        {
            "type": "blob",
            "modality": "video",
            "mime_type": "video/mp4",
            "content": "AAAAIGZ0eXA=",
            "fps": 1.0,
        },
    ]
    assert problems(INPUT, otel.input_messages(transcript)) == []


def test_a_local_path_is_a_uri_a_reader_takes_for_that_path() -> None:
    # A Windows path from a drive is absolute, a file: URI; a relative path with a
    # colon in it must not read as a URI of some scheme ("C:", "take:").
    transcript = [
        ct.UserMultimodalMessage(
            content=(
                ct.VideoPathBlock(path="C:\\clips\\my clip.mp4"),
                ct.AudioPathBlock(path="d:/takes/a.wav"),
                ct.AudioPathBlock(path="take:2.wav"),
                ct.AudioPathBlock(path="/srv/a:b.wav"),
            )
        )
    ]
    uris = [part["uri"] for part in otel.input_messages(transcript)[0]["parts"]]
    assert uris == [
        "file:///C:/clips/my%20clip.mp4",
        "file:///d:/takes/a.wav",
        "take%3A2.wav",
        "file:///srv/a:b.wav",
    ]


def test_a_result_of_a_provenance_this_version_does_not_know_is_external() -> None:
    message = ct.decode_lenient_message(
        b'{"role":"tool_result","tool_use_id":"call_9","content":"x","provenance":"partner"}'
    )
    assert otel.input_messages([message])[0]["parts"][0]["provenance"] == "external"


def _why(index: int, what: str) -> str:
    found = [
        piece for piece in otel.left_out(_EVERY) if piece.index == index and piece.what == what
    ]
    return found[0].why.split(": ", 1)[1]


def test_an_unsigned_thinking_block_leaves_nothing_out_and_a_hidden_one_exports_no_empty_part() -> (
    None
):
    transcript = [
        ct.UserMessage(content="Hi"),
        ct.AssistantMessage(thinking=(ct.ThinkingBlock(signature="c2ln"),), content="Hello"),
    ]
    assert otel.input_messages(transcript)[1]["parts"] == [{"type": "text", "content": "Hello"}]
    assert [piece.what for piece in otel.left_out(transcript)] == ["signature"]


# --- provider items ------------------------------------------------------------------------


def _reply(dialect: Any, response: dict[str, Any]) -> Reply:
    reply: Reply = dialect.read_reply(response)
    return reply


_ANTHROPIC_SEARCH = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-x",
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 10, "output_tokens": 5},
    "content": [
        {"type": "thinking", "thinking": "Search it.", "signature": "U0lHTkVE"},
        {"type": "redacted_thinking", "data": "UkVEQUNURUQ="},
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "tides"},
        },
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": [
                {
                    "type": "web_search_result",
                    "title": "Tides",
                    "url": "https://tides.example",
                    "encrypted_content": "RU5DUllQVEVE",
                }
            ],
        },
        {
            "type": "text",
            "text": "High tide at six.",
            "citations": [{"type": "web_search_result_location", "url": "https://tides.example"}],
        },
        {"type": "compaction", "content": "Earlier: tides.", "encrypted_content": "Q09NUEFDVA=="},
        {"type": "fallback", "from": {"model": "a"}, "to": {"model": "b"}},
    ],
}


def test_anthropic_server_tools_and_compaction_map_to_their_parts() -> None:
    from convtypes.dialects import anthropic

    reply = _reply(anthropic, _ANTHROPIC_SEARCH)
    assert [type(m) for m in reply.messages] == [ct.ProviderOutputItemsMessage, ct.AssistantMessage]
    assert otel.output_messages(reply) == [
        {
            "role": "assistant",
            "parts": [
                {"type": "reasoning", "content": "Search it."},
                {
                    "type": "server_tool_call",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "server_tool_call": {"type": "web_search", "input": {"query": "tides"}},
                },
                {
                    "type": "server_tool_call_response",
                    "id": "srvtoolu_1",
                    "server_tool_call_response": {
                        "type": "web_search_tool_result",
                        "content": [
                            {
                                "type": "web_search_result",
                                "title": "Tides",
                                "url": "https://tides.example",
                            }
                        ],
                    },
                },
                {"type": "compaction", "content": "Earlier: tides."},
                {"type": "text", "content": "High tide at six."},
            ],
        }
    ]
    assert otel.finish_reasons(reply) == ["stop"]
    assert [
        (piece.index, piece.what, piece.why.split(": ")[0]) for piece in otel.left_out(reply)
    ] == [
        (0, "signature", "item 0 at /signature"),
        (0, "redacted-thinking", "item 1"),
        (0, "items", "item 3 at /content/0/encrypted_content"),
        (0, "annotations", "item 4 at /citations"),
        (0, "items", "item 5 at /encrypted_content"),
        (0, "items", "item 6"),
        (1, "signature", "thinking block 0"),
        (1, "redacted-thinking", "thinking block 1"),
    ]
    text = json.dumps(otel.output_messages(reply))
    for secret in ("U0lHTkVE", "UkVEQUNURUQ=", "RU5DUllQVEVE", "Q09NUEFDVA=="):
        assert secret not in text
    assert problems(OUTPUT, otel.output_messages(reply)) == []


def test_responses_server_tools_map_to_their_parts() -> None:
    from convtypes.dialects import openai_responses

    response = {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "model": "gpt-x",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "RU5D"},
            {
                "type": "web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {"type": "search", "query": "lighthouses"},
            },
            {
                "type": "file_search_call",
                "id": "fs_1",
                "status": "completed",
                "queries": ["heights"],
                "results": [{"file_id": "file-1", "text": "27 m"}],
            },
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "27 m.", "annotations": []}],
            },
        ],
        "usage": {"input_tokens": 3, "output_tokens": 4},
    }
    reply = _reply(openai_responses, response)
    parts = otel.output_messages(reply)[0]["parts"]
    assert parts == [
        {
            "type": "server_tool_call",
            "id": "ws_1",
            "name": "web_search",
            "server_tool_call": {
                "type": "web_search",
                "action": {"type": "search", "query": "lighthouses"},
            },
        },
        {
            "type": "server_tool_call",
            "id": "fs_1",
            "name": "file_search",
            "server_tool_call": {"type": "file_search", "queries": ["heights"]},
        },
        {
            "type": "server_tool_call_response",
            "id": "fs_1",
            "server_tool_call_response": {
                "type": "file_search",
                "results": [{"file_id": "file-1", "text": "27 m"}],
            },
        },
        {"type": "text", "content": "27 m."},
    ]
    assert [piece.what for piece in otel.left_out(reply)] == ["redacted-thinking"]


def test_gemini_code_execution_and_signatures() -> None:
    from convtypes.dialects import gemini

    response = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Plan.", "thought": True},
                        {"executable_code": {"language": "PYTHON", "code": "print(6 * 7)"}},
                        {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "42\n"}},
                        {"text": "42.", "thought_signature": "c2ln"},
                        {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}},
                    ],
                },
                "finish_reason": "STOP",
            }
        ]
    }
    reply = _reply(gemini, response)
    parts = otel.output_messages(reply)[0]["parts"]
    assert [part["type"] for part in parts] == [
        "reasoning",
        "server_tool_call",
        "server_tool_call_response",
        "blob",
        "text",
    ]
    assert parts[1]["server_tool_call"] == {
        "type": "code_execution",
        "language": "PYTHON",
        "code": "print(6 * 7)",
    }
    assert parts[3] == {
        "type": "blob",
        "modality": "image",
        "content": "iVBORw0KGgo=",
        "mime_type": "image/png",
    }
    assert [(piece.what, piece.why.split(": ")[0]) for piece in otel.left_out(reply)] == [
        ("signature", "item 3 at /thought_signature")
    ]


def test_items_without_their_message_export_everything_they_hold() -> None:
    items = ct.ProviderOutputItemsMessage(
        protocol="anthropic",
        items=[
            {"type": "text", "text": "Hi"},
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}},
        ],
    )
    transcript = [
        ct.UserMessage(content="Go"),
        items,
        ct.ToolResultMessage(tool_use_id="toolu_1", content="ok"),
    ]
    exported = otel.input_messages(transcript)
    assert exported[1] == {
        "role": "assistant",
        "parts": [
            {"type": "text", "content": "Hi"},
            {"type": "tool_call", "id": "toolu_1", "name": "f", "arguments": {"a": 1}},
        ],
    }
    check_structure(transcript, exported)


def test_more_server_tools_compaction_and_odd_items() -> None:
    responses = ct.ProviderOutputItemsMessage(
        protocol="openai-responses",
        items=[
            {
                "type": "code_interpreter_call",
                "id": "ci_1",
                "code": "print(1)",
                "container_id": "cntr_1",
                "outputs": [{"type": "logs", "logs": "1"}],
            },
            {
                "type": "mcp_call",
                "id": "mcp_1",
                "server_label": "docs",
                "name": "find",
                "arguments": "{}",
                "output": "found",
            },
            {
                "type": "image_generation_call",
                "id": "ig_1",
                "status": "completed",
                "result": "iVBORw0KGgo=",
                "output_format": "png",
            },
            {"type": "compaction", "id": "cmp_1", "encrypted_content": "RU5D"},
            {"type": "mcp_list_tools", "id": "ml_1", "server_label": "docs", "tools": []},
            "not an item",
        ],
    )
    anthropic_items = ct.ProviderOutputItemsMessage(
        protocol="anthropic",
        items=[{"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}, 7],
    )
    transcript = [ct.UserMessage(content="Go"), responses, anthropic_items]
    exported = otel.input_messages(transcript)
    assert problems(INPUT, exported) == []
    assert [part["type"] for part in exported[1]["parts"]] == [
        "server_tool_call",
        "server_tool_call_response",
        "server_tool_call",
        "server_tool_call_response",
        "server_tool_call",
        "blob",
        "compaction",
    ]
    assert exported[1]["parts"][2]["name"] == "find"
    assert exported[1]["parts"][5] == {
        "type": "blob",
        "modality": "image",
        "mime_type": "image/png",
        "content": "iVBORw0KGgo=",
    }
    assert exported[1]["parts"][6] == {"type": "compaction", "id": "cmp_1"}
    assert exported[2] == {"role": "assistant", "parts": [{"type": "text", "content": "Hi"}]}
    assert [
        (piece.index, piece.what, piece.why.split(": ")[0]) for piece in otel.left_out(transcript)
    ] == [
        (1, "items", "item 3 at /encrypted_content"),
        (1, "items", "item 4"),
        (1, "items", "item 5"),
        (2, "cache-control", "item 0 at /cache_control"),
        (2, "items", "item 1"),
    ]
    assert "RU5D" not in json.dumps(exported)


def test_items_of_an_unknown_protocol_are_left_out_whole() -> None:
    transcript = [
        ct.UserMessage(content="Go"),
        ct.ProviderOutputItemsMessage(protocol="acme-v9", items=[{"secret": "x"}]),
    ]
    assert otel.input_messages(transcript) == [
        {"role": "user", "parts": [{"type": "text", "content": "Go"}]}
    ]
    assert [(piece.index, piece.what) for piece in otel.left_out(transcript)] == [(1, "items")]


def _fixed_replies() -> list[
    tuple[str, Callable[[], Reply], list[str], list[tuple[int, str, str]]]
]:
    """Recorded shapes of each provider's replies (its own tests' fixtures): the part
    types each exports to, and what left_out names, (index, what, place)."""
    import test_cohere_turn as cohere_turn
    import test_mistral_turn as mistral_turn
    from test_ollama import REPLIES as OLLAMA
    from test_ollama import response as ollama_response
    from test_openai_chat_turn import completion

    from convtypes.dialects import anthropic, bedrock, cohere, mistral, ollama, openai_chat

    import bedrock_replies

    kept = mistral_turn.KEPT_CONTENT
    return [
        (
            "anthropic",
            lambda: anthropic.read_reply(_ANTHROPIC_SEARCH),
            ["reasoning", "server_tool_call", "server_tool_call_response", "compaction", "text"],
            [
                (0, "signature", "item 0 at /signature"),
                (0, "redacted-thinking", "item 1"),
                (0, "items", "item 3 at /content/0/encrypted_content"),
                (0, "annotations", "item 4 at /citations"),
                (0, "items", "item 5 at /encrypted_content"),
                (0, "items", "item 6"),
                (1, "signature", "thinking block 0"),
                (1, "redacted-thinking", "thinking block 1"),
            ],
        ),
        (
            "openai_chat, annotations",
            lambda: openai_chat.read_reply(
                completion(
                    {
                        "role": "assistant",
                        "content": "See [1].",
                        "annotations": [{"type": "url_citation", "url_citation": {"url": "u"}}],
                    }
                )
            ),
            ["text"],
            [(0, "annotations", "item 0 at /annotations")],
        ),
        (
            "openai_chat, audio",
            lambda: openai_chat.read_reply(
                completion(
                    {
                        "role": "assistant",
                        "content": None,
                        "audio": {"id": "a1", "data": "UklG", "expires_at": 9, "transcript": "Hi!"},
                    }
                )
            ),
            ["blob", "text"],
            [],
        ),
        (
            "ollama, images",
            lambda: ollama.read_reply(ollama_response(OLLAMA["images"])),
            ["blob", "text"],
            [],
        ),
        (
            "ollama, a field of its own",
            lambda: ollama.read_reply(ollama_response(OLLAMA["unknown-field"])),
            ["text"],
            [(0, "items", "item 0 at /mood")],
        ),
        (
            "bedrock, code interpreter",
            lambda: bedrock.read_reply(bedrock_replies.code_interpreter()),
            ["server_tool_call", "server_tool_call_response", "tool_call"],
            [],
        ),
        (
            "bedrock, citations",
            lambda: bedrock.read_reply(bedrock_replies.cited_reply()),
            ["text"],
            [(0, "annotations", "item 1 at /citationsContent/citations")],
        ),
        (
            "bedrock, signed reasoning",
            lambda: bedrock.read_reply(bedrock_replies.thinking_then_call()),
            ["reasoning", "text", "tool_call"],
            [(0, "signature", "thinking block 0")],
        ),
        (
            "bedrock, redacted reasoning",
            lambda: bedrock.read_reply(bedrock_replies.redacted_then_text()),
            ["text"],
            [(0, "redacted-thinking", "thinking block 0")],
        ),
        (
            "mistral, signed thinking",
            lambda: mistral.read_reply(
                mistral_turn.completion({"role": "assistant", "content": kept[1][0]})
            ),
            ["reasoning", "text"],
            [(0, "signature", "item 0 at /content/0/signature")],
        ),
        (
            "mistral, a reference",
            lambda: mistral.read_reply(
                mistral_turn.completion({"role": "assistant", "content": kept[4][0]})
            ),
            ["text"],
            [(0, "annotations", "item 0 at /content/1")],
        ),
        (
            "cohere, citations",
            lambda: cohere.read_reply(cohere_turn.reply(cohere_turn.CITED)),
            ["text"],
            [(0, "annotations", "item 0 at /citations")],
        ),
        (
            "cohere, thinking",
            lambda: cohere.read_reply(cohere_turn.reply(cohere_turn.REASONED)),
            ["reasoning", "text"],
            [],
        ),
    ]


@pytest.mark.parametrize(
    ("name", "read", "types", "named"), _fixed_replies(), ids=[c[0] for c in _fixed_replies()]
)
def test_what_each_provider_s_replies_export_and_leave_out(
    name: str, read: Callable[[], Reply], types: list[str], named: list[tuple[int, str, str]]
) -> None:
    reply = read()
    exported = otel.output_messages(reply)
    assert problems(OUTPUT, exported) == []
    assert [part["type"] for message in exported for part in message["parts"]] == types
    left = otel.left_out(reply)
    assert [(piece.index, piece.what, piece.why.split(": ")[0]) for piece in left] == named
    assert unexported(reply.messages, exported, left) == []
    assert leaked(reply.messages, exported) == []


# --- generated transcripts and replies of all eight dialects ----------------------------------

# What left_out names in each provider's replies, as docs/otel.md lists it.
LEFT_OUT_BY_PROVIDER: dict[str, set[str]] = {
    "anthropic": {
        "signature",
        "redacted-thinking",
        "annotations",
        "call",
        "items",
        "cache-control",
    },
    "openai_chat": {"annotations", "call", "items"},
    "openai_responses": {"redacted-thinking", "annotations", "call", "items"},
    "gemini": {"signature", "items"},
    "ollama": {"call", "items"},
    "bedrock": {"signature", "redacted-thinking", "annotations", "call", "items", "cache-control"},
    "mistral": {"signature", "annotations", "call", "items"},
    "cohere": {"annotations", "call", "items"},
}

_BOOKKEEPING = frozenset({"type", "id", "status", "role"})


def _pointer(path: tuple[str | int, ...]) -> str:
    from urllib.parse import quote

    return "/" + "/".join(
        quote(str(step).replace("~", "~0").replace("/", "~1"), safe="~") for step in path
    )


def _strings(
    value: Any, path: tuple[str | int, ...], keys: bool
) -> list[tuple[tuple[str | int, ...], str]]:
    """The strings in a JSON value with their paths; object keys too when ``keys``."""
    if isinstance(value, str):
        return [(path, value)]
    found: list[tuple[tuple[str | int, ...], str]] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if keys:
                found.append((path, key))
            found += _strings(inner, (*path, key), keys)
    elif isinstance(value, list):
        for at, inner in enumerate(value):
            found += _strings(inner, (*path, at), keys)
    return found


def _item_strings(position: int, item: Any) -> list[tuple[str, str]]:
    """(place, string) for each string of an item that is content: not its bookkeeping;
    arguments sent as JSON text searched as the values they spell."""
    found: list[tuple[str, str]] = []
    for path, text in _strings(item, (), False):
        if path and path[-1] in _BOOKKEEPING:
            continue
        place = f"item {position}" + (f" at {_pointer(path)}" if path else "")
        if path and path[-1] == "arguments":
            try:
                spelled = json.loads(text)
            except ValueError:
                found.append((place, text))
                continue
            found += [(place, inner) for _, inner in _strings(spelled, (), True)]
            continue
        found.append((place, text))
    return found


def held_strings(transcript: list[Any]) -> list[tuple[int, str, str]]:
    """(index, place, string): each string a transcript holds, at its place as ``why`` names it."""
    found: list[tuple[int, str, str]] = []
    for index, message in enumerate(transcript):
        if isinstance(message, (ct.SystemMessage, ct.UserMessage)):
            found.append((index, "", message.content))
        elif isinstance(message, ct.UserMultimodalMessage):
            for at, block in enumerate(message.content):
                for name in ("text", "data", "url", "path", "media_type"):
                    value = getattr(block, name, None)
                    if isinstance(value, str):
                        if name == "url" and value.startswith("data:"):
                            value = value.partition(",")[2]
                        found.append((index, f"block {at}", value))
        elif isinstance(message, ct.AssistantMessage):
            found.append((index, "", message.content))
            for at, thought in enumerate(message.thinking):
                found.append((index, f"thinking block {at}", thought.text))
                for secret in (thought.signature, thought.redacted_data):
                    if secret:
                        found.append((index, f"thinking block {at}", secret))
            for call in message.tool_calls:
                found += [(index, "", call.name), (index, "", call.id or "")]
                found += [(index, "", text) for _, text in _strings(call.arguments, (), True)]
        elif isinstance(message, ct.ToolResultMessage):
            found += [(index, "", message.tool_use_id), (index, "", message.content)]
        elif isinstance(message, ct.ProviderOutputItemsMessage):
            for position, item in enumerate(message.items):
                found += [(index, place, text) for place, text in _item_strings(position, item)]
    return found


# Keys whose values are opaque to a reader: a thinking block's (as the wire names
# them), and those of any provider's items.
_OPAQUE_KEYS = frozenset(
    {
        "signature",
        "redacted_data",
        "thought_signature",
        "encrypted_content",
        "encrypted_index",
        "encrypted_stdout",
        "redactedContent",
    }
)


def _split(value: Any, secrets: list[str], plain: list[str], inside: bool = False) -> None:
    """The strings of a JSON value: under an opaque key to ``secrets``, else to ``plain``."""
    if isinstance(value, str):
        (secrets if inside else plain).append(value)
    elif isinstance(value, dict):
        redacted = value.get("type") == "redacted_thinking"
        for key, inner in value.items():
            plain.append(key)
            hidden = inside or key in _OPAQUE_KEYS or (redacted and key == "data")
            _split(inner, secrets, plain, hidden)
    elif isinstance(value, list):
        for inner in value:
            _split(inner, secrets, plain, inside)


def leaked(transcript: list[Any], exported: list[Any]) -> list[str]:
    """Each opaque string of the transcript (a signature, redacted or encrypted state)
    found in the export. A short one, or one the transcript also holds as content,
    proves nothing by being found, and is not looked for."""
    secrets: list[str] = []
    plain: list[str] = []
    _split(json.loads(ct.encode(transcript)), secrets, plain)
    pool = [text for _, text in _strings(exported, (), True)]
    return [
        f"{secret!r:.80}"
        for secret in set(secrets)
        if len(secret) >= 8
        and not any(secret in text for text in plain)
        and any(secret in text for text in pool)
    ]


def _named(piece: LeftOut, index: int, place: str) -> bool:
    """Whether ``piece`` names the place (or a place holding it) of message ``index``.

    A ``why`` that starts with no place names the whole message, as the
    dialects' ``left_out`` has it.
    """
    if piece.index != index:
        return False
    named = piece.why.split(": ", 1)[0]
    if not named.startswith(("item ", "thinking block ", "block ")):
        return True
    return bool(place) and (
        place == named or place.startswith(named + "/") or place.startswith(named + " at /")
    )


def unexported(transcript: list[Any], exported: list[Any], left: list[LeftOut]) -> list[str]:
    """Each string of the transcript found neither in the export nor under a left-out place."""
    pool = [text for _, text in _strings(exported, (), True)]
    pool += [unquote(text) for text in pool if "%" in text]  # a local path, as a URI
    pool += [text[8:].replace("/", "\\") for text in pool if text.startswith("file:///")]
    missing: list[str] = []
    for index, place, text in held_strings(transcript):
        if not text or any(_named(piece, index, place) for piece in left):
            continue
        if not any(text in candidate for candidate in pool):
            missing.append(f"message {index}, {place or 'its content'}: {text!r:.80}")
    return missing


@pytest.mark.parametrize("source", PROVIDERS, ids=repr)
@settings(max_examples=examples(100, 15))
@given(st.data())
def test_a_transcript_of_each_provider_exports_strictly_and_loses_only_what_left_out_names(
    source: Provider, data: st.DataObject
) -> None:
    transcript, _ = data.draw(transcripts(source))
    exported = otel.input_messages(transcript)
    system = otel.system_instructions(transcript)
    assert problems(INPUT, exported) == []
    assert problems(SYSTEM, system) == []
    assert _types(exported) <= set(NAMED)  # never a GenericPart
    check_structure(transcript, exported)
    left = otel.left_out(transcript)
    assert [piece.index for piece in left] == sorted(piece.index for piece in left)
    assert {piece.what for piece in left} <= LEFT_OUT_BY_PROVIDER[repr(source)]
    assert all(piece.what in LEFT_OUT_KINDS for piece in left)
    # The provider's own shapes are read: none is left to the audit's catch-all.
    assert [piece for piece in left if piece.why.endswith(UNREAD)] == []
    assert unexported(transcript, [*system, *exported], left) == []
    # Nothing opaque: no signature or encrypted state is copied into the export.
    assert leaked(transcript, exported) == []


@pytest.mark.parametrize("source", PROVIDERS, ids=repr)
@settings(max_examples=examples(100, 15))
@given(st.data())
def test_a_reply_of_each_provider_exports_strictly_with_a_finish_reason_per_message(
    source: Provider, data: st.DataObject
) -> None:
    reply = source.read(with_ids_of(data.draw(source.replies), 1))
    exported = otel.output_messages(reply)
    assert problems(OUTPUT, exported) == []
    assert _types(exported) <= set(NAMED)
    assert all(message["role"] == "assistant" for message in exported)
    reasons = otel.finish_reasons(reply)
    assert len(reasons) == len(exported) >= 1
    assert all(isinstance(reason, str) and reason for reason in reasons)
    left = otel.left_out(reply)
    assert {piece.what for piece in left} <= LEFT_OUT_BY_PROVIDER[repr(source)]
    assert [piece for piece in left if piece.why.endswith(UNREAD)] == []
    assert unexported(reply.messages, exported, left) == []
    assert leaked(reply.messages, exported) == []


# Items of every protocol in any JSON shape, some shaped like the providers' blocks.
_ODD_ITEMS = st.builds(
    lambda protocol, items: ct.ProviderOutputItemsMessage(protocol=protocol, items=items),
    st.sampled_from(sorted(PROTOCOLS)),
    st.lists(
        cst.json_values()
        | st.fixed_dictionaries(
            {"type": st.sampled_from(["text", "thinking", "tool_use", "compaction", "message"])},
            optional={
                key: cst.json_values()
                for key in ("text", "content", "id", "name", "input", "thinking", "signature")
            },
        ),
        max_size=4,
    ),
)


@settings(max_examples=examples(300, 40))
@given(st.lists(_ODD_ITEMS | cst.messages(), max_size=6))
def test_any_transcript_exports_strictly_and_loses_only_what_left_out_names(
    transcript: list[ct.Message],
) -> None:
    exported = otel.input_messages(transcript)
    assert problems(INPUT, exported) == []
    assert _types(exported) <= set(NAMED)
    assert all(message["role"] != "system" for message in exported)
    left = otel.left_out(transcript)
    assert all(piece.what in LEFT_OUT_KINDS for piece in left)
    assert unexported(transcript, [*otel.system_instructions(transcript), *exported], left) == []
    assert leaked(transcript, exported) == []


@pytest.mark.parametrize(
    ("stop", "provider", "expected"),
    [
        ("end_turn", None, "stop"),
        ("stop_sequence", None, "stop"),
        ("tool_use", None, "tool_call"),
        ("max_tokens", None, "length"),
        ("content_filter", None, "content_filter"),
        ("refusal", "refusal", "content_filter"),
        ("pause_turn", "pause_turn", "pause_turn"),
        ("other", "MALFORMED_FUNCTION_CALL", "MALFORMED_FUNCTION_CALL"),
        ("other", None, "other"),
    ],
)
def test_finish_reasons(stop: Any, provider: str | None, expected: str) -> None:
    reply = Reply(
        messages=[ct.AssistantMessage(content="a"), ct.AssistantMessage(content="b")],
        stop_reason=stop,
        provider_stop_reason=provider,
    )
    assert otel.finish_reasons(reply) == [expected, expected]


def test_an_empty_reply_is_one_message_without_parts() -> None:
    reply = Reply(messages=[], stop_reason="content_filter", provider_stop_reason="SAFETY")
    assert otel.output_messages(reply) == [{"role": "assistant", "parts": []}]
    assert otel.finish_reasons(reply) == ["content_filter"]


# --- truncation -------------------------------------------------------------------------------


def _size(value: Any) -> int:
    return len(msgspec.json.encode(value))


def test_truncate_cuts_the_longest_content_and_marks_it() -> None:
    transcript = [
        ct.SystemMessage(content="s" * 50),
        ct.UserMessage(content="short"),
        ct.UserMessage(content="x" * 5000),
        ct.UserMultimodalMessage(
            content=(ct.ImageBase64Block(data="A" * 4000, media_type="image/png"),)
        ),
    ]
    whole = otel.input_messages(transcript)
    cut = otel.input_messages(transcript, truncate=1000)
    assert _size(whole) > 1000 >= _size(cut)
    assert problems(INPUT, cut) == []
    assert cut[0] == whole[0]  # the short text survives whole
    assert cut[1]["parts"][0]["content"] == "x" * len(cut[1]["parts"][0]["content"])
    assert cut[1]["parts"][0]["truncated"] == {"/content": 5000}
    assert cut[2]["parts"][0]["content"] == ""  # base64 cut is no image: emptied
    assert cut[2]["parts"][0]["truncated"] == {"/content": 4000}
    assert cut[2]["parts"][0]["mime_type"] == "image/png"
    assert otel.input_messages(transcript, truncate=_size(whole)) == whole
    system = otel.system_instructions(transcript, truncate=70)
    assert _size(system) <= 70 and system[0]["truncated"] == {"/content": 50}


def test_truncate_cuts_a_call_s_argument_named_type_like_any_other() -> None:
    # "type" names a part (or a provider's block); in a call's arguments it is the
    # caller's value, and left whole it held the export far over its budget.
    transcript = [
        ct.AssistantMessage(
            tool_calls=(
                ct.ToolCall(id="c", name="f", arguments={"type": "y" * 3000, "q": "x" * 3000}),
            )
        ),
        ct.ToolResultMessage(tool_use_id="c", content="ok"),
    ]
    cut = otel.input_messages(transcript, truncate=500)
    assert _size(cut) <= 500
    assert problems(INPUT, cut) == []
    part = cut[0]["parts"][0]
    assert part["truncated"] == {"/arguments/type": 3000, "/arguments/q": 3000}
    assert part["type"] == "tool_call" and part["name"] == "f" and part["id"] == "c"
    assert cut[1] == otel.input_messages(transcript)[1]


def test_a_cut_export_set_as_docs_otel_md_says_fits_a_tracer_s_attribute_limit() -> None:
    # The budget is counted on compact JSON with non-ASCII kept, the form the docs
    # page sets on a span; the SDK's limit counts characters and cuts past it, which
    # json.dumps's defaults (spaces, ü as an escape of 6) would reach, leaving no JSON.
    from opentelemetry.sdk.trace import SpanLimits, TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    budget = 300
    exporter = InMemorySpanExporter()
    provider = TracerProvider(span_limits=SpanLimits(max_attribute_length=budget))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    transcript = [ct.UserMessage(content="Grüße aus Köln, 東京 😀 " * 40)]
    cut = otel.input_messages(transcript, truncate=budget)
    with provider.get_tracer("test").start_as_current_span("chat") as span:
        span.set_attribute(
            "gen_ai.input.messages", json.dumps(cut, separators=(",", ":"), ensure_ascii=False)
        )
        span.set_attribute("as.json.dumps.writes.it", json.dumps(cut))
    recorded = exporter.get_finished_spans()[0].attributes
    assert recorded is not None
    assert json.loads(str(recorded["gen_ai.input.messages"])) == cut
    with pytest.raises(json.JSONDecodeError):
        json.loads(str(recorded["as.json.dumps.writes.it"]))


def test_truncate_keeps_an_image_s_detail_which_is_a_setting_not_content() -> None:
    transcript = [
        ct.UserMultimodalMessage(
            content=(
                ct.ImageUrlBlock(url="https://img.example/a.png", detail="high"),
                ct.TextBlock(text="x" * 500),
            )
        )
    ]
    for budget in (0, 150):
        part = otel.input_messages(transcript, truncate=budget)[0]["parts"][0]
        assert part["detail"] == "high"
        assert "/detail" not in part.get("truncated", {})


@settings(max_examples=examples(100, 30))
@given(
    texts=st.lists(st.text(max_size=300), min_size=1, max_size=6),
    budget=st.integers(0, 3000),
)
def test_truncate_keeps_valid_json_within_the_budget_when_it_can(
    texts: list[str], budget: int
) -> None:
    transcript: list[ct.Message] = [ct.UserMessage(content=text) for text in texts]
    transcript.append(
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="c", name="f", arguments={"q": texts[0]}),))
    )
    transcript.append(ct.ToolResultMessage(tool_use_id="c", content=texts[-1] * 3))
    cut = otel.input_messages(transcript, truncate=budget)
    assert problems(INPUT, cut) == []
    check_structure(transcript, cut)
    floor = otel.input_messages(transcript, truncate=0)  # every string emptied
    assert _size(cut) <= max(budget, _size(floor))
    whole = otel.input_messages(transcript)
    for before, after in zip(whole, cut, strict=True):
        for part_before, part_after in zip(before["parts"], after["parts"], strict=True):
            marks = part_after.pop("truncated", {})
            if not marks:
                assert part_after == part_before
            for pointer, length in marks.items():
                key = pointer.split("/")[1]
                assert key in part_before and length > 0


# --- bad input ----------------------------------------------------------------------------------

_HOLOGRAM = ct.UnknownBlock(type="hologram", raw=b'{"type":"hologram"}')


@pytest.mark.parametrize(
    ("call", "path"),
    [
        (
            lambda: otel.input_messages(
                [ct.UnknownMessage(role="critic", raw=b'{"role":"critic"}')]
            ),
            "$[0].role",
        ),
        (
            lambda: otel.left_out(
                [
                    ct.UserMessage(content="a"),
                    ct.UnknownMessage(role="critic", raw=b'{"role":"critic"}'),
                ]
            ),
            "$[1].role",
        ),
        (
            lambda: otel.input_messages(
                [ct.UserMultimodalMessage(content=(ct.TextBlock(text="a"), _HOLOGRAM))]
            ),
            "$[0].content[1].type",
        ),
    ],
)
def test_what_this_version_does_not_know_raises_wire_error_naming_it(call: Any, path: str) -> None:
    with pytest.raises(ct.WireError) as raised:
        call()
    assert raised.value.path == path


class _SdkMessage:
    """A message as a provider SDK's object holds it: a role, content, and no convtypes type."""

    role = "assistant"
    content = "hi"


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: otel.input_messages("hello"), TypeError, "not a str"),
        (lambda: otel.input_messages({"role": "user"}), TypeError, "not a dict"),
        (
            lambda: otel.input_messages([ct.UserMessage(content="a"), 3]),
            TypeError,
            "item 1 is a int",
        ),
        (lambda: otel.left_out([{"role": "user", "content": "a"}]), TypeError, "item 0 is a dict"),
        # A provider SDK's message has a role, and is still no message of convtypes.
        (lambda: otel.input_messages([_SdkMessage()]), TypeError, "item 0 is a _SdkMessage"),
        (
            lambda: otel.system_instructions([_SdkMessage()]),
            TypeError,
            "item 0 is a _SdkMessage",
        ),
        # A Reply holding one is refused when it is built (tests/test_reply_checks.py).
        (lambda: otel.left_out(None), TypeError, "not a NoneType"),  # type: ignore[arg-type]
        (
            lambda: otel.system_instructions([ct.SystemMessage(content="a"), "b"]),
            TypeError,
            "item 1 is a str",
        ),
        (lambda: otel.system_instructions(3), TypeError, "not a int"),  # type: ignore[arg-type]
        (lambda: otel.input_messages([], truncate=-1), ValueError, "from 0 bytes, got -1"),
        (lambda: otel.input_messages([], truncate=True), TypeError, "got bool"),
        (lambda: otel.input_messages([], truncate=1.5), TypeError, "got float"),  # type: ignore[arg-type]
        (lambda: otel.output_messages([]), TypeError, "takes a Reply, not a list"),  # type: ignore[arg-type]
        (lambda: otel.finish_reasons(None), TypeError, "takes a Reply, not a NoneType"),  # type: ignore[arg-type]
    ],
)
def test_a_wrong_argument_raises_type_or_value_error_naming_it(
    call: Any, error: type[Exception], words: str
) -> None:
    with pytest.raises(error) as raised:
        call()
    assert not isinstance(raised.value, ct.WireError)
    assert words in str(raised.value)


# --- the layer ----------------------------------------------------------------------------------


def test_import_convtypes_does_not_import_otel_and_otel_imports_no_opentelemetry() -> None:
    code = (
        "import sys, convtypes; assert 'convtypes.otel' not in sys.modules;"
        "import convtypes.otel;"
        "assert not [m for m in sys.modules if m.startswith('opentelemetry')]"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
