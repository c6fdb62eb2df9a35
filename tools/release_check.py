#!/usr/bin/env python3
"""Whether the committed results can be released as one recording: every result file of every GPU folder
recorded from one clean commit, and no code that makes a number changed between that commit and this one.

    python3 tools/release_check.py            # a summary per folder; exit 0 when releasable, 1 otherwise
    python3 tools/release_check.py --todo     # also, per folder, the experiments recorded at another commit
                                              # and the declared ones it has no result of

The recording commit is the one most result files name. Every folder of a one-GPU host must hold every
declared experiment (experiments/definitions) that needs one GPU; a folder of a host with several GPUs, those
that need several. "Code that makes a number" is everything but the
results, the records, the report, the documentation and the files that describe the release (PASSIVE below);
a change there between the recording commit and HEAD means the numbers may no longer be what this tree makes,
unless experiments/records/code-changes-since-recording.json declares it: for that recording commit, the file
at exactly the blob HEAD has, with why no recorded number depends on it and, where the reason rests on a fact
of the tree, a premise this tool checks (PREMISES). A declared file changed again is undeclared.
The report's provenance tables name the declared changes (changes_since, describe_changes).

A release is also a tag: HEAD must carry an annotated or lightweight tag `v<version>` whose version is
CITATION.cff's `version` (tag_findings), and every tag the README names (`v1.0-ae`, say, in backticks) must
exist in the repository, so that no text claims a release that was not made. docs/release.md gives the steps.
"""
import argparse
import collections
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
if not __package__:  # run by its path, not with -m: the shim puts the checkout's root on the path
    import _checkout  # noqa: F401
from experiments.harness import registry  # noqa: E402
from experiments.harness.results import NotAResultFolder, ResultFolder  # noqa: E402
from experiments.harness.runner import load_definitions  # noqa: E402
RESULTS = ROOT / "experiments" / "results"
# Paths whose changes cannot change a recorded number.
# experiments/reruns/ is gone (it was stale evidence); its removal since the recording commit changes no number.
PASSIVE = ("experiments/results/", "experiments/records/", "experiments/reruns/", "paper/", "docs/", "README.md",
           "CITATION.cff", "LICENSE", "LICENSES/", "DATA-TERMS.md", ".gitignore", "tools/kit_summary.py", "tools/release_check.py",
           "tools/check_pdf.py", "tools/check_report.py", "tools/check_results.py", "figures/", "tests/",
           "experiments/harness/tests/",
           # What checks or shows the documentation, the report and `make run`'s result, and times a first run:
           # none of them builds or runs a measurement.
           "tools/check_links.py", "tools/sphinx_offline_mathjax.py", "tools/view.py", "tools/check_run.py",
           "tools/first_run_summary.py", "tools/time_first_run.py", ".ci/run")


DECLARED = ROOT / "experiments" / "records" / "code-changes-since-recording.json"
WORK_UNITS = ROOT / "data" / "workunits"


def work_units_without_streams():
    """The work units under data/workunits whose parameter file names no stream (number_streams 0 or absent)."""
    out = []
    for params in sorted(WORK_UNITS.glob("*/astronomy_parameters.txt")):
        n = 0
        for line in params.read_text().splitlines():
            if line.startswith("number_streams:"):
                n = int(line.split(":", 1)[1].split(",")[0])
        if n < 1:
            out.append(params.parent.name)
    return out


# A declaration's premise: a name and the check that returns what contradicts it (empty when it holds).
PREMISES = {
    "every_work_unit_has_streams": lambda: [f"work unit {u} has no stream" for u in work_units_without_streams()],
}


def git(*args):
    r = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


def folders():
    return sorted(p for p in RESULTS.iterdir() if p.is_dir() and p.name != "local" and (p / "manifest.json").exists())


def recordings(folder):
    """(experiment, commit, dirty) of every result file of @p folder, from the files' provenance."""
    out = []
    for meta in sorted(folder.glob("*/*.meta.json")):
        m = json.loads(meta.read_text())
        out.append((f"{meta.parent.name}/{m.get('experiment', '?')}", m.get("git_commit", "?"), bool(m.get("git_dirty"))))
    return out


