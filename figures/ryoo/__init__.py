"""The ryoo study's figures, one module per figure, each with make(facts, out): drawn from the study's facts
(paper/ryoo/facts.py), its published numbers included."""
FIGURES = ["fig_ryoo_ladder", "fig_ryoo_beyond", "fig_ryoo_speedups"]
