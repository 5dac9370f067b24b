"""Streams fed as the SDKs' own event objects read exactly as their dicts do.

Most backends hand an ``Accumulator`` the event objects their provider's SDK
yields. Each dialect reads the events that come by the thousand (pieces of
text, thinking and arguments) from the object's fields, and any other event
from the object's dump; either way an object must read as its dump reads:
the same deltas, the same errors, the same ``partial()`` after every event,
and the same messages and reply, to the order of the keys in the items they
keep. So every stream here is fed as JSON, as the SDK's objects (made as the
SDK makes them while it streams, without validation, and validated; and
through the SDK's stream helper where it has one), and as those objects'
dumps, and all must agree. Then objects that no SDK would make (a field
unset, or holding what its type does not allow, a model in the place of a
dict, extra fields) must still read exactly as their dumps do.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Annotated, Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes import strategies as cst
from convtypes.dialects import StreamError, anthropic, gemini, ollama, openai_chat, openai_responses
from convtypes.dialects._json import plain
from convtypes.dialects._objects import fields, flat

from budget import examples

anthropic_sdk = pytest.importorskip("anthropic")
openai_sdk = pytest.importorskip("openai")
genai_types = pytest.importorskip("google.genai.types")
ollama_sdk = pytest.importorskip("ollama")

from anthropic._models import construct_type as anthropic_construct  # noqa: E402
from anthropic.types import Usage as AnthropicUsage  # noqa: E402
from openai._models import construct_type as openai_construct  # noqa: E402
from pydantic import (  # noqa: E402
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    RootModel,
    TypeAdapter,
    computed_field,
    create_model,
    field_serializer,
    model_serializer,
)
from pydantic import v1 as pydantic_v1  # noqa: E402

MODULES: dict[str, Any] = {
    "anthropic": anthropic,
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "gemini": gemini,
    "ollama": ollama,
}

# --- the SDKs' objects, made as each SDK makes them ------------------------------------

_ANTHROPIC = anthropic_sdk.types.RawMessageStreamEvent
_ANTHROPIC_BETA = anthropic_sdk.types.beta.BetaRawMessageStreamEvent
_RESPONSES = openai_sdk.types.responses.ResponseStreamEvent
_CHUNK = openai_sdk.types.chat.ChatCompletionChunk


class _Recorded:
    """Events in the place of the HTTP stream the anthropic SDK's ``MessageStream`` reads."""

    def __init__(self, events: list[Any]) -> None:
        self.events = events
        self.response = SimpleNamespace(request=SimpleNamespace(headers={}))

    def __iter__(self) -> Iterator[Any]:
        return iter(self.events)

    def close(self) -> None:
        pass


def _anthropic_helper(objects: list[Any]) -> list[Any]:
    from anthropic.lib.streaming import MessageStream

    return list(MessageStream(_Recorded(objects), anthropic_sdk.NOT_GIVEN))  # type: ignore[arg-type]


def _chat_helper(objects: list[Any]) -> list[Any]:
    from openai.lib.streaming.chat import ChatCompletionStreamState

    state: Any = ChatCompletionStreamState()
    return [event for chunk in objects for event in state.handle_chunk(chunk)]


def _gemini_streamed(event: dict[str, Any]) -> Any:
    # As the SDK's generate_content_stream makes each chunk (it edits its input).
    return genai_types.GenerateContentResponse._from_response(
        response=copy.deepcopy(event), kwargs={}
    )


Each = Callable[[dict[str, Any]], Any]
Whole = Callable[[list[Any]], list[Any]]

# Per dialect, the forms a backend meets: each makes every event one way,
# then (for a stream helper) turns the list into the helper's events.
FORMS: dict[str, dict[str, tuple[Each, Whole | None]]] = {
    "anthropic": {
        "constructed": (lambda e: anthropic_construct(type_=_ANTHROPIC, value=e), None),
        "validated": (TypeAdapter(_ANTHROPIC).validate_python, None),
        "beta constructed": (lambda e: anthropic_construct(type_=_ANTHROPIC_BETA, value=e), None),
        "beta validated": (TypeAdapter(_ANTHROPIC_BETA).validate_python, None),
        "helper": (lambda e: anthropic_construct(type_=_ANTHROPIC, value=e), _anthropic_helper),
    },
    "openai_chat": {
        "constructed": (lambda e: openai_construct(type_=_CHUNK, value=e), None),
        "validated": (_CHUNK.model_validate, None),
        "helper": (lambda e: openai_construct(type_=_CHUNK, value=e), _chat_helper),
    },
    "openai_responses": {
        "constructed": (lambda e: openai_construct(type_=_RESPONSES, value=e), None),
        "validated": (TypeAdapter(_RESPONSES).validate_python, None),
    },
    "gemini": {
        "streamed": (_gemini_streamed, None),
        "validated": (genai_types.GenerateContentResponse.model_validate, None),
    },
    "ollama": {
        "streamed": (lambda e: ollama_sdk.ChatResponse(**e), None),
        "validated": (ollama_sdk.ChatResponse.model_validate, None),
    },
}

