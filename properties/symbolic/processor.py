"""One application processor over the abstract list: its steps in place, its ending, and the
application of what it returns, the guard's way (G7) and Mastra's (M8).

Mirrors reference/invocation.py: ``received`` are the objects ``processInput`` was given;
an in-place EDIT of one of them shows through the array that holds it (the ``heap``).
"""

from __future__ import annotations

from typing import Any

from attrs import evolve, frozen

from . import listops as ls
from . import logic as L
from .encoded import carrier_tool
from .listops import ABSENT, Content, ListS, Slot
from .scope import NO_LABEL, Choices, End, Kind, Op, Tool


@frozen
class Received:
    """Per slot: whether the id is in the received array, the object, its content as given
    (``given``) and as in-place edits left it (``heap``)."""

    has: tuple
    obj: tuple
    given: tuple
    heap: tuple


def ite_received(c: Any, a: Received, b: Received) -> Received:
    def pick(x: tuple, y: tuple) -> tuple:
        return tuple(ls.ite_content(c, p, q) if isinstance(p, Content) else L.ite(c, p, q) for p, q in zip(x, y))

    return Received(pick(a.has, b.has), pick(a.obj, b.obj), pick(a.given, b.given), pick(a.heap, b.heap))


def received_all(lst: ListS, input_only: bool = False) -> Received:
    """G5 / M7: every message on the list (``messageList.get.all.db()``); with ``input_only``
    the input messages alone (the mutant that hands the guard's processors M7's raw rule)."""
    return Received(
        tuple(L.and_(s.present, s.inp) if input_only else s.present for s in lst.slots),
        tuple(s.obj for s in lst.slots),
        tuple(s.c for s in lst.slots),
        tuple(s.c for s in lst.slots),
    )


@frozen
class Steps:
    list: ListS
    received: Received
    threw: Any  # a list operation threw (EditMessage of an id not on the list)
    in_scope: Any
    frozen: Any = False  # a live array was replaced (raw runner): ``snapshot`` is what it kept
    snapshot: Received | None = None


