#!/usr/bin/env python3
"""An independent evaluation of a work unit's integrals (and, optionally, its likelihood) in Python.

It follows the formulas of the likelihood specification (sections 2.1-2.9, 3.1-3.3, 4.1-4.4: magnitude-
uniform r bins, the Gauss-Legendre construction of section 2.6 with its weight quirk, survey coordinates
through the equatorial frame, the per-distance constants, the point kernel) and shares no code with the
C++ program. The sums over cells, r bins and stars are taken with math.fsum, so each printed value
carries the rounding of its individual terms, not that of a long running sum.

By default it runs on the standard library alone, one point at a time: a few seconds for the `tiny` unit
(7.7e5 quadrature points per component). With --numpy the point kernel runs on whole lines of sight at
once (numpy's pairwise sum over each r bin's 120 convolution points, math.fsum above that), which makes
the small units (2.69e9 points per component) a matter of minutes. Only sgr_coordinates 0 and
aux_bg_profile 0 are implemented.

    python3 data/independent_evaluation.py data/workunits/tiny/astronomy_parameters.txt
        prints the integrals as JSON
    python3 data/independent_evaluation.py WORK_UNIT --stars stars.txt [--numpy]
        also the likelihood of a catalogue (about a minute for 100 000 stars without numpy)
    python3 data/independent_evaluation.py WORK_UNIT --check data/workunits/tiny/expected.json
        recomputes the integrals and compares them with the stored ones within the stored tolerances;
        exit status 1 on a disagreement, 2 on bad input
"""
import json
import math
import sys

# Constants of the model (specification section 2.1).
SIGMA_M = 0.6                       # spread of the F-turnoff absolute magnitude [mag]
HALF_WIDTH = 3.0 * SIGMA_M          # the convolution covers +-3 sigma: 1.8 mag
R_SUN = 8.5                         # Sun - Galactic centre distance [kpc]
SIGMOID = (0.9402, 1.6171, 23.5877)
COEFF = 1.0 / (SIGMA_M * math.sqrt(2.0 * math.pi))
ZERO_PENALTY = -238.0
NODE = 95.0                         # ascending node of every stripe [deg]
EQ_TO_GAL = ((-0.054875539726, -0.873437108010, -0.483834985808),
             (0.494109453312, -0.444829589425, 0.746982251810),
             (-0.867666135858, -0.198076386122, 0.455983795705))
RAD = math.pi / 180.0


class BadInput(Exception):
    pass


# --- reading the work unit --------------------------------------------------------------------------------

def read_work_unit(path):
    """The values this evaluation needs, in the order the file gives them (specification section 1.1)."""
    try:
        lines = [ln.strip() for ln in open(path, encoding="ascii") if ln.strip()]
    except OSError as e:
        raise BadInput(f"{path}: cannot read: {e.strerror}")
    pairs = []
    for number, line in enumerate(lines, start=1):
        if ":" not in line:
            raise BadInput(f"{path}: line {number}: expected 'key: value', got {line!r}")
        key, value = line.split(":", 1)
        pairs.append((key.strip(), value.strip(), number))

    def numbers(value, key, number):
        try:
            return [float(v) for v in value.replace(",", " ").split()]
        except ValueError:
            raise BadInput(f"{path}: line {number}: {key}: not a list of numbers: {value!r}")

    unit = {"streams": [], "areas": []}
    for key, value, number in pairs:
        name = key.split("[")[0]
        if name == "background_weight":
            unit["background_weight"] = numbers(value, key, number)[0]
        elif name == "background_parameters":
            unit["background"] = numbers(value, key, number)
        elif name == "stream_weight":
            unit["streams"].append({"weight": numbers(value, key, number)[0]})
        elif name == "stream_parameters":
            if not unit["streams"]:
                raise BadInput(f"{path}: line {number}: stream_parameters before any stream_weight")
            unit["streams"][-1]["parameters"] = numbers(value, key, number)
        elif name == "convolve":
            unit["convolve"] = int(numbers(value, key, number)[0])
        elif name == "sgr_coordinates":
            if numbers(value, key, number)[0] != 0:
                raise BadInput(f"{path}: line {number}: only sgr_coordinates 0 is implemented here")
        elif name == "aux_bg_profile":
            if numbers(value, key, number)[0] != 0:
                raise BadInput(f"{path}: line {number}: aux_bg_profile 1 is not implemented here")
        elif name == "wedge":
            unit["wedge"] = int(numbers(value, key, number)[0])
        elif name in ("r", "r_cut"):
            unit["areas"].append({"r": numbers(value, key, number)})
        elif name in ("mu", "mu_cut"):
            unit["areas"][-1]["mu"] = numbers(value, key, number)
        elif name in ("nu", "nu_cut"):
            unit["areas"][-1]["nu"] = numbers(value, key, number)
        elif name == "parameters_version":
            raise BadInput(f"{path}: line {number}: only the 2009 file format is read here")
    for needed in ("background", "convolve", "wedge"):
        if needed not in unit:
            raise BadInput(f"{path}: no '{needed}' line")
    unit.setdefault("background_weight", 0.0)
    if not unit["areas"] or any(len(a.get(k, [])) != 3 for a in unit["areas"] for k in ("r", "mu", "nu")):
        raise BadInput(f"{path}: every area needs r, mu and nu lines with min, max, steps")
    for s, stream in enumerate(unit["streams"]):
        if len(stream.get("parameters", [])) != 5:
            raise BadInput(f"{path}: stream {s + 1} needs 5 stream_parameters")
        if abs(stream["parameters"][4]) < 1e-4:
            raise BadInput(f"{path}: stream {s + 1}: sigma too close to 0")
    if unit["background"][1] == 0.0:
        raise BadInput(f"{path}: q = 0")
    return unit


