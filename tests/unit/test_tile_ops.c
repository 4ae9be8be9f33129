/* The tile operations of issue 17 in the interpreter, compiled from
 * source and checked against values worked out by hand or by plain C
 * loops: cumprod, cummax and cummin; scan and reduce with a user's
 * combiner (its order, its result type, a runtime error inside it);
 * slicing, cat, join, interleave and gather (an index out of range);
 * sort and topk (NaN after numbers). */
#include "interp/tile_interp.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Compiles src and runs kernel k once (grid 1) on args; returns the
 * run's status, its error text in *err (or NULL). */
static int run1(const char *src, const char *k, TileArg *args, int n, char **err) {
    char *diags = NULL;
    TileProgram *p = tile_compile_source("ops.tile", src, strlen(src), NULL, &diags);
    if (diags) fprintf(stderr, "%s", diags);
    CHECK(p != NULL && diags == NULL);
    free(diags);
    *err = NULL;
    int rc = p ? tile_interp_run(p, k, args, n, NULL, err) : -1;
    tile_program_free(p);
    return rc;
}

static const char cum_src[] =
    "kernel k(o: *f32, x: *f32, oi: *i32, b: *i8) grid(1) {\n"
    "    let c = arange(0, 8);\n"
    "    let v = load(x + c);\n"
    "    store(o + c, cummax(v, 0));\n"
    "    store(o + 8 + c, cummin(v, 0));\n"
    "    store(o + 16 + c, cumprod(v, 0));\n"
    "    store(oi + arange(0, 4), cumprod(load(b + arange(0, 4)), 0));\n"
    "}\n";

/* NaN loses in cummax and cummin (as in max), wins in a product; i8
 * products accumulate in i32. */
static void test_cum(void) {
    float x[8] = {NAN, 2, NAN, 3, -1, 5, 0.5f, 4}, o[24];
    int32_t oi[4];
    int8_t b[4] = {100, 100, 100, 100};
    TileArg a[4] = {tile_arg_buffer(o, sizeof o), tile_arg_buffer(x, sizeof x),
                    tile_arg_buffer(oi, sizeof oi), tile_arg_buffer(b, sizeof b)};
    char *err;
    CHECK(run1(cum_src, "k", a, 4, &err) == 0 && !err);
    float mx[8] = {NAN, 2, 2, 3, 3, 5, 5, 5}, mn[8] = {NAN, 2, 2, 2, -1, -1, -1, -1};
    for (int i = 0; i < 8; i++) {
        CHECK(i ? o[i] == mx[i] && o[8 + i] == mn[i] : isnan(o[0]) && isnan(o[8]));
        CHECK(isnan(o[16 + i]));
    }
    CHECK(oi[1] == 10000 && oi[3] == 100000000);
    free(err);
}

static const char fn_src[] =
    "fn affine(p: u32, q: u32) {\n"
    "    let ap = p >> 16;\n"
    "    let aq = q >> 16;\n"
    "    return (((ap * aq) & 0xffff) << 16) | ((aq * (p & 0xffff) + (q & 0xffff)) & 0xffff);\n"
    "}\n"
    "fn first(a, b) { return a; }\n"
    "fn bxor(a, b) { return a ^ b; }\n"
    "fn quot(a: i32, b: i32) { return a / b; }\n"
    "kernel k(o: *u32, x: *u32) grid(1) {\n"
    "    let c = arange(0, 64);\n"
    "    let v = load(x + c);\n"
    "    store(o + c, scan(v, 0, affine));\n"
    "    let t = reshape(v, [8, 8]);\n"
    "    store(o + 64 + c, reshape(scan(t, 0, affine), [64]));\n"
    "    store(o + 128 + arange(0, 8), reduce(t, 1, bxor));\n"
    "    store(o + 136, reduce(t, None, bxor));\n"
    "    store(o + 137 + c, scan(v, 0, first));\n"
    "    store(o + 201 + arange(0, 8)[:, None], reduce(t, 1, first, keepdims=true));\n"
    "}\n"
    "kernel e(o: *i32, x: *i32) grid(1) {\n"
    "    let c = arange(0, 4);\n"
    "    store(o + c, scan(load(x + c), 0, quot));\n"
    "}\n";

static uint32_t affine(uint32_t p, uint32_t q) {
    uint32_t ap = p >> 16, aq = q >> 16;
    return (((ap * aq) & 0xffff) << 16) | ((aq * (p & 0xffff) + (q & 0xffff)) & 0xffff);
}

/* The combiner sees (earlier, later) in index order: a non-commutative
 * map composition along both axes; a fold of xor; `first` keeps the
 * first element of each line. */
static void test_combiner(void) {
    uint32_t x[64], o[209], s = 7;
    for (int i = 0; i < 64; i++) x[i] = (s = s * 1103515245u + 12345u);
    TileArg a[2] = {tile_arg_buffer(o, sizeof o), tile_arg_buffer(x, sizeof x)};
    char *err;
    CHECK(run1(fn_src, "k", a, 2, &err) == 0 && !err);
    uint32_t acc = x[0], all = 0;
    for (int i = 0; i < 64; i++) {
        acc = i ? affine(acc, x[i]) : x[0];
        CHECK(o[i] == acc && o[137 + i] == x[0]);
    }
    for (int c = 0; c < 8; c++) {
        uint32_t col = x[c], row = 0;
        for (int r = 0; r < 8; r++) {
            col = r ? affine(col, x[r * 8 + c]) : col;
            CHECK(o[64 + r * 8 + c] == col);
            row ^= x[c * 8 + r];
        }
        CHECK(o[128 + c] == row && o[201 + c] == x[c * 8]);
        all ^= row;
    }
    CHECK(o[136] == all);

    int32_t q[4] = {100, 5, 0, 2}, oq[4];
    TileArg e[2] = {tile_arg_buffer(oq, sizeof oq), tile_arg_buffer(q, sizeof q)};
    CHECK(run1(fn_src, "e", e, 2, &err) == -1);
    CHECK_STR(err, "ops.tile:8:34: error: integer division by zero: index (), program "
                   "(0, 0, 0)\n"
                   "fn quot(a: i32, b: i32) { return a / b; }\n"
                   "                                 ^~~~~\n");
    free(err);
}

