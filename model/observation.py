"""What an implementation can be compared on after one call (O1-O8)."""

from __future__ import annotations

from typing import Any, Union

from attrs import frozen

from .agent import Actor
from .messages import Message, Source, SystemMessage


@frozen
class Answered:
    """O1: the call was answered: the model was called and its reply is the result."""


@frozen
class Refused:
    """O1: an input refusal (G13), with its reason and the processor it names (G6.1). ``thrown`` is the error text when the refusal surfaces as a throw
    (RBAC on generate/stream, G2.1); otherwise the caller sees a tripwire."""

    reason: str
    processor_id: str
    thrown: str | None = None


@frozen
class Failed:
    """O1: the call failed with ``error`` (a TypeError of G0/G1, or a raw runner failure, M9)."""

    error: str


Outcome = Union[Answered, Refused, Failed]  # noqa: UP007  (a typing.Union alias kept as it is: ``X | Y`` is another runtime object)


@frozen
class AuditEvent:
    """O2 audit: one audit event: action, decision, reason, actor (or None), resource
    ``agent:<id>`` and detail.

    As Breakwater records them (G15, G12.9; Evidence: G15): ``reason`` None is an event
    without a reason (allowed decisions); ``detail`` None is an event without detail (RBAC
    events, and the gates' unclassified-content errors); detail values are strings or tuples of
    strings (a policy-allowed event's ``evaluated``)."""

    action: str
    decision: str
    reason: str | None
    actor: Actor | None
    resource: str
    detail: tuple[tuple[str, Any], ...] | None = None


@frozen
class Result:
    """O6: the generate/stream result (M13, G14)."""

    text: str
    finish_reason: str
    messages: tuple[str, ...]
    remembered: tuple[str, ...]


@frozen
class ListMessage:
    """O7: one message of the final list with its source sets (M1)."""

    message: Message
    sources: tuple[Source, ...]


@frozen
class ListView:
    """O7: the final message list: messages in order with their sources, and system buckets."""

    messages: tuple[ListMessage, ...] = ()
    untagged: tuple[SystemMessage, ...] = ()
    tagged: tuple[tuple[str, tuple[SystemMessage, ...]], ...] = ()


PromptEntry = Union[SystemMessage, Message]  # noqa: UP007  (a typing.Union alias kept as it is: ``X | Y`` is another runtime object)


@frozen
class Observation:
    """O1-O8. ``prompts``: one tuple of entries per model step, cached tool outputs substituted.
    ``read``: the text the input policies read (guarded mode; None when they did not run).
    ``stored`` and ``title`` are the bound thread's after the call (None: no memory binding).
    ``result`` is None on the durable loop and when the call threw."""

    outcome: Outcome
    audit: tuple[AuditEvent, ...] = ()
    prompts: tuple[tuple[PromptEntry, ...], ...] = ()
    stored: tuple[Message, ...] | None = None
    title: str | None = None
    result: Result | None = None
    list: ListView | None = None
    read: str | None = None
