"""The reconstruction against the non-uniform FFT (mri_nufft, one run: the direct sums, our NUFFT and the peer
cuFINUFFT on the same trajectory, grid and GPU): F^H d by each at each requested accuracy with its error against
the FP64 direct sum, the ratio of our NUFFT's time to the peer's at the same accuracy (the target:
KIRK_HWU_NUFFT_PEER_RATIO), the whole reconstruction with each and its image's error against the phantom (the
target: no worse with the NUFFT than with the direct sums), and how the NUFFT's error falls with the kernel's
width at each oversampling. Until the run is recorded on a GPU every table's cells read "not measured" and the
fallbacks name the file it waits for; a run without the peer (no library given) leaves the peer's rows and the
ratio "not recorded"."""
from paper.report.common import MissingData, fmt, table
from paper.report.facts import available
from paper.report.targets import KIRK_HWU_NUFFT_PEER_RATIO

REFERENCE, FASTEST = "fhd-global-regs-libm-u1-f64", "fhd-shared-regs-sfu-u4-f32"
TOLERANCES = [1e-3, 1e-6, 1e-9]
SIGMAS = [2.0, 1.5, 1.25]
NOT_MEASURED, NOT_RECORDED = "not measured", "not recorded"
FHD_HEADER = ["F^H d by", "tolerance", "kernel, grid", "time (ms)", "rel. L2 error", "normal op. (ms)", "over the peer"]
RECON_HEADER = ["reconstruction with", "tolerance", "time (s)", "image error"]
# Our image error may exceed the direct sums' by this relative amount and still count as "no worse" (the images
# differ by the NUFFT's error, orders of magnitude below the error against the phantom).
SAME_IMAGE_ERROR = 1e-3
NUMBERS = ["kh_nufft_tol", "kh_nufft_ratio_1e6", "kh_nufft_peer_verdict", "kh_nufft_image_verdict", "kh_nufft_fhd_ms_1e6",
           "kh_nufft_direct_fhd_ms", "kh_nufft_fhd_speedup_1e6", "kh_nufft_recon_s_1e6", "kh_nufft_direct_recon_s",
           "kh_nufft_err_1e6", "kh_nufft_width_1e6"]


def sci(v):
    """A small error in scientific form (2.31e-07)."""
    return f"{v:.2e}"


def tol_text(t):
    return f"{t:.0e}".replace("e-0", "e-") if t else ""


def cell(cells, **match):
    found = [c for c in cells if all(getattr(c, k) == v for k, v in match.items())]
    return found[0] if found else None


def not_measured(ctx, facts, reason):
    ctx.fallback("the NUFFT tables (kh_nufft_fhd, kh_nufft_recon, kh_nufft_widths)", reason)
    ctx.tables["kh_nufft_fhd"] = table(fhd_caption(facts), FHD_HEADER,
                                       [[name, NOT_MEASURED, "", NOT_MEASURED, NOT_MEASURED, NOT_MEASURED, NOT_MEASURED]
                                        for name in ("FP64 direct sum", "fastest direct kernel", "our NUFFT", "cuFINUFFT")])
    ctx.tables["kh_nufft_recon"] = table(recon_caption(facts), RECON_HEADER,
                                         [[name, "", NOT_MEASURED, NOT_MEASURED] for name in
                                          ("the fastest direct kernels (Toeplitz)", "our NUFFT pair", "cuFINUFFT's pair")])
    ctx.tables["kh_nufft_widths"] = table(widths_caption(), ["kernel width"] + [f"σ = {s:g}" for s in SIGMAS],
                                          [[NOT_MEASURED] + [NOT_MEASURED] * len(SIGMAS)])
    for name in NUMBERS:
        ctx.n[name] = f"({NOT_MEASURED})"
    ctx.n["kh_nufft_tol"] = "10⁻⁶"  # the tolerance the prose speaks of, not a measurement


def gpu_name(facts):
    try:
        return f"the {available(facts.gpu).name}"
    except MissingData:
        return "the GPU"


