# x86.py IN.ll OUT.ll — rewrites tilec's NVPTX LLVM IR (--emit=llvm) into
# IR that llc builds for the host, to run on simulated warps (warpsim.c:
# one pthread per GPU thread).
#
# The target lines and attribute groups go (they name sm_90 and
# NVPTX-only attributes); address spaces are dropped (global and shared
# memory become ordinary memory; a program's shared scratch is an ordinary
# global, shared by the threads of the one program running at a time, and
# placed at a multiple of 256 KiB so that wgmma's descriptors, which hold
# an address's low 18 bits, find it); the ptx_kernel calling convention
# becomes the C one; every llvm.nvvm.NAME intrinsic becomes a call of
# sim_NAME (dots turned into underscores), which warpsim.c defines — or,
# for those whose IR calling convention is not C's (mma.sync's vectors
# and aggregates, ldmatrix's aggregate), an IR function of that name
# (shim) passing the registers through memory to warpsim.c's ws_mma and
# ws_ldmatrix.
#
# tilec's own inline asm becomes calls of functions that do the same on
# the host (lower_asm): `ld.global` with qualifiers (a plain load of its
# words), the predicated `@p ld.global` of an element (a branch around a
# load, else the register's tied value), the predicated `@p st.global` of masked stores (a branch around
# plain stores), `createpolicy` (a dummy policy), cp.async with the
# ignore-src predicate (ws_cp_async, zeros where it is set), the proxy
# and wgmma ordering instructions (nothing to do here; wait_group's
# accumulator outputs are its tied inputs), `mov.b64` of two words, the
# identity copies (`mov.b16/32/64`, the identity `prmt`: functions
# returning their argument), and wgmma
# (ws_wgmma: descriptors, scale-d, scales and transposes from the asm
# text and operands; with A in registers, ws_wgmma_ra: A's four
# registers, B's descriptor and the rest; the kernel's wrapper then tells
# warpsim.c where its shared memory is, ws_smem), and TMA loads with
# their mbarriers (MBAR, BULK_TENSOR: mbarrier.init, arrive.expect_tx, arrive,
# try_wait.parity, inval as ws_mbar_*, a released slot's count, atom.inc,
# as ws_atom_inc_acq_rel, cp.async.bulk.tensor.{1,2,3}d as
# ws_tma_load, fence.mbarrier_init as nothing) and TMA stores with their
# bulk groups (BULK_TENSOR: cp.async.bulk.tensor.{2,3}d.global.shared::cta
# as ws_tma_store, commit_group as ws_bulk_commit, wait_group[.read] 0 as
# ws_bulk_wait). A byval parameter, the tensor map, becomes a plain
# pointer. Kernels calling an
# intrinsic warpsim.c does not model, or holding other PTX inline assembly
# (libdevice's), are dropped. Every kernel left gets a wrapper
# NAME__sim(ptr) that reads its parameters from an array of 64-bit slots,
# each value in the low bytes (libtile's packed parameters, RtPlan.slots),
# so that a launcher can call any kernel without knowing its signature;
# a tensor map's slot holds the map's address (ws_tmap_encode fills it).
import re
import sys

SIMULATED = {
    "read.ptx.sreg.tid.x", "read.ptx.sreg.ctaid.x", "read.ptx.sreg.ctaid.y",
    "read.ptx.sreg.ctaid.z", "read.ptx.sreg.nctaid.x",
    "read.ptx.sreg.nctaid.y", "read.ptx.sreg.nctaid.z",
    "barrier.cta.sync.aligned.all", "barrier.cta.sync.aligned.count",
    "barrier.cta.arrive.aligned.count",
    "shfl.sync.up.i32", "shfl.sync.up.f32", "shfl.sync.idx.i32",
    "shfl.sync.idx.f32", "shfl.sync.bfly.i32", "shfl.sync.bfly.f32",
    "vote.all.sync", "vote.any.sync",
    "fabs.f32", "fabs.f64", "d2i.hi", "d2i.lo", "lohi.i2d", "mul.rn.f",
    "mul.rn.d", "add.rn.f", "add.rn.d", "fma.rz.f", "ex2.approx.f32",
    "ex2.approx.ftz.f32", "div.approx.f", "div.full", "round.f",
    "rcp.approx.ftz.d", "rsqrt.approx.f", "rsqrt.approx.d", "f2i.rn",
    "d2i.rn", "mulhi.i", "mulhi.ui",
    # tensor cores (warpsim.c): cp.async, tf32 rounding, wgmma's ordering
    "cp.async.ca.shared.global.4", "cp.async.ca.shared.global.8",
    "cp.async.ca.shared.global.16", "cp.async.cg.shared.global.16",
    "cp.async.ca.shared.global.4.s", "cp.async.ca.shared.global.8.s",
    "cp.async.ca.shared.global.16.s", "cp.async.cg.shared.global.16.s",
    "cp.async.commit.group", "cp.async.wait.group", "cp.async.wait.all",
    "f2tf32.rna", "wgmma.fence.sync.aligned",
    "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned",
    "fence.proxy.async", "fence.proxy.async.global",
    "fence.proxy.async.shared_cta", "fence.proxy.async.shared_cluster",
}

