"""The MRI ladder: the published summary table beside ours, and the speed-up of every step.

Our times are for the full input (128³ voxels × 100 000 samples), worked out from each variant's median
rate (pairs per second) on the input it was timed on: the CPU loops on the small input on one core, the GPU
steps on the medium input. The cost of every variant is linear in the number of pairs, so a
rate carries over between sizes; the chapter says so where it prints the numbers."""
from paper.report.common import fmt, table
from paper.report.facts import available

from ..facts import MRI_LADDER as LADDER, MRI_PROBLEMS as PROBLEMS, MRI_SAMPLES, MRI_VOXELS
from .common import comparative, repeat_note

# The published rows (the lecture slides' "Summary of Results", S3; the course text's table, S2, merges the
# SFU and tuning rows) and the step of ours each one corresponds to: neither document says whether the register
# step is part of "Naïve", so F4 is printed beside it; "CMem" is read as the last constant-memory step before
# the special-function units, F6.
ROWS = [("LS (CPU, DP)", "cpu-f64"), ("LS (CPU, SP)", "cpu-f32"), ("LS (GPU, Naive)", "F3"), (None, "F4"),
        (None, "F5"), ("LS (GPU, CMem)", "F6"), ("LS (GPU, CMem, SFU)", "F7"), ("LS (GPU, CMem, SFU, Exp)", "F8")]


# The course text's (S2) summary table row by row, and the slides' (S3) row of the same version.
S2_AS_S3 = {"CPU Double": "LS (CPU, DP)", "CPU Single": "LS (CPU, SP)", "GPU Naive": "LS (GPU, Naive)",
            "GPU Registers and Constant Memory": "LS (GPU, CMem)",
            "GPU Registers, Constant Memory, SPU and Tuning": "LS (GPU, CMem, SFU, Exp)"}


def s2_against_s3(ctx, s2, s3):
    """S2's summary table (F^H d only) checked against the F^H d columns of S3's: S2 is compared through S3's
    rows when the two agree; a disagreement is named."""
    cols = s3["columns"]
    i_min, i_rate = cols.index("fhd_min"), cols.index("fhd_gflops")
    differ = [name for name, (t, rate) in s2["rows"].items()
              if (s3["rows"][S2_AS_S3[name]][i_min], s3["rows"][S2_AS_S3[name]][i_rate]) != (t, rate)]
    ctx.n["kh_s2_rows"] = str(len(s2["rows"]))
    ctx.n["kh_s2_against_s3"] = (
        "agree with the slides' F^H d columns in every row, so the course text's table is compared through the "
        "slides' rows" if not differ else
        "differ from the slides' F^H d columns in the rows " + ", ".join(differ) + "; only the slides' rows are compared")


