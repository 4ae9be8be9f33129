/*
 * run_examples.c — numerics runners for the examples in examples/.
 *
 * Each runner builds inputs for one size, poisons the outputs, runs the
 * kernel in the interpreter, computes the C reference (examples/ref) and
 * checks every output. Tolerances follow from the kernel's arithmetic:
 * one rounding to the output type, plus f32 accumulation error that grows
 * with the length of a reduction (f32_sum_rtol), plus an absolute term
 * where a formula cancels (a sum that lands near zero).
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

/* written[i] = 1 for the first `cols` elements of every row of `stride`. */
static uint8_t *row_mask(long rows, long cols, long stride) {
    long n = rows * stride;
    uint8_t *m = calloc((size_t)(n > 0 ? n : 1), 1);
    for (long i = 0; i < rows; i++)
        memset(m + i * stride, 1, (size_t)cols);
    return m;
}

/* Row padding of an input: poison, which a kernel must never read (a read
 * would turn a result into NaN). */
static void poison_padding(HBuf *b, long rows, long cols, long stride) {
    for (long i = 0; i < rows; i++)
        for (long j = cols; j < stride; j++)
            hb_set(b, i * stride + j, NAN);
}

/* ------------------------------------------------------------------ vadd */

int run_vadd(Run *r) {
    long n = r->dims[0];
    HBuf x = hb_new(DT_F32, n), y = hb_new(DT_F32, n), out = hb_new(DT_F32, n);
    double *xd = hb_fill_uniform(&x, &r->rng, -10, 10);
    double *yd = hb_fill_uniform(&y, &r->rng, -10, 10);
    double *ref = malloc((size_t)(n ? n : 1) * sizeof *ref);
    ref_vadd(ref, xd, yd, n);
    TileArg args[] = {hb_arg(&out), hb_arg(&x), hb_arg(&y), tile_arg_int(n)};
    int fails = 1;
    if (!h_run(r->prog, kernel_or(r, "vadd"), args, 4, r->config))
        fails = check_close("out", &out, ref, NULL, 0x1p-24, 0);
    free(xd); free(yd); free(ref);
    hb_free(&x); hb_free(&y); hb_free(&out);
    return fails;
}

/* ------------------------------------------------------------- bias_gelu */

int run_bias_gelu(Run *r) {
    long n = r->dims[0];
    Dtype dt = r->c->dtype;
    HBuf x = hb_new(dt, n), out = hb_new(dt, n);
    double *xd = hb_fill_normal(&x, &r->rng, 2.0);
    float a = (float)rng_uniform(&r->rng, 0.5, 1.5);
    float b = (float)rng_uniform(&r->rng, -1, 1);
    double *ref = malloc((size_t)(n ? n : 1) * sizeof *ref);
    ref_bias_gelu(ref, xd, a, b, n);
    TileArg args[] = {hb_arg(&out), hb_arg(&x), tile_arg_float(a),
                      tile_arg_float(b), tile_arg_int(n)};
    int fails = 1;
    /* f32 evaluation of z = x*a + b (relative 2^-24, times gelu's slope
     * of at most 1.13) and gelu's own error |z| * |dPhi| <= |z| * 1.1e-7:
     * below 2e-6 for |z| < 18 (and relative where gelu(z) ~ z). */
    if (!h_run(r->prog, kernel_or(r, "bias_gelu"), args, 5, r->config))
        fails = check_close("out", &out, ref, NULL,
                            1e-5 + dt_unit(dt), 2e-6);
    free(xd); free(ref);
    hb_free(&x); hb_free(&out);
    return fails;
}

/* --------------------------------------------------------------- softmax */

int run_softmax(Run *r) {
    long rows = r->dims[0], cols = r->ndims > 1 ? r->dims[1] : 1;
    long stride = cols + 5, n = rows * stride;
    HBuf x = hb_new(DT_F32, n), out = hb_new(DT_F32, n);
    double *xd = hb_fill_normal(&x, &r->rng, 4.0);
    poison_padding(&x, rows, cols, stride);
    double *ref = malloc((size_t)n * sizeof *ref);
    ref_softmax(ref, xd, rows, cols, stride);
    uint8_t *written = row_mask(rows, cols, stride);
    TileArg args[] = {hb_arg(&out), hb_arg(&x), tile_arg_int(rows),
                      tile_arg_int(cols), tile_arg_int(stride)};
    int fails = 1;
    if (!h_run(r->prog, kernel_or(r, "softmax"), args, 5, r->config))
        /* exp's argument v - max is rounded (|v - max| < 40 here), the sum
         * accumulates rounding, the division adds one more. */
        fails = check_close("out", &out, ref, written,
                            5e-6 + f32_sum_rtol(cols), 1e-30);
    free(xd); free(ref); free(written);
    hb_free(&x); hb_free(&out);
    return fails;
}

