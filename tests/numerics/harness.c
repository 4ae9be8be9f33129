/*
 * harness.c — inputs, poison, comparison and running, for numerics tests.
 * See harness.h for the contract. Buffers hold the kernel's storage format
 * (f16/bf16 as their 16-bit patterns); everything the checks look at is
 * widened to double first.
 */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/ref/ref.h"

/* ----------------------------------------------------------- randomness */

uint64_t rng_u64(Rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double rng_uniform(Rng *r, double lo, double hi) {
    double u = (double)(rng_u64(r) >> 11) * 0x1p-53;
    return lo + (hi - lo) * u;
}

double rng_normal(Rng *r) {
    double u1 = rng_uniform(r, 0x1p-53, 1.0), u2 = rng_uniform(r, 0, 1);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

long rng_below(Rng *r, long n) {
    return (long)(rng_u64(r) % (uint64_t)n);
}

/* ------------------------------------------------------ typed host buffers */

static const char *const dt_names[] = {"f32", "f16", "bf16", "f64", "i32",
                                       "u32", "i8"};

Dtype dt_parse(const char *name) {
    for (int i = 0; i < (int)(sizeof dt_names / sizeof *dt_names); i++)
        if (!strcmp(name, dt_names[i]))
            return (Dtype)i;
    return (Dtype)-1;
}

const char *dt_name(Dtype dt) { return dt_names[dt]; }

size_t dt_size(Dtype dt) {
    switch (dt) {
    case DT_F16: case DT_BF16: return 2;
    case DT_F64: return 8;
    case DT_I8: return 1;
    default: return 4;
    }
}

double dt_unit(Dtype dt) {
    switch (dt) {
    case DT_F16: return 0x1p-11;
    case DT_BF16: return 0x1p-8;
    case DT_F64: return 0x1p-53;
    case DT_F32: return 0x1p-24;
    default: return 0;
    }
}

double dt_max(Dtype dt) {
    switch (dt) {
    case DT_F16: return 65504.0;
    case DT_BF16: return 0x1.fep127;
    case DT_F32: return 0x1.fffffep127;
    default: return INFINITY;
    }
}

HBuf hb_new(Dtype dt, long n) {
    HBuf b = {dt, n, calloc((size_t)(n ? n : 1), dt_size(dt))};
    if (!b.data) {
        fprintf(stderr, "out of memory\n");
        exit(99);
    }
    hb_poison(&b);
    return b;
}

void hb_free(HBuf *b) {
    free(b->data);
    b->data = NULL;
}

static const uint32_t POISON_INT = 0x7fffffff;
static const int8_t POISON_I8 = -128;

void hb_poison(HBuf *b) {
    for (long i = 0; i < b->n; i++) {
        switch (b->dt) {
        case DT_F32: ((float *)b->data)[i] = NAN; break;
        case DT_F64: ((double *)b->data)[i] = NAN; break;
        case DT_F16: ((uint16_t *)b->data)[i] = 0x7e00; break;
        case DT_BF16: ((uint16_t *)b->data)[i] = 0x7fc0; break;
        case DT_I32: case DT_U32: ((uint32_t *)b->data)[i] = POISON_INT; break;
        case DT_I8: ((int8_t *)b->data)[i] = POISON_I8; break;
        }
    }
}

int hb_is_poison(const HBuf *b, long i) {
    switch (b->dt) {
    case DT_I32: case DT_U32: return ((uint32_t *)b->data)[i] == POISON_INT;
    case DT_I8: return ((int8_t *)b->data)[i] == POISON_I8;
    default: return isnan(hb_get(b, i));
    }
}

double hb_get(const HBuf *b, long i) {
    switch (b->dt) {
    case DT_F32: return ((float *)b->data)[i];
    case DT_F64: return ((double *)b->data)[i];
    case DT_F16: return ref_f16_to_f32(((uint16_t *)b->data)[i]);
    case DT_BF16: return ref_bf16_to_f32(((uint16_t *)b->data)[i]);
    case DT_I32: return ((int32_t *)b->data)[i];
    case DT_U32: return ((uint32_t *)b->data)[i];
    case DT_I8: return ((int8_t *)b->data)[i];
    }
    return NAN;
}

void hb_set(HBuf *b, long i, double v) {
    switch (b->dt) {
    case DT_F32: ((float *)b->data)[i] = (float)v; break;
    case DT_F64: ((double *)b->data)[i] = v; break;
    /* double → f32 → f16 could round twice; inputs are drawn in double and
     * only need to be *some* f16 value, which this gives. */
    case DT_F16: ((uint16_t *)b->data)[i] = ref_f32_to_f16((float)v); break;
    case DT_BF16: ((uint16_t *)b->data)[i] = ref_f32_to_bf16((float)v); break;
    case DT_I32: ((int32_t *)b->data)[i] = (int32_t)v; break;
    case DT_U32: ((uint32_t *)b->data)[i] = (uint32_t)v; break;
    case DT_I8: ((int8_t *)b->data)[i] = (int8_t)v; break;
    }
}

double *hb_to_double(const HBuf *b) {
    double *d = malloc((size_t)(b->n ? b->n : 1) * sizeof *d);
    for (long i = 0; i < b->n; i++)
        d[i] = hb_get(b, i);
    return d;
}

double *hb_fill_uniform(HBuf *b, Rng *r, double lo, double hi) {
    for (long i = 0; i < b->n; i++)
        hb_set(b, i, rng_uniform(r, lo, hi));
    return hb_to_double(b);
}

double *hb_fill_normal(HBuf *b, Rng *r, double scale) {
    for (long i = 0; i < b->n; i++)
        hb_set(b, i, scale * rng_normal(r));
    return hb_to_double(b);
}

TileArg hb_arg(HBuf *b) {
    return tile_arg_buffer(b->data, (size_t)b->n * dt_size(b->dt));
}

/* ------------------------------------------------------------- checking */

enum { SHOW_FAILURES = 5 };

int check_close(const char *what, const HBuf *got, const double *ref,
                const uint8_t *written, double rtol, double atol) {
    int fails = 0, clobbered = 0;
    long checked = 0;
    double max_abs = 0, max_rel = 0;
    for (long i = 0; i < got->n; i++) {
        if (written && !written[i]) {
            if (!hb_is_poison(got, i) && clobbered++ < SHOW_FAILURES)
                fprintf(stderr, "  %s[%ld]: written (%.9g) but must not be\n",
                        what, i, hb_get(got, i));
            continue;
        }
        double g = hb_get(got, i), r = ref[i], d = fabs(g - r);
        if (isinf(g) && fabs(r) > dt_max(got->dt) && (g > 0) == (r > 0))
            d = 0;                     /* overflow is the right answer */
        checked++;
        if (!(d <= atol + rtol * fabs(r))) {  /* NaN fails too */
            if (fails++ < SHOW_FAILURES)
                fprintf(stderr, "  %s[%ld]: got %.9g, want %.9g (|err| %.3g)\n",
                        what, i, g, r, d);
        }
        if (d > max_abs || isnan(d))
            max_abs = isnan(d) ? INFINITY : d;
        double rel = d / fmax(fabs(r), atol > 0 ? atol : 1e-300);
        if (rel > max_rel || isnan(rel))
            max_rel = isnan(rel) ? INFINITY : rel;
    }
    printf("  %-8s %8ld elements  max |err| %.3g  max rel %.3g  "
           "(rtol %.2g atol %.2g)  %s\n", what, checked, max_abs, max_rel,
           rtol, atol, fails + clobbered ? "FAIL" : "ok");
    if (fails > SHOW_FAILURES || clobbered > SHOW_FAILURES)
        fprintf(stderr, "  %s: %d out of tolerance, %d clobbered\n", what,
                fails, clobbered);
    return fails + clobbered;
}

int check_identical(const char *what, const HBuf *a, const HBuf *b) {
    size_t bytes = (size_t)a->n * dt_size(a->dt);
    int same = a->n == b->n && a->dt == b->dt && !memcmp(a->data, b->data, bytes);
    printf("  %-8s identical across configurations: %s\n", what,
           same ? "ok" : "FAIL");
    return !same;
}

/* -------------------------------------------------------- compile and run */

TileProgram *h_compile(Harness *h, const char *rel) {
    char path[4096], stdlib[4096];
    snprintf(path, sizeof path, "%s/%s", h->srcdir, rel);
    snprintf(stdlib, sizeof stdlib, "%s/stdlib", h->srcdir);
    TileCompileOptions opt = {0};
    opt.defines = h->defines;
    opt.ndefines = h->ndefines;
    opt.stdlib_dir = stdlib;
    char *diags = NULL;
    TileProgram *p = tile_compile_file(path, &opt, &diags);
    if (diags) {
        fputs(diags, stderr);
        free(diags);
    }
    if (!p)
        fprintf(stderr, "error: %s did not compile\n", path);
    return p;
}

int h_run(TileProgram *p, const char *kernel, TileArg *args, int nargs,
          const char *config) {
    TileRunOptions opt = {0};
    opt.config = config;
    char *err = NULL;
    int rc = tile_interp_run(p, kernel, args, nargs, &opt, &err);
    if (rc) {
        fprintf(stderr, "error: running %s%s%s: %s\n", kernel,
                config ? " with " : "", config ? config : "",
                err ? err : "(no message)");
    }
    free(err);
    return rc;
}

/* ------------------------------------------------- partial sums by rows */

long row_blocks_of(long rows, int which) {
    switch (which) {
    case 0: return 1;
    case 1: return rows >= 6 ? rows / 2 - 1 : 2;
    default: return rows + 2;
    }
}

void block_sums(double *ref, double *mag, const double *t, long rows,
                long cols, long stride, long row_blocks) {
    long per = (rows + row_blocks - 1) / row_blocks;
    for (long b = 0; b < row_blocks; b++)
        for (long j = 0; j < cols; j++) {
            double s = 0, m = 0;
            for (long r = b * per; r < rows && r < b * per + per; r++) {
                s += t[r * stride + j];
                m += fabs(t[r * stride + j]);
            }
            ref[b * cols + j] = s;
            mag[b * cols + j] = m;
        }
}

int check_sums(const char *what, const HBuf *got, const double *ref,
               const double *mag, long rows, long cols, long row_blocks,
               double rtol, double atol_term) {
    long per = (rows + row_blocks - 1) / row_blocks, bad = 0, first = -1;
    for (long i = 0; i < row_blocks * cols; i++) {
        long b = i / cols, terms = rows - b * per < per ? rows - b * per : per;
        double bound = rtol * mag[i] + atol_term * (double)(terms > 0 ? terms : 0) + 1e-30;
        if (!(fabs(hb_get(got, i) - ref[i]) <= bound) && !bad++)
            first = i;
    }
    printf("  %-10s %8ld sums  %s", what, row_blocks * cols, bad ? "FAIL" : "ok");
    if (bad)
        printf(" (%ld wrong; [%ld] = %.9g, want %.9g)", bad, first,
               hb_get(got, first), ref[first]);
    printf("\n");
    return bad != 0;
}
