"""G1.1 call options, the G16 input-assets gate and G7's returned system entries, as Breakwater
behaves: properties written from its measured behaviour (Evidence: G1.1, G16, G7.2, G7.5), not
from the reference.
"""

from __future__ import annotations

import re

from guardspec.model.agent import ThreadStore
from guardspec.model.messages import FilePart, ImagePart, Message, Role, SystemMessage, TextPart
from guardspec.model.observation import Answered, Failed, Observation
from guardspec.model.processors import PROCESS_INPUT, ArrayOf, ObjectOf, Return
from guardspec.model.scenario import Loop, Scenario
from guardspec.model.values import UNDEFINED


def _entry_text(e: SystemMessage) -> str | None:
    """The text an AI SDK system entry holds (a string, or text parts joined), if any."""
    c = e.content
    if isinstance(c, str):
        return c
    if isinstance(c, tuple) and c and all(isinstance(p, TextPart) and isinstance(p.text, str) for p in c):
        return "\n".join(p.text for p in c)
    return None


def ai_sdk_system_entries_add_nothing(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G7.2): a system entry of a
    processor's returned array in the AI SDK shape (``{role: 'system', content}``) has neither
    ``content.content`` nor ``content.parts``, so Breakwater adds ``''`` for it: nothing. Its
    text never reaches the model as a system message. Judged only for a text that occurs once
    in the whole scenario (agent, call, stored threads), so that no other source can send it:
    this can only miss a violation."""
    everything = repr(scenario.agent) + repr(scenario.call) + repr(scenario.threads)
    texts = set()
    for p in scenario.agent.processors:
        v = p.end.value if isinstance(p.end, Return) else None
        arrays = [v] if isinstance(v, ArrayOf) else [v.messages] if isinstance(v, ObjectOf) and isinstance(v.messages, ArrayOf) else []
        for a in arrays:
            for e in a.append:
                t = _entry_text(e) if isinstance(e, SystemMessage) else None
                if t and everything.count(repr(t)[1:-1]) == 1:
                    texts.add(t)
    out = []
    for step, prompt in enumerate(obs.prompts):
        for e in prompt:
            if isinstance(e, SystemMessage) and isinstance(e.content, str) and e.content in texts:
                out.append(
                    f"G7: prompt[{step}] holds the text {e.content!r} of an AI SDK system entry a processor returned, which adds nothing"
                )
    return out


def null_system_entries_fail_as_measured(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G7.5, M8.6): a returned object's
    ``systemMessages`` goes to Mastra's ``replaceAllSystemMessages``, which reads ``role`` of
    each entry: a null or undefined entry throws, the value cannot be applied and the processor
    fails. So a guarded call in which a processor returns such a value is never answered (an
    answered call ran every processor to its return)."""
    if not isinstance(obs.outcome, Answered):
        return []
    out = []
    for p in scenario.agent.processors:
        v = p.end.value if isinstance(p.end, Return) else None
        if PROCESS_INPUT not in p.hooks or not isinstance(v, ObjectOf) or not isinstance(v.system_messages, tuple):
            continue
        if any(e is None or e is UNDEFINED for e in v.system_messages):
            out.append(
                f"G7: processor {p.id} returns systemMessages holding null or undefined, which cannot be applied; outcome {obs.outcome!r}"
            )
    return out


