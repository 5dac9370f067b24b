"""The README's example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).parent.parent / "README.md"


def test_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text("utf-8"), re.DOTALL)
    assert blocks, "README.md lost its example"
    exec(compile(blocks[0], "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "<external-content>\nRain, 4 C\n</external-content>" in out
    assert "['web_search']" in out
    assert out.rstrip().endswith("$.content[0].type")


def _block_after(text: str, marker: str) -> str:
    start = text.index(marker)
    block = text.index("```text\n", start) + len("```text\n")
    return text[block : text.index("```", block)]


def test_readme_shows_what_check_prints_for_the_broken_examples() -> None:
    import subprocess
    import sys
    from pathlib import Path

    readme = README.read_text("utf-8")
    shown = _block_after(readme, "convtypes check examples/broken/\n")
    shown = shown.replace("[0]…[0]", "[0]" * 124)
    script = Path(sys.executable).parent / "convtypes"
    result = subprocess.run(
        [str(script), "check", "examples/broken/"],
        capture_output=True,
        text=True,
        cwd=README.parent,
        check=False,
    )
    assert result.stdout == shown


def test_readme_canonical_example_is_true() -> None:
    import subprocess
    import sys
    from pathlib import Path

    readme = README.read_text("utf-8")
    block = _block_after(readme, "- `--canonical` also reports")
    lines = [line.strip() for line in block.strip().splitlines()]
    command, expected = lines[0].removeprefix("$ "), lines[1:]
    bin_dir = str(Path(sys.executable).parent)
    result = subprocess.run(
        command,
        shell=True,
        capture_output=True,
        text=True,
        cwd=README.parent,
        env={"PATH": bin_dir + ":/usr/bin:/bin"},
        check=False,
    )
    assert result.stdout.splitlines() == expected


_BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text("utf-8"), re.DOTALL)


@pytest.mark.parametrize("number", range(len(_BLOCKS)))
def test_every_python_block_runs_in_a_fresh_interpreter(number: int, tmp_path: Path) -> None:
    # As a reader would paste it: a new interpreter, an empty directory.
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _BLOCKS[number]],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_the_check_conversation_example_prints_what_it_says() -> None:
    block = next(b for b in _BLOCKS if "check_conversation" in b)
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True)
    promised = block.split("# ", 1)[1].splitlines()[0]
    assert done.stdout.strip() == promised.strip()
