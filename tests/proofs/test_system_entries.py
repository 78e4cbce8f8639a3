"""Processors returning system entries in the z3 scope (G7.2, G7.5):
an array with an AI SDK system entry appended (Breakwater adds nothing for it) and an object
whose ``systemMessages`` holds null (the bucket emptied, then the processor fails). Checked
against the interpreter by hand and on random calls, and the two mutants of those rules
refuted with replayed counterexamples."""

from __future__ import annotations

import random

import agreement
import pytest
from attrs import evolve

from guardspec.model.messages import SystemMessage
from guardspec.model.observation import Answered, Refused
from guardspec.properties.symbolic.prove import encode, refute_mutant
from guardspec.properties.symbolic.sample import random_choices
from guardspec.properties.symbolic.scope import Choices, End, Kind, LoopC, Scope, assumptions, label_text

SCOPE = Scope(3, 2, 2, call_context=False)
F2 = ((False, False), (False, False))


def _call(end0: End, loop: LoopC = LoopC.GENERATE, emark: bool = False) -> Choices:
    """m0 stored, m1 the caller's user message; p0 takes no step and ends with ``end0``."""
    return Choices(
        SCOPE,
        int(loop),
        True,
        False,
        False,
        False,
        (int(Kind.STORED), int(Kind.INPUT), int(Kind.ABSENT)),
        (False, False, False),
        (False, False, False),
        ((0, 0), (0, 0)),
        ((0, 0), (0, 0)),
        ((0, 0), (0, 0)),
        F2,
        F2,
        (int(end0), int(End.UNDEFINED)),
        (0, 0),
        (emark, False),
        oext=F2,
    )


def _agree(ch: Choices, mode: str):
    assert all(assumptions(ch))
    return agreement.check(ch, mode, SCOPE, in_scope=True)


@pytest.mark.parametrize("mode", ["guarded", "raw"])
def test_an_ai_sdk_system_entry_adds_nothing(mode):
    # G7.2: Breakwater (and Mastra's runner, M8.4) add content.content ?? parts ?? '' for a
    # system-role entry; an AI SDK entry has neither, so '' : no system message. The model
    # receives the instructions alone, and the entry's text (marked: it would be refused if
    # read) reaches neither the model nor the policies.
    ex = _agree(_call(End.AI_SDK, emark=True), mode)
    text = label_text(SCOPE.edit_label(0), True)
    assert isinstance(ex.observation.outcome, Answered)
    systems = [e for e in ex.observation.prompts[0] if isinstance(e, SystemMessage)]
    assert [s.content for s in systems] == ["You are a guarded agent."]
    assert text not in (ex.read or "")


def test_null_system_entries_fail_the_processor_with_the_bucket_emptied():
    # G7.5: replaceAllSystemMessages empties the bucket, then reads `role` of null and throws:
    # the processor fails (G6: input processor failed, by p0), with the instructions gone from
    # the list it leaves (G13 keeps system messages, but there are none left).
    ex = _agree(_call(End.SYS_NULL), "guarded")
    assert ex.observation.outcome == Refused("input processor failed", "p0")
    assert ex.observation.list.untagged == ()
    assert not ex.observation.prompts


def test_the_raw_encoding_leaves_null_system_entries_out():
    assert not encode(_call(End.SYS_NULL), "raw").in_scope


@pytest.mark.parametrize("mode", ["guarded", "raw"])
def test_encoding_agrees_on_returned_system_entries(mode):
    """Random calls in which one processor ends with an AI SDK entry or systemMessages [null]."""
    rng = random.Random(f"system-entries{mode}")
    checked = 0
    for _ in range(150):
        ch = random_choices(SCOPE, rng)
        k = rng.randrange(SCOPE.processors)
        end = rng.choice([End.AI_SDK, End.SYS_NULL])
        ch = evolve(
            ch,
            end=tuple(int(end) if i == k else x for i, x in enumerate(ch.end)),
            etgt=tuple(0 if i == k else x for i, x in enumerate(ch.etgt)),
            emark=tuple((end is End.AI_SDK and rng.random() < 0.4) if i == k else x for i, x in enumerate(ch.emark)),
        )
        assert all(assumptions(ch))
        if agreement.check(ch, mode, SCOPE) is None:
            continue
        checked += 1
    assert checked > (100 if mode == "guarded" else 50)


@pytest.mark.parametrize("mutant, claim", [("null_system_entries_skipped", "G7n"), ("ai_sdk_system_entry_applied", "G7s")])
def test_the_system_entry_mutants_are_refuted(mutant, claim):
    kill = refute_mutant(mutant, Scope(3, 2, 2), timeout=600)
    assert kill is not None and kill.name == claim
    assert kill.under_mutant and not kill.without
