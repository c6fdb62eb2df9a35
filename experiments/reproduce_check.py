#!/usr/bin/env python3
"""The reviewer's kit: re-runs the headline claims of every study and compares them with a committed folder.

    python3 experiments/reproduce_check.py [--ref DIR] [--out DIR] [--build build] [--peer PATH]
                                           [--claims a,b] [--budget SECONDS] [--dry-run]

The claims are declared in experiments/reproduce_check.json (one entry each: the study, the experiments
to run, the result files that decide the verdict, an estimated time). Before anything runs, the kit checks
the declaration (an unknown study, experiment or result file is an error), chooses the reference folder
and prints its time estimate: from the job times the reference's manifest records, or, where it records
none, from the declaration. Then, for each claim, `experiments/run.py --study S --only X,Y` runs into the
results folder results/ of a fresh kit folder experiments/results/local/reproduce-check-<gpu>-<UTC date and
time>/ (--out names one, never inside a committed folder; running again on the same folder resumes it:
claims already run are kept, with their times, provided that they ran on this host since its last boot; a
folder begun elsewhere is refused before any claim), and `experiments/compare.py` compares that results
folder with the reference. One line per claim follows:

  reproduced   every deciding file agrees with the reference within its kind's declared tolerance
  differs      a deciding file differs, is missing or unreadable, or its experiment failed (each named)
  too noisy to judge  no deciding file differs, but one is too noisy to judge (a median whose allowance is above
               the cap): never counted as reproduced
  not compared the reference folder has no such file (the reason)
  not run      not asked for (--claims), needs --peer, or the --budget ran out (run again to go on)

with the seconds each claim took and the total; the same goes to reproduce_check.md and
reproduce_check.json in the kit folder, beside compare.md/.json, the runner's log and results/ (a complete run
is committed as that folder whole, its re-run result files with its verdicts, as
experiments/records/reproduce-check-<gpu>-<date>/). The reference: --ref, else the
committed folder of this GPU's model (experiments/results/<gpu>, named as experiments/run.py names
folders), else the nearest one, which the output says. Without a GPU the kit refuses before any work
(--dry-run works anywhere). Exit status: 0 when every claim that ran is reproduced, 1 when one differs or
without a GPU, 2 for a bad declaration or option (a --out folder begun on another host among them), 3 when
the budget ran out before every claim had run.
"""
import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
if not __package__:  # run by its path, not with -m: import from the checkout's root
    sys.path[0] = str(pathlib.Path(__file__).resolve().parents[1])

from experiments.harness import provenance, registry, runner  # noqa: E402
from experiments.harness.results import NotAResultFolder, ResultFolder, committed_folder  # noqa: E402

ROOT = HERE.parent
DECLARATION = HERE / "reproduce_check.json"
RESULTS = HERE / "results"
DEFAULT_REF = RESULTS / "nvidia-h200"  # the folder the report is built from
# The kit folder: its verdicts, log and comparison at the top, and the runner's results folder of the claims
# it ran under this name (a record of a complete run is the kit folder whole).
RESULTS_NAME = "results"
CLAIM_KEYS = {"id", "study", "claim", "source", "experiments", "decided_by", "estimate_s"}


class BadDeclaration(Exception):
    """The declaration names something that does not exist, or lacks a key."""


def load_declaration(path):
    """The claims of @p path, checked: every study declared, every experiment defined for its study, every
    deciding file of its study, ids unique, estimates positive."""
    try:
        data = json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError) as e:
        raise BadDeclaration(f"{path}: cannot read the declaration: {e}") from e
    claims = data.get("claims")
    if not isinstance(claims, list) or not claims:
        raise BadDeclaration(f"{path}: expected a non-empty list 'claims'")
    studies = set(registry.names())
    seen = set()
    for i, c in enumerate(claims):
        where = f"{path}: claim {c.get('id', i)!r}"
        missing = sorted(CLAIM_KEYS - set(c))
        if missing:
            raise BadDeclaration(f"{where}: missing key(s) {', '.join(missing)}")
        if c["id"] in seen:
            raise BadDeclaration(f"{where}: the id is used twice")
        seen.add(c["id"])
        if c["study"] not in studies:
            raise BadDeclaration(f"{where}: unknown study {c['study']!r} (declared: {', '.join(sorted(studies))})")
        known = {d["name"] for d in runner.load_definitions(c["study"])}
        unknown = [x for x in c["experiments"] if x not in known]
        if not c["experiments"] or unknown:
            raise BadDeclaration(f"{where}: unknown experiment(s) {', '.join(unknown) or '(none given)'} of study "
                                 f"{c['study']} (experiments/definitions/{c['study']}/)")
        foreign = [f for f in c["decided_by"] if not f.startswith(c["study"] + "/")]
        if not c["decided_by"] or foreign:
            raise BadDeclaration(f"{where}: decided_by must name result files of study {c['study']} "
                                 f"(<study>/<file>): {', '.join(foreign) or '(none given)'}")
        if not isinstance(c["estimate_s"], (int, float)) or c["estimate_s"] <= 0:
            raise BadDeclaration(f"{where}: estimate_s must be a positive number of seconds")
        if c.get("needs") not in (None, "peer"):
            raise BadDeclaration(f"{where}: needs must be 'peer' when given")
    return claims


