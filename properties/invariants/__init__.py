"""The invariants of the spec's I section, one function each, named after what holds.

Every function returns a list of violation strings: empty means the invariant holds. They look
only at what an implementation can show (the scenario, its observation, the stored threads
before and after the call, and, where a clause speaks of what happened *between* processors, the
reference's stage trace), so that raw mode can be measured against them too (I12).

The modules are grouped by what is observed:

- ``scenario``: what the scenario itself says (bound thread, caller messages, stored history);
- ``threads``: the stored threads and titles (I1, I2);
- ``result``: what a refused call shows in its result and final list (I3, G13);
- ``rendering``: each prompt entry as the model receives it (the invariants' own reading);
- ``prompt``: what reaches the model (I4, I9);
- ``tool_outcomes``: the caller's client tool outcome on a remembered message (I8, I10);
- ``outcome``: how the call ends (G2, I5, I6, I7, I11, G12, G7, G11);
- ``audit``: the audit events (G15);
- ``calls``, ``rbac``: what Breakwater was measured to do (G1 call options, the G16
  input-assets gate, G3 RBAC);
- ``modes``: raw against guarded mode (I12).
"""

from guardspec.model.jsvalues import falsy as _falsy  # noqa: F401  (properties/harness.py reads it here)

from .audit import audit_is_hygienic
from .calls import (
    ai_sdk_system_entries_add_nothing,
    context_option_fails_as_measured,
    denied_asset_urls_never_fetched_or_saved,
    denied_asset_urls_never_reach_model,
    null_system_entries_fail_as_measured,
)
from .modes import guarded_mode_shows_none, raw_mode_shows_predicted_violations
from .outcome import (
    identity_processors_change_nothing,
    mapping_error_fails_call,
    own_abort_refuses_with_own_reason,
    policy_verdict_matches_read,
    predicted_first_processor,
    processor_failure_gives_one_error_event,
    processors_run_once_before_model,
    refused_call_never_reaches_model,
    same_scenario_same_observation,
)
from .prompt import (
    additions_are_read,
    is_mastra_filler,
    known_renderings,
    nothing_reaches_model_unread,
    prompt_entries_are_known_or_read,
    refused_text_never_sent_later,
)
from .rbac import rbac_decides_as_measured
from .rendering import DENIAL_TEXT, SENT_STATES, Text, Unrenderable, entry_texts, part_texts, sent_output, system_text
from .result import refused_list_holds_only_history, refused_result_omits_call_messages
from .scenario import PROCESSOR_FAILED, RECORDER, bound_thread, caller_ids, caller_messages, configured_system, stored_before, touches
from .threads import (
    failed_call_leaves_threads_intact,
    guarded_agent_generates_no_title,
    refused_call_generates_no_title,
    refused_call_leaves_threads_intact,
)
from .tool_outcomes import carrier_ids, moved_outcome_not_remapped, returned_memory_input_stays_both

__all__ = [
    "DENIAL_TEXT",
    "PROCESSOR_FAILED",
    "RECORDER",
    "SENT_STATES",
    "Text",
    "Unrenderable",
    "additions_are_read",
    "ai_sdk_system_entries_add_nothing",
    "audit_is_hygienic",
    "bound_thread",
    "caller_ids",
    "caller_messages",
    "carrier_ids",
    "configured_system",
    "context_option_fails_as_measured",
    "denied_asset_urls_never_fetched_or_saved",
    "denied_asset_urls_never_reach_model",
    "entry_texts",
    "failed_call_leaves_threads_intact",
    "guarded_agent_generates_no_title",
    "guarded_mode_shows_none",
    "identity_processors_change_nothing",
    "is_mastra_filler",
    "known_renderings",
    "mapping_error_fails_call",
    "moved_outcome_not_remapped",
    "nothing_reaches_model_unread",
    "null_system_entries_fail_as_measured",
    "own_abort_refuses_with_own_reason",
    "part_texts",
    "policy_verdict_matches_read",
    "predicted_first_processor",
    "processor_failure_gives_one_error_event",
    "processors_run_once_before_model",
    "prompt_entries_are_known_or_read",
    "raw_mode_shows_predicted_violations",
    "rbac_decides_as_measured",
    "refused_call_generates_no_title",
    "refused_call_leaves_threads_intact",
    "refused_call_never_reaches_model",
    "refused_list_holds_only_history",
    "refused_result_omits_call_messages",
    "refused_text_never_sent_later",
    "returned_memory_input_stays_both",
    "same_scenario_same_observation",
    "sent_output",
    "stored_before",
    "system_text",
    "touches",
]
