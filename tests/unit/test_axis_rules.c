/*
 * test_axis_rules.c — brute-force soundness of the axis analysis
 * (plan/axis.c): every fact a transfer rule claims must hold on every
 * concrete tile its inputs' facts admit.
 *
 * For each op and each combination of input facts (contiguity C,
 * divisibility D, constancy K, each a power of two up to the tile's
 * length, and an interval: none, small non-negative, a constant), the test
 * builds concrete tiles that satisfy the facts — run starts at every kind
 * of offset: 0, small multiples of D, next to the type's largest and
 * smallest values (so that runs wrap), random — computes the op on them
 * exactly as the language defines it (integers modulo 2^w, `/` and `%`
 * truncating, shifts by the type's signedness), and checks the facts
 * ax_rule claims for the result on every element. A rule that claims
 * more than its inputs prove fails here with the op, the facts and the
 * tile. The same is done for ax_join (loop heads, `if` results), for
 * ax_mem_run, the vector width the lowering takes for a memory access,
 * and for ax_param, the seed of a variant's facts (a multiple of 2^n, or
 * an integer equal to 1), on every argument libtile's guard admits.
 *
 * Shape ops (broadcast, expand_dims, permute, reduce) run on 2-D tiles
 * built from two 1-D tiles (v[i][j] = a[i] * s + b[j] and similar), whose
 * facts along each dimension are computed exactly, then weakened.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "bundle/bundle.h"
#include "check.h"
#include "plan/layout.h"

enum { N = 16, MAXN = 256 };

/* ------------------------------------------------------ concrete tiles */

typedef struct Tile {
    ScalarKind k;
    int rank, dim[2];
    int64_t v[MAXN];  /* canonical: sign- or zero-extended; pointers: bits */
} Tile;

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int bits_of(ScalarKind k) { return k == SK_PTR ? 64 : ty_bits(k); }

/* v reduced to kind k as the machine holds it, read back as int64. */
static int64_t wrap(ScalarKind k, int64_t v) {
    int w = bits_of(k);
    if (k == SK_BOOL) return v & 1;
    if (w >= 64) return v;
    uint64_t m = (UINT64_C(1) << w) - 1, u = (uint64_t)v & m;
    if (ty_issigned(k) && (u >> (w - 1))) u |= ~m;
    return (int64_t)u;
}

static int numel(const Tile *t) { return t->rank == 0 ? 1 : t->rank == 1 ? t->dim[0] : t->dim[0] * t->dim[1]; }

static Type type_of(const Tile *t, ScalarKind pointee) {
    Type ty = {0};
    ty.k = (uint8_t)t->k;
    ty.pointee = (uint8_t)pointee;
    ty.rank = (uint8_t)t->rank;
    for (int d = 0; d < t->rank; d++) ty.dim[d] = t->dim[d];
    return ty;
}

/* ------------------------------------------------------- fact checking */

static char failure[512];

/* Does t satisfy a? (esize: bytes per element for pointers, else 1.) */
static int holds(const AxInfo *a, const Tile *t, int64_t esize) {
    int rank = t->rank ? t->rank : 1;
    for (int d = 0; d < rank; d++) {
        int64_t C = a->contig[d], D = a->div[d], K = a->constancy[d];
        if (C < 1 || D < 1 || K < 1 || (C & (C - 1)) || (D & (D - 1)) || (K & (K - 1))) {
            snprintf(failure, sizeof failure, "dim %d: not powers of two", d);
            return 0;
        }
        int n = t->rank ? t->dim[d] : 1, other = numel(t) / n;
        for (int o = 0; o < other; o++)
            for (int i = 0; i < n; i++) {
                /* element (i along d, o along the other dimension) */
                int at = t->rank < 2 ? i : d == 0 ? i * t->dim[1] + o : o * t->dim[1] + i;
                int prev = t->rank < 2 ? i - 1 : d == 0 ? at - t->dim[1] : at - 1;
                int64_t x = t->v[at];
                if (i % C == 0) {
                    int w = bits_of(t->k);
                    uint64_t low = (uint64_t)D - 1, u = (uint64_t)x;
                    /* modulo 2^w: D > 2^w means the value is 0 */
                    int ok = w < 64 && D > (INT64_C(1) << (w < 62 ? w : 62)) ? x == 0 : (u & low) == 0;
                    if (!ok) {
                        snprintf(failure, sizeof failure, "dim %d: element %d = %" PRId64 " not divisible by %" PRId64, d, i, x, D);
                        return 0;
                    }
                } else if (t->v[at] != wrap(t->k, (int64_t)((uint64_t)t->v[prev] + (uint64_t)esize))) {
                    snprintf(failure, sizeof failure, "dim %d: element %d = %" PRId64 " does not follow %" PRId64 " (C = %" PRId64 ")", d, i, x, t->v[prev], C);
                    return 0;
                }
                if (i % K != 0 && t->v[at] != t->v[prev]) {
                    snprintf(failure, sizeof failure, "dim %d: element %d not constant (K = %" PRId64 ")", d, i, K);
                    return 0;
                }
            }
    }
    if (a->lo == INT64_MIN && a->hi == INT64_MAX) return 1;
    for (int i = 0; i < numel(t); i++) {
        int ok = t->k == SK_U64 ? a->lo >= 0 && (uint64_t)t->v[i] >= (uint64_t)a->lo &&
                                      (uint64_t)t->v[i] <= (uint64_t)a->hi
                                : t->v[i] >= a->lo && t->v[i] <= a->hi;
        if (!ok) {
            snprintf(failure, sizeof failure, "element %d = %" PRId64 " outside [%" PRId64 ", %" PRId64 "]", i, t->v[i], a->lo, a->hi);
            return 0;
        }
    }
    return 1;
}

