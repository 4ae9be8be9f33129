/*
 * dot.c — matrix products: mma.sync on tensor cores, and the exact FMA
 * path.
 *
 * By the time a `dot` is lowered, layout assignment (sema/mma.c) has put
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
 * rounded to tf32 (cvt.rna, as the interpreter rounds); i8 operands are
 * packed four to a register.
 *
 * FMA path (f32 with precision="ieee", i8 with K < 32): the accumulator
 * is blocked and each thread holds, for every accumulator row (column) it
 * owns, the whole K extent of A (B); each accumulator register is a chain
 * of K fused multiply-adds in K order (i32 multiply-adds for i8).
 */
#include "lower/lw.h"

#include <stdint.h>
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
    if (k == SK_F32) {
        LLVMValueRef x = e[0];
        return lw_call_intr(c, "llvm.nvvm.f2tf32.rna", NULL, 0, &x, 1);
    }
    LLVMTypeRef et = lw_type(c, k);
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(et, (unsigned)kw));
    for (int i = 0; i < kw; i++)
        v = LLVMBuildInsertElement(b, v, e[i], lw_i32(c, i), "");
    return k == SK_F16 ? v : LLVMBuildBitCast(b, v, c->i32, "");
}

static const char *mma_name(ScalarKind k) {
    switch (k) {
    case SK_F16: return "llvm.nvvm.mma.m16n8k16.row.col.f32.f32";
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
    LLVMValueRef args[10];
    for (int j = 0; j < 4; j++) args[j] = pack32(f, ek, a->r + ga + j * kw, kw);
    for (int j = 0; j < 2; j++) args[4 + j] = pack32(f, ek, bv->r + gb + j * kw, kw);
    for (int j = 0; j < 4; j++) args[6 + j] = out.r[q + j];
    LLVMValueRef d = lw_call_intr(c, mma_name(ek), NULL, 0, args, 10);
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
            int ra = at[co[0] * K + k], rb = bt[k * cl->shape[1] + co[1]];
            if (ra < 0 || rb < 0) {
                lw_error(f, op->loc, "internal error: FMA operand register "
                         "missing at (%d, %d), k %d", co[0], co[1], k);
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
    if (cl && cl->kind == LY_MMA)
        lw_dot_mma(f, op);
    else
        lw_dot_fma(f, op);
    return 1;
}
