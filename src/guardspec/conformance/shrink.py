"""Delta debugging on a scenario's JSON: the smallest scenario we can find that still shows the
same disagreement (same mode, same first differing field, or the same kind of problem).

Candidates, shallowest first: drop an array element (processors, caller and stored messages,
steps, parts, policies, tools, threads), drop an object key, then simplify a value (a string to
``""``, a number to 0, a container emptied). A candidate the model rejects (bad scenario) is
discarded without asking the implementation; the others go to the implementation in batches,
pipelined, and the first one in candidate order that still fails is kept. ``shrink_case``
does so for a campaign's case: the cause to keep is its verdict's (``Verdict.cause``).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .cases import Verdict, judge, loop_of, model_observation
from .impl import Answer, Impl
from .settings import Config

Path = tuple


def _nodes(v: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    yield path, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _nodes(x, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _nodes(x, path + (i,))


def _get(v: Any, path: Path) -> Any:
    for p in path:
        v = v[p]
    return v


def _with(root: Any, path: Path, fn: Callable[[Any], Any]) -> Any:
    """A copy of ``root`` with the node at ``path`` replaced by ``fn(node)`` (copies the spine only)."""
    if not path:
        return fn(root)
    head, rest = path[0], path[1:]
    out = dict(root) if isinstance(root, dict) else list(root)
    out[head] = _with(root[head], rest, fn)
    return out


_KEEP_KEYS = frozenset({"guardspec", "agent", "call", "id", "role", "type", "kind", "loop", "state", "toolCallId", "toolName"})
_PROTECTED = {("guardspec",), ("agent",), ("call",)}


def candidates(sj: dict) -> list[tuple[str, dict]]:
    """Smaller variants of scenario JSON ``sj``, most promising first: (what, candidate)."""
    nodes = sorted(_nodes(sj), key=lambda pv: len(pv[0]))
    drops: list[tuple[str, dict]] = []
    keys: list[tuple[str, dict]] = []
    simpler: list[tuple[str, dict]] = []
    for path, v in nodes:
        if isinstance(v, list) and v:
            if len(v) > 2:
                half = len(v) // 2
                drops.append((f"{_p(path)}[{half}:]", _with(sj, path, lambda l, h=half: l[:h])))
                drops.append((f"{_p(path)}[:{half}]", _with(sj, path, lambda l, h=half: l[h:])))
            for i in reversed(range(len(v))):
                drops.append((f"{_p(path)}[{i}]", _with(sj, path, lambda l, i=i: l[:i] + l[i + 1 :])))
        if isinstance(v, dict):
            for k in v:
                if path + (k,) in _PROTECTED:
                    continue
                keys.append((f"{_p(path + (k,))} deleted", _with(sj, path, lambda d, k=k: {a: b for a, b in d.items() if a != k})))
        if path and path[-1] not in _KEEP_KEYS and path not in _PROTECTED:
            for s in _simpler(v):
                simpler.append((f"{_p(path)} = {s!r}"[:80], _with(sj, path, lambda _, s=s: copy.deepcopy(s))))
    return drops + keys + simpler


def _simpler(v: Any) -> list[Any]:
    if isinstance(v, bool):
        return [False] if v else []
    if isinstance(v, (int, float)):
        return [0] if v != 0 else []
    if isinstance(v, str):
        return [""] if v else []
    if isinstance(v, list):
        return [[]] if v else []
    if isinstance(v, dict):
        return [None] if v else []
    return []


def _p(path: Path) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def size(sj: Any) -> int:
    return sum(1 for _ in _nodes(sj))


def shrink(
    sj: dict,
    still_fails: Callable[[Sequence[dict]], list[bool]],
    max_candidates: int = 4000,
    seconds: float = 120.0,
    batch: int = 32,
) -> tuple[dict, int]:
    """Greedy delta debugging. ``still_fails(batch)`` answers, for each candidate, whether it
    still shows the failure (invalid candidates answer False). Returns (smallest, tried)."""
    best = sj
    tried = 0
    deadline = time.monotonic() + seconds
    progress = True
    while progress and tried < max_candidates and time.monotonic() < deadline:
        progress = False
        pos = 0
        while tried < max_candidates and time.monotonic() < deadline:
            cands = candidates(best)
            if pos >= len(cands):
                break
            chunk = [c for _, c in cands[pos : pos + batch]]
            tried += len(chunk)
            oks = still_fails(chunk)
            hit = next((i for i, ok in enumerate(oks) if ok), None)
            if hit is None:
                pos += len(chunk)
                continue
            best = chunk[hit]
            progress = True
            pos = max(0, pos + hit - 1)  # the list shifted; look again around the same place
    return best, tried


# -- a campaign's case --------------------------------------------------------------------------


def run_one(sj: dict, mode: str, impl: Impl, cfg: Config) -> tuple[Verdict, dict, Answer] | None:
    """One case on a started implementation: (verdict, model's observation, answer), or None
    when the reference fails on the scenario."""
    try:
        mo = model_observation(sj, mode)
    except Exception:
        return None
    ans = impl.exchange([{"kind": "run", "mode": mode, "scenario": sj}])[0]
    return judge(sj, mode, mo, ans, cfg.comparison, impl.hello, loop_of(sj)), mo, ans


def shrink_case(sj: dict, mode: str, cause: tuple, impl: Impl, cfg: Config) -> tuple[dict, int]:
    """The smallest scenario found that still shows ``cause`` (``Verdict.cause``): the same
    first differing path and the same values there, not merely the same field."""

    def still_fails(batch: list[dict]) -> list[bool]:
        oks = [False] * len(batch)
        valid, models = [], []
        for k, c in enumerate(batch):
            try:
                models.append(model_observation(c, mode))
                valid.append(k)
            except Exception:
                continue
        if not valid:
            return oks
        answers = impl.exchange([{"kind": "run", "mode": mode, "scenario": batch[k]} for k in valid])
        for k, mo, ans in zip(valid, models, answers):
            v = judge(batch[k], mode, mo, ans, cfg.comparison, impl.hello, loop_of(batch[k]))
            oks[k] = v.cause() == cause
        return oks

    return shrink(sj, still_fails, seconds=cfg.shrink_seconds)


__all__ = ["candidates", "run_one", "shrink", "shrink_case", "size"]
