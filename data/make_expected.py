#!/usr/bin/env python3
"""Writes data/workunits/<unit>/expected.json, the stored reference outputs of a work unit (provenance script).

    python3 data/make_expected.py BUILD_DIR [--numpy-python PYTHON] [UNIT ...]
        (default units: tiny 2s-small 3s-small)

For each unit it
  1. generates the default synthetic catalogue, `mwsep generate -a <unit> --count 100000 --seed 1`, and
     records its sha256 (the catalogue itself is not stored: the same command rebuilds it);
  2. runs the reference integrator, `mwsep run -a <unit> -s <catalogue> --cpu reference --json` (serial,
     the original summation order, plain double sums; it matches the original programs' oracle cases to
     1e-12), and stores its integrals, likelihood and diagnostics;
  3. evaluates the integrals and the likelihood again with data/independent_evaluation.py, an
     independent implementation of the specification's formulas (for `tiny` on the standard library, as
     the tests run it; for the small units with --numpy, when PYTHON, an interpreter with numpy, is
     given), and records its values and how far the reference integrator's lie from them; it refuses to
     write if they disagree beyond the tolerance.
The tolerances below are part of the stored file; tests/test_expected_outputs.cpp applies them.

The program must be built from committed sources: the script refuses to run when src/, kernels/ or the
top-level CMakeLists.txt differ from the last commit, and records that commit.
"""
import hashlib
import json
import pathlib
import platform
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
COUNT, SEED = 100000, 1
SOURCES = ["src", "kernels", "CMakeLists.txt"]

# Relative tolerances: within them the fast integrator (and on tiny the reference integrator) must
# reproduce the stored values.
TINY = {
    "background_integral": (1e-12, "7.7e5 terms per component; the reference integrator's plain sums agree with "
                                   "the exactly summed independent evaluation to a few 1e-15; 1e-12 is the "
                                   "oracle convention for reduced units"),
    "stream_integrals": (1e-12, "as for the background integral"),
}
SMALL = {
    "background_integral": (1e-11, "2.24e7 (mu, nu, r) bins per component summed into one plain running sum by the "
                                   "reference integrator, whose rounding reaches a few 1e-12 on the narrow streams "
                                   "(see provenance.independent_check); 1e-11 is the specification's tolerance "
                                   "between two summation orders (section 3.5), between the oracle's 1e-12 for "
                                   "reduced units and 1e-10 for full-size ones"),
    "stream_integrals": (1e-11, "as for the background integral"),
}
LIKELIHOOD = {
    "likelihood": (1e-12, "a mean over 1e5 stars of log10 probabilities; the test feeds the stored integrals to the "
                          "likelihood, so only the per-star terms and their sum are compared"),
    "background_likelihood": (1e-12, "as for the likelihood"),
    "stream_only_likelihoods": (1e-12, "as for the likelihood"),
}


def sha256(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def run(command, **kwargs):
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"make_expected.py: {' '.join(map(str, command))} failed:\n{result.stderr}")
    return result.stdout


