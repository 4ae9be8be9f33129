/* test_mma.c — unit tests of the tensor-core layouts (plan/mma.c),
 * checked against the PTX ISA's fragment tables for mma.sync m16n8k16
 * (f16/bf16), m16n8k8 (tf32) and m16n8k32 (i8), and of the swizzled
 * shared-memory layouts: banks of every ldmatrix phase counted. */
#include "../../plan/layout.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static void coord(const Layout *l, uint32_t r, uint32_t lane, uint32_t w,
                  int32_t *c) {
    ly_coord(l, (LyIndex){r, lane, w}, c);
}

/* Largest number of holders of one element; *uncovered elements none. */
static int copies(const Layout *l, int *uncovered) {
    int64_t numel = (int64_t)l->shape[0] * l->shape[1];
    int *count = calloc((size_t)numel, sizeof *count);
    for (uint32_t w = 0; w < (uint32_t)ly_size(l, LY_WARP); w++)
        for (uint32_t n = 0; n < 32; n++)
            for (uint32_t r = 0; r < (uint32_t)ly_size(l, LY_REG); r++)
                count[ly_apply(l, (LyIndex){r, n, w})]++;
    int most = 0;
    *uncovered = 0;
    for (int64_t i = 0; i < numel; i++) {
        if (count[i] > most) most = count[i];
        *uncovered += count[i] == 0;
    }
    free(count);
    return most;
}

/* The accumulator fragment (PTX ISA, "mma.m16n8k16 ... C/D"): c_i at row
 * groupID + 8 * (i >= 2), column 2 * threadID_in_group + (i & 1). Same
 * for every input type. */
static void test_acc(Arena *ar) {
    int32_t shape[2] = {16, 8}, one[2] = {1, 1};
    int ks[3] = {16, 8, 32};
    for (int t = 0; t < 3; t++) {
        Layout *l = ly_mma(ar, shape, ks[t], one);
        CHECK(l && l->nbits[LY_REG] == 2 && l->nbits[LY_LANE] == 5);
        for (uint32_t lane = 0; lane < 32; lane++)
            for (uint32_t i = 0; i < 4; i++) {
                int32_t c[2];
                coord(l, i, lane, 0, c);
                CHECK(c[0] == (int32_t)(lane / 4 + 8 * (i >> 1)) &&
                      c[1] == (int32_t)(2 * (lane % 4) + (i & 1)));
            }
    }
    /* 128 x 64 over 4 warps: all on M (warpsPerTileV2), each element held
     * once; warp w holds rows 16w..16w+15 of every 64-row half. */
    int32_t big[2] = {128, 64}, w[2];
    ly_mma_warps(128, 64, 4, 0, w);
    CHECK(w[0] == 4 && w[1] == 1);
    Layout *l = ly_mma(ar, big, 16, w);
    int unc;
    CHECK(copies(l, &unc) == 1 && unc == 0);
    int32_t c[2];
    coord(l, 0, 0, 3, c);
    CHECK(c[0] == 48 && c[1] == 0);
    CHECK_STR(ly_str(ar, l), "#mma<m16n8k16, warps=[4, 1]>");
    /* Registers repeat along N first: register 4 is the next 8 columns. */
    coord(l, 4, 0, 0, c);
    CHECK(c[0] == 0 && c[1] == 8);
}

static void test_warps(void) {
    int32_t w[2];
    ly_mma_warps(64, 64, 4, 0, w);
    CHECK(w[0] == 2 && w[1] == 2);
    ly_mma_warps(64, 128, 8, 0, w);
    CHECK(w[0] == 2 && w[1] == 4);
    ly_mma_warps(16, 64, 4, 0, w);       /* M has one 16-row block */
    CHECK(w[0] == 1 && w[1] == 4);
    ly_mma_warps(64, 64, 4, 1, w);       /* chained: all on M */
    CHECK(w[0] == 4 && w[1] == 1);
    ly_mma_warps(32, 64, 4, 1, w);       /* chained, too few rows */
    CHECK(w[0] == 2 && w[1] == 2);
    CHECK(ly_mma_k(SK_F16, 0, 16) == 16 && ly_mma_k(SK_BF16, 0, 64) == 16);
    CHECK(ly_mma_k(SK_F32, 0, 16) == 8 && ly_mma_k(SK_F32, 1, 16) == 0);
    CHECK(ly_mma_k(SK_I8, 0, 32) == 32 && ly_mma_k(SK_I8, 0, 16) == 0);
    /* wgmma: 32 bytes of K per instruction; tf32 and f8 K-major only */
    CHECK(ly_wgmma_k(SK_F16) == 16 && ly_wgmma_k(SK_F32) == 8 && ly_wgmma_k(SK_I8) == 0);
    CHECK(ly_wgmma_k(SK_F8E4M3) == 32 && ly_wgmma_k(SK_F8E5M2) == 32);
    CHECK(ly_mma_k(SK_F8E4M3, 0, 32) == 32 && ly_mma_k(SK_F8E5M2, 0, 16) == 0);
    CHECK(!ly_wgmma_kmajor_only(SK_F16) && !ly_wgmma_kmajor_only(SK_BF16));
    CHECK(ly_wgmma_kmajor_only(SK_F32) && ly_wgmma_kmajor_only(SK_F8E4M3) &&
          ly_wgmma_kmajor_only(SK_F8E5M2));
}

