"""Beyond the thesis, the lean variants: modern-f64's exact sum with less work around the FP64 pipe. Their
ladder on the large units (modern), what the profiler counts per point (ncu_lean), the exponentials'
FP64-pipe use (exp_lean), the public application on the same GPU (peer), the whole process (end_to_end),
and the verdicts on the speed targets (paper/report/targets.py)."""
import statistics

from paper.report import targets as t
from paper.report.common import fmt, table
from paper.report.facts import MissingData, available
from paper.mwsep.data.fitting import SETTLED_LN_L, evaluation_phases, ln_difference

UNITS = ["3s-large", "2s-large", "stripe11-large"]
LABEL = {"3s-large": "3-S large", "2s-large": "2-S large", "stripe11-large": "stripe 11"}
# What each policy token of a lean variant's axes (memory, divsqrt, loop) adds to modern-f64.
WHAT = {"rw": "interleaved (r, w)",
        "biased": "pre-biased exp",
        "exp8": "eight-byte exp",
        "sub4": "quarter-bin skips",
        "sub4log": "quarter-bin skips by logs",
        "warp": "warp mask",
        "staged": "staged bins",
        "uncapped": "no register cap",
        "r48": "48 registers"}
# The steps the prose explains from the profiler's counts: (before, after, what the step changes).
STEPS = [("modern-f64", "modern-rw-f64", "reading (r, w) as one interleaved pair and the constants from the bank"),
         ("modern-rw-f64", "modern-rw-biased-f64", "the pre-biased table and the clamp"),
         ("modern-rw-f64", "modern-rw-exp8-f64", "the eight-byte exponential"),
         ("modern-rw-exp8-f64", "modern-rw-exp8-sub4log-f64", "skipping per quarter bin, tested by logarithms"),
         ("modern-rw-exp8-f64", "modern-rw-exp8-staged-f64", "staging each bin's points in shared memory"),
         ("modern-rw-exp8-sub4log-staged-f64", "modern-rw-exp8-sub4log-warp-staged-f64", "one mask per warp")]


def policies(row):
    """The policy tokens of a lean variant's row (its axes beyond modern-f64's), in name order."""
    tokens = [row["memory"]] if row.get("memory") == "rw" else []
    if row.get("divsqrt") not in ("", "table", None):
        tokens.append(row["divsqrt"])
    if row.get("loop") not in ("", "bins", None):
        tokens += row["loop"].split("-")
    return tokens


def verdict(ok):
    return "met" if ok else "not met"


def chains_paragraph(n, rows, ncu, best_stripe11):
    """The ceiling of the lean kernels' exponential from exp_chains (@p rows): the FP64 pipe's share with 1 to 8
    independent chains of exp_table8 per thread, their registers and resident warps, the multiply-adds' share in
    the same run, and the verdict against the share 4.3x needs (targets.MWSEP_EXP_CEILING_PCT). With the
    profiler's share of the best stripe-11 variant (@p ncu, @p best_stripe11) and its ratio to the public
    application (n["lean_vs_peer_stripe11_large"]), the ratio the ceiling implies if the kernel's time fell in
    proportion to the pipe's share. Sets n["exp_ceiling_pct"] and n["exp_ceiling_chains"]."""
    exp = sorted((r for r in rows if r["function"] == "exp_table8"), key=lambda r: int(r["chains"]))
    fma = {int(r["chains"]): float(r["fp64_pipe_pct"]) for r in rows if r["function"] == "dfma"}
    if not exp:
        return "How the exponential's share changes with the chains per thread (exp_chains) was not recorded on this GPU. "
    parts = []
    for r in exp:
        c = int(r["chains"])
        parts.append(f"{float(r['fp64_pipe_pct']):.0f}% with {c} chain{'s' if c > 1 else ''} ({r['registers']} registers, "
                     f"{r['warps_per_sm']} warps per SM" + (f"; multiply-adds {fma[c]:.0f}%" if c in fma else "") + ")")
    top = max(exp, key=lambda r: float(r["fp64_pipe_pct"]))
    ceiling = float(top["fp64_pipe_pct"])
    n["exp_ceiling_pct"], n["exp_ceiling_chains"] = f"{ceiling:.1f}", top["chains"]
    reached = ceiling >= t.MWSEP_EXP_CEILING_PCT
    text = (f"Whether more independent chains per thread would hide more of that mix's waiting, measured (exp_chains): "
            f"with the lean kernels' exponential (exp_table8) the FP64 pipe is busy "
            + ", ".join(parts) + f". The ceiling of this algorithm's exponential is {n['exp_ceiling_pct']}% "
            f"({top['chains']} chains), against the about {t.MWSEP_EXP_CEILING_PCT}% that 4.3x the public application "
            f"would need ({'reached' if reached else 'not reached'}). ")
    ratio = n.get("lean_vs_peer_stripe11_large")
    if ratio and best_stripe11 in ncu:
        pipe = float(ncu[best_stripe11]["fp64_pipe_pct"])
        implied = float(ratio) * ceiling / pipe
        n["exp_ceiling_implied_ratio"] = f"{implied:.2f}"
        text += (f"If `{best_stripe11}`, whose pipe is busy {pipe:.1f}% (3-stream unit), ran at that ceiling with the "
                 f"rest unchanged, its {ratio}x on stripe 11 would become at most {n['exp_ceiling_implied_ratio']}x"
                 + (". " if reached else ": 4.3x is not reachable with this algorithm. "))
    elif not reached:
        text += "4.3x is not reachable with this algorithm. "
    return text


