"""The provenance of every result the chapter read: its GPU or host, driver, CUDA, commits and date."""
import json

from report.common import rel, table


def build(ctx):
    body = []
    for path in sorted(ctx.read, key=str):
        meta = path.with_name(path.name.rsplit(".", 1)[0] + ".meta.json")
        m = json.loads(meta.read_text()) if meta.exists() else {}
        commits = m.get("git_commits") or [m.get("git_commit", "")]
        body.append([rel(path).replace("experiments/results/", "").replace("/", "/\u200b"),
                     (m.get("gpu_name") or m.get("host_cpu", "")).replace("NVIDIA ", ""), m.get("driver_version", ""),
                     m.get("cuda_version", ""), ", ".join(str(x)[:7] for x in commits), m.get("date_utc", "")[:10]])
    ctx.tables["table_munch_provenance"] = table(
        "Table R@: provenance of every recorded result of this chapter; each has a provenance file beside it with the "
        "exact command, compiler flags and host", ["result", "GPU / host", "driver", "CUDA", "commits", "date"], body,
        widths=[34, 14, 12, 7, 18, 15])