/* The operand fragments of the PTX ISA, one instruction's worth per warp:
 * `want(i, lane, &row, &col)` gives element i of A or B. */
typedef void (*Frag)(uint32_t i, uint32_t lane, int32_t *row, int32_t *col);

static void f16_a(uint32_t i, uint32_t l, int32_t *r, int32_t *c) {
    *r = (int32_t)(l / 4 + 8 * ((i >> 1) & 1));
    *c = (int32_t)(2 * (l % 4) + (i & 1) + 8 * (i >> 2));
}
static void f16_b(uint32_t i, uint32_t l, int32_t *r, int32_t *c) {
    *r = (int32_t)(2 * (l % 4) + (i & 1) + 8 * (i >> 1));
    *c = (int32_t)(l / 4);
}
static void tf32_a(uint32_t i, uint32_t l, int32_t *r, int32_t *c) {
    *r = (int32_t)(l / 4 + 8 * (i & 1));
    *c = (int32_t)(l % 4 + 4 * (i >> 1));
}
static void tf32_b(uint32_t i, uint32_t l, int32_t *r, int32_t *c) {
    *r = (int32_t)(l % 4 + 4 * i);
    *c = (int32_t)(l / 4);
}
static void i8_a(uint32_t i, uint32_t l, int32_t *r, int32_t *c) {
    *r = (int32_t)(l / 4 + 8 * ((i >> 2) & 1));
    *c = (int32_t)(4 * (l % 4) + (i & 3) + 16 * (i >> 3));
}
static void i8_b(uint32_t i, uint32_t l, int32_t *r, int32_t *c) {
    *r = (int32_t)(4 * (l % 4) + (i & 3) + 16 * (i >> 2));
    *c = (int32_t)(l / 4);
}

static void check_frag(Arena *ar, int mk, int ebits, int op, Frag want, int nregs) {
    int32_t acc_shape[2] = {16, 8}, one[2] = {1, 1};
    int32_t shape[2] = {op == 0 ? 16 : mk, op == 0 ? mk : 8};
    Layout *acc = ly_mma(ar, acc_shape, mk, one);
    Layout *l = ly_dot_operand(ar, acc, op, shape, ebits);
    CHECK(l && ly_size(l, LY_REG) == nregs);
    for (uint32_t lane = 0; lane < 32; lane++)
        for (uint32_t i = 0; i < (uint32_t)nregs; i++) {
            int32_t c[2], r, col;
            coord(l, i, lane, 0, c);
            want(i, lane, &r, &col);
            CHECK(c[0] == r && c[1] == col);
        }
}

