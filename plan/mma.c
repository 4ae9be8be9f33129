/*
 * mma.c — tensor-core layouts as linear maps: the mma.sync accumulator,
 * the operands as ldmatrix leaves them, the FMA fallback's operands, and
 * swizzled shared memory.
 *
 * Everything mma.sync does on sm_80+ is built from one shape: the 8 x 16
 * byte *core matrix*. Lane l holds row l/4 and the 32-bit column l%4 of
 * it, one 32-bit register holding 32/bits elements (f16: 2, tf32: 1,
 * i8: 4). ldmatrix reads up to four core matrices from shared memory,
 * each row given by one lane's address, and leaves them exactly so; the
 * instructions' fragments are 2 x 2 core matrices for A (M+8 then K+one
 * core matrix), 2 along K for B, and the f32/i32 accumulator is the same
 * picture with 8-byte columns (two elements per lane per row). So the
 * three m16n8kK shapes differ only in how many elements a register holds
 * (kwidth), and each layout is a list of bit placements:
 *
 *   accumulator  reg: n+1, m+8          lane: n+2, n+4, m+1, m+2, m+4
 *   A            reg: k+1.., m+8, k+4kw lane: k+kw, k+2kw, m+1, m+2, m+4
 *   B            reg: k+1.., k+4kw      lane: k+kw, k+2kw, n+1, n+2, n+4
 *
 * then the warps (M warps right above the instruction's 16 rows, N warps
 * above its 8 columns), then register repeats for the rest of the tile:
 * N before M for the accumulator, K before M (A) or N (B) for operands.
 * Those orders are chosen so that an accumulator [M, N] with every warp on
 * M is, bit for bit, the A operand (f16, kwidth 2) of a product with
 * K = N: attention's probabilities feed the second product with no data
 * movement (ly_eq holds, the pass inserts nothing).
 *
 * A bit placement past the tile's extent (a [1, N] bias broadcast into an
 * accumulator's family, a tile smaller than the warps cover) becomes a
 * zero vector for lanes and warps (copies) and is dropped for registers,
 * as for blocked layouts.
 *
 * Shared memory: rows of 16-byte units, the unit index XORed with the
 * row's phase. A read of 8 consecutive rows at one unit (an ldmatrix core
 * matrix, plain or .trans) then touches 8 distinct groups of 4 banks: the
 * rows of one 128-byte line differ in their unit, and successive lines
 * differ in their phase (tests/unit/test_mma.c counts the banks).
 */
#include "plan/layout.h"

#include <string.h>

/* One placement: input bit goes to bit `bit` of dimension `dim`. */
typedef struct Place {
    int dim, bit;
} Place;

/* Incrementally built 2-D layout. */
typedef struct Builder {
    Layout *l;
    int dbits[2];       /* log2 of the shape */
    unsigned covered[2]; /* dimension bits reached so far */
} Builder;

static void bld_init(Builder *b, Arena *ar, LyKind kind, const int32_t shape[2]) {
    b->l = ar_alloc(ar, sizeof *b->l);
    b->l->kind = (uint8_t)kind;
    b->l->rank = 2;
    b->l->shape[0] = shape[0];
    b->l->shape[1] = shape[1];
    b->dbits[0] = ly_log2(shape[0]);
    b->dbits[1] = ly_log2(shape[1]);
    b->covered[0] = b->covered[1] = 0;
}

static void bld_push(Builder *b, LyIn in, uint32_t v) {
    b->l->basis[in][b->l->nbits[in]++] = v;
}

static void bld_place(Builder *b, LyIn in, Place p) {
    if (p.dim >= 0 && p.bit < b->dbits[p.dim]) {
        b->covered[p.dim] |= 1u << p.bit;
        bld_push(b, in, 1u << (p.bit + (p.dim == 0 ? b->dbits[1] : 0)));
    } else if (in != LY_REG) {
        bld_push(b, in, 0);
    }
}

