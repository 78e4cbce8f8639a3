"""The vocabulary generated scenarios draw from (the marker, the policy, the tools, the thread)
and the swarms (Groce et al.): which features a scenario may use, drawn at random or aimed at
a clause, and the battery ``kill`` and ``explore`` run.
"""

from __future__ import annotations

from attrs import evolve, frozen
from hypothesis import strategies as st

from guardspec.model.agent import Actor, ClientTool, DenyPatterns, Mapping
from guardspec.model.scenario import Loop

MARKER = "FORBIDDEN"
THREAD, FRESH_THREAD, RESOURCE = "t1", "t2", "r1"
NOW = 1000
POLICY = DenyPatterns("no-marker", (MARKER,))
ACTOR = Actor("alice", "operator", "human")
TOOLS = (
    ClientTool("lookup", Mapping("text", "mapped:")),
    ClientTool("plain"),
    ClientTool("nullmap", Mapping("null")),
    ClientTool("broken", Mapping("throws")),
)

STEP_KINDS = frozenset(
    {
        "add",
        "remove",
        "add_system",
        "replace_system",
        "clear_input",
        "edit_system",
        "edit_message",
        "move_carrier",
        "move_text",
        "move_history",
    }
)
# "readd_result" (a stored tool result re-added under input) is a step kind of the aimed swarm
# REREAD only: left out of STEP_KINDS so that the random swarms draw as before
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
    odd_system: bool = False  # system entries mostly of the rare shapes (odd content, none at all); on in ODD
    service_actors: bool = (
        False  # agents that may allow service principals, and a service actor whose role they do not allow (G3); on in CALLER
    )
    asset_urls: bool = False  # file and image data naming URLs, agents allowing origins (the input-assets gate); on in ASSETS
    # Breakwater's reading (G12.5-G12.7): provider options across the
    # namespaces of its closed table, text/* file data valid and invalid base64, undefined and
    # stored-format entries in a returned systemMessages, Breakwater's roles and unknown actor
    # kinds; on in CALLER, BREAKWATER and the battery's SYSTEM (the campaigns draw them in
    # breakwater_swarms' share; the other bases draw what they drew)
    breakwater_shapes: bool = False
    # the stored assistant message of the pending call holds an earlier completed call of a
    # mapped client tool before it (a stored result on the remembered message the caller's
    # outcome comes back to: G11.1, G11.2); on in the battery's CARRIER
    carrier_history_result: bool = False
    # a message a processor writes carries metadata holding a note now and then (M12: a prompt
    # message is {role, content}, its metadata never reaches the model, M12.5); on in the
    # battery's MOVES only (``battery``), so that the campaigns draw what they drew
    message_metadata: bool = False
    # a processor returns now and then an object whose systemMessages holds null or undefined
    # (G7.5), or an array with an AI SDK system entry (G7.2); on in the
    # battery's MOVES only
    returned_system_entries: bool = False
    # a text/* file part's base64 data is now and then a data URI naming another media type
    # (``data:image/png;base64,…``), which Mastra sends under the part's own type (M12.10) and
    # Breakwater reads so (G12.6); on in the battery's ASSETS only
    foreign_data_uris: bool = False
    option_refusals: int = (
        1  # provider options Breakwater refuses, in ten; above 1 (the campaigns' Breakwater swarms) the rarer shapes are drawn densely
    )
    # calls that get past the early gates to the stages reading their shapes: mostly the allowed
    # actor, no titling memory, no context option, malformed caller input (G1) only at the rate
    # of the other swarms and no double outcome (G4), no other hooks (G0), and every processor
    # but the last one well-behaved (it returns the list, and writes no weird value), the last
    # one mostly returning too; the shapes the swarm draws then meet the checks, mapping and
    # policies that read them (``reaching`` in ``campaign_swarms``)
    reaching: bool = False
    # half the calls by an actor of any kind and role, each as often as the others (the
    # campaigns' early-stopping share, whose calls draw every early stop)
    rare_actors: bool = False
    # a processor returns the list with the remembered message carrying the caller's outcome
    # replaced by a literal copy of it (equal parts, no toolInvocations mirror: a change, G9);
    # on in the campaigns' reaching share and the swarms ``--focus`` aims at S3, S5 and S6
    literal_carrier_copies: bool = False
    # a system message's content edited as text and image parts (not text alone, G8); on in the
    # campaigns' reaching share and the swarms ``--focus`` aims at S7
    system_non_text_parts: bool = False
    # a system message's providerOptions or experimental_providerMetadata edited to hold a
    # function (not clonable, G8); on in the campaigns' reaching share
    unclonable_system_options: bool = False
    # a system message now and then (one in five) with a getter as its content, its
    # providerOptions or a text part's text (not own data, G8), without the other weird values;
    # on in the campaigns' reaching share and the swarms ``--focus`` aims at S7
    system_getters: bool = False
    # a processor that moved the carrier out of the input (removed it, then added it back under
    # another source) refuses, one in eight (aborts, trips, throws: G13 removes the carrier all the same, S8);
    # on in the campaigns' reaching share and the swarms ``--focus`` aims at S8
    refusing_movers: bool = False


