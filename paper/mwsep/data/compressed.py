"""The compressed line-of-sight quadrature (a different algorithm from the exact sum), chapter
82-compressed.md: its measured error against modern-f64 on the large units, the stripe-11 model and a sweep of
fit candidates (compressed_accuracy, compressed_sweep), its GPU timings (compressed_timing), the CPU
integrators (compressed_cpu), whole runs (end_to_end_compressed) and the recovery fits with it (fit_recovery_compressed), all recorded by
experiments/run.py. Each part is built from its own files; a part whose files are missing is named in the
study's status and its numbers and tables read "not measured", while the others stand. Every number it prints
comes from those files."""
import json
import statistics

from paper.report import targets as t
from paper.report.common import ROOT, MissingData, fmt, table
from paper.report.facts import available

UNITS = [("stripe11-large", "the stripe-11 model"), ("3s-large", "3s-large"), ("2s-large", "2s-large")]


def _accuracy(ctx, facts):
    n = ctx.n
    data = facts.files.rows("compressed_accuracy")
    body, worst = [], 0.0
    for unit, label in UNITS:
        for r in (r for r in data if r["work_unit"] == unit and r["candidate"] == "model"):
            d = float(r["rel_diff"])
            worst = max(worst, d)
            stated = f"{float(r['stated_error']):.1e}" if r["stated_error"] else "-"
            cells = f"{r['fallback_cells']} of {r['cells']}" if r["cells"] else "-"
            body.append([label, r["quantity"], f"{d:.1e}", stated, cells])
    if not body:
        raise MissingData(f"{facts.files.path('compressed_accuracy')}: no rows of the large units", [facts.files.path('compressed_accuracy')])
    n["compressed_tolerance"] = f"{float(data[0]['tolerance']):.0e}"
    n["compressed_worst_rel_diff"] = f"{worst:.1e}"
    fb = [int(r["fallback_cells"]) for r in data if r["work_unit"] == "3s-large" and r["cells"]]
    n["compressed_fallbacks_3s_large"] = f"{sum(fb):,}".replace(",", "\u202f") if fb else "(not measured)"
    ctx.tables["table_compressed_error"] = table(
        "Table R@: the compressed quadrature (compressed-f64) against the exact sum (modern-f64) on the same GPU, "
        "each unit's own parameters: measured relative difference of every integral and of the likelihood, the "
        "controller's stated relative error, and the cells that fell back to the exact sum.",
        ["work unit", "quantity", "measured", "stated", "exact fallbacks"], body)


def _sweep(ctx, facts):
    n = ctx.n
    data = facts.files.rows("compressed_sweep")
    vectors = {(r["work_unit"], r["candidate"]) for r in data}
    n["compressed_sweep_vectors"] = str(len(vectors))
    n["compressed_sweep_units"] = str(len({u for u, _ in vectors}))
    n["compressed_sweep_worst"] = f"{max(float(r['rel_diff']) for r in data):.1e}"
    narrow = [float(r["rel_diff"]) for r in data if r["candidate"] == "narrowest"]
    n["compressed_sweep_narrowest"] = f"{max(narrow):.1e}" if narrow else "(not measured)"
    # The extended-precision reference, where the sweep took it: both GPU variants' distance from it.
    ref = [r for r in data if r.get("extended")]
    refvec = {(r["work_unit"], r["candidate"]) for r in ref}
    n["compressed_sweep_ref_vectors"] = str(len(refvec))
    # The threshold above which the sweep took the reference: its definition's (the definition the runner read).
    definition = json.loads((ROOT / "experiments" / "definitions" / "mwsep" / "compressed_sweep.json").read_text())
    n["compressed_sweep_ref_above"] = f"{definition['runs'][0].get('extended_above', 1e-13):.0e}"
    if not ref:
        n["compressed_sweep_ref_compressed"] = n["compressed_sweep_ref_exact"] = "(not measured)"
        ctx.tables["table_compressed_sweep"] = "(The sweep recorded no extended-precision reference.)"
        return
    n["compressed_sweep_ref_compressed"] = f"{max(float(r['compressed_error']) for r in ref):.1e}"
    n["compressed_sweep_ref_exact"] = f"{max(float(r['exact_error']) for r in ref):.1e}"
    show = 1e-13  # the table lists the rows above the chapter's target accuracy
    body = [[r["work_unit"], r["candidate"], r["quantity"], f"{float(r['rel_diff']):.1e}",
             f"{float(r['compressed_error']):.1e}", f"{float(r['exact_error']):.1e}",
             f"{r['fallback_cells']} of {r['cells']}" if r["cells"] else "-"]
            for r in ref if float(r["rel_diff"]) > show or float(r["exact_error"]) > show]
    ctx.tables["table_compressed_sweep"] = table(
        f"Table R@: the sweep's integrals where compressed-f64 and modern-f64 differ by more than {show:.0e} or where "
        f"modern-f64 is more than {show:.0e} from the extended-precision reference (long double, direct formulas, on "
        "the host's CPU): the two variants' relative difference, each one's relative distance from the reference, "
        "and the cells of that component that took the exact sum.",
        ["unit", "vector", "quantity", "compressed vs modern-f64", "compressed vs reference",
         "modern-f64 vs reference", "exact fallbacks"], body or [["-", "-", "none", "-", "-", "-", "-"]])


