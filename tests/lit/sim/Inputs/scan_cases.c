/*
 * scan_cases.c — the kernels of tests/gpu/ops/scan.tile and convert.tile,
 * both variants, run on warpsim (one pthread per GPU thread) and checked
 * against plain C: cumsum lowered as a scan (in-thread prefix,
 * shfl.sync.up over lanes, per-warp partials through shared memory,
 * chunks carried in order; other layouts converted first) and layout
 * conversions inside warps lowered as shfl.sync.idx with a receiver-side
 * select. The same files run on a real GPU against the interpreter
 * through tests/gpu/ops (scripts/gpu-ops-check.sh); this test runs where
 * there is none. The tensor-core kernel (scan_mma) is left out: the
 * simulation has no mma.sync. Prints one line per check, then PASS or
 * FAIL; exit 1 on a failure.
 */
#define _POSIX_C_SOURCE 200809L
#include "warpsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef _Float16 f16;

#define K2(name) extern void name(void *, void *);
#define K3I(name) extern void name(void *, void *, int);
#define K4II(name) extern void name(void *, void *, int, int);
#define K3P(name) extern void name(void *, void *, void *);
#define BOTH(m, n) m(n##__c0__g) m(n##__c0__a16)
BOTH(K3I, scan_w1_f32) BOTH(K3I, scan_1d_i32) BOTH(K2, scan_1d_f16)
BOTH(K4II, scan_2d_f32) BOTH(K2, scan_tall_i32) BOTH(K2, scan_tall_i64)
BOTH(K2, scan_small) BOTH(K2, scan_reshape)
BOTH(K2, cvt_w1) BOTH(K3P, cvt_w4) BOTH(K2, cvt_i64) BOTH(K3P, cvt_f16) BOTH(K2, cvt_3d)

/* A kernel of any signature, its arguments, and which signature it has
 * (2: two pointers, 3: two pointers and an int, 4: two pointers and two
 * ints, 5: three pointers). */
typedef void (*Kernel)(void);
typedef struct Ctx { Kernel k; void *a, *b, *c; int i, j; int kind; } Ctx;
static void body(void *p) {
    Ctx *c = p;
    switch (c->kind) {
    case 2: ((void (*)(void *, void *))c->k)(c->a, c->b); break;
    case 3: ((void (*)(void *, void *, int))c->k)(c->a, c->b, c->i); break;
    case 4: ((void (*)(void *, void *, int, int))c->k)(c->a, c->b, c->i, c->j); break;
    case 5: ((void (*)(void *, void *, void *))c->k)(c->a, c->b, c->c); break;
    }
}

