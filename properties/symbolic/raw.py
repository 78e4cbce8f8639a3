"""One raw call, encoded: the same processors handed straight to Mastra (reference/run.py
``_run_raw`` and reference/raw_runner.py), with the naive RBAC and policy processors."""

from __future__ import annotations

from typing import Any

from . import finish as fin
from . import listops as ls
from . import logic as L
from .encoded import (
    ANSWERED,
    BY_NONE,
    BY_POLICY,
    BY_RBAC,
    BY_RUNNER,
    FAILED,
    R_ABORT,
    R_NONE,
    R_POLICY,
    R_RAW_FAILED,
    R_RBAC,
    REFUSED,
    Encoded,
    ReadItem,
    hist_flags,
    loaded,
    prepared,
    read_flags,
)
from .listops import ABSENT, Slot
from .processor import apply_array, current_array, ite_received, next_received, received_all, returned_items, run_steps
from .scope import Choices, End, LoopC

CLAUSES = ("M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9", "M10", "M11", "M12", "M13")


def encode_raw(ch: Choices, sw: Any = None) -> Encoded:
    """M7 preparation and memory, M8 the raw runner (RBAC, the processors, the naive policy
    reading the input messages), M9 the standard loop's tripwire and failure, M10 the durable
    loop's finalisation (saves and titles on a tripwire, swallows a failure), M11-M13."""
    sc = ch.scope
    K = sc.processors
    durable = L.eq(ch.loop, LoopC.DURABLE)
    base = loaded(ch, prepared(ch))
    denied = L.not_(ch.rbac_ok)

    in_scope: Any = True
    alive: Any = L.not_(denied)
    trip: Any = denied
    failure: Any = False
    by: Any = L.ite(denied, BY_RBAC, BY_NONE)
    reason: Any = L.ite(denied, R_RBAC, R_NONE)
    at_stop = base
    lst = base
    # M7: with memory the first processor is handed the list's own (live) messages array
    live: Any = True
    rcv = received_all(base)
    completed, stages = [], []
    for k in range(K):
        before = lst
        rcv = ite_received(live, received_all(before), rcv)
        st = run_steps(ch, k, before, rcv, live)
        # returning systemMessages [null] is left out of the raw encoding: Mastra applies the
        # messages, empties the bucket, then throws (M8.6)
        in_scope = L.and_(in_scope, L.implies(alive, L.and_(st.in_scope, L.ne(ch.end[k], End.SYS_NULL))))
        # a file part naming a URL is left out of the raw encoding too: Mastra would fetch it
        # before the model step (M12.10)
        in_scope = L.and_(in_scope, *(L.not_(ch.url(k, j)) for j in range(sc.ops)))
        now = current_array(st, live)
        items = returned_items(ch, k, now)
        after = apply_array(ch, k, st.list, st.received, items, before, guarded=False)
        e = ch.end[k]
        trips = L.and_(alive, L.not_(st.threw), L.eq(e, End.TRIPWIRE))  # named <agent id>-input-processor
        aborts = L.and_(alive, L.not_(st.threw), L.one_of(e, (End.ABORT, End.TRIPWIRE)))
        throws = L.and_(alive, L.or_(st.threw, L.one_of(e, (End.THROW, End.ABORT_THEN_THROW))))
        stops = L.or_(aborts, throws)
        at_stop = ls.ite_list(stops, st.list, at_stop)
        trip = L.or_(trip, aborts)
        failure = L.or_(failure, throws)
        by = L.ite(stops, L.ite(trips, BY_RUNNER, k), by)
        reason = L.ite(aborts, R_ABORT, L.ite(throws, R_RAW_FAILED, reason))
        ok = L.and_(alive, L.not_(stops))
        rcv, live = next_received(ch, k, after, now, items, live, st.frozen)
        completed.append(ok)
        stages.append(after)
        alive = ok
        lst = after

    # the naive policy processor reads the input messages' text (before any mapping)
    items_read = [ReadItem(L.and_(alive, s.present, s.inp), s.c.label, s.c.marked, s.c.tool, hist=s.c.hist) for s in lst.slots]
    labels, raw_t, mapped_t, marked = read_flags(ch, items_read)
    hist_raw, hist_mapped = hist_flags(items_read)
    deny = L.and_(alive, marked)
    # the throwing evaluator after deny-patterns: a failure (M9 rejects, M10 swallows it)
    pfail = L.and_(alive, L.not_(marked), ch.evaluator_on)
    at_stop = ls.ite_list(L.or_(deny, pfail), lst, at_stop)
    trip = L.or_(trip, deny)
    failure = L.or_(failure, pfail)
    by = L.ite(deny, BY_POLICY, by)
    reason = L.ite(deny, R_POLICY, L.ite(pfail, R_RAW_FAILED, reason))
    clean = L.and_(alive, L.not_(deny), L.not_(pfail))

    # M10: a durable tripwire still saves input and response and titles the thread
    trip_saves = L.and_(trip, durable)
    # M9/M10: no stop, or a failure the durable loop swallows: mapping, the model, saving
    answered = L.or_(clean, L.and_(failure, durable))
    ran = ls.ite_list(failure, at_stop, lst)
    mapped = fin.map_outputs(ch, ran)
    stepped = fin.model_step(mapped)
    saved_list = ls.ite_list(answered, stepped.list, at_stop)
    merged = tuple(L.and_(answered, m) for m in stepped.merged)
    reply = L.and_(answered, stepped.reply)
    rows, reply_row = fin.save(ch, saved_list, merged, reply, L.or_(answered, trip_saves), mapped)
    title = L.and_(ch.title_on, L.or_(answered, trip_saves), fin.has_user(saved_list))

    outcome = L.ite(answered, ANSWERED, L.ite(trip, REFUSED, FAILED))
    by = L.ite(answered, BY_NONE, by)
    reason = L.ite(answered, R_NONE, reason)
    # after saving: generate and stream add the earlier response messages again (M12)
    after = ls.ite_list(L.and_(answered, L.not_(durable)), fin.readd_earlier_responses(mapped, stepped), saved_list)
    final = ls.with_slots(after, tuple(ls.ite_slot(durable, ls.drain(s), s) for s in after.slots))
    has_result = L.and_(L.not_(durable), L.or_(answered, trip))
    return Encoded(
        mode="raw",
        choices=ch,
        in_scope=in_scope,
        outcome=outcome,
        by=by,
        reason=reason,
        authorize_events=0,
        processor_events=0,
        policy_events=0,
        has_list=True,
        final=final,
        final_reply=Slot(reply, False, False, L.and_(reply, L.not_(durable)), False, ABSENT.c, -1),
        prompted=answered,
        prompt=mapped,
        placeholder=L.and_(answered, fin.leads_with_assistant(mapped)),
        rows=rows,
        reply_row=reply_row,
        thread_changed=fin.thread_changed(ch, rows, reply_row),
        title=title,
        has_result=has_result,
        result_msgs=tuple(L.and_(has_result, s.present) for s in final.slots),
        result_reply=L.and_(has_result, reply),
        result_mem=tuple(L.and_(has_result, s.present, s.mem) for s in final.slots),
        read_on=True,
        read_labels=tuple(L.and_(clean, x) for x in labels),
        read_tool_raw=L.and_(clean, raw_t),
        read_tool_mapped=L.and_(clean, mapped_t),
        read_hist_raw=L.and_(clean, hist_raw),
        read_hist_mapped=L.and_(clean, hist_mapped),
        base=base,
        completed=tuple(completed),
        stages=tuple(stages),
        clauses=CLAUSES,
    )
