#!/usr/bin/env python3
"""The headline claims of experiments/reproduce_check.json judged from a results folder by the report's own code,
and the claim verdicts of two folders side by side.

    python3 experiments/claim_verdicts.py A B      (make compare-claims A=<folder> B=<folder>)

A headline claim names the claims of its source document that the report's claims tables judge (its
"judged_by": the chapter module, the document's key and the claim as the table's first column prints it). Its
verdict here is read from the verdicts those chapters record when they build their tables from the folder
(paper/report_data.build_study, Output.verdict): no verdict is worked out twice. In the kit's words:

  holds               the report says reproduced, or reproduced qualitatively
  does not hold here  the report says differs
  not testable here   the report says not testable here, or cannot build the claim's table from the folder
                      (the reason: the file it lacks), or the report judges no claim of a document on it
                      (the declaration's "not_judged" says why)

A headline claim holds when one of its judged claims holds and none does not hold here. Timing repeatability is
a separate line, never counted as agreement of a claim: the claim's deciding files compared by
experiments/compare.py (the interval of each median, `make compare`): repeated (every file agrees), not
repeated (one differs or is missing), too noisy to judge (none differs, one's allowance is above the cap), or
not compared (the two folders hold different GPU models).

With two folders A and B it prints each headline claim's verdict in both, then every claim the report's tables
judge, and names each claim whose verdict differs, and apart from those each claim that one folder could not
judge (not testable there, or not recorded). Exit status: 0 when no claim judged in both has two verdicts, 1
when one has, 2 for a bad folder or declaration.
"""
import argparse
import json
import pathlib
import re
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
if not __package__:  # run by its path, not with -m: the shim puts the checkout's root on the path
    import _checkout  # noqa: F401

from experiments import compare as compare_module  # noqa: E402
from experiments.harness import registry  # noqa: E402
from experiments.harness.results import BadResultFile, NotAResultFolder, ResultFolder  # noqa: E402
ROOT = HERE.parent
DECLARATION = HERE / "reproduce_check.json"
HOLDS, NOT_HERE, NOT_TESTABLE = "holds", "does not hold here", "not testable here"
CLAIM_VERDICTS = (HOLDS, NOT_HERE, NOT_TESTABLE)


def word(kind):
    """The kit's word for the document's claim from the report's kind of verdict (paper/report/common.py; the
    report's code is imported only when a claim is judged by it, so that a tree without the report, such as the
    harness's own test trees, runs the kit on claims it does not judge)."""
    from paper.report.common import DIFFERS, NOT_TESTABLE as REPORT_NOT_TESTABLE, QUALITATIVE, REPRODUCED
    return {REPRODUCED: HOLDS, QUALITATIVE: HOLDS, DIFFERS: NOT_HERE, REPORT_NOT_TESTABLE: NOT_TESTABLE}[kind]
REPEATED, NOT_REPEATED, TOO_NOISY, NOT_COMPARED = "repeated", "not repeated", "too noisy to judge", "not compared"
JUDGED_KEYS = {"part", "document", "row"}


class BadDeclaration(Exception):
    """A headline claim names a judged claim wrongly, or neither judged claims nor why there are none."""


def check_judged(claim, where):
    """The judged claims of one declared headline claim, checked for their keys (whether the report judges them
    is checked on the committed folders by the kit's tests)."""
    judged = claim.get("judged_by")
    if judged is None:
        if not claim.get("not_judged"):
            raise BadDeclaration(f"{where}: give judged_by (the report's claims that decide it) or not_judged (why "
                                 "the report judges no claim of a document on it)")
        return []
    if not isinstance(judged, list) or not judged:
        raise BadDeclaration(f"{where}: judged_by must be a non-empty list")
    for j in judged:
        if not isinstance(j, dict) or not JUDGED_KEYS <= set(j) or set(j) - JUDGED_KEYS - {"published_has"}:
            raise BadDeclaration(f"{where}: each judged_by entry has the keys {', '.join(sorted(JUDGED_KEYS))} "
                                 "(and, where the row's claim is printed twice, published_has): got {j!r}")
    return judged


