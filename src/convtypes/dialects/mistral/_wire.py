"""What the Mistral wire is called, and the names and values its rooms share."""

from __future__ import annotations

from typing import Final

DIALECT: Final = "Mistral"

PROTOCOL: Final = "mistral"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})

DETAILS: Final = frozenset({"low", "high", "auto"})

AUDIO_TYPES: Final = frozenset(
    {"audio/wav", "audio/x-wav", "audio/wave", "audio/mpeg", "audio/mp3"}
)

BRIDGE: Final = "OK"
"""The assistant text sent between tool results and a user message."""

SYSTEM_JOIN: Final = "\n\n"
"""What separates system messages joined into the first one."""

# What an assistant message in a request takes, of what a reply's message
# holds: the rest (fields a newer API adds) has no input field.
_INPUT_KEYS: Final = frozenset({"role", "content", "tool_calls", "prefix"})

_CUT_REASONS: Final = frozenset({"length", "model_length"})
