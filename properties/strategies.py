"""Hypothesis strategies for the model's values, with swarm switches (SPEC §1, processor language).

Scenarios are small: at most a few stored messages, up to four caller messages, up to three
processors with up to two steps each. Texts are fixed-width tokens (``note-07``) and the marker
``FORBIDDEN`` that the deny-patterns policy ``no-marker`` denies, so refusals are common and a
text found in the policies' read is rarely there by accident.

Swarm testing (Groce et al.): a ``Swarm`` switches whole features off, so that rare
combinations (say, a processor that moves the caller's outcome and then aborts) come up often in
the swarms that keep them. ``swarms()`` draws one per example; pass a fixed ``Swarm`` to aim.
"""

from __future__ import annotations

import math
from typing import Any

from attrs import evolve, field, frozen
from hypothesis import strategies as st

from guardspec.model.agent import (
    Actor,
    Agent,
    Allow,
    ClientTool,
    DenyPatterns,
    Mapping,
    Memory,
    MemoryBinding,
    NoDecision,
    Thread,
    ThreadStore,
    ThrowingEvaluator,
)
from guardspec.model.messages import (
    FilePart,
    ImagePart,
    Message,
    ReasoningPart,
    Role,
    Source,
    SystemMessage,
    TextPart,
    ToolPart,
    ToolState,
)
from guardspec.model.processors import (
    MISSING,
    Abort,
    AbortFinallyThrow,
    AbortThenThrow,
    AddMessages,
    AddSystem,
    ArrayOf,
    ClearInput,
    EditMessage,
    EditSystem,
    EditText,
    ObjectOf,
    OtherList,
    Primitive,
    Processor,
    RemoveByIds,
    ReplaceAllSystem,
    Return,
    SameList,
    SetId,
    SetRole,
    Throw,
    ThrowTripWire,
)
from guardspec.model.scenario import Call, Loop, Scenario
from guardspec.model.values import UNDEFINED, Accessor, BigInt, JsFunction, JsObject, JsSymbol, obj

MARKER = "FORBIDDEN"
THREAD, FRESH_THREAD, RESOURCE = "t1", "t2", "r1"
NOW = 1000
POLICY = DenyPatterns("no-marker", (MARKER,))
ACTOR = Actor("alice", "user", "human")
TOOLS = (
    ClientTool("lookup", Mapping("text", "mapped:")),
    ClientTool("plain"),
    ClientTool("nullmap", Mapping("null")),
    ClientTool("broken", Mapping("throws")),
)

STEP_KINDS = frozenset(
    {"add", "remove", "add_system", "replace_system", "clear_input", "edit_system", "edit_message", "move_carrier", "move_text", "move_history"}
)
END_KINDS = frozenset({"return", "abort", "tripwire", "throw", "abort_then_throw", "abort_finally_throw"})
RETURN_KINDS = frozenset({"array", "object", "same", "other", "primitive"})
ALL_LOOPS = (Loop.GENERATE, Loop.STREAM, Loop.DURABLE)


@frozen
class Swarm:
    """Which features a scenario may use. ``None`` for ``memory`` means either."""

    steps: frozenset = STEP_KINDS
    endings: frozenset = END_KINDS
    returns: frozenset = RETURN_KINDS
    loops: tuple = ALL_LOOPS
    memory: bool | None = None
    history: bool = True
    client_outcomes: bool = True
    rbac_denials: bool = True
    policy_errors: bool = True
    weird_values: bool = True
    broken_mapping: bool = True
    marker_rate: float = 0.3
    context: bool = False  # the call's context messages (read whole by the guard, beyond G10); on in CALLER
    titles: bool = False  # memory with generateTitle: a TypeError under the guard (G0)
    max_processors: int = 3
    max_calls: int = 1
    min_processors: int = 0
    min_steps: int = 0
    identity_rate: int = 6  # one processor in this many is an identity processor (G7)
    carrier: bool = False  # always a remembered pending call and the caller's outcome for it (M3)
    return_weight: int = 5  # how much likelier a processor returns than ends otherwise


DEFAULT = Swarm()


def _subset(kinds: frozenset) -> st.SearchStrategy[frozenset]:
    return st.lists(st.sampled_from(sorted(kinds)), min_size=1, max_size=len(kinds), unique=True).map(frozenset)