def run_steps(ch: Choices, k: int, lst: ListS, rcv: Received, live: Any = False) -> Steps:
    """Processor language steps, in order; a throw ends them (G6 / M8 read it).

    ``live`` (raw runner, reference/invocation.py): the processor was handed Mastra's own
    messages array, which shows what the steps add until ``removeByIds`` or ``clear.input``
    replaces it; from then on it keeps what it held (``snapshot``), in-place edits showing."""
    sc = ch.scope
    N = sc.messages
    frozen: Any = False
    snap_has = [False] * N
    snap_obj: list = [-1] * N
    snap_c = [ls.NOTHING] * N
    threw: Any = False
    ok: Any = True
    systems = list(lst.systems)
    stale = [lst.stale_at(s) for s in range(N)]
    opt_label, opt_marked = lst.opt_label, lst.opt_marked
    heap = list(rcv.heap)
    for j in range(sc.ops):
        o, t = ch.op[k][j], ch.tgt[k][j]
        act = L.not_(threw)
        label = sc.op_label(k, j)
        is_add, is_rm, is_edit, is_clear, is_move = (L.and_(act, L.eq(o, x)) for x in (Op.ADD, Op.REMOVE, Op.EDIT, Op.CLEAR_INPUT, Op.MOVE))
        target_present = L.any_(L.and_(L.eq(t, s), lst.slots[s].present) for s in range(N))
        freezing = L.and_(live, act, L.not_(frozen), L.one_of(o, (Op.REMOVE, Op.CLEAR_INPUT, Op.MOVE))) if live is not False else False
        for s in range(N):
            cur = lst.slots[s]
            snap_has[s] = L.ite(freezing, cur.present, snap_has[s])
            snap_obj[s] = L.ite(freezing, cur.obj, snap_obj[s])
            snap_c[s] = ls.ite_content(freezing, cur.c, snap_c[s])
        frozen = L.or_(frozen, freezing)
        new_slots = []
        for s in range(N):
            old = lst.slots[s]
            hit = L.eq(t, s)
            added, in_scope = ls.add(
                old,
                ch.src[k][j],
                Content(
                    label,
                    ch.omark[k][j],
                    ch.orole[k][j],
                    Tool.NONE,
                    False,
                    ch.ext(k, j),
                    ch.ext(k, j),
                    flabel=L.ite(ch.file(k, j), label, NO_LABEL),
                    url=ch.url(k, j),
                    uri=ch.uri(k, j),
                ),
                100 + label,
            )
            # MOVE: the literal copy (the carrier as memory loaded it, with the caller's result)
            is_carrier = L.eq(ch.kind[s], Kind.CARRIER)
            with_result = L.one_of(ch.kind[s], (Kind.CARRIER, Kind.RESULT))
            outcome = L.ite(is_carrier, carrier_tool(ch), Tool.RESULT)
            hist = L.ite(L.and_(is_carrier, ch.car_hist), Tool.RESULT, Tool.NONE)  # the stored result beside it
            copy = Content(s, ch.mark[s], L.or_(is_carrier, ch.assistant[s]), L.ite(with_result, outcome, Tool.NONE), False, hist=hist)
            moved = ls.of_source(ch.src[k][j], copy, 100 + label)
            ok = L.and_(ok, L.implies(L.and_(is_add, hit), in_scope))
            edited_c = evolve(old.c, label=label, marked=ch.omark[k][j])  # the part's options, other parts, metadata kept
            edited = Slot(old.present, old.mem, old.inp, old.resp, old.ctx, edited_c, old.obj)
            do_edit = L.and_(is_edit, hit, old.present)
            new = ls.ite_slot(
                L.and_(is_add, hit),
                added,
                ls.ite_slot(
                    L.and_(is_move, hit),
                    moved,
                    ls.ite_slot(
                        L.and_(is_rm, hit),
                        ABSENT,
                        ls.ite_slot(do_edit, edited, ls.ite_slot(is_clear, ls.clear_input(old), old)),
                    ),
                ),
            )
            # the heap: an edit of a received object shows through the received array
            heap[s] = ls.ite_content(L.and_(do_edit, rcv.has[s], L.eq(old.obj, rcv.obj[s])), edited_c, heap[s])
            if live is not False:
                snap_c[s] = ls.ite_content(L.and_(do_edit, frozen, snap_has[s], L.eq(old.obj, snap_obj[s])), edited_c, snap_c[s])
            stale[s] = L.or_(stale[s], L.and_(is_clear, old.present, old.inp, old.mem))
            new_slots.append(new)
        systems[1 + k * sc.ops + j] = L.or_(systems[1 + k * sc.ops + j], L.and_(act, L.eq(o, Op.ADD_SYSTEM)))
        edit_sys = L.and_(act, L.eq(o, Op.EDIT_SYSTEM))
        opt_label = L.ite(edit_sys, label, opt_label)
        opt_marked = L.ite(edit_sys, ch.omark[k][j], opt_marked)
        threw = L.or_(threw, L.and_(is_edit, L.not_(target_present)))
        lst = ListS(tuple(new_slots), tuple(systems), tuple(stale), opt_label, opt_marked)
    snapshot = Received(tuple(snap_has), tuple(snap_obj), tuple(snap_c), tuple(snap_c))
    return Steps(lst, Received(rcv.has, rcv.obj, rcv.given, tuple(heap)), threw, ok, frozen, snapshot)


def current_array(st: Steps, live: Any = False) -> Received:
    """The array ``processInput`` holds when it returns (reference/invocation.py ``current``):
    what it received, or with a live array the list as it stands (or the snapshot the
    replacement left); each object still on the list seen as it stands there, else as the
    processor's in-place edits left it."""
    rcv, snap, lst = st.received, st.snapshot, st.list
    has, obj, cs = [], [], []
    for s, cur in enumerate(lst.slots):
        if live is False:
            b_has, b_obj, b_c = rcv.has[s], rcv.obj[s], rcv.heap[s]
        else:
            b_has = L.ite(live, L.ite(st.frozen, snap.has[s], cur.present), rcv.has[s])
            b_obj = L.ite(live, L.ite(st.frozen, snap.obj[s], cur.obj), rcv.obj[s])
            b_c = ls.ite_content(live, ls.ite_content(st.frozen, snap.heap[s], cur.c), rcv.heap[s])
        on = L.and_(cur.present, L.eq(cur.obj, b_obj))
        has.append(b_has)
        obj.append(b_obj)
        cs.append(ls.ite_content(on, cur.c, b_c))
    return Received(tuple(has), tuple(obj), tuple(cs), tuple(cs))


ARRAY_ENDS = (End.ARRAY, End.COPIES, End.FILTER, End.EDIT_TEXT, End.AI_SDK)