def blob_at(rev, path):
    """The blob id of @p path at @p rev, or None where the path does not exist there."""
    try:
        return git("rev-parse", "--verify", "--quiet", f"{rev}:{path}")
    except RuntimeError:
        return None


def changes_since(commit, head="HEAD"):
    """The files of code that makes numbers which differ between @p commit and @p head, as (declared,
    undeclared): declared, the declarations (dicts of DECLARED) that hold; undeclared, (path, why) pairs.
    Raises RuntimeError when git cannot compare the two (no history, unknown commit)."""
    changed = [f for f in git("diff", "--name-only", commit, head).splitlines() if f]
    active = [f for f in changed if not f.startswith(PASSIVE)]
    decl = json.loads(DECLARED.read_text()) if DECLARED.exists() else {"changes": []}
    full = git("rev-parse", "--verify", commit + "^{commit}")
    by_path = {c["path"]: c for c in decl.get("changes", [])} if decl.get("recording_commit") == full else {}
    declared, undeclared = [], []
    for path in active:
        c = by_path.get(path)
        if c is None:
            undeclared.append((path, "not declared"))
            continue
        if blob_at(head, path) != c["blob"]:
            undeclared.append((path, "changed again after its declaration"))
            continue
        premise = c.get("premise")
        against = [] if not premise else PREMISES[premise]() if premise in PREMISES else [f"unknown premise {premise}"]
        if against:
            undeclared.append((path, "its premise fails: " + "; ".join(against)))
            continue
        declared.append(c)
    return declared, undeclared


def describe_changes(commit):
    """One sentence for the report: what code that makes numbers changed between @p commit (the recording) and
    HEAD (the report's tree), or that it was not compared."""
    try:
        declared, undeclared = changes_since(commit)
    except RuntimeError:
        return f"Whether code changed since {commit[:7]} was not compared (no git history of it here)."
    if not declared and not undeclared:
        return (f"Between {commit[:7]} and the commit the report is built from, no code that makes a number "
                "changed (only results, records, the report, documentation and tests).")
    parts = [f"`{c['path']}` ({c['commit'][:7]}: {c['what']}; no recorded number depends on it: "
             f"{c['why_no_recorded_number_changes']})" for c in declared]
    parts += [f"`{p}` ({why}: the numbers recorded at {commit[:7]} may not be what this tree makes)"
              for p, why in undeclared]
    return (f"Code that makes numbers changed between {commit[:7]} and the commit the report is built from: "
            + "; ".join(parts) + ".")


def declared_experiments():
    """{study/experiment: GPUs it needs} of every experiment of every declared study, as the runner reads their
    definitions (the most any of its runs needs)."""
    return {f"{study}/{d['name']}": max([int(d.get("needs_gpus", 1))] + [int(r.get("needs_gpus", 1)) for r in d["runs"]])
            for study in registry.names() for d in load_definitions(study)}


def missing_experiments(folder, rec, declared):
    """The experiments of @p declared (declared_experiments) a folder should hold and has no result file of: on a
    one-GPU host every experiment that needs one GPU; on a host with several GPUs those that need several."""
    gpus = ResultFolder(folder).gpu_count
    have = {e for e, _, _ in rec}
    return sorted(e for e, need in declared.items() if e not in have and (need >= 2 if gpus >= 2 else need == 1))


def recorded_seconds(experiments):
    """(seconds, unknown): the job time the committed manifests recorded for @p experiments (the largest over the
    folders that timed it), and those no manifest timed."""
    best = {}
    for folder in folders():
        try:
            entries = ResultFolder(folder).manifest.get("experiments", {})
        except NotAResultFolder:  # a folder the results check reports; no time from it
            continue
        for e in experiments:
            sec = entries.get(e, {}).get("seconds")
            if sec:
                best[e] = max(best.get(e, 0.0), sum(sec.values()))
    return sum(best.values()), sorted(set(experiments) - set(best))


README = ROOT / "README.md"
CITATION = ROOT / "CITATION.cff"
# A release tag as the README would name it: `v` and a version, in backticks.
TAG_MENTION = re.compile(r"`(v\d+(?:\.\d+)*(?:-[A-Za-z0-9.]+)?)`")


