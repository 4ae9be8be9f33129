/*
 * run_stdlib.c — numerics runners for the standard library, through the
 * test kernels in tests/numerics/kernels/.
 *
 * std/math: every function against its double-precision definition
 * (examples/ref/math.c) on inputs spread log-uniformly over many orders of
 * magnitude, both signs, plus values where naive formulas break.
 * std/gelu: gelu alone on a dense grid (every f16 and bf16 value), with
 * error bounds on Phi and on the relative error and the special values.
 * std/grid: the grouped program order against Triton's formula, and a
 * bijection onto the tiles, for every small grid and group.
 * std/random: Philox words bit-exact against examples/ref/random.c, which
 * is itself checked against the Random123 known-answer vectors; rand
 * bit-exact and inside [0, 1); randn close to the double-precision
 * Box-Muller of the same uniforms; rough moments; identical streams in
 * every configuration.
 */
#include "harness.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/ref/ref.h"

/* -------------------------------------------------------------- std/math */

typedef struct MathFn {
    const char *name;
    double (*ref)(double);
    double rtol, atol;      /* for f32; f16 uses one looser pair */
} MathFn;

static double leaky(double x) { return ref_leaky_relu(x, (double)0.01f); }
static double elu1(double x) { return ref_elu(x, 1.0); }
static double log1p_abs(double x) { return ref_log1p(fabs(x)); }

/* In the order the test kernel stores them. FLT_MIN as the absolute
 * tolerance accepts f32's flush of results below the normal range;
 * gelu_tanh cancels in 1 + tanh for negative x by construction; gelu's
 * relative error grows to ~1e-4 around |gelu| ~ 1e-8 (run_std_gelu
 * below bounds it), which 1e-10 absolute covers. */
static const MathFn math_fns[] = {
    {"sigmoid", ref_sigmoid, 1e-5, FLT_MIN},
    {"silu", ref_silu, 1e-5, FLT_MIN},
    {"gelu", ref_gelu, 1e-5, 1e-10},
    {"gelu_tanh", ref_gelu_tanh, 1e-5, 1e-6},
    {"softplus", ref_softplus, 1e-5, FLT_MIN},
    {"relu", ref_relu, 0, 0},
    {"leaky", leaky, 1e-6, FLT_MIN},
    {"elu", elu1, 1e-5, FLT_MIN},
    {"mish", ref_mish, 1e-5, FLT_MIN},
    {"hsigmoid", ref_hardsigmoid, 1e-6, FLT_MIN},
    {"hswish", ref_hardswish, 1e-6, FLT_MIN},
    {"log1p", log1p_abs, 1e-5, FLT_MIN},
    {"expm1", ref_expm1, 1e-5, FLT_MIN},
};
enum { NMATH = sizeof math_fns / sizeof *math_fns };

int run_std_math(Run *r) {
    long n = r->dims[0];
    Dtype dt = r->c->dtype;
    /* f16 tops out at 65504 (expm1(11) ~ 6e4) and is normal from 6e-5. */
    double lo = dt == DT_F32 ? -7 : -3, hi = dt == DT_F32 ? log10(30) : log10(8);
    static const double special[] = {0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 8.0,
                                     -8.0, 30.0, -30.0, 100.0, -100.0};
    HBuf x = hb_new(dt, n), out = hb_new(dt, n * NMATH);
    for (long i = 0; i < n; i++) {
        long ns = dt == DT_F32 ? 12 : 8;
        double v = i < ns ? special[i]
                          : pow(10, rng_uniform(&r->rng, lo, hi)) *
                                (rng_u64(&r->rng) & 1 ? -1 : 1);
        hb_set(&x, i, v);
    }
    double *xd = hb_to_double(&x);
    TileArg args[] = {hb_arg(&out), hb_arg(&x), tile_arg_int(n)};
    if (h_run(r->prog, "std_math", args, 3, r->config)) {
        free(xd); hb_free(&x); hb_free(&out);
        return 1;
    }
    int fails = 0;
    double *ref = malloc((size_t)(n ? n : 1) * sizeof *ref);
    for (int f = 0; f < NMATH; f++) {
        HBuf part = {dt, n, (char *)out.data + (size_t)(f * n) * dt_size(dt)};
        for (long i = 0; i < n; i++)
            ref[i] = math_fns[f].ref(xd[i]);
        /* f16: every operation rounds to 11 bits, and gelu_tanh's
         * cancellation costs absolute accuracy of about |x| * 2^-11 (gelu
         * computes in f32 and rounds once). */
        double rtol = dt == DT_F32 ? math_fns[f].rtol : 8 * dt_unit(dt);
        double atol = dt == DT_F32 ? math_fns[f].atol : 1e-3;
        fails += check_close(math_fns[f].name, &part, ref, NULL, rtol, atol);
    }
    free(ref); free(xd);
    hb_free(&x); hb_free(&out);
    return fails;
}

