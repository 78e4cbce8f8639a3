"""Running a campaign's cases: (scenario, mode) pairs streamed to a pool of implementation
processes, one thread each, every verdict judged against the model and written as it comes."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from .cases import Verdict, judge, loop_of, model_observation
from .impl import NOT_YET, Answer, Impl, Incident
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


def model_of(sj: dict, m: str) -> Any:
    """The model's observation of scenario ``sj`` in mode ``m``, or the ``Problem`` the
    reference met (the case is reported, not the run)."""
    try:
        return model_observation(sj, m)
    except Exception as e:
        return Problem("model-error", "$", f"{type(e).__name__}: {e}")


def judge_chunk(
    cfg: Config, impl: Impl, hello: dict, chunk: list[tuple[int, str]], scenarios: Any, hashes: Any
) -> tuple[list[dict], list[Incident]]:
    """One exchange: the cases of ``chunk`` ((case, mode) pairs) run on ``impl`` and on the
    model, each judged. ``scenarios`` and ``hashes`` are indexed by case (a list, or a dict of
    the chunk's cases). Returns the case records in ``chunk``'s order and the incidents the
    exchange brought. A cluster worker judges its chunks with it, as a local job judges its
    stream of cases (``run_cases``), with the same records."""
    models = [model_of(scenarios[i], m) for i, m in chunk]
    reqs = [{"kind": "run", "mode": m, "scenario": scenarios[i]} for i, m in chunk]
    seen = len(impl.incidents)
    answers = impl.exchange(reqs, tags=chunk)
    recs = [
        case_record(cfg, i, m, scenarios[i], hashes[i], mo, ans, impl.hello or hello) for (i, m), mo, ans in zip(chunk, models, answers)
    ]
    return recs, impl.incidents[seen:]


class CaseFeed:
    """The (case, mode) pairs a local campaign runs, handed to its processes while they are
    still being drawn: ``put`` each, ``close`` once the draw has ended."""

    def __init__(self, cases: Any = ()) -> None:
        self._q: queue.Queue = queue.Queue()
        for c in cases:
            self._q.put(c)

    def put(self, case: tuple[int, str]) -> None:
        self._q.put(case)

    def close(self) -> None:
        self._q.put(None)

    def get(self, block: bool) -> Any:
        """The next pair; None once closed and empty; ``NOT_YET`` if none is there and
        ``block`` is false. The closing None stays in the queue for every other taker."""
        while True:
            try:
                got = self._q.get(timeout=0.5) if block else self._q.get_nowait()
            except queue.Empty:
                if block:
                    continue
                return NOT_YET
            if got is None:
                self._q.put(None)
            return got


NO_PROCESS = Problem("start-failed", "$", "an implementation process that starts (every one failed to start)")


def run_cases(
    cfg: Config,
    probe: Impl,
    hello: dict,
    scenarios: list[dict],
    hashes: list[str],
    todo: list[tuple[int, str]] | CaseFeed,
    writer: ResultsWriter,
    records: list[dict],
    counts: dict[str, int],
    progress: Callable[[int, dict], None] | None = None,
    lock: Any = None,
) -> list:
    """Judge every (case, mode) of ``todo`` on ``cfg.jobs`` processes (``probe``, started, the
    first of them). Each process takes cases from one queue as its window has room
    (``Impl.stream``), so a slow case holds up no other; the model's observation is computed
    when the answer comes. Each record is written, appended to ``records`` and counted by
    status in ``counts`` as it comes; ``progress(done, counts)`` after each; a process's
    incidents (duplicate and late replies, crashes, timeouts) are written as ``incident``
    records as they are met. Cases left when every process has failed to start are charged
    ``start-failed``. ``todo`` is a list, or a ``CaseFeed`` still being filled (``scenarios``
    and ``hashes`` then grow with it); ``lock`` guards ``records`` and ``counts`` if another
    thread adds to them. Closes every process and returns their incidents."""
    lock = lock or threading.Lock()
    feed = todo if isinstance(todo, CaseFeed) else CaseFeed(todo)
    if not isinstance(todo, CaseFeed):
        feed.close()

    def source(block: bool) -> Any:
        got = feed.get(block)
        if got is None or got is NOT_YET:
            return got
        i, m = got
        return {"kind": "run", "mode": m, "scenario": scenarios[i]}, (i, m)

    def record(rec: dict, incs: list[Incident]) -> None:
        for inc in incs:
            writer.write(incident_record(inc))
        if rec:
            writer.write(rec)
            with lock:
                records.append(rec)
                counts[rec["status"]] = counts.get(rec["status"], 0) + 1
                if progress:
                    progress(len(records), dict(counts))

    def work(impl: Impl) -> None:
        seen = 0

        def on_answer(tag: tuple[int, str], ans: Answer) -> None:
            nonlocal seen
            i, m = tag
            rec = case_record(cfg, i, m, scenarios[i], hashes[i], model_of(scenarios[i], m), ans, impl.hello or hello)
            incs, seen = impl.incidents[seen:], len(impl.incidents)
            record(rec, incs)

        impl.stream(source, on_answer)
        record({}, impl.incidents[seen:])

    incidents: list = []
    impls = [probe] + [Impl(cfg.impl, timeout=cfg.timeout, window=cfg.window) for _ in range(max(0, cfg.jobs - 1))]
    try:
        threads = [threading.Thread(target=work, args=(im,), daemon=True) for im in impls]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        while (got := feed.get(block=True)) is not None:
            (i, m) = got
            record(case_record(cfg, i, m, scenarios[i], hashes[i], model_of(scenarios[i], m), Answer(problem=NO_PROCESS), hello), [])
        for im in impls:
            incidents.extend(im.incidents)
    finally:
        for im in impls:
            im.close()
    return incidents


__all__ = ["CaseFeed", "case_record", "incident_record", "judge_chunk", "model_of", "run_cases"]
