"""Encoding: one unstructure hook per guardspec type, from the value to its JSON (camelCase keys
as the JavaScript side spells them; what JSON lacks as a ``$``-tagged object, see ``codec``).

The hooks recurse through the shared converter, so a nested value is encoded by its own type's
hook. ``register`` puts them on the converter; ``model/codec.py`` calls it.
"""

from __future__ import annotations

import math
from typing import Any

from . import agent as A
from . import processors as P
from .converter import converter
from .messages import FilePart, ImagePart, Message, ReasoningPart, SystemMessage, TextPart, ToolPart
from .observation import Answered, AuditEvent, Failed, ListMessage, ListView, Outcome, PromptEntry, Refused
from .values import UNDEFINED, Accessor, BigInt, JsFunction, JsObject, JsSymbol, Undefined


def _un(v: Any) -> Any:
    # The converter's own dispatch for the types this module registers, looked up directly:
    # encoding is on the oracle's path, and cattrs' per-call dispatch costs a fifth more here.
    hook = HOOKS.get(type(v))
    return hook(v) if hook is not None else converter.unstructure(v)


def value_to_json(v: Any) -> Any:
    """A JavaScript value (``model/values.py``) as JSON, by its type's hook."""
    return _un(v)


def _opt_value(d: dict, key: str, v: Any) -> None:
    if v is not UNDEFINED:
        d[key] = _un(v)


# -- values ---------------------------------------------------------------------------------------


def _float(v: float) -> Any:
    if math.isnan(v):
        return {"$number": "NaN"}
    if math.isinf(v):
        return {"$number": "Infinity" if v > 0 else "-Infinity"}
    return v


def _array(v: tuple) -> list:
    return [_un(x) for x in v]


def _accessor(v: Accessor) -> dict:
    out: dict[str, Any] = {"$getter": v.name}
    if v.throws:
        out["throws"] = True
    else:
        out["value"] = _un(v.value)
    return out


def _object(v: JsObject) -> dict:
    props = {k: _un(x) for k, x in v.props}
    if v.proto is not None:
        return {"$class": v.proto, "props": props}
    if any(k.startswith("$") for k in props):
        return {"$object": props}
    return props


# -- parts and messages -----------------------------------------------------------------------------


def _created_at(d: dict, p: Any) -> dict:
    if p.created_at is not None:
        d["createdAt"] = p.created_at
    return d


def _text_part(p: TextPart) -> dict:
    d = {"type": "text", "text": _un(p.text)}
    _opt_value(d, "providerOptions", p.provider_options)
    return _created_at(d, p)


def _tool_part(p: ToolPart) -> dict:
    d = {"type": "tool-invocation", "toolCallId": p.tool_call_id, "toolName": p.tool_name, "state": p.state.value}
    _opt_value(d, "args", p.args)
    _opt_value(d, "result", p.result)
    _opt_value(d, "errorText", p.error_text)
    _opt_value(d, "approval", p.approval)
    _opt_value(d, "providerMetadata", p.provider_metadata)
    return _created_at(d, p)


def part_to_json(p: Any) -> dict:
    """A message part as Mastra's stored format spells it (``type`` tags the kind)."""
    out: dict = _un(p)
    return out


_PART_TYPES = (TextPart, ReasoningPart, FilePart, ImagePart, ToolPart)


def message_to_json(m: Message) -> dict:
    """A non-system message: id, role, createdAt, thread and resource when bound, parts, metadata."""
    d: dict[str, Any] = {"id": m.id, "role": m.role.value, "createdAt": m.created_at}
    if m.thread_id is not None:
        d["threadId"] = m.thread_id
    if m.resource_id is not None:
        d["resourceId"] = m.resource_id
    d["parts"] = None if m.parts is None else [_un(p) for p in m.parts]
    _opt_value(d, "metadata", m.metadata)
    return d


