"""Decoding: one structure hook per guardspec type, from JSON already valid by the published
schemas to the attrs value. JSON carries no types, so a union is read by its tag (``type``,
``op``, ``kind``, the one key of an end or an edit, the ``$`` key of a value) and handed to the
hook of the type the tag names.

``register`` puts the hooks on the shared converter; ``model/codec.py`` calls it.
"""

from __future__ import annotations

from typing import Any

from . import agent as A
from . import processors as P
from .converter import converter
from .messages import FilePart, ImagePart, Message, ReasoningPart, Role, Source, SystemMessage, TextPart, ToolPart, ToolState
from .observation import Answered, AuditEvent, Failed, ListMessage, ListView, Outcome, PromptEntry, Refused
from .validation import FormatError
from .values import UNDEFINED, Accessor, BigInt, JsFunction, JsObject, JsSymbol


def _st(j: Any, cls: Any) -> Any:
    # The converter's own dispatch for the types this module registers, looked up directly
    # (decoding is on the oracle's path); records and the rest go through the converter.
    hook = HOOKS.get(cls)
    return hook(j, cls) if hook is not None else converter.structure(j, cls)


# -- values ---------------------------------------------------------------------------------------

# a tagged object's tags, in the order they are looked for
_VALUE_TAGS: tuple[tuple[str, Any], ...] = (
    ("$undefined", lambda j: UNDEFINED),
    ("$bigint", lambda j: BigInt(int(j["$bigint"]))),
    ("$number", lambda j: float(j["$number"].replace("Infinity", "inf"))),
    ("$function", lambda j: JsFunction(j["$function"])),
    ("$symbol", lambda j: JsSymbol(j["$symbol"])),
    ("$getter", lambda j: Accessor(j["$getter"], value_from_json(j.get("value", {"$undefined": True})), bool(j.get("throws", False)))),
    ("$class", lambda j: JsObject(tuple((k, value_from_json(x)) for k, x in j.get("props", {}).items()), j["$class"])),
)
_TAG_KEYS = frozenset(tag for tag, _ in _VALUE_TAGS) | {"$object"}


def value_from_json(j: Any) -> Any:
    """A JavaScript value from its JSON: primitives as they are, an array as a tuple, a tagged
    object by its tag, any other object as a plain ``JsObject`` (``$object`` unwrapped)."""
    if j is None or isinstance(j, (bool, str, int, float)):
        return j
    if isinstance(j, list):
        return tuple(value_from_json(x) for x in j)
    assert isinstance(j, dict)
    tags = j.keys() & _TAG_KEYS
    if tags:
        for tag, make in _VALUE_TAGS:
            if tag in tags:
                return make(j)
        j = j["$object"]
    return JsObject(tuple((k, value_from_json(x)) for k, x in j.items()))


def _undef(j: dict, key: str) -> Any:
    return value_from_json(j[key]) if key in j else UNDEFINED


# -- parts and messages -----------------------------------------------------------------------------


def _text_part(j: dict, _: Any) -> TextPart:
    return TextPart(value_from_json(j["text"]), _undef(j, "providerOptions"), j.get("createdAt"))


def _tool_part(j: dict, _: Any) -> ToolPart:
    return ToolPart(
        j["toolCallId"],
        j["toolName"],
        ToolState(j["state"]),
        _undef(j, "args"),
        _undef(j, "result"),
        _undef(j, "errorText"),
        _undef(j, "approval"),
        _undef(j, "providerMetadata"),
        j.get("createdAt"),
    )


_PART_BY_TYPE = {"text": TextPart, "reasoning": ReasoningPart, "file": FilePart, "image": ImagePart, "tool-invocation": ToolPart}


def part_from_json(j: dict) -> Any:
    """A message part by its ``type`` (a tool invocation when it is none of the others)."""
    cls = _PART_BY_TYPE.get(j["type"], ToolPart)
    return HOOKS[cls](j, cls)


def message_from_json(j: dict) -> Message:
    """A non-system message (``createdAt`` 0 when absent)."""
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


_TEXT_PART_KEYS = frozenset({"type", "text", "providerOptions", "createdAt"})


