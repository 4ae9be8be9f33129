"""test_ncu_lines — bench/ncu_lines.py on a small source-page CSV.

    python3 bench/test_ncu_lines.py

Exit 0: passed; 1: failed.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_lines  # noqa: E402

CSV = '''"File Path","/x/mm.tile"
"Function Name","mm__c0__a16"
"Line No","Source","Warp Stall Sampling (All Samples)","stall_barrier","stall_short_sb","stall_wait","stall_barrier (Not Issued)"
"3","  acc = dot(a, b, acc=acc);","60","0","40","20","0"
"2","  let b = load(p);","30","25","0","5","9"
"1","kernel mm() {","10","0","0","10","0"
"4","}","0","0","0","0","0"
'''


def main():
    fails = 0

    def expect(what, got, want):
        nonlocal fails
        if got != want:
            fails += 1
            print(f"FAIL {what}:\n got  {got!r}\n want {want!r}")

    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(CSV)
    try:
        funcs = ncu_lines.functions(f.name)
    finally:
        os.unlink(f.name)
    expect("functions", [(n, len(rows)) for n, _h, rows in funcs], [("mm__c0__a16 (mm.tile)", 4)])
    name, hdr, rows = funcs[0]
    out = ncu_lines.report(name, hdr, rows, 2)
    expect("header", out[0], "mm__c0__a16 (mm.tile): 100 stall samples")
    expect("top lines, largest first, with their reasons (not-issued columns left out)",
           [line.split()[:3] + line.split()[-2:] for line in out[1:]],
           [["line", "3", "60.0%", "short_sb=40", "wait=20"],
            ["line", "2", "30.0%", "barrier=25", "wait=5"]])
    print("ncu_lines: " + ("ok" if not fails else f"{fails} failed"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