def build(ctx, facts):
    n, files = ctx.n, facts.files
    modern = files.optional("modern")
    lean_rows = [r for r in modern or [] if r.get("family") == "modern" and r.get("memory")]
    if not lean_rows:
        ctx.fallback("para_lean", "modern.csv has no rows of the lean variants", [files.path("modern")] if modern is None else [])
        n["lean_measured"] = "no"
        ctx.tables["para_lean"] = ("**The lean variants.** The lean variants were not measured on this GPU "
                                   "(its modern.csv has no rows of them).\n")
        ctx.tables["table_lean"] = ""
        return
    n["lean_measured"] = "yes"
    integral = {}
    for r in modern:
        integral.setdefault((r["variant"], r["work_unit"]), []).append(float(r["integral_ms"]))
    integral = {k: statistics.median(v) for k, v in integral.items()}
    tokens = {r["variant"]: policies(r) for r in lean_rows}
    names = list(dict.fromkeys(r["variant"] for r in lean_rows))
    units = [u for u in UNITS if ("modern-f64", u) in integral]
    ncu = {r["variant"]: r for r in files.optional("ncu_lean") or []}
    points = available(facts.points)["3s-large"]

    def per_point(v, column):
        return float(ncu[v][column]) * 32 / points if v in ncu else None

    body = []
    for v in ["modern-f64"] + names:
        what = "; ".join(WHAT[x] for x in tokens.get(v, [])) or "the reference: modern-f64"
        cells = [fmt(integral[(v, u)], 3) if (v, u) in integral else "not measured" for u in units]
        gain = (f"{integral[('modern-f64', '3s-large')] / integral[(v, '3s-large')]:.2f}x"
                if (v, "3s-large") in integral else "not measured")
        prof = ([f"{float(ncu[v]['fp64_pipe_pct']):.1f}", f"{float(ncu[v]['issue_active_pct']):.1f}",
                 fmt(per_point(v, "instructions"), 3), fmt(per_point(v, "fp64_instructions"), 3)]
                if v in ncu else ["not profiled"] * 4)
        body.append([f"`{v}`", what] + cells + [gain] + prof)
    ctx.tables["table_lean"] = table(
        "Table R@: the lean variants on this GPU: each adds the policies named to modern-f64's. The integral "
        "in ms (medians, every run checked against the CPU) on the large units; the gain over modern-f64 on the "
        "3-stream unit; and for one whole integral launch on the 3-stream unit (ncu_lean) the FP64 pipe's and the "
        "issue slots' busy share (per cent) and the executed instructions and FP64 instructions per quadrature "
        "point (warp instructions times 32 over the unit's points).",
        ["variant", "adds", *[f"{LABEL[u]} (ms)" for u in units], "gain (3-S)", "FP64 pipe %", "issue %",
         "instructions / point", "FP64 / point"], body)

    # The fastest lean variant of each unit, and how it compares with modern-f64 and the public application.
    best = {u: min((v for v in names if (v, u) in integral), key=lambda v: integral[(v, u)]) for u in units}
    for u in units:
        k = u.replace("-", "_")
        n[f"lean_best_{k}"] = f"`{best[u]}`"
        n[f"lean_best_ms_{k}"] = fmt(integral[(best[u], u)], 3)
        n[f"lean_gain_{k}"] = f"{integral[('modern-f64', u)] / integral[(best[u], u)]:.2f}"
    peer = [r for r in files.optional("peer") or [] if r["flags"] == "best"]
    peer_ms = {u: 1e3 * statistics.median(float(r["integration_s"]) for r in peer if r["work_unit"] == u)
               for u in units if any(r["work_unit"] == u for r in peer)}
    sentences = []
    for u, target in t.MWSEP_PEER_RATIO.items():
        k = u.replace("-", "_")
        if u not in peer_ms or u not in best:
            sentences.append(f"on {LABEL[u]} the public application was not measured beside it (target {target:g}x: not compared)")
            continue
        ratio = peer_ms[u] / integral[(best[u], u)]
        n[f"lean_vs_peer_{k}"] = f"{ratio:.2f}"
        sentences.append(f"on {LABEL[u]} its {fmt(peer_ms[u], 3)} ms against {n[f'lean_best_ms_{k}']} ms "
                         f"({ratio:.2f}x; target {target:g}x: {verdict(ratio >= target)})")
    if ncu:
        top = max(ncu, key=lambda v: float(ncu[v]["fp64_pipe_pct"]))
        pipe = float(ncu[top]["fp64_pipe_pct"])
        n["lean_pipe_best_pct"], n["lean_pipe_best_variant"] = f"{pipe:.1f}", f"`{top}`"
        pipe_text = (f"The profiler finds the FP64 pipe busiest with {n['lean_pipe_best_variant']}: "
                     f"{n['lean_pipe_best_pct']}% of its cycles on the 3-stream unit, against "
                     f"{float(ncu['modern-f64']['fp64_pipe_pct']):.1f}% for modern-f64 (target "
                     f"{t.MWSEP_FP64_PIPE_PCT}%: {verdict(pipe >= t.MWSEP_FP64_PIPE_PCT)}). ")
    else:
        pipe_text = "The FP64 pipe's use was not profiled on this GPU (target not compared). "
    exp = {(r["function"], r["arguments"]): r for r in files.optional("exp_lean") or []}
    if exp:
        def pct(f, a="uniform"):
            return f"{float(exp[(f, a)]['fp64_pipe_pct']):.0f}%"
        exp_text = (f"Four chains per thread of the exponentials alone: the FP64 pipe is busy {pct('exp_from_steps')} "
                    f"of the cycles with modern-f64's exponential, {pct('exp_biased')} with the pre-biased one "
                    f"({pct('exp_biased', 'spread')} when every lane reads its own table entry, which costs it bank "
                    f"conflicts), {pct('exp_table8')} with the eight-byte one ({pct('exp_table8', 'spread')} spread: "
                    f"eight-byte entries conflict far less) and {pct('dfma')} with fused multiply-adds alone "
                    "(exp_lean). No exponential of this instruction mix keeps the pipe near the multiply-adds' "
                    "share, so the kernel, which adds the background's two hardware seeds and its loads, stays "
                    "below it too. ")
    else:
        exp_text = "The exponentials' microbenchmark (exp_lean) was not recorded on this GPU. "
    chains = files.optional("exp_chains") or []
    if not chains:
        ctx.fallback("para_exp_chains", "exp_chains was not recorded", [files.path("exp_chains")])
    exp_text += chains_paragraph(n, chains, ncu, best.get("stripe11-large"))
    e2e = files.optional("end_to_end") or []
    wall = {}
    for r in e2e:
        wall.setdefault((r["work_unit"], r["variant"]), []).append(float(r["wall_ms"]) / 1e3)
    lean_e2e = [(u, v) for (u, v) in wall if v != "modern-f64"]
    if lean_e2e:
        worst = max(statistics.median(wall[k]) for k in lean_e2e)
        variant = lean_e2e[0][1]
        n["lean_process_worst_s"] = fmt(worst, 3)
        e2e_text = (f"Files in, likelihood out, `{variant}` takes at most {n['lean_process_worst_s']} s on the large "
                    f"units and the stripe-11 model (medians; target at most {t.MWSEP_PROCESS_S:g} s: "
                    f"{verdict(worst <= t.MWSEP_PROCESS_S)}); the host prepares its tables and the star table while "
                    "the CUDA context starts. ")
    else:
        e2e_text = "The whole process of a lean variant was not measured on this GPU (target not compared). "
    steps = []
    for before, after, what in STEPS:
        if before in ncu and after in ncu and (before, "3s-large") in integral and (after, "3s-large") in integral:
            steps.append(f"{what} takes the instructions per point from {fmt(per_point(before, 'instructions'), 3)} to "
                         f"{fmt(per_point(after, 'instructions'), 3)} and the FP64 instructions from "
                         f"{fmt(per_point(before, 'fp64_instructions'), 3)} to {fmt(per_point(after, 'fp64_instructions'), 3)}, "
                         f"the FP64 pipe from {float(ncu[before]['fp64_pipe_pct']):.1f}% to "
                         f"{float(ncu[after]['fp64_pipe_pct']):.1f}% busy, and the 3-stream integral from "
                         f"{fmt(integral[(before, '3s-large')], 3)} to {fmt(integral[(after, '3s-large')], 3)} ms")
    steps_text = ("Step by step on the 3-stream unit: " + "; ".join(steps) + ". " if steps else "")
    fit = [r for r in files.optional("fit_cost_progress") or [] if r.get("integral_s") and r.get("evaluate_s")]
    if fit:
        integ, whole = sum(float(r["integral_s"]) for r in fit), sum(float(r["evaluate_s"]) for r in fit)
        ratio = whole / integ
        n["lean_fit_eval_ratio"] = f"{ratio:.2f}"
        fit_text = (f"Inside a fit of the 3-stream unit with the lean variant (fit_cost, {len(fit)} generations; the "
                    "next candidate's skip thresholds are computed on another host thread while the current "
                    f"candidate's kernels run), an evaluation costs {n['lean_fit_eval_ratio']} times its integral (target at most "
                    f"{t.MWSEP_FIT_EVAL_RATIO:g}: {verdict(ratio <= t.MWSEP_FIT_EVAL_RATIO)}). ")
    else:
        fit_text = ("A fit's evaluation against its integral was not measured with the lean variant on this GPU "
                    "(target not compared). ")
    reports = facts.reports[("fit_cost", "")]
    if reports:
        report = files.file(reports[0])
        phases, evals = report.get("phase_seconds", {}), report.get("evaluations", 0)
        host = sum(phases.get(k, 0.0) for k in ("device_wall_sums", "device_wall_likelihood", "device_wall_assemble"))
        if evals and phases.get("evaluation") and "stars added on the device" in str(report.get("evaluator", "")):
            fit_text += (f"Of an evaluation's {1e3 * phases['evaluation'] / evals:.1f} ms, the integral's sums brought "
                         f"back and the likelihood's kernels with the download of their total (the stars are added on "
                         f"the GPU, the fit's default) take {1e3 * host / evals:.2f} ms "
                         f"({100 * host / phases['evaluation']:.1f}%). ")
        elif evals and phases.get("evaluation"):
            fit_text += (f"Of an evaluation's {1e3 * phases['evaluation'] / evals:.1f} ms, the integral's sums brought "
                         f"back, the likelihood kernel with its per-star download and the star sum on the host take "
                         f"{1e3 * host / evals:.2f} ms ({100 * host / phases['evaluation']:.1f}%): the most that "
                         "pinned buffers and a star sum on the GPU could save. ")
    # The same ratio in the exact recovery fits of the small units, where one candidate's integral is short.
    small = _evaluation_ratios(facts, "fit_recovery")
    if small:
        worst = max(r for _, r, _, _ in small)
        fit_text += ("In the exact recovery fits of the small units (fit_recovery, modern-f64) an evaluation costs "
                     + " and ".join(f"{r:.3f} times its integral on {u} ({fmt(ms, 3)} ms an evaluation)"
                                    for u, r, ms, _ in small)
                     + f" (target at most {t.MWSEP_FIT_EVAL_RATIO:g} on every unit: "
                     f"{verdict(worst <= t.MWSEP_FIT_EVAL_RATIO)})"
                     + ("; the stars' densities run beside the integral's kernels and lengthen their measured time a "
                        "little, so the evaluation's own time is the fairer measure of the overhead"
                        if any(device for *_, device in small) else "")
                     + ". Most of what an evaluation adds to its integral is the host's preparation of the candidate "
                     "(its streams' skip thresholds above all), so the ratio depends on the host's CPU as well as on "
                     "the GPU (experiments/records/fit-prepare-nvidia-h200-20261129 holds this fit before and after a change of "
                     "the preparation, each on its own lent host, and both binaries alternating on a third). ")
    fit_text += _batched_text(ctx, facts, t)
    hessian_text = _hessian_text(files, n, t) + _tail_text(files, n)
    gain_3s = n.get("lean_gain_3s_large", "")
    ctx.tables["para_lean"] = (
        "**The lean variants.** modern-f64 issues about two instructions per FP64 instruction, and the profiler "
        "finds neither the FP64 pipe nor the issue slots full. The lean variants keep its sum (every integral "
        "within 1e-14 relative of modern-f64's on every work unit, tested on the GPU, and checked against the CPU "
        "in every timed run) and remove work around the FP64 pipe, one policy at a time, so that each change is "
        "measured on its own (Table below). "
        f"The fastest on the 3-stream unit is {n.get('lean_best_3s_large', '')}, {gain_3s} times faster than "
        "modern-f64; against the public application on the same GPU, " + "; ".join(sentences) + ". "
        + steps_text + pipe_text + exp_text + e2e_text + fit_text + hessian_text + "\n")


