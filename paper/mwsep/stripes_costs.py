"""The thesis's costs, re-derived from recorded results: one likelihood then (about 7.5 hours on one CPU core for a
single-stream model, thesis chapter 1) against one likelihood now on the same unit by the exact CPU path, the exact
GPU path and the compressed path; and "at least 1000 likelihoods, over 312 days" per stream against the measured
time of a whole fit of the same real stripe now.

The unit is the single-stream 2009 work unit of stripe 86 (data/workunits/stripe86-2009: full-size grid, one cut,
111,642 SDSS stars): the thesis priced a single-stream model, and this is the one the 2009 files give.

Standalone: `stripe_costs(results_dir)` reads the result files of one GPU's study folder
(experiments/results/<gpu>/mwsep/) and paper/mwsep/published.json, and returns a dict (see its docstring). The
report's chapter "Fitting the real stripes" (paper/mwsep/data/stripes.py) takes the same pieces (thesis,
one_core_seconds, gpu_seconds, unit_fits) from the rows its facts read, so that a path not measured is said so
alone while the others stand.

Files and columns read (the runner writes them; experiments/definitions/mwsep/<name>.json says how):
  stripe_costs_cpu.csv  (kind bench_cpu)  work_unit, integrator ("reference" or "fast"), threads, slices, repeat,
                        cpu_seconds: one core's time of the integral (the CPU times of concurrent single-threaded
                        slices, summed); the median over the repeats per integrator
  stripe_costs_gpu.csv  (kind bench)      work_unit, variant ("modern-f64", "compressed-f64"), kernel_ms (the
                        integral's and the likelihood's kernels of one evaluation), total_ms, valid: the median of
                        the valid rows per variant
  fit_stripes.csv       (kind fit_stripe) work_unit, start, evaluations, seconds (the fit: search, polishes,
                        Hessian), process_seconds (the whole `mwsep fit`, files in to report out), exact_likelihood,
                        reference_exact_likelihood
  published.json        claims cpu_likelihood_single_stream (7.5 h), likelihoods_per_fit (1000),
                        days_per_stream_fit (312)
"""
import csv
import json
import pathlib
import statistics

PUBLISHED = pathlib.Path(__file__).resolve().parent / "published.json"
UNIT = "stripe86-2009"
HOUR, DAY = 3600.0, 86400.0


class MissingResults(Exception):
    """A result file or row the costs need is not there (named in the message)."""


def _rows(folder, name):
    path = pathlib.Path(folder) / f"{name}.csv"
    if not path.exists():
        raise MissingResults(f"{path}: not recorded (experiment {name})")
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _median(values, what):
    if not values:
        raise MissingResults(f"no row of {what}")
    return statistics.median(values)


def thesis(claims):
    """The thesis's costs from published.json's claims: {likelihood_seconds, fit_likelihoods, fit_seconds}."""
    return {"likelihood_seconds": claims["cpu_likelihood_single_stream"]["value"] * HOUR,
            "fit_likelihoods": claims["likelihoods_per_fit"]["value"],
            "fit_seconds": claims["days_per_stream_fit"]["value"] * DAY}


def one_core_seconds(cpu_rows, unit=UNIT):
    """{"reference": s, "fast": s}: one core's time of one integral of @p unit (the median over the repeats of the
    single-threaded rows of stripe_costs_cpu.csv), per integrator."""
    cpu = [r for r in cpu_rows if r["work_unit"] == unit]
    out = {}
    for integrator in ("reference", "fast"):
        mine = [float(r["cpu_seconds"]) for r in cpu if r["integrator"] == integrator and int(r["threads"]) == 1
                and r.get("cpu_seconds") not in ("", "nan", None)]
        out[integrator] = _median(mine, f"stripe_costs_cpu.csv for {integrator} on {unit}")
    return out


def gpu_seconds(gpu_rows, unit=UNIT):
    """({variant: s}, {variant: s}): one likelihood of @p unit on one GPU, its kernels and its whole evaluation
    (medians of the valid rows of stripe_costs_gpu.csv), for modern-f64 and compressed-f64."""
    gpu = [r for r in gpu_rows if r["work_unit"] == unit and r.get("valid", "true") == "true"]
    kernel, total = {}, {}
    for variant in ("modern-f64", "compressed-f64"):
        mine = [r for r in gpu if r["variant"] == variant]
        kernel[variant] = _median([float(r["kernel_ms"]) / 1e3 for r in mine], f"stripe_costs_gpu.csv for {variant} on {unit}")
        total[variant] = _median([float(r["total_ms"]) / 1e3 for r in mine], f"stripe_costs_gpu.csv for {variant} on {unit}")
    return kernel, total


