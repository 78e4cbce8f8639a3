"""G16 Input-assets gate (with G13 and I4; Evidence: G16): after the
application processors, before client tool output mapping and the policies. Expected values
are Breakwater 0.17.0's rule as the measurements state it, derived by hand."""

import pytest
from conftest import LOOPS, events, scenario, stored, tool
from raw_json import HUMAN_OPERATOR, LOOP_NAMES

from guardspec.conformance.cases import model_observation
from guardspec.mastra.normalise import normalise_observation
from guardspec.model.agent import Agent, ClientTool, Mapping
from guardspec.model.messages import FilePart, ImagePart, Message, Role, Source, TextPart, assistant, user
from guardspec.model.observation import Answered, Failed, Refused
from guardspec.model.processors import Abort, AddMessages, Processor
from guardspec.model.scenario import Loop, Mode
from guardspec.model.values import JsFunction, obj
from guardspec.reference import run
from guardspec.reference.guard.assets import media_url, origins_error
from guardspec.reference.urls import parse_url

GATE = "breakwater-input-assets"
ORIGIN = Refused("input asset URL origin is not allowed", GATE)
SCHEME = Refused("input asset URL scheme is not allowed", GATE)
CREDENTIALS = Refused("input asset URL credentials are not allowed", GATE)
UNCLASSIFIED = Refused("input message content is not classified", GATE)


def with_file(data: str, media: str = "image/png", role: Role = Role.USER, mid: str = "u2") -> Message:
    return Message(mid, role, (FilePart(data, media),), 40)


def _run(*messages, **kw):
    return run(scenario(user("u1", "hi", 30), *messages, **kw), Mode.GUARDED)


# -- what new URL() makes of a string -------------------------------------------------------------


@pytest.mark.parametrize(
    "text, origin",
    [
        ("https://example.com/a.png", "https://example.com"),
        ("HTTPS://Example.COM:443/a", "https://example.com"),  # scheme and host lower-cased, default port dropped
        ("http://example.com:8080/x", "http://example.com:8080"),
        ("http:example.com/x", "http://example.com"),  # a special scheme needs no slashes
        ("  https://example.com/x  ", "https://example.com"),  # outer spaces stripped
        ("https://1.2.3.4/x", "https://1.2.3.4"),
        ("note: hi", "null"),  # any scheme parses; its origin is opaque
        ("ftp://example.com/x", "ftp://example.com"),
    ],
)
def test_url_origin(text, origin):
    """G16.6: an origin is scheme, host and non-default port for http(s) and ftp, null for another scheme."""
    assert parse_url(text).origin == origin


@pytest.mark.parametrize(
    "text",
    [
        "note-20",
        "aGVsbG8=",
        "//example.com/x",
        "http://",
        "https://exa mple.com/",
        "https://example.com:99999/",
        "https://999.1.1.1/",
        "https://example.123/",
    ],
)
def test_url_that_does_not_parse(text):
    """G16.6: strings new URL() without a base refuses are no URL."""
    assert parse_url(text) is None


def test_url_credentials():
    """G16.6: a URL's credentials are read as new URL() reads them, apart from its origin."""
    u = parse_url("https://user:pw@example.com/x")
    assert (u.username, u.password, u.origin) == ("user", "pw", "https://example.com")
    assert parse_url("https://@example.com/x").username == ""


# -- which part data names a URL -----------------------------------------------------------------


@pytest.mark.parametrize(
    "data, media, url",
    [
        ("https://example.com/a.png", "image/png", "https://example.com"),
        ("aGVsbG8=", "text/plain", None),  # base64: inline
        ("note-20", "text/plain", None),  # not a URL: Mastra makes it a data URI, inline
        ("data:text/plain;base64,aGVsbG8=", "text/plain", None),
        ("data:text/plain,https://evil.example/x", "text/plain", "https://evil.example"),  # a URL after the first comma is read
        ("//example.com/a", "image/png", None),  # kept by Mastra, but no URL to the gate
        ("file-abc", "image/png", None),  # a provider file id
    ],
)
def test_media_url(data, media, url):
    """G16.3, G16.4: the data as the prompt holds it, and the URL a data URI names after its first comma."""
    got = media_url(data, media)
    assert (got.origin if got else None) == url


