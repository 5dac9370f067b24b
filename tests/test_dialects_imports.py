"""The dialects stay out of ``import convtypes`` and need no provider SDK."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SDKS = (
    "anthropic",
    "openai",
    "google.genai",
    "mistralai",
    "cohere",
    "boto3",
    "botocore",
    "pydantic",
    "httpx",
)


def _run(code: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_import_convtypes_does_not_import_the_dialects() -> None:
    _run(
        """
        import sys
        import convtypes
        assert "convtypes.dialects" not in sys.modules, sorted(sys.modules)
        """
    )


@pytest.mark.parametrize(
    "name",
    ["anthropic", "openai_chat", "openai_responses", "gemini", "bedrock", "mistral", "cohere"],
)
def test_a_dialect_imports_no_sdk(name: str) -> None:
    _run(
        f"""
        import sys
        import convtypes.dialects.{name} as module
        assert callable(module.to_request) and callable(module.from_response)
        loaded = [n for n in {SDKS!r} if n in sys.modules]
        assert not loaded, loaded
        """
    )
