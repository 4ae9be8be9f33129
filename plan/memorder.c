/*
 * memorder.c — barriers between a program's global accesses that other
 * threads of the program may order differently than the source does (on
 * a variant's copy, after layout assignment).
 *
 * The language has no threads (docs/language.md, "Model"): a program's
 * statements run in order, and the interpreter runs them so. On the GPU a
 * tile access is spread over the program's threads, and nothing orders
 * one thread's store before another thread's later access of the same
 * address: `store(out + i, v); w = load(out + n - 1 - i)` read, in
 * another warp, what the store had not yet written (found by a bug hunt
 * with kernels written as users write them, session 44). A CTA barrier
 * between them orders them (bar.sync makes a thread's global writes
 * before it visible to the program's threads after it, as
 * __syncthreads does).
 *
 * Two accesses conflict when at least one writes (store, atomic), the
 * later could run before the earlier, and they may reach one address
 * from different threads. They do not when:
 *   - their pointers come from different parameters (followed through
 *     ptradd chains, splats, broadcasts, layout conversions, selects of
 *     one base, pointers a loop steps; anything else may be any).
 *     Parameters are taken to be distinct buffers: a kernel called with
 *     one buffer as two parameters is correct where each element is
 *     read and written by one thread (docs/language.md, "Memory");
 *   - their footprints are apart, as linear forms over the loop whose
 *     back edge lies between them (or none): moving by coefficient x
 *     step an iteration further than they spread (apart_across), rows
 *     `stride` apart each masked below at most stride (rows_apart),
 *     slots `k * n` apart each masked below at most n (slots_apart), or
 *     constant intervals that do not meet (intervals_apart). Offsets are
 *     read as integers that do not wrap;
 *   - both read the same pointer tile, whose layout holds each element
 *     in one thread (no zero lane or warp basis), with distinct
 *     addresses (distinct), the same tile in every iteration of that
 *     loop. Scalar accesses never qualify (every thread loads a scalar;
 *     one stores it).
 * The walk is forward over nested blocks with the accesses since the
 * last barrier: an `if` joins its arms; a loop's body is walked, not
 * deciding, until what an iteration leaves for the next stops growing
 * (at most MO_ROUNDS times, then every access of the loop is assumed
 * left over), then once more deciding. Before an access that conflicts
 * with one of the set an IR_BARRIER goes in (lowered as lw_barrier: a
 * CTA barrier), which, like a debug_barrier the user wrote, clears the
 * set. Barriers in scopes every thread reaches only: tile code runs
 * under uniform control flow (scalar conditions), as debug_barrier
 * already relies on. tests/unit/test_memorder.c checks each rule that
 * leaves a barrier out against footprints enumerated by brute force.
 *
 * Not covered: loads that plan/pipeline.c copies ahead of a store through
 * the same parameter in their loop (a product writing its own operand);
 * conflicts between programs (the language leaves those to atomics).
 */
#include "plan/layout.h"

#include <string.h>

enum { MO_UNKNOWN = -1, MO_BUSY = -2, MO_DEPTH = 64, MO_ROUNDS = 8, MO_TERMS = 8 };
#define MO_BOUND ((int64_t)1 << 40)

typedef struct MoAccess {
    const IrOp *op;
    const IrOp *crossed;   /* the outermost loop whose back edge lies
                              between it and the walk's position; NULL:
                              none */
} MoAccess;

typedef struct MoSet {
    int n, cap;
    MoAccess *a;
} MoSet;

typedef struct MoCtx {
    Arena *ar;
    IrKernel *k;
    int *base;             /* by value id: parameter index, MO_UNKNOWN,
                              MO_BUSY, or 0 not yet known (stored + 1) */
    int inserted;
    int deciding;          /* the walk inserts (a loop's last pass) */
} MoCtx;

static int base_of(MoCtx *c, const IrValue *v, int depth);
static int encloses(const IrOp *a, const IrOp *b);

/* The base of a loop's carried pointer: its initial value's, where every
 * update keeps it (the yield reaches it through the same base). */
static int carried_base(MoCtx *c, const IrValue *v, int depth) {
    const IrBlock *b = v->block;
    const IrOp *loop = b->parent;
    if (loop->op != IR_FOR || v->index == 0) return MO_UNKNOWN;
    int i = v->index - 1;   /* carried values follow the induction variable */
    if (3 + i >= loop->nargs || !b->last || b->last->op != IR_YIELD || i >= b->last->nargs)
        return MO_UNKNOWN;
    int init = base_of(c, loop->args[3 + i], depth + 1);
    c->base[v->id] = init + 1;   /* the update meets this value again */
    int step = base_of(c, b->last->args[i], depth + 1);
    return step == init ? init : MO_UNKNOWN;
}

