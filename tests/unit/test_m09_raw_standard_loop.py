"""M9 Raw standard loop: tripwire and failure on generate/stream."""

import pytest
from conftest import scenario, stored, stored_ids

from guardspec.model.agent import Memory
from guardspec.model.messages import user
from guardspec.model.observation import Failed, Refused
from guardspec.model.processors import Abort, Processor, Throw, ThrowTripWire
from guardspec.model.scenario import Loop, Mode
from guardspec.reference import run

STANDARD = (Loop.GENERATE, Loop.STREAM)


def _sc(end, loop, title=True):
    return scenario(
        user("u1", "forbidden", 30),
        threads=stored(user("h1", "old", 10)),
        memory=Memory(generate_title=title),
        processors=(Processor("guard", end=end),),
        loop=loop,
    )


@pytest.mark.parametrize("loop", STANDARD)
@pytest.mark.parametrize("end", [Abort("blocked"), ThrowTripWire("blocked")])
def test_m9_tripwire_calls_no_model_saves_nothing_and_titles_nothing(loop, end):
    obs = run(_sc(end, loop), Mode.RAW)
    assert isinstance(obs.outcome, Refused) and obs.outcome.reason == "blocked"
    assert obs.prompts == ()
    assert stored_ids(obs) == ["h1"]
    assert obs.title == ""


@pytest.mark.parametrize("loop", STANDARD)
def test_m9_tripwire_result_has_empty_text_and_finish_reason_other(loop):
    obs = run(_sc(Abort("blocked"), loop), Mode.RAW)
    assert obs.result.text == ""
    assert obs.result.finish_reason == "other"
    assert obs.outcome.processor_id == "guard"


@pytest.mark.parametrize("loop", STANDARD)
def test_m9_tripwire_result_messages_are_the_post_processor_list(loop):
    """M9: on an input tripwire ``messages`` is memory + context + input."""
    obs = run(_sc(Abort("blocked"), loop), Mode.RAW)
    assert obs.result.messages == ("h1", "u1")
    assert obs.result.remembered == ("h1",)


@pytest.mark.parametrize("loop", STANDARD)
def test_m9_failure_rejects_and_saves_nothing(loop):
    obs = run(_sc(Throw("boom"), loop), Mode.RAW)
    assert isinstance(obs.outcome, Failed)
    assert obs.result is None
    assert obs.prompts == ()
    assert stored_ids(obs) == ["h1"]
    assert obs.title == ""