def folder_gpu(folder):
    """The GPU model a committed folder was recorded on (its manifest's host), or None."""
    try:
        host = json.loads((folder / "manifest.json").read_text()).get("host", {})
    except (OSError, ValueError):
        return None
    gpus = host.get("gpus") or []
    return gpus[0].get("gpu_name") if gpus else None


def choose_ref(devices, given):
    """(folder, note): --ref as given; else the committed folder named after this GPU's model, as the runner
    names folders (experiments/harness/provenance.gpu_slug, without the "-xN" of a host's GPU count); else
    the committed folder whose GPU name shares the longest beginning with this one's (the report's folder
    on a tie), with a note saying so."""
    if given:
        return pathlib.Path(given), f"reference {given} (given)"
    committed = sorted(p for p in RESULTS.iterdir() if p.is_dir() and p.name != "local" and (p / "manifest.json").exists())
    if not devices:
        return DEFAULT_REF, f"reference {DEFAULT_REF.relative_to(ROOT)} (no GPU here: the report's folder)"
    name = devices[0]["gpu_name"]
    slug = provenance.gpu_slug(devices[:1])
    exact = RESULTS / slug
    if exact in committed:
        note = f"reference {exact.relative_to(ROOT)} (recorded on this GPU model, {name})"
        if len(devices) > 1:
            note += f"; this host has {len(devices)} GPUs, the claims' experiments use one unless they say otherwise"
        return exact, note

    def shared(folder):
        other = (folder_gpu(folder) or folder.name).lower()
        n = 0
        while n < min(len(other), len(name)) and other[n] == name.lower()[n]:
            n += 1
        return n, folder == DEFAULT_REF
    nearest = max(committed, key=shared)
    return nearest, (f"reference {nearest.relative_to(ROOT)}: NO committed folder was recorded on this GPU "
                     f"({name}); the nearest is {folder_gpu(nearest) or nearest.name}, so the timing claims are "
                     "expected to differ by the two GPUs' difference (the details say by how much)")


def recorded_seconds(ref, claim):
    """The claim's time from the job times @p ref's manifest records, or None when it records none."""
    try:
        experiments = json.loads((ref / "manifest.json").read_text()).get("experiments", {})
    except (OSError, ValueError):
        return None
    total = 0.0
    for x in claim["experiments"]:
        e = experiments.get(f"{claim['study']}/{x}", {})
        seconds = e.get("seconds") or {}
        if not seconds or set(seconds) != {k for k, s in e.get("jobs", {}).items() if s == "done"}:
            return None
        total += sum(seconds.values())
    return total


def command(claim, args, out):
    """The runner's command line for @p claim, recording into the kit folder @p out's results folder."""
    cmd = [sys.executable, str(HERE / "run.py"), "--build", args.build, "--out", str(out / RESULTS_NAME),
           "--study", claim["study"], "--only", ",".join(claim["experiments"])]
    if claim.get("needs") == "peer" and args.peer:
        cmd += ["--peer", args.peer]
    return cmd