/* The parameter a pointer value derives from, or MO_UNKNOWN. */
static int base_of(MoCtx *c, const IrValue *v, int depth) {
    if (c->base[v->id]) return c->base[v->id] - 1;
    if (depth > MO_DEPTH) return MO_UNKNOWN;
    c->base[v->id] = MO_BUSY + 1;
    int r = MO_UNKNOWN;
    const IrOp *op = v->def;
    if (!op) {
        if (v->block == c->k->body) r = v->index;
        else if (v->block && v->block->parent) r = carried_base(c, v, depth);
    } else {
        switch (op->op) {
        case IR_PTRADD: case IR_SPLAT: case IR_BROADCAST: case IR_EXPAND_DIMS:
        case IR_CONVERT_LAYOUT: case IR_PERMUTE: case IR_RESHAPE:
        case IR_SLICE: case IR_MULTIPLE_OF: case IR_MAX_CONTIG:
            r = base_of(c, op->args[0], depth + 1);
            break;
        case IR_SELECT: case IR_CAT: {
            int first = op->op == IR_SELECT ? 1 : 0;
            int a = base_of(c, op->args[first], depth + 1);
            int b = base_of(c, op->args[first + 1], depth + 1);
            r = a == b ? a : MO_UNKNOWN;
            break;
        }
        default:
            break;
        }
    }
    if (r == MO_BUSY) r = MO_UNKNOWN;
    c->base[v->id] = r + 1;
    return r;
}

static int writes(const IrOp *op) {
    return op->op == IR_STORE || op->op == IR_ATOMIC || op->op == IR_ATOMIC_CAS;
}

/* Each element of layout l in exactly one thread of the program. */
static int one_thread_each(const Layout *l, int warps) {
    if (!l || l->nbits[LY_LANE] != 5 || (1 << l->nbits[LY_WARP]) != warps) return 0;
    for (int in = LY_LANE; in <= LY_WARP; in++)
        for (int i = 0; i < l->nbits[in]; i++)
            if (!l->basis[in][i]) return 0;
    return 1;
}

/* v holds the same values in every iteration of `loop`: defined outside
 * it, or computed in it by element-wise and shape ops from such values. */
static int invariant(const IrValue *v, const IrOp *loop, int depth) {
    if (!ly_defined_in(v, loop)) return 1;
    const IrOp *op = v->def;
    if (!op || depth > MO_DEPTH || op->nregions || ir_op_effects((IrOpcode)op->op)) return 0;
    switch (op->op) {
    case IR_PROGRAM_ID: case IR_NUM_PROGRAMS: case IR_CONST:
        return 1;
    case IR_REDUCE: case IR_SCAN: case IR_DOT: case IR_SORT: case IR_GATHER:
        return 0;
    default:
        for (int i = 0; i < op->nargs; i++)
            if (!invariant(op->args[i], loop, depth + 1)) return 0;
        return 1;
    }
}

/* A pointer's addresses as a linear form over one loop: every element's
 * address is base + sum(tcoef[i] * term[i]) + c + coef * iv + e, e in
 * [tmin, tmax] (in elements), the terms scalars the same in every
 * iteration, iv the loop's induction variable (with no loop: every
 * scalar a term). e itself is sum(k * a) over the aranges' values a,
 * each along one dimension of the tile (ar[]: dim, extent, k), unless
 * `mixed` (two along one dimension). Offsets are
 * read as integers that do not wrap. */
typedef struct MoArange {
    int dim;
    int64_t ext, k;
} MoArange;

typedef struct MoLin {
    int base;
    const IrValue *ivs;   /* with ivs_k: + ivs_k * iv * ivs, ivs a scalar
                             the same in every iteration (rows `stride`
                             apart); NULL: none */
    int64_t ivs_k;
    int64_t coef, c, tmin, tmax;
    int nterm, nar, mixed;
    const IrValue *term[MO_TERMS];
    int64_t tcoef[MO_TERMS];
    MoArange ar[MO_TERMS];
} MoLin;

