#!/usr/bin/env python3
"""Converts one of our work units (2009 format) into the input format of the public MilkyWay@Home
separation application (the "peer", v1.93, which reads `parameters_version: 0.04` files).

    python3 experiments/peer/convert_workunit.py data/workunits/3s-large/astronomy_parameters.txt -o p3s.txt
    python3 experiments/peer/convert_workunit.py data/workunits/2s-large --compare ../shared/peer/workunits/wu20_large.txt

The input is an `astronomy_parameters.txt` in the 2009 format of the specification (section 1.1), as in
`data/workunits/<name>/`; a folder stands for the file of that name inside it. The output describes the
same model to the peer. Exactly these lines change, and nothing else:

1. `parameters_version: 0.04` is added as the first line. The peer reads a version number first and takes
   0.01 when there is none; any later version makes it expect the `aux_bg_profile` line (item 4). We write
   0.04, the version of the peer's own test files. A version line of the input (which our reader accepts
   and ignores) is replaced by this one.
2. `background_weight` changes meaning, so its value changes. In 2009 it is eps_bg, the logarithm of the
   background's mixture weight (the weight is exp(eps_bg); 0.0 in every unit of the study). The peer fixes
   that logarithm at 0 (its sum of exponentiated weights starts at 1) and uses the line instead for the
   halo fraction h in [0, 1] of a background made of h x halo + (1 - h) x thick disk. Our background is
   the halo alone with eps_bg = 0, which is h = 1.0. A unit with eps_bg != 0 cannot be written for the peer
   and is refused.
3. Four lines are added after `background_weight`: `background_weight_step: 0.0`,
   `background_weight_min: 0.0`, `background_weight_max: 1.0` and `optimize_background_weight: 0`. They are
   search metadata (the halo fraction is not optimized), but the peer reads them there; without the last
   one its optimize flag for the weight is undefined and the count of parameters it expects changes.
4. `aux_bg_profile: 0` is written after `sgr_coordinates` (required by version 0.04). An input that already
   has the line keeps it in place; a value other than 0 is refused (the peer takes the auxiliary profile
   from parameters that 2009 files do not carry in the same places).

Every other line is copied with its text unchanged, so every number reaches the peer bit for bit. Three
things deliberately stay as they are: r0 (the peer ignores the file's value and uses 12.0, a documented
difference of its model, not of the file), the stream azimuths (the peer's own copy of the stripe-20 unit
writes them modulo 2 pi, which is the same model), and the integrals' factor 1.8 (a property of the peer's
program, corrected when its output is read; see docs/peer.md).

Inputs the peer cannot run are refused with a message naming the line: a file already in the peer's format
(it has the background-weight lines of item 3),
number_parameters other than 4, sgr_coordinates = 1, odd step counts (the peer requires even ones),
convolve odd or above 256.

`--compare FILE` reads the result and FILE the way the peer reads its input and lists every value that
differs (azimuths compared modulo 2 pi); it exits with status 1 if any does.
"""
import argparse
import math
import pathlib
import re
import sys

PEER_VERSION = "0.04"
# The lines added after background_weight, in the order the peer reads them.
BACKGROUND_WEIGHT_LINES = [
    ("background_weight_step", "0.0"),
    ("background_weight_min", "0.0"),
    ("background_weight_max", "1.0"),
    ("optimize_background_weight", "0"),
]
HALO_FRACTION = "1.0"
STREAM_PARAMETER_COUNT = 5
AZIMUTH_INDEX = 3          # stream_parameters: mu, r, theta, phi, sigma
MAX_CONVOLVE = 256


class FormatError(ValueError):
    """An input line that is missing, out of order, malformed or not representable for the peer."""


def _lines(text):
    """(line number, key, value text, line text) for each non-blank line; the key ends at the first colon."""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if ":" not in stripped:
            raise FormatError(f"line {number}: no 'key: value' in {stripped!r}")
        key, value = stripped.split(":", 1)
        out.append((number, key.strip(), value.strip(), line.rstrip()))
    return out


