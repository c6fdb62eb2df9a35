"""The items of the documents that an item-by-item reading found partly or not reproduced, each with its state
in this recording: reproduced (and where), ready to record (the experiment's result not in this GPU's folder: the
command that records it), or not reproducible here (and why). A row whose result is absent is a fallback the
report check follows: once the result is recorded, the row must say where it is reported."""
from paper.report.coverage import build_coverage

STUDY = "kirk_hwu"
# (id, the document's item, state): state is ("done", where), ("file", study, result, experiment, where) or
# ("not", why).
ITEMS = [
    ("K7", "increased resolutions: a 1024^3 image in subsets of voxels",
     ("file", "kirk_hwu", "mri_split", "mri_split", "the increased-resolutions table")),
    ("K8, K9", "13 operations to 14 accesses per pair, 7 accesses with registers",
     ("file", "kirk_hwu", "sass_counts", "sass_counts", "the compiled loops' counts; executed counts: ryoo ncu_mri_cp_mix")),
    ("K19", "9 operations to 4 accesses per Coulomb pair, over 10:1 by broadcast",
     ("file", "ryoo", "ncu_mri_cp_mix", "ncu_mri_cp_mix", "the executed counts per L2 word")),
    ("L9", "the CPU rows' linear solver (1.59, 1.61 min) and the 108x",
     ("file", "kirk_hwu", "mri_solver_cpu", "mri_solver_cpu", "the summary table's CPU rows")),
    ("RC6", "a tuned CPU loop (about 4.3x over the original)",
     ("file", "kirk_hwu", "cpu_tuned", "cpu_tuned", "the tuned CPU loop table")),
]


def build(ctx, facts):
    build_coverage(ctx, facts, STUDY, ITEMS)