def context_option_fails_as_measured(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G1.1): a guarded generate or stream call given
    ``context`` messages throws a TypeError before anything runs: no audit event, no model call
    (the durable loop takes the context)."""
    if scenario.call.loop is Loop.DURABLE or not scenario.call.context:
        return []
    out = []
    if not (isinstance(obs.outcome, Failed) and obs.outcome.error.startswith("TypeError")):
        out.append(f"G1: a {scenario.call.loop.value} call given context must throw a TypeError; outcome {obs.outcome!r}")
    if obs.audit or obs.prompts:
        out.append(
            f"G1: a {scenario.call.loop.value} call given context ran ({len(obs.audit)} audit event(s), {len(obs.prompts)} model call(s))"
        )
    return out


# A network URL as G16.6 parses one: a scheme, ``://``, then an authority. Anything
# else (inline data, a data URI, a provider file id, an odd authority) is not judged: this can
# only miss a violation, never make one up.
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://([^/?#\\]*)")
_HOST = re.compile(r"^([a-z0-9.\-]+)(?::([0-9]+))?$")
_DEFAULT_PORT = {"http": "80", "https": "443"}


def _origin(scheme: str, hostport: str) -> str | None:
    m = _HOST.match(hostport.lower())
    if m is None:
        return None
    host, port = m.group(1), m.group(2)
    return f"{scheme}://{host}" + (f":{port}" if port and port != _DEFAULT_PORT.get(scheme) else "")


def _allowed(origins: tuple[str, ...]) -> set[str]:
    out = set()
    for o in origins:
        m = _URL.match(o)
        if m and m.group(1).lower() in _DEFAULT_PORT and "@" not in m.group(2):
            origin = _origin(m.group(1).lower(), m.group(2))
            if origin:
                out.add(origin)
    return out


def asset_url_denial(data: object, allowed: set[str]) -> str | None:
    """G16.5: what the gate says of a file or image part's data: a network URL whose
    scheme is not http/https, then one with credentials, then one whose origin the agent does
    not allow is denied; None when it passes or is not judged here."""
    if not isinstance(data, str):
        return None
    m = _URL.match(data)
    if m is None:
        return None
    scheme, authority = m.group(1).lower(), m.group(2)
    if scheme not in _DEFAULT_PORT:
        return None if scheme == "data" else "scheme"
    if "@" in authority:
        return "credentials"
    origin = _origin(scheme, authority)
    if origin is None:
        return None
    return None if origin in allowed else "origin"


def denied_asset_urls_never_reach_model(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G16, I4; the input-assets gate): no user
    message the model receives holds a file or image part naming a URL the gate denies (another
    scheme than http/https, credentials, or an origin outside ``allowedInputAssetOrigins``,
    default none)."""
    allowed = _allowed(scenario.agent.allowed_input_asset_origins)
    out = []
    for prompt in obs.prompts:
        for e in prompt:
            if not isinstance(e, Message) or e.role is not Role.USER:
                continue
            for p in e.parts or ():
                if isinstance(p, (FilePart, ImagePart)):
                    why = asset_url_denial(p.data, allowed)
                    if why:
                        out.append(f"G16: the model received {p.data!r} in {e.id}, a URL the input-assets gate denies ({why})")
    return out


_FETCHED = "Error: Failed to download asset: "


def denied_asset_urls_never_fetched_or_saved(scenario: Scenario, obs: Observation, before: ThreadStore, after: ThreadStore) -> list[str]:
    """Extra (G16, G13, I1; the input-assets gate): the gate
    judges every user message on the list after the application processors and refuses, with
    the removing stop, a call one of whose file or image parts names a URL it denies. It runs
    before the model step, where Mastra fetches every user file URL (M12.10:
    offline a fetch fails and the turn is saved all the same). So a denied URL is never
    fetched (the durable loop names the URL a failed download fetched: origin and path) and the
    call saves no message holding one that the thread did not hold before (a URL a stored
    message already held, under the same id, is the thread's, not the call's)."""
    allowed = _allowed(scenario.agent.allowed_input_asset_origins)
    out = []
    if isinstance(obs.outcome, Failed) and obs.outcome.error.startswith(_FETCHED):
        url = obs.outcome.error[len(_FETCHED) :]
        why = asset_url_denial(url, allowed)
        if why:
            out.append(f"G16: Mastra fetched {url!r}, a URL the input-assets gate denies ({why})")
    for t in after.threads:
        old = before.get(t.id)
        held = {(m.id, p.data) for m in (old.messages if old else ()) for p in (m.parts or ()) if isinstance(p, (FilePart, ImagePart))}
        for m in t.messages:
            if m.role is not Role.USER:
                continue
            for p in m.parts or ():
                if isinstance(p, (FilePart, ImagePart)) and (m.id, p.data) not in held:
                    why = asset_url_denial(p.data, allowed)
                    if why:
                        out.append(
                            f"G16: the call saved {p.data!r} in {m.id} of thread {t.id!r}, a URL the input-assets gate denies ({why})"
                        )
    return out
