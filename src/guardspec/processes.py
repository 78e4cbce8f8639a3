"""Child processes of the protocol clients (the Mastra adapter, implementations under test)."""

from __future__ import annotations

import subprocess


def kill_process(proc: subprocess.Popen) -> None:
    """Kill ``proc`` if it still runs, reap it, and close its pipes; never raises."""
    if proc.poll() is None:
        proc.kill()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover
        pass
    for s in (proc.stdin, proc.stdout, proc.stderr):
        try:
            if s:
                s.close()
        except OSError:  # pragma: no cover
            pass