static void print_info(const char *what, const AxInfo *a, int rank) {
    fprintf(stderr, "  %s:", what);
    for (int d = 0; d < (rank ? rank : 1); d++)
        fprintf(stderr, " [C %" PRId64 " D %" PRId64 " K %" PRId64 "]", a->contig[d], a->div[d], a->constancy[d]);
    if (a->lo != INT64_MIN || a->hi != INT64_MAX) fprintf(stderr, " in [%" PRId64 ", %" PRId64 "]", a->lo, a->hi);
    fprintf(stderr, "\n");
}

static void print_tile(const char *what, const Tile *t) {
    fprintf(stderr, "  %s %s:", what, ty_kind_name(t->k));
    for (int i = 0; i < numel(t) && i < 64; i++) fprintf(stderr, " %" PRId64, t->v[i]);
    fprintf(stderr, "\n");
}

/* ------------------------------------------------------ fact generation */

/* The strongest facts that t satisfies (per dimension), and its interval. */
static AxInfo exact_facts(const Tile *t, int64_t esize) {
    AxInfo a;
    for (int d = 0; d < IR_MAXRANK; d++) a.contig[d] = a.div[d] = a.constancy[d] = 1;
    a.lo = INT64_MIN;
    a.hi = INT64_MAX;
    int rank = t->rank ? t->rank : 1;
    for (int d = 0; d < rank; d++) {
        int n = t->rank ? t->dim[d] : 1;
        AxInfo b = a;
        for (int64_t c = 1; c <= n; c *= 2) {
            b.contig[d] = c;
            b.div[d] = 1;
            b.constancy[d] = 1;
            if (!holds(&b, t, esize)) break;
            a.contig[d] = c;
        }
        for (int64_t k = 1; k <= n; k *= 2) {
            b = a;
            b.contig[d] = 1;
            b.div[d] = 1;
            b.constancy[d] = k;
            if (!holds(&b, t, esize)) break;
            a.constancy[d] = k;
        }
        for (int64_t v = 1; v <= (INT64_C(1) << 30); v *= 2) {
            b = a;
            b.div[d] = v;
            for (int e = 0; e < IR_MAXRANK; e++) if (e != d) b.div[e] = 1;
            if (!holds(&b, t, esize)) break;
            a.div[d] = v;
        }
    }
    return a;
}

/* A random power of two in [1, max]. */
static int64_t pow2_upto(int64_t max) {
    int lg = 0;
    while ((INT64_C(2) << lg) <= max) lg++;
    return INT64_C(1) << (rnd() % (uint64_t)(lg + 1));
}

/* Weaker facts that still hold (C, K lowered; D re-derived for the new C
 * as a rule would: the run starts of shorter runs inside longer ones). */
static AxInfo weaken(const AxInfo *a, int rank) {
    AxInfo w = *a;
    for (int d = 0; d < (rank ? rank : 1); d++) {
        if (rnd() % 2) continue;
        int64_t c = pow2_upto(a->contig[d]);
        int64_t div = c % a->contig[d] == 0 ? a->div[d] : (a->div[d] < c ? a->div[d] : c);
        w.contig[d] = c;
        w.div[d] = pow2_upto(div);
        w.constancy[d] = pow2_upto(a->constancy[d]);
    }
    if (rnd() % 2) w.lo = INT64_MIN, w.hi = INT64_MAX;
    return w;
}

/* A run start of kind k divisible by D: at 0, small, next to the largest
 * or smallest value (runs of C then wrap), or anywhere. */
static int64_t pick_start(ScalarKind k, int64_t D, int64_t C) {
    int w = bits_of(k);
    uint64_t mask = w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
    uint64_t u;
    switch (rnd() % 6) {
    case 0: u = 0; break;
    case 1: u = (rnd() % 8) * (uint64_t)D; break;
    case 2: u = (ty_issigned(k) ? mask >> 1 : mask) - (uint64_t)C / 2 - rnd() % 3; break;
    case 3: u = (uint64_t)-(int64_t)((rnd() % 4) * (uint64_t)D); break;
    default: u = rnd(); break;
    }
    if (D <= (INT64_C(1) << 30)) u &= ~((uint64_t)D - 1);
    return wrap(k, (int64_t)(u & mask));
}

/* A 1-D tile of n elements of kind k with contiguity C, divisibility D,
 * constancy K (C > 1 and K > 1 cannot both hold) and, when lo <= hi and
 * not the full range, every element in [lo, hi]. 0 when none was found. */