/* ------------------------------------------------------ matmul_bias_relu */

int run_matmul_bias_relu(Run *r) {
    long M = r->dims[0], N = r->dims[1], K = r->dims[2];
    long lda = K + 3, ldb = N + 1, ldc = N + 2;
    HBuf a = hb_new(DT_F16, M * lda), b = hb_new(DT_F16, K * ldb);
    HBuf bias = hb_new(DT_F16, N), c = hb_new(DT_F16, M * ldc);
    double *ad = hb_fill_uniform(&a, &r->rng, -1, 1);
    double *bd = hb_fill_uniform(&b, &r->rng, -1, 1);
    double *biasd = hb_fill_uniform(&bias, &r->rng, -1, 1);
    poison_padding(&a, M, K, lda);
    poison_padding(&b, K, N, ldb);
    double *ref = malloc((size_t)(M * ldc) * sizeof *ref);
    ref_matmul_bias_relu(ref, ad, bd, biasd, M, N, K, lda, ldb, ldc);
    uint8_t *written = row_mask(M, N, ldc);
    TileArg args[] = {hb_arg(&c), hb_arg(&a), hb_arg(&b), hb_arg(&bias),
                      tile_arg_int(M), tile_arg_int(N), tile_arg_int(K),
                      tile_arg_int(lda), tile_arg_int(ldb), tile_arg_int(ldc)};
    int fails = 1;
    /* Products of f16 values are exact in f32; the f32 sum of K of them
     * (|terms| <= 1) errs by about sqrt(K) * 2^-24 * |partial sums|; then
     * one rounding to f16. */
    if (!h_run(r->prog, kernel_or(r, "matmul_bias_relu"), args, 10,
               r->config))
        fails = check_close("c", &c, ref, written, 0x1p-11 + 1e-6,
                            1e-6 * (double)(K + 1));
    free(ad); free(bd); free(biasd); free(ref); free(written);
    hb_free(&a); hb_free(&b); hb_free(&bias); hb_free(&c);
    return fails;
}

/* ------------------------------------------------------------- layernorm */

int run_layernorm(Run *r) {
    long rows = r->dims[0], cols = r->ndims > 1 ? r->dims[1] : 1;
    long stride = cols + 7, n = rows * stride;
    Dtype dt = r->c->dtype;
    double eps = 1e-5;
    HBuf x = hb_new(dt, n), res = hb_new(dt, n), w = hb_new(dt, cols),
         b = hb_new(dt, cols);
    HBuf out = hb_new(dt, n), h = hb_new(dt, n), mean = hb_new(DT_F32, rows),
         rstd = hb_new(DT_F32, rows);
    /* An offset of 3 makes the one-pass E[h^2] - mean^2 visibly wrong. */
    double *xd = hb_fill_uniform(&x, &r->rng, 2, 4);
    double *resd = hb_fill_normal(&res, &r->rng, 1.0);
    double *wd = hb_fill_uniform(&w, &r->rng, 0.5, 1.5);
    double *bd = hb_fill_uniform(&b, &r->rng, -1, 1);
    poison_padding(&x, rows, cols, stride);
    poison_padding(&res, rows, cols, stride);
    double *ro = malloc((size_t)n * sizeof *ro), *rh = malloc((size_t)n * sizeof *rh);
    double *rm = malloc((size_t)rows * sizeof *rm), *rr = malloc((size_t)rows * sizeof *rr);
    ref_add_layernorm(ro, rh, rm, rr, xd, resd, wd, bd, rows, cols, stride, eps);
    uint8_t *written = row_mask(rows, cols, stride);
    TileArg args[] = {hb_arg(&out), hb_arg(&h), hb_arg(&mean), hb_arg(&rstd),
                      hb_arg(&x), hb_arg(&res), hb_arg(&w), hb_arg(&b),
                      tile_arg_int(rows), tile_arg_int(cols),
                      tile_arg_int(stride), tile_arg_float(eps)};
    int fails = 1;
    if (!h_run(r->prog, kernel_or(r, "add_layernorm"), args, 12, r->config)) {
        /* The mean (about 3) errs by 3 * stat absolutely, which shifts
         * every normalized value by that times rstd * w (about 1.5); rstd
         * errs relatively by about stat; then one rounding to T. */
        double stat = f32_sum_rtol(cols), u = dt_unit(dt);
        fails = check_close("h", &h, rh, written, u + 1e-7, 0);
        fails += check_close("mean", &mean, rm, NULL, stat, 0);
        fails += check_close("rstd", &rstd, rr, NULL, stat + 1e-6, 0);
        fails += check_close("out", &out, ro, written, u + 2 * stat,
                             6 * stat);
    }
    free(xd); free(resd); free(wd); free(bd);
    free(ro); free(rh); free(rm); free(rr); free(written);
    hb_free(&x); hb_free(&res); hb_free(&w); hb_free(&b);
    hb_free(&out); hb_free(&h); hb_free(&mean); hb_free(&rstd);
    return fails;
}

