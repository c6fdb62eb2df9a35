"""The ryoo study's figures, one module per figure, each with make(results, published, out); the published
numbers they draw come from paper/ryoo/published.json (the `published` argument is the first study's)."""
FIGURES = ["fig_ryoo_ladder", "fig_ryoo_beyond", "fig_ryoo_speedups"]
