#!/usr/bin/env python3
"""The reviewer's kit: re-runs the headline claims of every study, judges each claim from the fresh results by the
report's own code, and compares their timings with a committed folder.

    python3 experiments/reproduce_check.py [--ref DIR] [--out DIR] [--build build] [--peer PATH]
                                           [--claims a,b] [--budget SECONDS] [--dry-run | --judge DIR]

The claims are declared in experiments/reproduce_check.json (one entry each: the study, what the source document
claims, the claims of the report's claims tables that decide it, the experiments to run, the result files whose
timings are compared, an estimated time). Before anything runs, the kit checks the declaration (an unknown
study, experiment or result file is an error), chooses the reference folder and prints its time estimate: from
the job times the reference's manifest records, or, where it records none, from the declaration. Then, for each
claim, `experiments/run.py --study S --only X,Y` runs into the results folder results/ of a fresh kit folder
experiments/results/local/reproduce-check-<gpu>-<UTC date and time>/ (--out names one, never inside a committed
folder; running again on the same folder resumes it: claims already run are kept, with their times, provided
that they ran on this host since its last boot; a folder begun elsewhere is refused before any claim).

Each claim then gets two lines. The first is the claim's verdict, read from the verdicts the report's chapter
modules record when they build their claims tables from the fresh results (experiments/claim_verdicts.py; the
files those chapters read that the kit does not re-run, such as listings, profiles and CPU baselines, are the
reference's, and the output counts them):

  holds               the report says reproduced or reproduced qualitatively for a claim it rests on, and
                      differs for none
  does not hold here  the report says differs for a claim it rests on (each named, with the value here)
  not testable here   with the reason: the report says not testable here, or cannot build the claim's table
                      (the file it lacks), or judges no claim of a document on it, or the claim did not run
                      (not asked for with --claims, needs --peer, the --budget ran out)

with the published value, the reference folder's value and this run's side by side. The second is the timing
repeatability of the claim's deciding files against the reference (experiments/compare.py, the interval of each
median, as `make compare`), never counted as agreement of the claim:

  repeated            every deciding file agrees with the reference
  not repeated        a deciding file differs, is missing or unreadable, or its experiment failed (each named)
  too noisy to judge  none differs, but one's allowance is above the cap
  not compared        the reference holds another GPU model ("no committed folder of this GPU: not compared"),
                      or the claim did not run

The same goes to reproduce_check.md and reproduce_check.json in the kit folder, beside compare.md/.json, the
runner's log and results/ (a complete run is committed as that folder whole, its re-run result files with its
verdicts, as experiments/records/reproduce-check-<gpu>-<date>/). The reference: --ref, else the committed folder
of this GPU's model (experiments/results/<gpu>, named as experiments/run.py names folders), else the nearest one,
which the output says; on a GPU model without a committed folder the claims are judged all the same. Without a
GPU the kit refuses before any work; --dry-run (what would run) and --judge DIR (the two lines of every claim for
a results folder already recorded, against --ref or the committed folder of DIR's GPU model; nothing runs and
nothing is written) work anywhere.

Exit status: 0 when every claim's verdict here is the reference folder's (a document's claim that does not hold
on this GPU, as the report says of the reference, is the artifact's finding reproduced) or is not testable (with
its reason); 1 when a claim holds in one and does not hold in the other, when an experiment of a claim failed,
or without a GPU; 2 for a bad declaration, option or folder (a --out
folder begun on another host among them); 3 when the budget ran out before every claim had run. Timing
repeatability does not change the exit status.
"""
import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
if not __package__:  # run by its path, not with -m: the shim puts the checkout's root on the path
    import _checkout  # noqa: F401

from experiments import claim_verdicts  # noqa: E402
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
        if not c.get("states"):
            raise BadDeclaration(f"{where}: missing key states (what the source document claims, in words)")
        try:
            claim_verdicts.check_judged(c, where)
        except claim_verdicts.BadDeclaration as e:
            raise BadDeclaration(str(e)) from e
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
                     f"({name}); the nearest is {folder_gpu(nearest) or nearest.name}: the claims are judged all the "
                     "same, with its values beside this run's; timings are not compared")


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


