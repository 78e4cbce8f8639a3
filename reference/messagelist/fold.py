"""M3 Memory fold: a memory copy of a message that is live on the list folds with the live copy."""

from __future__ import annotations

from guardspec.model.errors import MastraError
from guardspec.model.fast import evolve
from guardspec.model.messages import Message, Role, Source, TextPart, ToolPart, ToolState
from guardspec.model.values import UNDEFINED

from .merge import _advances, _spread, merge_parts
from .sources import _push
from .value import EMPTY, Slot


def _live_source(existing: Slot) -> Source | None:
    """M3.1 The fold target: the held copy's live source, input, else response, else context,
    whether or not it is also in memory; None when it is live in none.

    Evidence: M3.1
    """
    return next((x for x in (Source.INPUT, Source.RESPONSE, Source.CONTEXT) if x in existing.sources), None)


def memory_fold(entry: Message, existing: Slot) -> Slot | None:
    """M3 Memory fold: a memory copy of a message that is live on the list (M3.1) takes the live
    copy's place, folded with it: onto call input (M3.2), over a live user message (M3.3), or
    otherwise (M3.4). None when the same-id message is not live."""
    live_src = _live_source(existing)
    if live_src is None:
        return None
    live = existing.message
    if live_src is Source.INPUT:
        folded = merge_parts(entry, _client_tool_outcomes(entry, live))
    elif entry.role is Role.USER and live.role is Role.USER:
        folded = _fold_users(entry, live)
    else:
        folded = merge_parts(_reconcile_text(entry, live), _without_stale_tool_states(entry, live))
    # memory is pushed first, then the live source, so a response copy ends in {response}
    # alone and an input copy in {memory, input} (M3.1)
    return Slot(folded, _push(_push(EMPTY, Source.MEMORY), live_src))


def _fold_users(stored: Message, live: Message) -> Message:
    """M3.3 Folding two user messages: the live parts win, and the metadata is always an object,
    ``{...(stored.metadata ?? {}), ...(live.metadata ?? {})}``, ``{}`` when neither has one.

    Evidence: M3.3
    """
    return evolve(stored, parts=live.parts, metadata=_spread(stored.metadata, live.metadata))


def _client_tool_outcomes(stored: Message, live: Message) -> Message:
    """M3.2 Folding onto call input: ``clientToolOutcomes``, the live copy's client tool outcomes
    that advance a stored call, built on the stored call: the stored args, and an approval the
    caller does not send, are kept; no stamp and no provider metadata of the caller's part.

    Evidence: M3.2
    """
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
    """M3.4 Other folds: ``withoutStaleToolStates``, live tool parts that do not advance their
    stored call become bare calls, which only anchor the merge (M4.2)."""
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
    """M3.4 Other folds: the whitespace reconciliation, a stored text part equal to a live one up
    to surrounding whitespace takes the live text; a text that is not a string throws.

    Evidence: M3.4
    """
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
