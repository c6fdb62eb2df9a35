"""The MilkyWay@Home separation study's data modules, one per chapter, in the order they run (later ones
read facts the earlier ones leave in ctx.facts)."""
CHAPTERS = ["hardware", "workunits", "cuda", "precision", "scaling", "cpu", "beyond", "lean", "fitting", "compressed", "claims", "targets", "cold_warm", "micro", "records", "provenance"]