/* --------------------------------------------------------- cross_entropy */

enum { IGNORE_INDEX = -100 };

/* loss = lse - logit: absolute error about the size of lse's rounding;
 * grad = (p - onehot) * scale: p carries lse's error relatively, the
 * target element cancels against 1 (gatol: per unit of the largest
 * scale). */
typedef struct XentTol { double lrtol, latol, grtol, gatol; } XentTol;

static XentTol xent_tol(long cols, double scale) {
    return (XentTol){f32_sum_rtol(cols), 2e-6 * (1 + log((double)cols)),
                     5e-6 + 2 * f32_sum_rtol(cols), 1e-6 * scale};
}

/* cross_entropy_bwd_dbias after the split's forward: the gradient again
 * (rgs, as cross_entropy_bwd's) and its column sums by blocks of rows, at
 * each of row_blocks_of's block counts. A sum's terms err as the gradient
 * does (grtol relative, gatol absolute), plus the sum's own rounding. */
static int cross_entropy_dbias(Run *r, HBuf *logits, HBuf *target, HBuf *lse, HBuf *gloss,
                               const double *rgs, const uint8_t *written, XentTol t) {
    long rows = r->dims[0], cols = r->ndims > 1 ? r->dims[1] : 1;
    long stride = cols + 3, fails = 0;
    for (int which = 0; which < 3; which++) {
        long rb = row_blocks_of(rows, which), nb = rb * cols;
        HBuf grad = hb_new(DT_F32, rows * stride), part = hb_new(DT_F32, nb);
        double *rs = malloc((size_t)nb * sizeof *rs), *ms = malloc((size_t)nb * sizeof *ms);
        block_sums(rs, ms, rgs, rows, cols, stride, rb);
        TileArg args[] = {hb_arg(&grad), hb_arg(&part), hb_arg(logits), hb_arg(target),
                          hb_arg(lse), hb_arg(gloss), tile_arg_int(rows), tile_arg_int(cols),
                          tile_arg_int(stride), tile_arg_int(rb)};
        printf("  cross_entropy_bwd_dbias, row_blocks %ld:\n", rb);
        if (h_run(r->prog, "cross_entropy_bwd_dbias", args, 10, r->config)) {
            fails++;
        } else {
            fails += check_close("grad", &grad, rgs, written, t.grtol, t.gatol);
            fails += check_sums("dbias_part", &part, rs, ms, rows, cols, rb,
                                t.grtol + f32_sum_rtol(rows), t.gatol);
        }
        free(rs); free(ms);
        hb_free(&grad); hb_free(&part);
    }
    return (int)fails;
}

/* The training split (cross_entropy_fwd, then cross_entropy_bwd with an
 * upstream gradient that differs by row) on run_cross_entropy's inputs:
 * the loss, each row's logsumexp, and the gradient scaled by its row's
 * factor, against float64 (rg: the reference gradient at scale 1/rows). */