static int lin_term(MoLin *l, const IrValue *v, int64_t k) {
    for (int i = 0; i < l->nterm; i++)
        if (l->term[i] == v) {
            l->tcoef[i] += k;
            return l->tcoef[i] > -MO_BOUND && l->tcoef[i] < MO_BOUND;
        }
    if (l->nterm == MO_TERMS) return 0;
    l->term[l->nterm] = v;
    l->tcoef[l->nterm++] = k;
    return 1;
}

static int small(int64_t x) {
    return x > -MO_BOUND && x < MO_BOUND;
}

/* a += k * b, |k| < 2^20, every part kept below MO_BOUND (else 0: no
 * form), so that nothing here overflows. */
static int lin_add(MoLin *a, const MoLin *b, int64_t k) {
    if (b->ivs) {
        if (a->ivs && a->ivs != b->ivs) return 0;
        a->ivs = b->ivs;
        a->ivs_k += k * b->ivs_k;
        if (!small(a->ivs_k)) return 0;
    }
    a->coef += k * b->coef;
    a->c += k * b->c;
    a->tmin += k >= 0 ? k * b->tmin : k * b->tmax;
    a->tmax += k >= 0 ? k * b->tmax : k * b->tmin;
    if (!small(a->coef) || !small(a->c) || !small(a->tmin) || !small(a->tmax)) return 0;
    for (int i = 0; i < b->nterm; i++)
        if (!small(b->tcoef[i]) || !lin_term(a, b->term[i], k * b->tcoef[i])) return 0;
    a->mixed |= b->mixed;
    for (int i = 0; i < b->nar; i++) {
        for (int j = 0; j < a->nar; j++) a->mixed |= a->ar[j].dim == b->ar[i].dim;
        if (a->nar == MO_TERMS || !small(b->ar[i].k * k)) return 0;
        a->ar[a->nar] = b->ar[i];
        a->ar[a->nar++].k *= k;
    }
    return 1;
}

/* expand_dims at `axis`: the aranges' dimensions from it on move up. */
static void lin_expand(MoLin *l, int64_t axis) {
    for (int i = 0; i < l->nar; i++)
        if (l->ar[i].dim >= axis) l->ar[i].dim++;
}

/* An integer conversion that keeps every value: to a type at least as
 * wide from a signed one, wider from an unsigned one. */
static int keeps_value(ScalarKind from, ScalarKind to) {
    int wf = ty_bits(from), wt = ty_bits(to);
    return ty_isint(from) && ty_isint(to) &&
           (ty_issigned(from) ? ty_issigned(to) && wt >= wf : wt > wf || !ty_issigned(to));
}

/* v past splats, broadcasts and layout conversions: the value they copy. */
static const IrValue *through_shapes(const IrValue *v) {
    while (v->def && (v->def->op == IR_CONVERT_LAYOUT || v->def->op == IR_BROADCAST ||
                      v->def->op == IR_SPLAT))
        v = v->def->args[0];
    return v;
}

/* v an integer constant (or copies of one): *x. */
static int int_const(const IrValue *v, int64_t *x) {
    const IrOp *op = through_shapes(v)->def;
    if (!op || op->op != IR_CONST || !ty_isint((ScalarKind)op->res[0]->ty.k)) return 0;
    *x = op->iattr[0];
    return 1;
}

static int lin_ptr(const IrValue *v, const IrOp *loop, MoLin *l, int depth);
static int lin_op(const IrValue *v, const IrOp *loop, MoLin *l, int depth);

/* An integer offset (scalar or tile) as a linear form, small factors
 * only (no form where a product could overflow these bounds). */
static int lin_off(const IrValue *v, const IrOp *loop, MoLin *l, int depth) {
    memset(l, 0, sizeof *l);
    int64_t x;
    if (int_const(v, &x)) {
        l->c = x;
        return small(x);
    }
    if (loop && loop->op == IR_FOR && v == loop->regions[0]->args[0]) {
        l->coef = 1;
        return 1;
    }
    if (v->ty.rank == 0 && (!loop || invariant(v, loop, 0))) {
        /* a scalar the same in every iteration: its sums and multiples
         * taken apart (`2 * n` beside `3 * n`), else itself a term */
        if (lin_op(v, loop, l, depth)) return 1;
        memset(l, 0, sizeof *l);
        return lin_term(l, v, 1);
    }
    return lin_op(v, loop, l, depth);
}