def _evaluation_ratios(facts, name):
    """(unit, an evaluation over its integral, milliseconds an evaluation, whether the stars were added on the device)
    from the first report of recovery fit @p name on each small unit that has one with its phases."""
    out = []
    for unit in ("2s-small", "3s-small"):
        for path in facts.reports.get((name, unit), ())[:1]:
            rep = facts.files.file(path)
            phases = evaluation_phases(rep)
            if phases:
                out.append((unit, phases["ratio"], phases["evaluation_ms"],
                            "stars added on the device" in str(rep.get("evaluator", ""))))
    return out


def _batched_text(ctx, facts, t):
    """The recovery fits with the CMA-ES whose generation is one batch (fit_recovery_batched): an evaluation against
    its integral on each small unit, beside fit_recovery's (pagmo's cmaes, one candidate at a time)."""
    rows = _evaluation_ratios(facts, "fit_recovery_batched")
    if not rows:
        ctx.fallback("lean_fit_batched", "fit_recovery_batched was not recorded",
                     [facts.files.path("fit_recovery_batched")])
        return ("The same fits with the CMA-ES whose generation is one batch (fit_recovery_batched, `--algorithm "
                "cmaes-batch`) were not recorded on this GPU. ")
    worst = max(r for _, r, _, _ in rows)
    return ("With this project's CMA-ES, whose generation is one batch, so that each candidate's preparation can run "
            "while the kernels of the one before do (fit_recovery_batched, `--algorithm cmaes-batch`; another "
            "implementation than pagmo's, so another search path), an evaluation costs "
            + " and ".join(f"{r:.3f} times its integral on {u} ({fmt(ms, 3)} ms an evaluation)" for u, r, ms, _ in rows)
            + f" (target at most {t.MWSEP_FIT_EVAL_RATIO:g}: {verdict(worst <= t.MWSEP_FIT_EVAL_RATIO)})"
            + _same_host_text(facts, "fit_recovery", "fit_recovery_batched") + ". " + _batched_optimum_text(facts))


