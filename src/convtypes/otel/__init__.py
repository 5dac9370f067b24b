"""A transcript or a reply as OpenTelemetry's GenAI semantic conventions record it.

The conventions put a model call's content on its span (or event) in three
attributes: ``gen_ai.system_instructions`` (a list of parts),
``gen_ai.input.messages`` and ``gen_ai.output.messages`` (lists of messages
of ``{"role", "parts"}``), each with a JSON schema; and the reasons a reply
stopped in ``gen_ai.response.finish_reasons``. The functions here return
those values as plain JSON (dicts, lists, strings), ready to be set as
attributes, serialised with ``json.dumps`` where a tracer takes strings
only. Nothing here imports an OpenTelemetry package, and ``import
convtypes`` does not import this module.

Every kind of content goes to the part type the conventions name for it,
never to their catch-all ``GenericPart``:

- text as ``text``; thinking as ``reasoning``;
- images, audio and video as ``blob`` (``modality``, ``mime_type``, the
  base64 ``content``) when inline, including a base64 ``data:`` URL, and as
  ``uri`` when fetched by URL or read from a local path (a ``file://`` URI);
  ``detail``, ``fps``, ``max_frames`` and ``sample_rate`` ride on the part
  under those names when set;
- a tool call as ``tool_call`` (``id``, ``name``, ``arguments``), a result
  as a ``tool_call_response`` in a message of role ``tool``; a result from
  outside the trust boundary carries ``provenance: "external"``, a field
  convtypes adds (the schemas allow fields of one's own);
- from a reply's provider items: server tools as ``server_tool_call`` and
  ``server_tool_call_response``, compaction as ``compaction``, generated
  images and audio as ``blob``. The items and the assistant message read
  from them become one message: its reasoning, the items' server tools,
  compaction and media, then its text and its calls.

Signatures, redacted or encrypted reasoning, encrypted state, citations and
provider items with no part type of their own are not exported, and
:func:`left_out` names each of them, as the dialects' ``left_out`` does.
Nothing opaque is copied into the export.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from .._errors import WireError
from .._messages import (
    AssistantMessage,
    ProviderOutputItemsMessage,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from .._unknown import UnknownMessage
from ..dialects import LeftOut, Reply
from ._items import Found, item_pieces, resolved
from ._parts import assistant_parts, block_part, result_part, text_part
from ._truncate import truncate as _truncate

__all__ = [
    "FINISH_REASONS",
    "finish_reasons",
    "input_messages",
    "left_out",
    "output_messages",
    "system_instructions",
]

FINISH_REASONS: Final[dict[str, str]] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_call",
    "max_tokens": "length",
    "content_filter": "content_filter",
    "refusal": "content_filter",
    "pause_turn": "pause_turn",
}
"""A reply's ``stop_reason`` as a finish reason of the conventions.