def _timing(ctx, facts):
    n = ctx.n
    bench = facts.files.rows("compressed_timing")
    ms = {}
    for unit in ("3s-large", "stripe11-large"):
        t = {}
        for v in ("modern-f64", "compressed-f64"):
            samples = [float(r["integral_ms"]) for r in bench if r["variant"] == v and r["work_unit"] == unit]
            if not samples:
                raise MissingData(f"{facts.files.path('compressed_timing')}: no rows of {v} on {unit}", [facts.files.path('compressed_timing')])
            t[v] = statistics.median(samples)
        k = unit.replace("-", "_")
        n[f"compressed_ms_{k}"], n[f"compressed_exact_ms_{k}"] = fmt(t["compressed-f64"], 3), fmt(t["modern-f64"], 3)
        n[f"compressed_ratio_{k}"] = f"{t['modern-f64'] / t['compressed-f64']:.0f}"
        ms[k] = t["compressed-f64"]
    # Beside the public application: a ratio of a different algorithm to its exact sum, labelled as such.
    peer = facts.files.optional("peer")
    best = [float(r["integration_s"]) for r in peer or [] if r["flags"] == "best" and r["work_unit"] == "3s-large"]
    if not best:
        raise MissingData(f"{facts.files.path('peer')}: no best-flag runs of the public application on 3s-large", [facts.files.path('peer')])
    n["compressed_vs_peer_3s_large"] = f"{statistics.median(best) * 1e3 / ms['3s_large']:.0f}"


def _cpu(ctx, facts):
    n = ctx.n
    data = facts.files.rows("compressed_cpu")
    med = {}
    for i in ("fast", "compressed"):
        rs = [r for r in data if r["integrator"] == i]
        if not rs:
            raise MissingData(f"{facts.files.path('compressed_cpu')}: no rows of --cpu {i}", [facts.files.path('compressed_cpu')])
        med[i] = (statistics.median(float(r["integral_s"]) for r in rs),
                  statistics.median(float(r["integral_without_rules_s"]) for r in rs))
        n["compressed_cpu_threads"] = rs[0]["threads"]
    n["compressed_cpu_fast_s"], n["compressed_cpu_s"] = fmt(med["fast"][0], 3), fmt(med["compressed"][0], 3)
    n["compressed_cpu_cached_s"] = fmt(med["compressed"][1], 3)
    n["compressed_cpu_ratio"] = f"{med['fast'][0] / med['compressed'][0]:.0f}"
    n["compressed_cpu_ratio_cached"] = f"{med['fast'][0] / med['compressed'][1]:.0f}"


