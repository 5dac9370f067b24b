"""A conversation made with one provider, sent to every other: what a switch keeps and drops.

For each dialect, transcripts are built as a backend builds them: the
user's turns (text, and media of every kind), replies drawn in that
dialect's shapes by its own tests' strategies and fixtures (text, signed
or redacted thinking, parallel calls, server tools, citations, kept items,
replies cut at the token limit), read with ``read_reply``, and a result for
each of ``reply.tool_calls`` answered by its ``id``. Then every dialect,
the same one included, must:

- build a request from it (one the provider's SDK types take, for a
  switch);
- name in ``left_out`` exactly what the request does not send: taking out
  every piece it names (at the place its ``why`` gives; a reply whose
  items lose a piece is read again from what is left) leaves the request
  as it was, so none of it was sent; ``left_out`` of what remains is
  empty; and every stored piece that remains (text, thinking and
  signatures, calls and their arguments, results, media and their
  settings, items) is found in the request, by a reader of that dialect's
  request shape written here;
- for the dialect that made the replies, name in them only what its page
  says even its own replies lose.

Adding a dialect is one :class:`Provider` entry in :data:`PROVIDERS`.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pytest
import test_cohere_turn as cohere_turn
import test_mistral_turn as mistral_turn
from hypothesis import given, settings
from hypothesis import strategies as st
from left_out_check import stripped_messages
from test_anthropic_between_turns import GROUPS, numbered, stop_for
from test_anthropic_between_turns import STREAMS as ANTHROPIC_REPLIES
from test_anthropic_turn import reply_of
from test_anthropic_turn import validate as validate_anthropic
from test_cohere_turn import reply as cohere_reply
from test_dialects_requests import validate_bedrock, validate_gemini, validate_openai_chat
from test_gemini_between_turns import STREAMS as GEMINI_STREAMS
from test_gemini_turn import CALL_RESPONSE
from test_gemini_turn import response as gemini_response
from test_mistral_turn import completion as mistral_completion
from test_ollama import REPLIES as OLLAMA_REPLIES
from test_ollama import response as ollama_response
from test_ollama import validate as validate_ollama
from test_openai_chat_between import streams as chat_streams
from test_openai_chat_turn import completion
from test_openai_responses_between import outputs
from test_openai_responses_turn import response as responses_response
from test_openai_responses_turn import validate_request as validate_responses

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import (
    LEFT_OUT_KINDS,
    LeftOut,
    Reply,
    anthropic,
    bedrock,
    cohere,
    gemini,
    mistral,
    ollama,
    openai_chat,
    openai_responses,
)

from bedrock_replies import (
    cited_reply,
    code_interpreter,
    redacted_then_text,
    thinking_then_call,
)
from bedrock_replies import reply_of as bedrock_reply
from budget import examples
from provider_rules import validate_cohere, validate_mistral

# --- what a request carries, read from each dialect's shape ------------------------------


@dataclass
class Sent:
    """The pieces a request carries, each kind in request order, in no dialect's shape."""

    texts: list[str] = field(default_factory=list)
    thoughts: list[str] = field(default_factory=list)
    signatures: list[str] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)
    calls: list[tuple[str, Any]] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    media: list[str] = field(default_factory=list)
    settings: list[tuple[str, Any]] = field(default_factory=list)
    """A medium's settings: ``("detail", "high")``, ``("fps", 2.0)``..."""
    items: list[Any] = field(default_factory=list)
    """What an item of the dialect's own protocol goes back as: blocks, parts, messages."""


def _anthropic_sent(body: dict[str, Any]) -> Sent:
    sent = Sent()
    system = body.get("system", "")
    sent.texts += [system] if isinstance(system, str) else [block["text"] for block in system]
    for turn in body["messages"]:
        for block in turn["content"]:
            kind = block["type"]
            if turn["role"] == "assistant":
                sent.items.append(block)
            if kind == "text":
                sent.texts.append(block["text"])
            elif kind == "thinking":
                sent.thoughts.append(block["thinking"])
                sent.signatures.append(block["signature"])
            elif kind == "redacted_thinking":
                sent.redacted.append(block["data"])
            elif kind == "tool_use":
                sent.calls.append((block["name"], block["input"]))
            elif kind == "tool_result":
                sent.results.append(block["content"])
            elif kind == "image":
                source = block["source"]
                sent.media.append(source.get("url") or source["data"])
    return sent


