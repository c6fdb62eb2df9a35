"""The Münch (2009) study's chapter modules: each build(ctx, facts) writes its numbers and tables from the study's
facts (paper/munch/facts.py) and nothing else, so their order does not matter."""
CHAPTERS = ["limits", "convolution", "pipeline", "rolling_ball", "verdicts", "matmul", "appendix_b", "appendix_c", "cold_warm", "provenance", "coverage"]