class _Reader:
    """Walks the lines in order; every expect() names the line it needed when it is not there."""

    def __init__(self, text, source):
        self.items = _lines(text)
        self.pos = 0
        self.source = source

    def peek_key(self):
        return self.items[self.pos][1] if self.pos < len(self.items) else None

    def expect(self, key):
        if self.pos >= len(self.items):
            raise FormatError(f"{self.source}: ends where '{key}' was expected")
        number, found, value, line = self.items[self.pos]
        if found != key:
            raise FormatError(f"{self.source}: line {number}: expected '{key}', found '{found}'")
        self.pos += 1
        return number, value, line

    def optional(self, key):
        return self.expect(key) if self.peek_key() == key else None

    def finish(self):
        if self.pos < len(self.items):
            number, key, _, _ = self.items[self.pos]
            raise FormatError(f"{self.source}: line {number}: unexpected '{key}' after the last cut")


def _numbers(value, kind, number, key, count=None):
    parts = [p.strip() for p in value.split(",")]
    try:
        values = [kind(p) for p in parts]
    except ValueError:
        raise FormatError(f"line {number}: '{key}' holds a value that is not a {kind.__name__}: {value!r}") from None
    if count is not None and len(values) != count:
        raise FormatError(f"line {number}: '{key}' has {len(values)} values, expected {count}")
    return values


def _array(reader, name, kind, count):
    """Reads `name[count]: v1, v2, ...`; the bracketed count must be the expected one."""
    key = f"{name}[{count}]"
    if reader.peek_key() is not None and reader.peek_key().startswith(name + "[") and reader.peek_key() != key:
        number = reader.items[reader.pos][0]
        raise FormatError(f"{reader.source}: line {number}: expected '{key}', found '{reader.peek_key()}'")
    number, value, line = reader.expect(key)
    return _numbers(value, kind, number, key, count), line


def _area(reader, cut=False):
    """Reads `<axis>[min,max,steps]: min, max, steps` for r, mu and nu (for a cut, `<axis>_cut[min,max,steps][i]`,
    whose index both programs read and ignore); returns ((min, max, steps) x 3, [(line number, key, line)])."""
    areas, lines = [], []
    for axis in ("r", "mu", "nu"):
        if cut:
            found = reader.peek_key() or ""
            key = found if re.fullmatch(rf"{axis}_cut\[min,max,steps\]\[\d+\]", found) else f"{axis}_cut[min,max,steps][i]"
        else:
            key = f"{axis}[min,max,steps]"
        number, value, line = reader.expect(key)
        parts = [p.strip() for p in value.split(",")]
        if len(parts) != 3:
            raise FormatError(f"line {number}: '{key}' needs min, max, steps")
        try:
            lo, hi, steps = float(parts[0]), float(parts[1]), int(parts[2])
        except ValueError:
            raise FormatError(f"line {number}: '{key}' is not 'min, max, steps': {value!r}") from None
        areas.append((lo, hi, steps))
        lines.append((number, key, line))
    return areas, lines


def _check_even(areas, lines):
    for (lo, hi, steps), (number, key, _) in zip(areas, lines):
        if steps <= 0 or steps % 2:
            raise FormatError(f"line {number}: '{key}' has {steps} steps; the peer needs a positive even count")


