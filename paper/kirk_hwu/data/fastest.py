"""The reconstruction on the study's fastest MRI kernels beside the documents' configurations, from one run
(mri_reconstruct_fastest): Q, F^H d, the solver and the reconstruction (F^H d + solver) per configuration, the
share of the special-function bound that Q and F^H d reach (their pair rates over the measured rate of a sin+cos
pair, rates.csv), and the speed-ups over the documents' constant-memory kernels with library sin and cos (F6,
the fastest of the documents' configurations in the summary table) of the same run. Until that experiment is
recorded on a GPU the table's cells read "not measured" and the fallback names the file it waits for."""
from paper.report.common import MissingData, fmt, table
from paper.report.facts import available
from paper.report.targets import KIRK_HWU_BOUND_SHARE_PCT, KIRK_HWU_FASTEST_SPEEDUP

# (configuration, the Q variant that names its run); the first is the baseline of the speed-ups.
CONFIGURATIONS = [("documents' F6: constant memory, library sin/cos", "q-constaos-regs-libm-u1-f32"),
                  ("documents' F8 (tuned): constant memory, SFU sin/cos", "q-constaos-regs-sfu-u4-f32"),
                  ("fastest: records tiled in shared memory, SFU sin/cos", "q-shared-regs-sfu-u4-f32")]
BASELINE, FASTEST = CONFIGURATIONS[0][1], CONFIGURATIONS[-1][1]
NOT_MEASURED = "not measured"
HEADER = ["configuration", "Q", "Q, of SFU bound", "F^H d", "F^H d, of SFU bound", "solver", "reconstruction",
          "recon. vs F6", "Q vs F6", "image error"]
NUMBERS = ["kh_fastest_recon_s", "kh_fastest_q_s", "kh_fastest_recon_speedup", "kh_fastest_q_speedup",
           "kh_fastest_q_share", "kh_fastest_fhd_share", "kh_fastest_verdict", "kh_fastest_baseline_recon_s",
           "kh_fastest_baseline_q_s"]


def caption(facts):
    try:
        gpu = f"the {available(facts.gpu).name}"
    except MissingData:
        gpu = "the GPU"
    return ("Table R@: the reconstruction of the published size (F^H d + solver, as the documents count it; Q once per "
            f"trajectory) on {gpu} with Q and F^H d on the documents' constant-memory kernels and on the study's fastest, "
            "recorded in one run (mri_reconstruct_fastest; seconds, median of the recorded runs; each variant's first "
            "evaluation compared with FP64 at 256 voxels before the timed one). Share of the SFU bound: the pair rate "
            "over the measured rate of a sin+cos pair of one argument. Speed-ups over F6 of the same run.")


def build(ctx, facts):
    n = ctx.n
    try:
        runs = available(facts.recon_fastest)
        rate = available(facts.sincos_pair_rate)
        for _, q in CONFIGURATIONS:
            if q not in runs:
                raise MissingData(f"mri_reconstruct_fastest: no full-size GPU rows for {q}",
                                  [facts.files.path("mri_reconstruct_fastest")])
    except MissingData as e:
        # Not recorded on this GPU yet: the table says so cell by cell, every number reads "not measured".
        ctx.fallback("the reconstruction on the fastest kernels (table kh_recon_fastest)", e)
        ctx.tables["kh_recon_fastest"] = table(caption(facts), HEADER,
                                               [[label] + [NOT_MEASURED] * (len(HEADER) - 1) for label, _ in CONFIGURATIONS])
        for name in NUMBERS:
            n[name] = f"({NOT_MEASURED})"
        return
    base = runs[BASELINE]
    body = []
    for label, q in CONFIGURATIONS:
        r = runs[q]
        q_share = 100 * r.q_pairs / r.q_s / rate
        f_share = 100 * r.fhd_pairs / r.fhd_s / rate
        body.append([label, fmt(r.q_s) + " s", f"{fmt(q_share)}%", fmt(r.fhd_s) + " s", f"{fmt(f_share)}%",
                     fmt(r.solver_s) + " s", fmt(r.recon_s) + " s", fmt(base.recon_s / r.recon_s) + "x",
                     fmt(base.q_s / r.q_s) + "x", fmt(r.image_err)])
    ctx.tables["kh_recon_fastest"] = table(caption(facts), HEADER, body)
    best = runs[FASTEST]
    recon_x, q_x = base.recon_s / best.recon_s, base.q_s / best.q_s
    q_share, f_share = 100 * best.q_pairs / best.q_s / rate, 100 * best.fhd_pairs / best.fhd_s / rate
    n["kh_fastest_recon_s"] = fmt(best.recon_s)
    n["kh_fastest_q_s"] = fmt(best.q_s)
    n["kh_fastest_baseline_recon_s"] = fmt(base.recon_s)
    n["kh_fastest_baseline_q_s"] = fmt(base.q_s)
    n["kh_fastest_recon_speedup"] = fmt(recon_x)
    n["kh_fastest_q_speedup"] = fmt(q_x)
    n["kh_fastest_q_share"] = fmt(q_share)
    n["kh_fastest_fhd_share"] = fmt(f_share)
    met = (recon_x >= KIRK_HWU_FASTEST_SPEEDUP and q_x >= KIRK_HWU_FASTEST_SPEEDUP
           and min(q_share, f_share) >= KIRK_HWU_BOUND_SHARE_PCT)
    n["kh_fastest_verdict"] = (f"{'meets' if met else 'does not meet'} the target (the reconstruction and Q at least "
                               f"{fmt(KIRK_HWU_FASTEST_SPEEDUP)} times faster than on F6, Q and F^H d at "
                               f"{KIRK_HWU_BOUND_SHARE_PCT} per cent of the bound or more)")
