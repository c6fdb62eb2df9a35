#!/usr/bin/env python3
"""Times the public cuFINUFFT library (the peer of kirk_hwu's NUFFT) on the trajectory, grid and data that
`kirk_hwu nufft --export DIR` wrote, on the same GPU, and appends its rows to that command's CSV.

    python3 experiments/peer/finufft/run_cufinufft.py --lib PATH/libcufinufft.so --inputs DIR
        [--tolerances 1e-3,1e-6,1e-9] [--upsampfac 0,2] [--reconstruct] [--repeats 5]
        [--experiment NAME] --csv FILE

The library is not part of the project: it is built from its public source by build_cufinufft.sh (docs/peer.md,
the NUFFT section) and given by path. It is called through its C interface (ctypes); the arrays live on the GPU
as CuPy arrays (numpy and cupy are needed; both are on the GPU hosts this runs on).

What it does, per requested tolerance and upsampling factor (0: the library chooses):
- the adjoint (type 1, iflag +1) of the exported coefficients μ onto the N³ modes in the order the export states
  (mode n = index - N/2 per axis, x fastest; points x_m = 2π k_m / N): F^H d; its relative L2 error against the
  exported FP64 direct sum over every voxel;
- the forward (type 2, iflag -1) of the phantom, its error against the exported direct sums at the checked samples;
- the normal operator of the solve, the forward times the density weights then the adjoint;
- with --reconstruct, the whole reconstruction as kirk_hwu runs it (F^H d, then conjugate gradients from zero for
  the exported number of iterations on the normal operator plus λ times the first-difference roughness), timed
  from F^H d to the last iteration, its image's relative L2 error against the phantom.
Each plan is made and its points set once (outside the timing, as a plan is reused in practice); one untimed
execution is checked first: its error against the reference is measured and recorded, and a result above the
requested tolerance says so in its `checked` column (the library's tolerance is a target, not a bound: what it
reaches is the measurement, so the row stays valid; valid=false is kept for a defect of the run); then --repeats
executions are timed with CUDA events (the reconstruction, up to 3 times, on the host clock with a
synchronisation at the end). The library's file hash and, when build_cufinufft.sh wrote
build_info.json beside it, its source commit go into every row's `checked` column.

Exit status: 0 when every call ran (the rows say which results were outside their requested tolerance, and the
last line how many), 1 when a call failed, 2 when the arguments or inputs are unusable (nothing ran).
"""
import argparse
import csv
import ctypes
import hashlib
import json
import math
import pathlib
import re
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent

# The columns of `kirk_hwu nufft --csv` (src/kirk_hwu/app/nufft_command.cpp, experiments/studies/kirk_hwu.py).
COLUMNS = ["experiment", "implementation", "variant", "device", "size", "grid", "kspace_samples", "operation", "tolerance",
           "oversampling", "width", "fft_grid", "sample", "ms", "rel_l2_err", "checked", "valid", "sm_clock_mhz",
           "throttled", "noise_pct", "samples", "stop_reason", "cache", "discarded_throttled"]
INPUTS = ["kx", "ky", "kz", "mu", "weights", "fhd_direct", "truth", "check_samples", "forward_reference"]
# The fields of cufinufft_opts, in order (include/cufinufft_opts.h at the commit docs/peer.md names); the header
# beside the library is read and compared with this list before the structure is handed to the library.
OPTS_FIELDS = [("upsampfac", ctypes.c_double), ("gpu_method", ctypes.c_int), ("gpu_sort", ctypes.c_int),
               ("gpu_binsizex", ctypes.c_int), ("gpu_binsizey", ctypes.c_int), ("gpu_binsizez", ctypes.c_int),
               ("gpu_obinsizex", ctypes.c_int), ("gpu_obinsizey", ctypes.c_int), ("gpu_obinsizez", ctypes.c_int),
               ("gpu_maxsubprobsize", ctypes.c_int), ("gpu_kerevalmeth", ctypes.c_int),
               ("gpu_spreadinterponly", ctypes.c_int), ("gpu_maxbatchsize", ctypes.c_int), ("gpu_device_id", ctypes.c_int),
               ("gpu_stream", ctypes.c_void_p), ("modeord", ctypes.c_int), ("gpu_np", ctypes.c_int), ("debug", ctypes.c_int)]


class Unusable(Exception):
    """Arguments or inputs the script cannot run with (exit status 2)."""


