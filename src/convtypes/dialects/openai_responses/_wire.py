"""What every room of the Responses dialect shares: its names."""

from __future__ import annotations

from typing import Final

DIALECT: Final = "OpenAI Responses"
PROTOCOL: Final = "openai-responses"
"""The ``protocol`` of the provider output items this dialect writes and replays."""

CUSTOM_INPUT: Final = "input"
"""The one key of the ``arguments`` of a custom tool's call, which holds its free text."""
