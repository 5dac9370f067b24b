"""Malformed responses and streams raise only ``DialectError``: a mutation fuzz.

Valid responses and event streams of every dialect (the REST JSON that the
other tests check against the SDKs' types) are mutated: keys dropped, values
replaced by ``None``, numbers, text, lists, objects, NaN, huge integers or
deep nesting, values wrapped in a list, events dropped, repeated or swapped.
Each mutated input goes to ``from_response`` or through an ``Accumulator``
(every event fed even after one fails, then ``result()``), as a dict and as
an SDK object. What comes out must be a result or a ``DialectError``:
``ResponseError`` from ``from_response``, ``StreamError`` naming the event
from ``feed`` and ``result``. A result must go back out through
``to_request`` without any other exception either.

Two sweeps: every single mutation of every place in the seeds, and random
combinations of up to four mutations (Hypothesis).
"""

from __future__ import annotations

import functools
import json
import math
import warnings
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cohere_turn import CITATION, PLAN, call_events, content_events, plan_events
from test_cohere_turn import as_sdk_events as cohere_sdk_events
from test_cohere_turn import end as cohere_end
from test_cohere_turn import reply as cohere_reply
from test_cohere_turn import start as cohere_start
from test_dialects_responses import (
    anthropic_content,
    anthropic_events,
    anthropic_message,
    chat_chunks,
    chat_completion,
    gemini_chunks,
    gemini_parts,
    gemini_response,
    responses_events,
    responses_output,
    responses_response,
)
from test_mistral_turn import USAGE, WEATHER_CALL, as_sdk_events, text, thinking
from test_mistral_turn import chunk as mistral_chunk
from test_mistral_turn import completion as mistral_completion
from test_ollama import chunks as ollama_chunks
from test_ollama import message as ollama_message
from test_ollama import response as ollama_response

import convtypes as ct
from convtypes.dialects import (
    DialectError,
    ResponseError,
    StreamError,
    anthropic,
    bedrock,
    cohere,
    gemini,
    mistral,
    ollama,
    openai_chat,
    openai_responses,
)

from bedrock_replies import b64, events_of, reply_of
from bedrock_sdk import parsed_event, parsed_response
from budget import examples

sdk_anthropic = pytest.importorskip("anthropic")
sdk_openai = pytest.importorskip("openai")
genai_types = pytest.importorskip("google.genai.types")
sdk_ollama = pytest.importorskip("ollama")
sdk_mistral = pytest.importorskip("mistralai.client.models")
sdk_cohere = pytest.importorskip("cohere")
from cohere.core.unchecked_base_model import construct_type  # noqa: E402

# cohere's construct_type reads a pydantic attribute pydantic 2 deprecates.
pytestmark = pytest.mark.filterwarnings("ignore:The `__fields__` attribute is deprecated")
from pydantic import TypeAdapter  # noqa: E402  (after the SDKs)

# --- seeds -------------------------------------------------------------------------


def _two(text: str) -> list[str]:
    """Cut text in two, so every kind of delta appears more than once."""
    return [text[:1], text[1:]] if len(text) > 1 else [text]


_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("look", {"at": [1, {"deep": None}], "n": 2.5}),
    ("see", {}),
]