def _fit(ctx, facts):
    fits = facts.files.rows("fit_recovery_compressed")
    # The exact fits on this GPU, or else on the first other GPU that recorded them (the likelihood at an
    # optimum does not depend on the GPU; its folder is named beside the value).
    exact, where = {r["work_unit"]: r for r in facts.files.optional("fit_recovery") or []}, ""
    for folder in ([] if exact else [g.folder for g in available(facts.gpus)[1:]]):
        other = facts.files.optional("fit_recovery", folder)
        if other:
            exact, where = {r["work_unit"]: r for r in other}, f" ({folder.parent.name})"
            break
    body = []
    for r in fits:
        e = exact.get(r["work_unit"])
        body.append([r["work_unit"], fmt(float(r["seconds"]), 3), r["evaluations"],
                     fmt(float(r["seconds_per_evaluation"]) * 1e3, 3), f"{float(r['likelihood']):.10f}",
                     f"{float(r['exact_likelihood']):.10f}", f"{float(r['exact_difference']):.1e}",
                     f"{float(e['likelihood']):.10f}{where}" if e else "not recorded",
                     f"{float(r['truth_likelihood']):.10f}", f"{float(r['max_abs_pull']):.2f}" if r["max_abs_pull"] else "-"])
        ctx.n[f"compressed_fit_s_{r['work_unit'].replace('-', '_')}"] = fmt(float(r["seconds"]), 3)
    # Where a fit evaluation's time goes (the GPU evaluator's account in the fit's report, when it has one).
    phases, verdicts = [], []
    for r in fits:
        for path in facts.reports.get(("fit_recovery_compressed", r["work_unit"]), ()):
            rep = facts.files.file(path)
            p, count = rep.get("phase_seconds"), rep["evaluations"]
            if not p or "device_wall_assemble" not in p:
                continue
            ms = lambda v: fmt(v / count * 1e3, 3)
            steps = ["device_wall_integral", "device_wall_sums", "device_wall_likelihood", "device_wall_assemble"]
            rest = p["evaluation"] - p["prepare"] - sum(p[k] for k in steps)
            if r["work_unit"] == "3s-small":  # the targets of a fit evaluation that is GPU time
                each_ms, gpu_ms = p["evaluation"] / count * 1e3, (p["integral"] + p["likelihood"]) / count * 1e3
                fit_s = float(r["seconds"])
                ctx.n["compressed_eval_gpu_ratio"] = f"{each_ms / gpu_ms:.2f}"
                verdicts.append(
                    f"On 3s-small an evaluation takes {fmt(each_ms, 3)} ms, {ctx.n['compressed_eval_gpu_ratio']} times "
                    f"the {fmt(gpu_ms, 3)} ms of its integral and likelihood kernels"
                    + (" (less than their sum: the stars' densities run beside the integral's kernels, so their "
                       "times overlap)" if each_ms < gpu_ms else "")
                    + f" (target at most "
                    f"{t.MWSEP_COMPRESSED_EVAL_RATIO:g} times: {'met' if each_ms / gpu_ms <= t.MWSEP_COMPRESSED_EVAL_RATIO else 'not met'}; "
                    f"at most {t.MWSEP_COMPRESSED_EVAL_MS:g} ms: {'met' if each_ms <= t.MWSEP_COMPRESSED_EVAL_MS else 'not met'}), "
                    f"and the whole recovery fit {fmt(fit_s, 3)} s (target at most {t.MWSEP_COMPRESSED_FIT_S:g} s: "
                    f"{'met' if fit_s <= t.MWSEP_COMPRESSED_FIT_S else 'not met'}). The candidate's preparation on the "
                    f"host, {fmt(p['prepare'] / count * 1e3, 3)} ms, is {100 * p['prepare'] / p['evaluation']:.0f}% of it "
                    f"(evaluator: {r['evaluator']}).")
            phases.append([r["work_unit"], ms(p["evaluation"]), ms(p["prepare"]),
                           f"{ms(p['device_wall_integral'])} ({ms(p['integral'])})", ms(p["device_wall_sums"]),
                           f"{ms(p['device_wall_likelihood'])} ({ms(p['likelihood'])})", ms(p["device_wall_assemble"]),
                           ms(rest)])
    ctx.tables["table_compressed_fit_phases"] = table(
        "Table R@: where a compressed fit evaluation's time goes, in ms of host wall time per evaluation averaged "
        "over the fit: the whole evaluation, the candidate's preparation (its model, stream constants and skip "
        "thresholds), the integral (launch to completion; its kernels' time by CUDA events in brackets), the "
        "integral's sums brought to the host, the likelihood (kernel and download of the per-star results; the "
        "kernel's time in brackets), the likelihood's assembly on the host, and the rest. Where the fit's evaluator "
        "says the stars are added on the device, the likelihood column is the kernels of that sum and the "
        "download of its total, and nothing is assembled on the host (the stars' densities, which need no integral, "
        "are queued beside the integral's kernels: their time is in the likelihood's brackets and overlaps the "
        "integral's); where it says the skip thresholds are "
        "computed on the device, their kernels are inside the integral's and the preparation is the model and "
        "the stream constants.",
        ["unit", "evaluation", "preparation", "integral (kernels)", "sums", "likelihood (kernel)", "assembly",
         "rest"], phases) if phases else \
        "(The fits' reports carry no per-phase account: they were recorded before the fit measured one.)"
    # The same fit with its per-candidate work elsewhere (fit_compressed_evaluators): as mwsep run evaluates each
    # candidate (--run-bits), and with two resident evaluators on the one GPU, beside the default.
    others = facts.files.optional("fit_compressed_evaluators") or []
    # One unit (the caption names it), so that the table has room for its evaluators and likelihoods.
    erows = []
    base = next((f for f in fits if f["work_unit"] == "3s-small"), None)
    for r in ([base] if base else []) + [o for o in others if o["work_unit"] == "3s-small"]:
        diff = float(r["likelihood"]) - float(base["likelihood"]) if base else None
        erows.append([r["evaluator"], r["devices"], fmt(float(r["seconds"]), 3), r["evaluations"],
                      fmt(float(r["seconds_per_evaluation"]) * 1e3, 3), f"{float(r['likelihood']):.8f}",
                      "(the default)" if r is base else (f"{diff:.1e}" if diff is not None else "not compared")])
    ctx.tables["table_compressed_fit_evaluators"] = table(
        "Table R@: the compressed recovery fit of 3s-small with each candidate's work in other places: the default "
        "(fit_recovery_compressed: the stars added and the skip thresholds computed on the GPU), each candidate "
        "evaluated as mwsep run evaluates it (--run-bits), and two resident evaluators on the one GPU (devices 0,0: "
        "a batch's candidates side by side), from fit_compressed_evaluators; the fit's time, evaluations, time per "
        "evaluation, the likelihood it ends on and its difference from the default's.",
        ["evaluator", "devices", "fit (s)", "evaluations", "per evaluation (ms)", "likelihood",
         "difference"], erows) if others else \
        "(fit_compressed_evaluators is not recorded on this GPU.)"
    ctx.tables["para_compressed_fit_targets"] = (" ".join(verdicts) if verdicts else
                                                 "The targets of a compressed fit evaluation were not judged: the "
                                                 "3s-small fit's report carries no per-phase account.") + "\n"
    ctx.tables["table_compressed_fit"] = table(
        "Table R@: the recovery fits of the small units with the compressed integrator (settings of the exact fits): "
        "the whole fit's time, its evaluations and time per evaluation, the likelihood at its optimum by the "
        "compressed quadrature and again by the exact sum, the exact fit's likelihood and the truth's, and the "
        "largest |pull| of a parameter from the truth in units of its Hessian uncertainty.",
        ["unit", "fit (s)", "evaluations", "per evaluation (ms)", "likelihood (compressed)", "likelihood (exact sum)",
         "difference", "exact fit's likelihood", "truth's likelihood", "largest pull (abs.)"], body,
        widths=[8, 8, 9, 9, 12, 12, 8, 12, 12, 10])


