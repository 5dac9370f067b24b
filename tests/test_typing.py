"""Type-level promises: an exhaustive match checks, a partial one does not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import convtypes as ct

from typing_exhaustive import describe

HERE = Path(__file__).parent
SOURCE = (HERE / "typing_exhaustive.py").read_text("utf-8")


def _mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    target = tmp_path / "snippet.py"
    target.write_text(source, "utf-8")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(target)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )


def _mypy_without(tmp_path: Path, case: str) -> subprocess.CompletedProcess[str]:
    """Run mypy on the consumer code with one ``case`` arm removed."""
    changed = SOURCE.replace(case, "")
    assert changed != SOURCE, "the case to remove is not in typing_exhaustive.py"
    return _mypy(tmp_path, changed)


@pytest.mark.slow
def test_exhaustive_match_type_checks(tmp_path: Path) -> None:
    result = _mypy(tmp_path, SOURCE)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_match_missing_a_role_fails_to_type_check(tmp_path: Path) -> None:
    result = _mypy_without(
        tmp_path,
        "        case ProviderOutputItemsMessage(protocol=protocol):\n"
        '            return f"items for {protocol}"\n',
    )
    assert result.returncode == 1
    assert "ProviderOutputItemsMessage" in result.stdout
    assert "assert_never" in result.stdout


def test_match_runs_for_every_role() -> None:
    messages: list[ct.Message] = [
        ct.SystemMessage(content="s"),
        ct.UserMessage(content="u"),
        ct.UserMultimodalMessage(content=(ct.TextBlock(text="t"),)),
        ct.AssistantMessage(content="a"),
        ct.ToolResultMessage(tool_use_id="c", content="r", provenance=ct.Provenance.EXTERNAL),
        ct.ProviderOutputItemsMessage(protocol="openai-responses", items=()),
    ]
    assert [describe(m).split(":")[0].split(" ")[0] for m in messages] == [
        "system",
        "user",
        "user",
        "assistant",
        "result",
        "items",
    ]


@pytest.mark.slow
def test_lenient_match_must_handle_unknown_messages(tmp_path: Path) -> None:
    # Passing a LenientMessage where a Message is expected is a type error:
    # the unknown case cannot be forgotten.
    result = _mypy_without(
        tmp_path,
        "        case UnknownMessage(role=role):\n"
        '            return f"unknown role {role}: kept, never shown to a model"\n',
    )
    assert result.returncode == 1
    assert "UnknownMessage" in result.stdout


@pytest.mark.slow
def test_lenient_reads_are_typed_as_lenient(tmp_path: Path) -> None:
    source = (
        "import convtypes as ct\n"
        "from typing_extensions import assert_never\n"
        "def show(data: bytes) -> None:\n"
        "    for message in ct.decode_messages(data, lenient=True):\n"
        "        match message:\n"
        "            case ct.SystemMessage() | ct.UserMessage() | ct.UserMultimodalMessage():\n"
        "                pass\n"
        "            case ct.AssistantMessage() | ct.ToolResultMessage():\n"
        "                pass\n"
        "            case ct.ProviderOutputItemsMessage():\n"
        "                pass\n"
        "            case _:\n"
        "                assert_never(message)\n"
    )
    calls = (
        "ct.decode_messages(data, lenient=True)",
        "ct.iter_jsonl(data.decode(), lenient=True)",
        "ct.load_transcript(data.decode(), lenient=True)",
    )
    for call in calls:
        result = _mypy(tmp_path, source.replace("ct.decode_messages(data, lenient=True)", call))
        assert result.returncode == 1, call
        assert "UnknownMessage" in result.stdout
    strict = source.replace("lenient=True", "lenient=False")
    assert _mypy(tmp_path, strict).returncode == 0
