"""The reconstruction at the published size: the documents' summary table in full beside ours (Q, F^H d,
the linear solver and the reconstruction, per step), the split of our reconstruction time by stage, and the
image errors of the iterative, FP64 and gridding reconstructions against the phantom.

Our rows are whole runs of `kirk_hwu reconstruct` (mri_reconstruct): 128³ voxels, 100 096 samples on 782
radial spokes, Q on the 256³ offsets grid of the Toeplitz embedding. The CPU rows are worked out from the
single-core loops' rates on the small input (cpu_baselines) for the same pairs; the CPU solver is timed at
this size on one core (mri_solver_cpu, kirk_hwu solver) where recorded, and without it a CPU reconstruction
time is only bounded below by its F^H d time."""
import statistics

from paper.report.common import MissingData, fmt, table
from paper.report.facts import available

from ..facts import FLOPS_PER_PAIR, need, rates

# Our run of each published row of S3's "Summary of Results" ("Naïve" is F3 or F4: neither S2 nor S3 says
# whether it keeps the voxel data in registers; "CMem" read as F6).
STEPS = [("LS (GPU, Naive)", "F3", "q-global-memacc-libm-u1-f32"), (None, "F4", "q-global-regs-libm-u1-f32"),
         ("LS (GPU, CMem)", "F6", "q-constaos-regs-libm-u1-f32"),
         ("LS (GPU, CMem, SFU)", "F7", "q-constaos-regs-sfu-u1-f32"),
         ("LS (GPU, CMem, SFU, Exp)", "F8 (tuned)", "q-constaos-regs-sfu-u4-f32"),
         (None, "F6 in FP64", "q-constaos-regs-libm-u1-f64")]


def median_of(rows, column):
    return statistics.median(float(r[column]) for r in rows)