def citation_version(path=None):
    """The `version` CITATION.cff states (its top-level key), or None."""
    try:
        text = pathlib.Path(path or CITATION).read_text()
    except OSError:
        return None
    m = re.search(r'^version:\s*"?([^"\n]+?)"?\s*$', text, re.M)
    return m.group(1) if m else None


def tag_findings(readme=None, citation=None):
    """Why the release tags do not hold (empty when they do): HEAD without a tag v*, a tag on HEAD whose version
    is not CITATION.cff's, a tag the README names that the repository lacks."""
    out = []
    existing = set(git("tag", "-l").split())
    on_head = [t for t in git("tag", "--points-at", "HEAD").split() if t.startswith("v")]
    version = citation_version(citation)
    if not on_head:
        out.append("HEAD has no release tag (v<version>): tag the commit once everything else here holds "
                   "(docs/release.md)")
    elif version is not None and f"v{version}" not in on_head:
        out.append(f"HEAD's release tag {', '.join(on_head)} is not CITATION.cff's version {version} (v{version})")
    try:
        text = pathlib.Path(readme or README).read_text()
    except OSError:
        text = ""
    for tag in sorted(set(TAG_MENTION.findall(text))):
        if tag not in existing:
            out.append(f"the README names the tag {tag}, which this repository does not have")
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--todo", action="store_true", help="list, per folder, the experiments recorded at another commit")
    a = p.parse_args(argv)
    per_folder = {f: recordings(f) for f in folders()}
    commits = collections.Counter(c for rec in per_folder.values() for _, c, _ in rec)
    if not commits:
        print("release check: no committed results")
        return 1
    main_commit = commits.most_common(1)[0][0]
    declared_exps = declared_experiments()
    ok = True
    print(f"release check: recording commit {main_commit[:7]} ({commits[main_commit]} of {sum(commits.values())} files)")
    for folder, rec in per_folder.items():
        at = sum(1 for _, c, d in rec if c == main_commit and not d)
        dirty = sum(1 for _, _, d in rec if d)
        print(f"  {folder.name}: {at} of {len(rec)} files at {main_commit[:7]}, clean"
              + (f"; {dirty} from a dirty tree" if dirty else ""))
        missing = missing_experiments(folder, rec, declared_exps)
        if missing:
            print(f"    {len(missing)} declared experiments have no result here")
        if at != len(rec) or missing:
            ok = False
            if a.todo:
                others = sorted({e for e, c, d in rec if c != main_commit or d})
                if others:
                    print("    to record again: " + ", ".join(others))
                if missing:
                    print("    never recorded here: " + ", ".join(missing))
                seconds, unknown = recorded_seconds(others + missing)
                print(f"    their recorded job time: about {seconds:.0f} s"
                      + (f", besides {len(unknown)} without one" if unknown else "")
                      + " (the runner's start and the build come on top)")
    try:
        declared, undeclared = changes_since(main_commit)
    except RuntimeError as e:
        print(f"  the recording commit is not in this repository's history: {e}")
        return 1
    for c in declared:
        print(f"  declared change since {main_commit[:7]}: {c['path']} ({c['commit'][:7]}: {c['what']})")
    if undeclared:
        ok = False
        print(f"  changed since {main_commit[:7]} in code that makes numbers ({len(undeclared)} files): "
              + ", ".join(f"{p} ({why})" for p, why in undeclared[:12]) + (" ..." if len(undeclared) > 12 else ""))
    elif not declared:
        print(f"  since {main_commit[:7]}, only results, records, the report, documentation and tests changed")
    tags = git("tag", "--points-at", "HEAD").split()
    print(f"  tags on HEAD: {', '.join(tags) if tags else 'none'}")
    findings = tag_findings()
    for f in findings:
        print(f"  release tag: {f}")
    if not ok:
        print("release check: not releasable as one recording")
    elif findings:
        print("release check: not released (the recording is releasable; the tag is not as it should be)")
    else:
        print("release check: releasable")
    return 0 if ok and not findings else 1


if __name__ == "__main__":
    sys.exit(main())
