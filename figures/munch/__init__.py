"""The Münch (2009) study's figures, one module per figure, each with make(facts, out): drawn from the study's
facts (paper/munch/facts.py), the thesis's Appendix C among its published numbers."""
FIGURES = ["fig_convolution", "fig_copy_bandwidth", "fig_roofline"]