/* lin_off of v by its defining op. */
static int lin_op(const IrValue *v, const IrOp *loop, MoLin *l, int depth) {
    const IrOp *op = v->def;
    int64_t x;
    if (!op || depth > MO_DEPTH) return 0;
    MoLin a, b;
    switch (op->op) {
    case IR_ARANGE:   /* rotated or not, the same values */
        l->tmin = op->iattr[0];
        l->tmax = op->iattr[1] - 1;
        l->nar = 1;
        l->ar[0] = (MoArange){0, op->iattr[1] - op->iattr[0], 1};
        return 1;
    case IR_CAST:
        return keeps_value((ScalarKind)op->args[0]->ty.k, (ScalarKind)v->ty.k) &&
               lin_off(op->args[0], loop, l, depth + 1);
    case IR_SPLAT: case IR_BROADCAST: case IR_CONVERT_LAYOUT:
    case IR_MULTIPLE_OF: case IR_MAX_CONTIG:
        return lin_off(op->args[0], loop, l, depth + 1);
    case IR_EXPAND_DIMS:
        if (!lin_off(op->args[0], loop, l, depth + 1)) return 0;
        lin_expand(l, op->iattr[0]);
        return 1;
    case IR_ADD: case IR_SUB:
        return lin_off(op->args[0], loop, &a, depth + 1) &&
               lin_off(op->args[1], loop, &b, depth + 1) && lin_add(l, &a, 1) &&
               lin_add(l, &b, op->op == IR_ADD ? 1 : -1);
    case IR_MUL:
        for (int i = 0; i < 2; i++)
            if (int_const(op->args[i], &x) && x > -(1 << 20) && x < (1 << 20))
                return lin_off(op->args[1 - i], loop, &a, depth + 1) && lin_add(l, &a, x);
        /* the induction variable times a scalar the same in every
         * iteration: rows `stride` apart */
        for (int i = 0; loop && v->ty.rank == 0 && i < 2; i++) {
            const IrValue *sv = op->args[1 - i];
            if (lin_off(op->args[i], loop, &a, depth + 1) && a.coef && !a.c && !a.nterm &&
                !a.nar && !a.ivs && invariant(sv, loop, 0)) {
                l->ivs = sv;
                l->ivs_k = a.coef;
                return 1;
            }
        }
        return 0;
    default:
        return 0;
    }
}

static int lin_ptr(const IrValue *v, const IrOp *loop, MoLin *l, int depth) {
    if (!v->def) {
        memset(l, 0, sizeof *l);
        l->base = v->index;
        return v->block && !v->block->parent && v->ty.rank == 0;
    }
    const IrOp *op = v->def;
    if (depth > MO_DEPTH) return 0;
    switch (op->op) {
    case IR_SPLAT: case IR_BROADCAST: case IR_CONVERT_LAYOUT:
    case IR_MULTIPLE_OF: case IR_MAX_CONTIG:
        return lin_ptr(op->args[0], loop, l, depth + 1);
    case IR_EXPAND_DIMS:
        if (!lin_ptr(op->args[0], loop, l, depth + 1)) return 0;
        lin_expand(l, op->iattr[0]);
        return 1;
    case IR_PTRADD: {
        MoLin o;
        return lin_ptr(op->args[0], loop, l, depth + 1) &&
               lin_off(op->args[1], loop, &o, depth + 1) && lin_add(l, &o, 1);
    }
    default:
        return 0;
    }
}

/* The same terms, coefficient for coefficient. */
static int same_terms(const MoLin *a, const MoLin *b) {
    if (a->ivs != b->ivs || a->ivs_k != b->ivs_k) return 0;
    for (int pass = 0; pass < 2; pass++) {
        const MoLin *x = pass ? b : a, *y = pass ? a : b;
        for (int i = 0; i < x->nterm; i++) {
            int64_t k = 0;
            for (int j = 0; j < y->nterm; j++)
                if (y->term[j] == x->term[i]) k = y->tcoef[j];
            if (k != x->tcoef[i]) return 0;
        }
    }
    return 1;
}

/* What `earlier` reached in an iteration of `loop` and what `later`
 * reaches in any later iteration are disjoint: both move by coef * step
 * elements an iteration, further than they spread (a row walked in
 * chunks, each chunk stored once). */
static int apart_across(const IrOp *loop, const IrOp *earlier, const IrOp *later) {
    MoLin a, b;
    int64_t step;
    if (loop->op != IR_FOR || !int_const(loop->args[2], &step) || !step ||
        step <= -(1 << 30) || step >= (1 << 30) ||
        !lin_ptr(earlier->args[0], loop, &a, 0) || !lin_ptr(later->args[0], loop, &b, 0) ||
        a.base != b.base || a.coef != b.coef || !a.coef || !same_terms(&a, &b) ||
        a.coef <= -(1 << 30) || a.coef >= (1 << 30))   /* coef * step below 2^60 */
        return 0;
    int64_t d = a.coef * step;
    return d > 0 ? b.c + d + b.tmin > a.c + a.tmax : b.c + d + b.tmax < a.c + a.tmin;
}

