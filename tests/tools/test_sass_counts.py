"""tools/sass_counts.py: the per-pair counts of a loop worked out by hand on a made-up SASS listing, and on the
build's kirk_hwu binary the compute-to-memory facts the documents state in the shape the compiled code must show
them (the binary's SASS needs cuobjdump and nvdisasm: the CUDA toolkit, or the pip wheels in .venv; without them,
or without a CUDA build, those tests are skipped with the reason)."""
import os
import pathlib
import unittest

from tools import sass_counts

# A made-up kernel: a loop of two pairs (two FMULs by 2π) with a divergent region whose code after its first branch
# an ordinary pair does not run, then a second kernel without a loop.
LISTING = """
        Function : _Z4fakePf
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_0:
        /*0010*/                   LDG.E R2, desc[UR4][R4.64] ;
        /*0020*/                   ULDC.64 UR6, c[0x3][0x10] ;
        /*0030*/                   FFMA R3, R2, UR6, R3 ;
        /*0040*/                   FMUL R5, R3, 6.2831854820251464844 ;
        /*0050*/                   BSSY B0, 0x100 ;
        /*0060*/                   FMUL R6, R5, 0.63661974668502807617 ;
        /*0070*/              @P0  BRA 0x0f0 ;
        /*0080*/                   FADD R7, R6, R6 ;
        /*0090*/                   LDG.E R8, desc[UR4][R10.64] ;
        /*00f0*/                   BSYNC B0 ;
        /*0100*/                   FMUL R9, R3, 6.2831854820251464844 ;
        /*0110*/                   MUFU.SIN R11, R9 ;
        /*0120*/                   FFMA R12, R11, c[0x3][0x20], R12 ;
        /*0130*/                   STG.E.64 desc[UR4][R4.64], R12 ;
        /*0140*/                   LDS.128 R16, [R2] ;
        /*0150*/                   IADD3 R4, R4, 0x4, RZ ;
        /*0160*/              @P1  BRA `(.L_x_0) ;
        /*0170*/                   EXIT ;
        ..........
"""


class HandWorkedLoop(unittest.TestCase):
    def test_counts_per_pair(self):
        loops = sass_counts.full_loops(LISTING)
        self.assertEqual(list(loops), ["_Z4fakePf"])
        c = sass_counts.counts(loops["_Z4fakePf"], "mri")
        # The loop is 0x10..0x160: 17 instructions; the FADD and the LDG after the region's branch are left out.
        self.assertEqual(c["loop_instructions"], 17)
        self.assertEqual(c["slow_path"], 2)
        self.assertEqual(c["pairs_per_iteration"], 2)
        # Ordinary path: FFMA x2, FMUL x3 (two by 2π and one by 2/π), MUFU x1: 2*2 + 3 + 1 = 8 flops, 4 per pair.
        self.assertEqual(c["flops"], 4)
        # One LDG and one STG.64 per iteration: half a load and half a store per pair, three words (1 + 2) per two pairs.
        self.assertEqual(c["global_loads"], 0.5)
        self.assertEqual(c["global_stores"], 0.5)
        self.assertEqual(c["global_words"], 1.5)
        # ULDC.64 (two words) and an FFMA reading c[0x3]: two constant accesses, three words, per two pairs.
        self.assertEqual(c["constant_loads"], 1)
        self.assertEqual(c["constant_words"], 1.5)
        # LDS.128: four words per iteration.
        self.assertEqual(c["shared_loads"], 0.5)
        self.assertEqual(c["shared_words"], 2)
        self.assertEqual(c["mufu"], 0.5)

    def test_a_loop_without_its_pair_marker_is_refused(self):
        loops = sass_counts.full_loops(LISTING)
        with self.assertRaises(ValueError):
            sass_counts.counts(loops["_Z4fakePf"], "coulomb")  # no MUFU.RSQ in it

    def test_variant_names_from_the_policies(self):
        root = sass_counts.ROOT / "kernels" / "kirk_hwu"
        mri = sass_counts.policy_names(root / "mri_policies.cuh")
        coulomb = sass_counts.policy_names(root / "coulomb_kernels.cu")
        self.assertEqual(sass_counts.variant_of(
            "void kirk_hwu::gpu::mri_gather<(kirk_hwu::MriOutput)1, kirk_hwu::gpu::GlobalSoA, kirk_hwu::gpu::InGlobal, "
            "kirk_hwu::gpu::LibraryTrig, float, 1>(x)", mri, coulomb), "fhd-global-memacc-libm-u1-f32")
        self.assertEqual(sass_counts.variant_of(
            "void kirk_hwu::gpu::coulomb_slice<kirk_hwu::gpu::AtomsConstant, kirk_hwu::gpu::ReciprocalSqrt, "
            "kirk_hwu::gpu::Coalesced<4> >(x)", mri, coulomb), "dcs-constant-rsqrt-coalesced4")


BINARY = pathlib.Path(os.environ.get("KIRK_HWU_BINARY", sass_counts.ROOT / "build" / "kirk_hwu"))


@unittest.skipUnless(BINARY.exists(), f"no kirk_hwu binary at {BINARY} (a CUDA build makes it)")
@unittest.skipUnless(sass_counts.find_tool("cuobjdump") and sass_counts.find_tool("nvdisasm"),
                     "cuobjdump and nvdisasm not found (CUDA toolkit, or make venv for the pip wheels)")
class CompiledLoops(unittest.TestCase):
    """What the documents say of each step, in the shape the compiled loops must show it."""

    @classmethod
    def setUpClass(cls):
        cls.rows = {r["variant"]: r for r in sass_counts.kernel_counts(BINARY)}

    def test_registers_cut_the_global_traffic(self):
        # F3 reads and writes the voxel's sums in global memory every pair; F4 keeps them in registers (K9).
        for p in ("q", "fhd"):
            f3, f4 = self.rows[f"{p}-global-memacc-libm-u1-f32"], self.rows[f"{p}-global-regs-libm-u1-f32"]
            self.assertEqual(f3["global_stores"], 2)
            self.assertEqual(f4["global_stores"], 0)
            self.assertLess(f4["global_words"], f3["global_words"])

    def test_constant_memory_leaves_no_global_access_in_the_loop(self):
        for v in ("q-constsoa-regs-libm-u1-f32", "q-constaos-regs-libm-u1-f32", "fhd-constaos-regs-sfu-u1-f32",
                  "dcs-constant-sqrt-p1"):
            self.assertEqual(self.rows[v]["global_words"], 0, v)
            self.assertGreater(self.rows[v]["constant_words"], 0, v)

    def test_the_special_function_units_replace_the_library(self):
        # F7 computes sin and cos with two MUFU instructions per pair; F6's library code uses none, and more flops.
        for p in ("q", "fhd"):
            f6, f7 = self.rows[f"{p}-constaos-regs-libm-u1-f32"], self.rows[f"{p}-constaos-regs-sfu-u1-f32"]
            self.assertEqual(f7["mufu"], 2)
            self.assertEqual(f6["mufu"], 0)
            self.assertLess(f7["flops"], f6["flops"])

    def test_a_coulomb_pair_reads_one_atom(self):
        # D0 and D1 read the atom's four values (x, y, z, q) per pair; four points per thread share them (D3).
        self.assertEqual(self.rows["dcs-global-sqrt-p1"]["global_words"], 4)
        self.assertEqual(self.rows["dcs-constant-sqrt-p1"]["constant_words"], 4)
        self.assertEqual(self.rows["dcs-constant-rsqrt-adjacent4"]["constant_words"], 1)


if __name__ == "__main__":
    unittest.main()
