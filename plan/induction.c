/*
 * induction.c — pointers and offsets stepped by a loop, computed from
 * its induction variable instead (on a variant's copy).
 *
 * A matmul written as Triton's tutorial writes it carries its pointer
 * tiles through the loop:
 *
 *     var pa = a + rm[:, None] * K + rk[None, :];
 *     for k in range(0, K, BK) {
 *         let at = load(pa, mask=...);
 *         ...
 *         pa += BK;
 *     }
 *
 * The load's address is then a region argument, which no plan can
 * compute for a later iteration: plan/pipeline.c issues a copy stages - 1
 * iterations ahead only when its pointer depends on the induction
 * variable and loop invariants alone, so such a loop got no ring (its
 * loads waited every iteration: the cliff between two spellings of one
 * kernel). Here, in every `for` loop (at any depth), each carried value
 * x whose update is
 *
 *     x = x + inc      (ptradd for a pointer, add for an integer; in the
 *                       loop's body itself, not under an `if`)
 *
 * with inc loop-invariant (defined before the loop, or computed in the
 * body by ops without effects from such values), is read in the body as
 *
 *     x_n = x_0 + n * inc,   n = (i - lo) / step
 *
 * (i the induction variable, x_0 the value the loop starts with): every
 * use of x in the body but its update reads x_n; the update and the
 * value after the loop stay as they were. The body's ops computing inc
 * move to its start, before x_n. n is divided unsigned: step > 0 and
 * lo <= i, so i - lo lies in [0, 2^32) however far apart the bounds are,
 * and its u32 wrap is exact. Where inc is a scalar that is the step
 * times t (the step itself: `pa += BK` over range(0, K, BK); `pb += BK
 * * ldb`; any inc where the step is 1; constants, inc a multiple of the
 * step), n * inc is (i - lo) * t with no division, and i * t when lo is
 * 0: later plans then see the loop's index where an index form of the
 * same kernel has it (plan/tma.c takes such an address).
 * For integers x_n equals x exactly (both wrap modulo 2^w). For pointers
 * n * inc is computed in i64, so x_n is x wherever x itself is an
 * address (an i32 product could wrap where the repeated steps did not;
 * and where step * t wraps in i32, the source's own steps leave its
 * buffer: such a program reads undefined elements either way). The loop
 * still carries x (its final value may be read after the loop); when
 * nothing but its own update reads it, LLVM drops the step.
 *
 * Runs first in layout assignment (ly_assign_kernel), before ly_hoist,
 * which then moves the scalar parts of inc and of n * inc that do not
 * change out of the loop. The interpreter runs sema's IR, not this copy:
 * the difftest compares the two. New values get new ids.
 */
#include "plan/layout.h"

#include <string.h>

typedef struct Ind {
    Arena *ar;
    IrKernel *k;
    int *uses;
    IrValue *n;     /* the loop's count of iterations done, once made */
} Ind;

/* Ops without effects or regions that may move to the body's start: a
 * list of the index and address kinds an increment is built from, not
 * all of ir_op_effects' 0. */
static int pure(const IrOp *op) {
    if (op->nres != 1 || op->nregions) return 0;
    switch (op->op) {
    case IR_CONST: case IR_PROGRAM_ID: case IR_NUM_PROGRAMS: case IR_CAST:
    case IR_ADD: case IR_SUB: case IR_MUL: case IR_DIV: case IR_REM:
    case IR_AND: case IR_OR: case IR_XOR: case IR_SHL: case IR_SHR:
    case IR_MIN: case IR_MAX: case IR_NEG: case IR_SPLAT: case IR_BROADCAST:
    case IR_EXPAND_DIMS: case IR_ARANGE: case IR_PTRADD:
        return 1;
    default:
        return 0;
    }
}

/* v does not change in loop: defined before it, or by pure ops of its
 * body (not nested) from such values, at most 64 deep (as plan/
 * pipeline.c's clonable: the walk's recursion stays bounded). */
static int invariant(const IrValue *v, const IrOp *loop, int depth) {
    if (!ly_defined_in(v, loop)) return 1;
    const IrOp *op = v->def;
    if (depth > 64 || !op || op->parent != loop->regions[0] || !pure(op)) return 0;
    for (int i = 0; i < op->nargs; i++)
        if (!invariant(op->args[i], loop, depth + 1)) return 0;
    return 1;
}

/* Marks the body's ops computing v (invariant) in `cone`, by result id. */
static void mark_cone(const IrValue *v, const IrOp *loop, char *cone) {
    const IrOp *op = v->def;
    if (!op || op->parent != loop->regions[0] || cone[v->id]) return;
    cone[v->id] = 1;
    for (int i = 0; i < op->nargs; i++) mark_cone(op->args[i], loop, cone);
}

