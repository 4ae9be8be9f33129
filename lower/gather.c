/*
 * gather.c — ops that take each element from a position computed per
 * element: slice (an offset along one axis), cat (two sources, the second
 * after the first along the axis; join and interleave are cat's) and
 * gather (the position along the axis read from an index tile).
 *
 * Each goes through the scratch, as lw_remap's general case does: a
 * barrier, every source written at its packed coordinates (cat's second
 * source after the first), a barrier, and each register of the result
 * reads the element its coordinates name — one shared-memory round trip,
 * whatever the layouts, so the result may take any layout. A gather
 * index outside the axis reads the element at index mod the extent (the
 * interpreter reports it as an error). The scratch holds every source
 * element once, padded one in 32 against bank conflicts.
 *
 * Padded tiles (ir.h, ty_pad) sit in the scratch at their padded packed
 * coordinates. Along a padded axis, cat's second source starts at the
 * first's extent (not its padded one), a gather index wraps modulo the
 * extent (unsigned), and a position past the source's padded extent (the
 * result's padding, shifted by a slice's start or cat's second source)
 * wraps inside it: the scratch is never read outside what was written.
 */
#include "lower/lw.h"

/* The packed coordinate, in the (padded) shape of t, of the coordinates co. */
static LLVMValueRef lw_pack(LwFn *f, const Type *t, LLVMValueRef *co) {
    LLVMBuilderRef b = f->c->b;
    LLVMValueRef y = lw_i32(f->c, 0);
    for (int d = t->rank - 1, off = 0; d >= 0; off += ly_log2(t->dim[d]), d--)
        y = LLVMBuildOr(b, y, off ? LLVMBuildShl(b, co[d], lw_i32(f->c, off), "") : co[d], "");
    return y;
}

/* Whether op is a gather by an arange (plan/realign.c's split loads: a
 * rotated one), whose index is computed in the result's layout instead
 * of converted to it. */
static int lw_gather_arange(const IrOp *op) {
    return op->op == IR_GATHER && op->args[1]->def && op->args[1]->def->op == IR_ARANGE;
}

/* Elements of the scratch: every source's, once. */
static int64_t lw_move_elems(const IrOp *op) {
    return ty_numel(ty_pad(op->args[0]->ty)) * (op->op == IR_CAT ? 2 : 1);
}

int64_t lw_move_scratch(const IrOp *op) {
    int64_t m = lw_smem_elems_bytes(lw_move_elems(op), (ScalarKind)op->args[0]->ty.k);
    if (op->op == IR_GATHER && !lw_gather_arange(op)) {
        int64_t x = lw_in_layout_scratch(op->args[1], op->res[0]->layout);
        if (x > m) m = x;
    }
    return m;
}

/* Register r's element: the source coordinates of its own, moved along
 * the axis as op says (idx: a gather's index, in the result's layout). */
static LLVMValueRef lw_move_read(LwFn *f, const IrOp *op, int r, LwVal idx) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    const Type spad = ty_pad(op->args[0]->ty), *st = &spad;
    const IrValue *res = op->res[0];
    int ax = (int)op->iattr[0];
    int32_t n = op->args[0]->ty.dim[ax], np = st->dim[ax];
    int wrap = !is_pow2(n) || ty_padded(res->ty);   /* positions may pass np */
    LLVMValueRef co[IR_MAXRANK], base = lw_i32(c, 0);
    for (int d = 0; d < res->ty.rank; d++) co[d] = lw_coord(f, res->layout, r, d);
    if (op->op == IR_SLICE) co[ax] = LLVMBuildAdd(b, co[ax], lw_i32(c, op->iattr[1]), "");
    if (op->op == IR_CAT && n == np) {
        LLVMValueRef second = LLVMBuildLShr(b, co[ax], lw_i32(c, ly_log2(n)), "");
        base = LLVMBuildMul(b, second, lw_i32(c, ty_numel(*st)), "");
        co[ax] = LLVMBuildAnd(b, co[ax], lw_i32(c, n - 1), "");
    } else if (op->op == IR_CAT) {
        LLVMValueRef second = LLVMBuildICmp(b, LLVMIntUGE, co[ax], lw_i32(c, n), "");
        base = LLVMBuildSelect(b, second, lw_i32(c, ty_numel(*st)), lw_i32(c, 0), "");
        co[ax] = LLVMBuildSub(b, co[ax], LLVMBuildSelect(b, second, lw_i32(c, n),
                                                         lw_i32(c, 0), ""), "");
    }
    if (op->op == IR_GATHER) {
        LLVMValueRef i = lw_cast_scalar(f, idx.r[r], (ScalarKind)op->args[1]->ty.k, SK_I32);
        co[ax] = is_pow2(n) ? LLVMBuildAnd(b, i, lw_i32(c, n - 1), "")
                            : LLVMBuildURem(b, i, lw_i32(c, n), "");
    } else if (wrap) {
        co[ax] = LLVMBuildAnd(b, co[ax], lw_i32(c, np - 1), "");
    }
    LLVMValueRef at = lw_pack(f, st, co);
    return lw_smem_get(f, (ScalarKind)st->k, LLVMBuildAdd(b, base, at, ""));
}

void lw_move(LwFn *f, const IrOp *op) {
    const IrValue *res = op->res[0];
    ScalarKind k = (ScalarKind)op->args[0]->ty.k;
    LwVal idx = {0, NULL};
    if (lw_gather_arange(op))   /* computed in the result's layout */
        idx = lw_arange_in(f, op->args[1]->def, res->layout);
    else if (op->op == IR_GATHER)   /* converted before the scratch is this op's */
        idx = lw_in_layout(f, op->args[1], res->layout);
    lw_smem(f, lw_smem_elems_bytes(lw_move_elems(op), k));
    lw_scratch_barrier(f);
    for (int i = 0; i < (op->op == IR_CAT ? 2 : 1); i++)
        lw_smem_put(f, *lw_val(f, op->args[i]), k, op->args[i]->layout,
                    i * ty_numel(ty_pad(op->args[0]->ty)));
    lw_barrier(f);
    LwVal out = lw_new_val(f, lw_nregs(res));
    for (int r = 0; r < out.n; r++) out.r[r] = lw_move_read(f, op, r, idx);
    lw_set(f, res, out);
}
