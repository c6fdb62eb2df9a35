"""The toy study's figures: none."""
FIGURES = []
