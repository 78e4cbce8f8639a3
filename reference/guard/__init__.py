"""G0-G15: the guard laid over the substrate."""
