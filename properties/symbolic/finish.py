"""M11 mapping, M12 model step, M13 saving, title and result, over the abstract list."""

from __future__ import annotations

from typing import Any

from attrs import evolve, frozen

from . import listops as ls
from . import logic as L
from .listops import Content, ListS, Slot
from .scope import NO_LABEL, Choices, Kind, Tool


def map_outputs(ch: Choices, lst: ListS, remap_moved: bool = False, hist_whole: tuple | None = None) -> ListS:
    """M11 / G11: each result part of an assistant message in the input set whose client tool
    has a mapping (that does not throw) and no cached output gets its output cached. A message moved out of the
    input is not walked (I10); ``remap_moved`` (the mutant) walks one whose outcome carries this
    call's stamp too. The carrier's stored result beside its outcome (``Content.hist``) is
    mapped where ``hist_whole`` says so (G11 under the guard: the message is not remembered, or
    a processor changed it; None: always, raw Mastra's M11)."""
    out = []
    for i, s in enumerate(lst.slots):
        hit = L.and_(_due(ch, s, remap_moved), L.not_(ch.mapping_throws))
        hit_h = L.and_(_due_hist(ch, s, remap_moved, hist_whole[i] if hist_whole is not None else True), L.not_(ch.mapping_throws))
        c = evolve(s.c, tool=L.ite(hit, Tool.CACHED, s.c.tool), hist=L.ite(hit_h, Tool.CACHED, s.c.hist))
        out.append(Slot(s.present, s.mem, s.inp, s.resp, s.ctx, c, s.obj))
    return ls.with_slots(lst, tuple(out))


def _due(ch: Choices, s: Slot, remap_moved: bool) -> Any:
    walked = L.or_(s.inp, L.and_(remap_moved, s.c.stamped)) if remap_moved else s.inp
    return L.and_(s.present, walked, s.c.assistant, L.eq(s.c.tool, Tool.RESULT), ch.mapping_on)


def _due_hist(ch: Choices, s: Slot, remap_moved: bool, whole: Any) -> Any:
    """G11 / M11 for the stored result beside the carrier's outcome: walked in the input set
    where ``whole`` (the guard maps every result part of a message it reads whole, of a
    remembered one only the caller's outcome parts, G11.1);
    the remapping mutant maps every part of a moved message."""
    walked = L.and_(s.inp, whole)
    if remap_moved:
        walked = L.or_(walked, L.and_(L.not_(s.inp), s.c.stamped))
    return L.and_(s.present, walked, s.c.assistant, L.eq(s.c.hist, Tool.RESULT), ch.mapping_on)


def mapping_throws(ch: Choices, lst: ListS, remap_moved: bool = False, hist_whole: tuple | None = None) -> Any:
    """G11: the mapping runs on a result part (as ``map_outputs`` walks them) and throws: under
    the guard the call fails (processor ``breakwater-client-tool-output``); raw Mastra logs it
    and sends the raw result (the part stays uncached)."""
    due = [
        L.or_(_due(ch, s, remap_moved), _due_hist(ch, s, remap_moved, hist_whole[i] if hist_whole is not None else True))
        for i, s in enumerate(lst.slots)
    ]
    return L.and_(ch.mapping_throws, L.any_(due))


def changed_since(base: ListS, lst: ListS) -> tuple:
    """Per slot: the message is not the remembered one memory loaded as it was (absent from the
    loaded list, not remembered now, or its parts changed): the property G11 counts every
    result part of such an input message as due its mapping, of an unchanged remembered one
    only the caller's outcome parts (``mapping_error_fails_call``)."""
    out = []
    for b, s in zip(base.slots, lst.slots):
        out.append(L.not_(L.and_(b.present, b.mem, s.mem, ls.same_content(b.c, s.c))))
    return tuple(out)


@frozen
class Stepped:
    """After the model step: the list, which slot the reply merged into (if any), and the
    reply's own row (present when it did not merge)."""

    list: ListS
    merged: tuple
    reply: Any


