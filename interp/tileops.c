/*
 * tileops.c — ops that create tiles, move elements between positions, or
 * combine many elements into one: constants, program ids, arange, splat,
 * broadcast, reshape, permute, slice, cat, gather, sort, reductions, scans
 * (cumsum, cumprod, cummax, cummin and a user's combiner) and dot.
 *
 * Tiles are row-major, so reshape and expand_dims only copy; broadcast and
 * permute are one strided gather (a source stride per result axis, 0 for
 * a stretched axis).
 *
 * Reductions and scans walk the reduced axis in index order, which fixes
 * the rounding of float sums (the GPU's tree order may differ in the last
 * bits; the numerics tests compare with a tolerance). Accumulators: integer
 * sums wrap at the result's width; f32 in float; f16/bf16 accumulate in
 * float and round to the type once at the end (for scans, once per output
 * element); f64 in double. A user's combiner (reduce, scan) folds in
 * index order in the element type: combine(earlier, later). max/min (and
 * cummax/cummin) follow maxNum/minNum like the element-wise ops, so NaNs
 * are ignored unless every element is NaN.
 * argmax/argmin ignore NaNs the same way, so that a top-1 value and its
 * index agree: the lowest index among equal values, and 0 (a NaN, like
 * the max) for a line of NaNs only. lower/reduce.c combines the same
 * way in any order.
 *
 * dot accumulates each output element over k in index order, starting
 * from acc (or zero), in f32 for float inputs: f16/bf16 products are exact
 * in f32, f32 inputs are first truncated to tf32 (their low 13 bits dropped, as the
 * tensor cores read them) unless
 * the op is marked ieee, in which case each step is an f32 fma; f64 inputs
 * accumulate in double with fma; i8 (any integer) inputs accumulate with
 * wrapping at the result's width. An f16 result (out_dtype=f16) is the
 * tensor cores' f16 accumulator: the running value is rounded to f16
 * (nearest even) after every 16 values of k (one m16n8k16 instruction;
 * the 16 products and the accumulator summed in f32 in between) and
 * after the last.
 */
#include "interp.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void fill(IpSlot *r, int64_t n, IpSlot v) {
    for (int64_t i = 0; i < n; i++) r[i] = v;
}

static int exec_const(IpMachine *m, const IrOp *op) {
    ScalarKind k = op->res[0]->ty.k;
    IpSlot v = {0};
    if (ty_isfloat(k))
        v.f = ip_round(k, op->fattr);
    else if (k == SK_BOOL)
        v.i = op->iattr[0] != 0;
    else
        v.i = ip_wrap(k, (uint64_t)op->iattr[0]);
    fill(ip_val(m, op->res[0]), ty_numel(op->res[0]->ty), v);
    return 0;
}

/* Row-major strides of t. */
static void strides(Type t, int64_t *st) {
    int64_t s = 1;
    for (int d = t.rank - 1; d >= 0; d--) {
        st[d] = s;
        s *= t.dim[d];
    }
}

/* dst[i] = src[offset of i], walking the result's index space with a
 * source stride per result axis. */
static void gather(IpSlot *dst, const IpSlot *src, Type rt, const int64_t *sst) {
    int64_t idx[IR_MAXRANK] = {0}, off = 0, n = ty_numel(rt);
    for (int64_t i = 0; i < n; i++) {
        dst[i] = src[off];
        for (int d = rt.rank - 1; d >= 0; d--) {
            off += sst[d];
            if (++idx[d] < rt.dim[d]) break;
            off -= sst[d] * rt.dim[d];
            idx[d] = 0;
        }
    }
}

/* Shapes align from the right; size-1 (or missing) source axes stretch. */
static void exec_broadcast(IpMachine *m, const IrOp *op) {
    Type st = op->args[0]->ty, rt = op->res[0]->ty;
    int64_t sstr[IR_MAXRANK], rstr[IR_MAXRANK];
    strides(st, sstr);
    for (int d = 0; d < rt.rank; d++) {
        int sd = d - (rt.rank - st.rank);
        rstr[d] = sd < 0 || st.dim[sd] == 1 ? 0 : sstr[sd];
    }
    gather(ip_val(m, op->res[0]), ip_val(m, op->args[0]), rt, rstr);
}