def _chat_parts(content: Any, sent: Sent) -> None:
    if isinstance(content, str):
        sent.texts.append(content)
        return
    for part in content or ():
        if part["type"] == "text":
            sent.texts.append(part["text"])
        elif part["type"] == "image_url":
            sent.media.append(part["image_url"]["url"])
            if "detail" in part["image_url"]:
                sent.settings.append(("detail", part["image_url"]["detail"]))
        elif part["type"] == "input_audio":
            sent.media.append(part["input_audio"]["data"])


def _chat_sent(body: dict[str, Any]) -> Sent:
    sent = Sent()
    for message in body["messages"]:
        if message["role"] == "tool":
            sent.results.append(message["content"])
            continue
        _chat_parts(message.get("content"), sent)
        if message["role"] == "assistant":
            sent.items.append(message)
            if message.get("refusal"):
                sent.texts.append(message["refusal"])
            for call in message.get("tool_calls") or ():
                function = call["function"]
                sent.calls.append((function["name"], json.loads(function["arguments"])))
            for key in ("reasoning_content", "reasoning"):
                if key in message:
                    sent.thoughts.append(message[key])
    return sent


def _without_id(call: Any) -> Any:
    return {key: value for key, value in call.items() if key != "id"}


def _chat_item_sent(item: Any, sent: Sent) -> bool:
    """A kept message goes back as an assistant message with each of its input fields.

    Its calls may get fresh ids (another call of the request had theirs),
    and output audio goes by its id, the way the API takes it back.
    """
    if not isinstance(item, dict):
        return False
    said = {
        key: value
        for key, value in item.items()
        if key != "role" and value is not None and value not in ("", [], {})
    }
    if not said:
        return True  # a message that says nothing (its cut calls taken out) is no turn

    def holds(message: dict[str, Any]) -> bool:
        if message["role"] != "assistant":
            return False
        for key, value in said.items():
            if key == "tool_calls":
                if [_without_id(c) for c in message.get(key) or ()] != [
                    _without_id(c) for c in value
                ]:
                    return False
            elif key == "audio":
                if (message.get("audio") or {}).get("id") != value.get("id"):
                    return False
            elif message.get(key) != value:
                return False
        return True

    return any(holds(message) for message in sent.items)


def _responses_parts(content: Any, sent: Sent) -> None:
    if isinstance(content, str):
        sent.texts.append(content)
        return
    for part in content or ():
        if part.get("type") in ("input_text", "output_text"):
            sent.texts.append(part["text"])
        elif part.get("type") == "refusal":
            sent.texts.append(part["refusal"])
        elif part.get("type") == "input_image":
            sent.media.append(part["image_url"])
            sent.settings.append(("detail", part["detail"]))


def _responses_sent(body: dict[str, Any]) -> Sent:
    sent = Sent()
    for item in body["input"]:
        sent.items.append(item)
        kind = item.get("type")
        if kind == "function_call":
            sent.calls.append((item["name"], json.loads(item["arguments"])))
        elif kind == "function_call_output":
            sent.results.append(item["output"])
        elif kind == "reasoning":
            for key in ("summary", "content"):
                sent.thoughts += [part["text"] for part in item.get(key) or ()]
        elif "role" in item:
            _responses_parts(item.get("content"), sent)
    return sent


def _gemini_sent(body: dict[str, Any]) -> Sent:
    sent = Sent()
    sent.texts += [part["text"] for part in body.get("system_instruction", {}).get("parts", ())]
    for content in body["contents"]:
        for part in content["parts"]:
            if content["role"] == "model":
                sent.items.append(part)
            if "thought_signature" in part:
                sent.signatures.append(part["thought_signature"])
            if "text" in part:
                (sent.thoughts if part.get("thought") else sent.texts).append(part["text"])
            elif "function_call" in part:
                call = part["function_call"]
                sent.calls.append((call["name"], call.get("args", {})))
            elif "function_response" in part:
                sent.results.append(part["function_response"]["response"]["output"])
            elif "inline_data" in part:
                sent.media.append(part["inline_data"]["data"])
            elif "file_data" in part:
                sent.media.append(part["file_data"]["file_uri"])
            if "video_metadata" in part:
                sent.settings.append(("fps", part["video_metadata"]["fps"]))
    return sent


def _ollama_sent(body: dict[str, Any]) -> Sent:
    sent = Sent()
    for message in body["messages"]:
        if message["role"] == "tool":
            sent.results.append(message["content"])
            continue
        if message["role"] == "assistant":
            sent.items.append(message)
        sent.texts.append(message["content"])
        if "thinking" in message:
            sent.thoughts.append(message["thinking"])
        sent.media += message.get("images", ())
        for call in message.get("tool_calls", ()):
            arguments = call["function"]["arguments"]
            if isinstance(arguments, str):  # a kept call as an imitation sent it, as text
                arguments = json.loads(arguments)
            sent.calls.append((call["function"]["name"], arguments))
    return sent


