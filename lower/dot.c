/*
 * dot.c — matrix products: mma.sync on tensor cores, and the exact FMA
 * path.
 *
 * By the time a `dot` is lowered, layout assignment (plan/mma.c) has put
 * its operands in the layouts the instruction reads and its accumulator
 * in the layout the instruction writes, and the conversions that get the
 * operands there are ordinary `convert_layout` ops. So this file only
 * pairs registers; which thread holds what was decided by the maps.
 *
 * Tensor cores. An accumulator layout's register bits 0-1 are the inside
 * of one m16n8 instruction tile (n+1, m+8), so registers 4q..4q+3 are the
 * four results c0..c3 of one instruction, at the tile whose origin is the
 * constant part R(4q) of their coordinates (the lane and warp part is
 * the same for every register of a thread). Likewise an A operand's
 * registers come in groups of 4 x kwidth (a0..a3 of 32 bits, kwidth
 * elements each, in the PTX ISA's order) and B's in groups of
 * 2 x kwidth. For each accumulator tile (m, n) and each K step k the
 * instruction takes the A group at (m, k) and the B group at (k, n); the
 * groups are found by their constant coordinates. When a pipelined
 * loop left A to the product (an LwFrag, pipeline.c), the instructions
 * run K sub-step by K sub-step and the operands are read by ldmatrix
 * one sub-step ahead: sub-step s+1's reads go before sub-step s's mma.sync, so that
 * their latency hides behind tensor-core work, and before the last
 * sub-step's the loop may wait, cross its barrier and read the next
 * tile's first sub-step (lw_pipe_last_step). f32 operands are first
 * truncated to tf32 (their low 13 bits cleared, as wgmma reads f32 in
 * shared memory and the interpreter rounds); i8 operands are
 * packed four to a register. An f16 result (out_dtype=f16) is m16n8k16's
 * f16 accumulator: c0..c3 packed in two f16x2 registers (c0/c1 and c2/c3
 * are register bits 0 of the accumulator map, neighbours in n).
 *
 * FMA path (f32 with precision="ieee", i8 with K < 32): the accumulator
 * is blocked and each thread holds, for every accumulator row (column) it
 * owns, the whole K extent of A (B); each accumulator register is a chain
 * of K fused multiply-adds in K order (i32 multiply-adds for i8).
 */
#include "lower/lw.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The constant coordinate of register r: R(r), unpacked into c[2]. */
static void reg_coord(const Layout *l, int r, int32_t c[2]) {
    ly_coord(l, (LyIndex){(uint32_t)r, 0, 0}, c);
}

/* The register group of `l` (groups of `size` registers) whose constant
 * origin is (c0, c1), or -1. */
static int find_group(const Layout *l, int size, int32_t c0, int32_t c1) {
    if (size <= 0) return -1;
    for (int g = 0; g < ly_size(l, LY_REG); g += size) {
        int32_t c[2];
        reg_coord(l, g, c);
        if (c[0] == c0 && c[1] == c1) return g;
    }
    return -1;
}

/* One 32-bit instruction operand from `kw` consecutive registers. */
static LLVMValueRef pack32(LwFn *f, ScalarKind k, LLVMValueRef *e, int kw) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    if (k == SK_F32)   /* tf32: the low 13 bits dropped (interp/fp.c) */
        return LLVMBuildAnd(b, LLVMBuildBitCast(b, e[0], c->i32, ""),
                            lw_i32(c, (int64_t)0xffffe000u), "");
    LLVMTypeRef et = lw_type(c, k);
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(et, (unsigned)kw));
    for (int i = 0; i < kw; i++)
        v = LLVMBuildInsertElement(b, v, e[i], lw_i32(c, i), "");
    return k == SK_F16 ? v : LLVMBuildBitCast(b, v, c->i32, "");
}

/* The mma.sync intrinsic for operands of kind k into accumulators of
 * kind ck (f16 only for f16 operands: out_dtype=f16). */
