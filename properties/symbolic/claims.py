"""I1-I10 stated over the encoded call, each with the clauses it stands on; and nine claims
beyond them, G7 (identity processors change nothing: a processor receives every message, G5),
G11 (a throwing mapping fails the call), G12 (the outcome is the policies' decision on the
text read), G15 (the audit's shapes: no reason on an allowed event, the actor Breakwater
reads), G1, G3, G7n, G7s and G2 (Breakwater's rules G1.1, G3.2, G7.5, G7.2 and the
input-assets gate G16; the claim keeps the name ``G2``), mirroring extra properties of
properties/invariants/ that no invariant of the spec's I section states, so that the mutants
bending those rules can be refuted.

Each claim mirrors the function of properties/invariants/ that checks the same invariant on
an interpreter run (named in ``checks``), over the fields the encoding computes. ``premise``
is when the claim says something (a refused call, for I1): the honesty check asks z3 that it
can happen, so that no proof is vacuous.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import frozen

from . import finish as fin
from . import listops as ls
from . import logic as L
from .encoded import (
    ANSWERED,
    BY_MAPPER,
    BY_NO_ID,
    BY_POLICY,
    BY_RBAC,
    BY_RUNNER,
    FAILED,
    R_ABORT,
    R_FETCH,
    R_POLICY,
    R_POLICY_FAILED,
    R_PROC_FAILED,
    REFUSED,
    Encoded,
    file_read,
    hist_read,
    label_read,
    tool_read,
)
from .listops import Slot
from .scope import NO_LABEL, End, Kind, LoopC, Op, Tool


@frozen
class Claim:
    name: str
    title: str
    clauses: tuple[str, ...]
    checks: str  # the properties/harness.py property name that checks it on a run
    modes: tuple[str, ...]
    holds: Callable[[Encoded], Any]
    premise: Callable[[Encoded], Any]
    mutants: tuple[str, ...] = ()  # the mutants it was written to refute: tried first for them


def refused(e: Encoded) -> Any:
    return L.eq(e.outcome, REFUSED)


def answered(e: Encoded) -> Any:
    return L.eq(e.outcome, ANSWERED)


def i1(e: Encoded) -> Any:
    return L.implies(refused(e), L.not_(e.thread_changed))


def i2(e: Encoded) -> Any:
    return L.implies(refused(e), L.not_(e.title))


def i3(e: Encoded) -> Any:
    ch = e.choices
    ok = []
    for s, slot in enumerate(e.final.slots):
        k = ch.kind[s]
        unchanged = L.and_(fin.is_history(ch, s), ls.same_content(slot.c, fin.stored_content(ch, s)))
        allowed = L.or_(unchanged, L.eq(k, Kind.CONTEXT))
        ok.append(L.implies(L.or_(e.result_msgs[s], e.result_mem[s]), allowed))
    return L.implies(L.and_(refused(e), e.has_result), L.and_(L.all_(ok), L.not_(e.result_reply)))


def known_text(e: Encoded, s: int, c: Any) -> Any:
    """A text part the model receives as one stored before the call would be sent (same id,
    role and text). An M2 stamp is not part of what the model receives, so a stamped copy of
    stored text is known too, as properties/invariants/prompt.py keys it (by rendering)."""
    ch = e.choices
    return L.or_(
        L.eq(c.label, -1),
        L.and_(fin.is_stored(ch, s), L.eq(c.label, s), L.eq(c.assistant, ch.assistant[s])),
    )


def known_tool(e: Encoded, s: int, c: Any) -> Any:
    """A tool part the model receives as stored before the call under that id and role: a
    stored result sent unmapped (the same args and result text)."""
    return L.and_(L.eq(e.choices.kind[s], Kind.RESULT), L.eq(c.tool, Tool.RESULT), c.assistant)


def known_hist(e: Encoded, s: int, c: Any) -> Any:
    """The stored result beside the carrier's outcome, sent as stored under the carrier's id and
    role (the same args and result text as the part stored before the call)."""
    ch = e.choices
    return L.and_(L.eq(ch.kind[s], Kind.CARRIER), ch.car_hist, L.eq(c.hist, Tool.RESULT), c.assistant)


def prompt_known_or_read(e: Encoded) -> Any:
    """I4 first half: each prompt entry is stored or configured before the call, or read.
    Mastra's own placeholder user message "." (M12) is nobody's content and is exempt
    (properties/invariants/ flags it: ``PLACEHOLDER_FALSE_POSITIVE``)."""
    out = []
    for s, slot in enumerate(e.prompt.slots):
        text_ok = L.or_(known_text(e, s, slot.c), label_read(e, slot.c.label))
        tool_ok = L.or_(known_tool(e, s, slot.c), tool_read(e, slot.c.tool))
        hist_ok = L.or_(known_hist(e, s, slot.c), hist_read(e, slot.c.hist))
        # an ADD's citation (a text part's providerOptions), its metadata and a user message's
        # reasoning part, when sent, are never read: the guard reads a message's parts, no
        # part's options, of a user message only its text and file parts (G10, G12; the
        # agreement test checks the read)
        unsent = [L.not_(x[s]) for x in (e.prompt_opts, e.prompt_reasoning, e.prompt_meta) if x]
        # a file part's text (only ADDs carry one: never stored before the call) is read
        out.append(L.implies(slot.present, L.and_(text_ok, tool_ok, hist_ok, file_read(e, slot.c.flabel), *unsent)))
    sc = e.choices.scope
    for k in range(sc.processors):
        for j in range(sc.ops):
            out.append(L.implies(e.prompt.systems[1 + k * sc.ops + j], label_read(e, sc.op_label(k, j))))
    out.append(L.implies(L.ne(e.prompt.opt_label, NO_LABEL), label_read(e, e.prompt.opt_label)))
    for k in range(sc.processors):  # an ending's system entry (never, but under a mutant)
        out.append(L.implies(e.prompt.systems[sc.ending_system(k)], label_read(e, sc.edit_label(k))))
    return L.implies(e.prompted, L.all_(out))


def additions_read(e: Encoded) -> Any:
    """I4 second half (guarded): text a processor ever added outside the input is read."""
    ch, sc = e.choices, e.choices.scope
    out = []
    for k, (done, stage) in enumerate(zip(e.completed, e.stages)):
        for s, slot in enumerate(stage.slots):
            b = e.base.slots[s]
            seen_text = L.and_(b.present, L.eq(b.c.label, slot.c.label), L.eq(b.c.assistant, slot.c.assistant))
            seen_tool = L.and_(b.present, L.eq(b.c.tool, slot.c.tool), L.eq(b.c.assistant, slot.c.assistant))
            later = L.and_(L.eq(slot.c.tool, Tool.RESULT), ch.mapping_on)
            entry = L.and_(done, slot.present, L.not_(ls.only_input(slot)))
            text_ok = L.or_(known_text(e, s, slot.c), seen_text, label_read(e, slot.c.label))
            tool_ok = L.or_(seen_tool, later, tool_read(e, slot.c.tool))
            # the stored result beside the carrier's outcome: as on the loaded list, as stored,
            # due a mapping later (its mapped text is then the prompt's to check), or read
            seen_hist = L.and_(b.present, L.eq(b.c.hist, slot.c.hist), L.eq(b.c.assistant, slot.c.assistant))
            later_hist = L.and_(L.eq(slot.c.hist, Tool.RESULT), ch.mapping_on)
            hist_ok = L.or_(seen_hist, later_hist, known_hist(e, s, slot.c), hist_read(e, slot.c.hist))
            out.append(L.implies(entry, L.and_(text_ok, tool_ok, hist_ok, file_read(e, slot.c.flabel))))
        for j in range(sc.ops):
            out.append(L.implies(L.and_(done, stage.systems[1 + k * sc.ops + j]), label_read(e, sc.op_label(k, j))))
        out.append(L.implies(L.and_(done, L.ne(stage.opt_label, NO_LABEL)), label_read(e, stage.opt_label)))
        for k2 in range(sc.processors):
            out.append(L.implies(L.and_(done, stage.systems[sc.ending_system(k2)]), label_read(e, sc.edit_label(k2))))
    return L.implies(e.read_on, L.all_(out))


def i4(e: Encoded) -> Any:
    if e.mode == "raw":
        return prompt_known_or_read(e)
    return L.and_(prompt_known_or_read(e), additions_read(e))


def context_call(e: Encoded) -> Any:
    """A generate or stream call given context messages (a slot that starts as context)."""
    ch = e.choices
    return L.and_(L.not_(L.eq(ch.loop, LoopC.DURABLE)), L.or_(*[L.eq(k, Kind.CONTEXT) for k in ch.kind]))


def failed_by_processor(e: Encoded) -> Any:
    return L.and_(refused(e), L.eq(e.reason, R_PROC_FAILED))


def reaches_processors(e: Encoded) -> Any:
    """The chain runs: no construction TypeError (G0), no context on generate/stream (G1,
    unless the mutant accepts it), RBAC allows."""
    sw = getattr(e, "switches", None)
    blocked = False if sw is not None and sw.g1_context_accepted else context_call(e)
    return L.and_(L.not_(e.choices.title_on), L.not_(blocked), e.choices.rbac_ok)


def i5(e: Encoded) -> Any:
    f = failed_by_processor(e)
    first_fails = L.one_of(e.choices.end[0], (End.THROW, End.ABORT_THEN_THROW)) if e.choices.end else False
    return L.and_(
        L.implies(f, L.and_(L.eq(e.processor_events, 1), L.eq(e.policy_events, 0), L.not_(e.prompted))),
        L.implies(L.not_(f), L.eq(e.processor_events, 0)),
        L.implies(L.and_(first_fails, reaches_processors(e)), L.and_(f, L.eq(e.by, 0))),
    )


def own_refusal(e: Encoded) -> Any:
    return L.and_(refused(e), e.by >= 0, L.ne(e.reason, R_PROC_FAILED))


def runner_name(e: Encoded) -> Any:
    """G6.1: how Mastra names a rethrown TripWire, ``""`` on durable and the runner's name
    (``<agent id>-input-processor``) on generate and stream."""
    return L.ite(L.eq(e.choices.loop, LoopC.DURABLE), BY_NO_ID, BY_RUNNER)


def i6(e: Encoded) -> Any:
    """I6 as properties/invariants/outcome.py checks it: a refusal named after a processor with
    its own reason comes from its abort or TripWire; one named as the runner names a rethrown
    TripWire comes from a TripWire; a first processor that aborts (or throws a TripWire) and is
    reached refuses under its id (as the runner names the TripWire), or fails."""
    ends = e.choices.end
    own = (End.ABORT, End.TRIPWIRE)
    own_abort = L.any_(L.and_(L.eq(e.by, k), L.one_of(ends[k], own), L.eq(e.reason, R_ABORT)) for k in range(len(ends)))
    rethrown = L.and_(refused(e), L.eq(e.by, runner_name(e)), L.ne(e.reason, R_PROC_FAILED))
    some_tripwire = L.any_(L.eq(x, End.TRIPWIRE) for x in ends)
    first = L.and_(L.one_of(ends[0], own), reaches_processors(e)) if ends else False
    named = L.ite(L.eq(ends[0], End.TRIPWIRE), runner_name(e), 0) if ends else 0
    first_ok = L.and_(refused(e), L.or_(L.eq(e.by, named), L.and_(L.eq(e.by, 0), L.eq(e.reason, R_PROC_FAILED))))
    return L.and_(
        L.implies(own_refusal(e), L.and_(own_abort, L.eq(e.processor_events, 0))),
        L.implies(rethrown, some_tripwire),
        L.implies(first, first_ok),
    )


def i7(e: Encoded) -> Any:
    c = e.completed
    prefix = [L.implies(c[k], c[k - 1]) for k in range(1, len(c))]
    return L.and_(L.all_(prefix), L.implies(answered(e), L.all_(c)))


def last_stage(e: Encoded, s: int) -> tuple[Any, Slot]:
    """The slot after the last processor that completed, and whether one did."""
    slot = e.base.slots[s]
    for done, stage in zip(e.completed, e.stages):
        slot = ls.ite_slot(done, stage.slots[s], slot)
    return (e.completed[0] if e.completed else False), slot


def touched(e: Encoded, s: int) -> Any:
    """A completed processor moved the message with in-place steps (invariants.touches)."""
    ch = e.choices
    out = []
    for k, done in enumerate(e.completed):
        for j in range(ch.scope.ops):
            o = ch.op[k][j]
            out.append(
                L.and_(done, L.or_(L.eq(o, Op.CLEAR_INPUT), L.and_(L.one_of(o, (Op.REMOVE, Op.ADD, Op.MOVE)), L.eq(ch.tgt[k][j], s))))
            )
    return L.any_(out)


def carrier(e: Encoded, s: int) -> Any:
    return L.eq(e.choices.kind[s], Kind.CARRIER)


def i8(e: Encoded) -> Any:
    ch = e.choices
    out = []
    for s in range(ch.scope.messages):
        any_done, last = last_stage(e, s)
        considered = L.and_(carrier(e, s), any_done, L.not_(touched(e, s)), last.present)
        both = L.and_(last.mem, last.inp)
        outcome = L.one_of(last.c.tool, (Tool.RESULT, Tool.CACHED, Tool.ERROR))
        sent = e.prompt.slots[s]
        sent_ok = L.and_(sent.present, L.ne(sent.c.tool, Tool.NONE))
        mapped_ok = L.implies(
            L.and_(L.eq(last.c.tool, Tool.RESULT), ch.mapping_on, L.not_(ch.mapping_throws)), L.eq(sent.c.tool, Tool.CACHED)
        )
        read_ok = tool_read(e, sent.c.tool)
        row = e.rows[s]
        # saved in its state: an error as an error, a result as a result (mapped or not)
        saved_ok = L.and_(
            row.present,
            L.ite(L.eq(last.c.tool, Tool.ERROR), L.eq(row.c.tool, Tool.ERROR), L.one_of(row.c.tool, (Tool.RESULT, Tool.CACHED))),
        )
        on_success = L.implies(L.and_(answered(e), outcome), L.and_(sent_ok, mapped_ok, read_ok, saved_ok))
        out.append(L.implies(considered, L.and_(both, on_success)))
    return L.all_(out)


def i9(e: Encoded) -> Any:
    """I9 reduced to one call: the only state a later call reads from this one is the stored
    thread (M7 loads it; M12 sends it; the title is never sent), so after a refused call the
    thread must hold no text of its caller input."""
    ch = e.choices
    N = ch.scope.messages
    leaks = [L.and_(e.rows[s].present, L.eq(e.rows[s].c.label, t), L.eq(ch.kind[t], Kind.INPUT)) for s in range(N) for t in range(N)]
    return L.implies(refused(e), L.not_(L.any_(leaks)))


def i10(e: Encoded) -> Any:
    out = []
    for s in range(e.choices.scope.messages):
        any_done, last = last_stage(e, s)
        sent = e.prompt.slots[s]
        moved = L.and_(carrier(e, s), any_done, last.present, L.not_(last.inp), answered(e), sent.present)
        out.append(L.implies(moved, ls.same_content(sent.c, last.c)))
    return L.all_(out)


def p_i8(e: Encoded) -> Any:
    return L.any_(L.and_(carrier(e, s), answered(e), L.not_(touched(e, s))) for s in range(e.choices.scope.messages))


def p_i10(e: Encoded) -> Any:
    return L.any_(
        L.and_(carrier(e, s), answered(e), last_stage(e, s)[0], last_stage(e, s)[1].present, L.not_(last_stage(e, s)[1].inp))
        for s in range(e.choices.scope.messages)
    )


# -- claims beyond I1-I10: the clauses three semantic mutants bend, which no invariant of the I
# section speaks of (each mirrors an extra property of properties/invariants/, checked the same way)


def identity_only(e: Encoded) -> Any:
    """Every processor is an identity: no steps, and it returns undefined, the list itself or
    the received array as it is (properties/harness.py ``_identity_only``)."""
    ch = e.choices
    if not ch.end:
        return False
    steps = [L.eq(o, Op.NOP) for row in ch.op for o in row]
    ends = [L.one_of(x, (End.UNDEFINED, End.SAME_LIST, End.ARRAY)) for x in ch.end]
    return L.all_(steps + ends)


def without_processors(e: Encoded) -> Encoded:
    """The same call with every processor doing nothing (no steps, ``return undefined``), under
    the same bent rules: the call as if it had no processors."""
    from attrs import evolve

    from .guarded import encode_guarded

    ch = e.choices
    K, J = ch.scope.processors, ch.scope.ops

    def grid(v: Any) -> tuple:
        return tuple(tuple(v for _ in range(J)) for _ in range(K))

    none = evolve(
        ch,
        op=grid(int(Op.NOP)),
        tgt=grid(0),
        src=grid(0),
        omark=grid(False),
        orole=grid(False),
        end=(int(End.UNDEFINED),) * K,
        etgt=(0,) * K,
        emark=(False,) * K,
        oext=grid(False),
    )
    return encode_guarded(none, e.switches)


def _same_content(a: Any, b: Any) -> Any:
    return L.and_(ls.same_content(a, b), L.eq(a.marked, b.marked))


def same_observation(a: Encoded, b: Encoded) -> Any:
    """The fields properties/invariants/ ``identity_processors_change_nothing`` compares:
    outcome, prompt, thread t1, title, result, what the policies read."""
    out = [L.eq(a.outcome, b.outcome), L.implies(refused(a), L.eq(a.by, b.by)), L.implies(L.not_(answered(a)), L.eq(a.reason, b.reason))]
    out.append(L.eq(a.prompted, b.prompted))
    on = a.prompted
    for x, y in zip(a.prompt.slots, b.prompt.slots):
        out.append(L.implies(on, L.and_(L.eq(x.present, y.present), L.implies(x.present, _same_content(x.c, y.c)))))
    for x, y in zip(a.prompt.systems, b.prompt.systems):
        out.append(L.implies(on, L.eq(x, y)))
    out.append(L.implies(on, L.and_(L.eq(a.prompt.opt_label, b.prompt.opt_label), L.eq(a.placeholder, b.placeholder))))
    for x, y in zip(a.rows, b.rows):
        out.append(L.and_(L.eq(x.present, y.present), L.implies(x.present, L.and_(_same_content(x.c, y.c), L.eq(x.merged, y.merged)))))
    out += [L.eq(a.reply_row, b.reply_row), L.eq(a.title, b.title), L.eq(a.has_result, b.has_result)]
    res = (
        [L.eq(a.result_reply, b.result_reply)]
        + [L.eq(x, y) for x, y in zip(a.result_msgs, b.result_msgs)]
        + [L.eq(x, y) for x, y in zip(a.result_mem, b.result_mem)]
    )
    out.append(L.implies(a.has_result, L.all_(res)))
    out.append(L.eq(a.read_on, b.read_on))
    rd = [
        L.eq(a.read_tool_raw, b.read_tool_raw),
        L.eq(a.read_tool_mapped, b.read_tool_mapped),
        L.eq(a.read_hist_raw, b.read_hist_raw),
        L.eq(a.read_hist_mapped, b.read_hist_mapped),
    ] + [L.eq(x, y) for x, y in zip(a.read_labels, b.read_labels)]
    rd += [L.eq(x, y) for x, y in zip(a.read_files, b.read_files)]
    out.append(L.implies(a.read_on, L.all_(rd)))
    return L.all_(out)


def g7(e: Encoded) -> Any:
    """G5, G7 (extra property ``identity_processors_change_nothing``): processors that return
    undefined, the list itself or the array they received leave the call as if they were absent.
    A processor receives every message on the list (G5), so returning its array drops none."""
    if not e.choices.end:
        return True
    return L.implies(identity_only(e), same_observation(e, without_processors(e)))


def g11(e: Encoded) -> Any:
    """G11 (extra property ``mapping_error_fails_call``): when, after the last processor, a result
    part of an input assistant message is due a mapping that throws, the call fails with
    ``input processor failed`` from ``breakwater-client-tool-output``."""
    return L.implies(e.mapping_due, L.and_(refused(e), L.eq(e.by, BY_MAPPER), L.eq(e.reason, R_PROC_FAILED)))


def g12(e: Encoded) -> Any:
    """G12 (extra property ``policy_verdict_matches_read``): when the policies ran, the outcome is
    what they decide in order on the text read (deny-patterns, then the throwing evaluator:
    ``policy evaluation failed``), with exactly one policy event."""
    ch = e.choices
    denied = L.and_(refused(e), L.eq(e.by, BY_POLICY), L.eq(e.reason, R_POLICY))
    failed = L.and_(refused(e), L.eq(e.by, BY_POLICY), L.eq(e.reason, R_POLICY_FAILED))
    want = L.ite(e.read_marked, denied, L.ite(ch.evaluator_on, failed, answered(e)))
    return L.implies(e.read_on, L.and_(want, L.eq(e.policy_events, 1)))


def g15(e: Encoded) -> Any:
    """G3, G15 (extra property ``audit_is_hygienic``): an allowed event carries no reason, and
    every event names the actor Breakwater reads from the request context (none for an actor
    it cannot read)."""
    return L.and_(L.eq(e.reasoned_allowed, 0), L.eq(e.misnamed_events, 0))


def p_g15(e: Encoded) -> Any:
    """An allowed event, or an event of a call whose actor Breakwater cannot read."""
    return L.or_(L.ne(e.allowed_events, 0), L.and_(e.choices.actor_unreadable, L.ne(e.authorize_events, 0)))


def g3(e: Encoded) -> Any:
    """G3 (extra property ``rbac_decides_as_measured``): when RBAC decided, the call is refused
    by ``breakwater-rbac`` exactly when the actor is not allowed as measured (a human viewer,
    or no readable actor; a service principal of an allowed kind is allowed whatever its
    role)."""
    by_rbac = L.and_(refused(e), L.eq(e.by, BY_RBAC))
    return L.implies(L.ne(e.authorize_events, 0), L.eq(by_rbac, L.not_(e.choices.rbac_ok)))


def g1(e: Encoded) -> Any:
    """G1.1 (extra property ``context_option_fails_as_measured``): a guarded generate/stream call given context fails before anything runs: no audit
    event, no model call."""
    return L.implies(context_call(e), L.and_(L.eq(e.outcome, FAILED), L.eq(e.authorize_events, 0), L.not_(e.prompted)))


def g7_null(e: Encoded) -> Any:
    """G7.5 (extra property ``null_system_entries_fail_as_measured``): a processor returning ``systemMessages`` that holds null cannot be applied and fails,
    so such a call is never answered."""
    return L.implies(answered(e), L.not_(L.any_(L.eq(x, End.SYS_NULL) for x in e.choices.end)))


def g7_sdk(e: Encoded) -> Any:
    """G7.2 (extra property ``ai_sdk_system_entries_add_nothing``): an AI SDK system entry of a
    returned array adds nothing, so its text never reaches the model as a system message."""
    sc = e.choices.scope
    return L.implies(e.prompted, L.not_(L.any_(e.prompt.systems[sc.ending_system(k)] for k in range(sc.processors))))


def g2_assets(e: Encoded) -> Any:
    """G16 (extra property ``denied_asset_urls_never_fetched_or_saved``; the claim is named
    ``G2``): a user file URL the input-assets gate denies is never
    fetched (the durable loop names the URL a failed download fetched) and no call saves a
    message holding one (no message stored before the call holds a URL)."""
    ch = e.choices
    fetched = L.and_(L.eq(ch.loop, LoopC.DURABLE), L.eq(e.outcome, FAILED), L.eq(e.reason, R_FETCH))
    saved = L.any_(L.and_(r.present, L.not_(r.c.assistant), r.c.url) for r in e.rows)
    return L.not_(L.or_(fetched, saved))


def p_g2(e: Encoded) -> Any:
    """A call that runs, one of whose processors adds a user message naming a URL."""
    ch = e.choices
    return L.and_(L.ne(e.authorize_events, 0), L.any_(ch.url(k, j) for k in range(ch.scope.processors) for j in range(ch.scope.ops)))


def placeholder_line(line: str) -> bool:
    """An I4 violation properties/invariants/ reports for Mastra's placeholder user message
    "." (id ""), which no caller or processor wrote: a false positive reported to the owner of
    the invariants, left out when the interpreter's verdict is compared with the claim's."""
    return line.startswith("I4: prompt[") and "message '' part" in line


BOTH = ("guarded", "raw")
CLAIMS: dict[str, Claim] = {
    c.name: c
    for c in (
        Claim(
            "I1",
            "a refused call leaves every stored thread as it was",
            ("S8", "S9", "G13", "G14", "M10", "M13"),
            "I1 refused_call_leaves_threads_intact",
            BOTH,
            i1,
            refused,
        ),
        Claim(
            "I2",
            "no title is generated from a refused call",
            ("S9", "G14", "G0", "M10", "M13"),
            "I2 refused_call_generates_no_title",
            BOTH,
            i2,
            refused,
        ),
        Claim(
            "I3",
            "a refused result omits input, response, added, changed, moved messages",
            ("S9", "G13", "G14", "M13"),
            "I3 refused_result_omits_call_messages",
            BOTH,
            i3,
            lambda e: L.and_(refused(e), e.has_result),
        ),
        Claim(
            "I4",
            "nothing reaches the model unread",
            ("S5", "G9", "G10", "G12", "M11", "M12"),
            "I4 nothing_reaches_model_unread",
            BOTH,
            i4,
            lambda e: e.prompted,
        ),
        Claim(
            "I5",
            "a processor failure gives one error event, no policy event, no model call",
            ("S4", "G6"),
            "I5 processor_failure_gives_one_error_event",
            ("guarded",),
            i5,
            failed_by_processor,
        ),
        Claim(
            "I6",
            "an own abort refuses with its own reason and no processor event",
            ("S4", "G6"),
            "I6 own_abort_refuses_with_own_reason",
            ("guarded",),
            i6,
            own_refusal,
        ),
        Claim(
            "I7",
            "each processor runs once, in order, before the model",
            ("S1", "G2", "G5"),
            "I7 processors_run_once_before_model",
            ("guarded",),
            i7,
            answered,
        ),
        Claim(
            "I8",
            "a returned memory+input message stays both, read, mapped, saved",
            ("S3", "G7", "G10", "G11", "M3", "M13"),
            "I8 returned_memory_input_stays_both",
            ("guarded",),
            i8,
            p_i8,
        ),
        Claim(
            "I9",
            "no refused caller text is kept for a later call",
            ("S8", "S9", "G13", "G14", "M7", "M12"),
            "I9 refused_text_never_sent_later",
            BOTH,
            i9,
            refused,
        ),
        Claim(
            "I10",
            "a moved remembered outcome is not re-mapped",
            ("S6", "G11", "M11"),
            "I10 moved_outcome_not_remapped",
            ("guarded",),
            i10,
            p_i10,
        ),
        # beyond I1-I10 (the spec's I section states no invariant for these clauses)
        Claim(
            "G7",
            "identity processors change nothing (each receives every message, G5)",
            ("S2", "G5", "G7"),
            "G7 identity_processors_change_nothing",
            ("guarded",),
            g7,
            identity_only,
        ),
        Claim(
            "G11",
            "a throwing mapping fails the call (breakwater-client-tool-output)",
            ("S6", "G11"),
            "G11 mapping_error_fails_call",
            ("guarded",),
            g11,
            lambda e: e.mapping_due,
        ),
        Claim(
            "G12",
            "the outcome is the policies' decision on the read text",
            ("G12",),
            "G12 policy_verdict_matches_read",
            ("guarded",),
            g12,
            lambda e: L.and_(e.read_on, e.choices.evaluator_on),
        ),
        Claim(
            "G15",
            "audit events: no reason when allowed, the actor Breakwater reads",
            ("G3", "G15"),
            "G15 audit_is_hygienic",
            ("guarded",),
            g15,
            p_g15,
        ),
        Claim(
            "G1",
            "a generate/stream call given context fails before anything runs",
            ("G1",),
            "G1 context_option_fails_as_measured",
            ("guarded",),
            g1,
            context_call,
        ),
        Claim(
            "G3",
            "RBAC decides as measured (the role is checked for humans only)",
            ("G3",),
            "G3 rbac_decides_as_measured",
            ("guarded",),
            g3,
            lambda e: L.and_(L.ne(e.authorize_events, 0), e.choices.actor_service),
        ),
        Claim(
            "G7n",
            "systemMessages holding null cannot be applied: never answered",
            ("G7",),
            "G7 null_system_entries_fail_as_measured",
            ("guarded",),
            g7_null,
            lambda e: L.and_(L.ne(e.authorize_events, 0), L.any_(L.eq(x, End.SYS_NULL) for x in e.choices.end)),
            ("null_system_entries_skipped",),
        ),
        Claim(
            "G7s",
            "an AI SDK system entry of a returned array adds nothing",
            ("G7",),
            "G7 ai_sdk_system_entries_add_nothing",
            ("guarded",),
            g7_sdk,
            lambda e: L.and_(e.prompted, L.any_(L.eq(x, End.AI_SDK) for x in e.choices.end)),
            ("ai_sdk_system_entry_applied",),
        ),
        Claim(
            "G2",
            "a user file URL the input-assets gate denies is never fetched nor saved",
            ("G16",),
            "G2 denied_asset_urls_never_fetched_or_saved",
            ("guarded",),
            g2_assets,
            p_g2,
            ("input_assets_gate_skipped",),
        ),
    )
}
