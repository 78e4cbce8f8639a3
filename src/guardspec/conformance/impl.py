"""A pipelined client of an implementation process (docs/protocol.md): many requests in flight,
replies matched to them by id, and every way the process can misbehave charged to one case.

``Impl.exchange(requests)`` returns one ``Answer`` per request: the reply object, or a
``Problem``. A reply is its request's answer whenever its id names a request in flight; one
that comes after the reply to a later request is noted ``out-of-order``. A garbage line, a reply
with an unknown id, a crash or a hang is charged to the request an implementation answering in
order is working on (the first unanswered one sent after the last answered); a request skipped
while later ones were answered is charged ``timeout`` alone and the process kept. After a crash
or a hang the process is restarted and the requests that were in flight behind the charged one
are sent again. Duplicate, late and stray replies are ``Incident``s, as are crashes and timeouts.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from attrs import define, field

from guardspec.processes import kill_process

from .wire import Problem, check_hello, parse_line

_EOF = object()
NOT_YET = object()
"""What a stream's source gives when it has nothing now but may have more later."""


@define
class Answer:
    reply: dict | None = None
    problem: Problem | None = None
    notes: list = field(factory=list)  # out-of-order, re-run on a fresh process
    seconds: float = 0.0


@define
class Incident:
    """Something the process did besides answering each request once: ``crashed``, ``timeout``
    (also charged to the case), ``duplicate``, ``late``, ``out-of-order``, ``stray``,
    ``start-failed``. ``case``: the exchange's tag of the request it concerns, if any."""

    kind: str
    detail: str
    stderr_tail: str
    case: Any = None


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
        # recent ids -> (tag, "answered" | "timeout" | "crashed", hash of the reply line): late and duplicate replies
        self._past: dict[Any, tuple] = {}
        self._err_thread: threading.Thread | None = None

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
            th = threading.Thread(target=t, daemon=True)
            th.start()
            if t is read_err:
                self._err_thread = th
        self._pending_lines: collections.deque = collections.deque()

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        self._out.put(None)
        kill_process(proc)

    def _exit_code(self) -> int | None:
        """The exit code of a process whose stdout has closed (None if it does not exit), once
        its last stderr lines are read."""
        proc = self._proc
        if proc is None:
            return None
        try:
            code = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return None
        if self._err_thread is not None:
            self._err_thread.join(timeout=1)
        return code

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def _send(self, objs: list[dict]) -> None:
        self._out.put(b"".join(json.dumps(o, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for o in objs))

    def _next_line(self, deadline: float) -> bytes | object | None:
        """A line, ``_EOF``, or None at the deadline (at once if it has passed and no line waits)."""
        while not self._pending_lines:
            left = deadline - time.monotonic()
            try:
                got = self._lines.get(timeout=left) if left > 0 else self._lines.get_nowait()
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
            self._remember(hid, None, "answered", hash(line))
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

    def exchange(self, requests: Sequence[dict], timeout: float | None = None, tags: Sequence[Any] | None = None) -> list[Answer]:
        """Send every request (ids are assigned here), return one Answer per request, in order.
        ``timeout`` bounds the wait for a reply, counted from the last line the process wrote;
        ``tags`` name the requests in incidents and notes (a campaign's (case, mode))."""
        return _Exchange(self, requests, self.timeout if timeout is None else timeout, tags).run()

    def stream(
        self,
        source: Callable[[bool], Any],
        on_answer: Callable[[Any, Answer], None],
        timeout: float | None = None,
    ) -> None:
        """An exchange with no end fixed in advance: ``source(block)`` gives the next (request,
        tag), None once there are no more, or (when ``block`` is false) ``NOT_YET``; it is asked
        whenever the window has room, blocking only when nothing is in flight.
        ``on_answer(tag, answer)`` is called as each answer is settled. The window stays full
        however long one request takes, where ``exchange`` waits for the slowest of its batch."""
        ex = _Exchange(self, [], self.timeout if timeout is None else timeout, [], source=source, on_answer=on_answer)
        ex.run()

    def _remember(self, rid: Any, tag: Any, state: str, digest: int = 0) -> None:
        self._past[rid] = (tag, state, digest)

    def _forget_old(self) -> None:
        excess = len(self._past) - _PAST
        if excess > 0:
            for rid in list(itertools.islice(self._past, excess)):
                del self._past[rid]


_PAST = 4096  # ids remembered after their exchange, for late and duplicate replies


class _Exchange:
    """One ``Impl.exchange``: requests matched to replies by id (docs/protocol.md, "The harness").

    ``hi`` is the highest id answered on the current process. A request sent after it and still
    unanswered (``_candidate``) is the one an implementation answering in order is working on: a
    garbage line, a reply with an unknown id, a crash or a hang is charged to it. Requests sent
    before ``hi`` and still unanswered were skipped: at a timeout they are charged ``timeout``,
    the process is kept (it answers), and a reply that comes later is a ``late`` incident."""

    def __init__(
        self,
        impl: Impl,
        requests: Sequence[dict],
        timeout: float,
        tags: Sequence[Any] | None,
        source: Callable[[bool], Any] | None = None,
        on_answer: Callable[[Any, Answer], None] | None = None,
    ) -> None:
        self.im, self.timeout = impl, timeout
        self.requests: list[dict] = list(requests)
        self.tags: list[Any] | None = None if tags is None else list(tags)
        self.source, self.on_answer = source, on_answer
        self.waiting = False  # the source had nothing the last time it was asked
        n = len(requests)
        self.answers: list[Answer | None] = [None] * n
        self.notes: list[list[str]] = [[] for _ in range(n)]
        self.todo: collections.deque = collections.deque(range(n))  # not yet sent (or to send again)
        self.flight: dict[int, int] = {}  # id -> request index, in send order
        self.index: dict[int, int] = {}  # every id sent in this exchange -> request index
        self.sent_at: dict[int, float] = {}
        self.hi = 0
        self.last = time.monotonic()  # when the process last wrote a line

    def tag(self, i: int) -> Any:
        return self.tags[i] if self.tags is not None else i

    def name(self, i: int) -> str:
        t = self.tag(i)
        if self.tags is None:
            return f"request {t}"
        return "case " + (" ".join(map(str, t)) if isinstance(t, tuple) else str(t))

    def incident(self, kind: str, detail: str, i: int | None) -> None:
        self.im.incidents.append(Incident(kind, detail, self.im.stderr_tail(), None if i is None else self.tag(i)))

    def settle(self, rid: int, answer: Answer, state: str, digest: int = 0) -> None:
        i = self.flight.pop(rid)
        if self.notes[i]:
            answer.notes = self.notes[i] + answer.notes
        self.answers[i] = answer
        self.im._past[rid] = (self.tags[i] if self.tags is not None else i, state, digest)
        self.hi = max(self.hi, rid)
        if self.on_answer is not None:
            self.on_answer(self.tag(i), answer)

    def pull(self, block: bool = False) -> bool:
        """One more request from the source onto ``todo``; False if it has none (now, or ever)."""
        if self.source is None:
            return False
        got = self.source(block)
        self.waiting = got is NOT_YET
        if got is NOT_YET:
            return False
        if got is None:
            self.source = None
            return False
        request, tag = got
        if len(self.requests) % 1024 == 0:
            self.im._forget_old()
        self.requests.append(request)
        self.tags.append(tag)  # type: ignore[union-attr]
        self.answers.append(None)
        self.notes.append([])
        self.todo.append(len(self.requests) - 1)
        return True

    def candidate(self) -> int | None:
        return next((r for r in self.flight if r > self.hi), next(iter(self.flight), None))

    def seconds(self, rid: int, now: float) -> float:
        return now - max(self.sent_at[rid], self.last)

    def run(self) -> list[Answer]:
        im = self.im
        while self.todo or self.flight or self.pull(block=True):
            if im._proc is None or (not self.flight and not self.drain()):
                try:
                    im.start()
                except StartFailed as e:
                    # what the source still holds is left there, for another process to take
                    for i in [*self.flight.values(), *self.todo]:
                        self.answers[i] = Answer(problem=e.problem, notes=self.notes[i])
                        if self.on_answer is not None:
                            self.on_answer(self.tag(i), self.answers[i])
                    break
                self.hi, self.last = 0, time.monotonic()
            if len(self.flight) <= im.window // 2 and (self.todo or self.pull()):
                self.send()
            oldest = next(iter(self.flight))
            deadline = max(self.sent_at[oldest], self.last) + self.timeout
            # a source that may have more soon is asked again within 50 ms, a line or not
            line = im._next_line(min(deadline, time.monotonic() + 0.05) if self.waiting else deadline)
            if line is None and time.monotonic() < deadline:
                continue
            if line is None:
                self.expire()
            elif line is _EOF:
                self.crashed()
            else:
                self.read(line, time.monotonic())  # type: ignore[arg-type]
        out = [a if a is not None else Answer(problem=Problem("crashed", "$", "a reply")) for a in self.answers]
        im._forget_old()
        return out

    def send(self) -> None:
        im, batch, now = self.im, [], time.monotonic()
        while len(self.flight) < im.window and (self.todo or self.pull()):
            i = self.todo.popleft()
            im._next += 1
            self.flight[im._next] = self.index[im._next] = i
            self.sent_at[im._next] = now
            batch.append({**self.requests[i], "id": im._next})
        im._send(batch)

    def drain(self) -> bool:
        """Nothing in flight: read what the process wrote meanwhile (late or duplicate replies);
        False if it has exited."""
        while True:
            line = self.im._next_line(time.monotonic())
            if line is None:
                return self.im._proc is not None and self.im._proc.poll() is None
            if line is _EOF:
                code = self.im._exit_code()
                self.im.incidents.append(
                    Incident("crashed", f"the process exited with code {code} between requests", self.im.stderr_tail())
                )
                self.im._kill()
                return False
            self.read(line, time.monotonic())  # type: ignore[arg-type]

    def read(self, line: bytes, now: float) -> None:
        im = self.im
        obj, p = parse_line(line)
        rid = None if p is not None else obj["id"]
        if p is None and rid in self.flight:
            i = self.flight[rid]
            notes = []
            if rid < self.hi:
                later = self.name(self.index[self.hi])
                notes.append(f"out-of-order: answered after the reply to a later request ({later})")
                self.incident("out-of-order", f"the reply (id {rid}) came after the reply to {later} (id {self.hi})", i)
            self.settle(rid, Answer(reply=obj, notes=notes, seconds=self.seconds(rid, now)), "answered", hash(line))
        elif p is None and rid in im._past:
            tag, state, digest = im._past[rid]
            if state == "timeout":
                kind, detail = "late", f"a reply with id {rid} after its case was charged a timeout"
            else:
                same = "the same as" if digest == hash(line) else "unlike"
                kind, detail = "duplicate", f"another reply with id {rid}, {same} the first"
            im.incidents.append(Incident(kind, detail, "", tag))
        else:
            c = self.candidate()
            if c is None:
                what = p.text() if p is not None else f"a reply with id {_short_id(rid)} to no request"
                im.incidents.append(Incident("stray", f"a line while no request was in flight: {what}", ""))
            elif p is not None:
                self.settle(c, Answer(problem=p, seconds=self.seconds(c, now)), "answered", hash(line))
            else:
                problem = Problem("wrong-id", "$.id", f"{c} (the request's id), got {_short_id(rid)}")
                self.settle(c, Answer(reply=obj, problem=problem, seconds=self.seconds(c, now)), "answered", hash(line))
        self.last = now

    def expire(self) -> None:
        """No line for ``timeout`` with requests in flight."""
        tail = _tail(self.im.stderr_tail())
        skipped = [r for r in self.flight if r < self.hi]
        for r in skipped:
            i = self.flight[r]
            self.incident("timeout", f"no reply to id {r} within {self.timeout:g} s while later requests were answered", i)
            self.settle(
                r, Answer(problem=Problem("timeout", "$", f"a reply within {self.timeout:g} s (later requests were answered)")), "timeout"
            )
        c = next(iter(self.flight), None)
        if c is None:
            return  # the process answers: it is kept, and a reply that comes later is late
        i = self.flight[c]
        behind = [self.flight[r] for r in self.flight if r != c]
        self.incident("timeout", f"no reply to id {c} within {self.timeout:g} s; restarted, {len(behind)} requests sent again", i)
        self.settle(c, Answer(problem=Problem("timeout", "$", f"a reply within {self.timeout:g} s{tail}")), "timeout")
        self.restart(behind, f"re-run on a fresh process: the process hung at {self.name(i)}")

    def crashed(self) -> None:
        im = self.im
        code = im._exit_code()
        c = self.candidate()
        assert c is not None
        i = self.flight[c]
        tail = _tail(im.stderr_tail())
        behind = [self.flight[r] for r in self.flight if r != c]
        self.incident("crashed", f"the process exited with code {code}; restarted, {len(behind)} requests sent again", i)
        self.settle(c, Answer(problem=Problem("crashed", "$", f"a reply (the process exited with code {code}){tail}")), "crashed")
        self.restart(behind, f"re-run on a fresh process: the process exited at {self.name(i)}")

    def restart(self, again: list[int], note: str) -> None:
        self.im._kill()
        self.im.restarts += 1
        for i in reversed(again):
            self.notes[i].append(note)
            self.todo.appendleft(i)
        self.flight.clear()


def _short_id(rid: Any) -> str:
    return json.dumps(rid)[:60]


def _tail(stderr: str) -> str:
    lines = [l for l in stderr.splitlines() if l.strip()][-3:]
    return f"; stderr: {' | '.join(lines)[:300]}" if lines else ""


__all__ = ["NOT_YET", "Answer", "Impl", "Incident", "StartFailed", "split_command"]
