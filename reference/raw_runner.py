"""M7-M8 the raw processor runner: the application processors handed straight to Mastra.

Raw mode runs the agent's processors as Mastra's workflow path runs any input processors. So that raw mode can show what the guard changes (I12), the agent's RBAC
and input policies run there too, as the naive plain processors one would hand to Mastra:
``breakwater-rbac`` first (abort on denial) and ``breakwater-policy-engine`` last, which reads
the text of the list's *input* messages, aborts on a deny and throws when an evaluator fails.
Both return nothing, so the messages each processor receives are exactly M7's.
"""

from __future__ import annotations

from typing import Any, Union

from attrs import frozen

from guardspec.model.agent import Actor, Agent
from guardspec.model.jsvalues import falsy, join_texts, nullish_read, read, truthy
from guardspec.model.messages import Message, Role, Source, SystemMessage, TextPart
from guardspec.model.processors import MISSING, PROCESS_INPUT, Processor
from guardspec.model.values import UNDEFINED

from . import messagelist as ml
from .invocation import (
    Aborts,
    LiveSystem,
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
    """M8 Raw processor runner: an abort or a thrown TripWire stops the chain with a tripwire,
    its reason and the processor id it names (M8.7)."""

    reason: str
    processor_id: str


@frozen
class Failure:
    """M8 Raw processor runner: any other throw fails the processor workflow with ``message``."""

    message: str


Stop = Union[Tripwire, Failure, None]  # noqa: UP007 (a typing.Union alias, as the model's aliases are)


@frozen
class RawChain:
    """M8 Raw processor runner: the list the chain left, and how it stopped (None: it ran to
    the end)."""

    list: MessageList
    stop: Stop


def _entry_id(e: Any) -> Any:
    """M8.5 Entries that are not messages: reading ``message.id`` of a null or undefined
    element throws a TypeError; any other value that is no message has no id."""
    if e is None or e is UNDEFINED:
        raise MastraError("TypeError", "Cannot read properties of null (reading 'id')")
    return e.id if isinstance(e, Message) else UNDEFINED


def _runner_system_text(e: Any) -> str:
    """M8.4 System-role entries in the raw runner: the text added is
    ``content.content ?? content.parts?.map(text or '').join("\n") ?? ''``: an AI SDK system
    message has neither property and gives ""; a stored-format one gives its parts' texts
    joined by newlines; an entry without content throws, and so does a content getter that
    throws (``content`` is read through its getter, M14.1).

    Evidence: M8.4
    """
    if isinstance(e, Message):
        parts = e.parts
        if parts is None:
            raise MastraError("TypeError", "Cannot read properties of undefined (reading 'content')")
        return join_texts((p.text if isinstance(p, TextPart) else "" for p in ml.visible_parts(parts) or ()), "\n")
    content = read(e.content)
    if content is UNDEFINED or content is None:
        raise MastraError("TypeError", "Cannot read properties of undefined (reading 'content')")
    return ""


def apply_messages(lst: MessageList, result: tuple[Any, ...], received: tuple[Message, ...], check: dict[str, Source]) -> MessageList:
    """M8.3 Applying an array: received ids missing from the array are removed; then each
    returned object the list does not hold as that very object under its id (a snapshot taken
    after the removals) is removed by id and re-added under the source the checker names, else
    ``input``, merge off (a system role through ``addSystem``, M8.4; what is no message, M8.5).
    Not atomic: a throw keeps what was done before it (the error's ``partial``)."""
    deleted: list[Any] = []
    for m in received:
        # ``idsBeforeProcessing = messages.map(m => m.id)``: a string among the received
        # messages has no id, and a returned string has none either
        mid = m.id if isinstance(m, Message) else UNDEFINED
        found = False
        for e in result:
            if _entry_id(e) == mid:
                found = True
                break
        if not found:
            deleted.append(mid)
    deleted = [i for i in deleted if i is not UNDEFINED]
    if deleted:
        lst = ml.remove_by_ids(lst, deleted)
    current = {s.message.id: s.message.ref for s in lst.slots}
    try:
        for e in result:
            eid = _entry_id(e)
            if isinstance(e, Message) and current.get(eid) == e.ref:
                continue
            if isinstance(eid, str):
                lst = ml.remove_by_ids(lst, [eid])
            if isinstance(e, SystemMessage) or (isinstance(e, Message) and e.role is Role.SYSTEM):
                lst = ml.add_system(lst, _runner_system_text(e))
            elif isinstance(e, Message):
                lst = ml.add_one(lst, e, check.get(e.id, Source.INPUT), merge=False)
            elif not falsy(e):
                # ``messageList.add(value, 'input')`` of what is no message: a string is a new
                # user message, an array adds its elements, anything else throws in ``addOne``;
                # a falsy value adds nothing (M8.5)
                lst = ml.add(lst, e, Source.INPUT, merge=False)
    except MastraError as err:
        err.partial = err.partial or lst
        raise
    return lst


def apply_raw(lst: MessageList, value: Any, received: tuple[Message, ...], check: dict[str, Source]) -> MessageList:
    """M8.2 Classes of return value: the list changes nothing more, a different list fails,
    an array is applied (M8.3), an object with both keys has its messages applied and its
    ``systemMessages`` replace the untagged bucket (M8.6), one lacking either changes nothing,
    a falsy value passes the messages through, a truthy primitive throws."""
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
        return _replace_untagged(lst, value.system_messages)
    assert isinstance(value, RetPrimitive)
    # ``result && "messages" in result``: a truthy primitive reaches the ``in`` operator, which
    # throws; a falsy one passes the received messages through.
    if truthy(value.value):
        raise MastraError("TypeError", "Cannot use 'in' operator to search for 'messages'")
    return lst


def _replace_untagged(lst: MessageList, sysm: Any) -> MessageList:
    """M8.6 Replacing the untagged bucket: ``replaceAllSystemMessages`` empties the bucket and
    then iterates its argument: null or another non-iterable throws after the bucket was
    emptied, a null or undefined element throws with the entries before it kept, a string leaves
    the bucket empty, and the list's own untagged array handed back replaces nothing."""
    if isinstance(sysm, LiveSystem):
        # the list's own untagged array, additions included
        sysm = lst.untagged
    if isinstance(sysm, str):
        # a string iterates characters, none of which is a system message
        return ml.replace_all_system(lst, ())
    if not isinstance(sysm, tuple):
        err = MastraError("TypeError", "systemMessages is not iterable")
        err.partial = ml.replace_all_system(lst, ())
        raise err
    replaced, at = ml.replace_reading_roles(lst, sysm)
    if at is not None:
        err = nullish_read(sysm[at], "role")
        err.partial = replaced
        raise err
    return replaced


def _next_received(value: Any, lst: MessageList, inv: Any) -> tuple[tuple[Any, ...], tuple[SystemMessage, ...], bool, bool]:
    """M7.6 What later processors receive: the list's own arrays when the predecessor returned
    the list; the very array it returned (a string in it stays a string, so each later
    processor returning it adds it again) and its ``systemMessages`` after an array; the
    returned ``messages`` and the list's new untagged array after an object; otherwise the
    predecessor's own arrays."""
    if isinstance(value, RetSameList):
        return lst.all(), lst.untagged, True, True
    if isinstance(value, RetArray):
        return value.items, inv.received_system, False, inv.system_live
    if isinstance(value, RetObject) and value.messages is not MISSING and value.system_messages is not MISSING:
        msgs = value.messages if isinstance(value.messages, tuple) else ()
        return msgs, lst.untagged, False, True
    return tuple(inv.received), inv.received_system, inv.messages_live, inv.system_live


def raw_policy_text(lst: MessageList) -> str:
    """M8 Raw processor runner: the naive policy processor reads the text of the list's input
    messages, one line each."""
    texts: list[str] = []
    for m in lst.view(Source.INPUT):
        try:
            texts.extend(message_texts(m))
        except NotClassified:
            continue
    return "\n".join(texts)


def _input_processors(agent: Agent) -> list[Processor]:
    """M8.1 Only processInput runs: Mastra's input runner passes over a processor without
    ``processInput``; its other hooks do nothing here.

    Evidence: M8.1
    """
    return [p for p in agent.processors if PROCESS_INPUT in p.hooks]


def _tripwire(agent: Agent, proc: Processor, end: Aborts | TripWires) -> Tripwire:
    """M8.7 Who a tripwire names: an abort names the processor; a TripWire thrown without a
    processor id is reported under the workflow id ``<agent id>-input-processor``."""
    if isinstance(end, Aborts):
        return Tripwire(end.reason, proc.id)
    return Tripwire(end.reason, f"{agent.id}-input-processor")


def run_raw_chain(
    agent: Agent,
    actor: Actor | None,
    lst: MessageList,
    received: tuple[Message, ...],
    system: tuple[SystemMessage, ...],
) -> RawChain:
    """M8 Raw processor runner: RBAC, the application processors in order (M8.1), then the
    naive policy processor; an abort or a TripWire stops the chain with a tripwire (M8.7), any
    other throw fails it."""
    denial = rbac_denial(agent, actor)
    if denial is not None:
        return RawChain(lst, Tripwire(denial, "breakwater-rbac"))
    # With memory the memory processors return the list, so the first application processor
    # gets the list's own messages array; without memory it gets ``get.input.db()`` (a copy).
    # The untagged system array is always the list's own (M7.5).
    messages_live, system_live = agent.memory is not None, True
    for proc in _input_processors(agent):
        if messages_live:
            received = lst.all()
        if system_live:
            system = lst.untagged
        check = ml.checker(lst)
        inv = invoke(proc, lst, received, system, messages_live, system_live)
        lst = inv.list
        end = inv.ending
        if isinstance(end, (Aborts, TripWires)):
            return RawChain(lst, _tripwire(agent, proc, end))
        if isinstance(end, Throws):
            return RawChain(lst, Failure(end.message))
        assert isinstance(end, Returns)
        try:
            lst = apply_raw(lst, end.value, received, check)
        except MastraError as e:
            return RawChain(e.partial if e.partial is not None else lst, Failure(str(e)))
        received, system, messages_live, system_live = _next_received(end.value, lst, inv)
    if agent.policies:
        verdict = evaluate(agent.policies, raw_policy_text(lst))
        if isinstance(verdict, PolicyDenied):
            return RawChain(lst, Tripwire(f"policy '{verdict.policy}' denied the input", "breakwater-policy-engine"))
        if isinstance(verdict, PolicyFailed):
            return RawChain(lst, Failure("policy evaluation failed"))
    return RawChain(lst, None)
