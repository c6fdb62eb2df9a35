"""The Münch (2009) study's data modules, in the order they run (later ones read ctx.facts of earlier ones)."""
CHAPTERS = ["limits", "convolution", "rolling_ball", "verdicts", "matmul", "appendix_b", "appendix_c", "cold_warm", "provenance"]
