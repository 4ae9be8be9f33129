/*
 * tma.c — which rings a TMA copy fills (Hopper's tensor memory
 * accelerator: cp.async.bulk.tensor), and the tensor map each needs.
 *
 * A ring's load (plan/pipeline.c marked it; plan/lowering.c laid out its
 * slots in wgmma's canonical swizzled layout) copies a 2-D tile. Where
 * that tile is a box of a 2-D tensor the host can describe at launch,
 * one thread can copy it with one instruction per 128-byte-wide column
 * block, into exactly the bytes the threads' cp.async would have
 * written: ly_smem_wgmma's layout (blocks of `swizzle` bytes of the
 * contiguous dimension, all rows each, 16-byte units XORed with the row)
 * is what TMA's SWIZZLE_32B/64B/128B modes write for a box `swizzle`
 * bytes wide. The threads then compute no addresses and masks, and no
 * proxy fence sits between the copies and wgmma (both are the async
 * proxy).
 *
 * The load must be, position by position over its [R, C] tile,
 *
 *   load(p + i_o * s + i_f, mask = (i_o < B_o) & (i_f < B_f), other = 0)
 *
 * with p a pointer parameter (the tensor's element [0, 0]), or p offset
 * by b * s_b, b a scalar that fits an i32 and s_b a host scalar (a
 * head's or a batch's offset: a third dimension, box 1, coordinate b,
 * stride s_b, unbounded); i_f and i_o
 * i32 index tiles, each an aligned run of consecutive integers along one
 * dimension (i_f along the ring's contiguous dimension, i_o along the
 * other) and constant along the other (axis info: contiguity and
 * constancy over the whole extent, so i(x) = i(0) + x exactly; i_f may
 * carry a multiplier that the variant's facts make 1: a unit-stride
 * variant's `(k + rk) * sak`, whose guard holds sak equal to 1); s the
 * row stride and B_o, B_f the
 * bounds: each a parameter or a constant, so that libtile can evaluate
 * them from the arguments; either mask term may be absent (that
 * dimension unbounded: the program promises the elements exist). Then
 * element (x, y) of the load is element (i_f(0) + x, i_o(0) + y) of the
 * tensor [B_f, B_o] with row stride s, zero outside it — TMA's box at
 * coordinates (i_f(0), i_o(0)) with out-of-bounds fill zero. The mask
 * may list its terms in any order, through broadcasts and layout
 * conversions, and compare either way round (i < B or B > i); any other
 * term (a second bound on one index, `i >= 0`, a mask on a third value)
 * keeps the ring on cp.async. A bound B <= 0 at run time makes every
 * element zero, which a tensor map cannot say (its extents are at least
 * 1): the copy then starts at a coordinate out of bounds (lower/
 * tma.c). Elements the mask admits at a negative index, or past the
 * tensor's end along an unbounded dimension, lie outside the buffer the
 * parameter points to: the language leaves such loads undefined (the
 * interpreter stops with an error), and TMA reads them as zeros. So
 * does an offset whose i32 arithmetic (i_o * s) would wrap, which the
 * plain load follows to a wrapped address: a program that wraps reads
 * outside its buffer unless that buffer holds more than 2^32 elements
 * (docs/language.md: compute such offsets in i64).
 *
 * The address may also add scalars, splat over the tile: c times the
 * multiplier of a term (c * s) or alone (the term without one), each
 * term at most one such c, an i32 value through widenings. Such a term
 * is i + c where the mask bounds (c + i) < B itself (i and c the same
 * values, in either order, through matching expand_dims): then the box's
 * coordinate is i(0) + c, element 0 of the mask's own i32 tile. This is
 * how a pointer the loop steps reads after plan/induction.c (`pa +=
 * BK` over range(0, K, BK) becomes pa_0 + k, `pb += BK * ldb` pb_0 + k *
 * ldb) beside the mask a program writes on `k + rk`, or on `rk` against
 * `K - k` (i < B - c read as c + i < B; the two differ only where i32
 * arithmetic wraps, as below). A shifted term
 * without such a mask keeps the ring on cp.async: the address adds c in
 * i64, where a coordinate's i32 sum could wrap. (With the mask, c + i
 * wraps only where the mask itself admits a negative index: as above,
 * a program reading outside its buffer.)
 *
 * The tensor map's own rules, checked here: the base 16-byte aligned and
 * the row stride a multiple of 16 bytes (from the variant's facts: axis
 * info of the parameters; a batch stride too), boxes at most 256 along
 * each dimension, the
 * box's inner extent a multiple of 16 bytes (the swizzle width is). A
 * stride below 1 at run time cannot be encoded: libtile then launches a
 * variant without maps.
 *
 * Only rings read by wgmma through descriptors qualify (not those the
 * threads read: an A in registers, a tf32 tile moved K-major), and only
 * under LY_PLAN_TMA: the default, which tilec --no-tma (TcOptions.no_tma)
 * leaves off.
 */