static int gen_tile(Tile *t, ScalarKind k, int n, int64_t C, int64_t D, int64_t K,
                    int64_t lo, int64_t hi, int64_t esize) {
    int ranged = !(lo == INT64_MIN && hi == INT64_MAX);
    t->k = k;
    t->rank = 1;
    t->dim[0] = n;
    for (int tries = 0; tries < 50; tries++) {
        int ok = 1;
        for (int i = 0; i < n && ok; i++) {
            if (C > 1 && i % C) {
                t->v[i] = wrap(k, (int64_t)((uint64_t)t->v[i - 1] + (uint64_t)esize));
            } else if (K > 1 && i % K) {
                t->v[i] = t->v[i - 1];
            } else if (ranged) {
                int64_t span = hi - lo, x = lo + (int64_t)(rnd() % (uint64_t)(span + 1));
                x -= ((x % D) + D) % D;
                if (x < lo) x += D;
                t->v[i] = x;
            } else {
                t->v[i] = pick_start(k, D, C * esize);
            }
        }
        Tile probe = *t;
        AxInfo want;
        for (int d = 0; d < IR_MAXRANK; d++) want.contig[d] = want.div[d] = want.constancy[d] = 1;
        want.contig[0] = C;
        want.div[0] = D;
        want.constancy[0] = K;
        want.lo = lo;
        want.hi = hi;
        if (holds(&want, &probe, esize)) return 1;
    }
    return 0;
}

/* ------------------------------------------------------- exact semantics */

static int64_t eval_binary(IrOpcode op, ScalarKind k, int64_t x, int64_t y, int *skip) {
    int w = bits_of(k), sg = ty_issigned(k);
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
    switch (op) {
    case IR_ADD: return wrap(k, (int64_t)(ux + uy));
    case IR_SUB: return wrap(k, (int64_t)(ux - uy));
    case IR_MUL: return wrap(k, (int64_t)(ux * uy));
    case IR_DIV:
    case IR_REM:
        if (y == 0 || (sg && y == -1 && x == wrap(k, INT64_MIN))) {
            *skip = 1;
            return 0;
        }
        if (!sg) return wrap(k, (int64_t)(op == IR_DIV ? ux / uy : ux % uy));
        return wrap(k, op == IR_DIV ? x / y : x % y);
    case IR_SHL:
    case IR_SHR:
        if (y < 0 || y >= w) {
            *skip = 1;
            return 0;
        }
        if (op == IR_SHL) return wrap(k, (int64_t)(ux << y));
        if (sg) return x >> y;
        return wrap(k, (int64_t)((w < 64 ? ux & ((UINT64_C(1) << w) - 1) : ux) >> y));
    case IR_AND: return x & y;
    case IR_OR: return x | y;
    case IR_XOR: return x ^ y;
    case IR_MIN: return sg ? (x < y ? x : y) : (ux < uy ? x : y);
    case IR_MAX: return sg ? (x > y ? x : y) : (ux > uy ? x : y);
    default: *skip = 1; return 0;
    }
}

static int eval_cmp(CmpPred p, ScalarKind k, int64_t x, int64_t y) {
    int lt = ty_issigned(k) ? x < y : (uint64_t)x < (uint64_t)y;
    int gt = ty_issigned(k) ? x > y : (uint64_t)x > (uint64_t)y;
    switch (p) {
    case CMP_EQ: return x == y;
    case CMP_NE: return x != y;
    case CMP_LT: return lt;
    case CMP_LE: return !gt;
    case CMP_GT: return gt;
    case CMP_GE: return !lt;
    }
    return 0;
}

/* ------------------------------------------------------------ the ops */

static long cases, failures;

/* Runs op (with `nargs` operand tiles and their facts) through ax_rule and
 * checks the claim on the concrete result `out`. */
static void verify(const char *name, IrOp *op, const AxInfo *const *in, const Tile *const *args,
                   int nargs, const Tile *out, int64_t out_esize) {
    AxInfo claim = ax_rule(op, in);
    cases++;
    if (holds(&claim, out, out_esize)) return;
    if (++failures > 20) return;
    fprintf(stderr, "UNSOUND %s: %s\n", name, failure);
    for (int i = 0; i < nargs; i++) {
        print_info("operand facts", in[i], args[i]->rank);
        print_tile("operand", args[i]);
    }
    print_info("claimed", &claim, out->rank);
    print_tile("result", out);
}

/* An IrOp over fresh values of the given types. */
typedef struct OpBox {
    IrOp op;
    IrValue vals[4], res;
    IrValue *args[3], *resp[1];
} OpBox;

static IrOp *make_op(OpBox *b, IrOpcode opc, int nargs, const Type *argty, Type resty) {
    memset(b, 0, sizeof *b);
    for (int i = 0; i < nargs; i++) {
        b->vals[i].ty = argty[i];
        b->vals[i].id = i;
        b->args[i] = &b->vals[i];
    }
    b->res.ty = resty;
    b->res.id = nargs;
    b->resp[0] = &b->res;
    b->op.op = (uint16_t)opc;
    b->op.nargs = nargs;
    b->op.nres = 1;
    b->op.args = b->args;
    b->op.res = b->resp;
    return &b->op;
}

/* Facts for one operand: C, D, K and an interval. */
typedef struct Facts { int64_t C, D, K, lo, hi; } Facts;

static AxInfo to_info(const Facts *f) {
    AxInfo a;
    for (int d = 0; d < IR_MAXRANK; d++) a.contig[d] = a.div[d] = a.constancy[d] = 1;
    a.contig[0] = f->C;
    a.div[0] = f->D;
    a.constancy[0] = f->K;
    a.lo = f->lo;
    a.hi = f->hi;
    return a;
}