/* `count` input bits of `in` walking dimension dim from bit `from`. */
static void bld_run(Builder *b, LyIn in, int dim, int from, int count) {
    for (int i = 0; i < count; i++) bld_place(b, in, (Place){dim, from + i});
}

/* Register repeats: every bit of dims[0], then dims[1], not yet covered. */
static void bld_repeat(Builder *b, const int dims[2]) {
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < b->dbits[dims[j]]; i++)
            if (!(b->covered[dims[j]] >> i & 1)) bld_place(b, LY_REG, (Place){dims[j], i});
}

/* ------------------------------------------------------ instruction choice */

int ly_mma_k(ScalarKind in, int ieee, int K) {
    int k;
    switch (in) {
    case SK_F16: case SK_BF16: k = 16; break;
    case SK_F32: k = ieee ? 0 : 8; break;
    case SK_I8: k = 32; break;
    case SK_F8E4M3: case SK_F8E5M2: k = 32; break;   /* wgmma only: widen_f8.c */
    default: k = 0; break;
    }
    return k && K >= k ? k : 0;
}

int ly_wgmma_k(ScalarKind in) {
    switch (in) {
    case SK_F16: case SK_BF16: return 16;
    case SK_F32: return 8;
    case SK_F8E4M3: case SK_F8E5M2: return 32;
    default: return 0;
    }
}

int ly_wgmma_kmajor_only(ScalarKind in) { return in == SK_F32 || ty_isf8(in); }

void ly_mma_warps(int32_t M, int32_t N, int warps, int chained, int32_t out[2]) {
    out[0] = out[1] = 1;
    if (chained && M >= 16 * warps) {
        out[0] = warps;
        return;
    }
    while (out[0] * out[1] < warps) {
        if (M / 16 / out[0] >= N / 16 / out[1] && out[0] < M / 16)
            out[0] *= 2;
        else
            out[1] *= 2;
    }
}

/* ------------------------------------------------------------- layouts */

Layout *ly_mma(Arena *ar, const int32_t shape[2], int mma_k, const int32_t warps[2]) {
    if (ly_log2(shape[0]) < 0 || ly_log2(shape[1]) < 0 || ly_log2(warps[0]) < 0 ||
        ly_log2(warps[1]) < 0 || (mma_k != 8 && mma_k != 16 && mma_k != 32))
        return NULL;
    Builder b;
    bld_init(&b, ar, LY_MMA, shape);
    b.l->mma_k = mma_k;
    b.l->mma_warps[0] = warps[0];
    b.l->mma_warps[1] = warps[1];
    bld_place(&b, LY_REG, (Place){1, 0});
    bld_place(&b, LY_REG, (Place){0, 3});
    bld_run(&b, LY_LANE, 1, 1, 2);
    bld_run(&b, LY_LANE, 0, 0, 3);
    /* Warps above the instruction tile; where the warps go past a
     * dimension, the M ones still sit at bit 4 (copies). */
    bld_run(&b, LY_WARP, 0, 4, ly_log2(warps[0]));
    bld_run(&b, LY_WARP, 1, 3, ly_log2(warps[1]));
    bld_repeat(&b, (const int[2]){1, 0});
    return b.l;
}

/* ly_mma_low's order of dimension d's bits, lowest first, as indices of
 * its bits in ly_mma's placement (dbits bits, wbits of them warps):
 *   N: 0 = c0 (register), 1-2 = c1-c2 (lanes), 3.. warps, then repeats;
 *   M: 0-2 = the lane's row (lanes), 3 = row+8 (register), 4.. warps,
 *      then repeats.
 * Returns 0 when d has too few repeats for 16 bytes (with 8, the lanes of
 * a half warp would meet in banks: left as it is). */