def systems_emptied(lst: ListS) -> ListS:
    """``replaceAllSystemMessages([])``: the untagged bucket emptied, the instructions too."""
    return ListS(lst.slots, tuple(False for _ in lst.systems), lst.stale, NO_LABEL, False)


@frozen
class Items:
    """The returned array, per slot: in it, the object, its content."""

    has: tuple
    obj: tuple
    c: tuple


def returned_items(ch: Choices, k: int, now: Received) -> Items:
    """The array an ending returns, built from the array the processor holds (``now``,
    ``current_array``; processor language ``ArrayOf``): its objects, fresh copies, one id
    dropped, or one text edited into a fresh object."""
    sc = ch.scope
    e, t = ch.end[k], ch.etgt[k]
    has, obj, cs = [], [], []
    for s in range(sc.messages):
        hit = L.eq(t, s)
        has.append(L.and_(now.has[s], L.not_(L.and_(L.eq(e, End.FILTER), hit))))
        edit = L.and_(L.eq(e, End.EDIT_TEXT), hit)
        h = now.heap[s]
        rcv = now
        obj.append(L.ite(L.eq(e, End.COPIES), 200 + k * sc.messages + s, L.ite(edit, 300 + k, rcv.obj[s])))
        cs.append(ls.ite_content(edit, evolve(h, label=sc.edit_label(k), marked=ch.emark[k]), h))
    return Items(tuple(has), tuple(obj), tuple(cs))


def apply_array(
    ch: Choices,
    k: int,
    lst: ListS,
    rcv: Received,
    items: Items,
    before: ListS,
    guarded: bool,
    demote: bool = False,
    given: Received | None = None,
    also: Any = False,
) -> ListS:
    """G7 Applying messages / M8 ``applyMessagesToMessageList``: received ids missing from the
    array are removed; each returned object (the guard: every one; Mastra: each the list does
    not hold) replaces the message with its id, re-added (merge off) under the sources it had
    before the processor ran (guard, S3) or under the first source the checker names, else
    input (Mastra). ``also``: another ending applied as its received array (a mutant's)."""
    is_array = L.or_(L.one_of(ch.end[k], ARRAY_ENDS), also)
    out = []
    for s in range(ch.scope.messages):
        cur = lst.slots[s]
        # received ids missing from the array: the ids the runner handed over (``given``; the
        # input-only mutant builds its array from fewer)
        dropped = L.and_((given or rcv).has[s], L.not_(items.has[s]))
        # Mastra's runner skips an object the list holds (M8); the guard re-adds even that one,
        # as the durable runner's legacy path does (reference/guard/application.py)
        held = False if guarded else L.and_(cur.present, L.eq(cur.obj, items.obj[s]))
        if guarded:
            back = ls.readd_under(before.slots[s], items.c[s], items.obj[s], demote)
        else:
            back = ls.of_source(ls.first_source(before.slots[s], before.stale_at(s)), items.c[s], items.obj[s])
        new = ls.ite_slot(dropped, ABSENT, ls.ite_slot(L.and_(items.has[s], L.not_(held)), back, cur))
        out.append(ls.ite_slot(is_array, new, cur))
    return ls.with_slots(lst, tuple(out))


def next_received(ch: Choices, k: int, lst: ListS, now: Received, items: Items, live: Any, frozen: Any) -> tuple[Received, Any]:
    """M7 (raw runner, reference/raw_runner.py ``_next_received``): the next processor
    receives the list's own (live) array when this one returned the list, its array when it
    returned one, otherwise the array this one held (still live if it was and was not
    replaced)."""
    e = ch.end[k]
    same = L.eq(e, End.SAME_LIST)
    arr = L.one_of(e, ARRAY_ENDS)
    N = ch.scope.messages
    whole = received_all(lst)
    has = tuple(L.ite(same, whole.has[s], L.ite(arr, items.has[s], now.has[s])) for s in range(N))
    obj = tuple(L.ite(same, whole.obj[s], L.ite(arr, items.obj[s], now.obj[s])) for s in range(N))
    c = tuple(ls.ite_content(same, whole.given[s], ls.ite_content(arr, items.c[s], now.given[s])) for s in range(N))
    still_live = L.ite(same, True, L.ite(arr, False, L.and_(live, L.not_(frozen))))
    return Received(has, obj, c, c), still_live