/* Every combination of facts for a tile of n elements of kind k. */
static int all_facts(Facts *out, int n, ScalarKind k) {
    static const int64_t divs[] = {1, 2, 4, 8, 16, 32, INT64_C(1) << 30};
    int m = 0;
    for (int64_t C = 1; C <= n; C *= 2)
        for (int64_t K = 1; K <= n; K *= 2) {
            if (C > 1 && K > 1) continue;
            for (size_t di = 0; di < sizeof divs / sizeof *divs; di++)
                for (int r = 0; r < 3; r++) {
                    Facts f = {C, divs[di], K, INT64_MIN, INT64_MAX};
                    if (r == 1) f.lo = 0, f.hi = ty_bits(k) <= 8 && !ty_issigned(k) ? 255 : ty_bits(k) <= 8 ? 127 : 1000;
                    if (r == 2) {
                        int64_t v = wrap(k, (int64_t)(rnd() % 64) * (divs[di] < 64 ? divs[di] : 0));
                        if (k == SK_U64 && v < 0) v = 0;
                        while (v != 0 && v % f.D) f.D /= 2;
                        f.lo = f.hi = v, f.K = n, f.C = 1;
                    }
                    if (k == SK_BOOL && r != 1) continue;
                    if (k == SK_BOOL) f.lo = 0, f.hi = 1;
                    out[m++] = f;
                }
        }
    return m;
}

/* The six comparisons of x and y (tiles of one kind, or pointers,
 * compared as unsigned addresses), each through ax_rule and checked on
 * the concrete result. */
static void verify_cmps(const Tile *x, const Tile *y, const AxInfo *const *in, const Type *argty) {
    int n = x->dim[0];
    int32_t dims[1] = {n};
    ScalarKind k = x->k == SK_PTR ? SK_U64 : x->k;
    const Tile *args[2] = {x, y};
    for (int p = CMP_EQ; p <= CMP_GE; p++) {
        OpBox box;
        IrOp *op = make_op(&box, IR_CMP, 2, argty, ty_tile(ty_scalar(SK_BOOL), 1, dims));
        op->iattr[0] = p;
        Tile out = *x;
        out.k = SK_BOOL;
        for (int e = 0; e < n; e++) out.v[e] = eval_cmp((CmpPred)p, k, x->v[e], y->v[e]);
        char name[48];
        snprintf(name, sizeof name, "cmp pred %d (%s, %d)", p, ty_kind_name(x->k), n);
        verify(name, op, in, args, 2, &out, 1);
    }
}

static const IrOpcode binops[] = {IR_ADD, IR_SUB, IR_MUL, IR_DIV, IR_REM, IR_SHL,
                                  IR_SHR, IR_AND, IR_OR,  IR_XOR, IR_MIN, IR_MAX};

/* Binary integer ops and comparisons of kind k over every pair of facts,
 * `samples` tiles per pair. */
static void test_binary(ScalarKind k, int samples) {
    static Facts fs[1024];
    int nf = all_facts(fs, N, k);
    Tile x, y, out;
    int32_t dims[1] = {N};
    Type t = ty_tile(ty_scalar(k), 1, dims);
    Type argty[2] = {t, t};
    for (int i = 0; i < nf; i++)
        for (int j = 0; j < nf; j++) {
            AxInfo a = to_info(&fs[i]), b = to_info(&fs[j]);
            const AxInfo *in[2] = {&a, &b};
            for (int s = 0; s < samples; s++) {
                if (!gen_tile(&x, k, N, fs[i].C, fs[i].D, fs[i].K, fs[i].lo, fs[i].hi, 1) ||
                    !gen_tile(&y, k, N, fs[j].C, fs[j].D, fs[j].K, fs[j].lo, fs[j].hi, 1))
                    continue;
                const Tile *args[2] = {&x, &y};
                for (size_t o = 0; o < sizeof binops / sizeof *binops; o++) {
                    OpBox box;
                    IrOp *op = make_op(&box, binops[o], 2, argty, t);
                    out = x;
                    int skip = 0;
                    for (int e = 0; e < N; e++) out.v[e] = eval_binary(binops[o], k, x.v[e], y.v[e], &skip);
                    if (!skip) verify(ir_op_name[binops[o]], op, in, args, 2, &out, 1);
                }
                verify_cmps(&x, &y, in, argty);
            }
        }
}

/* Comparisons of 8-bit tiles of 256 elements against constants: a run
 * of 256 consecutive i8 values from 0 wraps from 127 to -128, which runs
 * of 16 never show. */
static void test_narrow_cmp(int samples) {
    static const ScalarKind kinds[] = {SK_I8, SK_U8, SK_I16};
    static Facts fs[2048];
    for (size_t ki = 0; ki < sizeof kinds / sizeof *kinds; ki++) {
        ScalarKind k = kinds[ki];
        int n = 256, nf = all_facts(fs, n, k);
        int32_t dims[1] = {n};
        Type t = ty_tile(ty_scalar(k), 1, dims);
        Type argty[2] = {t, t};
        for (int i = 0; i < nf; i++)
            for (int j = 0; j < nf; j++) {
                if (fs[j].lo != fs[j].hi && fs[i].lo != fs[i].hi) continue;  /* one side constant */
                AxInfo a = to_info(&fs[i]), b = to_info(&fs[j]);
                const AxInfo *in[2] = {&a, &b};
                for (int s = 0; s < samples; s++) {
                    Tile x, y;
                    if (!gen_tile(&x, k, n, fs[i].C, fs[i].D, fs[i].K, fs[i].lo, fs[i].hi, 1) ||
                        !gen_tile(&y, k, n, fs[j].C, fs[j].D, fs[j].K, fs[j].lo, fs[j].hi, 1))
                        continue;
                    verify_cmps(&x, &y, in, argty);
                }
            }
    }
}

