"""G0 Construction (S1): which application input processors the guarded agent accepts."""

import pytest
from conftest import scenario, stored, stored_ids

from guardspec.model.agent import Memory
from guardspec.model.messages import user
from guardspec.model.observation import Answered, Failed
from guardspec.model.processors import FORBIDDEN_HOOKS, Abort, Processor
from guardspec.model.scenario import Mode
from guardspec.reference import run

RESERVED = ("breakwater-rbac", "breakwater-input-assets", "breakwater-client-tool-output", "breakwater-policy-engine")


def _guarded(*procs, **kw):
    return run(scenario(user("u1", "hi", 30), processors=procs, **kw), Mode.GUARDED)


def _type_error(obs):
    assert isinstance(obs.outcome, Failed), obs.outcome
    assert obs.outcome.error.startswith("TypeError")
    assert obs.audit == () and obs.prompts == ()
    return obs.outcome.error


def test_g0_empty_id_is_refused_with_a_type_error():
    _type_error(_guarded(Processor("")))


@pytest.mark.parametrize("pid", RESERVED)
def test_g0_reserved_id_is_refused_with_a_type_error(pid):
    assert pid in _type_error(_guarded(Processor(pid)))


def test_g0_processor_without_process_input_is_refused():
    _type_error(_guarded(Processor("p", hooks=())))


@pytest.mark.parametrize("hook", FORBIDDEN_HOOKS)
def test_g0_each_forbidden_hook_is_refused_and_named(hook):
    err = _type_error(_guarded(Processor("p", hooks=("processInput", hook))))
    assert hook in err


def test_g0_a_tool_result_hook_is_refused_and_named_after_the_error_hook():
    """G0 (the seed: tool-result hooks are unavailable): processToolResult is refused, last in
    the clause's order."""
    assert "processToolResult" in _type_error(_guarded(Processor("p", hooks=("processInput", "processToolResult"))))
    err = _type_error(_guarded(Processor("p", hooks=("processInput", "processToolResult", "processAPIError"))))
    assert "processAPIError" in err and "processToolResult" not in err


def test_g0_first_forbidden_hook_in_clause_order_is_named():
    err = _type_error(_guarded(Processor("p", hooks=("processInput", "processAPIError", "processInputStep"))))
    assert "processInputStep" in err and "processAPIError" not in err


def test_g0_refused_processor_never_runs():
    obs = _guarded(Processor("ok", end=Abort("ran")), Processor("bad", hooks=("processInput", "processOutputResult")))
    err = _type_error(obs)
    assert "ran" not in err


def test_g0_memory_with_title_generation_is_refused_at_every_resolution():
    threads = stored(user("h1", "old", 10))
    for _ in range(2):
        obs = _guarded(Processor("p"), threads=threads, memory=Memory(generate_title=True))
        _type_error(obs)
        assert stored_ids(obs) == ["h1"]


def test_g0_well_formed_processor_is_accepted():
    obs = _guarded(Processor("my-processor"), threads=stored(), memory=Memory(generate_title=False))
    assert isinstance(obs.outcome, Answered)


def test_g0_construction_checks_titles_roles_kinds_origins_then_processors():
    """G0.1: the first failing check in the order title setting, roles, kinds, asset origins, processors gives the error."""
    bad_proc = Processor("breakwater-rbac")
    steps = [
        (dict(memory=Memory(generate_title=True), allowed_roles=("nobody",)), "title"),
        (dict(allowed_roles=("nobody",), allowed_principal_kinds=("robot",)), "allowedRoles"),
        (dict(allowed_principal_kinds=("robot",), allowed_input_asset_origins=("ftp://x.example",)), "allowedPrincipalKinds"),
        (dict(allowed_input_asset_origins=("ftp://x.example",)), "allowedInputAssetOrigins"),
        ({}, "breakwater-rbac"),
    ]
    for kw, named in steps:
        err = _type_error(_guarded(bad_proc, **kw))
        assert named in err, (kw, err)
        for _, later in steps[steps.index((kw, named)) + 1 :]:
            assert later not in err, (kw, err)


@pytest.mark.parametrize(
    "kw, label",
    [
        (dict(allowed_roles=("operator", "robot")), "allowedRoles"),
        (dict(allowed_roles=("operator", "operator")), "allowedRoles"),
        (dict(allowed_principal_kinds=("human", "robot")), "allowedPrincipalKinds"),
        (dict(allowed_principal_kinds=("service", "service")), "allowedPrincipalKinds"),
    ],
)
def test_g0_an_offending_role_or_kind_is_named_by_its_index(kw, label):
    """G0.2: an unknown or repeated entry of the allowed roles or kinds is named by its index."""
    import re

    err = _type_error(_guarded(Processor("p"), **kw))
    assert re.search(rf"{label}\D*\b1\b", err), err
