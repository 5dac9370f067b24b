"""One response or stream chunk, read from REST JSON or from the SDK's object."""

from __future__ import annotations

import base64
import enum
import functools
from operator import countOf
from typing import Any, Final

from ..._errors import MAX_DEPTH
from .._errors import ResponseError, reported_error, short
from .._json import jsonable
from .._objects import PLAIN_BY_NAME, fields, in_declared_order

# REST JSON names fields in camelCase; the SDK in snake_case. Parts are kept
# in snake_case, but the keys inside a call's arguments, a function's
# response or a part's metadata are the caller's own and are never renamed.
_OPAQUE_KEYS: Final = frozenset({"args", "response", "part_metadata", "partMetadata"})
# What google-genai adds to a response that the API did not send.
_SDK_ONLY: Final = frozenset({"sdk_http_response", "automatic_function_calling_history", "parsed"})

_FILTERED: Final = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "MODEL_ARMOR",
    }
)


DETAIL_KEYS: Final = (
    ("safety_ratings", "safetyRatings"),
    ("finish_message", "finishMessage"),
    ("citation_metadata", "citationMetadata"),
    ("grounding_metadata", "groundingMetadata"),
    ("url_context_metadata", "urlContextMetadata"),
)
"""What a candidate says of itself beside its parts and finish reason (snake_case, REST's
camelCase): kept, with the response's ``prompt_feedback``, in ``Reply.details``."""


def _snake(name: str) -> str:
    """``name`` in snake_case: a field name of the REST JSON as the SDK's dump spells it."""
    if type(name) is str:
        return _snake_str(name)
    return _to_snake(name)


def _to_snake(name: str) -> str:
    if name.islower() or not any(ch.isupper() for ch in name):
        return name
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in name)


# Remembered: a stream spells the same few dozen names chunk after chunk. Only
# for plain str, so that a name is never answered with another's subclass.
_snake_str: Final = functools.lru_cache(maxsize=1024)(_to_snake)


# Values a dump holds as JSON holds them.
_LEAVES: Final = frozenset({str, int, float, bool})


