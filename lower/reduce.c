/*
 * reduce.c — reductions (sum, max, min, argmax, argmin, a user's
 * combiner) and scans (cumsum, cumprod, cummax, cummin, a user's
 * combiner).
 *
 * A reduction over axis a of a tile in layout S runs in three rounds, the
 * way Triton's ReduceOpToLLVM does, derived here from S's basis vectors:
 *  1. in-thread: the registers whose coordinates differ only along a are
 *     combined (grouped by their coordinate with a removed; copies skipped);
 *  2. across lanes: for each lane bit whose basis vector walks only a, a
 *     butterfly shuffle (shfl.sync.bfly) with that lane mask — afterwards
 *     every lane of the group holds the group's value;
 *  3. across warps: if warp bits walk a, each warp writes its partial per
 *     output element to shared memory, a barrier, and every thread combines
 *     the partials of its output elements: the lanes of step 2 (which
 *     share their output elements) each load one partial (or every
 *     2^k-th, when there are fewer such lanes than warps) and finish
 *     with butterfly shuffles over those lane bits, as Triton's first
 *     warp does but in every warp at once, so no second barrier (with no
 *     such lanes, each thread combines all partials in warp order).
 * The result then has the slice layout of S (ly_slice), converted to the
 * result's assigned layout when that differs. Lane or warp bits that walk
 * a and another dimension at once (never produced by blocked or slice
 * layouts) are reported as unsupported.
 *
 * Accumulation follows the interpreter: f16/bf16 sums accumulate in f32
 * and round once; max/min are maxNum/minNum (llvm.maxnum: PTX max.f32
 * and its kin, which return the number when one operand is NaN and NaN
 * only when both are); argmax/argmin carry (value, index) pairs, keep the
 * lower index on ties and ignore NaN the same way: a number beats a NaN,
 * and of two NaNs the lower index wins, so an all-NaN line gives index 0
 * where max gives NaN: the index always names the max's element (a NaN
 * only when every element is). Combining is commutative, so both
 * partners of a butterfly compute the same value.
 *
 * A user's combiner (RED_FN, SCAN_FN: the op's region, a fn of two
 * scalars) is emitted in place at each combination. The reduction
 * combines in tree order, so its combiner must be commutative as well as
 * associative; the scan keeps the order of the elements, so associative
 * suffices.
 *
 * A scan (inclusive, along a) runs in the same three rounds, the way
 * Triton's ScanOpToLLVM does it: when the layout walks the axis with
 * registers for its lowest bits, then consecutive lane bits, then warp
 * bits, then registers again (every blocked layout and its slices do):
 *  1. in-thread: a sequential prefix over each thread's low registers;
 *  2. across lanes: an inclusive Hillis-Steele scan of the thread totals
 *     with shfl.sync.up (one step per lane bit), and one more shuffle up
 *     for the exclusive prefix each thread adds to its elements;
 *  3. across warps: each warp's last lane writes the warp's total to
 *     shared memory, a barrier, and every thread adds the totals of the
 *     warps below it;
 * and the high registers (the blocked layout's repeats of its program
 * tile) are chunks scanned that way one after the other, each adding the
 * totals of those before it. O(log n) steps per element instead of the
 * O(n) prefix sums of a shared-memory scan. A layout that walks the axis
 * otherwise (an mma accumulator along its rows, a reshape's linear map)
 * is converted to the default blocked layout, scanned, and converted
 * back. f16/bf16 accumulate in f32 and round once per output (but with a
 * combiner, which runs in the element type). Every step combines the
 * earlier elements' prefix before the later ones, and a prefix that may
 * be empty (the lanes or warps below the first) carries a flag, selected
 * on, so no kind needs an identity element.
 */
#include "lower/lw.h"

#include <math.h>
#include <string.h>

typedef struct LwPair {
    LLVMValueRef v, i;  /* value; index along the axis (arg*) */
} LwPair;

static int lw_is_arg(int kind) { return kind == RED_ARGMAX || kind == RED_ARGMIN; }

/* The combiner region of a RED_FN reduce or SCAN_FN scan on (x, y), x
 * holding the earlier elements, emitted in place: each use is a copy of
 * the user's fn on two scalars. */
static LLVMValueRef lw_region_combine(LwFn *f, const IrOp *op, LLVMValueRef x,
                                      LLVMValueRef y) {
    const IrBlock *blk = op->regions[0];
    LwVal a = lw_new_val(f, 1), b = lw_new_val(f, 1);
    a.r[0] = x;
    b.r[0] = y;
    lw_set(f, blk->args[0], a);
    lw_set(f, blk->args[1], b);
    lw_block(f, blk);
    lw_set_loc(f, op->loc);
    if (f->failed) return x;
    return lw_val(f, blk->last->args[0])->r[0];
}

/* a then b by reduction kind `kind` in k (op: the reduce or scan whose
 * region RED_FN runs). */