def system_to_json(s: SystemMessage) -> dict:
    """A system message: stored-format content as ``{format: 2, parts}``, a list of parts as
    parts, any other content as a value."""
    d: dict[str, Any] = {"role": "system"}
    c = s.content
    if s.stored and isinstance(c, tuple):
        d["content"] = {"format": 2, "parts": [_un(p) for p in c]}
        _opt_value(d["content"], "metadata", s.metadata)
    elif isinstance(c, tuple) and c and all(isinstance(p, _PART_TYPES) for p in c):
        d["content"] = [_un(p) for p in c]
    else:
        _opt_value(d, "content", c)
    _opt_value(d, "providerOptions", s.provider_options)
    _opt_value(d, "experimental_providerMetadata", s.experimental_provider_metadata)
    return d


def entry_to_json(e: Any) -> Any:
    """An entry a processor writes: a message (it has ``parts``), a system message (role
    system, ``content``), or any other value under ``{"value": ...}``."""
    if type(e) is Message or type(e) is SystemMessage:
        return _un(e)
    return {"value": _un(e)}


def caller_to_json(e: Any) -> Any:
    """A caller's message: a string, a nested list of them, or an entry."""
    if isinstance(e, str):
        return e
    if isinstance(e, tuple):
        return [caller_to_json(x) for x in e]
    return entry_to_json(e)


# -- processors -----------------------------------------------------------------------------------


def _add(s: P.AddMessages) -> dict:
    return {"op": "add", "entries": [entry_to_json(e) for e in s.entries], "source": s.source.value, "merge": s.merge}


def _add_system(s: P.AddSystem) -> dict:
    return {"op": "addSystem", "message": s.message if isinstance(s.message, str) else system_to_json(s.message), "tag": s.tag}


def _replace_all_system(s: P.ReplaceAllSystem) -> dict:
    return {"op": "replaceAllSystemMessages", "entries": [entry_to_json(e) for e in s.entries]}


def _edit_system(s: P.EditSystem) -> dict:
    return {"op": "editSystem", "index": s.index, "field": s.field, "value": _un(s.value), "tag": s.tag}


def _array_body(a: P.ArrayOf) -> dict:
    return {
        "base": a.base,
        "copy": a.copy,
        "drop": list(a.drop),
        "edits": [_un(e) for e in a.edits],
        "append": [entry_to_json(e) for e in a.append],
    }


def _array_of(a: P.ArrayOf) -> dict:
    return {"array": _array_body(a)}


def _object_of(r: P.ObjectOf) -> dict:
    d: dict[str, Any] = {}
    if isinstance(r.messages, P.ArrayOf):
        d["messages"] = _array_of(r.messages)
    elif r.messages is not P.MISSING:
        d["messages"] = {"value": _un(r.messages)}
    s = r.system_messages
    if isinstance(s, str) and s == "received":
        d["systemMessages"] = "received"
    elif isinstance(s, tuple):
        d["systemMessages"] = {"entries": [entry_to_json(e) for e in s]}
    elif s is not P.MISSING:
        d["systemMessages"] = {"value": _un(s)}
    d["proto"] = r.proto
    return {"object": d}


def _processor(p: P.Processor) -> dict:
    return {"id": p.id, "hooks": list(p.hooks), "steps": [_un(s) for s in p.steps], "end": _un(p.end)}


# -- the agent and the observation ----------------------------------------------------------------

_POLICY_KIND = {A.DenyPatterns: "denyPatterns", A.ThrowingEvaluator: "throws", A.NoDecision: "noDecision", A.Allow: "allow"}


def _policy(p: Any) -> dict:
    return {"kind": _POLICY_KIND[type(p)], "name": p.name}


def _deny_patterns(p: A.DenyPatterns) -> dict:
    return {**_policy(p), "patterns": list(p.patterns)}


def _refused(o: Refused) -> dict:
    d = {"kind": "refused", "reason": o.reason, "processorId": o.processor_id}
    if o.thrown is not None:
        d["thrown"] = o.thrown
    return d


def _event(e: AuditEvent) -> dict:
    d: dict = {"action": e.action, "decision": e.decision}
    if e.reason is not None:
        d["reason"] = e.reason
    d["actor"] = None if e.actor is None else _un(e.actor)
    d["resource"] = e.resource
    if e.detail is not None:
        d["detail"] = {k: list(v) if isinstance(v, tuple) else v for k, v in e.detail}
    return d


