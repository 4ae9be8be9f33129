/*
 * ir_clone.c — a deep copy of a module's kernels.
 *
 * Sema builds one IrModule; the GPU back end plans each specialization
 * variant on its own copy, because layout assignment annotates values and
 * inserts conversions (plan/layout_assign.c). Copying the IR is linear in
 * its size, where running sema again re-parsed imports, re-inlined every
 * call and re-unrolled every static_range. The copy keeps every value's
 * id and every op's position, so what is planned and emitted from it is
 * exactly what a second sema run gave (the PTX of every example, ops test
 * and lit input is byte-identical).
 *
 * Values are cloned where they are defined (block arguments, op results),
 * which in a structured SSA IR is always before any use in a walk in
 * program order; `map` takes an old id to its copy.
 */
#include "ir.h"

#include <string.h>

typedef struct Cloner {
    Arena *ar;
    IrValue **map;     /* by old id */
} Cloner;

static IrValue *clone_value(Cloner *c, const IrValue *v) {
    IrValue *n = ar_alloc(c->ar, sizeof *n);
    *n = *v;
    c->map[v->id] = n;
    return n;
}

static IrBlock *clone_block(Cloner *c, const IrBlock *b, IrOp *parent);

static IrOp *clone_op(Cloner *c, const IrOp *op) {
    IrOp *n = ar_alloc(c->ar, sizeof *n);
    *n = *op;
    n->args = ar_alloc(c->ar, sizeof(IrValue *) * (size_t)(op->nargs + 1));
    for (int i = 0; i < op->nargs; i++) n->args[i] = c->map[op->args[i]->id];
    n->regions = op->nregions ? ar_alloc(c->ar, sizeof(IrBlock *) * (size_t)op->nregions) : NULL;
    for (int r = 0; r < op->nregions; r++) n->regions[r] = clone_block(c, op->regions[r], n);
    n->res = ar_alloc(c->ar, sizeof(IrValue *) * (size_t)(op->nres + 1));
    for (int i = 0; i < op->nres; i++) {
        n->res[i] = clone_value(c, op->res[i]);
        n->res[i]->def = n;
    }
    return n;
}

static IrBlock *clone_block(Cloner *c, const IrBlock *b, IrOp *parent) {
    IrBlock *n = ar_alloc(c->ar, sizeof *n);
    n->nargs = b->nargs;
    n->parent = parent;
    n->args = ar_alloc(c->ar, sizeof(IrValue *) * (size_t)(b->nargs + 1));
    for (int i = 0; i < b->nargs; i++) {
        n->args[i] = clone_value(c, b->args[i]);
        n->args[i]->block = n;
    }
    for (const IrOp *op = b->first; op; op = op->next)
        ir_insert_after(clone_op(c, op), n, n->last);
    return n;
}

IrKernel *ir_clone_kernel(Arena *ar, const IrKernel *k) {
    IrKernel *n = ar_alloc(ar, sizeof *n);
    *n = *k;
    n->params = ar_alloc(ar, sizeof(IrParam) * (size_t)(k->nparams + 1));
    if (k->nparams) memcpy(n->params, k->params, sizeof(IrParam) * (size_t)k->nparams);
    Cloner c = {ar, ar_alloc(ar, sizeof(IrValue *) * (size_t)(k->nvalues + 1))};
    n->body = clone_block(&c, k->body, NULL);
    return n;
}

IrModule *ir_clone_module(Arena *ar, const IrModule *m) {
    IrModule *n = ar_alloc(ar, sizeof *n);
    *n = *m;
    n->ar = ar;
    n->kernels = ar_alloc(ar, sizeof(IrKernel *) * (size_t)(m->nkernels + 1));
    for (int i = 0; i < m->nkernels; i++) n->kernels[i] = ir_clone_kernel(ar, m->kernels[i]);
    return n;
}
