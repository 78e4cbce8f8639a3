"""Fixed choices → a concrete ``Scenario`` the interpreter runs (the counterexample, replayed)."""

from __future__ import annotations

import base64

from guardspec.model.agent import (
    Actor,
    Agent,
    ClientTool,
    DenyPatterns,
    Mapping,
    Memory,
    MemoryBinding,
    Thread,
    ThreadStore,
    ThrowingEvaluator,
)
from guardspec.model.messages import FilePart, Message, ReasoningPart, Role, Source, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.processors import (
    Abort,
    AbortThenThrow,
    AddMessages,
    AddSystem,
    ArrayOf,
    ClearInput,
    EditMessage,
    EditSystem,
    EditText,
    ObjectOf,
    Primitive,
    Processor,
    RemoveByIds,
    Return,
    SameList,
    Throw,
    ThrowTripWire,
)
from guardspec.model.scenario import Call, Loop, Scenario
from guardspec.model.values import UNDEFINED, obj

from .scope import (
    MARKER,
    Choices,
    End,
    Kind,
    LoopC,
    Op,
    asset_url,
    citation_text,
    file_text,
    hist_text,
    label_text,
    metadata_text,
    reasoning_text,
    result_text,
    split_parts,
)

THREAD, RESOURCE, TOOL, CALL_ID = "t1", "r1", "loc", "tc1"
SOURCES = (Source.MEMORY, Source.INPUT, Source.RESPONSE, Source.CONTEXT)
LOOPS = {LoopC.GENERATE: Loop.GENERATE, LoopC.STREAM: Loop.STREAM, LoopC.DURABLE: Loop.DURABLE}


def mid(s: int) -> str:
    return f"m{s}"


def created(s: int) -> int:
    return 10 + s


def _role(assistant: bool) -> Role:
    return Role.ASSISTANT if assistant else Role.USER


def _pending() -> ToolPart:
    return ToolPart(CALL_ID, TOOL, ToolState.CALL, args=obj(q=1))


def _outcome(marked: bool, call_id: str = CALL_ID) -> ToolPart:
    return ToolPart(call_id, TOOL, ToolState.RESULT, args=obj(q=1), result=result_text(marked))


def _error(marked: bool) -> ToolPart:
    """The caller's outcome an error (``Choices.car_err``), its text the result text."""
    return ToolPart(CALL_ID, TOOL, ToolState.OUTPUT_ERROR, args=obj(q=1), error_text=result_text(marked))


def _hist(ch: Choices, s: int) -> tuple:
    """The stored result beside the carrier's pending call (``Choices.car_hist``): an earlier
    call ``hst<s>`` of the client tool, its result text its own (``hist_text``)."""
    if not ch.car_hist:
        return ()
    return (ToolPart(f"hst{s}", TOOL, ToolState.RESULT, args=obj(q=1), result=hist_text(ch.hist_mark)),)


def _caller_outcome(ch: Choices) -> ToolPart:
    return _error(ch.res_mark) if ch.car_err else _outcome(ch.res_mark)


def _stored_result(s: int, marked: bool, res_mark: bool) -> Message:
    """A stored result: an assistant message of an earlier call, its text and the result of
    its own call of the client tool (``old<s>``: no two messages share a call)."""
    return Message(mid(s), Role.ASSISTANT, (TextPart(label_text(s, marked)), _outcome(res_mark, f"old{s}")), created(s), THREAD, RESOURCE)


