"""One identity for a message: canonical bytes, addresses, and == that agrees with them.

The canonical form is held to an independent RFC 8785 implementation (the
rfc8785 package, see jcs_reference.py) on the golden corpus, on generated
values and on hand-made cases, RFC 8785's own examples among them; the
addresses to the test vectors of docs/identity.md.
"""

from __future__ import annotations

import hashlib
import json
import random
import struct
from collections.abc import Callable
from typing import Any

import identity_vectors
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from jcs_reference import reference_bytes, reference_of_wire

import convtypes as ct
from convtypes import strategies as cst
from convtypes._canonical import canonical_json, es_number
from convtypes._messages import MESSAGE_TYPES
from convtypes._value import known_tags, rebuild
from convtypes.dialects import PendingCall, Reply, ToolSpec, Usage

from golden_cases import load

# --- the canonical form against an independent implementation --------------------

_GOLDEN = [
    case
    for case in load()
    if case.ok
    and case.op in ("message", "messages", "tool_call", "thinking_block", "content_block")
]
_READERS: dict[str, Any] = {
    "tool_call": ct.ToolCall,
    "thinking_block": ct.ThinkingBlock,
    "content_block": ct.ContentBlock,
}


def test_the_golden_corpus_has_cases_of_every_kind() -> None:
    assert {case.op for case in _GOLDEN} == {
        "message",
        "messages",
        "tool_call",
        "thinking_block",
        "content_block",
    }


@pytest.mark.parametrize("case", _GOLDEN, ids=[case.id for case in _GOLDEN])
def test_canonical_equals_rfc8785_on_the_golden_corpus(case: Any) -> None:
    data = case.doc.encode("utf-8")
    if case.op == "messages":
        values: list[Any] = list(ct.decode_messages(data, lenient=True))
    elif case.op == "message":
        values = [ct.decode_message(data, lenient=True)]
    else:
        values = [ct.decode(data, _READERS[case.op])]
    for value in values:
        expected = reference_of_wire(ct.encode(value))
        assert ct.canonical(value) == expected
        assert ct.address(value) == "sha256:" + hashlib.sha256(expected).hexdigest()


_VALUES = st.one_of(
    cst.messages(),
    cst.unknown_messages(),
    cst.tool_calls(),
    cst.thinking_blocks(),
    cst.content_blocks(),
    cst.unknown_blocks(),
)


@given(_VALUES)
def test_canonical_equals_rfc8785_on_generated_values(value: Any) -> None:
    assert ct.canonical(value) == reference_of_wire(ct.encode(value))


@given(cst.json_values())
def test_canonical_json_equals_rfc8785(value: Any) -> None:
    assert canonical_json(value) == reference_bytes(json.loads(json.dumps(value)))


# RFC 8785, Appendix B: IEEE 754 doubles (as hex) and how they are written.
_APPENDIX_B = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]


@pytest.mark.parametrize(("bits", "written"), _APPENDIX_B)
def test_doubles_are_written_as_rfc8785_appendix_b_writes_them(bits: str, written: str) -> None:
    value = struct.unpack(">d", bytes.fromhex(bits))[0]
    assert es_number(value) == written
    assert reference_bytes(value) == written.encode()
    call = ct.ToolCall(name="f", arguments={"x": value})
    assert ct.canonical(call) == b'{"arguments":{"x":%s},"name":"f"}' % written.encode()


def test_rfc8785_examples_of_its_section_3_2_2_and_3_2_3() -> None:
    # The input of section 3.2.2, as its text spells it, and the output it gives.
    spelled = (
        '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],'
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
        '"literals":[null,true,false]}'
    )
    expected = (
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    ).encode()
    call = ct.decode(b'{"name":"f","arguments":%s}' % spelled.encode(), ct.ToolCall)
    assert ct.canonical(call) == b'{"arguments":%s,"name":"f"}' % expected
    assert reference_of_wire(spelled.encode()) == expected
    # Section 3.2.3: keys sorted by UTF-16 code units.
    keys = ["\u20ac", "\r", "\ufb33", "1", "\U0001f600", "\u0080", "\u00f6"]
    call = ct.ToolCall(name="f", arguments={key: 0 for key in keys})
    order = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]
    written = ",".join(json.dumps(key, ensure_ascii=False) + ":0" for key in order)
    assert ct.canonical(call) == f'{{"arguments":{{{written}}},"name":"f"}}'.encode()


