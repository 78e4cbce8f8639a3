"""The stored thread and the caller's input: the history with its pending client call, the
caller's outcome for it (M3), and what the caller passes.
"""

from __future__ import annotations

from typing import Any

from attrs import evolve, frozen
from hypothesis import strategies as st

from guardspec.model.messages import FilePart, Message, Role, Source, TextPart, ToolPart, ToolState
from guardspec.model.values import UNDEFINED, obj

from .messages import parts, tool_parts
from .swarms import ASSET_URLS, DEFAULT, NOW, RESOURCE, THREAD, Swarm
from .values import notes, texts


@frozen
class Fixture:
    """The stored history and the caller's outcome for the pending call, when any."""

    stored: tuple[Message, ...]
    pending: ToolPart | None  # the stored pending client call (on a0)
    outcome: ToolPart | None  # the caller's outcome for it
    # the ids of the messages the call puts on the list (its input, and the history when it is
    # loaded), known when the call is drawn before the processors (``Swarm.reaching``)
    present: tuple[str, ...] = ()


PENDING_STATES = (ToolState.CALL, ToolState.CALL, ToolState.APPROVAL_REQUESTED, ToolState.PARTIAL_CALL)
OUTCOME_STATES = (ToolState.RESULT, ToolState.RESULT, ToolState.OUTPUT_ERROR, ToolState.OUTPUT_DENIED, ToolState.APPROVAL_RESPONDED)


def _stored(m: Message) -> Message:
    return evolve(m, thread_id=THREAD, resource_id=RESOURCE)


@st.composite
def histories(draw, swarm: Swarm = DEFAULT) -> tuple[Message, ...]:
    """Stored history: a user message, an assistant message with a pending client call (tc1),
    sometimes a completed call with or without a cached output, sometimes a later user turn."""
    tool = draw(st.sampled_from(["lookup", "lookup", "plain", "nullmap"] + (["broken", "broken"] if swarm.broken_mapping else [])))
    pending = ToolPart("tc1", tool, draw(st.sampled_from(PENDING_STATES)), args=obj(q=draw(notes)))
    out = [user("u0", draw(notes), created_at=1), Message("a0", Role.ASSISTANT, (TextPart(draw(notes)), pending), created_at=2)]
    if swarm.carrier_history_result and draw(st.booleans()):
        earlier = evolve(draw(tool_parts(swarm, "tc0", ToolState.RESULT)), tool_name="lookup", provider_metadata=UNDEFINED)
        out[1] = evolve(out[1], parts=(out[1].parts[0], earlier, pending))
    if "readd_result" in swarm.steps or draw(st.booleans()):
        done = draw(tool_parts(swarm, "tc9", ToolState.RESULT))
        if "readd_result" in swarm.steps and draw(st.booleans()):  # a result M11 maps once it is input
            done = evolve(done, tool_name="lookup", provider_metadata=UNDEFINED)
        out.append(Message("a9", Role.ASSISTANT, (done,), created_at=3))
    if swarm.asset_urls and draw(st.booleans()):  # a remembered file naming a URL: the gate reads history too (G16)
        out[0] = evolve(out[0], parts=out[0].parts + (FilePart(draw(st.sampled_from(ASSET_URLS)), "text/plain"),))
    out = [_stored(m) for m in out]
    if draw(st.booleans()):  # saved by an earlier call: parts carry M2 stamps
        out = [evolve(m, parts=tuple(evolve(p, created_at=500) for p in m.parts)) for m in out]
    return tuple(out)


def user(id: str, text: str, created_at: int = 0) -> Message:
    return Message(id=id, role=Role.USER, parts=(TextPart(text),), created_at=created_at)


@st.composite
def outcome_for(draw, pending: ToolPart, swarm: Swarm = DEFAULT) -> ToolPart:
    """The caller's client tool outcome for a stored pending call."""
    state = draw(st.sampled_from(OUTCOME_STATES))
    p = draw(tool_parts(swarm, pending.tool_call_id, state))
    return evolve(p, tool_name=pending.tool_name, args=pending.args, provider_metadata=UNDEFINED)


