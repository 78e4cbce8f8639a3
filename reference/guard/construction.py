"""G0 construction checks and G1 caller input checks."""

from __future__ import annotations

from typing import Any

from guardspec.model.agent import Agent
from guardspec.model.messages import Message, Role, SystemMessage
from guardspec.model.processors import FORBIDDEN_HOOKS, PROCESS_INPUT, RESERVED_IDS, Processor
from guardspec.model.scenario import Call, Loop

from ..policies import PRINCIPAL_KINDS, ROLES
from .assets import origins_error


def _entries_error(label: str, entries: tuple[str, ...], known: tuple[str, ...]) -> str | None:
    """G0.2 Roles and principal kinds: the option is a non-empty list of Breakwater's known
    values without repeats; the first unknown or repeated entry is named by its index."""
    if not entries:
        return f"TypeError: createGuardedAgent: {label} must be a non-empty array"
    for i, e in enumerate(entries):
        if e not in known:
            return f"TypeError: createGuardedAgent: {label} entry {i} is unknown (got {e!r})"
        if e in entries[:i]:
            return f"TypeError: createGuardedAgent: {label} entry {i} is a duplicate (got {e!r})"
    return None


def _processor_error(p: Processor) -> str | None:
    """G0 Construction: an application input processor has a non-empty id that is not
    reserved, implements processInput and none of the per-step, provider, output or error
    hooks (the first found is named)."""
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


def construction_error(agent: Agent) -> str | None:
    """G0.1 The order of the checks: memory with title generation on, the allowed roles, the
    allowed principal kinds (G0.2), the allowed input asset origins (G16.1), then each
    processor in order (G0); the first failing check's TypeError text, or None.

    Evidence: G0.1
    """
    if agent.memory is not None and agent.memory.generate_title:
        return "TypeError: guarded agent memory must not generate thread titles"
    err = _entries_error("allowedRoles", agent.allowed_roles, ROLES)
    err = err or _entries_error("allowedPrincipalKinds", agent.allowed_principal_kinds, PRINCIPAL_KINDS)
    err = err or origins_error(agent.allowed_input_asset_origins)
    if err:
        return err
    for p in agent.processors:
        err = _processor_error(p)
        if err:
            return err
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
