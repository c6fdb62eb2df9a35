#!/usr/bin/env python3
"""Counts, from the compiled code, what the MRI and Coulomb kernels do per sample-voxel (atom-point) pair: the
compute-to-memory ratios of Kirk and Hwu's case studies (13 floating-point operations against 14 memory
accesses per F^H d pair, 7 accesses once the voxel lives in registers; 9 operations against 4 accesses per
Coulomb pair) counted in the SASS the build made, and the instruction mix of each step.

    python3 -m tools.sass_counts [BINARY] [--csv FILE]     (default BINARY: build/kirk_hwu)

It runs `cuobjdump -sass` on the binary (found on PATH, under $CUDA_HOME or /usr/local/cuda, or as the pip
wheels nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm in the checkout's .venv), demangles each kernel's name
(c++filt), names it as the study names its variant (the policies' name parts, read from
kernels/kirk_hwu/mri_policies.cuh and coulomb_kernels.cu), and takes its innermost loop that holds an FFMA
(experiments/studies/ryoo.py, innermost_loops). One loop iteration evaluates `pairs_per_iteration` pairs,
counted by a marker every pair has once: the multiplication of the phase by 2π (an FMUL by 6.2831855) in the
MRI kernels, the reciprocal square root (MUFU.RSQ) in the Coulomb kernels. Per pair it gives:

  flops          FADD + FMUL + 2·FFMA + MUFU (a special-function result counted as one operation, as the
                 documents count sin, cos and the reciprocal square root)
  global_loads, global_stores   LDG, STG instructions (global memory; each one access of a 4-byte value)
  constant_loads LDC and ULDC instructions (a constant bank into a register or a uniform register: the user's
                 constants, bank 3, and the kernel's parameters, bank 0, where the param variants keep their
                 samples), plus arithmetic instructions that read a user constant as an operand
  shared_loads   LDS instructions
  global_words, constant_words, shared_words   the same accesses in 4-byte values (a .64 access moves two, a
                 .128 access four), the unit of the documents' "memory accesses"
  mufu           special-function instructions (sin, cos, reciprocal square root, ...)
  other          the loop's other instructions (address and loop arithmetic, branches, conversions)

These are counts of the loop's code, not of executed instructions. The code a pair of ordinary size does not
run is left out: in each divergent region of the loop (BSSY Bn ... BSYNC Bn), what follows its first branch
(the library sin's and cos's reduction of huge arguments, |e| ≥ 105615, and its infinity case; the IEEE
division's and square root's corrections of extreme operands), counted apart in column slow_path. The
profiler's executed counts (the ryoo study's experiment ncu_mri_cp_mix) are the measured ones.
"""
import argparse
import csv
import os
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
if not __package__:  # run by its path, not with -m: the shim puts the checkout's root on the path
    import _checkout  # noqa: F401

from experiments.studies.ryoo import innermost_loops  # noqa: E402

COLUMNS = ["variant", "kernel", "loop_instructions", "pairs_per_iteration", "flops", "global_loads", "global_stores",
           "constant_loads", "shared_loads", "mufu", "other", "slow_path", "global_words", "constant_words",
           "shared_words"]
# slow_path: the instructions of the loop left out as code a pair of ordinary size does not run (per iteration).
TWO_PI = "6.2831854820251464844"   # 2π in float as nvdisasm prints it