def folded(stored_a0: Message, outcome: ToolPart) -> Message:
    """M3: the stored message with the caller's advancing outcome folded onto it, as the
    substrate folds it (the caller's copy added as input, then the stored copy as memory).
    What a processor must re-add to move it unchanged."""
    from guardspec.reference import messagelist as ml

    lst = ml.MessageList(thread_id=stored_a0.thread_id, resource_id=stored_a0.resource_id, clock=NOW)
    lst = ml.add(lst, Message("a0", Role.ASSISTANT, (outcome,), created_at=2), Source.INPUT)
    lst = ml.add_one(lst, stored_a0, Source.MEMORY)
    return evolve(lst.slot_of("a0").message, ref=0)


@st.composite
def caller_inputs(draw, swarm: Swarm, fixture: Fixture, call_no: int = 0) -> tuple:
    """What the caller passes: user messages (ids ``c<k>``), bare strings, the remembered
    assistant message with the client tool outcome, rarely a system-role message or a list
    nested too deep (G1) or two outcomes for one call (G4)."""
    out: list[Any] = []
    if fixture.outcome is not None:
        a0 = Message("a0", Role.ASSISTANT, (fixture.outcome,), created_at=2)
        if swarm.weird_values and not swarm.reaching and draw(st.integers(0, 9)) == 0:  # G4
            a0 = evolve(a0, parts=(fixture.outcome, fixture.outcome))
        out.append(a0)
    n = draw(st.integers(0 if out else 1, 2))
    for k in range(n):
        kind = draw(st.integers(0, 9))
        if (swarm.asset_urls or swarm.option_refusals > 1) and draw(st.booleans()):
            # a message of parts: file and image data naming URLs (the input-assets gate), and in
            # the campaigns' Breakwater swarms their file data and provider options (G12.5,
            # G12.6; a message of one text part, the other kinds, carries neither)
            kind = 1
        if kind == 0:
            out.append(draw(texts(swarm)))
        elif kind == 1:
            dense = swarm.option_refusals > 1  # the campaigns' Breakwater swarms: two or three parts
            out.append(
                Message(
                    f"c{call_no}{k}",
                    Role.USER,
                    tuple(draw(st.lists(parts(swarm), min_size=1 + dense, max_size=2 + dense))),
                    created_at=10 + k,
                )
            )
        else:
            out.append(user(f"c{call_no}{k}", draw(texts(swarm)), created_at=10 + k))
        if swarm.message_metadata and isinstance(out[-1], Message) and draw(st.booleans()):
            out[-1] = evolve(out[-1], metadata=obj(note=draw(notes)))  # battery only (M12.5)
    if swarm.weird_values:
        # ODD: the rare caller inputs more often, unless its calls are to get past them (``reaching``)
        odd = draw(st.integers(0, 9 if swarm.odd_system and not swarm.reaching else 29))
        if odd == 0:
            out.append(Message("s1", Role.SYSTEM, (TextPart("note-00"),), created_at=12))
        elif odd == 1:
            out.append(((user("c9", "note-01", created_at=13),),))
        elif odd == 2:
            out = [tuple(out)]
    return tuple(out)


@st.composite
def fixtures(draw, swarm: Swarm) -> Fixture:
    if not (swarm.history or swarm.carrier):
        return Fixture((), None, None)
    stored = draw(histories(swarm))
    pending = next(p for p in stored[1].parts if isinstance(p, ToolPart) and p.tool_call_id == "tc1")
    if swarm.carrier and pending.state is ToolState.PARTIAL_CALL:
        pending = evolve(pending, state=ToolState.CALL)
        stored = (stored[0], evolve(stored[1], parts=stored[1].parts[:-1] + (pending,))) + stored[2:]
    outcome = None
    if swarm.carrier or (swarm.client_outcomes and pending.state is not ToolState.PARTIAL_CALL and draw(st.integers(0, 3)) > 0):
        outcome = draw(outcome_for(pending, swarm))
    return Fixture(stored, pending, outcome)
