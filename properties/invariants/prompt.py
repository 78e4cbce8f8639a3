"""I4 and I9: what reaches the model.

How I4 decides that an entry "was read": the policies' text (``read``) is the newline-joined
list of texts G12 extracts. An entry counts as read when every text G12 would extract from it
(``reading.part_texts`` for a part, ``reading.system_texts`` for a system message) occurs as a
substring of ``read``. Substring (not line) matching can only make the check more lenient: a
missed violation, never a false one. Generated texts are fixed-width tokens (``note-07``) so
that accidental containment is rare.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from attrs import evolve

from guardspec.model.agent import Agent
from guardspec.model.messages import Message, Role, Source, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.observation import Observation, Refused
from guardspec.model.scenario import Scenario
from guardspec.model.values import UNDEFINED, JsObject, obj, to_json_text
from guardspec.reference.reading import NotClassified, cached_output, part_texts, system_texts

from .scenario import bound_thread, caller_messages, configured_system, stored_before


def _texts(entry: Any) -> list[str]:
    """G12 texts of a prompt entry, or a part; raises NotClassified."""
    if isinstance(entry, SystemMessage):
        return system_texts(entry)
    return part_texts(entry)


def _read_has(read: str | None, texts: Iterable[str]) -> bool:
    if read is None:
        return not any(texts)
    return all(t in read for t in texts)


def _substituted(p: Any) -> Any:
    """M11/M12: the part as the prompt shows it (a cached output replaces the result)."""
    if isinstance(p, ToolPart):
        out = cached_output(p)
        if out is not UNDEFINED:
            return evolve(p, result=out)
    return p


def as_sent(p: Any) -> Any:
    """M12: how Mastra's prompt conversion sends a part: an ``output-denied`` call as a result
    holding ``{type: 'text', value: <the approval's reason or Mastra's fixed text>}``, and a
    cached output in place of the result (M11)."""
    if isinstance(p, ToolPart) and p.state is ToolState.OUTPUT_DENIED:
        reason = p.approval.get("reason") if isinstance(p.approval, JsObject) else UNDEFINED
        text = reason if isinstance(reason, str) and reason else DENIAL_TEXT
        return evolve(p, state=ToolState.RESULT, result=obj(type="text", value=text), approval=UNDEFINED)
    return _substituted(p)


def known_parts(scenario: Scenario) -> set[tuple]:
    """Parts stored before the call, keyed (message id, role, part), as stored and as the
    prompt sends them (``as_sent``)."""
    out = set()
    for m in stored_before(scenario):
        for p in m.parts or ():
            out.add((m.id, m.role, p))
            out.add((m.id, m.role, _substituted(p)))
            out.add((m.id, m.role, as_sent(p)))
    return out


DENIAL_TEXT = "Tool call was not approved by the user"


def _denial_as_result(read: str | None, p: Any) -> bool:
    """M12: Mastra sends an ``output-denied`` call as a result holding ``{type: 'text', value:
    <the approval's reason>}``; the reason was read (as the JSON text of the approval reason,
    G12), or it is Mastra's own fixed text."""
    if not (isinstance(p, ToolPart) and p.state is ToolState.RESULT and isinstance(p.result, JsObject)):
        return False
    if p.result.get("type") != "text" or set(p.result.keys()) != {"type", "value"}:
        return False
    v = p.result.get("value")
    if not isinstance(v, str):
        return False
    return v == DENIAL_TEXT or _read_has(read, [to_json_text(v)])


def _unread_part(read: str | None, p: Any) -> str | None:
    """Why a part does not count as read, or None when it does."""
    try:
        texts = _texts(p)
    except NotClassified as e:
        return f"unclassifiable ({e})"
    missing = [t for t in texts if not _read_has(read, [t])]
    if missing and _denial_as_result(read, p):
        rest = _texts(evolve(p, result=UNDEFINED))
        missing = [t for t in rest if not _read_has(read, [t])]
    return f"texts {missing!r} not in the policies' read" if missing else None


def is_mastra_filler(e: Any) -> bool:
    """M12: the user message ``"."`` Mastra's prompt conversion puts first when the first
    non-system message is not a user message; nobody wrote it, so nothing is there to read."""
    return (
        isinstance(e, Message)
        and e.id == ""
        and e.role is Role.USER
        and len(e.parts or ()) == 1
        and isinstance(e.parts[0], TextPart)
        and e.parts[0].text == "."
    )


