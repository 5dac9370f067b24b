"""A system message in the middle of a transcript keeps its place, or its move is reported.

The transcript: a system prompt, a user turn, the assistant's answer, then
a second system message ("From now on answer in French.") and the next
user turn. Anthropic's ``MessageParam`` has a ``SystemMessageParam`` and
Converse's ``ConversationRole`` has ``system``: the instruction goes into
their message lists where it was given. OpenAI Chat, Responses, Cohere and
Ollama take a system message anywhere, and always had it in place. Gemini
takes system text only in ``system_instruction`` and Mistral refuses a
system message after an assistant or tool message: both move it to the
top, and ``left_out`` says so (``"position"``). Chat templates get it in
place from ``to_messages``; what a template does with it is the template's.
"""

from __future__ import annotations

from typing import Any

import pytest
from anthropic_rules import marker_faults, pairing_faults
from hypothesis import given
from hypothesis import strategies as st
from test_anthropic_turn import validate as validate_anthropic_sdk
from test_dialects_requests import (
    validate_anthropic,
    validate_bedrock,
    validate_gemini,
    validate_openai_chat,
    validate_openai_responses,
)
from test_ollama import validate as validate_ollama

import convtypes as ct
from convtypes.dialects import (
    LeftOut,
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

from bedrock_replies import SIGNATURE, reply_of
from provider_rules import validate_cohere, validate_mistral

PROMPT = "You are terse."
FRENCH = "From now on answer in French."

TRANSCRIPT: list[ct.Message] = [
    ct.SystemMessage(content=PROMPT),
    ct.UserMessage(content="Hi."),
    ct.AssistantMessage(content="Hello."),
    ct.SystemMessage(content=FRENCH),
    ct.UserMessage(content="Weather in Oslo?"),
]


# --- in place: the APIs that take a system role among the messages --------------------


def test_anthropic_sends_it_as_a_system_message_in_its_place() -> None:
    body = anthropic.to_request(TRANSCRIPT)
    assert body == {
        "system": PROMPT,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Hi."}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]},
            {"role": "system", "content": [{"type": "text", "text": FRENCH}]},
            {"role": "user", "content": [{"type": "text", "text": "Weather in Oslo?"}]},
        ],
    }
    validate_anthropic(body)
    validate_anthropic_sdk(body)
    validate_anthropic_sdk(body, beta=True)
    assert anthropic.left_out(TRANSCRIPT) == []


def test_anthropic_keeps_the_leading_system_messages_as_the_system_prompt() -> None:
    # Before the first turn, system messages join into ``system`` as they always
    # did, and a user message that sends nothing opens no turn.
    transcript: list[ct.Message] = [
        ct.SystemMessage(content="a"),
        ct.UserMessage(content=" "),
        ct.SystemMessage(content="b"),
        ct.UserMessage(content="q"),
    ]
    body = anthropic.to_request(transcript)
    assert body == {
        "system": "a\n\nb",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}],
    }
    assert anthropic.left_out(transcript) == [
        LeftOut(1, "text", "the API refuses text with nothing but white space in it")
    ]


def test_anthropic_joins_adjacent_system_messages_and_leaves_out_blank_ones() -> None:
    transcript: list[ct.Message] = [
        *TRANSCRIPT[:3],
        ct.SystemMessage(content="One."),
        ct.SystemMessage(content=" \n"),
        ct.SystemMessage(content=""),
        ct.SystemMessage(content="Two."),
        ct.UserMessage(content="Go."),
    ]
    body = anthropic.to_request(transcript)
    assert body["messages"][2:] == [
        {
            "role": "system",
            "content": [{"type": "text", "text": "One."}, {"type": "text", "text": "Two."}],
        },
        {"role": "user", "content": [{"type": "text", "text": "Go."}]},
    ]
    validate_anthropic(body)
    assert pairing_faults(body) == []
    # The blank one is named; the empty one leaves nothing out, as for any message.
    assert anthropic.left_out(transcript) == [
        LeftOut(4, "text", "the API refuses text with nothing but white space in it")
    ]
    # All blank: no system message at all.
    blank = [*TRANSCRIPT[:3], ct.SystemMessage(content="  "), TRANSCRIPT[4]]
    assert [turn["role"] for turn in anthropic.to_request(blank)["messages"]] == [
        "user",
        "assistant",
        "user",
    ]