def _as_text(value: Any) -> Any:
    """A boto3 request as JSON: its bytes as base64 text, as items keep them."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {key: _as_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_text(item) for item in value]
    return value


def _bedrock_media(block: dict[str, Any], sent: Sent) -> None:
    for kind in ("image", "video", "audio", "document"):
        if kind in block:
            source = block[kind]["source"]
            sent.media.append(source["bytes"] if "bytes" in source else source["s3Location"]["uri"])


def _bedrock_sent(body: dict[str, Any]) -> Sent:
    sent = Sent()
    body = _as_text(body)
    sent.texts += [block["text"] for block in body.get("system", ())]
    for turn in body["messages"]:
        for block in turn["content"]:
            if turn["role"] == "assistant":
                sent.items.append(block)
            if "text" in block:
                sent.texts.append(block["text"])
            elif "citationsContent" in block:
                sent.texts += [part["text"] for part in block["citationsContent"]["content"]]
            elif "reasoningContent" in block:
                reasoning = block["reasoningContent"]
                if "redactedContent" in reasoning:
                    sent.redacted.append(reasoning["redactedContent"])
                else:
                    sent.thoughts.append(reasoning["reasoningText"]["text"])
                    sent.signatures.append(reasoning["reasoningText"]["signature"])
            elif "toolUse" in block:
                sent.calls.append((block["toolUse"]["name"], block["toolUse"]["input"]))
            elif "toolResult" in block:
                content = block["toolResult"]["content"]
                sent.results += [part["text"] for part in content if "text" in part]
            else:
                _bedrock_media(block, sent)
    return sent


def _bedrock_item_sent(item: Any, sent: Sent) -> bool:
    """A kept block goes back as it came, but for a client call's ``type`` (its reply's own
    spelling, which a request does not take)."""
    use = item.get("toolUse") if isinstance(item, dict) else None
    if isinstance(use, dict) and use.get("type") == "tool_use":
        item = {"toolUse": {key: value for key, value in use.items() if key != "type"}}
    return item in sent.items


def _run(part: list[Any], whole: list[Any]) -> bool:
    """Whether ``part`` is found in ``whole`` as a run, one after another."""
    return any(whole[at : at + len(part)] == part for at in range(len(whole) - len(part) + 1))


def _mistral_chunks(content: Any) -> list[Any]:
    """A Mistral message's content as a list of chunks (text alone is one text chunk)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content or ())


def _mistral_sent(body: dict[str, Any]) -> Sent:
    sent = Sent()
    for message in body["messages"]:
        if message["role"] == "tool":
            sent.results.append(message["content"])
            continue
        if message["role"] == "assistant":
            sent.items.append(message)  # the "OK" between results and a user too: it holds none
        for chunk in _mistral_chunks(message.get("content")):
            kind = chunk["type"]
            if kind == "text":
                sent.texts.append(chunk["text"])
            elif kind == "thinking":
                parts = chunk["thinking"]
                sent.thoughts.append("".join(p["text"] for p in parts if p["type"] == "text"))
            elif kind == "image_url":
                sent.media.append(chunk["image_url"]["url"])
                if "detail" in chunk["image_url"]:
                    sent.settings.append(("detail", chunk["image_url"]["detail"]))
            elif kind == "input_audio":
                sent.media.append(chunk["input_audio"])
        for call in message.get("tool_calls") or ():
            arguments = call["function"]["arguments"]
            if isinstance(arguments, str):
                arguments = json.loads(arguments)
            sent.calls.append((call["function"]["name"], arguments))
    return sent


def _mistral_item_sent(item: Any, sent: Sent) -> bool:
    """A kept message goes in its turn's assistant message: its chunks one after another,
    and its calls (those not cut off) too, each perhaps with a fresh id. Its ``prefix``
    says how a request is to be read, not what was said: the last message of a request
    has its own."""
    if not isinstance(item, dict):
        return False
    chunks = _mistral_chunks(item.get("content"))
    calls = [_without_id(call) for call in item.get("tool_calls") or ()]
    return not (chunks or calls) or any(
        _run(chunks, _mistral_chunks(message.get("content")))
        and _run(calls, [_without_id(call) for call in message.get("tool_calls") or ()])
        for message in sent.items
    )


