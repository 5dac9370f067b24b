"""What every request builder shares: fenced tool results and inline data."""

from __future__ import annotations

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
