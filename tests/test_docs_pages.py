"""The typing page shows the program the type checkers check, word for word.

(Every page's blocks are run by tests/test_docs.py.)
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_the_typing_page_quotes_the_checked_program() -> None:
    # The functions docs/typing.md shows are the ones tests/test_typing.py
    # has mypy and pyright check.
    program = (ROOT / "tests" / "typing_user.py").read_text("utf-8")
    page = (ROOT / "docs" / "typing.md").read_text("utf-8")
    quoted = 0
    for block in re.findall(r"```python\n(.*?)```", page, re.DOTALL):
        for node in ast.parse(block).body:
            if isinstance(node, ast.FunctionDef):
                source = ast.get_source_segment(block, node)
                assert source is not None and source in program, node.name
                quoted += 1
    assert quoted >= 2
