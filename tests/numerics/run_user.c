/*
 * run_user.c — numerics runner for the user kernels of
 * tests/gpu/ops/user.tile (issue 17's seven, written as a Triton user
 * writes them): each runs in the interpreter on fresh random inputs and
 * every output is compared with a float64 reference computed here from
 * the inputs the kernel saw, so that a wrong formula — which difftest,
 * comparing the GPU with the interpreter on one source, cannot see —
 * fails. The case's `kernel` line picks the kernel; sizes are TxHxD
 * (rope), N (gelu_bwd), RxC (top1, add_rmsnorm, add_rmsnorm_8k,
 * quant_i8, row_cumsum) or MxNxK (swiglu). Tolerances: one rounding of
 * the output type (f16 2^-11, bf16 2^-8 relative) on top of the f32
 * arithmetic's own error, f32 sums as f32_sum_rtol says; int8 values are
 * exact except where x / scale lies within f32 rounding of a halfway
 * point, where the double quotient may round the other way.
 */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs the case's kernel; 0 on success. */
static int run_kernel(Run *r, TileArg *args, int nargs) {
    return h_run(r->prog, r->c->kernel, args, nargs, r->config);
}

/* RoPE in place on x [T, H, D] f16 with cos, sin [T, D/2] f32. */
static int user_rope(Run *r) {
    long t = r->dims[0], nh = r->dims[1], d = r->dims[2], half = d / 2;
    HBuf x = hb_new(DT_F16, t * nh * d), cs = hb_new(DT_F32, t * half);
    HBuf sn = hb_new(DT_F32, t * half);
    double *xd = hb_fill_uniform(&x, &r->rng, -4, 4);
    double *cd = hb_fill_uniform(&cs, &r->rng, -1, 1);
    double *sd = hb_fill_uniform(&sn, &r->rng, -1, 1);
    double *ref = malloc((size_t)x.n * sizeof *ref);
    for (long i = 0; i < t * nh; i++)
        for (long j = 0; j < half; j++) {
            double c = cd[i / nh * half + j], s = sd[i / nh * half + j];
            double x1 = xd[i * d + j], x2 = xd[i * d + half + j];
            ref[i * d + j] = x1 * c - x2 * s;
            ref[i * d + half + j] = x2 * c + x1 * s;
        }
    TileArg args[] = {hb_arg(&x), hb_arg(&cs), hb_arg(&sn), tile_arg_int(t),
                      tile_arg_int(nh), tile_arg_int(d)};
    int fails = run_kernel(r, args, 6) ? 1
                : check_close("x (rotated)", &x, ref, NULL, 0x1p-11 + 1e-6, 1e-6);
    free(xd); free(cd); free(sd); free(ref);
    hb_free(&x); hb_free(&cs); hb_free(&sn);
    return fails;
}

/* dx = dy * (Phi(x) + x phi(x)). */
static int user_gelu_bwd(Run *r) {
    long n = r->dims[0];
    HBuf dx = hb_new(DT_F32, n), dy = hb_new(DT_F32, n), x = hb_new(DT_F32, n);
    double *dyd = hb_fill_uniform(&dy, &r->rng, -4, 4);
    double *xd = hb_fill_uniform(&x, &r->rng, -8, 8);
    double *ref = malloc((size_t)n * sizeof *ref);
    for (long i = 0; i < n; i++) {
        double v = xd[i];
        ref[i] = dyd[i] * (0.5 * (1 + erf(v / sqrt(2.0))) +
                           v * exp(-0.5 * v * v) / sqrt(2 * 3.141592653589793));
    }
    TileArg args[] = {hb_arg(&dx), hb_arg(&dy), hb_arg(&x), tile_arg_int(n)};
    int fails = run_kernel(r, args, 4) ? 1 : check_close("dx", &dx, ref, NULL, 1e-6, 4e-6);
    free(dyd); free(xd); free(ref);
    hb_free(&dx); hb_free(&dy); hb_free(&x);
    return fails;
}

