"""Hypothesis strategies for every convtypes value.

Needs Hypothesis, the ``hypothesis`` extra (``pip install 'convtypes[hypothesis]'``);
``import convtypes`` alone never imports this module. Every strategy yields
only wire-valid values: what ``encode`` accepts and ``decode`` reads back
equal. The project's own property tests are built on these.

>>> from convtypes import strategies as cst
>>> cst.messages()          # any Message
>>> cst.transcripts(max_size=5)

The package registers them with Hypothesis through its ``hypothesis`` entry
point (see ``_hypothesis.py``), so ``st.from_type`` works without this import.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

import msgspec

try:
    from hypothesis import strategies as st
except ImportError as err:  # say which extra brings it, not only what is missing
    raise ImportError(
        "convtypes.strategies needs Hypothesis, which is not installed: "
        "pip install 'convtypes[hypothesis]'",
        name=err.name,
    ) from err

from ._content import (
    CONTENT_BLOCK_TYPES,
    U32_MAX,
    AudioBase64Block,
    AudioPathBlock,
    AudioUrlBlock,
    ContentBlock,
    ImageBase64Block,
    ImageUrlBlock,
    TextBlock,
    VideoBase64Block,
    VideoPathBlock,
    VideoUrlBlock,
)
from ._messages import (
    MESSAGE_TYPES,
    AssistantMessage,
    JsonValue,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from ._provenance import Provenance, UnknownProvenance
from ._unknown import UnknownBlock, UnknownMessage
from ._value import known_tags

__all__ = [
    "content_blocks",
    "conversations",
    "for_type",
    "json_values",
    "messages",
    "provenances",
    "texts",
    "thinking_blocks",
    "tool_calls",
    "transcripts",
    "unknown_blocks",
    "unknown_messages",
    "unknown_provenances",
]


_Factory = TypeVar("_Factory", bound=Callable[..., Any])


def _made_once(factory: _Factory) -> _Factory:
    """``factory``, giving back the strategy it made before for the same arguments.

    Making a strategy costs far more than drawing from one (Hypothesis checks
    each new one, and the recursive ones build a tree), and composite
    strategies, this module's and its users', ask for their parts on every
    draw. Strategies are immutable, so one per set of arguments serves all.
    Arguments that cannot be hashed (a list of roles) just make a new one.
    """
    cached = functools.lru_cache(maxsize=256)(factory)

    @functools.wraps(factory)
    def make(*args: Any, **kwargs: Any) -> Any:
        try:
            return cached(*args, **kwargs)
        except TypeError:
            return factory(*args, **kwargs)

    return cast(_Factory, make)


@_made_once
def texts(max_size: int | None = 40) -> st.SearchStrategy[str]:
    """Any Unicode text that UTF-8 can encode (no lone surrogates)."""
    return st.text(st.characters(exclude_categories=["Cs"]), max_size=max_size)


@_made_once
def json_values(max_leaves: int = 12) -> st.SearchStrategy[JsonValue]:
    """JSON values: finite floats, integers of any size, nested lists and objects."""
    scalars: st.SearchStrategy[JsonValue] = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        texts(12),
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts(8), inner, max_size=4),
        max_leaves=max_leaves,
    )


@_made_once
def _json_objects() -> st.SearchStrategy[dict[str, JsonValue]]:
    return st.dictionaries(texts(10), json_values(8), max_size=4)


@_made_once
def provenances() -> st.SearchStrategy[Provenance]:
    """Either member of :class:`~convtypes.Provenance`."""
    return st.sampled_from(Provenance)


@_made_once
def unknown_provenances() -> st.SearchStrategy[UnknownProvenance]:
    """Provenance values from a newer writer, as lenient decoding keeps them."""
    known = {member.value for member in Provenance}
    values = texts(12).filter(lambda value: value not in known)
    return values.map(lambda value: UnknownProvenance(value=value))


_u32 = st.none() | st.integers(0, U32_MAX)
_fps = st.none() | st.floats(allow_nan=False, allow_infinity=False, width=32)


@_made_once
def content_blocks(kinds: tuple[type[Any], ...] | None = None) -> st.SearchStrategy[ContentBlock]:
    """Content blocks, optionally restricted to some block classes."""
    options: dict[type[Any], st.SearchStrategy[Any]] = {
        TextBlock: st.builds(TextBlock, text=texts()),
        ImageBase64Block: st.builds(ImageBase64Block, data=texts(), media_type=texts(10)),
        ImageUrlBlock: st.builds(ImageUrlBlock, url=texts(), detail=st.just("auto") | texts(6)),
        VideoPathBlock: st.builds(VideoPathBlock, path=texts(), fps=_fps, max_frames=_u32),
        VideoUrlBlock: st.builds(VideoUrlBlock, url=texts(), fps=_fps, max_frames=_u32),
        VideoBase64Block: st.builds(
            VideoBase64Block, data=texts(), media_type=texts(10), fps=_fps, max_frames=_u32
        ),
        AudioPathBlock: st.builds(AudioPathBlock, path=texts(), sample_rate=_u32),
        AudioUrlBlock: st.builds(AudioUrlBlock, url=texts(), sample_rate=_u32),
        AudioBase64Block: st.builds(
            AudioBase64Block, data=texts(), media_type=texts(10), sample_rate=_u32
        ),
    }
    chosen = [options[kind] for kind in (kinds or tuple(options))]
    return st.one_of(chosen)


@_made_once
def tool_calls() -> st.SearchStrategy[ToolCall]:
    """Tool calls, with an id or without, and arguments of any JSON object."""
    return st.builds(ToolCall, id=st.none() | texts(16), name=texts(16), arguments=_json_objects())


@_made_once
def thinking_blocks() -> st.SearchStrategy[ThinkingBlock]:
    """Thinking blocks: signed, redacted, both or neither, each field drawn on its own."""
    return st.builds(
        ThinkingBlock,
        text=texts(),
        signature=st.none() | texts(24),
        redacted_data=st.none() | texts(24),
    )


@_made_once
def messages(
    roles: tuple[type[Any], ...] | None = None, max_items: int = 3
) -> st.SearchStrategy[Message]:
    """Messages, optionally restricted to some message classes."""
    options: dict[type[Any], st.SearchStrategy[Any]] = {
        SystemMessage: st.builds(SystemMessage, content=texts()),
        UserMessage: st.builds(UserMessage, content=texts()),
        UserMultimodalMessage: st.builds(
            UserMultimodalMessage, content=st.lists(content_blocks(), max_size=max_items).map(tuple)
        ),
        AssistantMessage: st.builds(
            AssistantMessage,
            content=texts(),
            tool_calls=st.lists(tool_calls(), max_size=max_items).map(tuple),
            thinking=st.lists(thinking_blocks(), max_size=max_items).map(tuple),
        ),
        ToolResultMessage: st.builds(
            ToolResultMessage, tool_use_id=texts(16), content=texts(), provenance=provenances()
        ),
        ProviderOutputItemsMessage: st.builds(
            ProviderOutputItemsMessage,
            protocol=st.just("openai-responses") | texts(16),
            items=st.lists(json_values(8), max_size=max_items).map(tuple),
        ),
    }
    chosen = [options[kind] for kind in (roles or tuple(options))]
    return st.one_of(chosen)


@_made_once
def _unknown_objects(tag_field: str) -> st.SearchStrategy[tuple[str, bytes]]:
    """A tag this version does not know, and a JSON object carrying it."""
    known = set(known_tags(tag_field))
    tags = texts(12).filter(lambda tag: tag not in known)
    fields = st.dictionaries(
        texts(8).filter(lambda key: key != tag_field), json_values(6), max_size=3
    )
    return st.tuples(tags, fields).map(
        lambda pair: (pair[0], msgspec.json.encode({tag_field: pair[0], **pair[1]}))
    )


@_made_once
def unknown_messages() -> st.SearchStrategy[UnknownMessage]:
    """Messages from a newer writer, as lenient decoding keeps them."""
    return _unknown_objects("role").map(lambda pair: UnknownMessage(role=pair[0], raw=pair[1]))


@_made_once
def unknown_blocks() -> st.SearchStrategy[UnknownBlock]:
    """Content blocks from a newer writer, as lenient decoding keeps them."""
    return _unknown_objects("type").map(lambda pair: UnknownBlock(type=pair[0], raw=pair[1]))


@_made_once
def transcripts(max_size: int = 8) -> st.SearchStrategy[list[Message]]:
    """Lists of messages, as stored in a transcript."""
    return st.lists(messages(), max_size=max_size)


@_made_once
def conversations(max_exchanges: int = 4) -> st.SearchStrategy[list[Message]]:
    """Well-formed conversations: ones ``check_conversation`` finds no fault in.

    An optional system prompt, then one to ``max_exchanges`` exchanges: a
    user turn (the first with something to say), assistant turns whose tool
    calls (with unique ids, or none and answered by position) are each
    answered before the next user turn, and a closing assistant turn.
    Thinking is signed throughout or absent throughout.
    """
    return _conversations(max_exchanges)


@st.composite
def _conversations(draw: st.DrawFn, max_exchanges: int) -> list[Message]:
    # A composite's own signature starts with ``draw``, which a caller never
    # passes: the public function above is the one users (and the API
    # reference) see.
    from ._conversation import _first_turn, positional_call_id

    signed = draw(st.booleans())
    turns: list[Message] = []
    if draw(st.booleans()):
        turns.append(SystemMessage(content=draw(texts())))
    serial = 0
    for exchange in range(draw(st.integers(1, max_exchanges))):
        user = messages(roles=(UserMessage, UserMultimodalMessage))
        if exchange == 0:  # the first says something, as Anthropic and Bedrock need
            user = user.filter(lambda message: _first_turn([message], {}) is None)
        turns.append(draw(user))
        for _ in range(draw(st.integers(0, 2))):
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                explicit = draw(st.booleans())
                serial += 1
                call_id = f"toolu_{serial:04d}" if explicit else None
                calls.append(
                    ToolCall(id=call_id, name=draw(texts(8)), arguments=draw(_json_objects()))
                )
            thinking = (
                (ThinkingBlock(text=draw(texts()), signature=draw(texts(24).filter(bool))),)
                if signed
                else ()
            )
            turns.append(
                AssistantMessage(content=draw(texts()), tool_calls=tuple(calls), thinking=thinking)
            )
            for position, call in enumerate(calls):
                turns.append(
                    ToolResultMessage(
                        tool_use_id=call.id or positional_call_id(position),
                        content=draw(texts()),
                        provenance=draw(provenances()),
                    )
                )
        turns.append(AssistantMessage(content=draw(texts())))
    return turns


def for_type(kind: type[Any]) -> st.SearchStrategy[Any]:
    """The strategy for one convtypes type (what ``st.from_type(kind)`` uses)."""
    if kind in CONTENT_BLOCK_TYPES:
        return content_blocks(kinds=(kind,))
    if kind in MESSAGE_TYPES:
        return messages(roles=(kind,))
    if kind is ToolCall:
        return tool_calls()
    if kind is ThinkingBlock:
        return thinking_blocks()
    if kind is Provenance:
        return provenances()
    if kind is UnknownMessage:
        return unknown_messages()
    if kind is UnknownBlock:
        return unknown_blocks()
    if kind is UnknownProvenance:
        return unknown_provenances()
    raise TypeError(f"no convtypes strategy for {kind!r}")