_GEMINI_SDK_ONLY = {"sdk_http_response", "automatic_function_calling_history", "parsed"}


def dump(dialect: str, event: Any) -> Any:
    """The event as an object is read when it is not read field by field: its dump."""
    if not isinstance(event, BaseModel):
        return event
    if dialect == "gemini":
        return event.model_dump(exclude_none=True, exclude=_GEMINI_SDK_ONLY, warnings=False)
    return plain(event, "an event")


def objects_of(dialect: str, form: str, events: list[dict[str, Any]]) -> list[Any]:
    each, whole = FORMS[dialect][form]
    if dialect == "anthropic":
        events = [e for e in events if e["type"] != "ping"]  # the SDK drops them
    made = [each(copy.deepcopy(event)) for event in events]
    return whole(made) if whole is not None else made


# --- what a stream gives, event by event --------------------------------------------------


def _shown(value: object) -> str:
    """A value to compare: its repr, which shows the order of the keys of every dict."""
    return repr(value)


def _outcome(call: Callable[[], object]) -> tuple[str, ...]:
    try:
        return ("ok", _shown(call()))
    except StreamError as err:
        return ("StreamError", str(err), _shown(err.args[1:]))


def trace(dialect: str, events: list[Any]) -> list[tuple[str, ...]]:
    """Each event's deltas (or error) and ``partial()`` after it; then the result and reply."""
    accumulator = MODULES[dialect].Accumulator()
    out: list[tuple[str, ...]] = []
    for event in events:
        out.append(_outcome(functools.partial(accumulator.feed, event)))
        out.append(_outcome(accumulator.partial))
    out.append(_outcome(accumulator.result))
    out.append(_outcome(accumulator.reply))
    return out


def whole_of(dialect: str, events: list[Any]) -> tuple[object, ...]:
    """All the stream's deltas, its messages and its reply (or where it failed).

    Compared by value: the items an object's reply keeps are its dump, whose
    keys come in the order the SDK declares its fields, not the JSON's.
    """
    accumulator = MODULES[dialect].Accumulator()
    try:
        deltas = [delta for event in events for delta in accumulator.feed(event)]
        return ("ok", deltas, accumulator.result(), accumulator.reply())
    except StreamError as err:
        return ("StreamError", str(err))


def check_every_form(dialect: str, events: list[dict[str, Any]], readable: bool = True) -> None:
    """Every form of the stream reads as its JSON does, and event by event as its dumps do.

    A ``readable`` stream's JSON must read without an error, so that the
    forms are not merely failing alike.
    """
    expected = whole_of(dialect, events)
    assert expected[0] == "ok" or not readable, expected
    for form in FORMS[dialect]:
        objects = objects_of(dialect, form, events)
        assert whole_of(dialect, objects) == expected, form
        assert trace(dialect, objects) == trace(dialect, [dump(dialect, o) for o in objects]), form


# --- streams in the shapes the providers send ---------------------------------------------

from test_anthropic_turn import SEARCHED, client_call, reply_of  # noqa: E402
from test_anthropic_turn import stream_of as anthropic_stream  # noqa: E402
from test_gemini_turn import CALL_STREAM  # noqa: E402
from test_gemini_turn import chunk as gemini_chunk  # noqa: E402
from test_ollama import chunks as ollama_chunks  # noqa: E402
from test_ollama import message as ollama_message  # noqa: E402
from test_ollama import response as ollama_response  # noqa: E402
from test_openai_chat_turn import USAGE as CHAT_USAGE  # noqa: E402
from test_openai_chat_turn import chunk as chat_chunk  # noqa: E402
from test_openai_chat_turn import two_calls_stream, usage_chunk  # noqa: E402
from test_openai_responses_turn import call_item, message_item, text_part  # noqa: E402
from test_openai_responses_turn import response as responses_response  # noqa: E402
from test_openai_responses_turn import stream_of as responses_stream  # noqa: E402


