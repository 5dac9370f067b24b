"""``"command_r"``: Cohere's Command R7B, Command A and their kin, with tokens for each part.

::

    <|START_THINKING|>I will look up the weather.<|END_THINKING|><|START_ACTION|>[
        {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Oslo"}}
    ]<|END_ACTION|><|END_OF_TURN_TOKEN|>

    <|START_RESPONSE|>It is raining in Oslo.<|END_RESPONSE|><|END_OF_TURN_TOKEN|>

The plan, or reflection, is the reasoning; the calls are a JSON list
whose items name the tool under ``tool_name`` and give its arguments under
``parameters``, and their ``tool_call_id`` is kept as the call's id; the
answer comes between the response tokens, which are dropped. Grounded
answers mark their spans with ``<co>...</co: 0:[1]>``: that markup is
kept in the text, since the message has no place for what it cites.

Command R and R+ (2024) wrote ``Action: ```json [...]``` `` instead, as
plain text. No parser of vLLM reads that form, and neither does this
style: it cannot be told from an answer that shows such a block.
"""

from __future__ import annotations

from typing import Any, Final

from .. import _call_json as call_json
from .._output_cursor import Cursor, Reading
from .._output_style import Style

START_ACTION: Final = "<|START_ACTION|>"
END_ACTION: Final = "<|END_ACTION|>"
START_RESPONSE: Final = "<|START_RESPONSE|>"
END_RESPONSE: Final = "<|END_RESPONSE|>"
# Cohere's keys, as the keys every reader of call JSON knows.
_RENAMED: Final = {"tool_name": "name", "tool_call_id": "id"}


def read_action(cur: Cursor, marker: str) -> Reading:
    """What follows ``<|START_ACTION|>``: a JSON list of calls, then ``<|END_ACTION|>``."""
    if marker == END_ACTION:
        raise cur.error(f"a {END_ACTION} with no {START_ACTION} before it")
    yield from cur.skip_space()
    head = yield from cur.peek(1)
    if not head:
        raise cur.error(f"a {START_ACTION} with nothing after it")
    if head != "[":
        raise cur.error(f"a {START_ACTION} that does not hold a JSON list of calls", cur.offset)
    raw = yield from cur.json()
    if raw is None:
        raise cur.error("the tool call is cut off: its JSON never closes")
    value = cur.loads(raw, levels=3)
    if not isinstance(value, list) or not value:
        raise cur.error(f"{START_ACTION} is followed by an empty list")
    for item in value:
        cur.add_call(*call_json.read_call(renamed(cur, item), cur.start))
    yield from cur.skip_space()
    if (yield from cur.startswith(END_ACTION)):
        cur.take(len(END_ACTION))
    elif (yield from cur.peek(1)) and not (yield from cur.startswith(*cur.ends)):
        raise cur.error(f"the calls are followed by something other than {END_ACTION}", cur.offset)


def renamed(cur: Cursor, item: object) -> object:
    """A call object with Cohere's keys under the usual names (anything else as it is)."""
    if not isinstance(item, dict):
        return item
    out: dict[str, Any] = {}
    given: dict[str, str] = {}
    for key, value in item.items():
        name = _RENAMED[key] if key in _RENAMED else key
        if name in out:
            raise cur.error(f"a tool call that gives both {given[name]!r} and {key!r}")
        out[name] = value
        given[name] = key
    return out


def drop_tag(cur: Cursor, marker: str) -> Reading:
    """The response tokens: the answer's wrapping, not its text."""
    cur.new_run()
    yield from ()


STYLE = Style(
    "command_r",
    calls={
        START_ACTION: read_action,
        END_ACTION: read_action,
        START_RESPONSE: drop_tag,
        END_RESPONSE: drop_tag,
    },
    thinking={"<|START_THINKING|>": "<|END_THINKING|>"},
    ends=("<|END_OF_TURN_TOKEN|>",),
    marks=(START_ACTION,),
    opens=(START_ACTION,),
)
