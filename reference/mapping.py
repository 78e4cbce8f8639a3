"""M11 / G11 client tool output mapping (``toModelOutput``) and its cache on the part."""

from __future__ import annotations

from typing import Any, TypeGuard

from guardspec.model.agent import Agent
from guardspec.model.errors import MastraError
from guardspec.model.fast import evolve
from guardspec.model.jsvalues import json_round_trip, read
from guardspec.model.messages import Message, Role, Source, ToolPart, ToolState
from guardspec.model.values import UNDEFINED, JsObject, obj, to_json_text

from . import messagelist as ml
from .messagelist import MessageList


class MappingError(Exception):
    """G11.5 A mapping error fails the call: A ``toModelOutput`` mapping threw."""


def _marked(p: ToolPart) -> bool:
    md = p.provider_metadata
    if isinstance(md, JsObject):
        m = md.get("mastra")
        if isinstance(m, JsObject) and (m.has("modelOutput") or m.get("modelOutputComputed") is True):
            return True
    return False


def _unwrapped(result: Any) -> tuple[bool, Any]:
    """M11.2 Output wrappers (Mastra's and Breakwater's ``unwrapToolOutput``): a result of exactly two own keys, ``type`` and ``value``, is an AI SDK output
    wrapper, and the mapping is given its ``value``; an ``error-text`` or ``error-json`` one is
    not mapped at all (no cached output, no mark). Returns (skip, what the mapping is given).
    Accessors are read; a throwing one raises its error (no generator makes one, not measured)."""
    if isinstance(result, JsObject) and len(result.props) == 2 and result.has("type") and result.has("value"):
        return read(result.get("type")) in ("error-text", "error-json"), read(result.get("value"))
    return False, result


def _mapped(agent: Agent, p: ToolPart) -> ToolPart:
    """M11.3 The scenario's text mapping: the part with the mapping's output cached on it; the
    text mapping writes its input as ``JSON.stringify`` does, and a wrapped result gives its
    value (M11.2)."""
    tool = agent.client_tool(p.tool_name)
    if tool is None or tool.mapping is None or p.state is not ToolState.RESULT or _marked(p):
        return p
    skip, given = _unwrapped(p.result)
    if skip:
        return p
    kind = tool.mapping.kind
    if kind == "throws":
        raise MappingError(p.tool_call_id)
    md = p.provider_metadata if isinstance(p.provider_metadata, JsObject) else JsObject()
    old = md.get("mastra")
    mastra = old if isinstance(old, JsObject) else JsObject()
    mastra = mastra.set("modelOutputComputed", True)
    if kind == "text":
        # the scenario's mapping writes ``prefix + JSON.stringify(output)``: undefined (a
        # function, a symbol) gives the text "undefined", and a value JSON.stringify throws on
        # (a bigint, a throwing getter) makes the mapping throw
        try:
            j = json_round_trip(given)
        except MastraError:
            raise MappingError(p.tool_call_id) from None
        mastra = mastra.set(
            "modelOutput", obj(type="text", value=tool.mapping.prefix + ("undefined" if j is UNDEFINED else to_json_text(j)))
        )
    return evolve(p, provider_metadata=md.set("mastra", mastra))


def _mapped_or_raw(agent: Agent, p: ToolPart, strict: bool) -> ToolPart:
    """M11.1 A mapping that throws, raw: raw Mastra logs the error and sends the raw result,
    uncached; under the guard (``strict``) the error fails the call (G11.5)."""
    try:
        return _mapped(agent, p)
    except MappingError:
        if strict:
            raise
        return p


def map_client_outputs(agent: Agent, lst: MessageList, strict: bool) -> MessageList:
    """M11 Client tool output mapping: for each result part of an assistant message in the ``input``
    set whose tool is a client tool with a mapping and which carries no cached output, the
    mapping runs once and its output is cached on the part, in place.

    G11: under the guard (``strict``) a mapping error fails the call (``MappingError``); raw
    Mastra logs it and sends the raw result. A message a processor moved out of the input is
    not walked, so it gets no new mapping."""
    for m in lst.view(Source.INPUT):
        if m.role is not Role.ASSISTANT:
            continue
        parts = []
        for p in m.parts or ():
            if isinstance(p, ToolPart):
                p = _mapped_or_raw(agent, p, strict)
            parts.append(p)
        parts_t = tuple(parts)
        if parts_t != m.parts:
            lst = ml.replace_message(lst, evolve(m, parts=parts_t))
    return lst


def _guarded_parts(agent: Agent, m: Message, whole: bool, recorded: frozenset[tuple[str, str, str]]) -> tuple | None:
    """G11.1 Which results are mapped: every result part of a message a processor added or
    changed, or of one memory does not hold (``whole``); of a memory+input message only the
    caller's outcome parts (G11.2)."""
    return tuple(_guard_mapped(agent, p) if _caller_outcome(p, m, whole, recorded) else p for p in m.parts or ())


def _caller_outcome(p: Any, m: Message, whole: bool, recorded: frozenset[tuple[str, str, str]]) -> TypeGuard[ToolPart]:
    """G11.2 A stored result on a carrier is sent as stored: on a memory+input message only the
    outcome parts the recorder saw from the caller are mapped; a historical result stored on it
    is left alone, and nothing maps it later."""
    return isinstance(p, ToolPart) and (whole or (m.id, p.tool_call_id, p.state.value) in recorded)


def _guard_mapped(agent: Agent, p: ToolPart) -> ToolPart:
    """G11.4 Wrappers and the text mapping: the guard unwraps a result as M11.2 says and maps
    it with the scenario's mapping as M11.3 says; a throw is the guard's mapping error (G11.5),
    where raw Mastra would send the result unmapped (M11.1)."""
    return _mapped(agent, p)


def _read_again(m: Message, sources: frozenset, added_ids: frozenset[str]) -> bool:
    """G11.3 Re-mapped changes are read as mapped: a changed message that memory also holds is
    recorded again as an addition once mapped, so the policies read the text that is sent."""
    return m.id in added_ids and Source.MEMORY in sources


def map_guarded_outputs(
    agent: Agent, lst: MessageList, recorded: frozenset[tuple[str, str, str]], added_ids: frozenset[str]
) -> tuple[MessageList, tuple[Message, ...]]:
    """G11 Client tool output mapping under the guard (Breakwater's client tool output
    processor): of each assistant message in the ``input``
    set, the result parts mapped are: every one of a message a processor added or changed
    (its id among ``added_ids``) or of one memory does not hold; of a memory+input message only
    the caller's outcome parts the recorder saw (``recorded``), so a stored (historical) result
    on it is not mapped and its mapping never runs, so what reaches the model of it is what
    was stored (I4; Breakwater lets Mastra's own pass map it after the policies: finding
    BW-F4). A mapping error fails the call
    (``MappingError``); a message moved out of the input is not walked.

    Returns the list and the changed messages memory also holds, as mapped: Breakwater records
    them again as additions, so the mapped text is read as it is sent (I4)."""
    remapped: list[Message] = []
    for s in lst.slots:
        m = s.message
        if Source.INPUT not in s.sources or m.role is not Role.ASSISTANT:
            continue
        parts = _guarded_parts(agent, m, m.id in added_ids or Source.MEMORY not in s.sources, recorded)
        if parts != m.parts:
            mapped = evolve(m, parts=parts)
            lst = ml.replace_message(lst, mapped)
            if _read_again(m, s.sources, added_ids):
                remapped.append(mapped)
    return lst, tuple(remapped)


__all__ = ["UNDEFINED", "MappingError", "map_client_outputs", "map_guarded_outputs"]
