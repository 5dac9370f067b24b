"""Readers for recorded provider traffic: SSE text, Jest snapshots, JSON lines."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def sse_events(text: str) -> list[dict[str, Any]]:
    """The JSON ``data:`` payloads of an SSE body, in order (``[DONE]`` left out)."""
    events: list[dict[str, Any]] = []
    for block in re.split(r"\r?\n\r?\n", text):
        data = [line[5:].lstrip() for line in block.splitlines() if line.startswith("data:")]
        if not data:
            continue
        payload = "\n".join(data)
        if payload.strip() == "[DONE]":
            continue
        events.append(json.loads(payload))
    return events


def jest_snapshots(path: Path) -> Iterator[tuple[str, str]]:
    """``(name, text)`` of each ``exports[...]`` template string of a Jest snapshot file."""
    source = path.read_text()
    for match in re.finditer(r"exports\[`(.*?)`\] = `\n?(.*?)`;\n", source, re.S):
        body = match.group(2)
        body = body.replace("\\`", "`").replace("\\\\", "\\")
        if body.startswith('"') and body.rstrip().endswith('"'):
            body = body.strip()[1:-1]
        yield match.group(1), body


class Outcome:
    """Counts of checks passed and the failures met, for a summary at the end."""

    def __init__(self) -> None:
        self.passed = 0
        self.failures: list[str] = []

    def check(self, ok: bool, what: str) -> None:
        if ok:
            self.passed += 1
        else:
            self.failures.append(what)

    def report(self, title: str) -> bool:
        print(f"{title}: {self.passed} checks passed, {len(self.failures)} failed")
        for failure in self.failures:
            print("  FAIL", failure)
        return not self.failures