static void t_w1(Kernel k, const char *nm, int n) {
    float *x = ws_buffer(128 * 4), *o = ws_buffer(128 * 4);
    double want[128];
    for (int i = 0; i < 128; i++) x[i] = (float)ws_frand();
    double s = 0;
    for (int i = 0; i < n; i++) want[i] = s += x[i];
    Ctx c = {k, o, x, 0, n, 0, 3};
    ws_launch(32, 1, body, &c);
    char w[64]; snprintf(w, 64, "%s n=%d", nm, n);
    ws_check_f(w, o, want, n, 1e-5);
}
static void t_1d(Kernel k, const char *nm, int n) {
    int32_t *x = ws_buffer(1024 * 4), *o = ws_buffer(1024 * 4);
    int64_t got[1024], want[1024];
    for (int i = 0; i < 1024; i++) x[i] = ws_irand(-100, 100);
    int32_t s = 0;
    for (int i = 0; i < n; i++) want[i] = s += x[i];
    Ctx c = {k, o, x, 0, n, 0, 3};
    ws_launch(128, 1, body, &c);
    for (int i = 0; i < n; i++) got[i] = o[i];
    char w[64]; snprintf(w, 64, "%s n=%d", nm, n);
    ws_check_i(w, got, want, n);
}
static void t_f16(Kernel k, const char *nm) {
    f16 *x = ws_buffer(2048 * 2), *o = ws_buffer(2048 * 2);
    float got[2048]; double want[2048];
    for (int i = 0; i < 2048; i++) x[i] = (f16)(ws_frand() / 2);
    float s = 0;
    for (int i = 0; i < 2048; i++) { s += (float)x[i]; want[i] = (double)(f16)s; }
    Ctx c = {k, o, x, 0, 0, 0, 2};
    ws_launch(256, 1, body, &c);
    for (int i = 0; i < 2048; i++) got[i] = (float)o[i];
    ws_check_f(nm, got, want, 2048, 2e-3);
}
static void t_2d(Kernel k, const char *nm, int rows, int cols) {
    float *x = ws_buffer((size_t)rows * cols * 4), *o = ws_buffer((size_t)2 * rows * cols * 4);
    double *want = malloc(sizeof(double) * 2 * rows * cols);
    for (int i = 0; i < rows * cols; i++) x[i] = (float)ws_frand();
    for (int r = 0; r < rows; r++) {
        double s = 0;
        for (int cc = 0; cc < cols; cc++) want[r * cols + cc] = s += x[r * cols + cc];
    }
    for (int cc = 0; cc < cols; cc++) {
        double s = 0;
        for (int r = 0; r < rows; r++) {
            if (r % 16 == 0) s = 0;
            want[rows * cols + r * cols + cc] = s += x[r * cols + cc];
        }
    }
    Ctx c = {k, o, x, 0, rows, cols, 4};
    ws_launch(128, (rows + 15) / 16, body, &c);
    char w[64]; snprintf(w, 64, "%s %dx%d", nm, rows, cols);
    ws_check_f(w, o, want, 2 * rows * cols, 1e-5);
    free(want);
}
/* [R, C] integer tile at x (row-major), column prefix then row prefix */
#define T_TALL(fn, T, R, C, NT)                                              \
static void fn(Kernel k, const char *nm) {                                    \
    T *x = ws_buffer(R * C * sizeof(T)), *o = ws_buffer(2 * R * C * sizeof(T));        \
    int64_t got[2 * R * C], want[2 * R * C];                                 \
    for (int i = 0; i < R * C; i++) x[i] = (T)ws_irand(-1000, 1000) * (T)1000003; \
    for (int cc = 0; cc < C; cc++) { T s = 0; for (int r = 0; r < R; r++) want[r * C + cc] = s += x[r * C + cc]; } \
    for (int r = 0; r < R; r++) { T s = 0; for (int cc = 0; cc < C; cc++) want[R * C + r * C + cc] = s += x[r * C + cc]; } \
    Ctx c = {k, o, x, 0, 0, 0, 2};                                           \
    ws_launch(NT, 1, body, &c);                                                 \
    for (int i = 0; i < 2 * R * C; i++) got[i] = o[i];                       \
    ws_check_i(nm, got, want, 2 * R * C);                                       \
}
T_TALL(t_tall32, int32_t, 128, 8, 256)
T_TALL(t_tall64, int64_t, 64, 16, 128)
T_TALL(t_reshape, int32_t, 32, 32, 128)
static void t_small(Kernel k, const char *nm) {
    uint8_t *x = ws_buffer(1024); uint32_t *o = ws_buffer(2048 * 4);
    int64_t got[2048], want[2048];
    for (int i = 0; i < 1024; i++) x[i] = (uint8_t)ws_irand(0, 200);
    uint32_t s = 0, t = 0;
    for (int i = 0; i < 1024; i++) { want[i] = s += x[i]; want[1024 + i] = t += x[i] > 100; }
    Ctx c = {k, o, x, 0, 0, 0, 2};
    ws_launch(128, 1, body, &c);
    for (int i = 0; i < 2048; i++) got[i] = o[i];
    ws_check_i(nm, got, want, 2048);
}
static void t_cw1(Kernel k, const char *nm) {
    float *x = ws_buffer(2048 * 4), *o = ws_buffer(64 * 4); double want[64];
    for (int i = 0; i < 2048; i++) x[i] = (float)ws_frand();
    for (int cc = 0; cc < 64; cc++) { double s = 0; for (int r = 0; r < 32; r++) s += x[r * 64 + cc]; want[cc] = s; }
    Ctx c = {k, o, x, 0, 0, 0, 2};
    ws_launch(32, 1, body, &c);
    ws_check_f(nm, o, want, 64, 1e-5);
}
static void t_cw4(Kernel k, const char *nm) {
    float *x = ws_buffer(2048 * 4), *o = ws_buffer(128 * 4); int32_t *oi = ws_buffer(64 * 4);
    double want[128]; int64_t wi[64], gi[64];
    for (int i = 0; i < 2048; i++) x[i] = (float)ws_frand();
    for (int cc = 0; cc < 64; cc++) {
        double s = 0, m = -1e30; int mi = 0;
        for (int r = 0; r < 32; r++) { s += x[r * 64 + cc]; if (x[r * 64 + cc] > m) { m = x[r * 64 + cc]; mi = r; } }
        want[cc] = s; want[64 + cc] = m; wi[cc] = mi;
    }
    Ctx c = {k, o, oi, x, 0, 0, 5};
    ws_launch(128, 1, body, &c);
    for (int i = 0; i < 64; i++) gi[i] = oi[i];
    ws_check_f(nm, o, want, 128, 1e-5);
    ws_check_i(nm, gi, wi, 64);
}
static void t_ci64(Kernel k, const char *nm) {
    int64_t *x = ws_buffer(1024 * 8), *o = ws_buffer(64 * 8), want[64];
    for (int i = 0; i < 1024; i++) x[i] = (int64_t)ws_irand(-1000000, 1000000) * 1000000007LL;
    for (int cc = 0; cc < 32; cc++) {
        int64_t m = INT64_MIN, s = 0;
        for (int r = 0; r < 32; r++) { if (x[r * 32 + cc] > m) m = x[r * 32 + cc]; s += x[r * 32 + cc]; }
        want[cc] = m; want[32 + cc] = s;
    }
    Ctx c = {k, o, x, 0, 0, 0, 2};
    ws_launch(32, 1, body, &c);
    ws_check_i(nm, o, want, 64);
}
static void t_cf16(Kernel k, const char *nm) {
    f16 *x = ws_buffer(2048 * 2), *o = ws_buffer(128 * 2); uint8_t *ob = ws_buffer(64);
    float got[128]; double want[128]; int64_t gb[64], wb[64];
    for (int i = 0; i < 2048; i++) x[i] = (f16)ws_frand();
    for (int cc = 0; cc < 64; cc++) {
        float s = 0; float m = 1e30f;
        for (int r = 0; r < 32; r++) { s += (float)x[r * 64 + cc]; if ((float)x[r * 64 + cc] < m) m = (float)x[r * 64 + cc]; }
        want[cc] = (double)(f16)s; want[64 + cc] = m; wb[cc] = (f16)s > 0;
    }
    Ctx c = {k, o, ob, x, 0, 0, 5};
    ws_launch(32, 1, body, &c);
    for (int i = 0; i < 128; i++) got[i] = (float)o[i];
    for (int i = 0; i < 64; i++) gb[i] = ob[i];
    ws_check_f(nm, got, want, 128, 2e-3);
    ws_check_i(nm, gb, wb, 64);
}
static void t_c3d(Kernel k, const char *nm) {
    int32_t *x = ws_buffer(512 * 4), *o = ws_buffer(64 * 4); int64_t got[64], want[64];
    for (int i = 0; i < 512; i++) x[i] = ws_irand(-100, 100);
    for (int a = 0; a < 4; a++) for (int cc = 0; cc < 16; cc++) {
        int32_t s = 0; for (int b = 0; b < 8; b++) s += x[a * 128 + b * 16 + cc]; want[a * 16 + cc] = s; }
    Ctx c = {k, o, x, 0, 0, 0, 2};
    ws_launch(128, 1, body, &c);
    for (int i = 0; i < 64; i++) got[i] = o[i];
    ws_check_i(nm, got, want, 64);
}