#include "plan/layout.h"

#include <string.h>

/* v through broadcasts and layout conversions, which keep each
 * position's value (broadcast stretches size-1 dimensions in place). */
static const IrValue *strip(const IrValue *v) {
    while (v->def && (v->def->op == IR_BROADCAST || v->def->op == IR_CONVERT_LAYOUT))
        v = v->def->args[0];
    return v;
}

/* v through integer casts that keep every value: widenings, but for a
 * signed integer made unsigned. */
static const IrValue *unwiden(const IrValue *v) {
    while (v->def && v->def->op == IR_CAST && v->ty.rank == 0) {
        const IrValue *x = v->def->args[0];
        ScalarKind from = (ScalarKind)x->ty.k, to = (ScalarKind)v->ty.k;
        int same = ty_bits(to) == ty_bits(from) && ty_issigned(to) == ty_issigned(from);
        int wider = ty_bits(to) > ty_bits(from) && !(ty_issigned(from) && !ty_issigned(to));
        if (!ty_isint(from) || !ty_isint(to) || !(same || wider)) break;
        v = x;
    }
    return v;
}

/* A scalar the host can evaluate: a parameter of k (an integer) or an
 * integer constant, possibly widened (libtile evaluates parameters as
 * 64-bit values). */
static int host_scalar(const IrKernel *k, const IrValue *v) {
    if (v->ty.rank != 0 || !ty_isint((ScalarKind)v->ty.k)) return 0;
    v = unwiden(v);
    if (!v->def) return v->block == k->body;
    return v->def->op == IR_CONST;
}

/* The scalar a tile splats (through broadcasts), when host_scalar. */
static const IrValue *splat_scalar(const IrKernel *k, const IrValue *v) {
    v = strip(v);
    if (!v->def || v->def->op != IR_SPLAT) return NULL;
    return host_scalar(k, v->def->args[0]) ? v->def->args[0] : NULL;
}

typedef struct Term {
    const IrValue *idx;     /* stripped index tile */
    const IrValue *mult;    /* its scalar multiplier, NULL: 1 */
    const IrValue *shift;   /* a scalar the address adds to idx (times
                               mult), NULL: none */
    const IrValue *bound;   /* the mask's bound on it (shifted alike),
                               NULL: none */
    int dim;                /* the dimension it runs along */
} Term;

typedef struct Form {
    int param;              /* the base pointer parameter, -1: none */
    int flip;               /* the load's tile is the terms' transposed */
    const IrValue *batch;   /* a scalar index c of a third dimension ... */
    const IrValue *bstride; /* ... whose stride is this host scalar: the
                               base offset by c * bstride; NULL: none */
    int n;
    Term t[2];
    int nshift;
    const IrValue *shift[2];  /* scalar offsets of the address (elements),
                                 each a term's shift times its multiplier */
} Form;

/* off (elements, times mult) into terms of f; 0 when it is no sum of at
 * most two index tiles each times a host scalar, and at most two splat
 * scalars (shifts, matched to the terms below). */
static int offset_terms(const IrKernel *k, Form *f, const IrValue *off, const IrValue *mult) {
    off = strip(off);
    const IrOp *op = off->def;
    if (op && op->op == IR_SPLAT && !mult && op->args[0]->ty.rank == 0 && f->nshift < 2) {
        f->shift[f->nshift++] = op->args[0];
        return 1;
    }
    if (op && op->op == IR_ADD)
        return offset_terms(k, f, op->args[0], mult) && offset_terms(k, f, op->args[1], mult);
    if (op && op->op == IR_MUL && !mult) {
        for (int i = 0; i < 2; i++) {
            const IrValue *s = splat_scalar(k, op->args[i]);
            if (s) return offset_terms(k, f, op->args[1 - i], s);
        }
    }
    if (f->n == 2 || off->ty.rank != 2) return 0;
    f->t[f->n++] = (Term){.idx = off, .mult = mult, .dim = -1};
    return 1;
}