/* Moves the body's ops computing v (invariant) right after *at (the
 * start when NULL), in program order, leaving those already there; *at
 * becomes the last of them. */
static void move_cone(Ind *c, IrValue *v, IrOp *loop, IrOp **at) {
    char *cone = ar_alloc(c->ar, (size_t)c->k->nvalues + 1);
    memset(cone, 0, (size_t)c->k->nvalues + 1);
    mark_cone(v, loop, cone);
    IrOp *op = loop->regions[0]->first, *next;
    if (*at)   /* the ops up to *at are in place */
        for (; op && op != (*at)->next; op = op->next) {}
    for (; op; op = next) {
        next = op->next;
        if (op->nres != 1 || !cone[op->res[0]->id]) continue;
        if (op != (*at ? (*at)->next : loop->regions[0]->first)) {
            ir_unlink(op);
            ir_insert_after(op, loop->regions[0], *at);
        }
        *at = op;
    }
}

/* A new op after *at in loop's body; *at becomes it. */
static IrValue *emit(Ind *c, IrOp *loop, IrOp **at, IrOpcode opc, Type t, IrValue *a,
                     IrValue *b) {
    IrValue *args[2] = {a, b};
    IrOp *op = ir_detached(c->ar, c->k, opc, t, b ? 2 : 1, args, loop->loc);
    ir_insert_after(op, loop->regions[0], *at);
    *at = op;
    return op->res[0];
}

static IrValue *cast_to(Ind *c, IrOp *loop, IrOp **at, IrValue *v, ScalarKind k) {
    if (v->ty.k == k) return v;
    Type t = v->ty;
    t.k = k;
    return emit(c, loop, at, IR_CAST, t, v, NULL);
}

/* splat(s) to t's shape (s a scalar of t's element kind). */
static IrValue *spread(Ind *c, IrOp *loop, IrOp **at, IrValue *s, Type t) {
    return t.rank ? emit(c, loop, at, IR_SPLAT, t, s, NULL) : s;
}

/* The increment of carried value j of `loop` when its update has the
 * shape the header describes, else NULL. */
static IrValue *step_of(const Ind *c, const IrOp *loop, int j) {
    const IrBlock *body = loop->regions[0];
    const IrOp *y = body->last;
    if (!y || y->op != IR_YIELD || j >= y->nargs) return NULL;
    IrValue *x = body->args[j + 1];
    const IrOp *upd = y->args[j]->def;
    if (!upd || upd->parent != body || upd->nargs != 2 || c->uses[x->id] < 2) return NULL;
    IrValue *inc = NULL;
    if (upd->op == IR_PTRADD && upd->args[0] == x)
        inc = upd->args[1];
    else if (upd->op == IR_ADD && ty_isint((ScalarKind)x->ty.k) && x->ty.k != SK_BOOL)
        inc = upd->args[0] == x ? upd->args[1] : upd->args[1] == x ? upd->args[0] : NULL;
    if (!inc || inc == x || !invariant(inc, loop, 0)) return NULL;
    return inc;
}

int ly_same_int(const IrValue *a, const IrValue *b) {
    if (a == b) return 1;
    const IrOp *x = a->def, *y = b->def;
    return x && y && x->op == IR_CONST && y->op == IR_CONST && a->ty.k == b->ty.k &&
           ty_isint((ScalarKind)a->ty.k) && x->iattr[0] == y->iattr[0];
}

/* An integer constant's value. */
static int const_of(const IrValue *v, int64_t *x) {
    if (!v->def || v->def->op != IR_CONST || !ty_isint((ScalarKind)v->ty.k)) return 0;
    *x = v->def->iattr[0];
    return 1;
}

/* Scalar step s is the loop's step times *t (NULL: once): s is the step,
 * or a product with it, or any s where the step is 1; or constants, s a
 * multiple of the step (*t then a new constant before *at). */
static int step_multiple(Ind *c, IrOp *loop, IrOp **at, IrValue *s, IrValue **t) {
    const IrValue *step = loop->args[2];
    int64_t a, b;
    *t = NULL;
    if (ly_same_int(s, step)) return 1;
    if (const_of(step, &b) && b == 1) {
        *t = s;
        return 1;
    }
    if (const_of(s, &a) && const_of(step, &b) && b > 0 && a % b == 0) {
        IrOp *q = ir_detached(c->ar, c->k, IR_CONST, s->ty, 0, NULL, loop->loc);
        q->iattr[0] = a / b;
        ir_insert_after(q, loop->regions[0], *at);
        *at = q;
        *t = q->res[0];
        return 1;
    }
    const IrOp *m = s->def;
    if (!m || m->op != IR_MUL || s->ty.rank) return 0;
    for (int i = 0; i < 2; i++)
        if (ly_same_int(m->args[i], step)) {
            *t = m->args[1 - i];
            return 1;
        }
    return 0;
}

