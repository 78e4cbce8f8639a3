"""Each invariant function reports a violation on a crafted bad observation (no check that
cannot fail), and holds on the matching good one."""

import pytest
from attrs import evolve

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
from guardspec.model.messages import Message, Role, Source, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.observation import Answered, AuditEvent, ListMessage, ListView, Observation, Refused, Result
from guardspec.model.processors import Abort, AbortThenThrow, Processor, Return, Throw
from guardspec.model.scenario import Call, Loop, Scenario
from guardspec.model.values import obj
from guardspec.properties import invariants as inv

ACTOR = Actor("alice", "operator")
U0 = Message("u0", Role.USER, (TextPart("note-00"),), created_at=1, thread_id="t1", resource_id="r1")
A0 = Message(
    "a0",
    Role.ASSISTANT,
    (ToolPart("tc1", "lookup", ToolState.CALL, args=obj(q="note-01")),),
    created_at=2,
    thread_id="t1",
    resource_id="r1",
)
STORE = ThreadStore((Thread("t1", "r1", (U0, A0)),))
C1 = Message("c1", Role.USER, (TextPart("FORBIDDEN-01"),), created_at=10)
AGENT = Agent(policies=(DenyPatterns("no-marker", ("FORBIDDEN",)),), memory=Memory(), client_tools=(ClientTool("lookup", Mapping()),))


def scenario(agent=AGENT, loop=Loop.GENERATE, msgs=(C1,)):
    return Scenario(agent, Call(loop=loop, messages=msgs, actor=ACTOR, memory=MemoryBinding("t1", "r1")), STORE)


REFUSED = Refused("policy 'no-marker' denied the input", "breakwater-policy-engine")


def EV(action, decision, reason, **d):
    return AuditEvent(action, decision, reason, ACTOR, "agent:agent", tuple(sorted(d.items())))


def test_i1_flags_a_saved_refused_call():
    after = ThreadStore((Thread("t1", "r1", (U0, A0, C1)),))
    assert inv.refused_call_leaves_threads_intact(scenario(), Observation(REFUSED), STORE, after)
    assert not inv.refused_call_leaves_threads_intact(scenario(), Observation(REFUSED), STORE, STORE)


def test_i2_flags_a_title():
    after = ThreadStore((Thread("t1", "r1", (U0, A0), "User: FORBIDDEN-01"),))
    assert inv.refused_call_generates_no_title(scenario(), Observation(REFUSED), STORE, after)
    assert inv.guarded_agent_generates_no_title(scenario(), Observation(Answered()), STORE, after)


def test_i3_flags_caller_and_changed_history_in_result():
    changed = evolve(U0, parts=(TextPart("note-09"),))
    obs = Observation(REFUSED, result=Result("", "other", ("u0", "c1"), ("u0",)), list=ListView((ListMessage(changed, (Source.MEMORY,)),)))
    v = inv.refused_result_omits_call_messages(scenario(), obs)
    assert any("caller message 'c1'" in x for x in v) and any("changed history" in x for x in v)
    assert inv.refused_list_holds_only_history(scenario(), obs)


def test_g13_flags_input_left_on_the_list():
    obs = Observation(REFUSED, list=ListView((ListMessage(U0, (Source.RESPONSE,)),)))
    assert inv.refused_list_holds_only_history(scenario(), obs)


def test_i4_flags_unread_prompt_entries():
    sysmsg = SystemMessage("You are a guarded agent.", obj(anthropic=obj(citations="note-05")))  # content options only (G12.5)
    obs = Observation(Answered(), prompts=((sysmsg, U0, evolve(C1, parts=(TextPart("note-07"),))),), read="")
    v = inv.nothing_reaches_model_unread(scenario(), obs, "")
    assert len(v) == 2  # the edited system message and the unread caller part; u0 is stored
    assert not inv.nothing_reaches_model_unread(scenario(), obs, "You are a guarded agent.\nnote-05\nnote-07")