static void test_operands(Arena *ar) {
    check_frag(ar, 16, 16, 0, f16_a, 8);
    check_frag(ar, 16, 16, 1, f16_b, 4);
    check_frag(ar, 8, 32, 0, tf32_a, 4);
    check_frag(ar, 8, 32, 1, tf32_b, 2);
    check_frag(ar, 32, 8, 0, i8_a, 16);
    check_frag(ar, 32, 8, 1, i8_b, 8);
    /* 64 x 64 accumulator over 2 x 2 warps, K = 32: A is copied across
     * the two N warps, B across the two M warps, nothing else. */
    int32_t s[2] = {64, 64}, w[2] = {2, 2}, as[2] = {64, 32}, bs[2] = {32, 64};
    Layout *acc = ly_mma(ar, s, 16, w);
    Layout *a = ly_dot_operand(ar, acc, 0, as, 16);
    Layout *b = ly_dot_operand(ar, acc, 1, bs, 16);
    int unc;
    CHECK(copies(a, &unc) == 2 && unc == 0);
    CHECK(copies(b, &unc) == 2 && unc == 0);
    CHECK_STR(ly_str(ar, a), "#dot_op<idx=0, kwidth=2, #mma<m16n8k16, warps=[2, 2]>>");
    /* Every 32-bit register group of A is an ldmatrix core matrix: lanes
     * 0, 4, .., 28 hold 8 consecutive rows at one 16-byte column. */
    for (uint32_t g = 0; g < (uint32_t)ly_size(a, LY_REG); g += 2) {
        int32_t c0[2], ci[2];
        coord(a, g, 0, 0, c0);
        CHECK(c0[0] % 8 == 0 && c0[1] % 8 == 0);
        for (uint32_t i = 1; i < 8; i++) {
            coord(a, g, 4 * i, 0, ci);
            CHECK(ci[0] == c0[0] + (int32_t)i && ci[1] == c0[1]);
        }
    }
    /* Attention: a [64, 64] accumulator with every warp on M is, bit for
     * bit, the f16 A operand of the next product (K = 64): no conversion. */
    int32_t w4[2] = {4, 1}, s2[2] = {64, 128};
    Layout *qk = ly_mma(ar, s, 16, w4);
    Layout *acc2 = ly_mma(ar, s2, 16, w4);
    CHECK(ly_eq(qk, ly_dot_operand(ar, acc2, 0, s, 16)));
    CHECK(ly_cvt_moves(qk, ly_dot_operand(ar, acc2, 0, s, 16)) == LY_MOVE_NONE);
    /* ...but not with warps split over N. */
    CHECK(!ly_eq(acc, ly_dot_operand(ar, ly_mma(ar, s, 16, w), 0, s, 16)));
    /* A bias row [1, 64] in the accumulator's family: copies across M. */
    int32_t row[2] = {1, 64};
    Layout *bias = ly_reshaped_family(ar, acc, row);
    CHECK(bias && bias->kind == LY_MMA && copies(bias, &unc) == 16 && unc == 0);
    /* The FMA path (precision="ieee"): each thread holds whole K rows of
     * A for the accumulator rows it owns. */
    uint8_t order[2] = {1, 0};
    Layout *blk = ly_blocked_default(ar, 2, s, 4, 1, order);
    Layout *fa = ly_dot_operand(ar, blk, 0, as, 32);
    CHECK(fa && fa->kind == LY_DOT_OP && copies(fa, &unc) >= 1 && unc == 0);
    for (uint32_t r = 0; r < (uint32_t)ly_size(blk, LY_REG); r++) {
        int32_t ca[2], cf[2];
        coord(blk, r, 5, 1, ca);
        for (int32_t k = 0; k < 32; k++) {
            /* some register of the same thread holds (row, k) */
            int found = 0;
            for (uint32_t q = 0; q < (uint32_t)ly_size(fa, LY_REG) && !found; q++) {
                coord(fa, q, 5, 1, cf);
                found = cf[0] == ca[0] && cf[1] == k;
            }
            CHECK(found);
        }
    }
}

/* The 16-byte bank group (0..7 within a 128-byte line) of each of the 8
 * rows an ldmatrix phase reads: rows r0..r0+7 of the slow dimension at
 * the 16-byte unit `unit` of the fast one. Returns the number of rows
 * that share a group with an earlier row (0: conflict-free). */
static int phase_conflicts(const LySmem *s, int r0, int unit) {
    unsigned groups = 0;
    int clashes = 0;
    for (int i = 0; i < 8; i++) {
        int32_t c[2];
        c[1 - s->fast] = r0 + i;
        c[s->fast] = unit * s->vec;
        uint32_t off = ly_smem_offset(s, ly_pack(2, s->shape, c));
        unsigned g = (off * (uint32_t)s->esize / 16) % 8;
        clashes += groups >> g & 1;
        groups |= 1u << g;
    }
    return clashes;
}

