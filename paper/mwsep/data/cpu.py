"""The CPU application and the CPU baseline: the reference and fast integrators, how the "one core" time is
measured (summed CPU time of concurrent single-thread slices), the load correction where it was measured,
and the CPU against the GPU (thesis Figures 5.1 and 5.2)."""
import statistics

from paper.report.common import MissingData, fmt, table
from paper.report.facts import available

from ..facts import unit_label


def whole_unit_bias(files):
    """A sentence: the summed slices' CPU time (cpu_vs_gpu_cpu, one thread per slice) over one thread running the
    whole unit alone (bench_cpu), for the units and integrators recorded both ways; empty when there are none."""
    whole = files.optional("bench_cpu") or []
    sliced = files.optional("cpu_vs_gpu_cpu") or []
    alone = {}
    for r in whole:
        if r["threads"] == "1" and r["slices"] == "1":
            alone.setdefault((r["integrator"], r["work_unit"]), []).append(float(r["seconds"]))
    summed = {}
    for r in sliced:
        if r["threads"] == "1" and int(r["slices"]) > 1:
            summed.setdefault((r["integrator"], r["work_unit"]), []).append(float(r["cpu_seconds"]))
    ratios = {k: statistics.median(summed[k]) / statistics.median(alone[k]) for k in sorted(set(alone) & set(summed))}
    if not ratios:
        return ""
    cases = ", ".join(f"{fmt(v, 3)} ({i}, {u})" for (i, u), v in ratios.items())
    return (" Measured on whole units, one thread running the unit alone against the summed slices of the same "
            f"unit, the summed times are {cases} times too large: the better estimate of the bias.")


