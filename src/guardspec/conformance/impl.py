"""A pipelined client of an implementation process (docs/protocol.md): many requests in flight,
one reply per request in order, and every way the process can misbehave reported per case.

``Impl.exchange(requests)`` returns one ``Answer`` per request: the reply object, or a
``Problem``. A crash or a hang costs only the request at the head of the queue (the one the
process was working on, since it answers in order); the process is restarted and the requests
behind it are sent again. Garbage lines, replies with another id and replies out of order are
charged to the case they were read for; a late duplicate reply to a case already answered is
noted on that case and does not shift the others.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Sequence
from typing import Any

from attrs import define, field

from guardspec.processes import kill_process

from .wire import Problem, check_hello, parse_line

_EOF = object()


@define
class Answer:
    reply: dict | None = None
    problem: Problem | None = None
    notes: list = field(factory=list)  # late or duplicate replies seen for this case
    seconds: float = 0.0


@define
class Incident:
    kind: str
    detail: str
    stderr_tail: str


class StartFailed(Exception):
    def __init__(self, problem: Problem, stderr: str = ""):
        super().__init__(problem.text())
        self.problem = problem
        self.stderr = stderr


def split_command(cmd: str | Sequence[str]) -> list[str]:
    return shlex.split(cmd) if isinstance(cmd, str) else list(cmd)


class Impl:
    """One implementation process at a time; restarted after a crash or a hang."""

    def __init__(
        self,
        command: str | Sequence[str],
        timeout: float = 10.0,
        start_timeout: float = 30.0,
        window: int = 256,
        cwd: str | None = None,
        env: dict | None = None,
    ) -> None:
        self.command = split_command(command)
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.window = max(1, window)
        self.cwd = cwd
        self.env = env
        self.hello: dict | None = None
        self.incidents: list[Incident] = []
        self.restarts = 0
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._out: queue.Queue = queue.Queue()
        self._stderr: collections.deque = collections.deque(maxlen=40)
        self._next = 0
        self._answered: dict[Any, Answer] = {}  # recent answers by id, for late replies

    # -- process ---------------------------------------------------------------------------------

    def _spawn(self) -> None:
        self._kill()
        try:
            proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                env=self.env,
                bufsize=0,
            )
        except OSError as e:
            raise StartFailed(
                Problem("start-failed", "$", f"a command that can be started: {' '.join(self.command)}: {e.strerror}")
            ) from None
        self._proc = proc
        lines: queue.Queue = queue.Queue()
        out: queue.Queue = queue.Queue()
        self._lines, self._out = lines, out
        self._stderr.clear()
        stderr = self._stderr

        def read_out() -> None:
            fd = proc.stdout.fileno()  # type: ignore[union-attr]
            buf = b""
            while True:
                try:
                    chunk = os.read(fd, 1 << 16)
                except OSError:
                    chunk = b""
                if not chunk:
                    if buf:
                        lines.put([buf])
                    lines.put(_EOF)
                    return
                buf += chunk
                if b"\n" in chunk:
                    *got, buf = buf.split(b"\n")
                    lines.put(got)

        def read_err() -> None:
            for line in proc.stderr:  # type: ignore[union-attr]
                stderr.append(line.decode("utf-8", "replace").rstrip("\n"))

        def write_in() -> None:
            while True:
                data = out.get()
                if data is None:
                    return
                try:
                    proc.stdin.write(data)  # type: ignore[union-attr]
                    proc.stdin.flush()  # type: ignore[union-attr]
                except (OSError, ValueError):
                    return

        for t in (read_out, read_err, write_in):
            threading.Thread(target=t, daemon=True).start()
        self._pending_lines: collections.deque = collections.deque()

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        self._out.put(None)
        kill_process(proc)

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def _send(self, objs: list[dict]) -> None:
        self._out.put(b"".join(json.dumps(o, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for o in objs))

    def _next_line(self, deadline: float) -> bytes | object | None:
        """A line, ``_EOF``, or None at the deadline."""
        while not self._pending_lines:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                got = self._lines.get(timeout=left)
            except queue.Empty:
                return None
            if got is _EOF:
                return _EOF
            self._pending_lines.extend(got)
        return self._pending_lines.popleft()

    def start(self) -> dict:
        """Spawn and check ``hello`` (protocol 1); ``StartFailed`` names what is wrong."""
        self._spawn()
        self._next += 1
        hid = f"hello-{self._next}"
        self._send([{"id": hid, "kind": "hello"}])
        deadline = time.monotonic() + self.start_timeout
        while True:
            line = self._next_line(deadline)
            if line is None or line is _EOF:
                what = "no hello reply" if line is None else "the process exited before its hello reply"
                problem = Problem("start-failed", "$", f"a hello reply within {self.start_timeout:g} s ({what})")
                tail = self.stderr_tail()
                self._kill()
                self.incidents.append(Incident("start-failed", problem.expected, tail))
                raise StartFailed(problem, tail)
            obj, p = parse_line(line)  # type: ignore[arg-type]
            if p is None and obj.get("id") != hid:
                continue
            p = p or check_hello(obj)
            if p:
                self._kill()
                self.incidents.append(Incident("start-failed", p.text(), self.stderr_tail()))
                raise StartFailed(Problem("start-failed", p.path, p.expected), self.stderr_tail())
            self.hello = obj
            return obj

    def close(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            self._send([{"id": "stop", "kind": "stop"}])
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        self._kill()

    def __enter__(self) -> Impl:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- the pipeline ------------------------------------------------------------------------------

    def exchange(self, requests: Sequence[dict], timeout: float | None = None) -> list[Answer]:
        """Send every request (ids are assigned here), return one Answer per request, in order.
        ``timeout`` bounds the wait for each reply, counted from the previous one."""
        timeout = self.timeout if timeout is None else timeout
        n = len(requests)
        answers: list[Answer | None] = [None] * n
        ids: list[Any] = []
        for _ in range(n):
            self._next += 1
            ids.append(self._next)
        index = {rid: i for i, rid in enumerate(ids)}
        todo = collections.deque(range(n))  # not yet sent
        inflight: collections.deque = collections.deque()  # sent, unanswered, in order
        sent_at: dict[int, float] = {}
        while todo or inflight:
            if self._proc is None or (self._proc.poll() is not None and not inflight):
                try:
                    self.start()
                except StartFailed as e:
                    for i in list(inflight) + list(todo):
                        answers[i] = Answer(problem=e.problem)
                    break
            if todo and len(inflight) <= self.window // 2:
                batch = []
                while todo and len(inflight) < self.window:
                    i = todo.popleft()
                    inflight.append(i)
                    batch.append({**requests[i], "id": ids[i]})
                    sent_at[i] = time.monotonic()
                self._send(batch)
            head = inflight[0]
            start = sent_at[head]
            line = self._next_line(start + timeout)
            if line is None or line is _EOF:
                if line is None:
                    problem = Problem("timeout", "$", f"a reply within {timeout:g} s")
                else:
                    code = self._proc.wait(timeout=5) if self._proc else None
                    problem = Problem("crashed", "$", f"a reply (the process exited with code {code})")
                self.incidents.append(Incident(problem.kind, problem.expected, self.stderr_tail()))
                answers[head] = Answer(problem=Problem(problem.kind, problem.path, problem.expected + _tail(self.stderr_tail())))
                inflight.popleft()
                self._kill()
                self.restarts += 1
                # resend the rest: the process was working on ``head``
                for i in reversed(inflight):
                    todo.appendleft(i)
                inflight.clear()
                continue
            now = time.monotonic()
            obj, p = parse_line(line)  # type: ignore[arg-type]
            if p is not None:
                answers[head] = Answer(problem=p, seconds=now - start)
                inflight.popleft()
            else:
                rid = obj["id"]
                if rid == ids[head]:
                    answers[head] = Answer(reply=obj, seconds=now - start)
                    inflight.popleft()
                elif rid in index and index[rid] in inflight:
                    i = index[rid]
                    answers[i] = Answer(
                        reply=obj,
                        problem=Problem(
                            "out-of-order", "$.id", f"the reply to request {ids[head]} first (replies come in request order), got {rid}"
                        ),
                        seconds=now - sent_at[i],
                    )
                    inflight.remove(i)
                elif rid in index and answers[index[rid]] is not None:
                    answers[index[rid]].notes.append(f"another reply with id {rid} after its answer")  # type: ignore[union-attr]
                elif rid in self._answered:
                    self._answered[rid].notes.append(f"a late reply with id {rid}")
                else:
                    answers[head] = Answer(
                        reply=obj,
                        problem=Problem("wrong-id", "$.id", f"{json.dumps(ids[head])} (the request's id), got {json.dumps(rid)[:60]}"),
                        seconds=now - start,
                    )
                    inflight.popleft()
            if inflight:
                sent_at[inflight[0]] = max(sent_at[inflight[0]], now)
        out = [a if a is not None else Answer(problem=Problem("crashed", "$", "a reply")) for a in answers]
        self._answered = {ids[i]: out[i] for i in range(n)}
        return out


def _tail(stderr: str) -> str:
    lines = [l for l in stderr.splitlines() if l.strip()][-3:]
    return f"; stderr: {' | '.join(lines)[:300]}" if lines else ""


__all__ = ["Answer", "Impl", "Incident", "StartFailed", "split_command"]