def claim_rows(claims, judged, committed, compared, compare_note, state=None, selected=None, kinds=None):
    """One row per declared claim: its verdict from @p judged (claim_verdicts.report_verdicts of the folder
    judged) with the values of @p committed (the same of the reference) beside it, and its timing
    repeatability from @p compared ({file: (verdict, detail)} of experiments/compare.py, or None with
    @p compare_note). @p state: the kit's run state of each claim (None: a folder already recorded, every claim
    judged); @p kinds: the reference's kind of each file (a host-specific kind is named)."""
    rows = []
    for c in claims:
        s = None if state is None else (state.get(c["id"]) or (
            None if selected is None or c in selected else {"not_run": "not asked for (--claims)", "seconds": None}))
        row = {"id": c["id"], "study": c["study"], "source": c["source"], "states": c["states"],
               "experiments": c["experiments"], "decided_by": c["decided_by"],
               "seconds": (s or {}).get("seconds")}
        if state is not None and (s is None or s.get("not_run")):
            why = (s or {}).get("not_run", "not run")
            row.update(verdict=claim_verdicts.NOT_TESTABLE, reason=f"not run: {why}", rows=[],
                       committed_verdict=claim_verdicts.judge(c, committed)["verdict"],
                       repeatability=claim_verdicts.NOT_COMPARED, repeatability_reason="not run")
            rows.append(row)
            continue
        mine, theirs = claim_verdicts.judge(c, judged), claim_verdicts.judge(c, committed)
        for r, t in zip(mine["rows"], theirs["rows"]):
            r["committed_verdict"], r["committed_value"] = t["verdict"], t.get("value") or t.get("why", "")
        rep, rep_reason = claim_verdicts.repeatability(c, compared, compare_note)
        if s is not None and s.get("rc") and rep != claim_verdicts.NOT_COMPARED and compared is not None:
            failed = [f for f in c["decided_by"] if compared.get(f, ("missing",))[0] in ("not re-run", "missing")]
            if failed:
                rep_reason += f" (runner exit {s['rc']}; see reproduce_check.log)"
        host_specific = {f: kinds[f].host_specific for f in c["decided_by"]
                         if kinds and kinds.get(f) is not None and kinds[f].host_specific}
        if host_specific:
            rep_reason += " [host-specific: " + "; ".join(f"{f}: {note}" for f, note in host_specific.items()) + "]"
        row.update(verdict=mine["verdict"], reason=mine["reason"], rows=mine["rows"],
                   committed_verdict=theirs["verdict"], repeatability=rep, repeatability_reason=rep_reason,
                   host_specific=host_specific, runner_exit=(s or {}).get("rc"))
        rows.append(row)
    return rows


def cell(text):
    return str(text).replace("|", "/").replace("\n", " ")


