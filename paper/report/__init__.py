"""Shared machinery of the report's data modules: reading results, statistics, formatting, tables."""