_HAND_MADE: list[Any] = [
    0,
    -0.0,
    1.0,
    100.0,
    1e21,
    1e-7,
    1e-6,
    0.1,
    2**53 - 1,
    -(2**53) + 1,
    2**53,
    2**53 + 1,
    2**64,
    -(10**30),
    10**21,
    float(2**60),
    1152921504606847000,
    '\u2028\u2029\x7f\x00\x1f"\\/',
    "\U0001f600\ue000",
    {"\U0001f600": 1, "\ue000": 2, "\uffff": 3, "\U00010000": 4, "a": 5},
    {"b": {"\U0001f600": [1.5, {"\ue000": True}], "a": None}},
    [True, False, None, 1, 1.0, "1"],
]


@pytest.mark.parametrize("value", _HAND_MADE, ids=repr)
def test_hand_made_numbers_and_strings(value: Any) -> None:
    assert canonical_json(value) == reference_bytes(value)
    call = ct.ToolCall(name="f", arguments={"x": value})
    assert ct.canonical(call) == b'{"arguments":{"x":%s},"name":"f"}' % reference_bytes(value)


def test_integers_keep_their_digits_where_rfc8785_cannot_write_them() -> None:
    for number in (2**53 + 1, 2**64, -(10**30), 10**21):
        call = ct.ToolCall(name="f", arguments={"id": number})
        assert b'"id":%d' % number in ct.canonical(call)
    # Two integers never share an address, however close.
    near = [ct.ToolCall(name="f", arguments={"id": 2**60 + n}) for n in range(4)]
    assert len({ct.address(call) for call in near}) == 4


def test_a_number_beyond_the_doubles_is_refused_with_its_place() -> None:
    with pytest.raises(ct.WireError) as caught:
        ct.decode_message(_wire_call(b'{"x":[1e400]}'))
    assert caught.value.path == "$.tool_calls[0].arguments.x[0]"


def _wire_call(arguments: bytes) -> bytes:
    return b'{"role":"assistant","content":"","tool_calls":[{"name":"f","arguments":%s}]}' % (
        arguments
    )


def test_json_changed_in_place_is_refused_with_its_place() -> None:
    # What encode refuses, canonical refuses, naming the place.
    values: list[Any] = [1]
    call = ct.ToolCall(name="f", arguments={"a": values})
    for spoiled in (object(), "\ud800"):
        values.append(spoiled)
        with pytest.raises(ct.WireError):
            ct.encode(call)
        with pytest.raises(ct.WireError) as caught:
            ct.canonical(call)
        assert caught.value.path == "$.arguments.a[1]"
        with pytest.raises(ct.WireError):
            ct.address(ct.AssistantMessage(tool_calls=(call,)))
        values.pop()


def test_canonical_and_address_refuse_what_they_do_not_take() -> None:
    with pytest.raises(TypeError, match="canonical takes"):
        ct.canonical([ct.UserMessage(content="x")])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="canonical takes"):
        ct.canonical({"role": "user"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="item 1 is a dict"):
        ct.address([ct.UserMessage(content="x"), {"role": "user"}])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="after= continues a transcript"):
        ct.address(ct.UserMessage(content="x"), after=ct.address([]))
    for after in ("sha256:" + "A" * 64, "sha256:abc", "md5:" + "0" * 64, 7):
        with pytest.raises(ct.WireError) as caught:
            ct.address([], after=after)  # type: ignore[arg-type]
        assert caught.value.path == "$.after"


