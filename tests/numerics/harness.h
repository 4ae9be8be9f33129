/*
 * harness.h — shared machinery of the interpreter numerics tests.
 *
 * A test case (a .num file, see numerics.c) names an example, the sizes to
 * run it at and the configurations to run it in. For each run the harness
 * makes fresh random inputs from a seed it prints (set TILE_NUMERICS_SEED
 * to replay a failure), fills every output with NaN (poison) so that an
 * element the kernel forgets to write cannot pass by luck, runs the kernel
 * in the reference interpreter and compares each output element with the
 * double-precision C reference from examples/ref: |got - ref| <= atol +
 * rtol * |ref|, tolerances chosen per dtype. Elements a kernel must not
 * write (the padding between rows) must still hold the poison afterwards.
 */
#ifndef TILE_NUMERICS_HARNESS_H
#define TILE_NUMERICS_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "interp/tile_interp.h"

/* ----------------------------------------------------------- randomness */

/* splitmix64: a small, fast, well-mixed generator for test inputs. */
typedef struct Rng { uint64_t s; } Rng;
uint64_t rng_u64(Rng *r);
double rng_uniform(Rng *r, double lo, double hi);
double rng_normal(Rng *r);
long rng_below(Rng *r, long n);

/* ------------------------------------------------------ typed host buffers */

typedef enum { DT_F32, DT_F16, DT_BF16, DT_F64, DT_I32, DT_U32, DT_I8 } Dtype;

typedef struct HBuf {
    Dtype dt;
    long n;
    void *data;
} HBuf;

Dtype dt_parse(const char *name);          /* "f32", ...; -1 if unknown */
const char *dt_name(Dtype dt);
size_t dt_size(Dtype dt);
/* Unit roundoff of a float type: the largest relative error of one
 * rounding to nearest (2^-24 for f32, 2^-11 for f16, 2^-8 for bf16). */
double dt_unit(Dtype dt);
/* Largest finite value of a float type (results beyond it must be inf). */
double dt_max(Dtype dt);

HBuf hb_new(Dtype dt, long n);             /* poisoned */
void hb_free(HBuf *b);
void hb_poison(HBuf *b);                   /* NaN; 0x7fffffff for i32/u32, -128 for i8 */
int hb_is_poison(const HBuf *b, long i);
double hb_get(const HBuf *b, long i);
void hb_set(HBuf *b, long i, double v);    /* rounds to the element type */
/* Fills with values from rng_uniform(lo, hi), rounded to the element type,
 * and returns them widened back to double (what the kernel actually sees). */
double *hb_fill_uniform(HBuf *b, Rng *r, double lo, double hi);
double *hb_fill_normal(HBuf *b, Rng *r, double scale);
double *hb_to_double(const HBuf *b);
TileArg hb_arg(HBuf *b);

/* ------------------------------------------------------------- checking */

typedef struct Check {
    const char *what;      /* output name, for messages */
    double rtol, atol;
    int failures;          /* elements out of tolerance */
    double max_abs, max_rel;
} Check;

/* Compares got[i] with ref[i] for every i with written == NULL or
 * written[i]; the other elements must still be poison. Prints a summary
 * line and the first few failures. Returns the number of failures. */
int check_close(const char *what, const HBuf *got, const double *ref,
                const uint8_t *written, double rtol, double atol);
/* Partial column sums by blocks of rows, as kernels that write a bias
 * gradient's partial sums compute them: row_blocks blocks of
 * cdiv(rows, row_blocks) rows (the last ones short or empty). */
/* The row_blocks a test runs with (which = 0, 1, 2): one block, blocks of
 * uneven length, more blocks than rows (empty ones). */
long row_blocks_of(long rows, int which);
/* Block b's sums of t[r * stride + j] over its rows into ref[b * cols + j],
 * the sums of their magnitudes (the error's scale) into mag. */
void block_sums(double *ref, double *mag, const double *t, long rows,
                long cols, long stride, long row_blocks);
/* |got - ref| <= rtol * mag + atol_term * (the block's number of rows) for
 * every sum; prints a summary line; returns 1 if any is out. */
int check_sums(const char *what, const HBuf *got, const double *ref,
               const double *mag, long rows, long cols, long row_blocks,
               double rtol, double atol_term);
/* Bitwise equality of two buffers (determinism checks). */
int check_identical(const char *what, const HBuf *a, const HBuf *b);

/* -------------------------------------------------------- compile and run */

typedef struct Harness {
    const char *srcdir;        /* top source directory */
    uint64_t seed;
    const char *defines[16];
    int ndefines;
} Harness;

/* Compiles SRCDIR/rel with the case's defines; prints diagnostics and
 * returns NULL on failure. */
TileProgram *h_compile(Harness *h, const char *rel);
/* Runs kernel (config may be NULL: the automatic choice). Prints the error
 * and returns -1 on failure. */
int h_run(TileProgram *p, const char *kernel, TileArg *args, int nargs,
          const char *config);

/* ---------------------------------------------------------------- cases */

enum { MAX_ITEMS = 32 };

/* One .num file. */
typedef struct Case {
    const char *path;
    char example[64], file[256], kernel[64];
    Dtype dtype;                       /* from `define T=...`, else f32 */
    char *configs[MAX_ITEMS];          /* NULL entry: automatic choice */
    int nconfigs;
    long dims[MAX_ITEMS][4];
    int ndims[MAX_ITEMS], nsizes;
} Case;

/* One run of an example: one size in one configuration. The Rng is seeded
 * the same for every configuration of a size, so runners see identical
 * inputs across configurations and may compare outputs between them
 * through `saved` (kept per size, freed by the caller). */
typedef struct Run {
    Harness *h;
    TileProgram *prog;
    const Case *c;
    const char *config;
    int config_index;
    const long *dims;
    int ndims;
    Rng rng;
    HBuf saved[8];
    int nsaved;
} Run;

/* Runners return the number of failed checks (a failed run counts one). */
typedef int (*Runner)(Run *r);

int run_vadd(Run *r);
int run_bias_gelu(Run *r);
int run_softmax(Run *r);
int run_matmul_bias_relu(Run *r);
int run_layernorm(Run *r);
int run_cross_entropy(Run *r);
int run_stencil(Run *r);
int run_dropout(Run *r);
int run_transpose(Run *r);
int run_matmul(Run *r);
int run_matmul_gelu(Run *r);
int run_bmm(Run *r);
int run_attention(Run *r);
int run_std_math(Run *r);
int run_std_gelu(Run *r);
int run_std_random(Run *r);
int run_std_grid(Run *r);
int run_builtin_math(Run *r);
int run_libdevice_math(Run *r);
int run_user(Run *r);
int run_mlp(Run *r);
int run_dot_f16acc(Run *r);

/* Saves a copy of b in r->saved on the first configuration and compares b
 * bitwise with that copy on the others. Returns failures. */
int same_across_configs(Run *r, int slot, const char *what, const HBuf *b);
/* Relative tolerance of an f32 sum of n terms of one sign: rounding errors
 * grow about as sqrt(n) * 2^-24 for sums in any order; this allows ten
 * times that, plus a floor for the operations around the sum. */
double f32_sum_rtol(long n);

#endif
