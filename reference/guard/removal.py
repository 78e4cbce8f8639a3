"""G13 Refusal removal (S8)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from guardspec.model.messages import Message, Source

from .. import messagelist as ml
from ..messagelist import MessageList
from .changes import Addition, unmatched


def refusal_removal(
    lst: MessageList,
    record: Iterable[Addition],
    refusing_snapshot: Counter | None,
    carriers: Iterable[str],
) -> MessageList:
    """G13 Refusal removal: before the refusal stops the call, remove every input message,
    every response message, every message the additions record names, every message the
    refusing processor's snapshot does not match, and every remembered message that carried the
    caller's client tool outcome when that processor started, moved or not. System messages
    stay. Each removal is a separate step over the list, so none depends on another."""
    lst = ml.clear_source(lst, Source.INPUT)
    lst = ml.clear_source(lst, Source.RESPONSE)
    lst = ml.remove_by_ids(lst, [a.entry.id for a in record if isinstance(a.entry, Message)])
    if refusing_snapshot is not None:
        lst = ml.remove_by_ids(lst, [e.id for e in unmatched(refusing_snapshot, lst) if isinstance(e, Message)])
    return ml.remove_by_ids(lst, carriers)
