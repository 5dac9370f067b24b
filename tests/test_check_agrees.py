"""``check_conversation`` and every dialect's ``to_request`` agree on pairing.

What the check passes (no problem of severity ``"error"``), every dialect
sends, with no item or call id twice in the request; and whatever a dialect
refuses for pairing (a call without its result, a result without its call)
the check flags at the same message, a reply's items and its assistant
message counting as one place. Transcripts are made the way a sync layer
makes them: replies read with each provider's ``read_reply`` (so the items
are the ones a backend stores), then stored twice, cut between their items
and their assistant message, or left without results.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import convtypes as ct
from convtypes.dialects import (
    DialectError,
    UnansweredCall,
    UnmatchedResult,
    anthropic,
    bedrock,
    chat_template,
    cohere,
    gemini,
    mistral,
    ollama,
    openai_chat,
    openai_responses,
)

DIALECTS: dict[str, ModuleType] = {
    "anthropic": anthropic,
    "bedrock": bedrock,
    "cohere": cohere,
    "gemini": gemini,
    "mistral": mistral,
    "ollama": ollama,
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
}

# --- each provider's raw replies, written here -------------------------------------


def _responses(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_7",
        "object": "response",
        "created_at": 1760000000,
        "model": "gpt-test",
        "status": "completed",
        "output": output,
    }


def _chat(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "cmpl-7",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }


def _chat_call(call_id: str, name: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": '{"q": 1}'}}


RAW: dict[str, list[dict[str, Any]]] = {
    "openai_responses": [
        _responses(
            [
                {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "e1"},
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_r1",
                    "name": "lookup",
                    "arguments": '{"q": 1}',
                    "status": "completed",
                },
            ]
        ),
        _responses(
            [
                {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "e2"},
                {
                    "type": "message",
                    "id": "msg_2",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "done", "annotations": []}],
                },
            ]
        ),
    ],
    "openai_responses_custom": [
        _responses(
            [
                {
                    "type": "custom_tool_call",
                    "id": "ctc_1",
                    "call_id": "call_r2",
                    "name": "grep",
                    "input": "a.b",
                    "status": "completed",
                }
            ]
        )
    ],
    "anthropic": [
        {
            "id": "msg_a1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [
                {"type": "thinking", "thinking": "look it up", "signature": "sig_a1"},
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "toolu_a1", "name": "lookup", "input": {"q": 1}},
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    ],
    "gemini": [
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"text": "plan", "thought": True, "thoughtSignature": "c2lnMQ=="},
                            {"functionCall": {"id": "g_1", "name": "lookup", "args": {"q": 1}}},
                        ],
                    },
                    "finishReason": "STOP",
                }
            ]
        },
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"functionCall": {"name": "lookup", "args": {"q": 2}}},
                            {"functionCall": {"name": "fetch", "args": {}}},
                        ],
                    },
                    "finishReason": "STOP",
                }
            ]
        },
    ],
    "openai_chat": [
        _chat(
            {"role": "assistant", "content": None, "tool_calls": [_chat_call("call_c1", "lookup")]},
            "tool_calls",
        ),
        # A custom tool's call: free text in, which the program must answer too.
        _chat(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_c2", "type": "custom", "custom": {"name": "grep", "input": "a.b"}}
                ],
            },
            "tool_calls",
        ),
    ],
    "mistral": [
        _chat(
            {"role": "assistant", "content": "", "tool_calls": [_chat_call("a1b2c3d4e", "lookup")]},
            "tool_calls",
        )
    ],
    "cohere": [
        {
            "id": "co-1",
            "message": {
                "role": "assistant",
                "tool_plan": "I will look",
                "tool_calls": [_chat_call("lookup_1", "lookup")],
            },
            "finish_reason": "TOOL_CALL",
            "usage": {"tokens": {"input_tokens": 1, "output_tokens": 1}},
        }
    ],
    "ollama": [
        {
            "model": "llama",
            "created_at": "2025-01-01T00:00:00Z",
            "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": "lookup", "arguments": {"q": 1}}}],
            },
            "done": True,
            "done_reason": "stop",
        }
    ],
    "bedrock": [
        {
            "output": {
                "message": {
                    "role": "assistant",
                    "content": [
                        {"reasoningContent": {"reasoningText": {"text": "hm", "signature": "s"}}},
                        {"toolUse": {"toolUseId": "tu_1", "name": "lookup", "input": {"q": 1}}},
                    ],
                }
            },
            "stopReason": "tool_use",
            "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
        }
    ],
}


def _replies() -> list[tuple[str, ct.dialects.Reply]]:
    out = []
    for name, raws in RAW.items():
        for raw in raws:
            dialect = DIALECTS[name.removesuffix("_custom")]
            out.append((name, dialect.read_reply(raw)))
    return out


REPLIES = _replies()
USER = ct.UserMessage(content="go on")


def results(reply: ct.dialects.Reply, text: str = "42") -> list[ct.Message]:
    return [ct.ToolResultMessage(tool_use_id=call.id, content=text) for call in reply.tool_calls]


def with_items(reply: ct.dialects.Reply) -> bool:
    return isinstance(reply.messages[0], ct.ProviderOutputItemsMessage)


# --- the agreement -----------------------------------------------------------------

Build = Callable[[list[Any]], Any]

BUILDERS: dict[str, Build] = {
    **{name: dialect.to_request for name, dialect in DIALECTS.items()},
    "chat_template": chat_template.to_messages,
}


def _same_place(transcript: list[Any], a: int, b: int) -> bool:
    """Whether message ``a`` and ``b`` are one place: equal, or a reply's items and message."""
    low, high = sorted((a, b))
    if low == high:
        return True
    return (
        high == low + 1
        and isinstance(transcript[low], ct.ProviderOutputItemsMessage)
        and isinstance(transcript[high], ct.AssistantMessage)
    )