def test_i4_flags_an_addition_a_later_processor_removed():
    added = Message("n1", Role.USER, (TextPart("note-11"),), created_at=5)
    base = ListView((ListMessage(U0, (Source.MEMORY,)),))
    after_p1 = ListView((ListMessage(U0, (Source.MEMORY,)), ListMessage(added, (Source.MEMORY,))))
    stages = (("memory processors", base), ("processor p1", after_p1), ("processor p2", base))
    assert inv.additions_are_read(scenario(), "", stages)
    assert not inv.additions_are_read(scenario(), "note-11", stages)


def test_i5_flags_two_events_and_a_missed_failure():
    failing = scenario(agent=evolve(AGENT, processors=(Processor("p1", (), Throw("boom-1")),)))
    ev = EV("agent.input.processor", "error", "input processor failed", processor="p1")
    auth = EV("agent.input.authorize", "allowed", "authorized")
    assert inv.processor_failure_gives_one_error_event(failing, Observation(Refused("input processor failed", "p1"), audit=(auth, ev, ev)))
    assert inv.processor_failure_gives_one_error_event(failing, Observation(Refused("reason-1", "p1"), audit=(auth,)))
    assert not inv.processor_failure_gives_one_error_event(failing, Observation(Refused("input processor failed", "p1"), audit=(auth, ev)))


def test_i6_flags_a_throw_taken_for_an_abort_and_an_event_on_abort():
    sc = scenario(agent=evolve(AGENT, processors=(Processor("p1", (), AbortThenThrow("reason-1", "boom-1")),)))
    auth = EV("agent.input.authorize", "allowed", "authorized")
    assert inv.own_abort_refuses_with_own_reason(sc, Observation(Refused("reason-1", "p1"), audit=(auth,)))
    sc2 = scenario(agent=evolve(AGENT, processors=(Processor("p1", (), Abort("reason-1")),)))
    ev = EV("agent.input.processor", "error", "input processor failed", processor="p1")
    assert inv.own_abort_refuses_with_own_reason(sc2, Observation(Refused("reason-1", "p1"), audit=(auth, ev)))
    assert not inv.own_abort_refuses_with_own_reason(sc2, Observation(Refused("reason-1", "p1"), audit=(auth,)))


def test_i7_flags_a_second_run_and_a_late_processor():
    sc = scenario(agent=evolve(AGENT, processors=(Processor("p1"),)))
    assert inv.processors_run_once_before_model(sc, Observation(Answered(), prompts=((),)), ("processor p1", "processor p1", "model step"))
    assert inv.processors_run_once_before_model(sc, Observation(Answered(), prompts=((),)), ("model step", "processor p1"))
    assert not inv.processors_run_once_before_model(sc, Observation(Answered(), prompts=((),)), ("processor p1", "model step"))


def _carrier_stages(sources_after):
    done = evolve(
        A0, parts=(ToolPart("tc1", "lookup", ToolState.RESULT, args=obj(q="note-01"), result=obj(answer="note-02"), created_at=1000),)
    )
    base = ListView((ListMessage(done, (Source.MEMORY, Source.INPUT)),))
    after = ListView((ListMessage(done, sources_after),))
    return done, (("memory processors", base), ("processor p1", after))


def test_i8_flags_a_demoted_carrier_and_a_missing_save():
    done, stages = _carrier_stages((Source.MEMORY,))
    # the caller sends tc1's outcome back on a0 (I8 judges the caller's outcome parts)
    sent_back = Message("a0", Role.ASSISTANT, (evolve(done.parts[0], created_at=None),), created_at=2)
    sc = scenario(agent=evolve(AGENT, processors=(Processor("p1"),)), msgs=(sent_back, C1))
    assert inv.returned_memory_input_stays_both(sc, Observation(Answered()), "", stages, STORE)
    done, stages = _carrier_stages((Source.MEMORY, Source.INPUT))
    v = inv.returned_memory_input_stays_both(sc, Observation(Answered(), prompts=((done,),)), "", stages, STORE)
    assert any("unmapped" in x for x in v) and any("not saved" in x for x in v)