@st.composite
def swarms(draw, base: Swarm = DEFAULT) -> Swarm:
    """A random swarm inside ``base``: each feature of ``base`` kept or switched off."""
    return Swarm(
        steps=draw(_subset(base.steps)) if base.steps else frozenset(),
        endings=draw(_subset(base.endings)),
        returns=draw(_subset(base.returns)),
        loops=base.loops,
        memory=base.memory if base.memory is not None else draw(st.sampled_from([None, True, True, False])),
        history=base.history and draw(st.booleans() | st.just(True)),
        client_outcomes=base.client_outcomes and draw(st.integers(0, 2)) > 0,
        rbac_denials=base.rbac_denials and draw(st.integers(0, 2)) > 0,
        policy_errors=base.policy_errors and draw(st.integers(0, 2)) > 0,
        weird_values=base.weird_values and draw(st.integers(0, 2)) == 0,
        broken_mapping=base.broken_mapping and draw(st.booleans()),
        marker_rate=draw(st.sampled_from([0.0, 0.15, base.marker_rate, 0.6])),
        context=base.context,
        titles=base.titles,
        max_processors=base.max_processors,
        max_calls=base.max_calls,
        carrier=base.carrier,
        return_weight=base.return_weight,
        identity_rate=base.identity_rate,
        min_processors=base.min_processors,
        min_steps=base.min_steps,
    )


# -- texts and JS values -------------------------------------------------------------------------

notes = st.integers(0, 39).map(lambda k: f"note-{k:02d}")


def texts(swarm: Swarm = DEFAULT) -> st.SearchStrategy[str]:
    bad = st.integers(0, 9).map(lambda k: f"{MARKER}-{k:02d}")
    if swarm.marker_rate <= 0:
        return notes
    return st.one_of(notes, bad) if swarm.marker_rate >= 0.5 else st.one_of(notes, notes, notes, bad)


_leaves = st.one_of(
    st.just(UNDEFINED),
    st.none(),
    st.booleans(),
    st.integers(-1, 2),
    st.sampled_from([0.5, math.inf]),
    st.builds(BigInt, st.integers(0, 2)),
    notes,
    st.sampled_from([JsFunction("fn-a"), JsFunction("fn-b")]),
    st.sampled_from([JsSymbol("sym-a"), JsSymbol("sym-b")]),
)


def _objects(children: st.SearchStrategy) -> st.SearchStrategy:
    slot = st.one_of(children, st.builds(Accessor, st.sampled_from(["get-a", "get-b"]), notes, st.booleans()))
    return st.builds(
        lambda kv, proto: JsObject(tuple(dict(kv).items()), proto),
        st.lists(st.tuples(st.sampled_from(["a", "b", "text", "note"]), slot), max_size=2),
        st.sampled_from([None, None, "Klass"]),
    )


js_values = st.recursive(_leaves, lambda c: st.one_of(st.lists(c, max_size=2).map(tuple), _objects(c)), max_leaves=4)
"""Any JS value of SPEC §1: primitives, bigint, arrays, plain objects and class instances with
data or accessor properties (getters that yield or throw), functions and symbols."""

plain_values = st.one_of(notes, st.builds(lambda t: obj(answer=t), notes), st.integers(0, 3))


def data_values(swarm: Swarm) -> st.SearchStrategy:
    return st.one_of(plain_values, js_values) if swarm.weird_values else plain_values


# -- parts and messages --------------------------------------------------------------------------

TOOL_STATES = tuple(ToolState)