static int low_order(int d, int dbits, int wbits, int order[32]) {
    int lanes = d == 0 ? 4 : 3;          /* ly_mma's bits below the warps */
    int first = lanes + wbits, nrep = dbits - first, n = 0;
    /* a 16-byte run: row+8 and a repeat (M), two repeats (N) */
    if (nrep < (d == 0 ? 1 : 2) || dbits > 32) return 0;
    int run = d == 0 ? 1 : 2;            /* repeats in the low run */
    if (d == 0) order[n++] = 3;          /* row+8 */
    for (int i = 0; i < run; i++) order[n++] = first + i;
    for (int i = 2; i >= 0; i--) order[n++] = i;
    for (int i = 0; i < wbits; i++) order[n++] = lanes + i;
    for (int i = run; i < nrep; i++) order[n++] = first + i;
    return n == dbits;
}

/* Basis vector v with dimension d's bits moved by `to` (old bit -> new). */
static uint32_t low_apply(uint32_t v, int d, int nb1, const int to[32]) {
    int shift = d == 0 ? nb1 : 0;
    uint32_t mask = d == 0 ? ~0u << nb1 : (1u << nb1) - 1;
    uint32_t bits = (v & mask) >> shift, out = 0;
    for (int i = 0; bits >> i; i++)
        if (bits >> i & 1) out |= 1u << to[i];
    return (v & ~mask) | out << shift;
}

/* Layout l (the accumulator, or an operand of `acc`: M is dimension 0
 * of A, N dimension 1 of B) with dimension d permuted as ly_mma_low
 * says; 0 where low_order leaves d as it is. */
static int low_permute(Layout *l, const Layout *acc, int d) {
    int dbits = ly_log2(acc->shape[d]), order[32], to[32];
    if (!low_order(d, dbits, ly_log2(acc->mma_warps[d]), order)) return 0;
    for (int i = 0; i < dbits; i++) to[order[i]] = i;
    int nb1 = ly_log2(l->shape[1]);
    for (int in = 0; in < LY_NIN; in++)
        for (int i = 0; i < l->nbits[in]; i++)
            l->basis[in][i] = low_apply(l->basis[in][i], d, nb1, to);
    return 1;
}

void ly_mma_low(Layout *acc, const uint8_t low[2]) {
    if (!acc || acc->kind != LY_MMA || acc->wgmma) return;
    for (int d = 0; d < 2; d++)
        if (low[d] && low_permute(acc, acc, d)) acc->mma_low[d] = 1;
}

/* The FMA path: the accumulator's map with the dimension the operand
 * lacks dropped (copies across those lanes and warps), then all of K in
 * registers. */
static Layout *fma_operand(Arena *ar, const Layout *acc, int op_idx,
                           const int32_t shape[2]) {
    Builder b;
    bld_init(&b, ar, LY_DOT_OP, shape);
    b.l->parent = acc;
    b.l->op_idx = op_idx;
    int keep = op_idx == 0 ? 0 : 1;          /* acc dim the operand keeps */
    int to = op_idx == 0 ? 0 : 1;            /* where it is in the operand */
    int kdim = op_idx == 0 ? 1 : 0;
    int nb = ly_log2(acc->shape[1]);
    for (int in = 0; in < LY_NIN; in++)
        for (int i = 0; i < acc->nbits[in]; i++) {
            uint32_t v = acc->basis[in][i];
            uint32_t c = keep == 0 ? v >> nb : v & ((1u << nb) - 1);
            if (!c) {
                if (in != LY_REG) bld_push(&b, (LyIn)in, 0);
                continue;
            }
            bld_place(&b, (LyIn)in, (Place){to, __builtin_ctz(c)});
        }
    bld_run(&b, LY_REG, kdim, 0, b.dbits[kdim]);
    return b.l;
}