def _batched_optimum_text(facts):
    """Where fit_recovery_batched ends against fit_recovery on each small unit both fitted: the difference of their
    optima's ln likelihood (settled within the fitting chapter's SETTLED_LN_L) and the largest pull against the truth
    where the Hessian shows a maximum."""
    parts = []
    for unit in ("2s-small", "3s-small"):
        mine, theirs = facts.reports.get(("fit_recovery_batched", unit), ()), facts.reports.get(("fit_recovery", unit), ())
        if not mine or not theirs:
            continue
        mine, theirs = facts.files.file(mine[0]), facts.files.file(theirs[0])
        gap = ln_difference(int(mine["stars"]), float(mine["likelihood"]) - float(theirs["likelihood"]))
        same = abs(gap) <= SETTLED_LN_L
        pulls = [abs(p["pull"]) for p in mine["parameters"].values() if p.get("pull") is not None]
        recovered = (f"its largest pull against the truth {max(pulls):.2f} sigma" if pulls and mine["positive_definite"]
                     else "no maximum in its Hessian, so no pulls" + (", as with fit_recovery"
                                                                      if not theirs["positive_definite"] else ""))
        where = ("an optimum of fit_recovery's likelihood to the last bit" if mine["likelihood"] == theirs["likelihood"]
                 else f"an optimum {gap:+.2g} in ln likelihood from fit_recovery's ("
                 + ("the same optimum" if same else "another optimum") + ")")
        parts.append(f"on {unit} {mine['evaluations']} evaluations against {theirs['evaluations']}, {where}, "
                     f"{recovered}")
    if not parts:
        return ""
    return ("Where the two searches end: " + "; ".join(parts) + ". ")


