"""What every request builder shares: the transcript taken, fenced tool results, inline data."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._fence import fence_external
from .._messages import ToolResultMessage


def tool_result_text(message: ToolResultMessage, fence: bool) -> str:
    """The result's text, fenced unless its provenance is internal.

    A provenance this version does not know reports ``is_internal()`` False
    and so is fenced: the check fails closed.
    """
    if fence and not message.provenance.is_internal():
        return fence_external(message.content)
    return message.content


def data_url(media_type: str, data: str) -> str:
    return f"data:{media_type};base64,{data}"


def transcript_of(messages: object, caller: str) -> list[Any]:
    """``messages`` as a list, or ``TypeError`` if it is no iterable of messages.

    Text, bytes and a mapping are iterable, but what they yield is no
    message (a JSON transcript's bytes would be read as numbers), and one
    message on its own is not a transcript: each is refused here, naming
    what was given, as ``check_conversation`` refuses them.
    """
    if isinstance(messages, list):
        return messages
    if isinstance(messages, (str, bytes, bytearray, memoryview, dict)) or not isinstance(
        messages, Iterable
    ):
        raise TypeError(
            f"{caller} takes an iterable of messages (a list, say), got {type(messages).__name__}"
        )
    return list(messages)


def owned_json(value: Any) -> Any:
    """A copy of a JSON value whose dicts and lists are all new.

    What a transcript holds (provider items, tool arguments) goes into a
    request through this, so that a caller who edits the request (adds a
    cache marker, say) never writes into the stored conversation. Items
    are checked JSON nested within a known limit, so the recursion is bounded.
    """
    if type(value) is dict:
        return {key: owned_json(item) for key, item in value.items()}
    if type(value) is list or type(value) is tuple:
        return [owned_json(item) for item in value]
    return value
