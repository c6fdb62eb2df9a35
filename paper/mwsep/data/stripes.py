"""Chapter 'Fitting the real stripes' (77-stripes.md): the fits of the 2009 work units of stripes 11, 20 and 86 to
their SDSS catalogues (fit_stripes: a row, a report and, for the fits from MilkyWay@Home's vector, a separation of
the stars per fit), the search methods compared on stripe 20 (fit_search_methods and its progress) and the thesis's
costs re-derived (stripe_costs_cpu, stripe_costs_gpu and the stripe-86 fits, through paper/mwsep/stripes_costs.py).

Every number, and every word that depends on one (within the time target or not, at MilkyWay@Home's likelihood or
not, a maximum or flat directions), comes from those files. Each part stands alone: a part whose experiment was not
recorded on this GPU says so, and records the fallback with the result files it would rest on (the runs its
definition declares), so that tools/check_report.py fails the report if those files are there."""
import json
import math

from paper.report.common import ROOT, MissingData, fmt, rel, table

from .. import stripes_costs
from ..facts import stripe_fit_tag
from .fitting import ln_difference

DEFINITIONS = ROOT / "experiments" / "definitions" / "mwsep"
# The time a whole fit of one stripe from one start may take on one GPU (the fits' specification).
SECONDS_TARGET = 60.0
# A component of a flat direction is named when its magnitude reaches this (a unit vector's share).
DIRECTION_SHOWN = 0.3
START_LABEL = {"reference": "MilkyWay@Home's vector", "blind": "the blind start"}


def declared(name):
    """[(work unit, start, tag, separate)] of every fit experiments/definitions/mwsep/<name>.json declares, in its
    order (the defaults of kind fit_stripe filled in)."""
    d = json.loads((DEFINITIONS / f"{name}.json").read_text())
    out = []
    for run in d["runs"]:
        for wu in run["work_units"]:
            row = {"work_unit": wu, "start": run.get("start", "reference"),
                   "algorithm": run.get("algorithm", "cmaes") + (f" ({run['label']})" if run.get("label") else "")}
            out.append((wu, row["start"], stripe_fit_tag(row), bool(run.get("separate", False))))
    return out


def stripes():
    """The stripes fit_stripes declares, in its order: the chapter has a table for each."""
    return list(dict.fromkeys(wu for wu, *_ in declared("fit_stripes")))


def table_name(wu):
    return "table_fit_" + wu.split("-")[0]


def _short(wu):
    return wu.replace("-2009", "").replace("stripe", "stripe ")


def _gpu(facts):
    return facts.files.results.parent.name


def _not_recorded(facts, experiment):
    return (f"*Not measured on this GPU ({_gpu(facts)}): the experiment `{experiment}` was not recorded in "
            f"{rel(facts.files.results)}.*\n")


def _report(facts, name, row):
    tag = stripe_fit_tag(row)
    found = facts.reports.get((name, tag), ())
    if not found:
        path = facts.files.results / f"{name}_report_{tag}.json"
        raise MissingData(f"{rel(path)}: the report of this fit is missing", [path])
    return facts.files.file(found[0])


def _value(v):
    return f"{v:.6g}"


def _with_sigma(p):
    s = p.get("sigma")
    if s is None or not math.isfinite(s) or s <= 0:
        return f"{_value(p['best'])} (no sigma)"
    return f"{_value(p['best'])} ({s:.2g})"


def _flat(rep):
    """The flat directions of the Hessian at the fit, each by its largest components."""
    out = []
    for k, d in sorted((rep.get("flat_directions") or {}).items(), key=lambda kv: kv[1]["eigenvalue"]):
        shown = [f"{v:+.2f} {name}" for name, v in sorted(d["direction"].items(), key=lambda kv: -abs(kv[1]))
                 if abs(v) >= DIRECTION_SHOWN]
        out.append(f"eigenvalue {d['eigenvalue']:.3g}" + (f", mostly {', '.join(shown)}" if shown else ""))
    return out


def _why_slow(rep):
    return (f"the global search took {rep['global_seconds']:.1f} s, the polishes {rep['polish_seconds']:.1f} s and the "
            f"Hessian {rep['hessian_seconds']:.1f} s, at {1000 * rep['seconds_per_evaluation']:.1f} ms per evaluation")


