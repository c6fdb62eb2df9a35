"""The SASS loop finder of experiments/studies/ryoo.py on a listing written by hand in cuobjdump's two
branch-target styles: it must pick the innermost loop that holds an FFMA and count its instructions."""
import pathlib
import sys

if not __package__:  # run by its path, not with -m: import from the checkout's root
    sys.path[0] = str(pathlib.Path(__file__).resolve().parents[2])
from experiments.studies import ryoo  # noqa: E402

LABELS = """
	code for sm_90
		Function : _Z5outerv
	.headerflags	@"EF_CUDA_SM90"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                /* 0x00000a00ff017b82 */
.L_x_1:
        /*0010*/                   LDG.E R2, desc[UR4][R4.64] ;
        /*0020*/                   STS [R6], R2 ;
        /*0030*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
.L_x_0:
        /*0040*/                   LDS R7, [R8] ;
        /*0050*/                   LDS R9, [R10] ;
        /*0060*/                   FFMA R11, R7, R9, R11 ;
        /*0070*/                   IADD3 R8, R8, 0x4, RZ ;
        /*0080*/               @P0 BRA `(.L_x_0) ;
        /*0090*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*00a0*/              @!P1 BRA `(.L_x_1) ;
        /*00b0*/                   EXIT ;
		Function : _Z7nofmav
        /*0000*/                   IADD3 R1, R1, 0x1, RZ ;
        /*0010*/               @P0 BRA 0x0 ;
"""

ADDRESSES = """
		Function : _Z5naivev
        /*0000*/                   MOV R1, R2 ;
        /*0010*/                   LDG.E R3, desc[UR4][R4.64] ;
        /*0020*/                   LDG.E R5, desc[UR4][R6.64] ;
        /*0030*/                   FFMA R7, R3, R5, R7 ;
        /*0040*/                   IADD3 R4, P1, R4, 0x4, RZ ;
        /*0050*/               @P0 BRA 0x10 ;
        /*0060*/                   EXIT ;
"""


def test_innermost_loop_with_labels():
    loops = ryoo.innermost_loops(LABELS)
    assert set(loops) == {"_Z5outerv"}  # the function without an FFMA has no loop to report
    assert loops["_Z5outerv"] == ["LDS", "LDS", "FFMA", "IADD3", "BRA"]
    mix = ryoo.loop_mix(loops["_Z5outerv"])
    assert mix == {"loop_instructions": 5, "ffma": 1, "shared_loads": 2, "global_loads": 0, "shared_stores": 0,
                   "barriers": 0, "branches": 1, "other": 1, "ffma_fraction": 0.2}


def test_innermost_loop_with_addresses():
    loops = ryoo.innermost_loops(ADDRESSES)
    assert loops["_Z5naivev"] == ["LDG.E", "LDG.E", "FFMA", "IADD3", "BRA"]
    assert ryoo.loop_mix(loops["_Z5naivev"])["global_loads"] == 2


if __name__ == "__main__":
    test_innermost_loop_with_labels()
    test_innermost_loop_with_addresses()
    print("ok")
