"""A toy CPU-only study: the sum of 1..n, computed by its program (toy_sum.py in the build folder).
  sums   one row per repeat: n, the sum and the seconds it took: <name>.csv
"""
import sys

from experiments.harness import study
from experiments.harness.kinds import Compare, Input, Kind
from experiments.harness.runner import Job

# [toy-kinds-begin]
KINDS = {
    # The sum is exact: two recordings agree when every n has the same sum. A run names its n and repeats.
    "sums": Kind(["experiment", "n", "repeat", "sum", "seconds"], key=["n"], value="sum",
                 numeric={"n", "sum", "seconds"}, host_only=True, compare=Compare("exact", values=("sum",)),
                 run_keys={"n": Input("list[int]"), "repeats": Input("int", 1)}),
}
# [toy-kinds-end]


# [toy-study-begin]
class Study(study.Study):
    KINDS = KINDS
    PROGRAM = "toy_sum.py"

    def kind_sums(self, d):
        for run in d["runs"]:
            for n in run["n"]:
                def job(tmp, n=n, run=run):
                    part = tmp / f"{d['name']}.csv"
                    r = self._run([sys.executable, self.program, "--n", n, "--repeats", run["repeats"],
                                   "--experiment", d["name"], "--csv", part])
                    if r.returncode != 0:
                        raise RuntimeError(f"toy_sum.py failed: {r.stderr.strip()[-300:]}")
                    return {part.name: part}
                yield Job(f"n={n}", job, [f"toy_sum.py --n {n}"], needs_gpus=0)
# [toy-study-end]
