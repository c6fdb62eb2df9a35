#!/usr/bin/env bash
# Checks the tools one purpose needs, and nothing more:
#   tools/check_deps.sh [build]   the C++/CUDA build (make run, make test): cmake, g++, make, GoogleTest; and,
#                                 optional, OpenBLAS (the ryoo CPU BLAS timing), pagmo2 and NLopt (mwsep fit),
#                                 Open MPI (its MPI ranks)
#   tools/check_deps.sh python    the project's Python environment (.venv): python3 with venv and ensurepip
#   tools/check_deps.sh docs      the reader's documentation: the above, Doxygen and Graphviz
#   tools/check_deps.sh pdf       the report's PDF: latexmk and the TeX Live packages it uses
#   tools/check_deps.sh fuzz      the fuzz targets: the build's tools, clang and libFuzzer
# Run as root with apt-get, it installs what is missing (the optional libraries of 'build' too), quietly: the
# package manager's output goes to a log file (DEPS_LOG, default build/logs/deps.log), whose tail is printed
# if the install fails. NO_INSTALL=1 installs nothing: it names what is missing and how to install it, and
# exits 1 when something required is missing. Not root: the same, without installing.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
purpose="${1:-build}"
case "$purpose" in build|python|docs|pdf|fuzz) ;; *)
  echo "check_deps: unknown purpose '$purpose' (build, python, docs, pdf or fuzz)" >&2; exit 2 ;;
esac
can_install=0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && [ "${NO_INSTALL:-0}" != 1 ]; then can_install=1; fi
missing=()
optional=()

build_tools() {
  command -v cmake >/dev/null || missing+=(cmake)
  command -v g++ >/dev/null || missing+=(g++)
  command -v make >/dev/null || missing+=(make)
  [ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
}

build_optional() {
  # Without them the build still succeeds: the ryoo CPU BLAS timing is recorded as skipped, `mwsep fit` is
  # left out, or runs without MPI ranks.
  [ -f /usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h ] ||
    optional+=("libopenblas-dev|libopenblas-dev is not installed: the ryoo CPU BLAS timing will be skipped")
  if [ ! -f /usr/include/pagmo/pagmo.hpp ] || [ ! -f /usr/include/nlopt.hpp ]; then
    optional+=("libpagmo-dev libnlopt-cxx-dev|pagmo2 or NLopt not found: building without mwsep fit")
  fi
  if ! command -v mpirun >/dev/null || [ ! -f /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ]; then
    optional+=("libopenmpi-dev openmpi-bin|Open MPI not found: mwsep fit without MPI ranks")
  fi
}

python_tools() {
  local version
  version="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" || version=""
  if [ -z "$version" ]; then
    missing+=(python3)
    return
  fi
  python3 -c "import venv, ensurepip" 2>/dev/null || missing+=(python3-venv)
  # The pinned packages (Sphinx 9, numpy 2.4, matplotlib 3.11, myst-parser 5) need Python 3.11 or newer.
  if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "check_deps: python3 is $version; the pinned Python packages (requirements.lock) need Python 3.11 or" \
         "newer (Debian 12 and Ubuntu 24.04 have it)" >&2
    exit 1
  fi
}

case "$purpose" in
  build)
    build_tools
    build_optional ;;
  python)
    python_tools ;;
  docs)
    python_tools
    command -v doxygen >/dev/null || missing+=(doxygen)
    command -v dot >/dev/null || missing+=(graphviz) ;;
  pdf)
    command -v latexmk >/dev/null ||
      missing+=(latexmk texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended tex-gyre) ;;
  fuzz)
    build_tools
    # libFuzzer and clang's sanitizer runtimes are in libclang-rt-dev, not in the clang package itself.
    command -v clang++ >/dev/null || missing+=(clang)
    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || missing+=(libclang-rt-dev) ;;
esac

# The optional packages are installed with the rest when this can install; otherwise each is one note.
extra=()
for entry in ${optional[@]+"${optional[@]}"}; do
  packages="${entry%%|*}"
  if [ "$can_install" = 1 ]; then
    read -ra list <<< "$packages"
    extra+=("${list[@]}")
  else
    echo "check_deps: note: ${entry#*|} (Debian: apt-get install $packages)"
  fi
done

if [ "$can_install" = 1 ] && [ $((${#missing[@]} + ${#extra[@]})) -gt 0 ]; then
  all=(${missing[@]+"${missing[@]}"} ${extra[@]+"${extra[@]}"})
  log="${DEPS_LOG:-$ROOT/build/logs/deps.log}"
  mkdir -p "$(dirname "$log")"
  echo "check_deps: installing ${all[*]} (Debian packages; apt-get's output in $log; NO_INSTALL=1 to refuse)"
  if ! { echo "== $(date -u '+%Y-%m-%d %H:%M:%S') apt-get install ${all[*]}"
         DEBIAN_FRONTEND=noninteractive apt-get update -q &&
         DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${all[@]}"; } >> "$log" 2>&1; then
    if [ ${#missing[@]} -gt 0 ]; then
      echo "check_deps: installing ${all[*]} failed; the end of $log:" >&2
      tail -n 15 "$log" >&2
      exit 1
    fi
    # Only optional packages were wanted: the build goes on without them, as it would for a user.
    echo "check_deps: note: installing the optional ${extra[*]} failed (see $log): building without them"
  fi
elif [ ${#missing[@]} -gt 0 ]; then
  why="install them"
  [ "$(id -u)" = 0 ] && [ "${NO_INSTALL:-0}" = 1 ] && why="NO_INSTALL=1 installs nothing; install them"
  echo "check_deps: missing ${missing[*]}; $why (Debian: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
if [ "$purpose" = build ] && ! command -v nvcc >/dev/null; then
  echo "check_deps: nvcc not found: building the CPU backend only (install the CUDA toolkit for the GPU backend)"
fi
exit 0
