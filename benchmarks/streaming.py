"""Streams fed as the SDKs' own event objects, beside the SDKs' own accumulators.

    python benchmarks/streaming.py            # 5 interleaved rounds
    python benchmarks/streaming.py --quick    # a tenth of the events, 2 rounds (CI)
    python benchmarks/streaming.py --rounds 9 --recorded PATH/TO/sdk_fixtures

Most backends do not read SSE themselves: they iterate the provider SDK's
stream and hand each event object to the ``Accumulator``. For each dialect,
the same stream is read, side by side in one process, taking turns within
each round, by:

- **convtypes, dicts**: ``Accumulator.feed`` of every event as JSON, then
  ``reply()``;
- **convtypes, SDK objects**: the same, fed the SDK's event objects, made
  as the SDK makes them while it streams (anthropic, openai and cohere
  without validation, ``construct_type``; google-genai, ollama and mistralai
  validated). Bedrock has no row here: boto3 hands its events over as
  dicts, which ``feed.py``'s table times;
- **convtypes, dicts beside the SDK objects**: fed dicts again, but each
  event's SDK object is made too and kept while its turn is read. The
  objects alone, never read, slow the dicts' reading (they fill the CPU's
  caches); this row is the control that tells that cost from the cost of
  reading objects, which is the objects' row against this one;
- **the SDK's own accumulator** on the same objects: anthropic's
  ``accumulate_event``, openai's ``ChatCompletionStreamState`` and
  ``ResponseStreamState`` (then their final completion or response), and
  google-genai's chat, which keeps each chunk's content in its history
  (``Chat.send_message_stream``, handed the chunks one by one); Ollama,
  Mistral and Cohere have none;
- **pydantic-ai's parts manager** (``ModelResponsePartsManager``), given the
  text and argument pieces read from the same objects by attribute, then
  ``get_parts()``: a lower bound on what pydantic-ai's own stream readers
  cost, which add their per-event mapping to it;
- **LiteLLM's ``stream_chunk_builder``** on the Chat Completions chunks made
  into LiteLLM's own chunk objects: only its final assembly is timed, not
  its per-chunk wrapper.

Events are handed over as a stream hands them: in turns of 64, each turn's
JSON decoded and made into the reader's inputs (dicts, or objects) just
before it is read, untimed, so that they are fresh in the CPU's caches as a
backend's events are; only the reading is timed, then what the stream added
up to. The workloads: the one pydantic-ai profiled its parts manager with
(pydantic/pydantic-ai#6432), a reply of 32,000 text deltas and then a tool
call of 12,000 argument deltas (Gemini, Ollama and Mistral send a call
whole, in one chunk: their stream is the 32,000 text chunks and that
chunk); ``feed.py``'s
streams of a few hundred events (thinking, text, a call in pieces, usage);
and with ``--recorded``, the streams recorded in the SDKs' own repositories
(those every reader reads without failing). Each time is the median of the
interleaved rounds, per event; a ratio is taken within a round, and shown as
the median with its range. The scaling table reads SDK objects of the same
reply with 1x and 4x the deltas.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import feed  # noqa: E402

from convtypes.dialects import (  # noqa: E402
    anthropic,
    cohere,
    gemini,
    mistral,
    ollama,
    openai_chat,
    openai_responses,
)

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import
# cohere's construct_type reads an attribute pydantic 2 deprecates, event by event.
warnings.filterwarnings("ignore", "The `__fields__` attribute is deprecated")

DIALECTS = ("anthropic", "openai_chat", "openai_responses", "gemini", "ollama", "mistral", "cohere")
MODULES = {
    "anthropic": anthropic,
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "gemini": gemini,
    "ollama": ollama,
    "mistral": mistral,
    "cohere": cohere,
}
TEXT_DELTAS = 32_000
ARGUMENT_DELTAS = 12_000


# --- the 44,000-event reply ----------------------------------------------------------

_WORDS = (
    "The quick brown fox jumps over the lazy dog while the rain keeps falling on "
    "the roofs of Oslo and the streets shine under the lamps "
).split()


def _text_pieces(count: int) -> list[str]:
    """``count`` text deltas of a word each (a token or so), with its space."""
    return [" " + _WORDS[n % len(_WORDS)] for n in range(count)]


def _argument_pieces(count: int) -> tuple[list[str], str]:
    """``count`` pieces of a tool call's argument JSON, about four characters each."""
    body = "".join(_text_pieces(count))[: count * 4 - 40]
    arguments = json.dumps({"path": "notes/oslo.md", "content": body})
    size = len(arguments) / count
    cuts = [round(n * size) for n in range(count + 1)]
    return [arguments[a:b] for a, b in itertools.pairwise(cuts)], arguments