def _list_message(m: ListMessage) -> dict:
    return {"message": message_to_json(m.message), "sources": [s.value for s in m.sources]}


def _list_view(v: ListView) -> dict:
    return {
        "messages": [_list_message(m) for m in v.messages],
        "untagged": [system_to_json(s) for s in v.untagged],
        "tagged": [[t, [system_to_json(s) for s in b]] for t, b in v.tagged],
    }


HOOKS: dict[Any, Any] = {
    # values
    Undefined: lambda v: {"$undefined": True},
    type(None): lambda v: v,
    bool: lambda v: v,
    str: lambda v: v,
    int: lambda v: v,
    float: _float,
    BigInt: lambda v: {"$bigint": str(v.value)},
    tuple: _array,
    JsFunction: lambda v: {"$function": v.name},
    JsSymbol: lambda v: {"$symbol": v.name},
    Accessor: _accessor,
    JsObject: _object,
    # parts and messages
    TextPart: _text_part,
    ReasoningPart: lambda p: _created_at({"type": "reasoning", "text": p.text}, p),
    FilePart: lambda p: _created_at({"type": "file", "data": _un(p.data), "mediaType": p.media_type}, p),
    ImagePart: lambda p: _created_at({"type": "image", "data": _un(p.data), "mediaType": p.media_type}, p),
    ToolPart: _tool_part,
    Message: message_to_json,
    SystemMessage: system_to_json,
    # steps, edits, return values, ends, processors
    P.AddMessages: _add,
    P.RemoveByIds: lambda s: {"op": "removeByIds", "ids": list(s.ids)},
    P.AddSystem: _add_system,
    P.ReplaceAllSystem: _replace_all_system,
    P.ClearInput: lambda s: {"op": "clearInput"},
    P.EditSystem: _edit_system,
    P.EditMessage: lambda s: {"op": "editMessage", "id": s.id, "text": _un(s.text)},
    P.EditText: lambda e: {"editText": {"id": e.id, "text": _un(e.text)}},
    P.SetRole: lambda e: {"setRole": {"id": e.id, "role": e.role.value}},
    P.SetId: lambda e: {"setId": {"id": e.id, "newId": e.new_id}},
    P.ArrayOf: _array_of,
    P.ObjectOf: _object_of,
    P.SameList: lambda r: "sameList",
    P.OtherList: lambda r: "otherList",
    P.Primitive: lambda r: {"primitive": _un(r.value)},
    P.Return: lambda e: {"return": _un(e.value)},
    P.Abort: lambda e: {"abort": e.reason},
    P.ThrowTripWire: lambda e: {"tripwire": e.reason},
    P.Throw: lambda e: {"throw": e.message},
    P.AbortThenThrow: lambda e: {"abortThenThrow": {"reason": e.reason, "message": e.message}},
    P.AbortWrapThrow: lambda e: {"abortWrapThrow": {"reason": e.reason, "message": e.message}},
    P.AbortFinallyThrow: lambda e: {"abortFinallyThrow": {"reason": e.reason, "message": e.message}},
    P.Processor: _processor,
    # the agent and the observation
    A.DenyPatterns: _deny_patterns,
    A.ThrowingEvaluator: _policy,
    A.NoDecision: _policy,
    A.Allow: _policy,
    A.ThreadStore: lambda s: [_un(t) for t in s.threads],
    Answered: lambda o: {"kind": "answered"},
    Refused: _refused,
    Failed: lambda o: {"kind": "failed", "error": o.error},
    AuditEvent: _event,
    ListMessage: _list_message,
    ListView: _list_view,
}

# Fields typed by a union (or Any) are encoded by the runtime type of their value.
UNIONS = (Any, A.Policy, Outcome, PromptEntry)


def register() -> None:
    """Put every type's encoding hook on the shared converter."""
    for cls, hook in HOOKS.items():
        converter.register_unstructure_hook(cls, hook)
    for u in UNIONS:
        converter.register_unstructure_hook(u, value_to_json)


__all__ = ["HOOKS", "caller_to_json", "entry_to_json", "message_to_json", "part_to_json", "register", "system_to_json", "value_to_json"]
