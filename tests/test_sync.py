"""convtypes.sync: ops, what they fold into, and what Tree.append refuses."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import msgspec
import pytest
import rfc8785

import convtypes as ct
from convtypes.sync import (
    MAX_CLOCK,
    AddMessages,
    BranchError,
    Tree,
    UnknownOp,
    decode_op,
    encode_op,
    fold,
    op_id,
    read_ops,
)

USER = ct.UserMessage(content="Weather in Oslo?")
CALL = ct.AssistantMessage(tool_calls=(ct.ToolCall(id="c1", name="weather", arguments={}),))
RESULT = ct.ToolResultMessage(tool_use_id="c1", content="Rain")
ANSWER = ct.AssistantMessage(content="Rain, 4 C")


def add(clock: int, device: str, after: str | None, *messages: ct.Message) -> AddMessages:
    return AddMessages(
        id=op_id(clock, device), device=device, clock=clock, after=after, messages=messages
    )


# ------------------------------------------------------------------ the op


def test_an_op_writes_no_defaults_and_reads_back_equal() -> None:
    first = add(1, "phone", None, USER)
    assert encode_op(first) == (
        b'{"op":"add","id":"1@phone","device":"phone","clock":1,'
        b'"messages":[{"role":"user","content":"Weather in Oslo?"}]}'
    )
    second = add(2, "laptop", "1@phone", CALL)
    assert b'"after":"1@phone"' in encode_op(second)
    for op in (first, second):
        assert decode_op(encode_op(op)) == op
        assert pickle.loads(pickle.dumps(op)) == op


def test_a_reply_is_one_op() -> None:
    items = ct.ProviderOutputItemsMessage(
        protocol="openai-responses", items=[{"type": "reasoning", "id": "rs_1"}]
    )
    op = add(2, "phone", "1@phone", items, ANSWER)
    assert decode_op(encode_op(op)).messages == (items, ANSWER)  # type: ignore[union-attr]


def test_op_id_is_clock_at_device_whatever_the_device_holds() -> None:
    assert op_id(12, "a@b c") == "12@a@b c"
    assert add(12, "a@b c", None, USER).id == "12@a@b c"


@pytest.mark.parametrize(
    ("fields", "path", "reason"),
    [
        ({"id": "2@a"}, "$.id", "expected the id 1@a, got '2@a'"),
        ({"after": "1@a"}, "$.after", "expected an op to follow another node, not itself"),
        ({"device": "", "id": "1@"}, "$.device", "expected a device name that is not empty"),
        ({"clock": 0, "id": "0@a"}, "$.clock", f"expected a clock in 1..{MAX_CLOCK}, got 0"),
        ({"clock": True}, "$.clock", "expected int, got bool"),
        ({"clock": MAX_CLOCK + 1}, "$.clock", f"expected a clock in 1..{MAX_CLOCK}"),
        ({"messages": []}, "$.messages", "expected at least one message"),
        ({"messages": [USER, {"role": "user"}]}, "$.messages[1]", "expected a message, got dict"),
        ({"messages": USER}, "$.messages", "expected a list or tuple of messages"),
        ({"id": 3}, "$.id", "expected str, got int"),
    ],
)
def test_building_a_bad_op_names_the_field(fields: dict[str, Any], path: str, reason: str) -> None:
    given: dict[str, Any] = {"id": "1@a", "device": "a", "clock": 1, "messages": [USER]}
    given.update(fields)
    with pytest.raises(ct.WireError) as caught:
        AddMessages(**given)
    assert caught.value.path == path
    assert caught.value.reason.startswith(reason)


BASE: dict[str, Any] = {
    "op": "add",
    "id": "1@a",
    "device": "a",
    "clock": 1,
    "messages": [{"role": "user", "content": "x"}],
}
DROP = object()


def line(**changes: Any) -> bytes:
    """An op's line: BASE with ``changes`` (``DROP`` leaves a field out)."""
    doc = {key: value for key, value in {**BASE, **changes}.items() if value is not DROP}
    return json.dumps(doc, separators=(",", ":")).encode()


