"""One guarded call, encoded: G0, G2-G14 and G16 over M1-M13 (reference/run.py ``_run_guarded`` and
reference/guard/chain.py ``guarded_chain``)."""

from __future__ import annotations

from typing import Any

from attrs import evolve

from . import finish as fin
from . import listops as ls
from . import logic as L
from .encoded import (
    ANSWERED,
    BY_ASSETS,
    BY_MAPPER,
    BY_NO_ID,
    BY_NONE,
    BY_POLICY,
    BY_RBAC,
    BY_RUNNER,
    FAILED,
    R_ABORT,
    R_ASSET,
    R_FETCH,
    R_NONE,
    R_POLICY,
    R_POLICY_FAILED,
    R_PROC_FAILED,
    R_RBAC,
    R_TYPEERROR,
    REFUSED,
    Encoded,
    ReadItem,
    file_flags,
    hist_flags,
    loaded,
    prepared,
    read_flags,
)
from .listops import ABSENT, ListS, Slot
from .processor import apply_array, current_array, received_all, returned_items, run_steps, systems_emptied
from .scope import NO_LABEL, Choices, End, Kind, LoopC, Op, Tool
from .switches import Switches

CLAUSES = (
    "M1",
    "M2",
    "M3",
    "M5",
    "M6",
    "M7",
    "M11",
    "M12",
    "M13",
    "G0",
    "G1",
    "G2",
    "G3",
    "G5",
    "G6",
    "G7",
    "G9",
    "G10",
    "G11",
    "G12",
    "G13",
    "G14",
    "G15",
)


def refusal_removal(lst: ListS, record_ids: list, snapshot: ListS | None, carriers: list, sw: Switches) -> ListS:
    """G13 Refusal removal: every input message, every response message, every message the
    additions record names, every message the refusing processor's snapshot does not match,
    every remembered caller-outcome carrier; system messages stay."""
    out = []
    for s, slot in enumerate(lst.slots):
        a = slot if sw.g13_keep_input else ls.clear_input(slot)
        a = a if sw.g13_keep_response else ls.clear_response(a)
        if not sw.g13_skip_record:
            a = ls.remove_if(record_ids[s], a)
        if snapshot is not None and not sw.g13_skip_snapshot:
            b = snapshot.slots[s]
            unmatched = L.and_(ls.prompt_entry(a), L.not_(L.and_(ls.prompt_entry(b), ls.same_fingerprint(b.c, a.c))))
            a = ls.remove_if(unmatched, a)
        if not sw.g13_skip_carriers:
            a = ls.remove_if(carriers[s], a)
        out.append(a)
    return ls.with_slots(lst, tuple(out))


