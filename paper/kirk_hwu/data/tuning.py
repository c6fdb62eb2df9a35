"""The tuning sweep (step F8) as its own table, with the configuration the tuned reconstruction uses, and the
FP64 rates of the early steps beside the same steps in FP32."""

from experiments.studies.kirk_hwu import best_configurations
from paper.report.common import fmt, table

from ..facts import FLOPS_PER_PAIR, need, rates
from .common import first_row

def build(ctx, facts):
    n = ctx.n
    rows = facts.files.rows("mri_tuning")
    best, medians = best_configurations(rows)
    # The configuration the recorded tuned reconstruction ran with (its rows name it; 0 where a run was not tuned),
    # which a later sweep in the same folder may have moved away from.
    used = {}
    for r in facts.files.optional("mri_reconstruct") or []:
        if r.get("q_threads_per_block") not in (None, "", "0"):
            used = {"mri-q": (int(r["q_threads_per_block"]), int(r["q_chunk"])),
                    "mri-fhd": (int(r["fhd_threads_per_block"]), int(r["fhd_chunk"]))}
    body = []
    for (problem, tpb, chunk), rate in sorted(medians.items()):
        b = best[problem]
        mark = ""
        if (tpb, chunk) == b[1:]:
            mark = ("best: used by the tuned reconstruction" if used.get(problem, b[1:]) == b[1:] else
                    f"best (the recorded tuned reconstruction ran with {used[problem][0]} threads and a chunk of "
                    f"{used[problem][1]}, from an earlier sweep)")
        body.append([problem, str(tpb), str(chunk), fmt(rate / 1e9), fmt(rate * FLOPS_PER_PAIR[problem] / 1e9),
                     f"{fmt(rate / b[0])}", mark])
    variant = first_row(rows)["variant"]
    ctx.tables["kh_mri_tuning"] = table(
        f"Table R@: the tuning sweep of step F8 on the full input, median rate per configuration (billions of "
        f"pairs per second, and GFLOP/s at {FLOPS_PER_PAIR['mri-q']} (Q) and {FLOPS_PER_PAIR['mri-fhd']} (F^H d) "
        "floating-point operations per pair, counted from the source), and the rate relative to the best of its "
        "computation. The best configuration of each is the one the tuned reconstruction runs with.",
        ["computation", "threads per block", "chunk (samples)", "Gpairs/s", "GFLOP/s", "of the best", ""], body)
    for problem, (rate, tpb, chunk) in best.items():
        key = problem.replace("-", "_")
        n[f"kh_tuned_{key}_threads"] = str(tpb)
        n[f"kh_tuned_{key}_chunk"] = str(chunk)
        n[f"kh_tuned_{key}_gflops"] = fmt(rate * FLOPS_PER_PAIR[problem] / 1e9)
        worst = min(r for (p, _, _), r in medians.items() if p == problem)
        n[f"kh_tuning_spread_{key}"] = fmt(rate / worst)
    n["kh_tuning_variant_q"] = variant
    n["kh_flops_q"] = str(FLOPS_PER_PAIR["mri-q"])
    n["kh_flops_fhd"] = str(FLOPS_PER_PAIR["mri-fhd"])

    # FP64 against FP32, step by step (both on the medium input).
    f64 = rates(facts.files.rows("mri_fp64"))
    f32 = rates(facts.files.rows("mri_ladder"))
    f64_rows = facts.files.rows("mri_fp64")
    # The FP64 variants are the steps F3-F6 in double precision; their order and step from the memory and
    # accumulator policies in the name.
    step_of = {"global-memacc": "F3", "global-regs": "F4", "constsoa-regs": "F5", "constaos-regs": "F6"}
    ladder = facts.files.rows("mri_ladder")

    def step(variant):
        return next((s for p, s in step_of.items() if f"-{p}-" in variant), "?")

    body = []
    for variant, size in sorted(f64, key=lambda k: (k[0].split("-")[0], step(k[0]))):
        r = first_row(f64_rows, variant=variant, size=size)
        single = variant[:-len("-f64")] + "-f32"
        s = need(f32, (single, size), "mri_ladder")
        rate = f64[(variant, size)]
        body.append([variant, step(variant), size, fmt(rate / 1e9), fmt(rate * FLOPS_PER_PAIR[r["problem"]] / 1e9),
                     fmt(s / rate), f"{float(r['rel_l2_err']):.1e}",
                     f"{float(first_row(ladder, variant=single, size=size)['rel_l2_err']):.1e}"])
    ctx.tables["kh_mri_fp64"] = table(
        "Table R@: the early steps in double precision (mri_fp64) beside the same steps in single precision "
        "(mri_ladder), medium input: median rate, GFLOP/s at the counts of the tuning table, how many times "
        "faster the FP32 step is, and the relative L2 error of each against the FP64 CPU reference.",
        ["variant", "step", "input", "Gpairs/s", "GFLOP/s", "FP32 step faster by", "rel L2 error, FP64",
         "rel L2 error, FP32"],
        body)