def _ids(value: Any, found: list[str]) -> None:
    """Every item id and call id a request holds (results, which repeat a call's, aside)."""
    if isinstance(value, list):
        for item in value:
            _ids(item, found)
        return
    if not isinstance(value, dict):
        return
    kind = value.get("type")
    if kind in ("function_call_output", "tool_result"):
        return
    if kind in ("reasoning", "message", "function_call", "tool_use") and isinstance(
        value.get("id"), str
    ):
        found.append(f"id:{value['id']}")
    if kind == "function_call" and isinstance(value.get("call_id"), str):
        found.append(f"call:{value['call_id']}")
    use = value.get("toolUse")
    if isinstance(use, dict) and isinstance(use.get("toolUseId"), str):
        found.append(f"call:{use['toolUseId']}")
    for call in value.get("tool_calls") or ():
        if isinstance(call, dict) and isinstance(call.get("id"), str):
            found.append(f"call:{call['id']}")
    for key, inner in value.items():
        if key not in ("tool_calls", "toolUse"):
            _ids(inner, found)


def check_agrees(transcript: list[Any]) -> list[ct.Problem]:
    """Assert the agreement for ``transcript``; return its problems."""
    problems = ct.check_conversation(transcript)
    errors = [problem for problem in problems if problem.severity == "error"]
    for name, build in BUILDERS.items():
        try:
            request = build(transcript)
        except (UnansweredCall, UnmatchedResult) as err:
            assert err.index is not None
            where = [p.index for p in errors if _same_place(transcript, p.index, err.index)]
            assert where, f"{name} refused at {err.index} ({err}); the check said {problems}"
            continue
        found: list[str] = []
        _ids(request, found)
        if not errors:
            assert len(found) == len(set(found)), f"{name} sends an id twice: {found}"
    if not errors:
        for name, dialect in DIALECTS.items():
            notes = dialect.left_out(transcript)
            copies = [note.index for note in notes if note.what == "duplicate"]
            warned = [p.index for p in problems if p.code.startswith("duplicate-")]
            assert copies == warned, name
    return problems


