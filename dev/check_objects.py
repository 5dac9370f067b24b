"""Every recorded stream, fed as the SDKs' objects, reads as it did before they were read by field.

    python dev/check_objects.py PATH/TO/sdk_fixtures [REV]

The dialects read the events that come by the thousand from an SDK object's
fields, and any other from its dump. For every recorded stream (see
dev/README.md), in every form a backend meets it (the raw JSON; the SDK's
objects made without validation, as its stream makes them, and validated;
the events of its stream helper), this feeds today's ``Accumulator`` and the
one of commit REV (by default the benchmarks' baseline, ``_baseline.BEFORE``:
the last commit before any event was read by field), imported beside
it, and compares event by event: the deltas or the error, ``partial()``
after each event, then ``result()`` and ``reply()``, by their repr, which
shows the order of every dict's keys. It also checks that the objects give
what the JSON gives (by value: an object's items are its dump, in the order
the SDK declares its fields).
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "benchmarks"))

import _baseline  # noqa: E402
from _recorded import Outcome, jest_snapshots, sse_events  # noqa: E402


def _anthropic_streams(root: Path) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    base = root / "anthropic-sdk-python/tests"
    for path in sorted((base / "lib/streaming/fixtures").glob("*.txt")) + sorted(
        (base / "fixtures/fable-fallback").glob("*.sse")
    ):
        yield path.name, sse_events(path.read_text())
    for path in sorted((base / "lib").glob("**/__inline_snapshot__/**/*.json")):
        for number, exchange in enumerate(json.loads(path.read_text())):
            body = exchange["response"]["body"]
            if exchange["response"]["status_code"] == 200 and isinstance(body, str):
                yield f"{path.parent.name}/{path.stem[:8]}#{number}", sse_events(body)


def _chat_streams(root: Path) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    for path in sorted((root / "openai-python/.inline-snapshot/external").glob("*.bin")):
        yield path.name[:12], sse_events(path.read_text())
    snap = root / "openai-node/tests/lib/__snapshots__/ChatCompletionStream.test.ts.snap"
    for name, body in jest_snapshots(snap):
        yield name, sse_events(body)


def _responses_streams(root: Path) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    snap = root / "openai-node/tests/lib/__snapshots__/ResponseStream.test.ts.snap"
    for name, body in jest_snapshots(snap):
        yield name, sse_events(re.sub(r'\\(["\\])', r"\1", body))


def _gemini_streams(root: Path) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    seen: set[str] = set()
    for path in sorted((root / "gemini-cli/integration-tests").glob("*.responses")):
        for number, line in enumerate(path.read_text().splitlines()):
            if not line.strip():
                continue
            entry = json.loads(line)
            key = json.dumps(entry, sort_keys=True)
            if entry["method"] != "generateContentStream" or key in seen:
                continue
            seen.add(key)
            yield f"{path.name.removesuffix('.responses')}:{number}", entry["response"]


STREAMS: dict[str, Callable[[Path], Iterator[tuple[str, list[dict[str, Any]]]]]] = {
    "anthropic": _anthropic_streams,
    "openai_chat": _chat_streams,
    "openai_responses": _responses_streams,
    "gemini": _gemini_streams,
}


# --- the forms a backend meets ---------------------------------------------------------


class _Recorded:
    """Events in the place of the HTTP stream the anthropic SDK's ``MessageStream`` reads."""

    def __init__(self, events: list[Any]) -> None:
        self.events = events
        self.response = SimpleNamespace(request=SimpleNamespace(headers={}))

    def __iter__(self) -> Iterator[Any]:
        return iter(self.events)

    def close(self) -> None:
        pass


def _anthropic_forms() -> dict[str, Callable[[list[dict[str, Any]]], list[Any]]]:
    import anthropic as sdk
    from anthropic._models import construct_type
    from anthropic.lib.streaming import BetaMessageStream, MessageStream
    from pydantic import TypeAdapter

    plain_type = sdk.types.RawMessageStreamEvent
    beta_type = sdk.types.beta.BetaRawMessageStreamEvent

    def made(kind: Any, validated: bool, events: list[dict[str, Any]]) -> list[Any]:
        events = [copy.deepcopy(e) for e in events if e["type"] != "ping"]  # the SDK drops pings
        if validated:
            return [TypeAdapter(kind).validate_python(e) for e in events]
        return [construct_type(type_=kind, value=e) for e in events]

    def helper(stream: Any, kind: Any, events: list[dict[str, Any]]) -> list[Any]:
        return list(stream(_Recorded(made(kind, False, events)), sdk.NOT_GIVEN))

    return {
        "constructed": functools.partial(made, plain_type, False),
        "validated": functools.partial(made, plain_type, True),
        "beta constructed": functools.partial(made, beta_type, False),
        "beta validated": functools.partial(made, beta_type, True),
        "helper": functools.partial(helper, MessageStream, plain_type),
        "beta helper": functools.partial(helper, BetaMessageStream, beta_type),
    }