def _snake_keys(value: Any, room: int = MAX_DEPTH) -> Any:
    """``value`` as plain JSON in snake_case, without ``null`` fields, arguments untouched.

    A dict from the SDK's ``model_dump()`` holds bytes (signatures) and
    enums; they become standard base64 and their values, as in the REST
    JSON. Refuses (``ResponseError``) a value nested deeper than a document
    may be, before the recursion here could go deep.
    """
    if type(value) in _LEAVES:
        return value
    if isinstance(value, (dict, list)) and room <= 0:
        raise ResponseError(f"a response nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        # A leaf is taken as it is here, without a call of its own: most are.
        return {
            (_snake(key) if isinstance(key, str) else key): item
            if key in _OPAQUE_KEYS or type(item) in _LEAVES
            else _snake_keys(item, room - 1)
            for key, item in value.items()
            if item is not None
        }
    if isinstance(value, list):
        return [_snake_keys(item, room - 1) for item in value]
    if isinstance(value, (bytes, bytearray, enum.Enum)):
        return jsonable(value)
    return value


def _text(value: object) -> object:
    """An enum from a ``model_dump()`` as its value; anything else as it is."""
    return value.value if isinstance(value, enum.Enum) else value


class _Chunk:
    """What a response, or one chunk of a stream, says: read from any of its forms.

    ``candidate`` is the first candidate (``index`` 0) as sent, or ``None``
    (read from an SDK object's fields by ``_object_chunk``: those fields);
    ``parts`` its parts in snake_case, ``None`` when it has no content.
    """

    __slots__ = (
        "block",
        "candidate",
        "details",
        "feedback",
        "id",
        "model",
        "parts",
        "plain",
        "reason",
        "usage",
    )

    def __init__(self, value: object, what: str) -> None:
        if isinstance(value, dict):
            data = value
        else:
            dump = getattr(value, "model_dump", None)
            if dump is None:
                raise ResponseError(
                    f"expected {what} as a dict or an SDK object, got {type(value).__name__}"
                )
            # Python mode, which is quicker; only what is read is made plain
            # JSON (``_snake_keys`` turns bytes and enums into their JSON).
            data = dump(exclude_none=True, exclude=_SDK_ONLY)
            if not isinstance(data, dict):
                raise ResponseError(f"{what} did not dump to a JSON object")
        error = reported_error(data, "candidates")
        if error is not None:
            raise ResponseError(f"{what}: {error}")
        candidate = _first(data.get("candidates"), what)
        self.candidate = candidate
        self.parts: list[dict[str, Any]] | None = None
        self.plain = False  # whether every part is known to be text (the fast readers')
        self.reason: str | None = None
        if candidate is not None:
            content = candidate.get("content")
            if content is not None:
                if not isinstance(content, dict):
                    raise ResponseError(f"{what}: the candidate's content is not an object")
                parts = content.get("parts")
                if parts is not None:
                    if not isinstance(parts, list):
                        raise ResponseError(f"{what}: candidates[0].content.parts is not a list")
                    self.parts = _checked(parts, what)
            reason = _text(_either(candidate, "finish_reason", "finishReason"))
            if reason is not None and not isinstance(reason, str):
                raise ResponseError(f"{what}: the finish reason is not text: {short(reason)}")
            self.reason = reason
        # What the reply says of itself, kept for ``Reply.details`` in snake_case.
        self.details: dict[str, Any] = {}
        for snake, camel in DETAIL_KEYS:
            said = _either(candidate, snake, camel) if candidate is not None else None
            if said is not None:
                self.details[snake] = _snake_keys(said)
        self.usage = _either(data, "usage_metadata", "usageMetadata")
        model = _either(data, "model_version", "modelVersion")
        reply_id = _either(data, "response_id", "responseId")
        self.model = model if isinstance(model, str) else None
        self.id = reply_id if isinstance(reply_id, str) else None
        feedback = _either(data, "prompt_feedback", "promptFeedback")
        self.feedback = feedback is not None
        if feedback is not None:
            self.details["prompt_feedback"] = _snake_keys(feedback)
        block = (
            _either(feedback, "block_reason", "blockReason") if isinstance(feedback, dict) else None
        )
        self.block = block if isinstance(block, str) else None


class _UsageOf(tuple[Any]):
    """A streamed chunk's usage metadata, read from the SDK's object when the stream ends.

    Only the last chunk's usage counts, and google-genai's stream brings one
    in every chunk: it is dumped (as ``_Chunk`` dumps it) once, not each time.
    Made as ``_UsageOf((response,))``: a tuple, so that the chunk after chunk
    that make one run no Python code to do it.
    """

    __slots__ = ()

    def dumped(self) -> object:
        data = self[0].model_dump(exclude_none=True, include={"usage_metadata"})
        return data.get("usage_metadata") if isinstance(data, dict) else None


def _text_part(part: object) -> dict[str, Any] | None:
    """A part of text (or thought) as ``_checked`` reads its dump; ``None`` for any other."""
    cls = type(part)
    if not _TEXT_FIRST.get(cls) and (
        cls in _TEXT_FIRST or fields(part, by_alias=False) is None or not _text_first(cls)
    ):
        return None
    if part.__pydantic_extra__:  # type: ignore[attr-defined]
        return None
    found = part.__dict__
    text = found.get("text")
    if type(text) is not str:
        return None
    # The dump leaves out what is None: a part of text has besides its text
    # the thought flag, the thought signature (bytes, which ``_checked``
    # writes in standard base64), both, or neither, and nothing else.
    thought = found.get("thought")
    signature = found.get("thought_signature")
    # Counted by type, which compares by identity: a value that only claims
    # to equal None is still written by the dump.
    if len(found) - countOf(map(type, found.values()), _NONE) != (
        1 + (thought is not None) + (signature is not None)
    ):
        return None
    if thought is None:
        if signature is None:
            return {"text": text}
        kept: dict[str, Any] = {"text": text}
    elif type(thought) is bool:
        kept = {"text": text, "thought": thought}
    else:
        return None
    if signature is not None:
        if type(signature) is not bytes:
            return None
        kept["thought_signature"] = base64.b64encode(signature).decode("ascii")
    return kept


def _text_first(cls: type) -> bool:
    """Whether ``cls``, a model read by its fields, declares text, thought and signature in order.

    Remembered here too, for the check each part makes before the call.
    """
    known = _TEXT_FIRST.get(cls)
    if known is None:
        known = _TEXT_FIRST[cls] = in_declared_order(cls, "text", "thought", "thought_signature")
    return known


_TEXT_FIRST: Final[dict[type, bool]] = {}
_NONE: Final = type(None)


def _object_chunk(value: object) -> _Chunk | None:
    """A streamed chunk of text read from the fields of google-genai's object.

    What ``_Chunk`` reads from its dump (``model_dump(exclude_none=True)``,
    where a field is absent exactly when it is ``None``), for the chunks that
    come by the thousand and the last: a first candidate whose parts are all
    text or thought, maybe signed, or that has none, and no prompt feedback. Its usage is kept
    as :class:`_UsageOf`. ``None`` for any other chunk, or where the fields
    might not read as the dump does (see ``_objects``): ``_Chunk`` reads it.
    """
    outer = value.__dict__ if type(value) in PLAIN_BY_NAME else fields(value, by_alias=False)
    if (
        outer is None
        or value.__pydantic_extra__  # type: ignore[attr-defined]
        or outer.get("prompt_feedback") is not None
    ):
        return None
    candidates = outer.get("candidates")
    candidate = None
    if candidates is not None:
        if type(candidates) is not list:
            return None
        for item in candidates:
            found = item.__dict__ if type(item) in PLAIN_BY_NAME else fields(item, by_alias=False)
            if found is None or item.__pydantic_extra__:
                return None
            index = found.get("index")
            if index is None or (index == 0 and type(index) is int):
                candidate = found
                break
            if type(index) is not int:
                return None
    parts: list[dict[str, Any]] | None = None
    reason: str | None = None
    if candidate is not None:
        if any(candidate.get(snake) is not None for snake, _ in DETAIL_KEYS):
            return None  # read from the dump, which keeps them
        finish = candidate.get("finish_reason")
        if finish is not None:
            told = _text(finish)
            if type(told) is not str:
                return None
            reason = told
        content = candidate.get("content")
        if content is not None:
            inner = content.__dict__ if type(content) in PLAIN_BY_NAME else fields(content, False)
            if inner is None or content.__pydantic_extra__:
                return None
            given = inner.get("parts")
            if given is not None:
                if type(given) is not list:
                    return None
                parts = []
                for part in given:
                    kept = _text_part(part)
                    if kept is None:
                        return None
                    parts.append(kept)
    model = outer.get("model_version")
    reply_id = outer.get("response_id")
    chunk = _Chunk.__new__(_Chunk)
    chunk.candidate = candidate
    chunk.parts = parts
    chunk.reason = reason
    chunk.usage = _UsageOf((value,)) if outer.get("usage_metadata") is not None else None
    chunk.model = model if isinstance(model, str) else None
    chunk.id = reply_id if isinstance(reply_id, str) else None
    chunk.feedback = False
    chunk.block = None
    chunk.plain = True
    chunk.details = {}
    return chunk


# What ``_dict_chunk`` reads as it is: the keys of a text part that
# ``_snake_keys`` leaves unchanged, and the REST JSON's keys of a chunk and of
# its candidate whose values it reads under their camelCase name alone.
_PLAIN_TEXT_KEYS: Final = frozenset({"text", "thought"})
_CHUNK_KEYS: Final = frozenset(
    {"candidates", "usageMetadata", "modelVersion", "responseId", "createTime"}
)
_CANDIDATE_KEYS: Final = frozenset({"content", "index", "finishReason"})


def _dict_chunk(data: dict[str, Any]) -> _Chunk | None:
    """A streamed chunk of text given as a dict, read without the general walk.

    The chunks that come by the thousand hold one candidate (index 0 or none)
    whose parts are text or thought, unsigned, under the REST JSON's keys:
    ``_Chunk`` would copy each part unchanged, and that is what this does.
    ``None`` for any other chunk (another key, a signed or other part),
    which ``_Chunk`` reads.
    """
    candidates = data.get("candidates")
    if type(candidates) is not list or len(candidates) != 1 or not data.keys() <= _CHUNK_KEYS:
        return None
    candidate = candidates[0]
    if type(candidate) is not dict or not candidate.keys() <= _CANDIDATE_KEYS:
        return None
    index = candidate.get("index")
    if index is not None and (type(index) is not int or index != 0):
        return None
    reason = candidate.get("finishReason")
    content = candidate.get("content")
    if type(content) is not dict or (reason is not None and type(reason) is not str):
        return None
    given = content.get("parts")
    if type(given) is not list:
        return None
    parts: list[dict[str, Any]] = []
    for part in given:
        if (
            type(part) is not dict
            or type(part.get("text")) is not str
            or not part.keys() <= _PLAIN_TEXT_KEYS
            or ("thought" in part and type(part["thought"]) is not bool)
        ):
            return None
        parts.append(dict(part))
    model = data.get("modelVersion")
    reply_id = data.get("responseId")
    chunk = _Chunk.__new__(_Chunk)
    chunk.candidate = candidate
    chunk.parts = parts
    chunk.reason = reason
    chunk.usage = data.get("usageMetadata")
    chunk.model = model if isinstance(model, str) else None
    chunk.id = reply_id if isinstance(reply_id, str) else None
    chunk.feedback = False
    chunk.block = None
    chunk.plain = True
    chunk.details = {}
    return chunk


def _either(data: dict[str, Any], snake: str, camel: str) -> Any:
    value = data.get(snake)
    return data.get(camel) if value is None else value


def _first(candidates: object, what: str) -> dict[str, Any] | None:
    """The candidate of ``index`` 0 (an absent index is 0, as Gemini leaves zeros out)."""
    if candidates is None:
        return None
    if not isinstance(candidates, list):
        raise ResponseError(f"{what}: candidates is not a list: {short(candidates)}")
    for number, candidate in enumerate(candidates):
        if not isinstance(candidate, dict):
            raise ResponseError(f"{what}: candidates[{number}] is not an object")
        index = candidate.get("index")
        if index is None or (index == 0 and type(index) is int):
            return candidate
        if type(index) is not int:
            raise ResponseError(f"{what}: candidates[{number}].index is not an integer")
    return None


# URL-safe base64 (google-genai's JSON dump of bytes) into the standard alphabet
# the API writes; a standard string has neither character, so it is unchanged.
_STANDARD: Final = str.maketrans("-_", "+/")


def _checked(parts: list[Any], what: str) -> list[dict[str, Any]]:
    """The parts in snake_case, their bytes in standard base64, as the REST JSON has them."""
    out: list[dict[str, Any]] = []
    for number, part in enumerate(parts):
        if not isinstance(part, dict):
            raise ResponseError(f"{what}: part {number} is not an object")
        part = _snake_keys(part)
        signature = part.get("thought_signature")
        if isinstance(signature, str):
            part["thought_signature"] = signature.translate(_STANDARD)
        inline = part.get("inline_data")
        if isinstance(inline, dict) and isinstance(inline.get("data"), str):
            part["inline_data"] = {**inline, "data": inline["data"].translate(_STANDARD)}
        out.append(part)
    return out
