"""The small work units timed both ways: the first and the final variant on the tiny unit and 3s-small, warm
(the L2 holding what the previous sample left) and cold (the L2 flushed before every sample, `--cold`),
recorded by experiments/definitions/mwsep/cold_warm.json."""
from paper.report.common import cold_warm_table


def build(ctx, facts):
    ctx.tables["table_cold_warm"] = cold_warm_table(
        facts.files, "cold_warm",
        "Table R@: the first and the final variant on the two small units, warm and cold (L2 as recorded for the "
        "GPU; the bench's rows do not record the input's bytes); a ratio near 1 means the evaluation's time does "
        "not depend on where its stars start",
        key=("variant", "work_unit"), label=lambda k: f"{k[0]}, {k[1]}")
