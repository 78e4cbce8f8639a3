"""M1-M6 over the abstract list: slots by id, each with its sources and content.

A message's *content* is what its fingerprint (G9) and the prompt see: its text label (and
whether that text holds the marker), its role, the carrier's tool part, and whether the text
part carries an M2 stamp (a stored text has none, so a stamped copy is no longer the stored
part, I4). An object identity ``obj`` stands for ``Message.ref``: Mastra's runner skips a
returned object the list already holds (M8, G7).
"""

from __future__ import annotations

from typing import Any

from attrs import evolve, frozen

from . import logic as L
from .scope import NO_LABEL, Src, Tool


@frozen
class Content:
    label: Any
    marked: Any
    assistant: Any
    tool: Any
    stamped: Any
    # the message carries content the model never receives (an ADD's ``oext``): its text part's
    # providerOptions (an Anthropic citation), its metadata (a note), and for a user message a
    # reasoning part; M12 sends none of them, the policies read none (G10 reads a message's
    # parts, of a user message its text and file parts)
    ext: Any = False
    # the metadata an ADD gave the message (with ``ext``); unlike the part's options it joins a
    # message an earlier response merges into (M4 spreads the incoming metadata)
    meta: Any = False
    # Mastra's legacy ``content.toolInvocations`` mirror, which the merge of a tool result
    # writes (M3 fold of the carrier's result); only G9's fingerprint sees it (``same_fingerprint``)
    mirror: Any = False
    # the label of the ``text/plain`` file part an ADD's message carries (``Choices.ofile``):
    # its data is the base64 of ``file_text(label)``, which the model receives decoded and the
    # guard reads decoded (G12); NO_LABEL when none
    flabel: Any = NO_LABEL
    # the carrier's stored result of an earlier call (``Choices.car_hist``), beside its tool
    # part: ``Tool.NONE``, ``Tool.RESULT`` (as stored) or ``Tool.CACHED`` (mapped, M11/G11)
    hist: Any = Tool.NONE
    # the file part (``flabel``) names a URL the input-assets gate denies (``Choices.ourl``)
    url: Any = False
    # its data is a data URI naming another media type (``Choices.ouri``)
    uri: Any = False


@frozen
class Slot:
    present: Any
    mem: Any
    inp: Any
    resp: Any
    ctx: Any
    c: Content
    obj: Any


NOTHING = Content(NO_LABEL, False, False, Tool.NONE, False)
ABSENT = Slot(False, False, False, False, False, NOTHING, -1)


@frozen
class ListS:
    """The non-system messages by slot, and which system entries are on the list: entry 0 is
    the instructions (M7), entry ``1 + k*J + j`` the ADD_SYSTEM of processor k's step j.
    ``stale``: ``clear.input`` leaves a cleared memory+input message in the memory set as a
    stale reference that Mastra's id-based source checker still sees (M8; reference
    ``MessageList.detached``)."""

    slots: tuple
    systems: tuple
    stale: tuple = ()  # per slot: a stale memory reference left by clear.input (raw checker)
    opt_label: Any = NO_LABEL  # the label of the instructions' providerOptions text, if set
    opt_marked: Any = False

    def stale_at(self, s: int) -> Any:
        return self.stale[s] if self.stale else False


def ite_content(c: Any, a: Content, b: Content) -> Content:
    if not L.sym(c):
        return a if c else b
    return Content(*(L.ite(c, x, y) for x, y in zip(_fields(a), _fields(b))))


def ite_slot(c: Any, a: Slot, b: Slot) -> Slot:
    if not L.sym(c):
        return a if c else b
    return Slot(
        L.ite(c, a.present, b.present),
        L.ite(c, a.mem, b.mem),
        L.ite(c, a.inp, b.inp),
        L.ite(c, a.resp, b.resp),
        L.ite(c, a.ctx, b.ctx),
        ite_content(c, a.c, b.c),
        L.ite(c, a.obj, b.obj),
    )


def ite_list(c: Any, a: ListS, b: ListS) -> ListS:
    if not L.sym(c):
        return a if c else b
    n = len(a.slots)
    return ListS(
        tuple(ite_slot(c, x, y) for x, y in zip(a.slots, b.slots)),
        tuple(L.ite(c, x, y) for x, y in zip(a.systems, b.systems)),
        tuple(L.ite(c, a.stale_at(i), b.stale_at(i)) for i in range(n)) if (a.stale or b.stale) else (),
        L.ite(c, a.opt_label, b.opt_label),
        L.ite(c, a.opt_marked, b.opt_marked),
    )


def with_slots(lst: ListS, slots: tuple) -> ListS:
    """The same list (system entries, options, stale references) with other message slots."""
    return ListS(slots, lst.systems, lst.stale, lst.opt_label, lst.opt_marked)


def _fields(c: Content) -> tuple:
    return (c.label, c.marked, c.assistant, c.tool, c.stamped, c.ext, c.meta, c.mirror, c.flabel, c.hist, c.url, c.uri)


def same_content(a: Content, b: Content) -> Any:
    """G9 fingerprint equality of two messages with one id: role and content (text, stamps,
    tool part, the text part's providerOptions and a reasoning part: ``ext``; metadata: ``meta``;
    a file part: ``flabel``; a stored result beside the carrier's outcome: ``hist``). Labels are
    unique per text, so equal labels mean equal texts."""
    return L.and_(
        L.eq(a.label, b.label),
        L.eq(a.assistant, b.assistant),
        L.eq(a.tool, b.tool),
        L.eq(a.stamped, b.stamped),
        L.eq(a.ext, b.ext),
        L.eq(a.meta, b.meta),
        L.eq(a.flabel, b.flabel),
        L.eq(a.hist, b.hist),
        L.eq(a.url, b.url),
        L.eq(a.uri, b.uri),
    )