@st.composite
def tool_parts(draw, swarm: Swarm = DEFAULT, call_id: str | None = None, state: ToolState | None = None) -> ToolPart:
    """A tool invocation in any state, possibly carrying a cached model output."""
    tools = [t.name for t in TOOLS if swarm.broken_mapping or t.name != "broken"]
    st_ = state or draw(st.sampled_from(TOOL_STATES))
    terminal = st_ in (ToolState.RESULT, ToolState.OUTPUT_ERROR, ToolState.OUTPUT_DENIED, ToolState.APPROVAL_RESPONDED)
    cached = draw(st.booleans()) if st_ is ToolState.RESULT else False
    return ToolPart(
        tool_call_id=call_id or draw(st.sampled_from(["tc1", "tc2", "tc5"])),
        tool_name=draw(st.sampled_from(tools)),
        state=st_,
        args=obj(q=draw(notes)),
        result=obj(answer=draw(texts(swarm))) if st_ is ToolState.RESULT else UNDEFINED,
        error_text=draw(texts(swarm)) if st_ is ToolState.OUTPUT_ERROR else UNDEFINED,
        approval=obj(approved=draw(st.booleans()), reason=draw(texts(swarm))) if terminal and st_ is not ToolState.RESULT else UNDEFINED,
        provider_metadata=obj(mastra=obj(modelOutput=obj(type="text", value=draw(notes)))) if cached else UNDEFINED,
    )


@st.composite
def parts(draw, swarm: Swarm = DEFAULT):
    """A part of any kind (text with or without providerOptions, file, image, reasoning, tool)."""
    kind = draw(st.sampled_from(["text", "text", "text", "file", "image", "reasoning", "tool"]))
    if kind == "text":
        opts = draw(st.sampled_from([UNDEFINED, UNDEFINED, "opts"]))
        text = draw(texts(swarm)) if not swarm.weird_values or draw(st.integers(0, 9)) else draw(js_values)
        return TextPart(text, obj(note=draw(texts(swarm))) if opts == "opts" else UNDEFINED)
    if kind == "file":
        return FilePart(draw(st.one_of(texts(swarm), data_values(swarm))), "text/plain")
    if kind == "image":
        return ImagePart(draw(notes), "image/png")
    if kind == "reasoning":
        return ReasoningPart(draw(texts(swarm)))
    return draw(tool_parts(swarm))


@st.composite
def messages(draw, swarm: Swarm = DEFAULT, ids=("n1", "n2", "u0", "a0", "c1"), roles=(Role.USER, Role.ASSISTANT)) -> Message:
    """A message a processor writes: any id of the pool, role, parts; rarely one Mastra cannot
    add (no content, another thread's, a DB-shaped system entry, a weird metadata value)."""
    role = draw(st.sampled_from(roles))
    ps = tuple(draw(st.lists(parts(swarm), min_size=1, max_size=2)))
    m = Message(id=draw(st.sampled_from(ids)), role=role, parts=ps, created_at=draw(st.sampled_from([0, 5, 20])))
    if swarm.weird_values:
        odd = draw(st.integers(0, 14))
        if odd == 0:
            m = evolve(m, parts=None)
        elif odd == 1:
            m = evolve(m, thread_id="t-other")
        elif odd == 2:
            m = evolve(m, role=Role.SYSTEM)
        elif odd == 3:
            m = evolve(m, metadata=draw(js_values))
    return m


@st.composite
def system_messages(draw, swarm: Swarm = DEFAULT) -> SystemMessage:
    """A system message: string or text-part content, provider options holding strings (read
    under G12) or, in weird swarms, accessors, functions, class instances, undefined content."""
    kind = draw(st.integers(0, 9 if swarm.weird_values else 6))
    text = draw(texts(swarm))
    if kind <= 3:
        content: Any = text
    elif kind <= 5:
        content = (TextPart(text), TextPart(draw(notes)))
    elif kind == 6:
        content = (obj(type="text", text=text),)
    elif kind == 7:
        content = UNDEFINED
    else:
        content = (JsObject((("type", "text"), ("text", Accessor("get-t", text))), None),)
    opts = draw(st.one_of(st.just(UNDEFINED), st.builds(lambda t: obj(note=t), texts(swarm))))
    if swarm.weird_values and draw(st.integers(0, 4)) == 0:
        opts = draw(js_values)
    return SystemMessage(content, opts)


def entries(swarm: Swarm = DEFAULT) -> st.SearchStrategy:
    others = st.sampled_from([None, 3, "note-33"]) if swarm.weird_values else st.nothing()
    return st.one_of(messages(swarm), messages(swarm), system_messages(swarm), others)


# -- the stored thread and the caller's input ----------------------------------------------------