static void run_cases(void) {
    t_w1((Kernel)scan_w1_f32__c0__g, "scan_w1_f32 g", 77);
    t_w1((Kernel)scan_w1_f32__c0__g, "scan_w1_f32 g", 128);
    t_w1((Kernel)scan_w1_f32__c0__a16, "scan_w1_f32 a16", 128);
    t_w1((Kernel)scan_w1_f32__c0__a16, "scan_w1_f32 a16", 80);
    t_1d((Kernel)scan_1d_i32__c0__g, "scan_1d_i32 g", 1000);
    t_1d((Kernel)scan_1d_i32__c0__g, "scan_1d_i32 g", 37);
    t_1d((Kernel)scan_1d_i32__c0__a16, "scan_1d_i32 a16", 1024);
    t_1d((Kernel)scan_1d_i32__c0__a16, "scan_1d_i32 a16", 992);
    t_f16((Kernel)scan_1d_f16__c0__g, "scan_1d_f16 g");
    t_f16((Kernel)scan_1d_f16__c0__a16, "scan_1d_f16 a16");
    t_2d((Kernel)scan_2d_f32__c0__g, "scan_2d_f32 g", 50, 200);
    t_2d((Kernel)scan_2d_f32__c0__a16, "scan_2d_f32 a16", 64, 256);
    t_2d((Kernel)scan_2d_f32__c0__a16, "scan_2d_f32 a16", 48, 208);
    t_tall32((Kernel)scan_tall_i32__c0__g, "scan_tall_i32 g");
    t_tall32((Kernel)scan_tall_i32__c0__a16, "scan_tall_i32 a16");
    t_tall64((Kernel)scan_tall_i64__c0__g, "scan_tall_i64 g");
    t_tall64((Kernel)scan_tall_i64__c0__a16, "scan_tall_i64 a16");
    t_small((Kernel)scan_small__c0__g, "scan_small g");
    t_small((Kernel)scan_small__c0__a16, "scan_small a16");
    t_reshape((Kernel)scan_reshape__c0__g, "scan_reshape g");
    t_reshape((Kernel)scan_reshape__c0__a16, "scan_reshape a16");
    t_cw1((Kernel)cvt_w1__c0__g, "cvt_w1 g"); t_cw1((Kernel)cvt_w1__c0__a16, "cvt_w1 a16");
    t_cw4((Kernel)cvt_w4__c0__g, "cvt_w4 g"); t_cw4((Kernel)cvt_w4__c0__a16, "cvt_w4 a16");
    t_ci64((Kernel)cvt_i64__c0__g, "cvt_i64 g"); t_ci64((Kernel)cvt_i64__c0__a16, "cvt_i64 a16");
    t_cf16((Kernel)cvt_f16__c0__g, "cvt_f16 g"); t_cf16((Kernel)cvt_f16__c0__a16, "cvt_f16 a16");
    t_c3d((Kernel)cvt_3d__c0__g, "cvt_3d g"); t_c3d((Kernel)cvt_3d__c0__a16, "cvt_3d a16");
}

int main(void) {
    run_cases();
    printf("%s: %d failing\n", ws_failures() ? "FAIL" : "PASS", ws_failures());
    return ws_failures() != 0;
}
