/*
 * host.h — what the example host programs (examples/host/NAME.c) share.
 *
 * Each example program shows how a C program runs one example kernel from
 * its bundle through libtile: tile_bundle_load, tile_kernel_get, an array
 * of TileLaunchArg, tile_launch. To show that the kernel is right, it
 * also runs it on fresh random inputs at several sizes and compares every
 * output element with the double-precision C reference of examples/ref:
 * |got - ref| <= atol + rtol * |ref|. Before each launch every output is
 * poisoned (all bits set: a NaN for floats), so an element the kernel
 * forgets to write fails, and the poison must survive where the kernel
 * must not write (the padding between rows, and a guard zone after each
 * buffer). Buffers may start one element past a 16-byte boundary (an
 * "offset view"), which makes libtile launch the generic variant.
 *
 * Device memory: a real application allocates with cudaMalloc or
 * cuMemAlloc and passes the addresses to tile_ptr. These programs borrow
 * libtile's own table of driver entry points (runtime/driver.h) instead,
 * so that they build where no CUDA toolkit is installed, like libtile.
 *
 * Every check prints one line; functions return the number of failures
 * and never stop the program, so one broken example cannot hide another.
 */
#ifndef TILE_EXAMPLES_HOST_H
#define TILE_EXAMPLES_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/tile.h"

/* ------------------------------------------------------------ set-up */

/* Loads the driver and binds device 0's primary context; exits 77 (a
 * skipped test) when there is no driver or no device. */
void host_init(const char *prog);

/* The kernel `name` of the bundle `dir/file`; NULL (after printing why)
 * when the bundle does not load or lacks it. */
TileKernel *host_kernel(const char *dir, const char *file, const char *name);

/* tile_launch, then a synchronization; prints the error and returns -1 on
 * failure, 0 on success. */
int host_launch(TileKernel *k, const TileLaunchArg *args, int nargs);

/* ---------------------------------------------------------- randomness */

typedef struct HostRng { uint64_t s; } HostRng;   /* splitmix64 */
uint64_t host_u64(HostRng *r);
double host_uniform(HostRng *r, double lo, double hi);
double host_normal(HostRng *r);

/* ---------------------------------------------------- device buffers */

typedef enum { HOST_F32, HOST_F16, HOST_BF16, HOST_I32 } HostType;
const char *host_type_name(HostType t);
double host_unit(HostType t);   /* unit roundoff: 2^-24, 2^-11, 2^-8; 0 for i32 */

/* n elements of type t on the device, starting `off` elements into an
 * allocation that ends with a guard zone, mirrored by a host copy. */
typedef struct HostBuf {
    HostType type;
    long n, off;
    uint64_t alloc, dev;     /* dev = alloc + off elements: pass this */
    void *host;              /* n elements */
} HostBuf;

HostBuf host_buf(HostType t, long n, long off);
void host_buf_free(HostBuf *b);
double host_get(const HostBuf *b, long i);
void host_set(HostBuf *b, long i, double v);      /* rounds to the type */
/* Fills with uniform / normal random values rounded to the type, uploads
 * them, and returns them widened to double (what the kernel sees). */
double *host_fill_uniform(HostBuf *b, HostRng *r, double lo, double hi);
double *host_fill_normal(HostBuf *b, HostRng *r, double scale);
/* Uploads the host copy. */
void host_upload(HostBuf *b);
/* Poisons the padding (columns cols..stride-1 of each row) of the host
 * copy and uploads it: a kernel that reads padding then computes NaN. */
void host_poison_padding(HostBuf *b, long rows, long cols, long stride);
/* Sets every byte of the allocation, guard included, to 0xff. */
void host_poison(HostBuf *b);
/* Downloads the n elements; counts guard bytes that lost their poison. */
int host_download(HostBuf *b);

/* ------------------------------------------------------------ checking */

/* Compares got (downloaded) with ref for every i with written == NULL or
 * written[i]; the other elements must hold the poison. Prints one line
 * (max error, and the norm-wise relative error |got - ref| / |ref|) and
 * the first few failures; returns the number of failures. */
int host_check(const char *what, const HostBuf *got, const double *ref,
               const uint8_t *written, double rtol, double atol);

/* written[i] = 1 for the first `cols` of each of `rows` rows of `stride`. */
uint8_t *host_row_mask(long rows, long cols, long stride);
/* Relative error bound of an f32 sum of n terms (as tests/numerics). */
double host_sum_rtol(long n);

/* The usual end of one case: launches k, downloads `out` and checks it
 * against ref (host_check, named `what`). Returns the number of failures
 * (1 for a launch that fails). */
int host_run_check(TileKernel *k, const TileLaunchArg *args, int nargs, const char *what,
                   HostBuf *out, const double *ref, const uint8_t *written, double rtol,
                   double atol);

/* ------------------------------------------------------------ examples */

/* One example's checks: the kernels of `dir/file`, values of type t where
 * the example is generic. Returns the number of failures. */
typedef int (*HostExample)(const char *dir, const char *file, HostType t,
                           HostRng *rng);

int example_vadd(const char *dir, const char *file, HostType t, HostRng *rng);
int example_bias_gelu(const char *dir, const char *file, HostType t, HostRng *rng);
int example_softmax(const char *dir, const char *file, HostType t, HostRng *rng);
int example_layernorm(const char *dir, const char *file, HostType t, HostRng *rng);
int example_cross_entropy(const char *dir, const char *file, HostType t, HostRng *rng);
int example_stencil(const char *dir, const char *file, HostType t, HostRng *rng);
int example_dropout(const char *dir, const char *file, HostType t, HostRng *rng);
int example_transpose(const char *dir, const char *file, HostType t, HostRng *rng);
/* examples/host/mma.c: the tensor-core examples */
int example_matmul(const char *dir, const char *file, HostType t, HostRng *rng);
int example_matmul_bias_relu(const char *dir, const char *file, HostType t, HostRng *rng);
int example_linear_relu(const char *dir, const char *file, HostType t, HostRng *rng);
int example_matmul_gelu(const char *dir, const char *file, HostType t, HostRng *rng);
int example_bmm(const char *dir, const char *file, HostType t, HostRng *rng);
int example_attention(const char *dir, const char *file, HostType t, HostRng *rng);

/* main() of one example program: `NAME [BUNDLE_DIR]` (default "."), the
 * seed from $TILE_SEED or the clock. Exit status 0, 1 (a failure) or 77. */
int host_main(int argc, char **argv, HostExample ex, const char *file, HostType t);

/* main() of an example generic over its element type: `NAME [BUNDLE_DIR
 * [f16|bf16]]` runs the bundle NAME.tlb with f32, NAME_f16.tlb or
 * NAME_bf16.tlb (built with -D T=f16 / bf16). */
int host_main_typed(int argc, char **argv, HostExample ex, const char *name);

/* The main() of an example program, one line in each; none when the
 * examples are linked together (tests/gpu/examples_gpu). */
#ifdef TILE_HOST_NO_MAIN
#define HOST_MAIN(ex, file, t)
#define HOST_MAIN_TYPED(ex, name)
#else
#define HOST_MAIN(ex, file, t) \
    int main(int argc, char **argv) { return host_main(argc, argv, ex, file, t); }
#define HOST_MAIN_TYPED(ex, name) \
    int main(int argc, char **argv) { return host_main_typed(argc, argv, ex, name); }
#endif

#endif
