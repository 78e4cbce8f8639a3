"""G0 construction checks and G1 caller input checks."""

from __future__ import annotations

from typing import Any

from guardspec.model.agent import Agent
from guardspec.model.messages import Message, Role, SystemMessage
from guardspec.model.processors import FORBIDDEN_HOOKS, PROCESS_INPUT, RESERVED_IDS


def construction_error(agent: Agent) -> str | None:
    """G0 Construction (S1): each application input processor has a non-empty id that is not
    reserved, implements processInput and none of the per-step, provider, output or error hooks
    (the first found is named); memory with title generation on is refused. A TypeError text,
    or None."""
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
    if agent.memory is not None and agent.memory.generate_title:
        return "TypeError: guarded agent memory must not generate thread titles"
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
