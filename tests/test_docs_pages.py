"""The pages in docs/ this branch wrote: every Python block runs as written.

Each block runs in a fresh interpreter, in an empty directory, as a reader
would paste it; what each print() says it prints, in its comment, is what
it printed.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PAGES = [ROOT / "docs" / "errors.md", ROOT / "docs" / "typing.md"]
BLOCKS = [
    pytest.param(block, id=f"{page.name}-{number}")
    for page in PAGES
    for number, block in enumerate(
        re.findall(r"```python\n(.*?)```", page.read_text("utf-8"), re.DOTALL), 1
    )
]


def _promised(block: str) -> list[str]:
    """What the block's print() calls say they print, in their comments, in order."""
    return [text for text in re.findall(r"^\s*print\(.*\)\s*# (.*)$", block, re.MULTILINE)]


@pytest.mark.parametrize("block", BLOCKS)
def test_every_block_runs_and_prints_what_it_says(block: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", block], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    promised = _promised(block)
    assert len(promised) == block.count("print("), "each print() says on its line what it prints"
    assert done.stdout.splitlines() == promised
    assert list(tmp_path.iterdir()) == []  # files go to a temporary directory


def test_the_pages_have_blocks() -> None:
    for page in PAGES:
        assert "```python" in page.read_text("utf-8"), page


def test_the_typing_page_quotes_the_checked_program() -> None:
    # The functions docs/typing.md shows are the ones tests/test_typing.py
    # has mypy and pyright check, word for word.
    program = (ROOT / "tests" / "typing_user.py").read_text("utf-8")
    page = (ROOT / "docs" / "typing.md").read_text("utf-8")
    quoted = 0
    for block in re.findall(r"```python\n(.*?)```", page, re.DOTALL):
        for node in ast.parse(block).body:
            if isinstance(node, ast.FunctionDef):
                source = ast.get_source_segment(block, node)
                assert source is not None and source in program, node.name
                quoted += 1
    assert quoted >= 2