/* v (an integer scalar or tile) is never negative (integers that do not
 * wrap): program ids, aranges from 0 on, and sums, products, quotients
 * and remainders of such values. */
static int nonneg(const IrValue *v, int depth) {
    const IrOp *op = v->def;
    if (!op || depth > MO_DEPTH || !ty_isint((ScalarKind)v->ty.k)) return 0;
    switch (op->op) {
    case IR_CONST: return op->iattr[0] >= 0;
    case IR_PROGRAM_ID: case IR_NUM_PROGRAMS: return 1;
    case IR_ARANGE: return op->iattr[0] >= 0;
    case IR_SPLAT: case IR_BROADCAST: case IR_EXPAND_DIMS: case IR_CONVERT_LAYOUT:
    case IR_MULTIPLE_OF: case IR_MAX_CONTIG: case IR_REM: case IR_SHR:
        return nonneg(op->args[0], depth + 1);   /* a remainder: the dividend's sign */
    case IR_CAST:
        return keeps_value((ScalarKind)op->args[0]->ty.k, (ScalarKind)v->ty.k) &&
               nonneg(op->args[0], depth + 1);
    case IR_ADD: case IR_MUL: case IR_DIV: case IR_MIN:
        return nonneg(op->args[0], depth + 1) && nonneg(op->args[1], depth + 1);
    case IR_MAX:
        return nonneg(op->args[0], depth + 1) || nonneg(op->args[1], depth + 1);
    default:
        return 0;
    }
}

/* Mask m holds only where t < b for a scalar b: a conjunct `t < b`. */
static const IrValue *below(const IrValue *m, const IrValue *t, int depth) {
    m = through_shapes(m);
    const IrOp *op = m->def;
    if (!op || depth > MO_DEPTH) return NULL;
    if (op->op == IR_AND) {
        const IrValue *b = below(op->args[0], t, depth + 1);
        return b ? b : below(op->args[1], t, depth + 1);
    }
    if (op->op != IR_CMP || op->iattr[0] != CMP_LT || through_shapes(op->args[0]) != t)
        return NULL;
    const IrValue *b = through_shapes(op->args[1]);
    return b->ty.rank == 0 ? b : NULL;
}

/* b <= s: the same value, or a @require of the kernel says so (s >= b,
 * b <= s, both parameters). */
static int at_most(const IrKernel *k, const IrValue *b, const IrValue *s) {
    if (b == s) return 1;
    if (b->def || s->def || b->block != k->body || s->block != k->body) return 0;
    for (int i = 0; i < k->nrequire; i++) {
        const GExpr *e = k->require[i];
        if (e->kind != GX_GE && e->kind != GX_LE) continue;
        const GExpr *hi = e->kind == GX_GE ? e->a : e->b, *lo = e->kind == GX_GE ? e->b : e->a;
        if (hi->kind == GX_PARAM && lo->kind == GX_PARAM && hi->param == s->index &&
            lo->param == b->index)
            return 1;
    }
    return 0;
}

/* Access op's mask, or NULL. */
static const IrValue *mask_of(const IrOp *op) {
    if (op->op == IR_LOAD) return op->iattr[0] & LOAD_MASK ? op->args[1] : NULL;
    if (op->op == IR_STORE || op->op == IR_ATOMIC) return op->nargs > 2 ? op->args[2] : NULL;
    return NULL;
}

/* Access op as a slot: its 1-D pointers p + t, p a scalar pointer (*l,
 * its linear form over `loop`, or with no loop every scalar a term), t
 * never negative and masked to t < *bound, a scalar. */
static int slot_of(const IrOp *loop, const IrOp *op, MoLin *l, const IrValue **bound) {
    const IrValue *p = op->args[0], *m = mask_of(op);
    if (!m || p->ty.rank != 1 || !p->def || p->def->op != IR_PTRADD) return 0;
    const IrValue *t = through_shapes(p->def->args[1]);
    if (!lin_ptr(through_shapes(p->def->args[0]), loop, l, 0) || l->nar || l->tmin ||
        l->tmax || !nonneg(t, 0))
        return 0;
    *bound = below(m, t, 0);
    return *bound != NULL;
}

