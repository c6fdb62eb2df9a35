"""What the documents name and the ladders alone do not measure: the tuned CPU baseline Ryoo et al. compared with
(S1 section 5.1, about 4.3x over the original loop), the special-function units' share of the MRI speed-up
(about 30 %), the compute-to-memory counts of S2 (13 operations to 14 accesses, 7 with registers, about 10:1
with constant memory; 9 to 4 for Coulomb) counted in the compiled loops, the SASS instruction mix behind the F6
to F7 step, and the "increased resolutions" split of a 1024³ image into subsets. Each part reads its own
result (kirk_hwu: cpu_tuned, mri_sfu_share, sass_counts, mri_split; ryoo: ncu_mri_cp_mix), and says "not
measured on this GPU" with the experiment to run where that result is absent."""
import statistics

from paper.report.common import fmt, table

from ..facts import rates

NOT_MEASURED = "not measured on this GPU"
# The memory spaces of the SFU/library pairs, by the variants' name part, in the order the chapter lists them.
SPACES = [("global", "global memory"), ("readonly", "read-only cache"), ("constsoa", "constant arrays"),
          ("constaos", "constant records"), ("shared", "shared-memory tiles"), ("param", "kernel parameter")]


def missing(ctx, what, files, name, experiment):
    """The sentence and fallback of a part whose result @p name is absent."""
    ctx.fallback(what, f"{name} was not recorded on this GPU", [files.path(name)])
    return (f"*{NOT_MEASURED}: the experiment is ready to record (`python3 experiments/run.py --study "
            f"{experiment[0]} --only {experiment[1]}`).*\n")


def tuned_cpu(ctx, facts):
    """The documents' loop beside the tuned loop on one core, per computation, and the tuning's gain."""
    files, n = facts.files, ctx.n
    pub = facts.published["s1_mri_cpu_tuning"]["gain"]
    n["kh_pub_cpu_tuning"] = fmt(pub, 2)
    rows = files.optional("cpu_tuned")
    if rows is None:
        ctx.tables["kh_cpu_tuned"] = missing(ctx, "kh_cpu_tuned", files, "cpu_tuned", ("kirk_hwu", "cpu_tuned"))
        n["kh_cpu_tuning_verdict"] = NOT_MEASURED
        return
    rate = rates(rows, key=("problem", "loop"))
    body, gains = [], {}
    for problem in ("mri-q", "mri-fhd", "coulomb"):
        doc, tuned = rate.get((problem, "documents")), rate.get((problem, "tuned"))
        if not doc or not tuned:
            continue
        gains[problem] = tuned / doc
        err = max(float(r["rel_l2_err"]) for r in rows if r["problem"] == problem and r["loop"] == "tuned")
        body.append([problem, fmt(doc), fmt(tuned), fmt(tuned / doc), fmt(err, 2)])
    ctx.tables["kh_cpu_tuned"] = table(
        "Table R@: the single-thread CPU loops on one core of the GPU's host, in single precision, on the documents' "
        "inputs (a share of the points with every sample or atom): the documents' loop and the tuned loop (cache "
        "blocking, vectorised loops, sin and cos from short polynomials; src/kirk_hwu/tuned.cpp), in pairs per "
        "second, the tuning's gain, and the tuned loop's relative L2 error against FP64 (bound 1e-3).",
        ["computation", "documents' loop (pairs/s)", "tuned loop (pairs/s)", "tuned / documents", "tuned: rel. L2 error"], body)
    mri = [gains[p] for p in ("mri-q", "mri-fhd") if p in gains]
    if not mri:
        n["kh_cpu_tuning_verdict"] = NOT_MEASURED
        return
    lo, hi = min(mri), max(mri)
    n["kh_cpu_tuning_mri"] = f"{fmt(lo)} to {fmt(hi)}" if lo != hi else fmt(lo)
    n["kh_cpu_tuning_verdict"] = ("reproduced: the tuning gains a factor within half to twice the published one"
                                  if all(pub / 2 <= g <= 2 * pub for g in mri) else
                                  "reproduced qualitatively: the tuning gains, by a factor outside half to twice the "
                                  "published one" if all(g > 1 for g in mri) else "differs: the tuned loop is not faster")


