"""z3 sees mapped tool outputs: stored history may hold a client tool result
of an earlier call; a processor that re-adds it under ``input`` makes M11 map it, so the model
receives its mapped output. The encoding agrees with the interpreter on such calls, I4's claim
speaks of them, and the mutant that reads such a history id before mapping is refuted with a
counterexample replayed through the interpreter."""

import random

import pytest
from attrs import evolve

from guardspec.model.messages import Message, ToolPart
from guardspec.model.values import obj
from guardspec.properties.harness import execute
from guardspec.properties.symbolic.decode import scenario
from guardspec.properties.symbolic.observe import disagreements, of_encoding, of_run
from guardspec.properties.symbolic.prove import PROVEN, encode, prove, refute_mutant
from guardspec.properties.symbolic.sample import random_choices
from guardspec.properties.symbolic.scope import Choices, Kind, LoopC, Op, Scope, Src, Tool, assumptions

SCOPE = Scope(3, 2, 2, call_context=False)


def _put(grid, k, j, v):
    return tuple(tuple(v if (a, b) == (k, j) else x for b, x in enumerate(row)) for a, row in enumerate(grid))


def _reread(ch: Choices, rng: random.Random) -> Choices:
    """A random call bent into the shape: m1 a stored result; one step of a processor moves it
    under ``input`` (or another source); the mapping on in three calls of four. In one call of
    two the other steps are NOPs, the endings return undefined, the actor is allowed, no policy refuses."""
    k, j = rng.randrange(SCOPE.processors), rng.randrange(SCOPE.ops)
    if rng.random() < 0.5:
        K, J = SCOPE.processors, SCOPE.ops
        none = tuple((0,) * J for _ in range(K))
        ch = evolve(
            ch,
            rbac_ok=True,
            actor_unreadable=False,
            actor_service=False,
            res_mark=False,
            evaluator_on=False,
            mapping_throws=False,
            op=none,
            tgt=none,
            src=none,
            omark=tuple((False,) * J for _ in range(K)),
            orole=tuple((False,) * J for _ in range(K)),
            oext=tuple((False,) * J for _ in range(K)),
            ofile=tuple((False,) * J for _ in range(K)),
            ourl=tuple((False,) * J for _ in range(K)),
            ouri=tuple((False,) * J for _ in range(K)),
            end=(0,) * K,
            etgt=(0,) * K,
            emark=(False,) * K,
        )
    kinds = tuple(int(Kind.RESULT) if s == 1 else (int(Kind.STORED) if c == Kind.CARRIER else c) for s, c in enumerate(ch.kind))
    assistant = tuple(True if kinds[s] == Kind.RESULT else (a if kinds[s] == Kind.STORED else False) for s, a in enumerate(ch.assistant))
    mark = tuple(m if kinds[s] != Kind.ABSENT else False for s, m in enumerate(ch.mark))
    src = int(Src.INPUT) if rng.random() < 0.6 else rng.randrange(4)
    mapping = rng.random() < 0.75
    return evolve(
        ch,
        kind=kinds,
        assistant=assistant,
        mark=mark,
        mapping_on=mapping,
        mapping_throws=mapping and ch.mapping_throws,
        op=_put(ch.op, k, j, int(Op.MOVE)),
        tgt=_put(ch.tgt, k, j, 1),
        src=_put(ch.src, k, j, src),
        omark=_put(ch.omark, k, j, False),
        orole=_put(ch.orole, k, j, False),
        oext=_put(ch.oext, k, j, False),
        ofile=_put(ch.ofile, k, j, False),
        ourl=_put(ch.ourl, k, j, False),
        ouri=_put(ch.ouri, k, j, False),
        car_err=False,
        car_hist=False,
        hist_mark=False,  # no carrier is left to hold an error outcome or a stored result
    )


@pytest.mark.parametrize("mode", ["guarded", "raw"])
def test_encoding_agrees_on_stored_results_re_added(mode):
    rng = random.Random(f"reread{mode}")
    checked = mapped = 0
    for _ in range(150):
        ch = _reread(random_choices(SCOPE, rng), rng)
        assert all(assumptions(ch))
        e = encode(ch, mode)
        if not e.in_scope:
            continue
        checked += 1
        run = of_run(SCOPE, execute(scenario(ch), mode))
        d = disagreements(run, of_encoding(e))
        assert not d, f"{ch}\n" + "\n".join(d)
        if run["prompt"] is not None:
            mapped += any(s == 1 and c[3] == int(Tool.CACHED) for s, c in run["prompt"][0])
    assert checked > 120
    assert mapped >= 10  # the shape happens: the stored result reaches the model mapped


# by hand: m1 a stored result (clean text, clean result); p1 moves it under input; generate,
# the mapping on. M11 maps it (an input assistant message with a result part of a mapped
# client tool), so the model receives `mapped:"res-clean"`, and G10 reads the input whole,
# after the mapping
BY_HAND = Choices(
    SCOPE,
    int(LoopC.GENERATE),
    True,
    False,
    True,
    False,
    (0, int(Kind.RESULT), 0),
    (False, True, False),
    (False, False, False),
    ((int(Op.MOVE), 0), (0, 0)),
    ((1, 0), (0, 0)),
    ((int(Src.INPUT), 0), (0, 0)),
    ((False, False), (False, False)),
    ((False, False), (False, False)),
    (0, 0),
    (0, 0),
    (False, False),
)


def test_a_stored_result_re_added_under_input_is_sent_and_read_mapped():
    ex = execute(scenario(BY_HAND), "guarded")
    (prompt,) = ex.observation.prompts
    m1 = next(e for e in prompt if isinstance(e, Message) and e.id == "m1")
    tool = next(p for p in m1.parts if isinstance(p, ToolPart))
    # the prompt carries the output the model receives: the mapping's text output
    assert tool.tool_call_id == "old1" and tool.result == obj(type="text", value='mapped:"res-clean"')
    assert '\nloc\nmapped:"res-clean"' in ex.read  # the tool name, then the mapped text as it is (G12.3)
    enc = of_encoding(encode(BY_HAND, "guarded"))
    assert dict(enc["prompt"][0])[1][3] == Tool.CACHED
    assert enc["read"][2] is True  # the mapped output was read
    assert not disagreements(of_run(SCOPE, ex), enc)


def test_i4_is_proven_with_stored_results_in_scope():
    (v,) = prove(SCOPE, "guarded", ["I4"], timeout=600)
    assert v.status == PROVEN and v.premise == "sat"


def test_reading_a_history_id_before_mapping_is_refuted_by_i4_and_replayed():
    kill = refute_mutant("history_input_read_unmapped", Scope(3, 2, 2), timeout=600)
    assert kill is not None and kill.name == "I4" and kill.replayed
    assert any("mapped:" in v for v in kill.under_mutant) and not kill.without