static LwPair lw_combine(LwFn *f, const IrOp *op, int kind, ScalarKind k, LwPair a,
                         LwPair b) {
    LwCtx *c = f->c;
    LLVMBuilderRef bd = c->b;
    LLVMTypeRef t = LLVMTypeOf(a.v);
    int fl = ty_isfloat(k), sg = ty_issigned(k);
    LLVMValueRef x[2] = {a.v, b.v};
    LwPair r = {NULL, NULL};
    switch (kind) {
    case RED_SUM:
        r.v = fl ? LLVMBuildFAdd(bd, a.v, b.v, "") : LLVMBuildAdd(bd, a.v, b.v, "");
        return r;
    case RED_MAX:
        r.v = lw_call_intr(c, fl ? "llvm.maxnum" : sg ? "llvm.smax" : "llvm.umax",
                           &t, 1, x, 2);
        return r;
    case RED_MIN:
        r.v = lw_call_intr(c, fl ? "llvm.minnum" : sg ? "llvm.smin" : "llvm.umin",
                           &t, 1, x, 2);
        return r;
    case RED_FN:
        r.v = lw_region_combine(f, op, a.v, b.v);
        return r;
    default: break;
    }
    int mx = kind == RED_ARGMAX;
    LLVMValueRef lower = LLVMBuildICmp(bd, LLVMIntSLT, b.i, a.i, "");
    LLVMValueRef better, eq, pick;
    if (fl) {
        better = LLVMBuildFCmp(bd, mx ? LLVMRealOGT : LLVMRealOLT, b.v, a.v, "");
        eq = LLVMBuildFCmp(bd, LLVMRealOEQ, b.v, a.v, "");
        /* a number in a: b when better, or equal with a lower index (both
         * false for a NaN b); a NaN in a: b when a number, or a NaN with
         * a lower index */
        LLVMValueRef anan = LLVMBuildFCmp(bd, LLVMRealUNO, a.v, a.v, "");
        LLVMValueRef bnum = LLVMBuildFCmp(bd, LLVMRealORD, b.v, b.v, "");
        LLVMValueRef num = LLVMBuildOr(bd, better, LLVMBuildAnd(bd, eq, lower, ""), "");
        pick = LLVMBuildSelect(bd, anan, LLVMBuildOr(bd, bnum, lower, ""), num, "");
    } else {
        better = LLVMBuildICmp(bd, mx ? (sg ? LLVMIntSGT : LLVMIntUGT)
                                       : (sg ? LLVMIntSLT : LLVMIntULT),
                               b.v, a.v, "");
        eq = LLVMBuildICmp(bd, LLVMIntEQ, b.v, a.v, "");
        pick = LLVMBuildOr(bd, better, LLVMBuildAnd(bd, eq, lower, ""), "");
    }
    r.v = LLVMBuildSelect(bd, pick, b.v, a.v, "");
    r.i = LLVMBuildSelect(bd, pick, b.i, a.i, "");
    return r;
}

/* ------------------------------------------------------------ reduction */

/* What a padding element (ir.h, ty_pad) enters a reduction of `kind` as,
 * in kind ak: one that changes nothing. -0.0 for float sums, 0 for
 * integer ones; NaN for float max, min, argmax and argmin (each skips
 * NaN, and an index in the padding is above every real one, so among
 * NaNs a real element wins); the type's extremes for integers (on a tie
 * the lower index, a real element's, wins). RED_FN has no identity: sema
 * rejects it along a padded axis. */
static LLVMValueRef lw_pad_identity(LwCtx *c, int kind, ScalarKind ak) {
    LLVMTypeRef t = lw_type(c, ak);
    if (ty_isfloat(ak)) return LLVMConstReal(t, kind == RED_SUM ? -0.0 : NAN);
    if (kind == RED_SUM) return LLVMConstNull(t);
    return lw_int_limit(c, ak, !(kind == RED_MAX || kind == RED_ARGMAX));
}

/* Packed-coordinate bits of dimension a of `shape`, and the projection
 * that removes them. */
static uint32_t lw_axis_bits(const Layout *l, int a, int *off, int *n) {
    *off = 0;
    for (int d = l->rank - 1; d > a; d--) *off += ly_log2(l->shape[d]);
    *n = ly_log2(l->shape[a]);
    return ((1u << *n) - 1) << *off;
}

/* Product of S's extents other than axis a: the keys a reduction or scan
 * along a keeps apart. */
static int64_t lw_nkeys(const Layout *S, int a) {
    int64_t n = 1;
    for (int d = 0; d < S->rank; d++)
        if (d != a) n *= S->shape[d];
    return n;
}

/* A reduction's scratch across 2^nwb warps: the partials of kind ak,
 * 16-byte aligned (*vbytes), then argmax/argmin's i32 indices. */
static int64_t lw_reduce_bytes(const Layout *S, int a, int nwb, ScalarKind ak, int arg,
                               int64_t *vbytes) {
    int64_t nkeys = lw_nkeys(S, a), nw = 1 << nwb;
    *vbytes = (nw * nkeys * ty_bytes(ak) + 15) & ~(int64_t)15;
    return *vbytes + (arg ? nw * nkeys * 4 : 0);
}

static uint32_t lw_drop(uint32_t y, int off, int n) {
    return (y & ((1u << off) - 1)) | ((y >> (off + n)) << off);
}