def test_i10_flags_a_remapped_moved_outcome():
    done, stages = _carrier_stages((Source.MEMORY,))
    mapped = evolve(done, parts=(evolve(done.parts[0], result=obj(type="text", value="mapped:x")),))
    assert inv.moved_outcome_not_remapped(scenario(), Observation(Answered(), prompts=((mapped,),)), stages)
    assert not inv.moved_outcome_not_remapped(scenario(), Observation(Answered(), prompts=((done,),)), stages)


def test_i9_flags_refused_text_sent_later():
    first = scenario()
    later = scenario(msgs=(Message("c2", Role.USER, (TextPart("note-03"),), created_at=20),))
    sent = Observation(Answered(), prompts=((U0, evolve(C1, thread_id="t1")),))
    assert inv.refused_text_never_sent_later([(first, Observation(REFUSED)), (later, sent)])
    assert not inv.refused_text_never_sent_later([(first, Observation(REFUSED)), (later, Observation(Answered(), prompts=((U0,),)))])


def test_i11_flags_different_observations():
    assert inv.same_scenario_same_observation(Observation(Answered()), Observation(REFUSED))
    assert not inv.same_scenario_same_observation(Observation(Answered()), Observation(Answered()))


def test_g12_flags_a_skipped_failing_evaluator():
    sc = scenario(agent=evolve(AGENT, policies=(ThrowingEvaluator("throws"),) + AGENT.policies))
    allowed = EV("agent.input.policy", "allowed", "policy allowed")
    assert inv.policy_verdict_matches_read(sc, Observation(Answered(), audit=(allowed,), read="note"))


def test_g15_flags_message_text_in_an_event():
    ev = EV("agent.input.policy", "denied", "policy denied FORBIDDEN-01")
    assert inv.audit_is_hygienic(scenario(), Observation(REFUSED, audit=(ev,)))


def test_g11_flags_an_ignored_mapping_error():
    agent = evolve(AGENT, client_tools=(ClientTool("lookup", Mapping("throws")),))
    done, stages = _carrier_stages((Source.MEMORY, Source.INPUT))
    stages = stages[:1]
    auth = EV("agent.input.authorize", "allowed", "authorized")
    # the caller sends tc1's outcome back on a0: the call's input (SPEC G11), due its mapping
    sent_back = Message("a0", Role.ASSISTANT, (evolve(done.parts[0], created_at=None),), created_at=2)
    assert inv.mapping_error_fails_call(scenario(agent=agent, msgs=(sent_back, C1)), Observation(Answered(), audit=(auth,)), stages)
    # a stored result of a remembered message no processor changed is history, not the call's
    # input: its mapping never runs under the guard (G11.2)
    assert not inv.mapping_error_fails_call(scenario(agent=agent), Observation(Answered(), audit=(auth,)), stages)


def test_g7_identity_flags_a_change():
    assert inv.identity_processors_change_nothing(Observation(Answered(), prompts=((U0,),)), Observation(Answered(), prompts=((),)))


def test_g3_flags_a_service_principal_denied_for_its_role():
    """G3.2: the role is checked for human principals only, so a service
    principal of an allowed kind is allowed whatever its role; a human viewer is denied."""
    svc = Actor("svc", "viewer", "service")
    agent = evolve(AGENT, allowed_principal_kinds=("human", "service"))
    sc = Scenario(agent, Call(loop=Loop.GENERATE, messages=(C1,), actor=svc, memory=MemoryBinding("t1", "r1")), STORE)
    denied = AuditEvent("agent.input.authorize", "denied", "role 'viewer' is not in allowed roles [operator]", svc, "agent:agent", None)
    allowed = AuditEvent("agent.input.authorize", "allowed", None, svc, "agent:agent", None)
    rbac = Refused("role 'viewer' is not in allowed roles [operator]", "breakwater-rbac")
    assert len(inv.rbac_decides_as_measured(sc, Observation(rbac, audit=(denied,)))) == 2
    assert not inv.rbac_decides_as_measured(sc, Observation(Answered(), audit=(allowed,)))
    viewer = evolve(sc, call=evolve(sc.call, actor=Actor("bob", "viewer")))
    human_denied = evolve(denied, actor=Actor("bob", "viewer"))
    assert not inv.rbac_decides_as_measured(viewer, Observation(rbac, audit=(human_denied,)))
    assert inv.rbac_decides_as_measured(viewer, Observation(Answered(), audit=(evolve(allowed, actor=Actor("bob", "viewer")),)))


