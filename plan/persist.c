/*
 * persist.c — persistent programs (tilec --persistent; experimental).
 *
 * A kernel whose programs each compute one tile — ops that index the
 * tile by program ids, one loop of products over K, an epilogue that
 * stores — pays, per tile, for filling its pipeline from empty and for
 * an epilogue during which no copy is in flight. Rewritten here, its
 * programs walk the tiles instead, P at a time (P = the programs
 * launched, on a 1-D grid: libtile launches as many as fit on the GPU
 * at once, the variant's TLB_VARIANT_PERSISTENT flag), through one loop
 * over (tile, k step):
 *
 *   G  = the grid's programs (the product of its extents, computed in
 *        the kernel from the grid expressions); kt = the K loop's trip
 *        count (the same for every tile); mine = cdiv(G - pid, P)
 *   if kt > 0:
 *     for it in range(0, mine * kt), carrying the K loop's values:
 *       t = pid + (it / kt) * P;  the ops before the loop, program_id(a)
 *       being t's coordinate a (axis 0 fastest, as a launch numbers its
 *       programs) and num_programs(a) the grid's extent a; the loop's
 *       body for k = lo +
 *       (it % kt) * step; if it % kt == kt - 1: the epilogue, then the
 *       carried values start again from their initial ones
 *   else (no K step: every tile stores its initial values):
 *     for i in range(0, mine): the ops before the loop and the epilogue
 *
 * where "the ops before the loop" leaves out the scalars that depend on
 * no program id or count (`cdiv(M, BM)`, std/grid's `GROUP * num_n`):
 * those are computed once, before the walk, so that plan/divisor.c can
 * invert them once (their divisions run every step, in thread 0's
 * copies too). Tiles are recomputed per tile: one live across the walk
 * would hold registers.
 *
 * — the form of a persistent matmul written by hand (tests/gpu/ops/
 * tma.tile's t_pers), which the plan already runs well: the loop's
 * rings stay full across tiles (the copies of the next tile's first
 * steps are in flight during this tile's last steps and epilogue), the
 * product's wgmma group stays in flight through the iterations that do
 * not store (plan/lowering.c drain_plan), the divisions by kt and P are
 * by loop invariants (plan/divisor.c). The walk is the grid's order, so
 * a kernel's own grouped order (std/grid) carries over.
 *
 * Which kernels (ly_persistent returns NULL for the others): a grid
 * clause whose expressions have only integer arithmetic (G below 2^31:
 * libtile refuses a persistent launch of more); one top-level `for`
 * with a product in its body, i32 bounds that do not depend on the
 * grid's program ids or counts, a positive constant step, initial
 * values that do not
 * either; before it only pure ops (no loads: they would run at every K
 * step); after it anything. Semantics are unchanged for any number of
 * programs launched (each tile is visited once, by one program), so the
 * interpreter running the original with G programs is the reference for
 * the rewritten one on any P.
 *
 * The result is a new kernel (the input is not touched); values get new
 * ids in it.
 */
#include "plan/layout.h"

#include <string.h>

typedef struct Persist {
    Arena *ar;
    const IrKernel *k0;
    IrKernel *k;
    IrBuilder b;
    IrValue **map;      /* old id -> new value, for the clones being made */
    char *taint;        /* old id -> depends on a program id or count of the grid */
    int ngrid;
    IrValue *extent[3]; /* the grid's extents: what num_programs(a) becomes */
    IrValue *pos[3];    /* the tile's program ids: what program_id(a) becomes */
} Persist;

static Type i32t(void) { return ty_scalar(SK_I32); }

static IrValue *op2(Persist *s, IrOpcode opc, IrValue *a, IrValue *b) {
    return ir_op1(&s->b, opc, i32t(), a, b, NULL);
}

static IrValue *cmp(Persist *s, CmpPred pred, IrValue *a, IrValue *b) {
    IrValue *r = ir_op1(&s->b, IR_CMP, ty_scalar(SK_BOOL), a, b, NULL);
    r->def->iattr[0] = pred;
    return r;
}

static IrValue *cst(Persist *s, int64_t v) { return ir_const_int(&s->b, i32t(), v); }