@frozen
class Fixture:
    """The stored history and the caller's outcome for the pending call, when any."""

    stored: tuple[Message, ...]
    pending: ToolPart | None  # the stored pending client call (on a0)
    outcome: ToolPart | None  # the caller's outcome for it


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
    if draw(st.booleans()):
        out.append(Message("a9", Role.ASSISTANT, (draw(tool_parts(swarm, "tc9", ToolState.RESULT)),), created_at=3))
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
        if swarm.weird_values and draw(st.integers(0, 9)) == 0:
            a0 = evolve(a0, parts=(fixture.outcome, fixture.outcome))
        out.append(a0)
    n = draw(st.integers(0 if out else 1, 2))
    for k in range(n):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            out.append(draw(texts(swarm)))
        elif kind == 1:
            out.append(Message(f"c{call_no}{k}", Role.USER, tuple(draw(st.lists(parts(swarm), min_size=1, max_size=2))), created_at=10 + k))
        else:
            out.append(user(f"c{call_no}{k}", draw(texts(swarm)), created_at=10 + k))
    if swarm.weird_values:
        odd = draw(st.integers(0, 29))
        if odd == 0:
            out.append(Message("s1", Role.SYSTEM, (TextPart("note-00"),), created_at=12))
        elif odd == 1:
            out.append(((user("c9", "note-01", created_at=13),),))
        elif odd == 2:
            out = [tuple(out)]
    return tuple(out)


# -- processors ---------------------------------------------------------------------------------


@st.composite
def steps(draw, swarm: Swarm, fixture: Fixture) -> tuple:
    """One in-place step (sometimes two, for a move: remove then re-add)."""
    kinds = sorted(swarm.steps - ({"move_carrier"} if fixture.outcome is None else set()))
    if not kinds:
        return ()
    kind = draw(st.sampled_from(kinds))
    ids = st.sampled_from(["u0", "a0", "c00", "c01", "n1", "a9"])
    if kind == "add":
        es = tuple(draw(st.lists(entries(swarm), min_size=1, max_size=2)))
        return (AddMessages(es, draw(st.sampled_from(list(Source))), draw(st.sampled_from([None, False, True]))),)
    if kind == "remove":
        return (RemoveByIds(tuple(draw(st.lists(ids, min_size=1, max_size=2)))),)
    if kind == "add_system":
        msg = draw(st.one_of(texts(swarm), system_messages(swarm)))
        return (AddSystem(msg, draw(st.sampled_from([None, None, "tag-a"]))),)
    if kind == "replace_system":
        db = messages(swarm, roles=(Role.SYSTEM,))
        return (ReplaceAllSystem(tuple(draw(st.lists(st.one_of(system_messages(swarm), db), max_size=2)))),)
    if kind == "clear_input":
        return (ClearInput(),)
    if kind == "edit_system":
        f = draw(st.sampled_from(["content", "providerOptions", "providerOptions", "experimental_providerMetadata"]))
        value = draw(texts(swarm)) if f == "content" else draw(st.builds(lambda t: obj(note=t), texts(swarm)))
        if swarm.weird_values and draw(st.integers(0, 3)) == 0:
            value = draw(js_values)
        return (EditSystem(draw(st.sampled_from([0, 0, 0, 1])), f, value),)
    if kind == "edit_message":
        return (EditMessage(draw(st.sampled_from(["u0", "a0", "c00", "n1"])), draw(texts(swarm))),)
    if kind == "move_carrier":
        a0 = next(m for m in fixture.stored if m.id == "a0")
        exact = folded(a0, fixture.outcome)
        copy = exact if draw(st.booleans()) else evolve(exact, parts=exact.parts + (TextPart(draw(texts(swarm))),))
        src = draw(st.sampled_from([Source.MEMORY, Source.MEMORY, Source.CONTEXT, Source.RESPONSE]))
        return (RemoveByIds(("a0",)), AddMessages((copy,), src, False))
    if kind == "move_history":
        # remove a stored message and re-add it unchanged under another source: its fingerprint
        # is unchanged, only G13's source-based removals can take it away on a refusal
        if not fixture.stored:
            return ()
        m = draw(st.sampled_from(fixture.stored))
        src = draw(st.sampled_from([Source.RESPONSE, Source.RESPONSE, Source.CONTEXT, Source.INPUT, Source.MEMORY]))
        return (RemoveByIds((m.id,)), AddMessages((m,), src, False))
    assert kind == "move_text"
    text = draw(texts(swarm))
    where = draw(st.sampled_from(["memory", "context", "system", "response"]))
    drop = ClearInput() if draw(st.booleans()) else RemoveByIds(("c00",))
    if where == "system":
        return (drop, AddSystem(text))
    src = {"memory": Source.MEMORY, "context": Source.CONTEXT, "response": Source.RESPONSE}[where]
    return (drop, AddMessages((user("n1", text, created_at=11),), src, False))