/* Integer casts between every pair of kinds (from tiles of up to 256
 * elements, so that a narrow kind's whole period fits in a run). */
static void test_casts(int samples) {
    static const ScalarKind kinds[] = {SK_BOOL, SK_I8, SK_I16, SK_I32, SK_I64, SK_U8, SK_U16, SK_U32, SK_U64};
    static Facts fs[2048];
    for (size_t a = 0; a < sizeof kinds / sizeof *kinds; a++)
        for (size_t b = 1; b < sizeof kinds / sizeof *kinds; b++) {
            ScalarKind from = kinds[a], to = kinds[b];
            int n = ty_bits(from) == 8 ? 256 : N;
            int nf = all_facts(fs, n, from);
            int32_t dims[1] = {n};
            Type tf = ty_tile(ty_scalar(from), 1, dims), tt = ty_tile(ty_scalar(to), 1, dims);
            for (int i = 0; i < nf; i++) {
                AxInfo info = to_info(&fs[i]);
                const AxInfo *in[1] = {&info};
                for (int s = 0; s < samples; s++) {
                    Tile x, out;
                    if (!gen_tile(&x, from, n, fs[i].C, fs[i].D, fs[i].K, fs[i].lo, fs[i].hi, 1)) continue;
                    const Tile *args[1] = {&x};
                    OpBox box;
                    IrOp *op = make_op(&box, IR_CAST, 1, &tf, tt);
                    out = x;
                    out.k = to;
                    for (int e = 0; e < n; e++) out.v[e] = wrap(to, x.v[e]);
                    char name[48];
                    snprintf(name, sizeof name, "cast %s -> %s", ty_kind_name(from), ty_kind_name(to));
                    verify(name, op, in, args, 1, &out, 1);
                }
            }
        }
}

/* ptradd: pointers (any base alignment, element sizes 2, 4, 8) plus
 * offsets of 8 to 64 bits, including offsets that wrap before they are
 * extended. */
static void test_ptradd(int samples) {
    static const ScalarKind offk[] = {SK_I32, SK_I64, SK_U32, SK_I16, SK_U8};
    static const ScalarKind pointee[] = {SK_F16, SK_F32, SK_F64};
    static Facts fp[1024], fo[1024];
    for (size_t pi = 0; pi < 3; pi++)
        for (size_t oi = 0; oi < sizeof offk / sizeof *offk; oi++) {
            int64_t es = ty_bytes(pointee[pi]);
            int np = all_facts(fp, N, SK_I64), no = all_facts(fo, N, offk[oi]);
            int32_t dims[1] = {N};
            Type tp = ty_tile(ty_ptr(pointee[pi]), 1, dims), to = ty_tile(ty_scalar(offk[oi]), 1, dims);
            Type argty[2] = {tp, to};
            for (int i = 0; i < np; i++) {
                if (fp[i].lo != INT64_MIN) continue;   /* pointers: no interval */
                for (int j = 0; j < no; j++) {
                    AxInfo a = to_info(&fp[i]), b = to_info(&fo[j]);
                    const AxInfo *in[2] = {&a, &b};
                    for (int s = 0; s < samples; s++) {
                        Tile p, o, out;
                        if (!gen_tile(&p, SK_PTR, N, fp[i].C, fp[i].D, fp[i].K, INT64_MIN, INT64_MAX, es) ||
                            !gen_tile(&o, offk[oi], N, fo[j].C, fo[j].D, fo[j].K, fo[j].lo, fo[j].hi, 1))
                            continue;
                        const Tile *args[2] = {&p, &o};
                        OpBox box;
                        IrOp *op = make_op(&box, IR_PTRADD, 2, argty, tp);
                        out = p;
                        for (int e = 0; e < N; e++)
                            out.v[e] = (int64_t)((uint64_t)p.v[e] + (uint64_t)o.v[e] * (uint64_t)es);
                        verify("ptradd", op, in, args, 2, &out, es);
                        /* comparisons of the sums with the bases */
                        AxInfo sum = ax_rule(op, in);
                        const AxInfo *cin[2] = {&sum, &a};
                        Type cty[2] = {tp, tp};
                        verify_cmps(&out, &p, cin, cty);
                    }
                }
            }
        }
}

/* ax_mem_run: over every aligned run of its width, addresses are
 * consecutive, the first is aligned to the run's bytes and the mask is
 * one value. */
static void test_mem_run(int samples) {
    static Facts fp[1024], fm[1024];
    for (int64_t es = 1; es <= 8; es *= 2) {
        int np = all_facts(fp, N, SK_I64), nm = all_facts(fm, N, SK_BOOL);
        for (int i = 0; i < np; i++) {
            if (fp[i].lo != INT64_MIN) continue;
            for (int j = -1; j < nm; j++) {
                AxInfo p = to_info(&fp[i]), m = j >= 0 ? to_info(&fm[j]) : p;
                int64_t v = ax_mem_run(&p, es, j >= 0 ? &m : NULL, 0);
                for (int s = 0; s < samples; s++) {
                    Tile pt, mt;
                    if (!gen_tile(&pt, SK_PTR, N, fp[i].C, fp[i].D, fp[i].K, INT64_MIN, INT64_MAX, es) ||
                        (j >= 0 && !gen_tile(&mt, SK_BOOL, N, fm[j].C, fm[j].D, fm[j].K, 0, 1, 1)))
                        continue;
                    cases++;
                    for (int e = 0; e < N; e++) {
                        int bad = e % v ? pt.v[e] != pt.v[e - 1] + es || (j >= 0 && mt.v[e] != mt.v[e - 1])
                                        : v > 1 && ((uint64_t)pt.v[e] & (uint64_t)(v * es - 1)) != 0;
                        if (bad) {
                            failures++;
                            fprintf(stderr, "UNSOUND ax_mem_run: width %" PRId64 " at element %d\n", v, e);
                            print_info("pointer facts", &p, 1);
                            print_tile("pointers", &pt);
                            break;
                        }
                    }
                }
            }
        }
    }
}