/* Result axis d is source axis perm[d]. */
static void exec_permute(IpMachine *m, const IrOp *op) {
    Type st = op->args[0]->ty, rt = op->res[0]->ty;
    int64_t sstr[IR_MAXRANK], rstr[IR_MAXRANK];
    strides(st, sstr);
    for (int d = 0; d < rt.rank; d++) rstr[d] = sstr[op->iattr[d]];
    gather(ip_val(m, op->res[0]), ip_val(m, op->args[0]), rt, rstr);
}

/* ------------------------------------------------- slice, cat, gather */

/* Element i of the result of a slice, cat or gather: the position of the
 * same multi-index in the source (args[0], or args[1] for cat's second
 * half), moved along the op's axis. -1 (reported) for a gather index out
 * of range. */
static int exec_move(IpMachine *m, const IrOp *op) {
    Type rt = op->res[0]->ty, st = op->args[0]->ty;
    int ax = (int)op->iattr[0];
    int64_t sst[IR_MAXRANK];
    strides(st, sst);
    const IpSlot *idx = op->op == IR_GATHER ? ip_val(m, op->args[1]) : NULL;
    IpSlot *r = ip_val(m, op->res[0]);
    for (int64_t i = 0, n = ty_numel(rt); i < n; i++) {
        int64_t ix[IR_MAXRANK], rest = i, off = 0;
        for (int d = rt.rank - 1; d >= 0; d--) {
            ix[d] = rest % rt.dim[d];
            rest /= rt.dim[d];
        }
        const IpSlot *src = ip_val(m, op->args[0]);
        if (op->op == IR_SLICE) ix[ax] += op->iattr[1];
        if (op->op == IR_CAT && ix[ax] >= st.dim[ax]) {
            ix[ax] -= st.dim[ax];
            src = ip_val(m, op->args[1]);
        }
        if (idx && (idx[i].i < 0 || idx[i].i >= st.dim[ax])) {
            char at[64];
            return ip_fail(m, op, "gather index %" PRId64 " is out of range for an "
                           "axis of %d: index %s", idx[i].i, st.dim[ax],
                           ip_index_str(at, sizeof at, rt, i));
        }
        if (idx) ix[ax] = idx[i].i;
        for (int d = 0; d < st.rank; d++) off += ix[d] * sst[d];
        r[i] = src[off];
    }
    return 0;
}

/* ------------------------------------------------------------ reductions */

/* The reduced axis as (outer, len, inner): element j of output (o, i) is
 * source element (o * len + j) * inner + i. A scalar result reduces all. */
static void split_axis(Type in, Type res, int64_t axis, int64_t *outer,
                       int64_t *len, int64_t *inner) {
    *outer = *len = *inner = 1;
    if (res.rank == 0 && !(in.rank == 1 && axis == 0)) {
        *len = ty_numel(in);
        return;
    }
    if (axis < 0) axis += in.rank;
    for (int d = 0; d < in.rank; d++)
        *(d < axis ? outer : d == axis ? len : inner) *= in.dim[d];
}

static int better(ReduceKind rk, ScalarKind k, IpSlot x, IpSlot best) {
    int want_max = rk == RED_MAX || rk == RED_ARGMAX;
    if (ty_isfloat(k)) return want_max ? x.f > best.f : x.f < best.f;
    if (ty_issigned(k)) return want_max ? x.i > best.i : x.i < best.i;
    return want_max ? x.u > best.u : x.u < best.u;
}

/* Reduces n elements src[0], src[s], ... of kind k to one of kind rk. */
static IpSlot reduce_line(ReduceKind red, ScalarKind k, ScalarKind rk,
                          const IpSlot *src, int64_t n, int64_t s) {
    IpSlot r = {0};
    if (red == RED_SUM) {
        if (!ty_isfloat(k)) {
            uint64_t acc = 0;
            for (int64_t j = 0; j < n; j++) acc += src[j * s].u;
            r.i = (int64_t)acc;
            return ip_convert(ty_isfloat(rk) ? k : SK_U64, rk, r);
        }
        if (k == SK_F64) {
            for (int64_t j = 0; j < n; j++) r.f += src[j * s].f;
            return ip_convert(k, rk, r);
        }
        float acc = 0;
        for (int64_t j = 0; j < n; j++) acc += (float)src[j * s].f;
        r.f = acc;
        return ip_convert(SK_F32, rk, r);
    }
    int64_t bi = 0;
    IpSlot best = src[0];
    for (int64_t j = 1; j < n; j++) {
        IpSlot x = src[j * s];
        if (ty_isfloat(k) && (isnan(x.f) || isnan(best.f))) {
            /* NaN loses to a number; of NaNs the first stays */
            if (isnan(best.f) && !isnan(x.f)) best = x, bi = j;
            continue;
        }
        if (better(red, k, x, best)) best = x, bi = j;
    }
    if (red == RED_ARGMAX || red == RED_ARGMIN) {
        r.i = ip_wrap(rk, (uint64_t)bi);
        return r;
    }
    return rk == k ? best : ip_convert(k, rk, best);
}

