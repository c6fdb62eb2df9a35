"""The application chapter's limiter of a profiled launch (paper/ryoo/data/suite.py, limiter) on made-up
ncu_limiters rows (the metric columns of experiments/definitions/ryoo/ncu_limiters.json):

- the rule's order: a grid of less than one wave wins over everything; then DRAM at 60 % of its peak or more;
  then instruction issue at 75 % of cycles or more; else the largest stall reason;
- each threshold flips the name exactly at its declared value (59.9 % of DRAM is not the limit, 60.0 % is);
- "not selected" is no stall: a warp that could issue is never named the limit, however large its count;
- the matrix-multiplication chapter's verdict on the share of cuBLAS FP32 (paper/ryoo/data/references.py,
  cublas_target) on made-up rates: met exactly at the target, not met just below it with the limiter of that
  size's launch named, "not recorded" where the profile or that launch is missing, and never a verdict of
  "met" for a size that was not timed.

Run from the checkout's root: python3 -m unittest tests/tools/test_report_limiters.py
"""
import json
import pathlib
import unittest

from paper.report import targets
from paper.ryoo.data.references import cublas_target
from paper.ryoo.data.suite import LIMIT_DRAM_PCT, LIMIT_ISSUE_PCT, limiter

METRICS = json.loads((pathlib.Path(__file__).resolve().parents[2] / "experiments" / "definitions" / "ryoo" /
                      "ncu_limiters.json").read_text())["metrics"]


def row(**values):
    """A row with every metric 0.1 (a grid of 4 waves), then @p values."""
    r = dict.fromkeys(METRICS, "0.1")
    r.update(variant="k", input="4096", launch="0", waves_per_sm="4")
    r.update({k: str(v) for k, v in values.items()})
    return r


class Limiter(unittest.TestCase):
    def test_the_declared_thresholds(self):
        self.assertEqual((LIMIT_DRAM_PCT, LIMIT_ISSUE_PCT), (60, 75))

    def test_a_grid_of_less_than_one_wave_comes_first(self):
        self.assertEqual(limiter(row(waves_per_sm=0.24, dram_throughput_pct=90, issue_active_pct=90)),
                         "the grid: 0.24 of a wave")
        self.assertNotIn("grid", limiter(row(waves_per_sm=1.0)))

    def test_dram_then_issue_each_at_its_threshold(self):
        self.assertEqual(limiter(row(dram_throughput_pct=60.0, issue_active_pct=90)), "DRAM bandwidth (60% of peak)")
        self.assertEqual(limiter(row(dram_throughput_pct=59.9, issue_active_pct=75.0, fma_pipe_pct=70)),
                         "instruction issue (75% of cycles; FMA pipe 70%)")
        self.assertTrue(limiter(row(dram_throughput_pct=59.9, issue_active_pct=74.9)).startswith("latency: "))

    def test_else_the_largest_stall_and_never_not_selected(self):
        r = row(issue_active_pct=40, stall_long_scoreboard=3.5, stall_barrier=1.25, stall_not_selected=9)
        self.assertEqual(limiter(r), "latency: long scoreboard (global or local memory), 3.50 warps stalled per issue")
        r = row(issue_active_pct=40, stall_long_scoreboard=0.5, stall_barrier=1.25, stall_not_selected=9)
        self.assertEqual(limiter(r), "latency: barrier, 1.25 warps stalled per issue")


class Files:
    """The chapter's files as cublas_target reads them: optional rows by name, a path per name."""
    def __init__(self, **rows):
        self.rows = rows

    def optional(self, name):
        return self.rows.get(name)

    def path(self, name):
        return pathlib.Path(f"{name}.csv")


class Facts:
    def __init__(self, files):
        self.files = files


class Ctx:
    """Records the fallbacks (a result that was missing) as the report's context does."""
    def __init__(self):
        self.fallbacks = []

    def fallback(self, name, why, paths):
        self.fallbacks.append((name, why))


def rates(shares, lib=1000.0):
    """rate(variant, n): cuBLAS FP32 at @p lib GFLOP/s at every size, kernel k at shares[n] per cent of it."""
    def rate(variant, n):
        if variant == "cublas-fp32":
            return lib
        return lib * shares[n] / 100 if variant == "k" and n in shares else None
    return rate


class CublasTarget(unittest.TestCase):
    def setUp(self):
        self.assertEqual((targets.RYOO_SGEMM_CUBLAS_PCT, targets.RYOO_SGEMM_TARGET_SIZES), (95, (4096, 8192)))

    def test_met_exactly_at_the_target(self):
        ctx = Ctx()
        text = cublas_target(ctx, Facts(Files()), "k", rates({4096: 95.0, 8192: 96.0}))
        self.assertIn("reaches 95.0 % at n = 4096 and 96.0 % at n = 8192: met.", text)
        self.assertNotIn("profiler", text)
        self.assertEqual(ctx.fallbacks, [])

    def test_not_met_names_the_limiter_of_the_short_size_only(self):
        rows = [row(variant="k", input="4096", issue_active_pct=83, fma_pipe_pct=74),
                row(variant="k", input="8192", dram_throughput_pct=70),
                row(variant="other", input="4096", dram_throughput_pct=90)]
        ctx = Ctx()
        text = cublas_target(ctx, Facts(Files(ncu_limiters=rows)), "k", rates({4096: 94.9, 8192: 95.0}))
        self.assertIn("94.9 % at n = 4096 and 95.0 % at n = 8192: not met.", text)
        self.assertIn("at n = 4096, instruction issue (83% of cycles; FMA pipe 74%).", text)
        self.assertNotIn("n = 8192, ", text)
        self.assertEqual(ctx.fallbacks, [])

    def test_a_missing_profile_or_launch_is_said(self):
        ctx = Ctx()
        text = cublas_target(ctx, Facts(Files()), "k", rates({4096: 90, 8192: 90}))
        self.assertIn(": not met. The profiler's limiter was not recorded on this GPU (ncu_limiters).", text)
        self.assertEqual([n for n, _ in ctx.fallbacks], ["para_ryoo_cublas_target"])
        rows = [row(variant="k", input="4096")]
        text = cublas_target(Ctx(), Facts(Files(ncu_limiters=rows)), "k", rates({4096: 99, 8192: 90}))
        self.assertIn("at n = 8192 not recorded (ncu_limiters has no launch of k at that size)", text)

    def test_an_untimed_size_is_never_met(self):
        text = cublas_target(Ctx(), Facts(Files()), "k", rates({4096: 99}))
        self.assertIn("reaches 99.0 % at n = 4096 (n = 8192 not timed): not judged at every size.", text)
        ctx = Ctx()
        text = cublas_target(ctx, Facts(Files()), "k", rates({}))
        self.assertIn("was not judged", text)
        self.assertEqual([n for n, _ in ctx.fallbacks], ["para_ryoo_cublas_target"])


if __name__ == "__main__":
    unittest.main()