def numbers(text, what):
    try:
        out = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise Unusable(f"{what}: expected numbers separated by commas, got {text!r}")
    if not out:
        raise Unusable(f"{what}: no values")
    return out


def opts_fields_of_header(path):
    """The field names of `typedef struct cufinufft_opts {...}` in the header @p path, in order."""
    text = pathlib.Path(path).read_text()
    body = re.search(r"typedef\s+struct\s+cufinufft_opts\s*\{(.*?)\}\s*cufinufft_opts\s*;", text, re.S)
    if not body:
        raise Unusable(f"{path}: no cufinufft_opts structure")
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", body.group(1), flags=re.S)
    return [m.group(1) for m in re.finditer(r"[\w\s\*]+?\b(\w+)\s*;", code)]


def check_header(lib):
    """Compares the opts structure of the header build_cufinufft.sh copied beside @p lib with OPTS_FIELDS."""
    header = pathlib.Path(lib).parent / "cufinufft_opts.h"
    if not header.exists():
        raise Unusable(f"{header}: missing (build_cufinufft.sh copies the library's header beside it, so that the "
                       "structure handed to it can be checked)")
    got = opts_fields_of_header(header)
    want = [name for name, _ in OPTS_FIELDS]
    if got != want:
        raise Unusable(f"{header}: the library's cufinufft_opts has the fields {got}, this script knows {want}")


def read_inputs(folder):
    """The exported arrays (numpy) and problem.json; Unusable naming what is missing or inconsistent."""
    folder = pathlib.Path(folder)
    problem_path = folder / "problem.json"
    if not problem_path.exists():
        raise Unusable(f"{problem_path}: missing (write the inputs with kirk_hwu nufft --export {folder})")
    problem = json.loads(problem_path.read_text())
    for key in ("size", "grid", "samples", "lambda", "iterations"):
        if key not in problem:
            raise Unusable(f"{problem_path}: no {key!r}")
    for name in INPUTS:
        if not (folder / f"{name}.npy").exists():
            raise Unusable(f"{folder / (name + '.npy')}: missing")
    try:
        import numpy as np
    except ImportError:
        raise Unusable("numpy is needed to read the inputs (and cupy to run the peer): run this on the GPU host's python3")
    arrays = {name: np.load(folder / f"{name}.npy") for name in INPUTS}
    n, m = int(problem["grid"]), int(problem["samples"])
    expect = {"kx": (m,), "ky": (m,), "kz": (m,), "mu": (m,), "weights": (m,), "fhd_direct": (n, n, n), "truth": (n, n, n)}
    for name, shape in expect.items():
        if arrays[name].shape != shape:
            raise Unusable(f"{folder / (name + '.npy')}: shape {arrays[name].shape}, expected {shape}")
    if arrays["check_samples"].shape != arrays["forward_reference"].shape:
        raise Unusable(f"{folder}: check_samples and forward_reference differ in length")
    return problem, arrays


def provenance(lib):
    digest = hashlib.sha256(pathlib.Path(lib).read_bytes()).hexdigest()
    info = pathlib.Path(lib).parent / "build_info.json"
    commit = json.loads(info.read_text()).get("finufft_commit", "unknown") if info.exists() else "unknown"
    return f"libcufinufft.so sha256 {digest[:16]}, finufft {commit[:12]}"


def open_csv(path):
    """The CSV to append to: its header must be COLUMNS (an existing file with other columns is refused)."""
    path = pathlib.Path(path)
    if path.exists() and path.stat().st_size > 0:
        with path.open(newline="") as f:
            header = next(csv.reader(f), [])
        if header != COLUMNS:
            raise Unusable(f"{path}: its columns are not those of kirk_hwu nufft")
        return path, False
    return path, True


