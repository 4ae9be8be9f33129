/*
 * reduce.c — reductions (sum, max, min, argmax, argmin) and cumsum.
 *
 * A reduction over axis a of a tile in layout S runs in three rounds, the
 * way Triton's ReduceOpToLLVM does, derived here from S's basis vectors:
 *  1. in-thread: the registers whose coordinates differ only along a are
 *     combined (grouped by their coordinate with a removed; copies skipped);
 *  2. across lanes: for each lane bit whose basis vector walks only a, a
 *     butterfly shuffle (shfl.sync.bfly) with that lane mask — afterwards
 *     every lane of the group holds the group's value;
 *  3. across warps: if warp bits walk a, each warp writes its partial per
 *     output element to shared memory, a barrier, and every thread combines
 *     the partials of its output elements in warp order.
 * The result then has the slice layout of S (ly_slice), converted to the
 * result's assigned layout when that differs. Lane or warp bits that walk
 * a and another dimension at once (never produced by blocked or slice
 * layouts) are reported as unsupported.
 *
 * Accumulation follows the interpreter: f16/bf16 sums accumulate in f32
 * and round once; max/min are maxNum/minNum; argmax/argmin carry (value,
 * index) pairs and keep the lower index on ties, a NaN counting as the
 * extreme (the lowest-index NaN wins). Combining is commutative, so both
 * partners of a butterfly compute the same value.
 *
 * cumsum (inclusive, along a) goes through shared memory: every element
 * is written at its coordinate, a barrier, and each thread sums, per
 * register, the elements before it along a (a loop of at most shape[a]
 * loads). That is O(n) work per element — fine for the row lengths where
 * scans appear; a work-efficient scan with shuffles is future work.
 */
#include "lower/lw.h"

#include <string.h>

typedef struct LwPair {
    LLVMValueRef v, i;  /* value; index along the axis (arg*) */
} LwPair;

static int lw_is_arg(int kind) { return kind == RED_ARGMAX || kind == RED_ARGMIN; }

static LwPair lw_combine(LwFn *f, int kind, ScalarKind k, LwPair a, LwPair b) {
    LwCtx *c = f->c;
    LLVMBuilderRef bd = c->b;
    LLVMTypeRef t = LLVMTypeOf(a.v);
    int fl = ty_isfloat(k), sg = ty_issigned(k);
    LLVMValueRef x[2] = {a.v, b.v};
    LwPair r = {NULL, NULL};
    switch (kind) {
    case RED_SUM:
        r.v = fl ? LLVMBuildFAdd(bd, a.v, b.v, "") : LLVMBuildAdd(bd, a.v, b.v, "");
        return r;
    case RED_MAX:
        r.v = lw_call_intr(c, fl ? "llvm.maxnum" : sg ? "llvm.smax" : "llvm.umax",
                           &t, 1, x, 2);
        return r;
    case RED_MIN:
        r.v = lw_call_intr(c, fl ? "llvm.minnum" : sg ? "llvm.smin" : "llvm.umin",
                           &t, 1, x, 2);
        return r;
    default: break;
    }
    int mx = kind == RED_ARGMAX;
    LLVMValueRef lower = LLVMBuildICmp(bd, LLVMIntSLT, b.i, a.i, "");
    LLVMValueRef better, eq, pick;
    if (fl) {
        better = LLVMBuildFCmp(bd, mx ? LLVMRealOGT : LLVMRealOLT, b.v, a.v, "");
        eq = LLVMBuildFCmp(bd, LLVMRealOEQ, b.v, a.v, "");
        LLVMValueRef anan = LLVMBuildFCmp(bd, LLVMRealUNO, a.v, a.v, "");
        LLVMValueRef bnan = LLVMBuildFCmp(bd, LLVMRealUNO, b.v, b.v, "");
        LLVMValueRef num = LLVMBuildOr(bd, LLVMBuildOr(bd, bnan, better, ""),
                                       LLVMBuildAnd(bd, eq, lower, ""), "");
        pick = LLVMBuildSelect(bd, anan, LLVMBuildAnd(bd, bnan, lower, ""), num, "");
    } else {
        better = LLVMBuildICmp(bd, mx ? (sg ? LLVMIntSGT : LLVMIntUGT)
                                       : (sg ? LLVMIntSLT : LLVMIntULT),
                               b.v, a.v, "");
        eq = LLVMBuildICmp(bd, LLVMIntEQ, b.v, a.v, "");
        pick = LLVMBuildOr(bd, better, LLVMBuildAnd(bd, eq, lower, ""), "");
    }
    r.v = LLVMBuildSelect(bd, pick, b.v, a.v, "");
    r.i = LLVMBuildSelect(bd, pick, b.i, a.i, "");
    return r;
}

/* ------------------------------------------------------------- shuffles */

