"""Earlier, wrong readings of rules the model now follows (of Breakwater's behaviour, of the
seed's, of real Mastra's), kept as the patches ``properties/mutants.py`` installs: each builder
returns ``[(module, attribute, replacement)]``, and its docstring names the clause the old
behaviour breaks and what that clause says instead.
"""

from __future__ import annotations

import importlib
from typing import Any

from attrs import evolve

from guardspec.model.messages import Role, Source, SystemMessage, TextPart, ToolPart
from guardspec.model.values import UNDEFINED

M = importlib.import_module
chain = M("guardspec.reference.guard.chain")
runmod = M("guardspec.reference.run")
ml = M("guardspec.reference.messagelist")
policies = M("guardspec.reference.policies")
mapping = M("guardspec.reference.mapping")
prompt_values = M("guardspec.reference.prompt_values")
model_step = M("guardspec.reference.prompt")

Patch = tuple[Any, str, Any]  # (module, attribute, replacement)


def _wrap_guarded_run(post: Any) -> list[Patch]:
    """Wrap one guarded call: ``post(scenario, run) -> run``."""
    orig = runmod._run_guarded

    def _run_guarded(scenario, trace=None):
        return post(scenario, orig(scenario, trace))

    return [(runmod, "_run_guarded", _run_guarded)]


def system_parts_read_apart() -> list[Patch]:
    """G12.4 broken (S5, I4): system content of several text parts is read as its parts
    joined by newlines, while the model receives the parts as one text, concatenated with
    nothing between them, and that is how the clause reads it."""
    orig = chain.read_text

    def apart(e: Any) -> Any:
        c = e.content if isinstance(e, SystemMessage) else None
        if isinstance(c, tuple) and len(c) > 1 and all(isinstance(p, TextPart) and isinstance(p.text, str) for p in c):
            return evolve(e, content="\n".join(p.text for p in c))
        return e

    def read_text(lst, recorded, record, *rest):
        return orig(lst, recorded, [evolve(a, entry=apart(a.entry)) for a in record], *rest)

    return [(chain, "read_text", read_text)]


def history_input_read_unmapped() -> list[Patch]:
    """G11.3 broken (G10, S5, I4): a history id re-added under ``input`` alone is read as it
    stood before client tool mapping, while the model receives its mapped output, which is
    what the policies must read."""
    state: dict[str, Any] = {"stored": frozenset(), "before": None}
    orig_chain, orig_map, orig_read = runmod.guarded_chain, chain.map_guarded_outputs, chain.read_text

    def guarded_chain(agent, actor, lst, stored, *a, **k):
        state["stored"] = frozenset(m.id for m in stored)
        return orig_chain(agent, actor, lst, stored, *a, **k)

    def map_guarded_outputs(agent, lst, *rest):
        state["before"] = lst
        return orig_map(agent, lst, *rest)

    def read_text(lst, *rest):
        before = state["before"]
        if before is not None:
            raw = {s.message.id: s.message for s in before.slots}
            slots = tuple(
                ml.Slot(raw[s.message.id], s.sources)
                if s.sources == frozenset({Source.INPUT}) and s.message.id in state["stored"] and s.message.id in raw
                else s
                for s in lst.slots
            )
            lst = evolve(lst, slots=slots)
        return orig_read(lst, *rest)

    return [(runmod, "guarded_chain", guarded_chain), (chain, "map_guarded_outputs", map_guarded_outputs), (chain, "read_text", read_text)]


def role_for_every_kind() -> list[Patch]:
    """G3.2 broken: RBAC checks the role of every principal kind, where Breakwater checks the
    kind first and the role for human principals only."""
    orig = policies.rbac_denial

    def rbac_denial(agent, actor):
        d = orig(agent, actor)
        a = policies.request_actor(actor)
        if d is None and a is not None and a.role not in agent.allowed_roles:
            return f"role '{a.role}' is not in allowed roles [{', '.join(agent.allowed_roles)}]"
        return d

    return [(runmod, "rbac_denial", rbac_denial)]


