/*
 * widen_f8.c — products of FP8 operands run as f16 products.
 *
 * Every f8e4m3 and f8e5m2 value is exactly an f16 value (their exponent
 * ranges and mantissas fit inside f16's), and the product of two of them
 * is exact in f32, so converting each f8 operand of a `dot` to f16 and
 * multiplying in f16 on the tensor cores (m16n8k16 or wgmma k16, f32
 * accumulators) computes what the interpreter computes: the f32 sum, k in
 * order, of exact products. The conversion is the ordinary `as f16`
 * (lower/elementwise.c: cvt.rn.f16x2.e4m3x2 / .e5m2x2 from sm_89,
 * integer arithmetic on sm_80/86).
 *
 * FP8 tensor-core instructions (wgmma .e4m3/.e5m2 at twice f16's rate on
 * sm_90a) are not emitted yet: with the conversion between the load and
 * the product, the load is no operand, so it is neither copied ahead by
 * cp.async nor read by wgmma, and the product runs on mma.sync.
 *
 * The rewrite runs on the per-variant copy at the start of layout
 * assignment, after fold_trans.c; the IR sema built (what the interpreter
 * runs) keeps its f8 products.
 */
#include "plan/layout.h"

/* A cast of f8 tile v to f16, linked right before `at`. */
static IrValue *to_f16(Arena *ar, IrKernel *k, IrBlock *scratch, IrValue *v, IrOp *at) {
    Type t = v->ty;
    t.k = SK_F16;
    IrBuilder b = {ar, k, scratch, at->loc};
    IrOp *op = ir_emit(&b, IR_CAST, 1, &t, 1, &v);
    scratch->first = scratch->last = NULL;
    op->prev = op->next = NULL;
    ir_insert_after(op, at->parent, at->prev);
    return op->res[0];
}

static int widen_block(Arena *ar, IrKernel *k, IrBlock *scratch, IrBlock *b) {
    int n = 0;
    for (IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++) n += widen_block(ar, k, scratch, op->regions[r]);
        if (op->op != IR_DOT) continue;
        for (int i = 0; i < 2; i++)
            if (ty_isf8((ScalarKind)op->args[i]->ty.k)) {
                op->args[i] = to_f16(ar, k, scratch, op->args[i], op);
                n++;
            }
    }
    return n;
}

int ly_widen_f8(Arena *ar, IrKernel *k) {
    IrBuilder b = {ar, k, NULL, k->loc};
    IrBlock *scratch = ir_block(&b, 0, NULL);
    return widen_block(ar, k, scratch, k->body);
}
