/*
 * axis.c — axis info: what is known about the integers (and addresses) a
 * value holds, per dimension, so that loads and stores can be vectorized
 * and element-wise work done once per run of equal values.
 *
 * For each value and dimension we keep three powers of two (see AxInfo in
 * layout.h): contiguity C (aligned runs of C consecutive integers),
 * divisibility D (of the first element of each such run; bytes for
 * pointers) and constancy K (aligned runs of K equal values); and per
 * value an interval [lo, hi] holding every element. The facts are about
 * the values the machine computes: integer arithmetic wraps modulo 2^w,
 * so "consecutive" means x + 1 in the element type. The interval is what
 * proves that no wrap happens where that matters (a widening cast, an
 * offset sign-extended into an address, signed `/` and `%`).
 *
 * The idea is Triton's AxisInfo analysis; the transfer functions are
 * written from the arithmetic and each is checked by brute force over
 * concrete tiles (tests/unit/test_axis_rules.c), with one helper doing
 * most of the work:
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
 * ax_rule is one op's transfer function, pure: the result's facts from the
 * operands' facts, the op's attributes and types. ax_analyze is a forward
 * walk that applies it. Loops iterate to a fixed point: the region
 * arguments start from the initial values and are joined (ax_join) with
 * what the body yields until nothing changes; every step only lowers
 * values, so this terminates (a bound on rounds falls back to "nothing
 * known"; intervals, which can grow, are dropped after a few rounds).
 */
#include "plan/layout.h"

#include <string.h>

#define AX_MAXDIV (INT64_C(1) << 30)
#define AX_WIDEN_ROUNDS 4   /* loop rounds before intervals are dropped */
#define AX_GIVE_UP 16       /* rounds before carried values are unknown */