def same_fingerprint(a: Content, b: Content) -> Any:
    """G9 fingerprint equality (reference/reading.py ``compute_fingerprint``): the content and
    the legacy ``toolInvocations`` mirror, which a literal copy of a folded carrier lacks
    (G9.2)."""
    return L.and_(same_content(a, b), L.eq(a.mirror, b.mirror))


def only_input(s: Slot) -> Any:
    return L.and_(s.inp, L.not_(s.mem), L.not_(s.resp), L.not_(s.ctx))


def prompt_entry(s: Slot) -> Any:
    """G9 prompt entries: every message that is not pure call input."""
    return L.and_(s.present, L.not_(only_input(s)))


def with_sources(mem: Any, inp: Any, resp: Any, ctx: Any, c: Content, obj: Any) -> Slot:
    return Slot(True, mem, inp, resp, ctx, c, obj)


def of_source(src: Any, c: Content, obj: Any) -> Slot:
    """A message added under ``src`` where no message has its id (M2 step 9, M1 ``_push`` on
    an empty set). Every source but memory stamps its parts (M2)."""
    stamped = L.or_(c.stamped, L.ne(src, Src.MEMORY))
    return with_sources(
        L.eq(src, Src.MEMORY),
        L.eq(src, Src.INPUT),
        L.eq(src, Src.RESPONSE),
        L.eq(src, Src.CONTEXT),
        evolve(c, stamped=stamped),
        obj,
    )


def add(old: Slot, src: Any, c: Content, obj: Any) -> tuple[Slot, Any]:
    """M1-M3 ``add`` of a new message (merge off) over the slot with its id; returns the slot
    and whether the case lies inside the scope.

    Not memory: the old message is replaced wholesale and leaves every source (M2). Memory
    onto a message live in the input (memory+input included): M3's fold keeps the new message
    (no outcome of the live copy advances a call of it), memory then input. Memory onto a message
    of memory only: replaced, memory only. Memory onto a message live in response or context
    only: outside the scope (M3 would splice the two messages' texts)."""
    fresh = of_source(src, c, obj)
    is_mem = L.eq(src, Src.MEMORY)
    fold = L.and_(is_mem, old.present, old.inp)
    folded_c = c  # the live copy's outcomes advance no call of the new message: none joins
    folded = Slot(True, True, True, False, False, folded_c, obj)
    ok = L.not_(L.and_(is_mem, old.present, L.not_(old.inp), L.or_(old.resp, old.ctx)))
    return ite_slot(fold, folded, fresh), ok


def first_source(s: Slot, stale: Any = False) -> Any:
    """M1 source checker: the first source in memory, input, response, context order (a stale
    memory reference counts, on the list or not: the checker maps the source sets' members to
    ids, M1.2); input for an id it does not know (M8)."""
    return L.ite(
        L.or_(stale, L.and_(s.present, s.mem)),
        Src.MEMORY,
        L.ite(L.not_(s.present), Src.INPUT, L.ite(s.inp, Src.INPUT, L.ite(s.resp, Src.RESPONSE, L.ite(s.ctx, Src.CONTEXT, Src.INPUT)))),
    )


def readd_under(before: Slot, c: Content, obj: Any, first_only: bool = False) -> Slot:
    """G7 ``_readd``: under the sources the id had before the processor ran (input if none),
    the first by ``add`` (merge off: it stamps unless memory), the rest by ``pushMessageToSource``
    (M1: response drops memory and input)."""
    known = before.present
    mem, inp, resp, ctx = (L.and_(known, x) for x in (before.mem, before.inp, before.resp, before.ctx))
    none = L.not_(L.or_(mem, inp, resp, ctx))
    inp = L.or_(inp, none)
    first = L.ite(mem, Src.MEMORY, L.ite(inp, Src.INPUT, L.ite(resp, Src.RESPONSE, Src.CONTEXT)))
    slot = of_source(first, c, obj)
    if first_only:  # the demoting mutant: the first source only
        return slot
    # push the later sources in order; only response changes what is there already
    m, i, r, x = slot.mem, L.or_(slot.inp, inp), slot.resp, L.or_(slot.ctx, ctx)
    m2 = L.ite(resp, False, m)
    i2 = L.ite(resp, False, i)
    r2 = L.or_(r, resp)
    # pushes before response happened in order memory, input; response then clears them
    return Slot(True, m2, i2, r2, x, slot.c, obj)


def clear_input(s: Slot) -> Slot:
    """M5 ``clear.input``: every input message leaves the list, memory+input ones included."""
    return ite_slot(s.inp, ABSENT, s)


def clear_response(s: Slot) -> Slot:
    return ite_slot(s.resp, ABSENT, s)


def remove_if(c: Any, s: Slot) -> Slot:
    """M5 ``removeByIds``."""
    return ite_slot(c, ABSENT, s)


def drain(s: Slot) -> Slot:
    """Durable finalisation ``drainUnsavedMessages``: input and response sets emptied."""
    return Slot(s.present, s.mem, False, False, s.ctx, s.c, s.obj)