static int cross_entropy_split(Run *r, HBuf *logits, HBuf *target, const double *ld,
                               const double *rl, const double *rg, const uint8_t *written) {
    long rows = r->dims[0], cols = r->ndims > 1 ? r->dims[1] : 1;
    long stride = cols + 3, n = rows * stride;
    HBuf loss = hb_new(DT_F32, rows), lse = hb_new(DT_F32, rows);
    HBuf gloss = hb_new(DT_F32, rows), grad = hb_new(DT_F32, n);
    double *rlse = malloc((size_t)rows * sizeof *rlse), *rgs = malloc((size_t)n * sizeof *rgs);
    for (long i = 0; i < rows; i++) {
        hb_set(&gloss, i, (double)(1 + i % 3) / (double)rows);   /* read back as stored */
        double mx = -INFINITY, sum = 0;
        for (long j = 0; j < cols; j++) mx = fmax(mx, ld[i * stride + j]);
        for (long j = 0; j < cols; j++) sum += exp(ld[i * stride + j] - mx);
        rlse[i] = mx + log(sum);
        for (long j = 0; j < stride; j++)
            rgs[i * stride + j] = rg[i * stride + j] * (double)rows * hb_get(&gloss, i);
    }
    XentTol t = xent_tol(cols, 3.0 / (double)rows);
    TileArg fwd[] = {hb_arg(&loss), hb_arg(&lse), hb_arg(logits), hb_arg(target),
                     tile_arg_int(rows), tile_arg_int(cols), tile_arg_int(stride)};
    TileArg bwd[] = {hb_arg(&grad), hb_arg(logits), hb_arg(target), hb_arg(&lse),
                     hb_arg(&gloss), tile_arg_int(rows), tile_arg_int(cols),
                     tile_arg_int(stride)};
    int fails = 1;
    printf("  split (cross_entropy_fwd, cross_entropy_bwd):\n");
    if (!h_run(r->prog, "cross_entropy_fwd", fwd, 7, r->config) &&
        !h_run(r->prog, "cross_entropy_bwd", bwd, 8, r->config)) {
        fails = check_close("loss", &loss, rl, NULL, t.lrtol, t.latol);
        fails += check_close("lse", &lse, rlse, NULL, t.lrtol, t.latol);
        fails += check_close("grad", &grad, rgs, written, t.grtol, t.gatol);
        fails += cross_entropy_dbias(r, logits, target, &lse, &gloss, rgs, written, t);
    }
    free(rlse); free(rgs);
    hb_free(&loss); hb_free(&lse); hb_free(&gloss); hb_free(&grad);
    return fails;
}

int run_cross_entropy(Run *r) {
    long rows = r->dims[0], cols = r->ndims > 1 ? r->dims[1] : 1;
    long stride = cols + 3, n = rows * stride;
    double scale = 1.0 / (double)rows;
    HBuf logits = hb_new(DT_F32, n), target = hb_new(DT_I32, rows);
    HBuf loss = hb_new(DT_F32, rows), grad = hb_new(DT_F32, n);
    double *ld = hb_fill_normal(&logits, &r->rng, 3.0);
    poison_padding(&logits, rows, cols, stride);
    for (long i = 0; i < rows; i++)
        hb_set(&target, i, i == 1 ? IGNORE_INDEX : (double)rng_below(&r->rng, cols));
    double *rl = malloc((size_t)rows * sizeof *rl), *rg = malloc((size_t)n * sizeof *rg);
    ref_cross_entropy(rl, rg, ld, (const int32_t *)target.data, rows, cols,
                      stride, scale, IGNORE_INDEX);
    uint8_t *written = row_mask(rows, cols, stride);
    const char *k = kernel_or(r, "cross_entropy");
    XentTol t = xent_tol(cols, scale);
    TileArg args[] = {hb_arg(&loss), hb_arg(&grad), hb_arg(&logits),
                      hb_arg(&target), tile_arg_int(rows), tile_arg_int(cols),
                      tile_arg_int(stride), tile_arg_float(scale)};
    int fails = 1;
    if (!h_run(r->prog, k, args, 8, r->config)) {
        fails = check_close("loss", &loss, rl, NULL, t.lrtol, t.latol);
        fails += check_close("grad", &grad, rg, written, t.grtol, t.gatol);
    }
    fails += cross_entropy_split(r, &logits, &target, ld, rl, rg, written);
    /* In place: the gradient overwrites the logits. */
    hb_poison(&loss);
    TileArg inplace[] = {hb_arg(&loss), hb_arg(&logits), hb_arg(&logits),
                         hb_arg(&target), tile_arg_int(rows),
                         tile_arg_int(cols), tile_arg_int(stride),
                         tile_arg_float(scale)};
    printf("  in place (grad = logits):\n");
    if (h_run(r->prog, k, inplace, 8, r->config)) {
        fails++;
    } else {
        fails += check_close("loss", &loss, rl, NULL, t.lrtol, t.latol);
        fails += check_close("grad", &logits, rg, written, t.grtol, t.gatol);
    }
    free(ld); free(rl); free(rg); free(written);
    hb_free(&logits); hb_free(&target); hb_free(&loss); hb_free(&grad);
    return fails;
}

/* --------------------------------------------------------------- stencil */

