"""Breakwater's departures from the seed (docs/breakwater-findings.md), each a named deviation
of the model: the reference with one rule bent the way Breakwater bends it, so that the model
run with deviation ``BW-Fn`` predicts what Breakwater observes on any scenario, not only on the
finding's vector. A known entry naming a deviation (``known.py``) accepts a case only when the
implementation's observation equals that prediction field by field.

A deviation replaces names in the reference module that uses them, as a semantic mutant does
(``properties/mutants.py``); these are not part of the contract, so they live here and not in
``reference/``. Unlike a mutant, which bends the reference for everyone while it is active, the
replacements are installed once as dispatchers that take the deviated path only while the
deviation is active in the calling context (a context variable), so a deviated run in one
campaign thread never bends the model another thread is running.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import threading
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from typing import Any

from attrs import frozen

from guardspec.model import codec
from guardspec.model.messages import Source
from guardspec.model.scenario import Loop, Mode
from guardspec.reference import run

M = importlib.import_module
chain = M("guardspec.reference.guard.chain")
changes = M("guardspec.reference.guard.changes")
application = M("guardspec.reference.guard.application")
runmod = M("guardspec.reference.run")
mapping = M("guardspec.reference.mapping")
ml = M("guardspec.reference.messagelist")

Patch = tuple[Any, str, Callable[[Any], Any]]  # (module, attribute, original -> replacement)


@frozen
class Deviation:
    """One finding as a change to the model: its id (the finding's), the clause it departs
    from, and the patches that make the reference do what Breakwater does."""

    name: str
    clause: str
    patches: Callable[[], list[Patch]]
    doc: str = ""


# -- the deviations ------------------------------------------------------------------------------


def _clone_check_on_prompt_entries() -> list[Patch]:
    """BW-F2, against G8.3 (S7): Breakwater's processor wrapper checks that what a processor
    adds or changes survives ``structuredClone`` only among the prompt entries it snapshotted
    (system messages, messages that are not pure call input). A message appended to the
    returned array (re-added as call input) or a caller message edited in place is not checked:
    an uncloneable value there goes on, and the input-assets gate, whose prompt conversion
    cannot take it, refuses the call as not classified (G16.2)."""
    return [(chain, "all_entries", lambda _orig: changes.prompt_entries)]


def _engine_return_under_first_source() -> list[Patch]:
    """BW-F3, against G12.10 and G7.3 (S3): on the durable loop Breakwater's policy engine,
    once every policy allows, returns the input view it was handed, and Mastra's durable runner
    re-adds each message under the one source its checker names first. A carrier (memory and
    call input) comes back as memory alone, so the finalisation, which saves the input and
    response sets, never saves the caller's client tool outcome on it: the thread keeps the
    call as it held it, though the model was sent the outcome."""

    def replace(_orig: Any) -> Any:
        def policy_engine_input_return(lst: Any) -> Any:
            view = lst.view(Source.INPUT)
            first = {i: frozenset({s}) for i, s in ml.checker(lst).items()}
            try:
                return application.apply_messages(lst, view, view, first)
            except application.CannotApply as err:
                return lst if err.partial is None else err.partial

        return policy_engine_input_return

    return [(chain, "policy_engine_input_return", replace)]


def _mastra_maps_after_the_policies() -> list[Patch]:
    """BW-F4, against G11.2 (S6, I4): Breakwater's client tool output mapping maps, on a
    carrier, only the caller's outcome parts, and the policies read those; Mastra's own mapping
    pass (``applyClientToolModelOutput``, M11) then runs before the model step as it does
    without the guard, and maps every other unmapped result of the input view, a historical
    result on the carrier among them, logging a mapping that throws and sending that result
    raw (M11.1). The model is sent a mapped output no policy read, and it is saved with that
    cache. On generate and stream only: on the durable loop the engine's return has made the
    carrier memory only by then (BW-F3), so that pass finds nothing of it to map."""

    def replace(orig: Any) -> Any:
        def answer_step(scenario: Any, lst: Any, threads: Any, trace: Any, *, raw: bool) -> Any:
            if not raw and scenario.call.loop is not Loop.DURABLE:
                lst = mapping.map_client_outputs(scenario.agent, lst, strict=False)
            return orig(scenario, lst, threads, trace, raw=raw)

        return answer_step

    return [(runmod, "answer_step", replace)]


def _call_context_unread() -> list[Patch]:
    """BW-F5, against G10.3 (S1, S5, I4): Breakwater's policy engine reads the caller's
    messages and the processors' additions only, never the call's own context messages. On
    generate and stream the guard refuses a ``context`` option (G1.1); on the durable loop
    Mastra's durable agent puts the context in the prompt, so it reaches the model unread, and
    a deny pattern only the context holds does not stop the call."""

    def replace(orig: Any) -> Any:
        def read_text(lst: Any, recorded: Any, record: Any, call_context: Any = frozenset(), whole_list: bool = True) -> Any:
            return orig(lst, recorded, record, frozenset(), whole_list)

        return read_text

    return [(chain, "read_text", replace)]


def _deviation(name: str, clause: str, patches: Callable[[], list[Patch]]) -> Deviation:
    return Deviation(name, clause, patches, " ".join((patches.__doc__ or "").split()))


DEVIATIONS: dict[str, Deviation] = {
    d.name: d
    for d in (
        _deviation("BW-F2", "G8.3", _clone_check_on_prompt_entries),
        _deviation("BW-F3", "G12.10", _engine_return_under_first_source),
        _deviation("BW-F4", "G11.2", _mastra_maps_after_the_policies),
        _deviation("BW-F5", "G10.3", _call_context_unread),
    )
}
"""Every deviation by name (the finding's id)."""


# -- running the model with deviations ---------------------------------------------------------

_ACTIVE: ContextVar[frozenset[str]] = ContextVar("guardspec_deviations", default=frozenset())
_INSTALLED: set[str] = set()
_LOCK = threading.Lock()


def _dispatcher(name: str, original: Any, deviated: Any) -> Any:
    """The reference's ``original`` unless deviation ``name`` is active in this context."""

    @functools.wraps(original)
    def dispatch(*a: Any, **k: Any) -> Any:
        return (deviated if name in _ACTIVE.get() else original)(*a, **k)

    return dispatch


def _install(names: Iterable[str]) -> None:
    with _LOCK:
        for name in names:
            if name in _INSTALLED:
                continue
            for mod, attr, make in DEVIATIONS[name].patches():
                original = getattr(mod, attr)
                setattr(mod, attr, _dispatcher(name, original, make(original)))
            _INSTALLED.add(name)


@contextlib.contextmanager
def deviating(names: Iterable[str]) -> Iterator[None]:
    """Within the block, the reference runs with every deviation of ``names`` (in this thread
    and context only)."""
    names = frozenset(names)
    unknown = names - DEVIATIONS.keys()
    if unknown:
        raise KeyError(f"no deviation {sorted(unknown)[0]!r}")
    _install(names)
    token = _ACTIVE.set(_ACTIVE.get() | names)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def deviated_observation(sj: dict, mode: str, names: Iterable[str]) -> dict:
    """The model's observation of scenario ``sj`` in ``mode`` with the deviations ``names``."""
    with deviating(names):
        return codec.observation_to_json(run(codec.scenario_from_json(sj), Mode(mode)))


__all__ = ["DEVIATIONS", "Deviation", "deviated_observation", "deviating"]
