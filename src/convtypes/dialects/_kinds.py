"""What a provider names, and what its dialect does with each: the tables of every ``_kinds``.

A provider's API names kinds: content blocks (output items, parts), stream
events and deltas, stop reasons, message roles. Each dialect's ``_kinds``
room declares, for every kind the provider's SDK names, what reading it
gives: a convtypes type (``"ToolCall"``, ``"TextDelta"``...), or
:data:`KEPT` (kept verbatim, in provider items or a ``raw`` field, and
replayed as it came). Stop reasons name the :data:`~convtypes.dialects.StopReason`
they read as (the provider's own value is kept beside it, in
``Reply.provider_stop_reason``).

tests/test_keepup.py enumerates the kinds from the installed SDKs at run
time (their unions, ``Literal`` types and enums; botocore's service model)
and fails on a kind in no table. A new SDK release that adds a kind turns
CI red; the fix is a line here, or a new type.
"""

from __future__ import annotations

from typing import Final

__all__ = ["CATEGORIES", "ERROR", "KEPT", "Table"]

KEPT: Final = "kept verbatim"
"""The kind is kept as it came (provider items, ``raw``) and replayed so."""

ERROR: Final = "an error the provider reports"
"""The kind reports a failure: reading it raises ``ResponseError`` (a reply) or ``StreamError``."""

Table = dict[str, str]
"""One category's kinds, each to the convtypes type it reads as, :data:`KEPT` or :data:`ERROR`."""

CATEGORIES: Final = ("block", "event", "delta", "stop_reason", "role")
"""The categories each dialect's ``KINDS`` has a table for, in this order."""
