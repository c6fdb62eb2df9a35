"""The chapter 'Fitting the real stripes' (paper/mwsep/data/stripes.py) on made-up results folders:

- with the files the experiments fit_stripes, fit_search_methods, stripe_costs_cpu and stripe_costs_gpu write (their
  columns taken from the kinds' declarations, experiments/studies/mwsep_stripes.py and mwsep.py; the reports and
  separation summaries with the keys `mwsep fit --report` and `mwsep separate --json` write), read through the
  study's facts as the report reads them, the tables fill in with the values worked out here by hand: the times,
  the verdicts against the 60 s target and MilkyWay@Home's likelihood, the differences in ln likelihood, each
  parameter with its uncertainty beside MilkyWay@Home's value, the flat directions, the methods' first evaluation
  at MilkyWay@Home's likelihood, the separation's counts and the costs' ratios;
- with none of them, every part falls back to "not measured" and records the files it rests on; the report check
  (tools/check_report.py) passes that record while the files are absent and fails it once they are there;
- the stripes a recording lacks fall back alone, naming reports that are absent, so the check passes; a report
  missing beside its row is named (the study's status lists it) while the chapter's other parts stand;
- with matplotlib (the project's environment), the two figures draw from the same facts.

Run from the checkout's root: python3 -m unittest tests/tools/test_report_stripes.py
"""
import csv
import json
import pathlib
import shutil
import tempfile
import unittest

from experiments.harness.results import ResultFolder
from experiments.studies import mwsep_stripes
from paper.mwsep import facts as mwsep_facts
from paper.mwsep.data import stripes
from paper.report import facts as facts_layer
from paper.report.common import MissingData, Output
from tools import check_report

COMMIT = "0" * 40
STARS = 1000
NAMES = ["background_weight", "stream1.mu", "stream1.r"]
# MilkyWay@Home's values, the bounds of the search box and each fit's values and standard deviations.
REFERENCE = [-3.0, 190.0, 20.0]
LOWER, UPPER = [-5.0, 180.0, 10.0], [-1.0, 200.0, 30.0]


def report(name, wu, start, algorithm, likelihood, exact, ref, ref_exact, best, sigma, seconds, flat=None,
           positive_definite=True, stopped_by="generations"):
    """A report with the keys `mwsep fit --report` writes (src/mwsep/fit/report.cpp) that the chapter reads; a
    standard deviation that is not finite is null there, as the program writes it."""
    rep = {"command": f"mwsep fit -a {wu}", "work_unit": wu, "experiment": name, "evaluator": "gpu 0", "ranks": 1,
           "stars": STARS, "algorithm": algorithm, "population": 16, "generations_requested": 10, "seed": 1,
           "integrator": "compressed", "start_likelihood": ref, "global_likelihood": likelihood - 1e-4,
           "likelihood": likelihood, "exact_likelihood": exact, "exact_difference": likelihood - exact,
           "reference_likelihood": ref, "reference_exact_likelihood": ref_exact, "search_stopped_by": stopped_by,
           "completed": True, "positive_definite": positive_definite, "generations": 10, "evaluations": 0,
           "global_evaluations": 160, "polishes": {"global best": {"begin_likelihood": likelihood - 1e-4,
                                                                   "likelihood": likelihood, "evaluations": 300,
                                                                   "stopped_by": "tolerance"}},
           "seconds": seconds, "global_seconds": seconds / 2, "polish_seconds": seconds / 4,
           "hessian_seconds": seconds / 4, "seconds_per_evaluation": 0.008,
           "parameters": {n: {"start": r, "lower": lo, "upper": hi, "best": b, "sigma": s, "reference": r,
                              "reference_pull": (b - r) / s if s else None}
                          for n, r, lo, hi, b, s in zip(NAMES, REFERENCE, LOWER, UPPER, best, sigma)}}
    if flat is not None:
        rep["scaled_fisher_eigenvalues"] = [1e-8, 1.0, 2.0]
        rep["flat_directions"] = {"1": {"eigenvalue": 1e-8, "direction": dict(zip(NAMES, flat))}}
    return rep


