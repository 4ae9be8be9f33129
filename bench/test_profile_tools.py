"""test_profile_tools — the profiling tools of scripts/gpu-profile.sh on
small inputs, without a GPU.

    python3 bench/test_profile_tools.py

bench/sass_stats.py: the parse of a cuobjdump-style listing (functions,
addresses, predicated opcodes), the opcode classes and the choice of the
hot loop (the backward branch whose body holds the most HMMAs).
bench/ncu_lines.py: the functions of a source-page CSV and the ranking of
source lines by stall samples with their main reasons. Exit 0: passed;
1: failed.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_lines  # noqa: E402
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



CSV = '''"File Path","/x/mm.tile"
"Function Name","mm__c0__a16"
"Line No","Source","Warp Stall Sampling (All Samples)","stall_barrier","stall_short_sb","stall_wait","stall_barrier (Not Issued)"
"3","  acc = dot(a, b, acc=acc);","60","0","40","20","0"
"2","  let b = load(p);","30","25","0","5","9"
"1","kernel mm() {","10","0","0","10","0"
"4","}","0","0","0","0","0"
'''



class Checks:
    """expect(what, got, want) counts and prints each mismatch."""

    def __init__(self):
        self.fails = 0

    def __call__(self, what, got, want):
        if got != want:
            self.fails += 1
            print(f"FAIL {what}:\n got  {got!r}\n want {want!r}")


def parsed(text, suffix, parse):
    """parse(path) of text written to a temporary file."""
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as f:
        f.write(text)
    try:
        return parse(f.name)
    finally:
        os.unlink(f.name)


def check_sass_stats(expect):
    funcs = parsed(LISTING, ".sass", sass_stats.parse)
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


def check_ncu_lines(expect):
    funcs = parsed(CSV, ".csv", ncu_lines.functions)
    expect("functions", [(n, len(rows)) for n, _h, rows, _p in funcs], [("mm__c0__a16 (mm.tile)", 4)])
    name, hdr, rows, _path = funcs[0]
    out = ncu_lines.report(name, hdr, rows, 2)
    expect("header", out[0], "mm__c0__a16 (mm.tile): 100 stall samples")
    expect("top lines, largest first, with their reasons (not-issued columns left out)",
           [line.split()[:3] + line.split()[-2:] for line in out[1:]],
           [["line", "3", "60.0%", "short_sb=40", "wait=20"],
            ["line", "2", "30.0%", "barrier=25", "wait=5"]])


def main():
    expect = Checks()
    check_sass_stats(expect)
    check_ncu_lines(expect)
    print("profile tools: " + ("ok" if not expect.fails else f"{expect.fails} failed"))
    return 1 if expect.fails else 0


if __name__ == "__main__":
    sys.exit(main())
