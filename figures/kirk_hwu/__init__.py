"""The MRI and Coulomb study's figures, one module per figure, each with make(results, published, out).
Published numbers come from paper/kirk_hwu/published.json (the `published` argument, the mwsep study's
file, is not used)."""
FIGURES = ["fig_ladders", "fig_reconstruction"]
