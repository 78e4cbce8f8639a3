"""Every semantic mutant is killed within the profile's budget."""

import pytest

from guardspec.properties import settings as profiles
from guardspec.properties.mutants import MUTANTS, kill

profiles.load()


def test_there_are_enough_mutants_and_each_names_a_clause():
    assert len(MUTANTS) >= 15
    for m in MUTANTS.values():
        assert m.clause and m.description


@pytest.mark.parametrize("name", list(MUTANTS))
@pytest.mark.slow
def test_mutant_is_killed(name):
    v = kill(name, profiles.budget("mutant"))
    assert v.killed_by is not None, f"{name} survived {v.examples} examples"


def test_activation_is_undone():
    import importlib

    chain = importlib.import_module("guardspec.reference.guard.chain")
    before = chain.refusal_removal
    with MUTANTS["refusal_keeps_input"].activate():
        assert chain.refusal_removal is not before
    assert chain.refusal_removal is before