# Intrinsics returning aggregates or taking vectors, whose IR calling
# convention is not C's: each gets an IR function of its own signature
# (shim) that passes its registers through memory to warpsim.c's ws_mma
# and ws_ldmatrix. The mma.sync kinds are ws_mma's MMA_* numbers.
MMA = {"mma.m16n8k16.row.col.f32.f32": 0, "mma.m16n8k16.row.col.bf16": 1,
       "mma.m16n8k8.row.col.tf32": 2, "mma.m16n8k32.row.col.s8": 3,
       "mma.m16n8k16.row.col.f16.f16": 4}
LDMATRIX = re.compile(r"ldmatrix\.sync\.aligned\.m8n8\.x([124])(\.trans)?\.b16(\.p3|\.p0)?$")
TYPE = re.compile(r"<\d+ x \w+>|i\d+|float|ptr")


def shimmed(name):
    return name in MMA or LDMATRIX.match(name) is not None


def returns(ret, vals, tys):
    """Lines returning vals (i32 loads) as `ret` (one type or a struct)."""
    out, prev = [], "undef"
    for i, (v, t) in enumerate(zip(vals, tys)):
        if t != "i32":
            out.append("  %%r%d = bitcast i32 %s to %s" % (i, v, t))
            v = "%%r%d" % i
        if len(vals) == 1:
            return out + ["  ret %s %s" % (ret, v)]
        out.append("  %%s%d = insertvalue %s %s, %s %s, %d" % (i, ret, prev, t, v, i))
        prev = "%%s%d" % i
    return out + ["  ret %s %s" % (ret, prev)]


def load_words(n, buf):
    out = []
    for i in range(n):
        out += ["  %%q%d = getelementptr i32, ptr %s, i64 %d" % (i, buf, i),
                "  %%o%d = load i32, ptr %%q%d" % (i, i)]
    return out, ["%%o%d" % i for i in range(n)]


def shim(name, ret, params):
    """The IR definition of @sim_NAME for a shimmed intrinsic."""
    tys = TYPE.findall(params)
    rtys = TYPE.findall(ret)
    head = "define internal %s @sim_%s(%s) {" % (
        ret, name.replace(".", "_"), ", ".join("%s %%a%d" % (t, i) for i, t in enumerate(tys)))
    body = ["  %%out = alloca [%d x i32]" % len(rtys)]
    if name in MMA:
        body.append("  %%in = alloca [%d x i32]" % len(tys))
        for i, t in enumerate(tys):
            v = "%%a%d" % i
            if t != "i32":
                body.append("  %%w%d = bitcast %s %s to i32" % (i, t, v))
                v = "%%w%d" % i
            body += ["  %%p%d = getelementptr i32, ptr %%in, i64 %d" % (i, i),
                     "  store i32 %s, ptr %%p%d" % (v, i)]
        body.append("  call void @ws_mma(i32 %d, ptr %%in, ptr %%out)" % MMA[name])
    else:
        m = LDMATRIX.match(name)
        body.append("  call void @ws_ldmatrix(ptr %%a0, i32 %s, i32 %d, ptr %%out)" % (
            m.group(1), 1 if m.group(2) else 0))
    loads, vals = load_words(len(rtys), "%out")
    return [head] + body + loads + returns(ret, vals, rtys) + ["}"]


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
# one element loaded under a predicate, the register keeping its tied
# input where the predicate is false (lower/memory.c lw_emit_load_pred)
PLOAD = re.compile(r"@\$1 ld\.global\S*?\.b(\d+) \$0, \[\$2\](, \$4)?;$")


def pload_body(w, rt):
    """The body of a predicated element load: args predicate, address,
    the value kept."""
    mt = "i%d" % w
    ext = "zext" if w < int(rt[1:]) else "bitcast"
    return ["entry:", "  br i1 %a0, label %ld, label %done", "ld:",
            "  %p = inttoptr i64 %a1 to ptr", "  %%w = load %s, ptr %%p, align 1" % mt,
            "  %%x = %s %s %%w to %s" % (ext, mt, rt), "  br label %done", "done:",
            "  %%r = phi %s [ %%x, %%ld ], [ %%a2, %%entry ]" % rt, "  ret %s %%r" % rt]


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


# Ordering instructions with nothing to do where shared memory is
# ordinary memory and wgmma completes at issue; register reallocation
# (setmaxnreg: a thread has what it needs on the host).
NOOP_ASM = re.compile(r"(fence\.proxy\.async(\.shared::cta|\.shared::cluster|\.global)?"
                      r"|fence\.mbarrier_init\.release\.cluster"
                      r"|setmaxnreg\.(inc|dec)\.sync\.aligned\.u32 \d+"
                      r"|wgmma\.(fence|commit_group)\.sync\.aligned"
                      r"|wgmma\.wait_group\.sync\.aligned \d+);$")