def fhd_caption(facts):
    return (f"Table R@: F^H d at the published size on {gpu_name(facts)}, one run (mri_nufft): the documents' direct sum "
            "in FP64 (the reference) and on the study's fastest kernel, our adjoint NUFFT (Kaiser-Bessel kernel, the width "
            "for the requested tolerance, cuFFT on the oversampled grid) and cuFINUFFT (built from its public source; "
            "upsampling factor its own choice or 2) at the same requested tolerances. Median time of F^H d and of the "
            "solve's normal operator (a forward and an adjoint NUFFT), the relative L2 error of F^H d against the FP64 "
            "direct sum over every voxel (a peer's error above its requested tolerance is marked: that tolerance is its "
            "target, not a bound), and our time over the peer's best at the same tolerance.")


def recon_caption(facts):
    return (f"Table R@: the whole reconstruction (F^H d and 30 conjugate-gradient iterations) on {gpu_name(facts)}, "
            "one run (mri_nufft): with the fastest direct kernels (Q once per trajectory, AᴴA by Toeplitz), with our "
            "NUFFT pair and with cuFINUFFT's pair at each tolerance (AᴴA as a forward, the density weights and an "
            "adjoint), and the image's relative L2 error against the phantom.")


def widths_caption():
    return ("Table R@: the relative L2 error of our adjoint NUFFT against the FP64 direct sum at the published size, "
            "by the kernel's width in grid cells and the grid's oversampling σ (mri_nufft, the width sweep).")


