"""The real SDSS stripes: fits of the 2009 work units of stripes 11, 20 and 86 (data/workunits/stripe*-2009) to
their catalogues, beside the vector MilkyWay@Home's searches had reached, and the separation of their stars.

kind `fit_stripe`: per run and unit, one `mwsep fit` of the unit's real catalogue (STARS_FILES) with
`--reference` the unit's own search_parameters.txt (MilkyWay@Home's vector), from one of two starts:
  start "reference"  MilkyWay@Home's vector itself, in a box of +- `box` x each parameter's range around it;
  start "blind"      the centre of every parameter's bounds in the 2009 file (nothing of MilkyWay@Home's vector),
                     in the whole box of those bounds. Two streams with the same bounds (stripe 11's first two)
                     start identical there: the global search's random population and the polish's steps along
                     single parameters break that symmetry, a gradient search from there would not.
A `box` of 1 with start "reference" searches the whole box of the bounds from MilkyWay@Home's vector.
The fit runs with `integrator` (default compressed: compressed-f64 on the GPU) and, at its end, evaluates its
optimum and MilkyWay@Home's vector with the exact sum (modern-f64). With `separate`, the stars are then separated
under the fitted vector (`mwsep separate --integrator compressed`): the per-star CSV (6 significant digits) and its
JSON summary. Rows: <name>.csv (one per fit), <name>_progress.csv (one per generation, with the start), the
fit's report, its log, and the separation's files. A run with a `label` (the same algorithm with other settings,
e.g. simulated late results) is named "<algorithm> (<label>)" in the algorithm column of its rows.
"""
import csv
import json
import re
import subprocess
import time

from experiments.harness.kinds import Compare, Input, Kind, text_kind
from experiments.harness.provenance import ROOT
from experiments.harness.runner import Job

# The real catalogues of the stripe units: the SDSS files committed with the oracle cases (tests/data/oracle/stars).
STARS_FILES = {f"stripe{s}-2009": ROOT / "tests" / "data" / "oracle" / "stars" / f"stars-{s}.txt" for s in (11, 20, 86)}

COLUMNS = ["experiment", "work_unit", "start", "algorithm", "devices", "population", "generations", "evaluations",
           "global_evaluations", "global_seconds", "seconds", "process_seconds", "seconds_per_evaluation",
           "start_likelihood", "likelihood", "exact_likelihood", "exact_difference", "reference_likelihood",
           "reference_exact_likelihood", "above_reference", "positive_definite", "flat_directions",
           "search_stopped_by", "parameters", "evaluator"]
NUMERIC = {"population", "generations", "evaluations", "global_evaluations", "global_seconds", "seconds",
           "process_seconds", "seconds_per_evaluation", "start_likelihood", "likelihood", "exact_likelihood",
           "exact_difference", "reference_likelihood", "reference_exact_likelihood", "flat_directions", "parameters",
           "evaluate_s", "prepare_s", "integral_s", "likelihood_s", "best_likelihood", "evaluations"}
PROGRESS = ["experiment", "work_unit", "algorithm", "evaluator", "generation", "evaluations", "best_likelihood",
            "seconds", "prepare_s", "integral_s", "likelihood_s", "evaluate_s", "start"]
SEPARATION = ["star", "l", "b", "r", "mu", "nu", "most_likely"]