# --- the test vectors --------------------------------------------------------------

_VECTORS = [json.loads(line) for line in identity_vectors.FILE.read_text("utf-8").splitlines()]


def test_the_vectors_file_is_what_its_script_writes() -> None:
    assert identity_vectors.FILE.read_text("utf-8") == identity_vectors.text()


def test_the_vectors_cover_every_message_and_block_type() -> None:
    roles, types = set(), set()
    for vector in _VECTORS:
        for wire in vector.get("transcript", [vector.get("wire")]):
            document = json.loads(wire)
            roles.add(document["role"])
            if document["role"] == "user_multimodal":
                types |= {block["type"] for block in document["content"]}
    assert roles >= set(known_tags("role")) | {"critic"}
    assert types >= set(known_tags("type")) | {"hologram"}


@pytest.mark.parametrize(
    "vector", [v for v in _VECTORS if "wire" in v], ids=lambda v: str(v["name"])
)
def test_each_vector_against_convtypes_and_rfc8785(vector: dict[str, Any]) -> None:
    canonical = vector["canonical"].encode("utf-8")
    assert vector["address"] == "sha256:" + hashlib.sha256(canonical).hexdigest()
    message = ct.decode_message(vector["wire"], lenient=True)
    assert ct.canonical(message) == canonical
    assert ct.address(message) == vector["address"]
    # Another implementation, reading the writer's bytes (each wire holds
    # every field convtypes writes, or its wire form is written by hand),
    # gives the same.
    wire = _WIRE_FORMS.get(vector["name"], vector["wire"])
    assert reference_of_wire(wire.encode("utf-8")) == canonical


_WIRE_FORMS = {name: form for name, _, form in identity_vectors.WIRE_FORM}


def test_the_vectors_hold_each_rule_of_the_wire_form() -> None:
    # Step 1 of the spec, as another language meets it: a wire whose bytes,
    # canonicalised as they are, are not the canonical form. Each rule of
    # the spec's table has a vector.
    by_name = {vector["name"]: vector for vector in _VECTORS}
    changed = [
        name
        for name in _WIRE_FORMS
        if reference_of_wire(by_name[name]["wire"].encode("utf-8"))
        != by_name[name]["canonical"].encode("utf-8")
    ]
    text = " ".join(changed)
    for rule in ("assistant", "null ids", "thinking text", "internal provenance", "detail"):
        assert rule in text
    for rule in ("null media numbers", "32-bit float", "a key given twice"):
        assert rule in " ".join(_WIRE_FORMS)


@pytest.mark.parametrize(
    "vector", [v for v in _VECTORS if "transcript" in v], ids=lambda v: str(v["name"])
)
def test_each_transcript_vector(vector: dict[str, Any]) -> None:
    messages = [ct.decode_message(wire, lenient=True) for wire in vector["transcript"]]
    chain = [hashlib.sha256(b"").hexdigest()]
    for message in messages:
        step = f"sha256:{chain[-1]}{ct.address(message)}".encode("ascii")
        chain.append(hashlib.sha256(step).hexdigest())
    assert vector["addresses"] == ["sha256:" + digest for digest in chain]
    assert ct.address(messages) == vector["addresses"][-1]
    for end in range(len(messages)):
        before = ct.address(messages[:end])
        assert ct.address(messages[end:], after=before) == vector["addresses"][-1]


def test_the_vectors_show_the_cases_the_spec_names() -> None:
    by_name = {vector["name"]: vector for vector in _VECTORS}
    same = [
        ("user", "user, keys in another order"),
        ("user", "user, white space and escapes"),
        ("user, non-ASCII text", "user, the same text escaped"),
        ("numbers: 1", "numbers: 1.0 is the number 1"),
        (
            "assistant, multi-key arguments in a HashMap's order",
            "assistant, the same arguments in another order",
        ),
    ]
    for first, second in same:
        assert by_name[first]["address"] == by_name[second]["address"]
    assert by_name["numbers: 1"]["address"] != by_name["numbers: true is not 1"]["address"]
    assert (
        by_name["numbers: 10**21 as an integer"]["address"]
        != by_name["numbers: 1e21 as a double"]["address"]
    )
    unicode_keys = by_name["keys: sorted by UTF-16 code units, not by code point"]["canonical"]
    assert unicode_keys.index("\U0001f600") < unicode_keys.index("\ue000")


