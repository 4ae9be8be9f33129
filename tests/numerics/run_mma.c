/*
 * run_mma.c — numerics runners for the tensor-core examples: matmul (f16,
 * bf16, f32 as tf32), matmul_gelu, bmm and attention.
 *
 * Inputs are uniform in [-1, 1] and rounded to the storage type; row
 * strides are padded with poison that a kernel must never read. The
 * interpreter computes dot as the hardware does: products of f16/bf16
 * values exact in f32 (and f32 inputs rounded to tf32 first), summed in
 * f32. Tolerances: one rounding to the output type, plus the f32 sum's
 * error, plus for f32 inputs tf32's 2^-11 relative error on every
 * product (a sum of K products of magnitude <= 1 errs by about
 * sqrt(K) * 2^-11; three times that is allowed).
 */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/ref/ref.h"

static const char *kernel_or(const Run *r, const char *name) {
    return r->c->kernel[0] ? r->c->kernel : name;
}

/* A rows x cols matrix with row stride `stride`, poison in the padding;
 * the values (as the kernel sees them) in *vals. */
static HBuf matrix(Run *r, Dtype dt, long rows, long cols, long stride,
                   double **vals) {
    HBuf b = hb_new(dt, rows * stride);
    *vals = hb_fill_uniform(&b, &r->rng, -1, 1);
    for (long i = 0; i < rows; i++)
        for (long j = cols; j < stride; j++) hb_set(&b, i * stride + j, NAN);
    return b;
}

static uint8_t *written_rows(long rows, long cols, long stride) {
    uint8_t *m = calloc((size_t)(rows * stride > 0 ? rows * stride : 1), 1);
    for (long i = 0; i < rows; i++) memset(m + i * stride, 1, (size_t)cols);
    return m;
}

/* Absolute error of a dot of K terms of magnitude <= 1 with inputs of
 * type dt, in f32 accumulation. */
static double dot_atol(Dtype dt, long K) {
    double tf32 = dt == DT_F32 ? 3 * sqrt((double)K) * 0x1p-11 : 0;
    return tf32 + 1e-6 * (double)(K + 1);
}

/* ---------------------------------------------------------------- matmul */

int run_matmul(Run *r) {
    long M = r->dims[0], N = r->dims[1], K = r->dims[2];
    long lda = K + 3, ldb = N + 1, ldc = N + 2;
    Dtype dt = r->c->dtype;
    double *ad, *bd;
    HBuf a = matrix(r, dt, M, K, lda, &ad), b = matrix(r, dt, K, N, ldb, &bd);
    HBuf c = hb_new(dt, M * ldc);
    double *ref = malloc((size_t)(M * ldc) * sizeof *ref);
    ref_matmul(ref, ad, bd, M, N, K, lda, ldb, ldc);
    uint8_t *written = written_rows(M, N, ldc);
    TileArg args[] = {hb_arg(&c), hb_arg(&a), hb_arg(&b), tile_arg_int(M),
                      tile_arg_int(N), tile_arg_int(K), tile_arg_int(lda),
                      tile_arg_int(ldb), tile_arg_int(ldc)};
    int fails = 1;
    if (!h_run(r->prog, kernel_or(r, "matmul"), args, 9, r->config))
        fails = check_close("c", &c, ref, written, dt_unit(dt) + 1e-6,
                            dot_atol(dt, K));
    free(ad); free(bd); free(ref); free(written);
    hb_free(&a); hb_free(&b); hb_free(&c);
    return fails;
}

/* ----------------------------------------------------------- matmul_gelu */

int run_matmul_gelu(Run *r) {
    long M = r->dims[0], N = r->dims[1], K = r->dims[2];
    long lda = K + 1, ldb = N + 3, ldc = N + 1;
    double *ad, *bd, *biasd;
    HBuf a = matrix(r, DT_F16, M, K, lda, &ad), b = matrix(r, DT_F16, K, N, ldb, &bd);
    HBuf bias = matrix(r, DT_F16, 1, N, N, &biasd), c = hb_new(DT_F16, M * ldc);
    double *ref = malloc((size_t)(M * ldc) * sizeof *ref);
    ref_matmul_gelu(ref, ad, bd, biasd, M, N, K, lda, ldb, ldc);
    uint8_t *written = written_rows(M, N, ldc);
    TileArg args[] = {hb_arg(&c), hb_arg(&a), hb_arg(&b), hb_arg(&bias),
                      tile_arg_int(M), tile_arg_int(N), tile_arg_int(K),
                      tile_arg_int(lda), tile_arg_int(ldb), tile_arg_int(ldc)};
    int fails = 1;
    /* gelu's slope is at most about 1.13: the dot's error passes through
     * almost unchanged; gelu in f32 adds |z| * 1.1e-7 at most. */
    if (!h_run(r->prog, kernel_or(r, "matmul_gelu"), args, 10, r->config))
        fails = check_close("c", &c, ref, written, 0x1p-11 + 1e-5,
                            1.2 * dot_atol(DT_F16, K) + 1e-6);
    free(ad); free(bd); free(biasd); free(ref); free(written);
    hb_free(&a); hb_free(&b); hb_free(&bias); hb_free(&c);
    return fails;
}

