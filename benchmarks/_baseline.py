"""The convtypes of an earlier commit, importable beside today's as ``convtypes_before``.

The package imports itself only relatively, so a copy of its source under
another name loads in the same process as the installed one, and a
benchmark can time the two side by side, taking turns within each round.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "a17766b"
"""The last commit before this round of work: requests that own their copies,
what happens between turns, the Bedrock, Mistral and Cohere dialects, more
local-model styles and the faster reading of SDK objects."""

_FOLDER = tempfile.TemporaryDirectory(prefix="convtypes-before-")


def load(rev: str = BEFORE, name: str = "convtypes_before") -> ModuleType | None:
    """``convtypes`` as it was at ``rev``, or ``None`` where git cannot give it.

    It is imported as ``name``: a benchmark that compares with another
    commit than :data:`BEFORE` gives it a name of its own.
    """
    if name in sys.modules:
        return sys.modules[name]
    into = Path(_FOLDER.name) if name == "convtypes_before" else Path(_FOLDER.name) / name
    into.mkdir(exist_ok=True)
    archive = into / "before.tar"
    with archive.open("wb") as out:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "src/convtypes"],
            stdout=out,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    if done.returncode != 0:
        return None
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    (into / "src" / "convtypes").rename(into / name)
    sys.path.insert(0, str(into))
    import importlib

    return importlib.import_module(name)