/* Folds the n elements src[0], src[s], ... with op's combiner, in index
 * order. */
static int fold_line(IpMachine *m, const IrOp *op, const IpSlot *src, int64_t n,
                     int64_t s, IpSlot *r) {
    *r = src[0];
    for (int64_t j = 1; j < n; j++)
        if (ip_combine(m, op, *r, src[j * s], r)) return -1;
    return 0;
}

static int exec_reduce(IpMachine *m, const IrOp *op) {
    Type in = op->args[0]->ty, rt = op->res[0]->ty;
    int64_t outer, len, inner;
    split_axis(in, rt, op->iattr[1], &outer, &len, &inner);
    const IpSlot *src = ip_val(m, op->args[0]);
    IpSlot *r = ip_val(m, op->res[0]);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const IpSlot *line = src + o * len * inner + i;
            if (op->iattr[0] == RED_FN) {
                if (fold_line(m, op, line, len, inner, &r[o * inner + i])) return -1;
            } else {
                r[o * inner + i] = reduce_line((ReduceKind)op->iattr[0], in.k, rt.k,
                                               line, len, inner);
            }
        }
    return 0;
}

/* acc combined with x by a built-in scan of kind sk, in the accumulation
 * kind ak: integers wrap at their width, f32 in float, f64 in double;
 * max/min are maxNum/minNum (fmax/fmin) for floats. */
static IpSlot scan_step(ScanKind sk, ScalarKind ak, IpSlot acc, IpSlot x) {
    IpSlot r = acc;
    if (!ty_isfloat(ak)) {
        int gt = ty_issigned(ak) ? x.i > acc.i : x.u > acc.u;
        int lt = ty_issigned(ak) ? x.i < acc.i : x.u < acc.u;
        if (sk == SCAN_SUM) r.i = ip_wrap(ak, acc.u + x.u);
        else if (sk == SCAN_PROD) r.i = ip_wrap(ak, acc.u * x.u);
        else if (sk == SCAN_MAX ? gt : lt) r = x;
        return r;
    }
    switch (sk) {
    case SCAN_SUM: r.f = ak == SK_F64 ? acc.f + x.f : (double)((float)acc.f + (float)x.f); break;
    case SCAN_PROD: r.f = ak == SK_F64 ? acc.f * x.f : (double)((float)acc.f * (float)x.f); break;
    case SCAN_MAX: r.f = fmax(acc.f, x.f); break;
    case SCAN_MIN: r.f = fmin(acc.f, x.f); break;
    default: break;
    }
    return r;
}

/* Inclusive scans along the axis: the running value of the built-in
 * kind (f16/bf16 accumulate in f32, rounded once per output) or of op's
 * combiner (in the element type). */
static int exec_scan(IpMachine *m, const IrOp *op) {
    Type t = op->res[0]->ty;
    ScalarKind k = t.k, ak = ty_isfloat(k) && k != SK_F64 ? SK_F32 : k;
    ScanKind sk = (ScanKind)op->iattr[1];
    int64_t outer, len, inner;
    split_axis(t, t, op->iattr[0], &outer, &len, &inner);
    const IpSlot *src = ip_val(m, op->args[0]);
    IpSlot *r = ip_val(m, op->res[0]);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t base = o * len * inner + i;
            IpSlot acc = src[base];
            for (int64_t j = 0; j < len; j++) {
                int64_t at = base + j * inner;
                if (j && sk == SCAN_FN && ip_combine(m, op, acc, src[at], &acc)) return -1;
                if (j && sk != SCAN_FN) acc = scan_step(sk, ak, acc, src[at]);
                r[at] = acc;
                if (ty_isfloat(k) && sk != SCAN_FN) r[at].f = ip_round(k, acc.f);
            }
        }
    return 0;
}

/* ------------------------------------------------------------------ sort */

/* The order of sort: numbers as usual, NaN after every number (equal to
 * another NaN), integers signed or not by kind. */
