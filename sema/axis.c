/*
 * axis.c — axis info: what is known about the integers (and addresses) a
 * value holds, per dimension, so that loads and stores can be vectorized.
 *
 * For each value and dimension we keep three powers of two (see AxInfo in
 * layout.h): contiguity C (aligned runs of C consecutive integers),
 * divisibility D (of the first element of each such run; bytes for
 * pointers) and constancy K (aligned runs of K equal values). The idea is
 * Triton's AxisInfo analysis; the transfer functions are written from the
 * arithmetic, with one helper doing most of the work:
 *
 *   div_at(x, g): a lower bound on the divisibility of the elements of x
 *   at positions that are multiples of g along a dimension. Where g is a
 *   multiple of C those elements start runs (D); inside a run they are a
 *   run start plus a multiple of g (min(D, g)).
 *
 * so that, e.g., the sum of a contiguous x and a constant-over-runs y has
 * contiguity max(min(Cx, Ky), min(Kx, Cy)) and, at the start of each of
 * its runs, divisibility min(div_at(x, C), div_at(y, C)).
 *
 * The analysis is a forward walk. Loops iterate to a fixed point: the
 * region arguments start from the initial values and are joined (per
 * field minimum, which for powers of two is the gcd) with what the body
 * yields until nothing changes; every step only lowers values, so this
 * terminates (a bound on rounds falls back to "nothing known"). A value
 * also remembers when it is a known integer constant (scalar constants,
 * their splats), which multiplication, shifts and division use.
 */
#include "layout.h"

#include <string.h>

#define AX_MAXDIV (INT64_C(1) << 30)

typedef struct AxCtx {
    AxTable *t;
    const IrKernel *k;
    LyVariant v;
    uint8_t *known;      /* known[id]: cval[id] is the value's constant */
    int64_t *cval;
    int changed;
} AxCtx;

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The largest power of two dividing v (capped; 0 is divisible by all). */
static int64_t pow2_div(int64_t v) {
    if (v == 0) return AX_MAXDIV;
    uint64_t u = (uint64_t)v;
    return min64((int64_t)(u & (~u + 1)), AX_MAXDIV);
}

static int rank_of(const IrValue *v) { return v->ty.rank ? v->ty.rank : 1; }

/* Nothing known: every run has length 1 and divisibility 1. */
static AxInfo ax_unknown(void) {
    AxInfo a;
    for (int d = 0; d < IR_MAXRANK; d++) a.contig[d] = a.div[d] = a.constancy[d] = 1;
    return a;
}

/* A value equal everywhere with divisibility `div`. */
static AxInfo ax_uniform(const IrValue *v, int64_t div) {
    AxInfo a = ax_unknown();
    for (int d = 0; d < rank_of(v); d++) {
        a.div[d] = div;
        a.constancy[d] = v->ty.rank ? v->ty.dim[d] : 1;
    }
    return a;
}

static AxInfo *info(AxCtx *c, const IrValue *v) { return &c->t->info[v->id]; }

static void set(AxCtx *c, const IrValue *v, AxInfo a) {
    AxInfo *old = info(c, v);
    if (memcmp(old, &a, sizeof a) != 0) c->changed = 1;
    *old = a;
}

static void set_const(AxCtx *c, const IrValue *v, int64_t x) {
    c->known[v->id] = 1;
    c->cval[v->id] = x;
    set(c, v, ax_uniform(v, pow2_div(x)));
}

static int is_const(const AxCtx *c, const IrValue *v, int64_t x) {
    return c->known[v->id] && c->cval[v->id] == x;
}

static int64_t div_at(const AxInfo *a, int d, int64_t g) {
    if (g % a->contig[d] == 0) return a->div[d];
    return min64(a->div[d], g);
}

/* Divisibility of every element (runs of one element). */
static int64_t elem_div(const AxInfo *a, int d) { return div_at(a, d, 1); }

/* Element size that scales offsets added to a pointer value. */
static int64_t scale_of(const IrValue *v) {
    return v->ty.k == SK_PTR ? max64(ty_bytes(v->ty.pointee), 1) : 1;
}

/* x + y or x - y (for sub only x may bring the contiguity). */
static AxInfo ax_addsub(const AxInfo *x, const AxInfo *y, int rank, int sub) {
    AxInfo r = ax_unknown();
    for (int d = 0; d < rank; d++) {
        int64_t c = min64(x->contig[d], y->constancy[d]);
        if (!sub) c = max64(c, min64(x->constancy[d], y->contig[d]));
        r.contig[d] = c;
        r.div[d] = min64(div_at(x, d, c), div_at(y, d, c));
        r.constancy[d] = min64(x->constancy[d], y->constancy[d]);
    }
    return r;
}

