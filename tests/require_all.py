"""A pytest plugin: with ``CONVTYPES_REQUIRE_ALL=1``, a missing test dependency fails.

``pytest.importorskip`` turns a module that will not import into a skip.
On a developer's machine without an SDK that is a convenience; in CI it
would hide a release that moved a module, skipping every test that reads
it while the run stays green. CI sets the variable (``.ci/run``), and then
``importorskip`` imports plainly: the import error fails the module.
tests/conftest.py loads this plugin; tests/test_require_all.py shows both
behaviours.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

import pytest

VARIABLE = "CONVTYPES_REQUIRE_ALL"


def _import_plainly(modname: str, minversion: str | None = None, **_: Any) -> Any:
    module = importlib.import_module(modname)
    if minversion is not None:
        raise AssertionError(f"importorskip({modname!r}, minversion=...) has no strict form here")
    return module


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get(VARIABLE) == "1":
        pytest.importorskip = _import_plainly  # type: ignore[assignment]