/* ------------------------------------------------------------------- bmm */

int run_bmm(Run *r) {
    long batch = r->dims[0], M = r->dims[1], N = r->dims[2], K = r->dims[3];
    long lda = K + 2, ldb = N + 1, ldc = N + 3;
    long sa = M * lda + 5, sb = K * ldb + 7, sc = M * ldc + 1;
    double *ad, *bd;
    HBuf a = matrix(r, DT_F16, batch, sa, sa, &ad);
    HBuf b = matrix(r, DT_F16, batch, sb, sb, &bd);
    HBuf c = hb_new(DT_F16, batch * sc);
    double *ref = malloc((size_t)(batch * sc) * sizeof *ref);
    for (long i = 0; i < batch * sc; i++) ref[i] = 0;
    ref_bmm(ref, ad, bd, batch, M, N, K, sa, sb, sc, lda, ldb, ldc);
    uint8_t *written = calloc((size_t)(batch * sc), 1);
    for (long i = 0; i < batch; i++)
        for (long m = 0; m < M; m++) memset(written + i * sc + m * ldc, 1, (size_t)N);
    TileArg args[] = {hb_arg(&c), hb_arg(&a), hb_arg(&b), tile_arg_int(batch),
                      tile_arg_int(M), tile_arg_int(N), tile_arg_int(K),
                      tile_arg_int(sa), tile_arg_int(sb), tile_arg_int(sc),
                      tile_arg_int(lda), tile_arg_int(ldb), tile_arg_int(ldc)};
    int fails = 1;
    if (!h_run(r->prog, kernel_or(r, "bmm"), args, 13, r->config))
        fails = check_close("c", &c, ref, written, 0x1p-11 + 1e-6,
                            dot_atol(DT_F16, K));
    free(ad); free(bd); free(ref); free(written);
    hb_free(&a); hb_free(&b); hb_free(&c);
    return fails;
}

/* ------------------------------------------------------------- attention */

/* Size HEADSxSxD; D must match the kernel's D (define D=...); the case's
 * `define CAUSAL=true` selects the causal form. */
int run_attention(Run *r) {
    long heads = r->dims[0], S = r->dims[1], D = r->dims[2];
    long stride_s = D + 8, stride_h = S * stride_s + 16;
    int causal = 0;
    for (int i = 0; i < r->h->ndefines; i++)
        causal |= !strcmp(r->h->defines[i], "CAUSAL=true");
    double scale = 1.0 / sqrt((double)D);
    double *qd, *kd, *vd;
    HBuf q = matrix(r, DT_F16, heads, stride_h, stride_h, &qd);
    HBuf k = matrix(r, DT_F16, heads, stride_h, stride_h, &kd);
    HBuf v = matrix(r, DT_F16, heads, stride_h, stride_h, &vd);
    HBuf o = hb_new(DT_F16, heads * stride_h);
    double *ref = malloc((size_t)(heads * stride_h) * sizeof *ref);
    for (long i = 0; i < heads * stride_h; i++) ref[i] = 0;
    ref_attention(ref, qd, kd, vd, heads, S, D, stride_h, stride_s,
                  (double)(float)scale, causal);
    uint8_t *written = calloc((size_t)(heads * stride_h), 1);
    for (long h = 0; h < heads; h++)
        for (long i = 0; i < S; i++)
            memset(written + h * stride_h + i * stride_s, 1, (size_t)D);
    TileArg args[] = {hb_arg(&o), hb_arg(&q), hb_arg(&k), hb_arg(&v),
                      tile_arg_int(heads), tile_arg_int(S),
                      tile_arg_int(stride_h), tile_arg_int(stride_s),
                      tile_arg_float(scale)};
    int fails = 1;
    /* The probabilities are rounded to f16 before the second product
     * (relative 2^-11 each, the output a convex combination of values of
     * magnitude <= 1), the scores carry the f32 dot's error times the
     * scale; then one rounding of the output to f16. */
    if (!h_run(r->prog, kernel_or(r, "attention"), args, 9, r->config))
        fails = check_close("o", &o, ref, written, 0x1p-10, 2e-3);
    free(qd); free(kd); free(vd); free(ref); free(written);
    hb_free(&q); hb_free(&k); hb_free(&v); hb_free(&o);
    return fails;
}