_ANTHROPIC = anthropic_message(anthropic_content("hmm", "c2ln", "Hello", _CALLS))
# A server tool's use and result, and a cited text after them: kept as
# items, so every mutation of them also goes back out through to_request.
_ANTHROPIC["content"] += [
    {"type": "server_tool_use", "id": "srvtoolu_9", "name": "web_search", "input": {"q": "x"}},
    {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_9",
        "content": [
            {
                "type": "web_search_result",
                "url": "https://x.test",
                "title": "X",
                "encrypted_content": "ZQ==",
                "page_age": None,
            }
        ],
    },
    {
        "type": "text",
        "text": "Cited.",
        "citations": [
            {
                "type": "web_search_result_location",
                "url": "https://x.test",
                "title": "X",
                "cited_text": "x",
                "encrypted_index": "aQ==",
            }
        ],
    },
]
_CHAT = chat_completion("Hi", _CALLS)
_CHAT_EVENTS = chat_chunks(_CHAT, _two)
# An empty refusal delta and a second choice's delta, which the first choice ignores.
_CHAT_EVENTS[1:1] = [
    {**_CHAT_EVENTS[1], "choices": [{"index": 0, "delta": {"refusal": ""}, "finish_reason": None}]},
    {
        **_CHAT_EVENTS[1],
        "choices": [{"index": 1, "delta": {"content": "x"}, "finish_reason": None}],
    },
]
_RESPONSES = responses_response(responses_output("why", "Hello", _CALLS))
_GEMINI_PARTS = gemini_parts("hmm", "Hello", _CALLS, b"sig")
_GEMINI = gemini_response(_GEMINI_PARTS)
# Without call ids: the ollama package has no field for them, and the SDK form must agree.
_OLLAMA = ollama_response(ollama_message("Hello", "hmm", _CALLS, ids=False))
# Signed and redacted reasoning, text, the calls, a server tool's use and
# result and a cited text: kept as items, so mutations of them go back out too.
_BEDROCK = reply_of(
    [
        {"reasoningContent": {"reasoningText": {"text": "hmm", "signature": "c2ln"}}},
        {"reasoningContent": {"redactedContent": b64(b"redacted")}},
        {"text": "Hello"},
        *[
            {"toolUse": {"toolUseId": f"tooluse_{n}", "name": name, "input": arguments}}
            for n, (name, arguments) in enumerate(_CALLS)
        ],
        {
            "toolUse": {
                "toolUseId": "tooluse_srv",
                "name": "nova_code_interpreter",
                "input": {"snippet": "1 + 1"},
                "type": "server_tool_use",
            }
        },
        {
            "toolResult": {
                "toolUseId": "tooluse_srv",
                "type": "nova_code_interpreter_result",
                "status": "success",
                "content": [{"text": "2"}],
            }
        },
        {
            "citationsContent": {
                "content": [{"text": "Cited."}],
                "citations": [{"location": {"web": {"url": "https://x.test"}}}],
            }
        },
    ],
    stop="tool_use",
)

# A reasoning reply with text, a reference chunk and a call: its stream has
# thinking and text in lists of chunks, text as a string, then the call whole.
_MISTRAL_REFERENCE = {"type": "reference", "reference_ids": [1]}
_MISTRAL = mistral_completion(
    {
        "role": "assistant",
        "content": [thinking("plan more"), text("See [1]"), _MISTRAL_REFERENCE],
        "tool_calls": [WEATHER_CALL],
    },
    "tool_calls",
    USAGE,
)
_MISTRAL_EVENTS = [
    mistral_chunk({"role": "assistant", "content": [thinking("plan ")]}),
    mistral_chunk({"content": [thinking("more"), text("See ")]}),
    mistral_chunk({"content": "[1]"}),
    mistral_chunk({"content": [_MISTRAL_REFERENCE]}),
    mistral_chunk({"tool_calls": [WEATHER_CALL]}),
    mistral_chunk({"content": ""}, "tool_calls", USAGE),
]

# Thinking, a plan, citations and a call with spaced arguments: every kind
# of v2 event, and a message kept as an item.
_COHERE_CALL = {
    "id": "weather_q8x2",
    "type": "function",
    "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
}
_COHERE = {
    **cohere_reply(
        {
            "content": [{"type": "thinking", "thinking": "hmm"}],
            "tool_plan": PLAN,
            "tool_calls": [_COHERE_CALL],
            "citations": [CITATION],
        },
        "TOOL_CALL",
    ),
    "id": "2941521a",
}
_COHERE_EVENTS = [
    cohere_start(),
    *content_events(0, "thinking", _two("hmm")),
    *plan_events(_two(PLAN)),
    *call_events(0, _COHERE_CALL, _two('{"city": "Oslo"}')),
    {"type": "citation-start", "index": 0, "delta": {"message": {"citations": CITATION}}},
    {"type": "citation-end", "index": 0},
    cohere_end("TOOL_CALL"),
]

Seed = tuple[ModuleType, Any, list[Any], Callable[[Any], Any], Callable[[Any], Any]]


