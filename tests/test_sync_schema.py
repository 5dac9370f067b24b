"""The op format's JSON Schema: generated from the types, checked in, and a gate on changes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]
import pytest

import convtypes as ct
from convtypes.sync import AddMessages, Tree, UnknownOp, decode_op, encode_op
from convtypes.sync._schema import ops_schema_text

ROOT = Path(__file__).parent.parent
CHECKED_IN = ROOT / "schema" / "ops.schema.json"


def test_the_op_schema_matches_the_checked_in_file() -> None:
    assert ops_schema_text() == CHECKED_IN.read_text("utf-8"), (
        "The op format changed. If that is intended, run "
        "`convtypes schema --ops > schema/ops.schema.json`, update docs/sync.md and record "
        "the wire change in CHANGELOG.md: every reader of op logs, in any language, sees it."
    )
    done = subprocess.run(
        [sys.executable, "-m", "convtypes", "schema", "--ops"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == CHECKED_IN.read_text("utf-8")


def _ops() -> list[bytes]:
    tree = Tree()
    first = tree.append(
        [ct.SystemMessage(content="Be terse."), ct.UserMessage(content="Weather?")],
        after=None,
        device="phone",
    )
    call = ct.ToolCall(id="c1", name="weather", arguments={"city": "Oslo", "deep": [[{}]]})
    reply = tree.append(
        [
            ct.ProviderOutputItemsMessage(
                protocol="openai-responses", items=[{"type": "function_call", "id": "fc_1"}]
            ),
            ct.AssistantMessage(tool_calls=(call,)),
        ],
        after=first.id,
        device="laptop",
    )
    result = tree.append(
        [ct.ToolResultMessage(tool_use_id="c1", content="Rain", provenance="external")],
        after=reply.id,
        device="laptop",
    )
    return [encode_op(op) for op in (first, reply, result)]


def test_ops_validate_and_broken_ones_do_not() -> None:
    schema = json.loads(CHECKED_IN.read_text("utf-8"))
    for line in _ops():
        jsonschema.validate(json.loads(line), schema)
    newer = {"op": "pin", "node": "1@phone"}
    jsonschema.validate(newer, schema)
    assert UnknownOp(op="pin", raw=json.dumps(newer).encode()).op == "pin"
    good = json.loads(_ops()[0])
    changes: tuple[dict[str, object], ...] = (
        {"clock": 0},
        {"device": ""},
        {"id": "phone"},
        {"messages": []},
        {"after": 3},
        {"messages": [{"role": "user", "content": 5}]},
    )
    for change in changes:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**good, **change}, schema)
    missing = {key: value for key, value in good.items() if key != "messages"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(missing, schema)


def test_the_schema_names_every_field_of_an_op() -> None:
    schema = json.loads(CHECKED_IN.read_text("utf-8"))
    fields = set(schema["$defs"]["AddMessages"]["properties"])
    assert fields == {"op", *AddMessages.__struct_fields__}
    assert schema["$defs"]["AddMessages"]["required"] == ["op", "id", "device", "clock", "messages"]


def test_the_spec_pages_example_op_reads_and_writes_back_byte_for_byte() -> None:
    page = (ROOT / "docs" / "sync.md").read_text("utf-8")
    blocks = re.findall(r"```json\n(.*?)\n```", page, re.DOTALL)
    assert blocks
    schema = json.loads(CHECKED_IN.read_text("utf-8"))
    for block in blocks:
        line = block.encode("utf-8")
        jsonschema.validate(json.loads(line), schema)
        assert encode_op(decode_op(line)) == line