def encode_guarded(ch: Choices, sw: Switches | None = None) -> Encoded:
    """G2 Chain (after G0, G3): recorder, memory, each application processor once on the whole
    list (G5) with its outcome classified (G6), application (G7), change detection (G9), G13
    on each refusal; mapping (G11), the read set (G10), the policy (G12); then M12, M13 on
    success and G14 on refusal."""
    sw = sw or Switches()
    sc = ch.scope
    N, K, J = sc.messages, sc.processors, sc.ops
    durable = L.eq(ch.loop, LoopC.DURABLE)
    # G0: memory with title generation is refused at construction; G1.1: a generate/stream call given context is a TypeError before anything runs, as G0's
    # (the mutant accepts the context and runs the call)
    context_call = L.and_(L.not_(durable), L.or_(*[L.eq(ch.kind[s], Kind.CONTEXT) for s in range(N)]))
    g0 = L.or_(ch.title_on, False if sw.g1_context_accepted else context_call)
    # G3 (the mutant checks the role of every principal kind: the service viewer is denied too)
    denied = L.or_(L.not_(ch.rbac_ok), L.and_(sw.g3_role_every_kind, ch.actor_service))
    runs = L.and_(L.not_(g0), L.not_(denied))  # the chain runs
    prep = prepared(ch)
    base = loaded(ch, prep)
    # G4 the recorder saw the carrier's outcome (the blind mutant: nothing)
    carrier_id = [False if sw.g4_blind else L.eq(ch.kind[s], Kind.CARRIER) for s in range(N)]
    all_carriers = [L.and_(carrier_id[s], base.slots[s].mem, base.slots[s].inp) for s in range(N)]

    in_scope: Any = True
    alive: Any = True  # no refusal yet
    lst = base
    final = base
    outcome, by, reason = ANSWERED, BY_NONE, R_NONE
    proc_events: Any = 0
    record_ids: list = [False] * N
    system_reads: list[ReadItem] = []
    rec_slots: list[tuple[Any, Any, Slot, int]] = []  # (recorded, moved, entry, slot)
    completed, stages = [], []
    for k in range(K):
        before = lst
        carriers_k = [L.and_(carrier_id[s], before.slots[s].present, before.slots[s].mem, before.slots[s].inp) for s in range(N)]
        # G5: Breakwater hands the processor the list's own array (live: what the steps add
        # shows in it until a removal replaces it, G5.1); the
        # input-only mutant a snapshot of the input view
        live = not sw.g5_input_only
        st = run_steps(ch, k, before, received_all(before, sw.g5_input_only), live)
        in_scope = L.and_(in_scope, L.implies(alive, st.in_scope))
        items = returned_items(ch, k, current_array(st, live))
        e = ch.end[k]
        # G7.5: systemMessages [null] empties the bucket, then
        # cannot be applied: the processor fails on the emptied list (the mutant skips the null
        # and applies the received array)
        sys_null = L.and_(L.not_(st.threw), L.eq(e, End.SYS_NULL))
        steps_list = ls.ite_list(sys_null, systems_emptied(st.list), st.list)
        after = apply_array(
            ch,
            k,
            steps_list,
            st.received,
            items,
            before,
            guarded=True,
            demote=sw.g7_demote,
            given=received_all(before),
            also=sys_null if sw.g7_null_skipped else False,
        )
        # G7: an AI SDK system entry adds nothing (the mutant adds its text as a system message)
        sdk_entry = L.and_(alive, L.not_(st.threw), L.eq(e, End.AI_SDK)) if sw.g7_ai_sdk_applied else False
        if sw.g7_ai_sdk_applied:
            idx = sc.ending_system(k)
            after = ListS(
                after.slots,
                tuple(L.or_(x, sdk_entry) if i == idx else x for i, x in enumerate(after.systems)),
                after.stale,
                after.opt_label,
                after.opt_marked,
            )
        # G6 outcome classes: own abort; any other throw (around abort included) fails
        trips = L.and_(alive, L.not_(st.threw), L.eq(e, End.TRIPWIRE))  # an own refusal, like abort
        aborts = L.or_(
            trips,
            L.and_(
                alive,
                L.or_(
                    L.and_(L.not_(st.threw), L.eq(e, End.ABORT)), L.and_(sw.g6_throw_after_abort_is_abort, L.eq(e, End.ABORT_THEN_THROW))
                ),
            ),
        )
        cannot_apply = False if sw.g7_null_skipped else sys_null
        fails = L.and_(alive, L.not_(aborts), L.or_(st.threw, L.one_of(e, (End.THROW, End.ABORT_THEN_THROW)), cannot_apply))
        ok = L.and_(alive, L.not_(aborts), L.not_(fails))
        stop_carriers = [L.or_(a, b) for a, b in zip(carriers_k, all_carriers)]
        removed = refusal_removal(steps_list, record_ids, before, stop_carriers, sw)
        refuses = L.or_(aborts, fails)
        final = ls.ite_list(refuses, removed, final)
        outcome = L.ite(refuses, REFUSED, outcome)
        # G6: a rethrown TripWire is named as Mastra's runner names it (the mutant: the processor)
        runner = k if sw.g6_tripwire_by_processor else L.ite(durable, BY_NO_ID, BY_RUNNER)
        by = L.ite(refuses, L.ite(trips, runner, k), by)
        reason = L.ite(aborts, R_ABORT, L.ite(fails, R_PROC_FAILED, reason))
        # G6: exactly one processor error event on a failure
        proc_events = L.ite(fails, 2 if sw.g6_two_failure_events else 1, L.ite(aborts, 1 if sw.g6_abort_event else 0, proc_events))
        # G9 change detection: unmatched prompt entries, and moved carriers, recorded as they stand
        recording = ok if not sw.g9_only_last or k == K - 1 else False
        for s in range(N):
            b, a = before.slots[s], after.slots[s]
            added = L.and_(ls.prompt_entry(a), L.not_(L.and_(ls.prompt_entry(b), ls.same_fingerprint(b.c, a.c))))
            moved = L.and_(carriers_k[s], a.present, L.not_(a.inp))
            active = L.and_(recording, L.or_(added, moved))
            record_ids[s] = L.or_(record_ids[s], active)
            rec_slots.append((active, moved, a, s))
        # the instructions changed in place (their providerOptions): a system addition
        opt_changed = L.ne(after.opt_label, before.opt_label)
        if not sw.g9_ignore_options and not sw.g9_skip_system:
            system_reads.append(ReadItem(L.and_(recording, opt_changed), after.opt_label, after.opt_marked, Tool.NONE))
        if sw.g7_ai_sdk_applied and not sw.g9_skip_system:
            # the mutant's system message is a system addition, read (G9, G10)
            system_reads.append(ReadItem(L.and_(recording, sdk_entry), sc.edit_label(k), ch.emark[k], Tool.NONE))
        for j in range(J):
            idx = 1 + k * J + j
            if not sw.g9_skip_system:
                # G12: a split system message is read as the model receives it, one text (the
                # mutant reads its parts apart: neither the label nor the marker is there)
                apart = L.and_(L.eq(ch.op[k][j], Op.ADD_SYSTEM), ch.orole[k][j]) if sw.g12_split_apart else False
                label = L.ite(apart, NO_LABEL, sc.op_label(k, j))
                system_reads.append(
                    ReadItem(L.and_(recording, after.systems[idx]), label, L.and_(L.not_(apart), ch.omark[k][j]), Tool.NONE)
                )
        completed.append(ok)
        stages.append(after)
        alive = ok
        lst = after

    # G11 mapping (a throwing mapping fails the call: processor breakwater-client-tool-output,
    # one processor error event, G13 removal without a snapshot; the lenient mutant logs it and
    # goes on), then G10 the read set over the final list
    # G11.1: of a remembered input message only the caller's
    # outcome parts are mapped; every result part of one a processor added or changed (its id
    # recorded) or of one memory does not hold: the stored result beside the carrier's outcome
    # is mapped only then (the mutant that maps every stored result: always)
    hist_whole = tuple(True if sw.g11_map_stored else L.or_(record_ids[s], L.not_(lst.slots[s].mem)) for s in range(N))
    # G16 the input-assets gate between the processors and the mapping: a user message on the list (any source) whose file part names a URL of an origin the
    # agent does not allow (it allows none) stops the call, an agent.input.asset event, G13
    # removal without a snapshot (the mutant has no gate)
    urls = L.any_(L.and_(s.present, L.not_(s.c.assistant), s.c.url) for s in lst.slots)
    gate = False if sw.g2_gate_skipped else L.and_(runs, alive, urls)
    passed = L.and_(alive, L.not_(gate))
    due = L.and_(runs, passed, fin.mapping_throws(ch, lst, hist_whole=fin.changed_since(base, lst)))
    map_fail = False if sw.g11_lenient else L.and_(runs, passed, fin.mapping_throws(ch, lst, sw.g11_remap_moved, hist_whole))
    mapped = fin.map_outputs(ch, lst, sw.g11_remap_moved, hist_whole)
    items_read: list[ReadItem] = []
    # the mutant reads a history id that stands under input alone as it was before mapping
    unmapped = [L.and_(sw.g10_history_input_unmapped, ls.only_input(mapped.slots[s]), fin.is_stored(ch, s)) for s in range(N)]
    # G10.2 caller messages: on generate/stream the policy
    # engine receives every message on the list, on durable the input view
    whole_list = L.not_(L.eq(ch.loop, LoopC.DURABLE))
    for s, slot in enumerate(mapped.slots):
        slot = ls.ite_slot(unmapped[s], lst.slots[s], slot)
        caller = L.and_(slot.present, L.or_(slot.inp, whole_list), L.not_(slot.mem))
        both = L.and_(slot.present, slot.inp, slot.mem, carrier_id[s], L.one_of(slot.c.tool, (Tool.RESULT, Tool.CACHED, Tool.ERROR)))
        # beyond SPEC (reference/guard/readset.py): every message still identical to a context
        # message the caller passed (the very object, a returned copy, or moved unchanged under
        # any source), read whole
        context = L.and_(slot.present, L.eq(ch.kind[s], Kind.CONTEXT), ls.same_content(base.slots[s].c, slot.c))
        items_read.append(ReadItem(caller, slot.c.label, slot.c.marked, slot.c.tool, slot.c.flabel, slot.c.hist, slot.c.url, slot.c.uri))
        items_read.append(ReadItem(both, -2, False, slot.c.tool))
        items_read.append(ReadItem(context, slot.c.label, slot.c.marked, slot.c.tool, slot.c.flabel, slot.c.hist, slot.c.url, slot.c.uri))
    # G10, G11: a remembered input message a processor changed, once mapping changed its parts,
    # is recorded again as it is sent and read whole (the mutant leaves it as the processor did)
    for s in range(N):
        m, b = mapped.slots[s], lst.slots[s]
        remapped = L.or_(L.ne(m.c.tool, b.c.tool), L.ne(m.c.hist, b.c.hist))
        again = False if sw.g10_skip_remapped else L.and_(record_ids[s], m.present, m.mem, m.inp, m.c.assistant, remapped)
        items_read.append(ReadItem(again, m.c.label, m.c.marked, m.c.tool, m.c.flabel, m.c.hist, m.c.url, m.c.uri))
    for active, moved, a, s in rec_slots:
        f = ls.ite_slot(unmapped[s], lst.slots[s], mapped.slots[s])
        whole = L.and_(
            f.present,
            L.or_(
                L.and_(L.or_(f.inp, whole_list), L.not_(f.mem)),
                L.and_(L.eq(ch.kind[s], Kind.CONTEXT), ls.same_content(base.slots[s].c, f.c)),
            ),
        )
        already = L.and_(whole, ls.same_fingerprint(f.c, a.c))
        if sw.g10_skip_history_rewrite:
            active = L.and_(active, L.or_(moved, L.not_(L.and_(f.present, f.mem))))
        items_read.append(
            ReadItem(L.and_(active, L.not_(already)), a.c.label, a.c.marked, a.c.tool, a.c.flabel, a.c.hist, a.c.url, a.c.uri)
        )
    items_read.extend(system_reads)
    labels, raw, mapped_t, marked = read_flags(ch, items_read)
    hist_raw, hist_mapped = hist_flags(items_read)
    # G12: text file data read decoded (the mutant reads the base64 string: no file text)
    # G12: text file data read decoded (the mutant reads the string: a URL is read as the URL,
    # which holds the label, base64 data as no file text)
    # a data URI under its own media type (the mutant): a foreign-typed one reads no file text
    if sw.g12_file_data_raw:
        file_items = [evolve(i, active=L.and_(i.active, i.furl)) for i in items_read]
    elif sw.g12_uri_own_type:
        file_items = [evolve(i, active=L.and_(i.active, L.not_(i.furi))) for i in items_read]
    else:
        file_items = items_read
    files = file_flags(ch, file_items)
    evaluating = L.and_(passed, L.not_(map_fail))  # the policies run (G12)
    deny = L.and_(evaluating, marked)
    # G12: the evaluator after deny-patterns throws: policy evaluation failed (the mutant skips it)
    pfail = False if sw.g12_skip_errors else L.and_(evaluating, L.not_(marked), ch.evaluator_on)
    policy_stop = L.or_(deny, pfail)
    policy_removed = refusal_removal(mapped, record_ids, None, all_carriers, sw)
    map_removed = refusal_removal(lst, record_ids, None, all_carriers, sw)
    final = ls.ite_list(policy_stop, policy_removed, ls.ite_list(L.or_(map_fail, gate), map_removed, ls.ite_list(alive, mapped, final)))
    outcome = L.ite(L.or_(policy_stop, map_fail, gate), REFUSED, outcome)
    by = L.ite(policy_stop, BY_POLICY, L.ite(map_fail, BY_MAPPER, L.ite(gate, BY_ASSETS, by)))
    reason = L.ite(deny, R_POLICY, L.ite(pfail, R_POLICY_FAILED, L.ite(map_fail, R_PROC_FAILED, L.ite(gate, R_ASSET, reason))))
    proc_events = L.ite(map_fail, 2 if sw.g6_two_failure_events else 1, proc_events)
    answered = L.and_(runs, evaluating, L.not_(policy_stop))
    # M12.10: Mastra fetches every user file URL before the
    # model step; offline the fetch fails and the turn is saved all the same. Under the guard
    # the gate stopped every such call; without it (the mutant) the call fails here
    fetched = (
        L.and_(answered, L.any_(L.and_(s.present, L.not_(s.c.assistant), s.c.url) for s in mapped.slots)) if sw.g2_gate_skipped else False
    )

    # M12 the model step, M13 saving on success; G14 nothing saved, no title on refusal
    stepped = fin.model_step(mapped)
    refused_list = final
    # after saving: generate and stream add the earlier response messages again (M12)
    # on the durable loop the policy engine's output step re-adds the response messages before
    # they are saved (G12.11)
    settled = ls.ite_list(durable, fin.policy_engine_output_return(stepped.list), stepped.list)
    final = ls.ite_list(answered, ls.ite_list(durable, settled, fin.readd_earlier_responses(mapped, stepped)), final)
    # durable finalisation saves the input and response the removal left (G13: none); on an
    # answered durable call the policy engine re-adds the response messages first (G12 stamps)
    refused_saves = L.and_(runs, L.not_(answered), durable)
    rows, reply_row = fin.save(
        ch,
        ls.ite_list(answered, settled, refused_list),
        tuple(L.and_(answered, m) for m in stepped.merged),
        L.and_(answered, stepped.reply),
        L.or_(answered, refused_saves),
        mapped,
        durable,
    )
    reply = L.and_(answered, stepped.reply)

    # G3 RBAC: before Mastra on generate/stream (a throw: no list, no result); a tripwire from
    # breakwater-rbac on durable, G13 removing the caller input from the prepared list
    if sw.rbac_durable_keeps_input:
        rbac_final = prep
    else:
        rbac_final = ListS(tuple((s if sw.g13_keep_input else ls.clear_input(s)) for s in prep.slots), prep.systems)
    final = ls.ite_list(denied, rbac_final, final)
    # durable finalisation after an RBAC tripwire saves what the removal left (nothing)
    rbac_rows, _rbac_reply = fin.save(ch, rbac_final, (False,) * N, False, L.and_(denied, durable))
    rows = tuple(
        fin.Row(L.ite(denied, b.present, r.present), ls.ite_content(denied, b.c, r.c), L.and_(L.not_(denied), r.merged))
        for r, b in zip(rows, rbac_rows)
    )
    outcome = L.ite(g0, FAILED, L.ite(denied, REFUSED, L.ite(fetched, FAILED, outcome)))
    by = L.ite(g0, BY_NONE, L.ite(denied, BY_RBAC, by))
    reason = L.ite(g0, R_TYPEERROR, L.ite(denied, R_RBAC, L.ite(fetched, R_FETCH, reason)))
    refused = L.and_(L.not_(g0), L.eq(outcome, REFUSED))
    # the mutants that save or title a refused durable call from the prepared list
    if sw.g14_save_on_refusal:
        bad_rows, _bad_reply = fin.save(ch, prep, (False,) * N, False, True)
        bent = L.and_(refused, durable)
        rows = tuple(
            fin.Row(L.ite(bent, b.present, r.present), ls.ite_content(bent, b.c, r.c), L.and_(L.not_(bent), r.merged))
            for r, b in zip(rows, bad_rows)
        )
    title = L.and_(refused, durable, fin.has_user(prep)) if sw.g14_title_on_refusal else False
    final = ls.with_slots(final, tuple(ls.ite_slot(durable, ls.drain(s), s) for s in final.slots))
    has_list = L.and_(L.not_(g0), L.or_(durable, L.not_(denied)))
    rows = tuple(
        fin.Row(
            L.ite(L.not_(g0), r.present, fin.is_stored(ch, s)),
            ls.ite_content(L.not_(g0), r.c, fin.stored_content(ch, s)),
            L.and_(L.not_(g0), r.merged),
        )
        for s, r in enumerate(rows)
    )
    reply_row = L.and_(runs, reply_row)
    policies_ran = L.and_(runs, evaluating)
    listed = L.and_(has_list, L.or_(runs, durable))
    # G15 the audit's shapes: the authorize event is allowed unless RBAC denies, the policy
    # event when the policies allow; an allowed event carries no reason; every event names the
    # actor Breakwater reads (none for an unreadable one). The mutants bend each.
    authorize_events = L.ite(g0, 0, 1)
    processor_events = L.ite(runs, proc_events, 0)
    policy_events = L.ite(policies_ran, 1, 0)
    allowed = L.ite(L.and_(L.not_(g0), L.not_(denied)), 1, 0) + L.ite(answered, 1, 0)
    asset_events = L.ite(gate, 1, 0)
    events = authorize_events + processor_events + policy_events + asset_events
    return Encoded(
        mode="guarded",
        choices=ch,
        in_scope=in_scope,
        outcome=outcome,
        by=by,
        reason=reason,
        authorize_events=authorize_events,
        processor_events=processor_events,
        policy_events=policy_events,
        asset_events=asset_events,
        has_list=has_list,
        final=final,
        final_reply=Slot(reply, False, False, L.and_(reply, L.not_(durable)), False, ABSENT.c, -1),
        prompted=L.and_(answered, L.not_(fetched)),
        prompt=mapped,
        placeholder=L.and_(answered, fin.leads_with_assistant(mapped)),
        rows=rows,
        reply_row=reply_row,
        thread_changed=fin.thread_changed(ch, rows, reply_row),
        title=title,
        has_result=L.and_(runs, L.not_(durable)),
        result_msgs=tuple(L.and_(listed, s.present) for s in final.slots),
        result_reply=reply,
        result_mem=tuple(L.and_(listed, s.present, s.mem) for s in final.slots),
        read_on=policies_ran,
        read_labels=tuple(L.and_(policies_ran, x) for x in labels),
        read_files=tuple(L.and_(policies_ran, x) for x in files),
        read_tool_raw=L.and_(policies_ran, raw),
        read_tool_mapped=L.and_(policies_ran, mapped_t),
        read_hist_raw=L.and_(policies_ran, hist_raw),
        read_hist_mapped=L.and_(policies_ran, hist_mapped),
        base=base,
        completed=tuple(L.and_(runs, c) for c in completed),
        stages=tuple(stages),
        clauses=CLAUSES,
        read_marked=L.and_(policies_ran, marked),
        mapping_due=due,
        switches=sw,
        allowed_events=allowed,
        reasoned_allowed=allowed if sw.g15_allowed_reason else 0,
        misnamed_events=L.ite(ch.actor_unreadable, events, 0) if sw.g15_keep_actor else 0,
        # M12: a prompt part carries no providerOptions, a user message sends only its text and
        # file parts, a prompt message no metadata (M12.4, M12.5);
        # the mutants send them
        prompt_opts=tuple(L.and_(sw.m12_part_options_sent, s.present, s.c.ext) for s in mapped.slots),
        prompt_reasoning=tuple(L.and_(sw.m12_user_every_part, s.present, s.c.ext, L.not_(s.c.assistant)) for s in mapped.slots),
        prompt_meta=tuple(L.and_(sw.m12_metadata_sent, s.present, s.c.meta) for s in mapped.slots),
    )
