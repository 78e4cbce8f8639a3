"""A differential campaign's settings (``Config``), the error of bad arguments or input files
(``BadArguments``, exit 2), and the comparison a run uses (``chosen_comparison``): what the
implementation declares in its ``hello`` reply (``compare``, docs/protocol.md), under what the
user says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from attrs import define, field, frozen

from .compare import NORMALISE, Comparison, ComparisonError, comparison_from_json
from .impl import Impl, StartFailed


class BadArguments(ValueError):
    """Exit 2: what is wrong with the arguments or an input file (JSON path: expected)."""


@define
class Config:
    impl: str
    examples: int = 300
    seed: int = 0
    jobs: int = 1
    timeout: float = 10.0
    out: Path | None = None
    modes: tuple[str, ...] | None = None  # None: every mode the implementation declares
    comparison: Comparison = field(factory=Comparison)
    known: list = field(factory=list)
    shrink: bool = True
    shrink_seconds: float = 120.0
    window: int = 256  # requests in flight per process: an in-order adapter works behind a slow one
    chunk: int = 32  # cases per task on a cluster (cluster.py)
    shard: tuple[int, int] | None = None  # (i, n): only the cases whose index is i modulo n (shards.py)
    cluster: str | None = None  # a Dask scheduler's address: the cases run on its workers (cluster.py)
    focus: str | None = None  # a clause the draw is weighted towards (drawing.generate_scenarios)


@frozen
class ChosenComparison:
    """The comparison a run uses, and where its normalisation came from (``source``): the
    user's option, the user's comparison file, the implementation's declaration, or the default."""

    comparison: Comparison
    source: str

    def line(self) -> str:
        return f"comparison: normalise {self.comparison.normalise} ({self.source})"

    def to_json(self) -> dict:
        return {"normalise": self.comparison.normalise, "from": self.source}


def declared_comparison(hello: dict | None) -> dict | None:
    """The ``compare`` object of a ``hello`` reply (a comparison object, normally just
    ``{"normalise": ...}``), checked; ``None`` when the implementation declares none.
    ``BadArguments`` names the JSON path of what is wrong in it."""
    if not hello or "compare" not in hello:
        return None
    declared = hello["compare"]
    if not isinstance(declared, dict):
        raise BadArguments(
            f'the hello reply\'s $.compare: a comparison object (e.g. {{"normalise": "mastra"}}), got {json.dumps(declared)[:60]}'
        )
    if "normalise" in declared and declared["normalise"] not in NORMALISE:
        raise BadArguments(f"the hello reply's $.compare.normalise: one of {list(NORMALISE)}, got {json.dumps(declared['normalise'])[:60]}")
    try:
        comparison_from_json(declared, None, "$.compare")
    except ComparisonError as e:
        raise BadArguments(f"the hello reply's {e.path}: {e.expected}") from None
    return declared


def chosen_comparison(
    hello: dict | None,
    user_file: dict | None = None,
    fields: dict[str, str] | None = None,
    normalise: str | None = None,
    option: str = "--normalise",
) -> ChosenComparison:
    """The implementation's declaration, then the user's comparison file over it, then the
    user's per-field modes and ``normalise`` over that: each layer changes only what it names.
    ``BadArguments`` for a malformed declaration (``$.compare...``), file (``$...``) or option."""
    cmp, source = Comparison(), "default"
    declared = declared_comparison(hello)
    if declared is not None:
        cmp = comparison_from_json(declared, cmp, "$.compare")
        if "normalise" in declared:
            who = " ".join(str(x) for x in ((hello or {}).get("implementation"), (hello or {}).get("version")) if x)
            source = f"declared by {who or 'the implementation'}"
    if user_file is not None:
        try:
            cmp = comparison_from_json(user_file, cmp, "$")
        except ComparisonError as e:
            raise BadArguments(f"{e.path}: {e.expected}") from None
        if "normalise" in user_file:
            source = "the comparison file"
    try:
        cmp = comparison_from_json({"fields": dict(fields or {})}, cmp, "--compare")
    except ComparisonError as e:
        raise BadArguments(f"{e.path}: {e.expected}") from None
    if normalise is not None:
        if normalise not in NORMALISE:
            raise BadArguments(f"{option} {normalise!r}: one of {list(NORMALISE)}")
        cmp = comparison_from_json({"normalise": normalise}, cmp, option)
        source = option
    return ChosenComparison(cmp, source)


def implementation_hello(impl: Any, timeout: float = 30.0, env: dict | None = None) -> dict:
    """Start the implementation, read its ``hello`` reply, stop it. ``BadArguments`` when it
    does not start (the JSON path of what is wrong, and its stderr)."""
    with Impl(impl, timeout=timeout, start_timeout=timeout, env=env) as im:
        try:
            return im.start()
        except StartFailed as e:
            shown = impl if isinstance(impl, str) else " ".join(impl)
            raise BadArguments(
                f"--impl {shown!r}: {e.problem.path}: {e.problem.expected}" + (f"\n{e.stderr}" if e.stderr else "")
            ) from None


def build_label(hello: dict | None) -> str:
    """What summaries put after the implementation and version: for a start message that names
    its build, a comma, ``build sha256`` and its first 12 hex digits; else nothing."""
    build = (hello or {}).get("build")
    digest = build.get("sha256") if isinstance(build, dict) else None
    return f", build sha256 {digest[:12]}" if isinstance(digest, str) else ""


__all__ = ["BadArguments", "ChosenComparison", "Config", "build_label", "chosen_comparison", "declared_comparison", "implementation_hello"]
