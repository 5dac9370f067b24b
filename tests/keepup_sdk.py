"""The kinds each provider's installed SDK names, found at run time by walking its types.

Nothing here is a list written by hand: the content blocks, output items and
parts, the stream events and deltas, the stop reasons and the roles are read
from the SDK's own discriminated unions (``typing.get_args``), the ``Literal``
of each member's ``type`` field, its enums, and, for Bedrock, botocore's
service model. A release that adds a kind adds it here, and
tests/test_keepup.py then asks each dialect's ``_kinds`` table about it.

Each kind comes with where it was found (for the failure message) and the
SDK class or botocore shape it is an instance of (for the tests that build
one and read it).
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any, Final, NamedTuple

CATEGORIES = ("block", "event", "delta", "stop_reason", "role")
"""What a dialect's ``_kinds`` declares, one table each (see convtypes.dialects._kinds)."""


class Found(NamedTuple):
    """One kind as an SDK names it: where, and the class (or shape) that holds it."""

    where: str
    model: Any


Enumeration = dict[str, dict[str, Found]]
"""Category to kind to where it was found."""


# A TypedDict key's qualifiers. Before Python 3.11, typing.get_type_hints
# leaves typing_extensions' Required (the SDKs' own) around the type.
_QUALIFIERS: Final = frozenset({"Required", "NotRequired", "ReadOnly"})


def members(tp: Any) -> list[Any]:
    """The members of a union, through ``Annotated``, aliases and nested unions."""
    if hasattr(tp, "__value__"):  # a ``type X = ...`` alias
        return members(tp.__value__)
    origin = typing.get_origin(tp)
    if origin is typing.Annotated or getattr(origin, "_name", None) in _QUALIFIERS:
        return members(typing.get_args(tp)[0])
    if origin is typing.Union or origin is types.UnionType:
        return [member for arg in typing.get_args(tp) for member in members(arg)]
    return [tp]


def literals(tp: Any) -> list[Any]:
    """The values of the ``Literal`` types in ``tp`` (a union of them, optional or not)."""
    return [
        value
        for member in members(tp)
        if typing.get_origin(member) is typing.Literal
        for value in typing.get_args(member)
    ]


def _field(model: Any, name: str) -> Any:
    """The annotation of field ``name`` of a pydantic model or a TypedDict; None if absent."""
    fields = getattr(model, "model_fields", None)
    if fields is not None:
        return fields[name].annotation if name in fields else None
    hints = typing.get_type_hints(model)
    return hints.get(name)


def _name(model: Any) -> str:
    return f"{model.__module__}.{model.__qualname__}"


def by_type(union: Any, where: str, field: str = "type") -> dict[str, Found]:
    """Each member of ``union`` under the ``Literal`` value(s) of its ``field``.

    A member without such a field, and the SDK's own catch-all for what it
    does not know (Mistral's ``Unknown...`` classes), are no kinds of their
    own and are passed over.
    """
    found: dict[str, Found] = {}
    for member in members(union):
        if getattr(member, "__name__", "").startswith("Unknown"):
            continue
        annotation = _field(member, field) if isinstance(member, type) else None
        for value in literals(annotation) if annotation is not None else []:
            found.setdefault(str(value), Found(f"{where} ({_name(member)}.{field})", member))
    return found


def literal_kinds(tp: Any, where: str) -> dict[str, Found]:
    """The values of a ``Literal`` (or a union holding one) as kinds."""
    return {str(value): Found(where, None) for value in literals(tp)}


def enum_kinds(enumeration: type[enum.Enum], where: str) -> dict[str, Found]:
    return {str(member.value): Found(f"{where}.{member.name}", None) for member in enumeration}


def roles_of(models: Iterable[Any], where: str, field: str = "role") -> dict[str, Found]:
    """The roles the ``role`` fields of ``models`` allow."""
    found: dict[str, Found] = {}
    for model in models:
        annotation = _field(model, field)
        for value in literals(annotation) if annotation is not None else []:
            found.setdefault(str(value), Found(f"{where} ({_name(model)}.{field})", model))
    return found


def merge(*tables: dict[str, Found]) -> dict[str, Found]:
    out: dict[str, Found] = {}
    for table in tables:
        for kind, found in table.items():
            out.setdefault(kind, found)
    return out