# The phases of a whole run (columns of the e2e kind's rows, seconds) in the table's order, with their headings.
# start_ms and exit_ms are in ms already (the launch to main() and the output to the process's end);
# host_prepare_s overlaps load and the device's start (the host's tables made while the context starts).
E2E_PHASES = [("start_ms", "process start"), ("load_s", "load"), ("device_start_wait_s", "device start"),
              ("prepare_s", "prepare (rules)"), ("integral_s", "integral"), ("likelihood_s", "likelihood"),
              ("exit_ms", "exit"), ("host_prepare_s", "host tables (overlapped)")]


def _end_to_end(ctx, facts):
    """Whole `mwsep run` processes with compressed-f64 (end_to_end_compressed) per unit: the median wall time from
    process start to exit and its phases, beside the exact path's whole run (modern-f64 rows of end_to_end) on the
    same unit, and the verdict on the stripe-11 model's target (paper/report/targets.py)."""
    n, files = ctx.n, facts.files
    target = t.MWSEP_COMPRESSED_PROCESS_S
    n["compressed_e2e_target_s"] = f"{target:g}"
    runs = files.optional("end_to_end_compressed", check_valid=False)
    if runs is None:
        ctx.fallback("table_compressed_end_to_end", "end_to_end_compressed was not recorded",
                     [files.path("end_to_end_compressed")])
        n["compressed_e2e_verdict"] = "not measured on this GPU"
        ctx.tables["table_compressed_end_to_end"] = ("(Not measured on this GPU: end_to_end_compressed was not "
                                                     "recorded here.)")
        return
    exact = [r for r in files.optional("end_to_end", check_valid=False) or [] if r["variant"] == "modern-f64"]
    med = lambda rows, col: statistics.median(float(r[col]) for r in rows)
    body, wall = [], {}
    for unit, label in UNITS:
        mine = [r for r in runs if r["work_unit"] == unit and r["variant"] == "compressed-f64"]
        if not mine:
            continue
        wall[unit] = med(mine, "wall_ms") / 1e3
        ref = [r for r in exact if r["work_unit"] == unit]
        body.append([label, str(len(mine)), fmt(wall[unit], 3)]
                    + [fmt(med(mine, col) * (1 if col.endswith("_ms") else 1e3), 3) if mine[0].get(col) else "-"
                       for col, _ in E2E_PHASES]
                    + [fmt(med(ref, "wall_ms") / 1e3, 3) if ref else "not recorded"])
    if "stripe11-large" not in wall:
        raise MissingData(f"{files.path('end_to_end_compressed')}: no compressed-f64 run on stripe11-large",
                          [files.path("end_to_end_compressed")])
    s = wall["stripe11-large"]
    n["compressed_e2e_s_stripe11_large"] = fmt(s, 3)
    n["compressed_e2e_verdict"] = "met" if s <= target else f"not met: {fmt(s, 3)} s"
    ctx.tables["table_compressed_end_to_end"] = table(
        "Table R@: whole `mwsep run --backend cuda --variant compressed-f64` processes, files in and likelihood "
        "out (end_to_end_compressed; medians over the runs): the wall time from process start to exit (s) and where "
        "it goes (ms): from the launch to main(), reading the files, the wait for the CUDA context, the preparation "
        "(the Gauss rules of the lines of sight and the device's tables), the integral and likelihood, from the "
        "output to the process's end, and the host's integral and star tables, made while the context starts "
        "(inside the load and device start, not added to them); beside it the exact path's whole run (modern-f64, "
        "end_to_end) on the same unit.",
        ["work unit", "runs", "whole run (s)"] + [h for _, h in E2E_PHASES] + ["exact path, whole run (s)"], body)


def build(ctx, facts):
    missing = []
    for part in (_accuracy, _sweep, _timing, _cpu, _end_to_end, _fit):
        try:
            part(ctx, facts)
        except MissingData as e:
            missing.append(e)
    if missing:
        raise MissingData("; ".join(str(e) for e in missing), [s for e in missing for s in e.sources])
