"""The small MRI input timed both ways: the first and last steps of the ladder on the small input, warm (the
L2 holding what the previous sample left) and cold (the L2 flushed before every sample, `--cold`), recorded
by experiments/definitions/kirk_hwu/mri_cold_warm.json."""
from paper.report.common import cold_warm_table


def build(ctx, facts):
    ctx.tables["kh_mri_cold_warm"] = cold_warm_table(
        facts.files, "mri_cold_warm",
        "Table R@: the first and the last step of the MRI ladder on the small input, warm and cold (L2 as recorded "
        "for the GPU; the bench's rows do not record the input's bytes); a ratio near 1 means the kernel's time "
        "does not depend on where its input starts",
        key=("variant", "size"), label=lambda k: f"{k[0]}, {k[1]}")