def write_atomic(path, text):
    """@p text into @p path whole or not at all (a temporary file renamed over it)."""
    tmp = path.with_name(f".{path.name}.partial")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def verdict(claim, state, compared, ref_files):
    """(verdict, reason) of one claim from its run state and the compare verdicts: differs when a deciding file
    differs, is missing or unreadable (every such file named), too noisy to judge when none does but one is (its
    medians' allowance above the cap: never counted as reproduced), else reproduced."""
    if state is None or state.get("not_run"):
        return "not run", (state or {}).get("not_run", "not run")
    for f in claim["decided_by"]:
        if f not in ref_files:
            return "not compared", f"the reference folder has no {f}"
    details, differing, noisy = [], [], []
    for f in claim["decided_by"]:
        v, d = compared.get(f, ("missing", "not in the comparison"))
        if v == "not re-run":
            return "differs", f"{f}: the run did not record its experiment (runner exit {state.get('rc')}; see reproduce_check.log)"
        if v == "too noisy to judge":
            noisy.append(f"{f}: {v}: {d}")
        elif v != "agrees":
            differing.append(f"{f}: {v}: {d}")
        details.append(f"{f}: {d}")
    if differing:
        return "differs", "; ".join(differing)
    if noisy:
        return "too noisy to judge", "; ".join(noisy)
    return "reproduced", "; ".join(details)


def report_text(header, rows, total):
    lines = ["# Reproduction check", ""] + [f"- {h}" for h in header] + [
        "", "| claim | study | source | verdict | seconds | reason |", "|---|---|---|---|---|---|"]
    for r in rows:
        secs = f"{r['seconds']:.0f}" if r["seconds"] is not None else "-"
        lines.append(f"| {r['id']} | {r['study']} | {r['source']} | {r['verdict']} | {secs} | "
                     f"{r['reason'].replace('|', '/')} |")
    counts = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    lines += ["", f"Total: {total:.0f} s for the claims that ran; " +
              ", ".join(f"{n} {v}" for v, n in sorted(counts.items())), ""]
    return "\n".join(lines)


def main(argv=None):
    try:
        return _main(argv)
    except OSError as e:
        print(f"reproduce-check: cannot write {e.filename or 'the kit folder'}: {e.strerror or e}. Every file the kit "
              "wrote is whole and as it was before; make room (or make the folder writable) and run again with the "
              "same --out to go on", file=sys.stderr)
        return 2