def _is_part_list(c: Any) -> bool:
    """System content that is a list of text parts, as the adapters build them (``text``, and
    no key but ``type``, ``text``, ``providerOptions`` and an integer ``createdAt``); any other
    list is JS values as given, a text-typed object with other keys keeping them all."""
    return (
        isinstance(c, list)
        and bool(c)
        and all(
            isinstance(p, dict)
            and p.get("type") == "text"
            and "text" in p
            and p.keys() <= _TEXT_PART_KEYS
            and ("createdAt" not in p or (isinstance(p["createdAt"], int) and not isinstance(p["createdAt"], bool)))
            for p in c
        )
    )


def _is_getter(j: Any) -> bool:
    return isinstance(j, dict) and "$getter" in j


def _own(j: dict, key: str, decode: Any = value_from_json) -> Any:
    """A system message's own property: absent as undefined, ``{$getter}`` as an ``Accessor``
    whose value ``decode`` reads (G8: an own accessor is no data property), else its value."""
    if key not in j:
        return UNDEFINED
    v = j[key]
    if _is_getter(v):
        return Accessor(v["$getter"], decode(v["value"]) if "value" in v else UNDEFINED, bool(v.get("throws", False)))
    return decode(v)


def _system_content(c: Any) -> Any:
    """A system message's content: a list of parts as parts, any other value as it is."""
    return tuple(part_from_json(p) for p in c) if _is_part_list(c) else value_from_json(c)


def system_from_json(j: Any) -> SystemMessage:
    """A system message: a bare string, stored-format content (``{format: 2, parts}``), a list of
    parts, or content of any other value. Its content, providerOptions and
    experimental_providerMetadata may each be ``{$getter}``: an own accessor (a content getter's
    value read as content)."""
    if isinstance(j, str):
        return SystemMessage(j)
    c = j.get("content", {"$undefined": True})
    if isinstance(c, dict) and set(c) - {"metadata"} == {"format", "parts"} and c["format"] == 2 and isinstance(c["parts"], list):
        stored = tuple(part_from_json(p) for p in c["parts"])
        return SystemMessage(
            stored, _own(j, "providerOptions"), _own(j, "experimental_providerMetadata"), stored=True, metadata=_undef(c, "metadata")
        )
    return SystemMessage(_own(j, "content", _system_content), _own(j, "providerOptions"), _own(j, "experimental_providerMetadata"))


def entry_from_json(j: Any) -> Any:
    """An entry: a message (it has ``parts``), a system message (role system) or ``{value}``."""
    if isinstance(j, dict) and "parts" in j:
        return message_from_json(j)
    if isinstance(j, dict) and j.get("role") == "system":
        return system_from_json(j)
    if isinstance(j, dict) and "value" in j:
        return value_from_json(j["value"])
    raise FormatError("$", "an entry: a message, a system message or {value}")


def caller_from_json(j: Any) -> Any:
    """A caller's message: a string, a nested list of them, or an entry."""
    if isinstance(j, str):
        return j
    if isinstance(j, list):
        return tuple(caller_from_json(x) for x in j)
    return entry_from_json(j)


def _entries(js: Any) -> tuple:
    return tuple(entry_from_json(e) for e in js)


# -- processors -----------------------------------------------------------------------------------


def _add(j: dict, _: Any) -> P.AddMessages:
    return P.AddMessages(_entries(j["entries"]), Source(j.get("source", "input")), j.get("merge"))


def _add_system(j: dict, _: Any) -> P.AddSystem:
    m = j["message"]
    return P.AddSystem(m if isinstance(m, str) else system_from_json(m), j.get("tag"))


_STEP_BY_OP = {
    "add": P.AddMessages,
    "removeByIds": P.RemoveByIds,
    "addSystem": P.AddSystem,
    "replaceAllSystemMessages": P.ReplaceAllSystem,
    "clearInput": P.ClearInput,
    "editSystem": P.EditSystem,
    "editMessage": P.EditMessage,
}


def _step(j: dict, _: Any) -> Any:
    return _st(j, _STEP_BY_OP[j["op"]])


def _edit_text(j: dict, _: Any) -> P.EditText:
    v = j["editText"]
    return P.EditText(v["id"], value_from_json(v["text"]))


