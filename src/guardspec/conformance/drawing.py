"""Drawing a campaign's cases: distinct scenarios (JSON) from the Hypothesis strategies, the same
list for the same seed and size."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from guardspec.model import codec

from .cases import scenario_hash

STRATEGY = "scenarios(campaign_swarms(max_calls=1)), twenty-one in twenty-four reaching, with literal carrier copies, non-text system content, unclonable system options, system getters, refusing carrier movers and exact moved copies, services of other roles, odd outcomes, wrapped aborts, distinct"
"""The strategy ``generate_scenarios`` draws from, as a results file's header records it."""


def strategy_of(focus: str | None = None) -> str:
    """The strategy a campaign draws from, as its results file's header records it: ``STRATEGY``,
    or with ``--focus`` the campaign weighted towards that clause."""
    return STRATEGY if focus is None else STRATEGY.replace("campaign_swarms(max_calls=1)", f"focused_swarms({focus!r}, max_calls=1)")


def generate_scenarios(
    seed: int,
    n: int,
    tick: Callable[[int], None] | None = None,
    emit: Callable[[dict], None] | None = None,
    focus: str | None = None,
) -> list[dict]:
    """``n`` distinct scenarios (JSON), the same for the same (seed, n); tool outcomes of
    other kinds mixed in after the draw (``with_odd_outcomes``, M12.6, M11.3), and half the
    abort-then-throw endings made wrapped aborts (``with_wrapped_aborts``, G6). ``emit(s)`` is
    called with each as it is drawn, so that a campaign can run the first while it draws the rest.
    ``focus`` (a clause of ``FOCUS_CLAUSES``) weights the draw towards that clause
    (``focused_swarms``)."""
    # deferred: the strategies load Hypothesis, heavy and needed only when a campaign draws
    from guardspec.properties.strategies import campaign_swarms, focused_swarms, scenarios
    from guardspec.properties.strategies.outcomes import with_odd_outcomes, with_wrapped_aborts

    return draw_distinct(
        scenarios(campaign_swarms(max_calls=1) if focus is None else focused_swarms(focus, max_calls=1)),
        seed,
        n,
        lambda s: with_wrapped_aborts(with_odd_outcomes(codec.scenario_to_json(s))),
        tick,
        emit,
    )


ROUND = 25
"""Examples per Hypothesis run in ``draw_distinct``."""


def draw_distinct(
    strategy: Any,
    seed: int,
    n: int,
    to_json: Callable[[Any], Any],
    tick: Callable[[int], None] | None = None,
    emit: Callable[[Any], None] | None = None,
) -> list:
    """``n`` distinct JSON values drawn from a Hypothesis strategy, the same for the same
    (seed, n): the one way every campaign (diff, mastra-diff's op sequences) draws its cases.
    Hypothesis draws some values twice: each case is a new one. ``tick(drawn)`` now and then
    and once at the end; ``emit(value)`` for each value as it is drawn."""
    # deferred: Hypothesis is heavy, and the modules that import this one (vectors, the CLI's
    # commands) need it only when a campaign draws
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    out: list = []
    seen: set[str] = set()

    def round_(r: int, k: int) -> None:
        @hseed(seed if r == 0 else seed * 1000 + r)
        @settings(
            max_examples=k,
            database=None,
            deadline=None,
            derandomize=False,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
            print_blob=False,
        )
        @given(strategy)
        def collect(x: Any) -> None:
            if len(out) >= n:
                return
            j = json.loads(json.dumps(to_json(x)))
            h = scenario_hash(j)
            if h not in seen:
                seen.add(h)
                out.append(j)
                if emit:
                    emit(j)
                if tick and len(out) % 50 == 0:
                    tick(len(out))

        collect()

    # Short rounds, each from its own seed: one long Hypothesis run mutates its earlier examples
    # and can leave a whole shape out of a campaign (seed 0 once drew no reasoning part and no
    # titling memory in 300 scenarios); short fresh runs keep the census full.
    r = 0
    while len(out) < n and r < 8 + 4 * (n // ROUND + 1):
        missing = n - len(out)
        round_(r, min(ROUND, missing) + 2)
        r += 1
    if tick:
        tick(len(out))
    return out


__all__ = ["ROUND", "STRATEGY", "draw_distinct", "generate_scenarios", "strategy_of"]
