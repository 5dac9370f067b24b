"""Reply, PendingCall, Usage and LeftOut check their fields when a program builds them.

As every other convtypes value does: a wrong field raises WireError naming
it, so a value that exists is one the library can rely on.
"""

from __future__ import annotations

from typing import Any

import pytest

import convtypes as ct
from convtypes.dialects import LeftOut, PendingCall, Reply, Usage

ANSWER = ct.AssistantMessage(content="hi")


def refused(make: Any, **fields: Any) -> ct.WireError:
    with pytest.raises(ct.WireError) as caught:
        make(**fields)
    return caught.value


def test_good_values_are_built() -> None:
    call = PendingCall(id="c", name="f", arguments={"q": [1, {"r": None}]})
    assert call.arguments == {"q": [1, {"r": None}]}
    usage = Usage(input_tokens=3, output_tokens=0, raw={"x": 1})
    reply = Reply(messages=[ANSWER], stop_reason="end_turn", usage=usage, model="m", id="r")
    assert reply.usage is usage
    assert LeftOut(0, "thinking", "thinking block 0: not sent").what == "thinking"
    # The same class, from either module.
    assert ct.PendingCall is PendingCall


@pytest.mark.parametrize(
    ("fields", "path", "words"),
    [
        ({"id": None, "name": "f", "arguments": {}}, "$.id", "expected str, got NoneType"),
        ({"id": "c", "name": 3, "arguments": {}}, "$.name", "expected str, got int"),
        ({"id": "\ud800", "name": "f", "arguments": {}}, "$.id", "lone surrogate"),
        ({"id": "c", "name": "f", "arguments": [1]}, "$.arguments", "expected a dict, got list"),
        ({"id": "c", "name": "f", "arguments": {"a": {1, 2}}}, "$.arguments.a", "set"),
    ],
)
def test_a_pending_call_refuses_a_wrong_field(
    fields: dict[str, Any], path: str, words: str
) -> None:
    error = refused(PendingCall, **fields)
    assert error.path == path
    assert words in str(error)


@pytest.mark.parametrize(
    ("fields", "path", "words"),
    [
        ({"input_tokens": "3"}, "$.input_tokens", "expected int or None, got str"),
        ({"reasoning_tokens": 1.5}, "$.reasoning_tokens", "got float"),
        ({"output_tokens": True}, "$.output_tokens", "got bool"),
        ({"raw": [1]}, "$.raw", "expected a dict or None, got list"),
    ],
)
def test_usage_refuses_a_wrong_field(fields: dict[str, Any], path: str, words: str) -> None:
    error = refused(Usage, **fields)
    assert error.path == path
    assert words in str(error)


@pytest.mark.parametrize(
    ("fields", "path", "words"),
    [
        ({"messages": (ANSWER,)}, "$.messages", "expected a list of messages, got tuple"),
        ({"messages": [ANSWER, "hi"]}, "$.messages[1]", "expected a message, got str"),
        ({"stop_reason": "stop"}, "$.stop_reason", "expected one of end_turn, tool_use"),
        ({"stop_reason": None}, "$.stop_reason", "got None"),
        ({"provider_stop_reason": 1}, "$.provider_stop_reason", "expected str, got int"),
        ({"model": b"m"}, "$.model", "expected str, got bytes"),
        ({"id": 7}, "$.id", "expected str, got int"),
        ({"usage": {"input_tokens": 1}}, "$.usage", "expected a Usage, got dict"),
    ],
)
def test_a_reply_refuses_a_wrong_field(fields: dict[str, Any], path: str, words: str) -> None:
    given: dict[str, Any] = {"messages": [ANSWER], "stop_reason": "end_turn", **fields}
    error = refused(Reply, **given)
    assert error.path == path
    assert words in str(error)


@pytest.mark.parametrize(
    ("fields", "path", "words"),
    [
        ({"index": -1}, "$.index", "an int from 0"),
        ({"index": "0"}, "$.index", "an int from 0"),
        ({"index": False}, "$.index", "an int from 0"),
        ({"what": "pictures"}, "$.what", "expected one of LeftOutKind's words, got 'pictures'"),
        ({"why": None}, "$.why", "expected str, got NoneType"),
    ],
)
def test_left_out_refuses_a_wrong_field(fields: dict[str, Any], path: str, words: str) -> None:
    given: dict[str, Any] = {"index": 0, "what": "thinking", "why": "not sent", **fields}
    error = refused(LeftOut, **given)
    assert error.path == path
    assert words in str(error)