KINDS = {
    # A real stripe's fit: its time within 15 % per configuration; its progress, report and separation summary
    # as numbers (the best likelihood per generation and the likelihoods within 1e-6, relative).
    "fit_stripe": Kind(COLUMNS, key=["work_unit", "start", "algorithm", "devices"], value="seconds", numeric=NUMERIC,
                       compare=Compare("median", 0.15),
                       run_keys={"work_units": Input("list[str]"),
                                 "start": Input("str", "reference", choices=("reference", "blind")),
                                 "algorithm": Input("str", "cmaes"), "devices": Input("str|int", "0"),
                                 "generations": Input("int"), "polish": Input("int", 300), "seed": Input("int", 1),
                                 "population": Input("int", 16), "box": Input("number", 0.1),
                                 "label": Input("str", ""), "integrator": Input("str", "compressed",
                                                                              choices=("compressed", "exact")),
                                 "uncertainties": Input("bool", True), "polish_from_start": Input("bool", True),
                                 "separate": Input("bool", False), "needs_gpus": Input("int", 1),
                                 "in_flight": Input("int|none", None), "late": Input("number|none", None),
                                 "lost": Input("number|none", None), "max_delay": Input("int|none", None),
                                 "gradient_step": Input("number|none", None)},
                       tables={r"_progress\.csv$": Kind(PROGRESS, key=["work_unit", "start", "algorithm", "generation"],
                                                        value="best_likelihood", numeric=NUMERIC,
                                                        compare=Compare("median", 1e-6)),
                               # Each star's most likely component, exactly (its probabilities, to 6 digits, and
                               # their sums are compared through the separation's JSON summary).
                               r"_separation_.*\.csv$": Kind(SEPARATION, key=["star"], compare=Compare("exact")),
                               r"_separation_.*\.json$": Kind(suffix=".json", value="likelihood",
                                                              compare=Compare("json_value", 1e-6)),
                               r"_report_.*\.json$": Kind(suffix=".json", value="likelihood",
                                                          compare=Compare("json_value", 1e-6)),
                               r"\.log$": text_kind(r"likelihood of the reference")}),
}