def _main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ref", help="the committed results folder to compare with (default: this GPU's, else the nearest)")
    p.add_argument("--out", type=pathlib.Path, help="the fresh folder (default: one under experiments/results/local); "
                                                    "an existing kit folder is resumed")
    p.add_argument("--build", default="build", help="the CMake build folder (default build)")
    p.add_argument("--peer", help="a built binary of the public MilkyWay@Home application (docs/peer.md)")
    p.add_argument("--claims", default="", help="comma-separated claim ids (default: all)")
    p.add_argument("--budget", type=float, help="seconds: start no claim whose estimate would pass this; run again "
                                                "with the same --out to go on")
    p.add_argument("--declaration", type=pathlib.Path, default=DECLARATION, help=argparse.SUPPRESS)
    p.add_argument("--dry-run", action="store_true", help="check the declaration, list what would run and the estimate")
    args = p.parse_args(argv)
    try:
        claims = load_declaration(args.declaration)
    except (BadDeclaration, SystemExit) as e:
        print(f"reproduce-check: {e}", file=sys.stderr)
        return 2
    wanted = [s for s in args.claims.split(",") if s]
    unknown = [s for s in wanted if s not in {c["id"] for c in claims}]
    if unknown:
        print(f"reproduce-check: --claims: unknown claim(s) {', '.join(unknown)} "
              f"(declared: {', '.join(c['id'] for c in claims)})", file=sys.stderr)
        return 2
    devices = provenance.gpus()
    if not devices and not args.dry_run:
        print("reproduce-check: no NVIDIA GPU on this machine (nvidia-smi finds none); the claims time GPU kernels. "
              "--dry-run lists what would run.", file=sys.stderr)
        return 1
    if not args.dry_run and not (pathlib.Path(args.build) / "build_info.json").exists():
        print(f"reproduce-check: --build {args.build}: not a configured build folder (no build_info.json); build first "
              "(make build, or BUILD_ONLY=1 experiments/gpu_host.sh on a GPU host)", file=sys.stderr)
        return 2
    ref, ref_note = choose_ref(devices, args.ref)
    try:
        ResultFolder(ref)  # a damaged, foreign or newer reference is refused before any claim runs
    except NotAResultFolder as e:
        print(f"reproduce-check: --ref {ref}: {e}", file=sys.stderr)
        return 2
    if args.peer and not pathlib.Path(args.peer).is_file():
        print(f"reproduce-check: --peer {args.peer}: no such file (a built binary of the public application)", file=sys.stderr)
        return 2

    selected = [c for c in claims if not wanted or c["id"] in wanted]
    estimate = {}
    for c in selected:
        rec = recorded_seconds(ref, c)
        estimate[c["id"]] = (rec, "recorded in the reference") if rec is not None else (c["estimate_s"], "declared")
    runnable = [c for c in selected if c.get("needs") != "peer" or args.peer]
    total_estimate = sum(estimate[c["id"]][0] for c in runnable)
    print(f"reproduce-check: {ref_note}")
    print(f"reproduce-check: {len(runnable)} of {len(claims)} claims to run; estimate {total_estimate / 60:.0f} min "
          f"({total_estimate:.0f} s; "
          f"{sum(1 for c in runnable if estimate[c['id']][1] == 'declared')} from the declaration's estimates, "
          f"the others from the job times recorded in the reference), besides the build", flush=True)
    if args.dry_run:
        out = args.out or pathlib.Path("experiments/results/local/reproduce-check-<gpu>-<date>")
        for c in selected:
            secs, src = estimate[c["id"]]
            skip = " (not run: needs --peer)" if c not in runnable else ""
            print(f"  {c['id']}: {secs:.0f} s ({src}){skip}\n    python3 experiments/run.py " + " ".join(command(c, args, out)[2:]))
        return 0

    if args.out is None:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M")
        args.out = RESULTS / "local" / f"reproduce-check-{provenance.gpu_slug(devices)}-{stamp}"
    out = args.out.resolve()
    if committed_folder(out) is not None:
        print(f"reproduce-check: --out {out} is inside the committed folder {committed_folder(out)}: the kit writes a "
              "fresh folder (a complete run is committed afterwards, whole, under experiments/records/)",
              file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    state_path = out / "reproduce_check.json"
    if not state_path.exists() and any(not p.name.endswith(".partial") for p in out.iterdir()):
        print(f"reproduce-check: {out} holds files but no reproduce_check.json: not a folder of this kit; "
              "choose another --out", file=sys.stderr)
        return 2
    if not state_path.exists():  # the folder is the kit's from the start: a kill before any claim leaves it resumable
        write_atomic(state_path, json.dumps({"claims_state": {}}, indent=1) + "\n")
    try:
        state = json.loads(state_path.read_text()).get("claims_state", {})
    except (OSError, ValueError, AttributeError) as e:
        print(f"reproduce-check: {state_path}: damaged ({e}); choose a fresh --out", file=sys.stderr)
        return 2
    # The claims kept from an earlier run must have run here (the host name and boot id the runner compares).
    origin = runner.job_origin(*provenance.git_state())
    elsewhere = [cid for cid, s in state.items() if "rc" in s and not runner.same_host(s.get("origin") or {}, origin)]
    if elsewhere:
        first = state[elsewhere[0]].get("origin")
        where = f"on {runner.host_of(first)}" if first else "by a kit that did not record where claims ran"
        print(f"reproduce-check: --out {out}: claim(s) {', '.join(elsewhere)} ran {where}; this run is on "
              f"{runner.host_of(origin)}. A kit folder's claims come from one host: resume it there, or choose a "
              "fresh --out", file=sys.stderr)
        return 2
    if (out / "manifest.json").exists():
        print(f"reproduce-check: --out {out} is a kit folder of an earlier layout (its results beside its verdicts, "
              f"not in {RESULTS_NAME}/): choose a fresh --out", file=sys.stderr)
        return 2
    results = out / RESULTS_NAME
    log = out / "reproduce_check.log"
    for stale in out.glob(".*.partial"):  # the parts of a kit stopped while it wrote
        stale.unlink()
    budget_left = args.budget
    stopped = False
    for c in selected:
        cid = c["id"]
        if cid in state and not state[cid].get("not_run"):
            print(f"reproduce-check: {cid}: already run in {out} ({state[cid]['seconds']:.0f} s), kept", flush=True)
            continue
        if c not in runnable:
            state[cid] = {"not_run": "needs the public application: PEER=<binary> (--peer), docs/peer.md", "seconds": None}
            continue
        if budget_left is not None and estimate[cid][0] > budget_left:
            state[cid] = {"not_run": f"the time budget ran out (estimate {estimate[cid][0]:.0f} s); run again with "
                                     f"--out {out} to go on", "seconds": None}
            stopped = True
            continue
        cmd = command(c, args, out)
        print(f"reproduce-check: {cid}: running (estimate {estimate[cid][0]:.0f} s): experiments/run.py "
              f"{' '.join(cmd[2:])}", flush=True)
        t0 = time.monotonic()
        # The runner's output goes to a temporary file; the claim's section joins the log whole when it ends.
        running = out / f".{cid}.log.partial"
        with running.open("w") as f:
            f.write(f"\n== {cid}: {' '.join(cmd)}\n")
            f.flush()
            rc = subprocess.run(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT).returncode
        seconds = time.monotonic() - t0
        write_atomic(log, (log.read_text() if log.exists() else "") + running.read_text())
        running.unlink()
        state[cid] = {"rc": rc, "seconds": round(seconds, 1), "origin": origin}
        if budget_left is not None:
            budget_left -= seconds
        print(f"reproduce-check: {cid}: runner exit {rc} after {seconds:.0f} s", flush=True)
        write_atomic(state_path, json.dumps({"claims_state": state}, indent=1) + "\n")

    compared = {}
    if any("rc" in s for s in state.values()):
        r = subprocess.run([sys.executable, str(HERE / "compare.py"), str(results), str(ref),
                            "--out", str(out / "compare.md"), "--json", str(out / "compare.json")],
                           cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode == 2:
            print(f"reproduce-check: the comparison failed: {r.stderr.strip()}", file=sys.stderr)
            return 1
        compared = {v["result"]: (v["verdict"], v["detail"]) for v in json.loads((out / "compare.json").read_text())["verdicts"]}
    ref_folder = ResultFolder(ref)
    ref_files = set(ref_folder.files)
    ref_kinds = {f: ref_folder.kind(f) for f in ref_files}
    rows = []
    for c in claims:
        s = state.get(c["id"]) or (None if c in selected else {"not_run": "not asked for (--claims)", "seconds": None})
        v, reason = verdict(c, s, compared, ref_files)
        host_specific = {f: ref_kinds[f].host_specific for f in c["decided_by"]
                         if ref_kinds.get(f) is not None and ref_kinds[f].host_specific}
        if host_specific and v in ("reproduced", "differs", "too noisy to judge"):
            reason += " [host-specific: " + "; ".join(f"{f}: {note}" for f, note in host_specific.items()) + "]"
        rows.append({"id": c["id"], "study": c["study"], "source": c["source"], "verdict": v, "reason": reason,
                     "seconds": (s or {}).get("seconds"), "experiments": c["experiments"], "decided_by": c["decided_by"],
                     "host_specific": host_specific})
    total = sum(r["seconds"] or 0 for r in rows)
    host = f"{len(devices)} x {devices[0]['gpu_name']}"
    commit, dirty = provenance.git_state()
    source = provenance.source_state()
    facts = dict(provenance.host_facts(), gpu_uuids=[g.get("gpu_uuid", "unknown") for g in devices],
                 driver_version=devices[0].get("driver_version", "unknown"),
                 **{k: source[k] for k in ("source_hash", "source_hash_expected", "source_expected_from",
                                           "source_mismatches")})
    lacking = [k for k in provenance.HOST_FIELDS + provenance.GPU_FIELDS if facts.get(k) in (None, "", [], "unknown")
               and k != "cpu_frequency_policy"]
    if lacking:  # the record names the host and the sources it measured, or is not written
        print(f"reproduce-check: the provenance of the record cannot be measured here: {', '.join(lacking)}",
              file=sys.stderr)
        return 2
    header = [f"GPU: {host} ({', '.join(facts['gpu_uuids'])}); host {facts['host_name']} (boot id {facts['boot_id']}, "
              f"CPU {facts['cpu_model']}); commit {commit}{' (the files differ from it)' if dirty else ''}, sources "
              f"{source['source_hash'][:12]}; {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}",
              ref_note, f"results: {results}; per-file verdicts: compare.md; the runner's output: reproduce_check.log",
              f"estimate before the run: {total_estimate:.0f} s"]
    text = report_text(header, rows, total)
    for r in rows:
        secs = f"{r['seconds']:.0f} s" if r["seconds"] is not None else "-"
        print(f"{r['verdict']:>12}  {r['id']}  [{secs}]  {r['reason']}")
    print(f"total: {total:.0f} s")
    write_atomic(out / "reproduce_check.md", text)
    write_atomic(state_path, json.dumps({"gpu": host, "commit": commit, "dirty": dirty, "provenance": facts,
                                         "reference": str(ref),
                                         "reference_note": ref_note, "estimate_s": round(total_estimate),
                                         "total_s": round(total, 1), "claims": rows, "claims_state": state},
                                        indent=1) + "\n")
    print(f"reproduce-check: {out / 'reproduce_check.md'}")
    if stopped:
        return 3
    return 1 if any(r["verdict"] == "differs" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