def test_anthropic_caches_around_it() -> None:
    # The system prompt takes its marker as before; the markers go on the last
    # two user turns, never on the system message between them.
    body = anthropic.to_request(TRANSCRIPT, cache="1h")
    marker = {"type": "ephemeral", "ttl": "1h"}
    assert body["system"] == [{"type": "text", "text": PROMPT, "cache_control": marker}]
    assert body["messages"][2] == {"role": "system", "content": [{"type": "text", "text": FRENCH}]}
    assert body["messages"][0]["content"][-1]["cache_control"] == marker
    assert body["messages"][3]["content"][-1]["cache_control"] == marker
    assert marker_faults(body, "1h") == []
    validate_anthropic(body)


def test_anthropic_read_back_then_a_system_message() -> None:
    # A reply read from the API (kept items: signed thinking and text), then
    # the new instruction: it follows the replayed turn.
    response = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [
            {"type": "thinking", "thinking": "A greeting.", "signature": "c2lnbmVk"},
            {"type": "text", "text": "Hello."},
        ],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    read = anthropic.read_reply(response)
    transcript = [*TRANSCRIPT[:2], *read.messages, *TRANSCRIPT[3:]]
    body = anthropic.to_request(transcript)
    assert [turn["role"] for turn in body["messages"]] == ["user", "assistant", "system", "user"]
    assert body["messages"][1]["content"] == response["content"]
    assert body["messages"][2] == {"role": "system", "content": [{"type": "text", "text": FRENCH}]}
    validate_anthropic_sdk(body)
    assert anthropic.left_out(transcript) == []


def test_bedrock_sends_it_as_a_system_message_in_its_place() -> None:
    body = bedrock.to_request(TRANSCRIPT)
    assert body == {
        "system": [{"text": PROMPT}],
        "messages": [
            {"role": "user", "content": [{"text": "Hi."}]},
            {"role": "assistant", "content": [{"text": "Hello."}]},
            {"role": "system", "content": [{"text": FRENCH}]},
            {"role": "user", "content": [{"text": "Weather in Oslo?"}]},
        ],
    }
    validate_bedrock(body)  # botocore's model: ConversationRole has "system"
    assert bedrock.left_out(TRANSCRIPT) == []


def test_bedrock_leading_adjacent_blank_and_cached() -> None:
    transcript: list[ct.Message] = [
        ct.SystemMessage(content="a"),
        ct.SystemMessage(content="b"),
        *TRANSCRIPT[1:3],
        ct.SystemMessage(content="One."),
        ct.SystemMessage(content=" "),
        ct.SystemMessage(content="Two."),
        ct.UserMessage(content="Go."),
    ]
    body = bedrock.to_request(transcript, cache=True)
    assert body["system"] == [{"text": "a"}, {"text": "b"}, {"cachePoint": {"type": "default"}}]
    assert body["messages"][2:] == [
        {"role": "system", "content": [{"text": "One."}, {"text": "Two."}]},
        {"role": "user", "content": [{"text": "Go."}, {"cachePoint": {"type": "default"}}]},
    ]
    validate_bedrock(body)
    assert bedrock.left_out(transcript) == [
        LeftOut(5, "text", "a blank system prompt, which the API refuses")
    ]


def test_bedrock_read_back_then_a_system_message() -> None:
    reasoning = {"reasoningText": {"text": "A greeting.", "signature": SIGNATURE}}
    read = bedrock.read_reply(reply_of([{"reasoningContent": reasoning}, {"text": "Hello."}]))
    transcript = [*TRANSCRIPT[:2], *read.messages, *TRANSCRIPT[3:]]
    body = bedrock.to_request(transcript)
    assert body["messages"][1:] == [
        {"role": "assistant", "content": [{"reasoningContent": reasoning}, {"text": "Hello."}]},
        {"role": "system", "content": [{"text": FRENCH}]},
        {"role": "user", "content": [{"text": "Weather in Oslo?"}]},
    ]
    validate_bedrock(body)
    assert bedrock.left_out(transcript) == []