def _words(text: str) -> list[str]:
    pieces = [piece + " " for piece in text.split(" ")]
    pieces[-1] = pieces[-1][:-1]
    return [piece for piece in pieces if piece] or [text]


def _second_choice(text: str) -> dict[str, Any]:
    """A chunk of a second choice's text (a request with ``n`` of 2)."""
    second = {"index": 1, "delta": {"content": text}, "finish_reason": None, "logprobs": None}
    return {**chat_chunk({}), "choices": [second]}


THINKING = {"type": "thinking", "thinking": "The user wants the tide times.", "signature": "c2ln"}


def _anthropic_streams() -> list[list[dict[str, Any]]]:
    plain_reply = reply_of(
        [THINKING, {"type": "text", "text": "Let me look that up."}, client_call(path="a.txt")],
        stop="tool_use",
    )
    gap = reply_of(
        [
            {"type": "text", "text": "First I read it."},
            client_call(path="b.txt"),
            {"type": "text", "text": "Then I answer."},
        ]
    )
    cut = reply_of([{"type": "text", "text": "Writing"}, client_call(path="c.txt")], "max_tokens")
    with_ping = anthropic_stream(plain_reply, _words)
    with_ping.insert(2, {"type": "ping"})
    return [
        with_ping,
        anthropic_stream(reply_of(SEARCHED), _words),
        anthropic_stream(gap, _words),
        anthropic_stream(cut, _words, unstopped=True),
    ]


def _chat_streams() -> list[list[dict[str, Any]]]:
    reasoning = [
        chat_chunk({"role": "assistant", "content": ""}),
        chat_chunk({"reasoning_content": "Two cities, "}),
        chat_chunk({"content": None, "reasoning_content": "two calls."}),
        chat_chunk({"content": "Both are mild."}),
        chat_chunk({}, "stop"),
        usage_chunk(CHAT_USAGE),
    ]
    refused = [
        chat_chunk({"role": "assistant", "content": "", "refusal": None}),
        chat_chunk({"content": "Fine, "}),
        _second_choice("Sure."),
        chat_chunk({"refusal": "but no."}),
        chat_chunk({}, "stop"),
    ]
    # Some compatible servers send a call's id, type and name again with its
    # later pieces, and two calls begin in one stream with the role first.
    repeated = [
        chat_chunk({"role": "assistant", "tool_calls": [_chat_call(0, "call_a", "f", '{"a"')]}),
        chat_chunk({"tool_calls": [_chat_call(0, "call_a", "f", ": 1}")]}),
        chat_chunk({"tool_calls": [{"index": 1, "id": "call_b", "function": {"name": "g"}}]}),
        chat_chunk({"tool_calls": [{"index": 1, "function": {"arguments": "{}"}}]}),
        chat_chunk({}, "tool_calls"),
    ]
    return [two_calls_stream(), reasoning, refused, repeated]


