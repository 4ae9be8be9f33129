/*
 * run_mlp.c — numerics runner for the backward kernels of
 * examples/torch/mlp.tile that also write partial column sums by blocks
 * of rows (the training example's bias and layernorm-weight gradients):
 * layernorm_bwd (dx, dw_part, db_part) and gelu_bwd (dz, dbias_part). The
 * case's `kernel` line picks one; sizes are RxC. Each size runs with
 * several row_blocks — one block, blocks of uneven length, more blocks
 * than rows (empty ones, whose sums must be 0) — and every output, sums
 * included, is compared with a float64 reference computed here from the
 * inputs the kernel saw. Storage T is the case's dtype (define T=...).
 *
 * Tolerances: one rounding to T of each stored row value on top of the
 * f32 arithmetic; a partial sum of `per` f32 terms errs by f32_sum_rtol
 * of the sum of their magnitudes (the sums cancel, so the bound is
 * absolute, per unit of that magnitude).
 */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dx = rstd (g - mean(g) - xhat mean(g xhat)), g = dy w; dw_part, db_part:
 * block sums of dy xhat and dy. mean and rstd are the kernel's inputs,
 * from float64 statistics of x rounded to f32. */
static int mlp_layernorm_bwd(Run *r, long row_blocks) {
    long rows = r->dims[0], cols = r->dims[1], n = rows * cols, nb = row_blocks * cols;
    Dtype dt = r->c->dtype;
    HBuf dx = hb_new(dt, n), dwp = hb_new(DT_F32, nb), dbp = hb_new(DT_F32, nb);
    HBuf dy = hb_new(dt, n), x = hb_new(dt, n), w = hb_new(dt, cols);
    HBuf mean = hb_new(DT_F32, rows), rstd = hb_new(DT_F32, rows);
    double *dyd = hb_fill_normal(&dy, &r->rng, 1.0);
    double *xd = hb_fill_uniform(&x, &r->rng, 2, 4);
    double *wd = hb_fill_uniform(&w, &r->rng, 0.5, 1.5);
    double *ref = malloc((size_t)n * sizeof *ref), *xh = malloc((size_t)n * sizeof *xh);
    double *dyxh = malloc((size_t)n * sizeof *dyxh);
    double *rw = malloc((size_t)nb * sizeof *rw), *mw = malloc((size_t)nb * sizeof *mw);
    double *rb = malloc((size_t)nb * sizeof *rb), *mb = malloc((size_t)nb * sizeof *mb);
    double gmax = 0;
    for (long i = 0; i < rows; i++) {
        double s = 0, q = 0;
        for (long j = 0; j < cols; j++) s += xd[i * cols + j];
        for (long j = 0; j < cols; j++) q += pow(xd[i * cols + j] - s / (double)cols, 2);
        hb_set(&mean, i, s / (double)cols);
        hb_set(&rstd, i, 1 / sqrt(q / (double)cols + 1e-5));
        double mu = hb_get(&mean, i), rs = hb_get(&rstd, i), sg = 0, sgx = 0;
        for (long j = 0; j < cols; j++) {
            double g = dyd[i * cols + j] * wd[j];
            xh[i * cols + j] = (xd[i * cols + j] - mu) * rs;
            dyxh[i * cols + j] = dyd[i * cols + j] * xh[i * cols + j];
            sg += g;
            sgx += g * xh[i * cols + j];
            gmax = fmax(gmax, fabs(g) * rs);
        }
        for (long j = 0; j < cols; j++)
            ref[i * cols + j] = rs * (dyd[i * cols + j] * wd[j] - sg / (double)cols -
                                      xh[i * cols + j] * sgx / (double)cols);
    }
    block_sums(rw, mw, dyxh, rows, cols, cols, row_blocks);
    block_sums(rb, mb, dyd, rows, cols, cols, row_blocks);
    TileArg args[] = {hb_arg(&dx), hb_arg(&dwp), hb_arg(&dbp), hb_arg(&dy), hb_arg(&x),
                      hb_arg(&w), hb_arg(&mean), hb_arg(&rstd), tile_arg_int(rows),
                      tile_arg_int(cols), tile_arg_int(row_blocks)};
    int fails = 1;
    if (!h_run(r->prog, r->c->kernel, args, 11, r->config)) {
        /* dx: mean(g) and mean(g xhat) err by stat times the mean of their
         * terms' magnitudes (at most the largest g rstd, times rstd); one
         * rounding to T. */
        double stat = f32_sum_rtol(cols), u = dt_unit(dt);
        fails = check_close("dx", &dx, ref, NULL, u + 1e-6, 2 * stat * gmax + 1e-6);
        fails += check_sums("dw_part", &dwp, rw, mw, rows, cols, row_blocks,
                            f32_sum_rtol(rows), 1e-6);
        fails += check_sums("db_part", &dbp, rb, mb, rows, cols, row_blocks,
                            f32_sum_rtol(rows), 0);
    }
    free(dyd); free(xd); free(wd); free(ref); free(xh); free(dyxh);
    free(rw); free(mw); free(rb); free(mb);
    hb_free(&dx); hb_free(&dwp); hb_free(&dbp); hb_free(&dy); hb_free(&x);
    hb_free(&w); hb_free(&mean); hb_free(&rstd);
    return fails;
}

