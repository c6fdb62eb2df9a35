"""The toy study's data modules, one per chapter."""
CHAPTERS = ["sums"]
