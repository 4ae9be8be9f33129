/* test_layout.c — unit tests of layouts as linear maps over F2
 * (plan/linear.c): construction, coordinates, slices, inverses,
 * conversions, vector widths and printing, checked on the maps. */
#include "../../plan/layout.h"
#include "check.h"

#include <stdlib.h>

static LyIndex idx(uint32_t r, uint32_t l, uint32_t w) {
    return (LyIndex){r, l, w};
}

/* How many (reg, lane, warp) hold each element; every element at least
 * once; returns the largest count. */
static int max_copies(const Layout *l, int *uncovered) {
    int64_t numel = 1;
    for (int d = 0; d < l->rank; d++) numel *= l->shape[d];
    int *count = calloc((size_t)numel, sizeof *count);
    for (uint32_t w = 0; w < (uint32_t)ly_size(l, LY_WARP); w++)
        for (uint32_t n = 0; n < (uint32_t)ly_size(l, LY_LANE); n++)
            for (uint32_t r = 0; r < (uint32_t)ly_size(l, LY_REG); r++)
                count[ly_apply(l, idx(r, n, w))]++;
    int most = 0;
    *uncovered = 0;
    for (int64_t i = 0; i < numel; i++) {
        if (count[i] > most) most = count[i];
        if (count[i] == 0) ++*uncovered;
    }
    free(count);
    return most;
}

static void test_pack(void) {
    int32_t shape[3] = {4, 8, 2}, c[3] = {3, 5, 1}, back[3];
    uint32_t p = ly_pack(3, shape, c);
    CHECK(p == (3u * 8 + 5) * 2 + 1);
    ly_unpack(3, shape, p, back);
    CHECK(back[0] == 3 && back[1] == 5 && back[2] == 1);
    CHECK(ly_log2(1) == 0 && ly_log2(1024) == 10 && ly_log2(12) == -1);
}

/* vadd: 1024 f32 over 4 warps with 4 per thread: registers 0-1 walk the
 * vector, lanes and warps the program tile of 512, register 2 repeats. */
static void test_blocked_1d(Arena *ar) {
    int32_t shape[1] = {1024}, spt[1] = {4}, tpw[1] = {32}, wpc[1] = {4};
    uint8_t order[1] = {0};
    Layout *l = ly_blocked(ar, 1, shape, spt, tpw, wpc, order);
    CHECK(l && l->nbits[LY_REG] == 3 && l->nbits[LY_LANE] == 5 &&
          l->nbits[LY_WARP] == 2);
    CHECK(l->basis[LY_REG][0] == 1 && l->basis[LY_REG][1] == 2 &&
          l->basis[LY_REG][2] == 512);
    CHECK(l->basis[LY_LANE][0] == 4 && l->basis[LY_LANE][4] == 64);
    CHECK(l->basis[LY_WARP][0] == 128 && l->basis[LY_WARP][1] == 256);
    int32_t c[1];
    ly_coord(l, idx(5, 1, 1), c);
    CHECK(c[0] == 1 + 512 + 4 + 128);
    int unc;
    CHECK(max_copies(l, &unc) == 1 && unc == 0);
    CHECK(ly_vec_width(l, 0) == 4);
    CHECK(ly_fastest_dim(l) == 0);
    CHECK_STR(ly_str(ar, l), "#blocked<spt=[4], tpw=[32], wpc=[4], order=[0]>");
    Layout *d = ly_blocked_default(ar, 1, shape, 4, 4, order);
    CHECK(d && ly_eq(d, l));
    /* Fewer elements than threads: the upper warp bit copies. */
    int32_t small[1] = {64}, one[1] = {1};
    Layout *s = ly_blocked(ar, 1, small, one, tpw, wpc, order);
    CHECK(s->nbits[LY_REG] == 0 && s->basis[LY_WARP][0] == 32 &&
          s->basis[LY_WARP][1] == 0);
    CHECK(max_copies(s, &unc) == 2 && unc == 0);
    /* More per thread than the tile has: registers are dropped, not
     * duplicated. */
    int32_t tiny[1] = {2}, eight[1] = {8};
    Layout *t = ly_blocked(ar, 1, tiny, eight, tpw, wpc, order);
    CHECK(t->nbits[LY_REG] == 1 && t->basis[LY_LANE][0] == 0);
    int32_t bad[1] = {16};
    CHECK(ly_blocked(ar, 1, shape, spt, bad, wpc, order) == NULL);
}

