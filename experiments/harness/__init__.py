"""The measurement harness: one runner for every result file of every study."""