/* Pointer plus offsets: contiguity in elements, divisibility in bytes. */
static AxInfo ax_ptradd(const AxInfo *p, const AxInfo *o, int rank, int64_t esize) {
    AxInfo r = ax_unknown();
    for (int d = 0; d < rank; d++) {
        int64_t c = max64(min64(p->contig[d], o->constancy[d]),
                          min64(p->constancy[d], o->contig[d]));
        r.contig[d] = c;
        r.div[d] = min64(div_at(p, d, c), min64(div_at(o, d, c) * esize, AX_MAXDIV));
        r.constancy[d] = min64(p->constancy[d], o->constancy[d]);
    }
    return r;
}

static AxInfo ax_mul(AxCtx *c, const IrValue *x, const IrValue *y, int rank) {
    if (is_const(c, y, 1)) return *info(c, x);
    if (is_const(c, x, 1)) return *info(c, y);
    const AxInfo *a = info(c, x), *b = info(c, y);
    AxInfo r = ax_unknown();
    for (int d = 0; d < rank; d++) {
        r.div[d] = min64(elem_div(a, d) * elem_div(b, d), AX_MAXDIV);
        r.constancy[d] = min64(a->constancy[d], b->constancy[d]);
    }
    return r;
}

/* x / 2^s (shr, or div by a known power of two): runs of 2^s consecutive
 * integers starting at multiples of 2^s collapse to one value. */
static AxInfo ax_div_pow2(const AxInfo *a, int rank, int64_t q) {
    AxInfo r = ax_unknown();
    for (int d = 0; d < rank; d++) {
        r.constancy[d] = a->constancy[d];
        if (a->contig[d] >= q && a->div[d] >= q)
            r.constancy[d] = max64(r.constancy[d], q);
        r.div[d] = a->contig[d] > 1 ? 1 : max64(a->div[d] / q, 1);
    }
    return r;
}

/* x % q for a known power of two q: runs aligned to q restart at 0. */
static AxInfo ax_rem_pow2(const AxInfo *a, int rank, int64_t q) {
    AxInfo r = ax_unknown();
    for (int d = 0; d < rank; d++) {
        r.constancy[d] = a->constancy[d];
        if (a->contig[d] >= q && a->div[d] >= q) {
            r.contig[d] = q;
            r.div[d] = AX_MAXDIV;
        } else if (a->contig[d] == 1) {
            r.div[d] = min64(a->div[d], q);
        }
    }
    return r;
}

/* Comparisons: equal runs stay equal; x < y with x contiguous from a
 * multiple of D and y constant and divisible by D changes at most at
 * multiples of D, so the result is constant over min(C, D) runs. */
static AxInfo ax_cmp(const AxInfo *x, const AxInfo *y, int rank, int ordered) {
    AxInfo r = ax_unknown();
    for (int d = 0; d < rank; d++) {
        int64_t k = min64(x->constancy[d], y->constancy[d]);
        if (ordered && x->contig[d] > 1 && y->constancy[d] > 1)
            k = max64(k, min64(min64(x->contig[d], y->constancy[d]),
                               min64(x->div[d], y->div[d])));
        if (ordered && y->contig[d] > 1 && x->constancy[d] > 1)
            k = max64(k, min64(min64(y->contig[d], x->constancy[d]),
                               min64(x->div[d], y->div[d])));
        r.constancy[d] = k;
    }
    return r;
}

/* Only constancy survives: where every input is constant. */
static AxInfo ax_const_only(AxCtx *c, const IrOp *op, int rank) {
    AxInfo r = ax_unknown();
    for (int d = 0; d < rank; d++) {
        int64_t k = op->res[0]->ty.rank ? op->res[0]->ty.dim[d] : 1;
        for (int i = 0; i < op->nargs; i++)
            if (op->args[i]->ty.rank == op->res[0]->ty.rank)
                k = min64(k, info(c, op->args[i])->constancy[d]);
        r.constancy[d] = k;
    }
    return r;
}

static AxInfo ax_join(const AxInfo *a, const AxInfo *b) {
    AxInfo r;
    for (int d = 0; d < IR_MAXRANK; d++) {
        r.contig[d] = min64(a->contig[d], b->contig[d]);
        r.div[d] = min64(a->div[d], b->div[d]);
        r.constancy[d] = min64(a->constancy[d], b->constancy[d]);
    }
    return r;
}

static void analyze_block(AxCtx *c, const IrBlock *b);

static AxInfo ax_broadcast(const AxInfo *a, const IrValue *in, const IrValue *out) {
    AxInfo r = *a;
    for (int d = 0; d < out->ty.rank; d++)
        if (in->ty.dim[d] != out->ty.dim[d]) {
            r.contig[d] = 1;
            r.constancy[d] = out->ty.dim[d];
        }
    return r;
}

/* A new axis of size 1: each element is alone along it, so its
 * divisibility is that of every element. */
