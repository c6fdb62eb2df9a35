"""The MRI and Coulomb study's figures, one module per figure, each with make(facts, out): drawn from the study's
facts (paper/kirk_hwu/facts.py), its published numbers included."""
FIGURES = ["fig_ladders", "fig_reconstruction", "fig_reconstruction_nufft"]