def _cohere_sent(body: dict[str, Any]) -> Sent:
    sent = Sent()
    for message in body["messages"]:
        if message["role"] == "tool":
            sent.results.append(message["content"])
            continue
        content = message.get("content")
        if isinstance(content, str):
            sent.texts.append(content)
        for part in content if isinstance(content, list) else ():
            if part["type"] == "text":
                sent.texts.append(part["text"])
            elif part["type"] == "thinking":
                sent.thoughts.append(part["thinking"])
            elif part["type"] == "image_url":
                sent.media.append(part["image_url"]["url"])
                if "detail" in part["image_url"]:
                    sent.settings.append(("detail", part["image_url"]["detail"]))
        if message["role"] == "assistant":
            sent.items.append(message)
            if "tool_plan" in message:
                sent.texts.append(message["tool_plan"])
            for call in message.get("tool_calls") or ():
                arguments = call["function"].get("arguments")
                sent.calls.append((call["function"]["name"], json.loads(arguments or "{}")))
    return sent


def _cohere_item_sent(item: Any, sent: Sent) -> bool:
    """A kept message goes in its turn's assistant message: its content items other than
    text one after another, its text as text or (beside calls) in the ``tool_plan``, its
    calls (those not cut off, each perhaps with a fresh id) and citations as they came."""
    if not isinstance(item, dict):
        return False
    content = item.get("content")
    parts = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
    others = [part for part in parts if part.get("type") != "text"]
    said = [part["text"] for part in parts if part.get("type") == "text" and part["text"]]
    said += [item["tool_plan"]] if item.get("tool_plan") else []
    calls = [_without_id(call) for call in item.get("tool_calls") or ()]
    citations = list(item.get("citations") or ())

    def holds(message: dict[str, Any]) -> bool:
        texts = [part["text"] for part in message.get("content") or () if part["type"] == "text"]
        texts += [message.get("tool_plan", "")]
        return (
            _run(others, [part for part in message.get("content") or () if part["type"] != "text"])
            and all(any(text in among for among in texts) for text in said)
            and _run(calls, [_without_id(call) for call in message.get("tool_calls") or ()])
            and _run(citations, list(message.get("citations") or ()))
        )

    return not (others or said or calls or citations) or any(map(holds, sent.items))


def _verbatim(item: Any, sent: Sent) -> bool:
    return item in sent.items


# --- replies in each dialect's shapes, from its own tests ------------------------------------


def _anthropic_replies() -> st.SearchStrategy[Any]:
    drawn = st.builds(
        lambda groups, limit: reply_of(
            blocks := numbered(groups, iter(range(10**6))), stop_for(blocks, limit)
        ),
        GROUPS,
        st.integers(0, 4).map(lambda n: n == 0),  # now and then cut at the token limit
    )
    # And the recorded shapes: citations, code waiting for a call, compaction, fallback.
    return st.one_of(drawn, st.sampled_from(list(ANTHROPIC_REPLIES.values())))


# What a chat reply's turn cannot say, so that it is kept: a refusal, output audio,
# citations (the turn tests' shapes).
_CHAT_KEPT: list[dict[str, Any]] = [
    {"role": "assistant", "content": None, "refusal": "No."},
    {
        "role": "assistant",
        "content": None,
        "audio": {"id": "audio_1", "data": "UklG", "expires_at": 9, "transcript": "Hi!"},
    },
    {
        "role": "assistant",
        "content": "See [1].",
        "annotations": [
            {
                "type": "url_citation",
                "url_citation": {
                    "url": "https://example.org",
                    "title": "Example",
                    "start_index": 4,
                    "end_index": 7,
                },
            }
        ],
    },
]


def _chat_read(reply: Any) -> Reply:
    """A chat reply from its stream's events, or from the whole completion."""
    return _fed(openai_chat, reply) if isinstance(reply, list) else openai_chat.read_reply(reply)


def _fed(module: ModuleType, events: list[Any]) -> Reply:
    accumulator = module.Accumulator()
    for event in events:
        accumulator.feed(event)
    reply: Reply = accumulator.reply()
    return reply


def _responses_reply(drawn: tuple[list[dict[str, Any]], str]) -> dict[str, Any]:
    """The response around drawn output, each item with an id of its own, as the API gives
    them (the strategy repeats its server tools' items, ids and all)."""
    output, status = drawn
    output = [
        {**item, "id": f"{item['id']}_{n}"} if "id" in item else item
        for n, item in enumerate(output)
    ]
    reason = "max_output_tokens" if status == "incomplete" else None
    return responses_response(output, status=status, reason=reason)


def _bedrock_cut() -> dict[str, Any]:
    """A reply cut at the token limit inside a call, after blank text."""
    use = {"toolUseId": "tooluse_cut", "name": "write", "input": {"path": "notes"}}
    return bedrock_reply([{"text": " "}, {"toolUse": use}], stop="max_tokens")