def rethrown_tripwire_named_by_processor() -> list[Patch]:
    """G6.1 broken (I6): a TripWire a processor throws itself refuses with that processor's
    id, where it carries none and Mastra's runner names it (``<agent id>-input-processor``,
    ``""`` on durable)."""
    return [(runmod, "refusal_processor_id", lambda scenario, refusal: refusal.processor_id)]


def _audit_post(fix: Any) -> list[Patch]:
    """Rewrite every audit event of a guarded call: ``fix(scenario, event) -> event``."""

    def post(scenario, r):
        events = tuple(fix(scenario, e) for e in r.observation.audit)
        return evolve(r, observation=evolve(r.observation, audit=events))

    return _wrap_guarded_run(post)


def _with_reason(scenario, e):
    return evolve(e, reason="authorized" if e.action == "agent.input.authorize" else "policy allowed") if e.decision == "allowed" else e


def _actor_kept(scenario, e):
    return evolve(e, actor=scenario.call.actor) if e.actor is None and scenario.call.actor is not None else e


def allowed_with_reason() -> list[Patch]:
    """G15 broken: allowed authorize and policy events carry a reason, where only a denial
    or an error does."""
    return _audit_post(_with_reason)


def unreadable_actor_kept() -> list[Patch]:
    """G3.1 broken (G15): an actor Breakwater cannot read is still named in the audit, where
    it counts as no actor at all (event actor null)."""
    return _audit_post(_actor_kept)


# -- what the guard reads, keeps and refuses: Breakwater's behaviour read wrongly ------------------


def input_assets_gate_skipped() -> list[Patch]:
    """G16 broken (I4): no input-assets gate between the application processors and the
    mapping; a user file or image part naming a URL of another scheme, with credentials or of
    an origin the agent does not allow reaches the model, where the gate refuses the call."""
    return [(chain, "input_assets_gate", lambda agent, lst: None)]


def context_option_accepted() -> list[Patch]:
    """G1.1 broken: a guarded generate/stream call given ``context`` runs (the guard reads the
    context), where Breakwater's ``guardedCallOptions`` throws a TypeError before anything
    runs."""
    return [(runmod, "call_options_error", lambda call: None)]


def stored_result_mapped() -> list[Patch]:
    """G11.1 broken (G11.2, I4): every result part of every assistant message in the input
    is mapped, a stored (historical) result on a remembered input message too, which the
    policies do not read (they read only the caller's outcome parts of such a message); the
    model receives its mapped output. The clause maps only the caller's outcome parts of a
    carrier."""
    orig = chain.map_guarded_outputs

    def map_guarded_outputs(agent, lst, *rest):
        _, remapped = orig(agent, lst, *rest)
        return mapping.map_client_outputs(agent, lst, True), remapped

    return [(chain, "map_guarded_outputs", map_guarded_outputs)]


def mapped_history_not_reread() -> list[Patch]:
    """G11.3 broken (G10, I4): a changed memory+input message is read as the processor left
    it (its results raw); after mapping it is not recorded again, so the mapped text the model
    receives is not read."""
    orig = chain.map_guarded_outputs
    return [(chain, "map_guarded_outputs", lambda agent, lst, *rest: (orig(agent, lst, *rest)[0], ()))]


def text_file_data_read_raw() -> list[Patch]:
    """G12.6 broken (I4): a file part's string data is read as the string, not as the base64
    text Mastra sends (``data:<type>;base64,<data>``, M12.8), which is what the model receives
    decoded."""
    orig = prompt_values.media_values

    def media_values(p):
        if isinstance(p.data, str) and isinstance(p.media_type, str):
            return [p.media_type, p.data]
        return orig(p)

    return [(prompt_values, "media_values", media_values)]