def _why_below(rep):
    params = rep["parameters"]
    at_edge = [name for name, p in params.items()
               if min(p["best"] - p["lower"], p["upper"] - p["best"]) <= 1e-6 * (p["upper"] - p["lower"])]
    polishes = rep.get("polishes", {})
    stops = "; ".join(f"the polish from the {frm} by its {p['stopped_by']} after {p['evaluations']} evaluations"
                      for frm, p in polishes.items())
    # pagmo's algorithms run their generations and name no stop; the thesis's searches say what stopped them.
    search = (f"the global search stopped by its {rep['search_stopped_by']}" if rep.get("search_stopped_by")
              else f"the global search ran its {rep['generations']} generations")
    return (search + (f", {stops}" if stops else "")
            + f"; {len(at_edge)} of {len(params)} parameters ended on the edge of the search box"
            + (f" ({', '.join(at_edge)})" if at_edge else ""))


def _fits(ctx, facts):
    n, files = ctx.n, facts.files
    n["stripes_seconds_target"] = f"{SECONDS_TARGET:g}"
    rows = files.optional("fit_stripes")
    if rows is None:
        ctx.fallback("table_stripes_fits", "fit_stripes was not recorded", [files.path("fit_stripes")])
        ctx.tables["table_stripes_fits"] = _not_recorded(facts, "fit_stripes")
        ctx.tables["para_stripes_fits"] = ""
        for wu in stripes():
            ctx.fallback(table_name(wu), "fit_stripes was not recorded", [files.path("fit_stripes")] + [
                files.results / f"fit_stripes_report_{tag}.json" for u, _, tag, _ in declared("fit_stripes") if u == wu])
            ctx.tables[table_name(wu)] = f"*{_short(wu).capitalize()}: not measured on this GPU ({_gpu(facts)}).*\n"
        n["stripes_fits_outcome"] = f"the fits were not run on this GPU ({_gpu(facts)})"
        return
    order = {wu: i for i, wu in enumerate(stripes())}
    rows = sorted(rows, key=lambda r: (order.get(r["work_unit"], len(order)), r["work_unit"], r["start"] != "reference",
                                       r["start"], r["algorithm"]))
    body, lines = [], []
    fast = above = 0
    for r in rows:
        rep = _report(facts, "fit_stripes", r)
        stars = int(rep["stars"])
        seconds, exact, ref = float(r["seconds"]), float(r["exact_likelihood"]), float(r["reference_exact_likelihood"])
        gain = ln_difference(stars, exact - ref)
        within = seconds <= SECONDS_TARGET
        reached = exact >= ref
        fast += within
        above += reached
        flat = _flat(rep)
        hessian = ("a maximum" if r["positive_definite"] == "yes" else
                   f"no maximum, {len(flat)} flat direction{'s' if len(flat) != 1 else ''}")
        body.append([_short(r["work_unit"]), START_LABEL.get(r["start"], r["start"]), r["algorithm"], r["evaluations"],
                     f"{seconds:.1f}", f"{float(r['process_seconds']):.1f}", "yes" if within else "no",
                     f"{exact:.8f}", f"{ref:.8f}", f"{gain:+.2f}", "yes" if reached else "no",
                     "yes" if r["positive_definite"] == "yes" else "no"])
        text = (f"- **{_short(r['work_unit'])}, from {START_LABEL.get(r['start'], r['start'])}** ({len(rep['parameters'])} "
                f"parameters, {stars} stars; {rep['algorithm']} with a population of {rep['population']} for "
                f"{rep['generations']} generations, then the polishes and the Hessian): the fit took {seconds:.1f} s, ")
        text += (f"within the target of {SECONDS_TARGET:g} s" if within else
                 f"over the target of {SECONDS_TARGET:g} s: {_why_slow(rep)}")
        text += (f". Its optimum's ln likelihood by the exact sum lies {gain:.2f} above that of MilkyWay@Home's vector"
                 if reached else
                 f". Its optimum's ln likelihood by the exact sum lies {-gain:.2f} below that of MilkyWay@Home's vector: "
                 + _why_below(rep))
        text += (". The Hessian shows a maximum" if r["positive_definite"] == "yes" else
                 ". The Hessian shows no maximum")
        text += (f"; flat directions: {'; '.join(flat)}." if flat else ".")
        lines.append(text)
    header = ["stripe", "start", "search", "evaluations", "fit (s)", "run (s)", "within target", "L optimum",
              "L MilkyWay@Home", "ln L difference", "reached", "maximum"]
    # One search for every fit is named in the caption instead of a column that repeats it (the PDF sets the
    # table's numbers in full only with a column fewer).
    at = header.index("search")
    searches = sorted({row[at] for row in body})
    one_search = f", every one searched by {searches[0]}" if len(searches) == 1 else ""
    if one_search:
        header.pop(at)
        body = [row[:at] + row[at + 1:] for row in body]
    ctx.tables["table_stripes_fits"] = table(
        f"Table R@: the fits of the real stripes on one GPU ({_gpu(facts)}){one_search}, from MilkyWay@Home's vector "
        "(in a box of a tenth of each parameter's range around it) and from the blind start (the centre of the 2009 "
        "file's bounds, in the box of those bounds): evaluations and seconds of the fit (search, polishes, Hessian), "
        f"seconds of the whole run (files in, report out), whether the fit took at most {SECONDS_TARGET:g} s, the mean "
        "log10 likelihood L of the optimum and of MilkyWay@Home's vector by the exact sum, their difference in ln "
        "likelihood (N ln10 x the difference of L), whether the optimum reaches MilkyWay@Home's likelihood, and "
        "whether the Hessian shows a maximum.", header, body)
    ctx.tables["para_stripes_fits"] = "\n".join(lines) + "\n"
    n["stripes_fits_outcome"] = (
        f"{fast} of the {len(rows)} fits recorded on this GPU ({_gpu(facts)}) took at most {SECONDS_TARGET:g} s, and "
        f"{above} of {len(rows)} reached the likelihood of MilkyWay@Home's vector")
    for wu in stripes():
        mine = [r for r in rows if r["work_unit"] == wu]
        if not mine:
            ctx.fallback(table_name(wu), f"fit_stripes holds no fit of {wu}", [
                files.results / f"fit_stripes_report_{tag}.json" for u, _, tag, _ in declared("fit_stripes") if u == wu])
            ctx.tables[table_name(wu)] = f"*{_short(wu).capitalize()}: not measured on this GPU ({_gpu(facts)}).*\n"
            continue
        ctx.tables[table_name(wu)] = _stripe_table(facts, wu, mine)


