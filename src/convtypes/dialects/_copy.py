"""Copies of JSON values, so that a request shares nothing with what it was built from.

A request is the caller's to change: a backend adds a marker to a block, or
fills in a field, before it sends. Where a builder would put a transcript's
tool arguments or provider items into the request as they are, that edit
would change the stored transcript too. The builders copy those values here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import msgspec

__all__ = ["json_copy"]

json_copy: Final[Callable[[Any], Any]] = msgspec.to_builtins
"""A copy of a JSON value in which every dict and list is new.

msgspec builds the new containers in C and shares the immutable values
(text, numbers), so a large string (an encrypted block, base64 data) costs
nothing to copy; measured, it is about twice as fast as a Python walk. The
values a transcript or a ``ToolSpec`` holds are JSON checked when built
(plain dicts and lists, finite numbers, nesting within ``MAX_DEPTH``), so
nothing in them is converted: the copy equals the value. A dict or list
subclass comes back as a plain dict or list.
"""
