"""One module per study: how the study's declared runs become commands (see experiments/harness)."""
