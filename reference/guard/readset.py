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
    # holds off the list (k54's stale member) is remembered (docs/breakwater-measurements.md §27)
    remembered, inputs = ml.source_ids(lst, Source.MEMORY), ml.source_ids(lst, Source.INPUT)
    for s in lst.slots:
        if not whole_list and Source.INPUT not in s.sources:
            continue
        m = s.message
        if m.id not in remembered:
            out.append(m)
        elif m.id in inputs:
            seen = tuple(p for p in m.parts or () if isinstance(p, ToolPart) and (m.id, p.tool_call_id, p.state.value) in recorded)
            if seen:
                # Breakwater's restricted copy is a new content object: parts alone, no mirror
                out.append(evolve(m, parts=seen, metadata=UNDEFINED, tool_invocations=None))
    return out


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
    # Beyond SPEC: the call's own context messages (``options.context``; ``call_context``
    # holds their fingerprints) are the caller's too and reach the prompt; G10 is silent on
    # them, I4 demands they be read, so every message still identical to one of them (the very
    # object, a copy a processor returned, or one it moved under another source unchanged) is
    # read whole after the input. A context message a processor changes is an addition, read
    # below.
    read_whole = {fingerprint(m) for m in callers}
    for s in lst.slots:
        fp = fingerprint(s.message)
        if fp in call_context and fp not in read_whole:
            callers.append(s.message)
            read_whole.add(fp)
    texts = [prompt_text(callers)]
    for a in record:
        if isinstance(a.entry, Message) and fingerprint(a.entry) in read_whole:
            continue
        texts.append(entry_text(a.entry))
    return "\n".join(t for t in texts if t)
