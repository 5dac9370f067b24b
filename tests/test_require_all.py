"""CI's missing-dependency rule: with ``CONVTYPES_REQUIRE_ALL=1`` importorskip fails.

Run on a test file of its own in a fresh pytest, so the rule is seen both
ways: a skip on a developer's machine, a failure in CI.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent

NEEDS_A_MISSING_MODULE = """
import pytest

missing = pytest.importorskip("convtypes_no_such_module")


def test_uses_it() -> None:
    assert missing
"""


def _run(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_needs.py").write_text(NEEDS_A_MISSING_MODULE)
    environment = {**os.environ, "PYTHONPATH": str(TESTS)}
    environment.pop("CONVTYPES_REQUIRE_ALL", None)
    environment.update(env)
    pytest_options = ["-q", "-p", "no:cacheprovider", "-p", "require_all", "--rootdir"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *pytest_options, str(tmp_path), "test_needs.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        check=False,
    )


def test_a_missing_test_dependency_skips_on_a_developers_machine(tmp_path: Path) -> None:
    done = _run(tmp_path)
    # The module is skipped whole, so no test was collected: pytest's exit 5.
    assert done.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, done.stdout
    assert "1 skipped" in done.stdout


def test_a_missing_test_dependency_fails_in_ci(tmp_path: Path) -> None:
    done = _run(tmp_path, CONVTYPES_REQUIRE_ALL="1")
    assert done.returncode == pytest.ExitCode.INTERRUPTED, done.stdout  # a collection error
    assert "ModuleNotFoundError: No module named 'convtypes_no_such_module'" in done.stdout
    assert "skipped" not in done.stdout