static const char *mma_name(ScalarKind k, ScalarKind ck) {
    switch (k) {
    case SK_F16:
        return ck == SK_F16 ? "llvm.nvvm.mma.m16n8k16.row.col.f16.f16"
                            : "llvm.nvvm.mma.m16n8k16.row.col.f32.f32";
    case SK_BF16: return "llvm.nvvm.mma.m16n8k16.row.col.bf16";
    case SK_F32: return "llvm.nvvm.mma.m16n8k8.row.col.tf32";
    default: return "llvm.nvvm.mma.m16n8k32.row.col.s8";
    }
}

/* An operand whose ldmatrix this product emits (pipeline.c), or NULL. */
static LwFrag *frag_of(LwFn *f, const IrValue *v) {
    return f->frag ? f->frag[v->id] : NULL;
}

/* The reads of K sub-step [k0, k1) of both operands (those not read). */
static void load_step(LwFn *f, LwFrag *za, LwFrag *zb, int32_t k0, int32_t k1) {
    if (za) lw_frag_load(f, za, k0, k1);
    if (zb) lw_frag_load(f, zb, k0, k1);
}

/* The mma.sync of accumulator tile q (registers q..q+3 of `out`) at K
 * sub-step k0; 0 (reported) when an operand's registers are missing. */
static int mma_tile(LwFn *f, const IrOp *op, LwVal out, int q, int32_t k0) {
    LwCtx *c = f->c;
    const Layout *cl = op->res[0]->layout, *al = op->args[0]->layout,
                 *bl = op->args[1]->layout;
    ScalarKind ek = (ScalarKind)op->args[0]->ty.k;
    /* (A may be a chained product's accumulator, whose layout is the
     * operand's map under another kind: kwidth comes from the type.) */
    int kw = 32 / ty_bits(ek);
    LwVal *a = lw_val(f, op->args[0]), *bv = lw_val(f, op->args[1]);
    int32_t co[2];
    reg_coord(cl, q, co);
    int ga = find_group(al, 4 * kw, co[0], k0);
    int gb = find_group(bl, 2 * kw, k0, co[1]);
    if (ga < 0 || gb < 0 || !a->r[ga] || !bv->r[gb]) {
        lw_error(f, op->loc, "internal error: no operand registers for "
                 "the tile at (%d, %d), k %d", co[0], co[1], k0);
        return 0;
    }
    ScalarKind ck = (ScalarKind)op->res[0]->ty.k;
    LLVMValueRef args[10];
    for (int j = 0; j < 4; j++) args[j] = pack32(f, ek, a->r + ga + j * kw, kw);
    for (int j = 0; j < 2; j++) args[4 + j] = pack32(f, ek, bv->r + gb + j * kw, kw);
    if (ck == SK_F16) {   /* c0..c3 as two f16x2 registers, d likewise */
        for (int j = 0; j < 2; j++) args[6 + j] = pack32(f, ck, out.r + q + 2 * j, 2);
        LLVMValueRef d = lw_call_intr(c, mma_name(ek, ck), NULL, 0, args, 8);
        for (int j = 0; j < 4; j++)
            out.r[q + j] = LLVMBuildExtractElement(
                c->b, LLVMBuildExtractValue(c->b, d, (unsigned)j / 2, ""), lw_i32(c, j % 2), "");
        return 1;
    }
    for (int j = 0; j < 4; j++) args[6 + j] = out.r[q + j];
    LLVMValueRef d = lw_call_intr(c, mma_name(ek, ck), NULL, 0, args, 10);
    for (int j = 0; j < 4; j++)
        out.r[q + j] = LLVMBuildExtractValue(c->b, d, (unsigned)j, "");
    return 1;
}

/* A left to the product (LwFrag; B too, in matmul): sub-step by
 * sub-step, each sub-step's reads before the previous one's mma.sync.
 * A in registers (attention's Q, and its softmax's P): tile by tile,
 * each a chain over K, after all of B's reads: interleaving there
 * spilled (attention D=64 128x128 w4) and gained no instruction. */
