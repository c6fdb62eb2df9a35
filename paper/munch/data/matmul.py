"""Matrix multiplication (the thesis's chapter 3): its ikj loop on the CPU, sequential and OpenMP, the
SDK-style tiled kernel and cuBLAS SGEMM (FP32) on the GPU, the latter two with and without allocation and
copies (matmul_cpu.csv, matmul_gpu.csv), beside the statements of its section 3.3; its Figures 3.2 and
3.3 print no values."""
from paper.report.common import MissingData, fmt, medians, table
from paper.report.facts import available

SDK, CUBLAS = "sdk-tiled-16", "cublas-sgemm-fp32"


def timed(rows):
    """{(implementation, timing, n): median ms}."""
    return {(k[0], k[1], int(k[2])): v for k, v in medians(rows, "ms", ("implementation", "timing", "n")).items()}


def num(v):
    """A published value as the thesis states it (no padding of significant digits)."""
    return f"{v:g}"


def crossover(sizes, faster):
    """The smallest measured n from which @p faster(n) holds at every larger measured n, or None."""
    found = None
    for n in sorted(sizes, reverse=True):
        if not faster(n):
            break
        found = n
    return found


def build(ctx, facts):
    pub = facts.published["chapter_3"]
    gpu = available(facts.roof).gpu
    cpu_rows, gpu_rows = facts.files.rows("matmul_cpu"), facts.files.rows("matmul_gpu")
    c, g = timed(cpu_rows), timed(gpu_rows)
    threads = max(int(r["threads"]) for r in cpu_rows if r["implementation"] == "openmp")
    sizes = sorted({n for (_, _, n) in g} | {n for (_, _, n) in c})
    need = [(SDK, "kernel"), (SDK, "with-transfers"), (CUBLAS, "kernel"), (CUBLAS, "with-transfers")]
    for impl, timing in need:
        if not any((impl, timing, n) in g for n in sizes):
            raise MissingData(f"matmul_gpu.csv: no {impl} {timing} rows", [facts.files.path("matmul_gpu")])
    if not any(k[0] == "ikj" for k in c) or not any(k[0] == "openmp" for k in c):
        raise MissingData("matmul_cpu.csv: needs rows of both the ikj loop and its OpenMP version", [facts.files.path("matmul_cpu")])
    ratios = [float(r["max_err_ratio"]) for r in cpu_rows + gpu_rows]

    def get(impl, timing, n):
        return c.get((impl, "compute", n)) if timing == "compute" else g.get((impl, timing, n))

    def best_cpu(n):
        found = [v for v in (get("ikj", "compute", n), get("openmp", "compute", n)) if v is not None]
        return min(found) if found else None

    def gflops(ms, n):
        return 2.0 * n ** 3 / ms / 1e6

    body = []
    for n in sizes:
        cells = [get("ikj", "compute", n), get("openmp", "compute", n), get(SDK, "kernel", n), get(SDK, "with-transfers", n),
                 get(CUBLAS, "kernel", n), get(CUBLAS, "with-transfers", n)]
        sdk_t, cub_t, cpu_best = cells[3], cells[5], best_cpu(n)
        gpu_best = min([v for v in (sdk_t, cub_t) if v is not None], default=None)
        body.append([str(n)] + ["—" if v is None else fmt(v, 3) for v in cells] +
                    ["—" if None in (cells[2], cells[4]) else fmt(cells[2] / cells[4]),
                     "—" if cub_t is None else fmt(gflops(cub_t, n)),
                     "—" if None in (cpu_best, gpu_best) else fmt(cpu_best / gpu_best)])
    ctx.tables["table_munch_matmul"] = table(
        f"Table R@: square float matrix products C = A B of order n, median ms. CPU: the thesis's ikj loop on one "
        f"thread and with OpenMP on {threads}; GPU ({gpu}): the SDK-style tiled kernel (16 x 16 tiles) and cuBLAS SGEMM "
        "(FP32, no TF32), the kernel alone and with allocation of the three arrays, copies of A and B from pageable "
        "memory, the copy of C back and the frees (the thesis's GPU time). cuBLAS/SDK: the SDK kernel's time over "
        "cuBLAS's, kernels alone; GFLOP/s of cuBLAS with transfers; CPU/GPU: the faster CPU over the faster GPU with "
        f"transfers (above 1: the GPU wins). Every product was checked against the double-precision product before it "
        f"was timed: the largest error was {fmt(max(ratios))} of the bound gamma_n (|A||B|). — : not measured",
        ["n", "ikj", "OpenMP", "SDK kernel", "SDK + transfers", "cuBLAS kernel", "cuBLAS + transfers", "cuBLAS/SDK",
         "cuBLAS GFLOP/s", "CPU/GPU"], body)

    rows = []

    def claim(what, source, theirs, ours, verdict):
        rows.append([what, source, theirs, ours, verdict])

    # Run time grows eightfold per doubling of n.
    ikj_sizes = sorted(n for (i, _, n) in c if i == "ikj")
    if len(ikj_sizes) < 2:
        raise MissingData("matmul_cpu.csv: the ikj loop needs two sizes at least", [facts.files.path("matmul_cpu")])
    n1, n2 = ikj_sizes[-2], ikj_sizes[-1]
    growth = get("ikj", "compute", n2) / get("ikj", "compute", n1)
    cub_sizes = sorted(n for (i, t, n) in g if i == CUBLAS and t == "kernel")
    cub_growth = get(CUBLAS, "kernel", cub_sizes[-1]) / get(CUBLAS, "kernel", cub_sizes[-2])
    claim(f"Doubling n multiplies the run time by {num(pub['growth_per_doubling']['value'])}", pub["growth_per_doubling"]["source"],
          f"{num(pub['growth_per_doubling']['value'])}x",
          f"ikj {fmt(growth)}x ({n1} to {n2}); cuBLAS kernel {fmt(cub_growth)}x ({cub_sizes[-2]} to {cub_sizes[-1]})",
          "holds" if 6 <= growth <= 10 else ("steeper here (the cache no longer holds B)" if growth > 10 else "flatter here"))

    # OpenMP: counterproductive for small n, about 4 on 4 cores for large n.
    both = sorted(n for (i, _, n) in c if i == "ikj" and ("openmp", "compute", n) in c)
    omp = {n: get("ikj", "compute", n) / get("openmp", "compute", n) for n in both}
    top = both[-1]
    pays = crossover(both, lambda n: omp[n] > 1)
    per_thread = omp[top] / threads
    claim("OpenMP hurts small products and approaches the core count for large ones", pub["openmp_speedup"]["source"],
          f"≈ {num(pub['openmp_speedup']['value'])} on {pub['openmp_speedup']['cores']} cores",
          f"{fmt(omp[top])} on {threads} threads at n = {top}; faster than one thread from n = "
          f"{'—' if pays is None else pays}, slower below",
          "holds" if per_thread >= 0.75 and pays is not None and pays > both[0] else
          (f"weaker here ({fmt(per_thread)} per thread)" if per_thread < 0.75 else "holds for large n; no small-n penalty here"))

    # The crossover: from which n the GPU with transfers beats the faster CPU.
    gpu_cells = sorted(n for n in sizes if best_cpu(n) is not None and (SDK, "with-transfers", n) in g)
    sdk_cross = crossover(gpu_cells, lambda n: get(SDK, "with-transfers", n) < best_cpu(n))
    cub_cells = [n for n in gpu_cells if (CUBLAS, "with-transfers", n) in g]
    cub_cross = crossover(cub_cells, lambda n: get(CUBLAS, "with-transfers", n) < best_cpu(n))
    sdk_small = [n for n in gpu_cells if n < pub["sdk_good_below_n"]["value"]]
    sdk_wins_small = [n for n in sdk_small if get(SDK, "with-transfers", n) < best_cpu(n)]
    claim("Small problems are faster on the CPU, large ones on the GPU (transfers included)", pub["conclusion"]["source"],
          "the crossover's n is not printed (Figures 3.2 and 3.3)",
          f"the SDK kernel with transfers beats the faster CPU from n = {'—' if sdk_cross is None else sdk_cross}, "
          f"cuBLAS from n = {'—' if cub_cross is None else cub_cross}",
          "holds" if sdk_cross is not None and sdk_cross > gpu_cells[0] else
          ("the GPU wins at every measured n" if sdk_cross == gpu_cells[0] else "the GPU never wins here"))
    claim(f"The SDK kernel does well below n = {pub['sdk_good_below_n']['value']}, transfers included", pub["sdk_good_below_n"]["source"],
          f"below n = {pub['sdk_good_below_n']['value']}",
          f"faster than the faster CPU at {len(sdk_wins_small)} of the {len(sdk_small)} measured n below "
          f"{pub['sdk_good_below_n']['value']}",
          ("holds" if len(sdk_wins_small) == len(sdk_small) else f"holds from n = {min(sdk_wins_small)}") if sdk_wins_small
          else "does not hold here: the CPU is faster at every such n")

    # cuBLAS poor for small n; at best 2.4x the SDK kernel; 137 GFLOP/s at 4096; nothing above 4096.
    small = [n for n in sizes if n < pub["cublas_poor_below_n"]["value"] and (CUBLAS, "with-transfers", n) in g
             and (SDK, "with-transfers", n) in g]
    slower = [n for n in small if get(CUBLAS, "with-transfers", n) > get(SDK, "with-transfers", n)]
    claim(f"cuBLAS is poor below n = {pub['cublas_poor_below_n']['value']}", pub["cublas_poor_below_n"]["source"], "slower than the SDK kernel (figure)",
          f"slower than the SDK kernel, transfers included, at {len(slower)} of the {len(small)} measured n below "
          f"{pub['cublas_poor_below_n']['value']}", "holds" if len(slower) * 2 > len(small) else "not seen here")
    kernel_ratios = {n: get(SDK, "kernel", n) / get(CUBLAS, "kernel", n) for n in sizes
                     if (SDK, "kernel", n) in g and (CUBLAS, "kernel", n) in g}
    ratio_n = max(kernel_ratios, key=kernel_ratios.get)
    at = pub["cublas_gflops_4096"]["n"]
    k_ratio = kernel_ratios[ratio_n]
    t_ratio = get(SDK, "with-transfers", at) / get(CUBLAS, "with-transfers", at) if (CUBLAS, "with-transfers", at) in g and (SDK, "with-transfers", at) in g else None
    ctx.n.update(munch_mm_cublas_over_sdk=fmt(k_ratio), munch_mm_ratio_n=str(ratio_n))
    claim(f"cuBLAS at best {num(pub['cublas_over_sdk']['value'])} times the SDK kernel", pub["cublas_over_sdk"]["source"], f"{num(pub['cublas_over_sdk']['value'])}x",
          f"at best {fmt(k_ratio)}x, kernels alone (n = {ratio_n})" + ("" if t_ratio is None else f", {fmt(t_ratio)}x with transfers at n = {at}"),
          "holds" if k_ratio <= 1.5 * pub["cublas_over_sdk"]["value"] else "larger today (a tuned library against a teaching sample)")
    if (CUBLAS, "with-transfers", at) not in g:
        raise MissingData(f"matmul_gpu.csv: no cuBLAS time with transfers at n = {at}", [facts.files.path("matmul_gpu")])
    ours_t, ours_k = gflops(get(CUBLAS, "with-transfers", at), at), gflops(get(CUBLAS, "kernel", at), at)
    ctx.n.update(munch_mm_cublas_gflops=fmt(ours_t), munch_mm_cublas_kernel_gflops=fmt(ours_k))
    claim(f"cuBLAS reaches {num(pub['cublas_gflops_4096']['value'])} GFLOP/s at n = {at}", pub["cublas_gflops_4096"]["source"],
          f"{num(pub['cublas_gflops_4096']['value'])} GFLOP/s",
          f"{fmt(ours_t)} GFLOP/s with transfers, {fmt(ours_k)} the kernel alone",
          f"{fmt(ours_t / pub['cublas_gflops_4096']['value'])}x higher today")
    largest = max(n for (i, _, n) in g)
    claim(f"Matrices above n = {pub['max_n']['value']} fail to allocate", pub["max_n"]["source"], f"n ≤ {pub['max_n']['value']}",
          f"n = {largest} measured and checked", "obsolete" if largest > pub["max_n"]["value"] else "not tested above it")
    ctx.tables["table_munch_matmul_claims"] = table(
        f"Table R@: the thesis's statements on matrix multiplication, each with its source, the published value, "
        f"this rebuild's ({gpu}, host CPU on {threads} threads) and a verdict",
        ["claim", "source", "thesis", "this rebuild", "verdict"], rows, widths=[24, 18, 16, 26, 16])
    ctx.n.update(munch_mm_sdk_crossover="—" if sdk_cross is None else str(sdk_cross),
                 munch_mm_cublas_crossover="—" if cub_cross is None else str(cub_cross),
                 munch_mm_omp_speedup=fmt(omp[top]), munch_mm_omp_n=str(top), munch_mm_threads=str(threads),
                 munch_mm_max_n=str(largest), munch_mm_err_ratio=fmt(max(ratios)))