static LLVMValueRef lw_drop_rt(LwFn *f, LLVMValueRef y, int off, int n) {
    LLVMBuilderRef b = f->c->b;
    LLVMValueRef low = LLVMBuildAnd(b, y, lw_i32(f->c, (int64_t)((1u << off) - 1)), "");
    LLVMValueRef high = LLVMBuildShl(
        b, LLVMBuildLShr(b, y, lw_i32(f->c, off + n), ""), lw_i32(f->c, off), "");
    return LLVMBuildOr(b, low, high, "");
}

static uint32_t lw_rpart(const Layout *l, int r) {
    uint32_t y = 0;
    for (int i = 0; i < l->nbits[LY_REG]; i++)
        if (r >> i & 1) y ^= l->basis[LY_REG][i];
    return y;
}

void lw_reduce(LwFn *f, const IrOp *op) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    const IrValue *x = op->args[0], *res = op->res[0];
    const Layout *S = x->layout;
    int kind = (int)op->iattr[0], a = (int)op->iattr[1];
    int arg = lw_is_arg(kind);
    ScalarKind k = (ScalarKind)x->ty.k;
    ScalarKind ak = kind == RED_SUM && (k == SK_F16 || k == SK_BF16) ? SK_F32 : k;
    LwVal in = *lw_val(f, x);
    if (!S) {   /* a scalar operand reduces to itself */
        LwVal out = lw_new_val(f, 1);
        out.r[0] = arg ? lw_i32(c, 0) : in.r[0];
        lw_set(f, res, out);
        return;
    }
    int off, na;
    uint32_t A = lw_axis_bits(S, a, &off, &na);

    /* 1. in-thread groups */
    int ng = 0;
    uint32_t *key = ar_alloc(c->ar, sizeof(uint32_t) * (size_t)in.n);
    int *first = ar_alloc(c->ar, sizeof(int) * (size_t)in.n);
    LwPair *g = ar_alloc(c->ar, sizeof(LwPair) * (size_t)in.n);
    uint32_t copies = 0;
    for (int i = 0; i < S->nbits[LY_REG]; i++)
        if (!S->basis[LY_REG][i]) copies |= 1u << i;
    for (int r = 0; r < in.n; r++) {
        if ((uint32_t)r & copies) continue;
        uint32_t kk = lw_drop(lw_rpart(S, r), off, na);
        LwPair p = {lw_cast_scalar(f, in.r[r], k, ak),
                    arg ? lw_coord(f, S, r, a) : NULL};
        LLVMValueRef real = lw_pad_and(f, x, S, r, NULL);
        if (real) p.v = LLVMBuildSelect(b, real, p.v, lw_pad_identity(c, kind, ak), "");
        int j = 0;
        while (j < ng && key[j] != kk) j++;
        if (j == ng) {
            key[ng] = kk;
            first[ng] = r;
            g[ng++] = p;
        } else {
            g[j] = lw_combine(f, op, kind, ak, g[j], p);
        }
    }
    /* 2. lanes */
    int lbits[LY_MAXBITS], nlb = 0;   /* the lane bits walking a */
    for (int i = 0; i < S->nbits[LY_LANE]; i++) {
        uint32_t bv = S->basis[LY_LANE][i];
        if (!bv || !(bv & A)) continue;
        if (bv & ~A) {
            lw_error(f, op->loc, "unsupported layout for a reduction (lanes "
                     "walk two dimensions)");
            return;
        }
        lbits[nlb++] = i;
        for (int j = 0; j < ng; j++) {
            LwPair o = {lw_shfl_xor(f, g[j].v, 1 << i),
                        arg ? lw_shfl_xor(f, g[j].i, 1 << i) : NULL};
            g[j] = lw_combine(f, op, kind, ak, g[j], o);
        }
    }
    /* 3. warps */
    uint32_t W = 0;
    int nwb = 0;
    for (int i = 0; i < S->nbits[LY_WARP]; i++) {
        uint32_t bv = S->basis[LY_WARP][i];
        if (!bv || !(bv & A)) continue;
        if (bv & ~A) {
            lw_error(f, op->loc, "unsupported layout for a reduction (warps "
                     "walk two dimensions)");
            return;
        }
        W |= 1u << i;
        nwb++;
    }
    if (W) {
        int64_t nkeys = lw_nkeys(S, a), vbytes;
        int nw = 1 << nwb;
        LLVMTypeRef vt = lw_type(c, ak);
        lw_smem(f, lw_reduce_bytes(S, a, nwb, ak, arg, &vbytes));
        LLVMValueRef ibase = LLVMBuildGEP2(b, c->i8, f->smem,
                                           (LLVMValueRef[]){lw_i32(c, vbytes)}, 1, "");
        /* this warp's rank along the axis */
        LLVMValueRef wa = lw_i32(c, 0);
        for (int i = 0, j = 0; i < S->nbits[LY_WARP]; i++) {
            if (!(W >> i & 1)) continue;
            LLVMValueRef bit = LLVMBuildAnd(b, LLVMBuildLShr(b, f->warp, lw_i32(c, i), ""),
                                            lw_i32(c, 1), "");
            wa = LLVMBuildOr(b, wa, LLVMBuildShl(b, bit, lw_i32(c, j++), ""), "");
        }
        LLVMValueRef *krt = ar_alloc(c->ar, sizeof(LLVMValueRef) * (size_t)ng);
        lw_scratch_barrier(f);
        for (int j = 0; j < ng; j++) {
            krt[j] = lw_drop_rt(f, lw_packed_coord(f, S, first[j]), off, na);
            LLVMValueRef at = LLVMBuildAdd(b, LLVMBuildMul(b, wa, lw_i32(c, nkeys), ""),
                                           krt[j], "");
            LLVMBuildStore(b, g[j].v, LLVMBuildGEP2(b, vt, f->smem, &at, 1, ""));
            if (arg)
                LLVMBuildStore(b, g[j].i, LLVMBuildGEP2(b, c->i32, ibase, &at, 1, ""));
        }
        lw_barrier(f);
        /* The lanes walking a hold the same keys: the first nsh of those
         * lane bits spread the partials, lane t (its rank along them)
         * combining partials t, t + 2^nsh, ..., then nsh butterflies
         * finish (with 32 such lanes and 8 warps: one load and 3
         * shuffles instead of 8 loads and 7 combines). */
        int nsh = nlb < nwb ? nlb : nwb;
        LLVMValueRef t = lw_i32(c, 0);
        for (int s = 0; s < nsh; s++) {
            LLVMValueRef bit = LLVMBuildAnd(b, LLVMBuildLShr(b, f->lane, lw_i32(c, lbits[s]), ""),
                                            lw_i32(c, 1), "");
            t = LLVMBuildOr(b, t, LLVMBuildShl(b, bit, lw_i32(c, s), ""), "");
        }
        LLVMValueRef tk = LLVMBuildMul(b, t, lw_i32(c, nkeys), "");
        for (int j = 0; j < ng; j++) {
            LwPair acc = {NULL, NULL};
            for (int w = 0; w < nw >> nsh; w++) {
                LLVMValueRef at = LLVMBuildAdd(b, lw_i32(c, (w << nsh) * nkeys),
                                               LLVMBuildAdd(b, tk, krt[j], ""), "");
                LwPair p = {LLVMBuildLoad2(b, vt, LLVMBuildGEP2(b, vt, f->smem, &at, 1, ""), ""),
                            arg ? LLVMBuildLoad2(b, c->i32,
                                                 LLVMBuildGEP2(b, c->i32, ibase, &at, 1, ""), "")
                                : NULL};
                acc = w ? lw_combine(f, op, kind, ak, acc, p) : p;
            }
            for (int s = 0; s < nsh; s++) {
                LwPair o = {lw_shfl_xor(f, acc.v, 1 << lbits[s]),
                            arg ? lw_shfl_xor(f, acc.i, 1 << lbits[s]) : NULL};
                acc = lw_combine(f, op, kind, ak, acc, o);
            }
            g[j] = acc;
        }
    }
    /* the result, in the slice layout of S, then in res's layout */
    ScalarKind rk = (ScalarKind)res->ty.k;
    for (int j = 0; j < ng; j++)
        g[j].v = arg ? g[j].i : lw_cast_scalar(f, g[j].v, ak, rk);
    if (!res->layout || S->rank == 1) {
        LwVal out = lw_new_val(f, 1);
        out.r[0] = g[0].v;
        if (res->layout) out = lw_remap(f, out, rk, NULL, res->layout, NULL);
        lw_set(f, res, out);
        return;
    }
    const Layout *N = ly_slice(c->ar, S, a);
    LwVal out = lw_new_val(f, ly_size(N, LY_REG));
    for (int r = 0; r < out.n; r++) {
        uint32_t kk = lw_rpart(N, r);
        int j = 0;
        while (j < ng && key[j] != kk) j++;
        if (j == ng) {
            lw_error(f, op->loc, "internal error: reduction result register "
                     "without a group");
            return;
        }
        out.r[r] = g[j].v;
    }
    if (!ly_eq(N, res->layout)) out = lw_remap(f, out, rk, N, res->layout, NULL);
    lw_set(f, res, out);
}