/* A scalar offset c * s of the base (elements): s a host scalar, c an
 * index that fits a TMA coordinate (i32), into f's third dimension. */
static int batch_offset(const IrKernel *k, const AxTable *ax, Form *f, const IrValue *off) {
    const IrOp *op = off->def;
    if (f->batch || !op || op->op != IR_MUL || off->ty.rank != 0) return 0;
    for (int i = 0; i < 2; i++) {
        const IrValue *c = op->args[1 - i], *sv = op->args[i];
        const AxInfo *a = ax_of(ax, c);
        if (!host_scalar(k, sv) || !a || a->lo < INT32_MIN || a->hi > INT32_MAX) continue;
        f->batch = c;
        f->bstride = sv;
        return 1;
    }
    return 0;
}

/* The scalar pointer b as a parameter plus, at most, a batch offset. */
static int base_form(const IrKernel *k, const AxTable *ax, Form *f, const IrValue *b) {
    if (b->def && b->def->op == IR_PTRADD)
        return base_form(k, ax, f, b->def->args[0]) && batch_offset(k, ax, f, b->def->args[1]);
    if (b->def || b->block != k->body || b->ty.k != SK_PTR || f->param >= 0) return 0;
    f->param = b->index;
    return 1;
}

/* The pointer tile p as base + terms. */
static int pointer_form(const IrKernel *k, const AxTable *ax, Form *f, const IrValue *p) {
    p = strip(p);
    const IrOp *op = p->def;
    if (op && op->op == IR_PTRADD)
        return pointer_form(k, ax, f, op->args[0]) && offset_terms(k, f, op->args[1], NULL);
    if (op && op->op == IR_SPLAT) return base_form(k, ax, f, op->args[0]);
    return 0;
}

/* a and b (integer scalars) are one value: the same through widenings,
 * or equal constants. */
static int same_scalar(const IrValue *a, const IrValue *b) {
    return ly_same_int(unwiden(a), unwiden(b));
}

/* Tile m is tile t plus scalar *c (NULL: m is t): through broadcasts,
 * conversions and matching expand_dims, m adds splat(c) to t. */
static int shifted_of(const IrValue *t, const IrValue *m, const IrValue **c) {
    t = strip(t);
    m = strip(m);
    *c = NULL;
    if (t == m) return 1;
    const IrOp *tm = t->def, *mm = m->def;
    if (!mm) return 0;
    if (mm->op == IR_ADD)
        for (int i = 0; i < 2; i++) {
            const IrValue *s = strip(mm->args[i]);
            if (s->def && s->def->op == IR_SPLAT && s->def->args[0]->ty.rank == 0 &&
                strip(mm->args[1 - i]) == t) {
                *c = s->def->args[0];
                return 1;
            }
        }
    if (tm && tm->op == IR_EXPAND_DIMS && mm->op == IR_EXPAND_DIMS &&
        tm->iattr[0] == mm->iattr[0] && t->ty.rank == m->ty.rank &&
        !memcmp(t->ty.dim, m->ty.dim, sizeof t->ty.dim))
        return shifted_of(tm->args[0], mm->args[0], c) && *c;
    return 0;
}

/* The term the mask's compared tile x is (shifted as the address
 * shifts it), or NULL. */
static Term *term_of(Form *f, const IrValue *x) {
    for (int i = 0; i < f->n; i++) {
        const IrValue *c;
        Term *t = &f->t[i];
        if (shifted_of(t->idx, x, &c) && (c ? t->shift && same_scalar(c, t->shift) : !t->shift))
            return t;
    }
    return NULL;
}

/* Each scalar offset of the address to the term it shifts: one times a
 * term's multiplier (a host scalar) to that term, one alone to the term
 * without; each term shifted by at most one, an i32 coordinate. */
