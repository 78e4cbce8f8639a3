"""G1 and the input-assets gate, as measured on Breakwater (docs/breakwater-measurements.md §4
and §6): properties written from the measurements, not from the reference.
"""

from __future__ import annotations

import re

from guardspec.model.messages import FilePart, ImagePart, Message, Role
from guardspec.model.observation import Failed, Observation
from guardspec.model.scenario import Loop, Scenario


def context_option_fails_as_measured(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G1, docs/breakwater-measurements.md §6): a guarded generate or stream call given
    ``context`` messages throws a TypeError before anything runs: no audit event, no model call
    (the durable loop takes the context)."""
    if scenario.call.loop is Loop.DURABLE or not scenario.call.context:
        return []
    out = []
    if not (isinstance(obs.outcome, Failed) and obs.outcome.error.startswith("TypeError")):
        out.append(f"G1: a {scenario.call.loop.value} call given context must throw a TypeError; outcome {obs.outcome!r}")
    if obs.audit or obs.prompts:
        out.append(f"G1: a {scenario.call.loop.value} call given context ran ({len(obs.audit)} audit event(s), {len(obs.prompts)} model call(s))")
    return out


# A network URL as the measurements name one: a scheme, ``://``, then an authority. Anything
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
    """What the measured gate says of a file or image part's data (§4): a network URL whose
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
    """Extra (G2, I4; docs/breakwater-measurements.md §4, the input-assets gate): no user
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
                        out.append(f"G2: the model received {p.data!r} in {e.id}, a URL the input-assets gate denies ({why})")
    return out
