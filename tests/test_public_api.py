"""The public names and signatures stay what tests/public_api.json says.

Moving code between private modules must not change what a user imports or
how it is called. When a change to the public API is meant, regenerate the
file with ``python tests/public_api.py`` and commit it with the change.
"""

from __future__ import annotations

import json
from typing import Any

import public_api

REGENERATE = "if the change is meant, run `python tests/public_api.py` and commit the file"


def _differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    lines = []
    for module in sorted(before.keys() | after.keys()):
        if module not in after:
            lines.append(f"{module}: module gone")
            continue
        if module not in before:
            lines.append(f"{module}: new module, not in the file")
            continue
        old, new = before[module], after[module]
        for name in sorted(old.keys() - new.keys()):
            lines.append(f"{module}.{name}: gone")
        for name in sorted(new.keys() - old.keys()):
            lines.append(f"{module}.{name}: new")
        for name in sorted(old.keys() & new.keys()):
            if old[name] != new[name]:
                lines.append(
                    f"{module}.{name}: was {json.dumps(old[name], sort_keys=True)}, "
                    f"now {json.dumps(new[name], sort_keys=True)}"
                )
    return lines


def test_the_public_api_is_the_one_on_file() -> None:
    before = json.loads(public_api.FILE.read_text("utf-8"))
    changed = _differences(before, public_api.listing())
    assert not changed, "\n".join(["the public API changed:", *changed, REGENERATE])


def test_the_file_is_written_as_the_generator_writes_it() -> None:
    # A hand edit or a merge of two regenerated files shows here, not later.
    text = public_api.FILE.read_text("utf-8")
    assert text == public_api.dumps(json.loads(text)), REGENERATE


def test_a_change_is_named() -> None:
    # The message says what changed, so the failure is read, not just rerun.
    before = {"m": {"f": {"kind": "function", "signature": "(a)"}, "g": {"kind": "value"}}}
    after = {"m": {"f": {"kind": "function", "signature": "(a, b)"}, "h": {"kind": "value"}}}
    assert _differences(before, after) == [
        "m.g: gone",
        "m.h: new",
        'm.f: was {"kind": "function", "signature": "(a)"}, '
        'now {"kind": "function", "signature": "(a, b)"}',
    ]
    assert _differences(before, {}) == ["m: module gone"]
    assert _differences(before, before) == []