static int place_shifts(Form *f) {
    for (int s = 0; s < f->nshift; s++) {
        const IrValue *v = f->shift[s], *c = NULL;
        Term *to = NULL;
        const IrOp *m = v->def;
        for (int i = 0; i < f->n && !to; i++) {
            Term *t = &f->t[i];
            if (!t->mult || !m || m->op != IR_MUL) continue;
            for (int a = 0; a < 2 && !to; a++)
                if (same_scalar(m->args[a], t->mult)) {
                    to = t;
                    c = m->args[1 - a];
                }
        }
        for (int i = 0; i < f->n && !to; i++)
            if (!f->t[i].mult) {
                to = &f->t[i];
                c = v;
            }
        if (!to || to->shift || unwiden(c)->ty.k != SK_I32) return 0;
        to->shift = unwiden(c);
    }
    return 1;
}

/* The shifted term whose own index tile x is (unshifted), or NULL. */
static Term *unshifted_term(Form *f, const IrValue *x) {
    for (int i = 0; i < f->n; i++) {
        const IrValue *c;
        if (f->t[i].shift && shifted_of(f->t[i].idx, x, &c) && !c) return &f->t[i];
    }
    return NULL;
}

/* B where tile v is splat(B - c), B a host scalar, c the shift. */
static const IrValue *bound_less(const IrKernel *k, const IrValue *v, const IrValue *c) {
    v = strip(v);
    const IrOp *s = v->def;
    if (!s || s->op != IR_SPLAT || s->args[0]->ty.rank) return NULL;
    const IrOp *d = s->args[0]->def;
    if (!d || d->op != IR_SUB || !host_scalar(k, d->args[0]) || !same_scalar(d->args[1], c))
        return NULL;
    return d->args[0];
}

/* Every conjunct of mask m bounds one term from above by a host scalar,
 * at most once each. */
static int mask_bounds(const IrKernel *k, Form *f, const IrValue *m) {
    m = strip(m);
    const IrOp *op = m->def;
    if (!op) return 0;
    if (op->op == IR_AND)
        return mask_bounds(k, f, op->args[0]) && mask_bounds(k, f, op->args[1]);
    if (op->op != IR_CMP || (op->iattr[0] != CMP_LT && op->iattr[0] != CMP_GT)) return 0;
    int lt = op->iattr[0] == CMP_LT;
    const IrValue *x = op->args[lt ? 0 : 1], *bs = op->args[lt ? 1 : 0];
    Term *t = term_of(f, x);
    const IrValue *b = splat_scalar(k, bs);
    if (!t && !b) {   /* i < B - c: the shifted index's bound, c moved */
        t = unshifted_term(f, x);
        b = t ? bound_less(k, bs, t->shift) : NULL;
    }
    if (!t || !b || t->bound || b->ty.k != t->idx->ty.k) return 0;
    t->bound = b;
    return 1;
}

/* v without a transposition of a 2-D tile at its top (permute [1, 0]:
 * a product swapped by plan/swap_dot.c loads its operands so), counted
 * in *flips. */
static const IrValue *untranspose(const IrValue *v, int *flips) {
    v = strip(v);
    if (v->def && v->def->op == IR_PERMUTE && v->ty.rank == 2 && v->def->iattr[0] == 1) {
        ++*flips;
        return v->def->args[0];
    }
    return v;
}

/* The dimension index tile v of `shape` runs along: consecutive over the
 * whole extent there, constant along the other; -1 when neither. */
static int run_dim(const AxTable *ax, const IrValue *v) {
    const AxInfo *a = ax_of(ax, v);
    if (!a || v->ty.rank != 2 || v->ty.k != SK_I32) return -1;
    for (int d = 0; d < 2; d++)
        if (a->contig[d] >= v->ty.dim[d] && a->constancy[1 - d] >= v->ty.dim[1 - d])
            return d;
    return -1;
}

/* What axis info knows divides scalar v (a constant: its value). */
static int64_t scalar_div(const AxTable *ax, const IrValue *v) {
    int64_t c;
    const AxInfo *a = ax_of(ax, v);
    if (!a) return 1;
    if (ax_is_const(a, &c)) return c;
    return a->div[0];
}

/* Scalar v is a constant under the variant's facts (*c: its value). */
static int known(const AxTable *ax, const IrValue *v, int64_t *c) {
    const AxInfo *a = ax_of(ax, v);
    return a && ax_is_const(a, c);
}