def _phase_comparison(facts, first, second):
    """Per small unit that both recovery fits @p first and @p second report with phases: the preparation an
    evaluation waited for and the integral's own milliseconds, per evaluation, of @p second against @p first."""
    parts = []
    for unit in ("2s-small", "3s-small"):
        a, b = facts.reports.get((first, unit), ()), facts.reports.get((second, unit), ())
        if not a or not b:
            continue
        pa, pb = evaluation_phases(facts.files.file(a[0])), evaluation_phases(facts.files.file(b[0]))
        if pa and pb and pa["prepare_ms"] is not None and pb["prepare_ms"] is not None:
            parts.append(f"on {unit} an evaluation waited {pb['prepare_ms']:.2f} ms for its candidate's preparation "
                         f"against {pa['prepare_ms']:.2f} ms in {first}, and its integral took {pb['integral_ms']:.2f} "
                         f"ms against {pa['integral_ms']:.2f} ms")
    if not parts:
        return ""
    return (": " + "; ".join(parts) + " (the two searches visit other candidates, whose integrals cost more or less "
            "with their parameters)")


def _same_host_text(facts, first, second):
    """Whether results @p first and @p second were recorded on one boot of one host (their .meta.json boot_id): if
    not, or where either lacks it, their milliseconds are not to be compared, only each run's own ratio."""
    boots = []
    for name in (first, second):
        try:
            boots.append(facts.files.meta(name).get("boot_id"))
        except MissingData:
            boots.append(None)
    if boots[0] and boots[0] == boots[1]:
        return "; both recorded on one boot of one host, so the milliseconds compare too" + _phase_comparison(
            facts, first, second)
    return (f"; {second} and {first} were not recorded on one boot of one host, so their milliseconds an evaluation "
            "do not compare, only each run's ratio of evaluation to integral")