class Peer:
    """cuFINUFFT through ctypes, on CuPy arrays."""

    def __init__(self, lib):
        import cupy as cp
        self.cp = cp
        self.lib = ctypes.CDLL(str(lib))

        class Opts(ctypes.Structure):
            _fields_ = OPTS_FIELDS
        self.Opts = Opts
        self.lib.cufinufft_default_opts.argtypes = [ctypes.POINTER(Opts)]
        self.lib.cufinufft_makeplan.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_int,
                                                ctypes.c_int, ctypes.c_double, ctypes.POINTER(ctypes.c_void_p),
                                                ctypes.POINTER(Opts)]
        self.lib.cufinufft_setpts.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                              ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self.lib.cufinufft_execute.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self.lib.cufinufft_destroy.argtypes = [ctypes.c_void_p]

    def plan(self, kind, n, points, tolerance, upsampfac):
        opts = self.Opts()
        self.lib.cufinufft_default_opts(ctypes.byref(opts))
        opts.upsampfac = upsampfac  # 0: the library's own choice
        modes = (ctypes.c_int64 * 3)(n, n, n)
        handle = ctypes.c_void_p()
        iflag = +1 if kind == 1 else -1
        status = self.lib.cufinufft_makeplan(kind, 3, modes, iflag, 1, tolerance, ctypes.byref(handle), ctypes.byref(opts))
        if status != 0:
            raise RuntimeError(f"cufinufft_makeplan (type {kind}, tolerance {tolerance}, upsampfac {upsampfac}) returned {status}")
        x, y, z = points
        status = self.lib.cufinufft_setpts(handle, x.size, x.data.ptr, y.data.ptr, z.data.ptr, 0, None, None, None)
        if status != 0:
            self.lib.cufinufft_destroy(handle)
            raise RuntimeError(f"cufinufft_setpts returned {status}")
        return handle

    def execute(self, handle, c, f):
        status = self.lib.cufinufft_execute(handle, c.data.ptr, f.data.ptr)
        if status != 0:
            raise RuntimeError(f"cufinufft_execute returned {status}")

    def destroy(self, handle):
        self.lib.cufinufft_destroy(handle)


def timed(cp, work, repeats):
    """CUDA-event times (ms) of @p repeats runs of @p work after one warm-up."""
    work()
    cp.cuda.Device().synchronize()
    out = []
    for _ in range(repeats):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        work()
        b.record()
        b.synchronize()
        out.append(cp.cuda.get_elapsed_time(a, b))
    return out


def rel_l2(cp, got, ref):
    return float(cp.linalg.norm((got - ref).ravel()) / cp.linalg.norm(ref.ravel()))


