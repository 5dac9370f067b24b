"""What the Ollama wire is called, and the names and values its rooms share."""

from __future__ import annotations

from typing import Final

DIALECT: Final = "Ollama"

PROTOCOL: Final = "ollama"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/webp"})
