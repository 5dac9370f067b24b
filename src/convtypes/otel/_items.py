"""Provider output items as parts of the GenAI conventions, read from the items' JSON.

A ``ProviderOutputItemsMessage`` holds a reply as its provider sent it; the
``AssistantMessage`` right after it was read from it and holds its text,
thinking and client calls. So each item here becomes "pieces": a part, and
whether that message already holds it (``flat``). An export merges the two
messages into one, taking the flat pieces from the message and the others
(server tools and their results, compaction, generated media) from here.
What has no part (signatures, encrypted state, citations, items with no
named part type) is named in ``left``, at its place in the item, and never
copied.

Only the items' JSON is read: their shapes are each provider's wire shapes,
not any dialect's private names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final, NamedTuple, Union
from urllib.parse import quote

import msgspec

from .._conversation import positional_call_id
from .._messages import AssistantMessage
from ..dialects import LeftOut, LeftOutKind

__all__ = ["PROTOCOLS", "Found", "ItemLeftOut", "Piece", "item_pieces", "resolved"]

Part = dict[str, Any]

_DECODE: Final = msgspec.json.Decoder()
_ENCODE: Final = msgspec.json.Encoder()

# Keys whose values are opaque to a reader (encrypted state, proofs of origin):
# never exported, wherever they stand in a server tool's input or result.
_OPAQUE: Final = frozenset(
    {"encrypted_content", "encrypted_index", "encrypted_stdout", "signature", "thought_signature"}
)


class ItemLeftOut(NamedTuple):
    """A piece of an item left out, its ``why`` written only when asked (exports never ask)."""

    message: int
    what: LeftOutKind
    position: int
    path: tuple[str | int, ...]
    why: str


Found = Union[LeftOut, ItemLeftOut]
"""What a walk finds left out: a ``LeftOut``, or one to be written out."""


def resolved(found: list[Found]) -> list[LeftOut]:
    """Each piece found as a ``LeftOut``."""
    return [
        piece
        if isinstance(piece, LeftOut)
        else LeftOut(
            piece.message, piece.what, f"{_place(piece.position, piece.path)}: {piece.why}"
        )
        for piece in found
    ]


class Piece(NamedTuple):
    """A part made from an item, and whether the assistant message read from the items holds it."""

    part: Part
    flat: bool


def _place(position: int, path: tuple[str | int, ...]) -> str:
    if not path:
        return f"item {position}"
    steps = (quote(str(step).replace("~", "~0").replace("/", "~1"), safe="~") for step in path)
    return f"item {position} at /{'/'.join(steps)}"


class _Walk:
    """One items message being read: its index, what it leaves out, what its message holds."""

    def __init__(self, index: int, left: list[Found], held: AssistantMessage | None) -> None:
        self.index = index
        self.left = left
        self.held = held
        self.pieces: list[Piece] = []
        if held is not None:
            self.ids = {call.id for call in held.tool_calls if call.id is not None}
            self.calls = [(call.name, _ENCODE.encode(call.arguments)) for call in held.tool_calls]

    def leave(
        self, position: int, path: tuple[str | int, ...], what: LeftOutKind, why: str
    ) -> None:
        self.left.append(ItemLeftOut(self.index, what, position, path, why))

    def flat(self, part: Part) -> None:
        self.pieces.append(Piece(part, True))

    def text(self, text: object) -> None:
        """Text: flat when the message holds it; else (a refusal beside an answer) a part."""
        if isinstance(text, str) and text:
            part = {"type": "text", "content": text}
            held = self.held is None or text in self.held.content
            self.pieces.append(Piece(part, held))

    def reasoning(self, text: object) -> None:
        if isinstance(text, str) and text:
            part = {"type": "reasoning", "content": text}
            held = self.held is None or any(text in block.text for block in self.held.thinking)
            self.pieces.append(Piece(part, held))

    def part(self, part: Part) -> None:
        self.pieces.append(Piece(part, False))

    def call(
        self,
        position: int,
        path: tuple[str | int, ...],
        call_id: object,
        name: object,
        arguments: object,
    ) -> None:
        """A client call: held by the message, or cut off (no result will answer it)."""
        if isinstance(arguments, str):
            try:
                arguments = _DECODE.decode(arguments)
            except (msgspec.DecodeError, UnicodeEncodeError):
                arguments = None
        whole = isinstance(name, str) and isinstance(arguments, dict)
        if self.held is None and whole:
            number = sum(1 for piece in self.pieces if piece.part["type"] == "tool_call")
            ident = call_id if isinstance(call_id, str) else positional_call_id(number)
            self.flat({"type": "tool_call", "id": ident, "name": name, "arguments": arguments})
            return
        if self.held is not None and whole:
            if isinstance(call_id, str) and call_id in self.ids:
                return
            if (name, _ENCODE.encode(arguments)) in self.calls:
                return
        self.leave(
            position,
            path,
            "call",
            "a call the reply's message does not hold (cut off at the token limit): "
            "no result answers it",
        )

    def rest(
        self,
        position: int,
        item: dict[str, Any],
        done: Iterable[str],
        path: tuple[str | int, ...] = (),
    ) -> None:
        """Name each field of ``item`` that no part carries, other than ``done``."""
        skip = set(done)
        for key, value in item.items():
            if key in skip or value is None:
                continue
            if key == "cache_control":  # an older transcript's, written by an edited request
                self.leave(position, (*path, key), "cache-control", "a cache marker, not content")
            else:
                why = f"{key!r} has no place in the conventions' parts"
                self.leave(position, (*path, key), "items", why)

    def scrub(self, position: int, path: tuple[str | int, ...], value: Any) -> Any:
        """``value`` without its opaque fields, each named as left out.

        What holds nothing opaque is returned as it is, not copied.
        """
        if isinstance(value, dict):
            out: dict[str, Any] | None = None
            for key, inner in value.items():
                if key in _OPAQUE:
                    self.leave(
                        position, (*path, key), "items", "encrypted or opaque provider state"
                    )
                    if out is None:
                        out = {k: v for k, v in value.items() if k not in _OPAQUE}
                    continue
                if isinstance(inner, (dict, list)):
                    cleaned = self.scrub(position, (*path, key), inner)
                    if cleaned is not inner:
                        if out is None:
                            out = {k: v for k, v in value.items() if k not in _OPAQUE}
                        out[key] = cleaned
            return value if out is None else out
        if isinstance(value, list):
            items: list[Any] | None = None
            for at, inner in enumerate(value):
                if isinstance(inner, (dict, list)):
                    cleaned = self.scrub(position, (*path, at), inner)
                    if cleaned is not inner:
                        if items is None:
                            items = list(value)
                        items[at] = cleaned
            return value if items is None else items
        return value

    def server_call(self, ident: object, name: str, details: dict[str, Any]) -> None:
        part: Part = {"type": "server_tool_call"}
        if isinstance(ident, str):
            part["id"] = ident
        part["name"] = name
        part["server_tool_call"] = details
        self.part(part)

    def server_result(self, ident: object, details: dict[str, Any]) -> None:
        part: Part = {"type": "server_tool_call_response"}
        if isinstance(ident, str):
            part["id"] = ident
        part["server_tool_call_response"] = details
        self.part(part)

    def unknown(
        self, position: int, why: str = "an item with no part type in the conventions"
    ) -> None:
        self.leave(position, (), "items", why)


def _modality(mime_type: object) -> str:
    kind = mime_type.split("/", 1)[0].lower() if isinstance(mime_type, str) else ""
    return kind if kind in ("image", "audio", "video") else "document"


# --- Anthropic: content blocks ---------------------------------------------------------


def _anthropic(walk: _Walk, items: tuple[Any, ...]) -> None:
    for position, item in enumerate(items):
        kind = item.get("type") if isinstance(item, dict) else None
        if not isinstance(item, dict) or not isinstance(kind, str):
            walk.unknown(position, "an item that is no content block")
            continue
        if kind == "text":
            walk.text(item.get("text"))
            if item.get("citations"):
                walk.leave(
                    position,
                    ("citations",),
                    "annotations",
                    "citations have no place in a text part",
                )
            walk.rest(position, item, ("type", "text", "citations"))
        elif kind == "thinking":
            walk.reasoning(item.get("thinking"))
            if item.get("signature"):
                walk.leave(
                    position, ("signature",), "signature", "the thinking's signature is opaque"
                )
            walk.rest(position, item, ("type", "thinking", "signature"))
        elif kind == "redacted_thinking":
            walk.leave(position, (), "redacted-thinking", "redacted thinking is encrypted")
        elif kind == "tool_use":
            walk.call(position, (), item.get("id"), item.get("name"), item.get("input"))
            walk.rest(position, item, ("type", "id", "name", "input", "caller"))
        elif kind in ("server_tool_use", "mcp_tool_use"):
            name = item.get("name")
            if not isinstance(name, str):
                walk.unknown(position, "a server tool's use without a name")
                continue
            details: dict[str, Any] = {
                "type": name,
                "input": walk.scrub(position, ("input",), item.get("input")),
            }
            if kind == "mcp_tool_use":
                details["server_name"] = item.get("server_name")
            walk.server_call(item.get("id"), name, details)
            walk.rest(position, item, ("type", "id", "name", "input", "server_name", "caller"))
        elif kind.endswith("_tool_result"):
            details = {
                "type": kind,
                "content": walk.scrub(position, ("content",), item.get("content")),
            }
            if "is_error" in item:
                details["is_error"] = item["is_error"]
            walk.server_result(item.get("tool_use_id"), details)
            walk.rest(position, item, ("type", "tool_use_id", "content", "is_error"))
        elif kind == "compaction":
            part: Part = {"type": "compaction"}
            if isinstance(item.get("content"), str):
                part["content"] = item["content"]
            walk.part(part)
            if item.get("encrypted_content"):
                walk.leave(
                    position, ("encrypted_content",), "items", "the compaction's encrypted state"
                )
            walk.rest(position, item, ("type", "content", "encrypted_content"))
        else:
            walk.unknown(position, f"a {kind!r} block has no part type in the conventions")


# --- OpenAI Responses: output items ---------------------------------------------------

# A server tool's item: the tool's name, the fields of its call, those of its result.
_RESPONSES_TOOLS: Final[dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]]] = {
    "web_search_call": ("web_search", ("action",), ()),
    "file_search_call": ("file_search", ("queries",), ("results",)),
    "code_interpreter_call": ("code_interpreter", ("code", "container_id"), ("outputs",)),
    "mcp_call": ("mcp", ("server_label", "name", "arguments"), ("output", "error")),
    "image_generation_call": ("image_generation", ("revised_prompt", "size", "quality"), ()),
}


def _responses(walk: _Walk, items: tuple[Any, ...]) -> None:
    for position, item in enumerate(items):
        kind = item.get("type") if isinstance(item, dict) else None
        if not isinstance(item, dict) or not isinstance(kind, str):
            walk.unknown(position, "an item that is no output item")
            continue
        if kind == "message":
            content = item.get("content")
            for at, piece in enumerate(content if isinstance(content, list) else ()):
                if not isinstance(piece, dict):
                    walk.leave(
                        position, ("content", at), "items", "a content part that is no object"
                    )
                    continue
                if piece.get("type") == "output_text":
                    walk.text(piece.get("text"))
                elif piece.get("type") == "refusal":
                    walk.text(piece.get("refusal"))
                else:
                    walk.leave(
                        position,
                        ("content", at),
                        "items",
                        "a content part with no part type in the conventions",
                    )
                    continue
                if piece.get("annotations"):
                    walk.leave(
                        position,
                        ("content", at, "annotations"),
                        "annotations",
                        "annotations have no place in a text part",
                    )
                walk.rest(
                    position,
                    piece,
                    ("type", "text", "refusal", "annotations", "logprobs"),
                    ("content", at),
                )
            walk.rest(position, item, ("type", "id", "role", "status", "content"))
        elif kind == "reasoning":
            for field in ("summary", "content"):
                for piece in item.get(field) or ():
                    if isinstance(piece, dict):
                        walk.reasoning(piece.get("text"))
            if item.get("encrypted_content"):
                walk.leave(
                    position, ("encrypted_content",), "redacted-thinking", "encrypted reasoning"
                )
            walk.rest(
                position, item, ("type", "id", "status", "summary", "content", "encrypted_content")
            )
        elif kind == "function_call":
            walk.call(position, (), item.get("call_id"), item.get("name"), item.get("arguments"))
        elif kind in _RESPONSES_TOOLS:
            name, asked, answered = _RESPONSES_TOOLS[kind]
            details = {"type": name}
            details.update(
                {key: walk.scrub(position, (key,), item[key]) for key in asked if key in item}
            )
            walk.server_call(
                item.get("id"),
                item["name"] if kind == "mcp_call" and isinstance(item.get("name"), str) else name,
                details,
            )
            result = {
                key: walk.scrub(position, (key,), item[key])
                for key in answered
                if item.get(key) is not None
            }
            if result:
                walk.server_result(item.get("id"), {"type": name, **result})
            if kind == "image_generation_call" and isinstance(item.get("result"), str):
                image_format = item.get("output_format")
                mime = f"image/{image_format}" if isinstance(image_format, str) else "image/png"
                walk.part(
                    {
                        "type": "blob",
                        "modality": "image",
                        "mime_type": mime,
                        "content": item["result"],
                    }
                )
            walk.rest(
                position,
                item,
                ("type", "id", "status", "result", "output_format", *asked, *answered),
            )
        elif kind == "compaction":
            part: Part = {"type": "compaction"}
            if isinstance(item.get("id"), str):
                part["id"] = item["id"]
            walk.part(part)
            if item.get("encrypted_content"):
                walk.leave(
                    position, ("encrypted_content",), "items", "the compaction's encrypted state"
                )
            walk.rest(position, item, ("type", "id", "status", "encrypted_content"))
        else:
            walk.unknown(position, f"a {kind!r} item has no part type in the conventions")


# --- Gemini: parts ----------------------------------------------------------------------------


def _gemini(walk: _Walk, items: tuple[Any, ...]) -> None:
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            walk.unknown(position, "an item that is no part")
            continue
        done = ["thought", "thought_signature"]
        if item.get("thought_signature"):
            walk.leave(
                position,
                ("thought_signature",),
                "signature",
                "the part's thought signature is opaque",
            )
        if "text" in item:
            (walk.reasoning if item.get("thought") else walk.text)(item["text"])
            done.append("text")
        elif isinstance(item.get("function_call"), dict):
            call = item["function_call"]
            walk.call(
                position, ("function_call",), call.get("id"), call.get("name"), call.get("args")
            )
            done.append("function_call")
        elif isinstance(item.get("executable_code"), dict):
            code = item["executable_code"]
            walk.server_call(code.get("id"), "code_execution", {"type": "code_execution", **code})
            done.append("executable_code")
        elif isinstance(item.get("code_execution_result"), dict):
            result = item["code_execution_result"]
            walk.server_result(result.get("id"), {"type": "code_execution", **result})
            done.append("code_execution_result")
        elif isinstance(item.get("inline_data"), dict) and isinstance(
            item["inline_data"].get("data"), str
        ):
            data = item["inline_data"]
            mime = data.get("mime_type")
            part: Part = {"type": "blob", "modality": _modality(mime), "content": data["data"]}
            if isinstance(mime, str):
                part["mime_type"] = mime
            walk.part(part)
            walk.rest(position, data, ("mime_type", "data"), ("inline_data",))
            done.append("inline_data")
        elif isinstance(item.get("file_data"), dict) and isinstance(
            item["file_data"].get("file_uri"), str
        ):
            data = item["file_data"]
            mime = data.get("mime_type")
            part = {"type": "uri", "modality": _modality(mime), "uri": data["file_uri"]}
            if isinstance(mime, str):
                part["mime_type"] = mime
            walk.part(part)
            walk.rest(position, data, ("mime_type", "file_uri"), ("file_data",))
            done.append("file_data")
        walk.rest(position, item, done)


# --- the message-object protocols: one item, the provider's assistant message ----------------


def _function_calls(walk: _Walk, position: int, calls: object) -> None:
    for at, call in enumerate(calls if isinstance(calls, list) else ()):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            walk.leave(position, ("tool_calls", at), "call", "a call that is no function call")
            continue
        walk.call(
            position,
            ("tool_calls", at),
            call.get("id"),
            function.get("name"),
            function.get("arguments"),
        )


def _openai_chat(walk: _Walk, items: tuple[Any, ...]) -> None:
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            walk.unknown(position, "an item that is no message")
            continue
        content = item.get("content")
        if isinstance(content, list):
            for piece in content:
                walk.text(piece.get("text") if isinstance(piece, dict) else None)
        else:
            walk.text(content)
        walk.text(item.get("refusal"))
        walk.reasoning(item.get("reasoning_content"))
        walk.reasoning(item.get("reasoning"))
        _function_calls(walk, position, item.get("tool_calls"))
        if item.get("annotations"):
            walk.leave(
                position,
                ("annotations",),
                "annotations",
                "annotations have no place in a text part",
            )
        audio = item.get("audio")
        if isinstance(audio, dict) and isinstance(audio.get("data"), str):
            part: Part = {"type": "blob", "modality": "audio", "content": audio["data"]}
            if isinstance(audio.get("transcript"), str):
                part["transcript"] = audio["transcript"]
            walk.part(part)
            walk.rest(position, audio, ("id", "data", "transcript", "expires_at"), ("audio",))
        elif audio is not None:
            walk.leave(position, ("audio",), "audio", "output audio kept by its id only")
        done = (
            "role",
            "content",
            "refusal",
            "reasoning_content",
            "reasoning",
            "tool_calls",
            "annotations",
            "audio",
        )
        walk.rest(position, item, done)


def _image_type(data: str) -> str | None:
    for head, mime in (
        ("iVBORw0KGgo", "image/png"),
        ("/9j/", "image/jpeg"),
        ("UklGR", "image/webp"),
        ("R0lGOD", "image/gif"),
    ):
        if data.startswith(head):
            return mime
    return None


def _ollama(walk: _Walk, items: tuple[Any, ...]) -> None:
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            walk.unknown(position, "an item that is no message")
            continue
        walk.text(item.get("content"))
        walk.reasoning(item.get("thinking"))
        _function_calls(walk, position, item.get("tool_calls"))
        for image in item.get("images") or ():
            if isinstance(image, str):
                part: Part = {"type": "blob", "modality": "image", "content": image}
                mime = _image_type(image)
                if mime is not None:
                    part["mime_type"] = mime
                walk.part(part)
        walk.rest(position, item, ("role", "content", "thinking", "tool_calls", "images"))


def _mistral(walk: _Walk, items: tuple[Any, ...]) -> None:
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            walk.unknown(position, "an item that is no message")
            continue
        content = item.get("content")
        if isinstance(content, list):
            for at, chunk in enumerate(content):
                kind = chunk.get("type") if isinstance(chunk, dict) else None
                if kind == "text":
                    walk.text(chunk.get("text"))
                elif kind == "thinking":
                    inner = chunk.get("thinking")
                    for k, piece in enumerate(inner if isinstance(inner, list) else ()):
                        kind = piece.get("type") if isinstance(piece, dict) else None
                        if kind == "text":
                            walk.reasoning(piece.get("text"))
                            continue
                        what: LeftOutKind = "annotations" if "reference" in str(kind) else "items"
                        why = "a reference in the thinking, which a reasoning part has no room for"
                        walk.leave(position, ("content", at, "thinking", k), what, why)
                    if chunk.get("signature"):
                        walk.leave(
                            position,
                            ("content", at, "signature"),
                            "signature",
                            "the thinking's signature is opaque",
                        )
                elif kind == "reference":
                    walk.leave(
                        position,
                        ("content", at),
                        "annotations",
                        "references have no place in a text part",
                    )
                else:
                    walk.leave(
                        position,
                        ("content", at),
                        "items",
                        "a content chunk with no part type in the conventions",
                    )
        else:
            walk.text(content)
        _function_calls(walk, position, item.get("tool_calls"))
        walk.rest(position, item, ("role", "content", "tool_calls", "prefix"))


def _cohere(walk: _Walk, items: tuple[Any, ...]) -> None:
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            walk.unknown(position, "an item that is no message")
            continue
        content = item.get("content")
        if isinstance(content, list):
            for at, piece in enumerate(content):
                kind = piece.get("type") if isinstance(piece, dict) else None
                if kind == "text":
                    walk.text(piece.get("text"))
                elif kind == "thinking":
                    walk.reasoning(piece.get("thinking"))
                else:
                    walk.leave(
                        position,
                        ("content", at),
                        "items",
                        "a content item with no part type in the conventions",
                    )
        else:
            walk.text(content)
        walk.text(item.get("tool_plan"))
        _function_calls(walk, position, item.get("tool_calls"))
        if item.get("citations"):
            walk.leave(
                position, ("citations",), "annotations", "citations have no place in a text part"
            )
        walk.rest(position, item, ("role", "content", "tool_plan", "tool_calls", "citations"))


# --- Bedrock Converse: content blocks ------------------------------------------------------


def _bedrock(walk: _Walk, items: tuple[Any, ...]) -> None:
    for position, item in enumerate(items):
        if not isinstance(item, dict) or len(item) != 1:
            walk.unknown(position, "an item that is no content block")
            continue
        ((kind, value),) = item.items()
        if not isinstance(value, (dict, str)):
            walk.unknown(position, "an item that is no content block")
        elif kind == "text":
            walk.text(value)
        elif kind == "reasoningContent" and isinstance(value, dict):
            said = value.get("reasoningText")
            if isinstance(said, dict):
                walk.reasoning(said.get("text"))
                if said.get("signature"):
                    walk.leave(
                        position,
                        (kind, "reasoningText", "signature"),
                        "signature",
                        "the reasoning's signature is opaque",
                    )
            if value.get("redactedContent"):
                walk.leave(
                    position,
                    (kind, "redactedContent"),
                    "redacted-thinking",
                    "redacted reasoning is encrypted",
                )
        elif kind == "toolUse" and isinstance(value, dict):
            if value.get("type") == "server_tool_use" and isinstance(value.get("name"), str):
                details = {
                    "type": value["name"],
                    "input": walk.scrub(position, (kind, "input"), value.get("input")),
                }
                walk.server_call(value.get("toolUseId"), value["name"], details)
            else:
                walk.call(
                    position, (), value.get("toolUseId"), value.get("name"), value.get("input")
                )
        elif kind == "toolResult" and isinstance(value, dict):
            details = {
                "type": value.get("type") if isinstance(value.get("type"), str) else "tool_result"
            }
            details["content"] = walk.scrub(position, (kind, "content"), value.get("content"))
            if "status" in value:
                details["status"] = value["status"]
            walk.server_result(value.get("toolUseId"), details)
        elif kind == "citationsContent" and isinstance(value, dict):
            for piece in value.get("content") or ():
                walk.text(piece.get("text") if isinstance(piece, dict) else None)
            if value.get("citations"):
                walk.leave(
                    position,
                    (kind, "citations"),
                    "annotations",
                    "citations have no place in a text part",
                )
        elif kind == "image" and isinstance(value, dict) and isinstance(value.get("source"), dict):
            data = value["source"].get("bytes")
            if isinstance(data, str):
                part: Part = {"type": "blob", "modality": "image", "content": data}
                if isinstance(value.get("format"), str):
                    part["mime_type"] = f"image/{value['format']}"
                walk.part(part)
            else:
                walk.unknown(position, "an image with no bytes in it")
        elif kind == "cachePoint":
            walk.leave(position, (), "cache-control", "a cache marker, not content")
        else:
            walk.unknown(position, f"a {kind!r} block has no part type in the conventions")


PROTOCOLS: Final[dict[str, Callable[[_Walk, tuple[Any, ...]], None]]] = {
    "anthropic": _anthropic,
    "openai-responses": _responses,
    "gemini": _gemini,
    "openai-chat": _openai_chat,
    "ollama": _ollama,
    "bedrock-converse": _bedrock,
    "mistral": _mistral,
    "cohere": _cohere,
}
"""The protocols whose items are read, by the ``protocol`` of their message."""


def item_pieces(
    index: int,
    protocol: str,
    items: tuple[Any, ...],
    held: AssistantMessage | None,
    left: list[Found],
    audit: bool = False,
) -> list[Piece]:
    """The pieces of an items message at ``index``; what has no part goes to ``left``.

    ``held`` is the assistant message read from the items (the one right
    after them), or ``None``. ``audit`` names, besides what the readers
    name, each string no part carries (see :func:`_audit`).
    """
    read = PROTOCOLS.get(protocol)
    if read is None:
        if items:
            left.append(
                LeftOut(
                    index,
                    "items",
                    f"items of protocol {protocol[:40]!r}, which convtypes.otel does not read",
                )
            )
        return []
    walk = _Walk(index, left, held)
    read(walk, items)
    if audit:
        _audit(walk, items)
    return walk.pieces


# What an item says about itself rather than about the conversation: its kind,
# its id and state, the role of a message. Never looked for in the export.
_BOOKKEEPING: Final = frozenset({"type", "id", "status", "role"})

UNREAD: Final = "a value of a shape convtypes.otel does not read"
"""The ``why`` (after the place) of a string no part carries, that no reader named."""


def _leaves(
    value: Any,
    path: tuple[str | int, ...],
    found: list[tuple[tuple[str | int, ...], str]],
    keys: bool,
) -> None:
    if isinstance(value, str):
        found.append((path, value))
    elif isinstance(value, dict):
        for key, inner in value.items():
            if keys:
                found.append((path, key))
            _leaves(inner, (*path, key), found, keys)
    elif isinstance(value, list):
        for at, inner in enumerate(value):
            _leaves(inner, (*path, at), found, keys)


def _audit(walk: _Walk, items: tuple[Any, ...]) -> None:
    """Name every string of the items that neither a part nor the message read from them holds.

    The readers above know each provider's shapes; this catches what they
    do not (a field of an unexpected type, a shape no provider sends yet),
    so that nothing leaves the export unannounced. Only ``left_out`` pays
    for it: it adds nothing to an export.
    """
    pool: list[tuple[tuple[str | int, ...], str]] = []
    for piece in walk.pieces:
        _leaves(piece.part, (), pool, True)
    held = walk.held
    if held is not None:
        pool.append(((), held.content))
        pool += [((), block.text) for block in held.thinking]
        for call in held.tool_calls:
            pool += [((), call.name), ((), call.id or "")]
            _leaves(call.arguments, (), pool, True)
    texts = [text for _, text in pool]
    named = [
        (found.position, found.path)
        for found in walk.left
        if isinstance(found, ItemLeftOut) and found.message == walk.index
    ]
    for position, item in enumerate(items):
        leaves: list[tuple[tuple[str | int, ...], str]] = []
        _leaves(item, (), leaves, False)
        for path, text in leaves:
            if not text or (path and path[-1] in _BOOKKEEPING):
                continue
            if any(at == position and path[: len(place)] == place for at, place in named):
                continue
            if path and path[-1] == "arguments":
                try:
                    spelled = _DECODE.decode(text)
                except (msgspec.DecodeError, UnicodeEncodeError):
                    spelled = None
                inner: list[tuple[tuple[str | int, ...], str]] = []
                _leaves(spelled, (), inner, True)
                if spelled is not None and all(
                    any(word in candidate for candidate in texts) for _, word in inner
                ):
                    continue
            elif any(text in candidate for candidate in texts):
                continue
            walk.leave(position, path, "items", UNREAD)
            named.append((position, path))