def _chat_call(at: int, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    function = {"name": name, "arguments": arguments}
    return {"index": at, "id": call_id, "type": "function", "function": function}


def _responses_streams() -> list[list[dict[str, Any]]]:
    reply = responses_response(
        [
            message_item(text_part("The tide is high at six.")),
            call_item(1, "tides", '{"port": "Brest", "days": [1, 2]}'),
        ]
    )
    return [responses_stream(reply, cut=_words)]


def _gemini_streams() -> list[list[dict[str, Any]]]:
    usage = {"promptTokenCount": 12, "totalTokenCount": 12}
    text = [gemini_chunk([{"text": piece}], usage=usage) for piece in _words("It is high at six.")]
    thought = [
        gemini_chunk([{"text": piece, "thought": True}], usage=usage)
        for piece in _words("The user wants tides.")
    ]
    last = gemini_chunk([{"text": ""}], "STOP", usage={**usage, "candidatesTokenCount": 9})
    # Signed parts, their signatures in the standard base64 the REST JSON has
    # ("+/8=" is the bytes FB FF, which the SDK's own dump writes "-_8=").
    signed = [
        gemini_chunk([{"text": "Tides", "thought": True, "thoughtSignature": "+/8="}]),
        gemini_chunk([{"text": " at six.", "thoughtSignature": "AAEC"}], "STOP", usage=usage),
    ]
    return [CALL_STREAM, [*thought, *text, last], [*text, gemini_chunk(None, "STOP")], signed]


def _ollama_streams() -> list[list[dict[str, Any]]]:
    # Without ids: the ollama package's own types have no place for one.
    reply = ollama_message(
        "It is mild in Oslo.",
        "The user asks for the weather.",
        [("weather", {"city": "Oslo"})],
        ids=False,
    )
    return [ollama_chunks(ollama_response(reply), _words)]


STREAMS = {
    "anthropic": _anthropic_streams,
    "openai_chat": _chat_streams,
    "openai_responses": _responses_streams,
    "gemini": _gemini_streams,
    "ollama": _ollama_streams,
}


@pytest.mark.parametrize(
    ("dialect", "number"),
    [(dialect, number) for dialect, make in STREAMS.items() for number in range(len(make()))],
)
def test_every_form_of_a_recorded_stream_reads_alike(dialect: str, number: int) -> None:
    check_every_form(dialect, STREAMS[dialect]()[number])


# --- streams of any text, thinking and arguments -----------------------------------------

# Text from anywhere in Unicode, lone surrogates too: an SDK keeps what the JSON said.
_TEXT = st.text(st.characters(exclude_categories=()), max_size=12)
_ARGUMENTS = st.dictionaries(cst.texts(6), cst.json_values(3), max_size=3)
# A reply: thinking, text and calls, in any order.
_SEGMENTS = st.lists(
    st.one_of(
        st.tuples(st.just("text"), _TEXT),
        st.tuples(st.just("thinking"), _TEXT),
        st.tuples(st.just("refusal"), _TEXT),  # text, where an API has no refusal of its own
        st.tuples(st.just("call"), _ARGUMENTS),
    ),
    max_size=5,
)


def _cutter(data: st.DataObject) -> Callable[[str], list[str]]:
    def cut(text: str) -> list[str]:
        if len(text) < 2:
            return [text]
        points = data.draw(st.lists(st.integers(1, len(text) - 1), max_size=3, unique=True))
        edges = [0, *sorted(points), len(text)]
        return [text[a:b] for a, b in itertools.pairwise(edges)]

    return cut


_CHAT_KEYS = {"text": "content", "thinking": "reasoning_content", "refusal": "refusal"}


def stream_for(dialect: str, segments: list[tuple[str, Any]], data: st.DataObject) -> list[Any]:
    """The stream of a reply of ``segments`` in ``dialect``, its pieces cut anyhow."""
    cut = _cutter(data)
    if dialect == "anthropic":
        content: list[dict[str, Any]] = []
        for number, (kind, value) in enumerate(segments):
            if kind in ("text", "refusal"):
                content.append({"type": "text", "text": value})
            elif kind == "thinking":
                content.append({"type": "thinking", "thinking": value, "signature": "c2ln"})
            else:
                content.append(client_call(f"toolu_{number:02d}", **{"args": value}))
        called = any(kind == "call" for kind, _ in segments)
        return anthropic_stream(reply_of(content, "tool_use" if called else "end_turn"), cut)
    if dialect == "openai_chat":
        events = [chat_chunk({"role": "assistant", "content": ""})]
        started = 0
        for kind, value in segments:
            if kind == "call":
                pieces = cut(json.dumps(value))
                first = {"name": "f", "arguments": pieces[0]}
                call = {"index": started, "id": f"call_{started}", "type": "function"}
                events.append(chat_chunk({"tool_calls": [{**call, "function": first}]}))
                events += [
                    chat_chunk({"tool_calls": [{"index": started, "function": {"arguments": p}}]})
                    for p in pieces[1:]
                ]
                started += 1
            elif not started:  # text after calls is not what Chat Completions sends
                key = _CHAT_KEYS[kind]
                events += [chat_chunk({key: piece}) for piece in cut(value)]
        events.append(chat_chunk({}, "tool_calls" if started else "stop"))
        return [*events, usage_chunk(CHAT_USAGE)]
    if dialect == "openai_responses":
        output = [
            message_item(text_part(value), item_id=f"msg_{number}")
            if kind != "call"
            else call_item(number, "f", json.dumps(value))
            for number, (kind, value) in enumerate(segments)
        ]
        return responses_stream(responses_response(output), cut=cut)
    if dialect == "gemini":
        usage = {"promptTokenCount": 12, "totalTokenCount": 12}
        events = []
        for kind, value in segments:
            if kind == "call":
                part = {"functionCall": {"name": "f", "args": value}}
                events.append(gemini_chunk([part], usage=usage))
            else:
                flag = {"thought": True} if kind == "thinking" else {}
                events += [gemini_chunk([{"text": p, **flag}], usage=usage) for p in cut(value)]
        return [*events, gemini_chunk([{"text": ""}], "STOP", usage=usage)]
    texts = [value for kind, value in segments if kind in ("text", "refusal")]
    thoughts = [value for kind, value in segments if kind == "thinking"]
    calls = [("f", value) for kind, value in segments if kind == "call"]
    reply = ollama_message("".join(texts), "".join(thoughts), calls, ids=False)
    return ollama_chunks(ollama_response(reply), cut)


@settings(max_examples=examples(200, 15))
@given(st.sampled_from(sorted(STREAMS)), _SEGMENTS, st.data())
def test_every_form_of_any_stream_reads_alike(
    dialect: str, segments: list[tuple[str, Any]], data: st.DataObject
) -> None:
    # Text with a lone surrogate streams, but no message can hold it: every
    # form must fail alike, at the same event.
    lone = any(
        "\ud800" <= ch <= "\udfff"
        for _, value in segments
        for ch in json.dumps(value, ensure_ascii=False)
    )
    check_every_form(dialect, stream_for(dialect, segments, data), readable=not lone)


# --- objects no SDK would make --------------------------------------------------------------

# The values a spoiled field holds: what no type of the SDK allows there.
_JUNK: list[object] = [
    None,
    0,
    True,
    1.5,
    "",
    "x",
    "text_delta",
    "content_block_delta",
    [],
    ["x"],
    {},
    {"type": "text_delta", "text": "y"},
]
_FEW_JUNK: list[object] = [None, 0, 1, "x", {}]
_EXTRA_KEYS = ["note", "reasoning_content", "index", "content", "type"]


def models_in(value: object) -> Iterator[BaseModel]:
    """Every pydantic model in ``value``, itself first."""
    if isinstance(value, BaseModel):
        yield value
        for item in list(value.__dict__.values()):
            yield from models_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from models_in(item)


Spoil = Callable[[BaseModel], None]


def _unset(name: str, model: BaseModel) -> None:
    model.__pydantic_fields_set__.discard(name)


def _hold(name: str, value: object, model: BaseModel) -> None:
    model.__dict__[name] = value


def _hold_dump(name: str, model: BaseModel) -> None:
    model.__dict__[name] = model.__dict__[name].model_dump(by_alias=True)


def _add_extra(key: str, model: BaseModel) -> None:
    extra = model.__pydantic_extra__
    assert extra is not None
    extra[key] = "x"


def spoils(target: BaseModel, junk: list[object]) -> Iterator[Spoil]:
    """Each way to change ``target`` as no SDK would."""
    for name in sorted(target.__pydantic_fields_set__):
        yield functools.partial(_unset, name)
    for name in sorted(target.__dict__):
        # A field left null gets one value it cannot hold; the others, each.
        for value in junk if target.__dict__[name] is not None else ["x"]:
            yield functools.partial(_hold, name, value)
        if isinstance(target.__dict__[name], BaseModel):
            # A field holding its value's dump: what the SDKs' constructors
            # leave where a value fits none of the types they know.
            yield functools.partial(_hold_dump, name)
    if isinstance(target.__pydantic_extra__, dict):
        for key in _EXTRA_KEYS:
            yield functools.partial(_add_extra, key)


# The forms whose events the dialect read from their dumps before it read some
# of them field by field: not the helpers' events, read by their type alone,
# nor the Responses API's, whose deltas were read from the fields before.
_SPOILABLE = [
    (dialect, form)
    for dialect, forms in FORMS.items()
    for form, (_, whole) in forms.items()
    if whole is None and dialect != "openai_responses"
]
# Anthropic's events read by their type and index alone, not their dump.
_BARE = frozenset({"message_stop", "content_block_stop", "ping"})


def _dumped_before(dialect: str, event: Any) -> bool:
    return dialect != "anthropic" or getattr(event, "type", None) not in _BARE


def _short_stream(dialect: str) -> list[dict[str, Any]]:
    """A stream with each kind of event the dialect reads field by field, and a few others."""
    segments: list[tuple[str, Any]] = [
        ("thinking", "Think."),
        ("text", "Say it."),
        ("refusal", "No."),
        ("call", {"city": "Oslo"}),
    ]
    data = SimpleNamespace(draw=lambda strategy: [3])  # every piece cut once, at 3
    events: list[Any] = stream_for(dialect, segments, data)  # type: ignore[arg-type]
    if dialect == "openai_chat":  # and a piece of a second choice's
        events.insert(2, _second_choice("Or not."))
    return events


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic, dumping what was spoiled
@pytest.mark.parametrize(
    ("dialect", "form"),
    [
        ("anthropic", "constructed"),
        ("openai_chat", "constructed"),
        ("gemini", "streamed"),
        ("ollama", "streamed"),
    ],
)
def test_every_spoiled_field_of_a_stream_reads_as_its_dump(dialect: str, form: str) -> None:
    events = _short_stream(dialect)
    pristine = objects_of(dialect, form, events)
    for at, event in enumerate(pristine):
        if not _dumped_before(dialect, event):
            continue
        for depth, target in enumerate(models_in(event)):
            for spoil in spoils(target, _FEW_JUNK):
                objects = objects_of(dialect, form, events)
                spoil(list(models_in(objects[at]))[depth])
                dumps = [dump(dialect, o) for o in objects]
                assert trace(dialect, objects) == trace(dialect, dumps), (at, depth, dumps[at])


@st.composite
def spoiled(draw: st.DrawFn, event: Any) -> Any:
    """``event`` with one of its models changed as no SDK would change it."""
    target = draw(st.sampled_from(list(models_in(event))))
    draw(st.sampled_from(list(spoils(target, _JUNK))))(target)
    return event


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic, dumping what was spoiled
@settings(max_examples=examples(300, 25))
@given(st.sampled_from(_SPOILABLE), _SEGMENTS, st.data())
def test_objects_no_sdk_would_make_read_as_their_dumps(
    chosen: tuple[str, str], segments: list[tuple[str, Any]], data: st.DataObject
) -> None:
    dialect, form = chosen
    objects = objects_of(dialect, form, stream_for(dialect, segments, data))
    open_to = [at for at, event in enumerate(objects) if _dumped_before(dialect, event)]
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.sampled_from(open_to))
        objects[at] = data.draw(spoiled(objects[at]))
    assert trace(dialect, objects) == trace(dialect, [dump(dialect, o) for o in objects])