static void check_swizzle(Arena *ar, int32_t rows, int32_t cols, int fast, int esize) {
    int32_t shape[2] = {fast ? rows : cols, fast ? cols : rows};
    LySmem *s = ly_smem_swizzled(ar, shape, fast, esize);
    CHECK(s != NULL);
    if (!s) return;
    CHECK(ly_map_injective(&s->off));
    /* A 16-byte unit stays contiguous (16-byte cp.async / vector stores). */
    for (int32_t r = 0; r < rows; r++)
        for (int32_t u = 0; u < cols / s->vec; u++) {
            int32_t c[2];
            c[1 - fast] = r;
            c[fast] = u * s->vec;
            uint32_t o = ly_smem_offset(s, ly_pack(2, shape, c));
            CHECK(o % (uint32_t)s->vec == 0);
            for (int32_t e = 1; e < s->vec; e++) {
                c[fast] = u * s->vec + e;
                CHECK(ly_smem_offset(s, ly_pack(2, shape, c)) == o + (uint32_t)e);
            }
        }
    /* Every phase of every core matrix: 8 distinct bank groups. */
    int bad = 0;
    for (int32_t r = 0; r + 8 <= rows; r += 8)
        for (int32_t u = 0; u < cols / s->vec; u++) bad += phase_conflicts(s, r, u);
    CHECK(bad == 0);
}

static void test_swizzle(Arena *ar) {
    int32_t colss[] = {16, 32, 64, 128, 256};
    for (int i = 0; i < 5; i++) {
        check_swizzle(ar, 64, colss[i], 1, 2);      /* f16 rows, plain */
        check_swizzle(ar, 64, colss[i], 0, 2);      /* f16 columns (.trans) */
        check_swizzle(ar, 32, colss[i], 1, 4);      /* tf32 */
        check_swizzle(ar, 128, colss[i], 1, 1);     /* i8 */
    }
    /* The parameters Triton picks: 64-byte rows share a phase by pairs. */
    int32_t s64[2] = {128, 32};
    LySmem *s = ly_smem_swizzled(ar, s64, 1, 2);
    CHECK(s->vec == 8 && s->per_phase == 2 && s->max_phase == 4);
    CHECK(ly_smem_bytes(s) == 128 * 32 * 2);
    /* The test can fail: an unswizzled 128-byte-row tile puts all 8 rows
     * of a phase in one bank group. */
    int32_t s128[2] = {64, 64};
    LySmem *u = ly_smem_swizzled(ar, s128, 1, 2);
    LySmem plain = *u;
    plain.max_phase = 1;
    for (int i = 6; i < plain.off.nin; i++) plain.off.col[i] = 1u << i;
    CHECK(phase_conflicts(&plain, 0, 0) == 7);
    CHECK(phase_conflicts(u, 0, 0) == 0);
}


/* ldmatrix simulated over ly_ldmatrix_addr: the buffer holds every
 * element's packed coordinate at its swizzled offset; lane l supplies the
 * address of row l % 8 of matrix l / 8; plain ldmatrix gives thread t the
 * 32-bit word t % 4 of row t / 4, .trans gives it the 16-bit elements
 * (rows 2 (t % 4) + e, column t / 4). Every register of every thread
 * must come out as the operand layout says, whether each instruction
 * reads 4, 2 or 1 matrices (the largest possible, or fewer: x2 where
 * a pipelined loop reads one K sub-step at a time, lower/smem.c).
 * Returns the mismatches. */
static int sim_ldmatrix(Arena *ar, const Layout *dl, int fast, int esize, int nmax) {
    int kdim = dl->op_idx == 0 ? 1 : 0, trans = fast != kdim;
    LySmem *s = ly_smem_swizzled(ar, dl->shape, fast, esize);
    int64_t numel = (int64_t)dl->shape[0] * dl->shape[1];
    uint32_t *mem = calloc((size_t)numel, sizeof *mem);
    for (uint32_t p = 0; p < (uint32_t)numel; p++) mem[ly_smem_offset(s, p)] = p;
    int kw = dl->kwidth, n32 = ly_size(dl, LY_REG) / kw;
    int n = n32 >= 4 ? 4 : n32 >= 2 ? 2 : 1, bad = 0;
    if (n > nmax) n = nmax;
    Layout *al = ly_ldmatrix_addr(ar, dl, n, trans, s);
    if (!al) {
        free(mem);
        return 1;
    }
    for (uint32_t w = 0; w < (uint32_t)ly_size(dl, LY_WARP); w++)
        for (uint32_t g = 0; g < (uint32_t)(n32 / n); g++) {
            uint32_t addr[32];
            for (uint32_t l = 0; l < 32; l++) {
                addr[l] = ly_apply(al, (LyIndex){g, l, w});
                bad += addr[l] % (uint32_t)(16 / esize) != 0;
            }
            for (uint32_t t = 0; t < 32; t++)
                for (int j = 0; j < n; j++)
                    for (int e = 0; e < kw; e++) {
                        uint32_t got = trans ? mem[addr[8 * j + 2 * (t % 4) + (uint32_t)e] + t / 4]
                                             : mem[addr[8 * j + t / 4] + (t % 4) * (uint32_t)kw + (uint32_t)e];
                        uint32_t r = (g * (uint32_t)n + (uint32_t)j) * (uint32_t)kw + (uint32_t)e;
                        bad += got != ly_apply(dl, (LyIndex){r, t, w});
                    }
        }
    free(mem);
    return bad;
}