/* ----------------------------------------------------------------- scan */

/* How a layout splits the scanned axis, from its lowest bit up: `lo` bits
 * walked by registers, `lanes` by the consecutive lane bits lane0,
 * lane0 + 1, ... in order, `warps` by warp bits (any of them, in any
 * order), and `hi` bits by registers again (a blocked layout's repeats).
 * Every blocked layout and its slices split an axis this way. */
typedef struct LwScanSplit {
    int lo, lanes, lane0, warps, hi;
} LwScanSplit;

/* Fills *sp when every basis vector of l either leaves the axis bits
 * [off, off + na) alone or is one of them, each axis bit has exactly one
 * such basis vector, and their owners come in the order above. */
static int lw_scan_split(const Layout *l, int off, int na, LwScanSplit *sp) {
    uint32_t A = ((1u << na) - 1) << off;
    int owner[32], bit[32];
    for (int j = 0; j < na; j++) owner[j] = -1;
    for (int d = 0; d < LY_NIN; d++)
        for (int i = 0; i < l->nbits[d]; i++) {
            uint32_t v = l->basis[d][i];
            if (!(v & A)) continue;
            if ((v & ~A) || (v & (v - 1))) return 0;
            int j = __builtin_ctz(v) - off;
            if (owner[j] >= 0) return 0;
            owner[j] = d;
            bit[j] = i;
        }
    memset(sp, 0, sizeof *sp);
    int phase = 0;   /* 0: low registers, 1: lanes, 2: warps, 3: high registers */
    for (int j = 0; j < na; j++) {
        int want = owner[j] == LY_REG ? (phase == 0 ? 0 : 3)
                   : owner[j] == LY_LANE ? 1
                   : owner[j] == LY_WARP ? 2 : -1;
        if (want < phase) return 0;
        phase = want;
        if (want == 1) {
            if (sp->lanes == 0) sp->lane0 = bit[j];
            else if (bit[j] != sp->lane0 + sp->lanes) return 0;
        }
        int *n[4] = {&sp->lo, &sp->lanes, &sp->warps, &sp->hi};
        (*n[want])++;
    }
    return 1;
}

