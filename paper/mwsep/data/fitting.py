"""Chapter 'Fitting a stripe': the recovery fits of the small units (fit_recovery) and the evaluations per
second of the global search on 1, 2, 4 and 8 GPUs, one process or one MPI rank per GPU (fit_scaling). Every
number, and every word that depends on one (recovered or not, settled or still improving, within the cost
target or not), comes from those result files."""
import json
import math
import pathlib
import statistics

from paper.report.common import MissingData, medians, rel, table
from paper.report.facts import available

from ..facts import BATCHED_SCALING
from ..variants import MODERN_F64

# A fitted parameter is called recovered when it lies within this many of its standard deviations of the truth.
RECOVERY_PULLS = 3.0
# The cost of one evaluation inside a fit may be at most this multiple of the modern-f64 integral alone
# (the fit's specification: an evaluation costs little more than its integral).
COST_TARGET = 1.3
# A global search has stopped improving when its best ln likelihood rose by less than this over its last tenth of
# generations (0.5 is one standard deviation's worth of ln likelihood).
SETTLED_LN_L = 0.5


def _report(facts, name, wu):
    """The JSON report of fit `name` on unit `wu` (one process, as the recovery runs are)."""
    found = facts.reports.get((name, wu), ())
    if not found:
        results = facts.files.results
        raise MissingData(f"{rel(results)}/{name}_report_{wu}_*.json: the report needs this result file",
                          [results / f"{name}_report_{wu}_*.json"])
    return facts.files.file(found[0])


def _twin_streams(facts, rec):
    """A sentence for each unit whose true streams share every parameter but their distance r: the
    likelihood then barely tells them apart, and a search can trade one stream's stars for the other's."""
    out = []
    for r in rec:
        truth = {k: p["truth"] for k, p in _report(facts, "fit_recovery", r["work_unit"])["parameters"].items()}
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


# A component of the weakest direction is named when its magnitude reaches this (a unit vector's share).
DIRECTION_SHOWN = 0.3
# The longest recovery fit of a small unit may take at most this long on one GPU (the fit's specification).
RECOVERY_SECONDS_TARGET = 600.0


def ln_difference(stars, delta_l):
    """A difference of the mean log10 likelihood L as a difference of ln likelihood (N ln10 dL)."""
    return stars * math.log(10) * delta_l


def _no_maximum(rep):
    """Why the Hessian shows no maximum: how many eigenvalues of the step-scaled Fisher matrix are not
    positive, and the weakest direction's largest components."""
    eig = rep.get("scaled_fisher_eigenvalues") or []
    bad = sum(1 for v in eig if not v > 0)
    direction = sorted(rep.get("weakest_direction", {}).items(), key=lambda kv: -abs(kv[1]))
    shown = [f"{v:+.2f} {k}" for k, v in direction if abs(v) >= DIRECTION_SHOWN]
    text = (f"no uncertainties: the Hessian at the fit is not negative definite, so it is no maximum ({bad} of "
            f"{len(eig)} eigenvalues of the Fisher matrix in units of the steps are not positive, the smallest "
            f"{min(eig):.3f}")
    return text + (f"; its direction is mostly {', '.join(shown)})" if shown else ")")


