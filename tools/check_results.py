#!/usr/bin/env python3
"""Schema check of every recorded result under experiments/results/ (run by the test suite).

Each <name>.csv must have a <name>.meta.json beside it with its provenance, the columns its kind of
result needs, numbers where numbers belong, and no failed or invalid row.
"""
import csv
import json
import pathlib
import sys

GPU_META = ["gpu_name", "sm_count", "driver_version", "cuda_version", "git_commit", "git_dirty", "date_utc",
            "command", "host_cpu"]
CPU_META = ["host_cpu", "git_commit", "git_dirty", "date_utc", "command"]
GPU_BENCH = ["experiment", "variant", "work_unit", "repeat", "sm_count", "kernel_ms", "total_ms", "likelihood", "valid"]
CPU_BENCH = ["integrator", "threads", "work_unit", "repeat", "seconds", "points_per_second_per_core"]
COLUMNS = {
    "gpu_correctness": ["variant", "work_unit", "max_rel_diff", "tolerance", "pass"],
    "variant_timings": ["experiment", "variant", "work_unit", "repeat", "kernel_ms", "total_ms", "likelihood", "valid"],
    "ncu_fp64": ["variant", "fp64_pipe_pct", "achieved_occupancy_pct"],
    "bench_cpu": CPU_BENCH,
    "bench_cpu_line_of_sight": CPU_BENCH,
    "modern": GPU_BENCH,
    "exp_throughput": ["function", "exps", "seconds", "exps_per_second"],
    "end_to_end": ["work_unit", "variant", "repeat", "wall_ms", "load_s", "device_start_wait_s", "prepare_s",
                   "integral_s", "likelihood_s", "evaluate_s"],
    "end_to_end_multi": ["work_unit", "variant", "repeat", "devices", "wall_ms", "load_s", "device_start_wait_s",
                         "prepare_s", "integral_s", "likelihood_s", "evaluate_s"],
    "multi_gpu": GPU_BENCH,
    "ncu_modern": ["kernel", "section", "metric", "unit", "value"],
    "skipping": ["work_unit", "area", "stream", "stream_terms", "evaluated_terms", "evaluated_fraction"],
    "sass_mix": ["kernel", "instructions", "fp64", "fp64_mufu", "integer_logic", "shared_loads", "global_loads",
                 "branches", "other"],
}
# Every experiment of experiments/definitions records GPU rows in <name>.csv and CPU rows in <name>_cpu.csv.
DEFINITIONS = pathlib.Path(__file__).resolve().parent.parent / "experiments" / "definitions"
for _definition in DEFINITIONS.glob("*.json"):
    _name = json.loads(_definition.read_text())["name"]
    COLUMNS[_name] = GPU_BENCH
    COLUMNS[_name + "_cpu"] = CPU_BENCH
# Results computed on the host only (no GPU in their provenance).
CPU_KINDS = {"skipping"}
NUMERIC = {"exps_per_second", "wall_ms", "max_rel_diff", "tolerance", "kernel_ms", "total_ms", "likelihood", "fp64_pipe_pct", "sm_count",
           "achieved_occupancy_pct", "seconds", "points_per_second_per_core"}


def check(root):
    errors = []
    files = sorted(root.rglob("*.csv"))
    if not files:
        errors.append(f"{root}: no result files")
    for path in files:
        name = path.stem
        meta_path = path.with_suffix(".meta.json")
        if not meta_path.exists():
            errors.append(f"{path}: no provenance file {meta_path.name}")
            continue
        meta = json.loads(meta_path.read_text())
        needed = CPU_META if COLUMNS.get(name) is CPU_BENCH or name in CPU_KINDS else GPU_META
        errors += [f"{meta_path}: missing key '{k}'" for k in needed if meta.get(k) in (None, "")]
        if name not in COLUMNS:
            errors.append(f"{path}: unknown kind of result (known: {', '.join(COLUMNS)})")
            continue
        rows = list(csv.DictReader(path.open()))
        if not rows:
            errors.append(f"{path}: no rows")
            continue
        missing = [c for c in COLUMNS[name] if c not in rows[0]]
        if missing:
            errors.append(f"{path}: missing columns {missing}")
            continue
        for i, row in enumerate(rows, start=2):
            for c in COLUMNS[name]:
                if c in NUMERIC:
                    try:
                        float(row[c])
                    except ValueError:
                        errors.append(f"{path}:{i}: column {c} is not a number: {row[c]!r}")
            if row.get("pass", "true") != "true" or row.get("valid", "true") != "true":
                errors.append(f"{path}:{i}: a failed or invalid row: {row}")
    return errors, len(files)


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "experiments/results")
    errors, count = check(root)
    for e in errors:
        print("results check:", e)
    print(f"results check: {count} result files, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
