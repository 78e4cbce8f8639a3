"""The bounded scope: what one symbolic call may hold, as choices z3 (or a loop) picks.

A call has ``messages`` message slots; slot ``s`` is the message with id ``m<s>``. Each slot
starts as one *kind*: absent, stored history (``memory`` once loaded), caller input, a
remembered assistant message carrying the caller's client tool outcome (a *carrier*: stored
with a pending call of client tool ``loc``, sent back by the caller with its result or an
error, ``Choices.car_err``, so it is memory+input after M3), a context message, or a *stored result*: stored history holding the
result of an earlier call of ``loc`` (call ``old<s>``; its result text is the caller outcome's,
so that a text read is one text whichever part sent it), which M11 maps once a processor
re-adds it under ``input``. The carrier's stored message may also hold a stored result of its
own (``Choices.car_hist``: call ``hst<s>``, its result text ``hist_text``) beside the pending call. Every text is a *label*, marked when it holds
the policy's deny marker. Each of ``processors`` application processors runs ``ops`` steps
then one ending, all drawn from a subset of the processor language (model/processors.py):

steps    NOP, ADD (a message, marked or clean, user or assistant, under a source, merge off;
         optionally carrying content the model never receives: its text part's providerOptions
         with an Anthropic citation, and for a user message a reasoning part; optionally a
         ``text/plain`` file part, its data base64 text or, on a user message, a URL the
         input-assets gate denies, G16),
         REMOVE (removeByIds), ADD_SYSTEM (addSystem, marked or clean; its content one string,
         or *split*: three text parts that break both the label and the marker, kept as given
         by M6's v4 path, which the model receives as one text), EDIT (EditMessage: the
         text of a message in place), CLEAR_INPUT (clear.input), MOVE (a message the call
         starts with taken out and a literal copy of it, as the store or the caller gave it,
         added back under a source: the carrier as memory loaded it, a context message moved
         under ``response`` unchanged, ...), EDIT_SYSTEM (the instructions' providerOptions set
         in place, marked or clean)
endings  return undefined, return the list itself, return the received array, return copies
         of it, return it filtered (one id dropped), return it with one text edited, abort,
         throw, abort then throw (``try { abort() } catch { throw }``), throw a TripWire (rethrown
         unchanged under the guard and named as Mastra's runner names it, G6), return the
         received array with an AI SDK system entry appended (its text the ending's label:
         Breakwater adds nothing for it, G7), return ``{messages, systemMessages: [null]}`` (the
         bucket emptied, then the processor fails, G7; guarded mode only: the raw encoding
         leaves it out of its scope)

The agent has one deny-patterns policy (``FORBIDDEN``), then optionally an evaluator that
throws (G12 ``policy evaluation failed``), memory bound to thread ``t1``, client tool ``loc``
with or without a ``toModelOutput`` mapping, which may throw (G11), title generation on or off;
the actor is allowed (a human operator, or a service principal with the role viewer: the agent
allows services, and RBAC checks the role of humans only, G3), a viewer (denied), or unreadable
(no principal kind: Breakwater reads no actor, G3, and the audit names none, G15); the loop is generate, stream or durable.

Scope limits (assumptions, each stated where it is imposed): at most one carrier; caller
input and context messages are user messages (stored history may be either role); an ADD under ``memory`` does not target a slot that holds a
message of only the response or context source (Mastra's memory fold would then splice the two
messages, M3: outside this encoding).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import z3
from attrs import frozen

from . import logic as L

MARKER = "FORBIDDEN"
NO_LABEL = -1


class Kind(IntEnum):
    ABSENT = 0
    STORED = 1
    INPUT = 2
    CARRIER = 3
    CONTEXT = 4
    RESULT = 5  # stored history: an assistant message holding a client tool result of an earlier call


class Op(IntEnum):
    NOP = 0
    ADD = 1
    REMOVE = 2
    ADD_SYSTEM = 3
    EDIT = 4
    CLEAR_INPUT = 5
    MOVE = 6
    EDIT_SYSTEM = 7


class End(IntEnum):
    UNDEFINED = 0
    SAME_LIST = 1
    ARRAY = 2
    COPIES = 3
    FILTER = 4
    EDIT_TEXT = 5
    ABORT = 6
    THROW = 7
    ABORT_THEN_THROW = 8
    TRIPWIRE = 9  # throw new TripWire(reason): rethrown, named as Mastra's runner names it (G6)
    # the received array with an AI SDK system entry appended (``{role: 'system', content}``):
    # Breakwater adds ``''`` for it, nothing (G7.2)
    AI_SDK = 10
    # ``{messages: received array, systemMessages: [null]}``: Mastra's replaceAllSystemMessages
    # empties the bucket, then throws on the null entry: the processor fails (G7.5)
    SYS_NULL = 11


class Src(IntEnum):
    """M1 source order: memory, input, response, context."""

    MEMORY = 0
    INPUT = 1
    RESPONSE = 2
    CONTEXT = 3


class LoopC(IntEnum):
    GENERATE = 0
    STREAM = 1
    DURABLE = 2


class Tool(IntEnum):
    """The carrier's tool part: none, the stored pending call, the caller's result, the result
    with its mapped output cached (M11), the caller's outcome an error (``output-error``, its
    error text the result text: read and sent as that text, never mapped, and no entry in the
    legacy ``toolInvocations`` mirror, G9.2)."""

    NONE = 0
    CALL = 1
    RESULT = 2
    CACHED = 3
    ERROR = 4


@frozen
class Scope:
    """The bound. ``call_context``: a slot may start as a context message the caller passes
    with the call (``Call.context``, durable only, G1.1; the spec's vocabulary entry "Call" names them, and the
    reference reads them, reference/guard/readset.py). Without it, processors can still add
    messages under ``context`` (M1)."""

    messages: int = 4
    processors: int = 2
    ops: int = 3
    call_context: bool = True

    def op_label(self, k: int, j: int) -> int:
        return self.messages + k * self.ops + j

    def edit_label(self, k: int) -> int:
        """The text an ending writes: EDIT_TEXT's, or the AI SDK system entry's."""
        return self.messages + self.processors * self.ops + k

    def ending_system(self, k: int) -> int:
        """The system entry index of processor ``k``'s AI SDK entry (after the instructions and
        one per ADD_SYSTEM step), were it ever added."""
        return 1 + self.processors * self.ops + k

    @property
    def labels(self) -> range:
        return range(self.messages + self.processors * self.ops + self.processors)

    def __str__(self) -> str:
        ctx = ", call context" if self.call_context else ""
        return f"{self.messages} messages, {self.processors} processors, {self.ops} ops{ctx}"


def label_text(label: int, marked: bool) -> str:
    """Fixed-width tokens, so that no label's text occurs inside another's."""
    return f"txt{label:03d}" + (f" {MARKER}" if marked else "")


def split_parts(label: int, marked: bool) -> tuple[str, str, str]:
    """A split ADD_SYSTEM's three text parts: joined they are ``label_text`` (the model receives
    them as one text, measured on Mastra), apart neither the label nor the marker occurs. The
    last part's length grows with the label, so that M6's v4 dedupe (part types and text
    lengths) never merges two of them."""
    return ("tx", f"t{label:03d}" + (f" {MARKER[:4]}" if marked else ""), (MARKER[4:] if marked else "") + "." * (label + 1))


def citation_text(label: int) -> str:
    """The Anthropic citation an ADD's text part carries in its providerOptions (``oext``)."""
    return f"cit{label:03d}"


