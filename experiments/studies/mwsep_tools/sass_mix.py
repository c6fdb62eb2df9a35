#!/usr/bin/env python3
"""Static instruction mix of the modern integral kernels, from `cuobjdump -sass` output.

usage: sass_mix.py modern.sass  ->  CSV on stdout, one row per modern_integral_kernel instance

The classes say which pipe an instruction needs: fp64 (D* arithmetic and comparisons), fp64_mufu (the
double-precision seeds MUFU.*64H), integer_logic (integer, logic, moves and selects), shared_loads (LDS),
global_loads (LDG and constant-bank loads LDC), branches (control flow), other. Static counts over the whole
kernel: the unrolled inner loop dominates them, but they are not executed counts (ncu gives those).
"""
import re
import sys

CLASSES = ["fp64", "fp64_mufu", "integer_logic", "shared_loads", "global_loads", "branches", "other"]
INTEGER = {"IADD3", "IMAD", "LOP3", "SHF", "ISETP", "SEL", "LEA", "MOV", "IMNMX", "IABS", "PRMT", "SGXT", "LOP",
           "IADD", "SHL", "SHR", "FSEL", "P2R", "R2P", "PLOP3", "UMOV", "UIADD3", "ULOP3", "USHF", "ULEA", "UIMAD",
           "S2R", "S2UR", "CS2R", "ISCADD", "POPC", "FLO", "BMSK", "VIADD", "VIMNMX", "IMUL", "USEL", "UISETP"}
BRANCH = {"BRA", "BSSY", "BSYNC", "EXIT", "RET", "CALL", "WARPSYNC", "BAR", "BREAK", "NOP", "YIELD"}


def classify(opcode):
    base = opcode.split(".")[0]
    if base == "MUFU" and "64H" in opcode:
        return "fp64_mufu"
    if base.startswith("D") and base in {"DFMA", "DADD", "DMUL", "DSETP", "DMNMX", "DSET", "DMMA"}:
        return "fp64"
    if base in INTEGER:
        return "integer_logic"
    if base == "LDS":
        return "shared_loads"
    if base in {"LDG", "LDC", "ULDC", "LD"}:
        return "global_loads"
    if base in BRANCH:
        return "branches"
    return "other"


def main(path):
    text = open(path).read()
    print("kernel,instructions," + ",".join(CLASSES))
    for part in re.split(r"\n\s*Function : ", text)[1:]:
        name = part.split("\n", 1)[0].strip()
        if "modern_integral_kernel" not in name:
            continue
        m = re.search(r"modern_integral_kernelI([df])Li(\d)E", name)
        label = f"modern-{'f64' if m.group(1) == 'd' else 'f32'} S={m.group(2)}" if m else name
        counts = dict.fromkeys(CLASSES, 0)
        total = 0
        for line in part.split("\n"):
            ins = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
            if not ins:
                continue
            counts[classify(ins.group(2))] += 1
            total += 1
        print(f"{label},{total}," + ",".join(str(counts[c]) for c in CLASSES))


if __name__ == "__main__":
    main(sys.argv[1])