static void test_ldmatrix(Arena *ar) {
    static const struct { int32_t m, n, k; int wm, wn; } tiles[] = {
        {64, 64, 32, 2, 2}, {128, 64, 64, 4, 1}, {16, 8, 32, 1, 1},
        {64, 128, 64, 2, 4}, {32, 32, 16, 1, 2},
    };
    static const struct { int mk, ebits; } kinds[] = {{16, 16}, {8, 32}, {32, 8}};
    int cases = 0;
    for (size_t t = 0; t < sizeof tiles / sizeof *tiles; t++)
        for (size_t q = 0; q < sizeof kinds / sizeof *kinds; q++) {
            if (tiles[t].k < kinds[q].mk) continue;
            int32_t cs[2] = {tiles[t].m, tiles[t].n}, w[2] = {tiles[t].wm, tiles[t].wn};
            Layout *acc = ly_mma(ar, cs, kinds[q].mk, w);
            CHECK(acc != NULL);
            if (!acc) continue;
            for (int op = 0; op < 2; op++) {
                int32_t os[2] = {op ? tiles[t].k : tiles[t].m, op ? tiles[t].n : tiles[t].k};
                Layout *dl = ly_dot_operand(ar, acc, op, os, kinds[q].ebits);
                CHECK(dl != NULL);
                if (!dl) continue;
                for (int fast = 0; fast < 2; fast++) {
                    int kdim = op == 0 ? 1 : 0;
                    if (fast != kdim && kinds[q].ebits != 16) continue;
                    for (int nmax = 4; nmax >= 1; nmax /= 2) {
                        int bad = sim_ldmatrix(ar, dl, fast, kinds[q].ebits / 8, nmax);
                        if (bad)
                            fprintf(stderr, "ldmatrix x%d %dx%dx%d ebits %d op %d fast %d: "
                                    "%d bad\n", nmax, tiles[t].m, tiles[t].n, tiles[t].k,
                                    kinds[q].ebits, op, fast, bad);
                        CHECK(bad == 0);
                        cases++;
                    }
                }
            }
        }
    CHECK(cases == 3 * 38);   /* f16 both orientations, tf32/i8 K-contiguous; x4, x2, x1 */
}

/* One m16n8k8 tf32 instruction tile of accumulator group q at K step k0,
 * simulated over layouts (acc, a, b) as lower/dot.c pairs them (groups
 * found by their constant coordinates): every lane's every result must
 * be the sum over the same 8 K positions of A's row and B's column at
 * the result's own coordinates. Returns the mismatches. */
static int sim_tf32_tile(const Layout *acc, const Layout *a, const Layout *b,
                         uint32_t q, int32_t k0) {
    int32_t o[2], ga = -1, gb = -1, bad = 0;
    coord(acc, q, 0, 0, o);
    for (uint32_t g = 0; g < (uint32_t)ly_size(a, LY_REG) && ga < 0; g += 4) {
        int32_t c[2];
        coord(a, g, 0, 0, c);
        if (c[0] == o[0] && c[1] == k0) ga = (int32_t)g;
    }
    for (uint32_t g = 0; g < (uint32_t)ly_size(b, LY_REG) && gb < 0; g += 2) {
        int32_t c[2];
        coord(b, g, 0, 0, c);
        if (c[0] == k0 && c[1] == o[1]) gb = (int32_t)g;
    }
    if (ga < 0 || gb < 0) return 1;
    for (uint32_t w = 0; w < (uint32_t)ly_size(acc, LY_WARP); w++)
        for (uint32_t lane = 0; lane < 32; lane++)
            for (uint32_t i = 0; i < 4; i++) {
                int32_t cc[2];
                coord(acc, q + i, lane, w, cc);
                uint32_t fr = lane / 4 + 8 * (i >> 1), fc = 2 * (lane % 4) + (i & 1);
                for (uint32_t kc = 0; kc < 8; kc++) {
                    int32_t ca[2], cb[2];
                    coord(a, (uint32_t)ga + (fr >= 8) + 2 * (kc >= 4), fr % 8 * 4 + kc % 4, w, ca);
                    coord(b, (uint32_t)gb + (kc >= 4), fc * 4 + kc % 4, w, cb);
                    bad += ca[0] != cc[0] || cb[1] != cc[1] || ca[1] != cb[0];
                }
            }
    return bad;
}

