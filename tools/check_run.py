#!/usr/bin/env python3
"""The end of `make run`: the result of one `mwsep run --json`, set beside the values stored for its work unit
(data/workunits/<unit>/expected.json), with a verdict.

    python3 tools/check_run.py RESULT.json --unit 3s-small --stars data/stars/3s-small.txt

Prints the integrals and likelihoods of the run, the stored ones and their relative differences, then one line:
the likelihood agrees with the recorded value to <difference>, or it does not. Exit 0 when every quantity lies
within its tolerance or when there is nothing to compare with (a unit without expected.json, a work unit or star
catalogue other than the one the values were computed from: each said so); exit 1 when a quantity lies outside
its tolerance; exit 2 for a missing or unreadable input.

The tolerances are the ones expected.json states and tests/mwsep/test_expected_outputs.cpp applies: each integral
within its relative tolerance of the stored one. That test computes the likelihoods from the *stored* integrals;
a run computes its own, and a relative change e_k of integral k changes every star's log10 term, which is linear
in 1/I_k, by at most max_k |e_k| / ln 10 (to first order), and so the mean over the stars too. A run's likelihoods
are therefore compared within their stored relative tolerance plus the integrals' tolerance carried through that
bound: tol_L + tol_I / (ln 10 * |L|).
"""
import argparse
import hashlib
import json
import math
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def relative_difference(got, stored):
    """As the stored-output tests compute it: |got - stored| / |stored|."""
    return abs(got - stored) / max(abs(stored), 1e-300)


def tolerance(expected, quantity, where):
    try:
        t = float(expected["tolerance"][quantity]["relative"])
    except (KeyError, TypeError, ValueError):
        raise SystemExit(f"check_run: {where}: no tolerance.{quantity}.relative")
    if not 0 < t < 1e-6:
        raise SystemExit(f"check_run: {where}: tolerance.{quantity}.relative {t} is implausible")
    return t


def short(x):
    """A relative difference as a reader wants it: one significant digit ('2e-14'), 0 as '0'."""
    return "0" if x == 0 else f"{x:.0e}".replace("e-0", "e-").replace("e+0", "e+")


def rows(run, expected, where):
    """(name, this run's value, stored value, relative difference, tolerance) of every stored quantity."""
    tol_integral = max(tolerance(expected, "background_integral", where), tolerance(expected, "stream_integrals", where))
    out = [("background integral", run["background_integral"], expected["background_integral"],
            tolerance(expected, "background_integral", where))]
    if len(run["stream_integrals"]) != len(expected["stream_integrals"]):
        raise SystemExit(f"check_run: the run has {len(run['stream_integrals'])} streams, {where} "
                         f"{len(expected['stream_integrals'])}: not the same work unit")
    for i, (g, s) in enumerate(zip(run["stream_integrals"], expected["stream_integrals"]), 1):
        out.append((f"stream {i} integral", g, s, tolerance(expected, "stream_integrals", where)))

    def likelihood_tolerance(quantity, stored):
        return tolerance(expected, quantity, where) + tol_integral / (math.log(10) * abs(stored))

    out.append(("background-only likelihood", run["background_likelihood"], expected["background_likelihood"],
                likelihood_tolerance("background_likelihood", expected["background_likelihood"])))
    for i, (g, s) in enumerate(zip(run["stream_only_likelihoods"], expected["stream_only_likelihoods"]), 1):
        out.append((f"stream {i} only likelihood", g, s, likelihood_tolerance("stream_only_likelihoods", s)))
    out.append(("likelihood", run["likelihood"], expected["likelihood"],
                likelihood_tolerance("likelihood", expected["likelihood"])))
    return [(name, g, s, relative_difference(g, s), t) for name, g, s, t in out]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("result", type=pathlib.Path, help="the output of mwsep run --json")
    p.add_argument("--unit", required=True, help="the work unit's folder name under data/workunits")
    p.add_argument("--stars", required=True, type=pathlib.Path, help="the star catalogue the run read")
    p.add_argument("--workunits", type=pathlib.Path, default=ROOT / "data" / "workunits",
                   help="the folder of the work units (default: data/workunits)")
    a = p.parse_args(argv)
    try:
        run = json.loads(a.result.read_text())
        for key in ("background_integral", "stream_integrals", "likelihood", "background_likelihood",
                    "stream_only_likelihoods", "number_stars"):
            if key not in run:
                raise ValueError(f"no key '{key}'")
    except (OSError, ValueError) as e:
        print(f"check_run: {a.result}: not the output of mwsep run --json ({e})", file=sys.stderr)
        return 2
    settings = run.get("settings", {})
    print(f"result: likelihood {run['likelihood']!r} ({settings.get('engine', '?')} on {settings.get('device', '?')}, "
          f"{run.get('seconds', float('nan')):.1f} s)")

    unit_dir = a.workunits / a.unit
    stored_path = unit_dir / "expected.json"
    where = stored_path.relative_to(ROOT) if stored_path.is_relative_to(ROOT) else stored_path
    if not stored_path.exists():
        print(f"check: no recorded values for {a.unit} ({where} does not exist): nothing to compare with "
              "(the units with recorded values: "
              + ", ".join(sorted(d.parent.name for d in a.workunits.glob("*/expected.json"))) + ")")
        return 0
    try:
        expected = json.loads(stored_path.read_text())
    except (OSError, ValueError) as e:
        print(f"check_run: {where}: {e}", file=sys.stderr)
        return 2
    params = unit_dir / "astronomy_parameters.txt"
    if sha256(params) != expected.get("astronomy_parameters_sha256"):
        print(f"check: {params.name} of {a.unit} is not the file the recorded values were computed from "
              f"(its sha256 differs from {where}): nothing to compare with")
        return 0
    if settings.get("r_binning", expected.get("r_binning")) != expected.get("r_binning"):
        print(f"check: the run used r binning '{settings.get('r_binning')}', the recorded values "
              f"'{expected.get('r_binning')}': nothing to compare with")
        return 0
    catalogue = expected.get("catalogue", {})
    same_stars = (a.stars.exists() and sha256(a.stars) == catalogue.get("sha256")
                  and run["number_stars"] == expected.get("number_stars"))
    table = rows(run, expected, where)
    if not same_stars:
        # The likelihoods hold only for the recorded catalogue; the integrals do not depend on the stars.
        table = [r for r in table if r[0].endswith("integral")]
    width = max(len(r[0]) for r in table)
    print(f"  {'':{width}}  {'this run':>24}  {'recorded':>24}  difference (tolerance)")
    for name, got, stored, diff, tol in table:
        print(f"  {name:{width}}  {got!r:>24}  {stored!r:>24}  {short(diff)} ({short(tol)}){'' if diff <= tol else '  OUTSIDE'}")
    bad = [r for r in table if not r[3] <= r[4]]
    if not same_stars:
        print(f"check: {a.stars} is not the catalogue the recorded likelihoods hold for ({catalogue.get('command', '?')}, "
              f"sha256 {str(catalogue.get('sha256'))[:12]}...; {catalogue.get('platform_note', '')}): "
              "the integrals alone are compared")
    if bad:
        print(f"check: FAILED: {', '.join(r[0] for r in bad)} outside the tolerance of {where}", file=sys.stderr)
        return 1
    if same_stars:
        like = next(r for r in table if r[0] == "likelihood")
        print(f"check: the likelihood agrees with the recorded value ({where}) to {short(like[3])}, "
              f"and every integral and likelihood lies within its tolerance")
    else:
        print(f"check: every integral agrees with the recorded value ({where}) within its tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