def sfu_share(ctx, facts):
    """The special-function units' share of the speed-up from pairs of variants that differ in the trigonometry
    alone: in constant records (F6 against F7, the ladder's medium input) and, where recorded, in every memory
    space at the full size."""
    files, n = facts.files, ctx.n
    pub = facts.published["s1_sfu_share"]["share_pct"]
    n["kh_pub_sfu_share"] = str(pub)
    ladder = rates(files.rows("mri_ladder"))
    body = []

    def row(label, source, libm, sfu):
        share = 1 - libm / sfu  # rates: the time without the SFUs is rate_sfu / rate_libm times the time with them
        body.append([label, source, fmt(libm), fmt(sfu), fmt(sfu / libm), f"{100 * share:.0f}%"])
        return share
    shares = {}
    for p, prefix in (("mri-q", "q"), ("mri-fhd", "fhd")):
        libm = ladder.get((f"{prefix}-constaos-regs-libm-u1-f32", "medium"))
        sfu = ladder.get((f"{prefix}-constaos-regs-sfu-u1-f32", "medium"))
        if libm and sfu:
            shares[(p, "constaos-ladder")] = row(f"{p}, constant records (F6, F7)", "mri_ladder, medium", libm, sfu)
    spaces = files.optional("mri_sfu_share")
    if spaces is not None:
        r = rates(spaces)
        for p, prefix in (("mri-q", "q"), ("mri-fhd", "fhd")):
            for key, label in SPACES:
                libm, sfu = r.get((f"{prefix}-{key}-regs-libm-u4-f32", "full")), r.get((f"{prefix}-{key}-regs-sfu-u4-f32", "full"))
                if libm and sfu:
                    shares[(p, key)] = row(f"{p}, {label}", "mri_sfu_share, full", libm, sfu)
    else:
        ctx.fallback("kh_sfu_share (every memory space)", "mri_sfu_share was not recorded on this GPU", [files.path("mri_sfu_share")])
    ctx.tables["kh_sfu_share"] = table(
        "Table R@: the special-function units' share of the MRI speed-up, from pairs of variants that differ in the "
        "trigonometry alone (the library's sin and cos against __sinf and __cosf): rates in pairs per second, the "
        "SFU variant's gain, and its share of the speed-up, 1 − (time with the SFUs) / (time without), the share "
        "of the speed-up that is lost without them.", ["computation, samples in", "recorded in", "library (pairs/s)",
                                                         "SFU (pairs/s)", "SFU / library", "share of the speed-up"], body)
    best = None
    if spaces is not None:
        r = rates(spaces)
        fastest = max(((v, rate) for (v, size), rate in r.items() if size == "full"), key=lambda x: x[1], default=None)
        if fastest:
            v = fastest[0]
            p = "mri-q" if v.startswith("q-") else "mri-fhd"
            best = shares.get((p, v.split("-")[1]))
            n["kh_sfu_share_best_variant"] = v
    if best is None:
        n["kh_sfu_share_best_variant"] = NOT_MEASURED
        n["kh_sfu_share_verdict"] = ("not judged on this GPU: the memory-space pairs (mri_sfu_share) are not recorded; in "
                                     "constant records the SFU step " + ("loses" if all(s < 0 for s in shares.values())
                                                                         else "gains") + " here")
        if spaces is not None:
            ctx.fallback("kh_sfu_share_verdict", "mri_sfu_share lacks the pair of its fastest variant", [files.path("mri_sfu_share")])
        return
    n["kh_sfu_share_best"] = f"{100 * best:.0f}"
    n["kh_sfu_share_verdict"] = ("reproduced: within half to twice the published share" if pub / 200 <= best <= pub / 50
                                 else "reproduced qualitatively: the SFUs gain, by a share outside half to twice the "
                                 "published one" if best > 0 else "differs: the SFUs do not gain in the fastest variant's memory space")