def metadata_text(label: int) -> str:
    """The note an ADD's message carries in its metadata (``oext``)."""
    return f"met{label:03d}"


def reasoning_text(label: int) -> str:
    """The reasoning part a user message an ADD adds holds (``oext``)."""
    return f"rsn{label:03d}"


def file_text(label: int) -> str:
    """The text an ADD's ``text/plain`` file part holds (``ofile``), as the model receives it."""
    return f"fil{label:03d}"


def asset_url(label: int) -> str:
    """The URL an ADD's file part names (``ourl``): an origin the agent does not allow (it
    allows none); it holds ``file_text(label)``, so that what reads the URL reads the label."""
    return f"https://evil.example/{file_text(label)}"


def result_text(marked: bool) -> str:
    return f"res {MARKER}" if marked else "res-clean"


def hist_text(marked: bool) -> str:
    """The result text of the stored result beside the caller's outcome (``car_hist``): a text
    of its own, so that what is read of it is told from what is read of the caller's outcome."""
    return f"hst {MARKER}" if marked else "hst-clean"


@frozen
class Choices:
    """Every choice of one call: z3 variables, or Python values once fixed."""

    scope: Scope
    loop: Any
    rbac_ok: Any
    title_on: Any
    mapping_on: Any
    res_mark: Any
    kind: tuple
    assistant: tuple
    mark: tuple
    op: tuple  # [k][j]
    tgt: tuple
    src: tuple
    omark: tuple
    orole: tuple  # ADD: an assistant message; ADD_SYSTEM: split over text parts
    end: tuple  # [k]
    etgt: tuple
    emark: tuple
    mapping_throws: Any = False  # the client tool's mapping (when on) throws (G11)
    evaluator_on: Any = False  # a second policy, after deny-patterns, whose evaluator throws (G12)
    actor_unreadable: Any = False  # the actor declares no principal kind: Breakwater reads no actor (G3)
    actor_service: Any = False  # the actor is a service principal with the role viewer: allowed (G3: role checked for humans only)
    # [k][j] ADD: the added message carries content the model never receives (M12.4, M12.5):
    # its text part's providerOptions name an
    # Anthropic citation (``cit<label>``), its metadata a note (``met<label>``), and a user
    # message holds a reasoning part (``rsn<label>``)
    oext: tuple = ()
    # the carrier's outcome is an error (``output-error``) rather than a result: M3's fold then
    # writes no legacy ``toolInvocations`` mirror (G9.2), so a
    # literal copy of the folded carrier matches it
    car_err: Any = False
    # [k][j] ADD: the added message also carries a ``text/plain`` file part whose data is the
    # base64 of ``file_text(label)`` (the model receives it decoded; G12 reads it decoded)
    ofile: tuple = ()
    # the carrier's stored message also holds, before its pending call, the result of an
    # earlier call of ``loc`` (call ``hst<s>``, its result text ``hist_text(hist_mark)``): a
    # stored result beside the caller's outcome on the remembered message, which G11 under the
    # guard maps only when a processor changed the message (G11.1, G11.2) and G10 reads only
    # then (re-recorded after mapping, G11.3)
    car_hist: Any = False
    hist_mark: Any = False
    # [k][j] ADD of a user message with a file part: its data names a URL
    # (``asset_url(label)``) rather than the base64 text; the agent allows no asset origin, so
    # the input-assets gate denies it (G16)
    ourl: tuple = ()
    # [k][j] ADD with a (base64) file part: its data is a data URI naming another media type
    # (``data:image/png;base64,<data>`` on a ``text/plain`` part), which Mastra rewrites under
    # the part's own type before the prompt (M12.10): the model receives the text, and G12.6
    # reads it so
    ouri: tuple = ()

    def file(self, k: int, j: int) -> Any:
        return self.ofile[k][j] if self.ofile else False

    def url(self, k: int, j: int) -> Any:
        return self.ourl[k][j] if self.ourl else False

    def uri(self, k: int, j: int) -> Any:
        return self.ouri[k][j] if self.ouri else False

    def ext(self, k: int, j: int) -> Any:
        return self.oext[k][j] if self.oext else False