/* cdiv(a, b) for a >= 0, b > 0. */
static IrValue *cdiv(Persist *s, IrValue *a, IrValue *b) {
    return op2(s, IR_DIV, op2(s, IR_SUB, op2(s, IR_ADD, a, b), cst(s, 1)), b);
}

/* The grid expression e as i32 ops over the new kernel's parameters, or
 * NULL where it has anything but integer arithmetic. */
static IrValue *grid_value(Persist *s, const GExpr *e) {
    if (!e) return NULL;
    if (e->kind == GX_CONST) return cst(s, e->value);
    if (e->kind == GX_PARAM) {
        if (e->param < 0 || e->param >= s->k->nparams) return NULL;
        IrValue *p = s->k->body->args[e->param];
        if (p->ty.rank || !ty_isint((ScalarKind)p->ty.k)) return NULL;
        return p->ty.k == SK_I32 ? p : ir_op1(&s->b, IR_CAST, i32t(), p, NULL);
    }
    IrValue *a = grid_value(s, e->a), *b = a ? grid_value(s, e->b) : NULL;
    if (!b) return NULL;
    switch (e->kind) {
    case GX_ADD: return op2(s, IR_ADD, a, b);
    case GX_SUB: return op2(s, IR_SUB, a, b);
    case GX_MUL: return op2(s, IR_MUL, a, b);
    case GX_DIV: return op2(s, IR_DIV, a, b);
    case GX_MOD: return op2(s, IR_REM, a, b);
    case GX_CDIV: return cdiv(s, a, b);
    case GX_MIN: return op2(s, IR_MIN, a, b);
    case GX_MAX: return op2(s, IR_MAX, a, b);
    default: return NULL;
    }
}

/* ------------------------------------------------------------- cloning */

static IrBlock *clone_region(Persist *s, const IrBlock *r, IrOp *parent);

/* program_id(a) or num_programs(a) of the grid (not of the launch). */
static int grid_query(const Persist *s, const IrOp *op) {
    return (op->op == IR_PROGRAM_ID || op->op == IR_NUM_PROGRAMS) && op->iattr[0] >= 0 &&
           op->iattr[0] < s->ngrid;
}

/* The program ids of tile t (row-major: axis 0 fastest, as a launch
 * numbers its programs). */
static void set_tile(Persist *s, IrValue *t) {
    for (int a = 0; a < s->ngrid; a++) {
        s->pos[a] = a + 1 < s->ngrid ? op2(s, IR_REM, t, s->extent[a]) : t;
        if (a + 1 < s->ngrid) t = op2(s, IR_DIV, t, s->extent[a]);
    }
}

/* A copy of op (its regions too) appended to s->b.blk, its results
 * mapped; the grid's program ids and counts are mapped, not copied. */
static void clone_op(Persist *s, const IrOp *op) {
    if (grid_query(s, op)) {
        int a = (int)op->iattr[0];
        s->map[op->res[0]->id] = op->op == IR_PROGRAM_ID ? s->pos[a] : s->extent[a];
        return;
    }
    IrValue **args = ar_alloc(s->ar, sizeof(IrValue *) * (size_t)(op->nargs + 1));
    for (int i = 0; i < op->nargs; i++) args[i] = s->map[op->args[i]->id];
    Type *rt = ar_alloc(s->ar, sizeof(Type) * (size_t)(op->nres + 1));
    for (int i = 0; i < op->nres; i++) rt[i] = op->res[i]->ty;
    Loc at = s->b.loc;
    s->b.loc = op->loc;
    IrOp *n = ir_emit(&s->b, (IrOpcode)op->op, op->nres, rt, op->nargs, args);
    s->b.loc = at;
    memcpy(n->iattr, op->iattr, sizeof n->iattr);
    n->fattr = op->fattr;
    n->sattr = op->sattr;
    for (int i = 0; i < op->nres; i++) {
        n->res[i]->name = op->res[i]->name;
        s->map[op->res[i]->id] = n->res[i];
    }
    if (op->nregions) {
        ir_add_regions(&s->b, n, op->nregions);
        for (int r = 0; r < op->nregions; r++) n->regions[r] = clone_region(s, op->regions[r], n);
    }
}

