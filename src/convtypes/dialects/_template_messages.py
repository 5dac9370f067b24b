"""A transcript in the Hugging Face message convention that chat templates read.

Real templates are strict about the shape of what they are given, and most
failures are silent (an answer dropped, a list printed as its Python repr),
so the shape here is the one every template in common use accepts:

- ``content`` is always a string when the turn is text only, ``""`` rather
  than missing on an assistant turn that only calls tools;
- ``tool_calls`` appears only on a turn that has calls (several templates
  take its mere presence, even ``[]``, to mean a tool-call turn);
- each call is ``{"type": "function", "id", "function": {"name",
  "arguments": <object>}}``, and each result ``{"role": "tool",
  "tool_call_id", "name", "content"}``, named after the call it answers;
- reasoning goes in ``reasoning_content``, which the reasoning models'
  templates read.

Ids follow the rules the other dialects keep (:class:`CallIds`), with a
choice of shape: Mistral's templates refuse any id that is not nine
characters long.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, Literal

from .._content import (
    AudioBase64Block,
    AudioPathBlock,
    AudioUrlBlock,
    ImageBase64Block,
    ImageUrlBlock,
    TextBlock,
    VideoPathBlock,
    VideoUrlBlock,
)
from .._conversation import repeated
from .._fence import fence_external as fence
from .._messages import (
    AssistantMessage,
    Message,
    ProviderOutputItemsMessage,
    SystemMessage,
    ThinkingBlock,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from .._unknown import UnknownBlock, UnknownMessage
from ._control_tokens import control_tokens as checked_tokens
from ._copy import owned
from ._errors import (
    Unsupported,
    check_unsupported,
    not_a_message,
    note_text,
    unknown_block,
    unknown_message,
    unsupported_block,
)
from ._ids import Alnum9Ids, CallIds, KimiIds, safe_id, usable_alnum9, usable_kimi
from ._send import data_url, tool_result_text, transcript_of

DIALECT: Final = "the chat-template dialect"

IdStyle = Literal["default", "alnum9", "kimi"]
"""The shape of the tool-call ids ``to_messages`` sends.

``"default"``: a caller's id is kept when it is made of ``[A-Za-z0-9_-]``
and at most 64 long; any other (or none, or one used before) becomes
``call_<message index>_<position>``. ``"alnum9"``: every id is exactly nine
letters and digits, as Mistral's templates demand; an id of that shape is
kept, any other is replaced by one made from the call's place. ``"kimi"``:
every id is Kimi-K2's ``functions.NAME:N``, whose name the model reads back;
an id of that shape naming the call's own tool is kept, any other becomes
``functions.<name>:<n>``, ``n`` counting the conversation's calls.
"""

ID_STYLES: Final = ("default", "alnum9", "kimi")

JOIN: Final = "\n\n"
"""What separates text blocks (and thinking blocks) joined into one string."""


def _part(
    index: int, position: int, block: object, unsupported: Unsupported
) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageUrlBlock):
        return {"type": "image", "url": block.url}
    if isinstance(block, ImageBase64Block):
        return {"type": "image", "url": data_url(block.media_type, block.data)}
    if isinstance(block, VideoUrlBlock):
        return {"type": "video", "url": block.url}
    if isinstance(block, VideoPathBlock):
        return {"type": "video", "path": block.path}
    if isinstance(block, AudioUrlBlock):
        return {"type": "audio", "url": block.url}
    if isinstance(block, AudioPathBlock):
        return {"type": "audio", "path": block.path}
    if isinstance(block, AudioBase64Block):
        return {"type": "audio", "url": data_url(block.media_type, block.data)}
    if isinstance(block, UnknownBlock):
        raise unknown_block(DIALECT, index, position, block)
    # Base64 video: transformers loads video only from a URL or a path.
    if unsupported == "note":
        return {"type": "text", "text": note_text(DIALECT, block)}
    raise unsupported_block(
        DIALECT,
        index,
        position,
        block,
        "has no form for inline (base64) video; give a URL or a path",
    )


def _user_content(index: int, blocks: Iterable[object], unsupported: Unsupported) -> Any:
    parts = [_part(index, n, block, unsupported) for n, block in enumerate(blocks)]
    kept = [part for part in parts if part is not None]
    if all(part["type"] == "text" for part in kept):
        # Text only: a string, which every template can print.
        return JOIN.join(part["text"] for part in kept)
    return kept


def _reasoning(thinking: Iterable[ThinkingBlock]) -> str:
    # Redacted thinking has no text to show a model; it is left out.
    return JOIN.join(block.text for block in thinking if block.text)


def to_messages(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
    ids: IdStyle = "default",
    control_tokens: object = None,
) -> list[dict[str, Any]]:
    """The transcript as Hugging Face chat messages (see the module's doc)."""
    check_unsupported(unsupported)
    defuse = checked_tokens(control_tokens)
    if type(ids) is not str or ids not in ID_STYLES:
        raise ValueError(f'ids= must be "default", "alnum9" or "kimi", not {ids!r:.80}')
    transcript = transcript_of(messages, "to_messages")
    calls: CallIds
    if ids == "alnum9":
        calls = Alnum9Ids(transcript, usable_alnum9, DIALECT)
    elif ids == "kimi":
        calls = KimiIds(transcript, usable_kimi, DIALECT)
    else:
        calls = CallIds(transcript, _usable_default, DIALECT)
    out: list[dict[str, Any]] = []
    copies = repeated(transcript)
    for index, message in enumerate(transcript):
        if copies and index in copies:
            continue  # sent once: a copy of a reply or result stored twice
        if isinstance(message, ToolResultMessage):
            call = calls.result(index, message)
            if defuse is not None and not message.provenance.is_internal():
                # The payload's control tokens are changed, then it is fenced.
                content = defuse.defuse(message.content)
                content = fence(content) if fence_external else content
            else:
                content = tool_result_text(message, fence_external)
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": call.out_id,
                    "name": call.name,
                    "content": content,
                }
            )
        elif isinstance(message, AssistantMessage):
            calls.assistant()
            turn: dict[str, Any] = {"role": "assistant", "content": message.content}
            reasoning = _reasoning(message.thinking)
            if reasoning:
                turn["reasoning_content"] = reasoning
            if message.tool_calls:
                turn["tool_calls"] = [
                    {
                        "type": "function",
                        "id": calls.call(index, position, call),
                        "function": {"name": call.name, "arguments": owned(call.arguments)},
                    }
                    for position, call in enumerate(message.tool_calls)
                ]
            out.append(turn)
        elif isinstance(message, UserMessage):
            calls.user(index)
            out.append({"role": "user", "content": message.content})
        elif isinstance(message, UserMultimodalMessage):
            calls.user(index)
            content = _user_content(index, message.content, unsupported)
            out.append({"role": "user", "content": content})
        elif isinstance(message, SystemMessage):
            out.append({"role": "system", "content": message.content})
        elif isinstance(message, ProviderOutputItemsMessage):
            pass  # a hosted provider's state means nothing to a local model
        elif isinstance(message, UnknownMessage):
            raise unknown_message(index, message)
        else:
            raise not_a_message(index, message)
    return out


_usable_default = safe_id(64)