A refusal is ``content_filter``: the providers that report one (Anthropic,
OpenAI) report a safety system's decision. ``pause_turn`` has no value of
the conventions, and keeps its own. ``other`` is missing here: it becomes
the provider's own reason (``provider_stop_reason``), or ``"other"``.
"""


def _messages(transcript: object, caller: str) -> list[Any]:
    if isinstance(transcript, Reply):
        return transcript.messages
    if isinstance(transcript, (str, bytes, dict)) or not isinstance(transcript, Iterable):
        raise TypeError(f"{caller} takes a list of messages, not a {type(transcript).__name__}")
    return list(transcript)


def _budget(truncate: int | None) -> int | None:
    if truncate is None:
        return None
    if type(truncate) is not int:
        raise TypeError(f"truncate takes an int budget in bytes, got {type(truncate).__name__}")
    if truncate < 0:
        raise ValueError(f"truncate takes a budget from 0 bytes, got {truncate}")
    return truncate


def _not_a_message(caller: str, index: int, message: object) -> Exception:
    """A ``WireError`` for a message of a newer writer, a ``TypeError`` for a non-message.

    Only an ``UnknownMessage`` is a newer writer's: another object with a
    ``role`` (a provider SDK's message) is no message of convtypes at all.
    """
    if isinstance(message, UnknownMessage):
        return WireError(
            f"expected a message this version knows, got role {message.role!r}",
            f"$[{index}].role",
        )
    return TypeError(f"{caller} takes messages; item {index} is a {type(message).__name__}")


_KNOWN: Final = frozenset(
    {
        SystemMessage,
        UserMessage,
        UserMultimodalMessage,
        AssistantMessage,
        ToolResultMessage,
        ProviderOutputItemsMessage,
    }
)


def _export(
    messages: list[Any], system: bool, caller: str, audit: bool = False
) -> tuple[list[dict[str, Any]], list[Found]]:
    """The messages as the conventions' messages, and what is left out of them.

    ``system`` says whether system messages are exported among the others
    (an output) or left for ``system_instructions`` (an input).
    """
    out: list[dict[str, Any]] = []
    left: list[Found] = []
    extra: list[dict[str, Any]] = []
    count = len(messages)
    for index, message in enumerate(messages):
        kind = type(message)
        if kind is UserMessage:
            out.append({"role": "user", "parts": [text_part(message.content)]})
        elif kind is AssistantMessage:
            out.append({"role": "assistant", "parts": assistant_parts(index, message, extra, left)})
            extra = []
        elif kind is ToolResultMessage:
            out.append({"role": "tool", "parts": [result_part(message)]})
        elif kind is UserMultimodalMessage:
            parts = [block_part(block, index, at) for at, block in enumerate(message.content)]
            out.append({"role": "user", "parts": parts})
        elif kind is SystemMessage:
            if system:
                out.append({"role": "system", "parts": [text_part(message.content)]})
        elif kind is ProviderOutputItemsMessage:
            after = messages[index + 1] if index + 1 < count else None
            held = after if type(after) is AssistantMessage else None
            pieces = item_pieces(index, message.protocol, message.items, held, left, audit)
            if held is not None:
                extra = [piece.part for piece in pieces if not piece.flat]
            elif pieces:
                out.append({"role": "assistant", "parts": [piece.part for piece in pieces]})
        else:
            raise _not_a_message(caller, index, message)
    return out, left


def input_messages(
    transcript: Iterable[Any], *, truncate: int | None = None
) -> list[dict[str, Any]]:
    """``gen_ai.input.messages``: the transcript's messages, in order, without its system messages.

    The system messages are the conventions' ``gen_ai.system_instructions``
    (:func:`system_instructions`), and are not repeated here. ``truncate``
    is a byte budget for the compact JSON of the result: content inside the
    parts is cut, the longest strings first, and each part that lost
    something lists what in a ``truncated`` field (a JSON Pointer into the
    part for each cut string, with its length in bytes before the cut).

    Raises :class:`~convtypes.WireError` for a message or block of a kind
    this version does not know, naming it (``$[3].role``,
    ``$[2].content[1].type``); ``TypeError`` for a ``transcript`` that is no
    list of messages (a string, a mapping, an item that is no message), or a
    ``truncate`` that is no ``int``; ``ValueError`` for a negative one.
    """
    budget = _budget(truncate)
    out, _ = _export(_messages(transcript, "input_messages"), False, "input_messages")
    return out if budget is None else _truncate(out, budget, "parts")


def system_instructions(
    transcript: Iterable[Any], *, truncate: int | None = None
) -> list[dict[str, Any]]:
    """``gen_ai.system_instructions``: a ``text`` part for each system message, in order.

    ``truncate`` as for :func:`input_messages`.
    """
    budget = _budget(truncate)
    messages = _messages(transcript, "system_instructions")
    for index, message in enumerate(messages):
        if type(message) not in _KNOWN:
            raise _not_a_message("system_instructions", index, message)
    out = [text_part(message.content) for message in messages if type(message) is SystemMessage]
    return out if budget is None else _truncate(out, budget, None)


def output_messages(reply: Reply, *, truncate: int | None = None) -> list[dict[str, Any]]:
    """``gen_ai.output.messages``: the reply's messages, as the conventions' ``OutputMessage``.

    A reply normally makes one message (its provider items and the message
    read from them are one). A reply with no message at all (a candidate
    blocked before its first token) makes one assistant message with no
    parts, so that its finish reason has a message to stand for. The
    deprecated per-message ``finish_reason`` is not written:
    :func:`finish_reasons` gives ``gen_ai.response.finish_reasons``.
    ``truncate`` as for :func:`input_messages`.
    """
    budget = _budget(truncate)
    if not isinstance(reply, Reply):
        raise TypeError(f"output_messages takes a Reply, not a {type(reply).__name__}")
    out, _ = _export(reply.messages, True, "output_messages")
    if not out:
        out = [{"role": "assistant", "parts": []}]
    return out if budget is None else _truncate(out, budget, "parts")


def finish_reasons(reply: Reply) -> list[str]:
    """``gen_ai.response.finish_reasons``: the reply's finish reason, once per output message.

    The reason is :data:`FINISH_REASONS` of the reply's ``stop_reason``; for
    ``"other"``, the provider's own reason, or ``"other"`` when it gave none.
    """
    if not isinstance(reply, Reply):
        raise TypeError(f"finish_reasons takes a Reply, not a {type(reply).__name__}")
    reason = FINISH_REASONS.get(reply.stop_reason) or reply.provider_stop_reason or "other"
    return [reason] * len(output_messages(reply))


def left_out(transcript_or_reply: Iterable[Any] | Reply) -> list[LeftOut]:
    """What the export of a transcript (or of a reply's messages) does not carry, piece by piece.

    One :class:`~convtypes.dialects.LeftOut` per piece, in transcript order,
    ``index`` the position of its message (in ``reply.messages`` for a
    reply), and ``why`` starting with its place as the dialects write it
    (``"thinking block 0: "``, ``"item 2 at /citations: "``):

    - ``"signature"``: a thinking block's signature, a Gemini part's
      ``thought_signature``;
    - ``"redacted-thinking"``: redacted thinking, encrypted reasoning;
    - ``"annotations"``: citations and references on a reply's text;
    - ``"call"``: a call kept in the items that the message read from them
      does not hold (cut off at the token limit; no result answers it);
    - ``"items"``: a provider item with no part type in the conventions,
      encrypted state inside one (a compaction's, a search result's), a
      field no part has room for, and items of a protocol not read here;
      and, found by a last check of every string of the items, any value
      of a shape no reader here knows (its ``why`` ends with
      ``"a value of a shape convtypes.otel does not read"``);
    - ``"cache-control"``: a cache marker kept in the items;
    - ``"audio"``: output audio kept by its id only.

    The items' own bookkeeping (their ``type``, ``id``, ``status`` and
    ``role``) is not content and is not named: it shows as the part's type
    and id where it has one.
    """
    _, left = _export(_messages(transcript_or_reply, "left_out"), True, "left_out", True)
    return resolved(left)