static IrBlock *clone_region(Persist *s, const IrBlock *r, IrOp *parent) {
    Type *at = ar_alloc(s->ar, sizeof(Type) * (size_t)(r->nargs + 1));
    for (int i = 0; i < r->nargs; i++) at[i] = r->args[i]->ty;
    IrBlock *blk = ir_block(&s->b, r->nargs, at), *outer = s->b.blk;
    blk->parent = parent;
    for (int i = 0; i < r->nargs; i++) {
        blk->args[i]->name = r->args[i]->name;
        s->map[r->args[i]->id] = blk->args[i];
    }
    s->b.blk = blk;
    for (const IrOp *op = r->first; op; op = op->next) clone_op(s, op);
    s->b.blk = outer;
    return blk;
}

/* The ops of the kernel's body from `from` up to (not including) `to`,
 * but the scalars already cloned at the top (not tainted: hoisted). */
static void clone_span(Persist *s, const IrOp *from, const IrOp *to) {
    for (const IrOp *op = from; op && op != to; op = op->next) {
        const IrValue *r = op->nres == 1 ? op->res[0] : NULL;
        if (r && r->ty.rank == 0 && s->map[r->id] && !s->taint[r->id]) continue;
        clone_op(s, op);
    }
}

/* Old value v (not tainted), cloned with the ops it is computed from in
 * the body (those before the loop), at the current place. */
static IrValue *clone_cone(Persist *s, const IrValue *v) {
    if (s->map[v->id]) return s->map[v->id];
    const IrOp *op = v->def;
    for (int i = 0; i < op->nargs; i++) clone_cone(s, op->args[i]);
    clone_op(s, op);
    return s->map[v->id];
}

/* ------------------------------------------------------------- checks */

static int has_dot(const IrBlock *b) {
    for (const IrOp *op = b->first; op; op = op->next) {
        if (op->op == IR_DOT) return 1;
        for (int r = 0; r < op->nregions; r++)
            if (has_dot(op->regions[r])) return 1;
    }
    return 0;
}

/* An op without effects (ir_op_effects) nor regions, and no reduction,
 * scan or sort: what may stand before the loop, recomputed per tile. */
static int pure_op(const IrOp *op) {
    if (ir_op_effects(op->op) || op->nregions) return 0;
    return op->op != IR_REDUCE && op->op != IR_SCAN && op->op != IR_SORT;
}

/* The kernel's one top-level loop with a product, with only pure ops
 * before it (their taint filled), or NULL. */
static const IrOp *the_loop(Persist *s) {
    const IrOp *loop = NULL;
    for (const IrOp *op = s->k0->body->first; op; op = op->next) {
        if (op->op == IR_FOR && has_dot(op->regions[0])) {
            if (loop) return NULL;
            loop = op;
            continue;
        }
        if (loop) continue;   /* the epilogue: anything */
        if (!pure_op(op)) return NULL;
        int t = grid_query(s, op);
        for (int i = 0; i < op->nargs; i++) t |= s->taint[op->args[i]->id];
        for (int i = 0; i < op->nres; i++) s->taint[op->res[i]->id] = (char)t;
    }
    return loop;
}

static int64_t const_of(const IrValue *v) {
    return v->def && v->def->op == IR_CONST ? v->def->iattr[0] : 0;
}

/* ------------------------------------------------------------- rewrite */

/* Ends the current block with a yield of the n values v. */
static void yield(Persist *s, int n, IrValue **v) {
    ir_emit(&s->b, IR_YIELD, 0, NULL, n, v);
}

/* A region of op, the builder inside it; returns the block to go back to. */
static IrBlock *enter(Persist *s, IrOp *op, int r, int nargs, const Type *at) {
    IrBlock *blk = ir_block(&s->b, nargs, at), *outer = s->b.blk;
    blk->parent = op;
    op->regions[r] = blk;
    s->b.blk = blk;
    return outer;
}

