#!/usr/bin/env python3
"""Checks every committed results folder (run by the test suite).

    python3 tools/check_results.py [experiments/results]

Each folder directly under the root (one host: experiments/results/<gpu>/; `local/` is ignored) must
have been written by the runner: a manifest.json that lists every file in the folder and nothing that is
missing, every experiment done or skipped with a reason, a <file>.meta.json with provenance beside each
result, CSV columns as the study declares for the file's kind (experiments/studies/<study>.py), numbers
where numbers belong, no failed or invalid row, and text results that are whole.
"""
import csv
import importlib
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "experiments"))

COMMON_META = ["experiment", "study", "kind", "git_commit", "git_dirty", "date_utc", "command", "host_cpu", "build"]
GPU_META = ["gpu_name", "sm_count", "driver_version", "cuda_version"]


def check_folder(folder):
    errors = []
    manifest_path = folder / "manifest.json"
    if not manifest_path.exists():
        return [f"{folder}: no manifest.json (every results folder is written by experiments/run.py)"], 0
    manifest = json.loads(manifest_path.read_text())
    listed = manifest.get("files", {})
    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*")
               if p.is_file() and p.name != "manifest.json" and not p.name.endswith(".meta.json")}
    errors += [f"{folder}/{f}: not in manifest.json" for f in sorted(present - set(listed))]
    errors += [f"{folder}/{f}: in manifest.json but missing" for f in sorted(set(listed) - present)]
    for name, e in manifest.get("experiments", {}).items():
        status = e.get("status")
        if status not in ("done", "skipped"):
            errors.append(f"{folder}: experiment {name} is {status}: {e.get('jobs')}")
        for key, s in e.get("jobs", {}).items():
            if s != "done" and not str(s).startswith("skipped: "):
                errors.append(f"{folder}: experiment {name}, job {key}: {s}")
    for rel, entry in sorted(listed.items()):
        path = folder / rel
        if not path.exists():
            continue
        study = importlib.import_module(f"studies.{rel.split('/')[0]}")
        errors += check_file(path, entry, study)
    return errors, len(listed)


def check_file(path, entry, study):
    errors = []
    kind = entry["kind"]
    meta_path = path.with_name(path.name.rsplit(".", 1)[0] + ".meta.json")
    if not meta_path.exists():
        return [f"{path}: no provenance file {meta_path.name}"]
    meta = json.loads(meta_path.read_text())
    needed = COMMON_META + ([] if kind in study.HOST_KINDS else GPU_META)
    errors += [f"{meta_path}: missing key '{k}'" for k in needed if meta.get(k) in (None, "")]
    if path.suffix != ".csv":
        marker = study.TEXT_MARKERS.get(kind)
        text = path.read_text(errors="replace")
        if not text.strip() or (marker and not re.search(marker, text, re.M)):
            errors.append(f"{path}: incomplete {kind} output (no match for {marker!r})")
        return errors
    with path.open() as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return errors + [f"{path}: no rows"]
    # A kind may write a second table, <name>_progress.csv, with columns of its own (COLUMNS["<kind>_progress"]).
    progress_key = f"{kind}_progress"
    columns = list(study.COLUMNS.get(progress_key if path.stem.endswith("_progress") and progress_key in study.COLUMNS
                                     else kind, []))
    if kind == "ncu_metrics":
        definition = json.loads((ROOT / "experiments" / "definitions" / meta["study"] / f"{meta['experiment']}.json").read_text())
        columns += list(definition["metrics"])
    missing = [c for c in columns if c not in rows[0]]
    if missing:
        return errors + [f"{path}: missing columns {missing}"]
    for i, row in enumerate(rows, start=2):
        for c in rows[0]:
            if c in study.NUMERIC and row[c] != "":
                try:
                    float(row[c])
                except ValueError:
                    errors.append(f"{path}:{i}: column {c} is not a number: {row[c]!r}")
        if row.get("pass", "true") != "true" or row.get("valid", "true") != "true":
            errors.append(f"{path}:{i}: a failed or invalid row")
    return errors


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
    for e in errors:
        print("results check:", e)
    print(f"results check: {len(folders)} folders, {count} result files, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