def convert(text, source="<input>"):
    """Returns the peer-format text of a 2009-format astronomy_parameters text (see the module docstring)."""
    r = _Reader(text, source)
    r.optional("parameters_version")       # our reader accepts and ignores one; the peer's is written below
    out = [f"parameters_version: {PEER_VERSION}"]

    number, value, line = r.expect("number_parameters")
    n_bg = _numbers(value, int, number, "number_parameters", 1)[0]
    if n_bg != 4:
        raise FormatError(f"{source}: line {number}: number_parameters = {n_bg}; the peer reads 4 background "
                          "parameters (7 means the 2009 auxiliary profile, which it cannot take from this file)")
    out.append(line)

    number, value, line = r.expect("background_weight")
    eps_bg = _numbers(value, float, number, "background_weight", 1)[0]
    if r.peek_key() in {k for k, _ in BACKGROUND_WEIGHT_LINES}:
        raise FormatError(f"{source}: line {r.items[r.pos][0]}: '{r.peek_key()}': the file is already in the "
                          "peer's format, not the 2009 one")
    if eps_bg != 0.0:
        raise FormatError(f"{source}: line {number}: background_weight (the background's log-weight) is "
                          f"{eps_bg}; the peer fixes it at 0 and uses the line for the halo fraction")
    out.append(f"background_weight: {HALO_FRACTION}")
    out.extend(f"{k}: {v}" for k, v in BACKGROUND_WEIGHT_LINES)

    for name, kind in (("background_parameters", float), ("background_step", float),
                       ("background_min", float), ("background_max", float), ("optimize_parameter", int)):
        out.append(_array(r, name, kind, n_bg)[1])

    number, value, line = r.expect("number_streams")
    n_streams, per_stream = _numbers(value, int, number, "number_streams", 2)
    if per_stream != STREAM_PARAMETER_COUNT or not 0 <= n_streams:
        raise FormatError(f"{source}: line {number}: number_streams must be 'S, {STREAM_PARAMETER_COUNT}'")
    out.append(line)
    for _ in range(n_streams):
        out.append(r.expect("stream_weight")[2])
        out.append(r.expect("stream_weight_step")[2])
        out.append(r.expect("stream_weight_min")[2])
        out.append(r.expect("stream_weight_max")[2])
        out.append(r.expect("optimize_weight")[2])
        for name, kind in (("stream_parameters", float), ("stream_step", float), ("stream_min", float),
                           ("stream_max", float), ("optimize_parameter", int)):
            out.append(_array(r, name, kind, STREAM_PARAMETER_COUNT)[1])

    number, value, line = r.expect("convolve")
    convolve = _numbers(value, int, number, "convolve", 1)[0]
    if convolve <= 0 or convolve > MAX_CONVOLVE or convolve % 2:
        raise FormatError(f"{source}: line {number}: convolve = {convolve}; the peer needs an even count <= 256")
    out.append(line)

    number, value, line = r.expect("sgr_coordinates")
    if _numbers(value, int, number, "sgr_coordinates", 1)[0] != 0:
        raise FormatError(f"{source}: line {number}: sgr_coordinates = 1 is not implemented by the peer")
    out.append(line)

    aux = r.optional("aux_bg_profile")
    if aux is not None:
        number, value, line = aux
        if _numbers(value, int, number, "aux_bg_profile", 1)[0] != 0:
            raise FormatError(f"{source}: line {number}: aux_bg_profile = 1 cannot be converted for the peer")
        out.append(line)
    else:
        out.append("aux_bg_profile: 0")

    out.append(r.expect("wedge")[2])
    areas, lines = _area(r)
    _check_even(areas, lines)
    out.extend(line for _, _, line in lines)

    number, value, line = r.expect("number_cuts")
    n_cuts = _numbers(value, int, number, "number_cuts", 1)[0]
    if n_cuts < 0:
        raise FormatError(f"{source}: line {number}: number_cuts is negative")
    out.append(line)
    for _ in range(n_cuts):
        areas, lines = _area(r, cut=True)     # copied as written, the cut's index included
        _check_even(areas, lines)
        out.extend(line for _, _, line in lines)
    r.finish()
    return "\n".join(out) + "\n"