/* The walk with K steps: one loop over (tile, step). */
static void walk_steps(Persist *s, const IrOp *loop, IrValue *pid, IrValue *P, IrValue *kt,
                       IrValue *n, IrValue *lo, IrValue *step, IrValue **init) {
    const IrBlock *body = loop->regions[0];
    int nc = loop->nres;
    IrValue **fa = ar_alloc(s->ar, sizeof(IrValue *) * (size_t)(nc + 4));
    fa[0] = cst(s, 0);
    fa[1] = n;
    fa[2] = cst(s, 1);
    memcpy(fa + 3, init, sizeof(IrValue *) * (size_t)nc);
    Type *ct = ar_alloc(s->ar, sizeof(Type) * (size_t)(nc + 1));
    for (int i = 0; i < nc; i++) ct[i] = loop->res[i]->ty;
    IrOp *f = ir_emit(&s->b, IR_FOR, nc, ct, 3 + nc, fa);
    f->iattr[0] = LY_WALK_STEPS;
    ir_add_regions(&s->b, f, 1);
    Type *at = ar_alloc(s->ar, sizeof(Type) * (size_t)(nc + 2));
    at[0] = i32t();
    memcpy(at + 1, ct, sizeof(Type) * (size_t)nc);
    IrBlock *outer = enter(s, f, 0, nc + 1, at), *fb = s->b.blk;
    IrValue *it = fb->args[0];
    IrValue *tq = op2(s, IR_DIV, it, kt), *kk = op2(s, IR_REM, it, kt);
    set_tile(s, op2(s, IR_ADD, pid, op2(s, IR_MUL, tq, P)));
    clone_span(s, s->k0->body->first, loop);
    s->map[body->args[0]->id] = op2(s, IR_ADD, lo, op2(s, IR_MUL, kk, step));
    for (int i = 0; i < nc; i++) s->map[body->args[i + 1]->id] = fb->args[i + 1];
    clone_span(s, body->first, body->last);   /* all but the yield */
    IrValue **ys = ar_alloc(s->ar, sizeof(IrValue *) * (size_t)(nc + 1));
    for (int i = 0; i < nc; i++) ys[i] = s->map[body->last->args[i]->id];
    IrValue *last = cmp(s, CMP_EQ, kk, op2(s, IR_SUB, kt, cst(s, 1)));
    IrOp *g = ir_emit(&s->b, IR_IF, nc, ct, 1, &last);
    g->iattr[0] = 1;   /* the tile's epilogue (layout.h, LY_WALK_STEPS) */
    ir_add_regions(&s->b, g, 2);
    IrBlock *in = enter(s, g, 0, 0, NULL);
    for (int i = 0; i < nc; i++) s->map[loop->res[i]->id] = ys[i];
    clone_span(s, loop->next, NULL);
    IrValue **again = ar_alloc(s->ar, sizeof(IrValue *) * (size_t)(nc + 1));
    for (int i = 0; i < nc; i++) again[i] = s->map[loop->args[3 + i]->id];
    yield(s, nc, again);
    s->b.blk = in;
    enter(s, g, 1, 0, NULL);
    yield(s, nc, ys);
    s->b.blk = in;
    yield(s, nc, g->res);
    s->b.blk = outer;
}

/* The walk without K steps: each tile stores its initial values. */
static void walk_tiles(Persist *s, const IrOp *loop, IrValue *pid, IrValue *P,
                       IrValue *mine) {
    IrValue *fa[3] = {cst(s, 0), mine, cst(s, 1)};
    IrOp *f = ir_emit(&s->b, IR_FOR, 0, NULL, 3, fa);
    f->iattr[0] = LY_WALK_TILES;
    ir_add_regions(&s->b, f, 1);
    Type at = i32t();
    IrBlock *outer = enter(s, f, 0, 1, &at);
    set_tile(s, op2(s, IR_ADD, pid, op2(s, IR_MUL, s->b.blk->args[0], P)));
    clone_span(s, s->k0->body->first, loop);
    for (int i = 0; i < loop->nres; i++) s->map[loop->res[i]->id] = s->map[loop->args[3 + i]->id];
    clone_span(s, loop->next, NULL);
    yield(s, 0, NULL);
    s->b.blk = outer;
}