Layout *ly_dot_operand(Arena *ar, const Layout *acc, int op_idx,
                       const int32_t shape[2], int ebits) {
    if (!acc || acc->rank != 2 || (op_idx != 0 && op_idx != 1)) return NULL;
    if (acc->kind != LY_MMA) return fma_operand(ar, acc, op_idx, shape);
    int kw = 32 / ebits, lkw = ly_log2(kw);
    if (lkw < 0 || 8 * kw != acc->mma_k) return NULL;
    int kdim = op_idx == 0 ? 1 : 0, odim = 1 - kdim;
    Builder b;
    bld_init(&b, ar, LY_DOT_OP, shape);
    b.l->parent = acc;
    b.l->op_idx = op_idx;
    b.l->kwidth = kw;
    bld_run(&b, LY_REG, kdim, 0, lkw);
    if (op_idx == 0) bld_place(&b, LY_REG, (Place){odim, 3});
    bld_place(&b, LY_REG, (Place){kdim, lkw + 2});
    bld_run(&b, LY_LANE, kdim, lkw, 2);
    bld_run(&b, LY_LANE, odim, 0, 3);
    /* Warps: the accumulator's along the operand's other dimension, copies
     * along the one it lacks. */
    for (int i = 0; i < ly_log2(acc->mma_warps[0]); i++)
        bld_place(&b, LY_WARP, op_idx == 0 ? (Place){odim, 4 + i} : (Place){-1, 0});
    for (int i = 0; i < ly_log2(acc->mma_warps[1]); i++)
        bld_place(&b, LY_WARP, op_idx == 1 ? (Place){odim, 3 + i} : (Place){-1, 0});
    bld_repeat(&b, (const int[2]){kdim, odim});
    if (acc->mma_low[odim]) low_permute(b.l, acc, odim);
    return b.l;
}

/* ------------------------------------------------------- shared memory */

LySmem *ly_smem_swizzled(Arena *ar, const int32_t shape[2], int fast, int esize) {
    int fb = ly_log2(shape[fast]), rb = ly_log2(shape[1 - fast]);
    if (fb < 0 || rb < 0 || ly_log2(esize) < 0 || esize > 16) return NULL;
    LySmem *s = ar_alloc(ar, sizeof *s);
    memcpy(s->shape, shape, sizeof s->shape);
    s->fast = fast;
    s->esize = esize;
    int row_bytes = shape[fast] * esize;
    s->vec = 16 / esize < shape[fast] ? 16 / esize : shape[fast];
    s->per_phase = row_bytes >= 128 ? 1 : 128 / row_bytes;
    int units = shape[fast] / s->vec;
    s->max_phase = 8 / s->per_phase < units ? 8 / s->per_phase : units;
    /* The offset's bits: the fast coordinate's in the low fb bits, the
     * row's above them; the phase (row bits log2(per_phase) ..) XORs into
     * the unit bits (log2(vec) ..). Packed coordinates put dimension 1
     * low, so the column bits of a packed coordinate are where they are
     * for fast == 1, above the row's for fast == 0. */
    int lv = ly_log2(s->vec), lp = ly_log2(s->per_phase), lm = ly_log2(s->max_phase);
    s->off.nin = s->off.nout = fb + rb;
    for (int i = 0; i < fb; i++)          /* fast coordinate bit i */
        s->off.col[fast == 1 ? i : rb + i] = 1u << i;
    for (int i = 0; i < rb; i++) {        /* row coordinate bit i */
        uint32_t v = 1u << (fb + i);
        if (i >= lp && i < lp + lm) v |= 1u << (lv + i - lp);
        s->off.col[fast == 1 ? fb + i : i] = v;
    }
    return s;
}

/* wgmma's canonical layout: see layout.h. As in ly_smem_swizzled, the
 * offset is linear in the packed coordinate's bits: a fast bit inside
 * the block moves within the row, one above it moves a whole block
 * (rows x block elements), a row bit moves a row and, for the phase's
 * bits, flips a unit bit: phase bit i (a row bit) flips unit bit
 * lv + perm[i] (wgmma's own order: perm[i] = i; ly_smem_read_by tries
 * the others). */
