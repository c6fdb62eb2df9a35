"""The report's parts for the pipelines beyond the documents, on rows made up here: the reconstruction on the fastest
MRI kernels (paper/kirk_hwu/data/fastest.py), the NUFFT against the direct sums and the peer (data/nufft.py), the
pipelined Münch convolution (paper/munch/data/pipeline.py) and ryoo's MRI applications on the fastest kernels
(paper/ryoo/data/fastest.py). Each is built from its facts (the facts builders read the made-up rows), and the
numbers it prints are compared with ratios worked out here from the same rows; without the results, each prints
"not measured" and records the fallback with the file it waits for.

Run from the checkout's root: python3 -m unittest tests/tools/test_pipelines_report.py
"""
import pathlib
import types
import unittest

from paper.kirk_hwu import facts as kh_facts
from paper.kirk_hwu.data import fastest as kh_fastest, nufft as kh_nufft
from paper.munch import facts as munch_facts
from paper.munch.data import pipeline as munch_pipeline
from paper.report.common import Output, num
from paper.report.facts import MissingData, Unavailable
from paper.ryoo import facts as ryoo_facts
from paper.ryoo.data import fastest as ryoo_fastest


class Files:
    """The part of ResultFiles the facts builders use: rows of made-up files, their paths."""

    def __init__(self, tables):
        self.tables = tables

    def rows(self, name):
        if name not in self.tables:
            raise MissingData(f"{name}.csv: the report needs this result file", [self.path(name)])
        return [dict(r) for r in self.tables[name]]

    def path(self, name, folder=None, suffix=".csv"):
        return pathlib.Path("/nonexistent/results") / f"{name}{suffix}"


def gpu():
    return types.SimpleNamespace(name="H200", full_name="NVIDIA H200")


def recon_row(method, q, f, q_ms, fhd_ms, solver_ms, err, check=""):
    return {"size": "full", "device": "gpu", "method": method, "q_variant": q, "fhd_variant": f, "q_ms": str(q_ms),
            "fhd_ms": str(fhd_ms), "solver_ms": str(solver_ms), "recon_ms": str(fhd_ms + solver_ms),
            "q_pairs": "1.68e12", "fhd_pairs": "2.1e11", "rel_l2_err": str(err), "fhd_check_rel_l2": check}


class FastestReconstruction(unittest.TestCase):
    ROWS = [recon_row("iterative", "q-constaos-regs-libm-u1-f32", "fhd-constaos-regs-libm-u1-f32", 2330, 336, 42, 0.546),
            recon_row("iterative", "q-constaos-regs-sfu-u4-f32", "fhd-constaos-regs-sfu-u4-f32", 4070, 993, 42, 0.545),
            recon_row("iterative", "q-shared-regs-sfu-u4-f32", "fhd-shared-regs-sfu-u4-f32", 890, 137, 42, 0.545, "2e-5"),
            recon_row("iterative-nufft", "", "nufft-kb-w8-l256-tol1e-06", 0, 2, 60, 0.545)]

    def test_speedups_and_shares_are_those_of_the_rows(self):
        runs = kh_facts.recon_facts(Files({"mri_reconstruct_fastest": self.ROWS}), "mri_reconstruct_fastest")
        self.assertNotIn("", runs)  # the NUFFT row is another method
        facts = types.SimpleNamespace(recon_fastest=runs, sincos_pair_rate=2.08e12, gpu=gpu(),
                                      files=Files({}))
        out = Output()
        kh_fastest.build(out, facts)
        self.assertAlmostEqual(num(out.n["kh_fastest_recon_speedup"]), (336 + 42) / (137 + 42), places=2)
        self.assertAlmostEqual(num(out.n["kh_fastest_q_speedup"]), 2330 / 890, places=2)
        self.assertAlmostEqual(num(out.n["kh_fastest_fhd_share"]), 100 * 2.1e11 / 0.137 / 2.08e12, places=0)
        self.assertIn("meets the target", out.n["kh_fastest_verdict"])
        self.assertEqual(out.fallbacks, [])
        self.assertEqual(runs["q-shared-regs-sfu-u4-f32"].fhd_check_err, 2e-5)

    def test_without_the_run_every_cell_says_not_measured(self):
        facts = types.SimpleNamespace(recon_fastest=Unavailable("mri_reconstruct_fastest.csv: missing", ("/x/a.csv",)),
                                      sincos_pair_rate=2e12, gpu=gpu(), files=Files({}))
        out = Output()
        kh_fastest.build(out, facts)
        self.assertIn("not measured", out.tables["kh_recon_fastest"])
        self.assertEqual(out.n["kh_fastest_recon_s"], "(not measured)")
        self.assertEqual(out.fallbacks[0]["sources"], ["/x/a.csv"])