# --- other writers' bytes ----------------------------------------------------------


def _respell(value: Any, rng: random.Random, in_json: bool) -> str:
    """``value`` written as another writer might: keys in any order, spaces, escapes, numbers."""
    space = rng.choice(["", " ", "\n  ", "\t"])
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        inner = [
            f"{space}{_string(key, rng)}{space}:{space}"
            f"{_respell(item, rng, in_json or key in ('arguments', 'items'))}"
            for key, item in items
        ]
        return "{" + ",".join(inner) + space + "}"
    if isinstance(value, list):
        return "[" + ",".join(space + _respell(item, rng, in_json) for item in value) + space + "]"
    if isinstance(value, str):
        return _string(value, rng)
    if type(value) is int and in_json and abs(value) <= 2**53:
        spellings = [str(value), f"{value}.0", f"{value}e0", f"{value}0E-1", f"{value}.00"]
        if value and value % 10 == 0:  # 100 as 1e2
            digits = str(value).rstrip("0")
            spellings.append(f"{digits}e{len(str(value)) - len(digits)}")
        return rng.choice(spellings)
    if type(value) is float and in_json:
        # Any spelling with a fraction or an exponent that reads as the same
        # double (without either it would be an integer: another number).
        return rng.choice([repr(value), f"{value:.17e}", f"{value:.17E}"])
    return json.dumps(value)


def _string(text: str, rng: random.Random) -> str:
    out = []
    for char in text:
        if rng.random() < 0.3 or char in '"\\' or ord(char) < 0x20:
            code = ord(char)
            if code > 0xFFFF:
                high, low = divmod(code - 0x10000, 0x400)
                out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04X}")
            else:
                out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


@given(st.one_of(cst.messages(), cst.unknown_messages()), st.randoms(use_true_random=False))
def test_the_address_is_the_same_from_every_writer(message: Any, rng: random.Random) -> None:
    document = json.loads(ct.encode(message))
    spelled = _respell(document, rng, in_json=type(message) is ct.UnknownMessage)
    again = ct.decode_message(spelled, lenient=True)
    assert ct.address(again) == ct.address(message)
    assert again == message and hash(again) == hash(message)


def _leaves(value: Any, where: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in _leaves(item, (*where, key))]
    if isinstance(value, list):
        return [leaf for index, item in enumerate(value) for leaf in _leaves(item, (*where, index))]
    return [where]


def _changed(value: Any) -> Any:
    if value is True or value is False:
        return int(value)  # true is not 1
    if value is None:
        return False
    if isinstance(value, (int, float)):
        return value + 1 if abs(value) < 2**52 else -value if value else 1
    return value + "\u00e9"


_TAGS = {"role", "type", "provenance", "fps", "max_frames", "sample_rate"}


@given(st.one_of(cst.messages(), cst.unknown_messages()), st.randoms(use_true_random=False))
def test_the_address_changes_whenever_the_wire_value_does(message: Any, rng: random.Random) -> None:
    document = json.loads(ct.encode(message))
    leaves = [w for w in _leaves(document) if w and not (len(w) <= 3 and w[-1] in _TAGS)]
    if not leaves:
        return
    where = rng.choice(leaves)
    node = document
    for step in where[:-1]:
        node = node[step]
    node[where[-1]] = _changed(node[where[-1]])
    other = ct.decode_message(json.dumps(document), lenient=True)
    assert ct.address(other) != ct.address(message)
    assert other != message


