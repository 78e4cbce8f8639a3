"""Bent rules: each switch turns one rule of the encoding into the rule a semantic mutant of
properties/mutants.py installs in the reference, so that z3 can look for the counterexample
the mutant must give (and the interpreter, under the same mutant, must replay it)."""

from __future__ import annotations

from attrs import evolve, frozen


@frozen
class Switches:
    g13_keep_input: bool = False
    g13_keep_response: bool = False
    g13_skip_record: bool = False
    g13_skip_snapshot: bool = False
    g13_skip_carriers: bool = False
    rbac_durable_keeps_input: bool = False
    g9_only_last: bool = False
    g9_ignore_edits: bool = False
    g9_skip_system: bool = False
    g7_demote: bool = False
    g10_skip_additions: bool = False
    g10_skip_history_rewrite: bool = False
    g6_throw_after_abort_is_abort: bool = False
    g6_two_failure_events: bool = False
    g6_abort_event: bool = False
    g14_save_on_refusal: bool = False
    g14_title_on_refusal: bool = False
    g4_blind: bool = False
    g5_input_only: bool = False
    g11_remap_moved: bool = False
    g9_ignore_options: bool = False
    g11_lenient: bool = False
    g12_skip_errors: bool = False
    g12_split_apart: bool = False
    g10_history_input_unmapped: bool = False
    g15_allowed_reason: bool = False
    g15_keep_actor: bool = False
    g3_role_every_kind: bool = False
    g6_tripwire_by_processor: bool = False
    g1_context_accepted: bool = False
    m12_part_options_sent: bool = False
    m12_user_every_part: bool = False
    m12_metadata_sent: bool = False
    g7_null_skipped: bool = False
    g7_ai_sdk_applied: bool = False
    g12_file_data_raw: bool = False
    g11_map_stored: bool = False
    g10_skip_remapped: bool = False
    g2_gate_skipped: bool = False
    g12_uri_own_type: bool = False


# mutant name (properties/mutants.py) -> the switch that bends the same rule
MUTANT_SWITCHES: dict[str, str] = {
    "refusal_keeps_input": "g13_keep_input",
    "refusal_keeps_responses": "g13_keep_response",
    "refusal_keeps_additions": "g13_skip_record",
    "refusal_keeps_refusing_changes": "g13_skip_snapshot",
    "moved_outcomes_not_removed": "g13_skip_carriers",
    "durable_rbac_denial_keeps_input": "rbac_durable_keeps_input",
    "additions_recorded_only_after_last_processor": "g9_only_last",
    "memory_input_demoted_to_memory": "g7_demote",
    "system_additions_not_read": "g9_skip_system",
    "history_rewrite_not_read": "g10_skip_history_rewrite",
    "throw_after_abort_is_own_abort": "g6_throw_after_abort_is_abort",
    "two_events_per_failure": "g6_two_failure_events",
    "own_abort_audited_as_failure": "g6_abort_event",
    "refused_durable_call_saved": "g14_save_on_refusal",
    "refused_durable_call_titled": "g14_title_on_refusal",
    "recorder_misses_outcomes": "g4_blind",
    "processors_receive_input_only": "g5_input_only",
    "moved_outcome_remapped": "g11_remap_moved",
    "change_detection_ignores_provider_options": "g9_ignore_options",
    "mapping_error_ignored": "g11_lenient",
    "policy_errors_ignored": "g12_skip_errors",
    "system_parts_read_apart": "g12_split_apart",
    "history_input_read_unmapped": "g10_history_input_unmapped",
    "allowed_events_give_a_reason": "g15_allowed_reason",
    "unreadable_actor_audited": "g15_keep_actor",
    "role_checked_for_every_kind": "g3_role_every_kind",
    "rethrown_tripwire_named_by_processor": "g6_tripwire_by_processor",
    "context_option_accepted": "g1_context_accepted",
    "part_provider_options_sent": "m12_part_options_sent",
    "user_message_sends_every_part": "m12_user_every_part",
    "message_metadata_sent": "m12_metadata_sent",
    "null_system_entries_skipped": "g7_null_skipped",
    "ai_sdk_system_entry_applied": "g7_ai_sdk_applied",
    "text_file_data_read_raw": "g12_file_data_raw",
    "stored_result_mapped": "g11_map_stored",
    "mapped_history_not_reread": "g10_skip_remapped",
    "input_assets_gate_skipped": "g2_gate_skipped",
    "data_uri_read_under_its_own_type": "g12_uri_own_type",
}

# mutants whose bent rule lies outside the encoded scope, and why (none: the scope encodes file
# URLs and the input-assets gate, and a stored result beside the caller's outcome)
OUT_OF_SCOPE: dict[str, str] = {}


def for_mutant(name: str) -> Switches:
    return evolve(Switches(), **{MUTANT_SWITCHES[name]: True})


# encoded mutants that no claim can tell from the guard within the scope, and why (none since
# MOVE reaches context messages, refusal_keeps_responses, and the G7 identity claim,
# processors_receive_input_only)
SURVIVORS: dict[str, str] = {}