static LLVMValueRef lw_shfl32(LwFn *f, LLVMValueRef v, int mask, int fl) {
    LwCtx *c = f->c;
    LLVMValueRef a[4] = {LLVMConstInt(c->i32, 0xffffffffu, 0), v,
                         lw_i32(c, mask), lw_i32(c, 0x1f)};
    return lw_call_intr(c, fl ? "llvm.nvvm.shfl.sync.bfly.f32"
                              : "llvm.nvvm.shfl.sync.bfly.i32",
                        NULL, 0, a, 4);
}

LLVMValueRef lw_shfl_xor(LwFn *f, LLVMValueRef v, int mask) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = LLVMTypeOf(v);
    if (t == c->f32) return lw_shfl32(f, v, mask, 1);
    if (t == c->i32) return lw_shfl32(f, v, mask, 0);
    unsigned bits = t == c->f16 || t == c->bf16 ? 16
                    : t == c->f64               ? 64
                                                : LLVMGetIntTypeWidth(t);
    LLVMTypeRef it = LLVMIntTypeInContext(c->ctx, bits);
    LLVMValueRef x = t == it ? v : LLVMBuildBitCast(b, v, it, "");
    LLVMValueRef r;
    if (bits == 64) {
        LLVMValueRef lo = LLVMBuildTrunc(b, x, c->i32, "");
        LLVMValueRef hi = LLVMBuildTrunc(b, LLVMBuildLShr(b, x, LLVMConstInt(c->i64, 32, 0), ""), c->i32, "");
        lo = LLVMBuildZExt(b, lw_shfl32(f, lo, mask, 0), c->i64, "");
        hi = LLVMBuildZExt(b, lw_shfl32(f, hi, mask, 0), c->i64, "");
        r = LLVMBuildOr(b, lo, LLVMBuildShl(b, hi, LLVMConstInt(c->i64, 32, 0), ""), "");
    } else {
        r = LLVMBuildTrunc(b, lw_shfl32(f, LLVMBuildZExt(b, x, c->i32, ""), mask, 0), it, "");
    }
    return t == it ? r : LLVMBuildBitCast(b, r, t, "");
}

/* ------------------------------------------------------------ reduction */

/* Packed-coordinate bits of dimension a of `shape`, and the projection
 * that removes them. */
static uint32_t lw_axis_bits(const Layout *l, int a, int *off, int *n) {
    *off = 0;
    for (int d = l->rank - 1; d > a; d--) *off += ly_log2(l->shape[d]);
    *n = ly_log2(l->shape[a]);
    return ((1u << *n) - 1) << *off;
}

static uint32_t lw_drop(uint32_t y, int off, int n) {
    return (y & ((1u << off) - 1)) | ((y >> (off + n)) << off);
}

static LLVMValueRef lw_drop_rt(LwFn *f, LLVMValueRef y, int off, int n) {
    LLVMBuilderRef b = f->c->b;
    LLVMValueRef low = LLVMBuildAnd(b, y, lw_i32(f->c, (int64_t)((1u << off) - 1)), "");
    LLVMValueRef high = LLVMBuildShl(
        b, LLVMBuildLShr(b, y, lw_i32(f->c, off + n), ""), lw_i32(f->c, off), "");
    return LLVMBuildOr(b, low, high, "");
}

static uint32_t lw_rpart(const Layout *l, int r) {
    uint32_t y = 0;
    for (int i = 0; i < l->nbits[LY_REG]; i++)
        if (r >> i & 1) y ^= l->basis[LY_REG][i];
    return y;
}