/* ly_mma_low over tf32 tiles, warps and both dimensions: products still
 * compute the same thing (sim_tf32_tile over every tile and K step), the
 * maps stay one-to-one, and a lane's 4 elements along a permuted
 * dimension are one aligned 16-byte unit of the operand's swizzled
 * buffer (rows along that dimension), the 8 lanes of each quarter warp in
 * 8 distinct units (no bank conflict). */
static void test_low(Arena *ar) {
    static const int32_t ms[] = {16, 32, 64, 128}, ns[] = {8, 16, 32, 64, 128, 256};
    int cases = 0, vec_cases = 0;
    for (int mi = 0; mi < 4; mi++)
        for (int ni = 0; ni < 6; ni++)
            for (int warps = 1; warps <= 8; warps *= 2)
                for (int low = 1; low < 4; low++) {
                    int32_t cs[2] = {ms[mi], ns[ni]}, w[2];
                    ly_mma_warps(cs[0], cs[1], warps, 0, w);
                    if (w[0] * 16 > cs[0] || w[1] * 8 > cs[1]) continue;
                    Layout *acc = ly_mma(ar, cs, 8, w);
                    uint8_t lo[2] = {(uint8_t)(low & 1), (uint8_t)(low >> 1)};
                    ly_mma_low(acc, lo);
                    int32_t as[2] = {cs[0], 32}, bs[2] = {32, cs[1]};
                    Layout *a = ly_dot_operand(ar, acc, 0, as, 32);
                    Layout *b = ly_dot_operand(ar, acc, 1, bs, 32);
                    int unc, bad = 0;
                    CHECK(copies(acc, &unc) == 1 && unc == 0);
                    CHECK(copies(a, &unc) == w[1] && unc == 0);
                    CHECK(copies(b, &unc) == w[0] && unc == 0);
                    for (uint32_t q = 0; q < (uint32_t)ly_size(acc, LY_REG); q += 4)
                        for (int32_t k0 = 0; k0 < 32; k0 += 8) bad += sim_tf32_tile(acc, a, b, q, k0);
                    if (bad)
                        fprintf(stderr, "low %d: %dx%d warps %dx%d: %d bad\n", low, cs[0],
                                cs[1], w[0], w[1], bad);
                    CHECK(bad == 0);
                    cases++;
                    for (int d = 0; d < 2; d++) {
                        if (!acc->mma_low[d]) continue;
                        const Layout *op = d == 0 ? a : b;
                        int fast = d == 0 ? 0 : 1;   /* the operand's M or N */
                        LySmem *sm = ly_smem_swizzled(ar, op->shape, fast, 4);
                        /* the lowest two reg bits along d: offsets 1, 2 */
                        uint32_t r1 = 0, r2 = 0;
                        for (int i = 0; i < op->nbits[LY_REG]; i++) {
                            uint32_t off = ly_smem_offset(sm, op->basis[LY_REG][i]);
                            if (off == 1) r1 = 1u << i;
                            if (off == 2) r2 = 1u << i;
                        }
                        int wv = 4, ok = r1 && r2, lanes = 8;
                        for (uint32_t r = 0; ok && r < (uint32_t)ly_size(op, LY_REG); r++) {
                            if (r & (r1 | r2)) continue;
                            for (uint32_t qw = 0; qw < 32; qw += (uint32_t)lanes) {
                                unsigned slots = 0;
                                for (uint32_t l = qw; l < qw + (uint32_t)lanes; l++) {
                                    uint32_t off = ly_smem_offset(sm, ly_apply(op, (LyIndex){r, l, 0}));
                                    for (uint32_t e = 1; e < (uint32_t)wv; e++) {
                                        uint32_t re = r | (e & 1 ? r1 : 0) | (e & 2 ? r2 : 0);
                                        ok &= ly_smem_offset(sm, ly_apply(op, (LyIndex){re, l, 0})) == off + e;
                                    }
                                    ok &= off % (uint32_t)wv == 0;
                                    slots |= 1u << (off / (uint32_t)wv % (uint32_t)lanes);
                                }
                                ok &= slots == 0xffu;
                            }
                        }
                        if (!ok)
                            fprintf(stderr, "low %d dim %d: %dx%d warps %dx%d: not one "
                                    "conflict-free unit\n", low, d, cs[0], cs[1], w[0], w[1]);
                        CHECK(ok);
                        vec_cases++;
                    }
                }
    CHECK(cases > 100 && vec_cases > 50);
}

