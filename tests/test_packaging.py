"""What the package index, CI and Read the Docs see: metadata, sdist, lint pin, clean tree.

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
WORKFLOW_FILE = ROOT / ".github" / "workflows" / "ci.yml"
# The sdist ships the workflow for these tests (see test_the_sdist_ships_...).
WORKFLOW = WORKFLOW_FILE.read_text("utf-8")
DOCS_URL = "https://convtypes.readthedocs.io/en/latest/"


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
    assert urls["Documentation"] == DOCS_URL
    assert all(url.startswith("https://") for url in urls.values()), urls


def test_classifiers_name_every_python_that_ci_tests() -> None:
    matrix = re.search(r"python-version: \[([^\]]*)\]", WORKFLOW)
    assert matrix is not None
    tested = re.findall(r'"(3\.\d+)"', matrix[1])
    assert "3.14" in tested
    classified = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', PYPROJECT)
    assert classified == tested


def test_ci_lints_the_whole_tree_with_the_pinned_ruff() -> None:
    pin = re.search(r'^lint = \["ruff==([0-9.]+)"\]', _section("dependency-groups"), re.M)
    assert pin is not None, "the lint group pins ruff"
    assert "pip install --group lint\n" in WORKFLOW
    assert "ruff check .\n" in WORKFLOW
    assert "ruff format --check .\n" in WORKFLOW
    assert "pip install ruff\n" not in WORKFLOW


def test_published_metadata_has_only_the_user_extras_and_no_pins() -> None:
    # What [project] says is published with every release; the tools that
    # develop convtypes, with their exact pins, are dependency groups.
    extras = re.findall(r"^([\w-]+) = \[", _section("project.optional-dependencies"), re.M)
    assert extras == ["hypothesis", "templates"]
    published = _section("project") + _section("project.optional-dependencies")
    assert "==" not in published
    groups = re.findall(r"^([\w-]+) = \[", _section("dependency-groups"), re.M)
    assert set(groups) == {"test", "lint", "bench", "docs"}


def test_every_install_command_uses_the_groups() -> None:
    # The README's command, CI's script and workflow, and Read the Docs all
    # install the tools from the groups, with a pip that reads them.
    readme = (ROOT / "README.md").read_text("utf-8")
    command = readme[readme.index("<!-- test-command -->") :].split("```")[1]
    assert command.splitlines()[1:3] == [
        "python -m pip install --upgrade pip",
        "pip install . --group test",
    ]
    for text in (readme, WORKFLOW, (ROOT / ".readthedocs.yaml").read_text("utf-8")):
        assert "'.[test]'" not in text and "'.[docs]'" not in text
    installs = re.findall(r"^      - run: (pip install .*)$", WORKFLOW, re.M)
    assert installs and all("--group" in line for line in installs), installs
    assert WORKFLOW.count("- run: python -m pip install --upgrade pip\n") == len(installs)


def test_the_docs_address_is_one_address() -> None:
    # Read the Docs serves the site under /en/latest/: the canonical links
    # (site_url), the package's Documentation URL and the README's links
    # all say so, and each README link names a page the site has.
    mkdocs = (ROOT / "mkdocs.yml").read_text("utf-8")
    assert re.search(r"^site_url: (\S+)$", mkdocs, re.M)[1] == DOCS_URL  # type: ignore[index]
    rtd = (ROOT / ".readthedocs.yaml").read_text("utf-8")
    assert re.search(r"^  configuration: (\S+)$", rtd, re.M)[1] == "mkdocs.yml"  # type: ignore[index]
    assert "--group docs" in rtd
    readme = (ROOT / "README.md").read_text("utf-8")
    links = re.findall(r"\(https://convtypes\.readthedocs\.io([^)]*)\)", readme)
    assert len(links) > 10
    for link in links:
        assert f"https://convtypes.readthedocs.io{link}".startswith(DOCS_URL), link
        page = link.removeprefix("/en/latest/").rstrip("/")
        docs = ROOT / "docs"
        assert not page or (docs / f"{page}.md").exists() or (docs / page / "index.md").exists()


def test_no_page_tells_to_install_an_unpublished_distribution() -> None:
    # No release is on a package index: "pip install convtypes" would fetch
    # nothing, or someone else's package.
    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    wrong = re.compile(r"pip install ['\"]?convtypes(\[[\w,]+\])?['\"]?(?=\s|$)(?!\s+@)")
    found = [str(page) for page in pages if wrong.search(page.read_text("utf-8"))]
    assert found == []


def test_the_sdist_ships_what_the_tests_read_and_not_ci_or_dev() -> None:
    hatchling = pytest.importorskip("hatchling.builders.sdist")
    builder = hatchling.SdistBuilder(str(ROOT))
    shipped = {Path(f.distribution_path).as_posix() for f in builder.recurse_included_files()}
    assert not [name for name in shipped if name.startswith((".ci/", "dev/"))]
    for needed in (".github/workflows/ci.yml", ".readthedocs.yaml", "README.md", "mkdocs.yml"):
        assert needed in shipped, needed
    assert {"tests/test_packaging.py", "src/convtypes/__init__.py", "docs/index.md"} <= shipped


@pytest.mark.slow
@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]])
def test_the_tree_is_lint_clean(command: list[str]) -> None:
    pins = set(re.findall(r'"ruff==([0-9.]+)"', PYPROJECT))
    assert len(pins) == 1, f"the lint group (which test includes) pins one ruff, not {pins}"
    version = subprocess.run(
        [sys.executable, "-m", "ruff", "--version"], capture_output=True, text=True, check=False
    )
    assert version.stdout.split() == ["ruff", *pins], "install the test group: its ruff is pinned"
    done = subprocess.run(
        [sys.executable, "-m", "ruff", *command], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout + done.stderr
