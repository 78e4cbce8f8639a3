"""guardspec.model: the vocabulary of the guarded-input-processor semantics (the spec's vocabulary, O1-O8)."""