typedef struct AxCtx {
    AxTable *t;
    const IrKernel *k;
    int changed;
    uint8_t *seen;       /* by id of a loop body's first argument: the loop
                            was analyzed before (an enclosing loop's round) */
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

/* ------------------------------------------------------------ intervals */

/* The interval of every value of an integer or bool kind. For other
 * kinds, and for u64 (whose values above INT64_MAX an int64 interval
 * cannot hold), (INT64_MIN, INT64_MAX) stands for "nothing known". */
static void kind_range(ScalarKind k, int64_t *lo, int64_t *hi) {
    *lo = INT64_MIN;
    *hi = INT64_MAX;
    if (k == SK_BOOL) {
        *lo = 0;
        *hi = 1;
    } else if (ty_isint(k) && ty_bits(k) < 64) {
        int bits = ty_bits(k);
        *lo = ty_issigned(k) ? -(INT64_C(1) << (bits - 1)) : 0;
        *hi = ty_issigned(k) ? (INT64_C(1) << (bits - 1)) - 1 : (INT64_C(1) << bits) - 1;
    }
}

/* Sets a's interval to [lo, hi] if every value of kind k in it is
 * representable (no wrap happened), else to nothing known. */
static void set_range(AxInfo *a, ScalarKind k, int64_t lo, int64_t hi) {
    int64_t klo, khi;
    kind_range(k, &klo, &khi);
    if (!ty_isint(k) && k != SK_BOOL) lo = klo, hi = khi;
    if (lo < klo || hi > khi || lo > hi || (k == SK_U64 && lo < 0)) lo = klo, hi = khi;
    a->lo = lo;
    a->hi = hi;
}

int ax_is_const(const AxInfo *a, int64_t *value) {
    if (a->lo != a->hi) return 0;
    if (value) *value = a->lo;
    return 1;
}

/* x's interval excludes its kind's largest or smallest value, so a run
 * of consecutive values (x + 1 in the element type) never wraps. */
static int never_wraps(const AxInfo *a, ScalarKind k) {
    int64_t klo, khi;
    kind_range(k, &klo, &khi);
    if (k == SK_U64) return a->lo >= 0;  /* a u64 interval is below 2^63 */
    return a->lo > klo || a->hi < khi;
}

/* --------------------------------------------------------------- facts */

/* Nothing known: every run has length 1 and divisibility 1. */
static AxInfo ax_unknown(void) {
    AxInfo a;
    for (int d = 0; d < IR_MAXRANK; d++) a.contig[d] = a.div[d] = a.constancy[d] = 1;
    a.lo = INT64_MIN;
    a.hi = INT64_MAX;
    return a;
}

/* The extent of v along d as its layout has it (padded: ir.h), 1 for a
 * scalar. Facts are about runs inside the padded tile; a run that crosses
 * into the padding is never accessed as one (ly_mem_vec bounds vectors
 * by the padding's mask), so the padding lanes' values matter to none. */
static int64_t pad_extent(const IrValue *v, int d) {
    return v->ty.rank ? pow2_ceil(v->ty.dim[d]) : 1;
}

/* A value equal everywhere with divisibility `div`. */
static AxInfo ax_uniform(const IrValue *v, int64_t div) {
    AxInfo a = ax_unknown();
    for (int d = 0; d < rank_of(v); d++) {
        a.div[d] = div;
        a.constancy[d] = pad_extent(v, d);
    }
    return a;
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

/* The longest run from a multiple of its length that cannot cross kind
 * k's wrap point (2^(w-1) - 1 to -2^(w-1) signed, 2^w - 1 to 0 unsigned):
 * runs of consecutive values longer than that may (an i8 run of 256 from
 * 0 holds 127 and -128). */
static int64_t wrap_run(ScalarKind k) {
    int bits = ty_bits(k) - (ty_issigned(k) ? 1 : 0);
    return bits >= 30 ? AX_MAXDIV : INT64_C(1) << bits;
}

/* Runs of length C that may wrap are cut to runs that cannot: those of
 * length c = min(C, D) start at a multiple of c, and when c divides the
 * wrap point (2^(w-1) signed, 2^w unsigned) no such run crosses it. Used
 * where a value of kind k is sign- or zero-extended. */
static void cut_wrapping_runs(AxInfo *r, const AxInfo *a, ScalarKind k, int rank) {
    if (never_wraps(a, k)) return;
    int64_t wrap = wrap_run(k);
    for (int d = 0; d < rank; d++) {
        int64_t c = min64(min64(r->contig[d], div_at(a, d, r->contig[d])), wrap);
        r->div[d] = div_at(r, d, c);
        r->contig[d] = c;
    }
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

/* Pointer plus offsets: contiguity in elements, divisibility in bytes.
 * An offset narrower than the address is extended first: its runs must
 * not wrap. */
static AxInfo ax_ptradd(const AxInfo *p, const AxInfo *o, const IrValue *off,
                        int rank, int64_t esize) {
    AxInfo ow = *o;
    if (ty_bits(off->ty.k) < 64) cut_wrapping_runs(&ow, o, off->ty.k, rank);
    AxInfo r = ax_unknown();
    for (int d = 0; d < rank; d++) {
        int64_t c = max64(min64(p->contig[d], ow.constancy[d]),
                          min64(p->constancy[d], ow.contig[d]));
        r.contig[d] = c;
        r.div[d] = min64(div_at(p, d, c), min64(div_at(&ow, d, c) * esize, AX_MAXDIV));
        r.constancy[d] = min64(p->constancy[d], ow.constancy[d]);
    }
    return r;
}

static AxInfo ax_mul(const AxInfo *a, const AxInfo *b, int rank) {
    if (ax_is_const(b, NULL) && b->lo == 1) return *a;
    if (ax_is_const(a, NULL) && a->lo == 1) return *b;
    AxInfo r = ax_unknown();
    for (int d = 0; d < rank; d++) {
        r.div[d] = min64(elem_div(a, d) * elem_div(b, d), AX_MAXDIV);
        r.constancy[d] = min64(a->constancy[d], b->constancy[d]);
    }
    return r;
}

/* floor(x / 2^s) (shr, or div by a known power of two of a value that is
 * not negative): runs of 2^s consecutive integers starting at multiples
 * of 2^s collapse to one value. */
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

/* x / q for a known power of two q where every element of x is a
 * multiple of q (runs of one element, each divisible by q): the division
 * is exact, so truncation and floor agree whatever the sign, and each
 * quotient is a multiple of div / q (`half = d / 2` of a size d that is
 * a multiple of 16 is a multiple of 8). Equal elements stay equal. */
static int ax_div_exact(const AxInfo *a, int rank, int64_t q, AxInfo *r) {
    for (int d = 0; d < rank; d++)
        if (a->contig[d] > 1 || a->div[d] < q) return 0;
    *r = ax_unknown();
    for (int d = 0; d < rank; d++) {
        r->constancy[d] = a->constancy[d];
        r->div[d] = a->div[d] / q;
    }
    return 1;
}

/* x % q for a known power of two q and x not negative: runs aligned to
 * q restart at 0. (Truncated division of a multiple of g by q leaves a
 * multiple of min(g, q) whatever the signs.) */
static AxInfo ax_rem_pow2(const AxInfo *a, int rank, int64_t q, int nonneg) {
    AxInfo r = ax_unknown();
    for (int d = 0; d < rank; d++) {
        r.constancy[d] = a->constancy[d];
        if (nonneg && a->contig[d] >= q && a->div[d] >= q) {
            r.contig[d] = q;
            r.div[d] = AX_MAXDIV;
        } else if (a->contig[d] == 1) {
            r.div[d] = min64(a->div[d], q);
        }
    }
    return r;
}

/* Comparisons: equal runs stay equal. With x contiguous (x0, x0 + 1, ...)
 * from a multiple of g and y constant c, a multiple of g, over aligned runs
 * of g = min(Cx, Ky, Dx, Dy): x0 < c exactly when x0 + g - 1 < c, so
 * `x < y` and `x >= y` are constant over such runs; `x <= y`, `x > y`,
 * `==` and `!=` are not (at x0 == c). Mirrored, `y > x` and `y <= x`. A
 * run of g from a multiple of g, g at most wrap_run of the kind, never
 * wraps, so signedness is irrelevant.
 */
static int64_t cmp_run(const AxInfo *x, const AxInfo *y, int d, ScalarKind k) {
    if (x->contig[d] < 2 || y->constancy[d] < 2) return 1;
    return min64(min64(min64(x->contig[d], y->constancy[d]), min64(x->div[d], y->div[d])),
                 wrap_run(k));
}

static AxInfo ax_cmp(const AxInfo *x, const AxInfo *y, const IrValue *xv,
                     int rank, CmpPred p) {
    AxInfo r = ax_unknown();
    ScalarKind kind = (ScalarKind)xv->ty.k;
    int ints = ty_isint(kind);  /* pointers: D is in bytes, C not */
    for (int d = 0; d < rank; d++) {
        int64_t k = min64(x->constancy[d], y->constancy[d]);
        if (ints && (p == CMP_LT || p == CMP_GE)) k = max64(k, cmp_run(x, y, d, kind));
        if (ints && (p == CMP_GT || p == CMP_LE)) k = max64(k, cmp_run(y, x, d, kind));
        r.constancy[d] = k;
    }
    return r;
}

/* Only constancy survives: where every input is constant. */
static AxInfo ax_const_only(const IrOp *op, const AxInfo *const *in, int rank) {
    AxInfo r = ax_unknown();
    for (int d = 0; d < rank; d++) {
        int64_t k = pad_extent(op->res[0], d);
        for (int i = 0; i < op->nargs; i++)
            if (op->args[i]->ty.rank == op->res[0]->ty.rank)
                k = min64(k, in[i]->constancy[d]);
        r.constancy[d] = k;
    }
    return r;
}

/* Both a and b may hold: runs of the shorter contiguity, each starting
 * where one of a's or b's shorter runs start. */
AxInfo ax_join(const AxInfo *a, const AxInfo *b) {
    AxInfo r;
    for (int d = 0; d < IR_MAXRANK; d++) {
        r.contig[d] = min64(a->contig[d], b->contig[d]);
        r.div[d] = min64(div_at(a, d, r.contig[d]), div_at(b, d, r.contig[d]));
        r.constancy[d] = min64(a->constancy[d], b->constancy[d]);
    }
    r.lo = min64(a->lo, b->lo);
    r.hi = max64(a->hi, b->hi);
    return r;
}

static AxInfo ax_broadcast(const AxInfo *a, const IrValue *in, const IrValue *out) {
    AxInfo r = *a;
    for (int d = 0; d < out->ty.rank; d++)
        if (in->ty.dim[d] != out->ty.dim[d]) {
            r.contig[d] = 1;
            r.constancy[d] = pad_extent(out, d);
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

/* Integer conversions keep runs of equal values and the power-of-two
 * divisibility (modulo 2^w, a multiple of 2^k for k >= w is 0, divisible
 * by anything); a narrowing one keeps contiguity (modulo the narrower
 * width), a widening one only over runs that do not wrap. */
static AxInfo ax_int_cast(const AxInfo *a, const IrValue *x, const IrValue *res, int rank) {
    AxInfo r = *a;
    if (ty_bits(res->ty.k) > ty_bits(x->ty.k))
        cut_wrapping_runs(&r, a, x->ty.k, rank);
    return r;
}

/* ------------------------------------------------------ interval rules */

/* The interval of a two-operand integer op from its operands', or
 * nothing known; set_range then drops it if it leaves the type. */
static void range_of_binary(const IrOp *op, const AxInfo *a, const AxInfo *b,
                            int64_t *lo, int64_t *hi) {
    int64_t v[4];
    int ovf = 0;
    switch (op->op) {
    case IR_ADD:
        ovf = __builtin_add_overflow(a->lo, b->lo, lo);
        ovf += __builtin_add_overflow(a->hi, b->hi, hi);
        break;
    case IR_SUB:
        ovf = __builtin_sub_overflow(a->lo, b->hi, lo);
        ovf += __builtin_sub_overflow(a->hi, b->lo, hi);
        break;
    case IR_MUL:
        ovf = __builtin_mul_overflow(a->lo, b->lo, &v[0]);
        ovf += __builtin_mul_overflow(a->lo, b->hi, &v[1]);
        ovf += __builtin_mul_overflow(a->hi, b->lo, &v[2]);
        ovf += __builtin_mul_overflow(a->hi, b->hi, &v[3]);
        *lo = min64(min64(v[0], v[1]), min64(v[2], v[3]));
        *hi = max64(max64(v[0], v[1]), max64(v[2], v[3]));
        break;
    case IR_MIN: *lo = min64(a->lo, b->lo); *hi = min64(a->hi, b->hi); break;
    case IR_MAX: *lo = max64(a->lo, b->lo); *hi = max64(a->hi, b->hi); break;
    case IR_DIV: /* a / q and a % q, q a positive constant, a not negative */
    case IR_REM:
    case IR_SHR:
    case IR_AND:
        ovf = 1;
        if (a->lo < 0 || b->lo != b->hi || b->lo <= 0) break;
        ovf = 0;
        if (op->op == IR_DIV) *lo = a->lo / b->lo, *hi = a->hi / b->lo;
        else if (op->op == IR_REM) *lo = 0, *hi = min64(a->hi, b->lo - 1);
        else if (op->op == IR_AND) *lo = 0, *hi = min64(a->hi, b->lo);
        else if (b->lo < 63) *lo = a->lo >> b->lo, *hi = a->hi >> b->lo;
        else *lo = *hi = 0;
        break;
    default:
        ovf = 1;
        break;
    }
    if (ovf) *lo = INT64_MIN, *hi = INT64_MAX;
}

/* An op's interval: exact bounds where the op cannot wrap. */
static void range_rule(const IrOp *op, const AxInfo *const *in, AxInfo *r) {
    const IrValue *res = op->res[0];
    ScalarKind k = (ScalarKind)res->ty.k;
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    const AxInfo *a = op->nargs > 0 ? in[0] : NULL, *b = op->nargs > 1 ? in[1] : NULL;
    int intargs = op->nargs > 0 && (ty_isint(op->args[0]->ty.k) || op->args[0]->ty.k == SK_BOOL);
    switch (op->op) {
    case IR_CONST:
        if (ty_isint(k) || k == SK_BOOL) lo = hi = op->iattr[0];
        break;
    case IR_ARANGE: lo = op->iattr[0]; hi = op->iattr[1] - 1; break;
    case IR_PROGRAM_ID: lo = 0; hi = INT32_MAX; break;
    case IR_NUM_PROGRAMS: lo = 1; hi = INT32_MAX; break;
    case IR_SPLAT: case IR_BROADCAST: case IR_EXPAND_DIMS: case IR_PERMUTE:
    case IR_RESHAPE: case IR_MULTIPLE_OF: case IR_MAX_CONTIG: case IR_CONVERT_LAYOUT:
    case IR_CAST:
        if (intargs) lo = a->lo, hi = a->hi;
        break;
    case IR_CMP: lo = 0; hi = 1; break;
    case IR_SELECT: lo = min64(b->lo, in[2]->lo); hi = max64(b->hi, in[2]->hi); break;
    case IR_REDUCE:
        if (intargs && (op->iattr[0] == RED_MAX || op->iattr[0] == RED_MIN)) lo = a->lo, hi = a->hi;
        if (op->iattr[0] == RED_ARGMAX || op->iattr[0] == RED_ARGMIN)
            lo = 0, hi = op->args[0]->ty.dim[op->iattr[1]] - 1;
        break;
    case IR_ADD: case IR_SUB: case IR_MUL: case IR_MIN: case IR_MAX:
    case IR_DIV: case IR_REM: case IR_SHR: case IR_AND:
        if (intargs && a->lo != INT64_MIN && b->lo != INT64_MIN)
            range_of_binary(op, a, b, &lo, &hi);
        break;
    default:
        break;
    }
    set_range(r, k, lo, hi);
}

/* ---------------------------------------------------- transfer function */

/* The facts of x / q or x % q (also x >> s, q = 2^s), q a known power of
 * two; signed `/` and `%` truncate, so they need x not negative. */
static AxInfo ax_divrem(const IrOp *op, const AxInfo *a, const AxInfo *b,
                        const AxInfo *const *in, int rank) {
    int64_t q = 0;
    ScalarKind k = (ScalarKind)op->res[0]->ty.k;
    if (!ty_isint(k) || !ax_is_const(b, &q)) return ax_const_only(op, in, rank);
    if (op->op == IR_SHR) q = q >= 0 && q < 30 ? INT64_C(1) << q : 0;
    if (q <= 0 || (q & (q - 1)) != 0 || q > AX_MAXDIV) return ax_const_only(op, in, rank);
    int nonneg = !ty_issigned(k) || a->lo >= 0;
    if (op->op == IR_REM) return ax_rem_pow2(a, rank, q, nonneg);
    if (op->op == IR_SHR || nonneg) return ax_div_pow2(a, rank, q);
    AxInfo r;
    if (ax_div_exact(a, rank, q, &r)) return r;
    return ax_const_only(op, in, rank);
}

/* The contiguity, divisibility and constancy of op's result (the first)
 * from its operands'. */
static AxInfo ax_shape_rule(const IrOp *op, const AxInfo *const *in) {
    const IrValue *res = op->res[0];
    int rank = rank_of(res);
    const IrValue *x = op->nargs > 0 ? op->args[0] : NULL;
    const AxInfo *a = x ? in[0] : NULL, *b = op->nargs > 1 ? in[1] : NULL;
    int isint = ty_isint(res->ty.k) || res->ty.k == SK_PTR;
    AxInfo r = ax_unknown();
    switch (op->op) {
    case IR_CONST:
        if (ty_isint(res->ty.k) || res->ty.k == SK_BOOL) return ax_uniform(res, pow2_div(op->iattr[0]));
        return ax_uniform(res, 1);
    case IR_ARANGE:
        if (op->nargs) return r;            /* rotated (realign.c): a range only */
        r.contig[0] = pad_extent(res, 0);   /* the padding continues it */
        r.div[0] = pow2_div(op->iattr[0]);
        return r;
    case IR_SPLAT: return ax_uniform(res, a->div[0]);
    case IR_BROADCAST: return ax_broadcast(a, x, res);
    case IR_EXPAND_DIMS: return ax_expand(a, x, (int)op->iattr[0]);
    case IR_PERMUTE:
        for (int d = 0; d < rank; d++) {
            r.contig[d] = a->contig[op->iattr[d]];
            r.div[d] = a->div[op->iattr[d]];
            r.constancy[d] = a->constancy[op->iattr[d]];
        }
        return r;
    case IR_CAST:
        if (ty_isint(res->ty.k) && (ty_isint(x->ty.k) || x->ty.k == SK_BOOL))
            return ax_int_cast(a, x, res, rank);
        return ax_const_only(op, in, rank);
    case IR_MULTIPLE_OF:  /* the user's promise */
        r = *a;
        for (int d = 0; d < rank; d++) r.div[d] = min64(op->iattr[0], AX_MAXDIV);
        return r;
    case IR_MAX_CONTIG:   /* the user's promise */
        r = *a;
        r.contig[rank - 1] = op->iattr[0];
        return r;
    case IR_CONVERT_LAYOUT: return *a;
    case IR_ADD:
    case IR_SUB:
        return isint ? ax_addsub(a, b, rank, op->op == IR_SUB) : ax_const_only(op, in, rank);
    case IR_PTRADD: return ax_ptradd(a, b, op->args[1], rank, scale_of(res));
    case IR_MUL: return isint ? ax_mul(a, b, rank) : ax_const_only(op, in, rank);
    case IR_SHL: {
        int64_t s;
        r = ax_const_only(op, in, rank);
        if (ax_is_const(b, &s) && s >= 0 && s < 30)
            for (int d = 0; d < rank; d++) r.div[d] = min64(elem_div(a, d) << s, AX_MAXDIV);
        return r;
    }
    case IR_SHR: case IR_DIV: case IR_REM: return ax_divrem(op, a, b, in, rank);
    case IR_CMP: return ax_cmp(a, b, x, rank, (CmpPred)op->iattr[0]);
    case IR_SELECT: {
        const AxInfo *e = in[2];
        r = ax_const_only(op, in, rank);
        for (int d = 0; d < rank && isint; d++) {
            int64_t k = min64(min64(b->contig[d], e->contig[d]), a->constancy[d]);
            r.contig[d] = k;
            r.div[d] = min64(div_at(b, d, k), div_at(e, d, k));
        }
        return r;
    }
    case IR_LOAD:
        /* Equal addresses (under one mask) load equal values. */
        return ax_const_only(op, in, rank);
    case IR_REDUCE:
        if (res->ty.rank)
            for (int d = 0, j = 0; d < x->ty.rank; d++)
                if (d != op->iattr[1]) r.constancy[j++] = a->constancy[d];
        return r;
    case IR_PROGRAM_ID: case IR_NUM_PROGRAMS: case IR_RESHAPE: case IR_SCAN:
    case IR_DOT: case IR_ATOMIC: case IR_ATOMIC_CAS: case IR_SLICE: case IR_CAT:
    case IR_GATHER: case IR_SORT:
        return r;
    default:
        /* Element-wise math and bit operations: constancy only. */
        return ax_const_only(op, in, rank);
    }
}

AxInfo ax_rule(const IrOp *op, const AxInfo *const *in) {
    AxInfo r = ax_shape_rule(op, in);
    range_rule(op, in, &r);
    /* A known constant is constant and divisible as it says. */
    int64_t v;
    const IrValue *res = op->res[0];
    if (ax_is_const(&r, &v))
        for (int d = 0; d < rank_of(res); d++) {
            r.div[d] = max64(r.div[d], pow2_div(v));
            r.constancy[d] = pad_extent(res, d);
            r.contig[d] = 1;
        }
    return r;
}

/* ------------------------------------------------------------- the walk */

static AxInfo *info(AxCtx *c, const IrValue *v) { return &c->t->info[v->id]; }

static void set(AxCtx *c, const IrValue *v, AxInfo a) {
    AxInfo *old = info(c, v);
    if (memcmp(old, &a, sizeof a) != 0) c->changed = 1;
    *old = a;
}

static void analyze_block(AxCtx *c, const IrBlock *b);
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
    const AxInfo *in[8];
    int n = op->nargs < 8 ? op->nargs : 8;
    for (int i = 0; i < n; i++) in[i] = info(c, op->args[i]);
    if (op->nargs > 8) {  /* no op with a rule has so many operands */
        set(c, op->res[0], ax_unknown());
        return;
    }
    set(c, op->res[0], ax_rule(op, in));
    for (int i = 1; i < op->nres; i++) set(c, op->res[i], ax_unknown());
}

/* The induction variable lo, lo + step, ... below hi: divisibility of lo
 * and step; within [lo, hi) when the step is a positive constant and
 * iv + step cannot wrap past hi's largest value (else the loop could go
 * on with a wrapped iv). */
static AxInfo loop_iv(AxCtx *c, const IrOp *op) {
    const AxInfo *lo = info(c, op->args[0]), *hi = info(c, op->args[1]);
    const AxInfo *step = info(c, op->args[2]);
    ScalarKind k = (ScalarKind)op->args[0]->ty.k;
    AxInfo iv = ax_unknown();
    iv.div[0] = min64(lo->div[0], step->div[0]);
    int64_t s, klo, khi, top;
    kind_range(k, &klo, &khi);
    if (ax_is_const(step, &s) && s > 0 && lo->lo != INT64_MIN && hi->hi != INT64_MAX &&
        !__builtin_add_overflow(hi->hi, s, &top) && top - 1 <= khi && hi->hi > lo->lo)
        set_range(&iv, k, lo->lo, hi->hi - 1);
    else
        set_range(&iv, k, INT64_MIN, INT64_MAX);
    return iv;
}

/* Region argument v of a loop starts as a: the first time; when an
 * enclosing loop's next round analyzes the loop again, as a joined with
 * what v held (so that the enclosing loop's values only ever lower and
 * its rounds end: starting over from a alone would change v at every
 * round, and that loop would never see a round without change). */
static void start(AxCtx *c, const IrValue *v, AxInfo a, int again) {
    set(c, v, again ? ax_join(info(c, v), &a) : a);
}

/* Loops: region arguments start as the initial values (and, for `for`,
 * the induction variable as lo + k * step) and are joined with what the
 * body yields until they stop changing; after AX_GIVE_UP rounds, with
 * nothing known of them, one more round gives the body's values. */
static void analyze_loop(AxCtx *c, const IrOp *op) {
    int isfor = op->op == IR_FOR;
    const IrBlock *body = op->regions[0];
    int first = isfor ? 3 : 0, skip = isfor ? 1 : 0;
    int again = 0;
    if (body->nargs) {
        again = c->seen[body->args[0]->id];
        c->seen[body->args[0]->id] = 1;
    }
    if (isfor) start(c, body->args[0], loop_iv(c, op), again);
    for (int i = first; i < op->nargs; i++)
        start(c, body->args[i - first + skip], *info(c, op->args[i]), again);
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
            if (round >= AX_WIDEN_ROUNDS && (j.lo != info(c, arg)->lo || j.hi != info(c, arg)->hi))
                set_range(&j, (ScalarKind)arg->ty.k, INT64_MIN, INT64_MAX);
            set(c, arg, j);
        }
        int changed = c->changed;
        c->changed = before || changed;
        if (!changed || round > AX_GIVE_UP) break;
        if (round == AX_GIVE_UP)  /* nothing known about carried values */
            for (int i = skip; i < body->nargs; i++) set(c, body->args[i], ax_unknown());
    }
    const IrBlock *src = isfor ? body : op->regions[1];
    for (int i = 0; i < op->nres; i++)
        set(c, op->res[i], *info(c, src->args[i + (isfor ? skip : 0)]));
}

static void analyze_block(AxCtx *c, const IrBlock *b) {
    for (const IrOp *op = b->first; op; op = op->next) analyze_op(c, op);
}

/* A parameter under its fact: a multiple of 2^fact, or (LY_FACT_ONE, an
 * integer) the constant 1, whose interval [1, 1] the rules then fold
 * (x * 1 keeps x's contiguity: a unit stride). */
AxInfo ax_param(const IrParam *p, int fact) {
    AxInfo a = ax_unknown();
    int isint = ty_isint((ScalarKind)p->ty.k);
    if (fact == LY_FACT_ONE && isint) {
        set_range(&a, (ScalarKind)p->ty.k, 1, 1);
        return a;
    }
    if ((p->ty.k == SK_PTR || isint) && fact <= LY_FACT_MAX)
        a.div[0] = (int64_t)1 << fact;
    set_range(&a, (ScalarKind)p->ty.k, INT64_MIN, INT64_MAX);
    return a;
}

LyFacts ly_facts_none(const IrKernel *k) {
    return (LyFacts){k->nparams, NULL};
}

LyFacts ly_facts_full(Arena *ar, const IrKernel *k, int ints) {
    LyFacts f = {k->nparams, ar_alloc(ar, (size_t)k->nparams + 1)};
    for (int i = 0; i < k->nparams; i++) {
        const IrParam *p = &k->params[i];
        int want = p->ty.k == SK_PTR ||
                   (ints && ty_isint((ScalarKind)p->ty.k) && !p->nospecialize);
        f.log2[i] = want ? LY_FACT_MAX : 0;
    }
    return f;
}

int ly_fact_raw(const LyFacts *f, int i) {
    return f && f->log2 && i < f->n ? f->log2[i] : 0;
}

int ly_fact(const LyFacts *f, int i) {
    int v = ly_fact_raw(f, i);
    return v == LY_FACT_ONE ? 0 : v;
}

int ly_fact_one(const LyFacts *f, int i) { return ly_fact_raw(f, i) == LY_FACT_ONE; }

AxTable *ax_analyze(Arena *ar, const IrKernel *k, const LyFacts *f) {
    AxTable *t = ar_alloc(ar, sizeof *t);
    t->nvalues = k->nvalues;
    t->info = ar_alloc(ar, sizeof(AxInfo) * (size_t)(k->nvalues + 1));
    for (int i = 0; i < k->nvalues; i++) t->info[i] = ax_unknown();
    AxCtx c = {t, k, 0, ar_alloc(ar, (size_t)k->nvalues + 1)};
    memset(c.seen, 0, (size_t)k->nvalues + 1);
    for (int i = 0; i < k->nparams; i++)
        t->info[k->body->args[i]->id] = ax_param(&k->params[i], ly_fact_raw(f, i));
    analyze_block(&c, k->body);
    return t;
}

const AxInfo *ax_of(const AxTable *t, const IrValue *v) {
    return v->id < t->nvalues ? &t->info[v->id] : NULL;
}

/* The longest run of elements along dim that memory op `op` (a load,
 * store or atomic) can access at once: consecutive addresses
 * (contiguity), the run's first address aligned to the run's bytes
 * (divisibility), one mask value (constancy); at least 1. */
int64_t ax_mem_run(const AxInfo *ptr, int64_t esize, const AxInfo *mask, int dim) {
    int64_t v = min64(ptr->contig[dim], ptr->div[dim] / esize > 1 ? ptr->div[dim] / esize : 1);
    if (mask) v = min64(v, mask->constancy[dim]);
    return v > 1 ? v : 1;
}
