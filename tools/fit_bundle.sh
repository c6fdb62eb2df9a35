#!/usr/bin/env bash
# Builds, on this Debian machine (with pagmo2, NLopt and Open MPI installed), the fit-enabled `mwsep` for a GPU
# host that cannot compile against pagmo2 (its headers need Boost's), and packs it into .device-input/fit/:
#   bin/mwsep_fit_gpu_tests  the GPU tests of the resident evaluator (label gpu)
#   bin/mwsep         Release, sm_90, MWSEP_FIT=ON, MWSEP_MPI=ON, portable CPU code (MWSEP_NATIVE=OFF: the
#                     GPU host's CPU may lack this machine's instruction-set extensions)
#   build_info.json   the build's record (experiments/harness/provenance.py reads it)
#   lib/              every shared library `ldd bin/mwsep` names except those the GPU host has: glibc's
#                     (libc, libm, libdl, libpthread, librt, the loader), libstdc++, libgcc_s, the driver's
#                     libcuda, and Open MPI's libmpi with everything libmpi itself needs (libopen-*, hwloc,
#                     libevent, zlib, udev: the host's Open MPI 4.1 brings its own).
# Then `experiments/fit_host.sh` runs the fit experiments with it on the GPU host.
#   tools/fit_bundle.sh            (BUILD=build-fit, JOBS=2 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD:-build-fit}"
out=.device-input/fit
mkdir -p "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DMWSEP_CUDA_ARCHITECTURES=90 -DMWSEP_NATIVE=OFF \
      -DMWSEP_FIT=ON -DMWSEP_MPI=ON -DBUILD_TESTING=ON > "$build/configure.log" 2>&1 ||
  { tail -30 "$build/configure.log"; exit 1; }
grep -q '"cuda": "ON"' "$build/build_info.json" || { echo "fit_bundle: the build has no CUDA (nvcc missing?)" >&2; exit 1; }
grep -q '"cuda_architectures": "90"' "$build/build_info.json" ||
  { echo "fit_bundle: the build is not for sm_90: $(grep cuda_architectures "$build/build_info.json")" >&2; exit 1; }
cmake --build "$build" --target mwsep mwsep_fit_gpu_tests -j "${JOBS:-2}"
# (the help read whole first: grep -q stopping early would break the pipe, which pipefail reports as a failure)
help=$("$build/mwsep" fit --help)
grep -q -- "--devices" <<< "$help" || { echo "fit_bundle: $build/mwsep has no fit command" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
cp "$build/mwsep" "$out/bin/mwsep"
# The resident evaluator's GPU tests; they find the work units under this checkout's path, which the host
# script links to its own checkout.
cp "$build/tests/mwsep/mwsep_fit_gpu_tests" "$out/bin/mwsep_fit_gpu_tests"
echo "$PWD" > "$out/source_dir"
cp "$build/build_info.json" "$out/build_info.json"
[ -f "$build/kernel_resources.txt" ] && cp "$build/kernel_resources.txt" "$out/kernel_resources.txt"

# What the host provides: glibc, the C++ runtime, the driver, and Open MPI with its own dependencies.
libmpi=$(ldd "$build/mwsep" | awk '$1 ~ /^libmpi\.so/ {print $3}')
host_side=" libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libstdc++.so.6 libgcc_s.so.1 libcuda.so.1 "
if [ -n "$libmpi" ]; then
  host_side+="$(basename "$libmpi") $(ldd "$libmpi" | awk '$2 == "=>" {printf "%s ", $1}')"
fi
ldd "$build/mwsep" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r name path; do
  case "$host_side" in *" $name "*) continue ;; esac
  cp -L "$path" "$out/lib/$name"
done
# Symbols are not needed to run, and the bundle travels within a size limit.
strip "$out/bin/"* && strip --strip-unneeded "$out/lib/"*
if ldd "$build/mwsep" | grep -q "not found"; then
  echo "fit_bundle: unresolved libraries:" >&2; ldd "$build/mwsep" | grep "not found" >&2; exit 1
fi
echo "fit_bundle: $out: $(du -sh "$out" | cut -f1); lib/: $(ls "$out/lib" | tr '\n' ' ')"
