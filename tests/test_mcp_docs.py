"""docs/mcp.md: every Python block runs as written and prints what it says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

PAGE = Path(__file__).parent.parent / "docs" / "mcp.md"
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text("utf-8"), re.DOTALL)


def _shown(block: str) -> list[str]:
    """The output a block's comments promise, line by line.

    ``print(...)  # text`` promises one line; a ``print(...)`` without a
    comment promises the comment lines that follow it.
    """
    shown: list[str] = []
    lines = block.splitlines()
    for number, line in enumerate(lines):
        code = line.strip()
        if not code.startswith("print("):
            continue
        if "  # " in code:
            shown.append(code.split("  # ", 1)[1])
            continue
        for after in lines[number + 1 :]:
            if not after.startswith("# "):
                break
            shown.append(after[2:])
    return shown


def test_the_page_has_its_examples() -> None:
    assert len(BLOCKS) == 4
    assert all(_shown(block) for block in BLOCKS)


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_every_block_runs_in_a_fresh_interpreter(number: int, tmp_path: Path) -> None:
    # As a reader would paste it: a new interpreter, an empty directory.
    done = subprocess.run(
        [sys.executable, "-c", BLOCKS[number]],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == _shown(BLOCKS[number])
    assert list(tmp_path.iterdir()) == []
