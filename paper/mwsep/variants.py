"""The kernel variants' names, the one place the report knows their grammar: the thesis's variants compose
memory-divsqrt-loop-precision from their policy axes (as mwsep composes them), the final variant is named once
(published.json's `final_variant`), and every other thesis variant the report names is the final one with some
axes changed. Bench rows carry the axes as columns beside the name; rows recorded before those columns existed
carry the name only, and their axes are read from it here."""
import json
import pathlib
import statistics

AXES = ("memory", "divsqrt", "loop", "precision")
FINAL = json.loads((pathlib.Path(__file__).resolve().parent / "published.json").read_text())["final_variant"]
# The variants beyond the thesis: the modern kernel in double and in single precision.
MODERN_F64, MODERN_F32 = "modern-f64", "modern-f32"


def axes(row):
    """{axis: value} of a bench row (of a thesis variant); from its columns, else from its name."""
    if all(row.get(a) for a in AXES):
        return {a: row[a] for a in AXES}
    parts = row["variant"].split("-")
    if len(parts) != len(AXES):
        raise ValueError(f"variant {row['variant']!r} is not a thesis variant (memory-divsqrt-loop-precision)")
    return dict(zip(AXES, parts))


def name(axes_):
    """The variant's name from its axes."""
    return "-".join(axes_[a] for a in AXES)


def final_axes():
    """The final variant's axes."""
    return axes({"variant": FINAL})


def variant(**changes):
    """The final variant with the axes @p changes changed: variant(memory="global") is the final kernel with its
    stream constants in global memory."""
    unknown = set(changes) - set(AXES)
    if unknown:
        raise ValueError(f"no such axis: {', '.join(sorted(unknown))} (the axes are {', '.join(AXES)})")
    return name({**final_axes(), **changes})


# The thesis's first CUDA version: no optimisation (IEEE division and square root, the stream loop at run time)
# and the stream constants in global memory.
FIRST = variant(memory="global", divsqrt="ieee", loop="loop")


def medians_by_axes(rows, value="kernel_ms", key=("work_unit",)):
    """Medians of @p value per (memory, divsqrt, loop, precision, *key) over the thesis variants' rows."""
    groups = {}
    for r in rows:
        if r["variant"].startswith("modern-") or r.get("family") == "modern":
            continue
        a = axes(r)
        groups.setdefault(tuple(a[x] for x in AXES) + tuple(r[k] for k in key), []).append(float(r[value]))
    return {k: statistics.median(v) for k, v in groups.items()}
