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
# tilec's own inline asm becomes calls of functions that do the same on
# the host (lower_asm): `ld.global` with qualifiers (a plain load of its
# words), the predicated `@p st.global` of masked stores (a branch around
# plain stores), `createpolicy` (a dummy policy). Kernels calling an
# intrinsic warpsim.c does not model (the tensor-core ones), or holding
# other PTX inline assembly (libdevice's), are dropped. Every kernel left gets a wrapper NAME__sim(ptr) that
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


REG = {"h": "i16", "r": "i32", "l": "i64", "b": "i1"}
LOAD = re.compile(r"ld\.global\S*?(?:\.v(\d+))?\.b(\d+) ")
STORE = re.compile(r"@\$0 st\.global(?:\.v(\d+))?\.b(\d+) ")


def asm_body(asm, ret, nw, w):
    """The body of a function doing what tilec's ld/st.global asm does."""
    mt, rt = "i%d" % w, "i%d" % max(w, 16)
    out = []
    if asm.startswith("@"):             # args: predicate, address, words
        out += ["  br i1 %a0, label %st, label %done", "st:"]
    out.append("  %%p0 = inttoptr i64 %%a%d to ptr" % (1 if asm.startswith("@") else 0))
    for i in range(1, nw):
        out.append("  %%p%d = getelementptr i8, ptr %%p0, i64 %d" % (i, i * w // 8))
    for i in range(nw):
        if asm.startswith("@"):
            v = "%%a%d" % (2 + i)
            if w == 8:
                out.append("  %%t%d = trunc i16 %s to i8" % (i, v))
                v = "%%t%d" % i
            out.append("  store %s %s, ptr %%p%d, align 1" % (mt, v, i))
        else:
            out.append("  %%w%d = load %s, ptr %%p%d, align 1" % (i, mt, i))
            if w == 8:
                out.append("  %%x%d = zext i8 %%w%d to i16" % (i, i))
            else:
                out.append("  %%x%d = bitcast %s %%w%d to %s" % (i, mt, i, rt))
    if asm.startswith("@"):
        return out + ["  br label %done", "done:", "  ret void"]
    if nw == 1:
        return out + ["  ret %s %%x0" % ret]
    prev = "undef"
    for i in range(nw):
        out.append("  %%s%d = insertvalue %s %s, %s %%x%d, %d" % (i, ret, prev, rt, i, i))
        prev = "%%s%d" % i
    return out + ["  ret %s %s" % (ret, prev)]


def lower_asm(text):
    """Replaces tilec's own inline asm (ld.global with qualifiers, the
    predicated st.global, createpolicy) by calls of functions that do the
    same on the host; any other asm stays (and its function is dropped)."""
    defs, names = [], {}

    def one(m):
        asm, cons = m.group(2), m.group(3)
        ld, st = LOAD.match(asm), STORE.match(asm)
        if not (ld or st or asm.startswith("createpolicy")):
            return m.group(0)
        outs = [REG[c[1]] for c in cons.split(",") if c.startswith("=")]
        ins = [REG[c] for c in cons.split(",") if c in REG]
        ret = "void" if not outs else outs[0] if len(outs) == 1 else \
            "{ %s }" % ", ".join(outs)
        if asm.startswith("createpolicy"):
            body = ["  ret i64 0"]
        else:
            g = ld or st
            body = asm_body(asm, ret, int(g.group(1) or 1), int(g.group(2)))
        key = (asm, cons)
        if key not in names:
            names[key] = "@sim_asm_%d" % len(names)
            defs.append("define internal %s %s(%s) {" % (
                ret, names[key], ", ".join("%s %%a%d" % (t, i) for i, t in enumerate(ins))))
            defs.extend(body + ["}"])
        return names[key]

    text = re.sub(r'asm (sideeffect )?"([^"]*)", "([^"]*)"', one, text)
    return text + "\n" + "\n".join(defs) + "\n"


text = lower_asm(open(sys.argv[1]).read())
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
        if used - SIMULATED or re.search(r' asm (sideeffect )?"', body) or calls & bad:
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