def _set_role(j: dict, _: Any) -> P.SetRole:
    v = j["setRole"]
    return P.SetRole(v["id"], Role(v["role"]))


def _set_id(j: dict, _: Any) -> P.SetId:
    v = j["setId"]
    return P.SetId(v["id"], v["newId"])


_EDIT_BY_KEY = {"editText": P.EditText, "setRole": P.SetRole, "setId": P.SetId}


def _edit(j: dict, _: Any) -> Any:
    ((k, _v),) = j.items()
    return _st(j, _EDIT_BY_KEY[k])


def _array_body(j: dict) -> P.ArrayOf:
    return P.ArrayOf(
        j.get("base", "received"),
        j.get("copy", "none"),
        tuple(j.get("drop", ())),
        tuple(_edit(e, P.Edit) for e in j.get("edits", ())),
        _entries(j.get("append", ())),
    )


def _array_of(j: dict, _: Any) -> P.ArrayOf:
    return _array_body(j["array"])


def _system_messages(s: Any) -> Any:
    if s == "received":
        return "received"
    if "entries" in s:
        return _entries(s["entries"])
    return value_from_json(s["value"])


def _object_of(j: dict, _: Any) -> P.ObjectOf:
    v = j["object"]
    msgs: Any = P.MISSING
    if "messages" in v:
        msgs = _array_body(v["messages"]["array"]) if "array" in v["messages"] else value_from_json(v["messages"]["value"])
    sysm: Any = _system_messages(v["systemMessages"]) if "systemMessages" in v else P.MISSING
    return P.ObjectOf(msgs, sysm, v.get("proto"))


_RETURN_BY_KEY = {"primitive": P.Primitive, "array": P.ArrayOf, "object": P.ObjectOf}


def _return_value(j: Any, _: Any) -> Any:
    if j == "sameList":
        return P.SameList()
    if j == "otherList":
        return P.OtherList()
    ((k, _v),) = j.items()
    return _st(j, _RETURN_BY_KEY[k])


def _abort_then_throw(j: dict, _: Any) -> P.AbortThenThrow:
    v = j["abortThenThrow"]
    return P.AbortThenThrow(v["reason"], v["message"])


def _abort_wrap_throw(j: dict, _: Any) -> P.AbortWrapThrow:
    v = j["abortWrapThrow"]
    return P.AbortWrapThrow(v["reason"], v["message"])


def _abort_finally_throw(j: dict, _: Any) -> P.AbortFinallyThrow:
    v = j["abortFinallyThrow"]
    return P.AbortFinallyThrow(v["reason"], v["message"])


_END_BY_KEY = {
    "return": P.Return,
    "abort": P.Abort,
    "tripwire": P.ThrowTripWire,
    "throw": P.Throw,
    "abortThenThrow": P.AbortThenThrow,
    "abortWrapThrow": P.AbortWrapThrow,
    "abortFinallyThrow": P.AbortFinallyThrow,
}


def _end(j: dict, _: Any) -> Any:
    ((k, _v),) = j.items()
    return _st(j, _END_BY_KEY[k])


def _processor(j: dict, _: Any) -> P.Processor:
    return P.Processor(
        j["id"],
        tuple(_step(s, P.Step) for s in j.get("steps", ())),
        _end(j["end"], P.End) if "end" in j else P.Return(),
        tuple(j.get("hooks", (P.PROCESS_INPUT,))),
    )


# -- the agent and the observation ----------------------------------------------------------------


_POLICY_BY_KIND = {"denyPatterns": A.DenyPatterns, "throws": A.ThrowingEvaluator, "noDecision": A.NoDecision, "allow": A.Allow}


def _policy(j: dict, _: Any) -> Any:
    return _st(j, _POLICY_BY_KIND[j["kind"]])


_OUTCOME_BY_KIND = {"answered": Answered, "refused": Refused}


def _outcome(j: dict, _: Any) -> Any:
    return _st(j, _OUTCOME_BY_KIND.get(j["kind"], Failed))