def anthropic_stream(texts: list[str], pieces: list[str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 120, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    events += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}}
        for t in texts
    ]
    events += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write", "input": {}},
        },
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": p},
        }
        for p in pieces
    ]
    events += [
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": len(texts) + len(pieces)},
        },
        {"type": "message_stop"},
    ]
    return events


def openai_chat_stream(texts: list[str], pieces: list[str]) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1_780_000_000,
            "model": "gpt-test",
            "system_fingerprint": "fp_1",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    events = [chunk({"role": "assistant", "content": "", "refusal": None})]
    events += [chunk({"content": t}) for t in texts]
    first, *rest = pieces
    events.append(
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "write", "arguments": first},
                    }
                ]
            }
        )
    )
    events += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in rest]
    events.append(chunk({}, "tool_calls"))
    last = chunk({})
    last["choices"] = []
    last["usage"] = {
        "prompt_tokens": 120,
        "completion_tokens": len(texts) + len(pieces),
        "total_tokens": 120 + len(texts) + len(pieces),
    }
    events.append(last)
    return events


def openai_responses_stream(texts: list[str], pieces: list[str]) -> list[dict[str, Any]]:
    text = "".join(texts)
    arguments = "".join(pieces)
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
    }
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "write",
        "arguments": arguments,
        "status": "completed",
    }
    response = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1_780_000_000,
        "model": "gpt-test",
        "status": "completed",
        "output": [message, call],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 120,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": len(texts) + len(pieces),
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 120 + len(texts) + len(pieces),
        },
    }
    events: list[dict[str, Any]] = [
        {
            "type": "response.created",
            "response": {**response, "status": "in_progress", "output": []},
        },
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**message, "status": "in_progress", "content": []},
        },
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": [], "logprobs": []},
        },
    ]
    events += [
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": t,
            "logprobs": [],
        }
        for t in texts
    ]
    events += [
        {
            "type": "response.output_text.done",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "text": text,
            "logprobs": [],
        },
        {
            "type": "response.content_part.done",
            "output_index": 0,
            "item_id": "msg_1",
            "content_index": 0,
            "part": message["content"][0],  # type: ignore[index]
        },
        {"type": "response.output_item.done", "output_index": 0, "item": message},
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {**call, "arguments": "", "status": "in_progress"},
        },
    ]
    events += [
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 1,
            "item_id": "fc_1",
            "delta": p,
        }
        for p in pieces
    ]
    events += [
        {
            "type": "response.function_call_arguments.done",
            "output_index": 1,
            "item_id": "fc_1",
            "arguments": arguments,
        },
        {"type": "response.output_item.done", "output_index": 1, "item": call},
        {"type": "response.completed", "response": response},
    ]
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


