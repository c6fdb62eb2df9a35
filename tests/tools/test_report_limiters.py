"""The application chapter's limiter of a profiled launch (paper/ryoo/data/suite.py, limiter) on made-up
ncu_limiters rows (the metric columns of experiments/definitions/ryoo/ncu_limiters.json):

- the rule's order: a grid of less than one wave wins over everything; then DRAM at 60 % of its peak or more;
  then instruction issue at 75 % of cycles or more; else the largest stall reason;
- each threshold flips the name exactly at its declared value (59.9 % of DRAM is not the limit, 60.0 % is);
- "not selected" is no stall: a warp that could issue is never named the limit, however large its count.

Run from the checkout's root: python3 -m unittest tests/tools/test_report_limiters.py
"""
import json
import pathlib
import unittest

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


if __name__ == "__main__":
    unittest.main()