/* -------------------------------------------------------------- std/gelu */

/* std/math's gelu (a polynomial for log2 Phi, stdlib/tools/fit_gelu.py)
 * against x Phi(x) in double, on a dense grid: every step of 1/size over
 * [-16, 16] for f32 and f64 (`size` in the case file), every one of the
 * 65536 values for f16 and bf16 (computed in f32 by gelu; the output is
 * f32), plus special values. Bounds (fit_gelu.py measures 1.0e-7, 4.8e-6
 * and 2.2e-4 for the interpreter):
 *  - |gelu(x) / x - Phi(x)| <= 1.5e-7 (PyTorch's f32 formula: ~1e-7);
 *  - relative error <= 1e-5 where |gelu(x)| >= 1e-6 and <= 5e-4 where
 *    |gelu(x)| >= 1e-10 (1 + erf in f32 has lost every digit there);
 *  - gelu(x) = x exactly for x >= 12 and |gelu(x)| <= 1e-30 for x <= -12,
 *    gelu(+inf) = +inf, gelu(-inf) ~ 0, gelu(NaN) = NaN, gelu(0) = 0;
 *    below |gelu| = 2^-100, the first bound or 2^-147 (f32 subnormals). */
enum { GELU_SPECIALS = 20 };

static const double gelu_specials[GELU_SPECIALS] = {
    INFINITY, -INFINITY, NAN, 0.0, -0.0, 100.0, -100.0, 12.0, -12.0,
    11.99, -11.99, 1e30, -1e30, 1e-30, -1e-30, 1e-40, -1e-40, 3.4e38,
    -3.4e38, -5.5};

typedef struct GeluErr {
    double phi, rel6, rel10;     /* max |dPhi|, rel. error over two floors */
    long bad;
} GeluErr;

static int gelu_bad(GeluErr *e, long i, double x, double g, const char *why) {
    if (e->bad++ < 8)
        fprintf(stderr, "  gelu[%ld]: gelu(%.9g) = %.9g: %s\n", i, x, g, why);
    return 1;
}

static void gelu_check(GeluErr *e, long i, double x, double g) {
    if (isnan(x)) {
        if (!isnan(g)) gelu_bad(e, i, x, g, "want NaN");
        return;
    }
    if (isinf(x) && x > 0) {
        if (g != x) gelu_bad(e, i, x, g, "want +inf");
        return;
    }
    if (x <= -12) {
        if (!(fabs(g) <= 1e-30)) gelu_bad(e, i, x, g, "want |gelu| <= 1e-30");
        return;
    }
    if (x >= 12 || x == 0) {
        if (g != x) gelu_bad(e, i, x, g, "want x exactly");
        return;
    }
    double phi = 0.5 * erfc(-x / sqrt(2.0)), ref = x * phi;
    double dphi = fabs(g / x - phi), rel = fabs(g - ref) / fabs(ref);
    if (fabs(ref) < 0x1p-100) {         /* f32 results may be subnormal */
        if (!(dphi <= 1.5e-7 || fabs(g - ref) <= 0x1p-147))
            gelu_bad(e, i, x, g, "|gelu - x Phi| > max(1.5e-7 |x|, 2^-147)");
        return;
    }
    if (!(dphi <= 1.5e-7)) gelu_bad(e, i, x, g, "|gelu / x - Phi| > 1.5e-7");
    if (fabs(ref) >= 1e-6 && !(rel <= 1e-5))
        gelu_bad(e, i, x, g, "relative error > 1e-5");
    if (fabs(ref) >= 1e-10 && !(rel <= 5e-4))
        gelu_bad(e, i, x, g, "relative error > 5e-4");
    e->phi = fmax(e->phi, dphi);
    if (fabs(ref) >= 1e-6) e->rel6 = fmax(e->rel6, rel);
    if (fabs(ref) >= 1e-10) e->rel10 = fmax(e->rel10, rel);
}

