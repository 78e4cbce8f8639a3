"""Hypothesis strategies for the model's values, with swarm switches (the spec's vocabulary and what a processor in a scenario must be able to do).

Scenarios are small: at most a few stored messages, up to four caller messages, up to three
processors with up to two steps each. Texts are fixed-width tokens (``note-07``) and the marker
``FORBIDDEN`` that the deny-patterns policy ``no-marker`` denies, so refusals are common and a
text found in the policies' read is rarely there by accident.

Swarm testing (Groce et al.): a ``Swarm`` switches whole features off, so that rare
combinations (say, a processor that moves the caller's outcome and then aborts) come up often in
the swarms that keep them. ``swarms()`` draws one per example; pass a fixed ``Swarm`` to aim.

The modules follow what they generate: ``values`` (texts, JS values), ``messages`` (parts,
messages, system messages), ``threads`` (stored history, the caller's outcome and input),
``processors`` (steps, returned values, endings), ``scenarios`` (agents, calls, scenarios,
sequences) and ``swarms`` (the switches, the aimed swarms, the battery).
"""

from .messages import TOOL_STATES, entries, messages, parts, system_messages, tool_parts
from .processors import array_values, endings, processors, return_values, steps
from .scenarios import actors, agents, call_sequences, calls, scenarios
from .swarms import (
    ACTOR,
    ALL_LOOPS,
    ASSETS,
    CALLER,
    CARRIER,
    DEFAULT,
    END_KINDS,
    FOCUS_CLAUSES,
    FRESH_THREAD,
    MARKER,
    MOVES,
    NOW,
    POLICY,
    RAW_I12,
    REMOVAL,
    REREAD,
    RESOURCE,
    RETURN_KINDS,
    STEP_KINDS,
    SYSTEM,
    TAME,
    THREAD,
    TOOLS,
    Swarm,
    battery,
    campaign_swarms,
    focus_clause,
    focused_swarms,
    mixed_swarms,
    swarms,
)
from .threads import OUTCOME_STATES, PENDING_STATES, Fixture, caller_inputs, fixtures, folded, histories, outcome_for, user
from .values import data_values, js_values, notes, plain_values, texts

__all__ = [
    "ACTOR",
    "ALL_LOOPS",
    "ASSETS",
    "CALLER",
    "CARRIER",
    "DEFAULT",
    "END_KINDS",
    "FOCUS_CLAUSES",
    "FRESH_THREAD",
    "MARKER",
    "MOVES",
    "NOW",
    "OUTCOME_STATES",
    "PENDING_STATES",
    "POLICY",
    "RAW_I12",
    "REMOVAL",
    "REREAD",
    "RESOURCE",
    "RETURN_KINDS",
    "STEP_KINDS",
    "SYSTEM",
    "TAME",
    "THREAD",
    "TOOLS",
    "TOOL_STATES",
    "Fixture",
    "Swarm",
    "actors",
    "agents",
    "array_values",
    "battery",
    "call_sequences",
    "caller_inputs",
    "calls",
    "campaign_swarms",
    "data_values",
    "endings",
    "entries",
    "fixtures",
    "focus_clause",
    "focused_swarms",
    "folded",
    "histories",
    "js_values",
    "messages",
    "mixed_swarms",
    "notes",
    "outcome_for",
    "parts",
    "plain_values",
    "processors",
    "return_values",
    "scenarios",
    "steps",
    "swarms",
    "system_messages",
    "texts",
    "tool_parts",
    "user",
]