int run_stencil(Run *r) {
    long rows = r->dims[0], cols = r->ndims > 1 ? r->dims[1] : 1;
    long stride = cols + 3, n = rows * stride;
    const char *k = kernel_or(r, "heat2");
    int steps = !strcmp(k, "heat1") ? 1 : !strcmp(k, "jacobi") ? 0 : 2;
    float alpha = 0.2f;
    HBuf u = hb_new(DT_F32, n), out = hb_new(DT_F32, n);
    double *ud = hb_fill_uniform(&u, &r->rng, -1, 1);
    poison_padding(&u, rows, cols, stride);
    double *ref = malloc((size_t)n * sizeof *ref);
    if (steps)
        ref_heat(ref, ud, rows, cols, stride, alpha, steps);
    else
        ref_jacobi(ref, ud, rows, cols, stride, alpha);
    uint8_t *written = row_mask(rows, cols, stride);
    TileArg args[] = {hb_arg(&out), hb_arg(&u), tile_arg_int(rows),
                      tile_arg_int(cols), tile_arg_int(stride),
                      tile_arg_float(alpha)};
    int fails = 1;
    /* A handful of f32 operations on values below 1 in magnitude. */
    if (!h_run(r->prog, k, args, 6, r->config))
        fails = check_close("out", &out, ref, written, 1e-6, 1e-6 * (steps ? steps : 1));
    free(ud); free(ref); free(written);
    hb_free(&u); hb_free(&out);
    return fails;
}

/* --------------------------------------------------------------- dropout */

int run_dropout(Run *r) {
    long n = r->dims[0];
    static const float ps[] = {0.1f, 0.5f, 0.9f};
    int fails = 0;
    for (int pi = 0; pi < 3; pi++) {
        float p = ps[pi];
        int32_t seed = (int32_t)(uint32_t)rng_u64(&r->rng);
        HBuf x = hb_new(DT_F32, n), out = hb_new(DT_F32, n);
        double *xd = hb_fill_uniform(&x, &r->rng, 0.5, 2);
        double *ref = malloc((size_t)(n ? n : 1) * sizeof *ref);
        ref_dropout(ref, xd, p, seed, n);
        TileArg args[] = {hb_arg(&out), hb_arg(&x), tile_arg_float(p),
                          tile_arg_int(seed), tile_arg_int(n)};
        printf("  p = %.1f, seed %d:\n", p, (int)seed);
        if (h_run(r->prog, kernel_or(r, "dropout"), args, 5, r->config)) {
            fails++;
        } else {
            /* Dropped elements are exactly 0 and kept ones at least 0.5, so
             * a wrong keep/drop decision fails by far. */
            fails += check_close("out", &out, ref, NULL, 1e-6, 0);
            long kept = 0;
            for (long i = 0; i < n; i++)
                kept += hb_get(&out, i) != 0;
            if (n >= 1000) {
                double want = (1 - p) * (double)n;
                double sigma = sqrt((double)n * p * (1 - p));
                int ok = fabs((double)kept - want) <= 6 * sigma;
                printf("  kept %ld of %ld (expected %.0f +- %.0f): %s\n", kept,
                       n, want, 6 * sigma, ok ? "ok" : "FAIL");
                fails += !ok;
            }
            fails += same_across_configs(r, pi, "out", &out);
        }
        free(xd); free(ref);
        hb_free(&x); hb_free(&out);
    }
    return fails;
}

/* ------------------------------------------------------------- transpose */

int run_transpose(Run *r) {
    long rows = r->dims[0], cols = r->ndims > 1 ? r->dims[1] : 1;
    long x_stride = cols + 3, out_stride = rows + 5;
    HBuf x = hb_new(DT_F32, rows * x_stride), out = hb_new(DT_F32, cols * out_stride);
    double *xd = hb_fill_uniform(&x, &r->rng, -100, 100);
    poison_padding(&x, rows, cols, x_stride);
    double *ref = malloc((size_t)(cols * out_stride) * sizeof *ref);
    ref_transpose(ref, xd, rows, cols, x_stride, out_stride);
    uint8_t *written = row_mask(cols, rows, out_stride);
    TileArg args[] = {hb_arg(&out), hb_arg(&x), tile_arg_int(rows),
                      tile_arg_int(cols), tile_arg_int(x_stride),
                      tile_arg_int(out_stride)};
    int fails = 1;
    /* A copy: every element exact, the padding of out never written. */
    if (!h_run(r->prog, kernel_or(r, "transpose"), args, 6, r->config))
        fails = check_close("out", &out, ref, written, 0, 0);
    free(xd); free(ref); free(written);
    hb_free(&x); hb_free(&out);
    return fails;
}
