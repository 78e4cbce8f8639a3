"""G9 change detection and the additions record; G8 readable additions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Union

from attrs import frozen

from guardspec.model.messages import Message, Source, SystemMessage

from .. import messagelist as ml
from ..messagelist import MessageList
from ..reading import clonable_entry, fingerprint, readable_system

Entry = Union[Message, SystemMessage]  # noqa: UP007 (a typing.Union alias, as the model's aliases are)


@frozen
class Addition:
    """G9 Change detection: One recorded addition: a copy of the entry as it stood after the processor that made
    it, and whether it is a remembered caller-outcome message moved out of the input."""

    entry: Entry
    processor_id: str
    moved: bool = False


def prompt_entries(lst: MessageList) -> list[Entry]:
    """G9.1 Prompt entries by the checker's ids: every system message, and every message that is not unremembered call input: an
    input message is left out only when memory does not hold its id, as the source checker
    names memory (detached members included), which is how Breakwater's ``promptEntries``
    asks it. So a message a processor adds under input
    with the id of a remembered caller message it cleared is an addition, read (G10)."""
    remembered = ml.source_ids(lst, Source.MEMORY)
    out: list[Entry] = list(lst.system_all())
    out.extend(s.message for s in lst.slots if Source.INPUT not in s.sources or s.message.id in remembered)
    return out


def all_entries(lst: MessageList) -> list[Entry]:
    """G8.3 The clone check covers call input: Every entry on the list, pure call input included (what G8 checks)."""
    return list(lst.system_all()) + [s.message for s in lst.slots]


def snapshot(lst: MessageList, entries: Callable[[MessageList], Iterable[Entry]] = prompt_entries) -> Counter:
    """G9: the prompt entries counted by fingerprint, before a processor runs."""
    return Counter(fingerprint(e) for e in entries(lst))


def unmatched(before: Counter, lst: MessageList, entries: Callable[[MessageList], Iterable[Entry]] = prompt_entries) -> list[Entry]:
    """G9: each current prompt entry consumes one matching count; the unmatched ones are the
    processor's additions."""
    left = before.copy()
    out = []
    for e in entries(lst):
        fp_ = fingerprint(e)
        if left[fp_] > 0:
            left[fp_] -= 1
        else:
            out.append(e)
    return out


def remembered_outcome_ids(lst: MessageList, recorded: frozenset[tuple[str, str, str]]) -> tuple[str, ...]:
    """G4 Recorder: The remembered messages carrying the caller's client tool outcome: memory+input
    messages with an outcome part the recorder saw (G4, G9, G13)."""
    ids = {r[0] for r in recorded}
    return tuple(s.message.id for s in lst.slots if s.message.id in ids and Source.MEMORY in s.sources and Source.INPUT in s.sources)


def moved_out(lst: MessageList, carriers: tuple[str, ...]) -> list[Message]:
    """G9: a remembered caller-outcome message the processor kept but moved out of the input."""
    out = []
    for i in carriers:
        s = lst.slot_of(i)
        if s is not None and Source.INPUT not in s.sources:
            out.append(s.message)
    return out


def additions_after(before: Counter, lst: MessageList, carriers: tuple[str, ...], processor_id: str) -> list[Addition]:
    """G9: the additions recorded after one processor, moved carriers included even when
    their fingerprint matches."""
    adds = [Addition(e, processor_id) for e in unmatched(before, lst)]
    seen = {a.entry.ref for a in adds}
    for m in moved_out(lst, carriers):
        if m.ref in seen:
            adds = [Addition(a.entry, processor_id, True) if a.entry.ref == m.ref else a for a in adds]
        else:
            adds.append(Addition(m, processor_id, True))
    return adds


def _text_alone(e: SystemMessage) -> bool:
    """G8.2 A stored-format system message is not text alone: a ``{format: 2, parts}`` content
    kept in a bucket (by ``replaceAllSystemMessages``, a returned ``systemMessages`` or a step)
    fails the processor whatever its parts hold; any other entry is read as G8.1 says."""
    return not e.stored and readable_system(e)


def unreadable(changed: list[Entry]) -> bool:
    """G8 Readable additions: a system message a processor adds or changes holds text alone in
    own data properties, and everything it adds or changes (pure call input included)
    survives structuredClone; otherwise the processor fails (G6)."""
    for e in changed:
        if isinstance(e, SystemMessage) and not _text_alone(e):
            return True
        if not clonable_entry(e):
            return True
    return False