def test_bedrock_drops_a_turn_of_reasoning_alone_before_it() -> None:
    # A turn that would hold nothing but reasoning is closed (and dropped) by
    # the system message as by a user message, and reported.
    thinking = ct.ThinkingBlock(text="Hm.", signature="c2ln")
    transcript = [*TRANSCRIPT[:2], ct.AssistantMessage(thinking=(thinking,)), *TRANSCRIPT[3:]]
    body = bedrock.to_request(transcript)
    assert [turn["role"] for turn in body["messages"]] == ["user", "system", "user"]
    validate_bedrock(body)
    assert [(note.index, note.what) for note in bedrock.left_out(transcript)] == [(2, "thinking")]


CHAT_MESSAGES = [
    {"role": "system", "content": PROMPT},
    {"role": "user", "content": "Hi."},
    {"role": "assistant", "content": "Hello."},
    {"role": "system", "content": FRENCH},
    {"role": "user", "content": "Weather in Oslo?"},
]


def test_openai_chat_has_it_in_place() -> None:
    body = openai_chat.to_request(TRANSCRIPT)
    assert body == {"messages": CHAT_MESSAGES}
    validate_openai_chat(body)
    assert openai_chat.left_out(TRANSCRIPT) == []


def test_openai_responses_has_it_in_place() -> None:
    body = openai_responses.to_request(TRANSCRIPT)
    assert body == {"input": CHAT_MESSAGES}
    validate_openai_responses(body)
    assert openai_responses.left_out(TRANSCRIPT) == []


def test_ollama_has_it_in_place() -> None:
    body = ollama.to_request(TRANSCRIPT)
    assert body == {"messages": CHAT_MESSAGES}
    validate_ollama(body)
    assert ollama.left_out(TRANSCRIPT) == []


def test_cohere_has_it_in_place() -> None:
    body = cohere.to_request(TRANSCRIPT)
    assert body == {
        "messages": [
            {"role": "system", "content": PROMPT},
            {"role": "user", "content": "Hi."},
            {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]},
            {"role": "system", "content": FRENCH},
            {"role": "user", "content": "Weather in Oslo?"},
        ]
    }
    validate_cohere(body)
    assert cohere.left_out(TRANSCRIPT) == []


def test_chat_templates_get_it_in_place() -> None:
    assert chat_template.to_messages(TRANSCRIPT) == CHAT_MESSAGES
    # A template that renders every message where it stands shows it there.
    template = "{% for m in messages %}<{{ m.role }}>{{ m.content }}\n{% endfor %}"
    prompt = chat_template.render(TRANSCRIPT, template, add_generation_prompt=False)
    assert prompt.splitlines() == [
        f"<system>{PROMPT}",
        "<user>Hi.",
        "<assistant>Hello.",
        f"<system>{FRENCH}",
        "<user>Weather in Oslo?",
    ]


# --- moved, and reported: the APIs that take system text only at the top ---------------