def find_tool(name):
    """The path of a CUDA binary tool: on PATH, under $CUDA_HOME/bin or /usr/local/cuda/bin, or in the checkout's
    .venv as a pip wheel (nvidia/cu*/bin); None when there is none."""
    found = shutil.which(name)
    if found:
        return found
    candidates = [pathlib.Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin" / name]
    candidates += sorted(ROOT.glob(f".venv/lib/python*/site-packages/nvidia/*/bin/{name}"))
    return next((str(c) for c in candidates if c.exists()), None)


def sass_of(binary):
    """The SASS of every kernel in @p binary (cuobjdump -sass), with nvdisasm found beside cuobjdump."""
    cuobjdump, nvdisasm = find_tool("cuobjdump"), find_tool("nvdisasm")
    if cuobjdump is None or nvdisasm is None:
        raise FileNotFoundError("cuobjdump and nvdisasm are needed (the CUDA toolkit, or the pip wheels "
                                "nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm in .venv: make venv)")
    env = dict(os.environ, PATH=str(pathlib.Path(nvdisasm).parent) + os.pathsep + os.environ.get("PATH", ""))
    r = subprocess.run([cuobjdump, "-sass", str(binary)], text=True, capture_output=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"cuobjdump -sass {binary} failed: {r.stderr.strip()[-300:]}")
    return r.stdout


def policy_names(source):
    """{policy class: its name part} from the `struct X { static constexpr const char* name = "y";` of @p source."""
    text = pathlib.Path(source).read_text()
    return dict(re.findall(r"struct (\w+)[^{]*\{[^}]*?name = \"([\w-]+)\"", text))


def variant_of(demangled, mri, coulomb):
    """The study's variant name of a demangled kernel name, or None for a kernel that is no variant's."""
    m = re.match(r"void kirk_hwu::gpu::mri_gather<\(kirk_hwu::MriOutput\)(\d), kirk_hwu::gpu::(\w+), "
                 r"kirk_hwu::gpu::(\w+), kirk_hwu::gpu::(\w+), (float|double), (\d+)>", demangled)
    if m:
        out, memory, accumulator, trig, real, unroll = m.groups()
        return (f"{'q' if out == '0' else 'fhd'}-{mri[memory]}-{mri[accumulator]}-{mri[trig]}-u{unroll}-"
                f"{'f32' if real == 'float' else 'f64'}")
    m = re.match(r"void kirk_hwu::gpu::coulomb_slice<kirk_hwu::gpu::(\w+), kirk_hwu::gpu::(\w+), "
                 r"kirk_hwu::gpu::(Adjacent|Coalesced)<(\d+)> ?>", demangled)
    if m:
        memory, math, points, p = m.groups()
        part = ("p1" if p == "1" else f"adjacent{p}") if points == "Adjacent" else f"coalesced{p}"
        return f"dcs-{coulomb[memory]}-{coulomb[math]}-{part}"
    return None


def full_loops(sass_text):
    """{mangled name: full instruction texts of the innermost loop with an FFMA} (innermost_loops keeps only the
    mnemonics; the operands are needed here)."""
    loops = {}
    for name, mnemonics in innermost_loops(sass_text).items():
        loops[name] = mnemonics
    # innermost_loops returns mnemonics; find the same span again with operands.
    out = {}
    for block in re.split(r"\n\s*Function : ", "\n" + sass_text)[1:]:
        name = block.split()[0]
        if name not in loops:
            continue
        lines = [re.sub(r"^@!?U?P\w+\s+", "", m.group(1)) for m in
                 re.finditer(r"/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", block)]
        want = loops[name]
        for start in range(len(lines) - len(want) + 1):
            if [x.split()[0] for x in lines[start:start + len(want)]] == want:
                out[name] = lines[start:start + len(want)]
                break
    return out


def ordinary_path(instructions):
    """(@p instructions without the code an ordinary pair does not run, how many were left out): in each divergent
    region BSSY Bn ... BSYNC Bn, the instructions after its first branch (see the module's text)."""
    skip = set()
    for s, ins in enumerate(instructions):
        m = re.match(r"BSSY (B\d+)", ins)
        if not m:
            continue
        end = next((e for e in range(s + 1, len(instructions)) if instructions[e].startswith(f"BSYNC {m.group(1)}")), None)
        if end is None:
            continue
        branch = next((b for b in range(s + 1, end) if instructions[b].split()[0] in ("BRA", "CALL.REL", "CALL.REL.NOINC")), None)
        if branch is not None:
            skip.update(range(branch + 1, end))
    return [x for k, x in enumerate(instructions) if k not in skip], len(skip)


def counts(instructions, kind):
    """The per-pair counts (see the module's text) of one loop's @p instructions; @p kind: "mri" or "coulomb"."""
    total = len(instructions)
    instructions, left_out = ordinary_path(instructions)
    op = [i.split()[0] for i in instructions]
    base = [o.split(".")[0] for o in op]
    if kind == "mri":
        pairs = sum(1 for i in instructions if i.startswith("FMUL") and TWO_PI in i)
    else:
        pairs = sum(1 for o in op if o.startswith("MUFU.RSQ"))
    if pairs == 0:
        raise ValueError("no pair marker in the loop")
    n = {k: sum(1 for b in base if b == k) for k in ("FADD", "FMUL", "FFMA", "MUFU", "LDG", "STG", "LDC", "ULDC", "LDS")}
    operand_constants = sum(1 for i, b in zip(instructions, base)
                            if b not in ("LDC", "ULDC") and re.search(r"\bc\[0x3\]", i))
    flops = n["FADD"] + n["FMUL"] + 2 * n["FFMA"] + n["MUFU"]

    def words(kinds):
        """4-byte values moved by the instructions of mnemonics @p kinds (.64: two, .128: four)."""
        return sum(4 if ".128" in o else 2 if ".64" in o else 1 for o, b in zip(op, base) if b in kinds)
    counted = sum(n.values())
    return {"loop_instructions": total, "pairs_per_iteration": pairs, "flops": flops / pairs,
            "global_loads": n["LDG"] / pairs, "global_stores": n["STG"] / pairs,
            "constant_loads": (n["LDC"] + n["ULDC"] + operand_constants) / pairs, "shared_loads": n["LDS"] / pairs,
            "mufu": n["MUFU"] / pairs, "other": (len(instructions) - counted) / pairs,
            "slow_path": left_out, "global_words": words({"LDG", "STG"}) / pairs,
            "constant_words": (words({"LDC", "ULDC"}) + operand_constants) / pairs, "shared_words": words({"LDS"}) / pairs}


def kernel_counts(binary):
    """[{column: value}] for every float variant kernel of @p binary, in name order."""
    text = sass_of(binary)
    loops = full_loops(text)
    names = list(loops)
    demangled = subprocess.run(["c++filt"], input="\n".join(names), text=True, capture_output=True).stdout.splitlines()
    mri = policy_names(ROOT / "kernels" / "kirk_hwu" / "mri_policies.cuh")
    coulomb = policy_names(ROOT / "kernels" / "kirk_hwu" / "coulomb_kernels.cu")
    rows = []
    for name, plain in zip(names, demangled):
        variant = variant_of(plain, mri, coulomb)
        if variant is None or variant.endswith("-f64"):
            continue
        row = {"variant": variant, "kernel": plain.split("(")[0].replace("kirk_hwu::gpu::", "").replace(", ", " ")}
        row.update(counts(loops[name], "coulomb" if variant.startswith("dcs-") else "mri"))
        rows.append(row)
    return sorted(rows, key=lambda r: r["variant"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary", nargs="?", default=str(ROOT / "build" / "kirk_hwu"))
    parser.add_argument("--csv", help="write the rows here (default: standard output)")
    args = parser.parse_args()
    rows = kernel_counts(args.binary)
    if not rows:
        print(f"sass_counts: no MRI or Coulomb kernel loop found in {args.binary}", file=sys.stderr)
        return 1
    out = open(args.csv, "w", newline="") if args.csv else sys.stdout
    w = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()})
    if args.csv:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
