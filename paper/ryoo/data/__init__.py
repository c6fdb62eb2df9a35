"""The ryoo study's chapter modules, one per part of its chapter: each build(ctx, facts) writes its numbers and
tables from the study's facts (paper/ryoo/facts.py) and nothing else, so their order does not matter."""
CHAPTERS = ["ladder", "analysis", "references", "claims", "suite", "fastest", "provenance", "mechanisms", "coverage"]