/* The 8 lanes of each quarter warp (q .. q+7) of warp w, at register r
 * with the run's bits (register bits v0, v0+1) clear: 0 when a lane's 4
 * consecutive registers are not one aligned 16-byte unit of s (offsets
 * off .. off+3 in register order), else the most distinct units of 16
 * bytes that share a bank group (1: no bank conflict). */
static int quarter_ways(const Layout *l, const LySmem *s, uint32_t r, uint32_t w, int v0) {
    int most = 1;
    for (uint32_t q = 0; q < 32; q += 8) {
        uint32_t at[8];
        for (uint32_t n = 0; n < 8; n++) {
            uint32_t off = ly_smem_offset(s, ly_apply(l, (LyIndex){r, q + n, w}));
            if (off % 4) return 0;
            for (uint32_t e = 1; e < 4; e++)
                if (ly_smem_offset(s, ly_apply(l, (LyIndex){r | e << v0, q + n, w})) != off + e)
                    return 0;
            at[n] = off;
        }
        for (uint32_t n = 0; n < 8; n++) {
            int ways = 1;
            for (uint32_t m = 0; m < n; m++) {
                int first = 1;   /* at[m] is the first of its address */
                for (uint32_t o = 0; o < m; o++) first &= at[o] != at[m];
                ways += first && at[m] != at[n] && at[m] / 4 % 8 == at[n] / 4 % 8;
            }
            if (ways > most) most = ways;
        }
    }
    return most;
}

/* ly_transpose_layout: for tf32 tiles of every shape a product stages
 * (K 8..128, M or N 8..256) and both directions, the map covers the tile
 * (one holder per element where the threads do not outnumber the
 * 4 x 4 blocks), and every 16-byte read of the source buffer and write
 * of the destination is one aligned unit per lane, the 8 lanes of each
 * quarter warp in 8 distinct units. */
static void test_transpose(Arena *ar) {
    int cases = 0;
    for (int32_t r = 8; r <= 256; r *= 2)
        for (int32_t c = 8; c <= 256; c *= 2)
            for (int fast = 0; fast < 2; fast++)
                for (int warps = 4; warps <= 8; warps *= 2) {
                    int32_t shape[2] = {r, c};
                    LySmem *from = ly_smem_wgmma(ar, shape, fast, 4);
                    LySmem *to = ly_smem_wgmma(ar, shape, 1 - fast, 4);
                    if (!from || !to) continue;
                    Layout *l = ly_transpose_layout(ar, from, to, warps);
                    CHECK(l != NULL);
                    if (!l) continue;
                    int unc, most = copies(l, &unc), ways = 1, runs = 1;
                    CHECK(ly_check(l, warps) == NULL && unc == 0);
                    CHECK(most == (r * c >= 16 * 32 * warps ? 1 : 16 * 32 * warps / (r * c)));
                    for (uint32_t g = 0; g < (uint32_t)ly_size(l, LY_REG); g++)
                        for (uint32_t w = 0; w < (uint32_t)warps; w++)
                            for (int side = 0; side < 2; side++) {
                                if (g & (side ? 12u : 3u)) continue;
                                int x = quarter_ways(l, side ? to : from, g, w, side ? 2 : 0);
                                runs &= x > 0;
                                if (x > ways) ways = x;
                            }
                    /* rows of 32 or 64 bytes leave the lanes fewer units */
                    int bound = r >= 32 && c >= 32 ? 1 : r >= 16 && c >= 16 ? 2 : 4;
                    if (!runs || ways > bound)
                        fprintf(stderr, "transpose %dx%d fast %d warps %d: %s, %d-way\n", r, c,
                                fast, warps, runs ? "16-byte runs" : "not 16-byte runs", ways);
                    CHECK(runs && ways <= bound);
                    cases++;
                }
    CHECK(cases > 60);
    int32_t shape[2] = {32, 128};   /* refused: the same rows on both sides */
    LySmem *a = ly_smem_wgmma(ar, shape, 1, 4);
    CHECK(ly_transpose_layout(ar, a, a, 4) == NULL);
}