FIELDS = (
    "loop",
    "rbac_ok",
    "title_on",
    "mapping_on",
    "res_mark",
    "kind",
    "assistant",
    "mark",
    "op",
    "tgt",
    "src",
    "omark",
    "orole",
    "end",
    "etgt",
    "emark",
    "mapping_throws",
    "evaluator_on",
    "actor_unreadable",
    "actor_service",
    "oext",
    "car_err",
    "ofile",
    "car_hist",
    "hist_mark",
    "ourl",
    "ouri",
)


def symbolic(scope: Scope) -> Choices:
    N, K, J = scope.messages, scope.processors, scope.ops
    I, B = z3.Int, z3.Bool

    def grid(name: str, f: Any) -> tuple:
        return tuple(tuple(f(f"{name}_{k}_{j}") for j in range(J)) for k in range(K))

    return Choices(
        scope,
        I("loop"),
        B("rbac_ok"),
        B("title_on"),
        B("mapping_on"),
        B("res_mark"),
        tuple(I(f"kind_{s}") for s in range(N)),
        tuple(B(f"assistant_{s}") for s in range(N)),
        tuple(B(f"mark_{s}") for s in range(N)),
        grid("op", I),
        grid("tgt", I),
        grid("src", I),
        grid("omark", B),
        grid("orole", B),
        tuple(I(f"end_{k}") for k in range(K)),
        tuple(I(f"etgt_{k}") for k in range(K)),
        tuple(B(f"emark_{k}") for k in range(K)),
        B("mapping_throws"),
        B("evaluator_on"),
        B("actor_unreadable"),
        B("actor_service"),
        grid("oext", B),
        B("car_err"),
        grid("ofile", B),
        B("car_hist"),
        B("hist_mark"),
        grid("ourl", B),
        grid("ouri", B),
    )


