"""Running a campaign's cases: chunks of (scenario, mode) sent to a pool of implementation
processes, one thread each, every verdict judged against the model and written as it comes."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from .cases import Verdict, judge, loop_of, model_observation
from .impl import Answer, Impl, Incident
from .known import finding_of, known_entry
from .results import ResultsWriter
from .settings import Config
from .wire import Problem


def case_record(cfg: Config, i: int, m: str, sj: dict, h: str, mo: Any, ans: Answer, hello: dict) -> dict:
    """The results record of case ``i`` in mode ``m``: its verdict, marked ``known`` (with the
    reason, and the ``finding`` it names, ``+``-joined when several show at once) when a known
    discrepancy covers it, else with the implementation's observation when
    it disagrees. ``mo``: the model's observation, or the ``Problem`` the reference met."""
    loop = loop_of(sj)
    if isinstance(mo, Problem):
        v = Verdict("model-error", f"{m}:model-error", problem=mo)
    else:
        v = judge(sj, m, mo, ans, cfg.comparison, hello, loop)
    rec = {"type": "case", "case": i, "mode": m, "loop": loop, "hash": h, **v.to_json(), "seconds": round(ans.seconds, 4)}
    if v.status in ("disagree", "problem"):
        observed = ans.reply.get("observation") if isinstance(ans.reply, dict) else None
        entry = known_entry(cfg.known, v, loop, h, mo, sj, observed, cfg.comparison)
        if entry is not None:
            rec["status"], rec["known"] = "known", entry["reason"]
            if finding_of(entry):
                rec["finding"] = finding_of(entry)
        elif isinstance(ans.reply, dict) and v.status == "disagree":
            rec["implObservation"] = ans.reply.get("observation")
    return rec


def incident_record(inc: Incident) -> dict:
    """The results record of an incident: its kind, the case and mode it concerns (if any)."""
    rec: dict[str, Any] = {"type": "incident", "kind": inc.kind}
    if isinstance(inc.case, tuple):
        rec["case"], rec["mode"] = inc.case
    rec["detail"] = inc.detail
    return rec


def judge_chunk(
    cfg: Config, impl: Impl, hello: dict, chunk: list[tuple[int, str]], scenarios: Any, hashes: Any
) -> tuple[list[dict], list[Incident]]:
    """One exchange: the cases of ``chunk`` ((case, mode) pairs) run on ``impl`` and on the
    model, each judged. ``scenarios`` and ``hashes`` are indexed by case (a list, or a dict of
    the chunk's cases). Returns the case records in ``chunk``'s order and the incidents the
    exchange brought. The same code judges a local job's cases and a cluster worker's."""
    reqs, models = [], []
    for i, m in chunk:
        try:
            models.append(model_observation(scenarios[i], m))
        except Exception as e:  # the reference failed: the case is reported, not the run
            models.append(Problem("model-error", "$", f"{type(e).__name__}: {e}"))
        reqs.append({"kind": "run", "mode": m, "scenario": scenarios[i]})
    seen = len(impl.incidents)
    answers = impl.exchange(reqs, tags=chunk)
    recs = [
        case_record(cfg, i, m, scenarios[i], hashes[i], mo, ans, impl.hello or hello) for (i, m), mo, ans in zip(chunk, models, answers)
    ]
    return recs, impl.incidents[seen:]


def run_cases(
    cfg: Config,
    probe: Impl,
    hello: dict,
    scenarios: list[dict],
    hashes: list[str],
    todo: list[tuple[int, str]],
    writer: ResultsWriter,
    records: list[dict],
    counts: dict[str, int],
    progress: Callable[[int, dict], None] | None = None,
) -> list:
    """Judge every (case, mode) of ``todo`` on ``cfg.jobs`` processes (``probe``, started, the
    first of them), ``cfg.chunk`` cases per exchange. Each record is written, appended to
    ``records`` and counted by status in ``counts`` as it comes; ``progress(done, counts)``
    after each; each process's incidents (duplicate and late replies, crashes, timeouts) are
    written as ``incident`` records after the exchange they came in. Closes every process and
    returns their incidents."""
    lock = threading.Lock()
    chunks: queue.Queue = queue.Queue()
    for k in range(0, len(todo), cfg.chunk):
        chunks.put(todo[k : k + cfg.chunk])

    def work(impl: Impl) -> None:
        while True:
            try:
                chunk = chunks.get_nowait()
            except queue.Empty:
                return
            recs, incs = judge_chunk(cfg, impl, hello, chunk, scenarios, hashes)
            for inc in incs:
                writer.write(incident_record(inc))
            for rec in recs:
                writer.write(rec)
                with lock:
                    records.append(rec)
                    counts[rec["status"]] = counts.get(rec["status"], 0) + 1
                    if progress:
                        progress(len(records), dict(counts))

    incidents: list = []
    impls = [probe] + [Impl(cfg.impl, timeout=cfg.timeout, window=cfg.window) for _ in range(max(0, cfg.jobs - 1))]
    try:
        threads = [threading.Thread(target=work, args=(im,), daemon=True) for im in impls]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for im in impls:
            incidents.extend(im.incidents)
    finally:
        for im in impls:
            im.close()
    return incidents


__all__ = ["case_record", "incident_record", "judge_chunk", "run_cases"]