/* A scan's scratch: the warps' totals of each key and chunk (none when
 * no warp walks the axis). */
static int64_t lw_scan_bytes(const Layout *S, int a, const LwScanSplit *sp, ScalarKind ak) {
    if (!sp->warps) return 0;
    return lw_nkeys(S, a) * ((int64_t)1 << sp->warps) * ((int64_t)1 << sp->hi) * ty_bytes(ak);
}

/* The kind a scan accumulates in: f32 for f16/bf16 but with a combiner. */
static ScalarKind lw_scan_acc(const IrOp *op) {
    ScalarKind k = (ScalarKind)op->res[0]->ty.k;
    return (k == SK_F16 || k == SK_BF16) && op->iattr[1] != SCAN_FN ? SK_F32 : k;
}

/* One row of the scan inside the registers of a thread: the registers
 * holding one coordinate off the axis, by chunk (high axis bits) and
 * position (low axis bits). Prefixes of elements below (excl, wexcl)
 * hold only where their flag (*ok, an i1) does: in the lanes and warps
 * that have such elements. */
typedef struct LwScanRow {
    int *reg;                 /* [chunk << lo | pos]: register, or -1 */
    LLVMValueRef *s;          /* in-thread inclusive prefix, same index */
    LLVMValueRef *excl, *excl_ok; /* per chunk: lanes below along the axis */
    LLVMValueRef *seg;        /* per chunk: this warp's segment total (the
                                 last lane's inclusive value) */
    LLVMValueRef *wexcl, *wexcl_ok; /* per chunk: warps below */
    LLVMValueRef *total;      /* per chunk: the whole chunk */
    uint32_t key;             /* register part of the coordinate, axis bits
                                 cleared */
} LwScanRow;

/* A scan of a value in layout S along axis a, which S splits as sp says. */
typedef struct LwScan {
    LwFn *f;
    const IrOp *op;
    const Layout *S;
    LwScanSplit sp;
    int a, off, na, hi_off;   /* axis; its bits; where the high ones start */
    uint32_t A;               /* the axis bits of a packed coordinate */
    int nlo, nch, nw;         /* positions, chunks, warps along the axis */
    ScalarKind k, ak;         /* element and accumulation types */
    LwScanRow *rows;
    int nrows;
} LwScan;

/* x then y (x the earlier elements) by the scan's kind. */
static LLVMValueRef lw_scan_comb(const LwScan *q, LLVMValueRef x, LLVMValueRef y) {
    static const int red[] = {[SCAN_SUM] = RED_SUM, [SCAN_MAX] = RED_MAX,
                              [SCAN_MIN] = RED_MIN, [SCAN_FN] = RED_FN};
    int kind = (int)q->op->iattr[1];
    if (kind == SCAN_PROD)
        return ty_isfloat(q->ak) ? LLVMBuildFMul(q->f->c->b, x, y, "")
                                 : LLVMBuildMul(q->f->c->b, x, y, "");
    LwPair a = {x, NULL}, b = {y, NULL};
    return lw_combine(q->f, q->op, red[kind], q->ak, a, b).v;
}

/* x (where xok holds; NULL: none, or always) then y (likewise): where
 * only one holds, that one; the flag of the result in *ok. No kind of
 * scan needs an identity element. */
static LLVMValueRef lw_scan_cat(const LwScan *q, LLVMValueRef x, LLVMValueRef xok,
                                LLVMValueRef y, LLVMValueRef yok, LLVMValueRef *ok) {
    LLVMBuilderRef b = q->f->c->b;
    if (!x || !y) {
        *ok = x ? xok : yok;
        return x ? x : y;
    }
    LLVMValueRef v = lw_scan_comb(q, x, y);
    if (yok) v = LLVMBuildSelect(b, yok, v, x, "");
    if (xok) v = LLVMBuildSelect(b, xok, v, y, "");
    *ok = xok && yok ? LLVMBuildOr(b, xok, yok, "") : NULL;
    return v;
}

/* Inclusive scan of v over the lanes of q (Hillis-Steele with
 * shfl.sync.up: step i combines the value 2^i lanes below along the axis
 * before it); lax is this lane's index along the axis. With excl,
 * *excl gets the exclusive prefix (one more shuffle up), which *eok says
 * holds (not in the first lane). */