def assumptions(ch: Choices) -> list:
    """The domain of every choice, and the scope limits that do not depend on the run. A NOP
    or an ending without a target has its parameters fixed, so each call has one encoding."""
    sc = ch.scope
    N, K, J = sc.messages, sc.processors, sc.ops
    # an unreadable actor is no actor (G3): RBAC denies it, as it denies the viewer
    out = [
        L.and_(ch.loop >= 0, ch.loop <= 2),
        L.implies(ch.mapping_throws, ch.mapping_on),
        L.implies(ch.actor_unreadable, L.not_(ch.rbac_ok)),
    ]
    # a service principal (kind allowed, role viewer) is allowed: RBAC checks the role of humans only
    out.append(L.implies(ch.actor_service, L.and_(ch.rbac_ok, L.not_(ch.actor_unreadable))))
    for s in range(N):
        k = ch.kind[s]
        out.append(L.and_(k >= 0, k <= 5))
        if not sc.call_context:
            out.append(L.ne(k, Kind.CONTEXT))
        # (a guarded generate/stream call given context is a TypeError before anything runs,
        # G1.1: encoded in guarded.py, claim G1)
        # caller input and context: user messages (an assistant context message would take the
        # carrier's caller copy into an M4 merge at preparation: outside this encoding)
        out.append(L.implies(L.one_of(k, (Kind.INPUT, Kind.CONTEXT)), L.not_(ch.assistant[s])))
        out.append(L.implies(L.one_of(k, (Kind.CARRIER, Kind.RESULT)), ch.assistant[s]))
        out.append(L.implies(L.eq(k, Kind.ABSENT), L.and_(L.not_(ch.assistant[s]), L.not_(ch.mark[s]))))
    # at most one carrier
    for a in range(N):
        for b in range(a + 1, N):
            out.append(L.not_(L.and_(L.eq(ch.kind[a], Kind.CARRIER), L.eq(ch.kind[b], Kind.CARRIER))))
    # the result text (marked or not) is the caller's outcome's and the stored result's
    out.append(L.implies(L.not_(L.any_(L.one_of(ch.kind[s], (Kind.CARRIER, Kind.RESULT)) for s in range(N))), L.not_(ch.res_mark)))
    # an error outcome, and a stored result beside the outcome, need a carrier to hold them
    some_carrier = L.any_(L.eq(ch.kind[s], Kind.CARRIER) for s in range(N))
    out.append(L.implies(ch.car_err, some_carrier))
    out.append(L.implies(ch.car_hist, some_carrier))
    out.append(L.implies(ch.hist_mark, ch.car_hist))
    for k in range(K):
        for j in range(J):
            o = ch.op[k][j]
            out.append(L.and_(o >= 0, o <= 7, ch.tgt[k][j] >= 0, ch.tgt[k][j] < N, ch.src[k][j] >= 0, ch.src[k][j] <= 3))
            targeted = L.one_of(o, (Op.ADD, Op.REMOVE, Op.EDIT, Op.MOVE))
            # MOVE targets a message the call starts with (its literal copy is re-added)
            out.append(L.implies(L.eq(o, Op.MOVE), L.any_(L.and_(L.eq(ch.tgt[k][j], s), L.ne(ch.kind[s], Kind.ABSENT)) for s in range(N))))
            marked = L.one_of(o, (Op.ADD, Op.ADD_SYSTEM, Op.EDIT, Op.EDIT_SYSTEM))
            out.append(L.implies(L.not_(targeted), L.eq(ch.tgt[k][j], 0)))
            out.append(L.implies(L.not_(marked), L.not_(ch.omark[k][j])))
            out.append(L.implies(L.not_(L.one_of(o, (Op.ADD, Op.ADD_SYSTEM))), L.not_(ch.orole[k][j])))
            out.append(L.implies(L.not_(L.one_of(o, (Op.ADD, Op.MOVE))), L.eq(ch.src[k][j], 0)))
            out.append(L.implies(L.ne(o, Op.ADD), L.not_(ch.ext(k, j))))
            out.append(L.implies(L.ne(o, Op.ADD), L.not_(ch.file(k, j))))
            # a URL file part: on a user message's file part (the gate judges user messages)
            out.append(L.implies(ch.url(k, j), L.and_(ch.file(k, j), L.not_(ch.orole[k][j]))))
            out.append(L.implies(ch.uri(k, j), L.and_(ch.file(k, j), L.not_(ch.url(k, j)))))
        e = ch.end[k]
        out.append(L.and_(e >= 0, e <= 11, ch.etgt[k] >= 0, ch.etgt[k] < N))
        out.append(L.implies(L.not_(L.one_of(e, (End.FILTER, End.EDIT_TEXT))), L.eq(ch.etgt[k], 0)))
        out.append(L.implies(L.not_(L.one_of(e, (End.EDIT_TEXT, End.AI_SDK))), L.not_(ch.emark[k])))
    return out