int lw_reduce(LwFn *f, const IrOp *op) {
    if (op->op != IR_REDUCE) return 0;
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    const IrValue *x = op->args[0], *res = op->res[0];
    const Layout *S = x->layout;
    int kind = (int)op->iattr[0], a = (int)op->iattr[1];
    int arg = lw_is_arg(kind);
    ScalarKind k = (ScalarKind)x->ty.k;
    ScalarKind ak = kind == RED_SUM && (k == SK_F16 || k == SK_BF16) ? SK_F32 : k;
    LwVal in = *lw_val(f, x);
    if (!S) {   /* a scalar operand reduces to itself */
        LwVal out = lw_new_val(f, 1);
        out.r[0] = arg ? lw_i32(c, 0) : in.r[0];
        lw_set(f, res, out);
        return 1;
    }
    int off, na;
    uint32_t A = lw_axis_bits(S, a, &off, &na);

    /* 1. in-thread groups */
    int ng = 0;
    uint32_t *key = ar_alloc(c->ar, sizeof(uint32_t) * (size_t)in.n);
    int *first = ar_alloc(c->ar, sizeof(int) * (size_t)in.n);
    LwPair *g = ar_alloc(c->ar, sizeof(LwPair) * (size_t)in.n);
    uint32_t copies = 0;
    for (int i = 0; i < S->nbits[LY_REG]; i++)
        if (!S->basis[LY_REG][i]) copies |= 1u << i;
    for (int r = 0; r < in.n; r++) {
        if ((uint32_t)r & copies) continue;
        uint32_t kk = lw_drop(lw_rpart(S, r), off, na);
        LwPair p = {lw_cast_scalar(f, in.r[r], k, ak),
                    arg ? lw_coord(f, S, r, a) : NULL};
        int j = 0;
        while (j < ng && key[j] != kk) j++;
        if (j == ng) {
            key[ng] = kk;
            first[ng] = r;
            g[ng++] = p;
        } else {
            g[j] = lw_combine(f, kind, ak, g[j], p);
        }
    }
    /* 2. lanes */
    for (int i = 0; i < S->nbits[LY_LANE]; i++) {
        uint32_t bv = S->basis[LY_LANE][i];
        if (!bv || !(bv & A)) continue;
        if (bv & ~A) {
            lw_error(f, op->loc, "unsupported layout for a reduction (lanes "
                     "walk two dimensions)");
            return 1;
        }
        for (int j = 0; j < ng; j++) {
            LwPair o = {lw_shfl_xor(f, g[j].v, 1 << i),
                        arg ? lw_shfl_xor(f, g[j].i, 1 << i) : NULL};
            g[j] = lw_combine(f, kind, ak, g[j], o);
        }
    }
    /* 3. warps */
    uint32_t W = 0;
    int nwb = 0;
    for (int i = 0; i < S->nbits[LY_WARP]; i++) {
        uint32_t bv = S->basis[LY_WARP][i];
        if (!bv || !(bv & A)) continue;
        if (bv & ~A) {
            lw_error(f, op->loc, "unsupported layout for a reduction (warps "
                     "walk two dimensions)");
            return 1;
        }
        W |= 1u << i;
        nwb++;
    }
    if (W) {
        int64_t nkeys = 1;
        for (int d = 0; d < S->rank; d++)
            if (d != a) nkeys *= S->shape[d];
        int nw = 1 << nwb;
        LLVMTypeRef vt = lw_type(c, ak);
        int64_t vbytes = nw * nkeys * ty_bytes(ak);
        vbytes = (vbytes + 15) & ~(int64_t)15;
        lw_smem(f, vbytes + (arg ? nw * nkeys * 4 : 0));
        LLVMValueRef ibase = LLVMBuildGEP2(b, c->i8, f->smem,
                                           (LLVMValueRef[]){lw_i32(c, vbytes)}, 1, "");
        /* this warp's rank along the axis */
        LLVMValueRef wa = lw_i32(c, 0);
        for (int i = 0, j = 0; i < S->nbits[LY_WARP]; i++) {
            if (!(W >> i & 1)) continue;
            LLVMValueRef bit = LLVMBuildAnd(b, LLVMBuildLShr(b, f->warp, lw_i32(c, i), ""),
                                            lw_i32(c, 1), "");
            wa = LLVMBuildOr(b, wa, LLVMBuildShl(b, bit, lw_i32(c, j++), ""), "");
        }
        LLVMValueRef *krt = ar_alloc(c->ar, sizeof(LLVMValueRef) * (size_t)ng);
        lw_barrier(f);
        for (int j = 0; j < ng; j++) {
            krt[j] = lw_drop_rt(f, lw_packed_coord(f, S, first[j]), off, na);
            LLVMValueRef at = LLVMBuildAdd(b, LLVMBuildMul(b, wa, lw_i32(c, nkeys), ""),
                                           krt[j], "");
            LLVMBuildStore(b, g[j].v, LLVMBuildGEP2(b, vt, f->smem, &at, 1, ""));
            if (arg)
                LLVMBuildStore(b, g[j].i, LLVMBuildGEP2(b, c->i32, ibase, &at, 1, ""));
        }
        lw_barrier(f);
        for (int j = 0; j < ng; j++) {
            LwPair acc = {NULL, NULL};
            for (int w = 0; w < nw; w++) {
                LLVMValueRef at = LLVMBuildAdd(b, lw_i32(c, w * nkeys), krt[j], "");
                LwPair p = {LLVMBuildLoad2(b, vt, LLVMBuildGEP2(b, vt, f->smem, &at, 1, ""), ""),
                            arg ? LLVMBuildLoad2(b, c->i32,
                                                 LLVMBuildGEP2(b, c->i32, ibase, &at, 1, ""), "")
                                : NULL};
                acc = w ? lw_combine(f, kind, ak, acc, p) : p;
            }
            g[j] = acc;
        }
    }
    /* the result, in the slice layout of S, then in res's layout */
    ScalarKind rk = (ScalarKind)res->ty.k;
    for (int j = 0; j < ng; j++)
        g[j].v = arg ? g[j].i : lw_cast_scalar(f, g[j].v, ak, rk);
    if (!res->layout || S->rank == 1) {
        LwVal out = lw_new_val(f, 1);
        out.r[0] = g[0].v;
        if (res->layout) out = lw_remap(f, out, rk, NULL, res->layout, NULL);
        lw_set(f, res, out);
        return 1;
    }
    const Layout *N = ly_slice(c->ar, S, a);
    LwVal out = lw_new_val(f, ly_size(N, LY_REG));
    for (int r = 0; r < out.n; r++) {
        uint32_t kk = lw_rpart(N, r);
        int j = 0;
        while (j < ng && key[j] != kk) j++;
        if (j == ng) {
            lw_error(f, op->loc, "internal error: reduction result register "
                     "without a group");
            return 1;
        }
        out.r[r] = g[j].v;
    }
    if (!ly_eq(N, res->layout)) out = lw_remap(f, out, rk, N, res->layout, NULL);
    lw_set(f, res, out);
    return 1;
}