def anthropic() -> Enumeration:
    import anthropic.types as ga
    import anthropic.types.beta as beta

    return {
        "block": merge(
            by_type(ga.ContentBlock, "anthropic.types.ContentBlock"),
            by_type(beta.BetaContentBlock, "anthropic.types.beta.BetaContentBlock"),
        ),
        "event": merge(
            by_type(ga.RawMessageStreamEvent, "anthropic.types.RawMessageStreamEvent"),
            by_type(
                beta.BetaRawMessageStreamEvent, "anthropic.types.beta.BetaRawMessageStreamEvent"
            ),
        ),
        "delta": merge(
            by_type(ga.RawContentBlockDelta, "anthropic.types.RawContentBlockDelta"),
            by_type(beta.BetaRawContentBlockDelta, "anthropic.types.beta.BetaRawContentBlockDelta"),
        ),
        "stop_reason": merge(
            literal_kinds(ga.StopReason, "anthropic.types.StopReason"),
            literal_kinds(beta.BetaStopReason, "anthropic.types.beta.BetaStopReason"),
        ),
        "role": merge(
            roles_of([ga.Message], "anthropic.types.Message"),
            roles_of(members(ga.MessageParam), "anthropic.types.MessageParam"),
            roles_of(members(beta.BetaMessageParam), "anthropic.types.beta.BetaMessageParam"),
        ),
    }


def openai_chat() -> Enumeration:
    from openai.types import chat
    from openai.types.chat import chat_completion, chat_completion_chunk, chat_completion_message

    return {
        "block": merge(
            by_type(chat.ChatCompletionMessageToolCallUnion, "ChatCompletionMessage.tool_calls"),
            by_type(chat_completion_message.Annotation, "ChatCompletionMessage.annotations"),
        ),
        "event": {},
        "delta": by_type(chat_completion_chunk.ChoiceDeltaToolCall, "ChoiceDelta.tool_calls"),
        "stop_reason": merge(
            literal_kinds(
                _field(chat_completion.Choice, "finish_reason"),
                "chat_completion.Choice.finish_reason",
            ),
            literal_kinds(
                _field(chat_completion_chunk.Choice, "finish_reason"),
                "chat_completion_chunk.Choice.finish_reason",
            ),
        ),
        "role": merge(
            roles_of([chat.ChatCompletionMessage], "ChatCompletionMessage"),
            roles_of(members(chat.ChatCompletionMessageParam), "ChatCompletionMessageParam"),
            literal_kinds(_field(chat_completion_chunk.ChoiceDelta, "role"), "ChoiceDelta.role"),
        ),
    }


def openai_responses() -> Enumeration:
    from openai.types import responses
    from openai.types.responses import response

    content = members(_field(responses.ResponseOutputMessage, "content"))
    return {
        "block": merge(
            by_type(responses.ResponseOutputItem, "openai.types.responses.ResponseOutputItem"),
            by_type(
                typing.Union[tuple(typing.get_args(content[0]))],
                "ResponseOutputMessage.content",
            ),
        ),
        "event": by_type(
            responses.ResponseStreamEvent, "openai.types.responses.ResponseStreamEvent"
        ),
        "delta": {},
        "stop_reason": merge(
            literal_kinds(_field(responses.Response, "status"), "Response.status"),
            {
                f"incomplete:{kind}": found
                for kind, found in literal_kinds(
                    _field(response.IncompleteDetails, "reason"),
                    "Response.incomplete_details.reason",
                ).items()
            },
        ),
        "role": merge(
            roles_of([responses.ResponseOutputMessage], "ResponseOutputMessage"),
            roles_of([responses.EasyInputMessage], "EasyInputMessage"),
        ),
    }


def gemini() -> Enumeration:
    from google.genai import types as g

    parts = {name: Found(f"google.genai.types.Part.{name}", g.Part) for name in g.Part.model_fields}
    return {
        "block": parts,
        "event": {},
        "delta": {},
        "stop_reason": enum_kinds(g.FinishReason, "google.genai.types.FinishReason"),
        # Content.role is a plain str in the SDK: no role is named there.
        "role": literal_kinds(_field(g.Content, "role"), "google.genai.types.Content.role"),
    }


