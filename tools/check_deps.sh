#!/usr/bin/env bash
# Checks the build tools (with the argument 'docs': also the documentation tools; 'fuzz': clang and libFuzzer); installs missing Debian packages when run as root, otherwise says what to install.
set -euo pipefail
missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
[ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
if [ "${1:-}" = pdf ]; then
  command -v latexmk >/dev/null || missing+=(latexmk texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended tex-gyre)
fi
if [ "${1:-}" = fuzz ]; then
  # libFuzzer and clang's sanitizer runtimes are in libclang-rt-dev, not in the clang package itself.
  command -v clang++ >/dev/null || missing+=(clang)
  ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || missing+=(libclang-rt-dev)
fi
if [ "${1:-}" = docs ]; then
  command -v doxygen >/dev/null || missing+=(doxygen)
  command -v dot >/dev/null || missing+=(graphviz)
  python3 -c "import venv, ensurepip" 2>/dev/null || missing+=(python3-venv)
fi
# Optional (the ryoo study's CPU BLAS reference): installed with the rest when run as root; without it
# the build still succeeds and that one timing is recorded as skipped.
if [ ! -f /usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    missing+=(libopenblas-dev)
  else
    echo "check_deps: note: libopenblas-dev is not installed: the ryoo CPU BLAS timing will be skipped"
  fi
fi
# mwsep fit needs pagmo2 and NLopt, its MPI mode Open MPI: installed with the rest when run as root, so that
# the default build (make run, make test) has `mwsep fit` and its MPI test; otherwise the rest builds without.
if [ ! -f /usr/include/pagmo/pagmo.hpp ] || [ ! -f /usr/include/nlopt.hpp ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    missing+=(libpagmo-dev libnlopt-cxx-dev)
  else
    echo "check_deps: pagmo2 or NLopt not found: building without mwsep fit (Debian: apt-get install libpagmo-dev libnlopt-cxx-dev)"
  fi
fi
if ! command -v mpirun >/dev/null || [ ! -f /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    missing+=(libopenmpi-dev openmpi-bin)
  else
    echo "check_deps: Open MPI not found: mwsep fit without MPI ranks (Debian: apt-get install libopenmpi-dev openmpi-bin)"
  fi
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "check_deps: installing ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  else
    echo "check_deps: missing ${missing[*]}; install them (Debian: sudo apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi
if ! command -v nvcc >/dev/null; then
  echo "check_deps: nvcc not found: building the CPU backend only (install the CUDA toolkit for the GPU backend)"
fi