/* ----------------------------------------------------------------- scan */

int lw_scan(LwFn *f, const IrOp *op) {
    if (op->op != IR_SCAN) return 0;
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    const IrValue *x = op->args[0], *res = op->res[0];
    const Layout *D = res->layout;
    ScalarKind k = (ScalarKind)res->ty.k;
    ScalarKind ak = k == SK_F16 || k == SK_BF16 ? SK_F32 : k;
    int fl = ty_isfloat(ak);
    LwVal in = lw_in_layout(f, x, D);
    int a = (int)op->iattr[0], off, na;
    if (!D) {   /* a scalar is its own prefix sum */
        lw_set(f, res, in);
        return 1;
    }
    uint32_t A = lw_axis_bits(D, a, &off, &na);
    int64_t numel = 1;
    for (int d = 0; d < D->rank; d++) numel *= D->shape[d];
    LLVMTypeRef t = lw_type(c, ak);
    lw_smem(f, numel * ty_bytes(ak));
    lw_barrier(f);
    uint32_t copies = 0;
    for (int i = 0; i < D->nbits[LY_REG]; i++)
        if (!D->basis[LY_REG][i]) copies |= 1u << i;
    for (int r = 0; r < in.n; r++) {
        if ((uint32_t)r & copies) continue;
        LLVMValueRef at = lw_packed_coord(f, D, r);
        LLVMBuildStore(b, lw_cast_scalar(f, in.r[r], k, ak),
                       LLVMBuildGEP2(b, t, f->smem, &at, 1, ""));
    }
    lw_barrier(f);
    LwVal out = lw_new_val(f, in.n);
    for (int r = 0; r < in.n; r++) {
        LLVMValueRef y = lw_packed_coord(f, D, r);
        LLVMValueRef base = LLVMBuildAnd(b, y, lw_i32(c, ~(int64_t)A & 0xffffffff), "");
        LLVMValueRef last = LLVMBuildAnd(b, LLVMBuildLShr(b, y, lw_i32(c, off), ""),
                                         lw_i32(c, (1 << na) - 1), "");
        LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
        LLVMBasicBlockRef loop = lw_new_bb(f, "scan.loop"), done = lw_new_bb(f, "scan.done");
        LLVMBuildBr(b, loop);
        LLVMPositionBuilderAtEnd(b, loop);
        LLVMValueRef j = LLVMBuildPhi(b, c->i32, ""), s = LLVMBuildPhi(b, t, "");
        LLVMValueRef j0 = lw_i32(c, 0), s0 = LLVMConstNull(t);
        LLVMAddIncoming(j, &j0, &pre, 1);
        LLVMAddIncoming(s, &s0, &pre, 1);
        LLVMValueRef at = LLVMBuildOr(b, base, LLVMBuildShl(b, j, lw_i32(c, off), ""), "");
        LLVMValueRef e = LLVMBuildLoad2(b, t, LLVMBuildGEP2(b, t, f->smem, &at, 1, ""), "");
        LLVMValueRef s2 = fl ? LLVMBuildFAdd(b, s, e, "") : LLVMBuildAdd(b, s, e, "");
        LLVMValueRef j2 = LLVMBuildAdd(b, j, lw_i32(c, 1), "");
        LLVMBasicBlockRef end = LLVMGetInsertBlock(b);
        LLVMAddIncoming(j, &j2, &end, 1);
        LLVMAddIncoming(s, &s2, &end, 1);
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULE, j2, last, ""), loop, done);
        LLVMPositionBuilderAtEnd(b, done);
        out.r[r] = lw_cast_scalar(f, s2, ak, k);
    }
    lw_set(f, res, out);
    return 1;
}