IrKernel *ly_persistent(Arena *ar, const IrKernel *k0) {
    if (k0->ngrid < 1 || k0->ngrid > 3) return NULL;
    Persist s = {.ar = ar, .k0 = k0, .ngrid = k0->ngrid};
    size_t n = (size_t)k0->nvalues + 1;
    s.taint = ar_alloc(ar, n);
    memset(s.taint, 0, n);
    const IrOp *loop = the_loop(&s);
    if (!loop) return NULL;
    const IrBlock *body = loop->regions[0];
    if (body->args[0]->ty.k != SK_I32 || const_of(loop->args[2]) <= 0 ||
        !body->last || body->last->op != IR_YIELD)
        return NULL;
    for (int i = 0; i < loop->nargs; i++)
        if (s.taint[loop->args[i]->id]) return NULL;

    IrKernel *k = ar_alloc(ar, sizeof *k);
    *k = *k0;
    k->nvalues = 0;
    k->nops = 0;
    s.k = k;
    s.b = (IrBuilder){ar, k, NULL, k0->loc};
    Type *pt = ar_alloc(ar, sizeof(Type) * (size_t)(k0->nparams + 1));
    for (int i = 0; i < k0->nparams; i++) pt[i] = k0->params[i].ty;
    k->body = ir_block(&s.b, k0->nparams, pt);
    k->body->parent = NULL;
    s.b.blk = k->body;
    s.map = ar_alloc(ar, sizeof(IrValue *) * n);
    memset(s.map, 0, sizeof(IrValue *) * n);
    for (int i = 0; i < k0->nparams; i++) {
        k->body->args[i]->name = k0->body->args[i]->name;
        s.map[k0->body->args[i]->id] = k->body->args[i];
    }
    IrValue *G = NULL;
    for (int a = 0; a < s.ngrid; a++) {
        if (!(s.extent[a] = grid_value(&s, k0->grid[a]))) return NULL;
        G = a ? op2(&s, IR_MUL, G, s.extent[a]) : s.extent[a];
    }
    IrValue *P = ir_op1(&s.b, IR_NUM_PROGRAMS, i32t(), NULL);
    P->def->iattr[0] = 0;
    IrValue *pid = ir_op1(&s.b, IR_PROGRAM_ID, i32t(), NULL);
    pid->def->iattr[0] = 0;
    /* the loop's bounds and initial values, once (they do not depend on
     * the tile); their clones are the walk's */
    IrValue *lo = clone_cone(&s, loop->args[0]), *hi = clone_cone(&s, loop->args[1]);
    IrValue *step = clone_cone(&s, loop->args[2]);
    int nc = loop->nres;
    IrValue **init = ar_alloc(ar, sizeof(IrValue *) * (size_t)(nc + 1));
    for (int i = 0; i < nc; i++) init[i] = clone_cone(&s, loop->args[3 + i]);
    /* the scalars before the loop that no tile changes, once: cdiv(M,
     * BM), std/grid's GROUP * num_n (divisors plan/divisor.c can then
     * invert once, not divide by every step); tiles stay per tile, as
     * values live across the loop would take registers */
    for (const IrOp *op = k0->body->first; op != loop; op = op->next)
        if (op->nres == 1 && op->res[0]->ty.rank == 0 && !s.taint[op->res[0]->id])
            clone_cone(&s, op->res[0]);
    IrValue **top = ar_alloc(ar, sizeof(IrValue *) * n);   /* the top level's clones */
    memcpy(top, s.map, sizeof(IrValue *) * n);
    IrValue *kt = op2(&s, IR_MAX, cdiv(&s, op2(&s, IR_SUB, hi, lo), step), cst(&s, 0));
    IrValue *mine = cdiv(&s, op2(&s, IR_SUB, G, pid), P);
    IrValue *steps = cmp(&s, CMP_GT, kt, cst(&s, 0));
    IrOp *g = ir_emit(&s.b, IR_IF, 0, NULL, 1, &steps);
    ir_add_regions(&s.b, g, 2);
    IrBlock *outer = enter(&s, g, 0, 0, NULL);
    walk_steps(&s, loop, pid, P, kt, op2(&s, IR_MUL, mine, kt), lo, step, init);
    yield(&s, 0, NULL);
    memcpy(s.map, top, sizeof(IrValue *) * n);
    s.b.blk = outer;
    enter(&s, g, 1, 0, NULL);
    walk_tiles(&s, loop, pid, P, mine);
    yield(&s, 0, NULL);
    s.b.blk = outer;
    return k;
}
