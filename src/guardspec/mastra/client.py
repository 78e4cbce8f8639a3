"""A long-lived client of an implementation process speaking guardspec's JSON-lines protocol
(docs/protocol.md), by default the real-Mastra adapter ``node adapters/mastra/server.mjs``.

One request per line, one reply per line with the request's ``id``. The client survives its
adapter: when the process dies (``AdapterCrashed``) or does not answer in time
(``AdapterTimeout``), the case is recorded in ``incidents``, the process is restarted, and the
exception tells the caller that this one request has no answer; the next request goes to the
new process.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from attrs import define, field

from guardspec.processes import kill_process

PROTOCOL = 1


def repo_root() -> Path:
    """The checkout holding ``adapters/mastra`` (this file lives in ``src/guardspec/mastra``)."""
    env = os.environ.get("GUARDSPEC_ROOT")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3]


def default_command() -> list[str]:
    node = os.environ.get("GUARDSPEC_NODE") or shutil.which("node") or "node"
    return [node, str(repo_root() / "adapters" / "mastra" / "server.mjs")]


def adapter_available() -> bool:
    """Node is on PATH and the adapter's dependencies are installed (``npm ci``)."""
    root = repo_root() / "adapters" / "mastra"
    return shutil.which("node") is not None and (root / "node_modules" / "@mastra" / "core").is_dir()


class AdapterError(Exception):
    """The adapter gave no usable answer to one request."""


class AdapterCrashed(AdapterError):
    pass


class AdapterTimeout(AdapterError):
    pass


@define
class Incident:
    """One crash or hang: what was asked, what happened, the adapter's last stderr lines."""

    kind: str  # "crashed" | "timeout" | "start-failed"
    request_kind: str
    detail: str
    stderr_tail: str
    at: float = field(factory=time.time)


class MastraClient:
    """``request(obj)`` → the reply dict. Start lazily; restart after a crash or hang."""

    def __init__(
        self,
        command: list[str] | None = None,
        timeout: float = 30.0,
        start_timeout: float = 30.0,
        cwd: str | None = None,
    ) -> None:
        self.command = command or default_command()
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.cwd = cwd
        self.incidents: list[Incident] = []
        self.restarts = 0
        self.hello: dict | None = None
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._stderr: collections.deque = collections.deque(maxlen=40)
        self._next_id = 0

    # -- process management ---------------------------------------------------------------

    def start(self) -> dict:
        """Spawn the process and check ``hello`` (protocol 1)."""
        self._spawn()
        try:
            reply = self._roundtrip({"kind": "hello"}, self.start_timeout)
        except AdapterError as e:
            self.incidents.append(Incident("start-failed", "hello", str(e), self.stderr_tail()))
            raise
        if reply.get("status") != "ok" or reply.get("protocol") != PROTOCOL:
            self._kill()
            raise AdapterError(f"adapter does not speak protocol {PROTOCOL}: {reply}")
        self.hello = reply
        return reply

    def _spawn(self) -> None:
        self._kill()
        self._lines = queue.Queue()
        self._stderr.clear()
        proc = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.cwd,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self._proc = proc
        lines = self._lines

        def pump_out() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)  # EOF: the process ended

        def pump_err() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                self._stderr.append(line.rstrip("\n"))

        threading.Thread(target=pump_out, daemon=True).start()
        threading.Thread(target=pump_err, daemon=True).start()

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        kill_process(proc)

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def close(self) -> None:
        """Ask the process to stop; kill it if it does not."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                self._roundtrip({"kind": "stop"}, 5)
                proc.wait(timeout=5)
            except Exception:
                pass
        self._kill()

    def __enter__(self) -> MastraClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- requests -------------------------------------------------------------------------

    def _roundtrip(self, req: dict, timeout: float) -> dict:
        proc = self._proc
        if proc is None or proc.poll() is not None:
            raise AdapterCrashed("adapter process is not running")
        self._next_id += 1
        rid = self._next_id
        line = json.dumps({**req, "id": rid}, ensure_ascii=False)
        try:
            assert proc.stdin is not None
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise AdapterCrashed(f"cannot write to the adapter: {e}") from None
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AdapterTimeout(f"no reply within {timeout:g} s")
            try:
                got = self._lines.get(timeout=left)
            except queue.Empty:
                raise AdapterTimeout(f"no reply within {timeout:g} s") from None
            if got is None:
                code = proc.wait(timeout=5)
                raise AdapterCrashed(f"adapter exited with code {code}")
            try:
                reply = json.loads(got)
            except json.JSONDecodeError:
                continue  # not a protocol line
            if isinstance(reply, dict) and reply.get("id") == rid:
                return reply
            # a stale reply (to a request that timed out earlier): skip it

    def request(self, req: dict, timeout: float | None = None) -> dict:
        """Send one request, return its reply. On a crash or a hang: record the incident,
        restart the adapter, and raise ``AdapterCrashed`` / ``AdapterTimeout``."""
        if self._proc is None or self._proc.poll() is not None:
            self.start()
        try:
            return self._roundtrip(req, self.timeout if timeout is None else timeout)
        except AdapterError as e:
            kind = "timeout" if isinstance(e, AdapterTimeout) else "crashed"
            self.incidents.append(Incident(kind, str(req.get("kind")), str(e), self.stderr_tail()))
            self._kill()
            self.restarts += 1
            try:
                self.start()
            except AdapterError:
                pass  # the next request tries again
            raise

    # -- request kinds ----------------------------------------------------------------------

    def run(self, scenario_json: dict, mode: str = "raw", timeout: float | None = None) -> dict:
        return self.request({"kind": "run", "mode": mode, "scenario": scenario_json}, timeout)

    def ops(self, ops: list, thread: dict | None = None, clock: dict | None = None, timeout: float | None = None) -> dict:
        req: dict[str, Any] = {"kind": "ops", "ops": ops}
        if thread is not None:
            req["thread"] = thread
        if clock is not None:
            req["clock"] = clock
        return self.request(req, timeout)


__all__ = [
    "AdapterCrashed",
    "AdapterError",
    "AdapterTimeout",
    "Incident",
    "MastraClient",
    "adapter_available",
    "default_command",
    "repo_root",
]
