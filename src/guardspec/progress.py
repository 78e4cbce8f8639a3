"""Progress of a long command (diff, mastra-diff, explore, mutants, prove, bench), on stderr.

On a terminal: a rich progress bar per task. Elsewhere (CI logs, pipes): plain lines, one when a
task starts, one at most every ``interval`` seconds while it runs, and one when it ends, so a log
shows that a campaign is alive without drowning in it. Standard output stays for the command's
summary (and its ``--json``).

    with Progress() as p:
        t = p.task("diff", total=400)
        t.update(10, "agree 9 disagree 1")
        t.advance()
        t.done("400 cases")
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.progress import Progress as RichProgress

INTERVAL = 5.0


class Task:
    """One counted piece of work. ``total`` None: a count without an end known in advance."""

    def __init__(self, owner: Progress, name: str, total: int | None, completed: int = 0) -> None:
        self.owner, self.name, self.total = owner, name, total
        self.completed, self.info = completed, ""
        self.started = time.monotonic()
        self._last_line = 0.0
        self._id = owner._rich.add_task(name, total=total, completed=completed, info="") if owner._rich else None
        self._line(force=True)

    def update(self, completed: int | None = None, info: str | None = None) -> None:
        if completed is not None:
            self.completed = completed
        if info is not None:
            self.info = info
        if self._id is not None:
            self.owner._rich.update(self._id, completed=self.completed, info=self.info)  # type: ignore[union-attr]
        self._line()

    def advance(self, n: int = 1, info: str | None = None) -> None:
        self.update(self.completed + n, info)

    def done(self, info: str | None = None) -> None:
        """The task ended: the bar is full; a last plain line says so."""
        if self.total is not None:
            self.completed = max(self.completed, self.total)
        self.update(None, info)
        self._line(force=True, final=True)

    def _line(self, force: bool = False, final: bool = False) -> None:
        out = self.owner._plain
        if out is None:
            return
        now = time.monotonic()
        if not force and now - self._last_line < self.owner.interval:
            return
        self._last_line = now
        count = f"{self.completed}/{self.total}" if self.total is not None else f"{self.completed}"
        state = "done" if final else "…"
        tail = f" {self.info}" if self.info else ""
        print(f"[{self.name}] {count} {state}{tail} ({now - self.started:.1f} s)", file=out, flush=True)


class Progress:
    """A context manager holding the tasks of one command. ``enabled=False``: silent."""

    def __init__(self, enabled: bool = True, stream: TextIO | None = None, interval: float = INTERVAL, tty: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.enabled = enabled
        is_tty = tty if tty is not None else bool(getattr(self.stream, "isatty", lambda: False)())
        self._rich: RichProgress | None = None
        self._plain: TextIO | None = None
        if enabled and is_tty:
            self._rich = RichProgress(
                TextColumn("[bold]{task.description}[/bold]"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[info]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=Console(file=self.stream, force_terminal=True),
                transient=False,
            )
        elif enabled:
            self._plain = self.stream

    def task(self, name: str, total: int | None = None, completed: int = 0) -> Task:
        return Task(self, name, total, completed)

    def __enter__(self) -> Progress:
        if self._rich:
            self._rich.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._rich:
            self._rich.stop()


class CampaignTasks:
    """A conformance campaign's callbacks (``run_campaign(cfg, *tasks.callbacks())``): one task
    for its cases, then one for shrinking what it found; ``finish(counts)`` closes them."""

    def __init__(self, progress: Progress | None, name: str, total: int | None = None) -> None:
        self.progress, self.name = progress, name
        self.cases: Task | None = None
        self.shrinking: Task | None = None
        self.drawing: Task | None = None
        self.drawing_done = False
        self.total = total  # the cases to draw, when known

    def on_generate(self, drawn: int) -> None:
        if self.progress:
            if self.drawing is None:
                self.drawing = self.progress.task(f"{self.name} drawing scenarios", total=self.total)
            self.drawing.update(drawn)
            if self.total is not None and drawn >= self.total:
                self._drawn()

    def _drawn(self) -> None:
        if self.drawing is not None and not self.drawing_done:
            self.drawing.done()
            self.drawing_done = True

    def on_start(self, total: int, done: int) -> None:
        if self.total is None:  # the draw came first (the cases run while they are drawn when it is known)
            self._drawn()
        if self.progress:
            self.cases = self.progress.task(self.name, total=total, completed=done)

    def on_progress(self, done: int, counts: dict) -> None:
        if self.cases:
            self.cases.update(done, counts_text(counts))

    def on_shrink(self, done: int, total: int, signature: str) -> None:
        if not self.progress:
            return
        if self.shrinking is None:
            if self.cases:
                self.cases.done()
            self.shrinking = self.progress.task(f"{self.name} shrinking", total=total)
        self.shrinking.update(done, signature)
        if done == total:
            self.shrinking.done()

    def callbacks(self) -> tuple:
        return self.on_progress, self.on_start, self.on_shrink, self.on_generate

    def finish(self, counts: dict) -> None:
        if self.cases and self.shrinking is None:
            self.cases.done(counts_text(counts))


def counts_text(counts: dict) -> str:
    """``{"agree": 9, "disagree": 1}`` as ``agree 9 disagree 1``."""
    return " ".join(f"{k} {v}" for k, v in sorted(counts.items()))


__all__ = ["INTERVAL", "CampaignTasks", "Progress", "Task", "counts_text"]