def processor(ch: Choices, k: int) -> Processor:
    sc = ch.scope
    steps = []
    for j in range(sc.ops):
        o, t = Op(ch.op[k][j]), ch.tgt[k][j]
        text = label_text(sc.op_label(k, j), ch.omark[k][j])
        if o is Op.ADD:
            parts: tuple = (TextPart(text),)
            meta = UNDEFINED
            if ch.ext(k, j):
                # content the model never receives (M12.4, M12.5): an Anthropic citation
                # in the text part's providerOptions, a note in the metadata, and for a user
                # message a reasoning part
                label = sc.op_label(k, j)
                parts = (TextPart(text, obj(anthropic=obj(citations=citation_text(label)))),)
                if not ch.orole[k][j]:
                    parts += (ReasoningPart(reasoning_text(label)),)
                meta = obj(note=metadata_text(label))
            if ch.url(k, j):
                # a file part naming a URL of an origin the agent does not allow (G16)
                parts += (FilePart(asset_url(sc.op_label(k, j)), "text/plain"),)
            elif ch.uri(k, j):
                # a data URI naming another media type on a text/plain part: Mastra rewrites it
                # under the part's type (M12.10), so the model receives the text (G12.6)
                data = base64.b64encode(file_text(sc.op_label(k, j)).encode()).decode()
                parts += (FilePart(f"data:image/png;base64,{data}", "text/plain"),)
            elif ch.file(k, j):
                # a text/plain file part: its data the base64 of the file text, which the model
                # receives decoded (Mastra sends data:text/plain;base64,<data>) and G12 reads so
                parts += (FilePart(base64.b64encode(file_text(sc.op_label(k, j)).encode()).decode(), "text/plain"),)
            m = Message(mid(t), _role(ch.orole[k][j]), parts, created_at=created(t), metadata=meta)
            steps.append(AddMessages((m,), SOURCES[ch.src[k][j]], merge=False))
        elif o is Op.REMOVE:
            steps.append(RemoveByIds((mid(t),)))
        elif o is Op.ADD_SYSTEM and ch.orole[k][j]:
            # an experimental_providerMetadata key keeps the parts as given (M6 v4 path)
            parts = tuple(TextPart(x) for x in split_parts(sc.op_label(k, j), ch.omark[k][j]))
            # (an object, not null: Breakwater cannot classify null options, G12.5)
            steps.append(AddSystem(SystemMessage(parts, UNDEFINED, obj())))
        elif o is Op.ADD_SYSTEM:
            steps.append(AddSystem(SystemMessage(text)))
        elif o is Op.EDIT:
            steps.append(EditMessage(mid(t), text))
        elif o is Op.CLEAR_INPUT:
            steps.append(ClearInput())
        elif o is Op.EDIT_SYSTEM:
            # a provider option Breakwater reads (an Anthropic citation, G12.5)
            steps.append(EditSystem(0, "providerOptions", obj(anthropic=obj(citations=text))))
        elif o is Op.MOVE:
            # the message out, and a literal copy of it back under a source: the carrier as
            # memory loaded it (with the caller's result), stored history as stored, a caller
            # or context message as the caller gave it
            steps.append(RemoveByIds((mid(t),)))
            kt = Kind(ch.kind[t])
            text = TextPart(label_text(t, ch.mark[t]))
            if kt is Kind.CARRIER:
                copy = Message(mid(t), Role.ASSISTANT, (text, *_hist(ch, t), _caller_outcome(ch)), created(t), THREAD, RESOURCE)
            elif kt is Kind.RESULT:
                copy = _stored_result(t, ch.mark[t], ch.res_mark)
            elif kt is Kind.STORED:
                copy = Message(mid(t), _role(ch.assistant[t]), (text,), created(t), THREAD, RESOURCE)
            else:
                copy = Message(mid(t), _role(ch.assistant[t]), (text,), created(t))
            steps.append(AddMessages((copy,), SOURCES[ch.src[k][j]], merge=False))
    e, t = End(ch.end[k]), ch.etgt[k]
    end = {
        End.UNDEFINED: lambda: Return(Primitive()),
        End.SAME_LIST: lambda: Return(SameList()),
        End.ARRAY: lambda: Return(ArrayOf()),
        End.COPIES: lambda: Return(ArrayOf(copy="shallow")),
        End.FILTER: lambda: Return(ArrayOf(drop=(mid(t),))),
        End.EDIT_TEXT: lambda: Return(ArrayOf(edits=(EditText(mid(t), label_text(sc.edit_label(k), ch.emark[k])),))),
        End.ABORT: lambda: Abort(f"stop-p{k}"),
        End.THROW: lambda: Throw(f"boom-p{k}"),
        End.ABORT_THEN_THROW: lambda: AbortThenThrow(f"stop-p{k}", f"boom-p{k}"),
        End.TRIPWIRE: lambda: ThrowTripWire(f"stop-p{k}"),
        # an AI SDK system entry (role and content only), its text the ending's label
        End.AI_SDK: lambda: Return(ArrayOf(append=(SystemMessage(label_text(sc.edit_label(k), ch.emark[k])),))),
        End.SYS_NULL: lambda: Return(ObjectOf(ArrayOf(), (None,))),
    }[e]()
    return Processor(f"p{k}", tuple(steps), end)