# --- objects of classes of one's own --------------------------------------------------------

_FIELD_TWISTS = ["alias", "excluded", "annotated", "serializer"]
_TWISTS = ["none", *_FIELD_TWISTS, "whole", "computed"]


def _bracketed(value: object) -> str:
    return f"<{value}>"


_OWN: dict[tuple[type, tuple[str, ...], str, str], Any] = {}


def remade(model: BaseModel, name: str, twist: str) -> BaseModel:
    """``model`` as an object of a class of one's own, whose dump twists field ``name``.

    The class has the same fields and values (``twist`` "none"), or writes
    ``name`` under an alias, leaves it out, rewrites it (an annotation's
    serializer, a field serializer, a serializer of the whole model), or
    adds a computed field.
    """
    key = (type(model), tuple(model.__dict__), name, twist)
    if key not in _OWN:
        _OWN[key] = _own_class(model, name, twist)
    return _OWN[key].model_construct(  # type: ignore[no-any-return]
        _fields_set=set(model.__pydantic_fields_set__), **model.__dict__
    )


def _own_class(model: BaseModel, name: str, twist: str) -> Any:
    shapes: dict[str, Any] = {key: (Any, None) for key in model.__dict__}
    named: dict[str, Any] = {}
    if twist == "alias":
        shapes[name] = (Any, Field(None, serialization_alias=f"{name}_"))
    elif twist == "excluded":
        shapes[name] = (Any, Field(None, exclude=True))
    elif twist == "annotated":
        shapes[name] = (Annotated[Any, PlainSerializer(_bracketed)], None)
    elif twist == "serializer":

        def bracket(self: Any, value: Any) -> Any:
            return _bracketed(value)

        named["bracket"] = field_serializer(name)(bracket)
    elif twist == "whole":

        def whole(self: Any) -> dict[str, Any]:
            return {**self.__dict__, name: "other"}

        named["whole"] = model_serializer(whole)
    elif twist == "computed":

        def note(self: Any) -> str:
            return "computed"

        named["note"] = computed_field(property(note))
    return create_model(
        f"Own{type(model).__name__}",
        __config__=ConfigDict(extra="allow"),
        __validators__=named,
        **shapes,
    )


