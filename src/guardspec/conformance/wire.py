"""Reading the implementation's reply lines (docs/protocol.md): every way a line can be wrong is
a ``Problem`` value naming the JSON path and what was expected, never an exception.
"""

from __future__ import annotations

import json
from typing import Any

from attrs import frozen

from guardspec.model.validation import deepest_error, expected, json_path, validator

PROTOCOL = 1
FIELDS = ("outcome", "audit", "prompts", "stored", "title", "result", "list", "read")
STATUSES = ("ok", "skipped", "errored")


@frozen
class Problem:
    """Why a case has no usable answer. ``kind``: garbage, wrong-id, out-of-order, crashed,
    timeout, errored (the implementation said so), start-failed."""

    kind: str
    path: str
    expected: str

    def text(self) -> str:
        return f"{self.kind}: {self.path}: {self.expected}"

    def to_json(self) -> dict:
        return {"kind": self.kind, "path": self.path, "expected": self.expected}


def _short(v: Any, n: int = 60) -> str:
    try:
        s = json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError):
        s = repr(v)
    return s if len(s) <= n else s[: n - 1] + "…"


def parse_line(line: bytes | str) -> tuple[Any, Problem | None]:
    """One stdout line → a JSON object, or a garbage problem."""
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
    except UnicodeDecodeError as e:
        return None, Problem("garbage", "$", f"UTF-8 text ({e.reason} at byte {e.start})")
    try:
        obj = json.loads(text)
    except ValueError as e:
        msg = getattr(e, "msg", str(e))
        return None, Problem("garbage", "$", f"valid JSON ({msg}): {_short(text)}")
    except RecursionError:
        return None, Problem("garbage", "$", "valid JSON (nested too deeply)")
    if not isinstance(obj, dict):
        return None, Problem("garbage", "$", f"a JSON object, got {type(obj).__name__} {_short(obj)}")
    if "id" not in obj:
        return None, Problem("garbage", "$.id", "required field missing")
    rid = obj["id"]
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, (str, int, float))):
        return None, Problem("garbage", "$.id", f"a string, number or null, got {_short(rid)}")
    return obj, None


def check_envelope(obj: dict) -> Problem | None:
    """status and its companions (reason / detail)."""
    st = obj.get("status")
    if st not in STATUSES:
        return Problem("garbage", "$.status", f"one of {list(STATUSES)}, got {_short(st)}")
    if st == "skipped" and not isinstance(obj.get("reason"), str):
        return Problem("garbage", "$.reason", f"a string (why it was skipped), got {_short(obj.get('reason', '<absent>'))}")
    if st == "errored" and not isinstance(obj.get("detail"), str):
        return Problem("garbage", "$.detail", f"a string (<JSON path>: <what was expected>), got {_short(obj.get('detail', '<absent>'))}")
    return None


def check_fields(v: Any, path: str) -> Problem | None:
    if v is None:
        return None
    if not isinstance(v, list):
        return Problem("garbage", path, f"an array of field names, got {_short(v)}")
    for i, f in enumerate(v):
        if f not in FIELDS:
            return Problem("garbage", f"{path}[{i}]", f"one of {list(FIELDS)}, got {_short(f)}")
    return None


def check_run_reply(obj: dict) -> Problem | None:
    """A ``run`` reply's shape, short of validating the observation (``check_observation``)."""
    p = check_envelope(obj)
    if p or obj["status"] != "ok":
        return p
    obs = obj.get("observation")
    if not isinstance(obs, dict):
        return Problem(
            "garbage", "$.observation", f"a JSON object (an observation), got {_short(obs, 40) if 'observation' in obj else '<absent>'}"
        )
    if obs.get("guardspec") != 1:
        return Problem("garbage", "$.observation.guardspec", f"expected 1, got {_short(obs.get('guardspec', '<absent>'))}")
    if not isinstance(obs.get("outcome"), dict):
        return Problem("garbage", "$.observation.outcome", "required: an outcome object")
    return check_fields(obj.get("fields"), "$.fields")


