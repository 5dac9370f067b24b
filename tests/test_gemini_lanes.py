"""Gemini's quick readers of a streamed chunk give what the general reader gives.

``gemini.Accumulator`` reads the chunks that come by the thousand (one
candidate, parts of plain text or thought) without the general walk: from a
dict (``_dict_chunk``), from google-genai's object (``_object_chunk``), and,
when such a chunk continues the open text part, without ``_add``. Each is a
shortcut, so each must be invisible: here every generated stream is fed
twice, once with the shortcuts and once with them turned off, and the two
must agree on every event's deltas or error and on what the accumulator
then gives.
"""

from __future__ import annotations

import copy
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from convtypes.dialects import StreamError, gemini
from convtypes.dialects.gemini import _chunk as gemini_chunk
from convtypes.dialects.gemini import _stream as gemini_stream

types = pytest.importorskip("google.genai.types")

# Values chosen to hit each check of the quick readers: right and wrong types,
# snake and camel spellings, signatures, other parts, other candidates.
_texts = st.sampled_from(["", "a", " tide", "Ø", "x" * 40])
_part = st.one_of(
    st.fixed_dictionaries({"text": _texts}),
    st.fixed_dictionaries({"text": _texts, "thought": st.sampled_from([True, False])}),
    st.fixed_dictionaries(
        {"text": _texts},
        optional={
            "thought": st.sampled_from([True, False, None, "yes", 1]),
            "thoughtSignature": st.sampled_from(["c2ln", "+/8=", None]),
            "thought_signature": st.sampled_from(["AAEC", None]),
        },
    ),
    st.fixed_dictionaries({"text": st.sampled_from([None, 7])}),
    st.just({"functionCall": {"name": "f", "args": {"a": 1}}}),
    st.just({"inlineData": {"mimeType": "image/png", "data": "AAEC"}}),
    st.just("not a part"),
)
_content = st.one_of(
    st.fixed_dictionaries(
        {"role": st.just("model"), "parts": st.lists(_part, max_size=3)},
    ),
    st.just({"role": "model"}),
    st.just({"parts": "not a list"}),
    st.just(None),
)
_candidate: st.SearchStrategy[dict[str, Any]] = st.fixed_dictionaries(
    {"content": _content},
    optional={
        "index": st.sampled_from([0, 1, None, True, "0"]),
        "finishReason": st.sampled_from(["STOP", "MAX_TOKENS", None, 3]),
        "finish_reason": st.sampled_from(["STOP", None]),
        "safetyRatings": st.just([]),
    },
)
_usage = st.fixed_dictionaries(
    {"promptTokenCount": st.integers(0, 9), "candidatesTokenCount": st.integers(0, 9)}
)
_chunk = st.fixed_dictionaries(
    {"candidates": st.one_of(st.lists(_candidate, max_size=2), st.none())},
    optional={
        "usageMetadata": _usage,
        "usage_metadata": _usage,
        "modelVersion": st.sampled_from(["gemini-x", None, 5]),
        "responseId": st.sampled_from(["r1", None]),
        "promptFeedback": st.just({"blockReason": "SAFETY"}),
        "createTime": st.just("2026-12-01T00:00:00Z"),
        "error": st.just({"code": 500}),
    },
)
# Most streams are long runs of plain text, which is where the shortcuts act.
_plain = st.builds(
    lambda text, thought: {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"text": text, **({"thought": True} if thought else {})}],
                },
                "index": 0,
            }
        ],
        "modelVersion": "gemini-x",
        "responseId": "r1",
    },
    _texts,
    st.booleans(),
)
_streams = st.lists(st.one_of(_plain, _plain, _chunk), min_size=1, max_size=12)


def _outcome(events: list[Any], quick: bool, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Each event's deltas or error, then what the accumulator gives, as comparable values."""
    with monkeypatch.context() as patch:
        if not quick:
            # The Accumulator's room holds the fast reads it calls.
            patch.setattr(gemini_stream, "_dict_chunk", lambda data: None)
            patch.setattr(gemini_stream, "_object_chunk", lambda value: None)
        accumulator = gemini.Accumulator()
        out: list[Any] = []
        for event in events:
            try:
                out.append(accumulator.feed(event))
            except StreamError as err:
                out.append(("error", str(err), err.index))
        out.append(accumulator.partial())
        try:
            out.append(accumulator.reply())
        except StreamError as err:
            out.append(("error", str(err)))
    return out


def _as_object(chunk: dict[str, Any]) -> Any:
    try:
        return types.GenerateContentResponse.model_validate(chunk)
    except Exception:
        return None


@given(_streams)
def test_dict_shortcuts_change_nothing(events: list[dict[str, Any]]) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        quick = _outcome(copy.deepcopy(events), True, monkeypatch)
        general = _outcome(copy.deepcopy(events), False, monkeypatch)
    assert quick == general


@given(_streams)
def test_object_shortcuts_change_nothing(events: list[dict[str, Any]]) -> None:
    objects = [_as_object(event) for event in events]
    objects = [each for each in objects if each is not None]
    with pytest.MonkeyPatch.context() as monkeypatch:
        quick = _outcome(objects, True, monkeypatch)
        general = _outcome(objects, False, monkeypatch)
    assert quick == general


def test_the_shortcuts_are_taken() -> None:
    """The generated streams above reach the quick readers: they are not dead code."""
    plain: dict[str, Any] = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "index": 0}],
        "modelVersion": "gemini-x",
    }
    chunk = gemini_chunk._dict_chunk(plain)
    assert chunk is not None and chunk.plain and chunk.parts == [{"text": "hi"}]
    assert chunk.parts[0] is not plain["candidates"][0]["content"]["parts"][0]  # a copy
    made = gemini_chunk._object_chunk(types.GenerateContentResponse.model_validate(plain))
    assert made is not None and made.plain and made.parts == [{"text": "hi"}]
    # A signed part, or a part under a snake_case key, goes the general way.
    signed = copy.deepcopy(plain)
    signed["candidates"][0]["content"]["parts"][0]["thoughtSignature"] = "c2ln"
    assert gemini_chunk._dict_chunk(signed) is None
    snake = copy.deepcopy(plain)
    snake["model_version"] = snake.pop("modelVersion")
    assert gemini_chunk._dict_chunk(snake) is None


@pytest.mark.parametrize(
    "spoil",
    [
        {"thought": "yes"},  # not a flag: the dump writes it as it is, the quick reader cannot
        {"thought_signature": "c2ln"},  # text where bytes belong
        {"text": 7},
    ],
)
def test_spoiled_objects_go_the_general_way(spoil: dict[str, Any]) -> None:
    """Objects the SDK's unvalidated constructors can make read as their dumps read."""
    part = types.Part.model_construct(**{"text": "hi", **spoil})
    content = types.Content.model_construct(role="model", parts=[part])
    candidate = types.Candidate.model_construct(content=content, index=0)
    chunk = types.GenerateContentResponse.model_construct(candidates=[candidate])
    assert gemini_chunk._object_chunk(chunk) is None


def test_a_value_that_claims_to_equal_none_is_written() -> None:
    """The dump leaves out only what *is* None; a field holding anything else is written."""
    stream = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": piece}]}}]}
        for piece in ("Hel", "lo", "!")
    ]
    events = [types.GenerateContentResponse.model_validate(event) for event in stream]
    part = events[1].candidates[0].content.parts[0]
    object.__setattr__(part, "video_metadata", mock.ANY)  # == None, and not None
    assert gemini_chunk._object_chunk(events[1]) is None
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert _outcome(events, True, monkeypatch) == _outcome(events, False, monkeypatch)
