"""Between two Anthropic turns: requests the caller owns, caching asked for by name,
a cancel that leaves a request the API takes, and calls ready to answer.

Every reply and stream here is written in the shapes the Messages API sends
(the helpers of ``test_anthropic_turn``), and every request is validated
against the anthropic SDK's own request types; the API's rules that those
types cannot state (pairing, blank text, unsigned thinking, where a cache
marker may stand) are checked by ``anthropic_rules``, whose checkers are
tested here too. What a request leaves out is in ``test_anthropic_left_out``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from anthropic_rules import marker_faults, markers, pairing_faults, ttl_of
from hypothesis import given, settings
from hypothesis import strategies as st
from test_anthropic_turn import (
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
from convtypes.dialects import ToolSpec, UnansweredCall, anthropic
from convtypes.dialects.anthropic import _cache_marks

from budget import examples
from ownership import assert_owned

sdk = pytest.importorskip("anthropic")

CANCELLED = "The user cancelled this call."

# --- the checkers themselves ------------------------------------------------------


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
    transcript: list[ct.Message] = [
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
    # Two user turns and the tool; none of the old markers.
    assert len(markers({**body, **fields})) == (0 if cache is False else 3)
    assert marker_faults(body, ttl_of(cache)) == []
    assert pairing_faults(body) == []
    # The items themselves still hold what was stored: the request copied them.
    assert transcript == _old_markers()
    assert [(lo.index, lo.what) for lo in anthropic.left_out(transcript)] == [
        (1, "cache-control")
    ] * 2


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
    _cache_marks._mark(turns, "5m")
    assert image["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in blank and "cache_control" not in lone
    # The turn with nothing to mark still counts as one of the two: the earlier one gets none.
    assert "cache_control" not in turns[0]["content"][0]
    assert [_cache_marks._markable(b) for b in (image, blank, lone, turns[1]["content"][0])] == [
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


# === after a cancel, the next request is one the API takes ===========================

CODE_USE: dict[str, Any] = {
    "type": "server_tool_use",
    "id": "srvtoolu_01Code",
    "name": "code_execution",
    "input": {"code": "print(await read_file({'path': 'a'}))"},
    "caller": {"type": "direct"},
}
EARLIER: list[ct.Message] = [
    ct.UserMessage(content="Read a.txt first."),
    ct.AssistantMessage(
        content="Reading.",
        tool_calls=(ct.ToolCall(id="toolu_00", name="read_file", arguments={"path": "a.txt"}),),
        thinking=(ct.ThinkingBlock(text="Read it.", signature="c2lnMA"),),
    ),
    ct.ToolResultMessage(tool_use_id="toolu_00", content="alpha"),
    ct.AssistantMessage(content="It says alpha."),
]

STREAMS: dict[str, dict[str, Any]] = {
    "text": reply_of([{"type": "text", "text": "High tide is at 06:12."}]),
    "thinking": reply_of(
        [
            {"type": "thinking", "thinking": "Tides, then.", "signature": "c2lnMQ"},
            {"type": "text", "text": "At 06:12."},
        ]
    ),
    "redacted": reply_of(
        [{"type": "redacted_thinking", "data": "cmVkYWN0ZWQ"}, {"type": "text", "text": "Done."}]
    ),
    "parallel-calls": reply_of(
        [
            {"type": "thinking", "thinking": "Both files.", "signature": "c2lnMg"},
            {"type": "text", "text": "Reading both."},
            client_call("toolu_01", path="a.txt"),
            client_call("toolu_02", path="b.txt", lines=[1, 2]),
        ],
        stop="tool_use",
    ),
    "search-and-call": reply_of([*SEARCHED, client_call(caller={"type": "direct"})], "tool_use"),
    "text-call-text": reply_of(
        [
            {"type": "text", "text": "First a."},
            client_call("toolu_03"),
            {"type": "text", "text": "Then more."},
        ],
        stop="tool_use",
    ),
    "code-waits-for-a-call": reply_of(
        [
            CODE_USE,
            client_call(caller={"type": "code_execution_20260120", "tool_id": "srvtoolu_01Code"}),
        ],
        stop="tool_use",
    ),
    "compaction-and-fallback": reply_of(
        [
            {
                "type": "compaction",
                "content": "Earlier: the user asked for tides.",
                "encrypted_content": "ZW5jcnlwdGVk",
            },
            {
                "type": "fallback",
                "from": {"model": "claude-opus-4-7"},
                "to": {"model": "claude-sonnet-4-6"},
                "trigger": {"type": "refusal", "category": None},
            },
            {"type": "text", "text": "Hello again."},
        ]
    ),
    "cut-at-the-limit": reply_of(
        [{"type": "text", "text": "Writing."}, client_call("toolu_04", path="x" * 30)],
        stop="max_tokens",
    ),
}


def next_request(
    events: list[dict[str, Any]], cut: int, cache: Any = False, earlier: bool = True
) -> dict[str, Any]:
    """The request after a stream cut after ``cut`` events, closed and followed by the user."""
    accumulator = anthropic.Accumulator()
    for event in events[:cut]:
        accumulator.feed(event)
    history = [*EARLIER] if earlier else []
    history += [ct.UserMessage(content="Tides in Brest?"), *accumulator.partial()]
    transcript = [*ct.close_open_calls(history, CANCELLED), ct.UserMessage(content="Never mind.")]
    assert ct.open_calls(transcript) == []
    return anthropic.to_request(transcript, cache=cache)


@pytest.mark.parametrize("name", STREAMS)
def test_every_cut_of_a_stream_leaves_a_request_the_api_takes(name: str) -> None:
    events = stream_of(STREAMS[name])
    for cut in range(len(events) + 1):
        body = next_request(events, cut, cache=cut % 3 == 0)
        validate(body, beta=True)
        assert pairing_faults(body) == [], (cut, body)
        assert marker_faults(body, "5m" if cut % 3 == 0 else None) == [], cut


_TEXT = st.builds(lambda t: [{"type": "text", "text": t}], cst.texts(20))
_THINKING = st.builds(
    lambda t, s: [{"type": "thinking", "thinking": t, "signature": s}],
    cst.texts(20),
    cst.texts(12).filter(bool),
)
_REDACTED = st.builds(
    lambda d: [{"type": "redacted_thinking", "data": d}], cst.texts(12).filter(bool)
)
_CALL = st.builds(
    lambda a: [{"type": "tool_use", "id": "", "name": "f", "input": a}],
    st.dictionaries(cst.texts(6), cst.json_values(4), max_size=3),
)
_SEARCH = st.builds(
    lambda q: [{**SEARCH_CALL, "input": {"query": q}}, SEARCH_RESULT], cst.texts(12)
)
# A search left without its result beside a client call, as the API sometimes sends.
_LONE_SEARCH = st.just([SEARCH_CALL])
_CODE = st.just([CODE_USE, client_call(caller={"type": "code_execution_20260120", "tool_id": ""})])
GROUPS = st.lists(
    st.one_of(_TEXT, _THINKING, _REDACTED, _CALL, _SEARCH, _LONE_SEARCH, _CODE), max_size=5
)


def numbered(groups: list[list[dict[str, Any]]], serial: Iterator[int]) -> list[dict[str, Any]]:
    """The blocks of ``groups`` with ids of their own: results and callers follow their use."""
    blocks: list[dict[str, Any]] = []
    for group in groups:
        use = ""
        for block in group:
            block = dict(block)
            if block["type"] == "tool_use":
                block["id"] = f"toolu_{next(serial):04d}"
                if isinstance(block.get("caller"), dict) and "tool_id" in block["caller"]:
                    block["caller"] = {**block["caller"], "tool_id": use}
            elif block["type"] == "server_tool_use":
                block["id"] = use = f"srvtoolu_{next(serial):04d}"
            elif "tool_use_id" in block:
                block["tool_use_id"] = use
            blocks.append(block)
    return blocks


def stop_for(blocks: list[dict[str, Any]], limit: bool) -> str:
    if limit:
        return "max_tokens"
    return "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"


@settings(max_examples=examples(200, 40))
@given(
    GROUPS,
    st.booleans(),
    st.integers(0, 10_000),
    st.sampled_from([False, True, "1h"]),
    st.booleans(),
)
def test_any_cut_of_any_stream_leaves_a_request_the_api_takes(
    groups: list[list[dict[str, Any]]], limit: bool, cut: int, cache: Any, earlier: bool
) -> None:
    blocks = numbered(groups, itertools.count())
    events = stream_of(reply_of(blocks, stop=stop_for(blocks, limit)))
    body = next_request(events, cut % (len(events) + 1), cache, earlier)
    validate(body, beta=True)
    assert pairing_faults(body) == []
    assert marker_faults(body, ttl_of(cache)) == []


def test_a_search_cut_before_its_result_is_not_sent_but_stays_stored() -> None:
    events = stream_of(STREAMS["search-and-call"])
    # Cut just after the search's block stopped, before its result started.
    stop = next(n for n, e in enumerate(events) if e["type"] == "content_block_stop")
    accumulator = anthropic.Accumulator()
    for event in events[: stop + 1]:
        accumulator.feed(event)
    partial = accumulator.partial()
    assert isinstance(partial[0], ct.ProviderOutputItemsMessage)
    assert partial[0].items == (SEARCH_CALL,)  # what arrived stays stored
    transcript = [ct.UserMessage(content="Tides?"), *partial]
    # Nothing after it: the turn may go on (as after pause_turn), so it is sent.
    assert anthropic.to_request(transcript)["messages"][1]["content"] == [SEARCH_CALL]
    assert anthropic.left_out(transcript) == []
    transcript.append(ct.UserMessage(content="Never mind."))
    body = anthropic.to_request(transcript)
    assert [turn["role"] for turn in body["messages"]] == ["user"]  # no turn is left
    assert body["messages"][0]["content"] == [
        {"type": "text", "text": "Tides?"},
        {"type": "text", "text": "Never mind."},
    ]
    assert [(lo.index, lo.what) for lo in anthropic.left_out(transcript)] == [(1, "call")]


def test_a_paused_search_answered_by_the_reply_that_goes_on_is_sent() -> None:
    paused = anthropic.from_response(reply_of([SEARCH_CALL], stop="pause_turn"))
    going_on = anthropic.from_response(
        reply_of([SEARCH_RESULT, {"type": "text", "text": "High tide at 06:12."}])
    )
    transcript = [
        ct.UserMessage(content="Tides?"),
        *paused,
        *going_on,
        ct.UserMessage(content="Thanks."),
    ]
    body = anthropic.to_request(transcript)
    assert body["messages"][1]["content"][:2] == [SEARCH_CALL, SEARCH_RESULT]
    assert pairing_faults(body) == []
    assert anthropic.left_out(transcript) == []


def test_code_that_waits_for_a_call_is_sent_with_the_call_and_its_result() -> None:
    reply = STREAMS["code-waits-for-a-call"]
    transcript = [
        ct.UserMessage(content="Read a."),
        *anthropic.from_response(reply),
        ct.ToolResultMessage(tool_use_id="toolu_01Ab", content="contents of a"),
    ]
    body = anthropic.to_request(transcript)
    assert body["messages"][1]["content"] == reply["content"]
    assert pairing_faults(body) == []
    assert anthropic.left_out(transcript) == []


def test_a_reply_cut_before_anything_sendable_sends_no_turn() -> None:
    events = stream_of(STREAMS["thinking"])
    for cut in range(4):  # start; the thinking block's start; its first and second pieces
        body = next_request(events, cut, earlier=False)
        assert body["messages"] == [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Tides in Brest?"},
                    {"type": "text", "text": "Never mind."},
                ],
            }
        ]


def test_a_cancel_with_whole_calls_needs_them_closed() -> None:
    events = stream_of(STREAMS["parallel-calls"])
    accumulator = anthropic.Accumulator()
    for event in events[:-2]:  # both calls whole, no message_delta yet
        accumulator.feed(event)
    transcript = [ct.UserMessage(content="Read both."), *accumulator.partial()]
    assert [call.id for call in ct.open_calls(transcript)] == ["toolu_01", "toolu_02"]
    with pytest.raises(UnansweredCall):
        anthropic.to_request([*transcript, ct.UserMessage(content="Stop.")])
    closed = [*ct.close_open_calls(transcript, CANCELLED), ct.UserMessage(content="Stop.")]
    body = anthropic.to_request(closed)
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": CANCELLED},
        {"type": "tool_result", "tool_use_id": "toolu_02", "content": CANCELLED},
        {"type": "text", "text": "Stop."},
    ]
    assert pairing_faults(body) == []


# === calls ready to answer ==========================================================


@pytest.mark.parametrize("name", STREAMS)
def test_a_replys_calls_carry_the_ids_their_results_answer(name: str) -> None:
    reply = STREAMS[name]
    blocks = reply["content"]
    calls = [b for b in blocks if b["type"] == "tool_use"]
    if reply["stop_reason"] == "max_tokens" and blocks[-1]["type"] == "tool_use":
        calls = calls[:-1]  # cut off at the limit: not a call to run
    expected = [(b["id"], b["name"], b["input"]) for b in calls]
    read = anthropic.read_reply(reply)
    accumulator = anthropic.Accumulator()
    for event in stream_of(reply):
        accumulator.feed(event)
    for got in (read, accumulator.reply()):
        assert [(c.id, c.name, c.arguments) for c in got.tool_calls] == expected
    results = [
        ct.ToolResultMessage(tool_use_id=call.id, content="done") for call in read.tool_calls
    ]
    transcript = [
        ct.UserMessage(content="Go."),
        *read.messages,
        *results,
        ct.UserMessage(content="Next."),
    ]
    body = anthropic.to_request(transcript)
    validate(body, beta=True)
    assert pairing_faults(body) == []