# --- equality agrees with the address ----------------------------------------------


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    first: Any = draw(_VALUES)
    how = draw(st.sampled_from(["same", "respelled", "other"]))
    if how == "same":
        return first, first
    if how == "other":
        return first, draw(_VALUES)
    rng = draw(st.randoms(use_true_random=False))
    if type(first) not in (ct.UnknownBlock, *MESSAGE_TYPES, ct.UnknownMessage):
        return first, first
    written: Any = ct.encode(first)
    spelled = _respell(json.loads(written), rng, type(first) is ct.UnknownMessage)
    if isinstance(first, ct.UnknownBlock):
        return first, ct.UnknownBlock(type=first.type, raw=spelled.encode())
    return first, ct.decode_message(spelled, lenient=True)


_EDGE_PAIRS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"n": 1}, {"n": True}),
    ({"n": 0}, {"n": False}),
    ({"n": 1}, {"n": 1.0}),
    ({"n": 10**21}, {"n": 1e21}),
    ({"n": 2**60}, {"n": float(2**60)}),
    ({"n": 1152921504606847000}, {"n": float(2**60)}),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
    ({"n": -0.0}, {"n": 0}),
    ({"n": [1.5]}, {"n": [1.5000000000000002]}),
]


@given(_pairs())
@example(
    (
        ct.ToolCall(name="f", arguments=_EDGE_PAIRS[0][0]),
        ct.ToolCall(name="f", arguments=_EDGE_PAIRS[0][1]),
    )
)
def test_values_are_equal_exactly_when_their_addresses_are(pair: tuple[Any, Any]) -> None:
    first, second = pair
    same = ct.address(first) == ct.address(second)
    assert (first == second) is same
    assert (first != second) is not same
    if same:
        assert hash(first) == hash(second)