static AxInfo ax_expand(const AxInfo *a, const IrValue *in, int axis) {
    AxInfo r = ax_unknown();
    int64_t every = 1;
    for (int d = 0; d < rank_of(in); d++) every = max64(every, elem_div(a, d));
    if (in->ty.rank == 0) every = a->div[0];
    for (int d = 0, j = 0; d <= in->ty.rank; d++) {
        if (d == axis) {
            r.div[d] = every;
            continue;
        }
        r.contig[d] = a->contig[j];
        r.div[d] = a->div[j];
        r.constancy[d] = a->constancy[j];
        j++;
    }
    return r;
}

static void analyze_loop(AxCtx *c, const IrOp *op);

static void analyze_op(AxCtx *c, const IrOp *op) {
    if (op->nres == 0 && op->nregions == 0) return;
    if (op->op == IR_FOR || op->op == IR_WHILE) {
        analyze_loop(c, op);
        return;
    }
    if (op->op == IR_IF) {
        for (int r = 0; r < op->nregions; r++) analyze_block(c, op->regions[r]);
        for (int i = 0; i < op->nres; i++) {
            AxInfo a = *info(c, op->regions[0]->last->args[i]);
            if (op->nregions > 1 && op->regions[1]->last)
                a = ax_join(&a, info(c, op->regions[1]->last->args[i]));
            set(c, op->res[i], a);
        }
        return;
    }
    const IrValue *res = op->res[0];
    int rank = rank_of(res);
    const IrValue *x = op->nargs > 0 ? op->args[0] : NULL;
    const IrValue *y = op->nargs > 1 ? op->args[1] : NULL;
    const AxInfo *a = x ? info(c, x) : NULL, *b = y ? info(c, y) : NULL;
    int isint = ty_isint(res->ty.k) || res->ty.k == SK_PTR;
    AxInfo r = ax_unknown();
    switch (op->op) {
    case IR_CONST:
        if (ty_isint(res->ty.k) || res->ty.k == SK_BOOL) {
            set_const(c, res, op->iattr[0]);
            return;
        }
        r = ax_uniform(res, 1);
        break;
    case IR_ARANGE:
        r.contig[0] = op->iattr[1] - op->iattr[0];
        r.div[0] = pow2_div(op->iattr[0]);
        break;
    case IR_SPLAT:
        r = ax_uniform(res, a->div[0]);
        if (c->known[x->id]) {
            c->known[res->id] = 1;
            c->cval[res->id] = c->cval[x->id];
        }
        break;
    case IR_BROADCAST: r = ax_broadcast(a, x, res); break;
    case IR_EXPAND_DIMS: r = ax_expand(a, x, (int)op->iattr[0]); break;
    case IR_PERMUTE:
        for (int d = 0; d < rank; d++) {
            r.contig[d] = a->contig[op->iattr[d]];
            r.div[d] = a->div[op->iattr[d]];
            r.constancy[d] = a->constancy[op->iattr[d]];
        }
        break;
    case IR_CAST:
        if (isint && (ty_isint(x->ty.k) || x->ty.k == SK_BOOL) &&
            ty_bits(res->ty.k) >= ty_bits(x->ty.k))
            r = *a;
        else
            r = ax_const_only(c, op, rank);
        break;
    case IR_MULTIPLE_OF:
        r = *a;
        for (int d = 0; d < rank; d++) r.div[d] = min64(op->iattr[0], AX_MAXDIV);
        break;
    case IR_MAX_CONTIG:
        r = *a;
        r.contig[rank - 1] = op->iattr[0];
        break;
    case IR_CONVERT_LAYOUT: r = *a; break;
    case IR_ADD:
    case IR_SUB:
        r = isint ? ax_addsub(a, b, rank, op->op == IR_SUB)
                  : ax_const_only(c, op, rank);
        break;
    case IR_PTRADD: r = ax_ptradd(a, b, rank, scale_of(res)); break;
    case IR_MUL: r = isint ? ax_mul(c, x, y, rank) : ax_const_only(c, op, rank); break;
    case IR_SHL:
        if (c->known[y->id] && c->cval[y->id] >= 0 && c->cval[y->id] < 30) {
            r = ax_const_only(c, op, rank);
            for (int d = 0; d < rank; d++)
                r.div[d] = min64(elem_div(a, d) << c->cval[y->id], AX_MAXDIV);
        } else {
            r = ax_const_only(c, op, rank);
        }
        break;
    case IR_SHR:
    case IR_DIV:
    case IR_REM: {
        int64_t q = y && c->known[y->id] ? c->cval[y->id] : 0;
        if (op->op == IR_SHR) q = q >= 0 && q < 30 ? INT64_C(1) << q : 0;
        if (isint && q > 0 && (q & (q - 1)) == 0)
            r = op->op == IR_REM ? ax_rem_pow2(a, rank, q) : ax_div_pow2(a, rank, q);
        else
            r = ax_const_only(c, op, rank);
        break;
    }
    case IR_CMP:
        r = ax_cmp(a, b, rank, op->iattr[0] >= CMP_LT);
        break;
    case IR_SELECT: {
        const AxInfo *e = info(c, op->args[2]);
        r = ax_const_only(c, op, rank);
        for (int d = 0; d < rank && isint; d++) {
            int64_t k = min64(min64(b->contig[d], e->contig[d]), a->constancy[d]);
            r.contig[d] = k;
            r.div[d] = min64(div_at(b, d, k), div_at(e, d, k));
        }
        break;
    }
    case IR_LOAD:
        /* Equal addresses (under one mask) load equal values. */
        r = ax_const_only(c, op, rank);
        break;
    case IR_REDUCE:
        if (res->ty.rank)
            for (int d = 0, j = 0; d < x->ty.rank; d++)
                if (d != op->iattr[1]) r.constancy[j++] = a->constancy[d];
        break;
    case IR_PROGRAM_ID: case IR_NUM_PROGRAMS: case IR_RESHAPE: case IR_SCAN:
    case IR_DOT: case IR_ATOMIC: case IR_ATOMIC_CAS:
        break;
    default:
        /* Element-wise math and bit operations: constancy only. */
        r = ax_const_only(c, op, rank);
        break;
    }
    set(c, res, r);
}