_BEDROCK = [thinking_then_call, redacted_then_text, code_interpreter, cited_reply, _bedrock_cut]
_GEMINI = [*GEMINI_STREAMS.values(), [CALL_RESPONSE]]


def _read_or_fed(module: ModuleType) -> Callable[[Any], Reply]:
    """A reply read whole, or from its stream's events."""

    def read(reply: Any) -> Reply:
        return _fed(module, reply) if isinstance(reply, list) else module.read_reply(reply)

    return read


def _whole_or_streamed(drawn: tuple[Any, list[Any]], whole: bool) -> Any:
    return drawn[0] if whole else drawn[1]


# Mistral's: generated, and the turn tests' shapes (reasoning, calls sent whole, signed
# thinking and references, content a turn cannot say, a call cut at the token limit).
_MISTRAL = [
    mistral_completion(mistral_turn.REASONED),
    mistral_completion({"role": "assistant", "tool_calls": [mistral_turn.WEATHER_CALL]}),
    *[
        mistral_completion({"role": "assistant", "content": c})
        for c, _ in mistral_turn.KEPT_CONTENT
    ],
    *mistral_turn.streams(),
    mistral_turn.cut_call_stream(),
]

# Cohere's: generated, and the turn tests' shapes (plans and calls, thinking, citations,
# spaced arguments and a call without any, a call cut at the token limit).
_COHERE = [
    cohere_reply(cohere_turn.REASONED),
    cohere_reply(cohere_turn.CITED),
    cohere_reply(
        {
            "tool_plan": cohere_turn.PLAN,
            "tool_calls": [cohere_turn.SPACED, cohere_turn.NO_ARGUMENTS],
        },
        "TOOL_CALL",
    ),
    *cohere_turn.streams(),
    cohere_turn.cut_call_stream(),
]


def _mistral_reread(items: list[Any]) -> list[ct.Message]:
    return mistral.from_response(mistral_completion(items[0] if items else {"role": "assistant"}))


def _cohere_reread(items: list[Any]) -> list[ct.Message]:
    return cohere.from_response(cohere_reply(items[0] if items else {}))


# --- the dialects ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Provider:
    """One dialect as this test drives it: an entry of :data:`PROVIDERS`.

    An entry needs the module; the name its notes give it (the
    ``dialect`` of ``note_text``); a strategy of replies in its shapes
    (drawn as its own tests draw them), how to read one into a ``Reply``,
    and how to read the reply its kept items make (what is left of a reply
    once pieces are taken out of its items); how to find each kind of piece
    in its request (:class:`Sent`), and an item of its own protocol there;
    a validator of its request against the provider's SDK types; and the
    words ``left_out`` may use for replies it made itself, as its page
    says. Its ``to_request`` and ``left_out`` options default to sending a
    note for media it cannot take.
    """

    module: ModuleType
    name: str
    replies: st.SearchStrategy[Any]
    read: Callable[[Any], Reply]
    reread: Callable[[list[Any]], list[ct.Message]]
    """The messages read from a reply whose output is these items (kept ones)."""
    sent: Callable[[dict[str, Any]], Sent]
    validate: Callable[[dict[str, Any]], None]
    own: frozenset[str]
    item_sent: Callable[[Any, Sent], bool] = _verbatim
    request_options: dict[str, Any] = field(default_factory=lambda: {"unsupported": "note"})
    left_out_options: dict[str, Any] = field(default_factory=lambda: {"unsupported": "note"})

    @property
    def protocol(self) -> str:
        protocol: str = self.module.PROTOCOL
        return protocol

    def __repr__(self) -> str:
        return self.module.__name__.rsplit(".", 1)[-1]

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))  # hypothesis's reports name the dialect, not every field


