"""Every experiment definition of the ryoo study turns into jobs, and every variant it names is one the
built program registers (so that a typing error fails here, not on the GPU host).

    python3 tests/ryoo/test_definitions.py BUILD_DIR
"""
import pathlib
import subprocess
import sys

if not __package__:  # run by its path, not with -m: import from the checkout's root
    sys.path[0] = str(pathlib.Path(__file__).resolve().parents[2])
from experiments.harness import runner  # noqa: E402
from experiments.studies import ryoo  # noqa: E402


def main():
    build = pathlib.Path(sys.argv[1])
    listed = subprocess.run([str(build / "ryoo"), "variants", "--names"], text=True, capture_output=True, check=True)
    known = {line.split()[1] for line in listed.stdout.splitlines()}
    study = ryoo.Study(build, False, [], {})
    problems = []
    for d in runner.load_definitions("ryoo", kinds=ryoo.Study.kinds()):  # checked, defaults filled in
        if not hasattr(study, "kind_" + d["kind"]):
            problems.append(f"{d['name']}: unknown kind {d['kind']}")
            continue
        if d["kind"] not in ryoo.COLUMNS:
            problems.append(f"{d['name']}: kind {d['kind']} declares no columns")
        if not list(study.jobs(d)):
            problems.append(f"{d['name']}: no jobs")
        for run in d["runs"]:
            problems += [f"{d['name']}: unknown variant {v}" for v in run.get("variants", []) if v not in known]
    for p in problems:
        print(p)
    print(f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
