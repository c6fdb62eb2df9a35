"""The ryoo study's data modules, one per part of its chapter, in the order they run (later ones read facts
the earlier ones leave in ctx.facts)."""
CHAPTERS = ["ladder", "analysis", "references", "claims", "suite", "provenance"]