PROVIDERS = [
    Provider(
        module=anthropic,
        name="Anthropic",
        replies=_anthropic_replies(),
        read=anthropic.read_reply,
        reread=lambda items: anthropic.from_response(reply_of(items)),
        sent=_anthropic_sent,
        validate=lambda body: validate_anthropic(body, beta=True),
        # Blank text between cited blocks, and what a cut left behind (a call; a turn that
        # would end in thinking, which the API refuses).
        own=frozenset({"text", "call", "thinking", "redacted-thinking"}),
    ),
    Provider(
        module=openai_chat,
        name="OpenAI Chat Completions",
        replies=st.one_of(chat_streams(), st.sampled_from(_CHAT_KEPT).map(completion)),
        read=_chat_read,
        reread=lambda items: openai_chat.from_response(completion(items[0])),
        sent=_chat_sent,
        validate=validate_openai_chat,
        # A server's reasoning, which OpenAI takes no copy of unless reasoning=
        # names a field; citations, which it takes no input for; a call cut at
        # the token limit.
        own=frozenset({"thinking", "annotations", "call"}),
        item_sent=_chat_item_sent,
    ),
    Provider(
        module=openai_responses,
        name="OpenAI Responses",
        replies=outputs().map(_responses_reply),
        read=openai_responses.read_reply,
        reread=lambda items: openai_responses.from_response(responses_response(items)),
        sent=_responses_sent,
        validate=validate_responses,
        # Reasoning an incomplete reply ended with, and a call it cut.
        own=frozenset({"thinking", "call"}),
    ),
    Provider(
        module=gemini,
        name="Gemini",
        replies=st.sampled_from(_GEMINI),
        read=lambda events: _fed(gemini, events),
        reread=lambda items: gemini.from_response(gemini_response(items)),
        sent=_gemini_sent,
        validate=validate_gemini,
        # The empty unsigned part that ends many streams.
        own=frozenset({"text"}),
    ),
    Provider(
        module=ollama,
        name="Ollama",
        replies=st.sampled_from(sorted(OLLAMA_REPLIES)).map(
            lambda name: ollama_response(OLLAMA_REPLIES[name])
        ),
        read=ollama.read_reply,
        reread=lambda items: ollama.from_response(ollama_response(items[0])),
        sent=_ollama_sent,
        validate=validate_ollama,
        own=frozenset(),
    ),
    Provider(
        module=bedrock,
        name="Bedrock",
        replies=st.sampled_from(_BEDROCK).map(lambda make: make()),
        read=bedrock.read_reply,
        reread=lambda items: bedrock.from_response(bedrock_reply(items)),
        sent=_bedrock_sent,
        validate=validate_bedrock,
        # Blank text, and a call a cut left behind.
        own=frozenset({"text", "call"}),
        item_sent=_bedrock_item_sent,
    ),
    Provider(
        module=mistral,
        name="Mistral",
        replies=st.one_of(
            st.builds(_whole_or_streamed, mistral_turn.replies(), st.booleans()),
            st.sampled_from(_MISTRAL),
        ),
        read=_read_or_fed(mistral),
        reread=_mistral_reread,
        sent=_mistral_sent,
        validate=validate_mistral,
        # A call cut off at the token limit.
        own=frozenset({"call"}),
        item_sent=_mistral_item_sent,
    ),
    Provider(
        module=cohere,
        name="Cohere",
        replies=st.one_of(
            st.builds(_whole_or_streamed, cohere_turn.replies(), st.booleans()),
            st.sampled_from(_COHERE),
        ),
        read=_read_or_fed(cohere),
        reread=_cohere_reread,
        sent=_cohere_sent,
        validate=validate_cohere,
        # A call cut off at the token limit, and a reply of thinking alone (no turn).
        own=frozenset({"call", "thinking"}),
        item_sent=_cohere_item_sent,
    ),
]


# --- transcripts a backend stores -------------------------------------------------------------

_ID_KEYS = frozenset({"id", "call_id", "toolUseId", "tool_use_id", "tool_id"})


def with_ids_of(reply: Any, number: int) -> Any:
    """``reply`` with every id it gives made its own, as no two replies share ids.

    The fixtures repeat their ids from reply to reply; a suffix keeps a
    call, its result and any reference to it together.
    """
    if isinstance(reply, dict):
        return {
            key: f"{value}_r{number}"
            if key in _ID_KEYS and isinstance(value, str) and value
            else with_ids_of(value, number)
            for key, value in reply.items()
        }
    if isinstance(reply, list):
        return [with_ids_of(item, number) for item in reply]
    return reply


_MEDIA: st.SearchStrategy[ct.ContentBlock] = st.sampled_from(
    [
        ct.ImageUrlBlock(url="https://img.example/a.png"),
        ct.ImageUrlBlock(url="https://img.example/b.jpg", detail="high"),
        ct.ImageUrlBlock(url="data:image/png;base64,iVBORw0KGgoAAAA="),
        ct.ImageUrlBlock(url="s3://bucket/c.png"),
        ct.ImageBase64Block(
            data=base64.b64encode(b"\x89PNG\r\n\x1a\n:b").decode(), media_type="image/png"
        ),
        ct.ImageBase64Block(data="Qk0AAAA=", media_type="image/bmp"),
        ct.AudioBase64Block(data="UklGRgAAAAA=", media_type="audio/wav", sample_rate=16000),
        ct.AudioUrlBlock(url="https://snd.example/a.mp3"),
        ct.VideoUrlBlock(url="https://vid.example/v.mp4", fps=2.0, max_frames=16),
        ct.VideoBase64Block(data="AAAAIGZ0eXA=", media_type="video/mp4"),
        ct.VideoPathBlock(path="/tmp/clip.mp4"),
    ]
)
_SAID = cst.texts(12).map(lambda text: f"Ask {text}")  # never blank: the turn says something