@pytest.mark.parametrize(
    ("data", "path", "reason"),
    [
        (line(id="2@a"), "$.id", "expected the id 1@a"),
        (line(messages=[]), "$.messages", "expected at least one message"),
        (line(clock="1"), "$.clock", "expected int, got str"),
        (line(clock=0, id="0@a"), "$.clock", "expected a clock in 1.."),
        (line(device="", id="1@"), "$.device", "expected a device name"),
        (line(messages=[{"role": "user", "content": 3}]), "$.messages[0].content", "expected str"),
        (line(messages=DROP), "$", "missing required field 'messages'"),
        (line(id=DROP), "$", "missing required field 'id'"),
        (line(op=DROP), "$", "missing required field 'op'"),
        (line(op=3), "$.op", "expected str, got int"),
        (b"[1]", "$", "expected object, got array"),
        (b'{"op":"add","id":"1@a"', "$.id", "expected more JSON"),
        (line(after="1@a"), "$.after", "expected an op to follow"),
        (line(after=7), "$.after", "expected str | null, got int"),
        # In a field the op keeps as it is (unknown), or in an op of an
        # unknown kind: still the library's error, at the place.
        (line(z="")[:-2] + b'\xff"}', "$.z", "expected UTF-8 text"),
        (b'{"op":"later","z":"\xff"}', "$.z", "expected UTF-8 text"),
        (line(z=0)[:-2] + b"1e400}", "$.z", "expected a number within the range"),
        (b'{"op":"later","z":1e400}', "$.z", "expected a number within the range"),
    ],
)
def test_reading_a_bad_op_names_the_place(data: bytes, path: str, reason: str) -> None:
    with pytest.raises(ct.WireError) as caught:
        decode_op(data)
    assert caught.value.path == path
    assert caught.value.reason.startswith(reason), caught.value.reason


@pytest.mark.parametrize("data", [5, None, [1], {"op": "add"}])
def test_decode_op_refuses_what_is_not_bytes_or_text(data: Any) -> None:
    with pytest.raises(TypeError, match="decode_op reads bytes, bytearray, memoryview or str"):
        decode_op(data)


def test_a_bad_line_in_a_log_is_a_wire_error_at_its_place(tmp_path: Path) -> None:
    log = tmp_path / "ops.jsonl"
    log.write_bytes(line() + b"\n" + line(id="1@b", device="b")[:-1] + b',"z":"\xff"}\n')
    with pytest.raises(ct.WireError) as caught:
        read_ops(log)
    assert (caught.value.line, caught.value.path) == (2, "$.z")
    assert caught.value.reason.startswith("expected UTF-8 text")


def test_an_op_nested_too_deep_is_refused_before_anything_recurses() -> None:
    deep = b"[" * 200 + b"]" * 200
    line = b'{"op":"later","x":' + deep + b"}"
    with pytest.raises(ct.WireError) as caught:
        decode_op(line)
    assert caught.value.reason.startswith("expected JSON nested at most")
    assert caught.value.path.startswith("$.x[0]")


def test_a_newer_writers_op_is_kept_and_written_back_byte_for_byte() -> None:
    line = (
        b'{"op":"add","id":"3@tablet","device":"tablet","clock":3,"after":"2@phone",'
        b'"messages":[{"role":"developer","content":"be brief"},'
        b'{"role":"user","content":"hi","lang":"nb"}],"signature":{"alg":"ed25519","v":[1,2]}}'
    )
    op = decode_op(line)
    assert isinstance(op, AddMessages)
    assert ct.unknown_fields(op) == {"signature": {"alg": "ed25519", "v": [1, 2]}}
    assert isinstance(op.messages[0], ct.UnknownMessage)
    assert ct.unknown_fields(op.messages[1]) == {"lang": "nb"}
    assert encode_op(op) == line
    assert pickle.loads(pickle.dumps(op)) == op
    unknown = b'{"op":"pin","node":"2@phone","by":"tablet"}'
    kind = decode_op(unknown)
    assert isinstance(kind, UnknownOp) and kind.op == "pin"
    assert encode_op(kind) == unknown


def test_unknown_op_refuses_a_kind_this_version_knows() -> None:
    with pytest.raises(ct.WireError) as caught:
        UnknownOp(op="add", raw=b'{"op":"add"}')
    assert caught.value.path == "$.op"


