# x86.py IN.ll OUT.ll — rewrites tilec's NVPTX LLVM IR (--emit=llvm) into
# IR that llc builds for the host, to run on simulated warps (warpsim.c:
# one pthread per GPU thread).
#
# The target lines and attribute groups go (they name sm_90 and
# NVPTX-only attributes); address spaces are dropped (global and shared
# memory become ordinary memory; a program's shared scratch is an ordinary
# global, shared by the threads of the one program running at a time); the
# ptx_kernel calling convention becomes the C one; every llvm.nvvm.NAME
# intrinsic becomes a call of sim_NAME (dots turned into underscores),
# which warpsim.c defines.
#
# Kernels calling an intrinsic warpsim.c does not model (the tensor-core
# ones), or holding PTX inline assembly (libdevice's trigonometric range
# reduction), are dropped. Every kernel left gets a wrapper NAME__sim(ptr) that
# reads its parameters from an array of 64-bit slots, each value in the
# low bytes (libtile's packed parameters, RtPlan.slots), so that a
# launcher can call any kernel without knowing its signature.
import re
import sys

SIMULATED = {
    "read.ptx.sreg.tid.x", "read.ptx.sreg.ctaid.x", "read.ptx.sreg.ctaid.y",
    "read.ptx.sreg.ctaid.z", "read.ptx.sreg.nctaid.x",
    "read.ptx.sreg.nctaid.y", "read.ptx.sreg.nctaid.z",
    "barrier.cta.sync.aligned.all",
    "shfl.sync.up.i32", "shfl.sync.up.f32", "shfl.sync.idx.i32",
    "shfl.sync.idx.f32", "shfl.sync.bfly.i32", "shfl.sync.bfly.f32",
    "fabs.f32", "fabs.f64", "d2i.hi", "d2i.lo", "lohi.i2d", "mul.rn.f",
    "mul.rn.d", "add.rn.f", "add.rn.d", "fma.rz.f", "ex2.approx.f32",
    "ex2.approx.ftz.f32", "div.approx.f", "div.full", "round.f",
    "rcp.approx.ftz.d", "rsqrt.approx.f", "rsqrt.approx.d", "f2i.rn",
    "d2i.rn",
}


def kernels(lines):
    """(first, last) line index of each function definition."""
    out, start = [], None
    for i, l in enumerate(lines):
        if l.startswith("define "):
            start = i
        elif l == "}" and start is not None:
            out.append((start, i))
            start = None
    return out


def params(header):
    inner = header[header.index("(") + 1:header.rindex(")")]
    return [p.split()[0] for p in inner.split(", ")] if inner.strip() else []


text = open(sys.argv[1]).read()
lines = [l for l in text.split("\n")
         if not l.startswith("target ") and not l.startswith("attributes #")]
funcs = {}
for first, last in kernels(lines):
    funcs[re.search(r"@([\w.$]+)\(", lines[first]).group(1)] = (first, last)
bad = set()
changed = True
while changed:   # ... and so is every function calling a dropped one
    changed = False
    for name, (first, last) in funcs.items():
        if name in bad:
            continue
        body = "\n".join(lines[first:last + 1])
        used = set(re.findall(r"@llvm\.nvvm\.([a-z0-9_.]+)", body))
        calls = set(re.findall(r"@([\w.$]+)\(", body)) - {name}
        if used - SIMULATED or ' asm "' in body or calls & bad:
            bad.add(name)
            changed = True
drop, wrappers = set(), []
for name, (first, last) in funcs.items():
    if name in bad:
        drop.update(range(first, last + 1))
        continue
    if "ptx_kernel" not in lines[first]:
        continue
    header = re.sub(r" addrspace\(\d+\)", "", lines[first])
    header = header[:header.rindex(")") + 1]
    tys = params(header)
    body = ["define void @%s__sim(ptr %%slots) {" % name]
    for i, t in enumerate(tys):
        body.append("  %%p%d = getelementptr i64, ptr %%slots, i64 %d" % (i, i))
        body.append("  %%a%d = load %s, ptr %%p%d" % (i, t, i))
    body.append("  call void @%s(%s)" %
                (name, ", ".join("%s %%a%d" % (t, i) for i, t in enumerate(tys))))
    body += ["  ret void", "}"]
    wrappers += body
lines = [l for i, l in enumerate(lines) if i not in drop] + wrappers
text = "\n".join(lines)
text = text.replace("ptx_kernel ", "")
text = re.sub(r" addrspace\(\d+\)", "", text)
text = re.sub(r" #\d+", "", text)
text = re.sub(r"@llvm\.nvvm\.([a-z0-9_.]+)",
              lambda m: "@sim_" + m.group(1).replace(".", "_"), text)
text = re.sub(r"declare (noundef )?range\([^)]*\) ", "declare ", text)
# An integer to half or bfloat goes through double: the host's own
# lowering goes through float and rounds twice (i64 -6.09e18 became a
# bfloat one unit off), where the GPU rounds once; double holds every i32
# exactly and rounds an i64 to 53 bits, far from a 16-bit type's ties.
text = re.sub(r"^(\s*)(%[\w.]+) = ([su]itofp) ((?:<(\d+) x )?i\d+>? %[\w.]+) to "
              r"((?:<\d+ x )?(?:bfloat|half)>?)$",
              lambda m: "%s%%wide.%s = %s %s to %s\n%s%s = fptrunc %s %%wide.%s to %s" % (
                  m.group(1), m.group(2)[1:], m.group(3), m.group(4),
                  "<%s x double>" % m.group(5) if m.group(5) else "double",
                  m.group(1), m.group(2),
                  "<%s x double>" % m.group(5) if m.group(5) else "double",
                  m.group(2)[1:], m.group(6)),
              text, flags=re.M)
# dynamic shared memory (an external array): 256 KiB, more than any GPU has
text = re.sub(r"^(@\w+) = external (local_unnamed_addr )?global \[0 x i8\]",
              r"\1 = global [262144 x i8] zeroinitializer", text, flags=re.M)
open(sys.argv[2], "w").write(text)
