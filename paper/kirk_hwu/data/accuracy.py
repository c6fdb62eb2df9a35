"""The accuracy study: every variant's error against the FP64 reference, with its stated tolerance."""
from paper.report.common import table

from .common import first_row


def build(ctx, facts):
    n = ctx.n
    body = []
    worst = {}
    for name in ("mri_ladder", "mri_fp64", "mri_memory_spaces", "coulomb_ladder"):
        rows = facts.files.rows(name)
        seen = []
        for r in rows:
            if (r["variant"], r["size"]) not in seen:
                seen.append((r["variant"], r["size"]))
        for variant, size in seen:
            r = first_row(rows, variant=variant, size=size)
            body.append([variant, r["step"], size, f"{float(r['max_abs_err']):.2e}", f"{float(r['max_rel_err']):.2e}",
                         f"{float(r['rel_l2_err']):.2e}", f"{float(r['tolerance']):.0e}"])
            if variant.startswith("dcs-"):
                kind = "dcs_rsqrt" if "-rsqrt-" in variant else "dcs_sqrt"
            else:
                kind = "fp64" if variant.endswith("f64") else ("sfu" if "-sfu-" in variant else "fp32")
            worst[kind] = max(worst.get(kind, 0.0), float(r["rel_l2_err"]))
    ctx.tables["kh_accuracy"] = table(
        "Table R@: error of every timed variant against the FP64 CPU reference, at 2048 outputs spread over "
        "the input it was timed on (real and imaginary parts for MRI). max rel: max|out − ref| / max|ref|; "
        "rel L2: ‖out − ref‖₂ / ‖ref‖₂. A variant outside its tolerance would be marked invalid and the "
        "report would not build.",
        ["variant", "step", "input", "max abs", "max rel", "rel L2", "tolerance"], body)
    for k, v in worst.items():
        n[f"kh_worst_rel_l2_{k}"] = f"{v:.1e}"
    cpu = facts.files.rows("cpu_baselines")
    for problem in ("mri-q", "mri-fhd", "coulomb"):
        r = first_row(cpu, problem=problem, precision="f32")
        n[f"kh_cpu_f32_rel_l2_{problem.replace('-', '_')}"] = f"{float(r['rel_l2_err']):.1e}"
    corr = facts.files.rows("gpu_correctness", check_valid=False)
    n["kh_correctness_rows"] = str(len(corr))
    n["kh_correctness_pass"] = str(sum(r["pass"] == "true" for r in corr))