def build(ctx, facts):
    n, gpu = ctx.n, available(facts.gpu)
    cpu = facts.files.rows("cpu_vs_gpu_cpu")
    speed = available(facts.cpu).units
    units = facts.units

    def runs(integrator, threads, u):
        vals = [float(r["cpu_seconds"] if threads == 1 else r["seconds"]) for r in cpu
                if r["integrator"] == integrator and int(r["threads"]) == threads and r["work_unit"] == u]
        if not vals:
            raise MissingData(f"cpu_vs_gpu_cpu.csv: no {integrator} x{threads} rows for {u}", [facts.files.path("cpu_vs_gpu_cpu")])
        return vals
    all_threads, slices = available(facts.cpu).cores, available(facts.cpu).slices
    n["cpu_threads_all"], n["cpu_slices"] = str(all_threads), str(slices)
    ref_runs = [len(runs("reference", 1, u)) for u in units]
    n["cpu_ref_repeats"] = str(min(ref_runs)) if min(ref_runs) == max(ref_runs) else f"{min(ref_runs)} to {max(ref_runs)}"
    n["cpu_ref_repeats_word"] = "once" if max(ref_runs) == 1 else f"{min(ref_runs)} times"
    fast_runs = [len(runs("fast", 1, u)) for u in units]
    n["cpu_fast_repeats"] = str(min(fast_runs))
    spreads = [(max(v) - min(v)) / statistics.median(v) for u in units for v in [runs("fast", 1, u)] if len(v) > 1]
    n["cpu_spread_max_pct"] = f"{100 * max(spreads):.1f}" if spreads else "not measured"
    body = []
    for u in units:
        s = speed[u]
        ref, f1, fn, g0, g1, gm = (s[k] for k in ("ref", "fast1", "fastn", "first", "final", "modern"))
        body.append([unit_label(u), fmt(ref, 4), fmt(f1, 4), fmt(fn, 3), fmt(g0, 3), fmt(g1, 3), fmt(gm, 3),
                     f"{ref / g0:,.0f}x".replace(",", "\u202f"), f"{ref / g1:,.0f}x".replace(",", "\u202f")])
    ctx.tables["table_cpu_vs_gpu"] = table(
        f"Table R@: CPU against GPU, in seconds. \"1 core\" is the CPU time of {slices} single-thread slices of "
        f"the mu range run at once on the {all_threads}-core host, summed (the reference integrator run "
        f"{n['cpu_ref_repeats_word']}, the fast one {n['cpu_fast_repeats']} times, medians); \"all cores\" is wall "
        f"time. GPU: {gpu.short}, integral and likelihood kernels, median of the repeats.",
        ["work unit", "reference, 1 core", "fast, 1 core", f"fast, {all_threads} cores", "GPU first version",
         "GPU final version", "GPU modern", "first vs reference", "final vs reference"], body)
    s = speed["3s-large"]
    n["cpu_ref_3s_large_s"], n["cpu_ref_3s_large_min"] = fmt(s["ref"], 4), fmt(s["ref"] / 60, 3)
    n["gpu_first_3s_large_s"], n["gpu_final_3s_large_s"] = fmt(s["first"], 3), fmt(s["final"], 3)
    n["speedup_first_3s_large"] = fmt(s["ref"] / s["first"], 4)
    n["speedup_final_3s_large"] = fmt(s["ref"] / s["final"], 4)
    n["cpu_fast_speedup_1core"] = f"{s['ref'] / s['fast1']:.1f}"
    n["speedup_final_vs_fast_all"] = f"{s['fastn'] / s['final']:.0f}"
    n["gpu_modern_3s_large_s"] = fmt(s["modern"], 3)
    n["speedup_modern_3s_large"] = fmt(s["ref"] / s["modern"], 4)
    n["speedup_modern_vs_fast_all"] = f"{s['fastn'] / s['modern']:.0f}"
    n["fast_parallel_gain"] = f"{s['fast1'] / s['fastn']:.1f}"
    n["pub_cpu_3s_large_min"] = str(facts.published["claims"]["cpu_time_3s_large"]["value"])
    n["cpu_generation_gain"] = f"{facts.published['claims']['cpu_time_3s_large']['value'] * 60 / s['ref']:.1f}"
    n["first_final_pub"] = f"{facts.published['claims']['cuda_original_time_3s_large']['value'] / facts.published['claims']['cuda_optimised_time_3s_large']['value']:.2f}"
    n["first_final_rep"] = f"{s['first'] / s['final']:.2f}"

    # The host: model, cores and hardware threads, where the provenance records them.
    meta = facts.files.meta("cpu_vs_gpu_cpu")
    if "host_physical_cores" in meta:
        sockets, tpc = int(meta.get("host_sockets", 1)), int(meta["host_threads_per_core"])
        ctx.tables["para_host"] = (
            f"The host's processor is recorded as \"{meta['host_cpu']}\""
            + ("" if any(ch.isdigit() for ch in meta["host_cpu"]) else " (the operating system gives no model number)") + ": "
            f"{sockets} socket{'s' if sockets > 1 else ''}, {meta['host_physical_cores']} physical cores, "
            + ("no simultaneous multithreading" if tpc == 1 else f"{tpc} hardware threads per core")
            + f", {meta.get('host_logical_cpus', '?')} logical CPUs in all.\n")
    else:
        ctx.tables["para_host"] = (
            f"The host is recorded only as \"{meta.get('host_cpu', 'unknown')}\": the processor model, the number of "
            "physical cores and whether hardware threads share cores are not in the recorded provenance.\n")
    # The load correction: one slice alone against the same slice among all the others.
    load = facts.files.optional("cpu_slice_load")
    n["load_measured"] = "yes" if load else "no"
    if load:
        pairs = {}
        for r in load:
            pairs.setdefault((r["work_unit"], r["integrator"], r["slice"]), {}).setdefault(r["mode"], []).append(float(r["seconds"]))
        body, factors = [], []
        for (u, i, sl), modes in sorted(pairs.items()):
            if "alone" in modes and "loaded" in modes:
                a, l = statistics.median(modes["alone"]), statistics.median(modes["loaded"])
                factors.append(l / a)
                body.append([u, i, sl, fmt(a, 3), fmt(l, 3), f"{l / a:.2f}"])
        if not factors:
            raise MissingData("cpu_slice_load.csv: no slice measured both alone and loaded", [facts.files.path("cpu_slice_load")])
        ctx.tables["table_slice_load"] = table(
            "Table R@: one slice alone on the host against the same slice among all the others (seconds, medians).",
            ["work unit", "integrator", "slice", "alone", "loaded", "loaded / alone"], body)
        n["load_factor_min"], n["load_factor_max"] = f"{min(factors):.2f}", f"{max(factors):.2f}"
        span = n["load_factor_min"] if n["load_factor_min"] == n["load_factor_max"] else f"{n['load_factor_min']} to {n['load_factor_max']}"
        bias = whole_unit_bias(facts.files)
        ctx.tables["para_load"] = (
            f"**The load correction.** A slice among all the others takes {span} times as long as alone (the table above). Dividing the single-core times "
            "by that factor gives the time of one core alone; the speed-ups over one core in this report use the "
            "summed times as recorded" + (", so they are too large by at least that factor." if bias else
                                          ", so they are too large by about that factor.") + bias + "\n")
    else:
        ctx.fallback("para_load", "cpu_slice_load was not recorded", [facts.files.path("cpu_slice_load")])
        ctx.tables["table_slice_load"] = ""
        ctx.tables["para_load"] = (
            "**The load correction was not measured.** One slice alone was not timed against the same slice "
            "among the others on this host, so the single-core CPU times are upper bounds of unknown margin, "
            "and every speed-up over one core in this report inherits that margin.\n")
