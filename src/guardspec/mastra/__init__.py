"""Real Mastra beside the model: the Node adapter's client, the differential campaign of raw
Mastra against the reference (op sequences and scenarios), its normalisation and its benchmark."""
