"""Chapter 'Fitting a stripe': the recovery fits of the small units (fit_recovery) and the evaluations per
second of the global search on 1, 2, 4 and 8 GPUs, one process or one MPI rank per GPU (fit_scaling). Every number comes from those result files."""
from report.common import medians, table


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
        ctx.tables["para_fit_scaling"] = "The throughput measurement (fit_scaling) was not recorded on this host.\n"
        return
    # One process with N GPUs (devices "0,..,N-1") or N MPI ranks of one GPU each (devices "local-rank").
    def gpus(r):
        return int(r["ranks"]) if int(r["ranks"]) > 1 else len(r["devices"].split(","))

    def mode(r):
        return "MPI ranks, one GPU each" if int(r["ranks"]) > 1 else "one process"

    rate = {(mode(r), gpus(r)): float(r["evaluations_per_second"]) for r in sc}
    one = rate.get(("one process", 1))
    body = []
    for (m, g), v in sorted(rate.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        body.append([g, m, f"{v:.2f}", f"{v / one:.2f}" if one else "n/a", f"{1000.0 / v:.1f}"])
    ctx.tables["table_fit_scaling"] = table(
        "Table R@: evaluations per second of the fit's global search on the 3-stream large unit (fit_scaling), "
        "by GPU count, as one process driving every GPU and as one MPI rank per GPU; the speed-up is against "
        "one GPU in one process.",
        ["GPUs", "mode", "evaluations / s", "speed-up", "ms / evaluation (wall)"], body)
    two = rate.get(("one process", 2))
    n["fit_scaling_one"] = f"{one:.2f}" if one else "n/a"
    n["fit_scaling_two"] = f"{two:.2f}" if two else "n/a"
    n["fit_scaling_ratio"] = f"{two / one:.2f}" if one and two else "n/a"
    # The cost of one evaluation inside the fit against the modern-f64 integral alone (modern.csv, same unit).
    integral_ms = medians(ctx.rows("modern"), "integral_ms").get(("modern-f64", "3s-large"))
    if one and integral_ms:
        n["fit_cost_ratio"] = f"{1000.0 / one / integral_ms:.2f}"
        n["fit_integral_ms"] = f"{integral_ms:.1f}"
        cost = (f" One evaluation inside the fit costs {1000.0 / one:.1f} ms of wall time on one GPU, "
                f"{n['fit_cost_ratio']} times the modern-f64 integral alone ({n['fit_integral_ms']} ms, modern.csv).")
    else:
        cost = " The modern-f64 integral time of the unit was not recorded, so the cost ratio is not given."
    ctx.tables["para_fit_scaling"] = (
        f"On the 3-stream large unit the global search made {n['fit_scaling_one']} evaluations per second on one GPU "
        f"and {n['fit_scaling_two']} on two in one process, a ratio of {n['fit_scaling_ratio']}." + cost + "\n")