/* Most distinct words one bank serves for the 4-byte reads of layout l
 * from buffer s at register r, warp w (1: no bank conflict). */
static int word_ways(const Layout *l, const LySmem *s, uint32_t r, uint32_t w) {
    uint32_t word[32];
    int per_bank[32] = {0}, most = 1;
    for (uint32_t n = 0; n < 32; n++) {
        word[n] = ly_smem_offset(s, ly_apply(l, (LyIndex){r, n, w}));
        int fresh = 1;   /* lanes reading one word are served at once */
        for (uint32_t m = 0; fresh && m < n; m++) fresh = word[m] != word[n];
        if (fresh && ++per_bank[word[n] % 32] > most) most = per_bank[word[n] % 32];
    }
    return most;
}

/* ly_smem_read_by over the tf32 A tiles wgmma takes from registers
 * (M 64..256 along M, K 8..64, 4 or 8 warps on M): the buffer is
 * one-to-one, keeps 16-byte units of 4 consecutive M (cp.async's
 * copies), and every register of the A fragment is read without a bank
 * conflict where wgmma's own order has two ways (rows k, k + 1 on the
 * same banks). */
static void test_read_by(Arena *ar) {
    int cases = 0, own_worse = 0;
    for (int32_t m = 64; m <= 256; m *= 2)
        for (int32_t k = 8; k <= 64; k *= 2)
            for (int warps = 4; warps <= 8; warps *= 2) {
                int32_t cs[2] = {m, 128}, w[2] = {warps, 1}, as[2] = {m, k};
                Layout *acc = ly_mma(ar, cs, 8, w);
                CHECK(acc != NULL);
                if (!acc) continue;
                acc->wgmma = 1;
                Layout *a = ly_dot_operand(ar, acc, 0, as, 32);
                LySmem *own = ly_smem_wgmma(ar, as, 0, 4), *s = ly_smem_read_by(ar, as, 0, a);
                CHECK(own && s);
                if (!own || !s) continue;
                uint32_t size = (uint32_t)(m * k);
                unsigned char *seen = ar_alloc(ar, size);
                memset(seen, 0, size);
                int onto = 1, units = 1, ways = 1, own_ways = 1;
                for (uint32_t c = 0; c < size; c++) {
                    uint32_t off = ly_smem_offset(s, c);
                    onto &= off < size && !seen[off];
                    if (off < size) seen[off] = 1;
                    /* packed (row i, col j) = i * k + j; M is dim 0 */
                    uint32_t i = c / (uint32_t)k, j = c % (uint32_t)k;
                    uint32_t base = ly_smem_offset(s, (i & ~3u) * (uint32_t)k + j);
                    units &= base % 4 == 0 && off == base + i % 4;
                }
                for (uint32_t r = 0; r < (uint32_t)ly_size(a, LY_REG); r++)
                    for (uint32_t wp = 0; wp < (uint32_t)ly_size(a, LY_WARP); wp++) {
                        int x = word_ways(a, s, r, wp), y = word_ways(a, own, r, wp);
                        if (x > ways) ways = x;
                        if (y > own_ways) own_ways = y;
                    }
                if (!onto || !units || ways != 1)
                    fprintf(stderr, "read_by %dx%d warps %d: %s%s%d-way\n", m, k, warps,
                            onto ? "" : "not one-to-one, ", units ? "" : "units split, ", ways);
                CHECK(onto && units && ways == 1);
                own_worse += own_ways == 2;
                cases++;
            }
    CHECK(cases == 24 && own_worse == cases);
}

int main(void) {
    Arena *ar = ar_new();
    test_acc(ar);
    test_warps();
    test_operands(ar);
    test_swizzle(ar);
    test_ldmatrix(ar);
    test_low(ar);
    test_transpose(ar);
    test_read_by(ar);
    ar_free(ar);
    return check_done("test_mma");
}
