#!/usr/bin/env python3
"""Writes data/workunits/*/astronomy_parameters.txt from the thesis-era files (provenance script).

The thesis-era work units are the December 2009 stripe-20 unit with its search vector applied
(2 streams) and the stripe-11 unit p-11-3s-boinc-const3.txt (3 streams, its own values are the vector).
Only the grid step counts change: large = r 700 x mu 1600 x nu 160, small = one eighth of the points
(r 350 x mu 800 x nu 80), tiny = r 20 x mu 40 x nu 8 for tests; convolve stays 120 everywhere.
Usage: python3 data/make_workunits.py PATH/TO/workunits-2009   (run once; the outputs are committed)
"""
import pathlib
import re
import sys

GRIDS = {"large": (700, 1600, 160), "small": (350, 800, 80), "tiny": (20, 40, 8)}


def apply_search_vector(text, values):
    """Overwrite the optimized parameters in the 'set' order of the spec (section 1.2)."""
    out = text.splitlines()
    k = 0

    # Walk blocks: background_parameters + its flags, then each stream's weight and parameters.
    def flags_after(idx):
        for j in range(idx + 1, len(out)):
            if out[j].startswith("optimize_parameter"):
                return j, [int(v) for v in out[j].split(":")[1].split(",")]
        raise ValueError("no flags")
    def overwrite_flagged(i):
        nonlocal k
        key, vals = out[i].split(":")
        vals = [v.strip() for v in vals.split(",")]
        _, fl = flags_after(i)
        for n, f in enumerate(fl):
            if f:
                vals[n] = repr(values[k]); k += 1
        out[i] = key + ": " + ", ".join(vals)

    for i, line in enumerate(out):
        if line.startswith("background_parameters[") or line.startswith("stream_parameters["):
            overwrite_flagged(i)
        elif line.startswith("stream_weight:"):
            opt = next(l for l in out[i:] if l.startswith("optimize_weight"))
            if int(opt.split(":")[1]):
                out[i] = "stream_weight: " + repr(values[k]); k += 1
    if k != len(values):
        raise ValueError(f"used {k} of {len(values)} values")
    return "\n".join(out) + "\n"


def regrid(text, steps):
    nr, nmu, nnu = steps
    for key, n in (("r", nr), ("mu", nmu), ("nu", nnu)):
        text = re.sub(rf"^{key}\[min,max,steps\]: ([^,]+), ([^,]+), \d+",
                      lambda m: f"{key}[min,max,steps]: {m.group(1)}, {m.group(2)}, {n}", text, flags=re.M)
    return text


def main():
    src = pathlib.Path(sys.argv[1])
    out = pathlib.Path(__file__).resolve().parent / "workunits"
    s20 = (src / "astronomy_parameters-20.txt").read_text()
    vec = [float(v) for v in (src / "search_parameters-20.txt").read_text().splitlines()[1].split(":")[1].split()]
    s20 = apply_search_vector(s20, vec)
    s11 = (src / "p-11-3s-boinc-const3.txt").read_text()
    units = {"2s-large": (s20, "large"), "2s-small": (s20, "small"), "3s-large": (s11, "large"),
             "3s-small": (s11, "small"), "tiny": (s20, "tiny")}
    for name, (text, grid) in units.items():
        d = out / name
        d.mkdir(parents=True, exist_ok=True)
        (d / "astronomy_parameters.txt").write_text(regrid(text, GRIDS[grid]))
        print("wrote", d / "astronomy_parameters.txt")


if __name__ == "__main__":
    main()
