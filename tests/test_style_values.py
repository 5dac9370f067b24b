"""What the markup styles' values become, and the Python the pythonic style reads.

A value written as text (Qwen3.5's ``<parameter=...>``, GLM's
``<arg_value>``) is typed by its parameter's schema; Python literals are
read by hand, never evaluated. Each rule here is one a style relies on,
tested directly, with the text that must stay text where it does not read.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convtypes.dialects import _py_literal as py
from convtypes.dialects import _schema_values as values
from convtypes.dialects.chat_template import parse_output

from budget import examples


@pytest.mark.parametrize(
    ("text", "schema", "expected"),
    [
        ("Oslo", {"type": "string"}, "Oslo"),
        (" 42 ", {"type": "string"}, " 42 "),
        ("None", {"type": "string"}, "None"),
        ("None", {"type": ["string", "null"]}, None),
        ("null", {"anyOf": [{"type": "integer"}, {"type": "null"}]}, None),
        ("7", {"anyOf": [{"type": "integer"}, {"type": "null"}]}, 7),
        ("-12", {"type": "integer"}, -12),
        ("1" * 5000, {"type": "integer"}, "1" * 5000),  # too long to read: kept
        ("1.5", {"type": "integer"}, "1.5"),
        ("1e-07", {"type": "number"}, 1e-07),
        ("3", {"type": "number"}, 3),
        ("NaN", {"type": "number"}, "NaN"),
        ("True", {"type": "boolean"}, True),
        ("false", {"type": "boolean"}, False),
        ("yes", {"type": "boolean"}, "yes"),
        ("None", {"type": "boolean"}, None),
        ('{"a": [1]}', {"type": "object"}, {"a": [1]}),
        ("{'a': (1, None)}", {"type": "object"}, {"a": [1, None]}),
        ("[1, 2]", {"type": "object"}, "[1, 2]"),
        ("[1, 2]", {"type": "array"}, [1, 2]),
        ("['x']", {"type": "array"}, ["x"]),
        ("not json", {"type": "array"}, "not json"),
        ("anything", {"enum": ["anything"]}, "anything"),
        ("anything", {"description": "no type"}, "anything"),
        ("12", {"type": "uuid"}, "12"),
    ],
)
def test_values_are_typed_by_their_schema(text: str, schema: dict[str, Any], expected: Any) -> None:
    got = values.typed(text, schema)
    assert got == expected and type(got) is type(expected)


# Unions: null first where allowed; then the members that are not strings, in
# the schema's order; then the string keeps the text.
UNIONS: list[tuple[str, dict[str, Any], Any]] = [
    ('{"a": 1}', {"type": ["string", "object"]}, {"a": 1}),
    ("42", {"type": ["string", "integer"]}, 42),
    ("Oslo", {"type": ["string", "integer"]}, "Oslo"),
    ("None", {"type": ["string", "integer"]}, "None"),
    ("None", {"type": ["integer", "boolean"]}, None),
    ("true", {"type": ["string", "boolean"]}, True),
    ("[1]", {"anyOf": [{"type": "string"}, {"type": "object"}, {"type": "array"}]}, [1]),
    ('{"a": 1}', {"anyOf": [{"type": "array"}, {"type": "object"}]}, {"a": 1}),
    ("1", {"type": ["boolean", "integer"]}, 1),
    ("2.5", {"type": ["integer", "number", "string"]}, 2.5),
    ("7", {"type": ["number", "integer"]}, 7),
    ("null", {"type": ["string", "integer", "null"]}, None),
    ("maybe", {"type": ["integer", "boolean"]}, "maybe"),
]


@pytest.mark.parametrize(("text", "schema", "expected"), UNIONS)
def test_unions_try_the_members_that_are_not_strings_first(
    text: str, schema: dict[str, Any], expected: Any
) -> None:
    got = values.typed(text, schema)
    assert got == expected and type(got) is type(expected)


def test_values_without_a_schema() -> None:
    assert values.untyped(" 3 ", as_json=False) == " 3 "
    assert values.untyped(" 3 ", as_json=True) == 3
    assert values.untyped("{'a': True}", as_json=True) == {"a": True}
    assert values.untyped("  plain words ", as_json=True) == "plain words"
    assert values.untyped("[" * 300 + "]" * 300, as_json=True) == "[" * 300 + "]" * 300


def test_the_schema_of_a_parameter() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": True}}
    assert values.schema_of(schema, "a") == {"type": "string"}
    assert values.schema_of(schema, "b") is None
    assert values.schema_of(schema, "c") is None
    assert values.schema_of({"type": "object"}, "a") is None
    assert values.schema_of(None, "a") is None


# --- Python literals --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("'it\\'s'", "it's"),
        ('"tab\\there"', "tab\there"),
        ("r'C:\\new'", "C:\\new"),
        ("u'caf\\u00e9'", "caf\u00e9"),
        ('"""a\nb"""', "a\nb"),
        ("'''x'''", "x"),
        ("'\\N{BLACK STAR}'", "\u2605"),
        ("''", ""),
        ("1_000", 1000),
        (".5", 0.5),
        ("-2e3", -2000.0),
        ("+4", 4),
        ("(1,)", [1]),
        ("{}", {}),
        ("[[], {'k': [None, False]}]", [[], {"k": [None, False]}]),
    ],
)
def test_python_literals(text: str, expected: Any) -> None:
    assert py.value(text) == (True, expected)


@pytest.mark.parametrize(
    "text",
    [
        "name",
        "1 + 2",
        "'open",
        "'a\nb'",
        "1e999",
        "9" * 5000,
        "{1: 2}",
        "b'bytes'",
        "[1,",
        "'x' 'y'",
    ],
)
def test_what_is_not_a_python_literal(text: str) -> None:
    assert py.value(text) == (False, None)


def test_a_value_nested_too_deep_is_refused_without_recursing_far() -> None:
    deep = "[" * 5000 + "]" * 5000
    with pytest.raises(py.PyLiteralError, match="nested deeper than"):
        py.calls(f"[f(x={deep})]")


@pytest.mark.parametrize(
    ("text", "message", "position"),
    [
        ("[f(x='a)]", "a string that never closes", 5),
        ("[f(x=1)] extra", "text after the list of calls", 9),
        ("[f(x=1,,)]", "not written key=value", 7),
        ("[f(x==1)]", "not written key=value", 3),
        ("[f(x=)]", "a value that is not a literal: ')]'", 5),
        ("[f(x=1)", "expected ']' after a call, found the end of the text", 7),
        ("[f(x=[1 2])]", "expected ']' to close a list", 8),
        ("[f(x={'a' 1})]", "expected ':' after a dict key", 10),
        ("[f(x=-)]", "a value that is not a literal: '-)]'", 5),
        ("[f(x=", "a value missing at the end of the text", 5),
    ],
)
def test_call_lists_that_cannot_be_read_say_where(text: str, message: str, position: int) -> None:
    with pytest.raises(py.PyLiteralError, match=re.escape(message)) as caught:
        py.calls(text)
    assert caught.value.position == position


_LITERALS: Any = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=examples(300, 100))
@given(
    st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True), _LITERALS, max_size=4)
)
def test_any_arguments_python_writes_read_back(arguments: dict[str, Any]) -> None:
    # repr() writes what a model trained on Python writes; the reader gives it back.
    written = "[tool(" + ", ".join(f"{key}={value!r}" for key, value in arguments.items()) + ")]"
    assert py.calls(written) == [("tool", arguments, 1)]


@settings(max_examples=examples(300, 100))
@given(_LITERALS, st.lists(st.integers(0, 200), max_size=6))
def test_the_span_of_a_list_ends_where_it_does_however_split(value: Any, cuts: list[int]) -> None:
    text = f"[f(x={value!r})] and after"
    end = len(f"[f(x={value!r})]")
    span = py.PySpan()
    seen = 0
    points = [*sorted({min(cut, len(text)) for cut in cuts}), len(text)]
    found = None
    for point in points:
        if point < seen:
            continue
        got = span.feed(text[seen:point])
        if got is not None:
            found = seen + got
            break
        seen = point
    assert found == end and span.mismatch is None


# Every style that types values by the schema reads a union by the same rule.
UNION_TOOL = {
    "type": "function",
    "function": {
        "name": "put",
        "parameters": {
            "type": "object",
            "properties": {
                "value": {"type": ["string", "object"]},
                "amount": {"type": ["string", "integer"]},
                "label": {"type": ["string", "integer"]},
            },
        },
    },
}
UNION_CALLS = {
    "qwen3_coder": '<tool_call>\n<function=put>\n<parameter=value>\n{"a": 1}\n</parameter>\n'
    "<parameter=amount>\n42\n</parameter>\n<parameter=label>\nOslo\n</parameter>\n"
    "</function>\n</tool_call>",
    "glm45": '<tool_call>put\n<arg_key>value</arg_key>\n<arg_value>{"a": 1}</arg_value>\n'
    "<arg_key>amount</arg_key>\n<arg_value>42</arg_value>\n"
    "<arg_key>label</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>",
    "minimax": '<minimax:tool_call>\n<invoke name="put">\n<parameter name="value">{"a": 1}'
    '</parameter>\n<parameter name="amount">42</parameter>\n<parameter name="label">Oslo'
    "</parameter>\n</invoke>\n</minimax:tool_call>",
}


@pytest.mark.parametrize("style", sorted(UNION_CALLS))
def test_each_style_reads_unions_by_the_one_rule(style: str) -> None:
    got = parse_output(UNION_CALLS[style], style=style, tools=[UNION_TOOL])
    assert [call.arguments for call in got.tool_calls] == [
        {"value": {"a": 1}, "amount": 42, "label": "Oslo"}
    ]