def report_text(header, rows, total, committed_name):
    """The kit's Markdown: a line per claim (its verdict, the committed folder's, the timings and the seconds),
    then per claim the report's judged claims with the published value, the committed value and this run's."""
    lines = ["# Reproduction check", ""] + [f"- {h}" for h in header] + [
        "", f"| claim | study | verdict here | verdict in {committed_name} | timings against {committed_name} | seconds |",
        "|---|---|---|---|---|---|"]
    for r in rows:
        secs = f"{r['seconds']:.0f}" if r["seconds"] is not None else "-"
        lines.append(f"| {r['id']} | {r['study']} | {r['verdict']} | {r['committed_verdict']} | {r['repeatability']} | {secs} |")
    counts, repeats = {}, {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        repeats[r["repeatability"]] = repeats.get(r["repeatability"], 0) + 1
    lines += ["", f"Total: {total:.0f} s for the claims that ran; claims: " +
              ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) + "; timings: " +
              ", ".join(f"{n} {v}" for v, n in sorted(repeats.items())), ""]
    for r in rows:
        lines += [f"## {r['id']}: {r['verdict']}", "", f"What the document claims: {r['states']} ({r['source']}).", ""]
        if r["rows"]:
            lines += [f"| the report's claim | published | {committed_name} | here | verdict here | verdict in {committed_name} |",
                      "|---|---|---|---|---|---|"]
            for x in r["rows"]:
                here = x.get("value") or ""
                if x.get("why") and x["verdict"] != claim_verdicts.HOLDS:
                    here = f"{here} ({x['why']})" if here else x["why"]
                lines.append(f"| {cell(x['document'] + ': ' + x['row'])} | {cell(x.get('published', ''))} | "
                             f"{cell(x.get('committed_value', ''))} | {cell(here)} | {x['verdict']} | "
                             f"{x.get('committed_verdict', '')} |")
            lines.append("")
        lines += [f"Verdict: {r['verdict']}: {r['reason']}", "",
                  f"Timings: {r['repeatability']}: {r['repeatability_reason']}", ""]
    return "\n".join(lines)


def print_rows(rows, committed_name):
    """Per claim: its verdict, its timing line, then each claim of the report it rests on with the published
    value, the committed folder's value and this one's side by side."""
    for r in rows:
        secs = f"{r['seconds']:.0f} s" if r["seconds"] is not None else "-"
        print(f"{r['verdict']:>18}  {r['id']}  [{secs}]  {r['reason']}")
        print(f"{'timings: ' + r['repeatability']:>18}  {r['repeatability_reason']}")
        for x in r["rows"]:
            here = x.get("value") or x.get("why", "")
            if x.get("why") and x.get("value") and x["verdict"] != claim_verdicts.HOLDS:
                here += f" [{x['why']}]"
            print(f"{'':>20}{x['document']}: {x['row']}: published {x.get('published', '-')}; {committed_name} "
                  f"{x.get('committed_value', '-')} ({x.get('committed_verdict', '-')}); here {here} ({x['verdict']})")


def exit_status(rows):
    """1 when an experiment of a claim failed, or when a claim's verdict here is not the reference folder's (the
    artifact's finding not reproduced: a claim that holds there and does not hold here, or the reverse); else 0.
    A document's claim that does not hold on this GPU, where the report already says so of the reference, is the
    artifact's finding reproduced, not a failure; a claim not testable on either side changes nothing."""
    failed = any(r.get("runner_exit") for r in rows)
    decided = (claim_verdicts.HOLDS, claim_verdicts.NOT_HERE)
    changed = any(r["verdict"] in decided and r.get("committed_verdict") in decided and
                  r["verdict"] != r["committed_verdict"] for r in rows)
    return 1 if failed or changed else 0


