"""guardspec.model: the vocabulary of the guarded-input-processor semantics (SPEC §1, §O)."""