def prompt_entries_are_known_or_read(scenario: Scenario, obs: Observation, read: str | None) -> list[str]:
    """I4, first half (S5, G9, G10): every prompt entry (a system message, or a part of a
    message) is identical to one stored or configured before the call (a part keyed by its
    message's id and role), or was read by the input policies."""
    known = known_parts(scenario)
    configured = configured_system(scenario.agent)
    out = []
    for step, prompt in enumerate(obs.prompts):
        for e in prompt:
            if isinstance(e, SystemMessage):
                if e in configured:
                    continue
                why = _unread_part(read, e)
                if why:
                    out.append(f"I4: prompt[{step}] system message {e.content!r}: {why}")
                continue
            if is_mastra_filler(e):
                continue
            for i, p in enumerate(e.parts or ()):
                if (e.id, e.role, p) in known:
                    continue
                why = _unread_part(read, p)
                if why:
                    out.append(f"I4: prompt[{step}] message {e.id!r} part {i} ({type(p).__name__}): {why}")
    return out


def _mapped_later(agent: Agent, p: Any) -> bool:
    """A result part G11 may still map after the stage it was seen in (its text is then the
    mapped output, which the prompt check covers)."""
    if not isinstance(p, ToolPart) or p.state is not ToolState.RESULT or cached_output(p) is not UNDEFINED:
        return False
    tool = agent.client_tool(p.tool_name)
    return tool is not None and tool.mapping is not None


def additions_are_read(scenario: Scenario, read: str | None, stages: Sequence[tuple[str, Any]]) -> list[str]:
    """I4, second half (S5, G9, G10): text a processor ever added to the prompt outside the
    call's input is read, even if a later processor took it away.

    ``stages`` are the lists after each application processor (name, ``ListView``), as the
    reference's trace records them. An entry of such a list that is not input-only (G9's prompt
    entries), is not configured, and holds a part that was on no earlier list and is not stored
    history, is an addition; its texts must occur in ``read``. Checked only when the policies ran.
    """
    if read is None or not stages:
        return []
    known = known_parts(scenario)
    configured = configured_system(scenario.agent)
    seen_parts: set[tuple] = set()
    seen_system: set = set()
    out = []
    first = True
    for name, view in stages:
        systems = list(view.untagged) + [s for _, b in view.tagged for s in b]
        msgs = [(lm.message, lm.sources) for lm in view.messages]
        if first:
            # the list before any processor ran: the baseline
            seen_system.update(repr(s) for s in systems)
            seen_parts.update((m.id, m.role, p) for m, _ in msgs for p in m.parts or ())
            first = False
            continue
        for s in systems:
            if s in configured or repr(s) in seen_system:
                continue
            why = _unread_part(read, s)
            if why:
                out.append(f"I4: after {name}, added system message {s.content!r}: {why}")
        for m, sources in msgs:
            if set(sources) == {Source.INPUT}:
                continue
            for i, p in enumerate(m.parts or ()):
                key = (m.id, m.role, p)
                if key in known or key in seen_parts or _mapped_later(scenario.agent, p):
                    continue
                why = _unread_part(read, p)
                if why:
                    out.append(f"I4: after {name}, added/changed message {m.id!r} part {i}: {why}")
        seen_system.update(repr(s) for s in systems)
    return out


def nothing_reaches_model_unread(scenario: Scenario, obs: Observation, read: str | None, stages: Sequence[tuple[str, Any]] = ()) -> list[str]:
    """I4 (S5, G9, G10): nothing reaches the model unread; both halves."""
    return prompt_entries_are_known_or_read(scenario, obs, read) + additions_are_read(scenario, read, stages)


def _prompt_strings(obs: Observation) -> list[str]:
    out = []
    for prompt in obs.prompts:
        for e in prompt:
            try:
                if isinstance(e, SystemMessage):
                    out.extend(system_texts(e))
                else:
                    for p in e.parts or ():
                        out.extend(part_texts(p))
            except NotClassified:
                out.append(repr(e))
    return out


def _literal_strings(scenario: Scenario) -> str:
    """Every string the scenario itself supplies for this call: caller messages, the agent's
    configuration (processors add their literal texts on every call)."""
    return repr(scenario.call) + repr(scenario.agent)


def refused_text_never_sent_later(history: Sequence[tuple[Scenario, Observation]]) -> list[str]:
    """I9 (S8, S9, G14): after a refused call, no later call on the thread sends the refused
    caller text to the model, unless a call after the refused one supplies the text itself or it
    was stored before the refused call."""
    out = []
    for i, (sc, obs) in enumerate(history):
        if not isinstance(obs.outcome, Refused):
            continue
        stored = repr(stored_before(sc))
        refused = {
            p.text
            for m in caller_messages(sc)
            for p in m.parts or ()
            if isinstance(getattr(p, "text", None), str) and len(p.text) >= 4 and p.text not in stored
        }
        supplied = ""
        for j in range(i + 1, len(history)):
            later, lobs = history[j]
            supplied += _literal_strings(later)  # a later call may supply (and store) it again
            if bound_thread(later) != bound_thread(sc):
                continue
            sent = "\n".join(_prompt_strings(lobs))
            for t in refused:
                if t not in supplied and t in sent:
                    out.append(f"I9: text {t!r} of refused call {i} sent to the model in call {j}")
    return out
