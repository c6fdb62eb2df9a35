"""Ryoo et al. (PPoPP 2008) on today's GPU: the matrix-multiplication ladder, the later steps, the
references (cuBLAS, a CPU BLAS) and SAXPY.

Each kind turns one run of a definition into jobs (experiments/harness/runner.py):
  correctness   every GPU variant against the double-precision CPU product, and the stream kernels exactly
                (the GPU test suite): gpu_correctness.csv and its log
  listing       `ryoo variants`: registers, local memory, shared memory, theoretical occupancy: <name>.csv
  gemm_bench    `ryoo bench`: each variant checked, then timed (CUDA events, nvbench's method): <name>.csv
  stream_bench  `ryoo stream`: SAXPY and the copies, checked exactly, then timed: <name>.csv
  bench_cpu     `ryoo bench-cpu`: OpenBLAS SGEMM on 1 thread and on every core, checked: <name>.csv
                (recorded as skipped when the build has no CPU BLAS)
  ncu_metrics   Nsight Compute: one launch per variant in one process (`ryoo profile`), clocks left alone:
                DRAM bytes, instruction mix, occupancy: <name>.csv (a row per launch: its variant, its input (the
                run's `n` or `size`) and its launch, numbered through the definition's runs)
  sass          the innermost loop of every kernel in the SASS (`cuobjdump -sass`): its instruction mix: <name>.csv
  app_bench     `ryoo elimination|tpacf|rc5|pns`: the paper's applications, each GPU variant checked against the
                single-thread CPU, then the CPU, the GPU kernels, the whole application and its transfers timed:
                <name>.csv (one row per sample and part)
  sass_mix      the shift, funnel-shift and logic instructions of named application kernels in the SASS: <name>.csv
  source_lines  Table 2's columns for this artifact's code: lines of each application's source and kernel files
                (without blank and comment lines): <name>.csv
"""
import csv
import io
import json
import os
import pathlib
import re
import subprocess
import sys

from experiments.harness import study
from experiments.harness.kinds import CACHE_KEY, TIMING, Compare, Input, Kind
from experiments.harness.runner import Job
from experiments.harness.study import correctness_kind

NUMERIC = {"n", "padded_n", "kernel_ms", "gflops", "max_error_ratio", "checked_elements", "sm_clock_mhz", "noise_pct",
           "samples", "count", "bytes", "gb_per_s", "threads", "seconds", "registers", "local_bytes",
           "static_smem_bytes", "dynamic_smem_bytes", "blocks_per_sm", "warps_per_sm", "theoretical_occupancy_pct",
           "loop_instructions", "ffma", "ffma_fraction", "dram_read_bytes", "dram_write_bytes", "achieved_occupancy_pct",
           "ms", "work", "rate", "instructions", "funnel_shifts", "shifts", "logic", "integer_adds", "source_lines",
           "kernel_lines", "files"}
_SASS = ["variant", "loop_instructions", "ffma", "shared_loads", "global_loads", "shared_stores", "barriers",
         "branches", "other", "ffma_fraction"]
