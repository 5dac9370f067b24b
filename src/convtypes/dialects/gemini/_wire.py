"""What every room of the Gemini dialect shares: its names."""

from __future__ import annotations

from typing import Final

DIALECT: Final = "Gemini"
PROTOCOL: Final = "gemini"
"""The ``protocol`` of the provider output items this dialect writes and replays."""