/* Rows apart: `earlier` in an iteration of `loop` and `later` in a
 * later one reach rows `stride` apart (offsets `row * stride`, row the
 * loop's induction variable, stride the same in every iteration), at
 * the same offsets otherwise, each within [0, stride) of its row (a
 * slot whose bound is at most stride). */
static int rows_apart(const IrKernel *k, const IrOp *loop, const IrOp *earlier,
                      const IrOp *later) {
    MoLin a, b;
    const IrValue *ba, *bb;
    int64_t step;
    return loop->op == IR_FOR && int_const(loop->args[2], &step) && step &&
           slot_of(loop, earlier, &a, &ba) && slot_of(loop, later, &b, &bb) &&
           a.base == b.base && a.ivs && a.ivs_k && !a.coef && !b.coef &&
           same_terms(&a, &b) && a.c == b.c && at_most(k, ba, a.ivs) && at_most(k, bb, a.ivs);
}

/* The linear forms of e and op (over `loop`, or none) the same in every
 * iteration of it: no induction variable in either. */
static int steady(const MoLin *a, const MoLin *b, const IrOp *loop) {
    return !loop || (!a->coef && !a->ivs && !b->coef && !b->ivs);
}

/* Slots apart: e and op reach [x + ka * s, x + ka * s + s) and [x + kb *
 * s, x + kb * s + s), ka != kb, s a scalar term of both (each slot's
 * bound at most s), x the rest, the same (`out + 2 * n + i` beside `out
 * + 3 * n + i`, masked to i < n). */
static int slots_apart(const IrKernel *k, const IrOp *loop, const IrOp *e, const IrOp *op) {
    MoLin a, b;
    const IrValue *ba, *bb;
    if (!slot_of(loop, e, &a, &ba) || !slot_of(loop, op, &b, &bb) || a.base != b.base ||
        !steady(&a, &b, loop) || a.c != b.c)
        return 0;
    for (int i = 0; i < a.nterm; i++) {
        const IrValue *sv = a.term[i];
        int64_t kb = 0;
        for (int j = 0; j < b.nterm; j++)
            if (b.term[j] == sv) kb = b.tcoef[j];
        if (kb == a.tcoef[i] || !at_most(k, ba, sv) || !at_most(k, bb, sv)) continue;
        MoLin ra = a, rb = b;   /* the rest: equal */
        ra.tcoef[i] = 0;
        for (int j = 0; j < rb.nterm; j++)
            if (rb.term[j] == sv) rb.tcoef[j] = 0;
        if (same_terms(&ra, &rb)) return 1;
    }
    return 0;
}

/* Intervals apart: the same terms, and constant offsets whose ranges do
 * not meet (`out + i` beside `out + 64 + i`, i in [0, 64)). */
static int intervals_apart(const IrOp *loop, const IrOp *e, const IrOp *op) {
    MoLin a, b;
    return lin_ptr(e->args[0], loop, &a, 0) && lin_ptr(op->args[0], loop, &b, 0) &&
           a.base == b.base && steady(&a, &b, loop) && same_terms(&a, &b) &&
           (a.c + a.tmax < b.c + b.tmin || b.c + b.tmax < a.c + a.tmin);
}

/* Pointer tile p holds distinct addresses: one arange along each
 * dimension of more than one element, covering it, their factors apart
 * as a mixed radix (each larger than what the smaller ones span). */
static int distinct(const IrValue *p) {
    MoLin l;
    if (!lin_ptr(p, NULL, &l, 0) || l.mixed) return 0;
    int used = 0;
    for (int d = 0; d < p->ty.rank; d++) {
        if (p->ty.dim[d] == 1) continue;
        int n = 0;
        for (int i = 0; i < l.nar; i++)
            if (l.ar[i].dim == d && l.ar[i].ext == p->ty.dim[d] && l.ar[i].k) n++;
        if (n != 1) return 0;
        used++;
    }
    if (used != l.nar) return 0;
    for (int i = 0; i < l.nar; i++)   /* products below 2^60 */
        if (l.ar[i].k <= -(1 << 30) || l.ar[i].k >= (1 << 30) || l.ar[i].ext >= (1 << 24))
            return 0;
    for (int i = 0; i < l.nar; i++) {
        int64_t below = 0, ki = l.ar[i].k < 0 ? -l.ar[i].k : l.ar[i].k;
        for (int j = 0; j < l.nar; j++) {
            int64_t kj = l.ar[j].k < 0 ? -l.ar[j].k : l.ar[j].k;
            if (j != i && (kj < ki || (kj == ki && j < i))) below += kj * (l.ar[j].ext - 1);
        }
        if (ki <= below) return 0;
    }
    return 1;
}

