"""M7-M8 the raw processor runner: the application processors handed straight to Mastra.

Raw mode runs the agent's processors as Mastra's workflow path runs any input processors
(mastra-facts §2.2). So that raw mode can show what the guard changes (I12), the agent's RBAC
and input policies run there too, as the naive plain processors one would hand to Mastra:
``breakwater-rbac`` first (abort on denial) and ``breakwater-policy-engine`` last, which reads
the text of the list's *input* messages, aborts on a deny and throws when an evaluator fails.
Both return nothing, so the messages each processor receives are exactly M7's.
"""

from __future__ import annotations

from typing import Any, Union

from attrs import frozen

from guardspec.model.agent import Actor, Agent
from guardspec.model.messages import Message, Role, Source, SystemMessage
from guardspec.model.processors import MISSING

from . import messagelist as ml
from .invocation import (
    Aborts,
    RetArray,
    RetObject,
    RetOtherList,
    RetPrimitive,
    RetSameList,
    Returns,
    Throws,
    TripWires,
    invoke,
)
from .messagelist import MastraError, MessageList
from .policies import PolicyDenied, PolicyFailed, evaluate, rbac_denial
from .reading import NotClassified, message_texts


@frozen
class Tripwire:
    reason: str
    processor_id: str


@frozen
class Failure:
    """The processor workflow failed (PROCESSOR_WORKFLOW_FAILED) with ``message``."""

    message: str


Stop = Union[Tripwire, Failure, None]


@frozen
class RawChain:
    list: MessageList
    stop: Stop


def apply_messages(lst: MessageList, result: tuple[Any, ...], received: tuple[Message, ...], check: dict[str, Source]) -> MessageList:
    """M8 ``applyMessagesToMessageList``: received ids missing from the result are removed;
    each returned object not already on the list is removed by id and re-added (system role
    → ``addSystem`` of its text; otherwise ``add`` under the source the checker names, else
    ``input``, merge off)."""
    returned_ids = {e.id for e in result if isinstance(e, Message)}
    lst = ml.remove_by_ids(lst, [m.id for m in received if m.id not in returned_ids])
    for e in result:
        if isinstance(e, Message):
            if lst.holds_object(e):
                continue
            lst = ml.remove_by_ids(lst, [e.id])
            if e.role is Role.SYSTEM:
                text = ml.system_text(e.parts) if e.parts is not None else None
                if not isinstance(text, str):
                    raise MastraError("INVALID_SYSTEM_MESSAGE_FORMAT")
                lst = ml.add_system(lst, SystemMessage(text, ref=e.ref))
            else:
                lst = ml.add_one(lst, e, check.get(e.id, Source.INPUT), merge=False)
        elif isinstance(e, SystemMessage):
            text = ml.system_text(e.content)
            if not isinstance(text, str):
                raise MastraError("INVALID_SYSTEM_MESSAGE_FORMAT")
            lst = ml.add_system(lst, SystemMessage(text, e.provider_options, e.experimental_provider_metadata, ref=e.ref))
        else:
            raise MastraError("TypeError", "cannot read properties of a returned entry")
    return lst


def apply_raw(lst: MessageList, value: Any, received: tuple[Message, ...], check: dict[str, Source]) -> MessageList:
    """M8: a returned value applied by the workflow step."""
    if isinstance(value, RetSameList):
        return lst
    if isinstance(value, RetOtherList):
        raise MastraError("PROCESSOR_RETURNED_EXTERNAL_MESSAGE_LIST")
    if isinstance(value, RetArray):
        return apply_messages(lst, value.items, received, check)
    if isinstance(value, RetObject):
        if value.messages is MISSING or value.system_messages is MISSING:
            return lst
        if not isinstance(value.messages, tuple):
            raise MastraError("TypeError", "messages is not iterable")
        lst = apply_messages(lst, value.messages, received, check)
        sysm = value.system_messages
        if not isinstance(sysm, tuple):
            raise MastraError("TypeError", "systemMessages is not iterable")
        return ml.replace_all_system(lst, sysm)
    assert isinstance(value, RetPrimitive)
    return lst


def _next_received(value: Any, lst: MessageList, received: tuple[Message, ...], system: tuple[SystemMessage, ...]) -> tuple[tuple[Message, ...], tuple[SystemMessage, ...]]:
    """M7: a later step receives the list's messages when its predecessor returned the list,
    the predecessor's array when it returned one, otherwise what its predecessor received."""
    if isinstance(value, RetSameList):
        return lst.all(), lst.untagged
    if isinstance(value, RetArray):
        return tuple(e for e in value.items if isinstance(e, Message)), system
    if isinstance(value, RetObject) and isinstance(value.messages, tuple) and isinstance(value.system_messages, tuple):
        return (
            tuple(e for e in value.messages if isinstance(e, Message)),
            tuple(e for e in value.system_messages if isinstance(e, SystemMessage)),
        )
    return received, system


def raw_policy_text(lst: MessageList) -> str:
    """The naive raw policy processor reads the text of the list's input messages."""
    texts: list[str] = []
    for m in lst.view(Source.INPUT):
        try:
            texts.extend(message_texts(m))
        except NotClassified:
            continue
    return "\n".join(texts)


def run_raw_chain(
    agent: Agent,
    actor: Actor | None,
    lst: MessageList,
    received: tuple[Message, ...],
    system: tuple[SystemMessage, ...],
) -> RawChain:
    """M8 Raw processor runner: RBAC, the application processors in order, the policy engine;
    an abort or a TripWire stops the chain with a tripwire, any other throw fails it. A
    TripWire thrown without a processorId is reported under the workflow id
    ``<agent>-input-processor`` (mastra-facts §2.3)."""
    denial = rbac_denial(agent, actor)
    if denial is not None:
        return RawChain(lst, Tripwire(denial, "breakwater-rbac"))
    for proc in agent.processors:
        check = ml.checker(lst)
        inv = invoke(proc, lst, received, system)
        lst = inv.list
        end = inv.ending
        if isinstance(end, Aborts):
            return RawChain(lst, Tripwire(end.reason, proc.id))
        if isinstance(end, TripWires):
            return RawChain(lst, Tripwire(end.reason, f"{agent.id}-input-processor"))
        if isinstance(end, Throws):
            return RawChain(lst, Failure(end.message))
        assert isinstance(end, Returns)
        try:
            lst = apply_raw(lst, end.value, received, check)
        except MastraError as e:
            return RawChain(lst, Failure(str(e)))
        received, system = _next_received(end.value, lst, received, system)
    if agent.policies:
        verdict = evaluate(agent.policies, raw_policy_text(lst))
        if isinstance(verdict, PolicyDenied):
            return RawChain(lst, Tripwire(f"policy '{verdict.policy}' denied the input", "breakwater-policy-engine"))
        if isinstance(verdict, PolicyFailed):
            return RawChain(lst, Failure("policy evaluation failed"))
    return RawChain(lst, None)