/* select(c, x, y) and the element-wise ops that keep only constancy. */
static void test_select_unary(ScalarKind k, int samples) {
    static Facts fs[1024], fc[1024];
    int nf = all_facts(fs, N, k), nc = all_facts(fc, N, SK_BOOL);
    int32_t dims[1] = {N};
    Type t = ty_tile(ty_scalar(k), 1, dims), tb = ty_tile(ty_scalar(SK_BOOL), 1, dims);
    Type sel[3] = {tb, t, t};
    static const IrOpcode unary[] = {IR_NEG, IR_NOT, IR_ABS};
    for (int i = 0; i < nf; i++)
        for (int j = 0; j < nf; j += 3)
            for (int c = 0; c < nc; c++) {
                AxInfo a = to_info(&fs[i]), b = to_info(&fs[j]), cc = to_info(&fc[c]);
                const AxInfo *in[3] = {&cc, &a, &b};
                for (int s = 0; s < samples; s++) {
                    Tile x, y, m, out;
                    if (!gen_tile(&x, k, N, fs[i].C, fs[i].D, fs[i].K, fs[i].lo, fs[i].hi, 1) ||
                        !gen_tile(&y, k, N, fs[j].C, fs[j].D, fs[j].K, fs[j].lo, fs[j].hi, 1) ||
                        !gen_tile(&m, SK_BOOL, N, fc[c].C, fc[c].D, fc[c].K, 0, 1, 1))
                        continue;
                    const Tile *args[3] = {&m, &x, &y};
                    OpBox box;
                    IrOp *op = make_op(&box, IR_SELECT, 3, sel, t);
                    out = x;
                    for (int e = 0; e < N; e++) out.v[e] = m.v[e] ? x.v[e] : y.v[e];
                    verify("select", op, in, args, 3, &out, 1);
                    if (c) continue;
                    for (size_t u = 0; u < 3; u++) {
                        op = make_op(&box, unary[u], 1, &t, t);
                        for (int e = 0; e < N; e++)
                            out.v[e] = wrap(k, unary[u] == IR_NEG   ? (int64_t)(0 - (uint64_t)x.v[e])
                                               : unary[u] == IR_NOT ? ~x.v[e]
                                               : x.v[e] < 0 && ty_issigned(k) ? (int64_t)(0 - (uint64_t)x.v[e])
                                                                                : x.v[e]);
                        verify(ir_op_name[unary[u]], op, in + 1, args + 1, 1, &out, 1);
                    }
                }
            }
}

/* ax_join: a value that is either of two tiles satisfies the join of
 * their facts (loop heads, if results). */
static void test_join(int samples) {
    static Facts fs[1024];
    int nf = all_facts(fs, N, SK_I32);
    for (int i = 0; i < nf; i++)
        for (int j = 0; j < nf; j++) {
            AxInfo a = to_info(&fs[i]), b = to_info(&fs[j]);
            AxInfo jn = ax_join(&a, &b);
            for (int s = 0; s < samples; s++) {
                Tile x;
                int which = s % 2;
                const Facts *f = which ? &fs[j] : &fs[i];
                if (!gen_tile(&x, SK_I32, N, f->C, f->D, f->K, f->lo, f->hi, 1)) continue;
                cases++;
                if (holds(&jn, &x, 1)) continue;
                if (++failures > 20) continue;
                fprintf(stderr, "UNSOUND join: %s\n", failure);
                print_info("a", &a, 1);
                print_info("b", &b, 1);
                print_info("join", &jn, 1);
                print_tile("tile", &x);
            }
        }
}

/* ------------------------------------------------------ 2-D shape ops */

/* A 2-D tile [R, S] = combine(a[i], b[j]) in one of several ways, so that
 * both dimensions carry structure. */
static void make_2d(Tile *t, const Tile *a, const Tile *b, int how) {
    t->k = a->k;
    t->rank = 2;
    t->dim[0] = a->dim[0];
    t->dim[1] = b->dim[0];
    for (int i = 0; i < t->dim[0]; i++)
        for (int j = 0; j < t->dim[1]; j++) {
            int64_t x = a->v[i], y = b->v[j];
            int64_t v = how == 0 ? x * 64 + y : how == 1 ? x + y * 64 : how == 2 ? x : how == 3 ? y : x * y;
            t->v[i * t->dim[1] + j] = wrap(t->k, v);
        }
}