def test_i8_leaves_a_stored_result_on_the_carrier_as_stored():
    # a stored result (tc0) on the remembered message is not the caller's outcome: it is sent as
    # stored, not mapped (G11.2); only tc1 is judged
    old = ToolPart("tc0", "lookup", ToolState.RESULT, args=obj(q="note-03"), result=obj(answer="note-04"), created_at=500)
    tc1 = ToolPart("tc1", "lookup", ToolState.RESULT, args=obj(q="note-01"), result=obj(answer="note-02"), created_at=1000)
    mapped = evolve(tc1, result=obj(type="text", value="mapped:" + '{"answer":"note-02"}'))
    on_list = evolve(A0, parts=(old, mapped))
    stages = (
        ("memory processors", ListView((ListMessage(on_list, (Source.MEMORY, Source.INPUT)),))),
        ("processor p1", ListView((ListMessage(on_list, (Source.MEMORY, Source.INPUT)),))),
    )
    sent_back = Message("a0", Role.ASSISTANT, (evolve(tc1, created_at=None),), created_at=2)
    sc = scenario(agent=evolve(AGENT, processors=(Processor("p1"),)), msgs=(sent_back,))
    store = ThreadStore((Thread("t1", "r1", (U0, evolve(A0, parts=(old, tc1)))),))
    v = inv.returned_memory_input_stays_both(
        sc, Observation(Answered(), prompts=((on_list,),)), 'note-03 note-04 mapped:{\\"answer\\":\\"note-02\\"}', stages, store
    )
    assert not any("tc0" in x for x in v), v


def test_g1_context_on_generate_must_throw_before_anything_runs():
    # G1.1 (Evidence: G1.1): TypeError, no audit event, no model call
    ctx = (Message("x1", Role.USER, (TextPart("note-05"),), created_at=4),)
    sc = evolve(scenario(), call=evolve(scenario().call, context=ctx))
    auth = EV("agent.input.authorize", "allowed", None)
    assert inv.context_option_fails_as_measured(sc, Observation(Answered(), audit=(auth,), prompts=((),)))
    from guardspec.model.observation import Failed

    assert not inv.context_option_fails_as_measured(
        sc, Observation(Failed("TypeError: GuardedAgent: call option 'context' is not allowed"))
    )
    durable = evolve(sc, call=evolve(sc.call, loop=Loop.DURABLE))
    assert not inv.context_option_fails_as_measured(durable, Observation(Answered(), audit=(auth,), prompts=((),)))


@pytest.mark.parametrize("entry", [None, "undefined"])
def test_g7_a_returned_null_system_entry_is_never_answered(entry):
    # G7.5 (Evidence: G7.5): replaceAllSystemMessages throws on a null or
    # undefined entry; the value cannot be applied and the processor fails
    from guardspec.model.processors import ArrayOf, ObjectOf
    from guardspec.model.values import UNDEFINED

    value = None if entry is None else UNDEFINED
    bad = Processor("p1", (), Return(ObjectOf(ArrayOf(), (SystemMessage("note-01"), value))))
    sc = evolve(scenario(), agent=evolve(AGENT, processors=(bad,)))
    v = inv.null_system_entries_fail_as_measured(sc, Observation(Answered(), prompts=((),)))
    assert len(v) == 1 and "p1" in v[0]
    assert not inv.null_system_entries_fail_as_measured(sc, Observation(Refused("input processor failed", "p1")))
    fine = Processor("p1", (), Return(ObjectOf(ArrayOf(), (SystemMessage("note-01"),))))
    assert not inv.null_system_entries_fail_as_measured(
        evolve(sc, agent=evolve(AGENT, processors=(fine,))), Observation(Answered(), prompts=((),))
    )


