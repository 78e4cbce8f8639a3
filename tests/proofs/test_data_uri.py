"""A text file part's data as a data URI naming another media type, in the z3 scope
(G12.6, M12.8): Mastra sends it
under the part's own type, so the model receives the text; Breakwater reads it so. Checked
against the interpreter by hand and on random calls, and the old reading of c8d9935 (the URI's
own type) refuted by I4 with a replayed counterexample."""

from __future__ import annotations

import random

import agreement
from attrs import evolve

from guardspec.model.messages import FilePart, Message
from guardspec.model.observation import Answered, Refused
from guardspec.properties.harness import check_call
from guardspec.properties.symbolic.prove import refute_mutant
from guardspec.properties.symbolic.sample import random_choices
from guardspec.properties.symbolic.scope import Choices, End, Kind, LoopC, Op, Scope, Src, assumptions

SCOPE = Scope(2, 1, 1, call_context=False)
TRUE1 = ((True,),)


def _uri_added(marked: bool, src: Src = Src.INPUT) -> Choices:
    """m0 the caller's input; p0 adds the user message m1 (txt002, marked or not) with a
    text/plain file part whose data is data:image/png;base64,<base64 of fil002> under ``src``."""
    return Choices(
        SCOPE,
        int(LoopC.GENERATE),
        True,
        False,
        False,
        False,
        (int(Kind.INPUT), int(Kind.ABSENT)),
        (False, False),
        (False, False),
        ((int(Op.ADD),),),
        ((1,),),
        ((int(src),),),
        ((marked,),),
        ((False,),),
        (int(End.UNDEFINED),),
        (0,),
        (False,),
        oext=((False,),),
        ofile=TRUE1,
        ourl=((False,),),
        ouri=TRUE1,
    )


def test_a_data_uri_of_another_type_is_sent_and_read_as_the_part_s_text():
    ex = agreement.check(_uri_added(False), "guarded", SCOPE, in_scope=True)
    assert isinstance(ex.observation.outcome, Answered)
    # the model receives the payload under text/plain (M12.8), and the policies read its text
    sent = next(e for e in ex.observation.prompts[0] if isinstance(e, Message) and e.id == "m1")
    f = next(p for p in sent.parts if isinstance(p, FilePart))
    assert f.media_type == "text/plain" and not f.data.startswith("data:image/png")
    assert "fil002" in ex.read
    assert check_call(ex, ["I4 nothing_reaches_model_unread"]) == {}


def test_an_addition_holding_a_data_uri_counts_as_read_through_its_payload():
    # added under memory, the message is an addition on the list after p0 (I4's second half):
    # it still holds the data URI there, and what the model would receive of it is its payload
    # under text/plain (M12.8), which the policies read decoded
    ex = agreement.check(_uri_added(False, Src.MEMORY), "guarded", SCOPE, in_scope=True)
    assert isinstance(ex.observation.outcome, Answered)
    assert "fil002" in ex.read
    assert check_call(ex, ["I4 nothing_reaches_model_unread"]) == {}


def test_the_marker_in_the_message_is_denied_as_ever():
    ex = agreement.check(_uri_added(True), "guarded", SCOPE, in_scope=True)
    assert isinstance(ex.observation.outcome, Refused) and ex.observation.outcome.processor_id == "breakwater-policy-engine"


def test_encoding_agrees_on_data_uris():
    """Random calls in which every ADD's file part is such a data URI (both modes)."""
    sc = Scope(3, 2, 2, call_context=False)
    rng = random.Random("data-uri")
    checked = 0
    for _ in range(150):
        ch = random_choices(sc, rng)
        files = tuple(tuple(o == Op.ADD for o in row) for row in ch.op)
        ch = evolve(ch, ofile=files, ourl=tuple(tuple(False for _ in row) for row in files), ouri=files)
        assert all(assumptions(ch))
        for mode in ("guarded", "raw"):
            checked += agreement.check(ch, mode, sc) is not None
    assert checked > 250


def test_data_uri_read_under_its_own_type_is_refuted_by_i4():
    kill = refute_mutant("data_uri_read_under_its_own_type", Scope(3, 2, 2), timeout=600)
    assert kill is not None and kill.name == "I4"
    assert kill.under_mutant and not kill.without
    assert any(ch_uri for row in kill.choices.ouri for ch_uri in row)