@st.composite
def array_values(draw, swarm: Swarm) -> ArrayOf:
    ids = st.sampled_from(["u0", "a0", "c00", "c01", "a9"])
    edits = draw(
        st.lists(
            st.one_of(
                st.builds(EditText, ids, texts(swarm)),
                st.builds(SetRole, ids, st.sampled_from(list(Role))),
                st.builds(SetId, ids, st.sampled_from(["n2", "x9"])),
            ),
            max_size=1,
        )
    )
    return ArrayOf(
        base=draw(st.sampled_from(["received", "received", "list", "empty"])),
        copy=draw(st.sampled_from(["none", "none", "shallow", "deep"])),
        drop=tuple(draw(st.lists(ids, max_size=1))),
        edits=tuple(edits),
        append=tuple(draw(st.lists(entries(swarm), max_size=1))),
    )


@st.composite
def return_values(draw, swarm: Swarm):
    kind = draw(st.sampled_from(sorted(swarm.returns)))
    if kind == "array":
        return draw(array_values(swarm))
    if kind == "object":
        msgs = draw(st.one_of(array_values(swarm), st.just(MISSING), st.just(3)))
        sysm = draw(st.one_of(st.just("received"), st.lists(system_messages(swarm), max_size=2).map(tuple), st.just(MISSING), st.just(None)))
        return ObjectOf(msgs, sysm, draw(st.sampled_from([None, "Result"])))
    if kind == "same":
        return SameList()
    if kind == "other":
        return OtherList()
    return Primitive(draw(st.sampled_from([UNDEFINED, None, 0, "", False, True, 1, "note-34"])))


@st.composite
def endings(draw, swarm: Swarm):
    kind = draw(st.sampled_from(sorted(swarm.endings) + (["return"] * swarm.return_weight if "return" in swarm.endings else [])))
    reason = f"reason-{draw(st.integers(0, 9))}"
    message = f"boom-{draw(st.integers(0, 9))}"
    if kind == "return":
        return Return(draw(return_values(swarm)))
    if kind == "abort":
        return Abort(reason)
    if kind == "tripwire":
        return ThrowTripWire(reason)
    if kind == "throw":
        return Throw(message)
    if kind == "abort_then_throw":
        return AbortThenThrow(reason, message)
    return AbortFinallyThrow(reason, message)


@st.composite
def processors(draw, swarm: Swarm = DEFAULT, fixture: Fixture | None = None, pid: str = "p1") -> Processor:
    """A processor of the language: up to two steps (a move counts as one), then an ending."""
    fixture = fixture or Fixture((), None, None)
    if not swarm.min_steps and draw(st.integers(1, swarm.identity_rate)) == 1:  # an identity processor (G7: nothing changes)
        return Processor(pid, (), Return(draw(st.sampled_from([SameList(), Primitive(UNDEFINED), ArrayOf(), ArrayOf()]))))
    ss: tuple = ()
    for _ in range(draw(st.integers(swarm.min_steps, 2))):
        ss += draw(steps(swarm, fixture))
    return Processor(pid, ss, draw(endings(swarm)))


# -- agents, calls, scenarios -------------------------------------------------------------------


@st.composite
def agents(draw, swarm: Swarm = DEFAULT, fixture: Fixture | None = None, memory: bool = True) -> Agent:
    policies: list = [POLICY]
    if swarm.policy_errors:
        extra = draw(st.sampled_from([None, None, ThrowingEvaluator("throws"), NoDecision("silent"), Allow("all")]))
        if extra is not None:
            policies.insert(draw(st.integers(0, 1)), extra)
    n = draw(st.integers(swarm.min_processors, swarm.max_processors))
    procs = tuple(draw(processors(swarm, fixture, f"p{i + 1}")) for i in range(n))
    mem = Memory(generate_title=swarm.titles) if memory else None
    return Agent(policies=tuple(policies), processors=procs, client_tools=TOOLS, memory=mem)


