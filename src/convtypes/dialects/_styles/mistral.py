"""``"mistral"``: Mistral Nemo, Small 3.2, Ministral 3, Magistral.

``[TOOL_CALLS]`` begins the calls, in one of three forms::

    [TOOL_CALLS][{"name": "get_weather", "arguments": {...}, "id": "a1B2c3D4e"}]
    [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}
    [TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris"}

(the last two once per call). The reasoning models think in
``[THINK]...[/THINK]`` (or ``<think>``). In the ``[ARGS]`` forms the
arguments stream as they come.
"""

from __future__ import annotations

from typing import Final

from .. import _call_json as call_json
from .._json import parse_arguments
from .._output_cursor import Cursor, Reading, Wait
from .._output_style import Style

TOOL_CALLS: Final = "[TOOL_CALLS]"
ARGS: Final = "[ARGS]"
CALL_ID: Final = "[CALL_ID]"
_TAGS: Final = (ARGS, CALL_ID, TOOL_CALLS)
_AFTER_NAME: Final = (ARGS, CALL_ID)
_AFTER_ID: Final = (ARGS,)
_AFTER_BRACKET: Final[dict[tuple[str, ...], tuple[str, ...]]] = {
    tags: tuple(tag[1:] for tag in tags) for tags in (_AFTER_NAME, _AFTER_ID)
}


def read_calls(cur: Cursor, marker: str) -> Reading:
    """What follows ``[TOOL_CALLS]``: a JSON list of calls, or a name and its arguments."""
    yield from cur.skip_space()
    head = yield from cur.peek(1)
    if not head:
        raise cur.error(f"{TOOL_CALLS} with no call after it")
    if head == "[":
        if (yield from cur.startswith(*_TAGS)):
            raise cur.error("a tool call with no name")
        yield from read_list(cur)
        return
    name = yield from read_word(cur, "name")
    call_id = None
    tag = yield from read_tag(cur, "name", _AFTER_NAME)
    if tag == CALL_ID:
        call_id = yield from read_word(cur, "id")
        yield from read_tag(cur, "id", _AFTER_ID)
    yield from read_arguments(cur, name, call_id)


def read_word(cur: Cursor, what: str) -> Wait[str]:
    """The call's name or id: the text up to the next ``[`` (taken)."""
    word, bracket = yield from cur.until("[")
    if not bracket:
        raise cur.error(f"a tool call with no {ARGS}")
    word = word.strip()
    if not word:
        raise cur.error(f"a tool call with an empty {what}")
    if any(c.isspace() for c in word):
        raise cur.error(f"a tool call whose {what} holds white space: {word!r:.60}")
    return word


def read_tag(cur: Cursor, what: str, tags: tuple[str, ...]) -> Wait[str]:
    """The tag after a name or id, whose ``[`` was taken."""
    tag = yield from cur.startswith(*_AFTER_BRACKET[tags])
    if not tag:
        expected = " or ".join(tags)
        raise cur.error(
            f"an unknown tag after the call's {what} (expected {expected})", cur.offset - 1
        )
    cur.take(len(tag))
    return "[" + tag


def read_arguments(cur: Cursor, name: str, call_id: str | None) -> Reading:
    """After ``[ARGS]``: the arguments object, streamed as it comes."""
    yield from cur.skip_space()
    head = yield from cur.peek(1)
    if not head:
        raise cur.error(f"the tool call is cut off after {ARGS}")
    if head != "{":
        raise cur.error(f"{ARGS} is not followed by a JSON object", cur.offset)
    cur.announce(name, call_id)
    raw = yield from cur.json(stream=True)
    if raw is None:
        raise cur.error("the tool call is cut off: its JSON never closes")
    try:
        arguments = parse_arguments(raw)
    except ValueError as err:
        raise cur.error(f"the call's arguments cannot be read: {err}") from None
    cur.add_call(name, arguments, call_id)


def read_list(cur: Cursor) -> Reading:
    """A JSON list of call objects."""
    raw = yield from cur.json()
    if raw is None:
        raise cur.error("the tool call is cut off: its JSON never closes")
    value = cur.loads(raw, levels=3)
    if not isinstance(value, list) or not value:
        raise cur.error(f"{TOOL_CALLS} is followed by JSON that is not a list of calls")
    for item in value:
        cur.add_call(*call_json.read_call(item, cur.start))


STYLE = Style(
    "mistral",
    calls={TOOL_CALLS: read_calls},
    thinking={"[THINK]": "[/THINK]", "<think>": "</think>"},
    marks=(TOOL_CALLS,),
)
