/*
 * sort.c — sort along an axis (topk is a sort's first k): Batcher's
 * bitonic network over the axis, log n (log n + 1) / 2 compare-exchange
 * stages for an axis of n. In stage (k, j) element i meets element
 * i ^ j and keeps the smaller of the two where it is the lower one
 * ((i & j) == 0) of a pair in an ascending run ((i & k) == 0; reversed
 * for a descending sort), else the larger. Where the partner lives
 * follows from the layout's basis: when a register bit walks exactly the
 * axis bit of j, another register of the same thread; when a lane bit
 * does, a butterfly shuffle; otherwise (warps, or copies) through the
 * scratch: a barrier, every value written at its packed coordinate, a
 * barrier, each register reading its partner's. Every element of a pair
 * computes the same comparison, so both agree on the exchange.
 *
 * The order is the interpreter's: floats with NaN after every number
 * (first when descending), integers signed or not by type; equal
 * elements (+0 and -0 too) come in any order.
 *
 * Along a padded axis (ir.h, ty_pad) the padding enters the network as
 * the value that sorts last: NaN ascending (after every number; a real
 * NaN ties with it, and either is NaN), -inf descending (after every
 * number, the NaNs being first), the type's extreme for integers; so
 * the first n positions hold exactly the n real elements in order.
 */
#include "lower/lw.h"

#include <math.h>

/* The padding's value: last in the order. */
static LLVMValueRef lw_sort_last(LwCtx *c, ScalarKind k, int desc) {
    if (ty_isfloat(k)) return LLVMConstReal(lw_type(c, k), desc ? -INFINITY : NAN);
    return lw_int_limit(c, k, !desc);
}

/* a before b in the ascending order. */
static LLVMValueRef lw_sort_less(LwFn *f, ScalarKind k, LLVMValueRef a, LLVMValueRef b) {
    LLVMBuilderRef bd = f->c->b;
    if (!ty_isfloat(k))
        return LLVMBuildICmp(bd, ty_issigned(k) ? LLVMIntSLT : LLVMIntULT, a, b, "");
    LLVMValueRef nan_b = LLVMBuildAnd(bd, LLVMBuildFCmp(bd, LLVMRealUNO, b, b, ""),
                                      LLVMBuildFCmp(bd, LLVMRealORD, a, a, ""), "");
    return LLVMBuildOr(bd, LLVMBuildFCmp(bd, LLVMRealOLT, a, b, ""), nan_b, "");
}

/* The input dimension and bit of l whose basis vector is exactly packed
 * coordinate bit y; 0 when none (a warp, or several hardware bits). */
static int lw_sort_owner(const Layout *l, uint32_t y, int *bit) {
    for (int d = LY_REG; d <= LY_LANE; d++)
        for (int i = 0; i < l->nbits[d]; i++)
            if (l->basis[d][i] == y) {
                *bit = i;
                return d == LY_REG ? 1 : 2;
            }
    return 0;
}

/* The axis bit `y` needs the scratch. */
static int lw_sort_via_smem(const Layout *l, uint32_t y) {
    int bit;
    return !lw_sort_owner(l, y, &bit);
}

/* Offset of axis a's bits in a packed coordinate of l's shape. */
static int lw_sort_off(const Layout *l, int a) {
    int off = 0;
    for (int d = l->rank - 1; d > a; d--) off += ly_log2(l->shape[d]);
    return off;
}

int64_t lw_sort_scratch(const IrOp *op) {
    const IrValue *x = op->args[0], *res = op->res[0];
    const Layout *D = res->layout;
    int a = (int)op->iattr[0], off = lw_sort_off(D, a), smem = 0;
    for (int j = 0; j < ly_log2(D->shape[a]); j++) smem |= lw_sort_via_smem(D, 1u << (off + j));
    int64_t m = lw_in_layout_scratch(x, D);
    int64_t s = smem ? lw_smem_elems_bytes(ty_numel(ty_pad(res->ty)), (ScalarKind)res->ty.k) : 0;
    return m > s ? m : s;
}

/* The partners of v's registers (layout D) across packed coordinate bit
 * y: registers, shuffles, or the scratch. */
static LwVal lw_sort_partner(LwFn *f, const IrValue *res, LwVal v, uint32_t y) {
    const Layout *D = res->layout;
    ScalarKind k = (ScalarKind)res->ty.k;
    LwVal p = lw_new_val(f, v.n);
    int bit = 0, how = lw_sort_owner(D, y, &bit);
    if (!how) {
        lw_smem(f, lw_smem_elems_bytes(ty_numel(ty_pad(res->ty)), k));
        lw_scratch_barrier(f);
        lw_smem_put(f, v, k, D, 0);
        lw_barrier(f);
    }
    for (int r = 0; r < v.n; r++)
        p.r[r] = how == 1 ? v.r[r ^ (1 << bit)]
                 : how == 2 ? lw_shfl_xor(f, v.r[r], 1 << bit)
                 : lw_smem_get(f, k, LLVMBuildXor(f->c->b, lw_packed_coord(f, D, r),
                                                  lw_i32(f->c, y), ""));
    return p;
}

/* Register r's value after stage (kk, j): the smaller or the larger of
 * it and its partner's (ci: its position along the axis). */
static LLVMValueRef lw_sort_step(LwFn *f, ScalarKind k, int desc, LLVMValueRef ci,
                                 int32_t kk, int32_t j, LLVMValueRef v, LLVMValueRef p) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LLVMValueRef zero = lw_i32(c, 0);
    LLVMValueRef lower = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, ci, lw_i32(c, j), ""),
                                       zero, "");
    LLVMValueRef up = LLVMBuildICmp(b, desc ? LLVMIntNE : LLVMIntEQ,
                                    LLVMBuildAnd(b, ci, lw_i32(c, kk), ""), zero, "");
    LLVMValueRef mn = LLVMBuildSelect(b, lw_sort_less(f, k, p, v), p, v, "");
    LLVMValueRef mx = LLVMBuildSelect(b, lw_sort_less(f, k, v, p), p, v, "");
    return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, lower, up, ""), mn, mx, "");
}

void lw_sort(LwFn *f, const IrOp *op) {
    const IrValue *res = op->res[0];
    const Layout *D = res->layout;
    ScalarKind k = (ScalarKind)res->ty.k;
    int a = (int)op->iattr[0], desc = (int)op->iattr[1], off = lw_sort_off(D, a);
    LwVal x = lw_in_layout(f, op->args[0], D), v = lw_new_val(f, x.n);
    LLVMValueRef *ci = ar_alloc(f->c->ar, sizeof(LLVMValueRef) * (size_t)v.n);
    for (int r = 0; r < v.n; r++) {
        ci[r] = lw_coord(f, D, r, a);
        LLVMValueRef real = lw_pad_and(f, res, D, r, NULL);
        v.r[r] = real ? LLVMBuildSelect(f->c->b, real, x.r[r], lw_sort_last(f->c, k, desc), "")
                      : x.r[r];
    }
    for (int32_t kk = 2; kk <= D->shape[a]; kk <<= 1)
        for (int32_t j = kk >> 1; j; j >>= 1) {
            LwVal p = lw_sort_partner(f, res, v, (uint32_t)j << off), nv = lw_new_val(f, v.n);
            for (int r = 0; r < v.n; r++)
                nv.r[r] = lw_sort_step(f, k, desc, ci[r], kk, j, v.r[r], p.r[r]);
            v = nv;
        }
    lw_set(f, res, v);
}