static int sort_cmp(ScalarKind k, IpSlot a, IpSlot b) {
    if (ty_isfloat(k)) {
        if (isnan(a.f) || isnan(b.f)) return isnan(a.f) - isnan(b.f);
        return (a.f > b.f) - (a.f < b.f);
    }
    if (ty_issigned(k)) return (a.i > b.i) - (a.i < b.i);
    return (a.u > b.u) - (a.u < b.u);
}

/* Sifts a[root] (stride s, n elements) down the max-heap of order
 * sign * sort_cmp. */
static void sift(ScalarKind k, int sign, IpSlot *a, int64_t s, int64_t root, int64_t n) {
    for (int64_t c; (c = 2 * root + 1) < n; root = c) {
        if (c + 1 < n && sign * sort_cmp(k, a[c * s], a[(c + 1) * s]) < 0) c++;
        if (sign * sort_cmp(k, a[root * s], a[c * s]) >= 0) return;
        IpSlot t = a[root * s];
        a[root * s] = a[c * s];
        a[c * s] = t;
    }
}

/* Each line along the axis copied and heap-sorted in place (no storage
 * of its own; equal elements, +0 and -0 among them, in any order). */
static void exec_sort(IpMachine *m, const IrOp *op) {
    Type t = op->res[0]->ty;
    int64_t outer, len, inner;
    split_axis(t, t, op->iattr[0], &outer, &len, &inner);
    const IpSlot *src = ip_val(m, op->args[0]);
    IpSlot *r = ip_val(m, op->res[0]);
    int sign = op->iattr[1] ? -1 : 1;
    memcpy(r, src, sizeof(IpSlot) * (size_t)ty_numel(t));
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            IpSlot *a = r + o * len * inner + i;
            for (int64_t j = len / 2 - 1; j >= 0; j--) sift(t.k, sign, a, inner, j, len);
            for (int64_t end = len - 1; end > 0; end--) {
                IpSlot x = a[0];
                a[0] = a[end * inner];
                a[end * inner] = x;
                sift(t.k, sign, a, inner, 0, end);
            }
        }
}

/* ------------------------------------------------------------------- dot */

typedef struct DotShape {
    int64_t batch, M, N, K;
} DotShape;

static void dot_int(const DotShape *s, const IpSlot *a, const IpSlot *b,
                    const IpSlot *acc, IpSlot *r, ScalarKind rk) {
    for (int64_t z = 0; z < s->batch; z++)
        for (int64_t i = 0; i < s->M; i++)
            for (int64_t j = 0; j < s->N; j++) {
                int64_t at = (z * s->M + i) * s->N + j;
                uint64_t sum = acc ? acc[at].u : 0;
                for (int64_t k = 0; k < s->K; k++)
                    sum += a[(z * s->M + i) * s->K + k].u * b[(z * s->K + k) * s->N + j].u;
                r[at].i = ip_wrap(rk, sum);
            }
}

static void dot_f64(const DotShape *s, const IpSlot *a, const IpSlot *b,
                    const IpSlot *acc, IpSlot *r) {
    for (int64_t z = 0; z < s->batch; z++)
        for (int64_t i = 0; i < s->M; i++)
            for (int64_t j = 0; j < s->N; j++) {
                int64_t at = (z * s->M + i) * s->N + j;
                double sum = acc ? acc[at].f : 0;
                for (int64_t k = 0; k < s->K; k++)
                    sum = fma(a[(z * s->M + i) * s->K + k].f, b[(z * s->K + k) * s->N + j].f, sum);
                r[at].f = sum;
            }
}

/* Operand n elements of kind k as the f32 values the tensor core sees;
 * NULL when out of memory. */
static float *dot_operand(const IpSlot *v, int64_t n, ScalarKind k, int ieee) {
    float *f = malloc(sizeof(float) * (size_t)(n ? n : 1));
    if (!f) return NULL;
    for (int64_t i = 0; i < n; i++) {
        f[i] = (float)v[i].f;
        if (k == SK_F32 && !ieee) f[i] = ip_tf32_trunc(f[i]);
    }
    return f;
}

/* An f16 accumulator's rounding after k (tensor-core K steps of 16). */
static void dot_step_round(float *row, int64_t n, int64_t k, int64_t K, ScalarKind rk) {
    if (rk != SK_F16 || ((k + 1) % 16 && k + 1 != K)) return;
    for (int64_t j = 0; j < n; j++) row[j] = (float)ip_round(SK_F16, row[j]);
}

/* f32 accumulation, row by row so the inner loop runs over contiguous j;
 * each output element still sums k in order. -1 when out of memory. */
