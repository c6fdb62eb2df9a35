"""The lean chapter's sentences on the recovery fits with the CMA-ES whose generation is one batch
(paper/mwsep/data/lean.py, _batched_optimum_text and _same_host_text), on made-up fit reports and provenance:

- an optimum of the same mean log10 likelihood to the bit is called so; otherwise the gap is given in ln likelihood,
  N ln 10 dL, worked out here by hand (1,000 stars, dL = 1e-4: +0.23, within the fitting chapter's 0.5, the same
  optimum; dL = 1e-3: +2.3, another optimum);
- the largest pull is the largest absolute one, and only where the Hessian shows a maximum;
- a unit that only one of the two fits has is left out, and with none the text is empty;
- the milliseconds are said to compare only when both provenance files name one boot; a missing file or boot id
  says they do not; on one boot, each unit's preparation waited for and integral per evaluation of both fits, by
  hand (100 evaluations: prepare 0.05 s -> 0.50 ms, integral 0.9 s -> 9.00 ms);
- the fitting chapter's sentence on the global search with cmaes-batch and pagmo's cmaes on one and two GPUs
  (paper/mwsep/data/fitting.py, batched_scaling_text): each rate against one GPU of the same algorithm and host,
  worked out by hand (60 / 50 = 1.20; 90 / 50 = 1.80; 85 / 50 = 1.70), a host that recorded only one of the two
  files left out, and "not recorded" (with no host) when none recorded both; with both one-GPU reports, the
  preparation waited for, the evaluation over the integral and the integral per evaluation, by hand (100
  evaluations: prepare 0.1 s -> 1.00 ms, 1.1 / 1.0 = 1.100, integral 1.0 s -> 10.00 ms), and nothing of them when
  one report lacks its phases.

Run from the checkout's root: python3 -m unittest tests/tools/test_report_batched_fit.py
"""
import unittest

from paper.mwsep.data.fitting import SETTLED_LN_L
from paper.mwsep.data.fitting import batched_scaling_text
from paper.mwsep.data.lean import _batched_optimum_text, _same_host_text
from paper.report.facts import MissingData


class Files:
    def __init__(self, reports, metas):
        self.reports, self.metas = reports, metas

    def file(self, path):
        return self.reports[path]

    def meta(self, name):
        if name not in self.metas:
            raise MissingData(f"{name}.meta.json: missing", [])
        return self.metas[name]


class Facts:
    def __init__(self, reports, metas=None):
        self.files = Files(reports, metas or {})
        self.reports = {}
        for path in reports:
            name, unit = path.split("|")
            self.reports[(name, unit)] = (path,)


def report(likelihood, evaluations, pulls=(), positive_definite=True, stars=1000):
    return {"likelihood": likelihood, "evaluations": evaluations, "stars": stars,
            "positive_definite": positive_definite,
            "parameters": {f"p{i}": {"pull": p} for i, p in enumerate(pulls)}}


class BatchedOptimum(unittest.TestCase):
    def test_the_gap_is_in_ln_likelihood_and_settled_within_the_chapters_bound(self):
        self.assertEqual(SETTLED_LN_L, 0.5)
        facts = Facts({"fit_recovery_batched|2s-small": report(-2.9999, 100, (0.3, -1.2)),
                       "fit_recovery|2s-small": report(-3.0, 120, (0.1,)),
                       "fit_recovery_batched|3s-small": report(-2.999, 300, (0.5,)),
                       "fit_recovery|3s-small": report(-3.0, 310, (0.5,))})
        text = _batched_optimum_text(facts)
        self.assertIn("on 2s-small 100 evaluations against 120, an optimum +0.23 in ln likelihood from "
                      "fit_recovery's (the same optimum), its largest pull against the truth 1.20 sigma", text)
        self.assertIn("on 3s-small 300 evaluations against 310, an optimum +2.3 in ln likelihood from "
                      "fit_recovery's (another optimum)", text)

    def test_the_same_bits_without_a_maximum(self):
        facts = Facts({"fit_recovery_batched|3s-small": report(-2.5, 10, (4.0,), positive_definite=False),
                       "fit_recovery|3s-small": report(-2.5, 11, (), positive_definite=False)})
        text = _batched_optimum_text(facts)
        self.assertIn("an optimum of fit_recovery's likelihood to the last bit", text)
        self.assertIn("no maximum in its Hessian, so no pulls, as with fit_recovery", text)
        self.assertNotIn("4.00", text)

    def test_a_unit_only_one_fit_has_is_left_out(self):
        facts = Facts({"fit_recovery_batched|2s-small": report(-3.0, 1),
                       "fit_recovery|3s-small": report(-3.0, 1)})
        self.assertEqual(_batched_optimum_text(facts), "")


