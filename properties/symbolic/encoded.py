"""The encoded call: every field the encoding computes, and the list a call starts from."""

from __future__ import annotations

from typing import Any

from attrs import frozen

from . import listops as ls
from . import logic as L
from .listops import ABSENT, Content, ListS, Slot
from .scope import NO_LABEL, Choices, Kind, Tool

ANSWERED, REFUSED, FAILED = 0, 1, 2
BY_NONE, BY_RBAC, BY_POLICY, BY_MAPPER = -1, -2, -3, -4
# a TripWire a processor throws itself, named as Mastra's runner names it (G6, measured):
# ``<agent id>-input-processor``, or ``""`` on the guarded durable loop
BY_RUNNER, BY_NO_ID = -5, -6
BY_ASSETS = -7  # the input-assets gate, breakwater-input-assets (G16)
R_NONE, R_ABORT, R_PROC_FAILED, R_POLICY, R_RBAC, R_TYPEERROR, R_RAW_FAILED, R_POLICY_FAILED = range(8)
R_ASSET = 8  # the gate denied an asset URL (G16.5)
R_FETCH = 9  # Mastra failed to download a user file URL before the model step (M12.10)


@frozen
class Encoded:
    """One call, encoded. ``clauses`` names the clauses the encoding relied on."""

    mode: str
    choices: Choices
    in_scope: Any
    outcome: Any
    by: Any
    reason: Any
    authorize_events: Any
    processor_events: Any
    policy_events: Any
    has_list: Any
    final: ListS
    final_reply: Slot
    prompted: Any
    prompt: ListS
    placeholder: Any  # M12: the user message "." Mastra puts first
    rows: tuple
    reply_row: Any
    thread_changed: Any
    title: Any
    has_result: Any
    result_msgs: tuple
    result_reply: Any
    result_mem: tuple
    read_on: Any
    read_labels: tuple
    read_tool_raw: Any
    read_tool_mapped: Any
    base: ListS
    completed: tuple
    stages: tuple
    clauses: tuple
    read_marked: Any = False  # the text the policies read holds the deny marker (G12)
    mapping_due: Any = False  # after the last processor, a throwing mapping is due on the input (G11)
    switches: Any = None  # the bent rules the encoding was built with (None: the guard's own)
    # G15 the audit's shapes (guarded): allowed events, those carrying a reason, events whose
    # actor is not the one Breakwater reads from the request context
    allowed_events: Any = 0
    reasoned_allowed: Any = 0
    misnamed_events: Any = 0
    # M12 per slot: the prompt sends the text part's providerOptions (an ADD's citation), and a
    # user message's reasoning part (the guard's Mastra sends neither; two mutants do)
    prompt_opts: tuple = ()
    prompt_reasoning: tuple = ()
    prompt_meta: tuple = ()  # the message's metadata (M12.5)
    read_files: tuple = ()  # per label: its file text was read (G12; none in raw mode)
    # the stored result beside the carrier's outcome (``Content.hist``) read as stored, mapped
    read_hist_raw: Any = False
    read_hist_mapped: Any = False
    asset_events: Any = 0  # G16.5: agent.input.asset events (the gate's denial)


def carrier_tool(ch: Choices) -> Any:
    """The caller's outcome on the carrier: a result, or an error (``Choices.car_err``)."""
    return L.ite(ch.car_err, Tool.ERROR, Tool.RESULT)


def prepared(ch: Choices) -> ListS:
    """M7 Preparation: the instructions (system entry 0), context messages as ``context``,
    the caller's messages as ``input`` (the carrier's caller copy holds only its tool part),
    before history is loaded."""
    slots = []
    for s in range(ch.scope.messages):
        k = ch.kind[s]
        c_in = Content(s, ch.mark[s], ch.assistant[s], Tool.NONE, True)
        carrier_copy = Content(NO_LABEL, False, True, carrier_tool(ch), False)  # no text part to stamp
        inp = Slot(True, False, True, False, False, c_in, s)
        ctx = Slot(True, False, False, False, True, c_in, s)
        car = Slot(True, False, True, False, False, carrier_copy, s)
        slots.append(
            ls.ite_slot(L.eq(k, Kind.INPUT), inp, ls.ite_slot(L.eq(k, Kind.CONTEXT), ctx, ls.ite_slot(L.eq(k, Kind.CARRIER), car, ABSENT)))
        )
    # the instructions, one entry per ADD_SYSTEM step, one per ending (an AI SDK entry)
    systems = (True,) + (False,) * (ch.scope.processors * ch.scope.ops) + (False,) * ch.scope.processors
    return ListS(tuple(slots), systems)