static void lw_dot_mma(LwFn *f, const IrOp *op) {
    const Layout *cl = op->res[0]->layout;
    int K = op->args[0]->ty.dim[1], mk = cl->mma_k;
    LwVal acc = *lw_val(f, op->args[2]);
    LwVal out = lw_new_val(f, acc.n);
    memcpy(out.r, acc.r, sizeof(LLVMValueRef) * (size_t)acc.n);
    LwFrag *za = frag_of(f, op->args[0]), *zb = frag_of(f, op->args[1]);
    if (!za) {
        load_step(f, za, zb, INT32_MIN, INT32_MAX);
        for (int q = 0; q < out.n; q += 4)
            for (int32_t k0 = 0; k0 < K; k0 += mk)
                if (!mma_tile(f, op, out, q, k0)) return;
    } else {
        load_step(f, za, zb, 0, mk);
        for (int32_t k0 = 0; k0 < K; k0 += mk) {
            if (k0 + mk < K)
                load_step(f, za, zb, k0 + mk, k0 + 2 * mk);
            else
                lw_pipe_last_step(f, op);
            for (int q = 0; q < out.n; q += 4)
                if (!mma_tile(f, op, out, q, k0)) return;
        }
    }
    lw_set(f, op->res[0], out);
}

/* ---------------------------------------------------------------- wgmma */

/* A tied inline asm over acc's registers: `text` runs with them as its
 * outputs $0.. and the extra inputs after them, and the values it
 * returns replace them, so that LLVM keeps every other access to the
 * accumulator on its side of the instruction (ptxas tracks wgmma's
 * registers in flight itself). */
static void tied_asm(LwFn *f, const char *text, LLVMValueRef *acc, int n,
                     LLVMValueRef *extra, const char *extra_cons, int nextra) {
    LwCtx *c = f->c;
    size_t cap = (size_t)n * 10 + strlen(extra_cons) + 16;
    char *cons = ar_alloc(c->ar, cap), *w = cons;
    for (int i = 0; i < n; i++) w += sprintf(w, "=f,");
    w += sprintf(w, "%s", extra_cons);
    for (int i = 0; i < n; i++) w += sprintf(w, "%s%d", nextra || i ? "," : "", i);
    sprintf(w, ",~{memory}");
    int nin = nextra + n;
    LLVMValueRef *args = ar_alloc(c->ar, sizeof(LLVMValueRef) * (size_t)nin);
    if (nextra) memcpy(args, extra, sizeof(LLVMValueRef) * (size_t)nextra);
    memcpy(args + nextra, acc, sizeof(LLVMValueRef) * (size_t)n);
    LLVMTypeRef *rt = ar_alloc(c->ar, sizeof(LLVMTypeRef) * (size_t)n);
    for (int i = 0; i < n; i++) rt[i] = c->f32;
    LLVMTypeRef ret = n == 1 ? c->f32 : LLVMStructTypeInContext(c->ctx, rt, (unsigned)n, 0);
    LLVMValueRef r = lw_asm(c, ret, text, cons, args, nin, LW_ASM_WRITES);
    for (int i = 0; i < n; i++)
        acc[i] = n == 1 ? r : LLVMBuildExtractValue(c->b, r, (unsigned)i, "");
}

LwVal lw_wgmma_wait(LwFn *f, LwVal acc, int n) {
    char text[48];
    snprintf(text, sizeof text, "wgmma.wait_group.sync.aligned %d;", n);
    LwVal out = lw_new_val(f, acc.n);
    memcpy(out.r, acc.r, sizeof(LLVMValueRef) * (size_t)acc.n);
    if (acc.n) tied_asm(f, text, out.r, out.n, NULL, "", 0);
    return out;
}

/* The 64-bit matrix descriptor of buffer s (PTX ISA, "matrix descriptor
 * format") as its two 32-bit words: the start address and the leading
 * byte offset in the low word, the stride byte offset and the swizzle
 * mode (128, 64, 32 bytes: 1, 2, 3) in the high one, each offset >> 4.
 * K-major (K is s's contiguous dimension): 8 rows of M or N lie
 * 8 * swizzle bytes apart (stride), the leading offset is unused (1).
 * MN-major: swizzle-byte blocks along M or N lie rows * swizzle bytes
 * apart (leading), 8 K rows 8 * swizzle bytes (stride). desc_low gives
 * the low word at `base` (an i32 to which offsets within the buffer,
 * >> 4, are added: the whole of shared memory fits the address field's
 * 18 bits), desc_high the constant high word, desc_pack the two as the
 * instruction's 64-bit operand. */