def test_gemini_moves_it_to_the_system_instruction_and_says_so() -> None:
    body = gemini.to_request(TRANSCRIPT)
    assert body == {
        "contents": [
            {"role": "user", "parts": [{"text": "Hi."}]},
            {"role": "model", "parts": [{"text": "Hello."}]},
            {"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
        ],
        "system_instruction": {"parts": [{"text": f"{PROMPT}\n\n{FRENCH}"}]},
    }
    validate_gemini(body)
    assert gemini.left_out(TRANSCRIPT) == [
        LeftOut(
            3,
            "position",
            "a system message after the first turn goes to system_instruction, ahead of the "
            "turns it followed: Gemini takes system text nowhere else",
        )
    ]
    # Before the first turn, it is where it belongs: nothing to report.
    assert gemini.left_out([TRANSCRIPT[0], TRANSCRIPT[3], *TRANSCRIPT[1:3]]) == []


def test_mistral_moves_it_first_and_says_so() -> None:
    body = mistral.to_request(TRANSCRIPT)
    assert body == {
        "messages": [
            {"role": "system", "content": f"{PROMPT}\n\n{FRENCH}"},
            {"role": "user", "content": "Hi."},
            {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "Weather in Oslo?"},
        ]
    }
    validate_mistral(body)
    assert mistral.left_out(TRANSCRIPT) == [
        LeftOut(
            3,
            "position",
            "a system message after the first turn goes first, joined into one: Mistral "
            "refuses a system message after an assistant or tool message",
        )
    ]
    assert mistral.left_out([TRANSCRIPT[0], TRANSCRIPT[3], *TRANSCRIPT[1:3]]) == []


# --- every dialect, any place ----------------------------------------------------------

_TURNS: list[ct.Message] = [
    ct.UserMessage(content="u1"),
    ct.AssistantMessage(content="a1"),
    ct.UserMessage(content="u2"),
    ct.AssistantMessage(content="a2"),
    ct.UserMessage(content="u3"),
]


def _system_texts(dialect: Any, body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The system texts a request sends: at the top, and in place among the messages."""
    placed = [
        block["text"]
        for message in body["messages"]
        if message["role"] == "system"
        for block in message["content"]
    ]
    top = body.get("system")
    if top is None:
        return [], placed
    if isinstance(top, str):  # Anthropic's, joined
        return [top], placed
    return [block["text"] for block in top], placed


@given(st.lists(st.integers(0, len(_TURNS)), max_size=4))
def test_each_system_message_goes_in_place_or_its_move_is_reported(places: list[int]) -> None:
    transcript: list[ct.Message] = list(_TURNS)
    for n, at in enumerate(sorted(places, reverse=True)):
        transcript.insert(at, ct.SystemMessage(content=f"s{n}"))
    leading = next(i for i, m in enumerate(transcript) if not isinstance(m, ct.SystemMessage))
    early = [m.content for m in transcript[:leading] if isinstance(m, ct.SystemMessage)]
    late = [m.content for m in transcript[leading:] if isinstance(m, ct.SystemMessage)]
    late_at = [
        i for i, m in enumerate(transcript) if i > leading and isinstance(m, ct.SystemMessage)
    ]
    for dialect in (anthropic, bedrock):
        body = dialect.to_request(transcript)
        top, placed = _system_texts(dialect, body)
        assert top == (["\n\n".join(early)] if dialect is anthropic and early else early)
        assert placed == late
        assert dialect.left_out(transcript) == []
    validate_anthropic(anthropic.to_request(transcript))
    validate_bedrock(bedrock.to_request(transcript))
    roles = ["system" if isinstance(m, ct.SystemMessage) else "other" for m in transcript]
    requests = [
        openai_chat.to_request(transcript)["messages"],
        openai_responses.to_request(transcript)["input"],
        ollama.to_request(transcript)["messages"],
        cohere.to_request(transcript)["messages"],
        chat_template.to_messages(transcript),
    ]
    for sent in requests:
        assert ["system" if m["role"] == "system" else "other" for m in sent] == roles
        assert [m["content"] for m in sent if m["role"] == "system"] == early + late
    for chat in (openai_chat, openai_responses, ollama, cohere):
        assert chat.left_out(transcript) == []
    for moving in (gemini, mistral):
        notes = moving.left_out(transcript)
        assert [(note.index, note.what) for note in notes] == [(i, "position") for i in late_at]


@pytest.mark.parametrize("dialect", [anthropic, bedrock, gemini, mistral])
def test_left_out_names_the_move_only_where_there_is_one(dialect: Any) -> None:
    # Without any system message, or with one only at the top, nothing moves.
    assert dialect.left_out(TRANSCRIPT[1:3] + TRANSCRIPT[4:]) == []
    assert dialect.left_out(TRANSCRIPT[:3] + TRANSCRIPT[4:]) == []


# --- between tool calls and their results --------------------------------------------

_WITH_CALLS: list[ct.Message] = [
    ct.UserMessage(content="u1"),
    ct.AssistantMessage(
        content="",
        tool_calls=(
            ct.ToolCall(id="c1", name="f", arguments={}),
            ct.ToolCall(id="c2", name="f", arguments={}),
        ),
    ),
    ct.ToolResultMessage(tool_use_id="c1", content="r1", provenance=ct.Provenance.INTERNAL),
    ct.ToolResultMessage(tool_use_id="c2", content="r2", provenance=ct.Provenance.INTERNAL),
    ct.AssistantMessage(content="a1"),
    ct.UserMessage(content="u2"),
]


def _before_results(transcript: list[ct.Message]) -> list[int]:
    """The system messages whose next message of another kind is a tool result."""
    out = []
    for index, message in enumerate(transcript):
        if isinstance(message, ct.SystemMessage) and index:
            after = [m for m in transcript[index + 1 :] if not isinstance(m, ct.SystemMessage)]
            if after and isinstance(after[0], ct.ToolResultMessage):
                out.append(index)
    return out


def _results_follow_calls(messages: list[dict[str, Any]]) -> bool:
    """Whether each message with calls is followed at once by all their results (Chat shape)."""
    for at, message in enumerate(messages):
        calls = [call["id"] for call in message.get("tool_calls") or []]
        if calls:
            answers = [m.get("tool_call_id") for m in messages[at + 1 : at + 1 + len(calls)]]
            if answers != calls:
                return False
    return True


def _bedrock_results_follow_calls(messages: list[dict[str, Any]]) -> bool:
    for at, message in enumerate(messages):
        calls = [b["toolUse"]["toolUseId"] for b in message["content"] if "toolUse" in b]
        if calls:
            after = messages[at + 1]["content"] if at + 1 < len(messages) else []
            if [b["toolResult"]["toolUseId"] for b in after[: len(calls)]] != calls:
                return False
    return True


@given(st.lists(st.integers(1, len(_WITH_CALLS)), max_size=3))
def test_a_system_message_never_comes_between_calls_and_their_results(places: list[int]) -> None:
    transcript: list[ct.Message] = list(_WITH_CALLS)
    for n, at in enumerate(sorted(places, reverse=True)):
        transcript.insert(at, ct.SystemMessage(content=f"s{n}"))
    texts = [m.content for m in transcript if isinstance(m, ct.SystemMessage)]
    moved = [(index, "position") for index in _before_results(transcript)]

    body = anthropic.to_request(transcript)
    assert pairing_faults(body) == []
    assert _system_texts(anthropic, body)[1] == texts
    validate_anthropic(body)
    body = bedrock.to_request(transcript)
    assert _bedrock_results_follow_calls(body["messages"])
    assert _system_texts(bedrock, body)[1] == texts
    validate_bedrock(body)
    for strict in (openai_chat, cohere):
        sent = strict.to_request(transcript)["messages"]
        assert _results_follow_calls(sent)
        assert [m["content"] for m in sent if m["role"] == "system"] == texts
    for dialect in (anthropic, bedrock, openai_chat, cohere):
        notes = dialect.left_out(transcript)
        assert [(note.index, note.what) for note in notes] == moved
    # Where order between calls and results is free, it stays where it was given.
    roles = ["system" if isinstance(m, ct.SystemMessage) else "other" for m in transcript]
    for free in (ollama.to_request(transcript)["messages"], chat_template.to_messages(transcript)):
        assert ["system" if m["role"] == "system" else "other" for m in free] == roles
    assert ollama.left_out(transcript) == []


def test_the_moved_system_message_goes_right_after_the_results() -> None:
    transcript = [*_WITH_CALLS[:2], ct.SystemMessage(content=FRENCH), *_WITH_CALLS[2:]]
    sent = anthropic.to_request(transcript)["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "system", "assistant", "user"]
    assert [block["tool_use_id"] for block in sent[2]["content"]] == ["c1", "c2"]
    assert sent[3]["content"] == [{"type": "text", "text": FRENCH}]
    assert bedrock.to_request(transcript)["messages"][3] == {
        "role": "system",
        "content": [{"text": FRENCH}],
    }
    sent = openai_chat.to_request(transcript)["messages"]
    assert [m["role"] for m in sent] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "system",
        "assistant",
        "user",
    ]
    why = (
        "a system message between tool calls and their results goes after the results, "
        "which the API wants right after the calls"
    )
    for dialect in (anthropic, bedrock, openai_chat, cohere):
        assert dialect.left_out(transcript) == [LeftOut(2, "position", why)]
