"""The peer of kirk_hwu's NUFFT: cuFINUFFT, built from its public source (build_cufinufft.sh from the trees
prepare_sources.sh makes) and timed on the exported trajectory by run_cufinufft.py (docs/peer.md)."""