def _hessian_text(files, n, t):
    """The Hessian with and without the integral cache (hessian_cost): the integral kernels' seconds, the
    component integrals, whether the uncertainties are the same bits, and the verdict on the target."""
    rows = files.optional("hessian_cost") or []
    by = {(r["variant"], r["integral_cache"]): r for r in rows if r.get("work_unit") == "3s-large"}
    parts = []
    for variant in sorted({v for v, _ in by}):
        off, on = by.get((variant, "off")), by.get((variant, "on"))
        if not off or not on:
            continue
        saving = float(off["hessian_integral_s"]) / float(on["hessian_integral_s"])
        components = float(off["components"]) / float(on["components"])
        key = "hessian_saving_" + variant.replace("-", "_")
        n[key] = f"{saving:.1f}"
        parts.append((variant, saving, off, on, components))
    if not parts:
        return ("The Hessian with the integral cache was not measured on this GPU (hessian_cost; its target, at least "
                f"{t.MWSEP_HESSIAN_SAVING:g} times less integral work, not compared). ")
    sentences = []
    for variant, saving, off, on, components in parts:
        sentences.append(
            f"with {variant}, its integral kernels take {float(off['hessian_integral_s']):.2f} s without the cache and "
            f"{float(on['hessian_integral_s']):.2f} s with it ({saving:.1f} times less; target at least "
            f"{t.MWSEP_HESSIAN_SAVING:g}: {verdict(saving >= t.MWSEP_HESSIAN_SAVING)}), the whole Hessian "
            f"{float(off['hessian_seconds']):.1f} s and {float(on['hessian_seconds']):.1f} s; of its "
            f"{int(float(on['hessian_evaluations']))} evaluations, {int(float(on['full']))} integrated every component, "
            f"{int(float(on['partial']))} only the streams they changed and {int(float(on['none']))} none "
            f"({int(float(on['components']))} component integrals instead of {int(float(off['components']))}, "
            f"{components:.1f} times fewer); the uncertainties are "
            + ("the same bits" if on["same_uncertainties"] == "yes" else "NOT the same bits") + " with and without it")
    return ("The Hessian of the 3-stream unit (hessian_cost, one run each way) changes one or two parameters per "
            "stencil point, and a component's integral depends only on its own parameters (the background on q and "
            "r0, a stream on its five, no integral on a weight), so the integral cache keeps each component's value "
            "and integrates only the streams a point changes, in one launch of those streams alone: "
            + "; ".join(sentences) + ". ")


