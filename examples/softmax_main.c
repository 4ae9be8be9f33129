/*
 * softmax_main.c — the quick-start demo: compile examples/softmax.tile,
 * run it on random input, check every element against a C reference.
 *
 *   examples/softmax_demo [--interpret] [SOFTMAX.tile [STDLIB_DIR]]
 *
 * When libtile finds a CUDA driver and a device, the demo takes the path a
 * GPU program takes: the compiler's stages, linked in, turn the source
 * into a bundle in memory (parse, semantic analysis twice — one module per
 * specialization variant —, the NVPTX code generator, the bundle writer:
 * what `tilec softmax.tile -o softmax.tlb` does, minus the file), libtile
 * loads it (tile_bundle_load_memory), and each problem is one tile_launch
 * on device buffers: libtile evaluates the kernel's grid(rows) and picks
 * the first configuration whose @require(BLOCK >= cols) holds. The bundle
 * carries PTX only (for the device's architecture); the driver compiles it
 * when the module loads, so no CUDA toolkit is needed anywhere.
 *
 * Without a driver or a device (or with --interpret) it says why in one
 * line and runs the same kernel in the reference interpreter instead
 * (tile_compile_file, host buffers as TileArgs, tile_interp_run). Either
 * way every output starts poisoned (NaN) and every element is checked.
 *
 * Where things are found, first match wins. The kernel: the argument; the
 * source tree this was built from (TILE_SRCDIR); the installed examples
 * (TILE_EXAMPLES_DIR). The stdlib: the argument; $TILE_STDLIB; the source
 * tree's; the installed one (TILE_STDLIB_DIR). So a copy of the program
 * carried elsewhere runs as `softmax_demo examples/softmax.tile stdlib`.
 * Exit status: 0 when every element is within tolerance, 1 otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "bundle/bundle.h"
#include "driver/compile.h"
#include "examples/ref/ref.h"
#include "interp/tile_interp.h"
#include "lower/lower.h"
#include "runtime/driver.h"
#include "runtime/tile.h"

/* Where the kernel runs: `kernel` set means the GPU (device buffers come
 * from the driver table libtile loaded, as in examples/host/host.c, so
 * this builds without a CUDA toolkit); else the interpreter's `prog`. */
typedef struct Engine {
    TileProgram *prog;
    TileBundle *bundle;
    TileKernel *kernel;
    const RtDriver *drv;
    CUdevice dev;
} Engine;

/* A row of n positive terms summed in f32 errs by about sqrt(n) * 2^-24;
 * allow ten times that plus a floor for exp and the division (a few ulp
 * on the GPU, whose instructions for them are approximate). */
static double tolerance(long cols) {
    return 1e-5 + 10 * 0x1p-24 * sqrt((double)cols);
}

