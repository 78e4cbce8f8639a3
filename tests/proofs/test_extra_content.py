"""z3 sees content the model never receives: an ADD may give its text part
providerOptions naming an Anthropic citation, its message metadata holding a note and, for a
user message, a reasoning part. M12 (M12.4, M12.5) sends none of
them, and the guard reads none; the encoding agrees with the interpreter on such calls, and the
three issue-10 mutants that send them (part_provider_options_sent,
user_message_sends_every_part, message_metadata_sent) are refuted by I4 with replayed
counterexamples."""

import random

import pytest
from attrs import evolve

from guardspec.model.messages import Message, ReasoningPart, TextPart
from guardspec.model.values import UNDEFINED
from guardspec.properties.harness import execute
from guardspec.properties.symbolic.decode import scenario
from guardspec.properties.symbolic.observe import disagreements, of_encoding, of_run
from guardspec.properties.symbolic.prove import encode, refute_mutant
from guardspec.properties.symbolic.sample import random_choices
from guardspec.properties.symbolic.scope import Kind, LoopC, Op, Scope, Src, citation_text, metadata_text, reasoning_text

SCOPE = Scope(3, 2, 2)


def _extra_adds(ch, rng):
    """Every ADD most often carries the extra content."""
    return evolve(ch, oext=tuple(tuple(o == Op.ADD and rng.random() < 0.8 for o in row) for row in ch.op))


@pytest.mark.parametrize("mode", ["guarded", "raw"])
def test_encoding_agrees_with_the_interpreter_on_extra_content(mode):
    rng = random.Random(f"extra{mode}")
    checked = with_extra = 0
    for _ in range(160):
        ch = _extra_adds(random_choices(SCOPE, rng), rng)
        e = encode(ch, mode)
        if not e.in_scope:
            continue
        checked += 1
        with_extra += any(any(row) for row in ch.oext)
        d = disagreements(of_run(SCOPE, execute(scenario(ch), mode)), of_encoding(e))
        assert not d, f"{ch}\n" + "\n".join(d)
    assert checked > 80 and with_extra > 40


def _one_user_add(loop: LoopC):
    """A generate/durable call with nothing stored; p0 adds user message m0 under input,
    carrying a citation and a reasoning part; every other step does nothing."""
    rng = random.Random(0)
    ch = random_choices(SCOPE, rng)
    K, J = SCOPE.processors, SCOPE.ops

    def grid(v, first):
        return tuple(tuple(first if (k, j) == (0, 0) else v for j in range(J)) for k in range(K))

    return evolve(
        ch,
        loop=int(loop),
        rbac_ok=True,
        title_on=False,
        mapping_on=False,
        res_mark=False,
        mapping_throws=False,
        evaluator_on=False,
        actor_unreadable=False,
        actor_service=False,
        kind=(int(Kind.ABSENT),) * 3,
        assistant=(False,) * 3,
        mark=(False,) * 3,
        op=grid(int(Op.NOP), int(Op.ADD)),
        tgt=grid(0, 0),
        src=grid(0, int(Src.INPUT)),
        omark=grid(False, False),
        orole=grid(False, False),
        oext=grid(False, True),
        ofile=grid(False, False),
        ourl=grid(False, False),
        ouri=grid(False, False),
        car_hist=False,
        hist_mark=False,
        end=(0,) * K,
        etgt=(0,) * K,
        emark=(False,) * K,
    )


@pytest.mark.parametrize("loop", [LoopC.GENERATE, LoopC.DURABLE])
def test_the_model_receives_neither_the_citation_nor_the_reasoning(loop):
    """By hand: the message the model receives holds its text part alone, without options,
    and no metadata (M12.4, M12.5); the list keeps all three; the encoding says the same."""
    ch = _one_user_add(loop)
    ex = execute(scenario(ch), "guarded")
    label = SCOPE.op_label(0, 0)
    sent = [m for m in ex.observation.prompts[0] if isinstance(m, Message) and m.id == "m0"]
    assert len(sent) == 1 and len(sent[0].parts) == 1
    assert isinstance(sent[0].parts[0], TextPart) and sent[0].parts[0].provider_options is UNDEFINED
    assert sent[0].metadata is UNDEFINED
    kept = next(lm.message for lm in ex.observation.list.messages if lm.message.id == "m0")
    assert citation_text(label) in repr(kept.parts[0].provider_options)
    assert any(isinstance(p, ReasoningPart) and p.text == reasoning_text(label) for p in kept.parts)
    assert metadata_text(label) in repr(kept.metadata)
    assert all(x(label) not in ex.read for x in (citation_text, reasoning_text, metadata_text))
    assert not disagreements(of_run(SCOPE, ex), of_encoding(encode(ch, "guarded")))


WHAT = {
    "part_provider_options_sent": "providerOptions",
    "user_message_sends_every_part": "ReasoningPart",
    "message_metadata_sent": "metadata",
}


@pytest.mark.parametrize("name", list(WHAT))
def test_sending_extra_content_is_refuted_by_i4_and_replayed(name):
    kill = refute_mutant(name, SCOPE, timeout=600)
    assert kill is not None and kill.name == "I4" and kill.replayed
    what = WHAT[name]
    assert any(what in v for v in kill.under_mutant), kill.under_mutant