CP_ASYNC = re.compile(r"cp\.async\.(?:ca|cg)\.shared\.global \[\$0\], \[\$1\], (4|8|16), \$2;$")
# wgmma as tilec writes it (whitespace removed): scale-d from an i32
# through a predicate, A and B descriptors, immediate scales and
# transposes (none for tf32 and f8, read K-major only); group 4 is A's
# and B's types ("e4m3.e5m2").
WGMMA = re.compile(
    r"\{\.reg\.pred([%\w]+);setp\.ne\.b32\1,(\$\d+),0;"
    r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k(?:8|16|32)\.f32\."
    r"((?:f16|bf16|tf32|e4m3|e5m2)\.(?:f16|bf16|tf32|e4m3|e5m2))"
    r"\{([$\d,]*)\},(\$\d+),(\$\d+),\1,(-?1),(-?1)(?:,(\$\d+|\d+),(\$\d+|\d+))?;\}$")
# ws_wgmma's kind codes (warpsim.c, WG_*: A's kind, and B's << 4 where it
# differs) and each pair's K
WG_KIND = {"f16.f16": (0, 16), "bf16.bf16": (1, 16), "tf32.tf32": (2, 8),
           "e4m3.e4m3": (3, 32), "e5m2.e5m2": (4, 32),
           "e4m3.e5m2": (3 | 4 << 4, 32), "e5m2.e4m3": (4 | 3 << 4, 32)}
# kinds wgmma reads K-major only (no transpose immediates)
WG_KMAJOR = ("tf32", "e4m3", "e5m2")
# ... and with A in registers (wgmma_check's sim/wgmma.ll has both): the
# four A registers in braces where the A descriptor was, no imm-trans-a
# (A from registers is K-major), and no imm-trans-b for tf32.
WGMMA_RA = re.compile(
    r"\{\.reg\.pred([%\w]+);setp\.ne\.b32\1,(\$\d+),0;"
    r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k(?:16|8)\.f32\.(f16|bf16|tf32)\.\4"
    r"\{([$\d,]*)\},\{(\$\d+),(\$\d+),(\$\d+),(\$\d+)\},(\$\d+),\1,(-?1),(-?1)"
    r"(?:,(\$\d+|\d+))?;\}$")


# mov.b64 of two 32-bit words, the first the low one (wgmma descriptors)
MOV64 = re.compile(r"mov\.b64 \$0, \{\$1, \$2\};$")
# the identity byte permute tilec copies a register-A operand of wgmma
# through (a copy ptxas cannot fold: dot.c, wgmma_a_regs)
PRMT_ID = re.compile(r"prmt\.b32 \$0, \$1, 0, 0x3210;$")
# the copy LLVM cannot see through that lower/narrow.c reads 8- and 16-bit
# operands and results through, and lower/memory.c pins a masked store's
# 2-, 4- or 8-byte value with; a trailing comment makes each of
# lower/memory.c's copies of a realigned access's packed mask distinct
MOV_ID = re.compile(r"mov\.b(16|32|64) \$0, \$1;(?: // [\w ]*)?$")
# tilec's FP8 conversions on sm_89 and later (lower/elementwise.c): to a
# pair of f8 codes from two f32 (=h,f,f), or from a pair to two f16
# (=r,h); warpsim.c's ws_cvt_f8x2 and ws_cvt_f16x2_f8x2 do them.
CVT_F8 = re.compile(r"cvt\.rn\.(satfinite\.(e4m3|e5m2)x2\.f32 \$0, \$1, \$2|"
                    r"f16x2\.(e4m3|e5m2)x2 \$0, \$1);$")
MOV_CONS = {"16": ("=h,h", "i16"), "32": ("=r,r", "i32"), "64": ("=l,l", "i64")}
# tilec's f32 pairs to f16 or bf16 (lower/elementwise.c lw_narrow_pair,
# =r,f,f): d's high half is $1 rounded, its low half $2, as fptrunc does
CVT_X2 = re.compile(r"cvt\.rn\.(f16|bf16)x2\.f32 \$0, \$1, \$2;$")


WAIT_GROUP = re.compile(r"wgmma\.wait_group\.sync\.aligned (\d+);$")

