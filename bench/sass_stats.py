"""sass_stats — opcode counts of cuobjdump SASS, per kernel and per hot loop.

    python3 bench/sass_stats.py table FILE.sass ...

For each function in each file: the instruction count, and the counts of
the opcode classes that decide a kernel's speed (tensor-core MMAs: HMMA
of mma.sync and HGMMA of wgmma, counted together; ldmatrix,
cp.async, shared and global loads and stores, barriers, shuffles, integer
and address arithmetic, float math, MUFU, local-memory spills); then the
same counts inside the hottest loop: the backward branch whose body holds
the most HMMAs (or, without HMMAs, the longest body). Integer work per MMA
in that loop is the figure that matters for the tensor-core kernels.
"""
import re
import sys

CLASSES = [
    ("HMMA", ("HMMA", "HGMMA")), ("LDSM", ("LDSM",)), ("LDGSTS", ("LDGSTS",)),
    ("LDG", ("LDG",)), ("STG", ("STG",)), ("LDS", ("LDS",)), ("STS", ("STS",)),
    ("BAR", ("BAR", "DEPBAR", "WARPGROUP")), ("SHFL", ("SHFL",)),
    ("INT", ("IMAD", "IADD3", "LEA", "SHF", "LOP3", "IABS", "ISETP", "SEL", "IMNMX", "VIADD",
             "PRMT", "MOV", "S2R", "CS2R", "ULDC", "UMOV", "UIADD3", "ULEA", "USHF", "ULOP3",
             "UIMAD", "R2UR", "IMUL", "IADD", "UISETP", "USEL", "PLOP3", "P2R", "R2P")),
    ("FP", ("FFMA", "FADD", "FMUL", "FMNMX", "FSETP", "FSEL", "HADD2", "HFMA2", "HMUL2", "F2F",
            "F2FP", "FCHK", "I2F", "F2I", "FSWZADD")),
    ("MUFU", ("MUFU",)), ("SPILL", ("LDL", "STL")),
]
COLS = ["ALL"] + [k for k, _ in CLASSES]
INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(\.[^ ;]*)?\s*([^;]*);")
FUNC = re.compile(r"Function : (\S+)")


def parse(path):
    """{function: [(address, opcode, operands)]} of one cuobjdump listing."""
    funcs, cur = {}, None
    for line in open(path, errors="replace"):
        m = FUNC.search(line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = INSN.search(line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2), m.group(4)))
    return funcs


def classify(insns):
    c = dict.fromkeys(COLS, 0)
    for _a, op, _r in insns:
        for k, ops in CLASSES:
            if op in ops:
                c[k] += 1
                break
    c["ALL"] = len(insns)
    return c


def hot_loop(insns):
    """The body of the backward branch with the most HMMAs, then the longest."""
    best, key = None, None
    for a, op, rest in insns:
        m = re.search(r"0x([0-9a-f]+)", rest) if op == "BRA" else None
        if not m or int(m.group(1), 16) >= a:
            continue
        t = int(m.group(1), 16)
        body = [x for x in insns if t <= x[0] <= a]
        k = (sum(1 for x in body if x[1] in ("HMMA", "HGMMA")), len(body))
        if key is None or k > key:
            best, key = body, k
    return best


def line(name, c):
    return f"{name[:60]:60s} " + " ".join(f"{c[k]:6d}" for k in COLS)


def table(paths):
    print(f"{'kernel (file: function)':60s} " + " ".join(f"{k:>6s}" for k in COLS))
    for p in paths:
        short = p.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        for fn, insns in parse(p).items():
            print(line(f"{short}: {fn}", classify(insns)))
            loop = hot_loop(insns)
            if loop:
                print(line("    hot loop", classify(loop)))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "table":
        sys.exit(__doc__)
    table(sys.argv[2:])