def row(rep, start, evaluations, process_seconds, devices="0"):
    """The row kind_fit_stripe writes for @p rep, by column name, in mwsep_stripes.COLUMNS's order."""
    exact, ref_exact = rep["exact_likelihood"], rep["reference_exact_likelihood"]
    cells = {"experiment": rep["experiment"], "work_unit": rep["work_unit"], "start": start,
             "algorithm": rep["algorithm"], "devices": devices, "population": rep["population"],
             "generations": rep["generations"], "evaluations": evaluations,
             "global_evaluations": rep["global_evaluations"], "global_seconds": rep["global_seconds"],
             "seconds": rep["seconds"], "process_seconds": process_seconds,
             "seconds_per_evaluation": rep["seconds_per_evaluation"], "start_likelihood": rep["start_likelihood"],
             "likelihood": rep["likelihood"], "exact_likelihood": exact, "exact_difference": rep["exact_difference"],
             "reference_likelihood": rep["reference_likelihood"], "reference_exact_likelihood": ref_exact,
             "above_reference": "yes" if exact >= ref_exact else "no",
             "positive_definite": "yes" if rep["positive_definite"] else "no",
             "flat_directions": len(rep.get("flat_directions", {})), "search_stopped_by": rep["search_stopped_by"],
             "parameters": len(rep["parameters"]), "evaluator": rep["evaluator"]}
    return [cells[c] for c in mwsep_stripes.COLUMNS]