def bedrock_model() -> Any:
    import botocore.session  # type: ignore[import-untyped]

    return botocore.session.get_session().get_service_model("bedrock-runtime")


def bedrock() -> Enumeration:
    model = bedrock_model()

    def union(name: str) -> dict[str, Found]:
        shape = model.shape_for(name)
        return {
            member: Found(f"botocore bedrock-runtime {name}.{member}", shape.members[member])
            for member in shape.members
        }

    def enumerated(name: str) -> dict[str, Found]:
        return {
            value: Found(f"botocore bedrock-runtime {name}", None)
            for value in model.shape_for(name).enum
        }

    return {
        "block": union("ContentBlock"),
        "event": union("ConverseStreamOutput"),
        "delta": merge(
            {f"start:{k}": v for k, v in union("ContentBlockStart").items()},
            {f"delta:{k}": v for k, v in union("ContentBlockDelta").items()},
            {f"reasoning:{k}": v for k, v in union("ReasoningContentBlockDelta").items()},
        ),
        "stop_reason": enumerated("StopReason"),
        "role": enumerated("ConversationRole"),
    }


def mistral() -> Enumeration:
    import mistralai.client.models as m

    def tags(tp: Any) -> list[str]:
        # List[Annotated[Union[Annotated[Model, Tag(role)], ...], Discriminator]]
        (item,) = typing.get_args(tp)
        union = typing.get_args(item)[0]
        return [
            meta.tag
            for member in typing.get_args(union)
            for meta in typing.get_args(member)[1:]
            if hasattr(meta, "tag")
        ]

    messages = _field(m.ChatCompletionRequest, "messages")
    return {
        "block": merge(
            by_type(m.ContentChunk, "mistralai.client.models.ContentChunk"),
            {"tool_call": Found("AssistantMessage.tool_calls", m.ToolCall)},
        ),
        "event": {},
        "delta": by_type(m.ContentChunk, "DeltaMessage.content (ContentChunk)"),
        "stop_reason": merge(
            literal_kinds(
                _field(m.ChatCompletionChoice, "finish_reason"),
                "ChatCompletionChoice.finish_reason",
            ),
            literal_kinds(
                _field(m.CompletionResponseStreamChoice, "finish_reason"),
                "CompletionResponseStreamChoice.finish_reason",
            ),
        ),
        "role": merge(
            {tag: Found("ChatCompletionRequest.messages (Tag)", None) for tag in tags(messages)},
            roles_of([m.AssistantMessage], "AssistantMessage"),
        ),
    }


def cohere() -> Enumeration:
    import cohere as c

    return {
        "block": merge(
            by_type(
                c.AssistantMessageResponseContentItem, "cohere.AssistantMessageResponseContentItem"
            ),
            by_type(c.ToolCallV2, "cohere.ToolCallV2"),
        ),
        "event": by_type(c.StreamedChatResponseV2, "cohere.StreamedChatResponseV2"),
        "delta": {},
        "stop_reason": literal_kinds(c.ChatFinishReason, "cohere.ChatFinishReason"),
        "role": merge(
            by_type(c.ChatMessageV2, "cohere.ChatMessageV2", "role"),
            roles_of([c.AssistantMessageResponse], "AssistantMessageResponse"),
        ),
    }


def ollama() -> Enumeration:
    import ollama as o

    # The ollama package types role and done_reason as plain str, so only
    # the message's fields (what a reply's message can hold) are named.
    return {
        "block": {
            name: Found(f"ollama.Message.{name}", o.Message)
            for name in o.Message.model_fields
            if name != "role"
        },
        "event": {},
        "delta": {},
        "stop_reason": literal_kinds(
            _field(o.ChatResponse, "done_reason"), "ChatResponse.done_reason"
        ),
        "role": literal_kinds(_field(o.Message, "role"), "ollama.Message.role"),
    }


ENUMERATORS: dict[str, Callable[[], Enumeration]] = {
    "anthropic": anthropic,
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "gemini": gemini,
    "bedrock": bedrock,
    "mistral": mistral,
    "cohere": cohere,
    "ollama": ollama,
}