/* Per row: max of log_softmax (-log sum exp(x - max)) and argmax. */
static int user_top1(Run *r) {
    long rows = r->dims[0], cols = r->dims[1];
    HBuf val = hb_new(DT_F32, rows), idx = hb_new(DT_I32, rows);
    HBuf x = hb_new(DT_F32, rows * cols);
    double *xd = hb_fill_uniform(&x, &r->rng, -20, 20);
    double *rv = malloc((size_t)rows * sizeof *rv), *ri = malloc((size_t)rows * sizeof *ri);
    for (long i = 0; i < rows; i++) {
        const double *v = xd + i * cols;
        long k = 0;
        for (long j = 1; j < cols; j++)
            if (v[j] > v[k]) k = j;
        double s = 0;
        for (long j = 0; j < cols; j++)
            s += exp(v[j] - v[k]);
        rv[i] = -log(s);
        ri[i] = (double)k;
    }
    TileArg args[] = {hb_arg(&val), hb_arg(&idx), hb_arg(&x), tile_arg_int(rows),
                      tile_arg_int(cols)};
    int fails = 1;
    if (!run_kernel(r, args, 5))
        fails = check_close("value", &val, rv, NULL, f32_sum_rtol(cols), 1e-6) +
                check_close("index", &idx, ri, NULL, 0, 0);
    free(xd); free(rv); free(ri);
    hb_free(&val); hb_free(&idx); hb_free(&x);
    return fails;
}

/* h = x + res (bf16, rounded through f32 as the kernel does), y = h /
 * sqrt(mean(h^2) + eps) * w; both RMSNorm kernels share the signature. */
static int user_rmsnorm(Run *r) {
    long rows = r->dims[0], cols = r->dims[1], n = rows * cols;
    const double eps = 1e-6;
    HBuf y = hb_new(DT_BF16, n), h = hb_new(DT_BF16, n), x = hb_new(DT_BF16, n);
    HBuf res = hb_new(DT_BF16, n), w = hb_new(DT_BF16, cols);
    double *xd = hb_fill_uniform(&x, &r->rng, -4, 4);
    double *rd = hb_fill_uniform(&res, &r->rng, -4, 4);
    double *wd = hb_fill_uniform(&w, &r->rng, -2, 2);
    double *rh = malloc((size_t)n * sizeof *rh), *ry = malloc((size_t)n * sizeof *ry);
    HBuf hr = hb_new(DT_BF16, n);
    for (long i = 0; i < rows; i++) {
        double ss = 0;
        for (long j = 0; j < cols; j++) {
            double v = (float)(xd[i * cols + j] + rd[i * cols + j]);
            hb_set(&hr, i * cols + j, v);
            ss += v * v;
        }
        double rstd = 1 / sqrt(ss / (double)cols + eps);
        for (long j = 0; j < cols; j++) {
            double v = (float)(xd[i * cols + j] + rd[i * cols + j]);
            rh[i * cols + j] = hb_get(&hr, i * cols + j);
            ry[i * cols + j] = v * rstd * wd[j];
        }
    }
    TileArg args[] = {hb_arg(&y), hb_arg(&h), hb_arg(&x), hb_arg(&res), hb_arg(&w),
                      tile_arg_int(rows), tile_arg_int(cols), tile_arg_float(eps)};
    int fails = 1;
    if (!run_kernel(r, args, 8))
        fails = check_close("h", &h, rh, NULL, 0, 0) +
                check_close("y", &y, ry, NULL, 0x1p-8 + f32_sum_rtol(cols), 1e-6);
    free(xd); free(rd); free(wd); free(rh); free(ry);
    hb_free(&y); hb_free(&h); hb_free(&x); hb_free(&res); hb_free(&w); hb_free(&hr);
    return fails;
}

/* out = silu(x @ w1) * (x @ w2), x [M, K], w1 and w2 [K, N], f16. */
static int user_swiglu(Run *r) {
    long m = r->dims[0], n = r->dims[1], k = r->dims[2];
    HBuf out = hb_new(DT_F16, m * n), x = hb_new(DT_F16, m * k);
    HBuf w1 = hb_new(DT_F16, k * n), w2 = hb_new(DT_F16, k * n);
    double *xd = hb_fill_uniform(&x, &r->rng, -1, 1);
    double *ad = hb_fill_uniform(&w1, &r->rng, -1, 1);
    double *bd = hb_fill_uniform(&w2, &r->rng, -1, 1);
    double *ref = malloc((size_t)(m * n) * sizeof *ref);
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++) {
            double a = 0, b = 0;
            for (long l = 0; l < k; l++) {
                a += xd[i * k + l] * ad[l * n + j];
                b += xd[i * k + l] * bd[l * n + j];
            }
            ref[i * n + j] = a / (1 + exp(-a)) * b;
        }
    TileArg args[] = {hb_arg(&out), hb_arg(&x), hb_arg(&w1), hb_arg(&w2),
                      tile_arg_int(m), tile_arg_int(n), tile_arg_int(k)};
    int fails = run_kernel(r, args, 7)
                    ? 1 : check_close("out", &out, ref, NULL, 0x1p-11 + 5e-5, 2e-4);
    free(xd); free(ad); free(bd); free(ref);
    hb_free(&out); hb_free(&x); hb_free(&w1); hb_free(&w2);
    return fails;
}

