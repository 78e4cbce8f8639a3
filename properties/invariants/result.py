"""I3 and G13 on what a refused call shows: its result's messages and the final message list hold
only unchanged stored history and context.
"""

from __future__ import annotations

from collections.abc import Iterable

from guardspec.model.messages import Source
from guardspec.model.observation import Observation, Refused
from guardspec.model.scenario import Loop, Scenario

from .scenario import caller_ids, stored_before


def refused_result_omits_call_messages(scenario: Scenario, obs: Observation) -> list[str]:
    """I3 (S9): a refused generate/stream result's ``messages`` and ``rememberedMessages`` hold
    no input, response, added, changed or moved message: only unchanged stored history (and the
    call's context messages), never a caller message's id."""
    if not isinstance(obs.outcome, Refused) or obs.result is None:
        return []
    out: list[str] = []
    for field, ids in (("messages", obs.result.messages), ("rememberedMessages", obs.result.remembered)):
        out.extend(f"I3: refused result.{field} holds {why}" for why in _not_history(scenario, obs, ids))
    if obs.result.finish_reason != "other" or obs.result.text != "":
        out.append(f"G14: refused result has finishReason {obs.result.finish_reason!r}, text {obs.result.text!r}")
    return out


def _not_history(scenario: Scenario, obs: Observation, ids: Iterable[str]) -> list[str]:
    """Which of ``ids`` (messages on the final list) are not unchanged stored history or the
    call's context: caller messages, additions, changed or moved history."""
    callers = caller_ids(scenario)
    stored = {m.id: m for m in stored_before(scenario)}
    context = {m.id for m in scenario.call.context} - callers
    on_list = {lm.message.id: lm.message for lm in obs.list.messages} if obs.list else {}
    out = []
    for i in ids:
        if i in callers:
            out.append(f"caller message {i!r}")
        elif i in stored:
            now = on_list.get(i)
            if now is not None and (now.role, now.parts) != (stored[i].role, stored[i].parts):
                out.append(f"changed history message {i!r}")
        elif i not in context:
            out.append(f"{i!r}, neither stored history nor context")
    return out


def refused_list_holds_only_history(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G13, S8): after a refusal the final message list holds only unchanged stored
    history and context (system messages stay), and on generate/stream no message is left in
    the input or response set."""
    if not isinstance(obs.outcome, Refused) or obs.list is None:
        return []
    out = [f"G13: refused list holds {why}" for why in _not_history(scenario, obs, [lm.message.id for lm in obs.list.messages])]
    if scenario.call.loop is not Loop.DURABLE:  # durable finalisation drains the sets
        for lm in obs.list.messages:
            left = {Source.INPUT, Source.RESPONSE} & set(lm.sources)
            if left:
                out.append(f"G13: refused list keeps {lm.message.id!r} in {sorted(s.value for s in left)}")
    return out
