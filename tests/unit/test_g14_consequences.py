"""G14 Consequences (S9): nothing of a refused call is saved, titled or returned."""

import pytest
from conftest import LOOPS, prompt_lines, scenario, stored, stored_message, tool, tool_parts

from guardspec.model.agent import DenyPatterns
from guardspec.model.messages import Source, assistant, user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import Abort, AddMessages, EditMessage, Processor, Throw
from guardspec.model.scenario import Loop, Mode
from guardspec.reference import run, run_thread

HISTORY = stored(user("h1", "old", 10))
DENY = (DenyPatterns("deny", ("forbidden",)),)
REFUSERS = {
    "policy": dict(policies=DENY),
    "abort": dict(processors=(Processor("p", steps=(EditMessage("h1", "changed"),), end=Abort("no")),)),
    "failure": dict(processors=(Processor("p", steps=(AddMessages((user("c9", "ctx", 40),), Source.CONTEXT),), end=Throw("x")),)),
}


def _run(kind, loop=Loop.GENERATE, threads=HISTORY, messages=(user("u1", "forbidden", 30),)):
    obs = run(scenario(*messages, threads=threads, loop=loop, **REFUSERS[kind]), Mode.GUARDED)
    assert isinstance(obs.outcome, Refused)
    return obs


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("kind", sorted(REFUSERS))
def test_g14_refused_call_leaves_the_stored_thread_as_it_was(kind, loop):
    obs = _run(kind, loop)
    assert obs.stored == HISTORY.threads[0].messages
    assert obs.title == ""
    assert obs.prompts == ()


@pytest.mark.parametrize("loop", LOOPS)
def test_g14_stored_pending_client_call_stays_pending(loop):
    threads = stored(user("u0", "where am I?", 1000), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=2000)
    obs = _run("policy", loop, threads, (caller, user("u2", "forbidden", 3000)))
    assert tool_parts(stored_message(obs, "a1"))[0].state.value == "call"


@pytest.mark.parametrize("loop", [Loop.GENERATE, Loop.STREAM])
def test_g14_result_omits_input_and_changed_history(loop):
    obs = _run("abort", loop)
    assert obs.result.messages == ()
    assert obs.result.remembered == ()


@pytest.mark.parametrize("loop", [Loop.GENERATE, Loop.STREAM])
def test_g14_result_keeps_unchanged_history(loop):
    obs = _run("policy", loop)
    assert obs.result.messages == ("h1",)
    assert obs.result.remembered == ("h1",)


@pytest.mark.parametrize("kind", sorted(REFUSERS))
def test_g14_refused_result_has_empty_text_and_finish_reason_other(kind):
    obs = _run(kind)
    assert (obs.result.text, obs.result.finish_reason) == ("", "other")


def test_g14_guarded_agent_never_generates_titles():
    obs = run(scenario(user("u1", "hi", 30), threads=HISTORY), Mode.GUARDED)
    assert isinstance(obs.outcome, Answered)
    assert obs.title == ""


@pytest.mark.parametrize("loop", LOOPS)
def test_g14_later_call_never_sees_the_refused_text(loop):
    first = scenario(user("u1", "forbidden secret", 30), threads=HISTORY, loop=loop, policies=DENY)
    second = scenario(user("u2", "next", 40), threads=HISTORY, loop=loop)
    (_, o1), (_, o2) = run_thread([first, second], Mode.GUARDED)
    assert isinstance(o1.outcome, Refused) and isinstance(o2.outcome, Answered)
    assert not any("forbidden" in line for line in prompt_lines(o2))