def _sdk(adapter: Any) -> Callable[[Any], Any]:
    return adapter.validate_python  # type: ignore[no-any-return]


SEEDS: dict[str, Seed] = {
    # dialect: (module, response, events, SDK response type, SDK event type)
    "anthropic": (
        anthropic,
        _ANTHROPIC,
        anthropic_events(_ANTHROPIC, _two),
        sdk_anthropic.types.Message.model_validate,
        _sdk(TypeAdapter(sdk_anthropic.types.RawMessageStreamEvent)),
    ),
    "openai_chat": (
        openai_chat,
        _CHAT,
        _CHAT_EVENTS,
        sdk_openai.types.chat.ChatCompletion.model_validate,
        sdk_openai.types.chat.ChatCompletionChunk.model_validate,
    ),
    "openai_responses": (
        openai_responses,
        _RESPONSES,
        responses_events(_RESPONSES, _two),
        sdk_openai.types.responses.Response.model_validate,
        _sdk(TypeAdapter(sdk_openai.types.responses.ResponseStreamEvent)),
    ),
    "gemini": (
        gemini,
        _GEMINI,
        gemini_chunks(_GEMINI_PARTS, _two),
        genai_types.GenerateContentResponse.model_validate,
        genai_types.GenerateContentResponse.model_validate,
    ),
    "bedrock": (
        bedrock,
        _BEDROCK,
        events_of(_BEDROCK, _two),
        parsed_response,  # what boto3 returns: its own parser, bytes for blobs
        parsed_event,
    ),
    "ollama": (
        ollama,
        _OLLAMA,
        ollama_chunks(_OLLAMA, _two),
        sdk_ollama.ChatResponse.model_validate,
        sdk_ollama.ChatResponse.model_validate,
    ),
    "mistral": (
        mistral,
        _MISTRAL,
        _MISTRAL_EVENTS,
        sdk_mistral.ChatCompletionResponse.model_validate,
        lambda event: as_sdk_events([event])[0],
    ),
    "cohere": (
        cohere,
        _COHERE,
        _COHERE_EVENTS,
        lambda response: construct_type(type_=sdk_cohere.V2ChatResponse, object_=response),
        lambda event: cohere_sdk_events([event])[0],
    ),
}
NAMES = sorted(SEEDS)


def test_the_seeds_are_valid() -> None:
    # The fuzz means something only if the unmutated seeds go through.
    for module, response, events, sdk_response, sdk_event in SEEDS.values():
        expected = module.from_response(response)
        assert module.from_response(sdk_response(response)) == expected
        for form in (events, [sdk_event(event) for event in events]):
            accumulator = module.Accumulator()
            for event in form:
                accumulator.feed(event)
            assert accumulator.result() == expected


# --- mutations ---------------------------------------------------------------------


