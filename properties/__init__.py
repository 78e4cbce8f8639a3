"""guardspec.properties: named invariants and everything that checks them (SPEC §P)."""