static LLVMValueRef lw_lane_scan(const LwScan *q, LLVMValueRef lax, LLVMValueRef v,
                                 LLVMValueRef *excl, LLVMValueRef *eok) {
    LwFn *f = q->f;
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    const LwScanSplit *sp = &q->sp;
    for (int i = 0; i < sp->lanes; i++) {
        LLVMValueRef y = lw_shfl(f, LW_SHFL_UP, v, lw_i32(c, 1 << (sp->lane0 + i)));
        LLVMValueRef take = LLVMBuildICmp(b, LLVMIntUGE, lax, lw_i32(c, 1 << i), "");
        v = LLVMBuildSelect(b, take, lw_scan_comb(q, y, v), v, "");
    }
    if (excl) {
        *excl = lw_shfl(f, LW_SHFL_UP, v, lw_i32(c, 1 << sp->lane0));
        *eok = LLVMBuildICmp(b, LLVMIntNE, lax, lw_i32(c, 0), "");
    }
    return v;
}

static int lw_scan_pos(const LwScan *q, uint32_t y) {
    return (int)(y >> q->off) & (q->nlo - 1);
}

static int lw_scan_chunk(const LwScan *q, uint32_t y) {
    return (int)(y >> q->hi_off) & (q->nch - 1);
}

static LwScanRow *lw_scan_row(LwScan *q, uint32_t key) {
    for (int j = 0; j < q->nrows; j++)
        if (q->rows[j].key == key) return &q->rows[j];
    Arena *ar = q->f->c->ar;
    LwScanRow *w = &q->rows[q->nrows++];
    size_t n = (size_t)(q->nlo * q->nch);
    memset(w, 0, sizeof *w);
    w->key = key;
    w->reg = ar_alloc(ar, sizeof(int) * n);
    for (size_t i = 0; i < n; i++) w->reg[i] = -1;
    w->s = ar_alloc(ar, sizeof(LLVMValueRef) * n);
    LLVMValueRef **per[6] = {&w->excl, &w->excl_ok, &w->seg, &w->wexcl, &w->wexcl_ok,
                             &w->total};
    for (int i = 0; i < 6; i++)
        *per[i] = ar_alloc(ar, sizeof(LLVMValueRef) * (size_t)q->nch);
    return w;
}

/* 1. in thread, 2. across the lanes of each chunk. 0 when a register is
 * missing (the layout is not what the split said). */
static int lw_scan_lanes(LwScan *q, LwVal in) {
    LwFn *f = q->f;
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    const LwScanSplit *sp = &q->sp;
    LLVMValueRef lax = LLVMBuildAnd(b, LLVMBuildLShr(b, f->lane, lw_i32(c, sp->lane0), ""),
                                    lw_i32(c, (1 << sp->lanes) - 1), "");
    for (int j = 0; j < q->nrows; j++)
        for (int ch = 0; ch < q->nch; ch++) {
            LwScanRow *w = &q->rows[j];
            LLVMValueRef acc = NULL, *s = &w->s[ch * q->nlo];
            for (int p = 0; p < q->nlo; p++) {
                int r = w->reg[ch * q->nlo + p];
                if (r < 0) return 0;
                LLVMValueRef x = lw_cast_scalar(f, in.r[r], q->k, q->ak);
                acc = s[p] = acc ? lw_scan_comb(q, acc, x) : x;
            }
            w->excl[ch] = w->excl_ok[ch] = NULL;
            w->seg[ch] = acc;
            if (sp->lanes && q->nlo > 1)
                w->seg[ch] = lw_lane_scan(q, lax, acc, &w->excl[ch], &w->excl_ok[ch]);
            else if (sp->lanes)   /* one element: the inclusive scan is it */
                w->seg[ch] = s[0] = lw_lane_scan(q, lax, acc, NULL, NULL);
            w->wexcl[ch] = w->wexcl_ok[ch] = NULL;
            w->total[ch] = w->seg[ch];
        }
    return 1;
}

/* Row j's first slot in the scratch, (row << warps), and this warp's
 * index along the axis. */
static LLVMValueRef lw_scan_slot(const LwScan *q, int j, LLVMValueRef *wax) {
    LwCtx *c = q->f->c;
    LLVMBuilderRef b = c->b;
    LLVMValueRef y = lw_packed_coord(q->f, q->S, q->rows[j].reg[0]);
    *wax = LLVMBuildAnd(b, LLVMBuildLShr(b, y, lw_i32(c, q->off + q->sp.lo + q->sp.lanes), ""),
                        lw_i32(c, q->nw - 1), "");
    return LLVMBuildShl(b, lw_drop_rt(q->f, y, q->off, q->na), lw_i32(c, q->sp.warps), "");
}

/* 3. across warps: the last lane of each warp's segment (the owner among
 * copies) writes the segment's total to slot
 * [(chunk * rows + row) * nw + warp index], a barrier, and every thread
 * combines the totals of the warps below its own (in order; present in
 * every warp but the first) and of all of them. */