/* A 64x64 f32 tile, rows contiguous (order [1, 0]): Triton's default
 * spt [1, 4], tpw [2, 16], wpc [4, 1]. */
static Layout *rows_64x64(Arena *ar) {
    int32_t shape[2] = {64, 64};
    uint8_t order[2] = {1, 0};
    return ly_blocked_default(ar, 2, shape, 4, 4, order);
}

static void test_blocked_2d(Arena *ar) {
    Layout *l = rows_64x64(ar);
    CHECK(l && l->spt[0] == 1 && l->spt[1] == 4 && l->tpw[0] == 2 &&
          l->tpw[1] == 16 && l->wpc[0] == 4 && l->wpc[1] == 1);
    CHECK_STR(ly_str(ar, l), "#blocked<spt=[1, 4], tpw=[2, 16], wpc=[4, 1], "
                             "order=[1, 0]>");
    int32_t c[2];
    ly_coord(l, idx(3, 17, 2), c);   /* reg 3: col +3; lane 17: col 4, row 1 */
    CHECK(c[0] == 1 + 2 * 2 && c[1] == 3 + 4);
    int unc;
    CHECK(max_copies(l, &unc) == 1 && unc == 0);
    CHECK(ly_vec_width(l, 1) == 4 && ly_vec_width(l, 0) == 1);
    CHECK(ly_fastest_dim(l) == 1);
    /* Columns contiguous instead. */
    int32_t shape[2] = {64, 64};
    uint8_t cols[2] = {0, 1};
    Layout *t = ly_blocked_default(ar, 2, shape, 4, 4, cols);
    CHECK(t->spt[0] == 4 && t->tpw[0] == 16 && ly_fastest_dim(t) == 0);
    CHECK(!ly_eq(l, t));
    /* The same parameters at a broadcastable shape. */
    int32_t col1[2] = {64, 1};
    Layout *b = ly_reshaped_family(ar, l, col1);
    CHECK(b && b->kind == LY_BLOCKED && b->shape[1] == 1 &&
          b->nbits[LY_REG] == 3 && b->basis[LY_LANE][0] == 0);
    CHECK(max_copies(b, &unc) == 16 && unc == 0);
    CHECK(ly_eq(ly_reshaped_family(ar, b, shape), l));
}

/* The result of reducing a 64x64 rows layout over dim 1: every lane of a
 * row group holds the row's value; registers along the row are gone. */
static void test_slice(Arena *ar) {
    Layout *p = rows_64x64(ar);
    Layout *s = ly_slice(ar, p, 1);
    CHECK(s && s->rank == 1 && s->shape[0] == 64 && s->kind == LY_SLICE);
    CHECK(s->nbits[LY_REG] == 3);    /* the 8 row repeats, not the 4 cols */
    CHECK(s->basis[LY_LANE][0] == 0 && s->basis[LY_LANE][4] == 1);
    CHECK_STR(ly_str(ar, s), "#slice<dim=1, #blocked<spt=[1, 4], tpw=[2, 16], "
                             "wpc=[4, 1], order=[1, 0]>>");
    int unc;
    CHECK(max_copies(s, &unc) == 16 && unc == 0);
    int32_t shape[1] = {128};
    Layout *r = ly_reshaped_family(ar, s, shape);
    CHECK(r && r->kind == LY_SLICE && r->parent->shape[0] == 128 &&
          r->nbits[LY_REG] == 4);
    Layout *s0 = ly_slice(ar, p, 0);
    CHECK(s0->shape[0] == 64 && ly_vec_width(s0, 0) == 4 &&
          s0->basis[LY_WARP][0] == 0);
}