def actors(swarm: Swarm) -> st.SearchStrategy:
    if not swarm.rbac_denials:
        return st.just(ACTOR)
    return st.one_of(
        st.just(ACTOR),
        st.sampled_from([None, Actor("bob", "admin"), Actor("svc", "user", "service"), Actor("anon", "user", None)]),
    )


@st.composite
def fixtures(draw, swarm: Swarm) -> Fixture:
    if not (swarm.history or swarm.carrier):
        return Fixture((), None, None)
    stored = draw(histories(swarm))
    pending = next(p for p in stored[1].parts if isinstance(p, ToolPart))
    if swarm.carrier and pending.state is ToolState.PARTIAL_CALL:
        pending = evolve(pending, state=ToolState.CALL)
        stored = (stored[0], evolve(stored[1], parts=(stored[1].parts[0], pending))) + stored[2:]
    outcome = None
    if swarm.carrier or (swarm.client_outcomes and pending.state is not ToolState.PARTIAL_CALL and draw(st.integers(0, 3)) > 0):
        outcome = draw(outcome_for(pending, swarm))
    return Fixture(stored, pending, outcome)


@st.composite
def calls(draw, swarm: Swarm, fixture: Fixture, memory: bool, call_no: int = 0) -> Call:
    binding = None
    if swarm.carrier and call_no == 0:
        binding = MemoryBinding(THREAD, RESOURCE)
    elif memory:
        binding = draw(st.sampled_from([MemoryBinding(THREAD, RESOURCE)] * 3 + [MemoryBinding(FRESH_THREAD, RESOURCE), None]))
    elif draw(st.booleans()):
        binding = MemoryBinding(THREAD, RESOURCE)
    fx = fixture if binding is not None and binding.thread == THREAD else Fixture(fixture.stored, fixture.pending, None)
    context = ()
    if swarm.context and draw(st.booleans()):
        context = (user("x1", draw(texts(swarm)), created_at=4),)
    return Call(
        loop=draw(st.sampled_from(swarm.loops)),
        messages=draw(caller_inputs(swarm, fx, call_no)),
        actor=draw(actors(swarm)),
        memory=binding,
        reply=f"reply-{call_no}",
        context=context,
        now=NOW + 100 * call_no,
    )


def _swarm(draw, swarm: Any) -> Swarm:
    """A given swarm, a strategy of swarms drawn from, or (None) a random one."""
    if swarm is None:
        return draw(swarms())
    if isinstance(swarm, st.SearchStrategy):
        return draw(swarm)
    return swarm


@st.composite
def scenarios(draw, swarm: Swarm | None = None) -> Scenario:
    """A whole scenario; a swarm is drawn from ``swarms()`` unless one is given."""
    sw = _swarm(draw, swarm)
    memory = sw.carrier or (sw.memory if sw.memory is not None else draw(st.booleans()))
    fx = draw(fixtures(sw))
    agent = draw(agents(sw, fx, memory))
    threads = ThreadStore((Thread(THREAD, RESOURCE, fx.stored),)) if fx.stored else ThreadStore()
    return Scenario(agent, draw(calls(sw, fx, memory)), threads)


@st.composite
def call_sequences(draw, swarm: Swarm | None = None) -> list[Scenario]:
    """One agent and 1..``max_calls`` calls on its threads (the reference threads the stored
    threads from call to call; later scenarios' own ``threads`` are ignored)."""
    sw = _swarm(draw, swarm)
    memory = sw.carrier or (sw.memory if sw.memory is not None else draw(st.booleans()))
    fx = draw(fixtures(sw))
    agent = draw(agents(sw, fx, memory))
    threads = ThreadStore((Thread(THREAD, RESOURCE, fx.stored),)) if fx.stored else ThreadStore()
    n = draw(st.integers(1, sw.max_calls))
    return [Scenario(agent, draw(calls(sw, fx if i == 0 else Fixture(fx.stored, fx.pending, None), memory, i)), threads) for i in range(n)]