static LLVMValueRef desc_low(LwFn *f, LLVMValueRef base, const LySmem *s, int kmajor) {
    LwCtx *c = f->c;
    uint32_t rows = (uint32_t)s->shape[1 - s->fast], sw = (uint32_t)s->swizzle;
    uint32_t lbo = kmajor ? 16 : rows * sw;
    LLVMValueRef a = LLVMBuildPtrToInt(c->b, base, c->i32, "");
    a = LLVMBuildLShr(c->b, LLVMBuildAnd(c->b, a, lw_i32(c, 0x3FFFF), ""), lw_i32(c, 4), "");
    return LLVMBuildOr(c->b, a, lw_i32(c, (int64_t)(lbo >> 4) << 16), "");
}

static uint32_t desc_high(const LySmem *s) {
    uint32_t sw = (uint32_t)s->swizzle, mode = sw == 128 ? 1 : sw == 64 ? 2 : 3;
    return (8 * sw) >> 4 | mode << 30;
}

/* The two words as one 64-bit register, by a mov.b64 of the pair: built
 * with 64-bit arithmetic instead (a 64-bit add of the constant high
 * word), ptxas 13.0 was seen to drop the high word when the start
 * address came from a multiply (warpgroup 1's rows of A): a descriptor
 * with no swizzle and no stride, every row but the first read wrong. */
static LLVMValueRef desc_pack(LwFn *f, LLVMValueRef lo, uint32_t hi) {
    LLVMValueRef args[2] = {lo, lw_i32(f->c, (int64_t)hi)};
    return lw_asm(f->c, f->c->i64, "mov.b64 $0, {$1, $2};", "=l,r,r", args, 2, LW_ASM_NONE);
}

/* Byte offset of element (r, col) of buffer s, >> 4. */
static uint64_t desc_off(const LySmem *s, int32_t r, int32_t col) {
    uint32_t packed = (uint32_t)r << ly_log2(s->shape[1]) | (uint32_t)col;
    return (uint64_t)ly_smem_offset(s, packed) * (uint64_t)s->esize >> 4;
}

/* wgmma's name for operands of kind k. */
static const char *wgmma_type(ScalarKind k) {
    switch (k) {
    case SK_BF16: return "bf16";
    case SK_F32: return "tf32";
    case SK_F8E4M3: return "e4m3";
    case SK_F8E5M2: return "e5m2";
    default: return "f16";
    }
}

/* One wgmma.mma_async m64n<ni>k<K> with f32 accumulators d[0 .. ni/2):
 * A (kind ek) through descriptor da (ra NULL; ta its transpose flag) or
 * from the four 32-bit registers ra (the mma.sync A fragment's a0..a3 of
 * each warp's 16 rows), B (kind eb: another f8 kind than A's, or ek)
 * through descriptor db. Kinds read K-major only (tf32, f8) take no
 * transpose immediates. */
static void wgmma_issue(LwFn *f, ScalarKind ek, ScalarKind eb, int ni, LLVMValueRef da,
                        LLVMValueRef *ra, LLVMValueRef db, int ta, int tb,
                        LLVMValueRef *d) {
    int n = ni / 2, na = ra ? 4 : 1;
    char *text = ar_alloc(f->c->ar, (size_t)n * 8 + 256), *w = text;
    w += sprintf(w, "{\n.reg .pred p;\nsetp.ne.b32 p, $%d, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n%dk%d.f32.%s.%s {", n + na + 1, ni,
                 ly_wgmma_k(ek), wgmma_type(ek), wgmma_type(eb));
    for (int i = 0; i < n; i++) w += sprintf(w, "%s$%d", i ? ", " : "", i);
    if (ra && ly_wgmma_kmajor_only(ek))
        sprintf(w, "}, {$%d, $%d, $%d, $%d}, $%d, p, 1, 1;\n}", n, n + 1, n + 2, n + 3, n + 4);
    else if (ra)
        sprintf(w, "}, {$%d, $%d, $%d, $%d}, $%d, p, 1, 1, %d;\n}", n, n + 1, n + 2, n + 3,
                n + 4, tb);
    else if (ly_wgmma_kmajor_only(ek))
        sprintf(w, "}, $%d, $%d, p, 1, 1;\n}", n, n + 1);
    else
        sprintf(w, "}, $%d, $%d, p, 1, 1, %d, %d;\n}", n, n + 1, ta, tb);
    LLVMValueRef extra[6];
    for (int i = 0; i < na; i++) extra[i] = ra ? ra[i] : da;
    extra[na] = db;
    extra[na + 1] = lw_i32(f->c, 1);
    tied_asm(f, text, d, n, extra, ra ? "r,r,r,r,l,r" : "l,l,r", na + 2);
}

