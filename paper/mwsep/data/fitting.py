"""Chapter 'Fitting a stripe': the recovery fits of the small units (fit_recovery) and the evaluations per
second of the global search on one and two GPUs (fit_scaling). Every number comes from those result files."""
from report.common import table


def build(ctx):
    n = ctx.n
    rec = ctx.rows("fit_recovery")
    body = []
    for r in sorted(rec, key=lambda r: r["work_unit"]):
        body.append([r["work_unit"], r["parameters"], r["evaluations"], f"{float(r['seconds']):.1f}",
                     f"{1000 * float(r['seconds_per_evaluation']):.2f}", f"{float(r['start_likelihood']):.6f}",
                     f"{float(r['likelihood']):.6f}", f"{float(r['max_abs_pull']):.2f}" if r["max_abs_pull"] else "n/a"])
    ctx.tables["table_fit_recovery"] = table(
        "Table R@: recovery fits of the small units from a perturbed start: evaluations (global search, polish and "
        "Hessian), wall time, time per evaluation, the likelihood at the start and at the fit, and the largest "
        "|fitted - true| / sigma over the parameters.",
        ["work unit", "parameters", "evaluations", "seconds", "ms / evaluation", "L start", "L fit", "max |pull|"], body)
    n["fit_recovery_max_seconds"] = f"{max(float(r['seconds']) for r in rec):.1f}"
    n["fit_recovery_max_pull"] = f"{max(float(r['max_abs_pull']) for r in rec if r['max_abs_pull']):.2f}"
    n["fit_recovery_evaluator"] = rec[0]["evaluator"]

    sc = ctx.optional_rows("fit_scaling")
    if sc is None:
        n["fit_scaling_ratio"] = "not recorded"
        ctx.tables["para_fit_scaling"] = "The two-GPU measurement (fit_scaling) was not recorded on this host.\n"
        return
    rate = {r["devices"]: float(r["evaluations_per_second"]) for r in sc if int(r["ranks"]) == 1}
    one, two = rate.get("0"), rate.get("0,1")
    n["fit_scaling_one"] = f"{one:.2f}" if one else "n/a"
    n["fit_scaling_two"] = f"{two:.2f}" if two else "n/a"
    n["fit_scaling_ratio"] = f"{two / one:.2f}" if one and two else "n/a"
    ctx.tables["para_fit_scaling"] = (
        f"On the 3-stream large unit the global search made {n['fit_scaling_one']} evaluations per second on one GPU "
        f"and {n['fit_scaling_two']} on two, a ratio of {n['fit_scaling_ratio']}.\n")