def _recovery(ctx, facts):
    n = ctx.n
    rec = sorted(facts.files.rows("fit_recovery"), key=lambda r: r["work_unit"])
    progress = facts.files.rows("fit_recovery_progress")
    body, lines = [], []
    for r in rec:
        wu = r["work_unit"]
        rep = _report(facts, wu=wu, name="fit_recovery")
        params = rep["parameters"]
        stars = int(rep["stars"])
        k = len(params)
        at_edge = [name for name, p in params.items()
                   if min(p["best"] - p["lower"], p["upper"] - p["best"]) <= 1e-6 * (p["upper"] - p["lower"])]
        # The global search's best over its last tenth of generations, in ln likelihood (N ln10 x L).
        mine = sorted((int(g["generation"]), float(g["best_likelihood"])) for g in progress if g["work_unit"] == wu)
        last = mine[-1][0]
        window = max(1, last // 10)
        before = max(v for g, v in mine if g <= last - window)
        rise = ln_difference(stars, mine[-1][1] - before)
        settled = rise < SETTLED_LN_L
        pulls = [abs(p["pull"]) for p in params.values() if p.get("pull") is not None]
        if not rep["positive_definite"]:
            verdict = _no_maximum(rep)
        elif not pulls:
            verdict = "a maximum, but no true values were given to compare with"
        elif max(pulls) <= RECOVERY_PULLS:
            verdict = f"recovered: every parameter within {RECOVERY_PULLS:g} sigma of the truth"
        else:
            off = sum(1 for v in pulls if v > RECOVERY_PULLS)
            verdict = f"not recovered: {off} of {len(pulls)} parameters more than {RECOVERY_PULLS:g} sigma from the truth"
        # Against the truth's own likelihood: at the maximum, 2 (ln L_max - ln L_true) follows a chi-square of k
        # degrees of freedom, so the gain is about k / 2 with a spread of sqrt(k / 2).
        gain = ln_difference(stars, float(rep["likelihood"]) - float(rep["truth_likelihood"]))
        against_truth = (f"The fit's ln likelihood lies {gain:.2f} above the truth's on the same catalogue (about "
                         f"{k / 2:g} +- {math.sqrt(k / 2):.1f} is expected at the maximum for {k} parameters)"
                         if gain >= 0 else
                         f"The fit's ln likelihood lies {-gain:.2f} below the truth's on the same catalogue: the search "
                         "did not find the maximum")
        polishes = rep.get("polishes", {})
        polish_text = "; ".join(
            f"from the {frm}: {ln_difference(stars, float(p['likelihood']) - float(rep['global_likelihood'])):+.2f} in ln "
            f"likelihood against the global best after {p['evaluations']} evaluations (stopped by its "
            f"{p['stopped_by']})" for frm, p in polishes.items())
        kept = max(polishes, key=lambda f: float(polishes[f]["likelihood"])) if polishes else None
        body.append([wu, r["evaluations"], f"{float(r['seconds']):.1f}",
                     f"{float(r['start_likelihood']):.5f}", f"{float(r['truth_likelihood']):.5f}",
                     f"{float(r['likelihood']):.5f}", f"{gain:+.2f}",
                     "yes" if rep["positive_definite"] else "no",
                     f"{max(pulls):.2f}" if pulls else "n/a", len(at_edge)])
        lines.append(
            f"- **{wu}** ({k} parameters, {stars} stars; global search {rep['algorithm']} with a population of "
            f"{rep['population']} for {rep['generations']} generations; "
            f"{1000 * float(r['seconds_per_evaluation']):.1f} ms per evaluation): {verdict}. {against_truth}. The global search "
            + ("had stopped improving" if settled else "was still improving")
            + f" (its best ln likelihood rose by {rise:.2f} over its last {window} generations). The polishes: "
            + polish_text + (f"; the one from the {kept} was kept" if kept else "")
            + f". {len(at_edge)} of the fitted parameters lie on the edge of the search box"
            + (f" ({', '.join(at_edge)})" if at_edge else "") + ".")
    ctx.tables["table_fit_recovery"] = table(
        "Table R@: recovery fits of the small units from a perturbed start (their parameter counts, global searches "
        "and times per evaluation are in the text): evaluations (global search, both polishes and Hessian), wall time, the "
        "mean log10 likelihood L at the start, at the truth and at the fit on the same catalogue, the fit's gain over "
        "the truth in ln likelihood (N ln10 x the difference of L), whether the Hessian showed a maximum, the largest "
        "|fitted - true| / sigma, and the fitted parameters on the edge of the search box.",
        ["work unit", "evaluations", "seconds", "L start", "L truth",
         "L fit", "ln L fit - truth", "maximum", "largest pull", "at the box edge"], body)
    ctx.tables["para_fit_recovery"] = "\n".join(lines) + "\n" + _twin_streams(facts, rec)
    longest = max(float(r["seconds"]) for r in rec)
    n["fit_recovery_max_seconds"] = f"{longest:.1f}"
    n["fit_recovery_time_verdict"] = (f"within the target of {RECOVERY_SECONDS_TARGET / 60:g} minutes"
                                      if longest <= RECOVERY_SECONDS_TARGET else
                                      f"over the target of {RECOVERY_SECONDS_TARGET / 60:g} minutes")
    n["fit_recovery_evaluator"] = rec[0]["evaluator"]
    # How many fits each unit had, and with which seeds: one seed per unit is one draw of the search's luck.
    fits = {}
    for r in rec:
        fits.setdefault(r["work_unit"], []).append(r)
    seeds = sorted({str(_report(facts, "fit_recovery", wu)["seed"]) for wu in fits})
    most = max(len(v) for v in fits.values())
    n["fit_recovery_repeats"] = (
        (f"each unit was fitted once, with one seed of the search (seed {', '.join(seeds)}), so how often another seed "
         "ends elsewhere is not measured" if most == 1 else
         f"each unit was fitted up to {most} times, with the seeds {', '.join(seeds)}"))
    # The start's perturbation and the box, as the recorded command lines gave them to the runs.
    run = json.loads((pathlib.Path(__file__).resolve().parents[3] / "experiments/definitions/mwsep/fit_recovery.json")
                     .read_text())["runs"][0]
    boxes = {_report(facts, "fit_recovery", r["work_unit"])["command"].split("--box ")[1].split()[0] for r in rec}
    if len(boxes) != 1:
        raise MissingData(f"fit_recovery: the runs used different boxes {sorted(boxes)}", [facts.files.path("fit_recovery")])
    n["fit_recovery_box"] = f"{100 * float(boxes.pop()):g}"
    n["fit_recovery_perturb"] = f"{100 * float(run.get('perturb', 0.01)):g}"
    recovered = sum(1 for row in body if row[7] == "yes" and row[8] != "n/a" and float(row[8]) <= RECOVERY_PULLS)
    above = sum(1 for row in body if float(row[6]) >= 0)
    n["fit_recovery_outcome"] = (
        (f"all {len(rec)} fits recovered the truth" if recovered == len(rec) else
         f"{recovered} of {len(rec)} fits recovered the truth")
        + (f", and all {len(rec)} ended above the truth's likelihood" if above == len(rec) else
           f", and {above} of {len(rec)} ended above the truth's likelihood"))


# Evaluations per second on two and on four GPUs of one host, exact integrator, should reach these multiples of
# one GPU's (the fit's specification; the issue of four GPUs of one host).
TWO_GPU_TARGET = 1.8
FOUR_GPU_TARGET = 3.5
# The result files of the fit's throughput, by integrator (kinds fit and fit_compressed).
SCALING_FILES = {"exact": "fit_scaling", "compressed": "fit_scaling_compressed"}


def _gpus(r):
    """GPUs of a fit_scaling row: one process with N GPUs (devices "0,..,N-1") or N MPI ranks of one GPU each."""
    return int(r["ranks"]) if int(r["ranks"]) > 1 else len(r["devices"].split(","))


def _mode(r):
    return "MPI ranks, one GPU each" if int(r["ranks"]) > 1 else "one process"


def _generation_pairs(progress, evaluator):
    """(previous, this) progress rows of every generation after the first of one run (@p evaluator), in
    generation order: each pair spans one batch of the population."""
    gens = sorted((g for g in progress if g["evaluator"] == evaluator), key=lambda g: int(g["generation"]))
    return list(zip(gens, gens[1:]))


def _scaling_rows(files, folder, host, runs_of):
    """Table rows for the fit_scaling runs (exact, and fit_scaling_compressed: compressed) of one results
    folder: rate over the whole run, the median and range of the per-generation rates (each generation after
    the first is one batch of the population), and the speed-up against one GPU in one process of the same
    run and integrator; @p runs_of[host] gets the run counts and generations. Returns (rows, {(integrator,
    mode, GPUs): rate})."""
    body, rate = [], {}
    for integrator, name in SCALING_FILES.items():
        sc = files.optional(name, folder)
        if sc is None:
            continue
        progress = files.rows(f"{name}_progress", folder)
        runs, per_generation = {}, {}
        for r in sc:
            key = (integrator, _mode(r), _gpus(r))
            runs.setdefault(key, []).append(float(r["evaluations_per_second"]))
            per_generation.setdefault(key, []).extend(
                (int(b["evaluations"]) - int(a["evaluations"])) / (float(b["seconds"]) - float(a["seconds"]))
                for a, b in _generation_pairs(progress, r["evaluator"]))
        mine = {k: statistics.median(v) for k, v in runs.items()}
        rate.update(mine)
        counts, generations = runs_of.get(host, (set(), set()))
        runs_of[host] = (counts | {len(v) for v in runs.values()}, generations | {int(r["generations"]) for r in sc})
        one = mine.get((integrator, "one process", 1))
        for key, v in sorted(mine.items(), key=lambda kv: (kv[0][2], kv[0][1])):
            g = per_generation[key]
            med = statistics.median(g)
            body.append([host, integrator, key[2], key[1], f"{v:.2f}", f"{med:.2f}", f"{100 * (max(g) - min(g)) / med:.1f}",
                         f"{v / one:.2f}" if one else "n/a", f"{100 * v / one / key[2]:.0f}" if one else "n/a",
                         f"{1000.0 / v:.1f}"])
    return (body or None), rate


def _generation_phases(progress, evaluator, gpus):
    """Medians over the generations after the first of one run's progress rows (@p evaluator): the generation's
    wall time, and per device (the phase columns are sums over the run's devices, or rank 0's alone under MPI) the
    whole evaluations' wall time and the kernels' (integral and likelihood, CUDA events) [s]. None without the
    phase columns."""
    pairs = [(a, b) for a, b in _generation_pairs(progress, evaluator) if b.get("evaluate_s") not in (None, "")]
    if not pairs:
        return None
    per = 1 if "MPI ranks" in evaluator else gpus
    wall = statistics.median(float(b["seconds"]) - float(a["seconds"]) for a, b in pairs)
    evaluation = statistics.median(float(b["evaluate_s"]) for _, b in pairs) / per
    kernels = statistics.median(float(b["integral_s"]) + float(b["likelihood_s"]) for _, b in pairs) / per
    return wall, evaluation, kernels


def _compressed_limit(files, folder, rate, host):
    """What sets the compressed fit's pace on @p folder's host, from fit_scaling_compressed and its progress
    file: the speed-ups on the most GPUs it ran (one process and MPI ranks) and, on one GPU and on the most in
    one process, the share of a generation's wall time in which a device's kernels run. None without compressed
    rows on more than one GPU."""
    one = rate.get(("compressed", "one process", 1))
    most = max((k[2] for k in rate if k[0] == "compressed" and k[1] == "one process"), default=None)
    if not one or not most or most == 1:
        return None
    rows = files.rows("fit_scaling_compressed", folder)
    progress = files.rows("fit_scaling_compressed_progress", folder)
    ranks = rate.get(("compressed", "MPI ranks, one GPU each", most))
    text = (f"With the compressed integrator ({host}), {most} GPUs in one process made "
            f"{rate[('compressed', 'one process', most)] / one:.2f} times the evaluations per second of one GPU"
            + (f", and {most} MPI ranks of one GPU each {ranks / one:.2f} times." if ranks else "."))
    phases = {}
    for r in rows:
        if _mode(r) == "one process" and _gpus(r) in (1, most):
            phases[_gpus(r)] = _generation_phases(progress, r["evaluator"], _gpus(r))
    if phases.get(1):
        wall, evaluation, kernels = phases[1]
        share = kernels / wall
        text += (f" On one GPU a generation took {1e3 * wall:.1f} ms (median), of which the device's kernels (integral "
                 f"and likelihood, CUDA events) ran {1e3 * kernels:.1f} ms ({100 * share:.0f} %) and its whole "
                 f"evaluations {1e3 * evaluation:.1f} ms; the remaining {1e3 * (wall - evaluation):.1f} ms lie outside "
                 "the evaluations: the wait for the next candidate's skip thresholds, which the host computes while the "
                 "current candidate's kernels run, and pagmo's step between generations.")
        text += (" The host's work, not the GPU, sets the pace." if share < 0.5 else
                 " The kernels take most of the generation: the GPU sets the pace.")
    if phases.get(most):
        wall, evaluation, kernels = phases[most]
        text += (f" On {most} GPUs in one process a generation took {1e3 * wall:.1f} ms, in which each device's kernels "
                 f"ran {1e3 * kernels:.1f} ms ({100 * kernels / wall:.0f} %) and its evaluations {1e3 * evaluation:.1f} ms "
                 f"(means over the devices), leaving {1e3 * (wall - evaluation):.1f} ms of each device's generation "
                 "outside its evaluations, not measured apart (pagmo's step between generations, and each device's first "
                 "candidate of a batch, whose thresholds are not computed ahead, are the candidates).")
    return text


def _scaling(ctx, facts):
    files = facts.files
    main = files.results.resolve()
    main_is_multi = any(d.resolve() == main for d in available(facts.scaling_folders))  # RESULTS: a multi-GPU host's
    folders = [d for d in available(facts.scaling_folders) if d.resolve() != main]
    runs_of = {}
    main_body, main_rate = _scaling_rows(files, files.results, files.results.parent.name, runs_of)
    hosts = []  # (host, folder, rates) of every multi-GPU host's folder
    multi_body = []
    for d in folders:
        body, rate = _scaling_rows(files, d, d.parent.name, runs_of)
        if body:
            hosts.append((d.parent.name, d, rate))
            multi_body += body
    if main_is_multi:
        hosts.insert(0, (files.results.parent.name, files.results, main_rate))
    if main_body is None and not multi_body:
        ctx.fallback("table_fit_scaling", "fit_scaling was not recorded", [files.path("fit_scaling")])
        ctx.tables["para_fit_scaling"] = "The throughput measurement (fit_scaling) was not recorded on this host.\n"
        ctx.tables["table_fit_scaling"] = ""
        return
    repeats = []
    for host, (counts, generations) in runs_of.items():
        counts = sorted(counts)
        runs = str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
        repeats.append(f"{host}: {runs} run{'s' if counts[-1] > 1 else ''} per configuration, each of "
                       f"{' or '.join(str(g) for g in sorted(generations))} generations after the first")
    single = all(c == {1} for c, _ in runs_of.values())
    wanted = json.loads((pathlib.Path(__file__).resolve().parents[3] / "experiments/definitions/mwsep/fit_scaling.json")
                        .read_text())
    have = {k[2] for k in main_rate} | {k[2] for _, _, rate in hosts for k in rate}
    missing = sorted({int(run.get("needs_gpus", 1)) for run in wanted["runs"]} - have)
    # The GPU counts the experiment asks for that no recorded host had: a row each, never extrapolated.
    absent = [["none", "", str(g), "one process; MPI ranks", f"not measured: no host with {g} GPUs", "", "", "", "", ""]
              for g in missing]
    ctx.tables["table_fit_scaling"] = table(
        "Table R@: evaluations per second of the fit's global search on the 3-stream large unit (fit_scaling; "
        "fit_scaling_compressed with the compressed integrator, a different algorithm), by results folder (host), "
        "integrator, GPU count, as one process driving every GPU and as one MPI rank per GPU: over the "
        "whole run, and the median of its generations after the first (one batch of the population each) with their "
        "range (max - min, % of the median); the speed-up "
        "is against one GPU in one process of the same host, integrator and run, and the efficiency that speed-up "
        "over the GPU count (%). A GPU count that no recorded host "
        "had is a row of its own, not measured. "
        f"Runs: {'; '.join(repeats)}" + (" (the range of its generations is a run's only spread)." if single else "."),
        ["host", "integrator", "GPUs", "mode", "per second", "median per generation", "range %", "speed-up",
         "efficiency %", "ms each (wall)"], (main_body or []) + multi_body + absent)
    text = []
    if single:
        text.append("Each configuration was run once, so each rate and speed-up below rests on one short run; the "
                    "range of its generations in the table is its only measure of spread.")
    one = main_rate.get(("exact", "one process", 1))
    if one:
        text.append(f"On the 3-stream large unit the global search made {one:.2f} evaluations per second on one GPU.")
    judged = set()
    for host, folder, rate in hosts:
        m_one = rate.get(("exact", "one process", 1))
        for gpus, target in ((2, TWO_GPU_TARGET), (4, FOUR_GPU_TARGET)):
            m_n = rate.get(("exact", "one process", gpus))
            if not (m_one and m_n):
                continue
            judged.add(gpus)
            ranks = rate.get(("exact", "MPI ranks, one GPU each", gpus))
            text.append(f"On the host with {max(k[2] for k in rate)} GPUs ({host}), {gpus} GPUs in one process made "
                        f"{m_n:.2f} evaluations per second against one GPU's {m_one:.2f} in the same run: "
                        f"{m_n / m_one:.2f} times as many, " + ("within" if m_n / m_one >= target else "short of")
                        + f" the target of {target:g} times"
                        + (f"; {gpus} MPI ranks of one GPU each made {ranks / m_one:.2f} times as many." if ranks else "."))
        limit = _compressed_limit(files, folder, rate, host)
        if limit:
            text.append(limit)
    if 2 in judged:
        text.append("Where the rest of the other GPUs' share goes is not measured apart; the parts of an evaluation "
                    "that run on the host (each candidate's stream skip thresholds) and pagmo's step between "
                    "generations are the candidates.")
    for gpus in (2, 4):
        if gpus not in judged:
            text.append(f"No host with {gpus} GPUs recorded fit_scaling, so the {gpus}-GPU target is not judged.")
    if missing:
        text.append(f"The runs on {', '.join(str(g) for g in missing)} GPUs are not recorded: no host with that many "
                    "GPUs was measured.")
    # The cost of one evaluation inside the fit against the modern-f64 integral alone (modern.csv, same host).
    integral_ms = medians(files.rows("modern"), "integral_ms").get((MODERN_F64, "3s-large"))
    if one and integral_ms:
        ratio = 1000.0 / one / integral_ms
        text.append(f"One evaluation inside the fit costs {1000.0 / one:.1f} ms of wall time on one GPU, {ratio:.2f} "
                    f"times the modern-f64 integral alone ({integral_ms:.1f} ms, modern.csv of the same host): "
                    + (f"within the target of {COST_TARGET:g} times." if ratio <= COST_TARGET else
                       f"above the target of {COST_TARGET:g} times."))
    else:
        text.append("The modern-f64 integral time of the unit was not recorded, so the cost ratio is not given.")
    multi_folders = list(available(facts.scaling_folders))
    hosts = []
    for d in multi_folders:
        found = {name: files.optional(name, d) for name in BATCHED_SCALING}
        # The report of each algorithm's run on one GPU of one process (its phases), where it was recorded.
        one_gpu = {}
        for name, rows in found.items():
            for r in rows or ():
                path = d / f"{name}_report_{r['work_unit']}_{r['devices']}_{r['ranks']}.json"
                if _mode(r) == "one process" and _gpus(r) == 1 and path.exists():
                    one_gpu[r["algorithm"]] = files.file(path)
        hosts.append((d.parent.name, found, one_gpu))
    batched, recorded = batched_scaling_text(hosts)
    if not recorded:
        ctx.fallback("fit_scaling_batched", "fit_scaling_batched or fit_scaling_cmaes was not recorded on a host with "
                     "several GPUs", [files.path(name, d) for d in multi_folders for name in BATCHED_SCALING])
    text.append(batched)
    ctx.tables["para_fit_scaling"] = " ".join(text) + "\n"


def evaluation_phases(rep):
    """Per evaluation, from a fit report's phase_seconds: {"ratio": an evaluation over its integral, "evaluation_ms",
    "integral_ms", "prepare_ms": the preparation an evaluation waited for (phase 'prepare': the model and whatever of
    the device's preparation was not done ahead; None where the report has no such phase)}; None without the
    evaluation count, the integral's or the evaluation's time."""
    p, n = rep.get("phase_seconds") or {}, rep.get("evaluations")
    if not (n and p.get("integral") and p.get("evaluation")):
        return None
    return {"ratio": p["evaluation"] / p["integral"], "evaluation_ms": 1e3 * p["evaluation"] / n,
            "integral_ms": 1e3 * p["integral"] / n, "prepare_ms": 1e3 * p["prepare"] / n if "prepare" in p else None}


def _one_gpu_phases(one_gpu):
    """On one GPU, from each algorithm's fit report (@p one_gpu: {algorithm: report}, evaluation_phases): the
    preparation an evaluation waited for, an evaluation against its integral, and the integral's own milliseconds,
    per evaluation. Empty without both algorithms' phases."""
    a, b = (evaluation_phases(one_gpu.get(algorithm) or {}) for algorithm in ("cmaes", "cmaes-batch"))
    if not a or not b or a["prepare_ms"] is None or b["prepare_ms"] is None:
        return ""
    return (f" (on one GPU an evaluation waited {a['prepare_ms']:.2f} ms for its candidate's preparation with cmaes and "
            f"{b['prepare_ms']:.2f} ms with cmaes-batch, whose next candidate is prepared while the kernels run, an "
            f"evaluation {a['ratio']:.3f} and {b['ratio']:.3f} times its integral; the integrals themselves took "
            f"{a['integral_ms']:.2f} and {b['integral_ms']:.2f} ms an evaluation, the two searches visiting other "
            "candidates, whose integrals cost more or less with their parameters)")


def batched_scaling_text(hosts):
    """The sentence on fit_scaling_batched and fit_scaling_cmaes from @p hosts, [(host, {name: rows or None},
    {algorithm: the fit report of its run on one GPU})] of the folders of hosts with several GPUs: per host that
    recorded both, each algorithm's evaluations per second on one GPU and on two, as one process and (cmaes-batch)
    as two MPI ranks, each against one GPU of the same run; and, from the one-GPU reports' phases, what an
    evaluation spends outside its integral and what the integral itself costs with each algorithm.
    Returns (text, whether any host recorded both)."""
    parts = []
    for host, found, one_gpu in hosts:
        if not all(found.get(name) for name in BATCHED_SCALING):
            continue
        rate = {}
        for name in BATCHED_SCALING:
            for r in found[name]:
                rate[(r["algorithm"], _mode(r), _gpus(r))] = float(r["evaluations_per_second"])
        said = []
        for algorithm, who in (("cmaes", "pagmo's cmaes (one candidate at a time)"),
                               ("cmaes-batch", "cmaes-batch (a generation one batch)")):
            one = rate.get((algorithm, "one process", 1))
            if not one:
                continue
            more = [f"{rate[(algorithm, mode, 2)]:.1f} on two GPUs {how} ({rate[(algorithm, mode, 2)] / one:.2f} times)"
                    for mode, how in (("one process", "of one process"), ("MPI ranks, one GPU each", "as two MPI ranks"))
                    if (algorithm, mode, 2) in rate]
            said.append(f"{who} {one:.1f} evaluations per second on one GPU" + (", " + " and ".join(more) if more else
                                                                                   ", not run on two GPUs"))
        if said:
            parts.append(f"on {host}, " + "; ".join(said) + _one_gpu_phases(one_gpu))
    if not parts:
        return ("The global search of the 3-stream small unit with cmaes-batch and with pagmo's cmaes on one and two "
                "GPUs (fit_scaling_batched, fit_scaling_cmaes) was not recorded on a host with several GPUs.", False)
    return ("The 3-stream small unit's global search with a population of 16 "
            "(fit_scaling_batched, fit_scaling_cmaes; one run each, the same start, box and seed): "
            + "; ".join(parts) + ".", True)



# A projection, not a measurement: the fit over several hosts, from the two-GPU host's per-generation times and
# the MPI messages' sizes, over an interconnect whose latency and bandwidth are assumed (paper/mwsep/projection.json
# names each assumption). Each generation is one batch of the population: rank 0 broadcasts the batch (the
# population's parameter vectors, 8 bytes each) and gathers one likelihood per candidate (src/mwsep/fit/ranks_mpi.cpp).
PROJECTION_FILE = pathlib.Path(__file__).resolve().parents[1] / "projection.json"


def _generation_seconds(files, folder):
    """{evaluator: median wall seconds of a generation after the first} of a folder's fit_scaling_progress."""
    by = {}
    for g in files.rows("fit_scaling_progress", folder):
        by.setdefault(g["evaluator"], []).append((int(g["generation"]), float(g["seconds"])))
    return {ev: statistics.median(t1 - t0 for (_, t0), (_, t1) in zip(sorted(gs), sorted(gs)[1:]))
            for ev, gs in by.items() if len(gs) > 1}


def projection_model(t_one, t_two, t_ranks, population):
    """The two-point model of a generation's wall time on n GPUs of one host, T(n) = ceil(P/n) e + c, from
    the measured T(1) (@p t_one) and T(2) (@p t_two) of one process, P = @p population (even); and the cost m of
    dealing the batch to two MPI ranks instead of two threads of one process (@p t_ranks - @p t_two). Returns
    (e, c, m): seconds per candidate on one GPU, fixed seconds per generation, MPI seconds per generation."""
    if population % 2:
        raise ValueError("the two-point model needs an even population")
    e = (t_one - t_two) / (population - population // 2)
    return e, t_one - population * e, t_ranks - t_two


def projected_generation(e, c, m, population, width, hosts, gpus_per_host, latency_s, bandwidth_b_s):
    """Projected wall seconds of one generation on @p hosts hosts of @p gpus_per_host GPUs, one MPI rank per
    GPU: the busiest rank's candidates, the measured fixed and on-host MPI costs, and, between hosts, a
    binomial-tree broadcast of the batch and gather of the likelihoods (ceil(log2 hosts) steps each)."""
    ranks = hosts * gpus_per_host
    steps = math.ceil(math.log2(hosts)) if hosts > 1 else 0
    send = population * width * 8 + 16      # the vectors and the batch's two-number header
    back = population * 8
    network = steps * (2 * latency_s + (send + back) / bandwidth_b_s)
    return math.ceil(population / ranks) * e + c + (m if ranks > 1 else 0.0) + network


def _projection(ctx, facts):
    files = facts.files
    multi_dir = available(facts.multi_folder)
    name = "table_fit_projection"
    if multi_dir is None or files.optional("fit_scaling", multi_dir) is None:
        ctx.fallback(name, "no host with two GPUs recorded fit_scaling", [files.path("fit_scaling")])
        ctx.tables[name] = ""
        ctx.tables["para_fit_projection"] = ("The projection to several hosts needs the two-GPU host's fit_scaling, "
                                            "which was not recorded.\n")
        return
    sc = files.rows("fit_scaling", multi_dir)
    gen = _generation_seconds(files, multi_dir)

    def one(pred):
        hit = [r for r in sc if pred(r)]
        if not hit or hit[0]["evaluator"] not in gen:
            raise MissingData(f"{rel(multi_dir)}/fit_scaling_progress.csv: a run the projection needs is missing",
                              [multi_dir / "fit_scaling_progress.csv"])
        return hit[0], gen[hit[0]["evaluator"]]

    r1, t1 = one(lambda r: int(r["ranks"]) == 1 and r["devices"] == "0")
    _, t2 = one(lambda r: int(r["ranks"]) == 1 and len(r["devices"].split(",")) == 2)
    _, t2r = one(lambda r: int(r["ranks"]) == 2)
    population, width = int(r1["population"]), int(r1["parameters"])
    e, c, m = projection_model(t1, t2, t2r, population)
    spec = json.loads(PROJECTION_FILE.read_text())
    nets = spec["interconnects"]
    body = []
    for label, per_gpu in (("fixed", None), ("grown", spec["candidates_per_gpu"])):
        for hosts in spec["hosts"]:
            gpus = hosts * spec["gpus_per_host"]
            p = population if per_gpu is None else per_gpu * gpus
            rates = []
            for net in nets:
                t = projected_generation(e, c, m, p, width, hosts, spec["gpus_per_host"], net["latency_us"] * 1e-6,
                                         net["bandwidth_gb_s"] * 1e9)
                rates.append(p / t)
            base = p / (p * e + c)  # the same population on one GPU of one host
            body.append([str(hosts), str(gpus), f"{p} ({label})" if per_gpu is None else f"{p} ({per_gpu} per GPU)"] + [f"{r:.1f}" for r in rates]
                        + [f"{rates[0] / base:.1f}", f"{100 * rates[0] / base / gpus:.0f}"])
    ctx.tables[name] = table(
        "Table R@: PROJECTION, not a measurement: evaluations per second of the fit's global search on the 3-stream "
        f"large unit over several hosts of {spec['gpus_per_host']} GPUs, one MPI rank per GPU, from a two-point model "
        f"fitted to the two-GPU host's generations ({multi_dir.parent.name}) and assumed interconnects "
        f"({'; '.join(n['name'] + ': ' + str(n['latency_us']) + ' us, ' + str(n['bandwidth_gb_s']) + ' GB/s' for n in nets)}); "
        "the population fixed at the experiment's or grown with the GPUs; speed-up and efficiency against the same "
        f"population on one GPU, over the first interconnect",
        ["hosts", "GPUs", "population"] + [f"per second, {n['name']}" for n in nets] + ["speed-up", "efficiency %"],
        body)
    ctx.tables["para_fit_projection"] = (
        f"On the two-GPU host a generation of {population} candidates took {t1:.3f} s on one GPU and {t2:.3f} s on two "
        f"in one process (medians of its generations after the first), and {t2r:.3f} s on two MPI ranks. The model "
        f"T(n) = ceil(P/n) e + c through the first two gives e = {1000 * e:.1f} ms per candidate and c = "
        f"{1000 * c:.1f} ms per generation that does not divide (the search's own step and the dealing); two ranks "
        f"instead of two threads cost {1000 * m:.1f} ms more per generation. Between hosts a generation adds a "
        f"broadcast of {population * width * 8 + 16} bytes and a gather of {population * 8} bytes for "
        f"{population} candidates of {width} parameters, in ceil(log2 H) steps; the on-host cost of the ranks is "
        "taken as measured with two of them, whatever their number. With the experiment's population "
        "the speed-up stops growing once every GPU holds one candidate; a search over many hosts needs a population "
        "that grows with them. These are projections from the model and the assumptions named in the table, not "
        "measurements: no run over several hosts was made.\n")


# The single-precision fit finds the double-precision fit's optimum when its optimum's double-precision ln
# likelihood is within this of the double-precision fit's (the settled criterion above) and every parameter within
# this many of the double-precision fit's standard deviations of it.
SAME_OPTIMUM_SIGMAS = 0.5


def _single_precision(ctx, facts):
    """The recovery fits again with the single-precision kernel (fit_recovery_f32) against fit_recovery: the
    optimum's likelihood in double precision, the parameters and the uncertainties. Thesis 4.3 and 4.5:
    'double precision is required'."""
    n = ctx.n
    f32 = facts.files.optional("fit_recovery_f32")
    f64 = {r["work_unit"]: r for r in facts.files.optional("fit_recovery") or []}
    if not f32 or not f64:
        ctx.fallback("fit_f32_verdict", "fit_recovery_f32 or fit_recovery was not recorded",
                     [facts.files.path("fit_recovery_f32" if not f32 else "fit_recovery")])
        n["fit_f32_verdict"] = "not recorded on this GPU"
        ctx.tables["para_fit_f32"] = ("The recovery fits in single precision (experiment fit_recovery_f32) were not "
                                      "recorded on this GPU" + ("" if f64 else ", nor those in double precision") + ".\n")
        ctx.tables["table_fit_f32"] = ""
        return
    body, verdicts, outcomes = [], [], []
    for r in sorted(f32, key=lambda r: r["work_unit"]):
        wu = r["work_unit"]
        if wu not in f64:
            continue
        single, double = _report(facts, "fit_recovery_f32", wu), _report(facts, "fit_recovery", wu)
        stars = int(single["stars"])
        # In double precision: the single-precision optimum against the double-precision fit's optimum (ln L).
        gap = ln_difference(stars, float(r["f64_likelihood"]) - float(f64[wu]["likelihood"]))
        # The single-precision fit's own value against its double-precision re-evaluation (ln L).
        rounding = ln_difference(stars, float(r["f64_difference"]))
        shifts, ratios = [], []
        for name, p in double["parameters"].items():
            q = single["parameters"].get(name)
            if q is None:
                continue
            if p.get("sigma") and math.isfinite(p["sigma"]) and p["sigma"] > 0:
                shifts.append((abs(q["best"] - p["best"]) / p["sigma"], name))
                if q.get("sigma") and math.isfinite(q["sigma"]):
                    ratios.append(q["sigma"] / p["sigma"])
        worst = max(shifts) if shifts else None
        pulls = [abs(p["pull"]) for p in single["parameters"].values() if p.get("pull") is not None]
        # Every parameter's distance from the double-precision fit's as a share of its search box (the range).
        spread = max(((abs(single["parameters"][k]["best"] - p["best"]) / (p["upper"] - p["lower"]), k)
                      for k, p in double["parameters"].items() if k in single["parameters"] and p["upper"] > p["lower"]),
                     default=(0.0, "none"))
        if gap < -SETTLED_LN_L:
            outcomes.append("worse")
            verdicts.append(f"{wu}: a worse optimum ({gap:+.2f} in ln likelihood)")
        elif gap > SETTLED_LN_L:
            outcomes.append("better")
            verdicts.append(f"{wu}: a better optimum than the double-precision search found ({gap:+.2f} in ln likelihood)")
        elif worst is None:
            outcomes.append("same likelihood")
            verdicts.append(f"{wu}: an optimum as likely (parameters not compared in sigmas: the double-precision fit "
                            f"has no uncertainties; the largest shift is {100 * spread[0]:.2g} % of {spread[1]}'s range)")
        elif worst[0] <= SAME_OPTIMUM_SIGMAS:
            outcomes.append("same")
            verdicts.append(f"{wu}: the same optimum")
        else:
            outcomes.append("apart")
            verdicts.append(f"{wu}: an optimum as likely, parameters apart (up to {worst[0]:.2f} sigma, {worst[1]})")
        body.append([wu, r["evaluations"], f"{float(r['seconds']):.1f}", f"{float(f64[wu]['seconds']):.1f}",
                     f"{float(r['likelihood']):.8f}", f"{float(r['f64_likelihood']):.8f}",
                     f"{float(f64[wu]['likelihood']):.8f}", f"{rounding:+.3f}", f"{gap:+.3f}",
                     f"{worst[0]:.2f} ({worst[1]})" if worst else "n/a", f"{100 * spread[0]:.2g} ({spread[1]})",
                     (f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else
                      "no maximum in single precision" if not single["positive_definite"] else "n/a"),
                     f"{max(pulls):.2f}" if pulls and single["positive_definite"] else "n/a"])
    if not body:
        raise MissingData("fit_recovery_f32.csv and fit_recovery.csv: no work unit fitted both ways",
                          [facts.files.path("fit_recovery_f32"), facts.files.path("fit_recovery")])
    if "worse" in outcomes:
        lead = "confirmed here: single precision ends on a worse optimum ("
    elif set(outcomes) <= {"same", "same likelihood", "better"}:
        lead = "not confirmed for this search: in single precision the fits end on optima as likely in double precision ("
    else:
        lead = "partly: the optima are as likely in double precision, but the parameters differ ("
    n["fit_f32_verdict"] = lead + "; ".join(verdicts) + ")"
    ctx.tables["table_fit_f32"] = table(
        "Table R@: the recovery fits in single precision (modern-f32, the settings of fit_recovery) against those in "
        "double precision: evaluations and seconds (single, double), the mean log10 likelihood L of the single-precision "
        "optimum in single precision and again in double precision, the double-precision fit's optimum, the "
        "single-precision value's rounding and the gap of the two optima in double precision (ln likelihood, N ln10 x "
        "the difference of L), the largest distance of a parameter from the double-precision fit's in its standard "
        "deviations and as a share of its search range, the range of the ratios of the uncertainties (single / double), and the largest pull against the "
        "truth.",
        ["work unit", "evaluations", "seconds", "seconds, double", "L single", "L single, in double", "L double fit",
         "rounding (ln L)", "gap (ln L)", "largest shift (sigma)", "largest shift (% of range)", "sigma ratio",
         "largest pull"], body, widths=[6, 7, 5, 6, 10, 10, 10, 6, 6, 9, 9, 9, 7])
    ctx.tables["para_fit_f32"] = (
        f"The thesis's premise that double precision is required (sections 4.3 and 4.5), tested in the search: "
        f"{n['fit_f32_verdict']}. An optimum counts as the same when its double-precision ln likelihood lies within "
        f"{SETTLED_LN_L:g} of the double-precision fit's and every parameter within {SAME_OPTIMUM_SIGMAS:g} of its "
        "standard deviations.\n")


def build(ctx, facts):
    _recovery(ctx, facts)
    _scaling(ctx, facts)
    _projection(ctx, facts)
    _single_precision(ctx, facts)