def _event(j: dict, _: Any) -> AuditEvent:
    detail = j.get("detail")
    if detail is not None:
        detail = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in detail.items()))
    actor = None if j["actor"] is None else _st(j["actor"], A.Actor)
    return AuditEvent(j["action"], j["decision"], j.get("reason"), actor, j["resource"], detail)


def _list_message(j: dict, _: Any) -> ListMessage:
    return ListMessage(message_from_json(j["message"]), tuple(Source(s) for s in j["sources"]))


def _list_view(j: dict, _: Any) -> ListView:
    return ListView(
        tuple(_list_message(m, ListMessage) for m in j["messages"]),
        tuple(system_from_json(s) for s in j["untagged"]),
        tuple((t, tuple(system_from_json(s) for s in b)) for t, b in j["tagged"]),
    )


HOOKS: dict[Any, Any] = {
    # parts and messages
    TextPart: _text_part,
    ReasoningPart: lambda j, _: ReasoningPart(j["text"], j.get("createdAt")),
    FilePart: lambda j, _: FilePart(value_from_json(j["data"]), j["mediaType"], j.get("createdAt")),
    ImagePart: lambda j, _: ImagePart(value_from_json(j["data"]), j["mediaType"], j.get("createdAt")),
    ToolPart: _tool_part,
    Message: lambda j, _: message_from_json(j),
    SystemMessage: lambda j, _: system_from_json(j),
    PromptEntry: lambda j, _: entry_from_json(j),
    # steps, edits, return values, ends, processors
    P.AddMessages: _add,
    P.RemoveByIds: lambda j, _: P.RemoveByIds(tuple(j["ids"])),
    P.AddSystem: _add_system,
    P.ReplaceAllSystem: lambda j, _: P.ReplaceAllSystem(_entries(j["entries"])),
    P.ClearInput: lambda j, _: P.ClearInput(),
    P.EditSystem: lambda j, _: P.EditSystem(j["index"], j["field"], value_from_json(j["value"]), j.get("tag")),
    P.EditMessage: lambda j, _: P.EditMessage(j["id"], value_from_json(j["text"])),
    P.Step: _step,
    P.EditText: _edit_text,
    P.SetRole: _set_role,
    P.SetId: _set_id,
    P.Edit: _edit,
    P.ArrayOf: _array_of,
    P.ObjectOf: _object_of,
    P.Primitive: lambda j, _: P.Primitive(value_from_json(j["primitive"])),
    P.ReturnValue: _return_value,
    P.Return: lambda j, _: P.Return(_return_value(j["return"], P.ReturnValue)),
    P.Abort: lambda j, _: P.Abort(j["abort"]),
    P.ThrowTripWire: lambda j, _: P.ThrowTripWire(j["tripwire"]),
    P.Throw: lambda j, _: P.Throw(j["throw"]),
    P.AbortThenThrow: _abort_then_throw,
    P.AbortWrapThrow: _abort_wrap_throw,
    P.AbortFinallyThrow: _abort_finally_throw,
    P.End: _end,
    P.Processor: _processor,
    # the agent and the observation
    A.DenyPatterns: lambda j, _: A.DenyPatterns(j["name"], tuple(j["patterns"])),
    A.ThrowingEvaluator: lambda j, cls: cls(j["name"]),
    A.NoDecision: lambda j, cls: cls(j["name"]),
    A.Allow: lambda j, cls: cls(j["name"]),
    A.Policy: _policy,
    A.ThreadStore: lambda j, _: A.ThreadStore(tuple(_st(t, A.Thread) for t in j)),
    Answered: lambda j, _: Answered(),
    Refused: lambda j, _: Refused(j["reason"], j["processorId"], j.get("thrown")),
    Failed: lambda j, _: Failed(j["error"]),
    Outcome: _outcome,
    AuditEvent: _event,
    ListMessage: _list_message,
    ListView: _list_view,
}


def register() -> None:
    """Put every type's decoding hook on the shared converter."""
    for cls, hook in HOOKS.items():
        converter.register_structure_hook(cls, hook)


__all__ = [
    "HOOKS",
    "caller_from_json",
    "entry_from_json",
    "message_from_json",
    "part_from_json",
    "register",
    "system_from_json",
    "value_from_json",
]
