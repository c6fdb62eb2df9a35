"""The performance targets of every study in one table: the value, who set it and why, and where the report
judges it. The values come from paper/report/targets.py and paper/mwsep/data/fitting.py, which the verdicts read too."""
from paper.report import targets as t
from paper.report.common import table
from . import fitting

WHO = ("the authors of this rebuild, the source documents stating no such target: some when the work was planned, "
       "others after a first measurement had shown where the time went (the compressed quadrature's, the pipelines' "
       "and the share of cuBLAS among them)")


def build(ctx, facts):
    issue_resource, issue_pct = t.RYOO_DEFAULT_BOUND
    dram = sorted({pct for resource, pct in t.RYOO_BOUND.values() if resource == "DRAM"})
    rows = [
        ["mwsep (fit)", f"a recovery fit of a small unit within {fitting.RECOVERY_SECONDS_TARGET / 60:g} minutes on one GPU",
         "a reader can repeat a recovery fit on one GPU in one sitting", "Fitting a stripe"],
        ["mwsep (fit)", f"two GPUs of one host at least {fitting.TWO_GPU_TARGET:g} times one GPU's evaluations per second",
         "the evaluations of a generation are independent; only the coordination of the host should cost, "
         "about a tenth of linear scaling", "Fitting a stripe"],
        ["mwsep (fit)", f"one fit evaluation at most {fitting.COST_TARGET:g} times the cost of its integral alone",
         "the likelihood's star sum and the search's bookkeeping should cost little beside the integral",
         "Fitting a stripe"],
        ["mwsep (lean variants)", "the best exact FP64 variant at least "
         + " and ".join(f"{r:g} times the public application on {u}" for u, r in t.MWSEP_PEER_RATIO.items())
         + f"; the FP64 pipe {t.MWSEP_FP64_PIPE_PCT} % busy on 3s-large; the whole process at most "
         f"{t.MWSEP_PROCESS_S:g} s; an evaluation inside a fit at most {t.MWSEP_FIT_EVAL_RATIO:g} times its integral; "
         f"the Hessian of the 3-stream unit at least {t.MWSEP_HESSIAN_SAVING:g} times cheaper in integral work",
         "an analysis of the compiled loop put the per-point approach's limit near five times the public "
         "application at full FP64-pipe use; these values ask for most of that limit, with the fixed cost of "
         "CUDA start-up and process exit left in the whole process; the Hessian's stencil changes one or two "
         "parameters per point, so most of its points repeat components already integrated", "Beyond the thesis"],
        ["mwsep (compressed quadrature)", f"a whole `mwsep run` with compressed-f64 on the stripe-11 model with its "
         f"real stars at most {t.MWSEP_COMPRESSED_PROCESS_S:g} s from process start to exit",
         "the compressed integral is a small part of a whole run; a user who runs one likelihood should find the "
         "faster algorithm the faster program too, below the exact path's whole run", "A different algorithm: the compressed "
         "line-of-sight quadrature"],
        ["ryoo (matrix multiplication)", f"the best hand-written SGEMM at {t.RYOO_SGEMM_CUBLAS_PCT} % of cuBLAS FP32 at "
         + " and ".join(f"n = {n}" for n in t.RYOO_SGEMM_TARGET_SIZES) + ", or the profiler's limiter named where it "
         "falls short", "cuBLAS is what a user calls; a ladder whose last step stays within a few per cent of it has "
         "found what the library does, and where it does not the profiler should say why",
         "Matrix multiplication (beyond 2008)"],
        ["ryoo (applications)", f"{issue_pct} % {issue_resource} activity (the share of cycles issuing) for compute-bound kernels; "
         + ", ".join(f"{p} %" for p in dram) + " of the DRAM throughput for "
         + ", ".join(sorted(a for a, (r, _) in t.RYOO_BOUND.items() if r == "DRAM")),
         "a share of the resource the kernel is bound by, read from the profiler, judges the kernel rather than "
         "the GPU it runs on", "The application suite"],
        ["kirk_hwu", f"the best variant of each computation at {t.KIRK_HWU_BOUND_SHARE_PCT} % of the bound the measured "
         "MUFU and FP32 rates imply",
         "the case studies took their final kernels to the hardware's limit; this share of the tighter measured "
         "bound is the bar for near that limit today", "MRI reconstruction and direct Coulomb summation (bounds)"],
        ["kirk_hwu (pipelines)", f"the reconstruction and Q on the fastest MRI kernels at least "
         f"{t.KIRK_HWU_FASTEST_SPEEDUP:g} times faster than on the documents' F6 kernels of the same run, each at "
         f"{t.KIRK_HWU_BOUND_SHARE_PCT} % of the special-function bound",
         "the applications should run on the kernels the study found fastest, not on the slower ones the documents "
         "stopped at", "MRI reconstruction end to end"],
        ["kirk_hwu (NUFFT)", f"the adjoint NUFFT's F^H d at most {t.KIRK_HWU_NUFFT_PEER_RATIO:g} times the time of "
         "cuFINUFFT at the same requested accuracy (same GPU, same run); the reconstruction's image with it no "
         "worse than with the direct sum",
         "the non-uniform FFT is what non-Cartesian MRI uses today; a reader should see how the documents' direct "
         "sum compares with it and how close the study's own NUFFT comes to the reference implementation",
         "MRI reconstruction end to end"],
        ["munch (pipeline)", f"the convolution of 10⁷ samples with its transfers at most "
         f"{t.MUNCH_PIPELINE_FLOOR_RATIO:g} times the overlapped pinned copy floor of the same run",
         "at that size the kernel is a fraction of a per cent of a call that allocates and copies; with persistent "
         "pinned buffers and copies overlapped with compute the copies themselves are the limit",
         "Münch (2009), the pipelined convolution"],
        ["munch", f"short filters: the direct kernel at {t.MUNCH_BANDWIDTH_PCT} % of the measured "
         "streaming bandwidth", "a short filter is bound by memory: a streaming kernel should move its least "
         "traffic near the copy rate the same GPU reaches", "Münch (2009), the convolution targets table"],
        ["munch", f"long filters: the direct kernel at {t.MUNCH_PEAK_PCT} % of the measured FP32 FMA "
         "peak, or the FFT faster", "a long filter is bound by arithmetic; where the FFT is faster, the direct "
         "kernel is the wrong algorithm and the target is the FFT's time", "Münch (2009), the convolution targets table"],
    ]
    ctx.tables["table_targets"] = table(
        "Table R@: the performance targets of every study, who set them and why, and where the report judges "
        f"them. Every one was set by {WHO}.",
        ["study", "target", "why", "judged in"], rows, widths=[14, 36, 34, 16])