def compiled_counts(ctx, facts):
    """S2's compute-to-memory counts beside the compiled loops' (sass_counts) and the executed ones (ryoo's
    ncu_mri_cp_mix)."""
    files, n, pub = facts.files, ctx.n, facts.published
    f, reg, con, cou = (pub["fhd_flops_per_pair"], pub["fhd_registers_step"], pub["fhd_constant_target"],
                        pub["coulomb_flops_per_pair"])
    n["kh_pub_fhd_flops"], n["kh_pub_fhd_accesses"] = str(f["flops"]), str(f["accesses"])
    n["kh_pub_fhd_accesses_registers"], n["kh_pub_constant_ratio"] = str(reg["accesses"]), str(con["ratio"])
    n["kh_pub_dcs_flops"], n["kh_pub_dcs_accesses"] = str(cou["flops"]), str(cou["accesses"])
    counts = files.optional("sass_counts")
    if counts is None:
        ctx.tables["kh_sass_counts"] = missing(ctx, "kh_sass_counts", files, "sass_counts", ("kirk_hwu", "sass_counts"))
        n["kh_sass_f6_f7"] = NOT_MEASURED
    else:
        by = {r["variant"]: r for r in counts}
        steps = [("F3", "fhd-global-memacc-libm-u1-f32", f"{f['flops']} : {f['accesses']}"),
                 ("F4", "fhd-global-regs-libm-u1-f32", f"{f['flops']} : {reg['accesses']}"),
                 ("F6", "fhd-constaos-regs-libm-u1-f32", f"about {con['ratio']} : 1 (target)"),
                 ("F7", "fhd-constaos-regs-sfu-u1-f32", ""), ("Q F6", "q-constaos-regs-libm-u1-f32", ""),
                 ("Q F7", "q-constaos-regs-sfu-u1-f32", ""),
                 ("D0", "dcs-global-sqrt-p1", f"{cou['flops']} : {cou['accesses']}"),
                 ("D1", "dcs-constant-sqrt-p1", f"{cou['flops']} : {cou['accesses']}, over {cou['effective_ratio_above']} : 1 effective"),
                 ("D2", "dcs-constant-rsqrt-p1", ""), ("D3", "dcs-constant-rsqrt-adjacent4", ""),
                 ("D4", "dcs-constant-rsqrt-coalesced4", "")]
        body = []
        for step, v, published in steps:
            r = by.get(v)
            if r is None:
                continue
            words = float(r["global_words"]) + float(r["constant_words"]) + float(r["shared_words"])
            body.append([step, v, published or "-", r["flops"], r["global_words"], r["constant_words"], r["mufu"],
                         r["other"], f"{float(r['flops']) / words:.2g} : 1" if words else "no access", r["slow_path"]])
        ctx.tables["kh_sass_counts"] = table(
            "Table R@: the documents' operations and memory accesses per pair beside the compiled loops' (cuobjdump "
            "-sass of this build, tools/sass_counts.py): floating-point operations per pair (a special-function "
            "result counted one, as the documents count sin, cos and the reciprocal square root), global and "
            "constant accesses in 4-byte values, special-function instructions and other instructions per pair, the "
            "compiled ratio of operations to accesses, and the instructions of the loop an ordinary pair does not run "
            "(the library's slow paths), left out of the counts.",
            ["step", "variant", "published (operations : accesses)", "operations", "global words", "constant words",
             "special-function", "other", "operations : accesses", "slow-path instructions"], body)
        f6, f7 = by.get("fhd-constaos-regs-libm-u1-f32"), by.get("fhd-constaos-regs-sfu-u1-f32")
        n["kh_sass_f6_f7"] = (f"F6's loop holds {fmt(float(f6['loop_instructions']), 3)} instructions per pair "
                              f"({f6['slow_path']} of them the library's slow path), {f6['constant_words']} constant words; "
                              f"F7's {fmt(float(f7['loop_instructions']), 3)}, {f7['constant_words']} constant words and "
                              f"{f7['mufu']} special-function instructions") if f6 and f7 else NOT_MEASURED
    ncu_folder = files.results.parent / "ryoo"
    ncu = files.optional("ncu_mri_cp_mix", ncu_folder, check_valid=False) if (ncu_folder / "ncu_mri_cp_mix.csv").exists() else None
    if ncu is None:
        ctx.tables["kh_ncu_counts"] = (
            f"*Executed counts: {NOT_MEASURED}: the profiler's run is ready to record (`python3 experiments/run.py "
            "--study ryoo --only ncu_mri_cp_mix`).*\n")
        ctx.fallback("kh_ncu_counts", "the ryoo study's ncu_mri_cp_mix was not recorded on this GPU",
                     [ncu_folder / "ncu_mri_cp_mix.csv"])
        n["kh_dcs_effective_verdict"] = NOT_MEASURED
        return
    body = []
    for r in ncu:
        flops = (float(r["fadd_thread_instructions"]) + float(r["fmul_thread_instructions"])
                 + 2 * float(r["ffma_thread_instructions"]))
        accesses = 32 * (float(r["global_loads"]) + float(r["global_stores"]))
        l2_words = float(r["l2_bytes"]) / 4
        body.append([r["variant"], fmt(flops / accesses, 3) if accesses else "no global access",
                     fmt(flops / l2_words, 3) if l2_words else "-", f"{float(r['pipe_xu_pct']):.0f}%"])
        if r["variant"] == "dcs-constant-sqrt-p1" and l2_words:
            ratio = flops / l2_words
            n["kh_dcs_effective_ratio"] = fmt(ratio, 3)
            n["kh_dcs_effective_verdict"] = ("reproduced: over " if ratio > cou["effective_ratio_above"] else "differs: not over ") + \
                f"{cou['effective_ratio_above']} : 1"
    n.setdefault("kh_dcs_effective_verdict", "not judged: D1 not in the profiler's run")
    ctx.tables["kh_ncu_counts"] = table(
        "Table R@: executed counts (Nsight Compute, one launch per variant, the ryoo study's ncu_mri_cp_mix): "
        "floating-point operations per global access (FADD, FMUL and two per FFMA, per thread, against global loads and "
        "stores per thread) and per 4-byte word the L2 served (everything that missed in the SMs: global data and "
        "constant-cache misses), and the special-function pipe's use.",
        ["variant", "operations per global access", "operations per L2 word", "XU pipe"], body)