class Folder:
    """A made-up results folder of one GPU, written as the runner writes one: each CSV with its .meta.json and its
    entry in manifest.json, its experiment done."""

    def __init__(self, root):
        self.gpu = pathlib.Path(root) / "made-up-gpu"
        self.study = self.gpu / "mwsep"
        self.study.mkdir(parents=True)
        self.manifest = {"format": 2, "files": {}, "experiments": {}, "gpu_count": 1,
                         "host": {"gpu_count": 1, "gpus": [{"gpu_name": "Made-up GPU"}]}}
        self.save()

    def save(self):
        (self.gpu / "manifest.json").write_text(json.dumps(self.manifest))

    def csv(self, experiment, kind, name, header, rows):
        with (self.study / f"{name}.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)
        self.meta(experiment, kind, name, ".csv")

    def json(self, experiment, name, data):
        (self.study / f"{name}.json").write_text(json.dumps(data, indent=1))
        self.meta(experiment, "fit_stripe", name, ".json")

    def meta(self, experiment, kind, name, suffix):
        (self.study / f"{name}.meta.json").write_text(json.dumps(
            {"experiment": experiment, "study": "mwsep", "kind": kind, "git_commit": COMMIT, "git_commits": [COMMIT]}))
        self.manifest["files"][f"mwsep/{name}{suffix}"] = {"experiment": f"mwsep/{experiment}", "kind": kind,
                                                            "commits": [COMMIT]}
        self.manifest["experiments"][f"mwsep/{experiment}"] = {"status": "done"}
        self.save()


def fill(folder):
    """Every file of the four experiments, for stripe 86 alone (stripes 11 and 20 not recorded)."""
    wu = "stripe86-2009"
    # From MilkyWay@Home's vector: 41 s (within 60 s), 0.001 above MilkyWay@Home's L by the exact sum, a maximum.
    ref = report("fit_stripes", wu, "reference", "cmaes", -2.899, -2.899, -2.9, -2.9, [-2.9, 190.5, 20.0],
                 [0.1, 0.25, 0.5], 41.0)
    # From the blind start: 75.5 s (over), 0.002 below, no maximum; stream1.r on the box's upper edge.
    blind = report("fit_stripes", wu, "blind", "cmaes", -2.9025, -2.902, -2.9, -2.9, [-3.1, 185.0, 30.0],
                   [None] * 3, 75.5, flat=[0.1, -0.2, 0.9], positive_definite=False, stopped_by="tolerance")
    reports = {"reference": ref, "blind": blind}
    folder.csv("fit_stripes", "fit_stripe", "fit_stripes", mwsep_stripes.COLUMNS,
               [row(ref, "reference", 7000, 48.0), row(blind, "blind", 6000, 80.25)])
    folder.csv("fit_stripes", "fit_stripe", "fit_stripes_progress", mwsep_stripes.PROGRESS,
               [["fit_stripes", wu, "cmaes", "gpu 0", g, 16 * (g + 1), -2.9 + 1e-4 * g, 0.5 * (g + 1), "", "", "", "",
                 start] for start in ("reference", "blind") for g in range(3)])
    for start, rep in reports.items():
        folder.json("fit_stripes", f"fit_stripes_report_{wu}_{start}_cmaes", rep)
    # The separation under the reference fit: three stars.
    folder.csv("fit_stripes", "fit_stripe", f"fit_stripes_separation_{wu}_reference_cmaes",
               ["star", "l", "b", "r", "mu", "nu", "p_background", "p_stream1", "most_likely"],
               [[0, 30.0, 40.0, 10.0, 190.0, 0.5, 0.9, 0.1, "background"],
                [1, 31.0, 41.0, 12.0, 191.0, -0.5, 0.8, 0.2, "background"],
                [2, 32.0, 42.0, 20.0, 192.0, 0.1, 0.3, 0.7, "stream1"]])
    folder.json("fit_stripes", f"fit_stripes_separation_summary_{wu}_reference_cmaes", {
        "stars": 3, "likelihood": -2.899, "components": {"background": {"expected_stars": 2.0, "most_likely_stars": 2},
                                                         "stream1": {"expected_stars": 1.0, "most_likely_stars": 1}},
        "unexplained_stars": 0, "expected_correct_fraction": 0.8, "seconds": 1.0})
    # The search methods on stripe 20: cgd reaches MilkyWay@Home's L (-2.95, compressed) at 48 evaluations, de never.
    s20 = "stripe20-2009"
    methods = {"cgd": (-2.94, -2.9401, [-2.96, -2.951, -2.95, -2.94]), "de": (-2.951, -2.9511, [-2.97, -2.96, -2.951])}
    rows, progress = [], []
    for algorithm, (best, exact, path) in methods.items():
        rep = report("fit_search_methods", s20, "reference", algorithm, best, exact, -2.95, -2.9501,
                     REFERENCE, [1.0] * 3, 20.0)
        rows.append(row(rep, "reference", 16 * len(path), 22.0))
        folder.json("fit_search_methods", f"fit_search_methods_report_{s20}_reference_{algorithm}", rep)
        progress += [["fit_search_methods", s20, algorithm, "gpu 0", g, 16 * (g + 1), b, 1.0 + g, "", "", "", "",
                      "reference"] for g, b in enumerate(path)]
    folder.csv("fit_search_methods", "fit_stripe", "fit_search_methods", mwsep_stripes.COLUMNS, rows)
    folder.csv("fit_search_methods", "fit_stripe", "fit_search_methods_progress", mwsep_stripes.PROGRESS, progress)
    # The costs: one core 90, 100, 110 s (reference) and 20, 25 s (fast); one GPU 40 and 60 ms (modern-f64), 2 ms
    # (compressed-f64), a row that failed its check (valid false) left out.
    folder.csv("stripe_costs_cpu", "bench_cpu", "stripe_costs_cpu",
               ["experiment", "integrator", "threads", "slices", "work_unit", "repeat", "seconds", "cpu_seconds",
                "points_per_second_per_core"],
               [["stripe_costs_cpu", i, 1, 16, wu, k, s / 16, s, 1e6] for i, cpu in
                (("reference", (90, 100, 110)), ("fast", (20, 25))) for k, s in enumerate(cpu)])
    folder.csv("stripe_costs_gpu", "bench", "stripe_costs_gpu",
               ["experiment", "variant", "work_unit", "repeat", "sm_count", "kernel_ms", "total_ms", "likelihood",
                "valid", "sm_clock_mhz", "throttled", "noise_pct", "samples", "stop_reason"],
               [["stripe_costs_gpu", v, wu, k, 132, ms, ms + 10, -2.9, valid, 1980, "false", 0.1, 5, "noise"]
                for v, k, ms, valid in (("modern-f64", 0, 40, "true"), ("modern-f64", 1, 60, "true"),
                                        ("modern-f64", 2, 1, "false"), ("compressed-f64", 0, 2, "true"))])


def build(folder):
    facts = mwsep_facts.build(ResultFolder(folder.gpu), facts_layer.published("mwsep"), [])
    out = Output()
    stripes.build(out, facts)
    return facts, out


def cells(table, first):
    """The cells of the rows of a generated MyST table whose first cell is @p first."""
    out = []
    for line in table.splitlines():
        if line.startswith("| "):
            c = [x.strip() for x in line.strip("|").split(" | ")]
            if c[0] == first:
                out.append(c)
    return out


def check(tmp, fallbacks):
    generated = pathlib.Path(tmp) / "report" / "mwsep" / "_generated"
    generated.mkdir(parents=True, exist_ok=True)
    (generated / "fallbacks.json").write_text(json.dumps(fallbacks))
    return check_report.fallback_problems(pathlib.Path(tmp) / "report")


class TheTablesFillIn(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.folder = Folder(cls.tmp)
        fill(cls.folder)
        cls.facts, cls.out = build(cls.folder)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def test_the_fits_and_their_verdicts(self):
        t, n = self.out.tables, self.out.n
        # stripe, start, evaluations, fit, run, within target, L optimum, L MilkyWay@Home, ln L, reached, max.
        # ln L: N ln 10 dL = 1000 x 2.302585 x 0.001 = 2.30, and x -0.002 = -4.61.
        # Every made-up fit searched by cmaes: the caption names it, and no column repeats it.
        self.assertEqual(cells(t["table_stripes_fits"], "stripe 86"), [
            ["stripe 86", "MilkyWay@Home's vector", "7000", "41.0", "48.0", "yes", "\u22122.89900000",
             "\u22122.90000000", "+2.30", "yes", "yes"],
            ["stripe 86", "the blind start", "6000", "75.5", "80.2", "no", "\u22122.90200000",
             "\u22122.90000000", "\u22124.61", "no", "no"]])
        self.assertIn("every one searched by cmaes", t["table_stripes_fits"])
        self.assertNotIn("| search |", t["table_stripes_fits"])
        self.assertEqual(n["stripes_fits_outcome"], "1 of the 2 fits recorded on this GPU (made-up-gpu) took at most "
                                                    "60 s, and 1 of 2 reached the likelihood of MilkyWay@Home's vector")
        para = t["para_stripes_fits"]
        self.assertIn("took 41.0 s, within the target of 60 s. Its optimum's ln likelihood by the exact sum lies 2.30 "
                      "above", para)
        # Why the blind fit missed both: where its 75.5 s went, how its search stopped, the parameter on the edge.
        self.assertIn("over the target of 60 s: the global search took 37.8 s, the polishes 18.9 s and the Hessian "
                      "18.9 s, at 8.0 ms per evaluation", para)
        self.assertIn("lies 4.61 below that of MilkyWay@Home's vector: the global search stopped by its tolerance",
                      para)
        self.assertIn("1 of 3 parameters ended on the edge of the search box (stream1.r)", para)
        self.assertIn("flat directions: eigenvalue 1e-08, mostly +0.90 stream1.r.", para)

    def test_each_parameter_beside_milkyway_at_homes(self):
        t = self.out.tables["table_fit_stripe86"]
        self.assertTrue(t.startswith("~~~{table} Table R@: stripe 86 ("))
        self.assertEqual(cells(t, "`stream1.mu`"), [["`stream1.mu`", "190", "190.5 (0.25)", "185 (no sigma)"]])
        self.assertEqual(cells(t, "flat directions"), [["flat directions", "-", "0", "1"]])
        self.assertEqual(cells(t, "ln L against MilkyWay@Home's"), [["ln L against MilkyWay@Home's", "0", "+2.30",
                                                                     "\u22124.61"]])

    def test_the_stripes_not_recorded_fall_back_alone(self):
        self.assertEqual(sorted(f["what"] for f in self.out.fallbacks), ["table_fit_stripe11", "table_fit_stripe20"])
        self.assertIn("not measured", self.out.tables["table_fit_stripe11"])
        # Their reports are absent: the report check accepts the fallback.
        self.assertEqual(check(self.tmp, self.out.fallbacks), [])

    def test_the_search_methods(self):
        t = self.out.tables["table_stripes_methods"]
        # cgd's best first reaches MilkyWay@Home's -2.95 at its third generation (48 evaluations); de never does.
        self.assertEqual(cells(t, "cgd")[0][6], "48")
        self.assertEqual(cells(t, "de")[0][6], "not reached")
        # ln L of the exact sums: 1000 x 2.302585 x (-2.9401 + 2.9501) = 23.03.
        self.assertEqual(cells(t, "cgd")[0][5], "+23.03")
        self.assertEqual(self.out.n["stripes_methods_outcome"],
                         "of the 2 searches, cgd ended highest (+23.03 in ln likelihood against MilkyWay@Home's "
                         "vector), and 1 reached MilkyWay@Home's likelihood within their evaluations")

    def test_the_separation(self):
        t = self.out.tables["table_stripes_separation"]
        self.assertEqual(cells(t, "stripe 86"), [["stripe 86", "background", "2.000", "2", "66.7"],
                                                 ["stripe 86", "stream1", "1.000", "1", "33.3"]])
        self.assertIn("expected to assign 80.0 % of the stars correctly", self.out.tables["para_stripes_separation"])

    def test_the_costs(self):
        t = self.out.tables["table_stripes_costs"]
        # 7.5 h = 27,000 s: over 100 s (the median of 90, 100, 110) 270 times; 1000 likelihoods 100,000 s.
        rows = cells(t, "one likelihood")
        self.assertEqual(rows[0][2:], ["one core, reference integrator", "100.0", "270x", "100\u202f000"])
        self.assertEqual(rows[1][2:], ["one core, fast integrator", "22.50", "1\u202f200x", "22\u202f500"])
        # 50 ms (the median of 40 and 60; the invalid row left out) and 2 ms.
        self.assertEqual(rows[2][2:], ["one GPU, exact sum (modern-f64)", "0.05000", "540\u202f000x", "50.0"])
        self.assertEqual(rows[3][2:], ["one GPU, compressed quadrature", "0.002000", "13\u202f500\u202f000x", "2.00"])
        # 312 days = 26,956,800 s over the whole runs of 48 s and 80.25 s.
        fits = cells(t, "one fit")
        self.assertEqual([f[3:5] for f in fits], [["80.25", "335\u202f910x"], ["48.00", "561\u202f600x"]])
        self.assertEqual(self.out.n["stripes_thesis_hours"], "7.5")
        self.assertEqual(self.out.n["stripes_thesis_days"], "312")

    def test_the_figures_draw(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib is not installed (it is in the project's environment, make venv)")
        from figures.mwsep import fig_search_methods, fig_separation
        out = pathlib.Path(self.tmp) / "figures"
        for module in (fig_search_methods, fig_separation):
            paths = module.make(self.facts, out)
            self.assertEqual([p.name for p in paths], [f"{module.__name__.rsplit('.', 1)[1]}{s}" for s in (".svg", ".png")])
            self.assertTrue(all(p.stat().st_size > 1000 for p in paths))


class TheFallbacks(unittest.TestCase):
    def test_absent_files_fall_back_and_present_ones_fail_the_check(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Folder(tmp)
            _, out = build(folder)
            self.assertEqual(sorted(f["what"] for f in out.fallbacks), sorted(
                ["table_stripes_fits", "table_fit_stripe11", "table_fit_stripe20", "table_fit_stripe86",
                 "table_stripes_methods", "table_stripes_separation", "stripes_costs_cpu", "stripes_costs_gpu",
                 "stripes_costs_fit"]))
            self.assertEqual(out.n["stripes_fits_outcome"], "the fits were not run on this GPU (made-up-gpu)")
            self.assertIn("Not measured on this GPU (made-up-gpu)", out.tables["table_stripes_fits"])
            self.assertEqual([c[3] for c in cells(out.tables["table_stripes_costs"], "one likelihood")],
                             ["not measured"] * 4)
            self.assertEqual(check(tmp, out.fallbacks), [])
            # The same record once the results are there: every part printed as not measured is reported, except
            # the stripes whose reports are still absent.
            fill(folder)
            problems = check(tmp, out.fallbacks)
            flagged = sorted(p.split(": ", 1)[1].split(" is printed")[0] for p in problems)
            self.assertEqual(flagged, sorted(["table_stripes_fits", "table_fit_stripe86", "table_stripes_methods",
                                              "stripes_costs_cpu", "stripes_costs_gpu", "stripes_costs_fit"]))

    def test_a_report_missing_beside_its_row_is_named_and_the_other_parts_stand(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Folder(tmp)
            fill(folder)
            (folder.study / "fit_stripes_report_stripe86-2009_blind_cmaes.json").unlink()
            facts = mwsep_facts.build(ResultFolder(folder.gpu), facts_layer.published("mwsep"), [])
            out = Output()
            with self.assertRaisesRegex(MissingData, "fit_stripes_report_stripe86-2009_blind_cmaes.json: the report "
                                                     "of this fit is missing") as caught:
                stripes.build(out, facts)
            self.assertEqual([pathlib.Path(s).name for s in caught.exception.sources],
                             ["fit_stripes_report_stripe86-2009_blind_cmaes.json"])
            self.assertEqual(cells(out.tables["table_stripes_costs"], "one likelihood")[0][4], "270x")
            self.assertEqual(cells(out.tables["table_stripes_methods"], "de")[0][6], "not reached")

    def test_a_separation_with_true_memberships_is_judged_against_the_ideal_classifier(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Folder(tmp)
            fill(folder)
            path = folder.study / "fit_stripes_separation_summary_stripe86-2009_reference_cmaes.json"
            summary = json.loads(path.read_text())
            self.assertIn("None of these separations is of a catalogue whose true memberships are known",
                          build(folder)[1].tables["para_stripes_separation"])
            # As `mwsep separate --labels` adds them: 2 of the 3 stars assigned correctly.
            summary.update(correct_stars=2, correct_fraction=2 / 3)
            path.write_text(json.dumps(summary))
            self.assertIn("Against true memberships: stripe 86: 66.7 % assigned correctly against 80.0 % expected.",
                          build(folder)[1].tables["para_stripes_separation"])


if __name__ == "__main__":
    unittest.main()
