"""G0 construction checks and G1 caller input checks."""

from __future__ import annotations

from typing import Any

from guardspec.model.agent import Agent
from guardspec.model.messages import Message, Role, SystemMessage
from guardspec.model.processors import FORBIDDEN_HOOKS, PROCESS_INPUT, RESERVED_IDS
from guardspec.model.scenario import Call, Loop

from ..policies import PRINCIPAL_KINDS, ROLES
from .assets import origins_error


def _entries_error(label: str, entries: tuple[str, ...], known: tuple[str, ...]) -> str | None:
    if not entries:
        return f"TypeError: createGuardedAgent: {label} must be a non-empty array"
    for i, e in enumerate(entries):
        if e not in known:
            return f"TypeError: createGuardedAgent: {label} entry {i} is unknown (got {e!r})"
        if e in entries[:i]:
            return f"TypeError: createGuardedAgent: {label} entry {i} is a duplicate (got {e!r})"
    return None


def construction_error(agent: Agent) -> str | None:
    """G0 Construction: each application input processor has a non-empty id that is not
    reserved, implements processInput and none of the per-step, provider, output or error hooks
    (the first found is named); memory with title generation on is refused; the allowed roles
    are a non-empty list of Breakwater's roles without repeats, and so are the allowed
    principal kinds (docs/breakwater-measurements.md §2); each allowed input asset origin is an
    http(s) origin (§4). Checked in Breakwater's order: memory, roles, kinds, asset origins,
    processors. A TypeError text, or None."""
    if agent.memory is not None and agent.memory.generate_title:
        return "TypeError: guarded agent memory must not generate thread titles"
    err = _entries_error("allowedRoles", agent.allowed_roles, ROLES)
    err = err or _entries_error("allowedPrincipalKinds", agent.allowed_principal_kinds, PRINCIPAL_KINDS)
    err = err or origins_error(agent.allowed_input_asset_origins)
    if err:
        return err
    for p in agent.processors:
        if not p.id:
            return "TypeError: application input processor must have a non-empty id"
        if p.id in RESERVED_IDS:
            return f"TypeError: application input processor id '{p.id}' is reserved"
        if PROCESS_INPUT not in p.hooks:
            return f"TypeError: application input processor '{p.id}' must implement processInput"
        for hook in FORBIDDEN_HOOKS:
            if hook in p.hooks:
                return f"TypeError: application input processor '{p.id}' must not implement {hook}"
    return None


def call_options_error(call: Call) -> str | None:
    """G1.1 Call options: Breakwater's guarded ``generate()``
    and ``stream()`` accept only the call options ``requestContext``, ``runId``, ``memory`` and
    ``abortSignal``; a call given ``context`` messages is a TypeError before anything runs (no
    audit event). The durable loop is started through Mastra's durable agent, which does not
    read the guarded call options, so it takes the context as Mastra does."""
    if call.loop is not Loop.DURABLE and call.context:
        return "TypeError: GuardedAgent: call option 'context' is not allowed"
    return None


def caller_input_error(messages: tuple[Any, ...]) -> str | None:
    """G1 Caller input: a caller message with role system, or a list nested deeper than one
    level, is refused with a TypeError before anything runs."""
    for m in messages:
        items = m if isinstance(m, tuple) else (m,)
        for x in items:
            if isinstance(x, tuple):
                return "TypeError: caller messages may be nested one level at most"
            if isinstance(x, SystemMessage) or (isinstance(x, Message) and x.role is Role.SYSTEM):
                return "TypeError: caller messages must not have role system"
    return None