def _stripe_table(facts, wu, mine):
    reps = [_report(facts, "fit_stripes", r) for r in mine]
    header = ["", "MilkyWay@Home's vector"] + [f"fit from {START_LABEL.get(r['start'], r['start'])} ({r['algorithm']})"
                                               for r in mine]
    body = [["fit (s)", "-"] + [f"{float(r['seconds']):.1f}" for r in mine],
            ["whole run (s)", "-"] + [f"{float(r['process_seconds']):.1f}" for r in mine],
            ["evaluations", "-"] + [r["evaluations"] for r in mine],
            ["L, exact sum", f"{float(mine[0]['reference_exact_likelihood']):.8f}"] +
            [f"{float(r['exact_likelihood']):.8f}" for r in mine],
            ["ln L against MilkyWay@Home's", "0"] +
            [f"{ln_difference(int(rep['stars']), float(r['exact_likelihood']) - float(r['reference_exact_likelihood'])):+.2f}"
             for r, rep in zip(mine, reps)],
            ["Hessian", "-"] + ["maximum" if r["positive_definite"] == "yes" else "no maximum" for r in mine],
            ["flat directions", "-"] + [str(len(rep.get("flat_directions") or {})) for rep in reps]]
    for name, p in reps[0]["parameters"].items():
        cells = [f"`{name}`", _value(p["reference"]) if "reference" in p else "-"]
        for rep in reps:
            q = rep["parameters"].get(name)
            cells.append(_with_sigma(q) if q else "-")
        body.append(cells)
    return table(
        f"Table R@: {_short(wu)} (the 2009 work unit on its full-size grid, {reps[0]['stars']} SDSS stars): each fit's "
        "time, evaluations and likelihood by the exact sum beside MilkyWay@Home's vector's, whether the Hessian shows "
        "a maximum and how many directions are flat, then every parameter: MilkyWay@Home's value and each fit's, with "
        "its standard deviation from the Hessian in brackets.", header, body)


