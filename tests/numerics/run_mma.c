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

/* ------------------------------------------------------ dot out_dtype=f16 */

/* tests/gpu/ops/dot.tile's mm_f16acc: c = acc0 + a b with f16 accumulators,
 * rounded to f16 after every K step of 16 (docs/language.md). Inputs
 * from `step`-multiples (a of 1/4 in [-2, 2), b of 1/256 in [-1/16,
 * 1/16), acc0 integers in [1024, 2048), where an f16 unit is 1) make
 * every step's sum exact in f32, so the rule gives each element exactly:
 * want[] emulates it here; round-once (f32 accumulators) would differ,
 * and at least one element must show that the case tests the rule. */
static int f16acc_rule(Run *r, long M, long N, long K) {
    HBuf a = hb_new(DT_F16, M * K), b = hb_new(DT_F16, K * N);
    HBuf acc = hb_new(DT_F16, M * N), c = hb_new(DT_F16, M * N);
    double *want = malloc((size_t)(M * N) * sizeof *want);
    for (long i = 0; i < M * K; i++) hb_set(&a, i, floor(rng_uniform(&r->rng, -8, 8)) / 4);
    for (long i = 0; i < K * N; i++) hb_set(&b, i, floor(rng_uniform(&r->rng, -16, 16)) / 256);
    for (long i = 0; i < M * N; i++) hb_set(&acc, i, floor(rng_uniform(&r->rng, 1024, 2048)));
    long differ = 0;
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            double v = hb_get(&acc, i * N + j), once = v;
            for (long k0 = 0; k0 < K; k0 += 16) {
                double s = 0;
                for (long k = k0; k < K && k < k0 + 16; k++)
                    s += hb_get(&a, i * K + k) * hb_get(&b, k * N + j);
                v = ref_f16_to_f32(ref_f32_to_f16((float)(v + s)));
                once += s;
            }
            want[i * N + j] = v;
            differ += ref_f16_to_f32(ref_f32_to_f16((float)once)) != v;
        }
    TileArg args[] = {hb_arg(&c), hb_arg(&a), hb_arg(&b), hb_arg(&acc),
                      tile_arg_int(M), tile_arg_int(N), tile_arg_int(K)};
    int fails = h_run(r->prog, r->c->kernel, args, 7, r->config) ? 1
                : check_close("c (rule)", &c, want, NULL, 0, 0);
    if (!differ && K > 16) {
        fprintf(stderr, "  no element where rounding per step matters\n");
        fails++;
    }
    free(want);
    hb_free(&a); hb_free(&b); hb_free(&acc); hb_free(&c);
    return fails;
}

/* The same kernel on inputs in [-1, 1) against float64: each of the
 * ceil(K/16) roundings errs by at most half an f16 unit of the partial
 * sum, which is below the largest |partial| (1 + K: |acc0| and every
 * product below 1), plus the f32 sums' 2^-24 per term. */
static int f16acc_random(Run *r, long M, long N, long K) {
    double *ad, *bd, *accd;
    HBuf a = matrix(r, DT_F16, M, K, K, &ad), b = matrix(r, DT_F16, K, N, N, &bd);
    HBuf acc = matrix(r, DT_F16, M, N, N, &accd), c = hb_new(DT_F16, M * N);
    double *ref = malloc((size_t)(M * N) * sizeof *ref), big = 0;
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            double s = accd[i * N + j];
            for (long k = 0; k < K; k++) {
                s += ad[i * K + k] * bd[k * N + j];
                big = fabs(s) > big ? fabs(s) : big;
            }
            ref[i * N + j] = s;
        }
    double unit = ldexp(1, (int)floor(log2(big > 0x1p-14 ? big : 0x1p-14)) - 10);
    double atol = (double)((K + 15) / 16) * unit / 2 + (double)(K + 1) * 0x1p-24 * (big + 1);
    TileArg args[] = {hb_arg(&c), hb_arg(&a), hb_arg(&b), hb_arg(&acc),
                      tile_arg_int(M), tile_arg_int(N), tile_arg_int(K)};
    int fails = h_run(r->prog, r->c->kernel, args, 7, r->config) ? 1
                : check_close("c (random)", &c, ref, NULL, 0, atol);
    free(ad); free(bd); free(accd); free(ref);
    hb_free(&a); hb_free(&b); hb_free(&acc); hb_free(&c);
    return fails;
}

int run_dot_f16acc(Run *r) {
    long M = r->dims[0], N = r->dims[1], K = r->dims[2];
    return f16acc_rule(r, M, N, K) + f16acc_random(r, M, N, K);
}
