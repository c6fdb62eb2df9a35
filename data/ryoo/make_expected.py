#!/usr/bin/env python3
"""Independent outputs of the application suite's small inputs, for the CPU baselines' test.

    python3 data/ryoo/make_expected.py [-o small_expected.json]    write the stored outputs
    python3 data/ryoo/make_expected.py --check small_expected.json   recompute and compare (exit 1 on a difference)

A second program, in standard-library Python, rebuilds each small input from the generators' descriptions
(splitmix64 and the hash of the Petri net; src/ryoo/cpu/*.cpp, kernels/ryoo/*_math.hpp) and computes:
- TPACF (512 points, 2 random sets, 20 bins, seed 1): the DD, DR and RR histograms, every pair's cosine
  rounded exactly as the written fused multiply-adds round it (an exact error term decides the rare ties),
  so the counts must agree exactly;
- PNS (an 8 x 8 net, 512 trajectories of 256 steps, seed 1): the tokens per place and the firings, exactly;
- RC5-72 (seed 1, the key planted at 2^16 / 2 + 2^16 / 7): the challenge's key base, plaintext and
  ciphertext, with RC5-32/12 written from Rivest's description;
- SAXPY in elimination (n = 128, seed 1): the solution of the float system by Gaussian elimination in double
  precision; the C++ single-precision solve must lie within the stated tolerance of it.
"""
import argparse
import json
import math
import pathlib
import struct
import sys

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
ELIMINATION_TOLERANCE = 1e-4  # max |x_float - x| / max |x| accepted by the C++ test