int run_std_gelu(Run *r) {
    Dtype dt = r->c->dtype, ot = dt == DT_F64 ? DT_F64 : DT_F32;
    int narrow = dt == DT_F16 || dt == DT_BF16;
    long steps = r->dims[0], grid = narrow ? 65536 : 32 * steps + 1;
    long n = GELU_SPECIALS + grid;
    HBuf x = hb_new(dt, n), out = hb_new(ot, n);
    for (long i = 0; i < GELU_SPECIALS; i++)
        hb_set(&x, i, gelu_specials[i]);
    for (long i = 0; i < grid; i++) {
        if (narrow)
            ((uint16_t *)x.data)[GELU_SPECIALS + i] = (uint16_t)i;
        else
            hb_set(&x, GELU_SPECIALS + i, -16.0 + (double)i / (double)steps);
    }
    TileArg args[] = {hb_arg(&out), hb_arg(&x), tile_arg_int(n)};
    int fails = 1;
    if (!h_run(r->prog, "std_gelu", args, 3, r->config)) {
        GeluErr e = {0};
        for (long i = 0; i < n; i++)
            gelu_check(&e, i, hb_get(&x, i), hb_get(&out, i));
        printf("  gelu %s: %ld values  max |gelu/x - Phi| %.3g  max rel %.3g "
               "(|gelu| >= 1e-6), %.3g (>= 1e-10)  %s\n", dt_name(dt), n, e.phi,
               e.rel6, e.rel10, e.bad ? "FAIL" : "ok");
        fails = e.bad != 0;
    }
    hb_free(&x);
    hb_free(&out);
    return fails;
}

/* ------------------------------------------------------------ std/random */

/* Known answers for Philox-4x32-10 from Random123's kat_vectors:
 * counter, key (k0, k1), output. */