@st.composite
def transcripts(draw: st.DrawFn) -> list[Any]:
    """A conversation of replies, then stored as a sync layer may store it."""
    out: list[Any] = [USER]
    for _ in range(draw(st.integers(1, 4))):
        _, reply = draw(st.sampled_from(REPLIES))
        shape = draw(
            st.sampled_from(
                ["whole", "twice", "twice with results", "items only", "message only", "open"]
            )
        )
        if shape in ("items only", "message only") and not with_items(reply):
            shape = "twice"
        if shape == "whole":
            out += [*reply.messages, *results(reply)]
        elif shape == "twice":
            out += [*reply.messages, *reply.messages, *results(reply)]
        elif shape == "twice with results":
            part = [*reply.messages, *results(reply)]
            out += part + part
        elif shape == "items only":  # a crash kept the items, lost the assistant message
            out.append(reply.messages[0])
            if draw(st.booleans()):
                out += results(reply)
        elif shape == "message only":  # a regenerate replaced only the assistant message
            out += [reply.messages[0], ct.AssistantMessage(content="again"), *results(reply)]
        else:  # no results: the calls are left open
            out += reply.messages
        if draw(st.booleans()):
            out.append(USER)
    return out


@settings(max_examples=150)
@given(transcripts())
def test_what_the_check_passes_every_dialect_sends(transcript: list[Any]) -> None:
    check_agrees(transcript)


@pytest.mark.parametrize(("name", "reply"), REPLIES, ids=[name for name, _ in REPLIES])
def test_each_reply_stored_well_passes_everywhere(name: str, reply: ct.dialects.Reply) -> None:
    transcript = [USER, *reply.messages, *results(reply), USER]
    assert check_agrees(transcript) == []


# --- the cases, one by one ---------------------------------------------------------

RESPONSES = REPLIES[0][1]
CALL_ID = "call_r1"


def codes(problems: list[ct.Problem]) -> list[tuple[int, str, str]]:
    return [(p.index, p.code, p.severity) for p in problems]


def test_a_reply_stored_twice_goes_once_and_left_out_says_so() -> None:
    items, message = RESPONSES.messages
    transcript = [USER, items, message, items, message, *results(RESPONSES), USER]
    assert codes(check_agrees(transcript)) == [
        (3, "duplicate-reply", "warning"),
        (4, "duplicate-reply", "warning"),
    ]
    body = openai_responses.to_request(transcript)
    assert [item.get("id") for item in body["input"]] == [None, "rs_1", "fc_1", None, None]
    assert openai_responses.to_request(transcript) == openai_responses.to_request(
        [USER, items, message, *results(RESPONSES), USER]
    )
    for dialect in DIALECTS.values():
        notes = [note for note in dialect.left_out(transcript) if note.what == "duplicate"]
        assert [(note.index, note.what) for note in notes] == [(3, "duplicate"), (4, "duplicate")]
        assert notes[0].why == "a copy of a reply stored earlier; it goes once"


def test_a_reply_and_its_results_stored_twice_go_once() -> None:
    part = [*RESPONSES.messages, *results(RESPONSES)]
    transcript = [USER, *part, *part]
    assert codes(check_agrees(transcript)) == [
        (4, "duplicate-reply", "warning"),
        (5, "duplicate-reply", "warning"),
        (6, "duplicate-result", "warning"),
    ]
    notes = anthropic.left_out(transcript)
    assert [(n.index, n.why) for n in notes if n.what == "duplicate"][2] == (
        6,
        "a copy of a tool result stored earlier; it goes once",
    )
    assert anthropic.to_request(transcript) == anthropic.to_request([USER, *part])


def test_a_copy_with_another_result_is_a_repeated_result() -> None:
    part = [*RESPONSES.messages]
    transcript = [
        USER,
        *part,
        *results(RESPONSES, "42"),
        *part,
        *results(RESPONSES, "43"),
    ]
    assert codes(check_agrees(transcript)) == [
        (4, "duplicate-reply", "warning"),
        (5, "duplicate-reply", "warning"),
        (6, "repeated-result", "error"),
    ]
    with pytest.raises(UnmatchedResult) as caught:
        anthropic.to_request(transcript)
    assert caught.value.index == 6


def test_equal_replies_without_ids_are_two_replies() -> None:
    said = ct.AssistantMessage(content="OK.")
    transcript: list[Any] = [USER, said, USER, said]
    assert check_agrees(transcript) == []
    assert len(openai_chat.to_request(transcript)["messages"]) == 4