def test_encode_op_refuses_what_is_not_an_op_and_names_a_lone_surrogate() -> None:
    with pytest.raises(TypeError):
        encode_op(USER)  # type: ignore[arg-type]
    op = add(1, "a", None, ct.AssistantMessage(tool_calls=(ct.ToolCall(name="t", arguments={}),)))
    op.messages[0].tool_calls[0].arguments["q"] = "\ud800"  # type: ignore[union-attr]
    with pytest.raises(ct.WireError) as caught:
        encode_op(op)
    assert caught.value.path == "$.messages[0].tool_calls[0].arguments.q"


def test_the_schema_of_a_message_inside_an_op_is_the_transcripts() -> None:
    # The fast decoder and the careful one give the same op.
    line = encode_op(add(1, "a", None, USER, CALL, RESULT, ANSWER))
    spaced = line.replace(b'"op":"add",', b'"op" : "add" , "later":1,')
    fast, careful = decode_op(line), decode_op(spaced)
    assert isinstance(fast, AddMessages) and isinstance(careful, AddMessages)
    assert fast.messages == careful.messages
    assert msgspec.structs.asdict(fast) == msgspec.structs.asdict(careful)


# ------------------------------------------------------------------ the tree


def conversation() -> tuple[Tree, list[AddMessages]]:
    tree = Tree()
    first = tree.append([ct.SystemMessage(content="Be terse."), USER], after=None, device="phone")
    call = tree.append([CALL], after=first.id, device="phone")
    answer = tree.append([RESULT, ANSWER], after=call.id, device="phone")
    return tree, [first, call, answer]


def test_append_picks_lamport_clocks_and_makes_the_head() -> None:
    tree, ops = conversation()
    assert [op.clock for op in ops] == [1, 2, 3]
    assert [op.id for op in ops] == ["1@phone", "2@phone", "3@phone"]
    assert tree.heads() == ["3@phone"] and tree.head == "3@phone"
    assert tree.transcript() == [ct.SystemMessage(content="Be terse."), USER, CALL, RESULT, ANSWER]
    assert tree.transcript("2@phone")[-1] == CALL
    assert len(tree) == 3 and "2@phone" in tree and "9@phone" not in tree
    assert tree.node("2@phone") == ops[1]


def test_regenerate_is_a_sibling_and_the_latest_write_is_the_head() -> None:
    tree, ops = conversation()
    again = tree.append([ct.AssistantMessage(content="Wet.")], after=ops[0].id, device="laptop")
    assert tree.heads() == [again.id, ops[2].id]
    assert tree.head == again.id == "4@laptop"
    assert tree.transcript()[-1] == ct.AssistantMessage(content="Wet.")
    assert tree.transcript(ops[2].id)[-1] == ANSWER


def test_a_tie_in_clocks_goes_to_the_device_that_sorts_last() -> None:
    root = add(1, "a", None, USER)
    ops = [root, *(add(2, device, root.id, ANSWER) for device in ("b", "c", "Z"))]
    for order in (ops, ops[::-1], [ops[2], ops[0], ops[3], ops[1]]):
        tree = fold(order)
        assert tree.heads() == ["2@c", "2@b", "2@Z"]
        assert tree.head == "2@c"


def test_an_op_waits_for_the_node_it_follows() -> None:
    _, ops = conversation()
    tree = fold([ops[2], ops[1]])
    assert tree.heads() == [] and tree.head is None and tree.transcript() == []
    assert tree.waiting == [ops[1], ops[2]]
    with pytest.raises(BranchError) as caught:
        tree.transcript(ops[2].id)
    assert caught.value.code == "waiting-node"
    assert tree.apply(ops[0]) is True
    assert tree.waiting == [] and tree.heads() == [ops[2].id]


def test_a_long_chain_that_arrives_backwards_joins_without_recursion() -> None:
    ops = [add(1, "a", None, USER)]
    for clock in range(2, 5002):
        ops.append(add(clock, "a", ops[-1].id, ANSWER))
    tree = fold(reversed(ops))
    assert tree.heads() == ["5001@a"] and len(tree.transcript()) == 5001