static void lw_scan_warps(LwScan *q) {
    LwFn *f = q->f;
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = lw_type(c, q->ak);
    int64_t chunk = lw_nkeys(q->S, q->a) * q->nw;
    lw_smem(f, lw_scan_bytes(q->S, q->a, &q->sp, q->ak));
    uint32_t lmask = ((1u << q->sp.lanes) - 1) << q->sp.lane0;
    LLVMValueRef last = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, f->lane, lw_i32(c, lmask), ""),
                                      lw_i32(c, lmask), "");
    LLVMValueRef owner = lw_owner(f, q->S, q->rows[0].reg[0], NULL);
    if (owner) last = LLVMBuildAnd(b, last, owner, "");
    lw_scratch_barrier(f);
    LLVMBasicBlockRef join = lw_only_if(f, last, "scan.put", "scan.join");
    for (int j = 0; j < q->nrows; j++) {
        LLVMValueRef wax, base = lw_scan_slot(q, j, &wax);
        for (int ch = 0; ch < q->nch; ch++) {
            LLVMValueRef at = LLVMBuildOr(b, LLVMBuildAdd(b, base, lw_i32(c, ch * chunk), ""),
                                          wax, "");
            LLVMBuildStore(b, q->rows[j].seg[ch], LLVMBuildGEP2(b, t, f->smem, &at, 1, ""));
        }
    }
    lw_join(f, join);
    lw_barrier(f);
    for (int j = 0; j < q->nrows; j++) {
        LLVMValueRef wax, base = lw_scan_slot(q, j, &wax);  /* again: dominance */
        for (int ch = 0; ch < q->nch; ch++) {
            LLVMValueRef sum = NULL, below = NULL;
            for (int w = 0; w < q->nw; w++) {
                LLVMValueRef at = LLVMBuildAdd(b, base, lw_i32(c, ch * chunk + w), "");
                LLVMValueRef v = LLVMBuildLoad2(b, t, LLVMBuildGEP2(b, t, f->smem, &at, 1, ""), "");
                LLVMValueRef in = LLVMBuildICmp(b, LLVMIntULT, lw_i32(c, w), wax, "");
                if (w) {
                    below = LLVMBuildSelect(b, in, lw_scan_comb(q, below, v), below, "");
                } else {
                    below = v;
                    q->rows[j].wexcl_ok[ch] = in;
                }
                sum = sum ? lw_scan_comb(q, sum, v) : v;
            }
            q->rows[j].wexcl[ch] = below;
            q->rows[j].total[ch] = sum;
        }
    }
}

/* 4. chunks in order, each after the totals of those before it; the
 * result in S's registers. */
static LwVal lw_scan_chunks(LwScan *q, int nregs) {
    LwFn *f = q->f;
    for (int j = 0; j < q->nrows; j++) {
        LwScanRow *w = &q->rows[j];
        LLVMValueRef carry = NULL;
        for (int ch = 0; ch < q->nch; ch++) {
            LLVMValueRef ok, *s = &w->s[ch * q->nlo];
            LLVMValueRef base = lw_scan_cat(q, carry, NULL, w->wexcl[ch], w->wexcl_ok[ch], &ok);
            base = lw_scan_cat(q, base, ok, w->excl[ch], w->excl_ok[ch], &ok);
            for (int p = 0; p < q->nlo; p++) {
                LLVMValueRef none;
                s[p] = lw_cast_scalar(f, lw_scan_cat(q, base, ok, s[p], NULL, &none), q->ak, q->k);
            }
            if (ch + 1 < q->nch) carry = carry ? lw_scan_comb(q, carry, w->total[ch]) : w->total[ch];
        }
    }
    LwVal out = lw_new_val(f, nregs);
    for (int r = 0; r < nregs; r++) {
        uint32_t y = lw_rpart(q->S, r);
        out.r[r] = lw_scan_row(q, y & ~q->A)->s[lw_scan_chunk(q, y) * q->nlo + lw_scan_pos(q, y)];
    }
    return out;
}

/* Scans `in` (layout S) along op's axis a, which S splits as sp says. */
static LwVal lw_scan_split_layout(LwFn *f, const IrOp *op, LwVal in, const Layout *S,
                                  const LwScanSplit *sp) {
    int a = (int)op->iattr[0];
    LwScan q = {.f = f, .op = op, .S = S, .sp = *sp, .a = a,
                .k = (ScalarKind)op->res[0]->ty.k, .ak = lw_scan_acc(op)};
    q.A = lw_axis_bits(S, a, &q.off, &q.na);
    q.nlo = 1 << sp->lo;
    q.nch = 1 << sp->hi;
    q.nw = 1 << sp->warps;
    q.hi_off = q.off + sp->lo + sp->lanes + sp->warps;
    q.rows = ar_alloc(f->c->ar, sizeof(LwScanRow) * (size_t)in.n);
    for (int r = 0; r < in.n; r++) {
        uint32_t y = lw_rpart(S, r);
        int *slot = &lw_scan_row(&q, y & ~q.A)->reg[lw_scan_chunk(&q, y) * q.nlo + lw_scan_pos(&q, y)];
        if (*slot < 0) *slot = r;
    }
    if (!lw_scan_lanes(&q, in)) {
        lw_error(f, op->loc, "internal error: scan register missing");
        return in;
    }
    if (sp->warps) {
        lw_scan_warps(&q);
    } else if (sp->lanes && sp->hi) {
        /* the chunk totals, from each segment's last lane */
        uint32_t lmask = ((1u << sp->lanes) - 1) << sp->lane0;
        LLVMValueRef src = LLVMBuildOr(f->c->b, f->lane, lw_i32(f->c, lmask), "");
        for (int j = 0; j < q.nrows; j++)
            for (int ch = 0; ch + 1 < q.nch; ch++)
                q.rows[j].total[ch] = lw_shfl(f, LW_SHFL_IDX, q.rows[j].seg[ch], src);
    }
    return lw_scan_chunks(&q, in.n);
}