@st.composite
def user_turns(draw: st.DrawFn) -> ct.UserMessage | ct.UserMultimodalMessage:
    """What a user says: text, or text with media and perhaps blank text among them."""
    said = draw(_SAID)
    if draw(st.booleans()):
        return ct.UserMessage(content=said)
    blank_or_not = st.builds(ct.TextBlock, text=cst.texts(6))
    extra: list[ct.ContentBlock] = draw(st.lists(st.one_of(_MEDIA, blank_or_not), max_size=3))
    return ct.UserMultimodalMessage(content=(ct.TextBlock(text=said), *extra))


@st.composite
def transcripts(
    draw: st.DrawFn, *sources: Provider, turns: int = 3
) -> tuple[list[ct.Message], set[int]]:
    """A conversation whose replies came from ``sources`` (each from any one of
    them), and the indexes of the replies' messages."""
    messages: list[ct.Message] = []
    if draw(st.booleans()):
        messages.append(ct.SystemMessage(content=draw(st.sampled_from(["Be brief.", "", " "]))))
    replies: set[int] = set()
    number = 0
    for _ in range(draw(st.integers(1, turns))):
        messages.append(draw(user_turns()))
        for _ in range(draw(st.integers(1, 2))):
            number += 1
            source = draw(st.sampled_from(sources))
            reply = source.read(with_ids_of(draw(source.replies), number))
            replies.update(range(len(messages), len(messages) + len(reply.messages)))
            messages += reply.messages
            messages += [
                ct.ToolResultMessage(
                    tool_use_id=call.id,
                    content=f"result {number}.{position}",
                    provenance=draw(st.sampled_from(["internal", "external"])),
                )
                for position, call in enumerate(reply.tool_calls)
            ]
    return messages, replies


# --- what a stored piece is found as -------------------------------------------------------------


def _squashed(text: str) -> str:
    return "".join(text.split())


def _spread(text: str, among: list[str]) -> bool:
    """Whether ``text`` is texts of ``among`` one after another (white space aside).

    The message read from a reply's items joins the texts of their blocks.
    Any of ``among`` may be passed over (a user's ``"H"`` before a reply
    that starts with one), so every way of reading ``text`` is followed.
    """
    whole = _squashed(text)
    reached = {0}  # how much of ``whole`` the texts so far can spell
    for piece in map(_squashed, among):
        if piece:
            reached |= {at + len(piece) for at in reached if whole.startswith(piece, at)}
    return len(whole) in reached


