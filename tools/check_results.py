#!/usr/bin/env python3
"""Checks every committed results folder (run by the test suite).

    python3 tools/check_results.py [experiments/results]

Each folder directly under the root (one host: experiments/results/<gpu>/; `local/` is ignored) must
have been written by the runner: a manifest.json that lists every file in the folder and nothing that is
missing, every experiment done or skipped with a reason, a <file>.meta.json with provenance beside each
result, and every file as data as the results layer checks it before anything reads it
(experiments/harness/results.py: the columns its kind declares, numbers (never NaN) where numbers belong,
finite positive durations and rates, whole lines, no configuration or row twice, the .meta.json naming the
file's experiment, kind and a commit the manifest lists, a correctness row's pass the one its values give, the
SHA-256 and row count the manifest recorded), no failed or invalid row (the one rule of the results layer),
and every study a declared one (experiments/studies.json). Each problem names the file, the line and the
column. Besides the runner's files, a folder may hold the record of the reviewer's kit
run on that GPU (experiments/reproduce_check.py): reproduce_check.md with reproduce_check.json beside it,
whose every claim has a verdict.

The measured provenance (experiments/harness/provenance.py: host name, boot id, CPU model and frequency policy,
GPU UUIDs, driver, and the hash of the sources measured on the host against the commit's own) is checked where a
.meta.json carries it: its expected hash must be the hash of its commit's sources (recomputed here from git),
and a tree it calls clean must have measured exactly those. Files recorded before it was kept are named as
information, not counted as problems; so are the kit's records (experiments/records/reproduce-check-*) made
before the kit kept its results folder, and a record that holds one is checked as a results folder.
"""
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
if not __package__:  # run by its path, not with -m: the shim puts the checkout's root on the path
    import _checkout  # noqa: F401

from experiments.harness import provenance, registry  # noqa: E402
from experiments.harness.results import NotAResultFolder, ResultFolder, invalid, pass_disagreements  # noqa: E402

# The reviewer's kit's record of one GPU (experiments/reproduce_check.py), kept at a folder's top level.
KIT_FILES = {"reproduce_check.md", "reproduce_check.json"}
KIT_VERDICTS = {"reproduced", "differs", "too noisy to judge", "not compared", "not run"}
# A record of the kit that judges claims (its "kit_format" 2): a claim verdict and a timing line, each with a reason.
CLAIM_VERDICTS = {"holds", "does not hold here", "not testable here"}
REPEATABILITY = {"repeated", "not repeated", "too noisy to judge", "not compared"}

COMMON_META = ["experiment", "study", "kind", "git_commit", "git_dirty", "date_utc", "command", "host_cpu", "build"]
GPU_META = ["gpu_name", "sm_count", "driver_version", "cuda_version"]


def check_folder(folder):
    errors = []
    try:
        results = ResultFolder(folder)
    except NotAResultFolder as e:
        return [f"{e} (every results folder is written by experiments/run.py)"], 0
    listed = results.files
    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*")
               if p.is_file() and p.name != "manifest.json" and not p.name.endswith(".meta.json")}
    kit = present & KIT_FILES
    if kit:
        present -= KIT_FILES
        errors += check_kit(folder, kit)
    errors += [f"{folder}/{f}: not in manifest.json" for f in sorted(present - set(listed))]
    errors += [f"{folder}/{f}: in manifest.json but missing" for f in sorted(set(listed) - present)]
    for name, e in results.experiments.items():
        status = e.get("status")
        if status not in ("done", "skipped"):
            errors.append(f"{folder}: experiment {name} is {status}: {e.get('jobs')}")
        for key, s in e.get("jobs", {}).items():
            if s != "done" and not str(s).startswith("skipped: "):
                errors.append(f"{folder}: experiment {name}, job {key}: {s}")
    declared = registry.names()
    lacking, expected_cache = [], {}
    for rel in sorted(listed):
        if not (folder / rel).exists():
            continue
        if results.study_of(rel) not in declared:
            errors.append(f"{folder}/{rel}: study {results.study_of(rel)} is not declared in experiments/studies.json")
            continue
        errors += check_file(results, rel)
        kind, meta = results.kind(rel), results.meta(rel)
        if kind is not None and meta:
            problems, missing = measured_provenance(results, rel, meta, kind, expected_cache)
            errors += problems
            if missing:
                lacking.append((rel, missing))
    if lacking:
        fields = sorted({k for _, m in lacking for k in m})
        INFORMATION.append(f"{folder}: {len(lacking)} of {len(listed)} result files were recorded before the "
                           f"measured provenance was kept (they lack {', '.join(fields)}); a new recording carries "
                           "them (the runner refuses to write a .meta.json without them)")
    return errors, len(listed)


