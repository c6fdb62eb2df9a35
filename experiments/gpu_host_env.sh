# Sourced (not run) by the scripts that build on a GPU host (gpu_host.sh, device/*.sh), from the tree's root:
# the CUDA compiler on PATH; the commit of a copy without a usable .git (.device-input/git_state, read only by
# experiments/peer/run_peer.py for the peer's own log: the runner measures the sources against
# .source-manifest.json, experiments/harness/provenance.py); libraries the host lacks, carried as a `dpkg -x` tree of Debian
# packages (headers, or links to the host's own copies such as its OpenBLAS) and found through
# CMAKE_PREFIX_PATH by the studies' CMake files; GoogleTest built from .device-input/googletest when the
# host has none (the array `gtest`, CMake arguments); Ninja when there is one (the array `generator`).
export PATH=/usr/local/cuda/bin:$PATH
if [ -f .device-input/git_state ]; then export MWSEP_GIT_STATE="$PWD/.device-input/git_state"; fi
if [ -d .device-input/sysroot ]; then
  export CMAKE_PREFIX_PATH="$PWD/.device-input/sysroot${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
fi
gtest=()
if [ -d .device-input/googletest ]; then gtest=(-DMWSEP_GTEST_SOURCE="$PWD/.device-input/googletest"); fi
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