static const uint32_t philox_kat[3][10] = {
    {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
    {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
     0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
    {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
     0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
};

static int64_t kat_seed(const uint32_t *v) {
    return (int64_t)(((uint64_t)v[5] << 32) | v[4]);
}

/* The C reference against the published vectors, then the Tile philox on
 * the same counters and keys. */
static int check_philox_kat(Run *r) {
    int bad_c = 0, bad_tile = 0;
    for (int k = 0; k < 3; k++) {
        uint32_t out[4];
        ref_philox4x32_10(philox_kat[k], philox_kat[k][4], philox_kat[k][5],
                          out);
        bad_c += memcmp(out, philox_kat[k] + 6, sizeof out) != 0;
        HBuf ctr = hb_new(DT_U32, 4), words = hb_new(DT_U32, 4);
        memcpy(ctr.data, philox_kat[k], 16);
        TileArg args[] = {hb_arg(&words), hb_arg(&ctr),
                          tile_arg_int(kat_seed(philox_kat[k])),
                          tile_arg_int(1)};
        if (h_run(r->prog, "philox_words", args, 4, NULL) ||
            memcmp(words.data, philox_kat[k] + 6, 16)) {
            bad_tile++;
            fprintf(stderr, "  philox KAT %d: got %08x %08x %08x %08x\n", k,
                    ((uint32_t *)words.data)[0], ((uint32_t *)words.data)[1],
                    ((uint32_t *)words.data)[2], ((uint32_t *)words.data)[3]);
        }
        hb_free(&ctr);
        hb_free(&words);
    }
    printf("  C Philox-4x32-10 vs Random123 known answers: %s\n",
           bad_c ? "FAIL" : "ok");
    printf("  std/random philox vs Random123 known answers: %s\n",
           bad_tile ? "FAIL" : "ok");
    return bad_c + bad_tile;
}

/* philox(seed, c0..c3, w) on n random 4-word counters. */
static int check_philox_counters(Run *r, long n, int64_t seed) {
    HBuf ctr = hb_new(DT_U32, 4 * n), words = hb_new(DT_U32, 4 * n);
    uint32_t *c = ctr.data;
    for (long i = 0; i < 4 * n; i++)
        c[i] = (uint32_t)rng_u64(&r->rng);
    TileArg args[] = {hb_arg(&words), hb_arg(&ctr), tile_arg_int(seed),
                      tile_arg_int(n)};
    if (h_run(r->prog, "philox_words", args, 4, NULL)) {
        hb_free(&ctr); hb_free(&words);
        return 1;
    }
    uint32_t k0, k1;
    ref_philox_key(seed, &k0, &k1);
    long bad = 0;
    for (long i = 0; i < n; i++) {
        uint32_t in[4] = {c[i], c[n + i], c[2 * n + i], c[3 * n + i]}, o[4];
        ref_philox4x32_10(in, k0, k1, o);
        for (int w = 0; w < 4; w++)
            bad += ((uint32_t *)words.data)[w * n + i] != o[w];
    }
    printf("  philox on %ld random counters: %ld words differ: %s\n", n, bad,
           bad ? "FAIL" : "ok");
    hb_free(&ctr); hb_free(&words);
    return bad != 0;
}

static int check_moments(const char *what, const HBuf *b, double mean,
                         double var, double var_sigma1) {
    long n = b->n;
    double s = 0, s2 = 0;
    for (long i = 0; i < n; i++)
        s += hb_get(b, i);
    double m = s / (double)n;
    for (long i = 0; i < n; i++)
        s2 += (hb_get(b, i) - m) * (hb_get(b, i) - m);
    double v = s2 / (double)(n - 1);
    /* 6 sigma bounds: a correct generator fails about once in 10^9. */
    double dm = 6 * sqrt(var / (double)n), dv = 6 * var_sigma1 / sqrt((double)n);
    int ok = fabs(m - mean) <= dm && fabs(v - var) <= dv;
    printf("  %-8s mean %.5f (want %.5f +- %.5f)  var %.5f (want %.5f +- "
           "%.5f): %s\n", what, m, mean, dm, v, var, dv, ok ? "ok" : "FAIL");
    return !ok;
}

int run_std_random(Run *r) {
    long n = r->dims[0];
    int64_t seed = (int64_t)rng_u64(&r->rng);
    int32_t base = (int32_t)(rng_below(&r->rng, 0x7fffffffL - n) - 0x40000000L);
    int fails = 0;
    if (r->config_index == 0) {
        fails += check_philox_kat(r);
        fails += check_philox_counters(r, n, seed);
    }
    HBuf words = hb_new(DT_U32, 5 * n), uni = hb_new(DT_F32, n),
         nrm = hb_new(DT_F32, n);
    TileArg args[] = {hb_arg(&words), hb_arg(&uni), hb_arg(&nrm),
                      tile_arg_int(seed), tile_arg_int(base), tile_arg_int(n)};
    printf("  seed %lld, counters %d .. %ld\n", (long long)seed, (int)base,
           (long)base + n - 1);
    if (h_run(r->prog, "std_random", args, 6, r->config)) {
        hb_free(&words); hb_free(&uni); hb_free(&nrm);
        return fails + 1;
    }
    long bad_words = 0, bad_uni = 0, out_of_range = 0;
    double *rn = malloc((size_t)(n ? n : 1) * sizeof *rn);
    const uint32_t *w = words.data;
    for (long i = 0; i < n; i++) {
        uint32_t ctr = (uint32_t)(base + (int32_t)i);
        for (int k = 0; k < 4; k++)
            bad_words += w[k * n + i] != ref_randint4x(seed, ctr, k);
        bad_words += w[4 * n + i] != ref_randint4x(seed, ctr, 0);
        float u = ((float *)uni.data)[i], want = ref_rand(seed, ctr);
        bad_uni += memcmp(&u, &want, sizeof u) != 0;
        out_of_range += !(u >= 0.0f && u < 1.0f);
        rn[i] = ref_randn(seed, ctr);
    }
    printf("  randint4x/randint: %ld words differ: %s\n", bad_words,
           bad_words ? "FAIL" : "ok");
    printf("  rand: %ld differ from the C reference, %ld outside [0, 1): %s\n",
           bad_uni, out_of_range, bad_uni || out_of_range ? "FAIL" : "ok");
    fails += (bad_words != 0) + (bad_uni != 0) + (out_of_range != 0);
    /* f32 log, sqrt and cos of the same f32 uniforms as the reference. */
    fails += check_close("randn", &nrm, rn, NULL, 1e-5, 1e-5);
    if (n >= 10000) {
        /* Var of the sample variance: (mu4 - sigma^4) / n. Uniform:
         * mu4 = 1/80; normal: 3. */
        fails += check_moments("rand", &uni, 0.5, 1.0 / 12,
                               sqrt(1.0 / 80 - 1.0 / 144));
        fails += check_moments("randn", &nrm, 0.0, 1.0, sqrt(2.0));
    }
    fails += same_across_configs(r, 0, "words", &words);
    fails += same_across_configs(r, 1, "rand", &uni);
    fails += same_across_configs(r, 2, "randn", &nrm);
    free(rn);
    hb_free(&words); hb_free(&uni); hb_free(&nrm);
    return fails;
}

/* -------------------------------------------------------------- std/grid */

/* Triton's grouped ordering (its matmul tutorial): the tile of pid. */
static int grouped_tile(int pid, int num_m, int num_n, int group) {
    int in_group = group * num_n;
    int first = pid / in_group * group;
    int rows = num_m - first < group ? num_m - first : group;
    int pm = first + pid % in_group % rows, pn = pid % in_group / rows;
    return pm * num_n + pn;
}

int run_std_grid(Run *r) {
    enum { MAXSIDE = 24, MAXGROUP = 10 };
    long wrong = 0, not_bijective = 0, runs = 0;
    static unsigned char seen[MAXSIDE * MAXSIDE];
    for (int nm = 1; nm <= MAXSIDE; nm++)
        for (int nn = 1; nn <= MAXSIDE; nn++)
            for (int g = 1; g <= MAXGROUP; g++) {
                HBuf out = hb_new(DT_I32, nm * nn);
                TileArg args[] = {hb_arg(&out), tile_arg_int(nm), tile_arg_int(nn),
                                  tile_arg_int(g)};
                if (h_run(r->prog, "std_grid", args, 4, r->config)) {
                    hb_free(&out);
                    return 1;
                }
                runs++;
                memset(seen, 0, sizeof seen);
                const int32_t *t = out.data;
                for (int p = 0; p < nm * nn; p++) {
                    wrong += t[p] != grouped_tile(p, nm, nn, g);
                    if (t[p] >= 0 && t[p] < nm * nn) seen[t[p]]++;
                }
                for (int i = 0; i < nm * nn; i++) not_bijective += seen[i] != 1;
                hb_free(&out);
            }
    printf("  %ld grids: %ld program ids on another tile than Triton's order, "
           "%ld tiles not covered exactly once: %s\n", runs, wrong, not_bijective,
           wrong || not_bijective ? "FAIL" : "ok");
    return wrong != 0 || not_bijective != 0;
}