def measured_provenance(results, rel, meta, kind, expected_cache):
    """(problems, lacking) of a .meta.json's measured provenance (experiments/harness/provenance.py): the fields
    it lacks (a file recorded before they were kept: information, not a problem), and, where it has them, whether
    its source_hash_expected is the hash of its commit's own sources, and whether a tree it calls clean measured
    exactly those (a problem otherwise: the provenance was not measured from that commit's files)."""
    needed = list(provenance.HOST_FIELDS) + ([] if kind.host_only else list(provenance.GPU_FIELDS))
    lacking = [k for k in needed if meta.get(k) in (None, "", [])]
    problems = []
    commit, expected = meta.get("git_commit"), meta.get("source_hash_expected")
    if expected and expected != "unknown" and commit:
        if commit not in expected_cache:
            blobs = provenance.commit_blobs(commit)
            expected_cache[commit] = provenance.tree_hash(blobs) if blobs is not None else None
        truth = expected_cache[commit]
        where = results.path / rel
        if truth is not None and truth != expected:
            problems.append(f"{where}: its source_hash_expected is not the hash of commit {commit[:12]}'s sources "
                            "(the provenance names a commit it was not measured against)")
        elif truth is not None and meta.get("git_dirty") is False and meta.get("source_hash") != truth:
            problems.append(f"{where}: called clean, but the sources it measured are not commit {commit[:12]}'s")
    return problems, lacking


def check_kit(folder, present):
    """The kit's record: both files, every claim with a verdict of the kit's and a reason."""
    if present != KIT_FILES:
        return [f"{folder}: the kit's record needs both {' and '.join(sorted(KIT_FILES))}"]
    try:
        record = json.loads((folder / "reproduce_check.json").read_text())
        claims = record["claims"]
    except (ValueError, KeyError, TypeError) as e:
        return [f"{folder}/reproduce_check.json: not the kit's record: {e}"]
    if record.get("kit_format", 1) >= 2:
        return [f"{folder}/reproduce_check.json: claim {c.get('id')}: verdict {c.get('verdict')!r} and timings "
                f"{c.get('repeatability')!r}: each must be one of the kit's, with its reason" for c in claims
                if c.get("verdict") not in CLAIM_VERDICTS or not c.get("reason")
                or c.get("repeatability") not in REPEATABILITY or not c.get("repeatability_reason")]
    return [f"{folder}/reproduce_check.json: claim {c.get('id')}: verdict {c.get('verdict')!r} without its reason"
            for c in claims if c.get("verdict") not in KIT_VERDICTS or not c.get("reason")]


def check_file(results, rel):
    """The file as data (the results layer's check: columns, numbers, whole lines, no duplicates, its
    .meta.json and the manifest), the provenance keys every result needs, and a GPU result in its GPU's folder."""
    errors = list(results.problems(rel))
    path = results.path / rel
    kind = results.kind(rel)
    meta_path = path.with_name(path.name.rsplit(".", 1)[0] + ".meta.json")
    if kind is None or not meta_path.exists():
        return errors
    try:
        meta = json.loads(meta_path.read_text())
    except ValueError:
        return errors  # reported by the results layer
    needed = COMMON_META + ([] if kind.host_only else GPU_META)
    errors += [f"{meta_path}: missing key '{k}'" for k in needed if meta.get(k) in (None, "")]
    # A GPU result belongs in the folder named after its GPU (experiments/harness/provenance.py, gpu_slug): a
    # run that wrote into another GPU's folder would otherwise pass for that GPU's measurement. Folders named
    # otherwise (a test's scratch folder, say) are not a GPU's and are not judged by this.
    folder = results.path.name
    if not kind.host_only and meta.get("gpu_name") and re.match(r"(nvidia|amd|intel)-", folder):
        slug = re.sub(r"[^a-z0-9]+", "-", str(meta["gpu_name"]).lower()).strip("-")
        if folder != slug and not re.fullmatch(re.escape(slug) + r"-x\d+", folder):
            errors.append(f"{meta_path}: recorded on {meta['gpu_name']}, which is not this folder's GPU ({folder})")
    if kind.suffix == ".csv" and not results.problems(rel):
        rows = results.rows(rel, invalid_rows="keep", incomplete="read")
        errors += [f"{path}:{i}: a failed or invalid row" for i, row in enumerate(rows, start=2) if invalid(row)]
        errors += pass_disagreements(path, kind, rows)
    return errors


def check_records(records):
    """The kit's records under @p records: a record made since the kit keeps its results folder holds it, and it is
    checked as a results folder; the earlier ones are named (information)."""
    errors = []
    for record in sorted(p for p in records.glob("reproduce-check-*") if p.is_dir()):
        if (record / "results" / "manifest.json").exists():
            e, _ = check_folder(record / "results")
            errors += e
        else:
            INFORMATION.append(f"{record}: a kit record made before the kit kept its results folder (its verdicts, "
                               "the comparison and the manifest only)")
    return errors


# What the check says without counting it as a problem (files recorded before a field was kept, say).
INFORMATION = []


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "experiments" / "results")
    folders = sorted(p for p in root.iterdir() if p.is_dir() and p.name != "local") if root.is_dir() else []
    errors, count = [], 0
    if not folders:
        errors.append(f"{root}: no results folders")
    for folder in folders:
        e, n = check_folder(folder)
        errors += e
        count += n
    if root.resolve() == (ROOT / "experiments" / "results").resolve():
        errors += check_records(ROOT / "experiments" / "records")
    for line in INFORMATION:
        print("results check: information:", line)
    for e in errors:
        print("results check:", e)
    print(f"results check: {len(folders)} folders, {count} result files, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
