"""The encoding agrees with the interpreter on the earlier response messages generate and
stream add again after the reply (M12): a carrier moved under ``response``, then a stored
assistant message after it that the reply merges into. Real Mastra 1.71.0 (adapters/mastra,
raw stream, this very call) ends that message holding the reply and the carrier's result
part; the encoding once kept them apart (the mismatch a new sampling order exposed
at 5 slots, 3 processors, 3 ops)."""

import random

import pytest
from attrs import evolve

from guardspec.properties.harness import execute
from guardspec.properties.symbolic.decode import scenario
from guardspec.properties.symbolic.observe import disagreements, of_encoding, of_run
from guardspec.properties.symbolic.prove import encode
from guardspec.properties.symbolic.sample import random_choices
from guardspec.properties.symbolic.scope import NO_LABEL, Choices, End, Kind, LoopC, Op, Scope, Src, Tool, assumptions

SCOPE = Scope(5, 3, 3, call_context=False)

# the call z3's agreement test first disagreed on (raw, stream): m3 the carrier, m4 a stored
# assistant message; p1 moves m3 under response; the reply merges into m4
MEASURED = Choices(
    SCOPE,
    int(LoopC.STREAM),
    True,
    False,
    True,
    False,
    (1, 0, 1, 3, 1),
    (False, False, False, True, True),
    (True, False, False, False, False),
    ((3, 3, 5), (6, 5, 0), (3, 5, 0)),
    ((0, 0, 0), (3, 0, 0), (0, 0, 0)),
    ((0, 0, 0), (2, 0, 0), (0, 0, 0)),
    ((False, False, False), (False, False, False), (True, False, False)),
    ((False, True, False), (False, False, False), (True, False, False)),
    (0, 0, 1),
    (0, 0, 0),
    (False, False, False),
    False,
    False,
)


@pytest.mark.parametrize("mode", ["raw", "guarded"])
def test_the_measured_call_merges_the_carrier_into_the_reply_target(mode):
    """By hand from the measurement: m4 (stored, assistant, last) takes the reply and moves
    to response; re-adding m3 (response, assistant) merges m3's parts into m4, so m4's first
    tool part is the caller's result; m3 stays, response only."""
    ch = MEASURED if mode == "raw" else evolve(MEASURED, omark=((False,) * 3,) * 3)
    ex = execute(scenario(ch), mode)
    run = of_run(SCOPE, ex)
    slots = dict(run["list"][0])
    # (the last fields: the label of a file part, a stored result beside the carrier's outcome,
    # whether the file part names a URL, or is a data URI of another type; none here)
    assert slots[4] == (
        (False, False, True, False),
        (4, False, True, int(Tool.RESULT), True, False, False, False, NO_LABEL, int(Tool.NONE), False, False),
    )
    assert slots[3][0] == (False, False, True, False) and slots[3][1][3] == int(Tool.RESULT)
    assert not disagreements(run, of_encoding(encode(ch, mode)))


def _shaped(ch: Choices, rng: random.Random) -> Choices:
    """A random call bent into the shape: m3 the carrier, m4 a stored assistant message, p1's
    first step moves m3 under response, generate or stream, the actor allowed; in one call of
    two every other step is a NOP and every ending returns undefined (later steps often undo
    the shape)."""
    quiet = rng.random() < 0.5

    def put(grid, v, rest=None):
        return tuple(
            tuple(v if (a, b) == (0, 0) else (rest if quiet and rest is not None else x) for b, x in enumerate(row))
            for a, row in enumerate(grid)
        )

    kinds = tuple(
        Kind.CARRIER if s == 3 else Kind.STORED if s == 4 else (k if k != Kind.CARRIER else Kind.STORED) for s, k in enumerate(ch.kind)
    )
    assistant = tuple(
        True if s in (3, 4) or kinds[s] == Kind.RESULT else (a if kinds[s] == Kind.STORED else False) for s, a in enumerate(ch.assistant)
    )
    mark = tuple(m if kinds[s] != Kind.ABSENT else False for s, m in enumerate(ch.mark))
    ends = ((int(End.UNDEFINED),) * SCOPE.processors, (0,) * SCOPE.processors, (False,) * SCOPE.processors)
    return evolve(
        ch,
        loop=rng.randrange(2),
        rbac_ok=True,
        actor_unreadable=False,
        actor_service=False,
        kind=tuple(map(int, kinds)),
        assistant=assistant,
        mark=mark,
        op=put(ch.op, int(Op.MOVE), int(Op.NOP)),
        tgt=put(ch.tgt, 3, 0),
        src=put(ch.src, int(Src.RESPONSE), 0),
        omark=put(ch.omark, False, False),
        orole=put(ch.orole, False, False),
        oext=put(ch.oext, False, False),
        ofile=put(ch.ofile, False, False),
        ourl=put(ch.ourl, False, False),
        ouri=put(ch.ouri, False, False),
        **(dict(zip(("end", "etgt", "emark"), ends)) if quiet else {}),
    )


@pytest.mark.parametrize("mode", ["raw", "guarded"])
def test_encoding_agrees_on_earlier_responses_added_again(mode):
    rng = random.Random(f"readd{mode}")
    checked = merged = 0
    for _ in range(150):
        ch = _shaped(random_choices(SCOPE, rng), rng)
        assert all(assumptions(ch))
        e = encode(ch, mode)
        if not e.in_scope:
            continue
        checked += 1
        run = of_run(SCOPE, execute(scenario(ch), mode))
        d = disagreements(run, of_encoding(e))
        assert not d, f"{ch}\n" + "\n".join(d)
        if run["list"] is not None:
            merged += any(s != 3 and c[3] != int(Tool.NONE) for s, (_, c) in run["list"][0])
    assert checked > 100
    assert merged >= 5  # the shape happens: a message other than the carrier ends with its tool part