def _put_in_field(holder: BaseModel, key: str, new: BaseModel) -> None:
    holder.__dict__[key] = new


def _put_in_list(items: list[Any], at: int, new: BaseModel) -> None:
    items[at] = new


def _places(event: BaseModel) -> Iterator[tuple[BaseModel, Callable[[BaseModel], None] | None]]:
    """Each model in ``event``, with how to put another in its place (the event: ``None``)."""
    yield event, None
    for holder in models_in(event):
        for key, value in list(holder.__dict__.items()):
            if isinstance(value, BaseModel):
                yield value, functools.partial(_put_in_field, holder, key)
            elif isinstance(value, list):
                for at, item in enumerate(value):
                    if isinstance(item, BaseModel):
                        yield item, functools.partial(_put_in_list, value, at)


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic, dumping a class it did not expect
@pytest.mark.parametrize(
    ("dialect", "form"),
    [
        ("anthropic", "constructed"),
        ("openai_chat", "constructed"),
        ("gemini", "streamed"),
        ("ollama", "streamed"),
    ],
)
def test_objects_of_ones_own_classes_read_as_their_dumps(dialect: str, form: str) -> None:
    """A model of a class that renames, drops or rewrites a field is read from its dump."""
    events = _short_stream(dialect)
    pristine = objects_of(dialect, form, events)
    for at, event in enumerate(pristine):
        if not _dumped_before(dialect, event):
            continue
        for depth, (model, _) in enumerate(_places(event)):
            names = sorted(k for k, v in model.__dict__.items() if v is not None)
            for number, name in enumerate(names):
                # A twist of one field, on each; of the whole class, once.
                for twist in _TWISTS if number == 0 else _FIELD_TWISTS:
                    objects = objects_of(dialect, form, events)
                    place_model, put = list(_places(objects[at]))[depth]
                    new = remade(place_model, name, twist)
                    if put is None:
                        objects[at] = new
                    else:
                        put(new)
                    dumps = [dump(dialect, o) for o in objects]
                    assert trace(dialect, objects) == trace(dialect, dumps), (at, name, twist)