static void test_pinv(Arena *ar) {
    Layout *ls[3] = {rows_64x64(ar), ly_slice(ar, rows_64x64(ar), 1), NULL};
    int32_t small[1] = {64}, one[1] = {1}, tpw[1] = {32}, wpc[1] = {4};
    uint8_t order[1] = {0};
    ls[2] = ly_blocked(ar, 1, small, one, tpw, wpc, order);
    for (int k = 0; k < 3; k++) {
        Layout *l = ls[k];
        LyMap m = ly_map(l), p;
        int rank = ly_map_pinv(&m, &p);
        CHECK(rank == m.nout);       /* surjective */
        int ok = 1;
        for (uint32_t y = 0; y < (1u << m.nout); y++)
            ok &= ly_map_apply(&m, ly_map_apply(&p, y)) == y;
        CHECK(ok);
        CHECK(ly_map_injective(&m) == (k == 0));
    }
    /* Copies: the pseudo-inverse picks the lowest warp. */
    LyIndex x = ly_locate(ls[2], 40);
    CHECK(x.reg == 0 && x.lane == 8 && x.warp == 1);
    /* Composition: map o pinv is the identity on coordinates. */
    LyMap m = ly_map(ls[1]), p;
    ly_map_pinv(&m, &p);
    LyMap id = ly_map_compose(&m, &p);
    int ok = id.nin == id.nout;
    for (int i = 0; i < id.nin; i++) ok &= id.col[i] == 1u << i;
    CHECK(ok);
}

static void check_sources(const Layout *src, const Layout *dst, unsigned keep) {
    int ok = 1;
    for (uint32_t w = 0; w < (uint32_t)ly_size(dst, LY_WARP); w++)
        for (uint32_t n = 0; n < (uint32_t)ly_size(dst, LY_LANE); n++)
            for (uint32_t r = 0; r < (uint32_t)ly_size(dst, LY_REG); r++) {
                LyIndex x = idx(r, n, w), s;
                if (ly_cvt_source(src, dst, keep, x, &s)) {
                    ok = 0;
                    continue;
                }
                ok &= ly_apply(src, s) == ly_apply(dst, x);
                if (keep >> LY_LANE & 1) ok &= s.lane == x.lane;
                if (keep >> LY_WARP & 1) ok &= s.warp == x.warp;
            }
    CHECK(ok);
}

static void test_conversions(Arena *ar) {
    Layout *rows = rows_64x64(ar);
    CHECK(ly_cvt_moves(rows, rows_64x64(ar)) == LY_MOVE_NONE);
    /* Transpose-like: rows-contiguous to columns-contiguous crosses warps. */
    int32_t shape[2] = {64, 64};
    uint8_t cols[2] = {0, 1};
    Layout *colsl = ly_blocked_default(ar, 2, shape, 4, 4, cols);
    CHECK(ly_cvt_moves(rows, colsl) == (LY_MOVE_REG | LY_MOVE_LANE | LY_MOVE_WARP));
    /* Registers reordered only: in-thread. */
    uint8_t nb[LY_NIN];
    uint32_t basis[LY_NIN][LY_MAXBITS];
    for (int in = 0; in < LY_NIN; in++) {
        nb[in] = rows->nbits[in];
        for (int i = 0; i < nb[in]; i++) basis[in][i] = rows->basis[in][i];
    }
    basis[LY_REG][0] = rows->basis[LY_REG][1];
    basis[LY_REG][1] = rows->basis[LY_REG][0];
    Layout *perm = ly_linear(ar, 2, shape, nb, basis);
    CHECK(ly_cvt_moves(rows, perm) == LY_MOVE_REG);
    check_sources(rows, perm, 1u << LY_LANE | 1u << LY_WARP);
    /* Swap a register bit with a lane bit: shuffles within the warp. */
    basis[LY_REG][0] = rows->basis[LY_REG][0];
    basis[LY_REG][1] = rows->basis[LY_LANE][0];
    basis[LY_LANE][0] = rows->basis[LY_REG][1];
    Layout *shfl = ly_linear(ar, 2, shape, nb, basis);
    CHECK(ly_cvt_moves(rows, shfl) == (LY_MOVE_REG | LY_MOVE_LANE));
    check_sources(rows, shfl, 1u << LY_WARP);
    LyIndex s;
    CHECK(ly_cvt_source(rows, shfl, 1u << LY_LANE | 1u << LY_WARP,
                        idx(2, 0, 0), &s) == -1);
    check_sources(rows, colsl, 0);
    CHECK(strncmp(ly_str(ar, shfl), "#linear<reg=[[0, 1], [0, 4],", 28) == 0);
    /* A broadcast source: a slice converts to its parent's shape family
     * only by copies, with no movement when the copies are local. */
    Layout *sl = ly_slice(ar, rows, 1);
    Layout *sl2 = ly_slice(ar, rows_64x64(ar), 1);
    CHECK(ly_cvt_moves(sl, sl2) == LY_MOVE_NONE);
    /* Broadcast source to a layout that wants the values spread out:
     * every copy sits in the same warp, so shuffles are not needed when a
     * lane already holds the value. */
    int32_t s64[1] = {64};
    uint8_t o1[1] = {0};
    Layout *flat = ly_blocked_default(ar, 1, s64, 4, 1, o1);
    CHECK(ly_cvt_moves(sl, flat) & LY_MOVE_WARP);
    check_sources(sl, flat, 0);
}

