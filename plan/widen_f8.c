/*
 * widen_f8.c — products of FP8 operands that wgmma does not take run as
 * f16 products.
 *
 * On sm_90a, wgmma multiplies f8e4m3 and f8e5m2 operands (mixed too) at
 * K = 32 into f32 accumulators, reading both operands K-major from
 * shared memory: a product that fits wgmma so (layout_assign.c's
 * f8_misfit, the same checks as for tf32) keeps its f8 operands, and its
 * loop copies them into rings byte for byte.
 *
 * Every other product of f8 operands (another target, an operand loaded
 * along M or N, A not loaded in the loop, ...) is rewritten here: each f8
 * operand converted to f16 right before the dot. Every f8e4m3 and f8e5m2
 * value is exactly an f16 value (their exponent ranges and mantissas fit
 * inside f16's), and the product of two of them is exact in f32, so the
 * f16 tensor cores (m16n8k16 or wgmma k16, f32 accumulators) compute
 * what the interpreter computes: the f32 sum of exact products. The
 * conversion is the ordinary `as f16` (lower/elementwise.c:
 * cvt.rn.f16x2.e4m3x2 / .e5m2x2 from sm_89, integer arithmetic on
 * sm_80/86). With it between the load and the product, the load is no
 * operand: it is neither copied ahead by cp.async nor read by wgmma. The
 * reason the product did not fit goes in the dot's iattr[2], for
 * `--stats` (ly_mma_reason).
 *
 * The rewrite runs on the per-variant copy at the start of layout
 * assignment, after fold_trans.c; the IR sema built (what the interpreter
 * runs) keeps its f8 products.
 */
#include "plan/layout.h"

/* A cast of f8 tile v to f16, linked right before `at`. */
static IrValue *to_f16(Arena *ar, IrKernel *k, IrValue *v, IrOp *at) {
    Type t = v->ty;
    t.k = SK_F16;
    IrOp *op = ir_detached(ar, k, IR_CAST, t, 1, &v, at->loc);
    ir_insert_after(op, at->parent, at->prev);
    return op->res[0];
}

typedef struct Widen {
    Arena *ar;
    IrKernel *k;
    int (*misfit)(void *, const IrOp *);
    void *cx;
} Widen;

static int widen_block(const Widen *w, IrBlock *b) {
    int n = 0;
    for (IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++) n += widen_block(w, op->regions[r]);
        if (op->op != IR_DOT || !ty_isf8((ScalarKind)op->args[0]->ty.k)) continue;
        int why = w->misfit(w->cx, op);
        if (!why) continue;   /* wgmma takes the f8 operands */
        op->iattr[2] = why;
        for (int i = 0; i < 2; i++) {
            op->args[i] = to_f16(w->ar, w->k, op->args[i], op);
            n++;
        }
    }
    return n;
}

int ly_widen_f8(Arena *ar, IrKernel *k, int (*misfit)(void *, const IrOp *), void *cx) {
    Widen w = {ar, k, misfit, cx};
    return widen_block(&w, k->body);
}