# --- which classes are read field by field --------------------------------------------------


class _Plain(BaseModel):
    type: str
    text: str = ""


class _Renamed(BaseModel):
    type: str
    text: str = Field("", alias="body")


class _Root(RootModel[dict[str, str]]):
    pass


class _Legacy(pydantic_v1.BaseModel):
    type: str


def test_only_models_that_dump_each_field_as_it_is_are_read_by_their_fields() -> None:
    plain_delta = _Plain(type="text_delta", text="hi")
    assert fields(plain_delta) is plain_delta.__dict__
    renamed = _Renamed(type="text_delta", body="hi")
    assert fields(renamed) is None  # a dump by alias writes "body"
    assert fields(renamed, by_alias=False) is renamed.__dict__  # a dump by name writes "text"
    for other in (
        {"type": "text_delta"},
        SimpleNamespace(type="text_delta", text="hi"),
        _Root({"type": "text_delta"}),
        _Legacy(type="text_delta"),
        "text_delta",
        None,
    ):
        assert fields(other) is None, other


def test_a_field_never_given_is_not_read_even_where_the_object_holds_it() -> None:
    """A dump leaves out the fields an object was not given: so does ``feed``."""
    start = {"type": "message_start", "message": reply_of([], stop=None)}
    block = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    event = anthropic_sdk.types.RawContentBlockDeltaEvent(
        type="content_block_delta",
        index=0,
        delta=anthropic_sdk.types.TextDelta(type="text_delta", text="hi"),
    )
    event.__pydantic_fields_set__.discard("index")
    accumulator = anthropic.Accumulator()
    accumulator.feed(start)
    accumulator.feed(block)
    assert event.index == 0
    with pytest.raises(StreamError, match=r"event 2 \(content_block_delta\): has no integer index"):
        accumulator.feed(event)


# --- the start of a message and of a block, read field by field -----------------------------


class _UsageOfMyOwn(AnthropicUsage):
    """A subclass of the SDK's usage with a field of its own, which the event's dump leaves out."""

    mine: int = 0


def _anthropic_events() -> list[dict[str, Any]]:
    start = {"type": "message_start", "message": reply_of([], stop=None)}
    text = {"type": "text", "text": ""}
    block = {"type": "content_block_start", "index": 0, "content_block": text}
    return [
        start,
        block,
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 7},
        },
        {"type": "message_stop"},
    ]


def _reads_as_dumps(events: list[Any]) -> None:
    dumps = [dump("anthropic", event) for event in events]
    assert trace("anthropic", events) == trace("anthropic", dumps)


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic, dumping what it did not expect
def test_a_usage_of_a_subclass_reads_as_the_event_dumps_it() -> None:
    """The event writes its usage by the class it declares: the subclass's own field is not kept."""
    events = objects_of("anthropic", "constructed", _anthropic_events())
    for at, holder in ((0, events[0].message), (4, events[4])):
        usage = _UsageOfMyOwn.model_construct(**holder.usage.__dict__, mine=5)
        usage.__pydantic_fields_set__.add("mine")
        holder.__dict__["usage"] = usage
        assert "mine" not in json.dumps(dump("anthropic", events[at]))
    _reads_as_dumps(events)
    assert "mine" not in json.dumps(msgspec.to_builtins(anthropic_reply(events).usage))


