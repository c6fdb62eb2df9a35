#!/usr/bin/env bash
# Builds cuFINUFFT, the peer of kirk_hwu's NUFFT, from its public source on a GPU host without network access:
#   experiments/peer/finufft/build_cufinufft.sh SOURCES BUILD
# SOURCES  the folder prepare_sources.sh made (finufft/, poet/, cpm/CPM.cmake, sources.json)
# BUILD    a new or earlier build folder of this script
# The result is BUILD/lib/libcufinufft.so (shared, GPU only: FINUFFT_USE_CPU=OFF, so no FFTW is needed) with
# BUILD/lib/cufinufft_opts.h (the header whose structure run_cufinufft.py checks) and BUILD/lib/build_info.json
# (the commits, the compiler, the CMake options, the library's sha256). CMake's package manager (CPM) is pointed at
# the carried copies (CPM_SOURCE_CACHE, CPM_POET_SOURCE), so nothing is downloaded; CUDA 13's toolkit provides CCCL.
# The GPU's architecture is read from nvidia-smi (sm_90 on the H100 and H200), else CUDA_ARCH. About 5 to 10
# minutes on 16 cores. Then:
#   python3 experiments/run.py --study kirk_hwu --only mri_nufft --peer-nufft BUILD/lib/libcufinufft.so ...
set -euo pipefail
if [ $# -ne 2 ]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
sources="$(cd "$1" && pwd)" build="$2"
for need in finufft/CMakeLists.txt finufft/include/cufinufft_opts.h poet/CMakeLists.txt cpm/CPM.cmake sources.json; do
  [ -e "$sources/$need" ] || { echo "build_cufinufft: $sources/$need is missing (make SOURCES with prepare_sources.sh)" >&2; exit 2; }
done
export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { echo "build_cufinufft: no nvcc on PATH" >&2; exit 2; }
arch="${CUDA_ARCH:-}"
if [ -z "$arch" ] && command -v nvidia-smi >/dev/null; then
  arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')"
fi
[ -n "$arch" ] || { echo "build_cufinufft: no GPU seen and no CUDA_ARCH given" >&2; exit 2; }
mkdir -p "$build/cpm-cache/cpm" "$build/lib"
build="$(cd "$build" && pwd)"
# CPM looks for its own file at <cache>/cpm/CPM_<version>.cmake; the version is FINUFFT's default, kept as given.
cpm_version="0.43.1"
cp "$sources/cpm/CPM.cmake" "$build/cpm-cache/cpm/CPM_${cpm_version}.cmake"
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
options=(-DCMAKE_BUILD_TYPE=Release -DFINUFFT_USE_CUDA=ON -DFINUFFT_USE_CPU=OFF -DFINUFFT_STATIC_LINKING=OFF
         -DFINUFFT_BUILD_TESTS=OFF -DFINUFFT_BUILD_EXAMPLES=OFF -DFINUFFT_ENABLE_INSTALL=OFF
         -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCPM_DOWNLOAD_VERSION="$cpm_version"
         -DCPM_SOURCE_CACHE="$build/cpm-cache" -DCPM_POET_SOURCE="$sources/poet")
t0=$SECONDS
cmake -S "$sources/finufft" -B "$build/cmake" "${generator[@]}" "${options[@]}" > "$build/configure.log" 2>&1 ||
  { tail -30 "$build/configure.log"; echo "build_cufinufft: configure failed (log: $build/configure.log)" >&2; exit 1; }
cmake --build "$build/cmake" -j "$(nproc)" --target cufinufft > "$build/build.log" 2>&1 ||
  { tail -30 "$build/build.log"; echo "build_cufinufft: build failed (log: $build/build.log)" >&2; exit 1; }
library="$(find "$build/cmake" -name 'libcufinufft.so*' -type f | head -1)"
[ -n "$library" ] || { echo "build_cufinufft: no libcufinufft.so was built" >&2; exit 1; }
cp "$library" "$build/lib/libcufinufft.so"
cp "$sources/finufft/include/cufinufft_opts.h" "$build/lib/"
sha="$(sha256sum "$build/lib/libcufinufft.so" | cut -d' ' -f1)"
python3 - "$sources/sources.json" "$build/lib/build_info.json" "$sha" "$arch" "$(nvcc --version | tail -1)" "${options[*]}" <<'PY'
import json, sys
src, out, sha, arch, nvcc, options = sys.argv[1:]
info = json.load(open(src))
info.update({"sha256": sha, "cuda_architecture": arch, "nvcc": nvcc, "cmake_options": options})
json.dump(info, open(out, "w"), indent=1)
PY
echo "build_cufinufft: $build/lib/libcufinufft.so (sha256 ${sha:0:16}, sm_$arch) in $((SECONDS - t0)) s"
