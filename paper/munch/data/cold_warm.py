"""The small inputs timed both ways: the 1e5-sample convolution and the small end of the copy curve, each
warm (the L2 holding what the previous sample left) and cold (the L2 flushed before every sample, `--cold`),
recorded by experiments/definitions/munch/convolution_cold_warm.json and copy_cold_warm.json."""
import statistics

from paper.report.common import cold_warm_table


def convolution_bytes(rows):
    # The least bytes a convolution moves, as `munch bench` counts them: its rate times its time.
    return round(statistics.median(float(r["gbps"]) * float(r["kernel_ms"]) * 1e6 for r in rows))


def build(ctx, facts):
    ctx.tables["table_munch_cold_warm"] = cold_warm_table(
        facts.files, "convolution_cold_warm",
        "Table R@: the 1e5-sample convolution warm and cold; bytes are the least a convolution moves (signal, "
        "filter and output), L2 as recorded for the GPU; a ratio near 1 means the kernel's time does not "
        "depend on where its input starts",
        key=("variant", "signal", "filter"), label=lambda k: f"{k[0]}, {k[1]} x {k[2]}", input_bytes=convolution_bytes)
    sizes = {int(r["bytes"]) for r in facts.files.rows("copy_cold_warm")}
    ends = {str(min(sizes)), str(max(sizes))}
    ctx.tables["table_munch_copy_cold_warm"] = cold_warm_table(
        facts.files, "copy_cold_warm",
        "Table R@: the smallest and largest copies of the small end of the copy curve, warm and cold (GB/s: a "
        "ratio below 1 is a cold copy that is slower)",
        key=("memory", "direction", "bytes"), value="gb_per_s", label=lambda k: f"{k[0]} {k[1]}",
        input_bytes=lambda rows: int(rows[0]["bytes"]), select=lambda k: k[2] in ends)