def _tail_text(files, n):
    """What the profiler says a work order against the tail and an all-SM reduction could save at most
    (ncu_tail, ncu_reduce), and whether that was worth building."""
    tail = {r["variant"]: r for r in files.optional("ncu_tail") or []}
    reduce = files.optional("ncu_reduce") or []
    if not tail:
        return "The SMs' balance within a launch was not profiled on this GPU (ncu_tail: not compared). "
    parts = []
    for variant, r in sorted(tail.items()):
        avg, hi = float(r["sm_active_cycles_avg"]), float(r["sm_active_cycles_max"])
        lo = float(r["sm_active_cycles_min"])
        bound = 100 * (1 - avg / hi)
        n["tail_bound_" + variant.replace("-", "_")] = f"{bound:.1f}"
        parts.append(f"{variant}'s SMs are active {100 * lo / hi:.1f}% to 100% of the busiest one's cycles, "
                     f"{100 * avg / hi:.1f}% on average, over {float(r['waves_per_sm']):.1f} waves of blocks per SM, "
                     f"so no order of the same blocks can save more than {bound:.1f}% of its launch")
    worst = max(float(n["tail_bound_" + v.replace("-", "_")]) for v in tail)
    text = ("Before a work order against the tail was built, the profiler measured what it could gain (ncu_tail): "
            + "; ".join(parts) + ". ")
    text += ("That bound is below the noise of a timing, so no work order was built. " if worst < 2 else
             f"A work order could gain up to {worst:.1f}%; it is not built. ")
    if reduce:
        dur = float(reduce[0]["duration_ns"])
        launch = float(tail.get(reduce[0]["variant"], next(iter(tail.values())))["duration_ns"])
        share = 100 * dur / launch
        text += (f"The fixed-order reduction of the per-cell results after the launch, each thread adding one chunk "
                 f"of cells in order with its loads batched and the chunks spread over many SMs, takes "
                 f"{dur / 1e3:.0f} µs ({share:.2f}% of the launch; ncu_reduce). ")
    else:
        text += "The reduction's time was not profiled on this GPU (ncu_reduce: not compared). "
    return text
