"""The MilkyWay@Home separation study's chapter modules, one per chapter: each build(ctx, facts) writes its numbers
and tables from the study's facts (paper/mwsep/facts.py) and nothing else, so their order does not matter."""
CHAPTERS = ["hardware", "workunits", "cuda", "precision", "scaling", "cpu", "beyond", "lean", "fitting", "stripes", "compressed", "claims", "targets", "cold_warm", "micro", "records", "provenance", "boinc", "coverage"]
