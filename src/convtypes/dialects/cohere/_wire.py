"""What the Cohere wire is called, and the names and values its rooms share."""

from __future__ import annotations

from typing import Final

DIALECT: Final = "Cohere"

PROTOCOL: Final = "cohere"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})

DETAILS: Final = frozenset({"low", "high", "auto"})

PLAN_JOIN: Final = "\n\n"
"""What separates texts joined into one ``tool_plan``."""

# What an assistant message in a request takes, of what a reply's message holds.
_INPUT_KEYS: Final = frozenset({"role", "content", "tool_plan", "tool_calls", "citations"})

_CUT_REASONS: Final = frozenset({"MAX_TOKENS"})
