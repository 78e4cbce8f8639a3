"""Scenario and observation as versioned JSON (``"guardspec": 1``), converted with cattrs.

Input is first validated against the published JSON Schemas (``model/schemas/``), so that a
malformed file is reported by JSON path and what was expected (``FormatError``); the cattrs
converter then builds the attrs values. Keys are camelCase, as the JavaScript side spells them.

JavaScript values that JSON lacks are tagged objects with one ``$`` key: ``{"$undefined":
true}``, ``{"$bigint": "12"}``, ``{"$number": "NaN"}``, ``{"$function": "f"}``, ``{"$symbol":
"s"}``, ``{"$class": "Name", "props": {...}}``, ``{"$getter": "g", "value": v}`` or
``{"$getter": "g", "throws": true}`` (as a property value: an accessor), and ``{"$object":
{...}}`` for a plain object whose own keys start with ``$``.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources
from typing import Any

import cattrs
from attrs import fields, has
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from . import agent as A
from . import processors as P
from .messages import (
    FilePart,
    ImagePart,
    Message,
    ReasoningPart,
    Role,
    Source,
    SystemMessage,
    TextPart,
    ToolPart,
    ToolState,
)
from .observation import (
    Answered,
    AuditEvent,
    Failed,
    ListMessage,
    ListView,
    Observation,
    Refused,
    Result,
)
from .scenario import Call, Loop, Scenario
from .values import UNDEFINED, Accessor, BigInt, JsFunction, JsObject, JsSymbol

FORMAT_VERSION = 1


class FormatError(ValueError):
    """Bad input: ``path`` is the JSON path of what is wrong, ``expected`` what was expected."""

    def __init__(self, path: str, expected: str):
        super().__init__(f"{path}: {expected}")
        self.path = path
        self.expected = expected


# -- values ---------------------------------------------------------------------------------------


def value_to_json(v: Any) -> Any:
    if v is UNDEFINED:
        return {"$undefined": True}
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return {"$number": "NaN"}
        if math.isinf(v):
            return {"$number": "Infinity" if v > 0 else "-Infinity"}
        return v
    if isinstance(v, BigInt):
        return {"$bigint": str(v.value)}
    if isinstance(v, tuple):
        return [value_to_json(x) for x in v]
    if isinstance(v, JsFunction):
        return {"$function": v.name}
    if isinstance(v, JsSymbol):
        return {"$symbol": v.name}
    if isinstance(v, Accessor):
        out: dict[str, Any] = {"$getter": v.name}
        if v.throws:
            out["throws"] = True
        else:
            out["value"] = value_to_json(v.value)
        return out
    if isinstance(v, JsObject):
        props = {k: value_to_json(x) for k, x in v.props}
        if v.proto is not None:
            return {"$class": v.proto, "props": props}
        if any(k.startswith("$") for k in props):
            return {"$object": props}
        return props
    if isinstance(v, (Message, SystemMessage)):
        return entry_to_json(v)
    raise TypeError(f"not a guardspec value: {v!r}")


def value_from_json(j: Any) -> Any:
    if j is None or isinstance(j, (bool, str, int, float)):
        return j
    if isinstance(j, list):
        return tuple(value_from_json(x) for x in j)
    assert isinstance(j, dict)
    if "$undefined" in j:
        return UNDEFINED
    if "$bigint" in j:
        return BigInt(int(j["$bigint"]))
    if "$number" in j:
        return float(j["$number"].replace("Infinity", "inf"))
    if "$function" in j:
        return JsFunction(j["$function"])
    if "$symbol" in j:
        return JsSymbol(j["$symbol"])
    if "$getter" in j:
        return Accessor(j["$getter"], value_from_json(j.get("value", {"$undefined": True})), bool(j.get("throws", False)))
    if "$class" in j:
        return JsObject(tuple((k, value_from_json(x)) for k, x in j.get("props", {}).items()), j["$class"])
    if "$object" in j:
        j = j["$object"]
    return JsObject(tuple((k, value_from_json(x)) for k, x in j.items()))


def _opt_value(d: dict, key: str, v: Any) -> None:
    if v is not UNDEFINED:
        d[key] = value_to_json(v)


# -- parts and messages -----------------------------------------------------------------------------


def part_to_json(p: Any) -> dict:
    d: dict[str, Any]
    if isinstance(p, TextPart):
        d = {"type": "text", "text": value_to_json(p.text)}
        _opt_value(d, "providerOptions", p.provider_options)
    elif isinstance(p, ReasoningPart):
        d = {"type": "reasoning", "text": p.text}
    elif isinstance(p, FilePart):
        d = {"type": "file", "data": value_to_json(p.data), "mediaType": p.media_type}
    elif isinstance(p, ImagePart):
        d = {"type": "image", "data": value_to_json(p.data), "mediaType": p.media_type}
    elif isinstance(p, ToolPart):
        d = {"type": "tool-invocation", "toolCallId": p.tool_call_id, "toolName": p.tool_name, "state": p.state.value}
        _opt_value(d, "args", p.args)
        _opt_value(d, "result", p.result)
        _opt_value(d, "errorText", p.error_text)
        _opt_value(d, "approval", p.approval)
        _opt_value(d, "providerMetadata", p.provider_metadata)
    else:
        raise TypeError(p)
    if p.created_at is not None:
        d["createdAt"] = p.created_at
    return d


def _undef(j: dict, key: str) -> Any:
    return value_from_json(j[key]) if key in j else UNDEFINED


def part_from_json(j: dict) -> Any:
    t = j["type"]
    at = j.get("createdAt")
    if t == "text":
        return TextPart(value_from_json(j["text"]), _undef(j, "providerOptions"), at)
    if t == "reasoning":
        return ReasoningPart(j["text"], at)
    if t == "file":
        return FilePart(value_from_json(j["data"]), j["mediaType"], at)
    if t == "image":
        return ImagePart(value_from_json(j["data"]), j["mediaType"], at)
    return ToolPart(
        j["toolCallId"],
        j["toolName"],
        ToolState(j["state"]),
        _undef(j, "args"),
        _undef(j, "result"),
        _undef(j, "errorText"),
        _undef(j, "approval"),
        _undef(j, "providerMetadata"),
        at,
    )


def message_to_json(m: Message) -> dict:
    d: dict[str, Any] = {"id": m.id, "role": m.role.value, "createdAt": m.created_at}
    if m.thread_id is not None:
        d["threadId"] = m.thread_id
    if m.resource_id is not None:
        d["resourceId"] = m.resource_id
    d["parts"] = None if m.parts is None else [part_to_json(p) for p in m.parts]
    _opt_value(d, "metadata", m.metadata)
    return d


def message_from_json(j: dict) -> Message:
    parts = j["parts"]
    return Message(
        id=j["id"],
        role=Role(j["role"]),
        parts=None if parts is None else tuple(part_from_json(p) for p in parts),
        created_at=j.get("createdAt", 0),
        thread_id=j.get("threadId"),
        resource_id=j.get("resourceId"),
        metadata=_undef(j, "metadata"),
    )


_PART_TYPES = (TextPart, ReasoningPart, FilePart, ImagePart, ToolPart)
_PART_TAGS = ("text", "reasoning", "file", "image", "tool-invocation")


def system_to_json(s: SystemMessage) -> dict:
    d: dict[str, Any] = {"role": "system"}
    c = s.content
    if s.stored and isinstance(c, tuple):
        d["content"] = {"format": 2, "parts": [part_to_json(p) for p in c]}
        _opt_value(d["content"], "metadata", s.metadata)
    elif isinstance(c, tuple) and c and all(isinstance(p, _PART_TYPES) for p in c):
        d["content"] = [part_to_json(p) for p in c]
    else:
        _opt_value(d, "content", c)
    _opt_value(d, "providerOptions", s.provider_options)
    _opt_value(d, "experimental_providerMetadata", s.experimental_provider_metadata)
    return d


def system_from_json(j: Any) -> SystemMessage:
    if isinstance(j, str):
        return SystemMessage(j)
    c = j.get("content", {"$undefined": True})
    if isinstance(c, dict) and set(c) - {"metadata"} == {"format", "parts"} and c["format"] == 2 and isinstance(c["parts"], list):
        stored = tuple(part_from_json(p) for p in c["parts"])
        return SystemMessage(stored, _undef(j, "providerOptions"), _undef(j, "experimental_providerMetadata"), stored=True,
                             metadata=_undef(c, "metadata"))
    if isinstance(c, list) and c and all(isinstance(p, dict) and p.get("type") in _PART_TAGS and not any(k.startswith("$") for k in p) for p in c):
        content: Any = tuple(part_from_json(p) for p in c)
    else:
        content = value_from_json(c)
    return SystemMessage(content, _undef(j, "providerOptions"), _undef(j, "experimental_providerMetadata"))


def entry_to_json(e: Any) -> Any:
    """An entry a processor writes: a message (it has ``parts``), a system message (role
    system, ``content``), or any other value under ``{"value": ...}``."""
    if isinstance(e, Message):
        return message_to_json(e)
    if isinstance(e, SystemMessage):
        return system_to_json(e)
    return {"value": value_to_json(e)}


def entry_from_json(j: Any) -> Any:
    if isinstance(j, dict) and "parts" in j:
        return message_from_json(j)
    if isinstance(j, dict) and j.get("role") == "system":
        return system_from_json(j)
    if isinstance(j, dict) and "value" in j:
        return value_from_json(j["value"])
    raise FormatError("$", "an entry: a message, a system message or {value}")


def caller_to_json(e: Any) -> Any:
    if isinstance(e, str):
        return e
    if isinstance(e, tuple):
        return [caller_to_json(x) for x in e]
    return entry_to_json(e)


def caller_from_json(j: Any) -> Any:
    if isinstance(j, str):
        return j
    if isinstance(j, list):
        return tuple(caller_from_json(x) for x in j)
    return entry_from_json(j)


# -- the converter ----------------------------------------------------------------------------------


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.capitalize() for w in rest)


_TAGGED = {
    # steps
    P.AddMessages: "add",
    P.RemoveByIds: "removeByIds",
    P.AddSystem: "addSystem",
    P.ReplaceAllSystem: "replaceAllSystemMessages",
    P.ClearInput: "clearInput",
    P.EditSystem: "editSystem",
    P.EditMessage: "editMessage",
}
_STEP_BY_TAG = {v: k for k, v in _TAGGED.items()}
_POLICY_KIND = {A.DenyPatterns: "denyPatterns", A.ThrowingEvaluator: "throws", A.NoDecision: "noDecision", A.Allow: "allow"}
_POLICY_BY_KIND = {v: k for k, v in _POLICY_KIND.items()}
_EDIT_KIND = {P.EditText: "editText", P.SetRole: "setRole", P.SetId: "setId"}
_EDIT_BY_KIND = {v: k for k, v in _EDIT_KIND.items()}


def _make_converter() -> cattrs.Converter:
    c = cattrs.Converter(forbid_extra_keys=True)
    Any_ = Any

    def camel_hooks(cls: type, **special: Any) -> None:
        ov = {f.name: override(rename=camel(f.name)) for f in fields(cls)}
        ov.update(special)
        c.register_unstructure_hook(cls, make_dict_unstructure_fn(cls, c, **ov))
        c.register_structure_hook(cls, make_dict_structure_fn(cls, c, **ov))

    # messages and values have hand-written codecs (their JSON is Mastra-shaped)
    c.register_unstructure_hook(Message, message_to_json)
    c.register_structure_hook(Message, lambda j, _: message_from_json(j))
    c.register_unstructure_hook(SystemMessage, system_to_json)
    c.register_structure_hook(SystemMessage, lambda j, _: system_from_json(j))
    c.register_unstructure_hook(Any_, lambda v: value_to_json(v))

    # processors
    def step_un(s: Any) -> dict:
        d = {"op": _TAGGED[type(s)]}
        if isinstance(s, P.AddMessages):
            d.update(entries=[entry_to_json(e) for e in s.entries], source=s.source.value, merge=s.merge)
        elif isinstance(s, P.RemoveByIds):
            d["ids"] = list(s.ids)
        elif isinstance(s, P.AddSystem):
            d.update(message=s.message if isinstance(s.message, str) else system_to_json(s.message), tag=s.tag)
        elif isinstance(s, P.ReplaceAllSystem):
            d["entries"] = [entry_to_json(e) for e in s.entries]
        elif isinstance(s, P.EditSystem):
            d.update(index=s.index, field=s.field, value=value_to_json(s.value), tag=s.tag)
        elif isinstance(s, P.EditMessage):
            d.update(id=s.id, text=value_to_json(s.text))
        return d

    def step_st(j: dict) -> Any:
        cls = _STEP_BY_TAG[j["op"]]
        if cls is P.AddMessages:
            return P.AddMessages(tuple(entry_from_json(e) for e in j["entries"]), Source(j.get("source", "input")), j.get("merge"))
        if cls is P.RemoveByIds:
            return P.RemoveByIds(tuple(j["ids"]))
        if cls is P.AddSystem:
            m = j["message"]
            return P.AddSystem(m if isinstance(m, str) else system_from_json(m), j.get("tag"))
        if cls is P.ReplaceAllSystem:
            return P.ReplaceAllSystem(tuple(entry_from_json(e) for e in j["entries"]))
        if cls is P.ClearInput:
            return P.ClearInput()
        if cls is P.EditSystem:
            return P.EditSystem(j["index"], j["field"], value_from_json(j["value"]), j.get("tag"))
        return P.EditMessage(j["id"], value_from_json(j["text"]))

    def array_un(a: P.ArrayOf) -> dict:
        return {
            "base": a.base,
            "copy": a.copy,
            "drop": list(a.drop),
            "edits": [edit_un(e) for e in a.edits],
            "append": [entry_to_json(e) for e in a.append],
        }

    def edit_un(e: Any) -> dict:
        if isinstance(e, P.EditText):
            return {"editText": {"id": e.id, "text": value_to_json(e.text)}}
        if isinstance(e, P.SetRole):
            return {"setRole": {"id": e.id, "role": e.role.value}}
        return {"setId": {"id": e.id, "newId": e.new_id}}

    def edit_st(j: dict) -> Any:
        (k, v), = j.items()
        if k == "editText":
            return P.EditText(v["id"], value_from_json(v["text"]))
        if k == "setRole":
            return P.SetRole(v["id"], Role(v["role"]))
        return P.SetId(v["id"], v["newId"])

    def array_st(j: dict) -> P.ArrayOf:
        return P.ArrayOf(
            j.get("base", "received"),
            j.get("copy", "none"),
            tuple(j.get("drop", ())),
            tuple(edit_st(e) for e in j.get("edits", ())),
            tuple(entry_from_json(e) for e in j.get("append", ())),
        )

    def ret_un(r: Any) -> Any:
        if isinstance(r, P.SameList):
            return "sameList"
        if isinstance(r, P.OtherList):
            return "otherList"
        if isinstance(r, P.Primitive):
            return {"primitive": value_to_json(r.value)}
        if isinstance(r, P.ArrayOf):
            return {"array": array_un(r)}
        d: dict[str, Any] = {}
        if isinstance(r.messages, P.ArrayOf):
            d["messages"] = {"array": array_un(r.messages)}
        elif r.messages is not P.MISSING:
            d["messages"] = {"value": value_to_json(r.messages)}
        s = r.system_messages
        if isinstance(s, str) and s == "received":
            d["systemMessages"] = "received"
        elif isinstance(s, tuple):
            d["systemMessages"] = {"entries": [entry_to_json(e) for e in s]}
        elif s is not P.MISSING:
            d["systemMessages"] = {"value": value_to_json(s)}
        d["proto"] = r.proto
        return {"object": d}

    def ret_st(j: Any) -> Any:
        if j == "sameList":
            return P.SameList()
        if j == "otherList":
            return P.OtherList()
        (k, v), = j.items()
        if k == "primitive":
            return P.Primitive(value_from_json(v))
        if k == "array":
            return array_st(v)
        msgs: Any = P.MISSING
        if "messages" in v:
            msgs = array_st(v["messages"]["array"]) if "array" in v["messages"] else value_from_json(v["messages"]["value"])
        sysm: Any = P.MISSING
        if "systemMessages" in v:
            s = v["systemMessages"]
            if s == "received":
                sysm = "received"
            elif "entries" in s:
                sysm = tuple(entry_from_json(e) for e in s["entries"])
            else:
                sysm = value_from_json(s["value"])
        return P.ObjectOf(msgs, sysm, v.get("proto"))

    def end_un(e: Any) -> dict:
        if isinstance(e, P.Return):
            return {"return": ret_un(e.value)}
        if isinstance(e, P.Abort):
            return {"abort": e.reason}
        if isinstance(e, P.ThrowTripWire):
            return {"tripwire": e.reason}
        if isinstance(e, P.Throw):
            return {"throw": e.message}
        key = "abortThenThrow" if isinstance(e, P.AbortThenThrow) else "abortFinallyThrow"
        return {key: {"reason": e.reason, "message": e.message}}

    def end_st(j: dict) -> Any:
        (k, v), = j.items()
        if k == "return":
            return P.Return(ret_st(v))
        if k == "abort":
            return P.Abort(v)
        if k == "tripwire":
            return P.ThrowTripWire(v)
        if k == "throw":
            return P.Throw(v)
        cls = P.AbortThenThrow if k == "abortThenThrow" else P.AbortFinallyThrow
        return cls(v["reason"], v["message"])

    c.register_unstructure_hook(
        P.Processor,
        lambda p: {"id": p.id, "hooks": list(p.hooks), "steps": [step_un(s) for s in p.steps], "end": end_un(p.end)},
    )
    c.register_structure_hook(
        P.Processor,
        lambda j, _: P.Processor(
            j["id"],
            tuple(step_st(s) for s in j.get("steps", ())),
            end_st(j["end"]) if "end" in j else P.Return(),
            tuple(j.get("hooks", (P.PROCESS_INPUT,))),
        ),
    )

    # the agent
    def policy_un(p: Any) -> dict:
        d = {"kind": _POLICY_KIND[type(p)], "name": p.name}
        if isinstance(p, A.DenyPatterns):
            d["patterns"] = list(p.patterns)
        return d

    def policy_st(j: dict, _: Any) -> Any:
        cls = _POLICY_BY_KIND[j["kind"]]
        if cls is A.DenyPatterns:
            return A.DenyPatterns(j["name"], tuple(j["patterns"]))
        return cls(j["name"])

    c.register_unstructure_hook(A.Policy, policy_un)  # type: ignore[arg-type]
    c.register_structure_hook(A.Policy, policy_st)  # type: ignore[arg-type]
    for cls in (A.Mapping, A.ClientTool, A.Memory, A.Actor, A.MemoryBinding):
        camel_hooks(cls)
    camel_hooks(A.Agent)
    camel_hooks(A.Thread)

    # the call: caller messages can be strings, messages and nested lists
    camel_hooks(
        Call,
        messages=override(rename="messages", unstruct_hook=lambda ms: [caller_to_json(m) for m in ms], struct_hook=lambda j, _: tuple(caller_from_json(m) for m in j)),
    )
    c.register_unstructure_hook(A.ThreadStore, lambda s: [c.unstructure(t) for t in s.threads])
    c.register_structure_hook(A.ThreadStore, lambda j, _: A.ThreadStore(tuple(c.structure(t, A.Thread) for t in j)))
    camel_hooks(Scenario)

    # observation
    def outcome_un(o: Any) -> dict:
        if isinstance(o, Answered):
            return {"kind": "answered"}
        if isinstance(o, Refused):
            d = {"kind": "refused", "reason": o.reason, "processorId": o.processor_id}
            if o.thrown is not None:
                d["thrown"] = o.thrown
            return d
        return {"kind": "failed", "error": o.error}

    def outcome_st(j: dict, _: Any) -> Any:
        if j["kind"] == "answered":
            return Answered()
        if j["kind"] == "refused":
            return Refused(j["reason"], j["processorId"], j.get("thrown"))
        return Failed(j["error"])

    from .observation import Outcome, PromptEntry

    c.register_unstructure_hook(Outcome, outcome_un)  # type: ignore[arg-type]
    c.register_structure_hook(Outcome, outcome_st)  # type: ignore[arg-type]
    c.register_unstructure_hook(PromptEntry, entry_to_json)  # type: ignore[arg-type]
    c.register_structure_hook(PromptEntry, lambda j, _: entry_from_json(j))  # type: ignore[arg-type]
    def event_un(e: AuditEvent) -> dict:
        d: dict = {"action": e.action, "decision": e.decision}
        if e.reason is not None:
            d["reason"] = e.reason
        d["actor"] = None if e.actor is None else c.unstructure(e.actor)
        d["resource"] = e.resource
        if e.detail is not None:
            d["detail"] = {k: list(v) if isinstance(v, tuple) else v for k, v in e.detail}
        return d

    def event_st(j: dict, _: Any) -> AuditEvent:
        detail = j.get("detail")
        if detail is not None:
            detail = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in detail.items()))
        actor = None if j["actor"] is None else c.structure(j["actor"], A.Actor)
        return AuditEvent(j["action"], j["decision"], j.get("reason"), actor, j["resource"], detail)

    c.register_unstructure_hook(AuditEvent, event_un)
    c.register_structure_hook(AuditEvent, event_st)
    camel_hooks(Result, remembered=override(rename="rememberedMessages"))
    c.register_unstructure_hook(ListMessage, lambda m: {"message": message_to_json(m.message), "sources": [s.value for s in m.sources]})
    c.register_structure_hook(ListMessage, lambda j, _: ListMessage(message_from_json(j["message"]), tuple(Source(s) for s in j["sources"])))
    c.register_unstructure_hook(
        ListView,
        lambda v: {
            "messages": [c.unstructure(m) for m in v.messages],
            "untagged": [system_to_json(s) for s in v.untagged],
            "tagged": [[t, [system_to_json(s) for s in b]] for t, b in v.tagged],
        },
    )
    c.register_structure_hook(
        ListView,
        lambda j, _: ListView(
            tuple(c.structure(m, ListMessage) for m in j["messages"]),
            tuple(system_from_json(s) for s in j["untagged"]),
            tuple((t, tuple(system_from_json(s) for s in b)) for t, b in j["tagged"]),
        ),
    )
    camel_hooks(Observation)
    return c


converter = _make_converter()


# -- schema validation ------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def schema(name: str) -> dict:
    """A published JSON Schema (``scenario`` or ``observation``)."""
    text = resources.files("guardspec.model").joinpath("schemas", f"{name}.schema.json").read_text()
    return json.loads(text)


@lru_cache(maxsize=None)
def _validator(name: str) -> Any:
    import jsonschema

    s = schema(name)
    cls = jsonschema.validators.validator_for(s)
    registry = _registry()
    return cls(s, registry=registry)


@lru_cache(maxsize=None)
def _registry() -> Any:
    from referencing import Registry, Resource

    reg = Registry()
    for n in ("scenario", "observation"):
        s = schema(n)
        reg = reg.with_resource(s["$id"], Resource.from_contents(s))
    return reg


def _json_path(parts: Any) -> str:
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def validate(data: Any, name: str) -> None:
    """Raise ``FormatError`` naming the JSON path and what was expected."""
    v = _validator(name)
    errors = sorted(v.iter_errors(data), key=lambda e: (len(list(e.absolute_path)), list(map(str, e.absolute_path))))
    if not errors:
        return
    best = _deepest(errors)
    raise FormatError(_json_path(best.absolute_path), _expected(best))


def _deepest(errors: list) -> Any:
    import jsonschema.exceptions

    best = jsonschema.exceptions.best_match(errors)
    # descend into oneOf/anyOf context to the most specific cause
    while best.context:
        best = jsonschema.exceptions.best_match(best.context)
    return best


def _expected(err: Any) -> str:
    v = err.validator
    if v == "additionalProperties":
        return f"no unknown field ({err.message.split('(')[-1].rstrip(')')})"
    if v == "required":
        return f"required field missing: {err.message}"
    if v == "type":
        return f"expected {err.validator_value}, got {type(err.instance).__name__} {json.dumps(err.instance)[:60]}"
    if v == "enum":
        return f"expected one of {err.validator_value}, got {json.dumps(err.instance)[:60]}"
    if v == "const":
        return f"expected {json.dumps(err.validator_value)}, got {json.dumps(err.instance)[:60]}"
    return err.message


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError("$", f"valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None


def scenario_from_json(data: Any) -> Scenario:
    validate(data, "scenario")
    d = {k: v for k, v in data.items() if k not in ("guardspec", "expect")}
    return converter.structure(d, Scenario)


def scenario_to_json(s: Scenario) -> dict:
    return {"guardspec": FORMAT_VERSION, **converter.unstructure(s)}


def observation_to_json(o: Observation) -> dict:
    return {"guardspec": FORMAT_VERSION, **converter.unstructure(o)}


def observation_from_json(data: Any) -> Observation:
    validate(data, "observation")
    d = {k: v for k, v in data.items() if k != "guardspec"}
    return converter.structure(d, Observation)


def load_scenario(text: str) -> Scenario:
    return scenario_from_json(_loads(text))


def dumps(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


__all__ = [
    "FormatError",
    "converter",
    "dumps",
    "load_scenario",
    "observation_from_json",
    "observation_to_json",
    "scenario_from_json",
    "scenario_to_json",
    "validate",
    "value_from_json",
    "value_to_json",
    "has",
]
