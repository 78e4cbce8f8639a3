"""G10 What the policies read (S5), and the text they read (G12)."""

from __future__ import annotations

from typing import Any

from guardspec.model.messages import Message, Source, ToolPart

from ..messagelist import MessageList
from ..reading import entry_texts, fingerprint, message_texts
from .changes import Addition


def read_text(
    lst: MessageList,
    recorded: frozenset[tuple[str, str, str]],
    record: list[Addition],
    call_context: frozenset[tuple] = frozenset(),
) -> str:
    """G10: the caller messages (every input message memory does not hold, whole; of a
    memory+input message only the client tool outcome parts the recorder saw; the call's own
    context messages, whole), then every
    recorded addition not already read there with the same fingerprint, moved remembered
    caller-outcome messages read whole. G12: caller text first, additions after it, joined by
    newlines. Raises ``NotClassified`` for content that cannot be read as text."""
    texts: list[str] = []
    read_whole: set[tuple] = set()
    for s in lst.slots:
        if Source.INPUT not in s.sources:
            continue
        m = s.message
        if Source.MEMORY not in s.sources:
            texts.extend(message_texts(m))
            read_whole.add(fingerprint(m))
        else:
            mid = m.id

            def seen(p: Any, mid: str = mid) -> bool:
                return isinstance(p, ToolPart) and (mid, p.tool_call_id, p.state.value) in recorded

            texts.extend(message_texts(m, only=seen))
    # Beyond SPEC: the call's own context messages (``options.context``; ``call_context``
    # holds their fingerprints) are the caller's too and reach the prompt; G10 is silent on
    # them, I4 demands they be read, so every message still identical to one of them (the very
    # object, a copy a processor returned, or one it moved under another source unchanged) is
    # read whole after the input. A context message a processor changes is an addition, read
    # below.
    for s in lst.slots:
        if fingerprint(s.message) in call_context:
            texts.extend(message_texts(s.message))
            read_whole.add(fingerprint(s.message))
    for a in record:
        if not a.moved and isinstance(a.entry, Message) and fingerprint(a.entry) in read_whole:
            continue
        texts.extend(entry_texts(a.entry))
    return "\n".join(texts)