/* Access `e` (earlier) and op (later) touch any address from one thread
 * only, or none of the same addresses. */
static int independent(const MoCtx *c, const MoAccess *e, const IrOp *op) {
    const IrValue *p = e->op->args[0];
    const IrOp *loop = e->crossed;
    if (loop && !encloses(loop, op->parent->parent)) return 0;
    if (loop && (apart_across(loop, e->op, op) || rows_apart(c->k, loop, e->op, op)))
        return 1;
    if (intervals_apart(loop, e->op, op) || slots_apart(c->k, loop, e->op, op)) return 1;
    if (p != op->args[0] || p->ty.rank == 0 || !one_thread_each(p->layout, c->k->warps) ||
        !distinct(p))
        return 0;
    return !e->crossed || invariant(p, e->crossed, 0);
}

static int conflicts(MoCtx *c, const MoAccess *e, const IrOp *op) {
    if (!writes(e->op) && !writes(op)) return 0;
    int a = base_of(c, e->op->args[0], 0), b = base_of(c, op->args[0], 0);
    if (a != MO_UNKNOWN && b != MO_UNKNOWN && a != b) return 0;
    return !independent(c, e, op);
}

/* Loop a encloses loop b (or is b). */
static int encloses(const IrOp *a, const IrOp *b) {
    for (; b; b = b->parent ? b->parent->parent : NULL)
        if (a == b) return 1;
    return 0;
}

/* The outer of two loops on one nesting chain (NULL: none crossed). */
static const IrOp *outer(const IrOp *a, const IrOp *b) {
    if (!a) return b;
    if (!b) return a;
    return encloses(a, b) ? a : b;
}

/* Adds access op to s, crossed the back edge of `crossed`'s loop;
 * returns 1 if s grew (a new access, or one now crossed further). */
static int set_add(MoCtx *c, MoSet *s, const IrOp *op, const IrOp *crossed) {
    for (int i = 0; i < s->n; i++)
        if (s->a[i].op == op) {
            const IrOp *x = outer(s->a[i].crossed, crossed);
            if (x == s->a[i].crossed) return 0;
            s->a[i].crossed = x;
            return 1;
        }
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        MoAccess *a = ar_alloc(c->ar, sizeof *a * (size_t)cap);
        if (s->n) memcpy(a, s->a, sizeof *a * (size_t)s->n);
        s->a = a;
        s->cap = cap;
    }
    s->a[s->n++] = (MoAccess){op, crossed};
    return 1;
}

/* from's accesses into `into`, each crossed (also) `crossed`'s back edge
 * where that is given; returns 1 if `into` grew. */
static int set_join(MoCtx *c, MoSet *into, const MoSet *from, const IrOp *crossed) {
    int grew = 0;
    for (int i = 0; i < from->n; i++)
        grew |= set_add(c, into, from->a[i].op, outer(from->a[i].crossed, crossed));
    return grew;
}

static MoSet set_copy(MoCtx *c, const MoSet *s) {
    MoSet r = {0};
    set_join(c, &r, s, NULL);
    return r;
}

static void walk_block(MoCtx *c, IrBlock *b, MoSet *s);

static int is_access(const IrOp *op) {
    return op->op == IR_LOAD || writes(op);
}

/* Every access of b and its nested blocks into s, crossed `loop`. */
static void all_accesses(MoCtx *c, const IrBlock *b, MoSet *s, const IrOp *loop) {
    for (const IrOp *op = b->first; op; op = op->next) {
        if (is_access(op)) set_add(c, s, op, loop);
        for (int r = 0; r < op->nregions; r++) all_accesses(c, op->regions[r], s, loop);
    }
}

/* One iteration of loop's regions (a `for` body; a `while`'s condition
 * then body) from `entry`, deciding as c->deciding says. */
static MoSet iteration(MoCtx *c, IrOp *loop, const MoSet *entry) {
    MoSet t = set_copy(c, entry);
    for (int r = 0; r < loop->nregions; r++) walk_block(c, loop->regions[r], &t);
    return t;
}

/* Op lies in the epilogue `if` of persistent walk `loop` (plan/
 * persist.c's marks, layout.h LY_WALK_STEPS). */