DEFAULT = Swarm()


def well_behaved(swarm: Swarm, steps_too: bool = True) -> Swarm:
    """``swarm``'s processors that hand the list on: they return the list they received or an
    array and, with ``steps_too``, replace no system message and write no weird value
    (``Swarm.reaching``); without ``steps_too`` (the last processor) an object return is kept
    too, so that what a returned ``systemMessages`` holds meets the checks of G7."""
    returns = (swarm.returns & ({"same", "array"} if steps_too else {"same", "array", "object"})) or frozenset({"same"})
    tamed = evolve(swarm, endings=frozenset({"return"}), returns=returns)
    return evolve(tamed, steps=swarm.steps - {"replace_system"}, weird_values=False, odd_system=False) if steps_too else tamed


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
        titles=base.titles or draw(st.integers(0, 19)) == 11,  # now and then memory generating titles (M13; G0 under the guard)
        max_processors=base.max_processors,
        max_calls=base.max_calls,
        carrier=base.carrier,
        return_weight=base.return_weight,
        identity_rate=base.identity_rate,
        min_processors=base.min_processors,
        min_steps=base.min_steps,
        breakwater_shapes=base.breakwater_shapes,
        service_actors=base.service_actors,
        asset_urls=base.asset_urls,
        option_refusals=base.option_refusals,
        reaching=base.reaching,
    )


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


CALLER = Swarm(context=True, marker_rate=0.5, breakwater_shapes=True, service_actors=True)

REREAD = Swarm(
    steps=frozenset({"readd_result"}),
    endings=frozenset({"return"}),
    returns=frozenset({"same", "primitive"}),
    memory=True,
    rbac_denials=False,
    weird_values=False,
    marker_rate=0.0,
    max_processors=2,
    min_processors=1,
    min_steps=1,
)
"""Answered calls whose processors re-add a stored tool result under ``input``, which M11 then
maps: the mapped output the model receives must be what the policies read (I4, G11.3;
the SYSTEM swarm reaches G12.4's case, system messages of several text parts)."""

ASSETS = Swarm(asset_urls=True, rbac_denials=False, weird_values=False, policy_errors=False, broken_mapping=False)
"""File and image parts whose data names a URL (allowed and denied origins, credentials, other
schemes, a URL inside a data URI), on agents with and without ``allowedInputAssetOrigins``:
Breakwater's input-assets gate (G16)."""

ASSET_ORIGIN = "https://assets.example"
ASSET_URLS = (
    "https://assets.example/a.png",  # allowed when the agent lists the origin
    "https://other.example/b.png",  # another origin
    "https://assets.example:8443/c.png",  # another port: another origin
    "https://u:p@assets.example/d.png",  # credentials
    "ftp://assets.example/e.txt",  # another scheme
    "note: see the file",  # parses as a URL of scheme "note"
    "data:text/plain,https://other.example/f",  # a URL inside a data URI
)


def battery(max_calls: int = 3) -> list[tuple[str, st.SearchStrategy]]:
    """The strategies ``kill`` and ``explore`` run, in order: random swarms first, then each
    aimed swarm as it stands (not re-drawn, so its features stay together)."""
    out: list[tuple[str, st.SearchStrategy]] = [("mixed", mixed_swarms(max_calls))]
    # the aimed system swarm here draws Breakwater's provider option shapes (the campaigns' mix
    # keeps SYSTEM without them: see ``Swarm.breakwater_shapes``)
    system = evolve(SYSTEM, breakwater_shapes=True)
    # the input-assets gate's URLs on calls that mostly reach the model (processors return)
    assets = evolve(
        ASSETS,
        endings=frozenset({"return"}),
        returns=frozenset({"same", "array"}),
        marker_rate=0.0,
        breakwater_shapes=True,
        foreign_data_uris=True,
    )
    for name, b in (
        ("removal", REMOVAL),
        ("carrier", evolve(CARRIER, carrier_history_result=True)),
        ("system", system),
        ("tame", TAME),
        ("moves", evolve(MOVES, message_metadata=True, returned_system_entries=True)),
        ("caller", CALLER),
        ("reread", REREAD),
        ("assets", assets),
    ):
        out.append((name, st.just(evolve(b, max_calls=max_calls))))
    return out


