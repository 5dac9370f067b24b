"""A parameter's value written as text between tags, whatever closer the model wrote.

Qwen3.5's ``<parameter=k>`` and MiniMax-M2's ``<parameter name="k">`` end a
value with ``</parameter>``, and models write that closer wrong
(``</parameter1>``, ``</parameter_function>``, a bare ``</parameter``) or
leave it out. A value therefore ends where the call's next tag begins
(the next parameter, or the function's end), as SGLang's and vLLM's
parsers read it, and never runs on into the next parameter.
"""

from __future__ import annotations

import re
from typing import Final

from .._output_cursor import Cursor, Wait

# A closer as written at a value's end: </parameter>, or one written wrong
# (</parameter1>, </parameter_function>, a bare </parameter, </param>).
CLOSER_AT_END: Final = re.compile(r"</param[^<>\s]*>?\Z")
STRAY_CLOSER: Final = re.compile(r"</param[^<>\s]*>?")


def read_value(cur: Cursor, *tags: str, at: int | None = None) -> Wait[tuple[str, str]]:
    """A parameter's text, and which of the call's ``tags`` ends it (both taken).

    ``tags`` are those that may follow a value (the next parameter's
    opening, the function's end); ``""`` when the text ended with the
    value closed. ``at`` is where the call began, for a call cut off (by
    default the section's start). See :func:`value_of` for where a value
    ends and what its closer may be.
    """
    start = cur.offset
    raw, tag = yield from cur.until(*tags)
    value, closed = value_of(raw)
    if not tag and not closed:
        raise cur.error("the tool call is cut off in a parameter", at)
    if not closed and STRAY_CLOSER.search(value):
        # A closer inside, text after it, none at the end: either that was the
        # closer and the text after it is stray, or it is the value's text
        # and the closer was left out. Nothing says which.
        raise cur.error(
            "a parameter whose value holds a </parameter> with text after it and ends "
            "with no closer: the value's end is ambiguous",
            start,
        )
    return value, tag


def value_of(raw: str) -> tuple[str, bool]:
    """A value from the text up to the call's next tag, and whether it was closed.

    The value ends where the next parameter or the function's end
    begins, whatever closer was written: ``</parameter>``, a closer written
    wrong (``</parameter1>``, ``</parameter_function>``, a bare
    ``</parameter``), or none. The closer at its end is dropped, then one
    newline on each side. A ``</parameter>`` inside the value with text
    after it is the value's own (code may hold the tag) when the value ends
    with a closer. With no closer, the white space before the next tag
    is layout, and dropped.
    """
    body = raw.rstrip()
    found = CLOSER_AT_END.search(body)
    closed = found is not None
    if found is not None:
        body = body[: found.start()]
    if body.startswith("\n"):
        body = body[1:]
    if body.endswith("\n"):
        body = body[:-1]
    return body, closed
