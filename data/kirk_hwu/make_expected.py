#!/usr/bin/env python3
"""Independent FP64 evaluation of the tiny MRI and Coulomb inputs, for the CPU references' test.

    python3 data/kirk_hwu/make_expected.py [-o tiny_expected.json]   write the stored outputs
    python3 data/kirk_hwu/make_expected.py --check tiny_expected.json  recompute and compare (exit 1 on a difference)

It rebuilds the inputs from the generator's description (SplitMix64, top 53 bits to a double, rounded to
float; src/kirk_hwu/inputs.cpp), then evaluates the formulas of the specification (§2.1, §3.1) in double
precision with Python's standard library alone, summing each output with math.fsum (exactly rounded): a
different program, language and summation from the C++ references it checks.
"""
import argparse
import json
import math
import pathlib
import sys

import struct

MASK = (1 << 64) - 1
TOLERANCE = 1e-10  # max|C++ − NumPy| / max|NumPy| accepted by the C++ test


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def uniform(self, lo, hi):
        return lo + (hi - lo) * ((self.next() >> 11) * 2.0 ** -53)


def f32(x):
    """@p x rounded to the nearest float (IEEE single precision)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def seed_of(size_index, computation):
    return 1000 * computation + size_index + 1


def mri_input(grid=8, samples=300, seed=seed_of(0, 1)):
    coords = [f32((i - grid // 2) / grid) for i in range(grid)]
    # voxel n = i + g (j + g l)
    voxels = [(coords[i], coords[j], coords[l]) for l in range(grid) for j in range(grid) for i in range(grid)]
    rng = SplitMix64(seed)
    half = grid / 2.0
    cols = {k: [] for k in ("kx", "ky", "kz", "pr", "pi", "dr", "di")}
    for _ in range(samples):
        for k in ("kx", "ky", "kz"):
            cols[k].append(f32(rng.uniform(-half, half)))
        for k in ("pr", "pi", "dr", "di"):
            cols[k].append(f32(rng.uniform(-1, 1)))
    return voxels, cols


def mri_sums(voxels, s, which):
    """Q or F^H d of every voxel: lists of real and imaginary parts."""
    samples = list(zip(s["kx"], s["ky"], s["kz"], s["pr"], s["pi"], s["dr"], s["di"]))
    real, imag = [], []
    for (x, y, z) in voxels:
        rs, is_ = [], []
        for kx, ky, kz, pr, pi, dr, di in samples:
            e = 2 * math.pi * (kx * x + ky * y + kz * z)
            c, sn = math.cos(e), math.sin(e)
            if which == "q":
                w = pr * pr + pi * pi
                rs.append(w * c)
                is_.append(w * sn)
            else:
                mr, mi = pr * dr + pi * di, pr * di - pi * dr
                rs.append(mr * c - mi * sn)
                is_.append(mi * c + mr * sn)
        real.append(math.fsum(rs))
        imag.append(math.fsum(is_))
    return real, imag


def coulomb_input(gx=16, gy=16, gz=2, atoms=100, seed=seed_of(0, 2)):
    h = f32(0.1)
    counts = (gx, gy, gz)
    rng = SplitMix64(seed)
    out = []
    while len(out) < atoms:
        p = []
        for a in range(3):
            extent = (counts[a] - 1) * h
            p.append(rng.uniform(-0.1 * extent - h, 1.1 * extent + h))
        q = rng.uniform(-1, 1)
        gap2 = 0.0
        for a in range(3):
            c = f32(p[a])
            i = min(max(math.floor(abs(c / h) + 0.5) * (1 if c >= 0 else -1), 0), counts[a] - 1)
            gap2 += (c - i * h) ** 2
        if gap2 < (h / 10) ** 2:
            continue
        out.append([f32(p[0]), f32(p[1]), f32(p[2]), f32(q)])
    return counts, h, out


def coulomb_potential(counts, h, atoms):
    """The potential at every lattice point, index GX·GY·k + GX·j + i."""
    gx, gy, gz = counts
    coord = lambda i: f32(i * h)  # the float product i·h, as the C++ code forms it
    out = []
    for k in range(gz):
        for j in range(gy):
            for i in range(gx):
                px, py, pz = coord(i), coord(j), coord(k)
                out.append(math.fsum(q / math.sqrt((px - ax) ** 2 + (py - ay) ** 2 + (pz - az) ** 2)
                                     for ax, ay, az, q in atoms))
    return out


def evaluate():
    voxels, s = mri_input()
    result = {"tolerance": TOLERANCE,
              "inputs": "tiny: MRI 8^3 voxels x 300 samples, Coulomb 16x16x2 lattice and 100 atoms (src/kirk_hwu/inputs.cpp)"}
    for key, which in (("mri_q", "q"), ("mri_fhd", "fhd")):
        r, i = mri_sums(voxels, s, which)
        result[key] = {"real": r, "imag": i}
    counts, h, atoms = coulomb_input()
    result["coulomb"] = coulomb_potential(counts, h, atoms)
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", type=pathlib.Path, default=pathlib.Path(__file__).with_name("tiny_expected.json"))
    p.add_argument("--check", type=pathlib.Path)
    a = p.parse_args()
    new = evaluate()
    if a.check:
        old = json.loads(a.check.read_text())
        worst = 0.0
        for key in ("mri_q", "mri_fhd", "coulomb"):
            pairs = [(old[key], new[key])] if key == "coulomb" else [(old[key][c], new[key][c]) for c in ("real", "imag")]
            for o, n in pairs:
                worst = max(worst, max(abs(a - b) for a, b in zip(o, n)) / max(abs(a) for a in o))
        print(f"largest relative difference from {a.check}: {worst:.3g}")
        return 0 if worst <= 1e-12 else 1
    a.output.write_text(json.dumps(new, indent=0) + "\n")
    print(f"wrote {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