# --- quadrature, grids and coordinates ------------------------------------------------------------------

def gauss_legendre(n):
    """Nodes (ascending) and weights on [-1, 1], by the Newton scheme of section 2.6: the weight uses the
    derivative of the last iterate together with the updated root."""
    x = [0.0] * n
    w = [0.0] * n
    for m in range(1, (n + 1) // 2 + 1):
        z = math.cos(math.pi * (m - 0.25) / (n + 0.5))
        while True:
            p_cur, p_prev = 1.0, 0.0
            for j in range(1, n + 1):
                p_cur, p_prev = ((2.0 * j - 1.0) * z * p_cur - (j - 1.0) * p_prev) / j, p_cur
            slope = n * (z * p_cur - p_prev) / (z * z - 1.0)
            z_old = z
            z = z_old - p_cur / slope
            if abs(z - z_old) <= 3.0e-11:
                break
        x[m - 1], x[n - m] = -z, z
        w[m - 1] = w[n - m] = 2.0 / ((1.0 - z * z) * slope * slope)
    return x, w


def wrap(angle, low):
    """Adds or subtracts whole turns until low <= angle < low + 360 (an angle already inside is untouched)."""
    while angle < low:
        angle += 360.0
    while angle >= low + 360.0:
        angle -= 360.0
    return angle


def normalise_pair(lat, lon):
    """bound2 of section 2.2: latitude into [-90, 90] (flipping the longitude), longitude into [0, 360)."""
    lat = wrap(lat, -180.0)
    if abs(lat) > 90.0:
        lat = 180.0 - lat
        lon += 180.0
    lat = wrap(lat, -180.0)
    lon = wrap(lon, 0.0)
    if abs(lat) == 90.0:
        lon = 0.0
    return lat, lon


def inclination(wedge):
    eta = 2.5 * wedge - 57.5 - (180.0 if wedge > 46 else 0.0)
    return eta + 32.5


def stripe_to_equatorial(mu, nu, wedge):
    """(mu, nu) of a stripe's great circle to (ra, dec), degrees (section 2.2)."""
    inc = inclination(wedge) * RAD
    a = (mu - NODE) * RAD
    n = nu * RAD
    x2, y2, z2 = math.cos(a) * math.cos(n), math.sin(a) * math.cos(n), math.sin(n)
    y1 = y2 * math.cos(inc) - z2 * math.sin(inc)
    z1 = y2 * math.sin(inc) + z2 * math.cos(inc)
    ra = math.atan2(y1, x2) / RAD + NODE
    dec = math.asin(z1) / RAD
    dec, ra = normalise_pair(dec, ra)
    return ra, dec


def equatorial_to_galactic(ra, dec):
    """(ra, dec) to Galactic (l, b), degrees (section 2.3)."""
    a, d = ra * RAD, dec * RAD
    v = (math.cos(a) * math.cos(d), math.sin(a) * math.cos(d), math.sin(d))
    g = [sum(row[i] * v[i] for i in range(3)) for row in EQ_TO_GAL]
    rho = math.hypot(g[0], g[1])
    l = math.atan2(g[1], g[0]) if rho != 0.0 else 0.0
    b = math.atan2(g[2], rho) if g[2] != 0.0 else 0.0
    l %= 2.0 * math.pi
    b = math.remainder(b, 2.0 * math.pi)
    b, l = normalise_pair(b / RAD, l / RAD)
    return l, b


def sky(l, b):
    """The four numbers a direction enters the kernel with: sin b, sin l, cos b, cos l."""
    return math.sin(b * RAD), math.sin(l * RAD), math.cos(b * RAD), math.cos(l * RAD)


def magnitude(r_kpc):
    return 5.0 * (math.log10(1000.0 * r_kpc) - 1.0) + 4.2


def distance(g):
    return 10.0 ** ((g - 4.2) / 5.0 + 1.0) / 1000.0


def line_of_sight(r_bar, nodes, weights):
    """The per-distance constants of section 2.7 at distance r_bar: the efficiency factor reff * 1.8 / r^3
    and the convolution points (distance, weight * r^3 * Gaussian)."""
    g0 = magnitude(r_bar)
    s0, s1, s2 = SIGMOID
    factor = s0 / (math.exp(s1 * (g0 - s2)) + 1.0) * HALF_WIDTH / r_bar ** 3
    points = []
    for x, w in zip(nodes, weights):
        g = g0 + HALF_WIDTH * x
        r = distance(g)
        gauss = COEFF * math.exp(-(g - g0) ** 2 / (2.0 * SIGMA_M ** 2))
        points.append((r, w * r ** 3 * gauss))
    return factor, points


class Model:
    """Background and stream parameters in the form the kernel uses (sections 1.1.1, 1.1.2, 2.5)."""

    def __init__(self, unit):
        self.alpha, q, self.r0, self.delta = unit["background"][:4]
        self.inv_q2 = 1.0 / (q * q)
        self.weights = [math.exp(unit["background_weight"])] + [math.exp(s["weight"]) for s in unit["streams"]]
        self.streams = []
        for s in unit["streams"]:
            mu, r, theta, phi, sigma = s["parameters"]
            l, b = equatorial_to_galactic(*stripe_to_equatorial(mu, 0.0, unit["wedge"]))
            sb, sl, cb, cl = sky(l, b)
            centre = (r * cb * cl - R_SUN, r * cb * sl, r * sb)
            axis = (math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi), math.cos(theta))
            self.streams.append((centre, axis, 2.0 * sigma * sigma))

    def densities(self, direction, factor, points):
        """The convolved densities of the background and of each stream along one direction, before
        normalisation (section 3.1): one exact sum over the convolution points per component."""
        sb, sl, cb, cl = direction
        simple = self.alpha == 1.0 and self.delta == 1.0
        bg_terms = []
        st_terms = [[] for _ in self.streams]
        for r, qw in points:
            x = r * cb * cl - R_SUN
            y = r * cb * sl
            z = r * sb
            rg = math.sqrt(x * x + y * y + z * z * self.inv_q2)
            if simple:
                bg_terms.append(qw / (rg * (rg + self.r0) ** 3))
            else:
                bg_terms.append(qw / (rg ** self.alpha * (rg + self.r0) ** (3.0 - self.alpha + self.delta)))
            for terms, (c, a, two_sigma2) in zip(st_terms, self.streams):
                dx, dy, dz = x - c[0], y - c[1], z - c[2]
                along = a[0] * dx + a[1] * dy + a[2] * dz
                px, py, pz = dx - along * a[0], dy - along * a[1], dz - along * a[2]
                terms.append(qw * math.exp(-(px * px + py * py + pz * pz) / two_sigma2))
        return [factor * math.fsum(bg_terms)] + [factor * math.fsum(t) for t in st_terms]