def build(ctx, facts):
    n = ctx.n
    try:
        nu = available(facts.nufft)
        cells = nu.cells
        reference = cell(cells, implementation="direct", variant=REFERENCE, operation="adjoint")
        fastest = cell(cells, implementation="direct", variant=FASTEST, operation="adjoint")
        if reference is None or fastest is None:
            raise MissingData("mri_nufft.csv: no direct-sum rows", [facts.files.path("mri_nufft")])
    except MissingData as e:
        return not_measured(ctx, facts, e)
    ours = sorted((c for c in cells if c.implementation == "ours" and c.operation == "adjoint" and c.tolerance),
                  key=lambda c: (-c.tolerance, -c.oversampling))
    peer = sorted((c for c in cells if c.implementation == "cufinufft" and c.operation == "adjoint"),
                  key=lambda c: (-c.tolerance, c.variant))
    body = [["FP64 direct sum", "", "", fmt(reference.ms), "(the reference)", "", ""],
            ["fastest direct kernel (FP32, SFU)", "", "", fmt(fastest.ms), sci(fastest.err), "", ""]]
    ratios = {}
    for c in ours:
        normal = cell(cells, implementation="ours", operation="normal", tolerance=c.tolerance, oversampling=c.oversampling)
        rivals = [p for p in peer if p.tolerance == c.tolerance]
        ratio = c.ms / min(p.ms for p in rivals) if rivals else None
        if ratio is not None and c.oversampling == 2.0:
            ratios[c.tolerance] = ratio
        body.append([f"our NUFFT, σ = {c.oversampling:g}", tol_text(c.tolerance), f"W = {c.width}, {c.fft_grid}³",
                     fmt(c.ms), sci(c.err), fmt(normal.ms) if normal else "", fmt(ratio) + "x" if ratio else NOT_RECORDED])
    for p in peer:
        normal = cell(cells, implementation="cufinufft", variant=p.variant, operation="normal", tolerance=p.tolerance)
        body.append([p.variant, tol_text(p.tolerance), "its own", fmt(p.ms),
                     sci(p.err) + (" (above the requested tolerance)" if p.err > p.tolerance else ""),
                     fmt(normal.ms) if normal else "", ""])
    if not peer:
        body.append(["cuFINUFFT", "", "", NOT_RECORDED, NOT_RECORDED, NOT_RECORDED, ""])
        ctx.fallback("the peer's rows of the NUFFT tables", "mri_nufft.csv holds no cuFINUFFT rows (recorded without "
                     "experiments/run.py --peer-nufft)")
    ctx.tables["kh_nufft_fhd"] = table(fhd_caption(facts), FHD_HEADER, body)

    at_1e6 = cell(cells, implementation="ours", operation="adjoint", tolerance=1e-6, oversampling=2.0)
    n["kh_nufft_tol"] = "10⁻⁶"
    n["kh_nufft_direct_fhd_ms"] = fmt(fastest.ms)
    n["kh_nufft_fhd_ms_1e6"] = fmt(at_1e6.ms) if at_1e6 else NOT_RECORDED
    n["kh_nufft_err_1e6"] = sci(at_1e6.err) if at_1e6 else NOT_RECORDED
    n["kh_nufft_width_1e6"] = str(at_1e6.width) if at_1e6 else NOT_RECORDED
    n["kh_nufft_fhd_speedup_1e6"] = fmt(fastest.ms / at_1e6.ms) if at_1e6 else NOT_RECORDED
    n["kh_nufft_ratio_1e6"] = fmt(ratios[1e-6]) if 1e-6 in ratios else NOT_RECORDED
    if ratios:
        worst = max(ratios.values())
        n["kh_nufft_peer_verdict"] = (f"{'meets' if worst <= KIRK_HWU_NUFFT_PEER_RATIO else 'does not meet'} the target "
                                      f"(at most {fmt(KIRK_HWU_NUFFT_PEER_RATIO)} times the peer's time at every tolerance; "
                                      f"the largest ratio is {fmt(worst)})")
    else:
        n["kh_nufft_peer_verdict"] = "cannot be judged: the peer was not recorded in this run"

    recon = [c for c in cells if c.operation == "reconstruct"]
    direct = next((c for c in recon if c.implementation == "direct"), None)
    rbody = []
    if direct:
        rbody.append(["the fastest direct kernels (Toeplitz)", "", fmt(direct.ms / 1e3), fmt(direct.err)])
    for c in sorted((c for c in recon if c.implementation != "direct"), key=lambda c: (c.implementation != "ours", -c.tolerance)):
        label = "our NUFFT pair" if c.implementation == "ours" else f"{c.variant}'s pair"
        rbody.append([label, tol_text(c.tolerance), fmt(c.ms / 1e3), fmt(c.err)])
    if not rbody:
        rbody = [["(no reconstruction rows)", "", NOT_RECORDED, NOT_RECORDED]]
    ctx.tables["kh_nufft_recon"] = table(recon_caption(facts), RECON_HEADER, rbody)
    ours_recon = [c for c in recon if c.implementation == "ours"]
    r6 = next((c for c in ours_recon if c.tolerance == 1e-6), None)
    n["kh_nufft_recon_s_1e6"] = fmt(r6.ms / 1e3) if r6 else NOT_RECORDED
    n["kh_nufft_direct_recon_s"] = fmt(direct.ms / 1e3) if direct else NOT_RECORDED
    if direct and ours_recon:
        worst = max(c.err for c in ours_recon)
        n["kh_nufft_image_verdict"] = (f"{'meets' if worst <= direct.err * (1 + SAME_IMAGE_ERROR) else 'does not meet'} "
                                       f"the target (an image error no worse than the direct sums' {fmt(direct.err)}, within "
                                       f"a relative {SAME_IMAGE_ERROR:g}; the NUFFT's largest is {fmt(worst)})")
    else:
        n["kh_nufft_image_verdict"] = "cannot be judged: the reconstructions were not recorded in this run"

    sweep = [c for c in cells if c.implementation == "ours" and c.operation == "adjoint" and c.tolerance is None]
    widths = sorted({c.width for c in sweep})
    wbody = []
    for w in widths:
        row = [str(w)]
        for s in SIGMAS:
            c = next((c for c in sweep if c.width == w and c.oversampling is not None and abs(c.oversampling - s) < 0.02), None)
            row.append(sci(c.err) if c else "")
        wbody.append(row)
    ctx.tables["kh_nufft_widths"] = table(widths_caption(), ["kernel width"] + [f"σ = {s:g}" for s in SIGMAS],
                                          wbody or [[NOT_RECORDED] + [""] * len(SIGMAS)])
