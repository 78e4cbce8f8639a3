"""``guardspec serve``: the reference as an implementation speaking protocol 1 on stdin/stdout
(docs/protocol.md). Thin, as STYLE.md asks of the surface for differential testing: decode,
call ``reference.run``, encode. With ``mutant``, one semantic mutant of
``properties/mutants.py`` is switched on for the whole session.
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import IO, Any

from guardspec import __version__
from guardspec.model import codec
from guardspec.model.scenario import Mode
from guardspec.reference import run

from .wire import FIELDS, PROTOCOL

KINDS = ("hello", "start", "run", "stop")


def serve_command(mutant: str | None = None) -> list[str]:
    """How to start ``guardspec serve`` from this interpreter, registered in cli.py or not."""
    cmd = [sys.executable, "-m", "guardspec.commands.conformance_cmds", "serve"]
    return cmd + (["--mutant", mutant] if mutant else [])


def hello(mutant: str | None) -> dict:
    name = "guardspec-reference" + (f"+mutant:{mutant}" if mutant else "")
    return {
        "status": "ok",
        "protocol": PROTOCOL,
        "implementation": name,
        "version": __version__,
        "kinds": list(KINDS),
        "modes": ["raw", "guarded"],
        "fields": list(FIELDS),
    }


def answer(req: Any, mutant: str | None = None) -> tuple[dict, bool]:
    """One request → (reply, stop?). Never raises for bad input: ``errored`` with the path."""
    if not isinstance(req, dict):
        return {"id": None, "status": "errored", "detail": "$: expected a JSON object"}, False
    rid = req.get("id")
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, (str, int, float))):
        return {"id": None, "status": "errored", "detail": "$.id: expected a string or a number"}, False
    kind = req.get("kind")
    if kind in ("hello", "start"):
        return {"id": rid, **hello(mutant)}, False
    if kind == "stop":
        return {"id": rid, "status": "ok"}, True
    if kind != "run":
        return {"id": rid, "status": "skipped", "reason": f"unknown kind {json.dumps(kind)[:40]}"}, False
    mode = req.get("mode")
    if mode not in ("raw", "guarded"):
        return {"id": rid, "status": "errored", "detail": f"$.mode: expected 'raw' or 'guarded', got {json.dumps(mode)[:40]}"}, False
    try:
        scenario = codec.scenario_from_json(req.get("scenario"))
    except codec.FormatError as e:
        return {"id": rid, "status": "errored", "detail": f"$.scenario{e.path[1:]}: {e.expected}"}, False
    except Exception as e:  # the codec's own failure, not the request's
        return {"id": rid, "status": "errored", "detail": f"$.scenario: cannot decode ({type(e).__name__}: {e})"}, False
    try:
        obs = codec.observation_to_json(run(scenario, Mode(mode)))
    except Exception as e:  # the spec says this cannot happen: report it, keep serving
        return {"id": rid, "status": "errored", "detail": f"$: reference failure: {type(e).__name__}: {e}"}, False
    return {"id": rid, "status": "ok", "observation": obs, "fields": list(FIELDS)}, False


def serve(stdin: IO[str] | None = None, stdout: IO[str] | None = None, mutant: str | None = None) -> int:
    """Answer request lines until ``stop`` or end of input."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    ctx: Any = contextlib.nullcontext()
    if mutant:
        # deferred: the mutants load the properties (Hypothesis, z3), heavy; only `--mutant` needs them
        from guardspec.properties.mutants import MUTANTS

        ctx = MUTANTS[mutant].activate()
    with ctx:
        for line in stdin:
            if not line.strip():
                continue
            try:
                req = json.loads(line)
            except (ValueError, RecursionError) as e:
                reply, stop = {"id": None, "status": "errored", "detail": f"$: expected valid JSON ({getattr(e, 'msg', e)})"}, False
            else:
                reply, stop = answer(req, mutant)
            stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
            stdout.flush()
            if stop:
                break
    return 0


__all__ = ["KINDS", "answer", "hello", "serve"]
