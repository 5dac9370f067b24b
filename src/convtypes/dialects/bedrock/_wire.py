"""What every room of the Bedrock dialect shares: its names, limits and small reads of blocks."""

from __future__ import annotations

import re
from typing import Any, Final

DIALECT: Final = "Bedrock"
PROTOCOL: Final = "bedrock-converse"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

# The API's own rule for a toolUseId (its service model).
_ID: Final = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
# Stop reasons that cut the reply at a token limit, perhaps inside a block.
_CUT: Final = frozenset({"max_tokens", "model_context_window_exceeded"})
_SERVER_CALL: Final = "server_tool_use"


def _usable_id(call_id: str) -> bool:
    return _ID.fullmatch(call_id) is not None


def _has_text(text: str) -> bool:
    """Whether a text block may be sent: the API refuses blank text."""
    return text != "" and not text.isspace()


_CONTAINERS: Final = (dict, list)


def _copied(value: Any) -> Any:
    """A copy of JSON ``value`` sharing no dict or list with it."""
    if type(value) is dict:
        return {
            key: _copied(item) if type(item) in _CONTAINERS else item for key, item in value.items()
        }
    if type(value) is list:
        return [_copied(item) if type(item) in _CONTAINERS else item for item in value]
    return value


def _member(block: dict[str, Any]) -> str | None:
    """The one member of a Converse union (a content block), or ``None``."""
    if len(block) != 1:
        return None
    for key in block:
        return key if isinstance(key, str) else None
    return None  # pragma: no cover - a dict of one entry always yields it