def model_step(lst: ListS) -> Stepped:
    """M12: the reply is added as an assistant response message; M4 merges it into the last
    message (by createdAt, which is slot order here) when that is an assistant message, which
    then moves to response (M1)."""
    N = len(lst.slots)
    merged = []
    out = []
    for s in range(N):
        cur = lst.slots[s]
        last = L.and_(cur.present, *(L.not_(lst.slots[t].present) for t in range(s + 1, N)))
        m = L.and_(last, cur.c.assistant)
        merged.append(m)
        # the merge stamps the message's unstamped parts in place (M2, as measured)
        c = evolve(cur.c, stamped=True)
        out.append(ls.ite_slot(m, Slot(True, False, False, True, cur.ctx, c, cur.obj), cur))
    return Stepped(ls.with_slots(lst, tuple(out)), tuple(merged), L.not_(L.any_(merged)))


def policy_engine_output_return(lst: ListS) -> ListS:
    """G12.11 on the guarded durable loop's finalisation (reference/guard/application.py ``policy_engine_output_return``): the policy engine, the
    guarded agent's output processor, returns the response messages it was handed, and
    Mastra's runner removes each by id (out of every source set, M5.1) and re-adds
    it, merge off, under the source its checker names first (M1.2: memory, input,
    response, context, by id). A response message holds neither memory nor input (M1: adding
    under response drops them), so the checker names response: the durable loop hands this step
    a list rebuilt from its workflow state, so a stale memory reference ``clear.input`` left
    (M5.2) is gone (G12.11), and the message stays response and is
    saved (M13). A response message that was also context (moved under context by a processor,
    then merged into by the reply, M4) is no longer context. Its parts are stamped already (M2: added under
    a source other than memory, or merged into)."""
    out = []
    for slot in lst.slots:
        back = L.and_(slot.present, slot.resp)
        out.append(Slot(slot.present, slot.mem, slot.inp, slot.resp, L.and_(slot.ctx, L.not_(back)), slot.c, slot.obj))
    return ls.with_slots(lst, tuple(out))


def readd_earlier_responses(before: ListS, stepped: Stepped) -> ListS:
    """M12.13 ``generate()`` and ``stream()``: after
    the reply is saved, each response message that was on the list before the model step is
    added again as ``response``, merge on, in list order. Its parts are stamped (M2); an
    assistant one merges (M4) into the latest message, the reply or the message the reply
    merged into, which gains its tool part when it held none (measured on real Mastra: a
    carrier moved under ``response``, then a stored assistant message the reply merged into,
    ends holding the carrier's result part too). Every tool part has its own call id, so a
    merge appends it: the target's first tool part is its own, else the first one brought.
    The durable loop re-adds nothing."""
    N = len(before.slots)
    out = []
    for s in range(N):
        cur = stepped.list.slots[s]
        b = before.slots[s]
        earlier = L.and_(b.present, b.resp)
        tool, meta, flabel, hist, uri = cur.c.tool, cur.c.meta, cur.c.flabel, cur.c.hist, cur.c.uri
        for r in range(N):
            if r == s:
                continue
            o = before.slots[r]
            brings = L.and_(stepped.merged[s], o.present, o.resp, o.c.assistant, L.ne(o.c.tool, Tool.NONE), L.eq(tool, Tool.NONE))
            tool = L.ite(brings, o.c.tool, tool)
            # M4 spreads the incoming message's metadata onto the target
            meta = L.or_(meta, L.and_(stepped.merged[s], o.present, o.resp, o.c.assistant, o.c.meta))
            # its file part joins the target too: the target's first file part is its own, else
            # the first one brought
            brings_file = L.and_(stepped.merged[s], o.present, o.resp, o.c.assistant, L.ne(o.c.flabel, NO_LABEL), L.eq(flabel, NO_LABEL))
            flabel = L.ite(brings_file, o.c.flabel, flabel)
            uri = L.ite(brings_file, o.c.uri, uri)
            # the carrier's stored result beside its outcome joins the target too (one carrier)
            brings_hist = L.and_(stepped.merged[s], o.present, o.resp, o.c.assistant, L.ne(o.c.hist, Tool.NONE), L.eq(hist, Tool.NONE))
            hist = L.ite(brings_hist, o.c.hist, hist)
        c = evolve(cur.c, tool=tool, stamped=L.or_(cur.c.stamped, earlier), meta=meta, flabel=flabel, hist=hist, uri=uri)
        out.append(Slot(cur.present, cur.mem, cur.inp, cur.resp, cur.ctx, c, cur.obj))
    return ls.with_slots(stepped.list, tuple(out))


