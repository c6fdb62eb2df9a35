#!/usr/bin/env python3
"""Runs the experiments of experiments/definitions/*.json on the local GPU and records the results.

    python3 experiments/run.py [--quick] [--only a,b] [--build build] [--results experiments/results]

Each definition lists runs: GPU runs (variants x work units x an optional sweep or options, timed by
`mwsep bench`) and CPU runs (`mwsep bench-cpu`). Rows go to experiments/results/<gpu>/<name>.csv (CPU rows
to <name>_cpu.csv), provenance to <name>.meta.json, and the state of every run to <name>.status.json.
A run already recorded as done is skipped, so an interrupted sweep resumes where it stopped; every skip
and every failure is printed. --quick uses the small work units only and writes to <gpu>-quick/.
Without a GPU it says so and exits with status 1.
"""
import argparse
import csv
import datetime
import json
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SMALL = ["3s-small", "2s-small"]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=False, text=True, capture_output=True, **kw)


def gpu_name():
    r = sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]) if shutil.which("nvidia-smi") else None
    if not r or r.returncode != 0 or not r.stdout.strip():
        return None, None
    name, driver = [s.strip() for s in r.stdout.strip().splitlines()[0].split(",")]
    return name, driver


def git_state():
    # The GPU machine's copy of the tree may hold a stale .git: its caller names the commit explicitly.
    explicit = os.environ.get("MWSEP_GIT_STATE")
    if explicit and pathlib.Path(explicit).exists():
        kv = dict(l.split("=", 1) for l in pathlib.Path(explicit).read_text().split() if "=" in l)
        return kv.get("git_commit", "unknown"), kv.get("git_dirty") == "true"
    r = sh(["git", "-C", str(ROOT), "rev-parse", "HEAD"])
    if r.returncode == 0:
        dirty = bool(sh(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"]).stdout.strip())
        return r.stdout.strip(), dirty
    # A copy of the tree without .git (the GPU machine) carries the commit in .device-input/git_state.
    state = ROOT / ".device-input" / "git_state"
    if state.exists():
        kv = dict(l.split("=", 1) for l in state.read_text().split() if "=" in l)
        return kv.get("git_commit", "unknown"), kv.get("git_dirty") == "true"
    return "unknown", True


def host_cpu():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


class Runner:
    def __init__(self, args):
        self.mwsep = str(ROOT / args.build / "mwsep")
        self.build = ROOT / args.build
        self.quick = args.quick

    def stars(self, wu):
        path = ROOT / "data" / "stars" / f"{wu}.txt"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            r = sh([self.mwsep, "generate", "-a", str(self.workunit(wu)), "-o", str(path), "--count", "100000", "--seed", "1"])
            if r.returncode != 0:
                raise RuntimeError(f"generating stars for {wu} failed: {r.stderr}")
        return path

    @staticmethod
    def workunit(wu):
        return ROOT / "data" / "workunits" / wu / "astronomy_parameters.txt"

    def reference(self, wu):
        """The CPU likelihood of a work unit (fast integrator, all cores), computed once and cached."""
        cache = self.build / "reference" / f"{wu}.json"
        if not cache.exists():
            cache.parent.mkdir(parents=True, exist_ok=True)
            r = sh([self.mwsep, "run", "-a", str(self.workunit(wu)), "-s", str(self.stars(wu)), "--cpu", "fast", "--json"])
            if r.returncode != 0:
                raise RuntimeError(f"CPU reference of {wu} failed: {r.stderr}")
            cache.write_text(r.stdout)
        return json.loads(cache.read_text())["likelihood"]


def gpu_jobs(run, quick):
    """Expands one GPU run into (key, work unit, mwsep bench options) jobs."""
    wus = [w for w in run["work_units"] if not quick or w in SMALL] or (SMALL[1:] if quick else [])
    sweeps = [{}]
    for key, values in run.get("sweep", {}).items():
        sweeps = [dict(s, **{key: v}) for s in sweeps for v in values]
    for wu in wus:
        for sweep in sweeps:
            opts = dict(run.get("options", {}), **sweep)
            flags = []
            for k, v in sorted(opts.items()):
                if isinstance(v, bool):
                    if v:
                        flags.append("--" + k.replace("_", "-"))
                else:
                    flags += ["--" + k.replace("_", "-"), str(v)]
            key = "gpu|" + ",".join(run["variants"]) + "|" + wu + "|" + json.dumps(opts, sort_keys=True)
            yield key, wu, flags


def run_experiment(runner, definition, out_dir, gpu_driver):
    name = definition["name"]
    status_path = out_dir / f"{name}.status.json"
    status = json.loads(status_path.read_text()) if status_path.exists() else {}
    meta_path = out_dir / f"{name}.meta.json"
    default_repeats = 3 if runner.quick else 5
    failures = 0
    device_meta = None
    recorded = {"gpu": False, "cpu": False}  # whether this run added rows to <name>.csv / <name>_cpu.csv
    for run in definition["runs"]:
        repeats = run.get("repeats", default_repeats)
        if run.get("kind") == "cpu":
            wus = [w for w in run["work_units"] if not runner.quick or w in SMALL]
            for wu in wus:
                key = f"cpu|{run['integrators']}|{wu}|slices={run.get('slices', 1)}"
                if status.get(key) == "done":
                    print(f"  {name}: {key}: already recorded, skipped")
                    continue
                with tempfile.TemporaryDirectory() as tmp:
                    part = pathlib.Path(tmp) / "rows.csv"
                    cmd = [runner.mwsep, "bench-cpu", "-a", str(runner.workunit(wu)), "--work-unit", wu,
                           "--experiment", name, "--integrators", run["integrators"], "--repeats", str(repeats),
                           "--slices", str(run.get("slices", 1)), "--csv", str(part)]
                    print(f"  {name}: {key}: running", flush=True)
                    r = sh(cmd)
                    print(r.stdout, end="")
                    status[key] = "done" if r.returncode == 0 else f"run failed: {r.stderr.strip()[:300]}"
                    if r.returncode == 0:
                        append_rows(part, out_dir / f"{name}_cpu.csv")
                        recorded["cpu"] = True
                    else:
                        failures += 1
                status_path.write_text(json.dumps(status, indent=1) + "\n")
            continue
        for key, wu, flags in gpu_jobs(run, runner.quick):
            if status.get(key) == "done":
                print(f"  {name}: {key}: already recorded, skipped")
                continue
            with tempfile.TemporaryDirectory() as tmp:
                part = pathlib.Path(tmp) / "rows.csv"
                meta = pathlib.Path(tmp) / "meta.json"
                cmd = [runner.mwsep, "bench", "-a", str(runner.workunit(wu)), "-s", str(runner.stars(wu)),
                       "--work-unit", wu, "--experiment", name, "--variants", ",".join(run["variants"]),
                       "--repeats", str(repeats), "--expect", repr(runner.reference(wu)), "--csv", str(part),
                       "--meta", str(meta)] + flags
                print(f"  {name}: {key}: running", flush=True)
                r = sh(cmd)
                print(r.stdout, end="")
                if r.returncode == 0:
                    status[key] = "done"
                elif part.exists():
                    status[key] = "verify failed: a timed likelihood disagreed with the CPU (rows marked invalid)"
                else:
                    status[key] = f"run failed: {r.stderr.strip()[:300]}"
                if r.returncode != 0:
                    failures += 1
                    print(r.stderr, end="", file=sys.stderr)
                if part.exists():
                    append_rows(part, out_dir / f"{name}.csv")
                    recorded["gpu"] = True
                if meta.exists():
                    device_meta = json.loads(meta.read_text())
            status_path.write_text(json.dumps(status, indent=1) + "\n")
    # A meta file describes the run that last added rows to its CSV; a resumed run that added none leaves it.
    if recorded["gpu"] or not meta_path.exists():
        write_meta(meta_path, name, definition, device_meta, gpu_driver, runner.quick)
    cpu_meta = out_dir / f"{name}_cpu.meta.json"
    if (out_dir / f"{name}_cpu.csv").exists() and (recorded["cpu"] or not cpu_meta.exists()):
        write_meta(cpu_meta, name, definition, device_meta, gpu_driver, runner.quick)
    return failures


def append_rows(part, target):
    rows = list(csv.reader(part.open()))
    if not rows:
        return
    new = not target.exists()
    if not new:
        header = next(csv.reader(target.open()))
        if header != rows[0]:
            raise RuntimeError(f"{target}: columns differ from the new rows'; move the old file away")
    with target.open("a", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerows(rows if new else rows[1:])


def write_meta(path, name, definition, device_meta, gpu_driver, quick):
    old = json.loads(path.read_text()) if path.exists() else {}
    meta = dict(old)
    if device_meta:
        meta.update(device_meta)
    commit, dirty = git_state()
    # A resumed experiment holds rows of several runs: name every commit that contributed some.
    earlier = old.get("git_commits") or ([old["git_commit"]] if old.get("git_commit") else [])
    meta["git_commits"] = list(dict.fromkeys(earlier + [commit]))
    meta.update({
        "experiment": name,
        "thesis": definition.get("thesis", ""),
        "question": definition.get("question", ""),
        "driver_version": gpu_driver,
        "git_commit": commit,
        "git_dirty": dirty,
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": "python3 experiments/run.py" + (" --quick" if quick else "") + f" --only {name}",
        "host_cpu": host_cpu(),
        "compiler_flags": "CMake Release (-O3), CUDA sm_90, --resource-usage -lineinfo",
        "quick": quick,
    })
    if definition.get("emulation"):
        meta["emulation"] = "SM counts restricted with CUDA green contexts on one GPU; not the thesis's GPUs"
    path.write_text(json.dumps(meta, indent=1) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small work units only, 3 repeats")
    p.add_argument("--only", default="", help="comma-separated experiment names")
    p.add_argument("--build", default="build")
    p.add_argument("--results", default="experiments/results")
    args = p.parse_args()
    name, driver = gpu_name()
    if not name:
        print("experiments: no NVIDIA GPU on this machine (nvidia-smi finds none). The experiments time GPU kernels "
              "and need one; the recorded results in experiments/results/ are what the report is built from.",
              file=sys.stderr)
        return 1
    slug = name.lower().replace(" ", "-") + ("-quick" if args.quick else "")
    out_dir = ROOT / args.results / slug
    out_dir.mkdir(parents=True, exist_ok=True)
    runner = Runner(args)
    wanted = [s for s in args.only.split(",") if s]
    failures = 0
    for path in sorted((ROOT / "experiments" / "definitions").glob("*.json")):
        definition = json.loads(path.read_text())
        if wanted and definition["name"] not in wanted:
            continue
        print(f"experiment {definition['name']} ({definition.get('thesis', '')})", flush=True)
        failures += run_experiment(runner, definition, out_dir, driver)
    print(f"experiments: results in {out_dir}; {failures} run(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
