"""The real-stripe experiment (kind fit_stripe, experiments/studies/mwsep_stripes.py) run on the CPU with a tiny
version of the stripe-86 unit: its 2009 parameters and bounds on a grid of 35 x 80 x 8 (cut 35 x 20 x 4) and the
first 3000 SDSS stars. Every job of a definition like fit_stripes and fit_search_methods runs as the runner would
run it: from MilkyWay@Home's vector (in a small box and in the whole box of the bounds) and from the blind start, CMA-ES
and the genetic search with late results; the
rows, the progress (with its start), the report (the exact likelihoods of the optimum and of MilkyWay@Home's
vector, each parameter beside MilkyWay@Home's) and the separation come out whole and consistent.
Usage: python3 -m unittest test_fit_stripes_tiny (MWSEP names the fit-enabled binary)."""
import csv
import json
import os
import pathlib
import re
import shutil
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from experiments.harness import runner  # noqa: E402
from experiments.harness.study import Study  # noqa: E402
from experiments.studies import mwsep_stripes  # noqa: E402

UNIT = "stripe86-2009"
STEPS = {"r": 35, "mu": 80, "nu": 8, "r_cut": 35, "mu_cut": 20, "nu_cut": 4}


def tiny_unit(folder):
    """The stripe-86 unit with lower step counts (every other value as committed), its vector beside it."""
    text = (ROOT / "data" / "workunits" / UNIT / "astronomy_parameters.txt").read_text()
    for key, n in STEPS.items():
        text, count = re.subn(rf"^({key}\[min,max,steps\](?:\[3\])?: [^,]+, [^,]+), \d+", rf"\g<1>, {n}", text, flags=re.M)
        assert count == 1, key
    d = folder / UNIT
    d.mkdir()
    (d / "astronomy_parameters.txt").write_text(text)
    shutil.copy(ROOT / "data" / "workunits" / UNIT / "search_parameters.txt", d / "search_parameters.txt")
    stars = (ROOT / "tests" / "data" / "oracle" / "stars" / "stars-86.txt").read_text().splitlines()
    (folder / "stars.txt").write_text("3000\n" + "\n".join(stars[1:3001]) + "\n")
    return d / "astronomy_parameters.txt", folder / "stars.txt"


class TinyStudy:
    """What kind_fit_stripe uses of the study: the program, the unit's path and the runner's way to run."""
    def __init__(self, mwsep, unit):
        self.mwsep, self._unit = mwsep, unit
        self._run = Study._run

    def workunit(self, wu):
        assert wu == UNIT
        return self._unit