/* A's four 32-bit registers for the m64 block at (m0, k0) of the product
 * (A in registers: its dot-operand layout, whose groups are mma.sync's
 * a0..a3, are wgmma's A fragment with warp w of the warpgroup on rows
 * 16w..16w+15), or 0 (reported) when they are missing. */
static int wgmma_a_regs(LwFn *f, const IrOp *op, int32_t m0, int32_t k0, LLVMValueRef ra[4]) {
    const Layout *al = op->args[0]->layout;
    ScalarKind ek = (ScalarKind)op->args[0]->ty.k;
    int kw = 32 / ty_bits(ek);
    LwVal *a = lw_val(f, op->args[0]);
    int ga = find_group(al, 4 * kw, m0, k0);
    if (ga < 0 || !a->r || !a->r[ga]) {
        lw_error(f, op->loc, "internal error: no A registers for wgmma at (%d, %d)", m0, k0);
        return 0;
    }
    /* Each register through an identity prmt, kept where it is (a
     * sideeffect asm: not hoisted out of the loop; ptxas folds a `mov`):
     * given a loop-invariant A (attention's Q, read by ldmatrix before
     * the loop) straight, ptxas 13.0 reused its registers inside the
     * loop after the wgmma that read them, so the next iteration's
     * product read other values (run 23: attention D=64 wrong in the
     * aligned variant); a copy made in the iteration keeps the original
     * live across the loop. */
    for (int j = 0; j < 4; j++) {
        LLVMValueRef x = LLVMBuildBitCast(f->c->b, pack32(f, ek, a->r + ga + j * kw, kw),
                                          f->c->i32, "");
        ra[j] = lw_asm(f->c, f->c->i32, "prmt.b32 $0, $1, 0, 0x3210;", "=r,r", &x, 1,
                       LW_ASM_WRITES);
    }
    return 1;
}

/* Registers q .. q+ni/2-1 of accumulator layout cl hold, in wgmma's
 * order, the m64n<ni> tile at constant origin (m0, n0): register i at
 * (m0 + 8 * (i/2 % 2), n0 + i % 2 + 8 * (i / 4)). */
static int wgmma_regs(const Layout *cl, int q, int ni, int32_t m0, int32_t n0) {
    for (int i = 0; i < ni / 2; i++) {
        int32_t co[2];
        reg_coord(cl, q + i, co);
        if (co[0] != m0 + 8 * (i / 2 % 2) || co[1] != n0 + i % 2 + 8 * (i / 4)) return 0;
    }
    return 1;
}

/* The product as warpgroup MMA: warpgroup g (warps 4g..4g+3) computes
 * rows 64g .. 64g+63 of every 16·warps rows of the tile (M repeats mr),
 * in N chunks of up to 256 columns, K in steps of 32 bytes (16 f16 or
 * bf16, 8 tf32, 32 f8), each instruction reading B through a descriptor
 * of buffer s[1] at base[1] and A the same way or, where s[0] is NULL,
 * from registers (wgmma_a_regs); then one commit. *out: a copy of acc
 * that the group writes, in flight until a wait (lw_wgmma_wait). 0 when
 * an error was reported. */