static const char move_src[] =
    "kernel k(o: *i32, x: *i32, ix: *i32) grid(1) {\n"
    "    let c = arange(0, 16);\n"
    "    let v = load(x + c);\n"
    "    let t = reshape(v, [4, 4]);\n"
    "    store(o + arange(0, 8), v[4:12]);\n"
    "    store(o + 8 + arange(0, 4), t[:, -1]);\n"
    "    store(o + 12, t[2, 1]);\n"
    "    store(o + 13 + arange(0, 2), t[1, 2:][None, :][0, :]);\n"
    "    store(o + 16 + arange(0, 32), cat(v, v * 10));\n"
    "    store(o + 48 + arange(0, 8), reshape(cat(t[0:2, 0:2], t[2:4, 2:4], 1), [8]));\n"
    "    store(o + 56 + arange(0, 8), reshape(join(t[:, 0], t[:, 3]), [8]));\n"
    "    store(o + 64 + arange(0, 8), interleave(v[0:4], v[12:16]));\n"
    "    store(o + 72 + c, gather(v, load(ix + c), 0));\n"
    "    store(o + 88 + c, reshape(gather(t, reshape(load(ix + c) % 4, [4, 4]), 1), [16]));\n"
    "}\n";

/* Elements moved as the index expressions say; a gather index outside
 * the axis is an error naming it. */
static void test_move(void) {
    int32_t x[16], ix[16], o[104];
    for (int i = 0; i < 16; i++) x[i] = 100 + i, ix[i] = (i * 7) % 16;
    TileArg a[3] = {tile_arg_buffer(o, sizeof o), tile_arg_buffer(x, sizeof x),
                    tile_arg_buffer(ix, sizeof ix)};
    char *err;
    CHECK(run1(move_src, "k", a, 3, &err) == 0 && !err);
    int32_t want[72] = {104, 105, 106, 107, 108, 109, 110, 111, 103, 107, 111, 115, 109,
                        106, 107, 0, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109,
                        110, 111, 112, 113, 114, 115, 1000, 1010, 1020, 1030, 1040, 1050,
                        1060, 1070, 1080, 1090, 1100, 1110, 1120, 1130, 1140, 1150, 100,
                        101, 110, 111, 104, 105, 114, 115, 100, 103, 104, 107, 108, 111,
                        112, 115, 100, 112, 101, 113, 102, 114, 103, 115};
    want[15] = o[15];   /* not written */
    CHECK(memcmp(o, want, sizeof want) == 0);
    for (int i = 0; i < 16; i++)
        CHECK(o[72 + i] == x[ix[i]] && o[88 + i] == x[i / 4 * 4 + ix[i] % 4]);
    ix[5] = 16;
    CHECK(run1(move_src, "k", a, 3, &err) == -1);
    CHECK(err && strstr(err, "ops.tile:13:23: error: gather index 16 is out of range for an "
                             "axis of 16: index (5), program (0, 0, 0)\n") == err);
    free(err);
}

static const char sort_src[] =
    "kernel k(o: *f32, x: *f32, oi: *u8, b: *u8) grid(1) {\n"
    "    let c = arange(0, 8);\n"
    "    let v = load(x + c);\n"
    "    store(o + c, sort(v));\n"
    "    store(o + 8 + c, sort(v, descending=true));\n"
    "    store(o + 16 + arange(0, 2), topk(v, 2));\n"
    "    let t = reshape(load(b + arange(0, 8)), [2, 4]);\n"
    "    store(oi + arange(0, 8), reshape(sort(t, 0, descending=true), [8]));\n"
    "}\n";

/* NaN sorts after the numbers ascending, before them descending; u8
 * compares unsigned; topk is the descending sort's first k. */
static void test_sort(void) {
    float x[8] = {3, NAN, -1, INFINITY, 0.5f, -INFINITY, 2, 3}, o[18];
    uint8_t b[8] = {200, 1, 7, 7, 3, 250, 7, 0}, oi[8];
    TileArg a[4] = {tile_arg_buffer(o, sizeof o), tile_arg_buffer(x, sizeof x),
                    tile_arg_buffer(oi, sizeof oi), tile_arg_buffer(b, sizeof b)};
    char *err;
    CHECK(run1(sort_src, "k", a, 4, &err) == 0 && !err);
    float up[7] = {-INFINITY, -1, 0.5f, 2, 3, 3, INFINITY};
    for (int i = 0; i < 7; i++) CHECK(o[i] == up[i] && o[9 + i] == up[6 - i]);
    CHECK(isnan(o[7]) && isnan(o[8]) && isnan(o[16]) && o[17] == INFINITY);
    uint8_t want[8] = {200, 250, 7, 7, 3, 1, 7, 0};
    CHECK(memcmp(oi, want, sizeof want) == 0);
    free(err);
}

int main(void) {
    test_cum();
    test_combiner();
    test_move();
    test_sort();
    return check_done("test_tile_ops");
}
