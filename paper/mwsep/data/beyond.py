"""Beyond the thesis: the modern kernel against the thesis's final one, on every GPU measured, and against
the public MilkyWay@Home application where it was measured on the same GPU; exponentials, instruction mix,
end to end and two GPUs."""
import statistics

from paper.report.common import MissingData, big, fmt, medians, table
from paper.report.facts import available

from ..variants import FINAL, MODERN_F32, MODERN_F64

LARGE = ["3s-large", "2s-large"]


def build(ctx, facts):
    n, files = ctx.n, facts.files
    gpus = available(facts.gpus)
    gpu = gpus[0]
    modern_rows = files.rows("modern")
    modern, integral = medians(modern_rows), medians(modern_rows, value="integral_ms")
    for u in LARGE:
        k = u.replace("-", "_")
        final, m64 = modern[(FINAL, u)], modern[(MODERN_F64, u)]
        n[f"modern_f64_ms_{k}"], n[f"final_ms_{k}"] = fmt(m64, 3), fmt(final, 4)
        n[f"modern_f64_integral_ms_{k}"] = fmt(integral[(MODERN_F64, u)], 3)
        n[f"modern_speedup_{k}"] = f"{final / m64:.2f}"
    points = available(facts.points)
    n["modern_points_per_s"] = big(points["3s-large"] / (modern[(MODERN_F64, "3s-large")] / 1e3), 3)

    # The modern kernel on every GPU measured.
    body = []
    for g in gpus:
        m = modern if g is gpu else medians(files.rows("modern", g.folder))
        for u in LARGE:
            f, m64, m32 = (m[(v, u)] for v in (FINAL, MODERN_F64, MODERN_F32))
            pps = points[u] / (m64 / 1e3)
            body.append([g.short, u.replace("s-", "-S "), fmt(f, 4), fmt(m64, 3), fmt(m32, 3), f"{f / m64:.2f}x",
                         fmt(pps / (g.fp64_gflops * 1e9) * 1e3, 3)])
    ctx.tables["table_modern"] = table(
        "Table R@: the modern kernel against the thesis's final kernel on every GPU measured (integral and "
        "likelihood kernels, ms, medians), and the modern double-precision kernel's quadrature points per "
        "MFLOP of the GPU's FP64 peak.",
        ["GPU", "work unit", "thesis final", "modern, double", "modern, single", "double: final / modern",
         "points per MFLOP of peak"], body)

    # The public application on the same GPU, when it was measured there.
    peer = files.optional("peer")
    n["peer_measured"] = "yes" if peer else "no"
    if peer:
        best = [r for r in peer if r["flags"] == "best"]
        if not best:
            raise MissingData(f"{files.path('peer')}: no runs with the best flags", [files.path("peer")])
        pbody = []
        # The public application's own stripe-11 model (with the real stars) where it was run: modern-f64's
        # integral there from the modern run, or else from the compressed quadrature's timing run, which times
        # modern-f64 beside it.
        own = {}
        if any(r["work_unit"] == "stripe11-large" for r in best) and (MODERN_F64, "stripe11-large") in integral:
            own[(MODERN_F64, "stripe11-large")] = integral[(MODERN_F64, "stripe11-large")]
        elif any(r["work_unit"] == "stripe11-large" for r in best):
            timing = files.optional("compressed_timing") or []
            m = [float(r["integral_ms"]) for r in timing if r["variant"] == MODERN_F64 and r["work_unit"] == "stripe11-large"]
            if m:
                own[(MODERN_F64, "stripe11-large")] = statistics.median(m)
        labels = {"3s-large": "3-S large", "2s-large": "2-S large", "stripe11-large": "stripe 11 (its own model, real stars)"}
        for u in LARGE + [u for (_, u) in own]:
            mine = [r for r in best if r["work_unit"] == u]
            if not mine:
                raise MissingData(f"{files.path('peer')}: no best-flag runs for {u}", [files.path("peer")])
            integ = statistics.median(float(r["integration_s"]) for r in mine) * 1e3
            proc = statistics.median(float(r["process_s"]) for r in mine)
            ours = integral.get((MODERN_F64, u), own.get((MODERN_F64, u)))
            k = u.replace("-", "_")
            n[f"peer_ms_{k}"], n[f"peer_process_s_{k}"] = fmt(integ, 3), fmt(proc, 3)
            n[f"modern_vs_peer_{k}"] = f"{integ / ours:.2f}"
            pbody.append([labels[u], str(len(mine)), fmt(integ, 3), fmt(ours, 3), f"{integ / ours:.2f}x", fmt(proc, 3)])
        n["peer_device"] = best[0]["device"]
        ours = [float(r["likelihood"]) for r in modern_rows if r["variant"] == MODERN_F64 and r["work_unit"] == "3s-large"][0]
        theirs = float([r for r in best if r["work_unit"] == "3s-large"][0]["likelihood"])
        n["peer_like_rel"] = f"{abs(theirs - ours) / abs(ours):.1e}"
        ctx.tables["para_peer"] = (
            "**The public application.** The separation application that MilkyWay@Home volunteers run today "
            f"(OpenCL) was run on the same GPU with its fastest settings. Its integral takes {n['peer_ms_3s_large']} ms "
            f"on the 3-stream large unit, {n['modern_vs_peer_3s_large']} times the modern kernel's, and "
            f"{n['peer_ms_2s_large']} ms on the 2-stream unit ({n['modern_vs_peer_2s_large']} times)"
            + (f", and {n['peer_ms_stripe11_large']} ms on its own stripe-11 model with the real stripe-11 stars "
               f"({n['modern_vs_peer_stripe11_large']} times)" if own else "")
            + "; its whole "
            f"process takes {n['peer_process_s_3s_large']} s on the 3-stream unit. Its model differs from this "
            f"program's in a few documented details; its likelihood differs from the one here by {n['peer_like_rel']} "
            "relative on the 3-stream unit.\n")
        ctx.tables["table_peer"] = table(
            f"Table R@: the public MilkyWay@Home separation application (OpenCL, its fastest settings) on the "
            f"same {gpu.short}: its own timing of the integral, against the modern kernel's integral (ms, medians; on "
            "the stripe-11 model from the modern run where it has that model, else from the compressed quadrature's timing run, compressed_timing), and its whole process (s).",
            ["work unit", "runs", "public application, integral", "modern, integral", "ratio", "public application, process (s)"],
            pbody)
    else:
        ctx.fallback("para_peer", "the public application (peer) was not measured", [files.path("peer")])
        ctx.tables["table_peer"] = ""
        ctx.tables["para_peer"] = ("**The public application.** The separation application that MilkyWay@Home "
                                   "volunteers run today was not measured on this GPU.\n")

    # Exponentials and skipping.
    exps = {r["function"]: float(r["exps_per_second"]) for r in files.rows("exp_throughput", check_valid=False)}
    n["exp_library_per_s"], n["exp_table_per_s"] = big(exps["cuda_exp"], 3), big(exps["exp_from_steps"], 3)
    n["exp_table_vs_library"] = f"{available(facts.exp_table_vs_library):.2f}"
    skip_dir = files.results
    skipping = files.rows("skipping", check_valid=False)
    evaluated = sum(float(r["evaluated_terms"]) for r in skipping if r["work_unit"] == "3s-large")
    total = sum(float(r["stream_terms"]) for r in skipping if r["work_unit"] == "3s-large")
    if total == 0:
        raise MissingData(f"{skip_dir / 'skipping.csv'}: no 3s-large rows", [skip_dir / "skipping.csv"])
    n["exps_evaluated_pct_3s_large"] = f"{100 * evaluated / total:.0f}"
    # The narrow streams of the 3-stream unit that the sentence names (other units' streams differ).
    narrow = [float(r["evaluated_fraction"]) for r in skipping
              if r["work_unit"] == "3s-large" and float(r["evaluated_fraction"]) < 1]
    if not narrow:
        raise MissingData(f"{skip_dir / 'skipping.csv'}: no 3s-large stream with terms skipped", [skip_dir / "skipping.csv"])
    n["narrow_stream_kept_min_pct"], n["narrow_stream_kept_max_pct"] = f"{100 * min(narrow):.0f}", f"{100 * max(narrow):.0f}"
    rate = evaluated / (integral[(MODERN_F64, "3s-large")] / 1e3)
    n["modern_exp_rate_pct"] = f"{100 * rate / exps['exp_from_steps']:.0f}"
    n["exp_floor_ms"] = fmt(1e3 * total / exps["cuda_exp"], 3)
    mix = {r["kernel"]: r for r in files.rows("sass_mix", check_valid=False)}
    k3 = mix[f"{MODERN_F64} S=3"]
    n["sass_fp64_s3"], n["sass_integer_s3"], n["sass_total_s3"] = k3["fp64"], k3["integer_logic"], k3["instructions"]
    ncu = {r["metric"]: r["value"].replace(",", "") for r in files.rows("ncu_modern", check_valid=False)}
    n["ncu_issue_busy_pct"] = f"{float(ncu['Issue Slots Busy']):.0f}"
    n["ncu_achieved_occupancy_pct"] = f"{float(ncu['Achieved Occupancy']):.0f}"

    # End to end on one GPU.
    e2e = files.rows("end_to_end", check_valid=False)
    for u in LARGE:
        k = u.replace("-", "_")
        mine = [r for r in e2e if r["work_unit"] == u and r["variant"] == MODERN_F64]
        if not mine:
            raise MissingData(f"end_to_end.csv: no rows for {u}", [files.path("end_to_end")])
        n[f"end_to_end_{k}_s"] = fmt(statistics.median(float(r["wall_ms"]) for r in mine) / 1e3, 3)
        n[f"e2e_repeats_{k}"] = str(len(mine))
        for phase in ("load", "device_start_wait", "prepare", "integral", "likelihood"):
            n[f"e2e_{phase}_{k}_ms"] = fmt(1e3 * statistics.median(float(r[f"{phase}_s"]) for r in mine), 3)

    # Two GPUs of one host: RESULTS itself when its host had several, else a folder of such a host
    # (paper/report/facts.py, multi_gpu_folder).
    multi_dir = available(facts.multi_folder)
    n["multi_measured"] = "yes" if multi_dir is not None and (multi_dir / "multi_gpu.csv").exists() else "no"
    if n["multi_measured"] == "yes":
        multi = medians(files.rows("multi_gpu", multi_dir), key=("work_unit", "sm_count"))
        for u in LARGE:
            k = u.replace("-", "_")
            counts = sorted(int(sm) for (wu, sm) in multi if wu == u)
            one, two = multi[(u, str(counts[0]))], multi[(u, str(counts[-1]))]
            n[f"multi_one_ms_{k}"], n[f"multi_two_ms_{k}"] = fmt(one, 3), fmt(two, 3)
            n[f"multi_speedup_{k}"] = f"{one / two:.2f}"
        e2e_multi = [r for r in files.rows("end_to_end_multi", multi_dir, check_valid=False) if r["work_unit"] == "3s-large"]
        n["end_to_end_multi_3s_large_s"] = fmt(statistics.median(float(r["wall_ms"]) for r in e2e_multi) / 1e3, 3)
        n["e2e_multi_wait_3s_large_ms"] = fmt(1e3 * statistics.median(float(r["device_start_wait_s"]) for r in e2e_multi), 3)
        ctx.tables["para_multi"] = ("**Two GPUs.** With every GPU of a host in use, each takes a contiguous range of mu rows. On two GPUs of one host the 3-stream unit's kernels take\n{{ multi_two_ms_3s_large }} ms instead of {{ multi_one_ms_3s_large }} ms ({{ multi_speedup_3s_large }}\ntimes faster; 2-stream {{ multi_speedup_2s_large }}). The split is even in cells, not necessarily in work,\nsince the number of skipped stream terms varies over the sky. For a single evaluation the second device\ndoes not pay: creating two contexts costs the driver more than the kernels save, and a run took\n{{ end_to_end_multi_3s_large_s }} s end to end (device wait {{ e2e_multi_wait_3s_large_ms }} ms). It pays\nin a parameter search that keeps one process and its contexts for many evaluations.\n".replace("{{ ", "{").replace(" }}", "}").format(**n))
    else:
        ctx.tables["para_multi"] = "**Two GPUs.** No host with two GPUs of this kind was measured.\n"
    optimised = available(facts.optimised)
    sp, best = optimised.speedup, optimised.best_f64
    n["modern_vs_first_speedup"] = f"{sp[MODERN_F64]:.2f}"
    n["best_f64_variant"], n["best_f64_speedup"] = best, f"{sp[best]:.2f}"
    n["final_vs_first_speedup"] = f"{sp[FINAL]:.2f}"
    n["likelihood_kernel_ms"] = fmt(optimised.likelihood_ms, 3)
    n["likelihood_share_pct"] = f"{100 * optimised.likelihood_share:.2f}"
    # Optimisations together, on the 2- and 3-stream large units (the thesis: they gain more on 2 streams).
    for u in LARGE:
        n[f"opt_gain_{u.replace('-', '_')}"] = f"{optimised.gain[u]:.2f}"