int lw_wgmma_product(LwFn *f, const IrOp *op, LLVMValueRef base[2], const LySmem *s[2],
                     LwVal acc, LwVal *out) {
    LwCtx *c = f->c;
    const Layout *cl = op->res[0]->layout;
    ScalarKind ek = (ScalarKind)op->args[0]->ty.k, eb = (ScalarKind)op->args[1]->ty.k;
    int32_t M = cl->shape[0], N = cl->shape[1], K = op->args[0]->ty.dim[1];
    int32_t rows = 16 * cl->mma_warps[0], ni = N < 256 ? N : 256, kstep = ly_wgmma_k(ek);
    int ka = s[0] && s[0]->fast == 1, kb = s[1]->fast == 0;
    if (ly_wgmma_kmajor_only(ek) && ((s[0] && !ka) || !kb)) {
        lw_error(f, op->loc, "internal error: a %s operand of wgmma not K-major",
                 ty_kind_name(ek));
        return 0;
    }
    *out = lw_new_val(f, acc.n);
    memcpy(out->r, acc.r, sizeof(LLVMValueRef) * (size_t)acc.n);
    LLVMValueRef da = s[0] ? desc_low(f, base[0], s[0], ka) : NULL;
    LLVMValueRef db = desc_low(f, base[1], s[1], kb);
    uint32_t ha = s[0] ? desc_high(s[0]) : 0, hb = desc_high(s[1]);
    if (s[0] && cl->mma_warps[0] > 4) {   /* warpgroup g's rows start at 64g */
        LLVMValueRef g = LLVMBuildLShr(c->b, f->warp, lw_i32(c, 2), "");
        LLVMValueRef step = lw_i32(c, (int64_t)desc_off(s[0], 64, 0));
        da = LLVMBuildAdd(c->b, da, LLVMBuildMul(c->b, g, step, ""), "");
    }
    /* A in registers: its 32-bit operands built before the fence, which
     * orders every register write before the wgmma that reads it */
    int nm = M / rows;
    LLVMValueRef *regs = NULL;
    if (!s[0]) {
        regs = ar_alloc(c->ar, sizeof(LLVMValueRef) * 4 * (size_t)(K / kstep * nm));
        for (int32_t k0 = 0; k0 < K; k0 += kstep)
            for (int32_t m0 = 0; m0 < M; m0 += rows)
                if (!wgmma_a_regs(f, op, m0, k0, regs + 4 * (k0 / kstep * nm + m0 / rows)))
                    return 0;
    }
    lw_call_intr(c, "llvm.nvvm.wgmma.fence.sync.aligned", NULL, 0, NULL, 0);
    for (int32_t k0 = 0; k0 < K; k0 += kstep)
        for (int32_t m0 = 0; m0 < M; m0 += rows)
            for (int32_t n0 = 0; n0 < N; n0 += ni) {
                int q = find_group(cl, 1, m0, n0);
                if (q < 0 || q + ni / 2 > out->n || !wgmma_regs(cl, q, ni, m0, n0)) {
                    lw_error(f, op->loc, "internal error: the accumulator's registers "
                             "at (%d, %d) are not in wgmma's order", m0, n0);
                    return 0;
                }
                LLVMValueRef a = NULL, *rap = NULL;
                if (s[0])
                    a = desc_pack(f, LLVMBuildAdd(c->b, da, lw_i32(c, (int64_t)desc_off(s[0], m0, k0)), ""), ha);
                else
                    rap = regs + 4 * (k0 / kstep * nm + m0 / rows);
                LLVMValueRef b = desc_pack(f, LLVMBuildAdd(c->b, db, lw_i32(c, (int64_t)desc_off(s[1], k0, n0)), ""), hb);
                wgmma_issue(f, ek, eb, ni, a, rap, b, !ka, !kb, out->r + q);
            }
    lw_call_intr(c, "llvm.nvvm.wgmma.commit_group.sync.aligned", NULL, 0, NULL, 0);
    return 1;
}

/* A product of a pipelined loop as warpgroup MMA, its operands where the
 * loop's plan puts them (lw_pipe_wgmma), then a wait that leaves this
 * group in flight when the loop allows (`pending`) or none; or, for the
 * product the plan issues one iteration ahead, the group issued then
 * (lw_pipe_early). */
