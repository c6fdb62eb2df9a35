"""The kernel variants as the report reads them: the thesis's final variant, named once (published.json's
`final_variant`), and each bench row's policy axes (memory, divsqrt, loop, precision), which `mwsep bench`
writes as columns beside the variant's name. Rows recorded before those columns existed carry the name only;
their axes are read from it here, the one place the report knows the name's grammar
(memory-divsqrt-loop-precision, as mwsep composes it from the same axes)."""
import json
import pathlib
import statistics

AXES = ("memory", "divsqrt", "loop", "precision")
FINAL = json.loads((pathlib.Path(__file__).resolve().parents[1] / "published.json").read_text())["final_variant"]


def axes(row):
    """{axis: value} of a bench row (of a thesis variant); from its columns, else from its name."""
    if all(row.get(a) for a in AXES):
        return {a: row[a] for a in AXES}
    parts = row["variant"].split("-")
    if len(parts) != len(AXES):
        raise ValueError(f"variant {row['variant']!r} is not a thesis variant (memory-divsqrt-loop-precision)")
    return dict(zip(AXES, parts))


def final_axes():
    """The final variant's axes."""
    return axes({"variant": FINAL})


def medians_by_axes(rows, value="kernel_ms", key=("work_unit",)):
    """Medians of @p value per (memory, divsqrt, loop, precision, *key) over the thesis variants' rows."""
    groups = {}
    for r in rows:
        if r["variant"].startswith("modern-") or r.get("family") == "modern":
            continue
        a = axes(r)
        groups.setdefault(tuple(a[x] for x in AXES) + tuple(r[k] for k in key), []).append(float(r[value]))
    return {k: statistics.median(v) for k, v in groups.items()}
