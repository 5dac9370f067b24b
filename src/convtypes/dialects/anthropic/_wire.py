"""What every room of the Anthropic dialect shares: its names, limits and markers."""

from __future__ import annotations

from typing import Final

from .._ids import safe_id

DIALECT: Final = "Anthropic"
PROTOCOL: Final = "anthropic"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

# Fields the anthropic SDK's parse helpers add to a block; not part of the wire.
_SDK_ONLY: Final = frozenset({"parsed_output"})
# Stop reasons that cut the reply at a token limit, perhaps inside a block.
_CUT: Final = frozenset({"max_tokens", "model_context_window_exceeded"})

_usable_id = safe_id(64)

_NO_MEDIA: Final = "has no block for video or audio"
# The key of a cache breakpoint on a block, which only a request may hold.
_MARKER: Final = "cache_control"


def _has_text(text: str) -> bool:
    """Whether a text block may be sent: the API refuses empty and white-space text."""
    return text != "" and not text.isspace()
