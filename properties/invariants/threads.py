"""I1, I2 and the extras on stored threads: what a refused or failed call leaves in memory, and
that no title is generated.
"""

from __future__ import annotations

from attrs import evolve

from guardspec.model.agent import ThreadStore
from guardspec.model.messages import FilePart, ImagePart, Message
from guardspec.model.observation import Failed, Observation, Refused
from guardspec.model.scenario import Scenario

from .outcome import after_chain_failure
from .scenario import _reasons


def refused_call_leaves_threads_intact(scenario: Scenario, obs: Observation, before: ThreadStore, after: ThreadStore) -> list[str]:
    """I1 (S8, S9, G13, G14): a refused call leaves every stored thread exactly as it was (a
    thread the call created at preparation, M7, stays empty and untitled)."""
    if not isinstance(obs.outcome, Refused):
        return []
    out = []
    for t in after.threads:
        old = before.get(t.id)
        if old is None:
            if t.messages or t.title:
                out.append(f"I1: refused call {_reasons(obs)} filled new thread {t.id!r}: {[m.id for m in t.messages]} title={t.title!r}")
        elif old.messages != t.messages:
            out.append(
                f"I1: refused call {_reasons(obs)} changed thread {t.id!r}: {[m.id for m in old.messages]} -> {[m.id for m in t.messages]}"
            )
    for t in before.threads:
        if after.get(t.id) is None:
            out.append(f"I1: refused call deleted thread {t.id!r}")
    return out


def failed_call_leaves_threads_intact(scenario: Scenario, obs: Observation, before: ThreadStore, after: ThreadStore) -> list[str]:
    """Extra (G0, G1, M9): a call that fails (TypeError or a rejected generate/stream) saves
    nothing, except when the failure comes after the processors, where the turn is saved (the
    asset download, M12.10; the result-text read-back, M13.6). Threads are compared as storage
    holds them (an image part is a file part, M2.2: its own derivation of the storage format, not
    the reference's)."""
    if not isinstance(obs.outcome, Failed) or after_chain_failure(obs.outcome.error):
        return []

    def stored(messages: tuple) -> tuple:
        return tuple(_as_file_parts(m) for m in messages)

    return [
        f"failed call {_reasons(obs)} changed thread {t.id!r}"
        for t in after.threads
        if stored((before.get(t.id) or t).messages) != stored(t.messages)
    ]


def _as_file_parts(m: Message) -> Message:
    """M2.2: storage holds no ``image`` part; an image part is kept as a file part with the same
    data, media type and stamp."""
    if not m.parts or not any(isinstance(p, ImagePart) for p in m.parts):
        return m
    return evolve(m, parts=tuple(FilePart(p.data, p.media_type, p.created_at) if isinstance(p, ImagePart) else p for p in m.parts))


def refused_call_generates_no_title(scenario: Scenario, obs: Observation, before: ThreadStore, after: ThreadStore) -> list[str]:
    """I2 (S9, G14): no thread title is generated from a refused call's content."""
    if not isinstance(obs.outcome, Refused):
        return []
    out = []
    for t in after.threads:
        old = before.get(t.id)
        if t.title != (old.title if old else ""):
            out.append(f"I2: refused call {_reasons(obs)} titled thread {t.id!r}: {t.title!r}")
    return out


def guarded_agent_generates_no_title(scenario: Scenario, obs: Observation, before: ThreadStore, after: ThreadStore) -> list[str]:
    """Extra (G0, G14): the guarded agent never generates titles, on any outcome."""
    return [
        f"G14: guarded call titled thread {t.id!r}: {t.title!r}"
        for t in after.threads
        if t.title != (b.title if (b := before.get(t.id)) else "")
    ]