# TMA loads and their mbarriers (sm_90a), whitespace removed: each form
# with its constraints (clobbers aside), its result type, warpsim.c's
# function, the types that takes its operands as, and constants passed
# after them.
MBAR = [
    (re.compile(r"mbarrier\.init\.shared::cta\.b64\[\$0\],\$1;$"), "l,r", "void",
     "ws_mbar_init", ["ptr", "i32"], []),
    (re.compile(r"mbarrier\.arrive\.expect_tx\.shared::cta\.b64_,\[\$0\],\$1;$"), "l,r", "void",
     "ws_mbar_arrive_expect_tx", ["ptr", "i32"], []),
    (re.compile(r"mbarrier\.arrive\.shared::cta\.b64_,\[\$0\];$"), "l", "void",
     "ws_mbar_arrive", ["ptr"], []),
    (re.compile(r"\{\.reg\.pred([%\w]+);mbarrier\.try_wait\.parity\.shared::cta\.b64\1,"
                r"\[\$1\],\$2;selp\.u32\$0,1,0,\1;\}$"), "=r,l,r", "i32",
     "ws_mbar_try_wait_parity", ["ptr", "i32"], []),
    (re.compile(r"mbarrier\.inval\.shared::cta\.b64\[\$0\];$"), "l", "void",
     "ws_mbar_inval", ["ptr"], []),
    (re.compile(r"atom\.acq_rel\.cta\.shared::cta\.inc\.u32\$0,\[\$1\],\$2;$"), "=r,l,r", "i32",
     "ws_atom_inc_acq_rel", ["ptr", "i32"], []),
    (re.compile(r"cp\.async\.bulk\.commit_group;$"), "", "void", "ws_bulk_commit", [], []),
    (re.compile(r"cp\.async\.bulk\.wait_group(?:\.read)?0;$"), "", "void", "ws_bulk_wait", [],
     ["i32 0"]),
]
# Tensor copies: the form, its leading pointer operands and warpsim.c's
# function, which takes those, the rank, three coordinates (those beyond
# the rank 0) and the last pointer operand. A load: destination, map,
# coordinates, mbarrier; a store: map, coordinates, source.
BULK_TENSOR = [
    (re.compile(r"cp\.async\.bulk\.tensor\.([123])d\.shared::cluster\.global\.tile"
                r"\.mbarrier::complete_tx::bytes\[\$0\],\[\$1,\{([$\d,]*)\}\],\[\$(\d)\];$"),
     2, "ws_tma_load"),
    (re.compile(r"cp\.async\.bulk\.tensor\.([23])d\.global\.shared::cta\.bulk_group"
                r"\[\$0,\{([$\d,]*)\}\],\[\$(\d)\];$"), 1, "ws_tma_store"),
]


