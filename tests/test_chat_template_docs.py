"""docs/local-models.md: every Python block runs as pasted, and prints what its comments say."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

PAGE = Path(__file__).parent.parent / "docs" / "local-models.md"
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text("utf-8"), re.DOTALL)
# print(...)  # what it prints
PROMISE = re.compile(r"^\s*print\(.*\)\s+# (.*)$")


def test_the_page_has_its_examples() -> None:
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_every_python_block_runs_in_a_fresh_interpreter(number: int, tmp_path: Path) -> None:
    block = BLOCKS[number]
    if "transformers" in block:
        pytest.importorskip("transformers")
    done = subprocess.run(
        [sys.executable, "-c", block], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = block.splitlines()
    promised = [m.group(1) for m in map(PROMISE.match, lines) if m]
    printing = [line for line in lines if line.lstrip().startswith("print(")]
    if promised and len(promised) == len(printing):
        # Every print says what it prints: hold the page to it.
        assert done.stdout.splitlines() == promised