_MIX = ["variant", "instructions", "funnel_shifts", "shifts", "logic", "integer_adds"]
# Every kind this study writes (experiments/harness/kinds.py). GPU timings: within 2 % or the interval of the two
# medians where wider (too noisy to judge above 10 %); CPU timings within 10 %; listings and SASS exact; profiler
# percentages within 5 points. Each kind's inputs: the keys a definition's run may give (harness.kinds.Input).
_VARIANTS = Input("list[str]")
_REPEATS = Input("int", 5, quick=3)  # --min-samples of a GPU timing
_TIME_LIMIT = Input("number", 2)      # --time-limit, seconds
KINDS = {
    "correctness": correctness_kind(["variant", "n", "checked_elements", "max_error_ratio", "failed", "pass"],
                                    key=["variant", "n"], value="max_error_ratio", numeric=NUMERIC,
                                    # every checked element within its bound (ryoo::ProductCheck::pass)
                                    checks=(("max_error_ratio", "<=", 1.0), ("failed", "<=", 0),
                                            ("checked_elements", ">", 0))),
    "listing": Kind(["variant", "step", "threads_per_block", "registers", "local_bytes", "static_smem_bytes",
                     "dynamic_smem_bytes", "blocks_per_sm", "warps_per_sm", "theoretical_occupancy_pct",
                     "imposed_blocks_per_sm", "symbol"], key=["variant"], numeric=NUMERIC, compare=Compare("exact"),
                    run_keys={}, definition_keys={"args": Input("list[str]", [])}),
    "gemm_bench": Kind(["experiment", "variant", "step", "n", "padded_n", "repeat", "kernel_ms", "gflops", "valid",
                        "max_error_ratio", "checked_elements", *TIMING], key=["variant", "step", "n", "padded_n", *CACHE_KEY],
                       value="kernel_ms", numeric=NUMERIC, compare=Compare("median", 0.02, noise="noise_pct"),
                       run_keys={"n": Input("list[int]"), "variants": _VARIANTS, "repeats": _REPEATS,
                                 "time_limit_s": _TIME_LIMIT}),
    "stream_bench": Kind(["experiment", "variant", "count", "bytes", "repeat", "kernel_ms", "gb_per_s", "valid", *TIMING],
                         key=["variant", "count", "bytes", *CACHE_KEY], value="kernel_ms", numeric=NUMERIC,
                         compare=Compare("median", 0.02, noise="noise_pct"),
                         run_keys={"variants": _VARIANTS, "count": Input("int"), "repeats": _REPEATS,
                                   "time_limit_s": _TIME_LIMIT}),
    "bench_cpu": Kind(["experiment", "library", "threads", "n", "repeat", "seconds", "gflops", "valid", "max_error_ratio",
                       "checked_elements"], key=["library", "threads", "n"], value="seconds", numeric=NUMERIC,
                      host_only=True, compare=Compare("median", 0.10),
                      run_keys={"n": Input("int"), "threads": Input("list[int|str]"), "repeats": Input("int", 3)}),
    # A run profiles the matrix products at `n` or the applications at `size` (one of the two).
    "ncu_metrics": Kind(["variant", "launch"], key=["variant", "launch"], numeric=NUMERIC, compare=Compare("points", 5),
                        run_keys={"variants": _VARIANTS, "n": Input("int", None), "size": Input("str", None)},
                        definition_keys={"metrics": Input("dict[str]")}),
    "sass": Kind(_SASS, key=["variant"], numeric=NUMERIC, compare=Compare("exact"), run_keys={}),
    "app_bench": Kind(["experiment", "application", "variant", "size", "parameter", "part", "repeat", "ms", "work",
                       "work_unit", "rate", "valid", "check", *TIMING],
                      key=["application", "variant", "size", "parameter", "part", *CACHE_KEY], value="ms", numeric=NUMERIC,
                      compare=Compare("median", 0.02, noise="noise_pct"),
                      host_specific="the rows of variant cpu time the host's CPU (the applications' CPU versions)",
                      run_keys={"application": Input("str"), "variants": _VARIANTS, "size": Input("str", "large"),
                                "parts": Input("list[str]", ["kernel", "application", "transfer"]),
                                "cpu_samples": Input("int", 3), "repeats": _REPEATS, "time_limit_s": _TIME_LIMIT,
                                "options": Input("dict", {})}),
    "sass_mix": Kind(_MIX, key=["variant"], numeric=NUMERIC, compare=Compare("exact"), run_keys={"variants": _VARIANTS}),
    "source_lines": Kind(["application", "files", "source_lines", "kernel_lines"], key=["application"], numeric=NUMERIC,
                         host_only=True, compare=Compare("exact"),
                         run_keys={"application": Input("str"), "source": Input("list[str]"), "kernel": Input("list[str]")}),
}


def innermost_loops(sass_text):
    """{mangled function name: instruction mnemonics of its innermost loop that holds an FFMA}. A loop is
    a backward branch; the innermost is the one of smallest span. Branch targets are given either as
    addresses or as labels (.L_x_N), depending on the cuobjdump version."""
    functions = {}
    name, body, labels = None, [], {}
    pending = []

    def close():
        if name is not None:
            functions[name] = (body, labels)

    for line in sass_text.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            close()
            name, body, labels, pending = m.group(1), [], {}, []
            continue
        if name is None:
            continue
        m = re.match(r"\s*(\.L_x_\d+):", line)
        if m:
            pending.append(m.group(1))
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m:
            address = int(m.group(1), 16)
            for label in pending:
                labels[label] = address
            pending = []
            body.append((address, m.group(2)))
    close()
    result = {}
    for fname, (body, labels) in functions.items():
        best = None
        for address, text in body:
            ins = re.sub(r"^@!?U?P\w+\s+", "", text)
            if not ins.startswith("BRA"):
                continue
            t = re.search(r"`?\(?(\.L_x_\d+)\)?`?", ins)
            target = labels.get(t.group(1)) if t else None
            if target is None:
                a = re.search(r"0x([0-9a-f]+)", ins)
                target = int(a.group(1), 16) if a else None
            if target is None or target > address:
                continue
            loop = [re.sub(r"^@!?U?P\w+\s+", "", x) for a2, x in body if target <= a2 <= address]
            if any(i.startswith("FFMA") for i in loop) and (best is None or len(loop) < len(best)):
                best = loop
        if best:
            result[fname] = [i.split()[0] for i in best]
    return result


