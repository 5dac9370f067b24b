"""What the README and the storage page show of the ``convtypes`` command is what it prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"
STORAGE = ROOT / "docs" / "storage.md"


def _block_after(text: str, marker: str) -> str:
    start = text.index(marker)
    block = text.index("```text\n", start) + len("```text\n")
    return text[block : text.index("```", block)]


def _command(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def test_the_readme_check_of_the_examples_prints_what_it_shows() -> None:
    readme = README.read_text("utf-8")
    command = re.search(r"```bash\npip install \. && (convtypes check \S+)\n```", readme)
    assert command is not None, "the README lost its first command"
    shown = _block_after(readme, command.group(0))
    result = subprocess.run(
        [_command("convtypes"), *command.group(1).split()[1:]],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == shown


def test_the_storage_page_shows_what_check_prints_for_the_broken_examples() -> None:
    page = STORAGE.read_text("utf-8")
    shown = _block_after(page, "convtypes check examples/broken/\n")
    shown = shown.replace("[0]…[0]", "[0]" * 124)
    result = subprocess.run(
        [_command("convtypes"), "check", "examples/broken/"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.stdout == shown


def test_the_storage_page_canonical_example_is_true() -> None:
    page = STORAGE.read_text("utf-8")
    block = _block_after(page, "- `--canonical` also reports")
    lines = [line.strip() for line in block.strip().splitlines()]
    command, expected = lines[0].removeprefix("$ "), lines[1:]
    bin_dir = str(Path(sys.executable).parent)
    result = subprocess.run(
        command,
        shell=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PATH": bin_dir + ":/usr/bin:/bin"},
        check=False,
    )
    assert result.stdout.splitlines() == expected
