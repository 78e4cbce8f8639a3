"""One case: a scenario in one mode, run on the model and on the implementation, and judged.

The judgement is a value (``Verdict``): agree, disagree (with the differences), skipped (the
implementation said why), or a problem (it errored, crashed, hung, answered garbage, out of
order or with another id). Each is one JSON line in a campaign's results file.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from attrs import frozen

from guardspec.model import codec
from guardspec.model.scenario import Mode
from guardspec.reference import run

from .compare import Comparison, Difference, coarse, differences
from .impl import Answer
from .wire import Problem, check_observation, check_run_reply, declared_fields


def scenario_hash(sj: Any) -> str:
    return hashlib.sha1(json.dumps(sj, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:12]


def model_observation(sj: dict, mode: str) -> dict:
    """The reference's observation; ``FormatError`` if the scenario is not one."""
    return codec.observation_to_json(run(codec.scenario_from_json(sj), Mode(mode)))


@frozen
class Verdict:
    status: str  # agree | disagree | skipped | problem
    signature: str = ""
    differences: tuple[Difference, ...] = ()
    problem: Problem | None = None
    reason: str = ""
    fields: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict:
        d: dict[str, Any] = {"status": self.status}
        if self.signature:
            d["signature"] = self.signature
        if self.differences:
            d["differences"] = [x.to_json() for x in self.differences]
        if self.problem:
            d["problem"] = self.problem.to_json()
        if self.reason:
            d["reason"] = self.reason
        if self.fields:
            d["fields"] = list(self.fields)
        if self.notes:
            d["notes"] = list(self.notes)
        return d

    def cause(self) -> tuple:
        """What a shrunk case must keep showing: the signature, the first differing path (its
        indices erased, since dropping an earlier element shifts them) and the two values there
        (and what was expected of the implementation); for a problem, its kind and path. Two
        verdicts with the same signature but another first difference show another cause."""
        if self.status == "disagree":
            d = self.differences[0]
            values = json.dumps([d.model, d.impl, d.expected], sort_keys=True, ensure_ascii=False)
            return (self.status, self.signature, coarse(d.path), values)
        if self.problem is not None:
            return (self.status, self.signature, self.problem.kind, self.problem.path)
        return (self.status, self.signature)

    def line(self) -> str:
        if self.status == "disagree":
            return self.differences[0].line()
        if self.problem:
            return self.problem.text()
        return self.reason or self.status


def judge(
    sj: dict,
    mode: str,
    model_obs: dict,
    answer: Answer,
    comparison: Comparison,
    hello: dict | None,
    loop: str = "",
) -> Verdict:
    """Compare one answer with the model's observation."""
    notes = tuple(answer.notes)
    if answer.problem is not None:
        return Verdict("problem", f"{mode}:{answer.problem.kind}", problem=answer.problem, notes=notes)
    reply = answer.reply or {}
    p = check_run_reply(reply)
    if p:
        return Verdict("problem", f"{mode}:garbage", problem=p, notes=notes)
    if reply["status"] == "skipped":
        return Verdict("skipped", reason=reply["reason"], notes=notes)
    if reply["status"] == "errored":
        return Verdict("problem", f"{mode}:errored", problem=Problem("errored", "$.detail", reply["detail"]), notes=notes)
    obs = reply["observation"]
    fields = declared_fields(hello, reply, mode, loop or loop_of(sj))
    diffs = differences(model_obs, obs, sj, mode, comparison, fields)
    if not diffs:
        return Verdict("agree", fields=fields or (), notes=notes)
    # a difference may be malformed output rather than other semantics: say which
    keep = {"guardspec", "outcome", *(d.field for d in diffs)}
    p = check_observation({k: v for k, v in obs.items() if k in keep})
    if p:
        return Verdict("problem", f"{mode}:garbage", problem=p, notes=notes)
    return Verdict("disagree", f"{mode}:{diffs[0].field}", differences=tuple(diffs), fields=fields or (), notes=notes)


def loop_of(sj: Any) -> str:
    """The scenario's loop (the scenario format's default when absent)."""
    call = sj.get("call") if isinstance(sj, dict) else None
    loop = call.get("loop", "generate") if isinstance(call, dict) else "generate"
    return loop if isinstance(loop, str) else "generate"


def message_count(sj: Any) -> int:
    """Caller messages (a nested list counts its members), stored messages, context messages."""
    call = sj.get("call", {}) if isinstance(sj, dict) else {}

    def count(xs: Any) -> int:
        return sum(count(x) if isinstance(x, list) else 1 for x in xs) if isinstance(xs, list) else 0

    stored = sum(len(t.get("messages", [])) for t in sj.get("threads", []) if isinstance(t, dict)) if isinstance(sj, dict) else 0
    return count(call.get("messages", [])) + stored + count(call.get("context", []))


def processor_count(sj: Any) -> int:
    try:
        return len(sj["agent"]["processors"])
    except (KeyError, TypeError):
        return 0


__all__ = ["Verdict", "coarse", "judge", "loop_of", "message_count", "model_observation", "processor_count", "scenario_hash"]
