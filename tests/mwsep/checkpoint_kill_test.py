#!/usr/bin/env python3
"""A checkpointed run killed with SIGKILL at random moments, and started again after each kill, ends with
the result of an uninterrupted run, bit for bit; so does one stopped by SIGINT and SIGTERM.

    checkpoint_kill_test.py MWSEP WORKUNIT_DIR ENGINE [--kills N] [--seed S] [--log FILE]

Every run starts in the test's own temporary folder, its working folder (which a BOINC build of mwsep uses
as its slot folder, for its lock file).

ENGINE is a CPU integrator (fast, reference, one thread) or cuda (the modern-f64 kernels, on a grid large
enough for the GPU to take seconds).

The work unit is the tiny unit with a finer grid and one cut (so that a run takes a few seconds and the
resumed state crosses areas); the stars are drawn by `mwsep generate`. Each kill comes at a random time
within the integral (after the start-up the uninterrupted run took), spread so that every run does some of
the work; the run after the last kill goes to the end. A resumed run that ends before its kill (the machine
ran faster than the uninterrupted run suggested) must give the same bits, and the kills go on from a fresh
start. The test fails if any run
after a kill gives a result that differs in any bit (compared as the 17-digit values `--json` prints),
if a kill ever leaves an unreadable checkpoint, or if the checkpoint is left behind at the end.
"""
import argparse
import json
import os
import pathlib
import random
import re
import signal
import subprocess
import sys
import tempfile
import time