class SameHost(unittest.TestCase):
    def test_only_one_boot_makes_the_milliseconds_compare(self):
        one = {"a": {"boot_id": "x"}, "b": {"boot_id": "x"}}
        self.assertIn("both recorded on one boot", _same_host_text(Facts({}, one), "a", "b"))
        for metas in ({"a": {"boot_id": "x"}, "b": {"boot_id": "y"}}, {"a": {}, "b": {}}, {"a": {"boot_id": "x"}}):
            text = _same_host_text(Facts({}, metas), "a", "b")
            self.assertIn("b and a were not recorded on one boot of one host", text)

    def test_on_one_boot_the_phases_per_evaluation_of_both(self):
        def rep(prepare, integral, n):
            return {"evaluations": n, "phase_seconds": {"prepare": prepare, "integral": integral, "evaluation": 1.0}}
        reports = {"a|3s-small": rep(0.05, 0.9, 100), "b|3s-small": rep(0.02, 2.0, 200), "a|2s-small": rep(1, 1, 1)}
        one = {"a": {"boot_id": "x"}, "b": {"boot_id": "x"}}
        text = _same_host_text(Facts(reports, one), "a", "b")
        self.assertIn("so the milliseconds compare too: on 3s-small an evaluation waited 0.10 ms for its candidate's "
                      "preparation against 0.50 ms in a, and its integral took 10.00 ms against 9.00 ms", text)
        self.assertNotIn("2s-small", text)  # b has no report of it


def scaling_row(algorithm, devices, rate, ranks=1):
    return {"algorithm": algorithm, "devices": devices, "ranks": str(ranks), "evaluations_per_second": str(rate)}


class BatchedScaling(unittest.TestCase):
    def test_each_rate_against_one_gpu_of_its_algorithm(self):
        found = {"fit_scaling_batched": [scaling_row("cmaes-batch", "0", 50), scaling_row("cmaes-batch", "0,1", 90),
                                         scaling_row("cmaes-batch", "local-rank", 85, ranks=2)],
                 "fit_scaling_cmaes": [scaling_row("cmaes", "0,1", 60), scaling_row("cmaes", "0", 50)]}
        text, recorded = batched_scaling_text([("two-gpus", found, {}),
                                               ("other", {"fit_scaling_cmaes": found["fit_scaling_cmaes"],
                                                          "fit_scaling_batched": None}, {})])
        self.assertTrue(recorded)
        self.assertIn("on two-gpus, pagmo's cmaes (one candidate at a time) 50.0 evaluations per second on one GPU, "
                      "60.0 on two GPUs of one process (1.20 times)", text)
        self.assertIn("cmaes-batch (a generation one batch) 50.0 evaluations per second on one GPU, 90.0 on two GPUs "
                      "of one process (1.80 times) and 85.0 on two GPUs as two MPI ranks (1.70 times)", text)
        self.assertNotIn("other", text)
        self.assertNotIn("waited", text)

    def test_the_one_gpu_phases_of_both_algorithms(self):
        found = {"fit_scaling_batched": [scaling_row("cmaes-batch", "0", 50)],
                 "fit_scaling_cmaes": [scaling_row("cmaes", "0", 50)]}
        one_gpu = {"cmaes": {"evaluations": 100, "phase_seconds": {"prepare": 0.1, "integral": 1.0, "evaluation": 1.1}},
                   "cmaes-batch": {"evaluations": 200, "phase_seconds": {"prepare": 0.02, "integral": 2.5,
                                                                         "evaluation": 2.6}}}
        text, _ = batched_scaling_text([("h", found, one_gpu)])
        self.assertIn("an evaluation waited 1.00 ms for its candidate's preparation with cmaes and 0.10 ms with "
                      "cmaes-batch", text)
        self.assertIn("an evaluation 1.100 and 1.040 times its integral", text)
        self.assertIn("the integrals themselves took 10.00 and 12.50 ms an evaluation", text)
        del one_gpu["cmaes-batch"]["phase_seconds"]
        self.assertNotIn("waited", batched_scaling_text([("h", found, one_gpu)])[0])

    def test_not_recorded_without_both_files(self):
        text, recorded = batched_scaling_text([("h", {"fit_scaling_batched": [scaling_row("cmaes-batch", "0", 1)],
                                                      "fit_scaling_cmaes": None}, {})])
        self.assertFalse(recorded)
        self.assertIn("was not recorded on a host with several GPUs", text)
        self.assertEqual(batched_scaling_text([])[1], False)


if __name__ == "__main__":
    unittest.main()