class FitStripeOnTheCpu(unittest.TestCase):
    def test_every_job_writes_whole_consistent_results(self):
        mwsep = os.environ.get("MWSEP")
        if not mwsep:
            self.skipTest("MWSEP names no binary")
        folder = pathlib.Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, folder, True)
        unit, stars = tiny_unit(folder)
        saved = dict(mwsep_stripes.STARS_FILES)
        mwsep_stripes.STARS_FILES[UNIT] = stars
        common = {"work_units": [UNIT], "devices": "cpu", "population": 6, "generations": 3, "seed": 1}
        d = {"name": "fit_tiny", "runs": [
            dict(common, start="reference", box=0.1, algorithm="cmaes", polish=15, separate=True),
            dict(common, start="blind", algorithm="cmaes", polish=15),
            dict(common, start="reference", box=1, algorithm="async-ga", late=0.3, max_delay=2, label="volunteers",
                 polish=0, uncertainties=False)]}
        # Checked and completed as the runner does: every declared key, the defaults filled in.
        d = runner.check_definition(pathlib.Path("fit_tiny.json"), dict(d, kind="fit_stripe"), mwsep_stripes.KINDS)
        try:
            jobs = list(mwsep_stripes.kind_fit_stripe(TinyStudy(mwsep, unit), d))
            self.assertEqual(len(jobs), 3)
            outputs = []
            for job in jobs:
                self.assertIsNone(job.skip)
                self.assertEqual(job.needs_gpus, 0)
                scratch = folder / job.key.replace("|", "_")
                scratch.mkdir()
                outputs.append(job.run(scratch))
        finally:
            mwsep_stripes.STARS_FILES.clear()
            mwsep_stripes.STARS_FILES.update(saved)
        space = mwsep_stripes.search_space(mwsep, unit)
        for out, run in zip(outputs, d["runs"]):
            with open(out["fit_tiny.csv"], newline="") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual(len(rows), 1)
            row = rows[0]
            self.assertEqual(list(row), mwsep_stripes.COLUMNS)
            self.assertEqual(row["start"], run["start"])
            self.assertEqual(row["algorithm"], run["algorithm"] + (" (volunteers)" if run.get("label") else ""))
            # The compressed quadrature's likelihood and the exact sum's at the optimum agree to its controlled
            # error; so do the two likelihoods of MilkyWay@Home's vector.
            for a, b in (("likelihood", "exact_likelihood"), ("reference_likelihood", "reference_exact_likelihood")):
                self.assertLess(abs(float(row[a]) - float(row[b])), 1e-12 * abs(float(row[b])), (a, b))
            self.assertEqual(row["above_reference"],
                             "yes" if float(row["exact_likelihood"]) >= float(row["reference_exact_likelihood"]) else "no")
            report = json.loads(next(p for n, p in out.items() if "_report_" in n).read_text())
            self.assertEqual(report["integrator"], "compressed")
            self.assertEqual(len(report["parameters"]), len(space))
            for (name, value, _, _), p in zip(space, report["parameters"].items()):
                self.assertEqual(p[0], name)
                self.assertEqual(p[1]["reference"], value)  # MilkyWay@Home's vector beside the fit
            if run["start"] == "blind":
                start = mwsep_stripes.blind_start(space)
                self.assertEqual([p["start"] for p in report["parameters"].values()], start)
            else:  # MilkyWay@Home's vector, in a box of +- box x each range (1: the bounds)
                self.assertEqual([p["start"] for p in report["parameters"].values()], [v for _, v, _, _ in space])
                if run["box"] == 1:
                    self.assertEqual([p["lower"] for p in report["parameters"].values()], [lo for _, _, lo, _ in space])
            if run.get("uncertainties", True):
                self.assertIn("scaled_fisher_eigenvectors", report)
                self.assertEqual(int(row["flat_directions"]), len(report["flat_directions"]))
            with open(out["fit_tiny_progress.csv"], newline="") as f:
                progress = list(csv.DictReader(f))
            self.assertEqual({p["start"] for p in progress}, {run["start"]})
            self.assertEqual({p["algorithm"] for p in progress}, {row["algorithm"]})
            self.assertEqual(float(progress[-1]["best_likelihood"]), report["global_likelihood"])
        # The separation under the reference fit: every star, its probabilities summing to 1, the summary's sums.
        sep = outputs[0]
        csv_path = next(p for n, p in sep.items() if n.startswith("fit_tiny_separation_") and n.endswith(".csv"))
        summary = json.loads(next(p for n, p in sep.items() if n.startswith("fit_tiny_separation_summary_") and n.endswith(".json")).read_text())
        with open(csv_path, newline="") as f:
            stars_rows = list(csv.DictReader(f))
        self.assertEqual(len(stars_rows), 3000)
        self.assertEqual(summary["stars"], 3000)
        for r in stars_rows:
            self.assertAlmostEqual(float(r["p_background"]) + float(r["p_stream1"]), 1.0, places=5)  # 6 digits each
        self.assertAlmostEqual(sum(float(r["p_stream1"]) for r in stars_rows), summary["components"]["stream1"]["expected_stars"],
                               delta=3000 * 1e-6)


if __name__ == "__main__":
    unittest.main()