def split(ctx, facts):
    """The increased resolutions: the image in subsets against one device copy."""
    files, n = facts.files, ctx.n
    n["kh_pub_split_edge"] = str(facts.published["increased_resolution"]["edge"])
    rows = files.optional("mri_split")
    if rows is None:
        ctx.tables["kh_split"] = missing(ctx, "kh_split", files, "mri_split", ("kirk_hwu", "mri_split"))
        n["kh_split_cost"] = NOT_MEASURED
        return
    by = {}
    for r in rows:
        by.setdefault(int(r["subsets"]), []).append(r)
    one = statistics.median(float(r["ms"]) for r in by[min(by)])
    body = []
    for s in sorted(by):
        ms = statistics.median(float(r["ms"]) for r in by[s])
        k = statistics.median(float(r["kernel_ms"]) for r in by[s])
        body.append([str(s), by[s][0]["voxels_per_subset"], fmt(ms), fmt(k), fmt(ms / one), by[s][0]["rel_l2_err"]])
    ctx.tables["kh_split"] = table(
        f"Table R@: F^H d of a {rows[0]['edge']}³-voxel image ({rows[0]['kspace_samples']} samples, {rows[0]['variant']}) in "
        "subsets of voxels, each with its own device copy (positions and samples uploaded, the variant's launches, the "
        "output copied back): the whole pass and the launches alone (medians, ms), the pass over the one-copy pass, "
        "and the relative L2 error at spread voxels against FP64.",
        ["subsets", "voxels per subset", "pass (ms)", "launches (ms)", "over one subset", "rel. L2 error"], body)
    worst = max(statistics.median(float(r["ms"]) for r in by[s]) for s in by) / one
    n["kh_split_cost"] = fmt(worst)


def build(ctx, facts):
    tuned_cpu(ctx, facts)
    sfu_share(ctx, facts)
    compiled_counts(ctx, facts)
    split(ctx, facts)
