"""A request belongs to its caller: change all of it, and the transcript must not move.

Shared by the dialects' tests. A builder that hands out a dict or list the
transcript (or a tool) also holds lets a caller's edit of the request write
into the stored conversation; :func:`assert_owned` makes every such edit at
once and checks that nothing it was built from changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args

import msgspec

import convtypes as ct


def containers(value: Any) -> list[dict[str, Any] | list[Any]]:
    """Every dict and list inside ``value`` (itself included), each once."""
    found: list[dict[str, Any] | list[Any]] = []
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, list)):
            if id(item) in seen:
                continue
            seen.add(id(item))
            found.append(item)
            stack.extend(item.values() if isinstance(item, dict) else item)
    return found


def mutate(value: Any) -> int:
    """Change every dict and list inside ``value``; the number changed.

    A dict gains a key and has each of its own keys rebound to a marker
    after its value was visited; a list gains an item and loses its first.
    """
    found = containers(value)
    for item in found:
        if isinstance(item, dict):
            for key in list(item):
                item[key] = "mutated"
            item["mutated"] = True
        else:
            if item:
                del item[0]
            item.append("mutated")
    return len(found)


def assert_owned(build: Callable[[], Any], *sources: Any) -> Any:
    """Build twice, mutate every container of the first result, and check nothing leaked.

    ``sources`` are what the builder read (a transcript, tools): their
    encodings (convtypes values, or msgspec Structs such as ``ToolSpec``)
    must not change, and a second build must equal the first one as it was.
    Returns the (unmutated) second build.
    """
    before = [_bytes(source) for source in sources]
    first = build()
    expected = msgspec.json.encode(first)
    assert mutate(first) > 0
    assert [_bytes(source) for source in sources] == before
    again = build()
    assert msgspec.json.encode(again) == expected
    return again


def _bytes(source: Any) -> bytes:
    if isinstance(source, (list, tuple)) and all(
        isinstance(item, (*get_args(ct.Message), ct.UnknownMessage)) for item in source
    ):
        return ct.encode(list(source))
    return msgspec.json.encode(source)