/* dz = dc (Phi(z) + z phi(z)); dbias_part: block sums of dz. */
static int mlp_gelu_bwd(Run *r, long row_blocks) {
    long rows = r->dims[0], cols = r->dims[1], n = rows * cols, nb = row_blocks * cols;
    Dtype dt = r->c->dtype;
    HBuf dz = hb_new(dt, n), dbp = hb_new(DT_F32, nb);
    HBuf dc = hb_new(dt, n), z = hb_new(dt, n);
    double *dcd = hb_fill_uniform(&dc, &r->rng, -4, 4);
    double *zd = hb_fill_uniform(&z, &r->rng, -8, 8);
    double *ref = malloc((size_t)n * sizeof *ref);
    double *rs = malloc((size_t)nb * sizeof *rs), *ms = malloc((size_t)nb * sizeof *ms);
    for (long i = 0; i < n; i++) {
        double v = zd[i];
        ref[i] = dcd[i] * (0.5 * (1 + erf(v / sqrt(2.0))) +
                           v * exp(-0.5 * v * v) / sqrt(2 * 3.141592653589793));
    }
    block_sums(rs, ms, ref, rows, cols, cols, row_blocks);
    TileArg args[] = {hb_arg(&dz), hb_arg(&dbp), hb_arg(&dc), hb_arg(&z),
                      tile_arg_int(rows), tile_arg_int(cols), tile_arg_int(row_blocks)};
    int fails = 1;
    /* erf and exp in f32: 1e-6 relative, 4e-6 absolute (as user gelu_bwd);
     * the sums add that per term to their own rounding. */
    if (!h_run(r->prog, r->c->kernel, args, 7, r->config)) {
        fails = check_close("dz", &dz, ref, NULL, dt_unit(dt) + 1e-6, 4e-6);
        fails += check_sums("dbias_part", &dbp, rs, ms, rows, cols, row_blocks,
                            f32_sum_rtol(rows) + 1e-6, 4e-6);
    }
    free(dcd); free(zd); free(ref); free(rs); free(ms);
    hb_free(&dz); hb_free(&dbp); hb_free(&dc); hb_free(&z);
    return fails;
}

int run_mlp(Run *r) {
    int (*fn)(Run *, long) = !strcmp(r->c->kernel, "layernorm_bwd") ? mlp_layernorm_bwd
                             : !strcmp(r->c->kernel, "gelu_bwd") ? mlp_gelu_bwd : NULL;
    if (!fn || r->ndims != 2) {
        fprintf(stderr, "error: mlp runs layernorm_bwd or gelu_bwd on RxC sizes\n");
        return 1;
    }
    int fails = 0;
    for (int which = 0; which < 3; which++) {
        long rb = row_blocks_of(r->dims[0], which);
        printf("  row_blocks %ld:\n", rb);
        fails += fn(r, rb);
    }
    return fails;
}
