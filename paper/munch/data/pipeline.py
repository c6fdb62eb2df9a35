"""The convolution with its transfers as a caller would run it today (convolution_pipeline, every mode in one run):
the thesis's per-call procedure with the direct kernel, persistent pinned buffers without chunks, the chunked
pipeline over three streams (per chunk count) and as a CUDA graph, the same with the caller's data in pageable
memory, and the pinned copy floor of the same bytes, serial and with both directions at once. Each time against
the overlapped floor; the target: the best pipelined mode within MUNCH_PIPELINE_FLOOR_RATIO of it. Until the run
is recorded on a GPU the table's cells read "not measured" and the fallback names the file it waits for."""
from paper.report.common import MissingData, fmt, table
from paper.report.facts import available
from paper.report.targets import MUNCH_PIPELINE_FLOOR_RATIO

from ..facts import PIPELINE_MODES

LABELS = {"per-call": "per call (the thesis's procedure): allocate, copy from pageable memory, compute, copy back, free",
          "unchunked-pinned": "persistent pinned buffers, one upload, the kernels, one download",
          "pipelined": "pinned, streamed in chunks over three streams",
          "pipelined-graph": "pinned, streamed in chunks, replayed as one CUDA graph",
          "pipelined-pageable": "streamed in chunks, the caller's data copied in and out of pinned buffers",
          "floor-serial": "copy floor: the signal up, then the output down (pinned)",
          "floor-overlapped": "copy floor: both directions at once (pinned)"}
HEADER = ["mode", "chunks", "time", "GB/s", "over the overlapped floor"]
NOT_MEASURED = "not measured"
NUMBERS = ["munch_pipe_best_ms", "munch_pipe_best_mode", "munch_pipe_floor_ms", "munch_pipe_floor_ratio",
           "munch_pipe_per_call_ms", "munch_pipe_gain", "munch_pipe_verdict", "munch_pipe_signal", "munch_pipe_filter"]


def caption(gpu):
    return (f"Table R@: the convolution with its transfers on the {gpu}, every mode in one run (convolution_pipeline; "
            "host clock from the first copy to the last output on the host, median of the samples; GB/s: the signal's "
            "and the output's bytes over the time). Every pipelined and unchunked output equals the direct variant's "
            "bit for bit, and that one the CPU reference, before anything is timed. Chunks: the pieces the signal is "
            "streamed in (one row per count recorded).")


def build(ctx, facts):
    n = ctx.n
    try:
        gpu = available(facts.roof).gpu
    except MissingData:
        gpu = "GPU"
    try:
        p = available(facts.pipeline)
    except MissingData as e:
        ctx.fallback("the pipelined convolution (table table_munch_pipeline)", e)
        ctx.tables["table_munch_pipeline"] = table(caption(gpu), HEADER,
                                                   [[LABELS[m], NOT_MEASURED, NOT_MEASURED, NOT_MEASURED, NOT_MEASURED]
                                                    for m in PIPELINE_MODES])
        for name in NUMBERS:
            n[name] = f"({NOT_MEASURED})"
        return
    floor = min(v for (m, _), v in p.ms.items() if m == "floor-overlapped")
    body = []
    for mode in PIPELINE_MODES:
        for (m, chunks), ms in sorted(p.ms.items(), key=lambda kv: kv[0][1]):
            if m == mode:
                body.append([LABELS[mode], str(chunks) if chunks else "", fmt(ms) + " ms", fmt(p.bytes / ms / 1e6),
                             fmt(ms / floor) + "x"])
    ctx.tables["table_munch_pipeline"] = table(caption(gpu), HEADER, body)
    pipelined = {(m, c): v for (m, c), v in p.ms.items() if m in ("pipelined", "pipelined-graph")}
    if not pipelined:
        raise MissingData("convolution_pipeline.csv: no pipelined rows", [facts.files.path("convolution_pipeline")])
    (mode, chunks), best = min(pipelined.items(), key=lambda kv: kv[1])
    per_call = min(v for (m, _), v in p.ms.items() if m == "per-call")
    n["munch_pipe_signal"] = f"{p.signal:,}".replace(",", "\u202f")
    n["munch_pipe_filter"] = str(p.filter)
    n["munch_pipe_best_ms"] = fmt(best)
    n["munch_pipe_best_mode"] = f"{LABELS[mode]}, {chunks} chunks"
    n["munch_pipe_floor_ms"] = fmt(floor)
    n["munch_pipe_floor_ratio"] = fmt(best / floor)
    n["munch_pipe_per_call_ms"] = fmt(per_call)
    n["munch_pipe_gain"] = fmt(per_call / best)
    n["munch_pipe_verdict"] = (f"{'meets' if best / floor <= MUNCH_PIPELINE_FLOOR_RATIO else 'does not meet'} the target "
                               f"(at most {fmt(MUNCH_PIPELINE_FLOOR_RATIO)} times the overlapped floor)")