def test_calls_only_in_items_and_a_user_turn_are_unanswered() -> None:
    items = RESPONSES.messages[0]
    transcript = [USER, items, USER]
    assert codes(check_agrees(transcript)) == [(1, "unanswered-call", "error")]
    with pytest.raises(UnansweredCall) as caught:
        openai_responses.to_request(transcript)
    assert (caught.value.index, caught.value.call_id) == (1, CALL_ID)
    # Open at the end: the caller may be about to run it.
    assert check_agrees([USER, items]) == []


def test_a_result_of_a_call_only_items_hold_is_unknown_elsewhere() -> None:
    items = RESPONSES.messages[0]
    transcript = [USER, items, *results(RESPONSES)]
    assert codes(check_agrees(transcript)) == [(2, "unknown-call", "error")]
    assert openai_responses.to_request(transcript)["input"][-1]["call_id"] == CALL_ID
    with pytest.raises(UnmatchedResult) as caught:
        gemini.to_request(transcript)
    assert caught.value.index == 2


def test_a_regenerated_message_leaves_the_items_calls_unanswered() -> None:
    items = RESPONSES.messages[0]
    transcript = [USER, items, ct.AssistantMessage(content="again"), USER]
    assert codes(check_agrees(transcript)) == [(1, "unanswered-call", "error")]


def test_gemini_calls_only_in_items_are_checked_by_place() -> None:
    reply = REPLIES[[name for name, _ in REPLIES].index("gemini") + 1][1]
    items = reply.messages[0]
    transcript = [USER, items, ct.ToolResultMessage(tool_use_id="call_1", content="x"), USER]
    assert codes(check_agrees(transcript)) == [
        (1, "unanswered-call", "error"),
        (2, "unknown-call", "error"),
    ]


def test_two_calls_of_one_turn_with_one_id_leave_a_result_ambiguous() -> None:
    call = ct.ToolCall(name="lookup", arguments={})
    first = ct.AssistantMessage(content="a", tool_calls=(call,))
    second = ct.AssistantMessage(content="b", tool_calls=(call,))
    transcript = [USER, first, second, ct.ToolResultMessage(tool_use_id="call_0", content="x")]
    assert codes(check_agrees(transcript)) == [(3, "unknown-call", "error")]


def test_a_result_after_the_next_assistant_turn_answers_nothing() -> None:
    x, y, z = (ct.ToolCall(id=i, name="t", arguments={}) for i in ("x", "y", "z"))
    transcript: list[Any] = [
        USER,
        ct.AssistantMessage(content="", tool_calls=(x, y)),
        ct.ToolResultMessage(tool_use_id="x", content="1"),
        ct.AssistantMessage(content="", tool_calls=(z,)),
        ct.ToolResultMessage(tool_use_id="y", content="2"),
    ]
    assert codes(check_agrees(transcript)) == [(4, "unknown-call", "error")]
    with pytest.raises(DialectError):
        bedrock.to_request(transcript)


def test_tree_append_refuses_a_user_turn_over_calls_only_items_hold() -> None:
    from convtypes import sync

    tree = sync.Tree()
    first = tree.append([USER], after=None, device="a")
    lost = tree.append([RESPONSES.messages[0]], after=first.id, device="a")  # message lost
    with pytest.raises(sync.BranchError) as caught:
        tree.append([USER], after=lost.id, device="a")
    assert caught.value.code == "unanswered-call"
    answered = tree.append(
        [RESPONSES.messages[1], *results(RESPONSES), USER], after=lost.id, device="a"
    )
    assert ct.check_conversation(tree.transcript(answered.id)) == []


@pytest.mark.parametrize("name", ["openai_chat", "openai_responses_custom"])
def test_custom_calls_only_in_items_are_unanswered(name: str) -> None:
    # A custom tool's call kept only in the items is sent, and wants its result.
    reply = next(
        reply
        for kind, reply in REPLIES
        if kind == name and any(call.name == "grep" for call in reply.tool_calls)
    )
    transcript = [USER, reply.messages[0], USER]
    assert codes(check_agrees(transcript)) == [(1, "unanswered-call", "error")]
    dialect = DIALECTS[name.removesuffix("_custom")]
    with pytest.raises(UnansweredCall) as caught:
        dialect.to_request(transcript)
    assert caught.value.index == 1