def search_space(mwsep, workunit):
    """The unit's search vector as `mwsep fit --print-vector` prints it: (name, value, lower, upper) rows."""
    r = subprocess.run([str(mwsep), "fit", "-a", str(workunit), "--print-vector"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"mwsep fit --print-vector failed on {workunit}: {r.stderr.strip()[-400:]}")
    return [(n, float(v), float(lo), float(hi)) for n, v, lo, hi in (line.split() for line in r.stdout.splitlines() if line.strip())]


def blind_start(space):
    """The centre of every parameter's bounds in @p space: a start that knows nothing of the unit's vector."""
    return [lo + 0.5 * (hi - lo) for _, _, lo, hi in space]


def vector_file(path, name, values):
    path.write_text(f"{name}\nparameters [{len(values)}]: " + " ".join(repr(v) for v in values) + "\n")


def has_fit(study):
    """Whether the build's mwsep has the fit command (pagmo2 and NLopt at build time)."""
    if not hasattr(study, "_fit_built"):
        try:
            r = subprocess.run([str(study.mwsep), "fit", "--help"], capture_output=True, text=True)
        except OSError:  # no binary yet (the jobs listed before any build): each job says so when it runs
            return True
        study._fit_built = r.returncode == 0
    return study._fit_built


def kind_fit_stripe(self, d):
    name = d["name"]
    for run in d["runs"]:
        for wu in run["work_units"]:
            start, algorithm, devices = run["start"], run["algorithm"], str(run["devices"])
            tag = f"{wu}_{start}_{algorithm}" + (f"_{run['label']}" if run["label"] else "")

            def job(tmp, run=run, wu=wu, start=start, algorithm=algorithm, devices=devices, tag=tag):
                unit = self.workunit(wu)
                reference = unit.parent / "search_parameters.txt"
                space = search_space(self.mwsep, unit)
                cmd = [self.mwsep, "fit", "-a", str(unit), "-s", str(STARS_FILES[wu]), "--reference", str(reference),
                       "--algorithm", algorithm, "--generations", str(run["generations"]),
                       "--polish", str(run["polish"]), "--seed", str(run["seed"]),
                       "--report", str(tmp / "report.json"), "--progress", str(tmp / "progress.csv"),
                       "-o", str(tmp / "best.txt"), "--work-unit", wu, "--experiment", name]
                if algorithm != "cgd":
                    cmd += ["--population", str(run["population"])]
                for option in ("in_flight", "late", "lost", "max_delay", "gradient_step"):
                    if run[option] is not None:
                        cmd += ["--" + option.replace("_", "-"), str(run[option])]
                if start == "reference":
                    cmd += ["--box", str(run["box"])]
                else:
                    vector_file(tmp / "start.txt", "blind", blind_start(space))
                    cmd += ["--search-parameters", str(tmp / "start.txt")]
                if run["integrator"] == "compressed":
                    cmd += ["--integrator", "compressed"]
                cmd += ["--backend", "cpu"] if devices == "cpu" else ["--devices", devices]
                if not run["uncertainties"]:
                    cmd.append("--no-uncertainties")
                if not run["polish_from_start"]:
                    cmd.append("--no-polish-from-start")
                log = tmp / f"{name}_{tag}.log"
                t0 = time.perf_counter()
                r = self._run(cmd, log=log)
                process_seconds = time.perf_counter() - t0
                if r.returncode != 0:
                    raise RuntimeError(f"mwsep fit failed on {wu} ({start}, {algorithm}): {r.stderr.strip()[-400:]}")
                rep = json.loads((tmp / "report.json").read_text())
                exact = rep.get("exact_likelihood", rep["likelihood"])
                ref_exact = rep.get("reference_exact_likelihood", rep["reference_likelihood"])
                # A labelled run (the same algorithm with other settings) names itself in the algorithm column.
                label = rep["algorithm"] + (f" ({run['label']})" if run["label"] else "")
                row = [name, wu, start, label, devices, rep["population"], rep["generations"],
                       rep["evaluations"], rep["global_evaluations"], rep["global_seconds"], rep["seconds"],
                       round(process_seconds, 3), rep["seconds_per_evaluation"], rep["start_likelihood"],
                       rep["likelihood"], exact, rep.get("exact_difference", 0.0), rep["reference_likelihood"],
                       ref_exact, "yes" if exact is not None and ref_exact is not None and exact >= ref_exact else "no",
                       "yes" if rep["positive_definite"] else "no", len(rep.get("flat_directions", {})),
                       rep["search_stopped_by"], len(rep["parameters"]), rep["evaluator"]]
                part = tmp / f"{name}.csv"
                with part.open("w", newline="") as f:
                    w = csv.writer(f)
                    w.writerow(COLUMNS)
                    w.writerow(row)
                # The progress rows, with the start they belong to (two starts of one unit share the rest of the key).
                with (tmp / "progress.csv").open() as f:
                    rows = list(csv.reader(f))
                with (tmp / f"{name}_progress.csv").open("w", newline="") as f:
                    w = csv.writer(f)
                    w.writerow(rows[0] + ["start"])
                    at = rows[0].index("algorithm")
                    w.writerows(row[:at] + [label] + row[at + 1:] + [start] for row in rows[1:])
                report = tmp / f"{name}_report_{tag}.json"
                report.write_text(json.dumps(rep, indent=1))
                out = {part.name: part, f"{name}_progress.csv": tmp / f"{name}_progress.csv", report.name: report,
                       log.name: log}
                if run["separate"]:
                    sep_csv, sep_json = tmp / f"{name}_separation_{tag}.csv", tmp / f"{name}_separation_summary_{tag}.json"
                    s = self._run([self.mwsep, "separate", "-a", str(unit), "-s", str(STARS_FILES[wu]),
                                   "--search-parameters", str(tmp / "best.txt"), "--integrator", "compressed",
                                   "--csv", str(sep_csv), "--digits", "6", "--json"])
                    if s.returncode != 0:
                        raise RuntimeError(f"mwsep separate failed on {wu}: {s.stderr.strip()[-400:]}")
                    sep_json.write_text(s.stdout)
                    out[sep_csv.name], out[sep_json.name] = sep_csv, sep_json
                return out
            skip = None if has_fit(self) else "this mwsep was built without the fit command (pagmo2 and NLopt were not found)"
            yield Job(f"{tag}|{devices}", job, [f"mwsep fit -a {wu} --algorithm {algorithm} ({start} start; see the log)"],
                      needs_gpus=0 if devices == "cpu" else run["needs_gpus"], skip=skip)