static void test_shapes(int samples) {
    static Facts fs[1024];
    const int R = 8, S = 16;
    int nf = all_facts(fs, S, SK_I32);
    for (int i = 0; i < nf; i++)
        for (int s = 0; s < samples; s++) {
            Tile a, b, t, out;
            const Facts *f = &fs[i], *g = &fs[rnd() % (uint64_t)nf];
            if (f->C > R || f->K > R || !gen_tile(&a, SK_I32, R, f->C, f->D, f->K, f->lo, f->hi, 1) ||
                !gen_tile(&b, SK_I32, S, g->C, g->D, g->K, g->lo, g->hi, 1))
                continue;
            make_2d(&t, &a, &b, (int)(rnd() % 5));
            AxInfo facts = exact_facts(&t, 1);
            facts = weaken(&facts, 2);
            const AxInfo *in[1] = {&facts};
            const Tile *args[1] = {&t};
            Type tt = type_of(&t, 0);
            OpBox box;
            /* permute */
            IrOp *op = make_op(&box, IR_PERMUTE, 1, &tt, tt);
            Type tp = tt;
            tp.dim[0] = tt.dim[1];
            tp.dim[1] = tt.dim[0];
            box.res.ty = tp;
            op->iattr[0] = 1;
            op->iattr[1] = 0;
            out = t;
            out.dim[0] = t.dim[1];
            out.dim[1] = t.dim[0];
            for (int r = 0; r < R; r++)
                for (int c = 0; c < S; c++) out.v[c * R + r] = t.v[r * S + c];
            verify("permute", op, in, args, 1, &out, 1);
            /* reductions along each axis */
            for (int axis = 0; axis < 2; axis++)
                for (int kind = RED_SUM; kind <= RED_ARGMAX; kind++) {
                    int n = t.dim[1 - axis];
                    int32_t od[1] = {n};
                    Type to = ty_tile(ty_scalar(SK_I32), 1, od);
                    op = make_op(&box, IR_REDUCE, 1, &tt, to);
                    op->iattr[0] = kind;
                    op->iattr[1] = axis;
                    out.rank = 1;
                    out.dim[0] = n;
                    for (int o = 0; o < n; o++) {
                        int64_t acc = 0, best = 0;
                        for (int e = 0; e < t.dim[axis]; e++) {
                            int64_t v = axis == 0 ? t.v[e * S + o] : t.v[o * S + e];
                            if (kind == RED_SUM) acc = wrap(SK_I32, acc + v);
                            if (kind == RED_MAX && (e == 0 || v > acc)) acc = v;
                            if (kind == RED_MIN && (e == 0 || v < acc)) acc = v;
                            if (kind == RED_ARGMAX && (e == 0 || v > best)) best = v, acc = e;
                        }
                        out.v[o] = acc;
                    }
                    verify("reduce", op, in, args, 1, &out, 1);
                }
            /* expand_dims at 0 of a row and broadcast of it */
            Tile row = b;
            AxInfo rf = exact_facts(&row, 1);
            rf = weaken(&rf, 1);
            const AxInfo *rin[1] = {&rf};
            const Tile *rargs[1] = {&row};
            Type trow = type_of(&row, 0);
            int32_t ed[2] = {1, S}, bd[2] = {R, S};
            Type te = ty_tile(ty_scalar(SK_I32), 2, ed), tbc = ty_tile(ty_scalar(SK_I32), 2, bd);
            for (int axis = 0; axis < 2; axis++) {
                Type tx = te;
                if (axis == 1) tx.dim[0] = S, tx.dim[1] = 1;
                op = make_op(&box, IR_EXPAND_DIMS, 1, &trow, tx);
                op->iattr[0] = axis;
                out = row;
                out.rank = 2;
                out.dim[0] = tx.dim[0];
                out.dim[1] = tx.dim[1];
                verify("expand_dims", op, rin, rargs, 1, &out, 1);
            }
            Tile ex = row;
            ex.rank = 2;
            ex.dim[0] = 1;
            ex.dim[1] = S;
            AxInfo ef = exact_facts(&ex, 1);
            ef = weaken(&ef, 2);
            const AxInfo *ein[1] = {&ef};
            const Tile *eargs[1] = {&ex};
            op = make_op(&box, IR_BROADCAST, 1, &te, tbc);
            out = ex;
            out.dim[0] = R;
            for (int r = 0; r < R; r++)
                for (int c = 0; c < S; c++) out.v[r * S + c] = ex.v[c];
            verify("broadcast", op, ein, eargs, 1, &out, 1);
            /* splat of a scalar */
            Tile sc = {.k = SK_I32, .rank = 0};
            sc.v[0] = a.v[0];
            AxInfo sf = exact_facts(&sc, 1);
            sf = weaken(&sf, 0);
            const AxInfo *sin[1] = {&sf};
            const Tile *sargs[1] = {&sc};
            Type ts = ty_scalar(SK_I32);
            op = make_op(&box, IR_SPLAT, 1, &ts, tbc);
            out.rank = 2;
            out.dim[0] = R;
            out.dim[1] = S;
            for (int e = 0; e < R * S; e++) out.v[e] = sc.v[0];
            verify("splat", op, sin, sargs, 1, &out, 1);
        }
}

/* Parameters (ax_param): under each fact a variant can assume — a
 * multiple of 2^f, or LY_FACT_ONE — the claim holds of every argument
 * libtile's guard check admits (tlb_guard_holds of the bundle byte the
 * fact becomes, lower.c's lw_guard); and carried on through the ops a
 * stride meets (splat, then times a tile x of every kind of facts: with
 * s == 1, x's contiguity survives), checked on the concrete products. */
