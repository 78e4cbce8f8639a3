"""G10 What the policies read (S5), and the text they read (G12)."""

from __future__ import annotations

from guardspec.model.fast import evolve
from guardspec.model.messages import Message, Source, ToolPart
from guardspec.model.values import UNDEFINED

from .. import messagelist as ml
from ..messagelist import MessageList
from ..prompt_values import entry_text, prompt_text
from ..reading import fingerprint
from .changes import Addition


def caller_messages(lst: MessageList, recorded: frozenset[tuple[str, str, str]], whole_list: bool = True) -> list[Message]:
    """G10.1 Caller messages by the checker's ids (Breakwater's ``callerMessages``): of the messages the policy engine receives, in list order, each one memory does not
    hold, whole; of one memory holds that is also input, only the client tool outcome parts the
    recorder saw (none: not read); a remembered message that is not input is not read. Memory
    and input are the source checker's sets, by id, on the list or off it. On
    generate/stream the engine receives every message on the list (``whole_list``: Mastra's
    processor workflow hands a step the list's ``get.all.db()``), so a context message a
    processor adds is the caller's; on the durable loop it receives the input view."""
    out: list[Message] = []
    # memory and input as the source checker names them, by id: a message whose id memory
    # holds off the list (a stale member) is remembered
    remembered, inputs = ml.source_ids(lst, Source.MEMORY), ml.source_ids(lst, Source.INPUT)
    for s in _engine_receives(lst, whole_list):
        m = s.message
        if m.id not in remembered:
            out.append(m)
        elif m.id in inputs:
            seen = tuple(p for p in m.parts or () if isinstance(p, ToolPart) and (m.id, p.tool_call_id, p.state.value) in recorded)
            if seen:
                # Breakwater's restricted copy is a new content object: parts alone, no mirror
                out.append(evolve(m, parts=seen, metadata=UNDEFINED, tool_invocations=None))
    return out


def _engine_receives(lst: MessageList, whole_list: bool) -> list:
    """G10.2 What the engine receives: on generate and stream every message on the list
    (``whole_list``), so a context message a processor adds counts as a caller message; on the
    durable loop only the input view."""
    return [s for s in lst.slots if whole_list or Source.INPUT in s.sources]


def read_text(
    lst: MessageList,
    recorded: frozenset[tuple[str, str, str]],
    record: list[Addition],
    call_context: frozenset[tuple] = frozenset(),
    whole_list: bool = True,
) -> str:
    """G10: the caller messages (``caller_messages``; the call's own context messages too,
    whole), then every recorded addition (moved remembered caller-outcome messages included,
    read whole) not already read among them with the same fingerprint
    (Breakwater's ``additionsToRead``). G12: caller text first (one prompt,
    ``prompt_text``), additions after it (each on its own, ``entry_text``), joined by
    newlines, empty texts left out. Raises ``NotClassified`` for content that cannot be read
    as text."""
    callers = caller_messages(lst, recorded, whole_list)
    read_whole = _with_call_context(lst, callers, call_context)
    texts = [prompt_text(callers)] + [entry_text(e) for e in _additions_to_read(record, read_whole)]
    return "\n".join(t for t in texts if t)


def _with_call_context(lst: MessageList, callers: list[Message], call_context: frozenset[tuple]) -> set[tuple]:
    """G10.3 The call's own context is read: every message on the list still identical to one
    of the call's context messages (the object, a returned copy, or one moved unchanged) joins
    the caller messages, read whole after them; one a processor changed is an addition. Returns
    the fingerprints of everything read whole."""
    read_whole = {fingerprint(m) for m in callers}
    for s in lst.slots:
        fp = fingerprint(s.message)
        if fp in call_context and fp not in read_whole:
            callers.append(s.message)
            read_whole.add(fp)
    return read_whole


def _additions_to_read(record: list[Addition], read_whole: set[tuple]) -> list:
    """G10.4 Nothing is read twice: an addition whose fingerprint equals that of a message
    already read whole is not read again, a moved carrier included."""
    return [a.entry for a in record if not (isinstance(a.entry, Message) and fingerprint(a.entry) in read_whole)]
