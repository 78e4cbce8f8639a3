"""Hypothesis settings profiles, chosen by ``GUARDSPEC_PROFILE`` (default ``dev``; ``ci`` when
``CI=true``), as Hypothesis itself does.

``dev`` is the quick one, for the inner loop (``make unit``); ``ci`` is derandomized, so that
every run draws the same examples, and larger; ``campaign`` is for long runs that look for new
counterexamples.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

_common = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

settings.register_profile("dev", max_examples=50, **_common)
settings.register_profile("ci", max_examples=150, derandomize=True, database=None, print_blob=True, **_common)
settings.register_profile("campaign", max_examples=20_000, **_common)

# Budgets that are not Hypothesis settings: examples a mutant may take to die, state machine size.
BUDGETS = {
    "dev": {"mutant": 1_600, "machine_examples": 20, "steps": 6},
    "ci": {"mutant": 1_600, "machine_examples": 40, "steps": 6},
    "campaign": {"mutant": 5_000, "machine_examples": 2_000, "steps": 20},
}


def profile_name() -> str:
    name = os.environ.get("GUARDSPEC_PROFILE")
    if name:
        return name
    return "ci" if os.environ.get("CI", "").lower() == "true" else "dev"


def load() -> str:
    """Load the chosen profile; returns its name."""
    name = profile_name()
    settings.load_profile(name)
    return name


def budget(key: str) -> int:
    return BUDGETS.get(profile_name(), BUDGETS["dev"])[key]


def kill_settings(max_examples: int) -> settings:
    """Settings for hunting a counterexample fast: generate only, no shrinking, reproducible."""
    from hypothesis import Verbosity

    return settings(
        max_examples=max_examples,
        verbosity=Verbosity.quiet,
        phases=[Phase.generate],
        derandomize=True,
        database=None,
        **_common,
    )


__all__ = ["BUDGETS", "budget", "kill_settings", "load", "profile_name"]