static LySmem *smem_wgmma_perm(Arena *ar, const int32_t shape[2], int fast, int esize,
                               const int *perm) {
    int fb = ly_log2(shape[fast]), rb = ly_log2(shape[1 - fast]);
    if (fb < 0 || rb < 0 || ly_log2(esize) < 0 || esize > 16) return NULL;
    int row_bytes = shape[fast] * esize;
    int sw = row_bytes < 128 ? row_bytes : 128;
    if (sw < 32) return NULL;
    LySmem *s = ar_alloc(ar, sizeof *s);
    memcpy(s->shape, shape, sizeof s->shape);
    s->fast = fast;
    s->esize = esize;
    s->swizzle = sw;
    s->vec = 16 / esize;
    s->per_phase = 128 / sw;
    s->max_phase = sw / 16;
    int lblock = ly_log2(sw / esize), lv = ly_log2(s->vec);
    int lp = ly_log2(s->per_phase), lm = ly_log2(s->max_phase);
    s->off.nin = s->off.nout = fb + rb;
    for (int i = 0; i < fb; i++)          /* fast coordinate bit i */
        s->off.col[fast == 1 ? i : rb + i] =
            i < lblock ? 1u << i : 1u << (rb + i);   /* block: rows << lblock */
    for (int i = 0; i < rb; i++) {        /* row coordinate bit i */
        uint32_t v = 1u << (lblock + i);
        if (i >= lp && i < lp + lm) v |= 1u << (lv + perm[i - lp]);
        s->off.col[fast == 1 ? fb + i : i] = v;
    }
    return s;
}

LySmem *ly_smem_wgmma(Arena *ar, const int32_t shape[2], int fast, int esize) {
    static const int own[3] = {0, 1, 2};
    return smem_wgmma_perm(ar, shape, fast, esize, own);
}

/* Shared-memory wavefronts of 4-byte reads of layout rd from buffer s:
 * for each register and warp, the most distinct words its lanes read in
 * one bank, summed. */
static int64_t read_wavefronts(const Layout *rd, const LySmem *s) {
    int64_t total = 0;
    uint32_t nreg = (uint32_t)ly_size(rd, LY_REG), nwarp = (uint32_t)ly_size(rd, LY_WARP);
    for (uint32_t w = 0; w < nwarp; w++)
        for (uint32_t r = 0; r < nreg; r++) {
            uint32_t word[32];
            int per_bank[32] = {0}, most = 1;
            for (uint32_t l = 0; l < 32; l++) {
                word[l] = ly_smem_offset(s, ly_apply(rd, (LyIndex){r, l, w}));
                int fresh = 1;   /* a word no earlier lane reads (else a broadcast) */
                for (uint32_t m = 0; fresh && m < l; m++) fresh = word[m] != word[l];
                if (fresh && ++per_bank[word[l] % 32] > most) most = per_bank[word[l] % 32];
            }
            total += most;
        }
    return total;
}

LySmem *ly_smem_read_by(Arena *ar, const int32_t shape[2], int fast, const Layout *rd) {
    static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1},
                                    {0, 2, 1}, {1, 0, 2}, {2, 1, 0}};
    LySmem *best = NULL;
    int64_t fewest = 0;
    for (int i = 0; i < 6; i++) {
        LySmem *s = smem_wgmma_perm(ar, shape, fast, 4, perms[i]);
        if (!s) return NULL;
        int lm = ly_log2(s->max_phase), ok = 1;
        for (int b = 0; b < lm; b++) ok &= perms[i][b] < lm;   /* a permutation of 0..lm-1 */
        for (int b = lm; b < 3; b++) ok &= perms[i][b] == b;
        if (!ok) continue;
        int64_t n = read_wavefronts(rd, s);
        if (!best || n < fewest) {
            best = s;
            fewest = n;
        }
    }
    return best;
}

uint32_t ly_smem_offset(const LySmem *s, uint32_t packed) {
    return ly_map_apply(&s->off, packed);
}

int64_t ly_smem_bytes(const LySmem *s) {
    return (int64_t)s->shape[0] * s->shape[1] * s->esize;
}

/* The 16-byte unit (of 8 consecutive ones: 128 bytes, the banks once
 * round) at which buffer s holds the element at packed coordinate c. */
static uint32_t unit_of(const LySmem *s, uint32_t c) {
    return (uint32_t)((uint64_t)ly_smem_offset(s, c) * (uint64_t)s->esize / 16) & 7;
}