def loaded(ch: Choices, lst: ListS) -> ListS:
    """M7 memory processors: the input filter (M7.4) keeps, of the caller input,
    the user messages after the last assistant message (by createdAt: the carrier, if any) and
    the carrier's advancing outcome; then stored history is added as memory; M3 folds the
    carrier's stored copy onto its caller copy, which is then memory+input and holds the stored
    text with the caller's result. A stored result is memory, its result part unmapped."""
    slots = []
    N = ch.scope.messages
    for s in range(N):
        k = ch.kind[s]
        later_carrier = L.any_(L.eq(ch.kind[t], Kind.CARRIER) for t in range(s + 1, N))
        filtered = L.and_(L.eq(k, Kind.INPUT), later_carrier)
        tool = L.ite(L.eq(k, Kind.RESULT), Tool.RESULT, Tool.NONE)
        stored = Slot(True, True, False, False, False, Content(s, ch.mark[s], ch.assistant[s], tool, False), s)
        # M4 (MessageMerger.merge) writes a result, not an error, into toolInvocations
        # the stored result beside the outcome (``car_hist``) is kept, unmapped; the mirror holds
        # the caller's result only
        hist = L.ite(ch.car_hist, Tool.RESULT, Tool.NONE)
        carrier = Slot(
            True, True, True, False, False, Content(s, ch.mark[s], True, carrier_tool(ch), False, mirror=L.not_(ch.car_err), hist=hist), s
        )
        kept = ls.ite_slot(filtered, ABSENT, lst.slots[s])
        slots.append(ls.ite_slot(L.one_of(k, (Kind.STORED, Kind.RESULT)), stored, ls.ite_slot(L.eq(k, Kind.CARRIER), carrier, kept)))
    return ListS(tuple(slots), lst.systems)


@frozen
class ReadItem:
    """One entry the policies read whole (or one part of it): its text label, whether that
    text is marked, its tool part (``Tool.NONE`` when none is read), and the label of its
    ``text/plain`` file part (NO_LABEL when none is read)."""

    active: Any
    label: Any
    marked: Any
    tool: Any
    flabel: Any = NO_LABEL
    hist: Any = Tool.NONE  # the stored result beside the carrier's outcome, as read
    furl: Any = False  # the file part names a URL (read as the URL string)
    furi: Any = False  # the file part's data is a data URI naming another media type


def read_flags(ch: Choices, items: list[ReadItem]) -> tuple[tuple, Any, Any, Any]:
    """Which labels and tool texts were read, and whether the marker was (G12)."""
    labels = tuple(L.any_(L.and_(i.active, L.eq(i.label, lab)) for i in items) for lab in ch.scope.labels)
    # an error's text is the result text, read as a string result is (G12)
    raw = L.any_(L.and_(i.active, L.one_of(i.tool, (Tool.RESULT, Tool.ERROR))) for i in items)
    mapped = L.any_(L.and_(i.active, L.eq(i.tool, Tool.CACHED)) for i in items)
    hraw, hmapped = hist_flags(items)
    marked = L.or_(
        L.any_(L.and_(i.active, L.ne(i.label, NO_LABEL), i.marked) for i in items),
        L.and_(L.or_(raw, mapped), ch.res_mark),
        L.and_(L.or_(hraw, hmapped), ch.hist_mark),
    )
    return labels, raw, mapped, marked


def hist_flags(items: list[ReadItem]) -> tuple[Any, Any]:
    """Whether the stored result beside the carrier's outcome was read as stored, and mapped."""
    raw = L.any_(L.and_(i.active, L.eq(i.hist, Tool.RESULT)) for i in items)
    mapped = L.any_(L.and_(i.active, L.eq(i.hist, Tool.CACHED)) for i in items)
    return raw, mapped


def file_flags(ch: Choices, items: list[ReadItem]) -> tuple:
    """Which file texts were read (G12: ``text/*`` file data decoded, as the model receives
    it)."""
    return tuple(L.any_(L.and_(i.active, L.eq(i.flabel, lab)) for i in items) for lab in ch.scope.labels)


def file_read(e: Encoded, flabel: Any) -> Any:
    """No file part, or its text was read."""
    if not e.read_files:
        return L.eq(flabel, NO_LABEL)
    return L.or_(L.eq(flabel, NO_LABEL), L.any_(L.and_(L.eq(flabel, lab), f) for lab, f in zip(e.choices.scope.labels, e.read_files)))


def label_read(e: Encoded, label: Any) -> Any:
    return L.any_(L.and_(L.eq(label, lab), f) for lab, f in zip(e.choices.scope.labels, e.read_labels))


def hist_read(e: Encoded, hist: Any) -> Any:
    """The stored result beside the carrier's outcome, as the part holds it, was read."""
    return L.or_(
        L.eq(hist, Tool.NONE),
        L.and_(L.eq(hist, Tool.RESULT), e.read_hist_raw),
        L.and_(L.eq(hist, Tool.CACHED), e.read_hist_mapped),
    )


def tool_read(e: Encoded, tool: Any) -> Any:
    """A tool part's texts were read (a stored pending call carries no result text)."""
    return L.or_(
        L.eq(tool, Tool.NONE),
        L.and_(L.one_of(tool, (Tool.RESULT, Tool.ERROR)), e.read_tool_raw),
        L.and_(L.eq(tool, Tool.CACHED), e.read_tool_mapped),
    )
