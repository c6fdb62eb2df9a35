"""The items of the documents that an item-by-item reading found partly or not reproduced, each with its state
in this recording: reproduced (and where), ready to record (the experiment's result not in this GPU's folder: the
command that records it), or not reproducible here (and why). A row whose result is absent is a fallback the
report check follows: once the result is recorded, the row must say where it is reported."""
from paper.report.coverage import build_coverage

STUDY = "munch"
# (id, the document's item, state): state is ("done", where), ("file", study, result, experiment, where) or
# ("not", why).
ITEMS = [
    ("M1", "Table 2.1's hit latencies (global 200-300 cycles, texture about 100, constant as shared as register)",
     ("file", "mwsep", "memory_latency", "memory_latency", "the MilkyWay@Home part's Appendix B, the latency table")),
    ("M41", "vendor lock-in, OpenCL as the remedy (6.5)",
     ("not", "no OpenCL variant of the convolution, rolling ball or matrix product is built: this artifact's "
             "programs are CUDA; the public OpenCL MilkyWay@Home application is measured on the same GPU instead")),
    ("M42", "other limits: the display watchdog (2-5 s), one kernel at a time, no recursion, no debugger (6.6)",
     ("not", "the recording hosts have no display attached, so no watchdog runs; a debugger is an interactive "
             "tool, not a measurement; concurrent kernels and device recursion exist in CUDA 13 and are not "
             "exercised by these programs")),
    ("M46", "future work: tools and auto-tuning, a higher-level API, GPU clusters, double precision and IEEE",
     ("not", "named, not built: no auto-tuner or higher-level API; multi-GPU runs exist for the likelihood "
             "(MilkyWay@Home part), not for these programs; the IEEE table is single precision")),
]


def build(ctx, facts):
    build_coverage(ctx, facts, STUDY, ITEMS)