def nufft_row(implementation, variant, operation, ms, err, tolerance="", sigma="", width="", grid=""):
    return {"size": "full", "grid": "128", "kspace_samples": "100096", "implementation": implementation, "variant": variant,
            "operation": operation, "tolerance": tolerance, "oversampling": sigma, "width": width, "fft_grid": grid,
            "ms": str(ms), "rel_l2_err": str(err), "valid": "true"}


class NufftAgainstThePeer(unittest.TestCase):
    ROWS = [nufft_row("direct", "fhd-global-regs-libm-u1-f64", "adjoint", 683, 1e-14, "1e-09"),
            nufft_row("direct", "fhd-shared-regs-sfu-u4-f32", "adjoint", 137, 2e-5, "0.005"),
            nufft_row("ours", "nufft-kb", "adjoint", 3.0, 4e-7, "1e-06", "2", "8", "256"),
            nufft_row("ours", "nufft-kb", "normal", 7.0, 4e-7, "1e-06", "2", "8", "256"),
            nufft_row("ours", "nufft-kb", "adjoint", 2.0, 3e-4, "0.001", "2", "5", "256"),
            nufft_row("cufinufft", "cufinufft-upsampfac-auto", "adjoint", 2.5, 5e-7, "1e-06", ""),
            nufft_row("cufinufft", "cufinufft-upsampfac-2", "adjoint", 2.0, 4e-7, "1e-06", "2"),
            nufft_row("cufinufft", "cufinufft-upsampfac-2", "adjoint", 1.5, 4e-4, "0.001", "2"),
            nufft_row("direct", "fastest: fhd-shared-regs-sfu-u4-f32", "reconstruct", 1100, 0.5450),
            nufft_row("ours", "nufft-kb", "reconstruct", 250, 0.5451, "1e-06", "2", "8", "256"),
            nufft_row("ours", "nufft-kb", "adjoint", 3.0, 1e-3, "", "2", "4", "256"),
            nufft_row("ours", "nufft-kb", "adjoint", 3.1, 2e-5, "", "1.25", "6", "160")]

    def build(self, rows):
        facts = types.SimpleNamespace(nufft=kh_facts.nufft_facts(Files({"mri_nufft": rows})), gpu=gpu(), files=Files({}))
        out = Output()
        kh_nufft.build(out, facts)
        return out

    def test_the_ratio_to_the_peer_is_against_its_best_at_the_same_tolerance(self):
        out = self.build(self.ROWS)
        self.assertAlmostEqual(num(out.n["kh_nufft_ratio_1e6"]), 3.0 / 2.0)
        # The worst ratio over the tolerances is 2.0 / 1.5 at 1e-3 and 1.5 at 1e-6: within 2.
        self.assertIn("meets the target", out.n["kh_nufft_peer_verdict"])
        self.assertIn("the largest ratio is 1.5", out.n["kh_nufft_peer_verdict"])
        self.assertAlmostEqual(num(out.n["kh_nufft_fhd_speedup_1e6"]), 137 / 3.0, places=1)
        self.assertEqual(out.n["kh_nufft_width_1e6"], "8")
        # 0.5451 against 0.5450: within a relative 1e-3 of the direct sums' image error.
        self.assertIn("meets the target", out.n["kh_nufft_image_verdict"])
        widths = out.tables["kh_nufft_widths"]
        self.assertIn("| 4 | 1.00e-03 |  |  |", widths)
        self.assertIn("| 6 |  |  | 2.00e-05 |", widths)

    def test_a_slower_nufft_and_a_worse_image_fail_their_targets(self):
        rows = [dict(r) for r in self.ROWS]
        for r in rows:
            if r["implementation"] == "ours" and r["operation"] == "adjoint" and r["tolerance"] == "0.001":
                r["ms"] = "3.5"  # 3.5 / 1.5 > 2
            if r["implementation"] == "ours" and r["operation"] == "reconstruct":
                r["rel_l2_err"] = "0.56"
        out = self.build(rows)
        self.assertIn("does not meet", out.n["kh_nufft_peer_verdict"])
        self.assertIn("does not meet", out.n["kh_nufft_image_verdict"])

    def test_without_the_peer_its_rows_are_not_recorded(self):
        out = self.build([r for r in self.ROWS if r["implementation"] != "cufinufft"])
        self.assertIn("not recorded", out.tables["kh_nufft_fhd"])
        self.assertIn("cannot be judged", out.n["kh_nufft_peer_verdict"])
        self.assertTrue(any("peer" in f["what"] for f in out.fallbacks))

    def test_without_the_run_every_table_says_not_measured(self):
        facts = types.SimpleNamespace(nufft=Unavailable("mri_nufft.csv: missing", ("/x/mri_nufft.csv",)), gpu=gpu(),
                                      files=Files({}))
        out = Output()
        kh_nufft.build(out, facts)
        for t in ("kh_nufft_fhd", "kh_nufft_recon", "kh_nufft_widths"):
            self.assertIn("not measured", out.tables[t])
        self.assertEqual(out.fallbacks[0]["sources"], ["/x/mri_nufft.csv"])


