"""The references: cuBLAS against the best hand-written kernel as n grows (Münch's comparison), SAXPY
against the measured bandwidth, and the CPU BLAS of the paper's CPU comparison."""
import statistics

from paper.report import targets
from paper.report.common import against_l2, fmt, l2_bytes, need, table
from paper.report.facts import available

from ..facts import median_by
from .suite import limiter


def build(ctx, facts):
    n, pub, lad = ctx.n, facts.published, available(facts.ladder)
    gpu, best = lad.gpu, lad.best

    sizes = facts.files.rows("sizes")
    gf = median_by(sizes, "gflops", "variant", "n")
    ns = sorted({int(k[1]) for k in gf} | {lad.size})
    variants = ["unrolled-16", best, "cublas-fp32", "cublas-tf32"]

    def rate(v, size):
        if size == lad.size:
            return lad.gflops.get(v)
        return gf.get((v, str(size)))
    body = [[v] + [fmt(rate(v, s)) if rate(v, s) else "" for s in ns] for v in dict.fromkeys(variants)]
    body.append([f"{best} / cuBLAS FP32"] + [f"{100 * rate(best, s) / rate('cublas-fp32', s):.0f}%"
                                             if rate(best, s) and rate("cublas-fp32", s) else "" for s in ns])
    ctx.tables["table_ryoo_sizes"] = table(
        f"Table R@: GFLOP/s by matrix size on one {gpu} (kernel time only, no transfers), with the share of cuBLAS "
        f"FP32 the best hand-written kernel reaches. Münch measured cuBLAS at {pub['munch_cublas']['gflops_4096']} "
        "GFLOP/s at n = 4096 on a Quadro FX 3700, transfers included.",
        ["variant"] + [f"n = {s}" for s in ns], body)

    ctx.tables["para_ryoo_cublas_target"] = cublas_target(ctx, facts, best, rate)

    # Münch (ch. 3): cuBLAS 2.4 times the CUDA SDK's kernel (his Algorithm 3, a 16 x 16 shared-memory tiling:
    # the ladder's tiled-16) at the largest size he ran; the same ratio here at the ladder's size.
    sdk, lib = rate("tiled-16", lad.size), rate("cublas-fp32", lad.size)
    n["ryoo_pub_cublas_over_sdk"] = fmt(pub["munch_cublas"]["over_sdk"])
    n["ryoo_cublas_over_sdk"] = fmt(lib / sdk) if sdk and lib else "(not measured)"
    if not (sdk and lib):
        ctx.fallback("ryoo_cublas_over_sdk", "no tiled-16 or cublas-fp32 rate at the ladder's size",
                     [facts.files.path("ladder")])

    s = facts.files.rows("saxpy")
    bw = median_by(s, "gb_per_s", "variant")
    measured = max(need(bw, "copy-vector", "saxpy.csv"), need(bw, "memcpy", "saxpy.csv"))
    best_saxpy = max(("saxpy-scalar", "saxpy-vector"), key=lambda v: need(bw, v, "saxpy.csv"))
    count = int(s[0]["count"])
    ctx.tables["table_ryoo_saxpy"] = table(
        f"Table R@: SAXPY (12 bytes per element) and two copies (8 bytes per element) over {count:,} elements on one "
        f"{gpu}: bandwidth and its share of the best copy, the measured bandwidth of this GPU.",
        ["variant", "GB/s", "of the measured bandwidth"],
        [[v, fmt(bw[v]), f"{100 * bw[v] / measured:.0f}%"] for v in ("copy-vector", "memcpy", "saxpy-scalar", "saxpy-vector")])
    n["ryoo_measured_bw"] = fmt(measured)
    n["ryoo_saxpy_bw"] = fmt(bw[best_saxpy])
    n["ryoo_saxpy_variant"] = best_saxpy
    n["ryoo_saxpy_of_measured"] = f"{100 * bw[best_saxpy] / measured:.0f}"
    n["ryoo_saxpy_gflops"] = fmt(bw[best_saxpy] / 12 * 2)
    # The runs these bandwidths rest on: the smallest traffic of the four, against the GPU's L2.
    least = min(int(r["bytes"]) for r in s)
    caches = sorted({r.get("cache") or "warm" for r in s})
    l2 = l2_bytes(facts.files.meta("saxpy"))
    memory = caches == ["cold"] or (l2 is not None and least > l2)
    n["ryoo_saxpy_basis_text"] = (("These are memory figures" if memory else "These are not shown to be memory figures") +
                                  f": the four kernels were timed {' and '.join(caches)}, each moving at least "
                                  f"{fmt(least / 2**30)} GiB, {against_l2(least, facts.files.meta('saxpy'))}.")

    cpu = facts.files.optional("cpu_blas")
    if cpu is None:
        ctx.tables["para_ryoo_cpu"] = ("The CPU BLAS was not recorded on this GPU host (the build found no OpenBLAS), "
                                       "so this recording makes no CPU comparison.\n")
        ctx.fallback("para_ryoo_cpu", "the CPU BLAS (cpu_blas) was not recorded", [facts.files.path("cpu_blas")])
        return
    threads = sorted({int(r["threads"]) for r in cpu})
    cpu_gf = {t: statistics.median(float(r["gflops"]) for r in cpu if int(r["threads"]) == t) for t in threads}
    one = cpu_gf[threads[0]]
    speedup = lad.gflops[best] / one
    library = cpu[0]["library"].split(" NO_")[0]
    ctx.tables["para_ryoo_cpu"] = (
        f"{library} SGEMM at n = {cpu[0]['n']} reaches {fmt(one)} GFLOP/s on one thread and "
        f"{fmt(cpu_gf[threads[-1]])} GFLOP/s on {threads[-1]} threads of the GPU host's CPU. The best hand-written "
        f"kernel ({best}) is {fmt(speedup)} times the single thread (the paper: {pub['matmul_kernel_speedup_vs_cpu']['value']} "
        f"times an SSE2 library on one Opteron thread) and {fmt(lad.gflops[best] / cpu_gf[threads[-1]])} times all "
        "the cores.\n")


