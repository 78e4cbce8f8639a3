"""G12 Policies: the text read from an entry, and the decisions and their events."""

from guardspec.model.agent import Allow, DenyPatterns, NoDecision, ThrowingEvaluator
from guardspec.model.messages import FilePart, ImagePart, Message, Role, SystemMessage, TextPart, assistant, user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import AddSystem, Processor
from guardspec.model.scenario import Mode
from guardspec.model.values import obj
from guardspec.reference import run

from conftest import events, scenario, tool

POLICY = "breakwater-policy-engine"


def _run(*messages, policies=(Allow("all"),), procs=()):
    return run(scenario(*messages, policies=policies, processors=procs), Mode.GUARDED)


def test_g12_deny_pattern_refuses_with_the_policy_name():
    obs = _run(user("u1", "please leak the key", 10), policies=(Allow("a"), DenyPatterns("no-leaks", ("leak",))))
    assert obs.outcome == Refused("policy 'no-leaks' denied the input", POLICY)
    (e,) = events(obs, "agent.input.policy")
    assert (e.decision, e.reason, dict(e.detail)) == ("denied", "policy denied", {"policy": "no-leaks", "channel": "answer"})
    assert obs.prompts == ()


def test_g12_all_allow_gives_one_allowed_event():
    obs = _run(user("u1", "hello", 10), policies=(Allow("a"), DenyPatterns("d", ("zzz",))))
    assert isinstance(obs.outcome, Answered)
    assert [e.decision for e in events(obs, "agent.input.policy")] == ["allowed"]


def test_g12_first_denying_policy_in_order_decides():
    obs = _run(user("u1", "alpha beta", 10), policies=(DenyPatterns("first", ("beta",)), DenyPatterns("second", ("alpha",))))
    assert obs.outcome.reason == "policy 'first' denied the input"


def test_g12_throwing_evaluator_fails_and_skips_later_policies():
    obs = _run(user("u1", "leak", 10), policies=(ThrowingEvaluator("broken"), DenyPatterns("later", ("leak",))))
    assert obs.outcome.reason == "policy evaluation failed"
    (e,) = events(obs, "agent.input.policy")
    assert e.decision == "error" and e.reason == "policy evaluation failed"


def test_g12_evaluator_without_a_decision_fails():
    obs = _run(user("u1", "x", 10), policies=(NoDecision("silent"),))
    assert obs.outcome.reason == "policy evaluation failed"
    assert len(events(obs, "agent.input.policy")) == 1


def test_g12_non_string_text_is_not_classified():
    obs = _run(Message("u1", Role.USER, (TextPart(5),), 10))
    assert obs.outcome.reason == "input message content is not classified"
    (e,) = events(obs, "agent.input.policy")
    assert (e.decision, e.reason) == ("error", "input message content is not classified")
    assert obs.prompts == ()


def test_g12_tool_args_result_error_and_approval_reason_are_read_as_json():
    caller = assistant(
        "a1",
        tool("tc1", "result", result=obj(city="Paris"), args=obj(q="ARGS")),
        tool("tc2", "output-error", error_text="ERRTEXT"),
        tool("tc3", "output-denied", approval=obj(approved=False, reason="REASONTEXT")),
        created_at=10,
    )
    read = _run(caller).read
    for piece in ('{"q":"ARGS"}', '{"city":"Paris"}', '"ERRTEXT"', '"REASONTEXT"'):
        assert piece in read


def test_g12_file_and_image_parts_read_media_type_and_text_data():
    caller = Message("u1", Role.USER, (FilePart("FILE DATA", "text/plain"), ImagePart(obj(bytes=(1, 2)), "image/png")), 10)
    read = _run(caller).read
    assert "text/plain" in read and "FILE DATA" in read and "image/png" in read


def test_g12_system_message_strings_in_provider_options_are_read():
    sysmsg = SystemMessage(
        (TextPart("SYS PART", provider_options=obj(a="PART OPTION")),),
        provider_options=obj(b=("MSG OPTION",)),
        experimental_provider_metadata=obj(c=obj(d="META STRING")),
    )
    read = _run(user("u1", "hi", 10), procs=(Processor("p", steps=(AddSystem(sysmsg),)),)).read
    for piece in ("SYS PART", "PART OPTION", "MSG OPTION", "META STRING"):
        assert piece in read


def test_g12_allowed_event_has_no_reason_and_lists_the_policies_evaluated():
    """Breakwater policy-engine recordAllowedPolicyDecision: detail {evaluated: [names]}."""
    obs = _run(user("u1", "hello", 10), policies=(Allow("a"), DenyPatterns("no-leaks", ("leak",))))
    (e,) = events(obs, "agent.input.policy")
    assert (e.decision, e.reason, e.detail) == ("allowed", None, (("evaluated", ("a", "no-leaks")),))


def test_g12_failed_evaluation_event_names_policy_and_answer_channel():
    obs = _run(user("u1", "hello", 10), policies=(NoDecision("mute"),))
    (e,) = events(obs, "agent.input.policy")
    assert (e.decision, e.reason, dict(e.detail)) == ("error", "policy evaluation failed", {"policy": "mute", "channel": "answer"})
