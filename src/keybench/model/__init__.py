"""The model of what the emulators cannot show: the key stream, the split model, the
simulation without a database, and the heatmaps. Every figure here is modelled."""
