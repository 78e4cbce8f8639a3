"""I4 and I9: what reaches the model.

How I4 decides that an entry "was read": each prompt entry is rendered as the model receives it
(``rendering``: a system message as one text, tool outputs as sent, mapped outputs included),
and every text of that rendering must occur in the policies' read (``read``), unless the stored
history or the configured instructions would have sent the very same texts. The rendering is
the invariants' own, written from the spec's M11 and M12; nothing here asks the
reference how it reads. Substring matching can only make the check more lenient: a missed
violation, never a false one. Generated texts are fixed-width tokens (``note-07``) so that
accidental containment is rare.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from guardspec.model.agent import Agent
from guardspec.model.messages import Message, ReasoningPart, Role, Source, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.observation import Observation, Refused
from guardspec.model.scenario import Scenario
from guardspec.model.values import UNDEFINED, JsObject, to_json_text

from .rendering import Text, Unrenderable, cached_output, content_option_strings, entry_texts, part_texts, system_texts, unread
from .scenario import bound_thread, caller_messages, stored_before


def _key(texts: list[Text]) -> str:
    return repr(texts)


def known_renderings(scenario: Scenario) -> set[tuple]:
    """What the call's own history would send: for every part stored before the call, keyed
    (message id, role, rendering), and the exact part too (a part that cannot be rendered can
    still be stored history sent back unchanged)."""
    out: set[tuple] = set()
    for m in stored_before(scenario):
        for p in m.parts or ():
            out.add((m.id, m.role, "part", repr(p)))
            try:
                out.add((m.id, m.role, _key(part_texts(p))))
            except Unrenderable:
                pass
    return out


def _configured(agent: Agent) -> set[str]:
    """The configured instructions, as the model receives them (a string, no options)."""
    return {repr([Text(agent.instructions)])} if agent.instructions else set()


def metadata_strings(v: Any) -> list[str]:
    """Every string inside a message's metadata (what a provider would receive as JSON), in
    plain objects and arrays."""
    if isinstance(v, str):
        return [v]
    if isinstance(v, tuple):
        return [x for e in v for x in metadata_strings(e)]
    if isinstance(v, JsObject):
        return [x for _, e in v.props for x in metadata_strings(e)]
    return []


def known_metadata(scenario: Scenario) -> set[tuple]:
    """The metadata each stored message would send back: (id, role, repr)."""
    return {(m.id, m.role, repr(m.metadata)) for m in stored_before(scenario) if m.metadata is not UNDEFINED}


def _is_configured(configured: set[str], s: SystemMessage) -> bool:
    try:
        return repr(system_texts(s)) in configured
    except Unrenderable:
        return False


def _known(known: set[tuple], mid: str, role: Role, p: Any) -> bool:
    if (mid, role, "part", repr(p)) in known:
        return True
    try:
        return (mid, role, _key(part_texts(p))) in known
    except Unrenderable:
        return False


def _unread_part(read: str | None, p: Any) -> str | None:
    """Why a part, as the model receives it, does not count as read, or None when it does."""
    try:
        missing = unread(read, part_texts(p))
    except Unrenderable as e:
        return f"unrenderable ({e})"
    return f"texts {missing!r} not in the policies' read" if missing else None


def _unread_system(read: str | None, s: SystemMessage) -> str | None:
    try:
        missing = unread(read, system_texts(s))
    except Unrenderable as e:
        return f"unrenderable ({e})"
    return f"texts {missing!r} (as the model receives them) not in the policies' read" if missing else None


def is_mastra_filler(e: Any) -> bool:
    """M12: the user message ``"."`` Mastra's prompt conversion puts first when the first
    non-system message is not a user message; nobody wrote it, so nothing is there to read."""
    return (
        isinstance(e, Message)
        and e.id == ""
        and e.role is Role.USER
        and e.parts is not None
        and len(e.parts) == 1
        and isinstance(e.parts[0], TextPart)
        and e.parts[0].text == "."
    )


def prompt_entries_are_known_or_read(scenario: Scenario, obs: Observation, read: str | None) -> list[str]:
    """I4, first half (S5, G9, G10): every prompt entry (a system message, or a part of a
    message), rendered as the model receives it, is what the configured instructions or the
    stored history (a part keyed by its message's id and role) would send, or every text of it
    was read by the input policies."""
    known = known_renderings(scenario)
    known_meta = known_metadata(scenario)
    configured = _configured(scenario.agent)
    out = []
    for step, prompt in enumerate(obs.prompts):
        for e in prompt:
            if isinstance(e, SystemMessage):
                if _is_configured(configured, e):
                    continue
                why = _unread_system(read, e)
                if why:
                    out.append(f"I4: prompt[{step}] system message {e.content!r}: {why}")
                continue
            if is_mastra_filler(e):
                continue
            # a prompt message's metadata would reach the provider with it: every string in it
            # must be read, unless the stored message sends it back as it was (Mastra sends
            # none: a prompt message is {role, content}, M12.5)
            if e.metadata is not UNDEFINED and (e.id, e.role, repr(e.metadata)) not in known_meta:
                missing = unread(read, [Text(x) for x in metadata_strings(e.metadata)])
                if missing:
                    out.append(f"I4: prompt[{step}] message {e.id!r} metadata: texts {missing!r} not in the policies' read")
            for i, p in enumerate(e.parts or ()):
                if _known(known, e.id, e.role, p):
                    continue
                why = _unread_part(read, p)
                if why:
                    out.append(f"I4: prompt[{step}] message {e.id!r} part {i} ({type(p).__name__}): {why}")
                # a prompt text part's providerOptions travel with it to the provider; those that
                # carry content (Anthropic citations, OpenRouter reasoning details) must be read
                # too (Mastra sends none: M12.5)
                if isinstance(p, TextPart):
                    missing = unread(read, [Text(x) for x in content_option_strings(p.provider_options)])
                    if missing:
                        out.append(
                            f"I4: prompt[{step}] message {e.id!r} part {i} (TextPart) providerOptions: texts {missing!r} not in the policies' read"
                        )
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

    ``stages`` are the lists after each application processor (name, ``ListView``), as an
    implementation's trace shows them. An entry of such a list that is not input-only (G9's
    prompt entries), is not configured, and holds a part whose rendering was on no earlier list
    and is not stored history, is an addition; every text of its rendering (as the model would
    receive it) must occur in ``read``. Checked only when the policies ran.
    """
    if read is None or not stages:
        return []
    known = known_renderings(scenario)
    configured = _configured(scenario.agent)
    seen: set[tuple] = set()
    seen_system: set = set()
    out = []
    for n, (name, view) in enumerate(stages):
        systems = list(view.untagged) + [s for _, b in view.tagged for s in b]
        msgs = [(lm.message, lm.sources) for lm in view.messages]
        if n > 0:
            for s in systems:
                if repr(s) in seen_system or _is_configured(configured, s):
                    continue
                why = _unread_system(read, s)
                if why:
                    out.append(f"I4: after {name}, added system message {s.content!r}: {why}")
            for m, sources in msgs:
                if set(sources) == {Source.INPUT}:
                    continue
                for i, p in enumerate(m.parts or ()):
                    if _known(known, m.id, m.role, p) or _known(seen, m.id, m.role, p) or _mapped_later(scenario.agent, p):
                        continue
                    if m.role is Role.USER and isinstance(p, (ReasoningPart, ToolPart)):
                        continue  # M12.4: a user message sends only its text and file parts
                    why = _unread_part(read, p)
                    if why:
                        out.append(f"I4: after {name}, added/changed message {m.id!r} part {i}: {why}")
        # the list before any processor ran is the baseline; every list after it adds to it
        seen_system.update(repr(s) for s in systems)
        for m, _ in msgs:
            for p in m.parts or ():
                seen.add((m.id, m.role, "part", repr(p)))
                try:
                    seen.add((m.id, m.role, _key(part_texts(p))))
                except Unrenderable:
                    pass
    return out


def nothing_reaches_model_unread(
    scenario: Scenario, obs: Observation, read: str | None, stages: Sequence[tuple[str, Any]] = ()
) -> list[str]:
    """I4 (S5, G9, G10): nothing reaches the model unread; both halves."""
    return prompt_entries_are_known_or_read(scenario, obs, read) + additions_are_read(scenario, read, stages)


def _prompt_strings(obs: Observation) -> list[str]:
    """Every text the model received, as it received it."""
    out = []
    for prompt in obs.prompts:
        for e in prompt:
            try:
                texts = entry_texts(e)
            except Unrenderable:
                out.append(repr(e))
                continue
            for t in texts:
                try:
                    out.append(t.value if isinstance(t.value, str) else to_json_text(t.value))
                except (TypeError, ValueError):
                    out.append(repr(t.value))
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
            for p in cast("tuple[Any, ...]", m.parts or ())  # any part kind: those with a text
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
