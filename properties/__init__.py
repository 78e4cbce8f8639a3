"""guardspec.properties: named invariants and everything that checks them (the spec's I section)."""
