"""What the package index and CI see: metadata, the lint pin, a clean tree.

pyproject.toml is read with regular expressions rather than tomllib, which
Python 3.10 lacks; each pattern names the one key it looks at.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PYPROJECT = (ROOT / "pyproject.toml").read_text("utf-8")
WORKFLOW = (ROOT / ".github" / "workflows" / "ci.yml").read_text("utf-8")


def _section(name: str) -> str:
    """The body of one ``[name]`` table of pyproject.toml."""
    found = re.search(rf"^\[{re.escape(name)}\]\n(.*?)(?=^\[|\Z)", PYPROJECT, re.M | re.S)
    assert found is not None, f"pyproject.toml has no [{name}]"
    return found[1]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def test_the_build_backend_floor_reads_license_files() -> None:
    # hatchling before 1.27 refuses the PEP 639 license-files key.
    assert "license-files" in _section("project")
    floor = re.search(r'"hatchling>=([0-9.]+)"', _section("build-system"))
    assert floor is not None
    assert _version(floor[1]) >= (1, 27)


def test_project_urls_are_absolute() -> None:
    urls = dict(re.findall(r'^(\w+) = "([^"]*)"', _section("project.urls"), re.M))
    assert urls["Repository"] == "https://github.com/convtypes/convtypes"
    assert urls["Documentation"] == "https://convtypes.readthedocs.io"
    assert all(url.startswith("https://") for url in urls.values()), urls


def test_classifiers_name_every_python_that_ci_tests() -> None:
    matrix = re.search(r"python-version: \[([^\]]*)\]", WORKFLOW)
    assert matrix is not None
    tested = re.findall(r'"(3\.\d+)"', matrix[1])
    assert "3.14" in tested
    classified = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', PYPROJECT)
    assert classified == tested


def test_ci_lints_the_whole_tree_with_the_pinned_ruff() -> None:
    pin = re.search(r'lint = \["ruff==([0-9.]+)"\]', _section("project.optional-dependencies"))
    assert pin is not None, "the lint extra pins ruff"
    assert "grep -o 'ruff==[0-9.]*' pyproject.toml" in WORKFLOW
    assert "ruff check .\n" in WORKFLOW
    assert "ruff format --check .\n" in WORKFLOW
    assert "pip install ruff\n" not in WORKFLOW


@pytest.mark.slow
@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]])
def test_the_tree_is_lint_clean(command: list[str]) -> None:
    pins = set(re.findall(r'"ruff==([0-9.]+)"', PYPROJECT))
    assert len(pins) == 1, f"the lint and test extras pin one ruff, not {pins}"
    version = subprocess.run(
        [sys.executable, "-m", "ruff", "--version"], capture_output=True, text=True, check=False
    )
    assert version.stdout.split() == ["ruff", *pins], "install the test extra: its ruff is pinned"
    done = subprocess.run(
        [sys.executable, "-m", "ruff", *command], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout + done.stderr