def check_observation(obs: Any, prefix: str = "$.observation") -> Problem | None:
    """Full schema validation of an observation (model/schemas/observation.schema.json)."""
    try:
        errors = list(validator("observation").iter_errors(obs))
    except RecursionError:
        return Problem("garbage", prefix, "an observation (nested too deeply)")
    if not errors:
        return None
    best = deepest_error(errors)
    return Problem("garbage", prefix + json_path(best.absolute_path)[1:], expected(best))


_HEX = frozenset("0123456789abcdef")


def check_build(build: Any) -> Problem | None:
    """The start message's optional ``build``: ``{"sha256": <64 lower-case hex digits>}``, the
    identity of the build that answers (docs/protocol.md)."""
    if not isinstance(build, dict):
        return Problem("start-failed", "$.build", f"an object with a sha256, got {_short(build)}")
    digest = build.get("sha256")
    if not (isinstance(digest, str) and len(digest) == 64 and set(digest) <= _HEX):
        return Problem(
            "start-failed", "$.build.sha256", f"64 lower-case hex digits, got {_short(digest if 'sha256' in build else '<absent>')}"
        )
    return None


def check_hello(obj: dict) -> Problem | None:
    p = check_envelope(obj)
    if p:
        return p
    if obj["status"] != "ok":
        return Problem("start-failed", "$.status", f"ok, got {obj['status']} ({obj.get('reason') or obj.get('detail')})")
    if obj.get("protocol") != PROTOCOL:
        return Problem("start-failed", "$.protocol", f"expected {PROTOCOL}, got {_short(obj.get('protocol', '<absent>'))}")
    for k in ("implementation", "version"):
        if not isinstance(obj.get(k), str):
            return Problem("start-failed", f"$.{k}", f"a string, got {_short(obj.get(k, '<absent>'))}")
    p = check_build(obj["build"]) if "build" in obj else None
    if p:
        return p
    modes = obj.get("modes", ["raw", "guarded"])
    if not isinstance(modes, list) or any(m not in ("raw", "guarded") for m in modes):
        return Problem("start-failed", "$.modes", f"an array of 'raw' / 'guarded', got {_short(modes)}")
    f = obj.get("fields")
    if isinstance(f, dict):
        for mode, v in f.items():
            if mode not in ("raw", "guarded"):
                return Problem("start-failed", f"$.fields.{mode}", "a mode ('raw' / 'guarded')")
            if isinstance(v, dict):
                for loop, w in v.items():
                    p = check_fields(w, f"$.fields.{mode}.{loop}")
                    if p:
                        return Problem("start-failed", p.path, p.expected)
            else:
                p = check_fields(v, f"$.fields.{mode}")
                if p:
                    return Problem("start-failed", p.path, p.expected)
    else:
        p = check_fields(f, "$.fields")
        if p:
            return Problem("start-failed", p.path, p.expected)
    return None


def declared_fields(hello: dict | None, reply: dict, mode: str, loop: str) -> tuple[str, ...] | None:
    """What the implementation reports for this run: the reply's ``fields``, else ``hello``'s
    (an array, or by mode, or by mode and loop), else None (every field it sends)."""
    if isinstance(reply.get("fields"), list):
        return tuple(reply["fields"])
    f = (hello or {}).get("fields")
    if isinstance(f, dict):
        f = f.get(mode)
        if isinstance(f, dict):
            f = f.get(loop)
    if isinstance(f, list):
        return tuple(f)
    obs = reply.get("observation")
    return tuple(k for k in FIELDS if isinstance(obs, dict) and k in obs)


__all__ = [
    "PROTOCOL",
    "Problem",
    "check_build",
    "check_envelope",
    "check_hello",
    "check_observation",
    "check_run_reply",
    "declared_fields",
    "parse_line",
]
