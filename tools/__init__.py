"""The project's checks and helpers (report, PDF, results, release, GPU tests), each run as `python3 -m tools.<name>`."""
