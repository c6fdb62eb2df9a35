"""The report's figures, one package per study; `python -m figures.make_figures` draws them (needs matplotlib)."""
