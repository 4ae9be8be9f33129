"""test_sass_stats — bench/sass_stats.py on a small cuobjdump-style listing.

    python3 bench/test_sass_stats.py

Checks the parse (functions, addresses, predicated opcodes), the opcode
classes and the choice of the hot loop (the backward branch whose body
holds the most HMMAs). Exit 0: passed; 1: failed.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_stats  # noqa: E402

LISTING = """
	code for sm_90
		Function : k__c0__a16
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R0, SR_TID.X ;
        /*0020*/              @!P0 LDG.E.128 R4, desc[UR6][R2.64] ;
        /*0030*/                   IADD3 R0, R0, 0x1, RZ ;
        /*0040*/                   HMMA.16816.F32 R8, R12, R16, R8 ;
        /*0050*/                   ISETP.GE.AND P0, PT, R0, 0x4, PT ;
        /*0060*/              @!P0 BRA 0x30 ;
        /*0070*/                   FFMA R4, R4, R5, R6 ;
        /*0080*/                   BRA 0x70 ;
        /*0090*/                   STL [R1], R4 ;
        /*00a0*/                   EXIT ;
		Function : other
        /*0000*/                   MUFU.EX2 R0, R0 ;
"""


def main():
    fails = 0

    def expect(what, got, want):
        nonlocal fails
        if got != want:
            fails += 1
            print(f"FAIL {what}: got {got!r}, want {want!r}")

    with tempfile.NamedTemporaryFile("w", suffix=".sass", delete=False) as f:
        f.write(LISTING)
    try:
        funcs = sass_stats.parse(f.name)
    finally:
        os.unlink(f.name)
    expect("functions", sorted(funcs), ["k__c0__a16", "other"])
    k = funcs["k__c0__a16"]
    expect("instructions", len(k), 11)
    expect("predicated opcode", k[2][1], "LDG")
    c = sass_stats.classify(k)
    expect("classes", (c["ALL"], c["HMMA"], c["LDG"], c["INT"], c["FP"], c["SPILL"]),
           (11, 1, 1, 3, 1, 1))
    loop = sass_stats.hot_loop(k)
    expect("hot loop (the one with the HMMA, not the longer-looking self loop)",
           [a for a, _op, _r in loop], [0x30, 0x40, 0x50, 0x60])
    expect("no loop", sass_stats.hot_loop(funcs["other"]), None)
    print("sass_stats: " + ("ok" if not fails else f"{fails} failed"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
