"""What the pages say about the code, checked against the code.

The typing page shows the program the type checkers check, word for word;
the pages that list names (problem codes, what ``convtypes check`` reads,
the package's exports) list all of them. (Every page's blocks are run by
tests/test_docs.py.)
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


def _code_names(text: str) -> set[str]:
    """Every name written as inline code (`name`) in Markdown text."""
    return set(re.findall(r"`([^`\n]+)`", text))


def test_the_pages_name_every_problem_code() -> None:
    # The codes check_conversation can return, read from where it makes them.
    source = (ROOT / "src" / "convtypes" / "_conversation.py").read_text("utf-8")
    codes = set(re.findall(r'Problem\(\s*-?\w+,\s*"([a-z-]+)"', source))
    codes |= set(re.findall(r'^\s*"([a-z]+(?:-[a-z]+)+)",$', source, re.MULTILINE))
    assert {"empty", "duplicate-item-id", "unsigned-thinking"} <= codes
    listed = _code_names((ROOT / "docs" / "testing.md").read_text("utf-8"))
    assert codes - listed == set()


def test_the_storage_page_names_what_check_reads() -> None:
    from convtypes import _cli

    text = (ROOT / "docs" / "storage.md").read_text("utf-8")
    for suffix in (*_cli._PLAIN, ".gz"):
        assert f"`{suffix}`" in text, suffix


def test_the_names_table_covers_every_export() -> None:
    # "The names" on the transcripts page lists what `import convtypes` gives.
    import convtypes

    text = (ROOT / "docs" / "transcripts.md").read_text("utf-8")
    table = text[text.index("## The names") : text.index("## Building values")]
    named = {re.split(r"[(.]", name)[0] for name in _code_names(table)}
    named |= {"decode_lenient_message", "decode_lenient_messages"}  # decode_lenient_message(s)
    exports = set(convtypes.__all__) - {"JsonValue"}  # the type of tool arguments
    for name in ("load_transcript", "save_transcript", "append_jsonl"):
        assert name in named
    assert exports - named == set()


def test_the_local_models_page_lists_every_style_and_end_token() -> None:
    import importlib

    from convtypes.dialects.chat_template import COMMON_ENDS, STYLES, Style

    page = (ROOT / "docs" / "local-models.md").read_text("utf-8")
    rows: dict[str, str] = {}
    for match in re.finditer(r'^\| `"(\w+)"` \|.*$', page, re.MULTILINE):
        rows.setdefault(match.group(1), match.group(0))  # the styles table comes first
    assert set(STYLES) <= set(rows), sorted(set(STYLES) - set(rows))
    for name in STYLES:
        style: Style = importlib.import_module(f"convtypes.dialects._styles.{name}").STYLE
        own = [token for token in style.ends if token not in COMMON_ENDS]
        assert all(token in rows[name] for token in own), (name, own)
    names = _code_names(page)
    assert [token for token in COMMON_ENDS if token not in names] == []
    # Only Granite 4 writes hermes' <tool_call>; Granite 3 writes <|tool_call|>.
    assert "Granite 4" in rows["hermes"] and '`"granite"`' in rows["hermes"]
    assert "Granite 3" in rows["granite"] and "<|tool_call|>" in rows["granite"]