def actor(ch: Choices) -> Actor:
    """G3: a human operator (allowed) or viewer (denied), a service principal with the role
    viewer (allowed: the role is checked for humans only), or an actor with no principal kind
    (Breakwater reads no actor)."""
    if ch.actor_unreadable:
        return Actor("alice", "operator", None)
    if ch.actor_service:
        return Actor("svc", "viewer", "service")
    return Actor("alice", "operator" if ch.rbac_ok else "viewer")


def scenario(ch: Choices, name: str = "symbolic") -> Scenario:
    """The call the choices describe (module docstring of scope.py)."""
    N = ch.scope.messages
    stored, caller, context = [], [], []
    for s in range(N):
        k = Kind(ch.kind[s])
        text = TextPart(label_text(s, ch.mark[s]))
        role = _role(ch.assistant[s])
        if k is Kind.STORED:
            stored.append(Message(mid(s), role, (text,), created(s), THREAD, RESOURCE))
        elif k is Kind.RESULT:
            stored.append(_stored_result(s, ch.mark[s], ch.res_mark))
        elif k is Kind.CARRIER:
            stored.append(Message(mid(s), Role.ASSISTANT, (text, *_hist(ch, s), _pending()), created(s), THREAD, RESOURCE))
            caller.insert(0, Message(mid(s), Role.ASSISTANT, (_caller_outcome(ch),), created(s)))
        elif k is Kind.INPUT:
            caller.append(Message(mid(s), Role.USER, (text,), created(s)))
        elif k is Kind.CONTEXT:
            context.append(Message(mid(s), role, (text,), created(s)))
    policies = (DenyPatterns("marker", (MARKER,)),) + ((ThrowingEvaluator("evaluator"),) if ch.evaluator_on else ())
    mapping = (Mapping(kind="throws") if ch.mapping_throws else Mapping()) if ch.mapping_on else None
    agent = Agent(
        policies=policies,
        processors=tuple(processor(ch, k) for k in range(ch.scope.processors)),
        client_tools=(ClientTool(TOOL, mapping),),
        memory=Memory(generate_title=bool(ch.title_on)),
        allowed_principal_kinds=("human", "service"),
    )
    call = Call(
        loop=LOOPS[LoopC(ch.loop)],
        messages=tuple(caller),
        actor=actor(ch),
        memory=MemoryBinding(THREAD, RESOURCE),
        context=tuple(context),
    )
    return Scenario(agent, call, ThreadStore((Thread(THREAD, RESOURCE, tuple(stored)),)), name=name)


def follow_up(first: Scenario) -> Scenario:
    """I9's later call on the same thread: no processors, no policies, a clean user message."""
    from attrs import evolve

    agent = evolve(first.agent, processors=(), policies=(), memory=Memory())
    call = evolve(
        first.call,
        loop=Loop.GENERATE,
        messages=(Message("next", Role.USER, (TextPart("next call"),), 900),),
        actor=Actor("alice", "operator"),
        context=(),
    )
    return evolve(first, agent=agent, call=call, name=first.name + " / follow-up")