/* Loops: region arguments start as the initial values (and, for `for`,
 * the induction variable as lo + k * step) and are joined with what the
 * body yields until they stop changing. */
static void analyze_loop(AxCtx *c, const IrOp *op) {
    int isfor = op->op == IR_FOR;
    const IrBlock *body = op->regions[0];
    int first = isfor ? 3 : 0, skip = isfor ? 1 : 0;
    if (isfor) {
        AxInfo iv = ax_unknown();
        iv.div[0] = min64(info(c, op->args[0])->div[0], info(c, op->args[2])->div[0]);
        set(c, body->args[0], iv);
    }
    for (int i = first; i < op->nargs; i++)
        set(c, body->args[i - first + skip], *info(c, op->args[i]));
    for (int round = 0;; round++) {
        int before = c->changed;
        c->changed = 0;
        analyze_block(c, body);
        const IrOp *term = body->last;
        if (!isfor) {
            /* condition(cond, values...) feeds the "after" region. */
            const IrBlock *after = op->regions[1];
            for (int i = 0; i < after->nargs; i++)
                set(c, after->args[i], *info(c, term->args[i + 1]));
            analyze_block(c, after);
            term = after->last;
        }
        for (int i = 0; term && i < term->nargs; i++) {
            const IrValue *arg = body->args[i + skip];
            AxInfo j = ax_join(info(c, arg), info(c, term->args[i]));
            set(c, arg, j);
        }
        int changed = c->changed;
        c->changed = before || changed;
        if (!changed) break;
        if (round == 16)  /* give up: nothing known about carried values */
            for (int i = skip; i < body->nargs; i++) set(c, body->args[i], ax_unknown());
    }
    const IrBlock *src = isfor ? body : op->regions[1];
    for (int i = 0; i < op->nres; i++)
        set(c, op->res[i], *info(c, src->args[i + (isfor ? skip : 0)]));
}

static void analyze_block(AxCtx *c, const IrBlock *b) {
    for (const IrOp *op = b->first; op; op = op->next) analyze_op(c, op);
}

AxTable *ax_analyze(Arena *ar, const IrKernel *k, LyVariant v) {
    AxTable *t = ar_alloc(ar, sizeof *t);
    t->nvalues = k->nvalues;
    t->info = ar_alloc(ar, sizeof(AxInfo) * (size_t)(k->nvalues + 1));
    for (int i = 0; i < k->nvalues; i++) t->info[i] = ax_unknown();
    AxCtx c = {t, k, v, ar_alloc(ar, (size_t)k->nvalues + 1),
               ar_alloc(ar, sizeof(int64_t) * (size_t)(k->nvalues + 1)), 0};
    for (int i = 0; i < k->nparams; i++) {
        const IrParam *p = &k->params[i];
        int64_t div = 1;
        if (v == LY_VARIANT_ALIGNED && p->ty.k == SK_PTR) div = 16;
        if (v == LY_VARIANT_ALIGNED && ty_isint(p->ty.k) && !p->nospecialize)
            div = 16;
        t->info[k->body->args[i]->id].div[0] = div;
    }
    analyze_block(&c, k->body);
    return t;
}

const AxInfo *ax_of(const AxTable *t, const IrValue *v) {
    return v->id < t->nvalues ? &t->info[v->id] : NULL;
}