static int lw_dot_wgmma(LwFn *f, const IrOp *op) {
    LLVMValueRef base[2];
    const LySmem *s[2];
    int pending;
    if (!lw_pipe_wgmma(f, op, base, s, &pending)) return 0;
    if (lw_pipe_early(f, op)) return 1;
    LwVal acc = *lw_val(f, op->args[2]), out;
    if (!s[0]) lw_pipe_reg_a(f, op, &acc);
    lw_pipe_turn(f, op, 0);
    if (!lw_wgmma_product(f, op, base, s, acc, &out)) return 1;
    lw_pipe_turn(f, op, 1);
    lw_pipe_prepare_copy(f, op);
    lw_set(f, op->res[0], lw_wgmma_wait(f, out, pending));
    lw_pipe_late_copy(f, op);
    return 1;
}

/* Register of `l` whose constant coordinate is (c0, c1), by a table over
 * the tile's packed coordinates. */
static int *reg_table(LwFn *f, const Layout *l) {
    int64_t numel = (int64_t)l->shape[0] * l->shape[1];
    int *t = ar_alloc(f->c->ar, sizeof(int) * (size_t)numel);
    for (int64_t i = 0; i < numel; i++) t[i] = -1;
    for (int r = 0; r < ly_size(l, LY_REG); r++) {
        uint32_t p = ly_apply(l, (LyIndex){(uint32_t)r, 0, 0});
        if (t[p] < 0) t[p] = r;
    }
    return t;
}

static void lw_dot_fma(LwFn *f, const IrOp *op) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    const Layout *cl = op->res[0]->layout, *al = op->args[0]->layout,
                 *bl = op->args[1]->layout;
    ScalarKind ek = (ScalarKind)op->args[0]->ty.k;
    int K = op->args[0]->ty.dim[1];
    int *at = reg_table(f, al), *bt = reg_table(f, bl);
    LwVal *a = lw_val(f, op->args[0]), *bv = lw_val(f, op->args[1]);
    LwVal acc = *lw_val(f, op->args[2]);
    LwVal out = lw_new_val(f, acc.n);
    LLVMTypeRef f32 = c->f32;
    for (int r = 0; r < acc.n; r++) {
        int32_t co[2];
        reg_coord(cl, r, co);
        LLVMValueRef v = acc.r[r];
        for (int32_t k = 0; k < K; k++) {
            /* packed coordinates are of the padded shapes (ir.h, ty_pad) */
            int ra = at[co[0] * al->shape[1] + k], rb = bt[k * bl->shape[1] + co[1]];
            if (ra < 0 || rb < 0) {
                lw_error(f, op->loc, "internal error: FMA operand register "
                         "missing at (%d, %d), k %d", co[0], co[1], k);
                lw_set(f, op->res[0], acc);   /* a value for the uses left */
                return;
            }
            if (ek == SK_I8) {
                LLVMValueRef x = LLVMBuildSExt(b, a->r[ra], c->i32, "");
                LLVMValueRef y = LLVMBuildSExt(b, bv->r[rb], c->i32, "");
                v = LLVMBuildAdd(b, v, LLVMBuildMul(b, x, y, ""), "");
            } else {
                LLVMValueRef args[3] = {a->r[ra], bv->r[rb], v};
                v = lw_call_intr(c, "llvm.fma", &f32, 1, args, 3);
            }
        }
        out.r[r] = v;
    }
    lw_set(f, op->res[0], out);
}

int lw_dot(LwFn *f, const IrOp *op) {
    if (op->op != IR_DOT) return 0;
    const Layout *cl = op->res[0]->layout;
    if (cl && cl->kind == LY_MMA && cl->wgmma && lw_dot_wgmma(f, op)) return 1;
    if (ty_isf8((ScalarKind)op->args[0]->ty.k))   /* widen_f8.c kept them for wgmma */
        lw_error(f, op->loc, "internal error: a product of f8 operands not on wgmma "
                 "(its loop's rings were not planned)");
    else if (cl && cl->kind == LY_MMA)
        lw_dot_mma(f, op);
    else
        lw_dot_fma(f, op);
    return 1;
}