/* How many of the 8 units a quarter warp's lanes at coordinates
 * spanned by v[0..3) (XOR any constant) touch in buffers a and b: the
 * rank of their units in each, summed (6: no bank conflict on either
 * side). */
static int units_apart(const LySmem *a, const LySmem *b, const uint32_t v[3]) {
    uint32_t ua[3], ub[3];
    for (int i = 0; i < 3; i++) {
        ua[i] = unit_of(a, v[i]);
        ub[i] = unit_of(b, v[i]);
    }
    return ly_rank(ua, 3) + ly_rank(ub, 3);
}

/* The transposing layout: see layout.h. Each thread holds vec x vec
 * blocks (register bits 0.. along from's rows, then along to's), so that
 * it reads `from` and writes `to` 16 bytes at a time; a 16-byte access of
 * a warp runs in four phases of 8 lanes (lane bits 0-2), which touch 8
 * distinct units of the 8 on the banks when the units of those lanes'
 * coordinates are independent in both buffers: the lanes' vectors are
 * searched among the sums of the low block bits of both dimensions (the
 * swizzles XOR a row's low bits into the unit, so a single dimension's
 * bits serve one buffer only). The other block bits go to lanes 3-4,
 * the warps and the remaining registers, so the map is a bijection
 * wherever the threads do not outnumber the blocks. */
Layout *ly_transpose_layout(Arena *ar, const LySmem *from, const LySmem *to, int warps) {
    int b1 = ly_log2(from->shape[1]), b0 = ly_log2(from->shape[0]);
    int lv = ly_log2(from->vec < to->vec ? from->vec : to->vec), wb = ly_log2(warps);
    if (b0 < 0 || b1 < 0 || lv < 0 || wb < 0 || from->fast == to->fast ||
        from->esize != to->esize || memcmp(from->shape, to->shape, sizeof from->shape) ||
        (1 << lv) > from->shape[0] || (1 << lv) > from->shape[1])
        return NULL;
    /* packed coordinate bit of dimension d's bit i */
#define DIM_BIT(d, i) (1u << ((d) == 1 ? (i) : b1 + (i)))
    Layout *l = ar_alloc(ar, sizeof *l);
    memset(l, 0, sizeof *l);
    l->kind = LY_LINEAR;
    l->rank = 2;
    memcpy(l->shape, from->shape, sizeof from->shape);
    int nreg = 0;
    for (int i = 0; i < lv; i++) l->basis[LY_REG][nreg++] = DIM_BIT(from->fast, i);
    for (int i = 0; i < lv; i++) l->basis[LY_REG][nreg++] = DIM_BIT(to->fast, i);
    /* the block bits, low ones of both dimensions first */
    uint32_t free[32];
    int nfree = 0, top = b0 > b1 ? b0 : b1;
    for (int i = lv; i < top; i++)
        for (int d = 0; d < 2; d++)
            if (i < (d ? b1 : b0)) free[nfree++] = DIM_BIT(d, i);
#undef DIM_BIT
    /* lanes 0-2: the independent triple of sums of up to two of the
     * lowest six block bits whose lanes touch the most units (the first
     * of the best: conflict-free where both dimensions span 128 bytes) */
    int ncand = nfree < 6 ? nfree : 6, best = 0;   /* 0: fewer than 3 bits */
    uint32_t cand[21], pick[3] = {0, 0, 0};
    int nc = 0;
    for (int i = 0; i < ncand; i++) {
        cand[nc++] = free[i];
        for (int j = i + 1; j < ncand; j++) cand[nc++] = free[i] | free[j];
    }
    for (int i = 0; i < nc; i++)
        for (int j = i + 1; j < nc; j++)
            for (int k = j + 1; k < nc; k++) {
                uint32_t v[3] = {cand[i], cand[j], cand[k]};
                int score = ly_rank(v, 3) == 3 ? units_apart(from, to, v) : 0;
                if (score > best) {
                    memcpy(pick, v, sizeof v);
                    best = score;
                }
            }
    /* the rest of the block bits, each outside the span so far */
    uint32_t order[32];
    int norder = 0;
    for (int i = 0; best && i < 3; i++) order[norder++] = pick[i];
    for (int i = 0; i < nfree; i++) {
        order[norder] = free[i];
        if (ly_rank(order, norder + 1) == norder + 1) norder++;
    }
    int at = 0;
    l->nbits[LY_LANE] = 5;
    for (int i = 0; i < 5; i++) l->basis[LY_LANE][i] = at < norder ? order[at++] : 0;
    l->nbits[LY_WARP] = (uint8_t)wb;
    for (int i = 0; i < wb; i++) l->basis[LY_WARP][i] = at < norder ? order[at++] : 0;
    while (at < norder) l->basis[LY_REG][nreg++] = order[at++];
    l->nbits[LY_REG] = (uint8_t)nreg;
    return l;
}

