"""How hard the fuzz and property tests push, by profile.

A developer's run (the README's test command) uses the quick counts, so the
suite finishes in about a minute on two cores. CI's run of it sets
``HYPOTHESIS_PROFILE=ci`` (or ``CI``), which raises every test's default to
200 examples, draws them from a fixed seed, and gives the fuzz tests their
full counts.
"""

from __future__ import annotations

import os

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "default") == "ci"


def examples(full: int, quick: int) -> int:
    """``full`` examples in CI's thorough profile, ``quick`` in a developer's run."""
    return full if THOROUGH else quick