def context_on_durable_only(ch: Choices) -> Any:
    """A narrowing of the guarded proofs' scope (all claims but G1, and every mutant but the one
    that accepts context): a slot starts as a context message only on the durable loop. On
    generate and stream a guarded call given context throws a TypeError before anything runs
    (G1.1), which the claim G1 proves over the whole scope;
    leaving those calls out of the other claims keeps their solving time as it was before G1
    admitted context on every loop (I4: 10.6 s z3 against 29 s, docs/proofs.md)."""
    if not ch.scope.call_context:
        return True
    durable = L.eq(ch.loop, LoopC.DURABLE)
    return L.all_(L.implies(L.eq(k, Kind.CONTEXT), durable) for k in ch.kind)


def fixed(ch: Choices, model: z3.ModelRef | None = None) -> Choices:
    """The choices as Python values (evaluated in ``model`` when symbolic)."""

    def v(x: Any) -> Any:
        if isinstance(x, tuple):
            return tuple(v(y) for y in x)
        return L.value(model, x)

    return Choices(ch.scope, *(v(getattr(ch, f)) for f in FIELDS))


def pin(sym: Choices, val: Choices) -> list:
    """Constraints fixing every symbolic choice to the value ``val`` gives it."""
    out = []

    def go(a: Any, b: Any) -> None:
        if isinstance(a, tuple):
            for x, y in zip(a, b):
                go(x, y)
        else:
            out.append(a == b)

    for f in FIELDS:
        b = getattr(val, f)
        if f == "oext" and not b:  # choices made without the grid: no ADD carries extra content
            b = tuple(tuple(False for _ in row) for row in sym.oext)
        if f == "ofile" and not b:  # no ADD carries a file part
            b = tuple(tuple(False for _ in row) for row in sym.ofile)
        if f == "ourl" and not b:  # no file part names a URL
            b = tuple(tuple(False for _ in row) for row in sym.ourl)
        if f == "ouri" and not b:  # no file part's data is a data URI
            b = tuple(tuple(False for _ in row) for row in sym.ouri)
        if f in ("car_err", "car_hist", "hist_mark"):
            b = bool(b)
        go(getattr(sym, f), b)
    return out