/* The ldmatrix address layout: see layout.h. Lane bits 0-2 pick the row
 * of a core matrix (the operand's lane bits 2-4: its rows; with .trans,
 * register bit 0 and lane bits 0-1: its K positions), lane bits 3-4 the
 * matrix (the operand's 32-bit register bits), registers the group. */
Layout *ly_ldmatrix_addr(Arena *ar, const Layout *dl, int n, int trans,
                         const LySmem *s) {
    int lkw = ly_log2(dl->kwidth), ln = ly_log2(n);
    if (dl->kind != LY_DOT_OP || lkw < 0 || ln < 0 || ln > 2 ||
        dl->nbits[LY_LANE] != 5 || dl->nbits[LY_REG] < lkw + ln ||
        (trans && lkw != 1))
        return NULL;
    Layout *a = ar_alloc(ar, sizeof *a);
    memset(a, 0, sizeof *a);
    a->kind = LY_LINEAR;
    a->rank = dl->rank;
    memcpy(a->shape, dl->shape, sizeof a->shape);
    const uint32_t *reg = dl->basis[LY_REG], *lane = dl->basis[LY_LANE];
    uint32_t row[3] = {lane[2], lane[3], lane[4]};
    if (trans) {
        row[0] = reg[0];
        row[1] = lane[0];
        row[2] = lane[1];
    }
    a->nbits[LY_LANE] = 5;
    for (int i = 0; i < 3; i++) a->basis[LY_LANE][i] = row[i];
    for (int i = 0; i < 2; i++)
        a->basis[LY_LANE][3 + i] = i < ln ? reg[lkw + i] : 0;
    a->nbits[LY_WARP] = dl->nbits[LY_WARP];
    memcpy(a->basis[LY_WARP], dl->basis[LY_WARP], sizeof a->basis[LY_WARP]);
    a->nbits[LY_REG] = (uint8_t)(dl->nbits[LY_REG] - lkw - ln);
    for (int i = 0; i < a->nbits[LY_REG]; i++)
        a->basis[LY_REG][i] = reg[lkw + ln + i];
    for (int d = 0; d < LY_NIN; d++)
        for (int i = 0; i < a->nbits[d]; i++)
            a->basis[d][i] = ly_smem_offset(s, a->basis[d][i]);
    return a;
}

/* ldmatrix can read operand layout dl from buffer s (rows along `fast`):
 * 32-bit registers of 16-bit pairs (or whole tf32 / packed i8), full
 * warps of lanes, 16-byte units; `.trans` only for 16-bit elements.
 * *trans says which. */
int ly_ldmatrix_ok(const Layout *dl, int esize, int fast, const LySmem *s, int *trans) {
    int kdim = dl->op_idx == 0 ? 1 : 0;
    *trans = fast != kdim;
    return dl->kwidth * esize == 4 && !(*trans && esize != 2) &&
           dl->nbits[LY_LANE] == 5 &&
           (int)dl->nbits[LY_REG] >= ly_log2(dl->kwidth) && s &&
           s->vec * esize == 16;
}