def roughness(cp, x):
    """R x: the first-difference roughness of kirk_hwu (src/kirk_hwu/recon/solve.cpp), no wrap-around."""
    out = cp.zeros_like(x)
    for axis in range(3):
        d = cp.diff(x, axis=axis)
        lo = [slice(None)] * 3
        hi = [slice(None)] * 3
        lo[axis], hi[axis] = slice(0, -1), slice(1, None)
        out[tuple(lo)] -= d
        out[tuple(hi)] += d
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", required=True, help="the built libcufinufft.so (build_cufinufft.sh)")
    p.add_argument("--inputs", required=True, help="the folder kirk_hwu nufft --export wrote")
    p.add_argument("--tolerances", default="1e-3,1e-6,1e-9")
    p.add_argument("--upsampfac", default="0,2", help="upsampling factors (0: the library's choice)")
    p.add_argument("--reconstruct", action="store_true")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--experiment", default="nufft")
    p.add_argument("--csv", required=True)
    args = p.parse_args(argv)
    try:
        tolerances = numbers(args.tolerances, "--tolerances")
        factors = numbers(args.upsampfac, "--upsampfac")
        if args.repeats < 1:
            raise Unusable("--repeats: at least 1")
        if not pathlib.Path(args.lib).is_file():
            raise Unusable(f"--lib {args.lib}: no such file")
        check_header(args.lib)
        csv_path, new = open_csv(args.csv)
        problem, arrays = read_inputs(args.inputs)
    except Unusable as e:
        print(f"run_cufinufft: {e}", file=sys.stderr)
        return 2
    import cupy as cp
    import numpy as np
    peer = Peer(args.lib)
    source = provenance(args.lib)
    n, m = int(problem["grid"]), int(problem["samples"])
    points = tuple(cp.asarray(2 * np.pi * arrays[a].astype(np.float64) / n) for a in ("kx", "ky", "kz"))
    mu = cp.asarray(arrays["mu"].astype(np.complex128))
    w = cp.asarray(arrays["weights"].astype(np.float64))
    reference = cp.asarray(arrays["fhd_direct"].astype(np.complex128))
    truth = cp.asarray(arrays["truth"].astype(np.complex128))
    checked = cp.asarray(arrays["check_samples"].astype(np.int64))
    forward_reference = cp.asarray(arrays["forward_reference"].astype(np.complex128))
    image = cp.empty((n, n, n), dtype=cp.complex128)
    values = cp.empty(m, dtype=cp.complex128)
    rows, failures, outside = [], 0, 0

    def add(variant, operation, tolerance, factor, times, err, what, within, stop="repeats"):
        nonlocal outside
        noise = 100 * statistics.pstdev(times) / statistics.mean(times) if len(times) > 1 else 0.0
        note = "" if within else f"; above its requested tolerance {tolerance:g}"
        valid = "true" if math.isfinite(err) else "false"  # a NaN error: the run is broken, not the peer's accuracy
        for i, ms in enumerate(times):
            rows.append([args.experiment, "cufinufft", variant, "gpu", problem["size"], n, m, operation, repr(tolerance),
                         repr(factor) if factor else "", "", "", i, repr(ms), repr(err), f"{what}{note}; {source}",
                         valid, "", "", repr(noise), len(times), stop, "warm", 0])
        print(f"cufinufft {variant:<22} {operation:<11} tol {tolerance:<6g} {statistics.median(times):9.4g} ms median  "
              f"rel L2 {err:.3g}{'' if within else '  above its requested tolerance'}", flush=True)
        outside += 0 if within else 1

    try:
        for factor in factors:
            variant = "cufinufft-upsampfac-" + (f"{factor:g}" if factor else "auto")
            for tol in tolerances:
                t1 = peer.plan(1, n, points, tol, factor)
                t2 = peer.plan(2, n, points, tol, factor)
                try:
                    # Checked first (one untimed execution each), then timed.
                    peer.execute(t1, mu, image)
                    cp.cuda.Device().synchronize()
                    err1 = rel_l2(cp, image, reference)
                    add(variant, "adjoint", tol, factor, timed(cp, lambda: peer.execute(t1, mu, image), args.repeats), err1,
                        "against the FP64 direct sum, every voxel", err1 <= tol)
                    peer.execute(t2, values, truth)
                    cp.cuda.Device().synchronize()
                    err2 = rel_l2(cp, values[checked], forward_reference)
                    add(variant, "forward", tol, factor, timed(cp, lambda: peer.execute(t2, values, truth), args.repeats), err2,
                        f"against the CPU's direct sums at {checked.size} samples", err2 <= tol)

                    def normal(x=truth):
                        peer.execute(t2, values, x)
                        values[...] *= w
                        peer.execute(t1, values, image)
                    add(variant, "normal", tol, factor, timed(cp, normal, args.repeats), max(err1, err2),
                        "its parts' errors (the larger)", max(err1, err2) <= tol)
                    if args.reconstruct:
                        # The reconstruction as kirk_hwu runs it: conjugate gradients from zero on
                        # T1(w T2 x) + lambda R x = T1(mu), every iteration, timed from F^H d to the end.
                        lam, iterations = float(problem["lambda"]), int(problem["iterations"])
                        def reconstruct():
                            cp.cuda.Device().synchronize()
                            start = time.perf_counter()
                            b = cp.empty_like(image)
                            peer.execute(t1, mu, b)
                            x = cp.zeros_like(b)
                            r = b.copy()
                            q = b.copy()
                            rr = float(cp.vdot(r, r).real)
                            for _ in range(iterations):
                                aq = cp.empty_like(q)
                                peer.execute(t2, values, q)
                                values[...] *= w
                                peer.execute(t1, values, aq)
                                aq += lam * roughness(cp, q)
                                alpha = rr / float(cp.vdot(q, aq).real)
                                x += alpha * q
                                r -= alpha * aq
                                rr_next = float(cp.vdot(r, r).real)
                                q = r + (rr_next / rr) * q
                                rr = rr_next
                            cp.cuda.Device().synchronize()
                            return 1e3 * (time.perf_counter() - start), x
                        runs = [reconstruct() for _ in range(min(3, args.repeats))]
                        x = runs[-1][1]
                        err = float(cp.linalg.norm((x - truth).ravel()) / cp.linalg.norm(truth.ravel()))
                        add(variant, "reconstruct", tol, factor, [ms for ms, _ in runs], err,
                            f"image against the phantom, {iterations} iterations, lambda {lam:g}; host clock", True,
                            stop="max_samples")
                finally:
                    peer.destroy(t1)
                    peer.destroy(t2)
    except RuntimeError as e:
        print(f"run_cufinufft: {e}", file=sys.stderr)
        failures += 1
    with csv_path.open("a", newline="") as f:
        writer = csv.writer(f)
        if new:
            writer.writerow(COLUMNS)
        writer.writerows(rows)
    if outside:
        print(f"run_cufinufft: {outside} result(s) above their requested tolerance (their rows say so)", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