def gemini_stream(texts: list[str], pieces: list[str]) -> list[dict[str, Any]]:
    usage = {"promptTokenCount": 120, "totalTokenCount": 120}

    def chunk(parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish is not None:
            candidate["finishReason"] = finish
        return {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": "gemini-test",
            "responseId": "r1",
        }

    events = [chunk([{"text": t}]) for t in texts]
    call = {"functionCall": {"name": "write", "args": json.loads("".join(pieces))}}
    last = chunk([call], "STOP")
    last["usageMetadata"] = {
        "promptTokenCount": 120,
        "candidatesTokenCount": len(texts) + len(pieces),
        "totalTokenCount": 120 + len(texts) + len(pieces),
    }
    events.append(last)
    return events


def ollama_stream(texts: list[str], pieces: list[str]) -> list[dict[str, Any]]:
    def chunk(message: dict[str, Any], done: bool = False) -> dict[str, Any]:
        return {
            "model": "qwen3",
            "created_at": "2026-12-01T00:00:00Z",
            "message": {"role": "assistant", "content": "", **message},
            "done": done,
        }

    events = [chunk({"content": t}) for t in texts]
    call = {"function": {"name": "write", "arguments": json.loads("".join(pieces))}}
    events.append(chunk({"tool_calls": [call]}))
    last = chunk({}, done=True)
    last.update(done_reason="stop", prompt_eval_count=120, eval_count=len(texts) + len(pieces))
    events.append(last)
    return events


def mistral_stream(texts: list[str], pieces: list[str]) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "cmpl-1",
            "object": "chat.completion.chunk",
            "created": 1_780_000_000,
            "model": "mistral-test",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": t}) for t in texts]
    # Mistral sends a call whole, in one chunk, as Gemini and Ollama do.
    call = {"id": "Ab3dEf9hK", "function": {"name": "write", "arguments": "".join(pieces)}}
    events.append(chunk({"tool_calls": [call]}))
    last = chunk({"content": ""}, "tool_calls")
    last["usage"] = {
        "prompt_tokens": 120,
        "completion_tokens": len(texts) + len(pieces),
        "total_tokens": 120 + len(texts) + len(pieces),
    }
    events.append(last)
    return events


def cohere_stream(texts: list[str], pieces: list[str]) -> list[dict[str, Any]]:
    def part(kind: str, index: int, message: dict[str, Any]) -> dict[str, Any]:
        return {"type": kind, "index": index, "delta": {"message": message}}

    empty = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
    events = [{"id": "c1", "type": "message-start", "delta": {"message": empty}}]
    events.append(part("content-start", 0, {"content": {"type": "text", "text": ""}}))
    events += [part("content-delta", 0, {"content": {"text": t}}) for t in texts]
    events.append({"type": "content-end", "index": 0})
    call = {"id": "write_1", "type": "function", "function": {"name": "write", "arguments": ""}}
    events.append(part("tool-call-start", 1, {"tool_calls": call}))
    events += [
        part("tool-call-delta", 1, {"tool_calls": {"function": {"arguments": p}}}) for p in pieces
    ]
    usage = {"tokens": {"input_tokens": 120, "output_tokens": len(texts) + len(pieces)}}
    events += [
        {"type": "tool-call-end", "index": 1},
        {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": usage}},
    ]
    return events


BUILDERS = {
    "anthropic": anthropic_stream,
    "openai_chat": openai_chat_stream,
    "openai_responses": openai_responses_stream,
    "gemini": gemini_stream,
    "ollama": ollama_stream,
    "mistral": mistral_stream,
    "cohere": cohere_stream,
}


def long_stream(dialect: str, scale: float = 1.0) -> list[dict[str, Any]]:
    """The 32,000 + 12,000 deltas reply (times ``scale``) as ``dialect`` streams it."""
    pieces, _ = _argument_pieces(round(ARGUMENT_DELTAS * scale))
    return BUILDERS[dialect](_text_pieces(round(TEXT_DELTAS * scale)), pieces)


# --- the SDKs' objects -----------------------------------------------------------------


def maker(dialect: str) -> Callable[[dict[str, Any]], Any]:
    """How the dialect's SDK makes one event's object as it streams, from its JSON."""
    if dialect == "anthropic":
        from anthropic._models import construct_type as construct_anthropic
        from anthropic.types import RawMessageStreamEvent

        return lambda event: construct_anthropic(type_=RawMessageStreamEvent, value=event)
    if dialect in ("openai_chat", "openai_responses"):
        from openai._models import construct_type as construct_openai
        from openai.types.chat import ChatCompletionChunk
        from openai.types.responses import ResponseStreamEvent

        kind: Any = ChatCompletionChunk if dialect == "openai_chat" else ResponseStreamEvent
        return lambda event: construct_openai(type_=kind, value=event)
    if dialect == "gemini":
        from google.genai import types

        response = types.GenerateContentResponse
        return lambda event: response._from_response(response=event, kwargs={})
    if dialect == "ollama":
        from ollama import ChatResponse

        return lambda event: ChatResponse(**event)
    if dialect == "mistral":
        from mistralai.client.models import CompletionEvent

        # chat.stream validates each server-sent event into a CompletionEvent.
        return lambda event: CompletionEvent.model_validate({"data": event})
    if dialect == "cohere":
        from cohere.core.unchecked_base_model import construct_type as construct_cohere
        from cohere.v2.types import V2ChatStreamResponse

        # chat_stream builds each event without validation.
        union: Any = V2ChatStreamResponse
        return lambda event: construct_cohere(type_=union, object_=event)
    raise ValueError(dialect)


def as_objects(dialect: str, events: list[dict[str, Any]]) -> list[Any]:
    """The events as the dialect's SDK hands them to a backend while it streams."""
    make = maker(dialect)
    return [make(json.loads(json.dumps(event))) for event in events]


# --- the readers -----------------------------------------------------------------------
#
# A reader starts a session for one stream: a function that takes each event,
# and one that gives what the stream added up to once it ended.

Session = tuple[Callable[[Any], object], Callable[[], object]]
Reader = Callable[[], Session]


def convtypes_reader(dialect: str) -> Reader:
    accumulator_type = MODULES[dialect].Accumulator

    def start() -> Session:
        accumulator = accumulator_type()
        return accumulator.feed, accumulator.reply

    return start


def anthropic_sdk() -> Reader:
    import inspect

    from anthropic.lib.streaming._messages import accumulate_event

    buffers = "json_bufs" in inspect.signature(accumulate_event).parameters

    def start() -> Session:
        state: dict[str, Any] = {"snapshot": None}
        extra: dict[str, Any] = {"json_bufs": {}} if buffers else {}

        def take(event: Any) -> None:
            state["snapshot"] = accumulate_event(
                event=event, current_snapshot=state["snapshot"], **extra
            )

        return take, lambda: state["snapshot"]

    return start


def openai_chat_sdk() -> Reader:
    from openai.lib.streaming.chat import ChatCompletionStreamState

    def start() -> Session:
        state: Any = ChatCompletionStreamState()
        return state.handle_chunk, state.get_final_completion

    return start


def openai_responses_sdk() -> Reader:
    import openai
    from openai.lib.streaming.responses._responses import ResponseStreamState

    omit = getattr(openai, "omit", openai.NOT_GIVEN)

    def start() -> Session:
        state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
        return state.handle_event, lambda: state._completed_response

    return start


def gemini_sdk() -> Reader:
    """google-genai's chat, reading a stream the client would hand it chunk by chunk."""
    from google.genai import chats, models, types

    class Handed(models.Models):
        """The client's models, answering with the chunks handed to it: no request is sent."""

        def __init__(self, box: list[Any]) -> None:
            self.box = box

        def generate_content_stream(self, **_: Any) -> Any:  # type: ignore[override]
            def stream() -> Any:
                while self.box:
                    yield self.box.pop()

            return stream()

    config = types.GenerateContentConfig(
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
    )

    def start() -> Session:
        box: list[Any] = []
        chat = chats.Chat(modules=Handed(box), model="gemini-test", config=config, history=[])
        turn = chat.send_message_stream("Write the notes.")

        def take(chunk: Any) -> None:
            box.append(chunk)
            next(turn)

        def finish() -> object:
            for _ in turn:  # the stream ends: the chat records the turn
                pass
            return chat.get_history()

        return take, finish

    return start


def _parts_manager() -> Any:
    from pydantic_ai._parts_manager import ModelResponsePartsManager
    from pydantic_ai.models import ModelRequestParameters

    return ModelResponsePartsManager(model_request_parameters=ModelRequestParameters())


def _drain(events: Iterable[object] | object) -> None:
    if events is not None and hasattr(events, "__iter__"):
        for _ in events:  # type: ignore[union-attr]
            pass


def pydantic_ai_reader(dialect: str) -> Reader | None:
    """The parts manager, given what each event carries, read as pydantic-ai reads it."""
    import pydantic_ai._parts_manager  # noqa: F401  (ImportError: not installed)

    def anthropic_take(parts: Any, event: Any) -> None:
        kind = event.type
        if kind == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta":
                _drain(parts.handle_text_delta(vendor_part_id=event.index, content=delta.text))
            elif delta.type == "input_json_delta":
                _drain(
                    parts.handle_tool_call_delta(
                        vendor_part_id=event.index, args=delta.partial_json
                    )
                )
            elif delta.type == "thinking_delta":
                _drain(
                    parts.handle_thinking_delta(vendor_part_id=event.index, content=delta.thinking)
                )
        elif kind == "content_block_start":
            block = event.content_block
            if block.type == "tool_use":
                _drain(
                    parts.handle_tool_call_delta(
                        vendor_part_id=event.index,
                        tool_name=block.name,
                        args=None,
                        tool_call_id=block.id,
                    )
                )
            elif block.type == "thinking":
                _drain(parts.handle_thinking_delta(vendor_part_id=event.index, content=""))

    def openai_chat_take(parts: Any, chunk: Any) -> None:
        if not chunk.choices:
            return
        delta = chunk.choices[0].delta
        reasoning = getattr(delta, "reasoning_content", None)
        if reasoning:
            _drain(parts.handle_thinking_delta(vendor_part_id="reasoning", content=reasoning))
        if delta.content:
            _drain(parts.handle_text_delta(vendor_part_id="content", content=delta.content))
        for call in delta.tool_calls or ():
            function = call.function
            _drain(
                parts.handle_tool_call_delta(
                    vendor_part_id=call.index,
                    tool_name=function.name if function else None,
                    args=function.arguments if function else None,
                    tool_call_id=call.id,
                )
            )

    def openai_responses_take(parts: Any, event: Any) -> None:
        kind = event.type
        if kind == "response.output_text.delta":
            _drain(parts.handle_text_delta(vendor_part_id=event.item_id, content=event.delta))
        elif kind == "response.function_call_arguments.delta":
            _drain(parts.handle_tool_call_delta(vendor_part_id=event.item_id, args=event.delta))
        elif kind == "response.reasoning_summary_text.delta":
            _drain(parts.handle_thinking_delta(vendor_part_id=event.item_id, content=event.delta))
        elif kind == "response.output_item.added" and event.item.type == "function_call":
            item = event.item
            _drain(
                parts.handle_tool_call_delta(
                    vendor_part_id=item.id,
                    tool_name=item.name,
                    args=item.arguments,
                    tool_call_id=item.call_id,
                )
            )

    def gemini_take(parts: Any, chunk: Any) -> None:
        candidate = chunk.candidates[0] if chunk.candidates else None
        if candidate is None or candidate.content is None:
            return
        for part in candidate.content.parts or ():
            if part.text is not None:
                if part.thought:
                    _drain(parts.handle_thinking_delta(vendor_part_id=None, content=part.text))
                else:
                    _drain(parts.handle_text_delta(vendor_part_id=None, content=part.text))
            elif part.function_call is not None:
                call = part.function_call
                _drain(
                    parts.handle_tool_call_delta(
                        vendor_part_id=object(),
                        tool_name=call.name,
                        args=call.args,
                        tool_call_id=call.id,
                    )
                )

    def ollama_take(parts: Any, chunk: Any) -> None:
        message = chunk.message
        if message.thinking:
            _drain(parts.handle_thinking_delta(vendor_part_id="thinking", content=message.thinking))
        if message.content:
            _drain(parts.handle_text_delta(vendor_part_id="content", content=message.content))
        for call in message.tool_calls or ():
            _drain(
                parts.handle_tool_call_delta(
                    vendor_part_id=object(),
                    tool_name=call.function.name,
                    args=dict(call.function.arguments),
                )
            )

    def mistral_take(parts: Any, event: Any) -> None:
        chunk = event.data
        if not chunk.choices:
            return
        delta = chunk.choices[0].delta
        if isinstance(delta.content, str) and delta.content:
            _drain(parts.handle_text_delta(vendor_part_id="content", content=delta.content))
        for call in delta.tool_calls or ():
            _drain(
                parts.handle_tool_call_delta(
                    vendor_part_id=call.id,
                    tool_name=call.function.name,
                    args=call.function.arguments,
                    tool_call_id=call.id,
                )
            )

    takers: dict[str, Callable[[Any, Any], None]] = {
        "anthropic": anthropic_take,
        "openai_chat": openai_chat_take,
        "openai_responses": openai_responses_take,
        "gemini": gemini_take,
        "ollama": ollama_take,
        "mistral": mistral_take,
    }
    taker = takers.get(dialect)
    if taker is None:
        return None

    def start() -> Session:
        parts = _parts_manager()
        return (lambda event: taker(parts, event)), parts.get_parts

    return start


def litellm_reader() -> Reader:
    import logging

    import litellm

    logging.getLogger("LiteLLM").setLevel(logging.ERROR)
    litellm.suppress_debug_info = True  # it prints a notice for a model it has no price for

    def start() -> Session:
        chunks: list[Any] = []
        return chunks.append, lambda: litellm.stream_chunk_builder(chunks)

    return start


def litellm_maker() -> Callable[[dict[str, Any]], Any]:
    from litellm.types.utils import ModelResponseStream

    return lambda event: ModelResponseStream(**event)


SDK_PEERS: dict[str, tuple[str, Callable[[], Reader]]] = {
    "anthropic": ("anthropic accumulate_event", anthropic_sdk),
    "openai_chat": ("openai ChatCompletionStreamState", openai_chat_sdk),
    "openai_responses": ("openai ResponseStreamState", openai_responses_sdk),
    "gemini": ("google-genai Chat history", gemini_sdk),
}


# --- timing ------------------------------------------------------------------------------

BATCH = 64
"""Events made at a time, then read: a stream hands each event over as it is made."""


def read_stream(start: Reader, make: Callable[[dict[str, Any]], Any], texts: list[str]) -> float:
    """Seconds to read the stream whose events' JSON is ``texts``, in turns of ``BATCH``.

    Each turn's events are decoded and made into the reader's inputs just
    before they are read, as a stream makes them: untimed, and fresh in the
    CPU's caches, as a backend's events are. Only the reading is timed: each
    event taken, and at the end what the stream added up to.
    """
    take, finish = start()
    spent = 0.0
    for at in range(0, len(texts), BATCH):
        batch = [make(json.loads(text)) for text in texts[at : at + BATCH]]
        begun = time.perf_counter()
        for event in batch:
            take(event)
        spent += time.perf_counter() - begun
    begun = time.perf_counter()
    finish()
    return spent + time.perf_counter() - begun


class Row:
    """One reader of some streams: how it reads, what it reads, its seconds per event."""

    def __init__(
        self,
        name: str,
        start: Reader,
        make: Callable[[dict[str, Any]], Any],
        streams: list[list[str]],
        peer: bool,
    ) -> None:
        self.name = name
        self.start = start
        self.make = make
        self.streams = streams
        self.peer = peer
        self.times: list[float] = []

    def time(self, loops: int) -> None:
        gc.collect()  # what the reader before left, not this one's to pay for
        best = min(
            sum(read_stream(self.start, self.make, texts) for texts in self.streams)
            for _ in range(loops)
        )
        self.times.append(best / sum(len(texts) for texts in self.streams))


def _as_is(event: dict[str, Any]) -> dict[str, Any]:
    return event


def beside(make: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], Any]:
    """Make each event's SDK object, keep it while its turn is read, and hand over the dict.

    The control for the SDK objects' row: the same objects fill the memory
    (the objects of a turn are alive while it is read, as in that row), so
    that the difference between the two rows is the reading alone.
    """
    kept: list[Any] = []

    def made(event: dict[str, Any]) -> dict[str, Any]:
        kept.append(make(event))
        if len(kept) > 2 * BATCH:
            del kept[:-BATCH]
        return event

    return made


def _rows(dialect: str, streams: list[list[dict[str, Any]]]) -> list[Row]:
    texts = [[json.dumps(event) for event in events] for events in streams]
    ours = convtypes_reader(dialect)
    rows = [
        Row("convtypes, dicts", ours, _as_is, texts, False),
        Row("convtypes, SDK objects", ours, maker(dialect), texts, False),
        Row("convtypes, dicts beside the SDK objects", ours, beside(maker(dialect)), texts, False),
    ]
    if dialect in SDK_PEERS:
        name, make = SDK_PEERS[dialect]
        try:
            rows.append(Row(name, make(), maker(dialect), texts, True))
        except ImportError:
            pass
    try:
        reader = pydantic_ai_reader(dialect)
    except ImportError:
        reader = None
    if reader is not None:
        rows.append(Row("pydantic-ai parts manager", reader, maker(dialect), texts, True))
    if dialect == "openai_chat":
        try:
            rows.append(
                Row("LiteLLM stream_chunk_builder", litellm_reader(), litellm_maker(), texts, True)
            )
        except ImportError:
            pass
    return rows


def readable(dialect: str, streams: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    """The recorded streams every reader of the dialect reads without failing."""
    kept = []
    for events in streams:
        texts = [json.dumps(event) for event in events]
        try:
            for row in _rows(dialect, [events]):
                read_stream(row.start, row.make, texts)
        except Exception:  # an SDK's types or accumulator refuse this stream
            continue
        kept.append(events)
    return kept


def recorded(root: Path) -> dict[str, list[list[dict[str, Any]]]]:
    """The streams recorded in the SDKs' repositories (dev/check_objects.py reads them)."""
    sys.path.insert(0, str(ROOT / "dev"))
    import check_objects

    found: dict[str, list[list[dict[str, Any]]]] = {}
    for dialect, streams in check_objects.STREAMS.items():
        events = [
            [event for event in stream if event.get("type") != "ping"]
            for _, stream in streams(root)
        ]
        found[dialect] = readable(dialect, events)
    return found


def _spread(values: list[float]) -> str:
    values = sorted(values)
    return f"{statistics.median(values):.2f}x ({values[0]:.2f}\u2013{values[-1]:.2f})"


def _micro(values: list[float]) -> str:
    values = sorted(values)
    median = statistics.median(values) * 1e6
    return f"{median:.2f} ({values[0] * 1e6:.2f}\u2013{values[-1] * 1e6:.2f})"


def measure(rows: list[Row], rounds: int, loops: int) -> None:
    for row in rows:
        row.time(1)  # warm up: imports, caches, lazy schema builds
        row.times.clear()
    for _ in range(rounds):
        for row in rows:
            row.time(loops)


def table_lines(dialect: str, workload: str, rows: list[Row]) -> list[str]:
    dicts = rows[0]
    peers = [row for row in rows if row.peer]
    best = min(peers, key=lambda row: statistics.median(row.times)) if peers else None
    lines = []
    for row in rows:
        against_dicts = _spread([a / b for a, b in zip(row.times, dicts.times, strict=True)])
        against_peer = (
            _spread([a / b for a, b in zip(row.times, best.times, strict=True)])
            if best is not None
            else "no peer"
        )
        lines.append(
            f"| {dialect} | {workload} | {row.name} | {_micro(row.times)} "
            f"| {against_dicts} | {against_peer} |"
        )
    return lines


def scaling(dialect: str, rounds: int, scale: float) -> str:
    """SDK objects of the long reply at ``scale`` and 4x it, read in turn: the time ratio."""
    read, make = convtypes_reader(dialect), maker(dialect)
    one = [json.dumps(event) for event in long_stream(dialect, scale)]
    four = [json.dumps(event) for event in long_stream(dialect, 4 * scale)]
    read_stream(read, make, one)
    ratios, small, large = [], [], []
    for _ in range(rounds):
        gc.collect()
        a = read_stream(read, make, one)
        gc.collect()
        b = read_stream(read, make, four)
        small.append(a)
        large.append(b)
        ratios.append(b / a)
    met = "yes" if statistics.median(ratios) <= 4.4 else "no"
    return (
        f"| {dialect} | {len(one):,} | {statistics.median(small) * 1e3:.1f} ms "
        f"| {len(four):,} | {statistics.median(large) * 1e3:.1f} ms | {_spread(ratios)} | {met} |"
    )


def run(quick: bool, rounds: int | None = None, recordings: Path | None = None) -> str:
    rounds = rounds or (2 if quick else 5)
    scale = 0.1 if quick else 1.0
    count = f"{round((TEXT_DELTAS + ARGUMENT_DELTAS) * scale):,} deltas"
    lines = [
        f"Each figure is the median of {rounds} interleaved rounds, with its range; µs per "
        "event, and the time as a multiple of convtypes fed dicts and of the fastest peer "
        "(below 1: faster). Targets: SDK objects at most 1.5x dicts; feed and reply() at "
        "most 0.5x each SDK's own accumulator. The row of dicts beside the SDK objects feeds "
        "dicts while the same objects are made and kept, unread: what the objects cost a "
        "reader by their mere presence in memory, apart from reading them.",
        "",
        "| dialect | workload | reader | µs per event | vs convtypes dicts | vs best peer |",
        "| --- | --- | --- | ---: | ---: | ---: |",
    ]
    targets = []
    found = recorded(recordings) if recordings is not None else {}
    for dialect in DIALECTS:
        workloads = [
            (
                f"{count} ({len(long_stream(dialect, scale)):,} events)",
                [long_stream(dialect, scale)],
                1,
            ),
            (
                f"feed.py stream ({len(feed.STREAMS[dialect]()):,} events)",
                [feed.STREAMS[dialect]()],
                3 if quick else 25,
            ),
        ]
        if found.get(dialect):
            streams = found[dialect]
            events = sum(len(stream) for stream in streams)
            label = f"{len(streams)} recorded streams ({events:,} events)"
            workloads.append((label, streams, 3 if quick else 10))
        for label, streams, loops in workloads:
            rows = _rows(dialect, streams)
            measure(rows, rounds, loops)
            lines += table_lines(dialect, label, rows)
            targets.append((dialect, label, rows))
    lines += [
        "",
        "Targets, round by round (medians and ranges):",
        "",
        "| dialect | workload | SDK objects vs dicts (<= 1.5x) | reading alone: SDK objects "
        "vs dicts beside them | feed + reply vs the SDK's accumulator (<= 0.5x) | met |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    for dialect, label, rows in targets:
        dicts, objects, control = rows[0], rows[1], rows[2]
        cost = [a / b for a, b in zip(objects.times, dicts.times, strict=True)]
        reading = [a / b for a, b in zip(objects.times, control.times, strict=True)]
        sdk = [row for row in rows if row.peer and row.name == SDK_PEERS.get(dialect, ("",))[0]]
        ahead = [a / b for a, b in zip(objects.times, sdk[0].times, strict=True)] if sdk else []
        met = statistics.median(cost) <= 1.5 and (not ahead or statistics.median(ahead) <= 0.5)
        lines.append(
            f"| {dialect} | {label} | {_spread(cost)} | {_spread(reading)} | "
            f"{_spread(ahead) if ahead else 'no SDK accumulator'} | {'yes' if met else 'no'} |"
        )
    lines += [
        "",
        "Scaling: SDK objects of the same reply with 1x and 4x the deltas, fed and "
        "reply() taken, in turn (target: 4x the deltas cost at most 4.4x the time).",
        "",
        "| dialect | events (1x) | time (1x) | events (4x) | time (4x) | 4x / 1x | met |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    lines += [scaling(dialect, rounds, scale) for dialect in DIALECTS]
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--dialect", action="append", help="only these dialects")
    parser.add_argument(
        "--recorded", type=Path, help="also the streams recorded in the SDKs' repositories, here"
    )
    args = parser.parse_args()
    if args.dialect:
        DIALECTS = tuple(args.dialect)
    sys.stdout.write(run(args.quick, args.rounds, args.recorded) + "\n")