def judge_recorded(claims, folder, given_ref):
    """--judge: the two lines of every claim for the recorded results folder @p folder; nothing runs or is written."""
    try:
        ResultFolder(folder)
    except NotAResultFolder as e:
        print(f"reproduce-check: --judge {folder}: {e}", file=sys.stderr)
        return 2
    gpu = claim_verdicts.folder_gpu(folder)
    ref, ref_note = choose_ref([{"gpu_name": gpu}] if gpu else [], given_ref)
    try:
        ResultFolder(ref)
    except NotAResultFolder as e:
        print(f"reproduce-check: --ref {ref}: {e}", file=sys.stderr)
        return 2
    same = gpu is not None and claim_verdicts.folder_gpu(ref) == gpu
    compared = claim_verdicts.compared_files(folder, ref) if same else None
    note = None if same else (f"no committed folder of this GPU ({gpu}): not compared" if not given_ref else
                              f"the reference holds another GPU model ({claim_verdicts.folder_gpu(ref)}): not compared")
    try:
        studies = claim_verdicts.judged_studies(claims)
        judged = claim_verdicts.report_verdicts(folder, studies)
        committed = judged if pathlib.Path(folder).resolve() == pathlib.Path(ref).resolve() else \
            claim_verdicts.report_verdicts(ref, studies)
        rows = claim_rows(claims, judged, committed, compared, note)
    except claim_verdicts.BadDeclaration as e:
        print(f"reproduce-check: {e}", file=sys.stderr)
        return 2
    print(f"reproduce-check: judging {folder} ({gpu}); {ref_note}")
    print_rows(rows, pathlib.Path(ref).name)
    return exit_status(rows)


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
    p.add_argument("--judge", type=pathlib.Path, metavar="DIR",
                   help="judge every claim of the recorded results folder DIR (no GPU needed, nothing runs)")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
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
    if args.judge is not None:
        if args.dry_run:
            print("reproduce-check: --judge and --dry-run: give one", file=sys.stderr)
            return 2
        return judge_recorded([c for c in claims if not wanted or c["id"] in wanted], args.judge, args.ref)
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
    ref_kinds = {f: ref_folder.kind(f) for f in ref_folder.files}
    same_model = claim_verdicts.folder_gpu(ref) == devices[0]["gpu_name"]
    note = None if same_model else (f"no committed folder of this GPU ({devices[0]['gpu_name']}): not compared"
                                    if not args.ref else f"the reference holds another GPU model "
                                    f"({claim_verdicts.folder_gpu(ref)}): not compared")
    # The claims are judged on this run's files of the experiments it ran; a chapter's other files are the
    # reference's (the kit re-runs only its claims' experiments), and the record says which the report read.
    rerun = {f"{c['study']}/{x}" for c in claims if "rc" in (state.get(c["id"]) or {}) for x in c["experiments"]}
    with tempfile.TemporaryDirectory() as tmp:
        if results.is_dir() and (results / "manifest.json").exists():
            from_ref = claim_verdicts.overlay(results, ref, rerun, tmp)
            judged = claim_verdicts.report_verdicts(tmp, claim_verdicts.judged_studies(claims))
        else:
            from_ref, judged = set(), {}
        committed = claim_verdicts.report_verdicts(ref, claim_verdicts.judged_studies(claims))
    ref_paths = {str((ref / f).resolve()) for f in from_ref}
    read_from_ref = sorted({r for v in judged.values() for r in v["read"] if str((ROOT / r).resolve()) in ref_paths})
    try:
        rows = claim_rows(claims, judged, committed, compared if same_model else None, note, state=state,
                          selected=selected, kinds=ref_kinds)
    except claim_verdicts.BadDeclaration as e:
        print(f"reproduce-check: {e}", file=sys.stderr)
        return 2
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
              ref_note, f"results: {results}; per-file timing verdicts: compare.md; the runner's output: reproduce_check.log",
              "claims judged by the report's claims tables built from this run's files; the files those tables also "
              f"read that the kit does not re-run are the reference's: {len(read_from_ref)} file(s), listed in "
              "reproduce_check.json (read_from_reference)",
              f"estimate before the run: {total_estimate:.0f} s"]
    text = report_text(header, rows, total, ref.name)
    print_rows(rows, ref.name)
    print(f"total: {total:.0f} s")
    write_atomic(out / "reproduce_check.md", text)
    write_atomic(state_path, json.dumps({"kit_format": 2, "gpu": host, "commit": commit, "dirty": dirty,
                                         "provenance": facts, "reference": str(ref),
                                         "reference_note": ref_note, "estimate_s": round(total_estimate),
                                         "total_s": round(total, 1), "read_from_reference": read_from_ref,
                                         "claims": rows, "claims_state": state},
                                        indent=1, ensure_ascii=False) + "\n")
    print(f"reproduce-check: {out / 'reproduce_check.md'}")
    if stopped:
        return 3
    return exit_status(rows)


if __name__ == "__main__":
    sys.exit(main())