def finer_unit(tiny_text, mu_steps, nu_steps, r_steps):
    """The tiny unit's text with a finer grid and one cut over part of its mu range."""
    text = re.sub(r"r\[min,max,steps\]: ([^,]+), ([^,]+), \d+", rf"r[min,max,steps]: \1, \2, {r_steps}", tiny_text)
    text = re.sub(r"mu\[min,max,steps\]: ([^,]+), ([^,]+), \d+", rf"mu[min,max,steps]: \1, \2, {mu_steps}", text)
    text = re.sub(r"nu\[min,max,steps\]: ([^,]+), ([^,]+), \d+", rf"nu[min,max,steps]: \1, \2, {nu_steps}", text)
    cut = ("number_cuts: 1\n"
           f"r_cut[min,max,steps][3]: 16.0, 22.5, {r_steps}\n"
           f"mu_cut[min,max,steps][3]: 150.0, 170.0, {max(2, mu_steps // 4)}\n"
           f"nu_cut[min,max,steps][3]: -1.25, 1.25, {nu_steps}\n")
    return text.replace("number_cuts: 0\n", cut)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mwsep")
    ap.add_argument("workunits", type=pathlib.Path)
    ap.add_argument("integrator", choices=["fast", "reference", "cuda"])
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", type=pathlib.Path)
    args = ap.parse_args()
    if os.sep in args.mwsep:  # a path: the runs start in another folder
        args.mwsep = os.path.abspath(args.mwsep)
    args.workunits = args.workunits.resolve()
    rng = random.Random(args.seed)
    log_lines = []

    def log(line):
        print(line, flush=True)
        log_lines.append(line)

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        tiny = (args.workunits / "tiny" / "astronomy_parameters.txt").read_text()
        # The reference integrator is about ten times slower per point: a coarser grid keeps both near seconds.
        grid = {"fast": (600, 32, 60), "reference": (160, 16, 24), "cuda": (8000, 640, 700)}[args.integrator]
        unit = tmp / "astronomy_parameters.txt"
        unit.write_text(finer_unit(tiny, *grid))
        stars = tmp / "stars.txt"
        subprocess.run([args.mwsep, "generate", "-a", str(unit), "-o", str(stars), "--count", "500", "--seed", "3",
                        "--threads", "1"], check=True, capture_output=True, cwd=tmp)
        base = [args.mwsep, "run", "-a", str(unit), "-s", str(stars), "--json"]
        base += (["--backend", "cuda", "--variant", "modern-f64"] if args.integrator == "cuda"
                 else ["--cpu", args.integrator, "--threads", "1"])

        # Timed up to the result's last line, not to the process's exit: the BOINC build's boinc_finish waits
        # about 2 s before exiting, which is no start-up before the integral.
        t0 = time.monotonic()
        whole = subprocess.Popen(base, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp)
        result_lines = []
        for line in whole.stdout:
            result_lines.append(line)
            if line.rstrip() == "}":  # the JSON object's closing brace, alone on its line
                break
        full_seconds = time.monotonic() - t0
        result_lines.append(whole.stdout.read())
        whole_err = whole.stderr.read()
        if whole.wait() != 0:
            log(f"the uninterrupted run failed: {whole_err}")
            return 1
        expected = json.loads("".join(result_lines))
        integral_seconds = expected["timings"]["integral"]
        startup = max(0.0, full_seconds - integral_seconds - expected["timings"]["likelihood"])
        log(f"uninterrupted run ({args.integrator}, grid mu x nu x r = {grid}): {full_seconds:.2f} s to its result, "
            f"of which {integral_seconds:.2f} s integral; likelihood {expected['likelihood']!r}")

        checkpoint = tmp / "run.checkpoint"
        # Checkpoints as often as possible (interval 0: after every row), so that every kill finds one.
        resumable = base + ["--checkpoint", str(checkpoint), "--checkpoint-interval", "0"]
        # Each kill comes after the start-up, at a random moment within a share of the integral's time: the
        # shares add up to 80 % of it, so that the run has work left at every kill.
        share = 0.8 * integral_seconds / args.kills
        kills = early_ends = 0
        while kills < args.kills:
            if early_ends > args.kills:
                log(f"{early_ends} runs ended before their kill: the kills come too late to test anything")
                return 1
            proc = subprocess.Popen(resumable, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp)
            delay = startup + rng.uniform(0.5, 1.5) * share
            time.sleep(delay)
            if proc.poll() is not None:
                # The resumed work ended before this kill (a loaded machine runs at another pace than the
                # uninterrupted run did). That result, itself resumed, must already be bit-identical; the
                # checkpoint is gone with the finished run, so the kills go on with a fresh series.
                out, err = proc.communicate()
                log(f"the run ended before kill {kills + 1} (after {delay:.3f} s): rc {proc.returncode}")
                if proc.returncode != 0:
                    log(err)
                    return 1
                early = json.loads(out)
                if any(early[k] != expected[k] for k in ("background_integral", "stream_integrals", "likelihood")):
                    log(f"DIFFERS: the run that ended early gave likelihood {early['likelihood']!r}")
                    return 1
                log("  its result is bit-identical; a new series of kills starts")
                early_ends += 1
                continue
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
            kills += 1
            state = "present" if checkpoint.exists() else "none yet"
            log(f"kill {kills:2d} after {delay:.3f} s: checkpoint {state}")
        for sig in (signal.SIGINT, signal.SIGTERM):
            # A signal that arrives before the program has installed its handler ends it by the default action
            # (return code -sig): on a loaded machine start-up can take longer than the uninterrupted run's.
            # That proves nothing about the handler, so the signal is sent again later, at most three times.
            for attempt in range(4):
                proc = subprocess.Popen(resumable, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp)
                time.sleep((startup + rng.uniform(0.5, 1.5) * share) * 2 ** attempt)
                proc.send_signal(sig)
                out, err = proc.communicate()
                message = err.strip().splitlines()[-1] if err.strip() else ""
                log(f"{sig.name}: rc {proc.returncode} {message}")
                if proc.returncode != -sig:
                    break
                log(f"  the signal came before the handler was installed; sent again {2 ** (attempt + 1)} times later")
            if proc.returncode not in (0, 128 + sig):
                return 1
        final = subprocess.run(resumable, capture_output=True, text=True, cwd=tmp)
        if final.returncode != 0:
            log(f"the last run failed: {final.stderr}")
            return 1
        got = json.loads(final.stdout)
        log(f"resumed run: likelihood {got['likelihood']!r}; {kills} kills")
        keys = ["background_integral", "stream_integrals", "likelihood", "background_likelihood",
                "stream_only_likelihoods", "zero_probability_stars"]
        differ = [k for k in keys if got[k] != expected[k]]
        if checkpoint.exists():
            log("the checkpoint was left behind after the finished run")
            differ.append("checkpoint left")
        if kills < args.kills:
            log(f"only {kills} of {args.kills} kills happened before the run ended")
            differ.append("kills")
        log("bit-identical to the uninterrupted run" if not differ else f"DIFFERS: {', '.join(differ)}")
        if args.log:
            args.log.write_text("\n".join(log_lines) + "\n")
        return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