def _nested_lists(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def _nested_dicts(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"type": "text", "a": value}
    return value


# Built once and shared (building it takes milliseconds): no reader may
# change its input, and a shared value makes a reader that does so fail.
_VERY_DEEP = _nested_lists(20_000)

# Each a function, so that every use gets a fresh value.
HOSTILE: dict[str, Callable[[], Any]] = {
    "none": lambda: None,
    "zero": lambda: 0,
    "minus": lambda: -1,
    "huge-int": lambda: 2**80,
    "float": lambda: 1.5,
    "nan": lambda: math.nan,
    "inf": lambda: -math.inf,
    "true": lambda: True,
    "empty-text": lambda: "",
    "text": lambda: "oops",
    "lone-surrogate": lambda: "\ud800",
    "empty-list": lambda: [],
    "empty-dict": lambda: {},
    "list-of-none": lambda: [None],
    "list-of-nan": lambda: [math.nan],
    "dict-of-nan": lambda: {"x": math.nan},
    "typed-none": lambda: {"type": None, "index": None, "text": None},
    "deep-200-lists": lambda: _nested_lists(200),
    "deep-200-dicts": lambda: _nested_dicts(200),
    "deep-20000-lists": lambda: _VERY_DEEP,
}
# Reshaping the value that is there.
RESHAPE: dict[str, Callable[[Any], Any]] = {
    "in-a-list": lambda value: [value],
    "in-a-dict": lambda value: {"0": value},
    "as-text": lambda value: json.dumps(_shallow(value, 4))[:50],
}

Path = tuple[Any, ...]


def _paths(value: Any, path: Path = ()) -> Iterator[Path]:
    """Every place in a JSON value, the root excepted."""
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, item in items:
        yield (*path, key)
        yield from _paths(item, (*path, key))


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _apply(value: Any, path: Path, change: str) -> Any:
    """``value`` (a fresh copy) with ``change`` made at ``path``."""
    *head, last = path
    parent = value
    for key in head:
        parent = parent[key]
    if change == "drop":
        del parent[last]
    elif change in HOSTILE:
        parent[last] = HOSTILE[change]()
    else:
        parent[last] = RESHAPE[change](parent[last])
    return value


CHANGES = ["drop", *HOSTILE, *RESHAPE]


def _reorder(events: list[Any], change: str, at: int) -> list[Any]:
    if change == "drop-event":
        return events[:at] + events[at + 1 :]
    if change == "repeat-event":
        return events[: at + 1] + events[at:]
    if change == "swap-events":
        return events[:at] + events[at : at + 2][::-1] + events[at + 2 :]
    assert change == "cut-here"
    return events[:at]


REORDERS = ["drop-event", "repeat-event", "swap-events", "cut-here"]


# --- what must hold ------------------------------------------------------------------


class _Dump:
    """An object with a ``model_dump`` that fails or returns no object."""

    def __init__(self, result: Any) -> None:
        self.result = result

    def model_dump(self, **options: Any) -> Any:
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result


STRANGE = [object(), _Dump(TypeError("dump failed")), _Dump(ValueError("bad")), _Dump([1])]


def _sdk_form(make: Callable[[Any], Any], originals: list[Any], value: Any) -> Any:
    """``value`` as an SDK object: validated if the SDK takes it, else constructed.

    ``model_construct`` skips validation, so the object may hold anything
    the mutation put there, as an SDK object a caller built by hand might.
    A value equal to one of the seed's ``originals`` reuses its object.
    """
    for original in originals:
        if type(value) is type(original) and value == original:
            return _validated(make, original)
    try:
        return make(value)
    except Exception:  # the SDKs' own validators may raise AttributeError, for one
        pass
    if not isinstance(value, dict):
        return value
    kind = type(_validated(make, originals[0]))
    if kind is dict:
        return value  # boto3's objects are dicts: the value as botocore could not read it
    for original in originals:
        if isinstance(original, dict) and original.get("type") == value.get("type"):
            kind = type(_validated(make, original))
            break
    try:
        return kind.model_construct(**value)
    except TypeError:  # cohere's construct recurses, and fails on what no object can hold
        return value


_VALIDATED: dict[int, Any] = {}


def _validated(make: Callable[[Any], Any], original: Any) -> Any:
    """The seed value ``original`` as its SDK object, made once."""
    if id(original) not in _VALIDATED:
        _VALIDATED[id(original)] = make(original)
    return _VALIDATED[id(original)]


def _replay(module: ModuleType, messages: list[ct.Message]) -> None:
    try:
        module.to_request([ct.UserMessage(content="q"), *messages])
    except DialectError:
        pass


def check_response(module: ModuleType, response: Any) -> str:
    """Read a response; only a result or a ``ResponseError`` may come out."""
    try:
        messages = module.from_response(response)
    except ResponseError as err:
        assert str(err)
        return "refused"
    assert isinstance(messages, list)
    _replay(module, messages)
    return "read"


def check_stream(module: ModuleType, events: list[Any]) -> str:
    """Feed every event, then ask for the result; only ``StreamError`` may come out."""
    accumulator = module.Accumulator()
    refused = False
    for number, event in enumerate(events):
        try:
            accumulator.feed(event)
        except StreamError as err:
            assert err.index == number and err.event is event, str(err)
            refused = True
    try:
        messages = accumulator.result()
    except StreamError as err:
        assert err.index is None or 0 <= err.index < len(events), str(err)
        return "refused"
    assert isinstance(messages, list)
    _replay(module, messages)
    return "refused in part" if refused else "read"


def run(name: str, target: str, mutate: Callable[[Any], Any], sdk: bool) -> str:
    """Mutate the seed's response or events and check what comes out."""
    module, response, events, sdk_response, sdk_event = SEEDS[name]
    with warnings.catch_warnings():
        # The SDKs warn of values they do not know, and pydantic of objects built unchecked.
        warnings.simplefilter("ignore")
        if target == "response":
            value = mutate(_copy(response))
            if sdk:
                value = _sdk_form(sdk_response, [response], value)
            return check_response(module, value)
        mutated = mutate(_copy(events))
        if sdk:
            mutated = [_sdk_form(sdk_event, events, event) for event in mutated]
        return check_stream(module, mutated)


# --- every single mutation -----------------------------------------------------------


def single_mutations(name: str) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    """(target, mutation) for every place of the seed and every change there."""
    _, response, events, _, _ = SEEDS[name]
    for target, seed in (("response", response), ("events", events)):
        for path in _paths(seed):
            for change in CHANGES:
                yield target, functools.partial(_apply, path=path, change=change)
    for at in range(len(events)):
        for change in REORDERS:
            yield "events", functools.partial(_reorder, change=change, at=at)
        for strange in STRANGE:
            yield "events", functools.partial(_strange_event, at=at, strange=strange)
    for strange in STRANGE:
        yield "response", functools.partial(_strange_response, strange=strange)


def _strange_event(events: list[Any], at: int, strange: Any) -> list[Any]:
    return [*events[:at], strange]


def _strange_response(response: Any, strange: Any) -> Any:
    return strange


@pytest.mark.parametrize("name", NAMES)
def test_every_single_mutation_raises_only_dialect_errors(name: str) -> None:
    outcomes: dict[str, int] = {}
    for target, mutate in single_mutations(name):
        outcome = run(name, target, mutate, sdk=False)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    # Both ways out are taken: the mutations reach past the first check.
    assert outcomes.get("read", 0) > 50 and outcomes.get("refused", 0) > 500, outcomes


@pytest.mark.parametrize("name", NAMES)
def test_every_single_mutation_of_an_sdk_object_raises_only_dialect_errors(name: str) -> None:
    outcomes: dict[str, int] = {}
    for number, (target, mutate) in enumerate(single_mutations(name)):
        if number % 3 == 0:  # a third of them: the SDK objects cost more to build
            outcome = run(name, target, mutate, sdk=True)
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert outcomes.get("read", 0) > 20 and outcomes.get("refused", 0) > 100, outcomes


# --- random combinations -------------------------------------------------------------


@st.composite
def _mutations(draw: st.DrawFn, target: str) -> Callable[[Any], Any]:
    """Up to four mutations in a row, each at a place that exists by then."""
    steps: list[tuple[str, Any, str]] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["change", "change", "change", "reorder"]))
        if kind == "reorder" and target == "events":
            steps.append(("reorder", draw(st.integers(0, 40)), draw(st.sampled_from(REORDERS))))
        else:
            steps.append(("change", draw(st.integers(0, 10**6)), draw(st.sampled_from(CHANGES))))

    def mutate(value: Any) -> Any:
        for kind, pick, change in steps:
            if kind == "reorder":
                if value:
                    value = _reorder(value, change, pick % len(value))
                continue
            # Only the places a JSON copy reaches: a deep value is not walked.
            paths = list(_paths(_shallow(value)))
            if paths:
                value = _apply(value, paths[pick % len(paths)], change)
        return value

    return mutate


def _shallow(value: Any, room: int = 12) -> Any:
    """``value`` cut off below ``room`` levels, to list its places cheaply."""
    if room == 0:
        return None
    if isinstance(value, dict):
        return {key: _shallow(item, room - 1) for key, item in value.items()}
    if isinstance(value, list):
        return [_shallow(item, room - 1) for item in value]
    return value


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(400, 150))
@given(data=st.data())
def test_random_mutations_raise_only_dialect_errors(name: str, data: st.DataObject) -> None:
    target = data.draw(st.sampled_from(["response", "events", "events"]))
    mutate = data.draw(_mutations(target))
    run(name, target, mutate, sdk=data.draw(st.booleans()))