def data_uri_read_under_its_own_type() -> list[Patch]:
    """G12.6 broken (I4): a file part's data URI is read under the URI's own media type, where
    Mastra rewrites it as ``data:<the part's media type>;base64,<payload>`` before the prompt
    (M12.10): a ``text/*`` part whose data URI names another type reaches the model as text the
    policies never read.

    Evidence: G12.6"""
    orig = prompt_values.media_values

    def media_values(p):
        data, media = p.data, p.media_type
        if isinstance(data, str) and isinstance(media, str) and data.lower().startswith("data:"):
            header, _, rest = data.partition(",")
            url_media = header.split(";")[0].partition(":")[2]
            values = [media] + ([url_media] if url_media != media else [])
            if url_media.lower().startswith("text/"):
                values.append(prompt_values.base64_text(rest.split(",")[0]))
            return values
        return orig(p)

    return [(prompt_values, "media_values", media_values)]


def null_system_entries_skipped() -> list[Patch]:
    """G7.5 broken: a returned object's ``systemMessages`` holding null or undefined is
    applied with those entries skipped, where Mastra's ``replaceAllSystemMessages`` throws on
    them (M8.6) and the processor fails."""
    application = M("guardspec.reference.guard.application")
    invocation = M("guardspec.reference.invocation")
    orig = chain.apply_guarded

    def apply_guarded(lst, value, *rest):
        if isinstance(value, invocation.RetObject) and isinstance(value.system_messages, tuple):
            value = evolve(value, system_messages=tuple(e for e in value.system_messages if e is not None and e is not UNDEFINED))
        return orig(lst, value, *rest)

    assert application.apply_guarded is orig
    return [(chain, "apply_guarded", apply_guarded)]


def ai_sdk_system_entry_applied() -> list[Patch]:
    """G7.2 broken: an AI SDK system entry of a returned array (``{role: 'system', content}``)
    adds its text as a system message, where Breakwater adds ``content.content ??
    content.parts…join ?? ''``: nothing."""
    application = M("guardspec.reference.guard.application")
    orig = application.system_entry_text

    def system_entry_text(e):
        if isinstance(e, SystemMessage):
            text = ml.system_text(e.content)
            if isinstance(text, str):
                return text
        return orig(e)

    return [(application, "system_entry_text", system_entry_text)]


# -- the substrate: real Mastra's prompt read wrongly (M12.4, M12.5) --------------------------------


def user_message_sends_every_part() -> list[Patch]:
    """M12.4 broken (I4): a user message sends every part, its reasoning (and tool) parts
    too, which the policies do not read; a user message sends its text and file parts only,
    as AI SDK ``convertToModelMessages`` converts them, and those Breakwater reads."""
    orig = model_step._sent_parts

    def _sent_parts(m):
        if m.role is not Role.USER:
            return orig(m)
        return [
            p
            for p in m.parts or ()
            if not model_step._empty_text(p) and not (isinstance(p, ToolPart) and p.state not in model_step._SENT_TOOL_STATES)
        ]

    return [(model_step, "_sent_parts", _sent_parts)]


def part_provider_options_sent() -> list[Patch]:
    """M12.5 broken (I4): a text part keeps its providerOptions in the prompt, so content
    options (Anthropic citations) reach the provider; the policies never read a message
    part's options, and Mastra sends none."""

    def sent_part(p):
        if isinstance(p, ToolPart) and p.approval is not UNDEFINED:
            return evolve(p, approval=UNDEFINED)
        return p

    return [(model_step, "sent_part", sent_part)]


def message_metadata_sent() -> list[Patch]:
    """M12.5 broken (I4): a prompt message keeps its metadata, which the policies never read
    (Breakwater renders a message's parts); a prompt message is ``{role, content}``: the
    metadata never reaches the language model."""
    orig = model_step._sent_message

    def _sent_message(m):
        out = orig(m)
        return out if m.metadata is UNDEFINED else evolve(out, metadata=m.metadata)

    return [(model_step, "_sent_message", _sent_message)]