@pytest.mark.parametrize(("first", "second"), _EDGE_PAIRS, ids=repr)
def test_json_inside_values_compares_as_its_canonical_bytes(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    same = canonical_json(first) == canonical_json(second)
    makers: list[Callable[[dict[str, Any]], Any]] = [
        lambda args: ct.ToolCall(name="f", arguments=args),
        lambda args: ct.AssistantMessage(tool_calls=(ct.ToolCall(name="f", arguments=args),)),
        lambda args: ct.ProviderOutputItemsMessage(protocol="p", items=[args]),
        lambda args: ct.decode_message(
            b'{"role":"user","content":"","extra":%s}' % json.dumps(args).encode(), lenient=True
        ),
        lambda args: ct.UnknownMessage(role="x", raw=json.dumps({"role": "x", **args}).encode()),
        lambda args: ToolSpec(name="t", parameters=args),
        lambda args: PendingCall(id="c", name="f", arguments=args),
        lambda args: Usage(raw=args),
        lambda args: Reply(
            messages=[ct.AssistantMessage(tool_calls=(ct.ToolCall(name="f", arguments=args),))],
            stop_reason="tool_use",
            usage=Usage(raw=args),
        ),
    ]
    for make in makers:
        a: Any = make(first)
        b: Any = make(second)
        assert (a == b) is same, (a, b)
        assert (a != b) is not same
        if same:
            assert hash(a) == hash(b)
        if isinstance(a, (ct.ToolCall, ct.AssistantMessage, ct.ProviderOutputItemsMessage)):
            assert (ct.address(a) == ct.address(b)) is same


def test_a_carrier_without_unknown_fields_equals_the_plain_value() -> None:
    known = ct.decode_message(b'{"role":"user","content":"x","z":1}', lenient=True)
    plain = ct.UserMessage(content="x")
    assert known != plain
    bare = rebuild(ct.UserMessage, {"content": "x"}, {})
    assert bare == plain and plain == bare and hash(bare) == hash(plain)
    assert ct.address(bare) == ct.address(plain)


def test_hash_is_the_same_in_every_process() -> None:
    import subprocess
    import sys

    script = (
        "import convtypes as ct;"
        "print(ct.address(ct.ToolCall(name='f', arguments={'b': 1.5, 'a': [True, None]})))"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    }
    assert len(runs) == 1


# --- the command line --------------------------------------------------------------


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from convtypes._cli import main

    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_command_prints_one_address_per_message(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    messages = [
        ct.SystemMessage(content="s"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(name="f", arguments={"b": 1, "a": 2.0}),)),
        ct.decode_message(b'{"role":"critic","score":1.0}', lenient=True),
    ]
    oplog = tmp_path / "ops.jsonl"
    # Another writer's spelling: keys reordered, white space, a blank line.
    oplog.write_bytes(
        b'{"content":"s","role":"system"}\n\n'
        b'{"tool_calls":[{"arguments":{"a":2,"b":1.0},"name":"f"}], "role":"assistant",'
        b'"content":""}\n{"score":1,"role":"critic"}\n'
    )
    transcript = tmp_path / "t.json"
    transcript.write_bytes(ct.encode(messages))
    expected = "".join(ct.address(message) + "\n" for message in messages)
    assert _run(["address", str(oplog)], capsys) == (0, expected, "")
    assert _run(["address", str(transcript)], capsys) == (0, expected, "")
    chain = "".join(ct.address(messages[: end + 1]) + "\n" for end in range(len(messages)))
    assert _run(["address", "--chain", str(oplog)], capsys) == (0, chain, "")


def test_the_chain_of_a_file_without_messages_is_the_empty_transcripts(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # --chain's last line is the file's address, so that two devices' files
    # compare by it; a file with no message has one too.
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n")
    assert _run(["address", "--chain", str(empty)], capsys) == (0, ct.address([]) + "\n", "")
    assert _run(["address", str(empty)], capsys) == (0, "", "")


def test_the_command_names_the_place_of_a_bad_document(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    oplog = tmp_path / "ops.jsonl"
    oplog.write_bytes(b'{"role":"user","content":"hi"}\n{"role":"user","content":5}\n')
    status, out, err = _run(["address", str(oplog)], capsys)
    assert status == 1
    assert out == ct.address(ct.UserMessage(content="hi")) + "\n"
    assert err == f"convtypes: {oplog}:2:26: $.content: expected str, got int\n"
    status, out, err = _run(["address", str(tmp_path / "missing.jsonl")], capsys)
    assert (status, out) == (2, "")
    assert "cannot read" in err and "No such file" in err


def test_the_spec_page_links_the_vectors_and_is_in_the_nav() -> None:
    from pathlib import Path

    root = Path(__file__).parent.parent
    page = (root / "docs" / "identity.md").read_text("utf-8")
    relative = identity_vectors.FILE.relative_to(root).as_posix()
    assert f"https://github.com/convtypes/convtypes/blob/main/{relative})" in page
    assert "identity.md" in (root / "mkdocs.yml").read_text("utf-8")
    # The empty transcript's address, as the page shortens it.
    empty = ct.address([])
    assert f"{empty[7:15]}...{empty[-4:]}" in page


def test_calls_whose_arguments_repeat_or_nest_each_other() -> None:
    inner = {"ratio": 0.5, "n": 1.0, "\U0001f600": 2, "\ue000": 3}
    calls = (
        ct.ToolCall(name="a", arguments=inner),
        ct.ToolCall(name="b", arguments={"wrap": inner, "list": [inner, inner]}),
        ct.ToolCall(name="c", arguments=dict(inner)),
        ct.ToolCall(name="d", arguments={"arguments": inner, "id": "x"}),
    )
    message = ct.AssistantMessage(content="", tool_calls=calls)
    assert ct.canonical(message) == reference_of_wire(ct.encode(message))


def test_import_convtypes_leaves_hashlib_for_the_first_address() -> None:
    import subprocess
    import sys

    script = (
        "import sys, convtypes as ct; before = 'hashlib' in sys.modules;"
        "ct.address(ct.UserMessage(content='x')); print(before, 'hashlib' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.split() == ["False", "True"], done.stderr