def read_peer(text, source="<peer file>"):
    """The values the peer takes from a file in its format, read in its order and by its rules:
    a missing `parameters_version` means 0.01, `aux_bg_profile` is read only for a later version (0
    otherwise), the four background-weight lines are optional. Returns a dict of numbers; raises
    FormatError where the peer would stop."""
    r = _Reader(text, source)
    v = {}
    found = r.optional("parameters_version")
    v["parameters_version"] = _numbers(found[1], float, found[0], "parameters_version", 1)[0] if found else 0.01
    number, value, _ = r.expect("number_parameters")
    n_bg = _numbers(value, int, number, "number_parameters", 1)[0]
    v["number_parameters"] = n_bg
    number, value, _ = r.expect("background_weight")
    v["background_weight"] = _numbers(value, float, number, "background_weight", 1)[0]
    for key, default in BACKGROUND_WEIGHT_LINES:
        found = r.optional(key)
        kind = int if key.startswith("optimize") else float
        v[key] = _numbers(found[1], kind, found[0], key, 1)[0] if found else None
    for name, kind in (("background_parameters", float), ("background_step", float),
                       ("background_min", float), ("background_max", float), ("optimize_parameter", int)):
        v[name] = _array(r, name, kind, n_bg)[0]
    number, value, _ = r.expect("number_streams")
    n_streams, per_stream = _numbers(value, int, number, "number_streams", 2)
    v["number_streams"] = (n_streams, per_stream)
    v["streams"] = []
    for _ in range(n_streams):
        s = {}
        for key in ("stream_weight", "stream_weight_step", "stream_weight_min", "stream_weight_max"):
            number, value, _ = r.expect(key)
            s[key] = _numbers(value, float, number, key, 1)[0]
        number, value, _ = r.expect("optimize_weight")
        s["optimize_weight"] = _numbers(value, int, number, "optimize_weight", 1)[0]
        for name, kind in (("stream_parameters", float), ("stream_step", float), ("stream_min", float),
                           ("stream_max", float), ("optimize_parameter", int)):
            s[name] = _array(r, name, kind, per_stream)[0]
        v["streams"].append(s)
    for key in ("convolve", "sgr_coordinates"):
        number, value, _ = r.expect(key)
        v[key] = _numbers(value, int, number, key, 1)[0]
    if v["parameters_version"] > 0.01:
        number, value, _ = r.expect("aux_bg_profile")
        v["aux_bg_profile"] = _numbers(value, int, number, "aux_bg_profile", 1)[0]
    else:
        v["aux_bg_profile"] = 0
    number, value, _ = r.expect("wedge")
    v["wedge"] = _numbers(value, int, number, "wedge", 1)[0]
    v["area"] = _area(r)[0]
    number, value, _ = r.expect("number_cuts")
    v["cuts"] = []
    for _ in range(_numbers(value, int, number, "number_cuts", 1)[0]):
        v["cuts"].append(_area(r, cut=True)[0])
    r.finish()
    return v


def _same_angle(a, b, tol):
    d = math.remainder(a - b, 2.0 * math.pi)
    return abs(d) <= tol


def differences(a, b, angle_tol=1e-8):
    """Lists, as text, every value in which two read_peer() results differ. The version number itself is
    not a model value (it decides only whether aux_bg_profile is read) and is not compared. Stream
    azimuths are compared modulo 2 pi within angle_tol radians; every other value must be equal."""
    out = []
    for key in sorted(set(a) | set(b)):
        if key in ("parameters_version", "streams"):
            continue
        if a.get(key) != b.get(key):
            out.append(f"{key}: {a.get(key)!r} != {b.get(key)!r}")
    sa, sb = a.get("streams", []), b.get("streams", [])
    if len(sa) != len(sb):
        out.append(f"streams: {len(sa)} != {len(sb)}")
    for i, (x, y) in enumerate(zip(sa, sb)):
        for key in sorted(set(x) | set(y)):
            if key == "stream_parameters":
                px, py = x.get(key, []), y.get(key, [])
                if len(px) != len(py):
                    out.append(f"stream {i} {key}: {px!r} != {py!r}")
                    continue
                for j, (p, q) in enumerate(zip(px, py)):
                    same = _same_angle(p, q, angle_tol) if j == AZIMUTH_INDEX else p == q
                    if not same:
                        out.append(f"stream {i} {key}[{j}]: {p!r} != {q!r}")
            elif x.get(key) != y.get(key):
                out.append(f"stream {i} {key}: {x.get(key)!r} != {y.get(key)!r}")
    return out


def _input_path(arg):
    p = pathlib.Path(arg)
    return p / "astronomy_parameters.txt" if p.is_dir() else p


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="2009-format astronomy_parameters.txt, or the work-unit folder holding it")
    p.add_argument("-o", "--output", help="where to write the peer-format file (default: standard output)")
    p.add_argument("--compare", metavar="FILE", help="a peer-format file the result must be equivalent to")
    args = p.parse_args(argv)
    src = _input_path(args.input)
    try:
        result = convert(src.read_text(), str(src))
        if args.compare:
            diffs = differences(read_peer(result, "converted"),
                                read_peer(pathlib.Path(args.compare).read_text(), args.compare))
    except (OSError, FormatError) as e:
        print(f"convert_workunit: {e}", file=sys.stderr)
        return 2
    if args.output:
        pathlib.Path(args.output).write_text(result)
    elif not args.compare:
        sys.stdout.write(result)
    if args.compare:
        for d in diffs:
            print(f"differs: {d}", file=sys.stderr)
        print(f"convert_workunit: {src} and {args.compare} are "
              f"{'equivalent' if not diffs else 'NOT equivalent'} for the peer", file=sys.stderr)
        return 1 if diffs else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
