/*
 * run_libdevice.c — numerics runner for `libdevice("name", x[, y])`
 * (tests/numerics/kernels/libdevice_math.tile). The interpreter promises
 * the host C library's function of that name computed in double and
 * rounded once to f32 or f64; f16 and bf16 operands are widened to f32
 * and the f32 result rounded to the type (the GPU's path through
 * __nv_<name>f). So each output must equal, exactly (NaN for NaN, the
 * sign of zero included), the reference below: the libm function written
 * out here by name, independently of the compiler's table, with
 * nextafter taken in float below f64 (its step depends on the format).
 * exp10, which C lacks, is pow(10, x): glibc's own exp10 (a GNU
 * extension) is the less accurate of the two, measured here in f64 at
 * up to 4 units of 2^-53 relative (x = 62.6), and exp10(-1) =
 * 0.09999999999999999 where pow gives 0.1.
 * Inputs: zeros, +-1, +-0.5, infinities, NaN, then values over many
 * magnitudes of both signs, so that domain edges (acos(2), log of a
 * negative, lgamma at poles) are covered too.
 */
#define _XOPEN_SOURCE 700   /* j0, j1, y0, y1 */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double pow10_x(double x) { return pow(10, x); }

typedef struct {
    const char *name;
    double (*f1)(double);
    double (*f2)(double, double);
} RefFn;

#define ONE(f) {#f, f, NULL}
#define TWO(f) {#f, NULL, f}
/* The kernel's order. */
static const RefFn refs[] = {
    ONE(acos), ONE(acosh), ONE(asin), ONE(asinh), ONE(atan), ONE(atanh),
    ONE(cbrt), ONE(cosh), ONE(erfc), {"exp10", pow10_x, NULL}, ONE(expm1),
    ONE(j0), ONE(j1), ONE(lgamma), ONE(log10), ONE(log1p), ONE(log2), ONE(logb),
    ONE(sinh), ONE(tgamma), ONE(y0), ONE(y1), TWO(atan2), TWO(copysign),
    TWO(fdim), TWO(fmod), TWO(hypot), TWO(nextafter), TWO(remainder),
};
#undef ONE
#undef TWO
enum { NFN = sizeof refs / sizeof *refs };

static double ld_input(Run *r, long i) {
    static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5,
                                     INFINITY, -INFINITY, NAN, 2.0, -3.0};
    long ns = (long)(sizeof special / sizeof *special);
    if (i < ns) return special[i];
    double mag = pow(2, rng_uniform(&r->rng, -8, 7));
    return rng_u64(&r->rng) & 1 ? -mag : mag;
}

/* The reference of function f at (x, y), before rounding to dt. */
static double ld_ref(const RefFn *f, Dtype dt, double x, double y) {
    if (f->f1) return dt == DT_F64 ? f->f1(x) : (float)f->f1(x);
    if (dt != DT_F64 && f->f2 == nextafter)
        return nextafterf((float)x, (float)y);
    return dt == DT_F64 ? f->f2(x, y) : (float)f->f2(x, y);
}

static int ld_ok(double g, double w) {
    if (isnan(w)) return isnan(g);
    return g == w && signbit(g) == signbit(w);
}

static int check_fn(const RefFn *f, const HBuf *got, const double *x,
                    const double *y) {
    HBuf want = hb_new(got->dt, got->n);
    int fails = 0;
    for (long i = 0; i < got->n; i++) {
        hb_set(&want, i, ld_ref(f, got->dt, x[i], y[i]));
        double g = hb_get(got, i), w = hb_get(&want, i);
        if (!ld_ok(g, w) && fails++ < 6)
            fprintf(stderr, "  %s(%.17g, %.17g) = %.17g, want %.17g\n", f->name,
                    x[i], y[i], g, w);
    }
    printf("  %-9s %8ld elements  %s\n", f->name, got->n, fails ? "FAIL" : "ok");
    hb_free(&want);
    return fails;
}

int run_libdevice_math(Run *r) {
    long n = r->dims[0];
    Dtype dt = r->c->dtype;
    HBuf x = hb_new(dt, n), y = hb_new(dt, n), out = hb_new(dt, n * NFN);
    for (long i = 0; i < n; i++) {
        hb_set(&x, i, ld_input(r, i));
        hb_set(&y, i, ld_input(r, (i * 7 + 3) % n));
    }
    double *xd = hb_to_double(&x), *yd = hb_to_double(&y);
    TileArg args[] = {hb_arg(&out), hb_arg(&x), hb_arg(&y), tile_arg_int(n)};
    int fails = 0;
    if (h_run(r->prog, "libdevice_math", args, 4, r->config)) {
        fails = 1;
    } else {
        for (int f = 0; f < NFN; f++) {
            HBuf part = {dt, n, (char *)out.data + (size_t)(f * n) * dt_size(dt)};
            fails += check_fn(&refs[f], &part, xd, yd);
        }
    }
    free(xd); free(yd);
    hb_free(&x); hb_free(&y); hb_free(&out);
    return fails;
}