def anthropic_reply(events: list[Any]) -> Any:
    accumulator = anthropic.Accumulator()
    for event in events:
        accumulator.feed(event)
    return accumulator.reply()


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    "value", [(1, 2), {"nested": (3,)}, anthropic_sdk.types.TextBlock(type="text", text="x")]
)
@pytest.mark.parametrize("at", [0, 1, 4])
def test_an_extra_field_a_dump_rewrites_sends_the_event_to_its_dump(value: object, at: int) -> None:
    """A tuple is written as a list, a model as a dict: only the dump says how."""
    events = objects_of("anthropic", "constructed", _anthropic_events())
    holder = {0: events[0].message.usage, 1: events[1].content_block, 4: events[4].usage}[at]
    assert holder.__pydantic_extra__ is not None
    holder.__pydantic_extra__["mine"] = value
    _reads_as_dumps(events)
    assert trace("anthropic", events) != trace(
        "anthropic", objects_of("anthropic", "constructed", _anthropic_events())
    )


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    ("at", "name", "value"), [(0, "input_tokens", True), (4, "output_tokens", True)]
)
def test_a_value_its_field_writes_otherwise_sends_the_event_to_its_dump(
    at: int, name: str, value: object
) -> None:
    """A boolean in an integer field is dumped as a number: only the dump says so."""
    events = objects_of("anthropic", "constructed", _anthropic_events())
    usage = events[0].message.usage if at == 0 else events[4].usage
    usage.__dict__[name] = value
    assert dump("anthropic", events[at])["usage" if at == 4 else "message"] is not None
    _reads_as_dumps(events)
    reply = anthropic_reply(events)
    assert type(reply.usage.raw[name]) is int, reply.usage.raw


# --- a dump made from fields ---------------------------------------------------------------


class _Inner(BaseModel):
    n: int = 0


class _InnerOfMyOwn(_Inner):
    mine: int = 5


class _Outer(BaseModel):
    inner: _Inner | None = None
    tag: str = ""
    items: list[_Inner] = []


class _Rewritten(BaseModel):
    inner: Annotated[_Inner, PlainSerializer(lambda _: "rewritten")] | None = None


class _Chain(BaseModel):
    next: _Chain | None = None


def _json_dump(model: BaseModel) -> Any:
    return model.model_dump(mode="json", exclude_unset=True, by_alias=True, warnings=False)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_flat_is_the_dump_or_nothing() -> None:
    """``flat`` gives the JSON dump exactly, or ``None`` where only the dump can tell."""
    made = _Outer(inner=_Inner(n=1), tag="a", items=[])
    assert flat(made) == _json_dump(made) == {"inner": {"n": 1}, "tag": "a", "items": []}
    assert list(flat(_Outer(tag="b", inner=None)) or ()) == ["inner", "tag"]  # declared order
    odd = [
        _Outer.model_construct(inner=_Inner.model_construct(n=True)),  # written as 1
        _Outer.model_construct(inner=_InnerOfMyOwn(mine=7)),  # written as an _Inner
        _Outer.model_construct(items=[_Inner()]),  # a list with something in it
        _Outer.model_construct(tag=3),  # not text, written by what it is
        _Rewritten(inner=_Inner()),  # a serializer in the field's type
    ]
    for model in odd:
        assert flat(model) is None, model
    deep = _Chain()
    for _ in range(12):
        deep = _Chain(next=deep)
    assert flat(deep) is None  # deeper than flat goes: the dump's to write
    assert flat(_Chain(next=_Chain())) == _json_dump(_Chain(next=_Chain()))


def test_an_anthropic_event_never_given_its_type_reads_as_its_dump() -> None:
    # Found by a random draw: a bare event (message_stop, content_block_stop)
    # whose type was never set on the object was read by that type, while its
    # dump, which leaves unset fields out, has none.
    from anthropic.types import RawContentBlockStopEvent, RawMessageStopEvent

    for made in (
        RawMessageStopEvent.model_construct(type="message_stop"),
        RawContentBlockStopEvent.model_construct(type="content_block_stop", index=0),
    ):
        made.__pydantic_fields_set__.discard("type")
        assert "type" not in dump("anthropic", made)
        assert trace("anthropic", [made]) == trace("anthropic", [dump("anthropic", made)])
        assert trace("anthropic", [made])[0][0] == "StreamError"