/* The box form of memory op `op` — its address `ptr` and mask `mask`
 * (NULL: none) over a tile of type `ty`, in a buffer laid out as s — or
 * NULL. */
static LyTma *box_form(Arena *ar, const IrKernel *k, const AxTable *ax, const IrOp *op,
                       const IrValue *ptr, const IrValue *mask, Type ty, const LySmem *s) {
    int esize = s->esize, fast = s->fast;
    Type tp = ty_pad(ty);
    if (!s->swizzle || memcmp(tp.dim, ty.dim, sizeof tp.dim) || s->shape[1 - fast] > 256)
        return NULL;
    Form f = {.param = -1};
    ptr = untranspose(ptr, &f.flip);
    if (!pointer_form(k, ax, &f, ptr) || f.param < 0 || f.n != 2 || !place_shifts(&f))
        return NULL;
    if (mask) {
        int flips = 0;
        const IrValue *m = untranspose(mask, &flips);
        if (flips != f.flip || !mask_bounds(k, &f, m)) return NULL;
    }
    Term *tf = NULL, *to = NULL;
    for (int i = 0; i < 2; i++) {
        Term *t = &f.t[i];
        t->dim = run_dim(ax, t->idx);
        if (t->dim >= 0 && f.flip) t->dim = 1 - t->dim;
        int64_t one;   /* a stride the guard holds equal to 1: a unit-stride variant's */
        if (t->dim == fast && (!t->mult || (known(ax, t->mult, &one) && one == 1))) tf = t;
        else if (t->dim == 1 - fast && t->mult) to = t;
    }
    if (!tf || !to) return NULL;
    /* a shift only where the mask bounds the shifted index: the
     * coordinate is then element 0 of the mask's own i32 tile */
    if ((tf->shift && !tf->bound) || (to->shift && !to->bound)) return NULL;
    int64_t c;
    if (known(ax, to->mult, &c) && c < 1) return NULL;
    if (scalar_div(ax, to->mult) * esize % 16 != 0 ||
        scalar_div(ax, k->body->args[f.param]) % 16 != 0)
        return NULL;
    if (f.batch && (scalar_div(ax, f.bstride) * esize % 16 != 0 ||
                    (known(ax, f.bstride, &c) && c < 1)))
        return NULL;
    LyTma *t = ar_alloc(ar, sizeof *t);
    memset(t, 0, sizeof *t);
    t->op = op;
    t->param = f.param;
    t->elem = (ScalarKind)ty.k;
    t->swizzle = s->swizzle;
    t->box[0] = s->swizzle / esize < s->shape[fast] ? s->swizzle / esize : s->shape[fast];
    t->box[1] = s->shape[1 - fast];
    t->nbox = s->shape[fast] / t->box[0];
    /* box b starts b * rows * swizzle bytes in: on the swizzle pattern's
     * period (8 rows) only when the rows are a multiple of 8 (a slot's
     * always are; a store's [4, 64] f32 tile's are not) */
    if (t->nbox > 1 && t->box[1] % 8 != 0) return NULL;
    t->index[0] = tf->idx;
    t->index[1] = to->idx;
    t->run[0] = run_dim(ax, tf->idx);
    t->run[1] = run_dim(ax, to->idx);
    t->bound[0] = tf->bound;
    t->bound[1] = to->bound;
    t->shift[0] = tf->shift;
    t->shift[1] = to->shift;
    t->stride = to->mult;
    t->rank = f.batch ? 3 : 2;
    t->batch = f.batch;
    t->bstride = f.bstride;
    return t;
}

LyTma *ly_tma_ring(Arena *ar, const IrKernel *k, const AxTable *ax, const LyRing *r) {
    const IrOp *ld = r->load;
    return box_form(ar, k, ax, ld, ld->args[0], (ld->iattr[0] & LOAD_MASK) ? ld->args[1] : NULL,
                    ld->res[0]->ty, r->s);
}

LyTma *ly_tma_store(Arena *ar, const IrKernel *k, const AxTable *ax, const IrOp *st,
                    const LySmem *s) {
    return box_form(ar, k, ax, st, st->args[0], st->nargs > 2 ? st->args[2] : NULL,
                    st->args[1]->ty, s);
}
