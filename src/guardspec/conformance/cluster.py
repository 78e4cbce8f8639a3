"""Running a campaign's cases on a Dask cluster (``guardspec diff --cluster ADDRESS``).

The client draws the cases (as a local campaign does: ``drawing.py``, from the seed alone) and
sends them in chunks of ``Config.chunk`` to the scheduler, a few chunks per worker thread in
flight. On each worker an ``ImplPool`` (a worker plugin) starts the implementation processes
there, one per task running at once, and keeps them for the worker's later chunks. A chunk is
judged on the worker by the code a local job runs (``execution.judge_chunk``), so a fault of
the implementation costs only its case, as locally; its records come back to the client, which
writes them into the one ``results.jsonl`` as they arrive. A chunk whose task fails (its worker
died more often than the scheduler retries) is left unjudged: no record, so a resumed campaign
runs it. Verdicts depend only on the case and the implementation, not on which worker or chunk
ran it. Shrinking stays on the client, with its own implementation process (``campaign.py``).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from attrs import evolve
from distributed import Client, WorkerPlugin, as_completed, get_worker

from .execution import incident_record, judge_chunk
from .impl import Impl, Incident
from .results import ResultsWriter
from .settings import BadArguments, Config

CONNECT_SECONDS = 10.0
"""How long the client tries to reach the scheduler."""
WORKER_SECONDS = 60.0
"""How long the client waits for a first worker to join the scheduler."""
PER_THREAD = 2
"""Chunks in flight per worker thread: one running, one waiting, so that no worker idles."""


class ImplPool(WorkerPlugin):
    """A worker's implementation processes: started on the worker at its first case, one per
    task running at once, reused across the worker's cases; closed when the campaign removes
    the plugin or the worker stops."""

    def __init__(self, command: str, timeout: float, window: int) -> None:
        self.command, self.timeout, self.window = command, timeout, window

    def setup(self, worker: Any) -> None:
        self.lock = threading.Lock()
        self.idle: list[Impl] = []
        self.every: list[Impl] = []

    def teardown(self, worker: Any) -> None:
        for im in self.every:
            im.close()

    @contextlib.contextmanager
    def borrowed(self) -> Iterator[Impl]:
        with self.lock:
            if self.idle:
                im = self.idle.pop()
            else:
                im = Impl(self.command, timeout=self.timeout, window=self.window)
                self.every.append(im)
        try:
            yield im
        finally:
            with self.lock:
                self.idle.append(im)


def judge_on_worker(
    plugin: str, cfg: Config, hello: dict, chunk: list[tuple[int, str]], scenarios: dict, hashes: dict
) -> tuple[list[dict], list[Incident]]:
    """A task: one chunk judged on this worker's implementation processes; each record names
    the worker (``worker``: its address)."""
    worker = get_worker()
    pool: ImplPool = worker.plugins[plugin]  # type: ignore[assignment]
    with pool.borrowed() as im:
        recs, incs = judge_chunk(cfg, im, hello, chunk, scenarios, hashes)
    for rec in recs:
        rec["worker"] = worker.address
    return recs, incs


def connect(address: str) -> Client:
    """A client of the scheduler at ``address`` with at least one worker; ``BadArguments``
    (exit 2) when none answers there or no worker joins it."""
    try:
        client = Client(address, timeout=CONNECT_SECONDS)
    except (OSError, TimeoutError, ValueError) as e:
        raise BadArguments(f"--cluster {address!r}: no Dask scheduler answers there ({type(e).__name__}: {e})") from None
    try:
        client.wait_for_workers(1, timeout=WORKER_SECONDS)
    except TimeoutError:
        client.close()
        raise BadArguments(f"--cluster {address!r}: no worker joined the scheduler within {WORKER_SECONDS:g} s") from None
    return client


def run_cases_on_cluster(
    client: Client,
    cfg: Config,
    hello: dict,
    scenarios: list[dict],
    hashes: list[str],
    todo: list[tuple[int, str]],
    writer: ResultsWriter,
    records: list[dict],
    counts: dict[str, int],
    progress: Callable[[int, dict], None] | None = None,
) -> tuple[list[Incident], list[tuple[int, str]], str]:
    """``execution.run_cases`` on the workers of ``client``'s scheduler (``connect``): each
    record written, appended to ``records`` and counted as it arrives. Returns the incidents,
    the (case, mode) pairs no worker judged, and why (the first failed task's error)."""
    name = f"guardspec-impls-{uuid.uuid4().hex[:12]}"
    sent = evolve(cfg, out=None)  # what a worker needs: the comparison, the known discrepancies
    incidents: list[Incident] = []
    unrun: list[tuple[int, str]] = []
    why = ""
    try:
        client.register_plugin(ImplPool(cfg.impl, cfg.timeout, cfg.window), name=name)
        chunks = iter([todo[k : k + cfg.chunk] for k in range(0, len(todo), cfg.chunk)])
        of: dict[Any, list[tuple[int, str]]] = {}  # a task's key -> its chunk
        running = as_completed()

        def submit(chunk: list[tuple[int, str]]) -> None:
            cases = {i for i, _ in chunk}
            fut = client.submit(
                judge_on_worker, name, sent, hello, chunk, {i: scenarios[i] for i in cases}, {i: hashes[i] for i in cases}, pure=False
            )
            of[fut.key] = chunk
            running.add(fut)

        threads = sum(client.nthreads().values()) or 1
        for chunk in itertools.islice(chunks, PER_THREAD * threads):
            submit(chunk)
        for fut in running:
            chunk = of.pop(fut.key)
            nxt = next(chunks, None)
            if nxt is not None:
                submit(nxt)
            try:
                recs, incs = fut.result()
            except Exception as e:  # the worker's task failed, not the implementation: unjudged, run again on resume
                unrun.extend(chunk)
                why = why or f"{type(e).__name__}: {e}"
                continue
            for inc in incs:
                writer.write(incident_record(inc))
            incidents.extend(incs)
            for rec in recs:
                writer.write(rec)
                records.append(rec)
                counts[rec["status"]] = counts.get(rec["status"], 0) + 1
                if progress:
                    progress(len(records), dict(counts))
    finally:
        with contextlib.suppress(Exception):  # the workers' processes stop with their plugin
            client.unregister_worker_plugin(name)
    return incidents, unrun, why


__all__ = ["ImplPool", "connect", "judge_on_worker", "run_cases_on_cluster"]