def split_args(args):
    """A call's arguments split at the commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in args:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += (ch == "(") - (ch == ")")
        cur += ch
    return out + [cur.strip()] if cur.strip() else out


def mbar_form(flat, cons):
    """(warpsim.c's function, the types it takes, result type, the call's
    arguments from the converted operands) for a TMA or mbarrier asm, or
    None."""
    cons = ",".join(c for c in cons.split(",") if not c.startswith("~"))
    for rx, want, ret, fn, tys, consts in MBAR:
        if rx.match(flat) and cons == want:
            return fn, tys, ret, lambda args, consts=consts: args + consts
    for rx, lead, fn in BULK_TENSOR:
        t = rx.match(flat)
        if not t:
            continue
        rank = int(t.group(1))
        if t.group(2).split(",") != ["$%d" % (lead + i) for i in range(rank)] or \
                int(t.group(3)) != lead + rank or cons != "l," * lead + "r," * rank + "l":
            return None

        def arrange(args, lead=lead, rank=rank):
            return args[:lead] + ["i32 %d" % rank] + args[lead:lead + rank] + \
                ["i32 0"] * (3 - rank) + args[-1:]
        return fn, ["ptr"] * lead + ["i32"] * rank + ["ptr"], "void", arrange
    return None


def mbar_body(fn, want, have, ret, arrange):
    """The function calling warpsim.c's fn with operands of types `have`
    converted to `want` (an i64 address to a pointer), its arguments
    `arrange`d; None if they do not convert."""
    body, args = [], []
    for i, (w, h) in enumerate(zip(want, have)):
        v = "%%a%d" % i
        if h == "i64" and w == "ptr":
            body.append("  %%c%d = inttoptr i64 %s to ptr" % (i, v))
            v = "%%c%d" % i
        elif h != w:
            return None
        args.append("%s %s" % (w, v))
    args = arrange(args)
    if ret == "void":
        return body + ["  call void @%s(%s)" % (fn, ", ".join(args)), "  ret void"]
    return body + ["  %%r = call %s @%s(%s)" % (ret, fn, ", ".join(args)), "  ret %s %%r" % ret]



def ordering_body(asm, cons, tys, ret):
    """An ordering instruction's function: commit_group counts a group;
    outputs (wait_group's accumulator fence) are the inputs tied to them,
    through ws_wgmma_wait for wait_group. None if an output is untied."""
    outs = [c for c in cons if c.startswith("=")]
    ins = [c for c in cons if not c.startswith("=") and not c.startswith("~")]
    if len(ins) != len(tys):
        return None
    tied = []
    for j in range(len(outs)):
        i = [k for k, c in enumerate(ins) if c == str(j)]
        if not i or tys[i[0]] != "float":
            return None
        tied.append(i[0])
    body = []
    if asm.startswith("wgmma.commit_group"):
        body.append("  call void @sim_wgmma_commit_group_sync_aligned()")
    if not outs:
        return body + ["  ret void"]
    body.append("  %%regs = alloca [%d x float]" % len(outs))
    for j, i in enumerate(tied):
        body += ["  %%p%d = getelementptr float, ptr %%regs, i64 %d" % (j, j),
                 "  store float %%a%d, ptr %%p%d" % (i, j)]
    wait = WAIT_GROUP.match(asm)
    if wait:
        body.append("  call void @ws_wgmma_wait(i32 %s, i32 %d, ptr %%regs)" % (
            wait.group(1), len(outs)))
    body += ["  %%v%d = load float, ptr %%p%d" % (j, j) for j in range(len(outs))]
    if len(outs) == 1:
        return body + ["  ret %s %%v0" % ret]
    prev = "undef"
    for j in range(len(outs)):
        body.append("  %%s%d = insertvalue %s %s, float %%v%d, %d" % (j, ret, prev, j, j))
        prev = "%%s%d" % j
    return body + ["  ret %s %s" % (ret, prev)]


def arg_types(args):
    """The types of a call's arguments ('ptr addrspace(3) %x, i1 %y')."""
    return [re.sub(r" addrspace\(\d+\)", "", a.rsplit(" ", 1)[0]) for a in args.split(", ")]


def cp_async_body(bytes_, tys):
    """cp.async [$0], [$1], N, $2 (ignore-src: zeros when $2)."""
    head = ", ".join("%s %%a%d" % (t, i) for i, t in enumerate(tys))
    return head, ["  %%n = select i1 %%a2, i32 0, i32 %s" % bytes_,
                  "  call void @ws_cp_async(ptr %%a0, ptr %%a1, i32 %s, i32 %%n)" % bytes_,
                  "  ret void"]


def wgmma_body(m, cons, tys, ret, rega):
    """The wgmma asm's operands passed to ws_wgmma (WGMMA) or ws_wgmma_ra
    (WGMMA_RA: rega); None if they are not the form expected."""
    n = int(m.group(3))
    pair = m.group(4) if "." in m.group(4) else m.group(4) + "." + m.group(4)
    if pair not in WG_KIND:
        return None
    kind, k = WG_KIND[pair]
    kmajor = pair.split(".")[0] in WG_KMAJOR
    trans_b = m.group(13) if rega else m.group(10)
    if ("k%d.f32" % k) not in m.group(0) or (rega and kind > 2) or kmajor != (trans_b is None):
        return None   # K of another kind; tf32, f8: no transposes; f8: A not in registers
    outs = [c for c in cons if c.startswith("=")]
    ins = [c for c in cons if not c.startswith("=") and not c.startswith("~")]
    if (n % 8 or not 8 <= n <= 256 or len(outs) != n // 2 or any(c != "=f" for c in outs) or
            len(ins) != len(tys) or m.group(5).split(",") != ["$%d" % i for i in range(n // 2)]):
        return None

    def operand(tok, ty):   # a literal, or the argument $tok names, as `ty`
        if not tok.startswith("$"):
            return tok, []
        i = int(tok[1:]) - n // 2
        if i < 0 or i >= len(tys):
            return None, []
        if tys[i] == ty:
            return "%%a%d" % i, []
        if not re.fullmatch(r"i\d+", tys[i]):
            return None, []
        op = "zext" if int(tys[i][1:]) < int(ty[1:]) else "trunc"
        return "%%c%d" % i, ["  %%c%d = %s %s %%a%d to %s" % (i, op, tys[i], i, ty)]

    body = ["  %%acc = alloca [%d x float]" % (n // 2)]
    for j in range(n // 2):
        tied = [i for i, c in enumerate(ins) if c == str(j)]
        body += ["  %%p%d = getelementptr float, ptr %%acc, i64 %d" % (j, j),
                 "  store float %s, ptr %%p%d" % ("%%a%d" % tied[0] if tied else "0.0", j)]
    if rega:   # A's four registers through memory; then B, scale-d, scales, trans-b
        body.append("  %areg = alloca [4 x i32]")
        for j in range(4):
            v, conv = operand(m.group(6 + j), "i32")
            if v is None or ins[int(m.group(6 + j)[1:]) - n // 2] != "r":
                return None
            body += conv + ["  %%ap%d = getelementptr i32, ptr %%areg, i64 %d" % (j, j),
                            "  store i32 %s, ptr %%ap%d" % (v, j)]
        toks = ((m.group(10), "i64"), (m.group(2), "i32"), (m.group(11), "i32"),
                (m.group(12), "i32"), (m.group(13) or "0", "i32"))
    else:      # A and B descriptors, scale-d, scales, transposes
        toks = ((m.group(6), "i64"), (m.group(7), "i64"), (m.group(2), "i32"),
                (m.group(8), "i32"), (m.group(9), "i32"), (m.group(10) or "0", "i32"),
                (m.group(11) or "0", "i32"))
    args = ["ptr %areg"] if rega else []
    for tok, ty in toks:
        v, conv = operand(tok, ty)
        if v is None:
            return None
        body += conv
        args.append("%s %s" % (ty, v))
    body.append("  call void @%s(i32 %d, i32 %d, %s, ptr %%acc)" % (
        "ws_wgmma_ra" if rega else "ws_wgmma", n, kind, ", ".join(args)))
    loads = []
    for j in range(n // 2):
        loads.append("  %%v%d = load float, ptr %%p%d" % (j, j))
    prev = "undef"
    for j in range(n // 2):
        loads.append("  %%s%d = insertvalue %s %s, float %%v%d, %d" % (j, ret, prev, j, j))
        prev = "%%s%d" % j
    return body + loads + ["  ret %s %s" % (ret, prev)]


def lower_asm(text):
    """Replaces tilec's own inline asm (ld.global with qualifiers, the
    predicated st.global, createpolicy, cp.async with ignore-src, wgmma)
    by calls of functions that do the same on the host; any other asm
    stays (and its function is dropped). Returns the text and the names
    of the wgmma functions."""
    defs, names, wgmma, fences = [], {}, set(), set()

    def one(m):
        asm, cons = m.group(2), m.group(3)
        ld, st = LOAD.match(asm), STORE.match(asm)
        flat = re.sub(r"\\0[9AD]|\s", "", asm)
        cp, wg, wg_ra = CP_ASYNC.match(asm), WGMMA.match(flat), WGMMA_RA.match(flat)
        wg = wg or wg_ra
        if (cp or wg) and m.group(4) is not None:
            tys = arg_types(m.group(4))
            key = (asm, cons, tuple(tys))
            if key not in names:
                ret = m.group(1)
                if cp and tys == ["ptr", "ptr", "i1"] and ret == "void":
                    head, body = cp_async_body(cp.group(1), tys)
                elif wg:
                    body = wgmma_body(wg, cons.split(","), tys, ret, wg_ra is not None)
                    if body is None:
                        return None
                    head = ", ".join("%s %%a%d" % (t, i) for i, t in enumerate(tys))
                else:
                    return None
                names[key] = "@sim_asm_%d" % len(names)
                defs.append("define internal %s %s(%s) {" % (ret, names[key], head))
                defs.extend(body + ["}"])
                if wg:   # and the variant whose accumulators stay in flight
                    wgmma.update({names[key][1:], names[key][1:] + ".async"})
                    defs.append("define internal %s %s.async(%s) {" % (ret, names[key], head))
                    defs.extend([re.sub(r"@(ws_wgmma(?:_ra)?)\(", r"@\1_async(", l)
                                 for l in body] + ["}"])
            return names[key]
        mb = mbar_form(flat, cons)
        if mb and m.group(4) is not None:
            fn, want, ret, arrange = mb
            have = [re.sub(r" addrspace\(\d+\)", "", a).split()[0] for a in split_args(m.group(4))]
            key = (asm, cons, tuple(have))
            if key not in names:
                body = mbar_body(fn, want, have, ret, arrange) if ret == m.group(1) and \
                    len(have) == len(want) else None
                if body is None:
                    return None
                names[key] = "@sim_asm_%d" % len(names)
                defs.append("define internal %s %s(%s) {" % (
                    ret, names[key], ", ".join("%s %%a%d" % (t, i) for i, t in enumerate(have))))
                defs.extend(body + ["}"])
            return names[key]
        if NOOP_ASM.match(asm.strip()) and m.group(4) is not None:
            tys = arg_types(m.group(4)) if m.group(4) else []
            key = (asm, cons, tuple(tys))
            if key not in names:
                body = ordering_body(asm.strip(), cons.split(","), tys, m.group(1))
                if body is None:
                    return None
                names[key] = "@sim_asm_%d" % len(names)
                if WAIT_GROUP.match(asm.strip()) and "=" in cons:
                    fences.add(names[key][1:])
                defs.append("define internal %s %s(%s) {" % (
                    m.group(1), names[key], ", ".join("%s %%a%d" % (t, i) for i, t in enumerate(tys))))
                defs.extend(body + ["}"])
            return names[key]
        pl = PLOAD.match(asm.strip())
        if pl and cons.split(",")[1:] in (["b", "l", "0"], ["b", "l", "0", "l"]) and \
                cons[:2] in ("=h", "=r", "=l"):
            rt = REG[cons[1]]
            key = (asm, cons)
            if key not in names:
                names[key] = "@sim_asm_%d" % len(names)
                defs.append("define internal %s %s(i1 %%a0, i64 %%a1, %s %%a2%s) {" % (
                    rt, names[key], rt, ", i64 %a3" if pl.group(2) else ""))
                defs.extend(pload_body(int(pl.group(1)), rt) + ["}"])
            return names[key]
        mid = MOV_ID.match(asm)
        ident = (cons, m.group(1)) == ("=r,r", "i32") if PRMT_ID.match(asm) else \
            bool(mid) and (cons, m.group(1)) == MOV_CONS[mid.group(1)]
        if ident:
            key = ("identity", cons)
            if key not in names:
                names[key] = "@sim_asm_%d" % len(names)
                t = m.group(1)
                defs.extend(["define internal %s %s(%s %%a0) {" % (t, names[key], t),
                             "  ret %s %%a0" % t, "}"])
            return names[key]
        cvt = CVT_F8.match(asm.strip())
        if cvt and (cons, m.group(1)) in (("=h,f,f", "i16"), ("=r,h", "i32")):
            key = (asm, cons)
            if key not in names:
                names[key] = "@sim_asm_%d" % len(names)
                e5 = int("e5m2" in asm)
                if cvt.group(2):
                    defs.extend(["define internal i16 %s(float %%a0, float %%a1) {" % names[key],
                                 "  %%r = call i16 @ws_cvt_f8x2(i32 %d, float %%a0, float %%a1)"
                                 % e5, "  ret i16 %r", "}"])
                else:
                    defs.extend(["define internal i32 %s(i16 %%a0) {" % names[key],
                                 "  %%r = call i32 @ws_cvt_f16x2_f8x2(i32 %d, i16 %%a0)" % e5,
                                 "  ret i32 %r", "}"])
            return names[key]
        x2 = CVT_X2.match(asm.strip())
        if x2 and cons == "=r,f,f" and m.group(1) == "i32":
            key = (asm, cons)
            if key not in names:
                names[key] = "@sim_asm_%d" % len(names)
                t = "half" if x2.group(1) == "f16" else "bfloat"
                defs.extend(["define internal i32 %s(float %%a0, float %%a1) {" % names[key],
                             "  %%h = fptrunc float %%a0 to %s" % t,
                             "  %%l = fptrunc float %%a1 to %s" % t,
                             "  %%hb = bitcast %s %%h to i16" % t,
                             "  %%lb = bitcast %s %%l to i16" % t,
                             "  %hw = zext i16 %hb to i32", "  %lw = zext i16 %lb to i32",
                             "  %up = shl i32 %hw, 16", "  %r = or i32 %up, %lw",
                             "  ret i32 %r", "}"])
            return names[key]
        mov = MOV64.match(asm)
        if mov and cons == "=l,r,r" and m.group(1) == "i64":
            key = (asm, cons)
            if key not in names:
                names[key] = "@sim_asm_%d" % len(names)
                defs.extend(["define internal i64 %s(i32 %%a0, i32 %%a1) {" % names[key],
                             "  %lo = zext i32 %a0 to i64", "  %hi = zext i32 %a1 to i64",
                             "  %up = shl i64 %hi, 32", "  %v = or i64 %up, %lo", "  ret i64 %v",
                             "}"])
            return names[key]
        if not (ld or st or asm.startswith("createpolicy")):
            return None
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

    def sub(m):
        name = one(m)
        return m.group(0) if name is None else "call %s %s" % (m.group(1), name)

    text = re.sub(r'call (\{[^}]*\}|\S+) asm (?:sideeffect )?"([^"]*)", "([^"]*)"'
                  r'(?=\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\))?', sub, text)
    return text + "\n" + "\n".join(defs) + "\n", wgmma, fences


SCALAR_BYTES = {"i1": 1, "i8": 1, "i16": 2, "half": 2, "bfloat": 2, "i32": 4, "float": 4,
                "i64": 8, "double": 8, "ptr": 8}
SHARED_LOAD = re.compile(r"^(\s*)%[\w.]+ = load (?:volatile )?(<\d+ x \w+>|\w+), "
                         r"(ptr addrspace\(3\) .+?)(?:, align \d+)?(?:, !.*)?$")
SHARED_STORE = re.compile(r"^(\s*)store (?:volatile )?(<\d+ x \w+>|\w+) .+?, "
                          r"(ptr addrspace\(3\) .+?)(?:, align \d+)?(?:, !.*)?$")


def type_bytes(ty):
    m = re.match(r"<(\d+) x (\w+)>$", ty)
    return int(m.group(1)) * SCALAR_BYTES[m.group(2)] if m else SCALAR_BYTES[ty]


def racecheck_hooks(lines):
    """A call of warpsim.c's ws_rc_access before each load and store of
    shared memory (its racecheck, WARPSIM_RACECHECK=1)."""
    out = []
    for l in lines:
        for m, write in ((SHARED_LOAD.match(l), 0), (SHARED_STORE.match(l), 1)):
            if m:
                out.append("%scall void @ws_rc_access(%s, i32 %d, i32 %d)" %
                           (m.group(1), m.group(3), type_bytes(m.group(2)), write))
        out.append(l)
    return out


text, wgmma, fences = lower_asm(open(sys.argv[1]).read())
lines = racecheck_hooks([l for l in text.split("\n")
                         if not l.startswith("target ") and not l.startswith("attributes #")])
shared = {m.group(1) for m in (re.match(r"@([\w.$]+) = .*addrspace\(3\) global ", l)
                              for l in lines) if m}
# A byval parameter (a TMA kernel's tensor map: `ptr byval([128 x i8])
# align 64 "nvvm.grid_constant"`) becomes a plain pointer: the kernel
# reads the map through it, and its wrapper's slot holds the map's
# address.
for first, last in kernels(lines):
    if "byval(" in lines[first]:
        l = lines[first]
        start = re.search(r"@[\w.$]+\(", l).end()
        depth, end = 1, start
        while depth:
            depth += (l[end] == "(") - (l[end] == ")")
            end += 1
        ps = [("ptr " + p.split()[-1]) if "byval(" in p else p
              for p in split_args(l[start:end - 1])]
        lines[first] = l[:start] + ", ".join(ps) + l[end - 1:]
funcs = {}
for first, last in kernels(lines):
    funcs[re.search(r"@([\w.$]+)\(", lines[first]).group(1)] = (first, last)
    # A function fencing its accumulators with wgmma.wait_group's register
    # form gets the wgmma whose results stay in flight until that wait
    # (ws_wgmma_async); one without it, results at issue.
    body = "\n".join(lines[first:last + 1])
    if any("@%s(" % f in body for f in fences):
        for i in range(first, last + 1):
            lines[i] = re.sub(r"@(sim_asm_\d+)\(",
                              lambda m: "@%s.async(" % m.group(1) if m.group(1) in wgmma
                              else m.group(0), lines[i])
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
        unknown = {u for u in used if u not in SIMULATED and not shimmed(u)}
        if unknown or re.search(r' asm (sideeffect )?"', body) or calls & bad:
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
    kbody = "\n".join(lines[first:last + 1])
    used = set(re.findall(r"@([\w.$]+)", kbody))
    if used & wgmma and len(used & shared) == 1:   # wgmma finds it (ws_smem)
        body.append("  call void @ws_smem(ptr @%s)" % (used & shared).pop())
    body.append("  call void @%s(%s)" %
                (name, ", ".join("%s %%a%d" % (t, i) for i, t in enumerate(tys))))
    body += ["  ret void", "}"]
    wrappers += body
lines = [l for i, l in enumerate(lines) if i not in drop] + wrappers
out = []
for l in lines:
    m = re.match(r"declare (.*?) @llvm\.nvvm\.([a-z0-9_.]+)\((.*)\)", l)
    if m and shimmed(m.group(2)):
        out += shim(m.group(2), re.sub(r"(noundef|range\([^)]*\)) ", "", m.group(1)), m.group(3))
    elif re.match(r"@[\w.$]+ = .*addrspace\(3\) global ", l):
        # shared memory at a multiple of 256 KiB: its host address's low
        # 18 bits are the offsets wgmma's descriptors hold
        out.append(re.sub(r", align \d+", "", l) + ", align 262144")
    else:
        out.append(l)
lines = out + ["declare void @ws_mma(i32, ptr, ptr)",
               "declare void @ws_ldmatrix(ptr, i32, i32, ptr)",
               "declare void @ws_cp_async(ptr, ptr, i32, i32)",
               "declare void @ws_wgmma(i32, i32, i64, i64, i32, i32, i32, i32, i32, ptr)",
               "declare void @ws_wgmma_async(i32, i32, i64, i64, i32, i32, i32, i32, i32, ptr)",
               "declare void @ws_wgmma_ra(i32, i32, ptr, i64, i32, i32, i32, i32, ptr)",
               "declare void @ws_wgmma_ra_async(i32, i32, ptr, i64, i32, i32, i32, i32, ptr)",
               "declare void @ws_wgmma_wait(i32, i32, ptr)",
               "declare void @ws_smem(ptr)",
               "declare i16 @ws_cvt_f8x2(i32, float, float)",
               "declare i32 @ws_cvt_f16x2_f8x2(i32, i16)",
               "declare void @ws_mbar_init(ptr, i32)",
               "declare void @ws_mbar_inval(ptr)",
               "declare void @ws_mbar_arrive_expect_tx(ptr, i32)",
               "declare void @ws_mbar_arrive(ptr)",
               "declare i32 @ws_mbar_try_wait_parity(ptr, i32)",
               "declare i32 @ws_atom_inc_acq_rel(ptr, i32)",
               "declare void @ws_tma_load(ptr, ptr, i32, i32, i32, i32, ptr)",
               "declare void @ws_tma_store(ptr, i32, i32, i32, i32, ptr)",
               "declare void @ws_bulk_commit()",
               "declare void @ws_bulk_wait(i32)",
               "declare void @ws_rc_access(ptr, i32, i32)"]
text = "\n".join(lines)
text = text.replace("ptx_kernel ", "")
text = re.sub(r" addrspace\(\d+\)", "", text)
# ... so an address-space cast is a plain use of its pointer
text = re.sub(r"addrspacecast \(ptr (@[\w.$]+) to ptr\)", r"\1", text)
text = re.sub(r"= addrspacecast ptr ([%@][\w.$]+) to ptr$", r"= getelementptr i8, ptr \1, i64 0",
              text, flags=re.M)
text = re.sub(r" #\d+", "", text)
text = re.sub(r"@llvm\.nvvm\.([a-z0-9_.]+)",
              lambda m: "@sim_" + m.group(1).replace(".", "_"), text)
text = re.sub(r"declare (noundef )?range\([^)]*\) ", "declare ", text)
text = text.replace(" immarg", "")   # an intrinsic's attribute
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
# commit_group as inline asm calls warpsim.c's, maybe not declared yet
commit = "declare void @sim_wgmma_commit_group_sync_aligned()"
if "@sim_wgmma_commit_group_sync_aligned(" in text and commit not in text:
    text += "\n" + commit + "\n"
open(sys.argv[2], "w").write(text)