def build(ctx, facts):
    n = ctx.n
    rows = facts.files.rows("mri_reconstruct")
    pub = facts.published["mri_summary"]
    prow = pub["rows"]
    iterative = {}
    for r in rows:
        if r["method"] == "iterative" and r["size"] == "full" and r["device"] == "gpu":
            iterative.setdefault(r["q_variant"], []).append(r)
    gridding_cpu = [r for r in rows if r["method"] == "gridding" and r["device"] == "cpu" and r["size"] == "full"]
    if not gridding_cpu:
        raise MissingData("mri_reconstruct: no CPU gridding row at the full size")
    for _, step, variant in STEPS:
        need(iterative, variant, "mri_reconstruct (full size)")
    first = iterative[STEPS[0][2]][0]
    q_pairs, fhd_pairs = float(first["q_pairs"]), float(first["fhd_pairs"])
    n["kh_recon_voxels"] = f"{int(first['grid']) ** 3:,}".replace(",", "\u202f")
    n["kh_recon_grid"] = first["grid"]
    n["kh_recon_q_grid"] = str(2 * int(first["grid"]))
    n["kh_recon_voxels_per_sample"] = fmt(int(first["grid"]) ** 3 / int(first["samples"]))
    n["kh_recon_pub_gridding_min"] = fmt(pub["gridding"]["recon_min"])
    n["kh_recon_samples"] = f"{int(first['samples']):,}".replace(",", "\u202f")
    n["kh_recon_iterations"] = first["iterations"]
    n["kh_recon_lambda"] = first["lambda"]

    cpu = rates(facts.files.rows("cpu_baselines"), key=("problem", "precision"))
    # The CPU's linear solver at this size (kirk_hwu solver: one thread, FP64, Q and F^H d from the GPU), when
    # recorded: the slides' CPU solver column, and with it the CPU rows' reconstruction times.
    solver_rows = [r for r in facts.files.optional("mri_solver_cpu") or [] if r["size"] == "full"]
    cpu_solver_s = median_of(solver_rows, "solver_ms") / 1e3 if solver_rows else None
    if cpu_solver_s is None:
        ctx.fallback("the CPU rows' solver and reconstruction times (kh_recon_summary)",
                     "mri_solver_cpu was not recorded on this GPU", [facts.files.path("mri_solver_cpu")])
    body = []
    grid_min = median_of(gridding_cpu, "recon_ms") / 6e4
    body.append([pub["gridding"]["label"], "CPU gridding, FP64, 1 core", "N/A", "", "N/A", "", "N/A", "", "N/A", "",
                 "N/A", "", fmt(pub["gridding"]["recon_min"]), fmt(grid_min * 60) + " s"])
    for label, precision in (("LS (CPU, DP)", "f64"), ("LS (CPU, SP)", "f32")):
        q_s = q_pairs / need(cpu, ("mri-q", precision), "cpu_baselines")
        f_s = fhd_pairs / need(cpu, ("mri-fhd", precision), "cpu_baselines")
        p = prow[label]
        body.append([label, f"CPU {precision.upper().replace('F', 'FP')}, 1 core (from its rate)", fmt(p[0], 4), fmt(q_s / 60) + " min",
                     fmt(p[1]), fmt(q_pairs * FLOPS_PER_PAIR["mri-q"] / q_s / 1e9), fmt(p[2], 4), fmt(f_s / 60) + " min",
                     fmt(p[3]), fmt(fhd_pairs * FLOPS_PER_PAIR["mri-fhd"] / f_s / 1e9), fmt(p[4]),
                     "not measured on this GPU" if cpu_solver_s is None else f"{fmt(cpu_solver_s / 60)} min (timed)",
                     fmt(p[5], 5), f"≥ {fmt(f_s / 60)} min" if cpu_solver_s is None else f"{fmt((f_s + cpu_solver_s) / 60)} min"])
        if precision == "f32":
            cpu_sp_fhd_s = f_s
    recon = {}
    for label, step, variant in STEPS:
        rs = iterative[variant]
        q_s, f_s, solver_s = median_of(rs, "q_ms") / 1e3, median_of(rs, "fhd_ms") / 1e3, median_of(rs, "solver_ms") / 1e3
        r_s = median_of(rs, "recon_ms") / 1e3
        recon[step] = r_s
        p = prow[label] if label else [""] * 6
        body.append([label or "(not in the table)", step, fmt(p[0]) if label else "", fmt(q_s) + " s",
                     fmt(p[1]) if label else "", fmt(q_pairs * FLOPS_PER_PAIR["mri-q"] / q_s / 1e9),
                     fmt(p[2]) if label else "", fmt(f_s) + " s", fmt(p[3]) if label else "",
                     fmt(fhd_pairs * FLOPS_PER_PAIR["mri-fhd"] / f_s / 1e9), fmt(p[4]) if label else "",
                     fmt(solver_s) + " s", fmt(p[5]) if label else "", fmt(r_s) + " s"])
        key = step.split(" ")[0].lower() + ("_fp64" if "FP64" in step else "")
        n[f"kh_recon_s_{key}"] = fmt(r_s)
        n[f"kh_recon_solver_s_{key}"] = fmt(solver_s)
        n[f"kh_recon_fhd_s_{key}"] = fmt(f_s)
        n[f"kh_recon_q_s_{key}"] = fmt(q_s)
        n[f"kh_recon_err_{key}"] = fmt(median_of(rs, "rel_l2_err"))
        n[f"kh_recon_mu_ms_{key}"] = fmt(median_of(rs, "mu_ms"))
        n[f"kh_recon_solver_share_{key}"] = fmt(100 * solver_s / r_s)
    ctx.tables["kh_recon_summary"] = table(
        "Table R@: the documents' summary of results (S3, minutes, GFLOP/s as printed, unstated hardware and "
        f"data) in full beside our reconstruction of {n['kh_recon_voxels']} voxels from {n['kh_recon_samples']} "
        f"radial samples on the {available(facts.gpu).name} (seconds, median of the recorded runs; GFLOP/s at "
        f"{FLOPS_PER_PAIR['mri-q']} and {FLOPS_PER_PAIR['mri-fhd']} operations per pair, counted from the source). "
        f"Our Q is evaluated on the {n['kh_recon_q_grid']}³ offsets grid of the Toeplitz embedding; the solver is "
        f"{n['kh_recon_iterations']} conjugate-gradient iterations in FP64 with cuFFT; reconstruction = F^H d + "
        "solver, as in the documents. CPU rows: Q and F^H d worked out from the single-core loops' rates; the solver "
        "timed on one core (kirk_hwu solver, mri_solver_cpu) where recorded.",
        ["published row", "ours", "Q, pub. (min)", "Q, ours", "Q GFLOP/s, pub.", "Q GFLOP/s, ours",
         "F^H d, pub. (min)", "F^H d, ours", "F^H d GFLOP/s, pub.", "F^H d GFLOP/s, ours", "solver, pub. (min)",
         "solver, ours", "recon., pub. (min)", "recon., ours"], body)
    n["kh_recon_speedup_lower"] = fmt(cpu_sp_fhd_s / recon["F8 (tuned)"])
    if cpu_solver_s is None:
        n["kh_recon_cpu_solver"] = "not measured on this GPU (experiment mri_solver_cpu)"
        n["kh_recon_speedup_measured"] = "not measured on this GPU"
        n["kh_recon_speedup_cpu_solver_everywhere"] = "not measured on this GPU"
    else:
        gpu_f8 = iterative[STEPS[4][2]]
        n["kh_recon_cpu_solver"] = f"{fmt(cpu_solver_s)} s ({fmt(cpu_solver_s / 60)} min; published {fmt(prow['LS (CPU, SP)'][4])} min)"
        n["kh_recon_speedup_measured"] = fmt((cpu_sp_fhd_s + cpu_solver_s) / recon["F8 (tuned)"])
        # The slides' GPU rows kept the ~1.6-minute solver on the CPU: F8's F^H d plus the CPU solver.
        n["kh_recon_speedup_cpu_solver_everywhere"] = fmt(
            (cpu_sp_fhd_s + cpu_solver_s) / (median_of(gpu_f8, "fhd_ms") / 1e3 + cpu_solver_s))
    n["kh_recon_fhd_speedup"] = fmt(cpu_sp_fhd_s / (median_of(iterative[STEPS[4][2]], "fhd_ms") / 1e3))
    n["kh_recon_gridding_s"] = fmt(grid_min * 60)
    n["kh_recon_gridding_err"] = fmt(median_of(gridding_cpu, "rel_l2_err"))
    n["kh_recon_pub_recon_speedup"] = str(pub["annotations"]["recon_speedup"])
    gpu_grid = [r for r in rows if r["method"] == "gridding" and r["device"] == "gpu" and r["size"] == "full"]
    n["kh_recon_gridding_gpu_ms"] = fmt(median_of(gpu_grid, "recon_ms")) if gpu_grid else "not recorded"
