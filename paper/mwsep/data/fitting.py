"""Chapter 'Fitting a stripe': the recovery fits of the small units (fit_recovery) and the evaluations per
second of the global search on 1, 2, 4 and 8 GPUs, one process or one MPI rank per GPU (fit_scaling). Every
number, and every word that depends on one (recovered or not, settled or still improving, within the cost
target or not), comes from those result files."""
import json
import math
import pathlib

from report.common import MissingData, medians, rel, table

# A fitted parameter is called recovered when it lies within this many of its standard deviations of the truth.
RECOVERY_PULLS = 3.0
# The cost of one evaluation inside a fit may be at most this multiple of the modern-f64 integral alone
# (the fit's specification: an evaluation costs little more than its integral).
COST_TARGET = 1.3
# A global search has stopped improving when its best ln likelihood rose by less than this over its last tenth of
# generations (0.5 is one standard deviation's worth of ln likelihood).
SETTLED_LN_L = 0.5


def _report(ctx, name, wu):
    """The JSON report of fit `name` on unit `wu` (one process, as the recovery runs are)."""
    found = sorted(pathlib.Path(ctx.results).glob(f"{name}_report_{wu}_*.json"))
    if not found:
        raise MissingData(f"{rel(pathlib.Path(ctx.results))}/{name}_report_{wu}_*.json: the report needs this result file")
    ctx.read.add(found[0])
    return json.loads(found[0].read_text())


def _twin_streams(ctx, rec):
    """A sentence for each unit whose true streams share every parameter but their distance r: the
    likelihood then barely tells them apart, and a search can trade one stream's stars for the other's."""
    out = []
    for r in rec:
        truth = {k: p["truth"] for k, p in _report(ctx, "fit_recovery", r["work_unit"])["parameters"].items()}
        streams = sorted({k.split(".")[0] for k in truth if k.startswith("stream")})
        for i, a in enumerate(streams):
            for b in streams[i + 1:]:
                shared = [q for q in ("epsilon", "mu", "theta", "phi", "sigma")
                          if f"{a}.{q}" in truth and truth[f"{a}.{q}"] == truth.get(f"{b}.{q}")]
                if len(shared) == 5 and f"{a}.r" in truth and f"{b}.r" in truth:
                    out.append(f"In {r['work_unit']} the true {a} and {b} share their weight, direction and width and "
                               f"differ only in distance ({truth[f'{a}.r']:g} and {truth[f'{b}.r']:g} kpc): the likelihood "
                               "barely tells them apart, and a search can trade one stream's stars for the other's.")
    return ("\n" + " ".join(out) + "\n") if out else ""


