"""The public MilkyWay@Home application's scripts: its work-unit converter and its runner (docs/peer.md)."""
