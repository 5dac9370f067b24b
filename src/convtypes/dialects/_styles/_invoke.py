"""Calls written as an ``invoke`` element with ``parameter`` elements: DSML's and Step-3's.

DeepSeek V3.2 and V4 (``<|DSML|invoke name="f">``, full-width bars) and Step-3
(``<steptml:invoke name="f">``) write a call the same way, in tags of
their own::

    <P:invoke name="get_weather">
    <P:parameter name="city" string="true">Oslo</P:parameter>
    </P:invoke>

Attributes are ``key="value"``. A value ends at its closer; a value whose
closer was written wrong (``</P:parameter1>``, a bare ``</P:parameter``)
or left out ends where the next parameter or the invoke's end begins, so
a value never runs on into the next parameter; one that holds a closer
with text after it and none at its end is ambiguous, and an error. What a value
becomes is the family's (``convert``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from .. import _schema_values as values
from .._output_cursor import Cursor, Reading, Wait

_LIMIT: Final = 512
_ATTRIBUTE: Final = re.compile(r'\s*([A-Za-z_][\w-]*)\s*=\s*"([^"<>]*)"')
_BAD_IN_NAMES: Final = frozenset("{}<>\"' \t\r\n")

Convert = Callable[[str, dict[str, str], dict[str, Any] | None], Any]
"""A value's text, its attributes and its schema (if the tool was offered), to its value."""


class Tags:
    """A family's spelling of the four tags, with the prefix ``P`` (``<P:invoke``...)."""

    __slots__ = ("closer_at_end", "end_invoke", "end_parameter", "invoke", "parameter", "stray")

    def __init__(self, invoke: str, parameter: str, end_parameter: str, end_invoke: str) -> None:
        self.invoke = invoke
        self.parameter = parameter
        self.end_parameter = end_parameter
        self.end_invoke = end_invoke
        # The parameter's closer written wrong (</P:parameter1>, a bare </P:parameter).
        stem = re.escape(end_parameter[: end_parameter.index("param") + len("param")])
        self.closer_at_end = re.compile(stem + r"[^<>\s]*>?\Z")
        self.stray = re.compile(stem)


def read_attributes(cur: Cursor, what: str, at: int) -> Wait[dict[str, str]]:
    """The attributes up to the tag's ``>`` (taken); ``at`` is where the call began."""
    head = yield from cur.peek_to(">", _LIMIT)
    if not head.endswith(">"):
        if len(head) < _LIMIT:
            raise cur.error(f"the tool call is cut off in a {what} tag", at)
        raise cur.error(f"a {what} tag with no '>' after it", cur.offset)
    found: dict[str, str] = {}
    body, place = head[:-1], 0
    while place < len(body.rstrip()):
        attribute = _ATTRIBUTE.match(body, place)
        if attribute is None:
            raise cur.error(
                f"a {what} tag whose attributes cannot be read: {body!r:.60}", cur.offset
            )
        found[attribute.group(1)] = attribute.group(2)
        place = attribute.end()
    name = found.get("name", "")
    if not name or any(c in _BAD_IN_NAMES for c in name):
        raise cur.error(f"a {what} tag whose name is not one: {name!r:.60}", cur.offset)
    cur.take(len(head))
    return found


def read_invoke(cur: Cursor, tags: Tags, convert: Convert, at: int | None = None) -> Reading:
    """One invoke, its opening prefix taken: its name, its parameters, its end.

    ``at`` is where the call began, for errors (by default the invoke's start).
    """
    if at is None:
        at = cur.offset - len(tags.invoke)
    name = (yield from read_attributes(cur, "function", at))["name"]
    cur.announce(name, at=at)
    schema = cur.parameters(name)
    arguments: dict[str, Any] = {}
    yield from cur.skip_space()
    tag = yield from cur.startswith(tags.parameter, tags.end_invoke)
    if tag:
        cur.take(len(tag))
    while True:
        if tag == tags.end_invoke:
            cur.add_call(name, arguments, at=at)
            return
        if not tag:
            if not (yield from cur.peek(1)):
                raise cur.error(f"the tool call is cut off before its {tags.end_invoke}", at)
            raise cur.error(f"expected {tags.parameter} or {tags.end_invoke} in a call", cur.offset)
        key_at = cur.offset - len(tags.parameter)
        attributes = yield from read_attributes(cur, "parameter", at)
        key = attributes["name"]
        text, end = yield from cur.until(tags.end_parameter, tags.parameter, tags.end_invoke)
        if not end:
            raise cur.error("the tool call is cut off in a parameter", at)
        if end == tags.end_parameter:
            yield from cur.skip_space()
            tag = yield from cur.startswith(tags.parameter, tags.end_invoke)
            if tag:
                cur.take(len(tag))
        else:
            # The closer was written wrong or left out: the value ends at the next tag.
            tag = end
            text = text.rstrip()
            wrong = tags.closer_at_end.search(text)
            if wrong is not None:
                text = text[: wrong.start()]
            elif tags.stray.search(text):
                raise cur.error(
                    f"a parameter whose value holds a {tags.end_parameter} with text after it "
                    "and ends with no closer: the value's end is ambiguous",
                    key_at,
                )
        if key in arguments:
            raise cur.error(f"the parameter {key!r:.60} of {name!r:.60} is given twice", key_at)
        arguments[key] = convert(text, attributes, values.schema_of(schema, key))
