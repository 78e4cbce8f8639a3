"""M3 Memory fold: a memory copy of a message that is live on the list folds with the live copy."""

from __future__ import annotations

from guardspec.model.errors import MastraError
from guardspec.model.fast import evolve
from guardspec.model.messages import Message, Role, Source, TextPart, ToolPart, ToolState
from guardspec.model.values import UNDEFINED

from .merge import _advances, _spread, merge_parts
from .sources import _push
from .value import EMPTY, Slot


def memory_fold(entry: Message, existing: Slot) -> Slot | None:
    """M3 memory-over-live fold: a memory copy of a message that is live in input, response or
    context (even when it is in memory too) folds with the live copy; memory is pushed first,
    then the live copy's source (so a response copy ends as {response}). None when the same-id
    message is not live."""
    live_src = next((x for x in (Source.INPUT, Source.RESPONSE, Source.CONTEXT) if x in existing.sources), None)
    if live_src is None:
        return None
    live = existing.message
    if live_src is Source.INPUT:
        folded = merge_parts(entry, _client_tool_outcomes(entry, live))
    elif entry.role is Role.USER and live.role is Role.USER:
        # Mastra writes ``metadata: {...(stored.metadata ?? {}), ...(live.metadata ?? {})}``:
        # always an object, ``{}`` when neither copy has one (seed 8462 case 79)
        folded = evolve(entry, parts=live.parts, metadata=_spread(entry.metadata, live.metadata))
    else:
        folded = merge_parts(_reconcile_text(entry, live), _without_stale_tool_states(entry, live))
    return Slot(folded, _push(_push(EMPTY, Source.MEMORY), live_src))


def _client_tool_outcomes(stored: Message, live: Message) -> Message:
    """``clientToolOutcomes``: the live copy's client tool outcomes that advance a stored call,
    built on the stored call (args stay as stored; no stamp, no provider metadata)."""
    calls: dict[str, ToolPart] = {}
    for p in stored.parts or ():
        if isinstance(p, ToolPart):
            calls[p.tool_call_id] = p
    out = []
    for p in live.parts or ():
        if not isinstance(p, ToolPart):
            continue
        c = calls.get(p.tool_call_id)
        if c is None or not p.is_client_outcome or not _advances(c.state, p.state):
            continue
        approval = p.approval if p.approval is not UNDEFINED and p.approval is not None else c.approval
        out.append(ToolPart(c.tool_call_id, c.tool_name, p.state, args=c.args, result=p.result, error_text=p.error_text, approval=approval))
    return evolve(live, parts=tuple(out), metadata=UNDEFINED)


def _without_stale_tool_states(stored: Message, live: Message) -> Message:
    """``withoutStaleToolStates``: live tool parts that do not advance their stored call become
    bare calls (they only anchor the merge)."""
    states = {p.tool_call_id: p.state for p in stored.parts or () if isinstance(p, ToolPart)}
    if not states:
        return live
    parts = []
    changed = False
    for p in live.parts or ():
        if isinstance(p, ToolPart):
            s = states.get(p.tool_call_id)
            if s is not None and not _advances(s, p.state):
                p = ToolPart(p.tool_call_id, p.tool_name, ToolState.CALL, args=p.args)
                changed = True
        parts.append(p)
    return evolve(live, parts=tuple(parts)) if changed else live


def _reconcile_text(stored: Message, live: Message) -> Message:
    """The fold's whitespace reconciliation: a stored text part equal to a live one up to
    surrounding whitespace takes the live text."""
    parts = list(stored.parts or ())
    for lp in live.parts or ():
        if not isinstance(lp, TextPart):
            continue
        if not isinstance(lp.text, str):
            raise MastraError("TypeError", "text.trim is not a function")
        for j, sp in enumerate(parts):
            if isinstance(sp, TextPart):
                if not isinstance(sp.text, str):
                    raise MastraError("TypeError", "text.trim is not a function")
                if sp.text.strip() == lp.text.strip():
                    parts[j] = evolve(sp, text=lp.text)
                    break
    return evolve(stored, parts=tuple(parts))
