"""M10 Raw durable loop: a tripwire is still finalised; other processor errors are swallowed."""

from conftest import prompt_lines, scenario, stored, stored_ids

from guardspec.model.agent import Memory
from guardspec.model.messages import user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import Abort, AddMessages, Processor, Throw, ThrowTripWire
from guardspec.model.scenario import Loop, Mode
from guardspec.reference import run


def _sc(proc, title=True):
    return scenario(
        user("u1", "forbidden", 30),
        threads=stored(user("h1", "old", 10)),
        memory=Memory(generate_title=title),
        processors=(proc,),
        loop=Loop.DURABLE,
    )


def test_m10_tripwire_is_seen_by_the_caller_without_a_model_step():
    obs = run(_sc(Processor("guard", end=Abort("blocked"))), Mode.RAW)
    assert obs.outcome == Refused("blocked", "guard")
    assert obs.prompts == ()


def test_m10_tripwire_still_saves_the_call_input():
    obs = run(_sc(Processor("guard", end=Abort("blocked"))), Mode.RAW)
    assert stored_ids(obs) == ["h1", "u1"]


def test_m10_tripwire_still_generates_a_title_from_the_blocked_input():
    obs = run(_sc(Processor("guard", end=ThrowTripWire("blocked"))), Mode.RAW)
    assert obs.title
    assert "forbidden" in obs.title


def test_m10_tripwire_without_title_generation_leaves_the_title_empty():
    obs = run(_sc(Processor("guard", end=Abort("blocked")), title=False), Mode.RAW)
    assert obs.title == ""
    assert stored_ids(obs) == ["h1", "u1"]


def test_m10_other_processor_error_is_swallowed_and_the_model_runs_on_the_list_as_it_stood():
    proc = Processor("p", steps=(AddMessages((user("n1", "added before the throw", 40),)),), end=Throw("boom"))
    obs = run(_sc(proc), Mode.RAW)
    assert isinstance(obs.outcome, Answered)
    assert prompt_lines(obs)[1:] == ["user: old", "user: forbidden", "user: added before the throw"]
    assert stored_ids(obs) == ["h1", "u1", "n1", "reply-1"]


def test_m10_durable_has_no_generate_result_object():
    obs = run(_sc(Processor("p")), Mode.RAW)
    assert isinstance(obs.outcome, Answered)
    assert obs.result is None


def test_m10_finalisation_after_a_tripwire_stops_saving_at_a_message_json_cannot_write():
    """M10.1: after a tripwire the durable save stops at a message JSON cannot write; those before it stay."""
    from guardspec.model.messages import Message, Role, TextPart
    from guardspec.model.values import BigInt, obj

    bad = Message("u2", Role.USER, (TextPart("big", provider_options=obj(n=BigInt(1))),), 40)
    sc = scenario(
        user("u1", "fine", 30),
        bad,
        user("u3", "last", 50),
        memory=Memory(generate_title=False),
        processors=(Processor("guard", end=Abort("blocked")),),
        loop=Loop.DURABLE,
    )
    obs = run(sc, Mode.RAW)
    assert obs.outcome == Refused("blocked", "guard")
    assert stored_ids(obs) == ["u1"]


def test_m10_no_title_after_a_tripwire_when_the_read_back_throws():
    """M10.1: after a tripwire no title is made when the result-text read-back throws."""
    from conftest import tool

    from guardspec.model.messages import Source, assistant
    from guardspec.model.values import obj

    pending = assistant("n1", tool("tc1", "approval-requested", args=obj(q=1)), created_at=40)
    proc = Processor("guard", steps=(AddMessages((pending,), Source.RESPONSE, False),), end=Abort("blocked"))
    obs = run(_sc(proc), Mode.RAW)
    assert obs.outcome == Refused("blocked", "guard")
    assert "u1" in stored_ids(obs)
    assert obs.title == ""


def test_m10_finalisation_drains_the_input_and_response_sets_and_keeps_the_messages():
    """M10.2: after saving, durable finalisation empties the input and response sets; the messages stay listed."""
    from conftest import list_sources

    obs = run(_sc(Processor("p")), Mode.RAW)
    srcs = list_sources(obs)
    assert set(srcs) == {"h1", "u1", "reply-1"}
    assert srcs["h1"] == {"memory"} and srcs["u1"] == set() and srcs["reply-1"] == set()