def mixed_swarms(max_calls: int = 3) -> st.SearchStrategy[Swarm]:
    """Swarms around the default, move-heavy, tame and removal-aimed bases, in equal shares."""
    return st.one_of(*(swarms(evolve(b, max_calls=max_calls)) for b in (DEFAULT, MOVES, TAME, REMOVAL, SYSTEM)))


ODD = Swarm(weird_values=True, min_processors=1, min_steps=1, odd_system=True)
"""Every feature with weird values always on (not re-drawn): the rare shapes (null or scalar
provider options, system entries without content, odd content) a campaign's census must see."""


BREAKWATER = Swarm(steps=STEP_KINDS | {"readd_result"}, breakwater_shapes=True, service_actors=True, option_refusals=4)
"""Every feature of the default swarm, Breakwater's shapes (G12.5-G12.7, G7.5, G3.1: provider options
across namespaces, ``text/*`` file data as base64, undefined and stored-format entries in a
returned ``systemMessages``, Breakwater's roles and unknown actor kinds) and history re-added
under ``input``; re-drawn like the other bases."""


def breakwater_swarms(max_calls: int = 1) -> st.SearchStrategy[Swarm]:
    """Swarms that draw Breakwater's shapes (``BREAKWATER``'s): re-drawn around ``BREAKWATER``
    (two shares in ten) and the system swarm with those shapes (one), the aimed ``CALLER``
    (one), ``ASSETS`` with ``text/*`` data as base64 where no URL (three), ``REREAD`` (one), and
    processors returning ``{messages, systemMessages}`` (two: undefined and stored-format
    entries there). All but ``REREAD`` draw densely (``option_refusals`` above 1): caller
    messages of two or three parts half the time, file data and provider options of every
    shape, Breakwater's actors; so each shape is made often enough that the default
    campaign's census counts none of them zero times."""
    m = max_calls
    redrawn = [swarms(evolve(b, max_calls=m)) for b in (BREAKWATER, evolve(SYSTEM, breakwater_shapes=True, option_refusals=4))]
    assets = evolve(ASSETS, breakwater_shapes=True, option_refusals=4, max_calls=m)
    returned = evolve(BREAKWATER, returns=frozenset({"object"}), endings=frozenset({"return"}), min_processors=1, min_steps=1, max_calls=m)
    caller = evolve(CALLER, option_refusals=4, max_calls=m)  # the battery's CALLER draws as it did
    # the caller's outcome on a remembered message, a stored result beside it (G11.1, G11.2)
    carrier = evolve(CARRIER, carrier_history_result=True, max_calls=m)
    shares = (
        [redrawn[0]] * 2
        + [redrawn[1], st.just(caller)]
        + [st.just(assets)] * 3
        + [st.just(evolve(REREAD, max_calls=m))]
        + [st.just(returned)] * 2
        + [st.just(carrier)] * 2
    )
    return st.sampled_from(range(len(shares))).flatmap(lambda i: shares[i])


def campaign_swarms(max_calls: int = 1) -> st.SearchStrategy[Swarm]:
    """The differential campaigns' mix (``guardspec diff``, ``mastra-diff``), in twenty-fourths:
    the mixed swarms (fourteen), ``ODD`` (three; half of them with memory generating titles)
    and the swarms of Breakwater's shapes (``breakwater_swarms``, seven). Twenty-one cases in
    twenty-four are drawn ``reaching``: the same shapes in calls that get past the early gates,
    so that most cases reach the policies or the model and each shape meets the stage that
    reads it, with literal copies of the carrier, non-text system content, system options that
    cannot be cloned, getters on system messages and refusals after a carrier move among them;
    the rest draw every early stop (denied actors, titling memory, malformed input, other
    hooks, failing processors), half of them by an actor of any kind."""
    mixed = mixed_swarms(max_calls)
    # ODD half the time with memory generating titles (M13 title; rare in the mixed swarms)
    odd, bw = (
        st.sampled_from([evolve(ODD, max_calls=max_calls), evolve(ODD, titles=True, max_calls=max_calls)]),
        breakwater_swarms(max_calls),
    )
    # reaching calls also write literal copies of the carrier, non-text system content, options
    # that cannot be cloned, getters on system messages (S3, S5, S7) and refusals after a
    # carrier move (S8): shapes whose readers sit past the early gates
    deep = {
        "reaching": True,
        "literal_carrier_copies": True,
        "system_non_text_parts": True,
        "unclonable_system_options": True,
        "system_getters": True,
        "refusing_movers": True,
    }
    reaching = [s.map(lambda sw: evolve(sw, **deep)) for s in (mixed, odd, bw)]
    stopping = [s.map(lambda sw: evolve(sw, rare_actors=True)) for s in (mixed, odd, bw)]
    shares = stopping + [reaching[0]] * 13 + [reaching[1]] * 2 + [reaching[2]] * 6
    # explicit shares: ``one_of`` flattens nested ``one_of``s and drops repeated branches
    return st.sampled_from(range(len(shares))).flatmap(lambda k: shares[k])