static int in_epilogue(const IrOp *op, const IrOp *loop) {
    for (const IrOp *p = op->parent ? op->parent->parent : NULL; p;
         p = p->parent ? p->parent->parent : NULL) {
        if (p == loop) return 0;
        if (p->op == IR_IF && p->iattr[0] == 1 && p->parent && p->parent->parent == loop)
            return 1;
    }
    return 0;
}

/* What an iteration of `loop` that ended with `end` leaves the next: all
 * of it, but across a persistent walk's tiles (programs of the kernel as
 * written, which the language does not order): nothing after a tile, and
 * nothing of a tile's epilogue. */
static MoSet left_over(MoCtx *c, const IrOp *loop, const MoSet *end) {
    MoSet t = {0};
    if (loop->op == IR_FOR && loop->iattr[0] == LY_WALK_TILES) return t;
    for (int i = 0; i < end->n; i++)
        if (!(loop->op == IR_FOR && loop->iattr[0] == LY_WALK_STEPS &&
              in_epilogue(end->a[i].op, loop)))
            set_add(c, &t, end->a[i].op, end->a[i].crossed);
    return t;
}

/* A loop: an iteration sees what came before the loop and what the
 * iteration before left, so the walk repeats, not deciding, until that
 * stops growing (at most MO_ROUNDS times; then every access of the loop
 * is assumed left over, which only adds barriers), then decides once. A
 * `while` leaves through its condition after the body. */
static void walk_loop(MoCtx *c, IrOp *loop, MoSet *s) {
    int deciding = c->deciding;
    c->deciding = 0;
    MoSet entry = set_copy(c, s);
    int round = 0;
    for (;; round++) {
        MoSet end = iteration(c, loop, &entry), left = left_over(c, loop, &end);
        if (!set_join(c, &entry, &left, loop)) break;
        if (round == MO_ROUNDS) {
            for (int r = 0; r < loop->nregions; r++) all_accesses(c, loop->regions[r], &entry, loop);
            break;
        }
    }
    c->deciding = deciding;
    MoSet end = iteration(c, loop, &entry);
    if (loop->op == IR_WHILE) {
        c->deciding = 0;
        set_join(c, &entry, &end, loop);
        end = set_copy(c, &entry);
        walk_block(c, loop->regions[0], &end);
        c->deciding = deciding;
    }
    set_join(c, s, &end, NULL);
}

/* An IR_BARRIER before op, marked as the compiler's (iattr[0] 1) and
 * naming the earlier access it orders op after (sattr: --emit=ir prints
 * it, tilec --stats says it). */
static void barrier_before(MoCtx *c, IrOp *op, const IrOp *earlier) {
    IrBuilder b = {c->ar, c->k, NULL, op->loc};
    IrOp *bar = ir_emit(&b, IR_BARRIER, 0, NULL, 0, NULL);
    bar->iattr[0] = 1;
    bar->sattr = ar_printf(c->ar, "after the %s at line %u, column %u", ir_op_name[earlier->op],
                           earlier->loc.line, earlier->loc.col);
    ir_insert_after(bar, op->parent, op->prev);
    c->inserted++;
}

static void walk_block(MoCtx *c, IrBlock *b, MoSet *s) {
    for (IrOp *op = b->first; op; op = op->next) {
        switch (op->op) {
        case IR_BARRIER:
            s->n = 0;
            continue;
        case IR_LOAD: case IR_STORE: case IR_ATOMIC: case IR_ATOMIC_CAS:
            for (int i = 0; i < s->n; i++)
                if (conflicts(c, &s->a[i], op)) {
                    if (c->deciding) barrier_before(c, op, s->a[i].op);
                    s->n = 0;
                    break;
                }
            set_add(c, s, op, NULL);
            continue;
        case IR_IF: {
            MoSet other = set_copy(c, s);
            walk_block(c, op->regions[0], s);
            if (op->nregions > 1) walk_block(c, op->regions[1], &other);
            set_join(c, s, &other, NULL);
            continue;
        }
        case IR_FOR: case IR_WHILE:
            walk_loop(c, op, s);
            continue;
        default:
            continue;
        }
    }
}

int ly_order_memory(Arena *ar, IrKernel *k) {
    MoCtx c = {ar, k, ar_alloc(ar, sizeof(int) * (size_t)(k->nvalues + 1)), 0, 1};
    memset(c.base, 0, sizeof(int) * (size_t)(k->nvalues + 1));
    MoSet s = {0};
    walk_block(&c, k->body, &s);
    return c.inserted;
}