def _methods(ctx, facts):
    files = facts.files
    rows = files.optional("fit_search_methods")
    if rows is None:
        ctx.fallback("table_stripes_methods", "fit_search_methods was not recorded", [files.path("fit_search_methods")])
        ctx.tables["table_stripes_methods"] = _not_recorded(facts, "fit_search_methods")
        ctx.n["stripes_methods_outcome"] = f"the comparison was not run on this GPU ({_gpu(facts)})"
        return
    progress = files.rows("fit_search_methods_progress")
    body = []
    for r in sorted(rows, key=lambda r: r["algorithm"]):
        mine = sorted((int(g["generation"]), int(g["evaluations"]), float(g["best_likelihood"])) for g in progress
                      if g["algorithm"] == r["algorithm"] and g["work_unit"] == r["work_unit"]
                      and g.get("start", r["start"]) == r["start"])
        ref = float(r["reference_likelihood"])
        reached = next((e for _, e, b in mine if b >= ref), None)
        stars = int(_report(facts, "fit_search_methods", r)["stars"])
        gain = ln_difference(stars, float(r["exact_likelihood"]) - float(r["reference_exact_likelihood"]))
        body.append([r["algorithm"], r["evaluations"], f"{float(r['global_seconds']):.1f}", f"{float(r['likelihood']):.8f}",
                     f"{float(r['exact_likelihood']):.8f}", f"{gain:+.2f}",
                     str(reached) if reached is not None else "not reached"])
    best = max(body, key=lambda b: float(b[4]))
    ctx.tables["table_stripes_methods"] = table(
        f"Table R@: the search methods on {_short(rows[0]['work_unit'])} from MilkyWay@Home's vector over the whole box "
        f"of the 2009 file's bounds, one GPU ({_gpu(facts)}), no polish and no Hessian: evaluations and seconds of the "
        "search, the best mean log10 likelihood L it found (compressed quadrature) and the same point's L by the exact "
        "sum, its ln likelihood against MilkyWay@Home's vector's (exact sums), and the evaluations after which its best "
        "first reached the likelihood of MilkyWay@Home's vector (compressed quadrature, as the search saw it).",
        ["search", "evaluations", "seconds", "L (compressed)", "L (exact sum)", "ln L against MilkyWay@Home's",
         "reached MilkyWay@Home's after"], body)
    ctx.n["stripes_methods_outcome"] = (
        f"of the {len(body)} searches, {best[0]} ended highest ({best[5]} in ln likelihood against MilkyWay@Home's "
        f"vector), and {sum(1 for b in body if b[6] != 'not reached')} reached MilkyWay@Home's likelihood within their "
        "evaluations")


def _separation(ctx, facts):
    files = facts.files
    rows = files.optional("fit_stripes") or []
    found = [(r, facts.reports[("fit_stripes_separation", stripe_fit_tag(r))][0]) for r in rows
             if facts.reports.get(("fit_stripes_separation", stripe_fit_tag(r)))]
    if not found:
        ctx.fallback("table_stripes_separation", "no separation of a fitted stripe was recorded",
                     [files.path("fit_stripes")] + [files.results / f"fit_stripes_separation_summary_{tag}.json"
                                                    for _, _, tag, sep in declared("fit_stripes") if sep])
        ctx.tables["table_stripes_separation"] = _not_recorded(facts, "fit_stripes")
        ctx.tables["para_stripes_separation"] = ""
        return
    body, lines, labelled = [], [], []
    for r, path in found:
        s = files.file(path)
        stars = int(s["stars"])
        for name, c in s["components"].items():
            body.append([_short(r["work_unit"]), name, fmt(float(c["expected_stars"]), 4), c["most_likely_stars"],
                         f"{100 * int(c['most_likely_stars']) / stars:.1f}"])
        lines.append(f"- **{_short(r['work_unit'])}** ({stars} stars, under the fit from "
                     f"{START_LABEL.get(r['start'], r['start'])}): the rule \"most likely component\" is expected to "
                     f"assign {100 * float(s['expected_correct_fraction']):.1f} % of the stars correctly (the mean of "
                     f"each star's largest probability); {s['unexplained_stars']} stars are explained by no component.")
        if "correct_fraction" in s:
            labelled.append(f"{_short(r['work_unit'])}: {100 * float(s['correct_fraction']):.1f} % assigned correctly "
                            f"against {100 * float(s['expected_correct_fraction']):.1f} % expected")
    text = "\n".join(lines) + "\n\n"
    text += (("Against true memberships: " + "; ".join(labelled) + ".\n") if labelled else
             "None of these separations is of a catalogue whose true memberships are known (the SDSS stars carry "
             "none); the check against known memberships is made on drawn catalogues by the tests of "
             "`tests/mwsep/test_separate.cpp`.\n")
    ctx.tables["para_stripes_separation"] = text
    ctx.tables["table_stripes_separation"] = table(
        f"Table R@: the stars of each separated stripe by component, under the fit from MilkyWay@Home's vector (one "
        f"GPU, {_gpu(facts)}): the number of stars the model expects in it (the sum of their probabilities), the stars "
        "whose most likely component it is, and their share of the catalogue (%).",
        ["stripe", "component", "expected stars", "most likely", "share %"], body)


