#!/usr/bin/env python3
"""Writes data/workunits/stripe{11,20,86}-2009/ from the 2009 work units of MilkyWay@Home (provenance script).

The real-stripe units are the 2009 work units on their own full-size grids, with the parameter vector that
MilkyWay@Home's searches had reached written into them:

  stripe11-2009  p-11-3s-boinc-const3.txt, unchanged (3 streams; its own values are the vector)
  stripe20-2009  astronomy_parameters-20.txt with search_parameters-20.txt applied (2 streams)
  stripe86-2009  astronomy_parameters-86.txt with search_parameters-86.txt applied (1 stream, one cut)

Only one thing changes besides the vector: an angle of the vector that lies outside the file's own bounds
[0, 2 pi] is written as its equivalent plus 2 pi (the model depends on theta and phi through their sines
and cosines only), so that the vector lies inside the box a fit from the file's bounds searches. Each folder
gets `astronomy_parameters.txt`, `search_parameters.txt` (the vector as MilkyWay@Home's file gave it, in the
search-vector order, with the angles as written into the unit) and `stars.ref` (where the catalogue is:
the committed SDSS catalogues under tests/data/oracle/stars/, not copied again).

Usage: python3 data/make_stripes.py PATH/TO/workunits-2009   (run once; the outputs are committed)
"""
import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_workunits import apply_search_vector  # noqa: E402  (the same overwrite as the other units)

TWO_PI = 2.0 * math.pi
REPO = "Milkyway-at-home/milkywayathome_client"
COMMIT = "c3871b6f0797f5ddefaba48a04827fdecf808da9"
CATALOGUES = {"11": ("bin/mw_stars/stars-11.txt", 97434), "20": ("bin/test_boinc/stars-20.txt", 105909),
              "86": ("bin/test_boinc/stars-86.txt", 111642)}


def vector_of(search_text):
    """The values of a 2009 search_parameters.txt (its second line)."""
    return [float(v) for v in search_text.splitlines()[1].split(":", 1)[1].split()]


def optimised_slots(text):
    """(name, lower, upper) of every optimised parameter of a work unit, in search-vector order."""
    lines = text.splitlines()
    slots = []

    def values(line):
        return [float(v) for v in line.split(":", 1)[1].split(",")]
    stream = 0
    for i, line in enumerate(lines):
        if line.startswith("background_parameters["):
            lo = values(next(l for l in lines[i:] if l.startswith("background_min")))
            hi = values(next(l for l in lines[i:] if l.startswith("background_max")))
            flags = values(next(l for l in lines[i:] if l.startswith("optimize_parameter")))
            names = ["alpha", "q", "r0", "delta"]
            slots += [(names[k], lo[k], hi[k]) for k in range(len(flags)) if flags[k]]
        elif line.startswith("stream_weight:"):
            stream += 1
            opt = next(l for l in lines[i:] if l.startswith("optimize_weight"))
            lo = float(next(l for l in lines[i:] if l.startswith("stream_weight_min")).split(":")[1])
            hi = float(next(l for l in lines[i:] if l.startswith("stream_weight_max")).split(":")[1])
            if int(opt.split(":")[1]):
                slots.append((f"stream{stream}.epsilon", lo, hi))
        elif line.startswith("stream_parameters["):
            lo = values(next(l for l in lines[i:] if l.startswith("stream_min")))
            hi = values(next(l for l in lines[i:] if l.startswith("stream_max")))
            flags = values(next(l for l in lines[i:] if l.startswith("optimize_parameter")))
            names = ["mu", "r", "theta", "phi", "sigma"]
            slots += [(f"stream{stream}.{names[k]}", lo[k], hi[k]) for k in range(len(flags)) if flags[k]]
    return slots


def into_bounds(text, vector):
    """@p vector with each angle (theta, phi) outside its bounds moved by a multiple of 2 pi into them; the
    list of changes made."""
    out, changes = list(vector), []
    for k, (name, lo, hi) in enumerate(optimised_slots(text)):
        if not (name.endswith(".theta") or name.endswith(".phi")):
            continue
        v = out[k]
        while v < lo:
            v += TWO_PI
        while v > hi:
            v -= TWO_PI
        if v != out[k]:
            if not lo <= v <= hi:
                raise ValueError(f"{name}: no equivalent of {out[k]} lies in [{lo}, {hi}]")
            changes.append(f"{name} {out[k]!r} -> {v!r}")
            out[k] = v
    return out, changes


def vector_file(name, values, note):
    return f"{name}\nparameters [{len(values)}]: " + " ".join(repr(v) for v in values) + f"\nmetadata: {note}\n"


def stars_ref(stripe):
    path, count = CATALOGUES[stripe]
    return (f"repo: {REPO}\ncommit: {COMMIT}\npath: {path}\nnumber_of_stars_used: {count}\n"
            f"copy: ../../../tests/data/oracle/stars/stars-{stripe}.txt\n")


def main():
    src = pathlib.Path(sys.argv[1])
    out = pathlib.Path(__file__).resolve().parent / "workunits"
    units = {}
    s11 = (src / "p-11-3s-boinc-const3.txt").read_text()
    units["stripe11-2009"] = ("11", s11, None, "the unit's own optimised values (p-11-3s-boinc-const3.txt)")
    for stripe in ("20", "86"):
        text = (src / f"astronomy_parameters-{stripe}.txt").read_text()
        search = (src / f"search_parameters-{stripe}.txt").read_text()
        units[f"stripe{stripe}-2009"] = (stripe, text, vector_of(search),
                                         f"search_parameters-{stripe}.txt ({search.splitlines()[0].strip()})")
    for name, (stripe, text, vector, source) in units.items():
        d = out / name
        d.mkdir(parents=True, exist_ok=True)
        if vector is None:
            unit, values = text, None
        else:
            values, changes = into_bounds(text, vector)
            for c in changes:
                print(f"{name}: {c}")
            unit = apply_search_vector(text, values)
        (d / "astronomy_parameters.txt").write_text(unit)
        if values is None:  # the unit's own values, read back from the file in search-vector order
            values = unit_vector(unit)
        (d / "search_parameters.txt").write_text(vector_file(f"mwh_{name}", values, f"MilkyWay@Home's vector: {source}"))
        (d / "stars.ref").write_text(stars_ref(stripe))
        print("wrote", d)


def unit_vector(text):
    """The optimised values of a work unit in search-vector order."""
    lines = text.splitlines()
    vec = []

    def values(line):
        return [float(v) for v in line.split(":", 1)[1].split(",")]
    for i, line in enumerate(lines):
        if line.startswith("background_parameters[") or line.startswith("stream_parameters["):
            flags = values(next(l for l in lines[i:] if l.startswith("optimize_parameter")))
            vals = values(line)
            vec += [vals[k] for k in range(len(flags)) if flags[k]]
        elif line.startswith("stream_weight:"):
            opt = next(l for l in lines[i:] if l.startswith("optimize_weight"))
            if int(opt.split(":")[1]):
                vec.append(float(line.split(":")[1]))
    return vec


if __name__ == "__main__":
    main()
