"""The README's section on provider dialects stays true."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"


def _section() -> str:
    text = README.read_text("utf-8")
    start = text.index("## Provider dialects")
    return text[start : text.index("\n## ", start + 1)]


def test_the_dialects_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", _section(), re.DOTALL)
    assert len(blocks) == 1
    namespace: dict[str, object] = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    body = namespace["body"]
    assert isinstance(body, dict)
    # The call without an id got a unique id, and its fenced result follows it.
    use = body["messages"][1]["content"][0]
    result = body["messages"][2]["content"][0]
    assert use["id"] == result["tool_use_id"] == "call_2_0"
    assert "<external-content>\nRain, 4 C\n</external-content>" in result["content"]


def test_the_table_has_a_row_per_dialect() -> None:
    rows = re.findall(r"^\| `(\w+)` \|", _section(), re.MULTILINE)
    assert rows == ["anthropic", "openai_chat", "openai_responses", "gemini"]