def test_apply_is_idempotent() -> None:
    _, ops = conversation()
    tree = fold(ops)
    assert [tree.apply(op) for op in ops] == [False, False, False]
    assert tree.apply(decode_op(encode_op(ops[1]))) is False
    assert tree.ops() == ops


def test_two_ops_with_one_id_the_smaller_json_wins_in_any_order() -> None:
    root = add(1, "a", None, USER)
    one = add(2, "b", root.id, ct.AssistantMessage(content="one"))
    other = add(2, "b", root.id, ct.AssistantMessage(content="two"))
    winner = min((one, other), key=encode_op)
    loser = other if winner is one else one
    child = add(3, "a", one.id, USER)
    for order in ([root, one, other, child], [child, other, root, one], [other, child, one, root]):
        tree = fold(order)
        assert tree.node("2@b") == winner
        assert tree.conflicts == [loser]
        assert tree.heads() == ["3@a"]
        assert tree.ops() == [root, winner, loser, child]


def test_of_two_ops_with_one_id_every_language_picks_the_same() -> None:
    # The rule must not hang on how convtypes happens to write JSON: the
    # winner is the op whose RFC 8785 bytes (here from the rfc8785 package,
    # as a program in another language would make them) sort first.
    root = add(1, "a", None, USER)

    def call(arguments: dict[str, Any]) -> AddMessages:
        tool = ct.ToolCall(id="c1", name="f", arguments=arguments)
        return add(2, "b", root.id, ct.AssistantMessage(tool_calls=(tool,)))

    one, other = call({"z": 1, "a": 0}), call({"b": 0})
    by_rfc8785 = min((one, other), key=lambda op: rfc8785.dumps(json.loads(encode_op(op))))
    assert by_rfc8785 is one and min((one, other), key=encode_op) is other
    for order in ([root, one, other], [other, one, root]):
        tree = fold(order)
        assert tree.node("2@b") == one and tree.conflicts == [other]


def test_one_op_in_two_spellings_folds_to_the_same_bytes_in_any_order() -> None:
    # A device in another language relays an op: its map reorders the
    # arguments and writes 1.0 for 1. The op is equal (one address), but
    # its bytes differ; the tree must not keep whichever came first.
    ours = decode_op(
        b'{"op":"add","id":"1@a","device":"a","clock":1,"messages":[{"role":"assistant",'
        b'"content":"","tool_calls":[{"id":"c","name":"f","arguments":{"x":1,"y":2}}]}]}'
    )
    relayed = decode_op(
        b'{"messages":[{"tool_calls":[{"arguments":{"y":2,"x":1.0},"name":"f","id":"c"}],'
        b'"content":"","role":"assistant"}],"clock":1,"device":"a","id":"1@a","op":"add"}'
    )
    assert ours == relayed and encode_op(ours) != encode_op(relayed)
    first, second = fold([ours, relayed]), fold([relayed, ours])
    assert ct.encode(first.transcript()) == ct.encode(second.transcript())
    assert encode_op(first.node("1@a")) == encode_op(second.node("1@a"))
    assert first.conflicts == second.conflicts == []
    assert [encode_op(op) for op in first.ops()] == [encode_op(op) for op in second.ops()]


def test_unknown_op_kinds_are_kept_and_reported_not_applied() -> None:
    _, ops = conversation()
    pin = UnknownOp(op="pin", raw=b'{"op":"pin","node":"1@phone"}')
    tree = fold([pin, *ops, pin])
    assert tree.unknown == [pin]
    assert tree.heads() == [ops[2].id]
    assert tree.ops() == [*ops, pin]


def test_apply_refuses_what_is_not_an_op() -> None:
    with pytest.raises(TypeError):
        Tree().apply(USER)  # type: ignore[arg-type]


def test_several_roots_are_several_branches() -> None:
    one, two = add(1, "a", None, USER), add(1, "b", None, ct.UserMessage(content="other"))
    tree = fold([one, two])
    assert tree.heads() == ["1@b", "1@a"]
    assert tree.transcript("1@a") == [USER]


# ------------------------------------------------------------------ what append refuses


