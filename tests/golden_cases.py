"""Load the reference's recorded behaviour from tests/golden."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"


@dataclass(frozen=True)
class Case:
    file: str
    line: int
    op: str
    doc: str
    ok: bool
    out: str | None

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"


def load(pattern: str = "**/*.jsonl") -> list[Case]:
    cases = []
    for path in sorted(GOLDEN.glob(pattern)):
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            raw = json.loads(line)
            cases.append(
                Case(
                    file=str(path.relative_to(GOLDEN)),
                    line=number,
                    op=raw["op"],
                    doc=raw["doc"],
                    ok=raw["ok"],
                    out=raw.get("out"),
                )
            )
    return cases