static uint64_t next(uint64_t *s) {      /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ------------------------------------------------------------ finding */

static const char *first_readable(const char *const *paths, int n) {
    for (int i = 0; i < n; i++)
        if (paths[i] && *paths[i] && access(paths[i], R_OK) == 0)
            return paths[i];
    return paths[n - 1];
}

static const char *find_kernel(const char *arg) {
    const char *const paths[] = {arg, TILE_SRCDIR "/examples/softmax.tile",
                                 TILE_EXAMPLES_DIR "/softmax.tile"};
    return arg ? arg : first_readable(paths, 3);
}

static const char *find_stdlib(const char *arg) {
    const char *env = getenv("TILE_STDLIB");
    const char *const paths[] = {arg, env, TILE_SRCDIR "/stdlib", TILE_STDLIB_DIR};
    return arg ? arg : env && *env ? env : first_readable(paths, 4);
}

/* ------------------------------------------------------------ the GPU */

static int cuda_failed(const Engine *e, CUresult r, const char *call) {
    char buf[160];
    if (r == CUDA_SUCCESS)
        return 0;
    fprintf(stderr, "softmax_demo: %s: %s\n", call, rt_cuda_error(e->drv, r, buf, sizeof buf));
    return 1;
}

/* Binds device 0's primary context and prints what runs where. Returns 1
 * when there is a GPU to run on, 0 (after saying why not) when there is
 * none, -1 when the device is there but unusable. */
static int gpu_open(Engine *e, char *arch, size_t archlen) {
    TileStatus s = tile_init();
    if (s != TILE_OK) {
        printf("no GPU, running in the reference interpreter: %s\n", tile_last_error());
        return 0;
    }
    CUcontext ctx;
    char name[128];
    int major = 0, minor = 0;
    e->drv = rt_driver(&s);
    if (cuda_failed(e, e->drv->device_get(&e->dev, 0), "cuDeviceGet") ||
        cuda_failed(e, e->drv->device_get_name(name, sizeof name, e->dev), "cuDeviceGetName") ||
        cuda_failed(e, e->drv->device_get_attribute(
                           &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, e->dev),
                    "cuDeviceGetAttribute") ||
        cuda_failed(e, e->drv->device_get_attribute(
                           &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, e->dev),
                    "cuDeviceGetAttribute") ||
        cuda_failed(e, e->drv->primary_ctx_retain(&ctx, e->dev), "cuDevicePrimaryCtxRetain"))
        return -1;
    if (cuda_failed(e, e->drv->ctx_set_current(ctx), "cuCtxSetCurrent")) {
        e->drv->primary_ctx_release(e->dev);
        return -1;
    }
    /* Code for the device's own architecture when Tile targets it; else
     * for sm_90, which the driver can JIT for any newer GPU. */
    snprintf(arch, archlen, "sm_%d%d", major, minor);
    if (!lw_arch_supported(arch))
        snprintf(arch, archlen, "sm_90");
    printf("running on the GPU: %s (code for %s)\n", name, arch);
    return 1;
}

/* Compiles `path` into a bundle in memory and loads it; diagnostics go to
 * stderr. Returns 0 with e->bundle and e->kernel set, or -1. */
static int gpu_compile(Engine *e, const char *path, const char *stdlib, const char *arch) {
    Arena *ar = ar_new();
    Diag *dg = dg_new(ar, stderr, -1);
    size_t len;
    char *text = read_file(ar, path, &len);
    TcOutput res = {0};
    int status = -1;
    if (!text) {
        fprintf(stderr, "softmax_demo: cannot open '%s'\n", path);
    } else {
        /* the one source-to-bundle pipeline, as tilec runs it */
        TcOptions o = {.arch = arch, .opt_level = 3, .sema = {.stdlib_dir = stdlib},
                       .producer = "softmax_demo", .want = TC_BUNDLE};
        status = tc_compile(ar, dg, dg_add_file(dg, path, text, len), text, len, &o, &res);
    }
    if (status == 0 && (tile_bundle_load_memory(res.bundle, res.bundle_len, &e->bundle) != TILE_OK ||
                        tile_kernel_get(e->bundle, "softmax", &e->kernel) != TILE_OK)) {
        fprintf(stderr, "softmax_demo: %s\n", tile_last_error());
        status = -1;
    }
    free(res.bundle);
    dg_free(dg);
    ar_free(ar);
    return status;
}

/* One launch on rows x cols: x uploaded, out poisoned (all bits set: a
 * NaN), launched, synchronized, downloaded. */
static int run_on_gpu(const Engine *e, float *out, const float *x, long rows, long cols) {
    size_t bytes = (size_t)(rows * cols) * sizeof *x;
    CUdeviceptr dx = 0, dout = 0;
    int failed = cuda_failed(e, e->drv->mem_alloc(&dx, bytes), "cuMemAlloc") ||
                 cuda_failed(e, e->drv->mem_alloc(&dout, bytes), "cuMemAlloc") ||
                 cuda_failed(e, e->drv->memcpy_htod(dx, x, bytes), "cuMemcpyHtoD") ||
                 cuda_failed(e, e->drv->memset_d8(dout, 0xff, bytes), "cuMemsetD8");
    if (!failed) {
        TileLaunchArg args[] = {tile_ptr(dout), tile_ptr(dx), tile_int(rows),
                                tile_int(cols), tile_int(cols)};
        if (tile_launch(e->kernel, args, 5, NULL) != TILE_OK) {
            fprintf(stderr, "softmax_demo: %s\n", tile_last_error());
            failed = 1;
        } else {
            failed = cuda_failed(e, e->drv->ctx_synchronize(), "the kernel") ||
                     cuda_failed(e, e->drv->memcpy_dtoh(out, dout, bytes), "cuMemcpyDtoH");
        }
    }
    if (dx)
        e->drv->mem_free(dx);
    if (dout)
        e->drv->mem_free(dout);
    return failed ? -1 : 0;
}

/* --------------------------------------------------- the interpreter */

static int run_in_interpreter(const Engine *e, float *out, float *x, long rows, long cols) {
    size_t bytes = (size_t)(rows * cols) * sizeof *x;
    for (long i = 0; i < rows * cols; i++)
        out[i] = NAN;                    /* poison: every element must be
                                            written */
    TileArg args[] = {
        tile_arg_buffer(out, bytes), tile_arg_buffer(x, bytes),
        tile_arg_int(rows), tile_arg_int(cols), tile_arg_int(cols),
    };
    char *err = NULL;
    int status = tile_interp_run(e->prog, "softmax", args, 5, NULL, &err);
    if (status != 0)
        fprintf(stderr, "softmax_demo: %s\n", err ? err : "run failed");
    free(err);
    return status;
}

/* ------------------------------------------------------------ checking */

/* Runs softmax on rows x cols random values; returns 1 when it passes. */
static int demo(const Engine *e, long rows, long cols, uint64_t *seed) {
    long n = rows * cols;
    float *x = malloc((size_t)n * sizeof *x), *out = malloc((size_t)n * sizeof *out);
    double *xd = malloc((size_t)n * sizeof *xd), *ref = malloc((size_t)n * sizeof *ref);
    for (long i = 0; i < n; i++) {
        /* uniform in [-8, 8): exp spans about seven orders of magnitude */
        x[i] = (float)((double)(next(seed) >> 11) * 0x1p-53 * 16 - 8);
        xd[i] = x[i];
    }
    int ok = 0;
    if ((e->kernel ? run_on_gpu(e, out, x, rows, cols)
                   : run_in_interpreter(e, out, x, rows, cols)) == 0) {
        ref_softmax(ref, xd, rows, cols, cols);
        double worst = 0, tol = tolerance(cols);
        for (long i = 0; i < n; i++) {
            double rel = fabs(out[i] - ref[i]) / ref[i];
            if (!(rel <= worst))         /* NaN counts as worst */
                worst = isnan(rel) ? INFINITY : rel;
        }
        ok = worst <= tol;
        printf("  softmax %5ld x %-5ld  max relative error %.2e "
               "(tolerance %.1e)  %s\n", rows, cols, worst, tol,
               ok ? "PASS" : "FAIL");
    }
    free(x); free(out); free(xd); free(ref);
    return ok;
}

/* ---------------------------------------------------------------- main */

/* Sets up e for the GPU or the interpreter; -1 (after saying why) when
 * neither works. */
static int engine_open(Engine *e, int interpret, const char *path, const char *stdlib) {
    char arch[16];
    int gpu = 0;
    if (interpret)
        printf("--interpret: running in the reference interpreter\n");
    else
        gpu = gpu_open(e, arch, sizeof arch);
    if (gpu < 0)
        return -1;
    if (gpu) {
        if (gpu_compile(e, path, stdlib, arch) == 0)
            return 0;
    } else {
        TileCompileOptions opt = {0};
        opt.stdlib_dir = stdlib;
        char *diags = NULL;
        e->prog = tile_compile_file(path, &opt, &diags);
        if (diags)
            fputs(diags, stderr);
        free(diags);
        if (e->prog)
            return 0;
    }
    fprintf(stderr, "softmax_demo: %s did not compile\n", path);
    return -1;
}

static void engine_close(Engine *e) {
    tile_program_free(e->prog);
    tile_bundle_free(e->bundle);
    if (e->drv)
        e->drv->primary_ctx_release(e->dev);
}

int main(int argc, char **argv) {
    int interpret = argc > 1 && strcmp(argv[1], "--interpret") == 0;
    if (argc - interpret > 3 || (argc > 1 + interpret && argv[1 + interpret][0] == '-')) {
        fprintf(stderr, "usage: softmax_demo [--interpret] [SOFTMAX.tile [STDLIB_DIR]]\n");
        return 2;
    }
    const char *path = find_kernel(argc > 1 + interpret ? argv[1 + interpret] : NULL);
    const char *stdlib = find_stdlib(argc > 2 + interpret ? argv[2 + interpret] : NULL);
    uint64_t seed = (uint64_t)time(NULL);
    printf("softmax demo: %s (random seed %llu)\n", path, (unsigned long long)seed);
    Engine e = {0};
    int opened = engine_open(&e, interpret, path, stdlib) == 0, ok = opened;
    /* one tile per row: BLOCK 1024, 8192, and 16384 (rows past 4096) */
    static const long sizes[][2] = {{64, 1000}, {8, 5000}, {3, 12000}};
    for (int i = 0; opened && i < 3; i++)
        ok = demo(&e, sizes[i][0], sizes[i][1], &seed) && ok;
    engine_close(&e);
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