static void test_params(int samples) {
    static const ScalarKind kinds[] = {SK_I32, SK_I64, SK_U32, SK_I16, SK_PTR};
    static const int facts[] = {0, 1, 2, 3, LY_FACT_MAX, LY_FACT_ONE};
    static Facts fs[1024];
    for (size_t ki = 0; ki < sizeof kinds / sizeof *kinds; ki++) {
        ScalarKind k = kinds[ki];
        IrParam p = {.name = "s", .ty = ty_scalar(k)};
        int nf = all_facts(fs, N, k == SK_PTR ? SK_I64 : k);
        int32_t dims[1] = {N};
        Type ts = ty_scalar(k), tt = ty_tile(ty_scalar(k), 1, dims), argty[2] = {tt, tt};
        for (size_t fi = 0; fi < sizeof facts / sizeof *facts; fi++) {
            int f = facts[fi];
            uint8_t g = (uint8_t)(f == LY_FACT_ONE ? (k == SK_PTR ? 0 : (int)TLB_GUARD_ONE) : f);
            AxInfo pa = ax_param(&p, f);
            for (int64_t v = -260; v <= 260; v++) {
                Tile sc = {.k = k, .rank = 0};
                sc.v[0] = wrap(k, v);
                if (sc.v[0] != v || !tlb_guard_holds(g, (uint64_t)v)) continue;
                cases++;
                if (!holds(&pa, &sc, 1) && ++failures <= 20)
                    fprintf(stderr, "UNSOUND param fact %d: %s (value %" PRId64 ")\n", f,
                            failure, v);
                if (k == SK_PTR || (v != 1 && rnd() % 64)) continue;
                OpBox box;
                const AxInfo *sin[1] = {&pa};
                const Tile *sargs[1] = {&sc};
                Tile sp = {.k = k, .rank = 1, .dim = {N}};
                for (int e = 0; e < N; e++) sp.v[e] = v;
                verify("param splat", make_op(&box, IR_SPLAT, 1, &ts, tt), sin, sargs, 1, &sp, 1);
                AxInfo sa = ax_rule(&box.op, sin);
                for (int i = 0; i < nf; i++)
                    for (int r = 0; r < samples; r++) {
                        Tile x, out;
                        if (!gen_tile(&x, k, N, fs[i].C, fs[i].D, fs[i].K, fs[i].lo, fs[i].hi, 1))
                            continue;
                        AxInfo xa = to_info(&fs[i]);
                        const AxInfo *in[2] = {&xa, &sa};
                        const Tile *args[2] = {&x, &sp};
                        out = x;
                        int skip = 0;
                        for (int e = 0; e < N; e++) out.v[e] = eval_binary(IR_MUL, k, x.v[e], v, &skip);
                        verify("param mul", make_op(&box, IR_MUL, 2, argty, tt), in, args, 2, &out, 1);
                    }
            }
        }
    }
}

/* Seeds: arange and integer constants. */
static void test_seeds(void) {
    for (int lo = -40; lo <= 40; lo++)
        for (int n = 1; n <= 64; n *= 2) {
            int32_t dims[1] = {n};
            Type t = ty_tile(ty_scalar(SK_I32), 1, dims);
            OpBox box;
            IrOp *op = make_op(&box, IR_ARANGE, 0, NULL, t);
            op->iattr[0] = lo;
            op->iattr[1] = lo + n;
            Tile out = {.k = SK_I32, .rank = 1, .dim = {n}};
            for (int e = 0; e < n; e++) out.v[e] = lo + e;
            verify("arange", op, NULL, NULL, 0, &out, 1);
            /* rotated by every s in [0, n) (plan/realign.c): position e
             * holds lo + (e - s) mod n, whatever the shift's facts */
            Type ts = ty_scalar(SK_I32);
            for (int s = 0; s < n; s++) {
                IrOp *rot = make_op(&box, IR_ARANGE, 1, &ts, t);
                rot->iattr[0] = lo;
                rot->iattr[1] = lo + n;
                AxInfo sa = {.contig = {1}, .div = {1}, .constancy = {1}, .lo = s, .hi = s};
                Tile sv = {.k = SK_I32, .rank = 0};
                sv.v[0] = s;
                const AxInfo *in[1] = {&sa};
                const Tile *args[1] = {&sv};
                Tile r = {.k = SK_I32, .rank = 1, .dim = {n}};
                for (int e = 0; e < n; e++) r.v[e] = lo + ((e - s) % n + n) % n;
                verify("rotated arange", rot, in, args, 1, &r, 1);
            }
            op = make_op(&box, IR_CONST, 0, NULL, ts);
            op->iattr[0] = lo * n;
            Tile c = {.k = SK_I32, .rank = 0};
            c.v[0] = lo * n;
            verify("const", op, NULL, NULL, 0, &c, 1);
        }
}

int main(int argc, char **argv) {
    int samples = argc > 1 ? atoi(argv[1]) : 3;
    test_seeds();
    test_params(samples);
    test_binary(SK_I32, samples);
    test_binary(SK_U32, 1);
    test_binary(SK_I8, 1);
    test_binary(SK_U8, 1);
    test_binary(SK_I64, 1);
    test_narrow_cmp(1);
    test_casts(samples * 2);
    test_ptradd(samples);
    test_mem_run(samples * 2);
    test_select_unary(SK_I32, 1);
    test_join(samples * 2);
    test_shapes(samples * 20);
    fprintf(stderr, "test_axis_rules: %ld cases, %ld unsound\n", cases, failures);
    CHECK(failures == 0);
    CHECK(cases > 100000);
    return check_done("test_axis_rules");
}
