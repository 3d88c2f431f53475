"""The web layer: one router module per feature; routes parse, call a core function, and render."""
