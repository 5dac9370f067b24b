"""What the Ollama wire is called, and the names and values its rooms share."""

from __future__ import annotations

from typing import Final

DIALECT: Final = "Ollama"


PROTOCOL: Final = "ollama"


IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/webp"})
