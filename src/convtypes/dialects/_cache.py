"""Prompt caching asked for by name, for the APIs that want it marked."""

from __future__ import annotations

from typing import Literal, Union

__all__ = ["Cache", "cache_ttl"]

Cache = Union[bool, Literal["5m", "1h"]]
"""Whether, and for how long, to mark a request for prompt caching.

``False`` marks nothing; ``True`` or ``"5m"`` asks for the provider's
default lifetime (five minutes); ``"1h"`` for an hour, where the API
offers it.
"""


def cache_ttl(cache: object) -> Literal["5m", "1h"] | None:
    """The lifetime ``cache=`` asks for, or ``None`` for no caching.

    ``TypeError`` for a value that is neither a ``bool`` nor a string;
    ``ValueError`` for a string other than ``"5m"`` and ``"1h"``.
    """
    if cache is False:
        return None
    if cache is True or cache == "5m":
        return "5m"
    if cache == "1h":
        return "1h"
    if isinstance(cache, str):
        raise ValueError(f'cache= must be False, True, "5m" or "1h", not {cache!r:.40}')
    raise TypeError(f'cache= must be False, True, "5m" or "1h", not {type(cache).__name__}')