def test_media_url_of_data_that_is_not_a_string_is_none():
    """G16.3: data that is not a string names no URL."""
    assert media_url(obj(a=1), "text/plain") is None
    assert media_url(5, "text/plain") is None


# -- the gate in the chain -------------------------------------------------------------------------


@pytest.mark.parametrize("loop", LOOPS)
def test_a_url_is_denied_by_default_with_one_asset_event(loop):
    """G16.1, G16.5: with no allowed origins a network URL is denied, with one asset event without detail."""
    obs = _run(with_file("https://example.com/a.png"), loop=loop)
    assert obs.outcome == ORIGIN
    ev = events(obs, "agent.input.asset")
    assert len(ev) == 1
    assert (ev[0].decision, ev[0].reason, ev[0].detail) == ("denied", "input asset URL origin is not allowed", None)
    assert obs.prompts == () and obs.read is None  # the policies never ran, the model was never called
    assert events(obs, "agent.input.policy") == []


def test_an_allowed_origin_passes_the_gate():
    """G16.1: an allowed entry is kept as its origin (host lower-cased, default port dropped) and lets the URL through."""
    obs = _run(with_file("https://example.com/a.png"), allowed_input_asset_origins=("HTTPS://Example.com:443/",))
    assert events(obs, "agent.input.asset") == []
    # past the gate, Mastra downloads the URL before calling the model, and offline the fetch
    # fails (M12.10, Evidence: M12.10): not a refusal
    assert obs.outcome == Failed("DOWNLOAD_ASSETS_FAILED")


def test_another_port_is_another_origin():
    """G16.5: a URL on another port than the allowed origin's is denied as an origin not allowed."""
    obs = _run(with_file("http://example.com:8080/a.png"), allowed_input_asset_origins=("http://example.com",))
    assert obs.outcome == ORIGIN


def test_credentials_are_denied_before_the_origin_is_looked_at():
    """G16.5: a URL with credentials is denied for them even when its origin is allowed."""
    obs = _run(with_file("https://u:p@example.com/a.png"), allowed_input_asset_origins=("https://example.com",))
    assert obs.outcome == CREDENTIALS


@pytest.mark.parametrize("data", ["ftp://example.com/a.png", "file:///etc/passwd", "javascript:alert(1)", "note: hi"])
def test_a_scheme_other_than_http_is_denied(data):
    """G16.5: a network URL whose scheme is not http or https is denied for its scheme."""
    assert _run(with_file(data), allowed_input_asset_origins=("https://example.com",)).outcome == SCHEME


def test_inline_data_passes():
    """G16.4: inline data names no network URL and passes the gate."""
    assert _run(with_file("aGVsbG8=", "text/plain")).outcome == Answered()


def test_image_parts_are_checked_too():
    """G16.3: an image part's data is checked as a file part's is."""
    assert _run(Message("u2", Role.USER, (ImagePart("https://img.example.com/a.png", "image/png"),), 40)).outcome == ORIGIN


def test_an_assistant_message_file_is_not_checked():
    """G16.3: only user messages' file and image parts are checked."""
    obs = _run(with_file("ftp://example.com/a.png", role=Role.ASSISTANT, mid="a2"))
    assert events(obs, "agent.input.asset") == []


def test_the_first_offending_url_gives_the_reason():
    """G16.5: the first offending URL in list order gives the reason."""
    obs = _run(with_file("https://u:p@other.example/x"), with_file("ftp://example.com/a", mid="u3"))
    assert obs.outcome == CREDENTIALS


def test_history_on_the_list_is_checked_too():
    """G16: the gate checks history on the list as well as the call's input."""
    threads = stored(with_file("https://old.example/a.png", mid="h1"))
    obs = _run(threads=threads)
    assert obs.outcome == ORIGIN
    assert obs.stored == threads.threads[0].messages  # nothing saved (G14)