/* q[j] against round(x[j] / scale) (halves away from zero) in double with
 * the kernel's f32 scale: exact, or one off where the quotient is within
 * f32 rounding of a halfway point. Returns failures. */
static int check_quant(const HBuf *q, const double *xd, const HBuf *scale, long cols) {
    int fails = 0;
    for (long i = 0; i < q->n; i++) {
        double qd = xd[i] / hb_get(scale, i / cols), want = fmin(fmax(round(qd), -127), 127);
        double got = hb_get(q, i);
        int halfway = fabs(fabs(qd - trunc(qd)) - 0.5) <= 0x1p-22 * fabs(qd);
        if (got != want && !(halfway && fabs(got - want) == 1) && fails++ < 6)
            fprintf(stderr, "  q[%ld]: %g, want %g (x %.9g)\n", i, got, want, xd[i]);
    }
    printf("  %-8s %8ld elements  %s\n", "q", q->n, fails ? "FAIL" : "ok");
    return fails;
}

/* scale = absmax / 127 per row, q = clamp(round(x / scale), -127, 127). */
static int user_quant(Run *r) {
    long rows = r->dims[0], cols = r->dims[1];
    HBuf q = hb_new(DT_I8, rows * cols), scale = hb_new(DT_F32, rows);
    HBuf x = hb_new(DT_F32, rows * cols);
    double *xd = hb_fill_uniform(&x, &r->rng, -3, 3);
    double *rs = malloc((size_t)rows * sizeof *rs);
    for (long i = 0; i < rows; i++) {
        double a = 0;
        for (long j = 0; j < cols; j++)
            a = fmax(a, fabs(xd[i * cols + j]));
        rs[i] = a / 127;
    }
    TileArg args[] = {hb_arg(&q), hb_arg(&scale), hb_arg(&x), tile_arg_int(rows),
                      tile_arg_int(cols)};
    int fails = 1;
    if (!run_kernel(r, args, 5))
        fails = check_close("scale", &scale, rs, NULL, 0x1p-23, 0) +
                check_quant(&q, xd, &scale, cols);
    free(xd); free(rs);
    hb_free(&q); hb_free(&scale); hb_free(&x);
    return fails;
}

/* Inclusive prefix sums of each row; element j of a row is allowed
 * f32_sum_rtol(j + 1) of the sum of |x| up to it. */
static int user_cumsum(Run *r) {
    long rows = r->dims[0], cols = r->dims[1], n = rows * cols;
    HBuf out = hb_new(DT_F32, n), x = hb_new(DT_F32, n);
    double *xd = hb_fill_uniform(&x, &r->rng, -2, 2);
    TileArg args[] = {hb_arg(&out), hb_arg(&x), tile_arg_int(rows), tile_arg_int(cols)};
    int fails = 0;
    if (run_kernel(r, args, 4)) {
        fails = 1;
    } else {
        for (long i = 0; i < rows; i++) {
            double s = 0, abs_s = 0;
            for (long j = 0; j < cols; j++) {
                s += xd[i * cols + j];
                abs_s += fabs(xd[i * cols + j]);
                double got = hb_get(&out, i * cols + j);
                if (!(fabs(got - s) <= f32_sum_rtol(j + 1) * abs_s) && fails++ < 6)
                    fprintf(stderr, "  out[%ld][%ld]: %.9g, want %.9g\n", i, j, got, s);
            }
        }
        printf("  %-8s %8ld elements  %s\n", "cumsum", n, fails ? "FAIL" : "ok");
    }
    free(xd);
    hb_free(&out); hb_free(&x);
    return fails;
}

int run_user(Run *r) {
    static const struct { const char *kernel; Runner fn; int ndims; } users[] = {
        {"rope", user_rope, 3},           {"gelu_bwd", user_gelu_bwd, 1},
        {"top1", user_top1, 2},           {"add_rmsnorm", user_rmsnorm, 2},
        {"add_rmsnorm_8k", user_rmsnorm, 2}, {"swiglu", user_swiglu, 3},
        {"quant_i8", user_quant, 2},      {"row_cumsum", user_cumsum, 2},
    };
    for (size_t i = 0; i < sizeof users / sizeof *users; i++)
        if (!strcmp(r->c->kernel, users[i].kernel)) {
            if (r->ndims != users[i].ndims) {
                fprintf(stderr, "error: %s takes sizes of %d dimensions\n",
                        users[i].kernel, users[i].ndims);
                return 1;
            }
            return users[i].fn(r);
        }
    fprintf(stderr, "error: no user kernel '%s'\n", r->c->kernel);
    return 1;
}