def load_claims(path=DECLARATION):
    try:
        claims = json.loads(pathlib.Path(path).read_text())["claims"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise BadDeclaration(f"{path}: cannot read the claims: {e}") from e
    for c in claims:
        check_judged(c, f"{path}: claim {c.get('id')!r}")
    return claims


# --- the report's verdicts of a folder ----------------------------------------------------------------------

def judged_studies(claims):
    """The studies whose claims the report's tables judge (the others need no report to be built)."""
    return {c["study"] for c in claims if c.get("judged_by")}


def report_verdicts(folder, studies=None):
    """{study: {"verdicts": [...], "missing": {part: why}, "read": [result files]}} from the report's chapter
    modules built on the results folder @p folder (paper/report_data.build_study), each verdict as its chapter
    recorded it (claim, document, kind, published, value, why) with the chapter module that recorded it (part).
    Nothing is written into the tree (the one file a chapter writes beside its tables goes to a temporary
    folder)."""
    out = {}
    if studies is not None and not studies:
        return out
    from paper import report_data
    import paper.mwsep.data.claims as mwsep_claims
    folder = pathlib.Path(folder).resolve()
    saved = mwsep_claims.OUT
    with tempfile.TemporaryDirectory() as tmp:
        mwsep_claims.OUT = pathlib.Path(tmp)
        try:
            for entry in registry.load():
                if studies is not None and entry.name not in studies:
                    continue
                try:
                    built, missing = report_data.build_study(entry, folder)
                except BadResultFile as e:  # a damaged file: the study's claims cannot be judged, and say why
                    out[entry.name] = {"verdicts": [], "missing": {"*": f"a result file it reads is unreadable: {e}"},
                                       "read": []}
                    continue
                parts = {}
                for m in missing:  # "chapter: why", or the study's own "why" when nothing could be built
                    name, _, why = m.partition(": ")
                    if re.fullmatch(r"\w+", name):
                        parts[name] = why
                    else:
                        parts["*"] = m
                out[entry.name] = {"verdicts": built.verdicts, "missing": parts,
                                   "read": [p["path"] for p in built.provenance]}
        finally:
            mwsep_claims.OUT = saved
    return out


def find(report, study, j):
    """The verdict record of the judged claim @p j of @p study in @p report, or None when the report built no
    such row; a claim printed twice without published_has to tell them apart is a fault of the declaration."""
    records = [v for v in report.get(study, {}).get("verdicts", [])
               if v["claim"] == j["row"] and v["document"] == j["document"] and v.get("part") == j["part"]
               and j.get("published_has", "") in v.get("published", "")]
    if len(records) > 1:
        raise BadDeclaration(f"{study}: the report judges {len(records)} claims {j['row']!r} of {j['document']} in "
                             f"{j['part']}: add published_has to tell them apart")
    return records[0] if records else None


def judge(claim, report):
    """The verdict of one headline claim from @p report (report_verdicts of a folder): {"verdict", "reason",
    "rows": one per judged claim with its verdict, the report's verdict, the published value, the value here and
    the table's reason}."""
    judged = check_judged(claim, f"claim {claim['id']!r}")
    if not judged:
        return {"verdict": NOT_TESTABLE, "reason": claim["not_judged"], "rows": []}
    study = claim["study"]
    rows = []
    for j in judged:
        r = find(report, study, j)
        row = {"document": j["document"], "row": j["row"]}
        if r is None:
            missing = report.get(study, {}).get("missing", {})
            why = missing.get(j["part"]) or missing.get("*")
            if why is None:
                if study not in report:
                    why = f"the study {study} was not judged"
                else:
                    raise BadDeclaration(f"claim {claim['id']!r}: the report's {study}/{j['part']} judges no claim "
                                         f"{j['row']!r} of {j['document']}, and says nothing is missing")
            row.update(verdict=NOT_TESTABLE, report_verdict=None,
                       why=f"the report cannot build its table ({j['part']}) from this folder: {why}")
        elif r["kind"] is None:
            raise BadDeclaration(f"claim {claim['id']!r}: {j['row']!r} is a value the report compares without a "
                                 "verdict: name a judged claim")
        else:
            row.update(verdict=word(r["kind"]), report_verdict=r["kind"], published=r.get("published", ""),
                       value=r.get("value", ""), why=r.get("why", ""))
        rows.append(row)
    words = [r["verdict"] for r in rows]
    failing = [r for r in rows if r["verdict"] == NOT_HERE]
    if failing:
        verdict = NOT_HERE
        reason = "; ".join(f"{r['row']}: {r.get('value', '')}" + (f" ({r['why']})" if r.get("why") else "")
                           for r in failing)
    elif HOLDS in words:
        verdict = HOLDS
        untestable = words.count(NOT_TESTABLE)
        reason = f"{words.count(HOLDS)} of {len(rows)} judged claims hold" + (
            f", {untestable} not testable here" if untestable else "")
    else:
        verdict = NOT_TESTABLE
        by_why = {}
        for r in rows:
            by_why.setdefault(r.get("why", ""), []).append(r["row"])
        reason = "; ".join(f"{', '.join(names)}: {why}" for why, names in by_why.items())
    return {"verdict": verdict, "reason": reason, "rows": rows}


def repeatability(claim, compared, note=None):
    """(verdict, reason) of the claim's deciding files in @p compared ({file: (compare verdict, detail)} from
    experiments/compare.py), or (not compared, @p note) when @p compared is None."""
    if compared is None:
        return NOT_COMPARED, note
    bad, noisy, unknown, details = [], [], [], []
    for f in claim["decided_by"]:
        v, d = compared.get(f, ("missing", "not in the comparison"))
        if v == "agrees":
            details.append(f"{f}: {d}")
        elif v == "too noisy to judge":
            noisy.append(f"{f}: {d}")
        elif v == "not compared":
            unknown.append(f"{f}: {d}")
        elif v == "new":
            unknown.append(f"{f}: the reference folder has no such file")
        else:
            bad.append(f"{f}: {v}: {d}")
    if bad:
        return NOT_REPEATED, "; ".join(bad)
    if noisy:
        return TOO_NOISY, "; ".join(noisy)
    if unknown:
        return NOT_COMPARED, "; ".join(unknown)
    return REPEATED, "; ".join(details)


def folder_gpu(folder):
    """The GPU model a results folder was recorded on (its manifest's host), or None."""
    try:
        return ResultFolder(folder).gpu_name
    except (NotAResultFolder, OSError, ValueError, KeyError, IndexError, TypeError):
        return None


def compared_files(new, ref):
    """{file: (verdict, detail)} of experiments/compare.py on the two folders."""
    return {rel: (v, d) for rel, v, d in compare_module.compare(pathlib.Path(new), pathlib.Path(ref))}


def overlay(fresh, ref, rerun, dest):
    """A results folder at @p dest (empty) that the report's code can read: the experiments @p rerun as the
    folder @p fresh recorded them (absent where it did not record them), every other experiment as @p ref holds
    it, each file a symbolic link to its folder's and each manifest entry its folder's; the host is @p fresh's.
    The kit re-runs only the experiments of its claims, while a chapter reads more files than those (listings,
    profiles, CPU baselines): they are the reference's, and the kit says which the report read."""
    from experiments.harness.results import meta_path, read_manifest
    fresh, ref, dest = pathlib.Path(fresh), pathlib.Path(ref), pathlib.Path(dest)
    mf, mr = read_manifest(fresh / "manifest.json"), read_manifest(ref / "manifest.json")
    merged = dict(mf)
    merged["experiments"] = {**{k: v for k, v in mr["experiments"].items() if k not in rerun},
                             **{k: v for k, v in mf["experiments"].items() if k in rerun}}
    taken = {}
    for folder, m, mine in ((ref, mr, False), (fresh, mf, True)):
        for rel_path, entry in m["files"].items():
            if (entry["experiment"] in rerun) == mine:
                taken[rel_path] = (folder, entry)
    merged["files"] = {k: e for k, (_, e) in taken.items()}
    for rel_path, (folder, _) in taken.items():
        for src in (folder / rel_path, meta_path(folder / rel_path)):
            if src.exists():
                link = dest / src.relative_to(folder)
                link.parent.mkdir(parents=True, exist_ok=True)
                if not link.exists():
                    link.symlink_to(src.resolve())
    (dest / "manifest.json").write_text(json.dumps(merged, indent=1) + "\n")
    return {k for k, (folder, _) in taken.items() if folder == ref}


# --- two folders side by side -------------------------------------------------------------------------------

def rel(path):
    path = pathlib.Path(path).resolve()
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


# A claim the other folder could not judge: its verdict says not testable (the file or the row is missing).
NOT_JUDGED = "not judged"
UNJUDGED = {NOT_TESTABLE, NOT_JUDGED}


def contradicts(x, y):
    """Whether the verdicts @p x and @p y of one claim in two folders contradict each other: both judged, and not
    the same. A claim one folder could not judge (not testable, not judged) contradicts nothing."""
    return x != y and x not in UNJUDGED and y not in UNJUDGED


def side_by_side(a, b, claims):
    """(text, number of contradictions) of the headline claims' verdicts and of every claim the report judges, in
    the folders @p a and @p b: a claim judged in both with two verdicts is a difference; one judged in one folder
    only is listed apart and is none."""
    ra, rb = report_verdicts(a), report_verdicts(b)
    ga, gb = folder_gpu(a), folder_gpu(b)
    if ga and ga == gb:
        compared, note = compared_files(a, b), None
    else:
        compared, note = None, f"A and B hold different GPU models ({ga}, {gb}): timings not compared"
    lines = [f"A: {rel(a)} ({ga})", f"B: {rel(b)} ({gb})", "",
             "Headline claims (experiments/reproduce_check.json), judged by the report's claims tables:", ""]
    differences, coverage = [], []  # verdicts that contradict; a claim judged in one folder only
    for c in claims:
        ja, jb = judge(c, ra), judge(c, rb)
        same = ja["verdict"] == jb["verdict"]
        lines.append(f"  {c['id']}: A {ja['verdict']}, B {jb['verdict']}: {'the same' if same else 'DIFFERENT'}")
        for x, y in zip(ja["rows"], jb["rows"]):
            mark = "" if x["verdict"] == y["verdict"] else "   <- different"
            lines.append(f"      {x['document']}: {x['row']}: A {x['verdict']} ({x.get('value', '') or x.get('why', '')}); "
                         f"B {y['verdict']} ({y.get('value', '') or y.get('why', '')}){mark}")
        if not same:
            (differences if contradicts(ja["verdict"], jb["verdict"]) else coverage).append(
                f"headline claim {c['id']}: A {ja['verdict']}, B {jb['verdict']}")
        rv, rr = repeatability(c, compared, note)
        lines.append(f"      timings: {rv}" + (f" ({rr})" if rv != REPEATED else ""))
    lines += ["", "Every claim the report's tables judge:", ""]
    total = same_count = 0
    for study in ra:
        va = [v for v in ra[study]["verdicts"] if v["kind"] is not None]
        vb = [v for v in rb.get(study, {}).get("verdicts", []) if v["kind"] is not None]
        keys_a = [(v.get("part"), v["document"], v["claim"], v.get("published", "")) for v in va]
        keys_b = [(v.get("part"), v["document"], v["claim"], v.get("published", "")) for v in vb]
        kb = dict(zip(keys_b, vb))
        n = s = 0
        for k, v in zip(keys_a, va):
            n += 1
            w = kb.get(k)
            if w is not None and w["kind"] == v["kind"]:
                s += 1
            else:
                kind_b = w["kind"] if w else NOT_JUDGED
                (differences if contradicts(v["kind"], kind_b) else coverage).append(
                    f"{study} ({k[1]}) {k[2]}: A {v['kind']}, B {kind_b}")
        for k in keys_b:
            if k not in set(keys_a):
                n += 1
                coverage.append(f"{study} ({k[1]}) {k[2]}: A {NOT_JUDGED}, B {kb[k]['kind']}")
        missing = [f"A: {p}: {w}" for p, w in ra[study]["missing"].items()] + \
                  [f"B: {p}: {w}" for p, w in rb.get(study, {}).get("missing", {}).items()]
        lines.append(f"  {study}: {s} of {n} verdicts the same" + (f" (parts not built: {'; '.join(missing)})" if missing else ""))
        total, same_count = total + n, same_count + s
    headline_apart = sum(d.startswith("headline") for d in differences + coverage)
    lines += ["", f"{len(claims) - headline_apart} of {len(claims)} headline claims "
              f"and {same_count} of {total} judged claims have the same verdict in A and B."]
    if differences:
        lines += ["Differences (a verdict in each folder, not the same):"] + [f"  - {d}" for d in differences]
    if coverage:
        lines += ["Judged in one folder only (not testable or not recorded in the other; no contradiction):"] + \
                 [f"  - {d}" for d in coverage]
    return "\n".join(lines) + "\n", len(differences)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", type=pathlib.Path, help="a results folder (experiments/results/<gpu> or a fresh one)")
    p.add_argument("b", type=pathlib.Path, help="another results folder")
    p.add_argument("--declaration", type=pathlib.Path, default=DECLARATION, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    for name, f in (("A", args.a), ("B", args.b)):
        try:
            ResultFolder(f)
        except NotAResultFolder as e:
            print(f"compare-claims: {name}={f}: {e}", file=sys.stderr)
            return 2
    try:
        text, n = side_by_side(args.a, args.b, load_claims(args.declaration))
    except BadDeclaration as e:
        print(f"compare-claims: {e}", file=sys.stderr)
        return 2
    print(text, end="")
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main())