def densities_numpy(model, direction, factor, r, qw):
    """The same kernel on arrays: @p r and @p qw hold one row of convolution points per line of sight,
    @p direction and @p factor one value per row (or one for all); returns one array of row sums per
    component, each row summed by numpy and multiplied by its factor."""
    import numpy as np
    sb, sl, cb, cl = direction
    x = r * cb * cl - R_SUN
    y = r * cb * sl
    z = r * sb
    rg = np.sqrt(x * x + y * y + z * z * model.inv_q2)
    if model.alpha == 1.0 and model.delta == 1.0:
        out = [factor * (qw / (rg * (rg + model.r0) ** 3)).sum(axis=-1)]
    else:
        out = [factor * (qw / (rg ** model.alpha * (rg + model.r0) ** (3.0 - model.alpha + model.delta))).sum(axis=-1)]
    for c, a, two_sigma2 in model.streams:
        dx, dy, dz = x - c[0], y - c[1], z - c[2]
        along = a[0] * dx + a[1] * dy + a[2] * dz
        px, py, pz = dx - along * a[0], dy - along * a[1], dz - along * a[2]
        out.append(factor * (qw * np.exp(-(px * px + py * py + pz * pz) / two_sigma2)).sum(axis=-1))
    return out


# --- the integrals and the likelihood ---------------------------------------------------------------------

