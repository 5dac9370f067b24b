"""Every Python block of the README and the documentation site runs as written.

A reader pastes a block into a fresh interpreter, in an empty directory, with
convtypes and its test group installed. So each block runs that way here,
and must print what its comments say it prints:

- ``print(...)  # text`` promises one line of output;
- a ``print(...)`` with no comment on its line promises the comment lines
  (``# ...``) right below it, at the same indentation.

When every print of a block promises its output, the output must be exactly
that; otherwise (a print that writes part of a line, in a loop) the promised
lines must appear in it, in order. A block leaves the directory as it found
it: files go to a temporary directory.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_FENCE = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def _blocks() -> list[tuple[str, int, str]]:
    found = []
    for page in PAGES:
        text = page.read_text("utf-8")
        for match in _FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((str(page.relative_to(ROOT)), line, match.group(1)))
    return found


BLOCKS = _blocks()


def promised(block: str) -> tuple[list[str], bool]:
    """The output a block's comments promise, and whether every print promises its own.

    A print without a promise (one that writes part of a line, in a loop)
    leaves the promises of the others to appear in order in the output.
    """
    shown: list[str] = []
    whole = True
    lines = block.splitlines()
    for number, line in enumerate(lines):
        code = line.strip()
        if not code.startswith("print("):
            continue
        if "  # " in code:
            shown.append(code.split("  # ", 1)[1])
            continue
        indent = line[: len(line) - len(line.lstrip())]
        below = []
        for after in lines[number + 1 :]:
            if not after.startswith(indent + "# "):
                break
            below.append(after[len(indent) + 2 :])
        whole = whole and bool(below)
        shown.extend(below)
    return shown, whole


def _in_order(wanted: list[str], lines: list[str]) -> bool:
    rest = iter(lines)
    return all(any(line == want for line in rest) for want in wanted)


def test_there_are_blocks_on_every_page_that_has_python() -> None:
    pages_with_blocks = {page for page, _, _ in BLOCKS}
    assert "README.md" in pages_with_blocks
    assert len(BLOCKS) >= 20


@pytest.mark.parametrize(
    ("page", "line", "block"), BLOCKS, ids=[f"{page}:{line}" for page, line, _ in BLOCKS]
)
def test_every_block_runs_in_a_fresh_interpreter(
    page: str, line: int, block: str, tmp_path: Path
) -> None:
    if "import transformers" in block or "from transformers" in block:
        if sys.version_info < (3, 11):
            pytest.skip("the pinned transformers (5.24.0) needs Python 3.11")
    done = subprocess.run(
        [sys.executable, "-c", block],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, f"{page}:{line}\n{done.stderr}"
    expected, whole = promised(block)
    output = done.stdout.splitlines()
    if whole:
        assert output == expected, f"{page}:{line}"
    else:
        assert _in_order(expected, output), f"{page}:{line}: {expected} not in {output}"
    assert list(tmp_path.iterdir()) == [], f"{page}:{line} left files behind"
