"""The MRI and Coulomb study's data modules, one per chapter, in the order they run (later ones read facts
the earlier ones leave in ctx.facts)."""
CHAPTERS = ["setup", "mri", "tuning", "reconstruction", "accuracy", "spaces", "coulomb", "bounds", "resources", "cold_warm", "provenance"]
