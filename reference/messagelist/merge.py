"""M4 Assistant merge: ``MessageMerger``, which merges an incoming assistant message into the
latest one."""

from __future__ import annotations

from typing import Any

from guardspec.model.fast import evolve
from guardspec.model.jsvalues import truthy
from guardspec.model.messages import TOOL_RANK, Message, Part, Role, Source, TextPart, ToolPart, ToolState
from guardspec.model.values import UNDEFINED, JsObject

from .parts import STEP_START, StepStartPart, part_key


def _advances(stored: ToolState, incoming: ToolState) -> bool:
    """``advancesToolInvocationState``: a non-terminal stored state moved to a higher rank."""
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
    """``MessageMerger.pushNewPart``: the part goes in only while the target holds fewer parts
    with its cache key than the incoming message; a text part after a trailing tool part gets
    a ``step-start`` before it."""
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


def merge_parts(latest: Message, incoming: Message) -> Message:
    """M4 ``MessageMerger.merge`` (docs/mastra-measurements.md §j): an incoming tool part whose
    toolCallId the target holds updates that part (``result``: result and args, no rank check;
    approval/denied/error states: state, approval, errorText and args, the approval key placed
    before errorText where the stored part had no errorText (``ToolPart.approval_first``); ``call`` and
    ``partial-call``: nothing; a result also enters the legacy ``toolInvocations`` mirror,
    ``Message.tool_invocations``) and anchors the other parts; every other part is inserted at its
    anchored position (appended without anchors) by ``pushNewPart``."""
    parts = list(latest.parts or ())
    inc = list(incoming.parts or ())
    anchors: dict[int, int] = {}
    to_add: set[int] = set()
    mirror = None if latest.tool_invocations is None else list(latest.tool_invocations)
    for i, p in enumerate(inc):
        if isinstance(p, ToolPart):
            at = next(
                (j for j in range(len(parts) - 1, -1, -1) if isinstance(parts[j], ToolPart) and parts[j].tool_call_id == p.tool_call_id),
                None,
            )
            if at is None:
                to_add.add(i)
                continue
            q = parts[at]
            md = _spread(q.provider_metadata, p.provider_metadata) if truthy(p.provider_metadata) else q.provider_metadata
            if p.state is ToolState.RESULT:
                parts[at] = evolve(q, state=ToolState.RESULT, result=p.result, args=_spread(q.args, p.args), provider_metadata=md)
                # the legacy ``content.toolInvocations`` mirror: created, then the entry for this
                # call replaced or appended (only a result writes it)
                mirror = [] if mirror is None else mirror
                k = next((j for j, t in enumerate(mirror) if t.tool_call_id == p.tool_call_id), None)
                if k is None:
                    mirror.append(parts[at])
                else:
                    mirror[k] = parts[at]
            elif p.state in _APPROVAL_OR_ERROR:
                # ``{...existing, state, approval, errorText, rawInput, args}``: a key the stored
                # part lacked is appended, approval before errorText; one it had keeps its place
                # (the key order a fingerprint sees, docs/breakwater-measurements.md §18)
                had_both = q.approval is not UNDEFINED and q.error_text is not UNDEFINED
                first = q.approval_first if had_both else q.error_text is UNDEFINED
                parts[at] = evolve(
                    q,
                    state=p.state,
                    approval=p.approval,
                    error_text=p.error_text,
                    args=_spread(q.args, p.args),
                    provider_metadata=md,
                    approval_first=first,
                )
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
    """``MessageMerger.shouldMerge``: both assistant, same thread, not from memory."""
    return (
        latest.role is Role.ASSISTANT
        and incoming.role is Role.ASSISTANT
        and source is not Source.MEMORY
        and latest.thread_id == incoming.thread_id
    )
