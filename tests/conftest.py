"""Shared test settings."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# The machines are shared and noisy: a per-example deadline would only make
# the suite flaky. Speed is measured in benchmarks/, not here.
settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
# CI's profile explores more, from a fixed seed, so that a landing is decided
# by the code and not by the draw; developers' runs keep exploring at random.
settings.register_profile(
    "ci",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    max_examples=200,
    derandomize=True,
)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "default")
)

# In CI (CONVTYPES_REQUIRE_ALL=1) a test dependency that fails to import
# fails the run instead of skipping the tests that need it.
pytest_plugins = ["require_all"]
