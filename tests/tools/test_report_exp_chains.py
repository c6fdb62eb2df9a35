"""The lean chapter's sentence on the exponential's ceiling (paper/mwsep/data/lean.py, chains_paragraph) on
made-up exp_chains rows with the columns of the kind microbench_chains (experiments/studies/mwsep.py):

- the ceiling is the largest FP64-pipe share of the exp_table8 rows, whatever their order, with its chain count;
- the verdict flips at the declared share (paper/report/targets.py, MWSEP_EXP_CEILING_PCT): 84.9 % is not
  reached, 85.0 % is;
- the implied ratio is the best stripe-11 variant's ratio times the ceiling over that variant's profiled share,
  worked out here by hand (3.71 x 77 / 75.7 = 3.7738...), and 4.3x is called not reachable below the share;
- without rows the sentence says the measurement was not recorded and sets no fact.

Run from the checkout's root: python3 -m unittest tests/tools/test_report_exp_chains.py
"""
import unittest

from experiments.studies.mwsep import KINDS
from paper.mwsep.data.lean import chains_paragraph
from paper.report import targets

VARIANT = "modern-rw-exp8-sub4log-warp-staged-f64"


def rows(shares):
    """exp_chains rows: exp_table8 and dfma per chain count, the exponential's share from @p shares."""
    out = []
    for chains, share in shares.items():
        for function, pct in (("exp_table8", share), ("dfma", 95.0)):
            row = dict.fromkeys(KINDS["microbench_chains"].columns, "1")
            row.update(function=function, arguments=f"chains={chains}", chains=str(chains),
                       registers=str(20 + 4 * chains), warps_per_sm="64", fp64_pipe_pct=f"{pct}")
            out.append(row)
    return out


class ChainsParagraph(unittest.TestCase):
    def test_ceiling_is_the_largest_share_and_the_verdict_flips_at_the_target(self):
        self.assertEqual(targets.MWSEP_EXP_CEILING_PCT, 85)
        n = {"lean_vs_peer_stripe11_large": "3.71"}
        ncu = {VARIANT: {"fp64_pipe_pct": "75.7"}}
        text = chains_paragraph(n, rows({4: 77.0, 1: 60.0, 8: 70.0, 2: 76.0}), ncu, VARIANT)
        self.assertEqual((n["exp_ceiling_pct"], n["exp_ceiling_chains"]), ("77.0", "4"))
        self.assertIn("not reached", text)
        self.assertEqual(n["exp_ceiling_implied_ratio"], "3.77")  # 3.71 * 77 / 75.7 = 3.7738
        self.assertIn("4.3x is not reachable with this algorithm", text)
        self.assertIn("60% with 1 chain (24 registers, 64 warps per SM; multiply-adds 95%)", text)
        for share, verdict in ((84.9, "not reached"), (85.0, "reached")):
            n = {}
            text = chains_paragraph(n, rows({3: share}), {}, None)
            self.assertIn(f"would need ({verdict})", text)
            self.assertEqual("4.3x is not reachable" in text, verdict == "not reached")

    def test_without_rows_it_says_not_recorded(self):
        n = {}
        text = chains_paragraph(n, [], {}, VARIANT)
        self.assertIn("was not recorded on this GPU", text)
        self.assertNotIn("exp_ceiling_pct", n)


if __name__ == "__main__":
    unittest.main()
