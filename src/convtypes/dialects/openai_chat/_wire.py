"""What the Chat Completions wire is called, and the names and values its rooms share."""

from __future__ import annotations

from typing import Final, Literal

DIALECT: Final = "OpenAI Chat Completions"

PROTOCOL: Final = "openai-chat"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})

DETAILS: Final = frozenset({"low", "high", "auto"})

AUDIO_FORMATS: Final = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}

Reasoning = Literal["reasoning_content", "reasoning"]
"""The assistant-message field a server reads earlier reasoning from."""

_REASONING_KEYS: Final = ("reasoning_content", "reasoning")

# What an assistant message in a request may carry, of what a response's
# message holds; ``annotations`` has no input field.
_INPUT_KEYS: Final = ("role", "content", "refusal", "tool_calls", "function_call", "name")

CUSTOM_INPUT: Final = "input"
"""The one key of the ``arguments`` of a custom tool's call, which holds its free text."""