def test_a_url_a_processor_adds_is_checked_after_it():
    """G16: a URL a processor adds is checked after the processors, and the refusal removes the addition."""
    proc = Processor("p", steps=(AddMessages((with_file("https://x.example/a", mid="c1"),), Source.CONTEXT),))
    obs = _run(processors=(proc,))
    assert obs.outcome == ORIGIN
    assert all(lm.message.id != "c1" for lm in obs.list.messages)  # the addition is removed (G13)


def test_a_processor_refusal_comes_before_the_gate():
    """G16: the gate runs after the application processors, so a processor's refusal comes first."""
    proc = Processor("p", end=Abort("stop"))
    obs = _run(with_file("https://example.com/a.png"), processors=(proc,))
    assert obs.outcome.processor_id == "p"


# -- content the prompt conversion cannot take ----------------------------------------------------


def test_non_string_text_is_not_classified_at_the_gate_before_any_url():
    """G16.2: a text that is no string fails the conversion before any URL is checked: one policy error event."""
    msg = Message("u3", Role.USER, (TextPart(42),), 50)
    obs = _run(with_file("ftp://example.com/a"), msg)
    assert obs.outcome == UNCLASSIFIED
    ev = events(obs, "agent.input.policy")
    assert [(e.decision, e.reason, e.detail) for e in ev] == [("error", "input message content is not classified", None)]
    assert events(obs, "agent.input.asset") == []


@pytest.mark.parametrize("text", [None, "", "plain"])
def test_null_or_string_text_converts(text):
    """G16.2: a null, empty or string text converts."""
    obs = _run(Message("u3", Role.USER, (TextPart(text),), 50))
    assert obs.outcome != UNCLASSIFIED


def test_a_function_in_a_caller_message_is_not_classified_at_the_gate():
    """G16.2: a value structuredClone cannot copy anywhere in a message is not classified."""
    obs = _run(Message("u3", Role.USER, (TextPart("x"),), 50, metadata=obj(f=JsFunction("f"))))
    assert obs.outcome == UNCLASSIFIED


def test_an_assistant_message_with_number_text_is_not_classified():
    """G16.2: the conversion covers assistant messages too: a number text is not classified."""
    assert _run(assistant("a2", TextPart(7), created_at=40)).outcome == UNCLASSIFIED


# -- the second check, in the mapping stage ---------------------------------------------------------


def _content_output(url: str):
    return obj(mastra=obj(modelOutput=obj(type="content", value=(obj(type="image-url", url=url),))))


def test_a_cached_tool_output_url_is_denied_by_the_mapping_stage():
    """G16.7: a URL in a cached content output is denied from breakwater-client-tool-output."""
    part = tool("tc1", "result", result="r", provider_metadata=_content_output("https://cdn.example/a.png"))
    obs = _run(assistant("a2", part, created_at=40), client_tools=(ClientTool("getLocation", Mapping()),))
    assert obs.outcome == Refused("input asset URL origin is not allowed", "breakwater-client-tool-output")
    assert [e.action for e in obs.audit] == ["agent.input.authorize", "agent.input.asset"]


def test_a_cached_tool_output_url_of_an_allowed_origin_passes():
    """G16.7: a cached content output's URL of an allowed origin passes."""
    part = tool("tc1", "result", result="r", provider_metadata=_content_output("https://cdn.example/a.png"))
    obs = _run(assistant("a2", part, created_at=40), allowed_input_asset_origins=("https://cdn.example",))
    assert events(obs, "agent.input.asset") == []


# -- G0: the option --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "entry, text",
    [
        ("https://*.example.com", "wildcards are not supported"),
        ("https://u@example.com", "must not contain userinfo, query, or fragment"),
        ("https://example.com?x", "must not contain userinfo, query, or fragment"),
        ("example.com", "must be a URL origin"),
        ("ftp://example.com", "must use http or https"),
        ("https://example.com/path", "must be an origin without a path"),
        ("https:example.com", "must be an origin without a path"),
    ],
)
def test_a_bad_origin_is_a_construction_type_error(entry, text):
    """G16.1: an offending allowed-origin entry is a construction TypeError naming its index."""
    err = origins_error(("https://ok.example", entry))
    assert err.startswith("TypeError: createGuardedAgent: allowedInputAssetOrigins[1]") and text in err
    obs = run(scenario(user("u1", "hi", 30), allowed_input_asset_origins=("https://ok.example", entry)), Mode.GUARDED)
    assert isinstance(obs.outcome, Failed) and obs.audit == ()