def cublas_target(ctx, facts, best, rate):
    """The verdict on the SGEMM target (targets.RYOO_SGEMM_CUBLAS_PCT of cuBLAS FP32 at each of
    targets.RYOO_SGEMM_TARGET_SIZES, the best hand-written kernel @p best, rates by @p rate(variant, n)), with the
    profiler's limiter of that kernel (ncu_limiters, suite.limiter's rule) at each size where it falls short."""
    goal = targets.RYOO_SGEMM_CUBLAS_PCT
    shares, short, unmeasured = [], [], []
    for size in targets.RYOO_SGEMM_TARGET_SIZES:
        mine, lib = rate(best, size), rate("cublas-fp32", size)
        if not (mine and lib):
            unmeasured.append(size)
            continue
        share = 100 * mine / lib
        shares.append(f"{share:.1f} % at n = {size}")
        if share < goal:
            short.append(size)
    if not shares:
        ctx.fallback("para_ryoo_cublas_target", "no best-kernel and cuBLAS FP32 rates at the target's sizes",
                     [facts.files.path("sizes")])
        return (f"The target of {goal} % of cuBLAS FP32 was not judged: neither {best} nor cuBLAS FP32 was timed at "
                + " or ".join(f"n = {n}" for n in targets.RYOO_SGEMM_TARGET_SIZES) + " on this GPU.\n")
    verdict = "not met" if short else ("met" if not unmeasured else "not judged at every size")
    text = (f"Against the target of {goal} % of cuBLAS FP32 (the targets table), {best} reaches "
            + " and ".join(shares) + (f" (n = {', '.join(map(str, unmeasured))} not timed)" if unmeasured else "")
            + f": {verdict}.")
    if short:
        rows = facts.files.optional("ncu_limiters")
        if not rows:
            ctx.fallback("para_ryoo_cublas_target", "ncu_limiters was not recorded", [facts.files.path("ncu_limiters")])
            return text + " The profiler's limiter was not recorded on this GPU (ncu_limiters).\n"
        named = []
        for size in short:
            row = next((r for r in rows if r.get("variant") == best and r.get("input") == str(size)), None)
            named.append(f"at n = {size}, {limiter(row)}" if row else
                         f"at n = {size} not recorded (ncu_limiters has no launch of {best} at that size)")
        text += (" The profiler names the limit by the rule of the application chapter's limiter table: "
                 + "; ".join(named) + ".")
    return text + "\n"
