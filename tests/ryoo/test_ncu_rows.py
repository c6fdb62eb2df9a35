"""Every ncu_metrics definition of the ryoo study writes one row per profiled launch, and no configuration (its
kind's key) twice, also where a definition profiles one variant at two inputs (ncu_limiters: the SGEMM kernels
at n = 4096 and 8192). The profiler is replaced by a stand-in that prints what `ncu --csv` prints: one line per
launch and metric, with the launch's ID; each row must carry its run's input.

    python3 tests/ryoo/test_ncu_rows.py
"""
import pathlib
import subprocess
import sys
import tempfile

if not __package__:  # run by its path, not with -m: import from the checkout's root
    sys.path[0] = str(pathlib.Path(__file__).resolve().parents[2])
from experiments.harness import results, runner  # noqa: E402
from experiments.studies import ryoo  # noqa: E402


def profiler_output(cmd):
    """What `ncu --csv --metrics a,b ... ryoo profile --variants v1,v2 ...` prints: a header, then a line per
    launch (IDs from 0 in launch order) and metric. Each value is the launch's ID plus the metric's index / 10,
    so that a row shows which launch and metric it came from."""
    metrics = cmd[cmd.index("--metrics") + 1].split(",")
    variants = cmd[cmd.index("--variants") + 1].split(",")
    lines = ['"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"']
    for launch, variant in enumerate(variants):
        lines += [f'"{launch}","ryoo_{variant}","{m}","","{launch + k / 10:.1f}"' for k, m in enumerate(metrics)]
    return subprocess.CompletedProcess(cmd, 0, "==PROF== Connected\n" + "\n".join(lines) + "\n", "")


def main():
    study = ryoo.Study(pathlib.Path("build"), False, [], {})
    study._run = lambda cmd, env=None, log=None: profiler_output([str(c) for c in cmd])
    problems, checked = [], 0
    for d in runner.load_definitions("ryoo", kinds=ryoo.Study.kinds()):
        if d["kind"] != "ncu_metrics":
            continue
        kind = ryoo.Study.kinds()["ncu_metrics"]
        with tempfile.TemporaryDirectory() as tmp:
            text, expected = "", []
            for i, job in enumerate(study.jobs(d)):
                scratch = pathlib.Path(tmp) / str(i)
                scratch.mkdir()
                part = job.run(scratch)[f"{d['name']}.csv"].read_text().splitlines()
                text += "\n".join(part if not text else part[1:]) + "\n"  # as the runner appends its parts
            for run in d["runs"]:
                given = run["n"] if run["n"] is not None else run["size"]
                expected += [(v, str(given)) for v in run["variants"]]
            path = pathlib.Path(tmp) / f"{d['name']}.csv"
            path.write_text(text)
            found, rows = results.check_table(path, kind, list(d["metrics"]))
            problems += [f"{d['name']}: {p}" for p in found]
            got = [(r["variant"], r.get("input", "(none)")) for r in rows]
            if got != expected:
                problems.append(f"{d['name']}: rows for {got}, expected {expected}")
            launches = [int(r["launch"]) for r in rows]
            if launches != list(range(len(expected))):
                problems.append(f"{d['name']}: launches numbered {launches}")
            checked += 1
    if checked < 2:
        problems.append(f"{checked} ncu_metrics definitions found, expected ncu_apps and ncu_limiters at least")
    for p in problems:
        print(p)
    print(f"{checked} definitions, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