def stored_content(ch: Choices, s: int) -> Content:
    """What thread t1 holds for slot s before the call (M7 loads it as memory)."""
    carrier = L.eq(ch.kind[s], Kind.CARRIER)
    result = L.eq(ch.kind[s], Kind.RESULT)
    hist = L.ite(L.and_(carrier, ch.car_hist), Tool.RESULT, Tool.NONE)
    return Content(s, ch.mark[s], ch.assistant[s], L.ite(carrier, Tool.CALL, L.ite(result, Tool.RESULT, Tool.NONE)), False, hist=hist)


def is_stored(ch: Choices, s: int) -> Any:
    return L.one_of(ch.kind[s], (Kind.STORED, Kind.CARRIER, Kind.RESULT))


def is_history(ch: Choices, s: int) -> Any:
    """Stored history that is not the carrier (a text message, or a stored result)."""
    return L.one_of(ch.kind[s], (Kind.STORED, Kind.RESULT))


@frozen
class Row:
    present: Any
    c: Content
    merged: Any


def save(
    ch: Choices, lst: ListS, merged: tuple, reply: Any, saving: Any, unstamped: ListS | None = None, restamped: Any = False
) -> tuple[tuple, Any]:
    """M13: the input then the response messages are upserted into thread t1 (when
    ``saving``); returns the rows per slot and whether the reply has its own row. A message
    the reply merged into is saved without the stamp the merge gave its parts on the list
    (``unstamped``: the list before the model step), unless ``restamped``: G12, the guarded
    durable finalisation re-adds the response messages before saving, which stamps them
    (``reference.guard.application.policy_engine_output_return``)."""
    rows = []
    for s, slot in enumerate(lst.slots):
        saved = L.and_(saving, slot.present, L.or_(slot.inp, slot.resp))
        c = slot.c
        if unstamped is not None:
            c = evolve(c, stamped=L.ite(L.and_(merged[s], L.not_(restamped)), unstamped.slots[s].c.stamped, c.stamped))
        rows.append(
            Row(
                L.or_(saved, is_stored(ch, s)),
                ls.ite_content(saved, c, stored_content(ch, s)),
                L.and_(saved, merged[s]),
            )
        )
    return tuple(rows), L.and_(saving, reply)


def thread_changed(ch: Choices, rows: tuple, reply_row: Any) -> Any:
    """I1's question: does thread t1 differ from what it held before the call?"""
    diff = [reply_row]
    for s, r in enumerate(rows):
        same = L.and_(is_stored(ch, s), ls.same_content(r.c, stored_content(ch, s)), L.eq(r.c.marked, ch.mark[s]), L.not_(r.merged))
        diff.append(L.and_(r.present, L.not_(same)))
    return L.any_(diff)


def has_user(lst: ListS) -> Any:
    """M13 title source: the transcript exists when a user message of the thread is on the
    list (every message here is of thread t1)."""
    return L.any_(L.and_(s.present, L.not_(s.c.assistant)) for s in lst.slots)


def leads_with_assistant(lst: ListS) -> Any:
    """M12 (as measured): when the first non-system message sent is not a user message, Mastra
    puts a user message "." first."""
    out: Any = False
    for s in reversed(lst.slots):
        out = L.ite(s.present, s.c.assistant, out)
    return out