def splitmix(state):
    """(next state, output) of splitmix64."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def mix(z):
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def f32(x):
    """@p x (a double) rounded to the nearest float, ties to even."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_step(x, up):
    """The float next to the float @p x, above when @p up."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    if x == 0:
        return struct.unpack("<f", struct.pack("<I", 1 if up else 0x80000001))[0]
    toward_larger_magnitude = (x > 0) == up
    bits += 1 if toward_larger_magnitude else -1
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def fmaf(a, b, c):
    """fmaf(a, b, c) for floats a, b, c: a b + c rounded once to a float. a b is exact in a double; the double
    sum s and its exact error e (two-sum) give the exact value s + e; rounding s to a float is correct unless
    s is a tie between two floats and e is not zero, which is then settled by the sign of e."""
    p = a * b
    s = p + c
    bp = s - c
    e = (p - bp) + (c - (s - bp))
    r = f32(s)
    if e != 0 and r != s:
        lo, hi = (r, f32_step(r, True)) if r < s else (f32_step(r, False), r)
        if s - lo == hi - s:  # a tie: the exact value lies on the side of e
            r = hi if e > 0 else lo
    return r


# ---- TPACF ---------------------------------------------------------------------------------------------

def tpacf_input(points, sets, bins, seed):
    state = seed

    def uniform():
        nonlocal state
        state, z = splitmix(state)
        return (z >> 11) * 2.0 ** -53

    def on_sphere():
        z = 2 * uniform() - 1
        phi = 2 * math.pi * uniform()
        r = math.sqrt(max(0.0, 1 - z * z))
        return (r * math.cos(phi), r * math.sin(phi), z)

    def stored(v):
        norm = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
        return tuple(f32(c / norm) for c in v)

    centres = [on_sphere() for _ in range(64)]
    data = []
    for i in range(points):
        if i % 2 == 0:
            data.append(stored(on_sphere()))
        else:
            c = centres[int(uniform() * 64) % 64]
            spread = 0.02
            x = c[0] + spread * (2 * uniform() - 1)
            y = c[1] + spread * (2 * uniform() - 1)
            z = c[2] + spread * (2 * uniform() - 1)
            data.append(stored((x, y, z)))
    random = [stored(on_sphere()) for _ in range(points * sets)]
    cosines = []
    for e in range(bins + 1):
        arcmin = math.pow(10.0, 4.0 * e / bins)
        cosines.append(f32(math.cos(arcmin / 60.0 * math.pi / 180.0)))
    return data, [random[s * points:(s + 1) * points] for s in range(sets)], cosines


def tpacf_histogram(a, b, self_pairs, cosines):
    slots = len(cosines) + 1
    h = [0] * slots
    for i, (ax, ay, az) in enumerate(a):
        for j in range(i + 1 if self_pairs else 0, len(b)):
            bx, by, bz = b[j]
            d = fmaf(ax, bx, fmaf(ay, by, f32(az * bz)))
            k = 0
            while k < len(cosines) and cosines[k] >= d:  # cosines decrease: slot = edges with cosine >= d
                k += 1
            h[k] += 1
    return h


def tpacf(points=512, sets=2, bins=20, seed=1):
    data, randoms, cosines = tpacf_input(points, sets, bins, seed)
    return {"points": points, "random_sets": sets, "bins": bins, "seed": seed,
            "dd": tpacf_histogram(data, data, True, cosines),
            "dr": [tpacf_histogram(data, r, False, cosines) for r in randoms],
            "rr": [tpacf_histogram(r, r, True, cosines) for r in randoms]}


# ---- PNS -----------------------------------------------------------------------------------------------

def pns_hash(seed, trajectory, step):
    h = (seed ^ ((trajectory * 0x9E3779B1) & MASK32) ^ ((step * 0x85EBCA77) & MASK32)) & MASK32
    h ^= h >> 16
    h = (h * 0x7FEB352D) & MASK32
    h ^= h >> 15
    h = (h * 0x846CA68B) & MASK32
    h ^= h >> 16
    return h


def pns(edge=8, trajectories=512, steps=256, seed=1):
    places = edge * edge
    tokens = [0] * places
    firings = 0
    for t in range(trajectories):
        m = [1] * places
        for s in range(steps):
            tr = (pns_hash(seed, t, s) * places) >> 32
            i, j = divmod(tr, edge)
            down, right = (i + 1) % edge, (j + 1) % edge
            a, b = i * edge + j, i * edge + right
            if m[a] and m[b]:
                m[a] -= 1
                m[b] -= 1
                m[down * edge + j] += 1
                m[down * edge + right] += 1
                firings += 1
        tokens = [x + y for x, y in zip(tokens, m)]
    return {"edge": edge, "trajectories": trajectories, "steps": steps, "seed": seed, "tokens": tokens,
            "firings": firings}


# ---- RC5-72 --------------------------------------------------------------------------------------------

def rotl(x, s):
    s &= 31
    return ((x << s) | (x >> (32 - s))) & MASK32 if s else x


def rc5_encrypt(key_words, a, b, rounds=12):
    """RC5-32/@p rounds: key schedule from the key words, then one block."""
    t = 2 * (rounds + 1)
    S = [(0xB7E15163 + i * 0x9E3779B9) & MASK32 for i in range(t)]
    L = list(key_words)
    x = y = 0
    i = j = 0
    for _ in range(3 * max(t, len(L))):
        x = S[i] = rotl((S[i] + x + y) & MASK32, 3)
        y = L[j] = rotl((L[j] + x + y) & MASK32, (x + y) & MASK32)
        i, j = (i + 1) % t, (j + 1) % len(L)
    a, b = (a + S[0]) & MASK32, (b + S[1]) & MASK32
    for r in range(1, rounds + 1):
        a = (rotl(a ^ b, b) + S[2 * r]) & MASK32
        b = (rotl(b ^ a, a) + S[2 * r + 1]) & MASK32
    return a, b


def rc5_key(base_lo, base_hi, index):
    lo = (base_lo + index) & MASK64
    carry = 1 if lo < base_lo else 0
    return [lo & MASK32, lo >> 32, (base_hi + carry) & 0xFF]


def rc5(seed=1, cpu_keys=1 << 16):
    planted = cpu_keys // 2 + cpu_keys // 7
    base_lo, base_hi, text = mix(seed * 4 + 1), mix(seed * 4 + 2) & 0xFF, mix(seed * 4 + 3)
    plain = [text & MASK32, text >> 32]
    cipher = list(rc5_encrypt(rc5_key(base_lo, base_hi, planted), *plain))
    return {"seed": seed, "planted": planted, "base_lo": str(base_lo), "base_hi": base_hi, "plain": plain,
            "cipher": cipher}


# ---- SAXPY in elimination --------------------------------------------------------------------------------

def elimination(n=128, seed=1):
    state = seed
    values = []
    for _ in range(n * n):
        state, z = splitmix(state)
        values.append(f32(((z >> 40) - (1 << 23)) * 2.0 ** -23))  # 24 bits: uniform in [-1, 1)
    a = [[f32(values[i * n + j] + (n if i == j else 0)) for j in range(n)] for i in range(n)]
    b = [f32(sum_in_order(row)) for row in a]
    # Gaussian elimination in double precision (no pivoting: the system is diagonally dominant), each row's
    # update and the back substitution's sums formed exactly by math.fsum and rounded once.
    for k in range(n - 1):
        for i in range(k + 1, n):
            m = a[i][k] / a[k][k]
            a[i] = [a[i][j] - m * a[k][j] if j >= k else a[i][j] for j in range(n)]
            b[i] -= m * b[k]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = math.fsum([b[i]] + [-a[i][j] * x[j] for j in range(i + 1, n)]) / a[i][i]
    return {"n": n, "seed": seed, "tolerance": ELIMINATION_TOLERANCE, "x": x}


def sum_in_order(row):
    """The right-hand side as the generator forms it: the row's floats summed left to right in double."""
    s = 0.0
    for v in row:
        s += float(v)
    return s


def compute():
    return {"about": "independent outputs of the suite's small inputs: data/ryoo/make_expected.py",
            "tpacf": tpacf(), "pns": pns(), "rc5": rc5(), "elimination": elimination()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default=str(pathlib.Path(__file__).with_name("small_expected.json")))
    ap.add_argument("--check", metavar="FILE", help="recompute and compare with FILE")
    args = ap.parse_args()
    out = compute()
    if args.check:
        stored = json.loads(pathlib.Path(args.check).read_text())
        if stored != json.loads(json.dumps(out)):
            bad = [k for k in out if json.loads(json.dumps(out[k])) != stored.get(k)]
            print(f"make_expected: {args.check} differs from the recomputation in: {', '.join(bad)}")
            return 1
        print(f"make_expected: {args.check} reproduced")
        return 0
    path = pathlib.Path(args.output)
    if path.exists():
        print(f"make_expected: {path} exists; remove it first (a command never writes over its output)")
        return 1
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(out, indent=1) + "\n")
    tmp.replace(path)
    print(f"make_expected: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
