"""The MRI and Coulomb study's chapter modules, one per chapter: each build(ctx, facts) writes its numbers and
tables from the study's facts (paper/kirk_hwu/facts.py) and nothing else, so their order does not matter."""
CHAPTERS = ["setup", "mri", "tuning", "reconstruction", "fastest", "nufft", "accuracy", "spaces", "coulomb", "bounds", "resources", "cold_warm", "provenance",
            "mechanisms", "coverage"]