def _chat_forms() -> dict[str, Callable[[list[dict[str, Any]]], list[Any]]]:
    from openai._models import construct_type
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    def constructed(events: list[dict[str, Any]]) -> list[Any]:
        return [construct_type(type_=ChatCompletionChunk, value=copy.deepcopy(e)) for e in events]

    def helper(events: list[dict[str, Any]]) -> list[Any]:
        state: Any = ChatCompletionStreamState()
        return [event for chunk in constructed(events) for event in state.handle_chunk(chunk)]

    return {
        "constructed": constructed,
        "validated": lambda events: [ChatCompletionChunk.model_validate(e) for e in events],
        "helper": helper,
    }


def _responses_forms() -> dict[str, Callable[[list[dict[str, Any]]], list[Any]]]:
    import openai
    from openai._models import construct_type
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent
    from pydantic import TypeAdapter

    def constructed(events: list[dict[str, Any]]) -> list[Any]:
        return [construct_type(type_=ResponseStreamEvent, value=copy.deepcopy(e)) for e in events]

    def helper(events: list[dict[str, Any]]) -> list[Any]:
        state: Any = ResponseStreamState(input_tools=openai.omit, text_format=openai.omit)
        return [event for raw in constructed(events) for event in state.handle_event(raw)]

    adapter: Any = TypeAdapter(ResponseStreamEvent)
    return {
        "constructed": constructed,
        "validated": lambda events: [adapter.validate_python(e) for e in events],
        "helper": helper,
    }


def _gemini_forms() -> dict[str, Callable[[list[dict[str, Any]]], list[Any]]]:
    from google.genai import types

    response = types.GenerateContentResponse
    return {
        "streamed": lambda events: [
            response._from_response(response=copy.deepcopy(e), kwargs={}) for e in events
        ],
        "validated": lambda events: [response.model_validate(e) for e in events],
    }


FORMS = {
    "anthropic": _anthropic_forms,
    "openai_chat": _chat_forms,
    "openai_responses": _responses_forms,
    "gemini": _gemini_forms,
}


# --- feeding ------------------------------------------------------------------------------


def _outcome(call: Callable[[], object]) -> tuple[str, ...]:
    try:
        return ("ok", repr(call()))
    except Exception as err:  # both versions' StreamError, each its own class
        if type(err).__name__ != "StreamError":
            raise
        return ("StreamError", str(err))


def trace(module: ModuleType, events: list[Any]) -> list[tuple[str, ...]]:
    accumulator = module.Accumulator()
    out = []
    for event in events:
        out.append(_outcome(functools.partial(accumulator.feed, event)))
        out.append(_outcome(accumulator.partial))
    out.append(_outcome(accumulator.result))
    out.append(_outcome(accumulator.reply))
    return out


def whole(module: ModuleType, events: list[Any]) -> object:
    accumulator = module.Accumulator()
    try:
        deltas = [delta for event in events for delta in accumulator.feed(event)]
        return (deltas, accumulator.result(), accumulator.reply())
    except Exception as err:
        if type(err).__name__ != "StreamError":
            raise
        return str(err)


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    root = Path(sys.argv[1])
    rev = sys.argv[2] if len(sys.argv) > 2 else _baseline.BEFORE
    if _baseline.load(rev) is None:
        print(f"commit {rev} cannot be read from git here")
        return 2
    # The SDKs' own dumps of the objects their helpers build warn of union
    # members they did not expect: the SDKs' noise, the same before and now.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings")
    print(f"today's Accumulator against commit {rev}'s")
    ok = True
    for dialect, streams in STREAMS.items():
        now = importlib.import_module(f"convtypes.dialects.{dialect}")
        then = importlib.import_module(f"convtypes_before.dialects.{dialect}")
        forms = FORMS[dialect]()
        out = Outcome()
        count = 0
        for name, events in streams(root):
            count += 1
            out.check(trace(now, events) == trace(then, events), f"{name} (JSON): differs")
            expected = whole(now, events)
            for form, make in forms.items():
                try:
                    objects = make(events)
                except Exception as err:  # the SDK's own types refuse this stream
                    print(f"  {name}: no {form} objects ({type(err).__name__})")
                    continue
                out.check(trace(now, objects) == trace(then, objects), f"{name} ({form}): differs")
                out.check(
                    whole(now, objects) == expected,
                    f"{name} ({form}): the objects give another reply than the JSON",
                )
        ok = out.report(f"{dialect} ({count} recorded streams)") and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