def _costs(ctx, facts):
    n, files = ctx.n, facts.files
    then = stripes_costs.thesis(facts.published["claims"])
    n["stripes_thesis_hours"] = f"{then['likelihood_seconds'] / stripes_costs.HOUR:g}"
    n["stripes_thesis_likelihoods"] = f"{then['fit_likelihoods']:,}"
    n["stripes_thesis_days"] = f"{then['fit_seconds'] / stripes_costs.DAY:g}"
    unit = stripes_costs.UNIT
    cpu_rows = files.optional("stripe_costs_cpu")
    gpu_rows = files.optional("stripe_costs_gpu", check_valid=False)
    fit_rows = files.optional("fit_stripes")
    body, measured = [], []
    hours = f"{then['likelihood_seconds'] / stripes_costs.HOUR:g} h on one 2009 CPU core"

    def add(what, path, seconds, of):
        if seconds is None:
            body.append([what, hours, path, "not measured", "", ""])
            return
        measured.append((path, seconds))
        body.append([what, hours, path, fmt(seconds, 4), f"{fmt(then['likelihood_seconds'] / seconds, 3)}x",
                     fmt(then["fit_likelihoods"] * seconds, 3) if of else ""])

    def piece(get, rows, what, sources):
        """get(rows), or None with the fallback recorded (the result file, @p sources[0], and the files the part
        would rest on)."""
        if rows is None:
            ctx.fallback(what, f"{sources[0].name} was not recorded", sources)
            return None
        try:
            return get(rows)
        except stripes_costs.MissingResults as e:
            ctx.fallback(what, str(e), sources)
            return None
    cpu = piece(lambda rows: stripes_costs.one_core_seconds(rows, unit), cpu_rows, "stripes_costs_cpu",
                [files.path("stripe_costs_cpu")])
    gpu = piece(lambda rows: stripes_costs.gpu_seconds(rows, unit)[0], gpu_rows, "stripes_costs_gpu",
                [files.path("stripe_costs_gpu")])
    add("one likelihood", "one core, reference integrator", cpu and cpu["reference"], True)
    add("one likelihood", "one core, fast integrator", cpu and cpu["fast"], True)
    add("one likelihood", "one GPU, exact sum (modern-f64)", gpu and gpu["modern-f64"], True)
    add("one likelihood", "one GPU, compressed quadrature", gpu and gpu["compressed-f64"], True)
    # The whole fits' files: the fit results and the reports of the fits of the unit that the definition declares.
    fits = piece(lambda rows: stripes_costs.unit_fits(rows, unit), fit_rows, "stripes_costs_fit",
                 [files.path("fit_stripes")] + [files.results / f"fit_stripes_report_{tag}.json"
                                                for u, _, tag, _ in declared("fit_stripes") if u == unit])
    days = f"{then['fit_likelihoods']:,} likelihoods, {then['fit_seconds'] / stripes_costs.DAY:g} days"
    if fits is None:
        body.append(["one fit", days, "a whole fit on one GPU", "not measured", "", ""])
    else:
        for f in fits:
            body.append(["one fit", days, f"a whole fit on one GPU from {START_LABEL.get(f['start'], f['start'])}, "
                         f"{f['evaluations']} likelihoods", fmt(f["process_seconds"], 4),
                         f"{fmt(then['fit_seconds'] / f['process_seconds'], 3)}x", ""])
    ctx.tables["table_stripes_costs"] = table(
        f"Table R@: the thesis's costs against this GPU's host ({_gpu(facts)}), on the single-stream unit {unit} (its "
        "full-size grid, its SDSS catalogue): one likelihood then (the thesis's estimate for a single-stream model) "
        "and now by each path (one core's time of the integral; the GPU's kernels of one evaluation), the ratio of "
        f"then over now, and the {then['fit_likelihoods']:,} likelihoods of the thesis's fit by each path (s); then one "
        "whole fit then and now (the whole run, files in to report out).",
        ["what", "then (thesis)", "now", "seconds now", "then / now", f"{then['fit_likelihoods']:,} likelihoods (s)"],
        body)
    if measured or fits:
        parts = [f"{p}: {fmt(s, 4)} s" for p, s in measured]
        if fits:
            longest = max(f["process_seconds"] for f in fits)
            parts.append(f"the longest whole fit: {fmt(longest, 4)} s, {fmt(then['fit_seconds'] / longest, 3)} times less "
                         "than the thesis's fit")
        n["stripes_costs_outcome"] = "; ".join(parts)
    else:
        n["stripes_costs_outcome"] = f"none of these costs was recorded on this GPU's host ({_gpu(facts)})"


def build(ctx, facts):
    # A part whose files are there but incomplete (a report missing beside its row) is named in the study's status;
    # the other parts stand.
    missing = []
    for part in (_fits, _methods, _separation, _costs):
        try:
            part(ctx, facts)
        except MissingData as e:
            missing.append(e)
    if missing:
        raise MissingData("; ".join(str(e) for e in missing), [s for e in missing for s in e.sources])