def relative(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def program_commit():
    dirty = run(["git", "status", "--porcelain", "--"] + SOURCES).strip()
    if dirty:
        sys.exit(f"make_expected.py: the program's sources have uncommitted changes:\n{dirty}")
    return run(["git", "log", "-1", "--format=%H", "--"] + SOURCES).strip()


def build_description(build):
    cache = {}
    for line in (build / "CMakeCache.txt").read_text().splitlines():
        if ":" in line and "=" in line and not line.startswith(("#", "//")):
            key, value = line.split("=", 1)
            cache[key.split(":")[0]] = value
    compiler = cache.get("CMAKE_CXX_COMPILER", "c++")
    version = run([compiler, "--version"]).splitlines()[0]
    settings = ", ".join(f"{key}={cache.get(key, '?')}" for key in ("CMAKE_BUILD_TYPE", "MWSEP_CUDA"))
    return f"{version}, {settings}"


def host_cpu():
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def tolerance_block(table):
    return {k: {"relative": v, "why": why} for k, (v, why) in table.items()}


def make(unit, build, commit, description, scratch, numpy_python):
    wu = f"data/workunits/{unit}/astronomy_parameters.txt"
    mwsep = str(build / "mwsep")
    stars = scratch / f"{unit}.txt"
    generate = ["mwsep", "generate", "-a", wu, "-o", "stars.txt", "--count", str(COUNT), "--seed", str(SEED)]
    run([mwsep] + generate[1:5] + [str(stars)] + generate[6:])
    reference = ["mwsep", "run", "-a", wu, "-s", "stars.txt", "--cpu", "reference", "--json"]
    ref = json.loads(run([mwsep] + reference[1:5] + [str(stars)] + reference[6:]))
    if ref["settings"]["engine"] != "cpu reference" or ref["settings"]["r_binning"] != "magnitude":
        sys.exit(f"make_expected.py: unexpected settings {ref['settings']}")
    integrals_table = TINY if unit == "tiny" else SMALL
    out = {
        "work_unit": unit,
        "astronomy_parameters": wu,
        "astronomy_parameters_sha256": sha256(ROOT / wu),
        "r_binning": "magnitude",
        "background_integral": ref["background_integral"],
        "stream_integrals": ref["stream_integrals"],
        "catalogue": {
            "command": " ".join(generate),
            "count": COUNT,
            "seed": SEED,
            "sha256": sha256(stars),
            "platform_note": "the generator maps its random numbers through the C library's pow, sin, asin, "
                             "log10 and exp: another libm or CPU may write another file, for which the "
                             "stored likelihood does not hold",
        },
        "number_stars": ref["number_stars"],
        "likelihood": ref["likelihood"],
        "background_likelihood": ref["background_likelihood"],
        "stream_only_likelihoods": ref["stream_only_likelihoods"],
        "zero_probability_stars": ref["zero_probability_stars"],
        "tolerance": tolerance_block({**integrals_table, **LIKELIHOOD}),
        "provenance": {
            "values": "every value above comes from one run of the reference CPU integrator (serial, the original "
                      "(mu, nu, r) summation order, plain double sums), never from the fast integrator or a GPU "
                      "kernel, which the values check",
            "program": "mwsep run --cpu reference",
            "commit": commit,
            "commit_note": "the last commit that changed src/, kernels/ or CMakeLists.txt; the program was built "
                           "from exactly these sources",
            "build": description,
            "host_cpu": host_cpu(),
            "commands": [" ".join(generate), " ".join(reference)],
            "made_by": "python3 data/make_expected.py BUILD_DIR" + (" --numpy-python PYTHON " if unit != "tiny" and
                                                                       numpy_python else " ") + unit,
            "reference_seconds": round(ref["seconds"], 1),
        },
    }
    independent = ["python3", "data/independent_evaluation.py", wu, "--stars", "stars.txt"]
    python = sys.executable
    if unit != "tiny":
        independent.append("--numpy")
        python = numpy_python
    if python:  # always: main() insists on an interpreter with numpy for the small units
        py = json.loads(run([python] + independent[1:4] + [str(stars)] + independent[5:]))
        values = [py["background_integral"]] + py["stream_integrals"]
        stored = [out["background_integral"]] + out["stream_integrals"]
        integral_diff = max(relative(a, b) for a, b in zip(stored, values))
        likelihood_diff = relative(out["likelihood"], py["likelihood"])
        limit = min(integrals_table["background_integral"][0], integrals_table["stream_integrals"][0])
        if integral_diff > limit or likelihood_diff > LIKELIHOOD["likelihood"][0]:
            sys.exit(f"make_expected.py: the reference integrator and the independent evaluation disagree on "
                     f"{unit}: integrals {integral_diff:.2e}, likelihood {likelihood_diff:.2e}")
        out["provenance"]["independent_check"] = {
            "program": "data/independent_evaluation.py (Python; the specification's formulas, the sums over cells, "
                       "r bins and stars correctly rounded by math.fsum; no code shared with mwsep)"
                       + ("; numpy " + run([python, "-c", "import numpy; print(numpy.__version__)"]).strip()
                          if "--numpy" in independent else "; standard library only"),
            "command": " ".join(independent),
            "background_integral": py["background_integral"],
            "stream_integrals": py["stream_integrals"],
            "likelihood": py["likelihood"],
            "max_relative_difference_integrals": float(f"{integral_diff:.3e}"),
            "relative_difference_likelihood": float(f"{likelihood_diff:.3e}"),
        }
    path = ROOT / "data" / "workunits" / unit / "expected.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path.relative_to(ROOT)}")


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    build = pathlib.Path(argv[1]).resolve()
    if not (build / "mwsep").exists():
        sys.exit(f"make_expected.py: no mwsep in {build}: build first")
    rest = argv[2:]
    numpy_python = None
    if "--numpy-python" in rest:
        at = rest.index("--numpy-python")
        if at + 1 >= len(rest):
            sys.exit("make_expected.py: --numpy-python needs an interpreter")
        numpy_python = rest[at + 1]
        del rest[at:at + 2]
    units = rest or ["tiny", "2s-small", "3s-small"]
    if numpy_python is None and any(u != "tiny" for u in units):
        sys.exit("make_expected.py: the small units are checked with the numpy evaluation: give --numpy-python")
    commit = program_commit()
    description = build_description(build)
    with tempfile.TemporaryDirectory() as scratch:
        for unit in units:
            make(unit, build, commit, description, pathlib.Path(scratch), numpy_python)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