def area_integrals(model, area, wedge, nodes, weights, vectorised=False):
    """One area's integral of every component over its (mu, nu, r) grid, magnitude-uniform r bins
    (sections 2.8, 2.9, 3.2), each a correctly rounded sum of the (cell, r bin) terms."""
    r_min, r_max, n_r = area["r"]
    mu_min, mu_max, n_mu = area["mu"]
    nu_min, nu_max, n_nu = area["nu"]
    n_r, n_mu, n_nu = int(n_r), int(n_mu), int(n_nu)
    d_r = (r_max - r_min) / n_r
    d_mu = (mu_max - mu_min) / n_mu
    d_nu = (nu_max - nu_min) / n_nu
    bins = []
    for k in range(n_r):
        g = r_min + k * d_r
        inner = 10.0 ** ((g - 14.2) / 5.0)
        outer = 10.0 ** ((g + d_r - 14.2) / 5.0)
        volume = (outer ** 3 - inner ** 3) / 3.0 * d_mu * RAD
        bins.append((volume, line_of_sight((outer + inner) / 2.0, nodes, weights)))
    if vectorised:
        import numpy as np
        r = np.array([[p[0] for p in points] for _, (_, points) in bins])
        qw = np.array([[p[1] for p in points] for _, (_, points) in bins])
        factors = np.array([factor for _, (factor, _) in bins])
        volumes = np.array([volume for volume, _ in bins])
    sums = [[] for _ in model.weights]
    for i in range(n_mu):
        mu = (mu_min + i * d_mu) + 0.5 * d_mu
        for j in range(n_nu):
            nu_low = nu_min + j * d_nu
            band = math.sin((nu_low + d_nu) * RAD) - math.sin(nu_low * RAD)
            direction = sky(*equatorial_to_galactic(*stripe_to_equatorial(mu, nu_low + 0.5 * d_nu, wedge)))
            if vectorised:
                for c, values in enumerate(densities_numpy(model, direction, factors, r, qw)):
                    sums[c].extend((values * volumes * band).tolist())
                continue
            for volume, (factor, points) in bins:
                for c, value in enumerate(model.densities(direction, factor, points)):
                    sums[c].append(value * volume * band)
    return [math.fsum(s) for s in sums]


def integrals(unit, vectorised=False):
    nodes, weights = gauss_legendre(unit["convolve"])
    model = Model(unit)
    per_area = [area_integrals(model, a, unit["wedge"], nodes, weights, vectorised) for a in unit["areas"]]
    # Area 0 minus the cuts (section 3.3), each difference exact before its one rounding.
    return [math.fsum([per_area[0][c]] + [-a[c] for a in per_area[1:]]) for c in range(len(model.weights))]