# Aimed swarms: the features a clause needs, switched on together.
MOVES = Swarm(
    steps=frozenset({"move_carrier", "move_text", "move_history", "edit_message", "add", "edit_system"}),
    memory=True,
    rbac_denials=False,
    policy_errors=False,
    weird_values=False,
)
RAW_I12 = Swarm(
    loops=(Loop.DURABLE, Loop.DURABLE, Loop.GENERATE, Loop.STREAM),
    steps=frozenset({"move_text", "move_carrier"}),
    endings=frozenset({"return", "abort"}),
    returns=frozenset({"primitive", "same"}),
    memory=True,
    rbac_denials=False,
    policy_errors=False,
    weird_values=False,
    titles=True,
    marker_rate=0.6,
    max_processors=2,
)

TAME = Swarm(
    endings=frozenset({"return", "abort", "throw", "abort_then_throw", "abort_finally_throw"}),
    returns=frozenset({"array", "same", "primitive"}),
    weird_values=False,
    identity_rate=3,
)
"""Well-behaved processors; RBAC and policy outcomes vary."""

SYSTEM = Swarm(
    steps=frozenset({"edit_system", "add_system", "replace_system"}),
    endings=frozenset({"return", "abort"}),
    returns=frozenset({"same", "primitive", "array"}),
    rbac_denials=False,
    policy_errors=False,
    weird_values=False,
    marker_rate=0.15,
    max_processors=2,
    min_processors=1,
    min_steps=1,
)
"""Processors that add, edit and replace system messages (G8, G9 fingerprints, G12 options)."""


REMOVAL = Swarm(
    steps=frozenset({"move_history", "move_carrier"}),
    endings=frozenset({"abort", "tripwire", "return"}),
    returns=frozenset({"same", "primitive", "array"}),
    memory=True,
    loops=(Loop.GENERATE, Loop.STREAM, Loop.DURABLE),
    rbac_denials=False,
    policy_errors=False,
    weird_values=False,
    marker_rate=0.6,
    max_processors=2,
    min_processors=1,
    min_steps=1,
    carrier=True,
    return_weight=1,
)
"""Refusals right after a processor moved history or the caller's outcome between sources
unchanged: only G13's source- and carrier-based removals can take those away."""


CARRIER = Swarm(
    steps=frozenset({"move_carrier", "edit_message"}),
    endings=frozenset({"return"}),
    returns=frozenset({"array", "same", "primitive"}),
    memory=True,
    rbac_denials=False,
    policy_errors=False,
    weird_values=False,
    marker_rate=0.0,
    max_processors=2,
    min_processors=1,
    carrier=True,
)
"""Answered calls with the caller's outcome on a remembered message, returned, copied, edited
or moved (S3, S6: I8, I10, G11)."""


CALLER = Swarm(context=True, marker_rate=0.5)


def battery(max_calls: int = 3) -> list[tuple[str, st.SearchStrategy]]:
    """The strategies ``kill`` and ``explore`` run, in order: random swarms first, then each
    aimed swarm as it stands (not re-drawn, so its features stay together)."""
    out: list[tuple[str, st.SearchStrategy]] = [("mixed", mixed_swarms(max_calls))]
    for name, b in (("removal", REMOVAL), ("carrier", CARRIER), ("system", SYSTEM), ("tame", TAME), ("moves", MOVES), ("caller", CALLER)):
        out.append((name, st.just(evolve(b, max_calls=max_calls))))
    return out


def mixed_swarms(max_calls: int = 3) -> st.SearchStrategy[Swarm]:
    """Swarms around the default, move-heavy, tame and removal-aimed bases, in equal shares."""
    return st.one_of(*(swarms(evolve(b, max_calls=max_calls)) for b in (DEFAULT, MOVES, TAME, REMOVAL, SYSTEM)))


__all__ = [
    "Swarm",
    "mixed_swarms",
    "TAME",
    "REMOVAL",
    "SYSTEM",
    "CARRIER",
    "CALLER",
    "battery",
    "swarms",
    "scenarios",
    "call_sequences",
    "js_values",
    "parts",
    "tool_parts",
    "messages",
    "system_messages",
    "entries",
    "processors",
    "agents",
    "calls",
    "histories",
    "MARKER",
    "MOVES",
    "RAW_I12",
    "folded",
]