static int dot_f32(const DotShape *s, const float *a, const float *b,
                   const IpSlot *acc, IpSlot *r, ScalarKind rk, int fused) {
    float *row = malloc(sizeof(float) * (size_t)(s->N ? s->N : 1));
    if (!row) return -1;
    for (int64_t z = 0; z < s->batch; z++)
        for (int64_t i = 0; i < s->M; i++) {
            int64_t at = (z * s->M + i) * s->N;
            for (int64_t j = 0; j < s->N; j++) row[j] = acc ? (float)acc[at + j].f : 0;
            for (int64_t k = 0; k < s->K; k++) {
                float x = a[(z * s->M + i) * s->K + k];
                const float *bk = b + (z * s->K + k) * s->N;
                if (fused)
                    for (int64_t j = 0; j < s->N; j++) row[j] = fmaf(x, bk[j], row[j]);
                else   /* the product is exact: no fma needed */
                    for (int64_t j = 0; j < s->N; j++) row[j] += x * bk[j];
                dot_step_round(row, s->N, k, s->K, rk);
            }
            for (int64_t j = 0; j < s->N; j++) r[at + j].f = ip_round(rk, row[j]);
        }
    free(row);
    return 0;
}

static int exec_dot(IpMachine *m, const IrOp *op) {
    Type ta = op->args[0]->ty, tb = op->args[1]->ty, tr = op->res[0]->ty;
    DotShape s = {tr.rank == 3 ? tr.dim[0] : 1, tr.dim[tr.rank - 2],
                  tr.dim[tr.rank - 1], ta.dim[ta.rank - 1]};
    const IpSlot *a = ip_val(m, op->args[0]), *b = ip_val(m, op->args[1]);
    const IpSlot *acc = op->nargs > 2 ? ip_val(m, op->args[2]) : NULL;
    IpSlot *r = ip_val(m, op->res[0]);
    int ieee = op->iattr[0] == 1;
    if (!ty_isfloat(ta.k)) {
        dot_int(&s, a, b, acc, r, tr.k);
    } else if (ta.k == SK_F64 || tr.k == SK_F64) {
        dot_f64(&s, a, b, acc, r);
    } else {
        float *fa = dot_operand(a, ty_numel(ta), ta.k, ieee);
        float *fb = fa ? dot_operand(b, ty_numel(tb), tb.k, ieee) : NULL;
        int fused = ieee && (ta.k == SK_F32 || tb.k == SK_F32);
        int rc = fb ? dot_f32(&s, fa, fb, acc, r, tr.k, fused) : -1;
        free(fa);
        free(fb);
        if (rc) return ip_fail(m, op, "out of memory in dot");
    }
    return 0;
}

/* ------------------------------------------------------------------ ops */

int ip_exec_tile(IpMachine *m, const IrOp *op) {
    const IrValue *res = op->nres ? op->res[0] : NULL;
    IpSlot *r = res ? ip_val(m, res) : NULL;
    int64_t n = res ? ty_numel(res->ty) : 0;
    switch (op->op) {
    case IR_CONST: return exec_const(m, op);
    case IR_PROGRAM_ID:
    case IR_NUM_PROGRAMS: {
        uint32_t v = (op->op == IR_PROGRAM_ID ? m->pid : m->npid)[op->iattr[0] % 3];
        fill(r, n, (IpSlot){.i = ip_wrap(res->ty.k, v)});
        return 0;
    }
    case IR_ARANGE:
        for (int64_t i = 0; i < n; i++)
            r[i].i = ip_wrap(res->ty.k, (uint64_t)(op->iattr[0] + i));
        return 0;
    case IR_SPLAT: fill(r, n, ip_val(m, op->args[0])[0]); return 0;
    case IR_BROADCAST: exec_broadcast(m, op); return 0;
    case IR_PERMUTE: exec_permute(m, op); return 0;
    case IR_EXPAND_DIMS: case IR_RESHAPE:
    case IR_MULTIPLE_OF: case IR_MAX_CONTIG:
        memcpy(r, ip_val(m, op->args[0]), sizeof(IpSlot) * (size_t)n);
        return 0;
    case IR_SLICE: case IR_CAT: case IR_GATHER: return exec_move(m, op);
    case IR_SORT: exec_sort(m, op); return 0;
    case IR_REDUCE: return exec_reduce(m, op);
    case IR_SCAN: return exec_scan(m, op);
    case IR_DOT: return exec_dot(m, op);
    default:
        return ip_fail(m, op, "internal error: '%s' is not a tile op",
                       ir_op_name[op->op]);
    }
}
