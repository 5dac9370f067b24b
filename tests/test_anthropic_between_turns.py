"""Between two Anthropic turns: requests the caller owns, caching asked for by name,
a cancel that leaves a request the API takes, calls ready to answer, and what a
request leaves out, said.

Every reply and stream here is written in the shapes the Messages API sends
(the helpers of ``test_anthropic_turn``), and every request is validated
against the anthropic SDK's own request types; the API's rules that those
types cannot state (pairing, blank text, unsigned thinking, where a cache
marker may stand) are checked by the checkers below, which are tested too.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_anthropic_turn import (
    CITATION,
    SEARCH_CALL,
    SEARCH_RESULT,
    SEARCHED,
    Person,
    client_call,
    reply_of,
    stream_of,
    validate,
)

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import DialectError, LeftOut, ToolSpec, anthropic
from convtypes.dialects._errors import note_text

from budget import examples
from ownership import assert_owned

sdk = pytest.importorskip("anthropic")

SERVER_USES = ("server_tool_use", "mcp_tool_use")
CANCELLED = "The user cancelled this call."

# --- checkers for the rules the SDK's types cannot state ---------------------------------


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
        takers = [block for block in turn["content"] if anthropic._markable(block)]
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


def _ttl(cache: Any) -> str | None:
    return None if cache is False else ("1h" if cache == "1h" else "5m")


def test_the_pairing_checker_finds_what_the_api_refuses() -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "r"}
    text = {"type": "text", "text": "go on"}
    good = {
        "messages": [
            {"role": "user", "content": [text]},
            {"role": "assistant", "content": [SEARCH_CALL, SEARCH_RESULT, call]},
            {"role": "user", "content": [result, text]},
        ]
    }
    assert pairing_faults(good) == []
    cases: list[tuple[list[dict[str, Any]], str]] = [
        ([{"role": "assistant", "content": [text]}], "first turn"),
        ([{"role": "user", "content": []}], "empty"),
        ([{"role": "user", "content": [text]}, {"role": "user", "content": [text]}], "both user"),
        ([{"role": "user", "content": [{"type": "text", "text": " "}]}], "blank text"),
        (
            [
                {"role": "user", "content": [text]},
                {
                    "role": "assistant",
                    "content": [{"type": "thinking", "thinking": "x", "signature": ""}],
                },
            ],
            "unsigned",
        ),
        (
            [
                {"role": "user", "content": [text]},
                {"role": "assistant", "content": [call]},
                {"role": "user", "content": [text]},
            ],
            "answered by",
        ),
        (
            [
                {"role": "user", "content": [text]},
                {"role": "assistant", "content": [call]},
                {"role": "user", "content": [text, result]},
            ],
            "do not come first",
        ),
        ([{"role": "user", "content": [result]}], "answers no call"),
        (
            [
                {"role": "user", "content": [text]},
                {"role": "assistant", "content": [SEARCH_CALL]},
                {"role": "user", "content": [text]},
            ],
            "has no result",
        ),
        (
            [
                {"role": "user", "content": [text]},
                {"role": "assistant", "content": [call, call]},
                {"role": "user", "content": [result, result]},
            ],
            "repeats",
        ),
    ]
    for turns, fault in cases:
        found = pairing_faults({"messages": turns})
        assert any(fault in f for f in found), (fault, found)
    # A paused turn (nothing after it) may end in a use; code waiting for a call may too.
    paused = {
        "messages": [
            {"role": "user", "content": [text]},
            {"role": "assistant", "content": [SEARCH_CALL]},
        ]
    }
    assert pairing_faults(paused) == []


def test_the_marker_checker_finds_misplaced_markers() -> None:
    transcript = [
        ct.SystemMessage(content="Be terse."),
        ct.UserMessage(content="one"),
        ct.AssistantMessage(content="a"),
        ct.UserMessage(content="two"),
        ct.AssistantMessage(content="b"),
        ct.UserMessage(content="three"),
    ]
    body = anthropic.to_request(transcript, cache=True)
    assert marker_faults(body, "5m") == []
    assert marker_faults(body, "1h") != []  # the ttl is checked
    assert marker_faults(anthropic.to_request(transcript), "5m") != []  # missing markers
    assert marker_faults(body, None) != []  # markers nobody asked for
    body["messages"][0]["content"][0]["cache_control"] = {"type": "ephemeral"}
    assert any("breakpoints" in fault for fault in marker_faults(body, "5m"))


# === the request belongs to the caller ==============================================

NESTED: dict[str, Any] = {
    "path": "notes.txt",
    "options": {"lines": [1, 2, {"deep": [True, None, 2.5]}], "mode": "r"},
}


def session() -> list[ct.Message]:
    """A transcript with a system prompt, kept items (a search, citations, a call
    with a caller), nested arguments, thinking, an image and results."""
    reply = reply_of(
        [
            {"type": "thinking", "thinking": "Look it up.", "signature": "c2lnbmVk"},
            *SEARCHED,
            client_call(caller={"type": "direct"}, **NESTED),
        ],
        stop="tool_use",
    )
    return [
        ct.SystemMessage(content="You are terse."),
        ct.UserMultimodalMessage(
            content=(
                ct.TextBlock(text="Tides in Brest, and read my notes."),
                ct.ImageUrlBlock(url="https://img.example/brest.png"),
            )
        ),
        *anthropic.from_response(reply),
        ct.ToolResultMessage(tool_use_id="toolu_01Ab", content="the notes", provenance="external"),
        ct.AssistantMessage(
            content="And the second file.",
            tool_calls=(ct.ToolCall(id="toolu_02", name="read_file", arguments=NESTED),),
        ),
        ct.ToolResultMessage(tool_use_id="toolu_02", content="more notes"),
        ct.UserMessage(content="Thanks."),
    ]


@pytest.mark.parametrize("cache", [False, True, "1h"])
def test_the_request_shares_nothing_with_the_transcript(cache: Any) -> None:
    transcript = session()
    assert isinstance(transcript[2], ct.ProviderOutputItemsMessage)  # items are in play
    body = assert_owned(lambda: anthropic.to_request(transcript, cache=cache), transcript)
    validate(body)


@pytest.mark.parametrize("cache", [False, True, "1h"])
def test_the_tool_fields_share_nothing_with_the_specs(cache: Any) -> None:
    tools = [
        ToolSpec(name="save_person", parameters=Person.model_json_schema()),
        ToolSpec(name="read_file", description="Read a file.", parameters={"properties": NESTED}),
    ]
    fields = assert_owned(lambda: anthropic.tools_to_request(tools, cache=cache), tools)
    validate(anthropic.to_request([ct.UserMessage(content="hi")]), **fields)


def test_the_issue_edit_writes_nothing_into_the_transcript() -> None:
    # The loop the issue shows: a backend marks every block of the request by hand.
    transcript = session()
    stored = ct.encode(transcript)
    first = anthropic.to_request(transcript)
    pristine = msgspec.json.encode(first)
    for turn in first["messages"]:
        for block in turn["content"]:
            block["cache_control"] = {"type": "ephemeral"}
    assert ct.encode(transcript) == stored
    assert b"cache_control" not in stored
    assert msgspec.json.encode(anthropic.to_request(transcript)) == pristine


# === caching, asked for by name ========================================================


def conversation(turns: int = 3, system: bool = True) -> list[ct.Message]:
    messages: list[ct.Message] = [ct.SystemMessage(content="Be terse.")] if system else []
    for n in range(turns):
        messages += [
            ct.UserMessage(content=f"Question {n}?"),
            ct.AssistantMessage(
                content=f"Looking {n}.",
                tool_calls=(ct.ToolCall(id=f"toolu_{n}", name="look", arguments={"n": n}),),
                thinking=(ct.ThinkingBlock(text="hm", signature="c2ln"),),
            ),
            ct.ToolResultMessage(tool_use_id=f"toolu_{n}", content=f"found {n}"),
            ct.AssistantMessage(content=f"Answer {n}."),
        ]
    return messages


def test_cache_marks_the_system_prompt_and_the_last_two_user_turns() -> None:
    body = anthropic.to_request(conversation(), cache=True)
    validate(body)
    assert body["system"] == [
        {"type": "text", "text": "Be terse.", "cache_control": {"type": "ephemeral"}}
    ]
    turns = body["messages"]
    # The last two user turns: the last question, and the results after its call
    # (the request ends with the answer, an assistant turn, which is not marked).
    assert turns[-2]["content"][-1] == {
        "type": "tool_result",
        "tool_use_id": "toolu_2",
        "content": "found 2",
        "cache_control": {"type": "ephemeral"},
    }
    assert turns[-4]["content"][-1] == {
        "type": "text",
        "text": "Question 2?",
        "cache_control": {"type": "ephemeral"},
    }
    assert len(markers(body)) == 3
    assert marker_faults(body, "5m") == []
    # Without the markers, the request is the one cache=False builds.
    for block in markers(body):
        del block["cache_control"]
    body["system"] = body["system"][0]["text"]
    assert body == anthropic.to_request(conversation())


def test_five_minutes_is_the_default_and_an_hour_is_said() -> None:
    assert anthropic.to_request(conversation(), cache="5m") == anthropic.to_request(
        conversation(), cache=True
    )
    body = anthropic.to_request(conversation(), cache="1h")
    validate(body)
    assert [block["cache_control"] for block in markers(body)] == [
        {"type": "ephemeral", "ttl": "1h"}
    ] * 3
    assert marker_faults(body, "1h") == []


@pytest.mark.parametrize(
    ("transcript", "count"),
    [
        (conversation(system=False), 2),
        ([ct.UserMessage(content="Hello.")], 1),
        ([ct.SystemMessage(content="Be terse."), ct.UserMessage(content="Hello.")], 2),
        # A blank system prompt cannot be a text block with a marker: it stays text.
        ([ct.SystemMessage(content=" "), ct.UserMessage(content="Hello.")], 1),
    ],
)
def test_fewer_places_get_fewer_markers(transcript: list[ct.Message], count: int) -> None:
    body = anthropic.to_request(transcript, cache=True)
    validate(body)
    assert len(markers(body)) == count
    assert marker_faults(body, "5m") == []


def test_the_last_tool_is_marked_and_the_whole_request_stays_within_four() -> None:
    tools = [ToolSpec(name="look"), ToolSpec(name="read_file", parameters={"type": "object"})]
    fields = anthropic.tools_to_request(tools, cache="1h")
    assert fields["tools"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert "cache_control" not in fields["tools"][0]
    body = anthropic.to_request(conversation(), cache="1h")
    validate(body, **fields)
    assert len(markers({**body, **fields})) == 4
    assert anthropic.tools_to_request([], cache=True) == {}
    assert markers(anthropic.tools_to_request(tools)) == []


def _old_markers() -> list[ct.Message]:
    """A transcript whose kept items carry markers an edited request wrote into them."""
    fetched = {
        "type": "web_fetch_tool_result",
        "tool_use_id": "srvtoolu_02",
        "content": {
            "type": "web_fetch_result",
            "url": "https://tides.example",
            "content": {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": "tides"},
                "cache_control": {"type": "ephemeral"},
            },
        },
    }
    fetch = {
        "type": "server_tool_use",
        "id": "srvtoolu_02",
        "name": "web_fetch",
        "input": {"url": "https://tides.example"},
    }
    call = client_call(caller={"type": "direct"})
    # In a tool's input the key is the model's data, not a marker.
    call["input"] = {"path": "a", "cache_control": {"type": "ephemeral"}}
    items = [
        {**SEARCH_CALL, "cache_control": {"type": "ephemeral"}},
        SEARCH_RESULT,
        fetch,
        fetched,
        {"type": "text", "text": "Found.", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
        call,
    ]
    return [
        ct.UserMessage(content="Tides?"),
        ct.ProviderOutputItemsMessage(protocol="anthropic", items=items),
        ct.AssistantMessage(
            content="Found.",
            tool_calls=(ct.ToolCall(id="toolu_01Ab", name="read_file", arguments=call["input"]),),
        ),
        ct.ToolResultMessage(tool_use_id="toolu_01Ab", content="r"),
        ct.UserMessage(content="And tomorrow?"),
    ]


@pytest.mark.parametrize("cache", [False, True, "1h"])
def test_old_markers_in_items_are_not_sent(cache: Any) -> None:
    transcript = _old_markers()
    body = anthropic.to_request(transcript, cache=cache)
    fields = anthropic.tools_to_request([ToolSpec(name="read_file")], cache=cache)
    validate(body, beta=True, **fields)  # web_fetch is a beta tool
    sent = body["messages"][1]["content"]
    assert sent[-1]["input"] == {"path": "a", "cache_control": {"type": "ephemeral"}}
    # Two user turns and the tool; none of the four old markers.
    assert len(markers({**body, **fields})) == (0 if cache is False else 3)
    assert marker_faults(body, _ttl(cache)) == []
    assert pairing_faults(body) == []
    # The items themselves still hold what was stored: the request copied them.
    assert transcript == _old_markers()
    assert [(lo.index, lo.what) for lo in anthropic.left_out(transcript)] == [
        (1, "cache-control")
    ] * 3


def test_a_user_turn_whose_last_block_takes_no_marker_has_it_on_the_latest_that_does() -> None:
    # to_request itself never ends a user turn with such a block (it leaves
    # blank text out); the rule is for any content, so it is tested on its own.
    image = {"type": "image", "source": {"type": "url", "url": "https://x.example/a.png"}}
    blank = {"type": "text", "text": ""}
    lone = {"type": "text", "text": " "}
    turns: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "early"}]},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "", "signature": "s"}]},
        {"role": "user", "content": [lone]},
        {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
        {"role": "user", "content": [image, blank]},
    ]
    anthropic._mark(turns, "5m")
    assert image["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in blank and "cache_control" not in lone
    # The turn with nothing to mark still counts as one of the two: the earlier one gets none.
    assert "cache_control" not in turns[0]["content"][0]
    assert [anthropic._markable(b) for b in (image, blank, lone, turns[1]["content"][0])] == [
        True,
        False,
        False,
        False,
    ]


@pytest.mark.parametrize(
    ("cache", "error"), [("2h", ValueError), (1, TypeError), (None, TypeError)]
)
def test_cache_takes_only_its_values(cache: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match='cache= must be False, True, "5m" or "1h"'):
        anthropic.to_request([ct.UserMessage(content="hi")], cache=cache)
    with pytest.raises(error, match='cache= must be False, True, "5m" or "1h"'):
        anthropic.tools_to_request([ToolSpec(name="f")], cache=cache)


def test_the_sdk_types_declare_the_marker_where_it_is_put() -> None:
    from anthropic.types import (
        CacheControlEphemeralParam,
        ImageBlockParam,
        TextBlockParam,
        ToolParam,
        ToolResultBlockParam,
    )

    for param in (TextBlockParam, ImageBlockParam, ToolResultBlockParam, ToolParam):
        assert "cache_control" in param.__annotations__, param
    assert set(CacheControlEphemeralParam.__annotations__) == {"type", "ttl"}
    # And validation looks at the marker's value.
    body = anthropic.to_request(conversation(), cache="1h")
    body["messages"][-2]["content"][-1]["cache_control"]["ttl"] = "2h"
    with pytest.raises(Exception, match="validation error"):
        validate(body)