def test_append_refuses_a_user_turn_while_a_call_is_open() -> None:
    tree, ops = conversation()
    with pytest.raises(BranchError) as caught:
        tree.append([USER], after=ops[1].id, device="phone")
    assert isinstance(caught.value, ValueError)
    assert caught.value.code == "unanswered-call"
    assert [p.index for p in caught.value.problems] == [2]
    assert "'c1' (weather)" in str(caught.value)
    assert len(tree) == 3  # nothing was applied


def test_append_accepts_what_answers_the_open_calls_first() -> None:
    tree, ops = conversation()
    op = tree.append([RESULT, USER], after=ops[1].id, device="phone")
    assert tree.transcript(op.id)[-2:] == [RESULT, USER]


def test_a_reply_with_open_calls_is_the_normal_state_of_a_tool_loop() -> None:
    tree = Tree()
    first = tree.append([USER], after=None, device="a")
    call = tree.append([CALL], after=first.id, device="a")
    again = tree.append([CALL], after=first.id, device="b")  # a regenerate, also open
    result = tree.append([RESULT], after=call.id, device="a")
    answer = tree.append([ANSWER], after=result.id, device="a")
    tree.append([USER], after=answer.id, device="a")
    assert again.id in tree


def test_append_refuses_a_result_that_answers_nothing_on_the_branch() -> None:
    tree, ops = conversation()
    # c1 was called on another branch only: from the first node it answers nothing.
    with pytest.raises(BranchError) as caught:
        tree.append([RESULT], after=ops[0].id, device="phone")
    assert caught.value.code == "unknown-call"
    assert caught.value.problems[0].index == 2


def test_problems_a_branch_already_had_do_not_block_it() -> None:
    # A writer that did not check sent a user turn over an open call.
    bad = fold([add(1, "x", None, USER, CALL, USER)])
    op = bad.append([ct.UserMessage(content="again")], after="1@x", device="a")
    assert bad.head == op.id
    # A new problem on such a branch is still refused: c1's turn is over.
    with pytest.raises(BranchError) as caught:
        bad.append([RESULT], after=op.id, device="a")
    assert caught.value.code == "unknown-call"


@pytest.mark.parametrize(
    ("after", "code"), [("9@nobody", "unknown-node"), ("2@phone", "waiting-node")]
)
def test_append_names_a_node_it_cannot_follow(after: str, code: str) -> None:
    _, ops = conversation()
    tree = fold([ops[1]])
    tree.apply(add(5, "zz", None, USER))
    with pytest.raises(BranchError) as caught:
        tree.append([ANSWER], after=after, device="a")
    assert caught.value.code == code
    assert pickle.loads(pickle.dumps(caught.value)).code == code


def test_append_refuses_no_messages_and_what_is_not_a_message() -> None:
    tree = Tree()
    with pytest.raises(BranchError) as caught:
        tree.append([], after=None, device="a")
    assert caught.value.code == "no-messages"
    with pytest.raises(TypeError):
        tree.append(["hi"], after=None, device="a")  # type: ignore[list-item]
    with pytest.raises(TypeError):
        tree.append(USER, after=None, device="a")  # type: ignore[arg-type]
    with pytest.raises(ct.WireError) as wire:
        tree.append([USER], after=None, device="")
    assert wire.value.path == "$.device"


def test_append_refuses_when_no_clock_is_left() -> None:
    tree = fold([add(MAX_CLOCK, "a", None, USER)])
    with pytest.raises(BranchError) as caught:
        tree.append([ANSWER], after=f"{MAX_CLOCK}@a", device="a")
    assert caught.value.code == "clock-exhausted"


def test_an_offline_device_writes_below_the_others_and_merges() -> None:
    shared, ops = conversation()
    offline = fold(ops[:1])
    late = offline.append([ct.AssistantMessage(content="offline")], after=ops[0].id, device="tab")
    assert late.clock == 2
    merged = fold([*ops, late])
    assert merged.head == ops[2].id  # the latest write is still the head
    assert set(merged.heads()) == {ops[2].id, late.id}
    shared.apply(late)
    assert shared.heads() == merged.heads()
