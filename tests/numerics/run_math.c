/*
 * run_math.c — numerics runner for the builtin math functions that
 * tests/numerics/kernels/builtin_math.tile applies: round (half away from
 * zero), rint (half to even), trunc, isnan, isinf and bitcast must be
 * exact — the same value and the same sign of zero as C's functions on
 * the input, every NaN a NaN, bitcast the input's exact bits — and tan and
 * atan2 correctly rounded up to one unit of the type (the interpreter
 * computes them in double and rounds once). Inputs: the halfway cases
 * (+-0.5, +-1.5, +-2.5, ...), signed zeros, infinities, NaN, the largest
 * values and those around the binade where the last fraction bit is 1/2,
 * then multiples of 1/4 and values spread over many magnitudes.
 */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NOUT = 7 };

/* Input i: a special value, a multiple of 1/4, or any magnitude. */
static double math_input(Run *r, Dtype dt, long i) {
    static const double special[] = {0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.0,
                                     -0.0, INFINITY, -INFINITY, NAN, 3.75,
                                     -0.49999997, 0.49999997};
    long ns = (long)(sizeof special / sizeof *special);
    if (i < ns) return special[i];
    /* 2^(mantissa bits - 1) + 1/2: the last binade with halves */
    double edge = dt == DT_F32 ? 8388607.5 : dt == DT_F16 ? 1023.5 : 127.5;
    if (i == ns) return edge;
    if (i == ns + 1) return -edge;
    if (i == ns + 2) return dt_max(dt);
    if (i % 2) return (double)(rng_below(&r->rng, 4001) - 2000) / 4;
    double mag = pow(2, rng_uniform(&r->rng, -10, dt == DT_F32 ? 30 : 12));
    return rng_u64(&r->rng) & 1 ? -mag : mag;
}

/* got equals want exactly: both NaN, or equal with the same sign. */
static int same(double got, double want) {
    if (isnan(want)) return isnan(got);
    return got == want && signbit(got) == signbit(want);
}

static double classify(double x) { return isnan(x) ? 1 : isinf(x) ? 2 : 0; }

/* The reference of output f at input x (y: atan2's second argument). */
static double math_ref(int f, double x, double y) {
    switch (f) {
    case 0: return round(x);
    case 1: return nearbyint(x);
    case 2: return trunc(x);
    case 3: return tan(x);
    case 4: return atan2(x, y);
    case 5: return classify(x);
    default: return x;
    }
}

static const char *const math_names[NOUT] = {"round", "rint", "trunc", "tan",
                                             "atan2", "class", "bitcast2"};

/* Output f against its reference: exact, or within one ulp (tan, atan2). */
static int check_math(int f, const HBuf *got, const double *x, const double *y) {
    Dtype dt = got->dt;
    HBuf want = hb_new(dt, got->n);
    int fails = 0;
    for (long i = 0; i < got->n; i++) {
        hb_set(&want, i, math_ref(f, x[i], y[i]));
        double g = hb_get(got, i), w = hb_get(&want, i);
        int ok = f == 3 || f == 4
                     ? same(g, w) || fabs(g - w) <= 2 * dt_unit(dt) * fabs(w)
                     : same(g, w);
        if (!ok && fails++ < 6)
            fprintf(stderr, "  %s[%ld]: %s(%.9g) = %.9g, want %.9g\n",
                    math_names[f], i, math_names[f], x[i], g, w);
    }
    printf("  %-8s %8ld elements  %s\n", math_names[f], got->n, fails ? "FAIL" : "ok");
    hb_free(&want);
    return fails;
}

/* bits[i] must be x[i]'s bits, sign-extended from the type's width. */
static int check_bits(const HBuf *x, const HBuf *bits) {
    int fails = 0, w = (int)dt_size(x->dt) * 8;
    for (long i = 0; i < x->n; i++) {
        uint32_t raw = 0;
        memcpy(&raw, (char *)x->data + (size_t)i * dt_size(x->dt), dt_size(x->dt));
        int64_t want = w == 32 ? (int32_t)raw : (int16_t)(uint16_t)raw;
        int32_t got;
        memcpy(&got, (char *)bits->data + (size_t)i * 4, 4);
        if (got != want && fails++ < 6)
            fprintf(stderr, "  bits[%ld]: got %#x, want %#x\n", i, (unsigned)got,
                    (unsigned)want);
    }
    printf("  %-8s %8ld elements  %s\n", "bitcast", x->n, fails ? "FAIL" : "ok");
    return fails;
}

int run_builtin_math(Run *r) {
    long n = r->dims[0];
    Dtype dt = r->c->dtype;
    HBuf x = hb_new(dt, n), y = hb_new(dt, n), out = hb_new(dt, n * NOUT);
    HBuf bits = hb_new(DT_I32, n);
    for (long i = 0; i < n; i++) {
        hb_set(&x, i, math_input(r, dt, i));
        hb_set(&y, i, math_input(r, dt, (i * 7 + 3) % n));
    }
    double *xd = hb_to_double(&x), *yd = hb_to_double(&y);
    TileArg args[] = {hb_arg(&out), hb_arg(&bits), hb_arg(&x), hb_arg(&y),
                      tile_arg_int(n)};
    int fails = 0;
    if (h_run(r->prog, "builtin_math", args, 5, r->config)) {
        fails = 1;
    } else {
        for (int f = 0; f < NOUT; f++) {
            HBuf part = {dt, n, (char *)out.data + (size_t)(f * n) * dt_size(dt)};
            fails += check_math(f, &part, xd, yd);
        }
        fails += check_bits(&x, &bits);
    }
    free(xd); free(yd);
    hb_free(&x); hb_free(&y); hb_free(&out); hb_free(&bits);
    return fails;
}
