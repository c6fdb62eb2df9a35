"""The toy study's chapter modules: each build(ctx, facts) writes its numbers and tables from the study's facts."""
CHAPTERS = ["sums"]