def _recovery(ctx):
    n = ctx.n
    rec = sorted(ctx.rows("fit_recovery"), key=lambda r: r["work_unit"])
    progress = ctx.rows("fit_recovery_progress")
    body, lines = [], []
    for r in rec:
        wu = r["work_unit"]
        rep = _report(ctx, wu=wu, name="fit_recovery")
        params = rep["parameters"]
        stars = int(rep["stars"])
        at_edge = [k for k, p in params.items()
                   if min(p["best"] - p["lower"], p["upper"] - p["best"]) <= 1e-6 * (p["upper"] - p["lower"])]
        # The global search's best over its last tenth of generations, in ln likelihood (N ln10 x L).
        mine = sorted((int(g["generation"]), float(g["best_likelihood"])) for g in progress if g["work_unit"] == wu)
        last = mine[-1][0]
        window = max(1, last // 10)
        before = max(v for g, v in mine if g <= last - window)
        rise = stars * math.log(10) * (mine[-1][1] - before)
        settled = rise < SETTLED_LN_L
        pulls = [abs(p["pull"]) for p in params.values() if p.get("pull") is not None]
        if not rep["positive_definite"]:
            verdict = "no uncertainties: the Hessian at the fit is not negative definite, so it is no maximum"
        elif not pulls:
            verdict = "a maximum, but no true values were given to compare with"
        elif max(pulls) <= RECOVERY_PULLS:
            verdict = f"recovered: every parameter within {RECOVERY_PULLS:g} sigma of the truth"
        else:
            off = sum(1 for v in pulls if v > RECOVERY_PULLS)
            verdict = f"not recovered: {off} of {len(pulls)} parameters more than {RECOVERY_PULLS:g} sigma from the truth"
        body.append([wu, r["parameters"], f"{rep['algorithm']} {rep['population']} x {rep['generations']}",
                     r["evaluations"], f"{float(r['seconds']):.1f}", f"{1000 * float(r['seconds_per_evaluation']):.1f}",
                     f"{float(r['start_likelihood']):.6f}", f"{float(r['likelihood']):.6f}",
                     "yes" if rep["positive_definite"] else "no",
                     f"{max(pulls):.2f}" if pulls else "n/a", len(at_edge)])
        lines.append(
            f"- **{wu}** ({len(params)} parameters, {stars} stars): {verdict}. The global search "
            + ("had stopped improving" if settled else "was still improving")
            + f" (its best ln likelihood rose by {rise:.2f} over its last {window} "
            f"generations); the polish then added {stars * math.log(10) * (float(rep['likelihood']) - float(rep['global_likelihood'])):.2f} "
            f"in ln likelihood; {len(at_edge)} of the fitted parameters lie on the edge of the search box"
            + (f" ({', '.join(at_edge)})" if at_edge else "") + ".")
    ctx.tables["table_fit_recovery"] = table(
        "Table R@: recovery fits of the small units from a perturbed start: the global search (algorithm, population "
        "x generations), evaluations (global search, polish and Hessian), wall time, time per evaluation, the "
        "likelihood at the start and at the fit, whether the Hessian showed a maximum, the largest "
        "|fitted - true| / sigma, and the fitted parameters on the edge of the search box.",
        ["work unit", "parameters", "search", "evaluations", "seconds", "ms / evaluation", "L start", "L fit",
         "maximum", "largest pull", "on the box edge"], body)
    ctx.tables["para_fit_recovery"] = "\n".join(lines) + "\n" + _twin_streams(ctx, rec)
    n["fit_recovery_max_seconds"] = f"{max(float(r['seconds']) for r in rec):.1f}"
    n["fit_recovery_evaluator"] = rec[0]["evaluator"]
    # The start's perturbation and the box, as the recorded command lines gave them to the runs.
    run = json.loads((pathlib.Path(__file__).resolve().parents[3] / "experiments/definitions/mwsep/fit_recovery.json")
                     .read_text())["runs"][0]
    boxes = {_report(ctx, "fit_recovery", r["work_unit"])["command"].split("--box ")[1].split()[0] for r in rec}
    if len(boxes) != 1:
        raise MissingData(f"fit_recovery: the runs used different boxes {sorted(boxes)}")
    n["fit_recovery_box"] = f"{100 * float(boxes.pop()):g}"
    n["fit_recovery_perturb"] = f"{100 * float(run.get('perturb', 0.01)):g}"
    recovered = sum(1 for row in body if row[8] == "yes" and row[9] != "n/a" and float(row[9]) <= RECOVERY_PULLS)
    n["fit_recovery_outcome"] = (f"all {len(rec)} fits recovered the truth" if recovered == len(rec) else
                                 f"{recovered} of {len(rec)} fits recovered the truth")


def _scaling(ctx):
    n = ctx.n
    sc = ctx.optional_rows("fit_scaling")
    if sc is None:
        ctx.tables["para_fit_scaling"] = "The throughput measurement (fit_scaling) was not recorded on this host.\n"
        ctx.tables["table_fit_scaling"] = ""
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
        "one GPU in one process. Only the runs the recording host had GPUs for appear.",
        ["GPUs", "mode", "evaluations / s", "speed-up", "ms / evaluation (wall)"], body)
    meta = ctx.meta("fit_scaling")
    wanted = json.loads((pathlib.Path(__file__).resolve().parents[3] / "experiments/definitions/mwsep/fit_scaling.json")
                        .read_text())
    missing = sorted({int(run.get("needs_gpus", 1)) for run in wanted["runs"]} - {g for _, g in rate})
    text = []
    if one:
        text.append(f"On the 3-stream large unit the global search made {one:.2f} evaluations per second on one GPU.")
    two = rate.get(("one process", 2))
    if one and two:
        text.append(f"Two GPUs in one process made {two:.2f}, {two / one:.2f} times as many.")
    if missing:
        text.append(f"The recording host had {meta['gpu_count']} GPU(s): the runs on "
                    f"{', '.join(str(g) for g in missing)} GPUs are not recorded yet.")
    # The cost of one evaluation inside the fit against the modern-f64 integral alone (modern.csv, same unit).
    integral_ms = medians(ctx.rows("modern"), "integral_ms").get(("modern-f64", "3s-large"))
    if one and integral_ms:
        ratio = 1000.0 / one / integral_ms
        text.append(f"One evaluation inside the fit costs {1000.0 / one:.1f} ms of wall time on one GPU, {ratio:.2f} "
                    f"times the modern-f64 integral alone ({integral_ms:.1f} ms, modern.csv): "
                    + (f"within the target of {COST_TARGET:g} times." if ratio <= COST_TARGET else
                       f"above the target of {COST_TARGET:g} times."))
    else:
        text.append("The modern-f64 integral time of the unit was not recorded, so the cost ratio is not given.")
    ctx.tables["para_fit_scaling"] = " ".join(text) + "\n"


def build(ctx):
    _recovery(ctx)
    _scaling(ctx)