def test_good_origins_construct():
    """G16.1: origins with at most a trailing slash, in any case, construct."""
    assert origins_error(("https://example.com", "http://localhost:3000/", "HTTPS://EXAMPLE.org")) is None


def test_the_option_is_checked_after_the_kinds():
    """G0.1: the allowed principal kinds are checked before the allowed input asset origins."""
    agent = Agent(allowed_principal_kinds=(), allowed_input_asset_origins=("ftp://x",))
    from guardspec.reference.guard.construction import construction_error

    assert "allowedPrincipalKinds" in construction_error(agent)


def test_the_option_round_trips_through_the_codec():
    from guardspec.model import codec

    sc = scenario(user("u1", "hi", 30), allowed_input_asset_origins=("https://a.example",))
    j = codec.converter.unstructure(sc)
    assert j["agent"]["allowedInputAssetOrigins"] == ["https://a.example"]
    assert codec.converter.structure(j, type(sc)) == sc
    assert sc.call.loop is Loop.GENERATE


# -- the generators reach the gate, and the invariants hold there ----------------------------------


@pytest.mark.slow
def test_the_assets_swarm_reaches_each_reason_and_the_invariants_hold():
    from hypothesis import given, settings

    from guardspec.properties.harness import run_sequence
    from guardspec.properties.strategies import ASSETS, call_sequences

    seen = set()

    @settings(max_examples=400, derandomize=True, database=None, deadline=None)
    @given(call_sequences(ASSETS))
    def check(seq):
        execs, found = run_sequence(seq, "guarded")
        assert not found, found
        for e in execs:
            o = e.observation.outcome
            seen.add(o.reason if isinstance(o, Refused) and o.processor_id == GATE else type(o).__name__)

    check()
    assert {ORIGIN.reason, SCHEME.reason, CREDENTIALS.reason, "Answered"} <= seen, seen


# -- the same clause on scenarios written as the protocol's JSON; expected values are real Mastra
# 1.71.0's answers to them (docs/evidence/mastra.md) -------------------------------------------


# the same caller on the guarded path (Breakwater 0.17.0 build, 17 values × 2
# slots × 3 loops, all agree after M12.6): the input-assets gate converts the prompt, so an errorText
# JSON.stringify throws on is not classified there; a bigint result passes it and the policy engine
# cannot read it
# evidence: G16.2
@pytest.mark.parametrize("loop", LOOP_NAMES)
@pytest.mark.parametrize(
    "slot, gate",
    [
        ({"state": "output-error", "errorText": {"$bigint": "5"}}, "breakwater-input-assets"),
        ({"state": "result", "result": {"$bigint": "5"}}, "breakwater-policy-engine"),
    ],
)
def test_an_error_text_the_conversion_cannot_write_is_refused_by_the_gate_and_a_bigint_result_by_the_policies(loop, slot, gate):
    """G16.2: the gate refuses an errorText the prompt conversion cannot write; a bigint result passes it and the policy engine refuses it."""
    t = {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "plain", "args": {"q": "x"}, **slot}
    msgs = [
        {"id": "c00", "role": "user", "parts": [{"type": "text", "text": "hi"}]},
        {"id": "a01", "role": "assistant", "parts": [t]},
        {"id": "c02", "role": "user", "parts": [{"type": "text", "text": "yo"}]},
    ]
    call = {"loop": loop, "actor": HUMAN_OPERATOR, "messages": msgs, "reply": "reply-0", "memory": {"thread": "t1", "resource": "r1"}}
    sj = {"guardspec": 1, "agent": {"allowedPrincipalKinds": ["human"], "memory": {"generateTitle": False}, "processors": []}, "call": call}
    o = normalise_observation(model_observation(sj, "guarded"), sj)
    assert o["outcome"] == {"kind": "refused", "reason": "input message content is not classified", "processorId": gate}