def build(ctx, facts):
    n = ctx.n
    pub = facts.published["mri_summary"]
    prow = pub["rows"]
    s2_against_s3(ctx, facts.published["mri_s2_table"], pub)
    full_pairs = MRI_VOXELS["full"] * MRI_SAMPLES["full"]
    lr = available(facts.mri_rates)
    gpu = available(facts.gpu).name
    baselines = facts.files.rows("cpu_baselines")
    body = []
    for label, step in ROWS:
        q, f = lr["mri-q"][step], lr["mri-fhd"][step]
        ours_q, ours_f = full_pairs / q, full_pairs / f
        sp_q, sp_f = q / lr["mri-q"]["cpu-f32"], f / lr["mri-fhd"]["cpu-f32"]
        if label:
            pq, pf = prow[label][0], prow[label][2]
            pub_sp_q, pub_sp_f = prow["LS (CPU, SP)"][0] / pq, prow["LS (CPU, SP)"][2] / pf
            pub_cells = [fmt(pq, 4), fmt(pf, 4), f"{fmt(pub_sp_q)}x", f"{fmt(pub_sp_f)}x"]
        else:
            pub_cells = ["", "", "", ""]
        name = {"cpu-f64": "CPU, FP64, 1 core", "cpu-f32": "CPU, FP32, 1 core"}.get(step, step)
        body.append([label or "(not in the table)", name, pub_cells[0], fmt(ours_q), pub_cells[1], fmt(ours_f),
                     pub_cells[2], f"{fmt(sp_q)}x", pub_cells[3], f"{fmt(sp_f)}x"])
        key = step.replace("-", "_")
        n[f"kh_mri_q_time_{key}"] = fmt(ours_q)
        n[f"kh_mri_fhd_time_{key}"] = fmt(ours_f)
        n[f"kh_mri_q_speedup_sp_{key}"] = fmt(sp_q)
        n[f"kh_mri_fhd_speedup_sp_{key}"] = fmt(sp_f)
    n["kh_mri_cpu_repeats"] = repeat_note([r for r in baselines if r["problem"] in PROBLEMS])
    ctx.tables["kh_mri_summary"] = table(
        "Table R@: the published MRI summary (S3, minutes on unstated hardware, data set not given) beside "
        f"ours (seconds for 128³ voxels × 100 000 samples on the {gpu}, from each variant's "
        "median rate: the CPU loops timed on the small input on one core, "
        f"{repeat_note([r for r in baselines if r['problem'] in PROBLEMS])}, the GPU steps on the medium input). "
        "Speed-ups are over the single-precision CPU loop, for both columns.",
        ["published row", "ours", "Q (min), published", "Q (s), ours", "F^H d (min), published",
         "F^H d (s), ours", "Q speed-up, published", "Q speed-up, ours", "F^H d speed-up, published",
         "F^H d speed-up, ours"], body)

    # Per-step speed-ups: the published transitions and ours.
    steps = [("F0@small", "F3@small", "scatter with atomics → gather (F0 → F3, small input)", None),
             ("F3", "F4", "registers (F3 → F4)", None),
             ("F4", "F5", "constant memory, arrays (F4 → F5)", None),
             ("F5", "F6", "constant memory, records (F5 → F6)", None),
             ("F3", "F6", "Naïve → CMem (F3 → F6)", ("LS (GPU, Naive)", "LS (GPU, CMem)")),
             ("F6", "F7", "CMem → SFU (F6 → F7)", ("LS (GPU, CMem)", "LS (GPU, CMem, SFU)")),
             ("F7", "F8", "SFU → tuned (F7 → F8)", ("LS (GPU, CMem, SFU)", "LS (GPU, CMem, SFU, Exp)")),
             ("cpu-f64", "cpu-f32", "CPU FP64 → FP32", ("LS (CPU, DP)", "LS (CPU, SP)"))]
    body = []
    ladder_steps = [x for x in steps if x[0] in LADDER and x[1] in LADDER and x[4:] == () and
                    LADDER.index(x[1]) == LADDER.index(x[0]) + 1]
    for problem in PROBLEMS:
        a, b, label, _ = max(ladder_steps, key=lambda x: lr[problem][x[1]] / lr[problem][x[0]])
        n[f"kh_largest_step_{problem.replace('-', '_')}"] = f"{label.split(' (')[0]} (`{a}` → `{b}`)"
    published_steps = [x for x in steps if x[3] and not x[0].startswith("cpu")]
    a, b, label, (pa, pb) = max(published_steps, key=lambda x: prow[x[3][0]][2] / prow[x[3][1]][2])
    n["kh_pub_largest_step_fhd"] = label.split(" (")[0]
    for a, b, label, published_pair in steps:
        cells = [label]
        for problem, col in (("mri-q", 0), ("mri-fhd", 2)):
            ratio = lr[problem][b] / lr[problem][a]
            p = f"{fmt(prow[published_pair[0]][col] / prow[published_pair[1]][col])}x" if published_pair else ""
            cells += [p, f"{fmt(ratio)}x"]
            key = f"{problem.replace('-', '_')}_{a.replace('@', '_').replace('-', '_')}_{b.replace('@', '_').replace('-', '_')}"
            n[f"kh_step_{key}"] = fmt(ratio)
            n[f"kh_step_word_{key}"] = comparative(ratio)
        body.append(cells)
    ctx.tables["kh_mri_steps"] = table(
        "Table R@: speed-up of each step, published (S3, ratios of its run times) and ours (ratios of median "
        "rates on one input). An empty published cell: the documents time no such transition.",
        ["step", "Q, published", "Q, ours", "F^H d, published", "F^H d, ours"], body)
    n["kh_f7_fhd_over_q"] = fmt(lr["mri-q"]["F7"] / lr["mri-fhd"]["F7"])
    n["kh_pub_step_fhd_F6_F7"] = fmt(prow["LS (GPU, CMem)"][2] / prow["LS (GPU, CMem, SFU)"][2])
    n["kh_pub_fhd_speedup"] = str(pub["annotations"]["fhd_speedup"])
    n["kh_pub_recon_speedup"] = str(pub["annotations"]["recon_speedup"])
