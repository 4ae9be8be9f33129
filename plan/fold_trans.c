/*
 * fold_trans.c — a transposed load feeding a product loads the
 * transposed pointer tile instead.
 *
 * `dot(a, trans(load(bt + rn[:, None] * K + rk[None, :])))` is how a
 * product with B stored [N, K] (nn.Linear's weight, the FP8 layout
 * torch._scaled_mm wants) is written. As sema builds it, the product's
 * operand is a permute of the load, so the load is no operand of the
 * product: plan/pipeline.c does not copy it ahead with cp.async (its use
 * is no conversion to an operand) and warpgroup MMA does not take the
 * product (layout_assign.c, B "not loaded in the loop"). Loading the
 * transposed pointers, mask and `other` gives the same tile — element
 * (k, n) of the result is element (n, k) of the old load either way —
 * with the load itself the operand; the axis analysis reads the pointer
 * tile through the permute (its contiguity moves with its dimension), so
 * the load stays a 16-byte access along K, and its ring, its buffer
 * along K and the product's K-major descriptor follow.
 *
 * The rewrite: a 2-D permute read only by products (as an operand, in
 * its block) whose operand is a load read only by it, in the same
 * block. Each tile operand of the load (pointers, a mask, `other`) gets
 * a permute of its own just before the load, the load takes the
 * permuted shape, and the permute's readers read the load. It runs on
 * the per-variant copy at the start of layout assignment, as
 * carry_reduce.c does; the IR sema built, which the interpreter runs, is
 * not touched, so the difftest compares the two.
 */
#include "plan/layout.h"


/* Every read of v in b is a product's operand (A or B), and there is one. */
static int read_by_products(const IrBlock *b, const IrValue *v, int uses) {
    int n = 0;
    for (const IrOp *op = b->first; op; op = op->next)
        for (int i = 0; i < 2 && op->op == IR_DOT; i++) n += op->args[i] == v;
    return n > 0 && n == uses;
}

IrValue *ly_permute_tile(Arena *ar, IrKernel *k, IrValue *v, const int64_t *perm,
                        IrBlock *blk, IrOp *pos, Loc loc) {
    Type t = v->ty;
    for (int d = 0; d < t.rank; d++) t.dim[d] = v->ty.dim[perm[d]];
    IrOp *op = ir_detached(ar, k, IR_PERMUTE, t, 1, &v, loc);
    for (int d = 0; d < t.rank; d++) op->iattr[d] = perm[d];
    ir_insert_after(op, blk, pos);
    return op->res[0];
}

/* `nuses`: the values counted (the permutes built here come after). */
static int fold_block(Arena *ar, IrKernel *k, const int *uses, int nuses, IrBlock *b) {
    int n = 0;
    for (IrOp *op = b->first, *next; op; op = next) {
        next = op->next;
        for (int r = 0; r < op->nregions; r++)
            n += fold_block(ar, k, uses, nuses, op->regions[r]);
        if (op->op != IR_PERMUTE || op->res[0]->ty.rank != 2 || op->res[0]->id >= nuses)
            continue;
        IrOp *ld = op->args[0]->def;
        if (!ld || ld->op != IR_LOAD || ld->parent != b || uses[ld->res[0]->id] != 1 ||
            !read_by_products(b, op->res[0], uses[op->res[0]->id]))
            continue;
        for (int i = 0; i < ld->nargs; i++)
            if (ld->args[i]->ty.rank == 2)
                ld->args[i] = ly_permute_tile(ar, k, ld->args[i], op->iattr, ld->parent,
                                              ld->prev, op->loc);
        ld->res[0]->ty = op->res[0]->ty;
        ir_replace_uses(b, op->res[0], ld->res[0]);
        ir_unlink(op);
        n++;
    }
    return n;
}

int ly_fold_trans(Arena *ar, IrKernel *k) {
    return fold_block(ar, k, ir_use_counts(ar, k), k->nvalues + 1, k->body);
}