def read_stars(path):
    try:
        lines = open(path, encoding="ascii").read().split("\n")
    except OSError as e:
        raise BadInput(f"{path}: cannot read: {e.strerror}")
    count = int(lines[0])
    stars = []
    for number, line in enumerate(lines[1:count + 1], start=2):
        fields = line.split()
        if len(fields) != 3:
            raise BadInput(f"{path}: line {number}: expected 'l b r'")
        stars.append(tuple(float(f) for f in fields))
    if len(stars) != count:
        raise BadInput(f"{path}: {count} stars announced, {len(stars)} found")
    return stars


def likelihood(unit, values, stars, vectorised=False):
    """Mean log10 mixture probability of the stars (sections 4.1-4.4)."""
    nodes, weights = gauss_legendre(unit["convolve"])
    model = Model(unit)
    total_weight = math.fsum(model.weights)
    per_star = []  # the densities of every component, one list per star
    if vectorised:
        import numpy as np
        chunk = 4096
        for first in range(0, len(stars), chunk):
            part = stars[first:first + chunk]
            sights = [line_of_sight(r, nodes, weights) for _, _, r in part]
            r = np.array([[p[0] for p in points] for _, points in sights])
            qw = np.array([[p[1] for p in points] for _, points in sights])
            factors = np.array([factor for factor, _ in sights])
            directions = [np.array(v)[:, None] for v in zip(*(sky(l, b) for l, b, _ in part))]
            components = densities_numpy(model, directions, factors, r, qw)
            per_star.extend(zip(*(c.tolist() for c in components)))
    else:
        for l, b, r in stars:
            factor, points = line_of_sight(r, nodes, weights)
            per_star.append(model.densities(sky(l, b), factor, points))
    logs = []
    for dens in per_star:
        p = math.fsum(d / i * e for d, i, e in zip(dens, values, model.weights)) / total_weight
        logs.append(math.log10(p) if p != 0.0 else ZERO_PENALTY)
    return math.fsum(logs) / len(logs)


def relative(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def check(values, expected_path):
    try:
        with open(expected_path, encoding="utf-8") as f:
            expected = json.load(f)
    except OSError as e:
        raise BadInput(f"{expected_path}: cannot read: {e.strerror}")
    except json.JSONDecodeError as e:
        raise BadInput(f"{expected_path}: not valid JSON: {e}")
    stored = [expected["background_integral"]] + expected["stream_integrals"]
    if len(stored) != len(values):
        print(f"{expected_path}: {len(stored)} components stored, {len(values)} computed")
        return 1
    tolerance = expected["tolerance"]
    limits = [tolerance["background_integral"]["relative"]] + \
             [tolerance["stream_integrals"]["relative"]] * (len(values) - 1)
    names = ["background_integral"] + [f"stream_integrals[{s}]" for s in range(len(values) - 1)]
    failed = 0
    for name, mine, theirs, limit in zip(names, values, stored, limits):
        diff = relative(mine, theirs)
        verdict = "ok" if diff <= limit else "DIFFERS"
        failed += diff > limit
        print(f"{name}: independent {mine!r}, stored {theirs!r}, relative difference {diff:.2e} "
              f"(tolerance {limit:.0e}) {verdict}")
    return 1 if failed else 0


def main(argv):
    args = argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__)
        return 2
    options = {}
    rest = args[1:]
    while rest:
        if rest[0] in ("--stars", "--check") and len(rest) >= 2:
            options[rest[0]] = rest[1]
            rest = rest[2:]
        elif rest[0] == "--numpy":
            options["--numpy"] = True
            rest = rest[1:]
        else:
            print(f"independent_evaluation.py: unknown argument {rest[0]!r}", file=sys.stderr)
            return 2
    try:
        vectorised = "--numpy" in options
        if vectorised:
            try:
                import numpy  # noqa: F401
            except ImportError:
                raise BadInput("--numpy needs numpy (pip install numpy)")
        unit = read_work_unit(args[0])
        values = integrals(unit, vectorised)
        if "--check" in options:
            return check(values, options["--check"])
        out = {"background_integral": values[0], "stream_integrals": values[1:]}
        if "--stars" in options:
            stars = read_stars(options["--stars"])
            out["likelihood"] = likelihood(unit, values, stars, vectorised)
            out["number_stars"] = len(stars)
        print(json.dumps(out, indent=1))
        return 0
    except BadInput as e:
        print(f"independent_evaluation.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
