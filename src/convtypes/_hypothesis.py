"""The Hypothesis plugin: ``st.from_type`` builds every convtypes type.

Hypothesis runs :func:`setup` through the ``hypothesis`` entry point while it
is itself being imported, possibly because ``convtypes.strategies`` is
importing it. So this module imports nothing of Hypothesis or of the
strategies at load time, and registers callables that import the strategies
only when a type is first resolved, by which time both are fully loaded.
"""

from __future__ import annotations

from typing import Any

__all__ = ["setup"]


def _strategy_for(kind: type[Any]) -> Any:
    from . import strategies

    return strategies.for_type(kind)


def setup() -> None:
    """Register a strategy for every convtypes type with Hypothesis."""
    from hypothesis import strategies as st

    from ._content import CONTENT_BLOCK_TYPES
    from ._messages import MESSAGE_TYPES, ThinkingBlock, ToolCall
    from ._provenance import Provenance, UnknownProvenance
    from ._unknown import UnknownBlock, UnknownMessage

    kinds = (*CONTENT_BLOCK_TYPES, *MESSAGE_TYPES, ToolCall, ThinkingBlock, Provenance)
    for kind in (*kinds, UnknownMessage, UnknownBlock, UnknownProvenance):
        st.register_type_strategy(kind, _strategy_for)
