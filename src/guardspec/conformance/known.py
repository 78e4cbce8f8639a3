"""Known discrepancies: a file of accepted disagreements, each with its reason, and the named
predicates that decide whether a case is one of them.

An entry of the file (``load_known``) is a set of conditions, one per key; a case is known when
every condition its entry states holds (``known_reason``). Each key's condition is a predicate of
its own below (``PREDICATES``), so what an entry means is read off one function per key.

An entry with a ``deviation`` names a finding's deviation of the model (``deviations.py``): the
model run with it predicts the implementation's whole observation, and the entry holds only when
the implementation's observation has no difference from that prediction under the case's
comparison. One call may show several findings at once (a durable call with a context and a
carrier): when no entry holds alone, the deviations of the entries whose other conditions hold
are tried together, fewest first, and the case is known under all of them. A behaviour that
merely resembles a finding but differs from its prediction anywhere is a disagreement.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from fnmatch import fnmatchcase
from itertools import combinations
from pathlib import Path
from typing import Any

from attrs import field, frozen

from .cases import Verdict
from .compare import Comparison, coarse, differences
from .deviations import DEVIATIONS, deviated_observation
from .settings import BadArguments


def load_known(path: str | Path) -> list[dict]:
    """``{"guardspec": 1, "known": [{"signature"?: glob, "deviation"?: name, "path"?: glob,
    "loop"?: str, "scenario"?: hash, "model"?: JSON, "impl"?: JSON, "outcome"?: object,
    "finding"?: str, "reason": str}]}``; every entry must say why, and state a ``signature``
    or a ``deviation`` (a name of ``deviations.DEVIATIONS``). ``model``/``impl``: the first
    difference's values, when the cause shows in them; ``outcome``: members the model's
    outcome must have (e.g. the refusing processor), when the cause shows in the model's
    outcome rather than in the difference."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as e:
        raise BadArguments(f"{path}: cannot read ({e.strerror})") from None
    except ValueError as e:
        raise BadArguments(f"{path}: $: valid JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("known"), list):
        raise BadArguments(f"{path}: $.known: an array of known discrepancies")
    for i, k in enumerate(data["known"]):
        where = f"{path}: $.known[{i}]"
        if not isinstance(k, dict):
            raise BadArguments(f"{where}: a JSON object")
        if "deviation" in k:
            if not isinstance(k["deviation"], str) or k["deviation"] not in DEVIATIONS:
                raise BadArguments(f"{where}.deviation: the name of a deviation ({', '.join(DEVIATIONS)})")
        elif not isinstance(k.get("signature"), str):
            raise BadArguments(f"{where}.signature: a string (a glob over '<mode>:<field or problem>'), or a deviation")
        if "signature" in k and not isinstance(k["signature"], str):
            raise BadArguments(f"{where}.signature: a string (a glob over '<mode>:<field or problem>')")
        if not isinstance(k.get("reason"), str) or not k["reason"].strip():
            raise BadArguments(f"{where}.reason: a non-empty string: why this discrepancy is accepted")
        for key in ("path", "loop", "scenario", "finding"):
            if key in k and not isinstance(k[key], str):
                raise BadArguments(f"{where}.{key}: a string")
        if "outcome" in k and not isinstance(k["outcome"], dict):
            raise BadArguments(f"{where}.outcome: an object (members of the model's outcome)")
        extra = set(k) - {key for key, _ in PREDICATES} - {"reason", "finding"}
        if extra:
            raise BadArguments(f"{where}.{sorted(extra)[0]}: no unknown field")
    return data["known"]


def _path_glob(path: str, pattern: str) -> bool:
    """A known entry's ``path``: ``*`` matches any run of characters, everything else itself,
    so ``[]`` (an index, ``compare.coarse``) is literal (fnmatch would read it as a set)."""
    return re.fullmatch(".*".join(re.escape(p) for p in pattern.split("*")), path, re.S) is not None


@frozen
class Case:
    """A judged case as the predicates see it: its verdict, loop and scenario hash, and as JSON
    the model's observation, the scenario and the implementation's observation (None when not
    at hand: a predicate that asks of them then does not hold), and the comparison it was judged
    under (a deviation is compared with the implementation's observation under it)."""

    verdict: Verdict
    loop: str
    hash: str
    model: Any = None
    scenario: Any = None
    impl: Any = None
    comparison: Comparison | None = None
    predictions: dict = field(factory=dict, eq=False)  # deviation names -> predicted observation

    def predicted(self, names: frozenset[str]) -> dict | None:
        """The model's observation of the case's scenario with the deviations ``names``
        (computed once per set), or None when the model fails on it so deviated."""
        if names not in self.predictions:
            mode = self.verdict.signature.partition(":")[0] or "guarded"
            try:
                self.predictions[names] = deviated_observation(self.scenario, mode, names)
            except Exception:  # a deviated model that fails predicts nothing
                self.predictions[names] = None
        return self.predictions[names]


def signature_matches(k: dict, c: Case) -> bool:
    """``signature``: a glob (fnmatch) over the case's ``<mode>:<field or problem>``."""
    return fnmatchcase(c.verdict.signature, k["signature"])


def loop_matches(k: dict, c: Case) -> bool:
    """``loop``: the loop the case runs in (``generate``, ``stream``, ``durable``)."""
    return k["loop"] == c.loop


def scenario_matches(k: dict, c: Case) -> bool:
    """``scenario``: the hash of the one scenario the entry is about."""
    return k["scenario"] == c.hash


def path_matches(k: dict, c: Case) -> bool:
    """``path``: a glob (``_path_glob``) over the first difference's path with its indices
    coarsened (``compare.coarse``), or over the problem's path."""
    v = c.verdict
    path = coarse(v.differences[0].path) if v.differences else (v.problem.path if v.problem else "")
    return _path_glob(path, k["path"])


def model_value_matches(k: dict, c: Case) -> bool:
    """``model``: the model's value at the first difference, when the cause shows in it."""
    first = c.verdict.differences[0] if c.verdict.differences else None
    return first is not None and first.model == k["model"]


def impl_value_matches(k: dict, c: Case) -> bool:
    """``impl``: the implementation's value at the first difference, when the cause shows in it."""
    first = c.verdict.differences[0] if c.verdict.differences else None
    return first is not None and first.impl == k["impl"]


def outcome_matches(k: dict, c: Case) -> bool:
    """``outcome``: members the model's outcome must have (e.g. the refusing processor)."""
    outcome = c.model.get("outcome") if isinstance(c.model, dict) else None
    return isinstance(outcome, dict) and all(outcome.get(key) == val for key, val in k["outcome"].items())


def deviation_matches(k: dict, c: Case) -> bool:
    """``deviation``: the model run with the named deviation predicts the case (``predicts``)."""
    return predicts(frozenset({k["deviation"]}), c)


PREDICATES: tuple[tuple[str, Callable[[dict, Case], bool]], ...] = (
    ("signature", signature_matches),
    ("loop", loop_matches),
    ("scenario", scenario_matches),
    ("path", path_matches),
    ("model", model_value_matches),
    ("impl", impl_value_matches),
    ("outcome", outcome_matches),
    ("deviation", deviation_matches),
)
"""Each key an entry may state and the predicate it adds, in the order they are tried."""


def predicts(names: frozenset[str], c: Case) -> bool:
    """``deviation``: the model run with the deviations ``names`` predicts the case: the
    implementation's observation has no difference from that prediction, in any field it
    reports, under the case's comparison, and the prediction is not the model's own. False
    without the scenario, the implementation's observation or the comparison."""
    if not isinstance(c.impl, dict) or not isinstance(c.scenario, dict) or c.comparison is None:
        return False
    predicted = c.predicted(names)
    if predicted is None or predicted == c.model:
        return False
    mode = c.verdict.signature.partition(":")[0] or "guarded"
    return not differences(predicted, c.impl, c.scenario, mode, c.comparison, c.verdict.fields or None, first_only=True)


def _together(entries: list[dict], c: Case) -> dict | None:
    """Several findings in one call: the fewest deviation entries (two or more, each of whose
    other conditions holds) whose deviations together predict the case, as one entry naming
    every finding (``BW-F3+BW-F4``) with their reasons joined; None when no such set does."""
    held = [k for k in entries if "deviation" in k and all(holds(k, c) for key, holds in PREDICATES if key in k and key != "deviation")]
    for size in range(2, len(held) + 1):
        for group in combinations(held, size):
            names = frozenset(k["deviation"] for k in group)
            if len(names) == size and predicts(names, c):
                return {
                    "finding": "+".join(finding_of(k) for k in group),
                    "deviations": sorted(names),
                    "reason": " / ".join(k["reason"] for k in group),
                }
    return None


def known_entry(
    known: list[dict],
    v: Verdict,
    loop: str,
    h: str,
    model: Any = None,
    scenario: Any = None,
    impl: Any = None,
    comparison: Comparison | None = None,
) -> dict | None:
    """The first entry of ``known`` the case matches (``load_known``), or None. ``model``: the
    model's observation (JSON), ``scenario``: the scenario (JSON), ``impl``: the implementation's
    observation (JSON), ``comparison``: the case's; an entry that asks of them does not match
    without them. When no entry holds alone, the deviation entries are tried together
    (``_together``)."""
    c = Case(v, loop, h, model, scenario, impl, comparison)
    for k in known:
        if all(holds(k, c) for key, holds in PREDICATES if key in k):
            return k
    return _together(known, c)


def known_reason(
    known: list[dict],
    v: Verdict,
    loop: str,
    h: str,
    model: Any = None,
    scenario: Any = None,
    impl: Any = None,
    comparison: Comparison | None = None,
) -> str | None:
    """The reason of the first entry of ``known`` the case matches (``known_entry``), or None."""
    k = known_entry(known, v, loop, h, model, scenario, impl, comparison)
    return None if k is None else k["reason"]


def finding_of(k: dict) -> str:
    """The finding an entry names: its ``finding``, else the id its reason opens with."""
    m = re.match(r"([A-Z]+-F\d+)\b", k.get("reason", ""))
    return k.get("finding") or (m.group(1) if m else "")


__all__ = [
    "PREDICATES",
    "Case",
    "finding_of",
    "known_entry",
    "known_reason",
    "load_known",
    "predicts",
]
