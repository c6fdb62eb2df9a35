"""The items of the documents that an item-by-item reading found partly or not reproduced, each with its state
in this recording: reproduced (and where), ready to record (the experiment's result not in this GPU's folder: the
command that records it), or not reproducible here (and why). A row whose result is absent is a fallback the
report check follows: once the result is recorded, the row must say where it is reported."""
from paper.report.coverage import build_coverage

STUDY = "ryoo"
# (id, the document's item, state): state is ("done", where), ("file", study, result, experiment, where) or
# ("not", why).
ITEMS = [
    ("RC1", "the 8800 GTX's peaks: 345.6 and 388.8 GFLOPS, 172.8 G op/s, 86.4 GB/s", ("done", "the peaks table")),
    ("RE8", "the bandwidth arithmetic: 173 GB/s needed, an eighth after tiling", ("done", "the peaks and bandwidth section")),
    ("RC12", "footnote 5: about 100x over a CPU binary without SIMD", ("done", "the library and CPU section")),
    ("RC13", "91.14 GFLOPS, similar to the libraries of the time", ("done", "the library and CPU section")),
    ("RE14", "common-subexpression and redundant-load elimination raise registers and cost a block",
     ("file", "ryoo", "cse_pair", "cse_pair,variants", "the elimination pair's table")),
    ("RC6", "the MRI and CP speed-ups against a CPU tuned about 4.3x",
     ("file", "kirk_hwu", "cpu_tuned", "cpu_tuned", "Table 3's column against a tuned CPU; the kirk_hwu study's tuned loop")),
    ("RE15", "the special-function units give about 30 % of the MRI speed-up",
     ("file", "kirk_hwu", "mri_sfu_share", "mri_sfu_share",
      "the kirk_hwu study's SFU table (constant records from the ladder already)")),
    ("RC9", "LBM limited by the shared memory's capacity",
     ("file", "ryoo", "app_lbm_capacity", "app_lbm_capacity", "the LBM capacity table")),
    ("RC11", "automated optimisation, register control, the drift between CUDA versions (future work)",
     ("not", "one toolkit (CUDA 13) on the recording hosts, and the automated search is the paper's future work, "
             "not a result; register control is exercised by the register cap and the ballast")),
]


def build(ctx, facts):
    build_coverage(ctx, facts, STUDY, ITEMS)