static void test_linear_print(Arena *ar) {
    int32_t shape[2] = {2, 4};
    uint8_t nb[LY_NIN] = {1, 2, 0};
    uint32_t basis[LY_NIN][LY_MAXBITS] = {{4}, {1, 2}, {0}};
    Layout *l = ly_linear(ar, 2, shape, nb, basis);
    CHECK_STR(ly_str(ar, l), "#linear<reg=[[1, 0]], lane=[[0, 1], [0, 2]], warp=[]>");
    int unc;
    CHECK(max_copies(l, &unc) == 1 && unc == 0);
    CHECK(ly_vec_width(l, 1) == 1 && ly_fastest_dim(l) == 0);
}

/* ly_check: every layout the constructors build, over shapes and warps,
 * passes (blocked, their slices, MMA accumulators and their operands);
 * each broken invariant is caught. */
static void test_check(Arena *ar) {
    static const uint8_t order[2] = {1, 0};
    for (int warps = 1; warps <= 16; warps *= 2)
        for (int r = 0; r <= 10; r++)
            for (int c = 0; c <= 10; c++) {
                int32_t shape[2] = {1 << r, 1 << c};
                const Layout *b = ly_blocked_default(ar, 2, shape, warps, 4, order);
                CHECK(b && ly_check(b, warps) == NULL);
                for (int d = 0; b && d < 2; d++) CHECK(ly_check(ly_slice(ar, b, d), warps) == NULL);
                int32_t w[2] = {warps, 1};
                const Layout *m = r >= 4 && c >= 3 ? ly_mma(ar, shape, 16, w) : NULL;
                if (!m) continue;
                CHECK(ly_check(m, warps) == NULL);
                int32_t a[2] = {shape[0], 32}, bb[2] = {32, shape[1]};
                CHECK(ly_check(ly_dot_operand(ar, m, 0, a, 16), warps) == NULL);
                CHECK(ly_check(ly_dot_operand(ar, m, 1, bb, 16), warps) == NULL);
            }
    int32_t shape[2] = {64, 64};
    Layout good = *ly_blocked_default(ar, 2, shape, 4, 4, order), bad;
    CHECK(ly_check(&good, 4) == NULL);
    CHECK(ly_check(&good, 8) != NULL);                    /* other warps */
    bad = good;
    bad.basis[LY_REG][0] = bad.basis[LY_LANE][0];        /* an element lost */
    CHECK(ly_check(&bad, 4) != NULL);
    bad = good;
    bad.basis[LY_REG][0] = 1u << 12;                     /* outside the tile */
    CHECK(ly_check(&bad, 4) != NULL);
    bad = good;
    bad.shape[1] = 48;                                   /* not a power of two */
    CHECK(ly_check(&bad, 4) != NULL);
    bad = good;
    bad.rank = 0;
    CHECK(ly_check(&bad, 0) != NULL);
}

int main(void) {
    Arena *ar = ar_new();
    test_check(ar);
    test_pack();
    test_blocked_1d(ar);
    test_blocked_2d(ar);
    test_slice(ar);
    test_pinv(ar);
    test_conversions(ar);
    test_linear_print(ar);
    ar_free(ar);
    return check_done("test_layout");
}