def pipe_row(mode, chunks, ms):
    return {"mode": mode, "chunks": str(chunks), "ms": str(ms), "signal": "10000000", "filter": "9", "bytes": "80000032"}


class MunchPipeline(unittest.TestCase):
    ROWS = [pipe_row("per-call", 0, 33.8), pipe_row("unchunked-pinned", 0, 1.6), pipe_row("pipelined", 8, 1.05),
            pipe_row("pipelined", 16, 0.95), pipe_row("pipelined-graph", 16, 0.9), pipe_row("floor-serial", 0, 1.45),
            pipe_row("floor-overlapped", 0, 0.75), pipe_row("floor-overlapped", 0, 0.8)]

    def test_the_best_pipelined_mode_against_the_overlapped_floor(self):
        p = munch_facts.pipeline_facts(Files({"convolution_pipeline": self.ROWS}))
        out = Output()
        munch_pipeline.build(out, types.SimpleNamespace(pipeline=p, roof=types.SimpleNamespace(gpu="H200"), files=Files({})))
        floor = (0.75 + 0.8) / 2  # the median of the floor's samples
        self.assertAlmostEqual(num(out.n["munch_pipe_floor_ratio"]), 0.9 / floor, places=2)
        self.assertAlmostEqual(num(out.n["munch_pipe_gain"]), 33.8 / 0.9, places=1)
        self.assertIn("graph", out.n["munch_pipe_best_mode"])
        self.assertIn("meets the target", out.n["munch_pipe_verdict"])

    def test_without_the_run_the_table_says_not_measured(self):
        out = Output()
        munch_pipeline.build(out, types.SimpleNamespace(pipeline=Unavailable("missing", ("/x/p.csv",)),
                                                        roof=Unavailable("missing"), files=Files({})))
        self.assertIn("not measured", out.tables["table_munch_pipeline"])
        self.assertEqual(out.n["munch_pipe_verdict"], "(not measured)")


def app_row(variant, part, ms, rate):
    return {"variant": variant, "part": part, "ms": str(ms), "rate": str(rate), "parameter": ""}


class RyooMriOnTheFastestKernels(unittest.TestCase):
    def test_the_gain_is_the_ratio_of_the_kernels_times(self):
        tables = {}
        for app, (documents, fastest, name) in ryoo_facts.MRI_FASTEST.items():
            tables[name] = [app_row("cpu", "kernel", 500, 0.1), app_row("cpu", "application", 510, 0.1),
                            app_row(documents, "kernel", 300, 700), app_row(documents, "application", 330, 640),
                            app_row(fastest, "kernel", 110, 1900), app_row(fastest, "application", 140, 1500)]
        runs = ryoo_facts.mri_fastest_facts(Files(tables))
        out = Output()
        ryoo_fastest.build(out, types.SimpleNamespace(mri_fastest=runs))
        self.assertAlmostEqual(num(out.n["ryoo_fastest_mri_q_gain"]), 300 / 110, places=2)
        self.assertAlmostEqual(runs["mri-fhd"].kernel_x["fhd-shared-regs-sfu-u4-f32"], 1900 / 0.1)


if __name__ == "__main__":
    unittest.main()