/* n = (i - lo) / step, the iterations done, made once a loop: as u32,
 * exact (step > 0 and lo <= i, so i - lo is below 2^32 however far
 * apart; n may pass INT32_MAX, and widens unsigned). */
static IrValue *done_count(Ind *c, IrOp *loop, IrOp **at) {
    if (c->n) return c->n;
    IrValue *d = loop->regions[0]->args[0], *lo = loop->args[0];
    int64_t z;
    if (!const_of(lo, &z) || z != 0) d = emit(c, loop, at, IR_SUB, ty_scalar(SK_I32), d, lo);
    Type u32 = ty_scalar(SK_U32);
    return c->n = emit(c, loop, at, IR_DIV, u32, cast_to(c, loop, at, d, SK_U32),
                       cast_to(c, loop, at, loop->args[2], SK_U32));
}

/* n * s of kind k for a scalar step s: where s is step * t, (i - lo) * t
 * (the count never formed: i itself when lo is 0, so later plans see the
 * loop's index; plan/tma.c takes such an address); else n * s. */
static IrValue *scalar_times(Ind *c, IrOp *loop, IrOp **at, IrValue *s, ScalarKind k) {
    IrValue *t, *lo = loop->args[0];
    if (!step_multiple(c, loop, at, s, &t))
        return emit(c, loop, at, IR_MUL, ty_scalar(k),
                    cast_to(c, loop, at, done_count(c, loop, at), k), cast_to(c, loop, at, s, k));
    IrValue *d = cast_to(c, loop, at, loop->regions[0]->args[0], k);
    int64_t z;
    if (!const_of(lo, &z) || z != 0)
        d = emit(c, loop, at, IR_SUB, ty_scalar(k), d, cast_to(c, loop, at, lo, k));
    return t ? emit(c, loop, at, IR_MUL, ty_scalar(k), d, cast_to(c, loop, at, t, k)) : d;
}

/* n * inc, of the offset's kind (i64 for a pointer's), shaped as inc. */
static IrValue *times(Ind *c, IrOp *loop, IrOp **at, IrValue *inc, int pointer) {
    ScalarKind k = pointer ? SK_I64 : (ScalarKind)inc->ty.k;
    IrValue *s = inc->def && inc->def->op == IR_SPLAT ? inc->def->args[0] : NULL;
    Type tt = inc->ty;
    tt.k = k;
    if (s || !inc->ty.rank)   /* a scalar step: one product */
        return spread(c, loop, at, scalar_times(c, loop, at, s ? s : inc, k), tt);
    IrValue *w = cast_to(c, loop, at, inc, k);
    IrValue *n = cast_to(c, loop, at, done_count(c, loop, at), k);
    return emit(c, loop, at, IR_MUL, w->ty, spread(c, loop, at, n, w->ty), w);
}

static int induct_loop(Ind *c, IrOp *loop) {
    IrBlock *body = loop->regions[0];
    IrOp *at = NULL;   /* the body's ops before here are what we put first */
    int done = 0;
    /* once a loop: a rewrite changes only its own value's readers (and
     * the loops nested in this one were rewritten before) */
    c->uses = ir_use_counts(c->ar, c->k);
    c->n = NULL;
    for (int j = 0; j < loop->nres; j++) {
        IrValue *inc = step_of(c, loop, j);
        if (!inc) continue;
        IrValue *x = body->args[j + 1];
        IrOp *upd = body->last->args[j]->def;
        move_cone(c, inc, loop, &at);
        int pointer = upd->op == IR_PTRADD;
        IrValue *off = times(c, loop, &at, inc, pointer);
        IrValue *xn = emit(c, loop, &at, pointer ? IR_PTRADD : IR_ADD, x->ty, loop->args[3 + j],
                           off);
        xn->name = x->name;
        ir_replace_uses(body, x, xn);
        for (int i = 0; i < upd->nargs; i++)
            if (upd->args[i] == xn) upd->args[i] = x;
        done++;
    }
    return done;
}

static int induct_block(Ind *c, IrBlock *b) {
    int n = 0;
    for (IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++) n += induct_block(c, op->regions[r]);
        if (op->op == IR_FOR && op->nregions == 1 && op->regions[0]->nargs >= 1 &&
            op->regions[0]->args[0]->ty.k == SK_I32 && !op->regions[0]->args[0]->ty.rank)
            n += induct_loop(c, op);
    }
    return n;
}

int ly_induction(Arena *ar, IrKernel *k) {
    Ind c = {ar, k, NULL, NULL};
    return induct_block(&c, k->body);
}
