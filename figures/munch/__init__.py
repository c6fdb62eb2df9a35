"""The Münch (2009) study's figures, one module per figure, each with make(results, published, out). Their
published numbers come from paper/munch/published.json (the thesis's Appendix C), not from the first
study's published numbers (paper/mwsep/published.json) that make_figures.py passes in."""
FIGURES = ["fig_convolution", "fig_copy_bandwidth", "fig_roofline"]
