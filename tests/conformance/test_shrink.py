"""Shrinking keeps the cause: a shrunk case shows the same first differing path
and the same values as the case it was shrunk from, not merely a difference in the same field.

The implementation here is the reference with one seeded fault that can show in several places:
once the list holds two messages or more, it upper-cases every listed text part holding an
``a``. The caller messages ``alpha``, ``beta``, ``gamma`` show the fault first at ``alpha``.
Dropping the first half of the messages leaves a difference in the same field (``list``) at
``beta``: another cause, the one the old shrinker (same signature only) drifted to.
"""

from __future__ import annotations

import copy
from typing import ClassVar

from guardspec.conformance.cases import judge, model_observation
from guardspec.conformance.impl import Answer
from guardspec.conformance.settings import Config
from guardspec.conformance.shrink import shrink, shrink_case


class Upcasing:
    """A protocol-v1 implementation in process: the model's observation, with the fault."""

    hello: ClassVar[dict] = {"protocol": 1, "implementation": "upcasing", "modes": ["raw"]}

    def exchange(self, requests: list[dict]) -> list[Answer]:
        out = []
        for r in requests:
            obs = copy.deepcopy(model_observation(r["scenario"], r["mode"]))
            if len(obs["list"]["messages"]) < 2:
                out.append(Answer(reply={"status": "ok", "observation": obs}))
                continue
            for lm in obs["list"]["messages"]:
                for p in lm["message"]["parts"] or []:
                    if p.get("type") == "text" and "a" in p["text"]:
                        p["text"] = p["text"].upper()
            out.append(Answer(reply={"status": "ok", "observation": obs}))
        return out


SCENARIO = {"guardspec": 1, "agent": {"id": "a"}, "call": {"loop": "generate", "messages": ["alpha", "beta", "gamma"]}}


def _verdict(sj: dict, impl: Upcasing, cfg: Config):
    ans = impl.exchange([{"mode": "raw", "scenario": sj}])[0]
    return judge(sj, "raw", model_observation(sj, "raw"), ans, cfg.comparison, impl.hello, "generate")


def test_the_first_difference_is_at_alpha() -> None:
    v = _verdict(SCENARIO, Upcasing(), Config(impl="-"))
    d = v.differences[0]
    assert (v.signature, d.model, d.impl) == ("raw:list", "alpha", "ALPHA")


def test_signature_only_shrinking_drifts_to_beta() -> None:
    """The old rule (same signature) accepts dropping ``alpha``: the vector then shows ``beta``."""
    impl, cfg = Upcasing(), Config(impl="-")

    def same_signature(batch: list[dict]) -> list[bool]:
        return [_verdict(c, impl, cfg).signature == "raw:list" for c in batch]

    small, _ = shrink(SCENARIO, same_signature, seconds=30)
    d = _verdict(small, impl, cfg).differences[0]
    assert "alpha" not in small["call"]["messages"]
    assert (d.model, d.impl) != ("alpha", "ALPHA")


def test_shrinking_keeps_the_path_and_values() -> None:
    impl, cfg = Upcasing(), Config(impl="-")
    before = _verdict(SCENARIO, impl, cfg)
    small, tried = shrink_case(SCENARIO, "raw", before.cause(), impl, cfg)  # type: ignore[arg-type]
    after = _verdict(small, impl, cfg)
    assert tried > 0
    assert small["call"]["messages"][0] == "alpha" and len(small["call"]["messages"]) == 2  # gamma is gone
    d0, d1 = before.differences[0], after.differences[0]
    assert (d1.model, d1.impl) == ("alpha", "ALPHA")
    assert after.cause() == before.cause()
    assert d1.path.replace("[0]", "[]") == d0.path.replace("[0]", "[]")


def test_cause_tells_values_apart() -> None:
    impl, cfg = Upcasing(), Config(impl="-")
    a = _verdict(SCENARIO, impl, cfg)
    b = _verdict({**SCENARIO, "call": {"loop": "generate", "messages": ["beta", "gamma"]}}, impl, cfg)
    assert a.signature == b.signature and a.cause() != b.cause()