/* The default blocked layout of D's shape, in which every axis scans. */
static const Layout *lw_scan_blocked(Arena *ar, const Layout *D, int warps) {
    uint8_t order[IR_MAXRANK];
    for (int d = 0; d < D->rank; d++) order[d] = (uint8_t)(D->rank - 1 - d);
    return ly_blocked_default(ar, D->rank, D->shape, warps, 1, order);
}

void lw_scan(LwFn *f, const IrOp *op) {
    LwCtx *c = f->c;
    const IrValue *x = op->args[0], *res = op->res[0];
    const Layout *D = res->layout;
    ScalarKind k = (ScalarKind)res->ty.k;
    LwVal in = lw_in_layout(f, x, D);
    int a = (int)op->iattr[0], off, na;
    if (!D) {   /* a scalar is its own prefix */
        lw_set(f, res, in);
        return;
    }
    lw_axis_bits(D, a, &off, &na);
    LwScanSplit sp;
    if (lw_scan_split(D, off, na, &sp)) {
        lw_set(f, res, lw_scan_split_layout(f, op, in, D, &sp));
        return;
    }
    /* a layout that mixes the axis with other bits (a reshape's, an mma
     * accumulator's along its rows): scan in the default blocked layout */
    const Layout *B = lw_scan_blocked(c->ar, D, f->k->warps);
    if (!B || !lw_scan_split(B, off, na, &sp)) {
        lw_error(f, op->loc, "internal error: no scan layout for %s", ir_op_name[op->op]);
        return;
    }
    LwVal t = lw_remap(f, in, k, D, B, NULL);
    t = lw_scan_split_layout(f, op, t, B, &sp);
    lw_set(f, res, lw_remap(f, t, k, B, D, NULL));
}

/* The warp bits of S walking the axis bits A, counted in *nwb (the
 * reduction's step 3; layouts it rejects count what it would have). */
static void lw_axis_warps(const Layout *S, uint32_t A, int *nwb) {
    *nwb = 0;
    for (int i = 0; i < S->nbits[LY_WARP]; i++) {
        uint32_t bv = S->basis[LY_WARP][i];
        if (!bv || !(bv & A)) continue;
        if (bv & ~A) return;
        ++*nwb;
    }
}

static int64_t lw_max64(int64_t a, int64_t b) { return a > b ? a : b; }

int64_t lw_reduce_scratch(Arena *ar, const IrOp *op) {
    const IrValue *x = op->args[0], *res = op->res[0];
    const Layout *S = x->layout;
    if (!S) return 0;
    int kind = (int)op->iattr[0], a = (int)op->iattr[1], arg = lw_is_arg(kind), off, na, nwb;
    ScalarKind k = (ScalarKind)x->ty.k, rk = (ScalarKind)res->ty.k;
    ScalarKind ak = kind == RED_SUM && (k == SK_F16 || k == SK_BF16) ? SK_F32 : k;
    lw_axis_warps(S, lw_axis_bits(S, a, &off, &na), &nwb);
    int64_t vbytes, m = nwb ? lw_reduce_bytes(S, a, nwb, ak, arg, &vbytes) : 0;
    if (!res->layout || S->rank == 1)
        return lw_max64(m, res->layout ? lw_remap_scratch(NULL, res->layout, NULL, rk) : 0);
    const Layout *N = ly_slice(ar, S, a);
    return lw_max64(m, ly_eq(N, res->layout) ? 0 : lw_remap_scratch(N, res->layout, NULL, rk));
}

int64_t lw_scan_scratch(Arena *ar, const IrOp *op, int warps) {
    const IrValue *x = op->args[0], *res = op->res[0];
    const Layout *D = res->layout;
    ScalarKind k = (ScalarKind)res->ty.k, ak = lw_scan_acc(op);
    int64_t m = lw_in_layout_scratch(x, D);
    int a = (int)op->iattr[0], off, na;
    if (!D) return m;
    lw_axis_bits(D, a, &off, &na);
    LwScanSplit sp;
    if (lw_scan_split(D, off, na, &sp)) return lw_max64(m, lw_scan_bytes(D, a, &sp, ak));
    const Layout *B = lw_scan_blocked(ar, D, warps);
    if (!B || !lw_scan_split(B, off, na, &sp)) return m;
    m = lw_max64(m, lw_remap_scratch(D, B, NULL, k));
    m = lw_max64(m, lw_scan_bytes(B, a, &sp, ak));
    return lw_max64(m, lw_remap_scratch(B, D, NULL, k));
}
