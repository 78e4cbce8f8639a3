"""M4 Assistant merge: ``MessageMerger``, which merges an incoming assistant message into the
latest one."""

from __future__ import annotations

from typing import Any, cast

from guardspec.model.fast import evolve
from guardspec.model.jsvalues import truthy
from guardspec.model.messages import TOOL_RANK, Message, Part, Role, Source, TextPart, ToolPart, ToolState
from guardspec.model.values import UNDEFINED, JsObject

from .parts import STEP_START, StepStartPart, part_key


def _advances(stored: ToolState, incoming: ToolState) -> bool:
    """M3.2 Folding onto call input: ``advancesToolInvocationState``, a non-terminal stored state
    moved to a higher rank; a stale echo onto a terminal state does not advance."""
    return TOOL_RANK[stored] < 4 and TOOL_RANK[incoming] > TOOL_RANK[stored]


def _spread(*sources: Any) -> JsObject:
    """``{...a, ...b}`` of JS values: own properties of objects; anything else adds nothing."""
    out = JsObject()
    for src in sources:
        if isinstance(src, JsObject):
            for k, v in src.props:
                out = out.set(k, v)
    return out


def _merged_metadata(base: Any, extra: Any) -> Any:
    if not isinstance(base, JsObject) and not isinstance(extra, JsObject):
        return base
    return _spread(base, extra)


_APPROVAL_OR_ERROR = frozenset(
    {ToolState.APPROVAL_REQUESTED, ToolState.APPROVAL_RESPONDED, ToolState.OUTPUT_DENIED, ToolState.OUTPUT_ERROR}
)


def _push_new_part(parts: list, role: Role, incoming: list, i: int, part: Part, insert_at: int | None) -> int:
    """M4.2 How parts are merged: ``MessageMerger.pushNewPart``, the part goes in only while the
    target holds fewer parts with its cache key than the incoming message, so equal text is not
    doubled; a text part pushed right after a trailing tool part gets a ``step-start`` before it.

    Evidence: M4.2

    Returns how many parts went in (0, 1, or 2 with a step-start).
    """
    key = part_key(part)
    if sum(1 for q in parts if part_key(q) == key) >= sum(1 for q in incoming if part_key(q) == key):
        return 0
    has_step_before = i > 0 and isinstance(incoming[i - 1], StepStartPart)
    needs = (
        role is Role.ASSISTANT and isinstance(part, TextPart) and not has_step_before and bool(parts) and isinstance(parts[-1], ToolPart)
    )
    if insert_at is not None:
        parts[insert_at:insert_at] = [STEP_START, part] if needs else [part]
    else:
        if needs:
            parts.append(STEP_START)
        parts.append(part)
    return 2 if needs else 1


def _update_tool_part(q: ToolPart, p: ToolPart, mirror: list | None) -> tuple[ToolPart, list | None]:
    """M4.3 How a tool part is updated: a result updates the result and the args (old spread, new
    over them) without a rank check and enters the legacy ``toolInvocations`` mirror; an
    approval, error or denial updates state, approval, errorText and args, a key the stored
    call lacked appended (``approval`` before ``errorText``); a call or partial-call only anchors.

    Evidence: M4.3

    ``q`` is the target's part, ``p`` the incoming one; returns the updated part and mirror.
    """
    md = _spread(q.provider_metadata, p.provider_metadata) if truthy(p.provider_metadata) else q.provider_metadata
    if p.state is ToolState.RESULT:
        new = evolve(q, state=ToolState.RESULT, result=p.result, args=_spread(q.args, p.args), provider_metadata=md)
        # the legacy ``content.toolInvocations`` mirror: created, then the entry for this
        # call replaced or appended (only a result writes it)
        mirror = [] if mirror is None else mirror
        k = next((j for j, t in enumerate(mirror) if t.tool_call_id == p.tool_call_id), None)
        if k is None:
            mirror.append(new)
        else:
            mirror[k] = new
        return new, mirror
    if p.state in _APPROVAL_OR_ERROR:
        # ``{...existing, state, approval, errorText, rawInput, args}``: a key the stored
        # part lacked is appended, approval before errorText; one it had keeps its place
        # (the key order a fingerprint sees, G9.3)
        had_both = q.approval is not UNDEFINED and q.error_text is not UNDEFINED
        first = q.approval_first if had_both else q.error_text is UNDEFINED
        new = evolve(
            q,
            state=p.state,
            approval=p.approval,
            error_text=p.error_text,
            args=_spread(q.args, p.args),
            provider_metadata=md,
            approval_first=first,
        )
        return new, mirror
    return q, mirror


def merge_parts(latest: Message, incoming: Message) -> Message:
    """M4 Assistant merge: ``MessageMerger.merge``, an incoming tool part whose toolCallId the
    target holds updates that part (M4.3) and anchors the other parts; every other part is
    inserted at its anchored position (appended without anchors) by ``pushNewPart`` (M4.2);
    the merged message keeps the target's id and createdAt, its metadata spread with the new."""
    parts = list(latest.parts or ())
    inc = list(incoming.parts or ())
    anchors: dict[int, int] = {}
    to_add: set[int] = set()
    mirror = None if latest.tool_invocations is None else list(latest.tool_invocations)
    for i, p in enumerate(inc):
        if isinstance(p, ToolPart):
            at = next(
                (j for j in range(len(parts) - 1, -1, -1) if isinstance(q := parts[j], ToolPart) and q.tool_call_id == p.tool_call_id),
                None,
            )
            if at is None:
                to_add.add(i)
                continue
            # the part ``at`` names is a tool part: the search above matched only those
            parts[at], mirror = _update_tool_part(cast(ToolPart, parts[at]), p, mirror)
            anchors[i] = at
        else:
            to_add.add(i)
    prev_left, drift = -1, 0
    for i, p in enumerate(inc):
        if i not in to_add:
            continue
        if not anchors:
            _push_new_part(parts, latest.role, inc, i, p, None)
            continue
        left = max((k for k in anchors if k < i), default=-1)
        right = next((k for k in anchors if k > i), -1)
        left_latest = anchors[left] if left != -1 else 0
        offset = i if left == -1 else i - left
        if left != prev_left:
            drift, prev_left = 0, left
        insert_at = left_latest + offset + drift
        right_latest = anchors[right] if right != -1 else len(parts)
        key = part_key(p)
        if 0 <= insert_at <= right_latest and not any(part_key(q) == key for q in parts[insert_at:right_latest]):
            n = _push_new_part(parts, latest.role, inc, i, p, insert_at)
            if n == 0:
                continue
            drift += n - 1
            for k, v in list(anchors.items()):
                if v >= insert_at:
                    anchors[k] = v + n
    metadata = _merged_metadata(latest.metadata, incoming.metadata) if isinstance(incoming.metadata, JsObject) else latest.metadata
    return evolve(latest, parts=tuple(parts), metadata=metadata, tool_invocations=None if mirror is None else tuple(mirror))


def _mergeable(latest: Message, incoming: Message, source: Source) -> bool:
    """M4.1 The merge target: ``MessageMerger.shouldMerge``, both assistant messages of the same
    thread, and not added under memory; the caller offers the latest message first, then the
    held message the id names.

    Evidence: M4.1
    """
    return (
        latest.role is Role.ASSISTANT
        and incoming.role is Role.ASSISTANT
        and source is not Source.MEMORY
        and latest.thread_id == incoming.thread_id
    )