def _leaves(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return []


def _media(block: Any) -> str:
    """What of a media block a request carries: its data, URL or path."""
    if isinstance(block, ct.ImageUrlBlock) and block.url.startswith("data:"):
        return block.url.partition(",")[2]
    for name in ("data", "url", "path"):
        if hasattr(block, name):
            value: str = getattr(block, name)
            return value
    raise AssertionError(block)


def _settings(block: Any) -> list[tuple[str, Any]]:
    """The settings of a media block that say more than the default."""
    out: list[tuple[str, Any]] = []
    if getattr(block, "detail", "auto") != "auto":
        out.append(("detail", block.detail))
    for name, word in (
        ("fps", "fps"),
        ("max_frames", "max-frames"),
        ("sample_rate", "sample-rate"),
    ):
        if getattr(block, name, None) is not None:
            out.append((word, getattr(block, name)))
    return out


def unsent(
    transcript: list[ct.Message],
    stripped: list[tuple[int, ct.Message]],
    body: dict[str, Any],
    target: Provider,
) -> list[str]:
    """Each piece of the stripped transcript that ``body`` does not carry, named.

    An assistant message right after items of ``target``'s own protocol was
    read from them (again, if pieces were taken out of them), and the items
    stand for it: its text may be spread over their blocks, and a piece of
    it may go as the items carry it (output audio by its id, say), since
    each item is itself looked for in the request.
    """
    sent = target.sent(body)
    missing: list[str] = []
    previous: ct.Message | None = None
    for index, message in stripped:
        held: list[str] = []
        view = (
            isinstance(message, ct.AssistantMessage)
            and isinstance(previous, ct.ProviderOutputItemsMessage)
            and previous.protocol == target.protocol
        )
        if view:
            assert isinstance(previous, ct.ProviderOutputItemsMessage)
            held = _leaves(list(previous.items))
        previous = message

        def found(value: str, among: list[str], view: bool = view, held: list[str] = held) -> bool:
            return (
                value == ""  # nothing to find
                or any(value in text for text in among)
                or (view and (_spread(value, among) or any(value in leaf for leaf in held)))
            )

        where = f"message {index}"
        if isinstance(message, (ct.SystemMessage, ct.UserMessage)):
            if not found(message.content, sent.texts):
                missing.append(f"{where}: its text")
        elif isinstance(message, ct.UserMultimodalMessage):
            for position, block in enumerate(message.content):
                if isinstance(block, ct.TextBlock):
                    ok = found(block.text, sent.texts)
                else:
                    ok = found(_media(block), sent.media) and all(
                        setting in sent.settings for setting in _settings(block)
                    )
                if not ok:
                    missing.append(f"{where}, block {position}: {block}")
        elif isinstance(message, ct.AssistantMessage):
            if not found(message.content, sent.texts):
                missing.append(f"{where}: its text {message.content!r}")
            for position, thought in enumerate(message.thinking):
                if thought.redacted_data is not None:
                    ok = found(thought.redacted_data, sent.redacted)
                else:
                    ok = found(thought.text, sent.thoughts) and (
                        not thought.signature or found(thought.signature, sent.signatures)
                    )
                if not ok:
                    missing.append(f"{where}, thinking block {position}: {thought}")
            for call in message.tool_calls:
                if (call.name, call.arguments) not in sent.calls:
                    missing.append(f"{where}: the call {call}")
        elif isinstance(message, ct.ToolResultMessage):
            if not found(message.content, sent.results):
                missing.append(f"{where}: the result")
        else:
            for position, item in enumerate(message.items):
                if not target.item_sent(item, sent):
                    missing.append(f"{where}, item {position}: {item!r:.200}")
    return missing


# --- the switch ------------------------------------------------------------------------------


def reread(
    transcript: list[ct.Message], stripped: list[tuple[int, ct.Message]], target: Provider
) -> list[tuple[int, ct.Message]]:
    """``stripped``, each reply whose kept items lost a piece read again from what is left.

    The assistant message after a reply's items is read from them, and
    ``left_out`` names a piece once, where it is kept: in the items. Once
    the piece is taken out of the items, the message read from them no
    longer holds it either.
    """
    out: list[tuple[int, ct.Message]] = []
    for index, message in stripped:
        before = transcript[index - 1] if index else None
        if (
            isinstance(message, ct.AssistantMessage)
            and isinstance(before, ct.ProviderOutputItemsMessage)
            and before.protocol == target.protocol
            and out
            and out[-1][0] == index - 1
            and out[-1][1] != before
        ):
            items = out[-1][1]
            assert isinstance(items, ct.ProviderOutputItemsMessage)
            message = target.reread(list(items.items))[-1]
            assert isinstance(message, ct.AssistantMessage)
        out.append((index, message))
    return out


def check_switch(
    transcript: list[ct.Message], replies: set[int], source: Provider, target: Provider
) -> None:
    """``target``'s request of ``transcript`` and its ``left_out``, held to their promises."""
    build, left_out = target.module.to_request, target.module.left_out
    body = build(transcript, **target.request_options)
    if target is not source:
        target.validate(body)
    report: list[LeftOut] = left_out(transcript, **target.left_out_options)
    assert [piece.index for piece in report] == sorted(piece.index for piece in report)
    assert all(piece.what in LEFT_OUT_KINDS for piece in report)
    stripped = reread(transcript, stripped_messages(transcript, report, target.name), target)
    without = [message for _, message in stripped]
    # None of what was named was sent: without it, the same request...
    assert build(without, **target.request_options) == body
    # ...nothing else was left out...
    assert left_out(without, **target.left_out_options) == []
    # ...and everything else is in the request.
    assert unsent(transcript, stripped, body, target) == []
    if target is source:
        # Its own replies lose only what its page says they lose.
        mine = {piece.what for piece in report if piece.index in replies}
        assert mine <= target.own, [piece for piece in report if piece.index in replies]


@pytest.mark.parametrize("source", PROVIDERS, ids=repr)
@settings(max_examples=examples(200, 25))
@given(st.data())
def test_a_conversation_goes_to_every_provider_and_left_out_names_what_stays(
    source: Provider, data: st.DataObject
) -> None:
    transcript, replies = data.draw(transcripts(source))
    assert ct.check_conversation(transcript) == []  # as a backend would send it
    for target in PROVIDERS:
        check_switch(transcript, replies, source, target)