@pytest.mark.parametrize(
    "url, allowed, denied",
    [
        ("https://other.example/b.png", (), True),  # default: no origin allowed
        ("https://assets.example/a.png", ("https://assets.example",), False),
        ("https://assets.example:443/a.png", ("https://assets.example/",), False),  # default port
        ("https://assets.example:8443/c.png", ("https://assets.example",), True),  # another port
        ("https://u:p@assets.example/d.png", ("https://assets.example",), True),  # credentials
        ("ftp://assets.example/e.txt", ("https://assets.example",), True),  # another scheme
        ("aGVsbG8=", (), False),  # inline data
    ],
)
def test_g2_denied_asset_urls_never_reach_the_model(url, allowed, denied):
    from guardspec.model.messages import FilePart

    sc = evolve(scenario(), agent=evolve(AGENT, allowed_input_asset_origins=allowed))
    m = Message("c1", Role.USER, (FilePart(url, "image/png"),), created_at=10)
    assert bool(inv.denied_asset_urls_never_reach_model(sc, Observation(Answered(), prompts=((m,),)))) is denied
    assert not inv.denied_asset_urls_never_reach_model(
        sc, Observation(Refused("input asset URL origin is not allowed", "breakwater-input-assets"))
    )


@pytest.mark.parametrize(
    "url, allowed, denied",
    [
        ("https://other.example/b.png", (), True),
        ("ftp://assets.example/e.txt", ("https://assets.example",), True),
        ("https://assets.example/a.png", ("https://assets.example",), False),
    ],
)
def test_g2_denied_asset_urls_are_never_fetched_or_saved(url, allowed, denied):
    # G16: the gate refuses before Mastra's download (M12.10), with the removing stop; a download failure names the URL it fetched, and offline
    # the failed turn is saved
    from guardspec.model.messages import FilePart
    from guardspec.model.observation import Failed

    sc = evolve(scenario(), agent=evolve(AGENT, allowed_input_asset_origins=allowed))
    m = Message("c1", Role.USER, (FilePart(url, "image/png"),), created_at=10, thread_id="t1", resource_id="r1")
    saved = ThreadStore((Thread("t1", "r1", (U0, A0, m)),))
    fetched = Observation(Failed(f"Error: Failed to download asset: {url}"))
    assert bool(inv.denied_asset_urls_never_fetched_or_saved(sc, fetched, STORE, STORE)) is denied
    assert bool(inv.denied_asset_urls_never_fetched_or_saved(sc, Observation(Failed("DOWNLOAD_ASSETS_FAILED")), STORE, saved)) is denied
    # a URL the thread already held under that id is not the call's
    assert not inv.denied_asset_urls_never_fetched_or_saved(sc, Observation(Answered()), saved, saved)
    assert not inv.denied_asset_urls_never_fetched_or_saved(sc, Observation(REFUSED), STORE, STORE)


def test_i4_text_file_data_is_read_only_as_decoded():
    # the model receives text file data as the base64 text it decodes to (M12.8, G12.6): reading the
    # base64 string itself does not count
    from guardspec.model.messages import FilePart

    m = Message("c1", Role.USER, (FilePart("aGVsbG8gd29ybGQ=", "text/plain"),), created_at=10)
    sc = scenario(msgs=(m,))
    assert inv.nothing_reaches_model_unread(sc, Observation(Answered(), prompts=((m,),)), "text/plain\naGVsbG8gd29ybGQ=")
    assert not inv.nothing_reaches_model_unread(sc, Observation(Answered(), prompts=((m,),)), "text/plain\nhello world")


def test_i4_a_prompt_text_parts_content_options_must_be_read():
    # were a text part's providerOptions sent (Mastra sends none, M12.5), its Anthropic citations
    # would reach the provider: I4 asks that they were read
    cited = obj(anthropic=obj(citations=(obj(cited_text="note-13", encrypted_index="opaque"),)))
    m = Message("c1", Role.USER, (TextPart("note-01", cited),), created_at=10)
    sc = scenario(msgs=(m,))
    v = inv.nothing_reaches_model_unread(sc, Observation(Answered(), prompts=((m,),)), "note-01")
    assert any("providerOptions" in x and "note-13" in x for x in v), v
    plain = Message("c1", Role.USER, (TextPart("note-01"),), created_at=10)
    assert not inv.nothing_reaches_model_unread(sc, Observation(Answered(), prompts=((plain,),)), "note-01")