def unit_fits(fit_rows, unit=UNIT):
    """The whole fits of @p unit in fit_stripes.csv, by start: [{start, evaluations, seconds, process_seconds,
    at_or_above_reference}]."""
    fits = []
    for r in fit_rows:
        if r["work_unit"] != unit:
            continue
        above = None
        if r.get("exact_likelihood") and r.get("reference_exact_likelihood"):
            above = float(r["exact_likelihood"]) >= float(r["reference_exact_likelihood"])
        fits.append({"start": r["start"], "evaluations": int(r["evaluations"]), "seconds": float(r["seconds"]),
                     "process_seconds": float(r["process_seconds"]), "at_or_above_reference": above})
    if not fits:
        raise MissingResults(f"fit_stripes.csv: no fit of {unit}")
    return sorted(fits, key=lambda f: f["start"])


def costs_from_rows(claims, cpu_rows, gpu_rows, fit_rows, unit=UNIT):
    """stripe_costs() from the rows of the three result files and published.json's claims."""
    then = thesis(claims)
    one_core = one_core_seconds(cpu_rows, unit)
    kernel, total = gpu_seconds(gpu_rows, unit)
    fits = unit_fits(fit_rows, unit)
    now = {"cpu_reference_seconds": one_core["reference"], "cpu_fast_seconds": one_core["fast"],
           "gpu_exact_seconds": kernel["modern-f64"], "gpu_exact_total_seconds": total["modern-f64"],
           "gpu_compressed_seconds": kernel["compressed-f64"], "gpu_compressed_total_seconds": total["compressed-f64"],
           "fits": fits}
    paths = {"cpu_reference": now["cpu_reference_seconds"], "cpu_fast": now["cpu_fast_seconds"],
             "gpu_exact": now["gpu_exact_seconds"], "gpu_compressed": now["gpu_compressed_seconds"]}
    ratios = {f"then_over_{p}": then["likelihood_seconds"] / s for p, s in paths.items()}
    ratios.update({f"thesis_fit_{p}_seconds": then["fit_likelihoods"] * s for p, s in paths.items()})
    longest = max(f["process_seconds"] for f in fits)
    ratios["then_fit_over_fit"] = then["fit_seconds"] / longest
    return {"unit": unit, "then": then, "now": now, "ratios": ratios}


def stripe_costs(results_dir, published=PUBLISHED, unit=UNIT):
    """The costs of one likelihood and of one fit of @p unit, then and now, from the study folder @p results_dir.

    Returns {"unit", "then": {likelihood_seconds, fit_likelihoods, fit_seconds}, "now": {cpu_reference_seconds,
    cpu_fast_seconds, gpu_exact_seconds, gpu_exact_total_seconds, gpu_compressed_seconds,
    gpu_compressed_total_seconds, fits: [{start, evaluations, seconds, process_seconds, at_or_above_reference}]},
    "ratios": {then_over_<path>: how many times faster one likelihood is now; thesis_fit_<path>_seconds: 1000
    likelihoods by that path; then_fit_over_fit: 312 days over the longest whole fit now (process time)}}.
    Raises MissingResults naming the file or rows that are missing."""
    claims = json.loads(pathlib.Path(published).read_text())["claims"]
    return costs_from_rows(claims, _rows(results_dir, "stripe_costs_cpu"), _rows(results_dir, "stripe_costs_gpu"),
                           _rows(results_dir, "fit_stripes"), unit)


def rows(costs):
    """Table rows (what, then, now, ratio) for a report: one per path, and the fit."""
    then, now, r = costs["then"], costs["now"], costs["ratios"]
    out = [("one likelihood", f"{then['likelihood_seconds'] / HOUR:g} h (one 2009 CPU core)", label, f"{s:.4g} s",
            f"{r['then_over_' + key]:.3g}x") for key, label, s in (
        ("cpu_reference", "one core, reference integrator", now["cpu_reference_seconds"]),
        ("cpu_fast", "one core, fast integrator", now["cpu_fast_seconds"]),
        ("gpu_exact", "one GPU, exact sum (modern-f64)", now["gpu_exact_seconds"]),
        ("gpu_compressed", "one GPU, compressed quadrature", now["gpu_compressed_seconds"]))]
    longest = max(costs["now"]["fits"], key=lambda f: f["process_seconds"])
    out.append(("one fit", f"{then['fit_likelihoods']} likelihoods, {then['fit_seconds'] / DAY:g} days",
                f"whole fit, {longest['evaluations']} likelihoods ({longest['start']} start)",
                f"{longest['process_seconds']:.4g} s", f"{r['then_fit_over_fit']:.3g}x"))
    return out


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 2:
        sys.exit("usage: stripes_costs.py RESULTS/<gpu>/mwsep")
    print(json.dumps(stripe_costs(sys.argv[1]), indent=1))