# -- a campaign aimed at one clause (``guardspec diff --focus``) ------------------------------------

RETURNS = Swarm(endings=frozenset({"return"}), return_weight=1, min_processors=1)
"""Processors that return, every kind of value (S2, G7)."""

ENDINGS = Swarm(endings=END_KINDS - {"return"}, min_processors=1)
"""Processors that abort, trip, throw or abort and throw (S4, G6)."""

_FOCUS: dict[str, tuple[tuple[Swarm, ...], bool]] = {
    # clause -> (the swarms its calls are drawn from, whether they are drawn ``reaching``)
    "S1": ((TAME, RETURNS, ASSETS), True),
    "S2": ((RETURNS, MOVES, TAME), True),
    "S3": ((CARRIER, evolve(CARRIER, carrier_history_result=True, literal_carrier_copies=True), MOVES), True),
    "S4": ((ENDINGS, TAME), True),
    "S5": (
        (
            SYSTEM,
            evolve(SYSTEM, breakwater_shapes=True, option_refusals=4),
            MOVES,
            REREAD,
            CALLER,
            evolve(CARRIER, literal_carrier_copies=True),
        ),
        True,
    ),
    "S6": ((evolve(CARRIER, carrier_history_result=True, literal_carrier_copies=True), REREAD), True),
    # every processor may write a weird system message, so not drawn reaching (which tames all
    # but the last), apart from the tame swarm of non-text content
    "S7": (
        (
            evolve(SYSTEM, weird_values=True, odd_system=True, system_non_text_parts=True),
            evolve(SYSTEM, weird_values=True, odd_system=True, breakwater_shapes=True),
            evolve(SYSTEM, system_non_text_parts=True, system_getters=True, reaching=True),
        ),
        False,
    ),
    "S8": ((REMOVAL, evolve(REMOVAL, rbac_denials=True), ENDINGS, evolve(CARRIER, refusing_movers=True)), False),
    "S9": ((REMOVAL, evolve(REMOVAL, rbac_denials=True)), False),
    "G0": ((ODD, evolve(TAME, titles=True)), False),
    "G1": ((ODD, CALLER), False),
    "G2": ((CALLER, ASSETS, TAME), False),
    "G3": ((CALLER, evolve(BREAKWATER, option_refusals=4)), False),
    "G4": ((CARRIER, ODD), False),
    "G15": ((ENDINGS, TAME, CALLER), False),
    "G16": ((ASSETS, evolve(ASSETS, breakwater_shapes=True, option_refusals=4, foreign_data_uris=True)), True),
}
# the guard clauses that refine a seed sentence draw what it draws
for _g, _s in (
    ("G5", "S1"),
    ("G6", "S4"),
    ("G7", "S2"),
    ("G8", "S7"),
    ("G9", "S5"),
    ("G10", "S5"),
    ("G11", "S6"),
    ("G12", "S5"),
    ("G13", "S8"),
    ("G14", "S9"),
):
    _FOCUS[_g] = _FOCUS[_s]

FOCUS_CLAUSES = tuple(sorted(_FOCUS, key=lambda c: (c[0] != "S", int(c[1:]))))
"""The clauses ``focused_swarms`` aims at: the seed's sentences and the guard's clauses."""


def focus_clause(clause: str) -> str:
    """The clause of ``FOCUS_CLAUSES`` a focus names: ``G8.1`` aims at ``G8``. ``ValueError``
    for a clause no swarm is aimed at."""
    top = clause.strip().upper().split(".")[0]
    if top not in _FOCUS:
        raise ValueError(f"no campaign is aimed at {clause!r}; one of {', '.join(FOCUS_CLAUSES)} (a sub-clause aims at its clause)")
    return top


def focused_swarms(clause: str, max_calls: int = 1) -> st.SearchStrategy[Swarm]:
    """A campaign weighted towards ``clause``: half its cases from the swarms aimed at it (as they
    stand, so that their features stay together; drawn ``reaching`` where the table or the swarm
    says so), half the campaign's own mix
    (``campaign_swarms``), so that the rest of the contract is still exercised."""
    bases, reaching = _FOCUS[focus_clause(clause)]
    aimed = [st.just(evolve(b, max_calls=max_calls, reaching=reaching or b.reaching)) for b in bases]
    shares = [campaign_swarms(max_calls)] * len(aimed) + aimed
    return st.sampled_from(range(len(shares))).flatmap(lambda k: shares[k])