def loop_mix(mnemonics):
    """Counts of the categories the paper's instruction-mix argument uses."""
    def count(prefixes):
        return sum(1 for m in mnemonics if m.split(".")[0] in prefixes)
    ffma = count({"FFMA"})
    shared_loads = count({"LDS"})
    global_loads = count({"LDG"})
    shared_stores = count({"STS"})
    barriers = count({"BAR"})
    branches = count({"BRA"})
    total = len(mnemonics)
    return {"loop_instructions": total, "ffma": ffma, "shared_loads": shared_loads, "global_loads": global_loads,
            "shared_stores": shared_stores, "barriers": barriers, "branches": branches,
            "other": total - ffma - shared_loads - global_loads - shared_stores - barriers - branches,
            "ffma_fraction": ffma / total if total else 0}


# The kernels Nsight Compute profiles in this study's program: its own (ryoo_*) and the kirk_hwu kernels that
# MRI-Q, MRI-FHD and CP run (`ryoo profile-apps`).
KERNEL_NAMES = "regex:^(ryoo_|mri_gather|coulomb_slice)"

class Study(study.Study):
    KINDS = KINDS
    PROGRAM = "ryoo"
    GPU_TESTS = ("tests/ryoo/ryoo_gpu_tests", "RYOO_GPU_RESULTS")

    def __init__(self, build, quick, devices, options):
        super().__init__(build, quick, devices, options)
        self.ryoo = self.program
        self._info = None

    def info(self):
        if self._info is None:
            try:
                r = subprocess.run([self.ryoo, "info"], text=True, capture_output=True)
                self._info = json.loads(r.stdout) if r.returncode == 0 else {"cuda": False, "cpu_blas": False,
                                                                              "cpu_blas_library": r.stderr.strip()}
            except OSError as e:
                self._info = {"cuda": False, "cpu_blas": False, "cpu_blas_library": f"no ryoo program: {e}"}
        return self._info

    # ---- kinds --------------------------------------------------------------------------------------

    def _job(self, d, key, args, needs_gpus=1):
        """A `ryoo` command that writes rows (csv_job); the experiment's name follows the shown arguments."""
        return self.csv_job(d, key, args, after=("--experiment", d["name"]), needs_gpus=needs_gpus)

    def kind_listing(self, d):
        def job(tmp):
            out = tmp / f"{d['name']}.csv"
            r = self._run([self.ryoo, "variants", *d["args"]])
            if r.returncode != 0 or len(r.stdout.splitlines()) < 2:
                raise RuntimeError(f"ryoo variants failed: {r.stderr.strip()[-300:]}")
            out.write_text(r.stdout)
            return {out.name: out}
        yield Job("variants", job, ["ryoo variants " + " ".join(d["args"])])

    def kind_gemm_bench(self, d):
        for run in d["runs"]:
            sizes = run["n"][:1] if self.quick else run["n"]
            for n in sizes:
                args = ["bench", "--variants", ",".join(run["variants"]), "--n", n,
                        "--min-samples", run["repeats"], "--time-limit", run["time_limit_s"]]
                yield self._job(d, f"{','.join(run['variants'])}|n={n}", args)

    def kind_stream_bench(self, d):
        for run in d["runs"]:
            args = ["stream", "--variants", ",".join(run["variants"]), "--count", run["count"],
                    "--min-samples", run["repeats"], "--time-limit", run["time_limit_s"]]
            yield self._job(d, f"{','.join(run['variants'])}|count={run['count']}", args)

    def kind_bench_cpu(self, d):
        for run in d["runs"]:
            threads = [os.cpu_count() if t == "all" else t for t in run["threads"]]
            key = f"n={run['n']}|threads={','.join(map(str, run['threads']))}"
            if not self.info().get("cpu_blas"):
                yield Job(key, None, [], skip=f"no CPU BLAS in this build ({self.info().get('cpu_blas_library')})")
                continue
            args = ["bench-cpu", "--n", run["n"], "--threads", ",".join(map(str, threads)), "--min-samples", run["repeats"]]
            yield self._job(d, key, args, needs_gpus=0)

    def kind_ncu_metrics(self, d):
        metrics = d["metrics"]
        # The launches are numbered through the definition's runs, so that a variant profiled at two inputs
        # (ncu_limiters: the SGEMM kernels at n = 4096 and 8192) is two configurations, not one twice.
        first_launch = 0
        for run in d["runs"]:
            variants = run["variants"]
            # The matrix products by size (`ryoo profile`), the applications by input (`ryoo profile-apps`).
            if (run["n"] is None) == (run["size"] is None):
                raise ValueError("an ncu_metrics run names `n` (the matrix products) or `size` (the applications), "
                                 "one of the two")
            n = run["n"] if run["n"] is not None else run["size"]
            program = ["profile", "--variants", ",".join(variants), "--n", str(n)] if run["n"] is not None else \
                ["profile-apps", "--variants", ",".join(variants), "--size", str(n)]

            def job(tmp, variants=variants, n=n, program=program, first=first_launch):
                # This study's kernels are named ryoo_*; MRI-Q, MRI-FHD and CP run the kirk_hwu study's.
                cmd = ["ncu", "--clock-control", "none", "--kernel-name", KERNEL_NAMES, "--csv",
                       "--metrics", ",".join(metrics.values()), self.ryoo, *program]
                r = self._run(cmd, log=tmp / "ncu.log")
                rows = list(csv.reader(io.StringIO("\n".join(l for l in r.stdout.splitlines() if l.startswith('"')))))
                if len(rows) < 2:
                    raise RuntimeError(f"ncu measured nothing: {r.stderr.strip()[-400:]}")
                head = rows[0]
                ids = {}
                for row in rows[1:]:
                    ids.setdefault(int(row[head.index("ID")]), {})[row[head.index("Metric Name")]] = \
                        row[head.index("Metric Value")].replace(",", "")
                if len(ids) != len(variants):
                    raise RuntimeError(f"ncu measured {len(ids)} launches for {len(variants)} variants")
                part = tmp / f"{d['name']}.csv"
                lines = ["variant,input,launch," + ",".join(metrics)]
                for launch, (v, vid) in enumerate(zip(variants, sorted(ids)), start=first):
                    missing = [m for m in metrics.values() if m not in ids[vid]]
                    if missing:
                        raise RuntimeError(f"ncu did not report {missing} for {v}")
                    lines.append(f"{v},{n},{launch}," + ",".join(ids[vid][m] for m in metrics.values()))
                part.write_text("\n".join(lines) + "\n")
                return {part.name: part}
            first_launch += len(variants)
            yield Job(f"{','.join(variants)}|n={n}", job,
                      [f"ncu --clock-control none --kernel-name {KERNEL_NAMES} --metrics ... ryoo {program[0]} --variants ... {program[-2]} {n}"])

    def kind_sass(self, d):
        def job(tmp):
            listing = self._run([self.ryoo, "variants"])
            if listing.returncode != 0:
                raise RuntimeError(f"ryoo variants failed: {listing.stderr.strip()[-300:]}")
            symbols = {row["symbol"]: row["variant"] for row in csv.DictReader(io.StringIO(listing.stdout))}
            sass = self._run(["cuobjdump", "-sass", self.ryoo])
            if sass.returncode != 0:
                raise RuntimeError(f"cuobjdump failed: {sass.stderr.strip()[-300:]}")
            (tmp / "ryoo.sass").write_text(sass.stdout)
            loops = innermost_loops(sass.stdout)
            part = tmp / f"{d['name']}.csv"
            with part.open("w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=_SASS, lineterminator="\n")
                w.writeheader()
                for symbol, variant in symbols.items():
                    if symbol not in loops:
                        raise RuntimeError(f"no loop with an FFMA found in the SASS of {variant} ({symbol})")
                    w.writerow(dict(variant=variant, **loop_mix(loops[symbol])))
            return {part.name: part}
        yield Job("ryoo", job, ["cuobjdump -sass build/ryoo | innermost loop of each kernel (experiments/studies/ryoo.py)"])


    def kind_app_bench(self, d):
        for run in d["runs"]:
            size = "small" if self.quick else run["size"]
            args = [run["application"], "--size", size, "--variants", ",".join(run["variants"]),
                    "--parts", ",".join(run["parts"]), "--cpu-samples", run["cpu_samples"],
                    "--min-samples", run["repeats"], "--time-limit", run["time_limit_s"], *self.flags(run["options"])]
            yield self._job(d, f"{run['application']}|{','.join(run['variants'])}|{size}|"
                               f"{json.dumps(run['options'], sort_keys=True)}", args)

    def kind_sass_mix(self, d):
        wanted = [v for run in d["runs"] for v in run["variants"]]

        def job(tmp):
            listing = self._run([self.ryoo, "variants", "--apps"])
            if listing.returncode != 0:
                raise RuntimeError(f"ryoo variants --apps failed: {listing.stderr.strip()[-300:]}")
            symbols = {row["variant"]: row["symbol"] for row in csv.DictReader(io.StringIO(listing.stdout))}
            sass = self._run(["cuobjdump", "-sass", self.ryoo])
            if sass.returncode != 0:
                raise RuntimeError(f"cuobjdump failed: {sass.stderr.strip()[-300:]}")
            mixes = function_mixes(sass.stdout)
            part = tmp / f"{d['name']}.csv"
            with part.open("w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=_MIX, lineterminator="\n")
                w.writeheader()
                for v in wanted:
                    if symbols.get(v) not in mixes:
                        raise RuntimeError(f"no SASS found for {v} ({symbols.get(v)})")
                    w.writerow(dict(variant=v, **mixes[symbols[v]]))
            return {part.name: part}
        yield Job("ryoo", job, ["cuobjdump -sass build/ryoo | shift, funnel-shift and logic instructions per kernel"])

    def kind_source_lines(self, d):
        root = pathlib.Path(__file__).resolve().parents[2]

        def job(tmp):
            part = tmp / f"{d['name']}.csv"
            with part.open("w", newline="") as f:
                w = csv.writer(f, lineterminator="\n")
                w.writerow(["application", "files", "source_lines", "kernel_lines"])
                for run in d["runs"]:
                    source = sorted({p for g in run["source"] for p in root.glob(g)})
                    kernel = sorted({p for g in run["kernel"] for p in root.glob(g)})
                    if not source or not kernel:
                        raise RuntimeError(f"{run['application']}: a glob matched no file")
                    w.writerow([run["application"], len(source), sum(code_lines(p) for p in source),
                                sum(code_lines(p) for p in kernel)])
            return {part.name: part}
        yield Job("lines", job, ["count lines without blanks and comments (experiments/studies/ryoo.py code_lines)"], needs_gpus=0)


def function_mixes(sass_text):
    """{mangled function name: counts of its instructions by the categories of the rotate question}."""
    out, name = {}, None
    for line in sass_text.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            name = m.group(1)
            out[name] = {k: 0 for k in _MIX[1:]}
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if name is None or not m:
            continue
        op = m.group(1).split(".")[0]
        c = out[name]
        c["instructions"] += 1
        if op == "SHF" and ".W" in m.group(1):
            c["funnel_shifts"] += 1  # SHF.L.W / SHF.R.W: a rotate (the wrapping funnel shift)
        elif op in ("SHF", "SHL", "SHR"):
            c["shifts"] += 1
        elif op in ("LOP3", "LOP"):
            c["logic"] += 1
        elif op in ("IADD3", "IADD", "IMAD"):
            c["integer_adds"] += 1
    return out


def code_lines(path):
    """Lines of a C++, CUDA or Python file that are neither blank nor only a comment."""
    count, block = 0, False
    for line in pathlib.Path(path).read_text().splitlines():
        t = line.strip()
        if block:
            if "*/" in t:
                block = False
                t = t.split("*/", 1)[1].strip()
            else:
                continue
        if t.startswith("/*"):
            block = "*/" not in t
            continue
        if not t or t.startswith("//") or t.startswith("#") and path.suffix == ".py":
            continue
        count += 1
    return count


# The columns of every kind, for the readers that ask for them by name.
COLUMNS = {name: list(k.columns) for name, k in Study.kinds().items()}
