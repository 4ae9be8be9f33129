/* launch_overhead.c — host time of a tile_launch beside a bare
 * cuLaunchKernel of the same kernel, in one run.
 *
 * Both launch vadd_aligned16 (the variant tile_launch picks for these
 * arguments: 16-byte aligned buffers, n = 4096) with the same arguments on
 * the same stream. A round is a batch of 200 bare launches, a stream
 * synchronization, a batch of 200 tile launches, a synchronization (the
 * order alternating between rounds); each batch's host time / 200 is one
 * sample, and the report gives the median, minimum and 90th percentile of
 * each over all rounds, and the median difference. The target (issue 3):
 * tile_launch adds at most 0.5 us to the bare launch. The same is then
 * measured for a kernel of four configurations (spin_bundle.h) whose key
 * was tuned before: the autotuner's table lookup on the launch path.
 *
 * usage: launch_overhead [ROUNDS]   (default 200); exit 77 without a GPU.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/unit/gpu_util.h"
#include "tests/unit/spin_bundle.h"
#include "tests/unit/vadd_bundle.h"

enum { BATCH = 200, N = 4096 };

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(double *v, int n, double p) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    int i = (int)(p * (n - 1) + 0.5);
    return v[i];
}

/* One side-by-side measurement: rounds of BATCH bare launches of f over
 * `grid` (128 threads) and BATCH tile_launch calls of k; medians into
 * *bmed, *tmed, *dmed (the per-round difference). */
static int compare(const RtDriver *d, CUstream s, int rounds, CUfunction f, unsigned grid,
                   void **params, TileKernel *k, const TileLaunchArg *args, int nargs,
                   double *bmed, double *tmed, double *dmed, double *bmin, double *b90,
                   double *tmin, double *t90) {
    double *bare = malloc(sizeof *bare * (size_t)rounds);
    double *tile = malloc(sizeof *tile * (size_t)rounds);
    double *diff = malloc(sizeof *diff * (size_t)rounds);
    for (int r = 0; r < rounds; r++) {
        for (int side = 0; side < 2; side++) {
            int tile_side = (side + r) % 2;
            double t0 = now_us();
            if (tile_side) {
                for (int i = 0; i < BATCH; i++)
                    if (tile_launch(k, args, nargs, s) != TILE_OK) {
                        fprintf(stderr, "tile_launch: %s\n", tile_last_error());
                        return 1;
                    }
            } else {
                for (int i = 0; i < BATCH; i++)
                    CU(d, d->launch_kernel(f, grid, 1, 1, 128, 1, 1, 0, s, params, NULL));
            }
            double per = (now_us() - t0) / BATCH;
            CU(d, d->stream_synchronize(s));
            (tile_side ? tile : bare)[r] = per;
        }
        diff[r] = tile[r] - bare[r];
    }
    *bmed = pct(bare, rounds, 0.5), *bmin = pct(bare, rounds, 0), *b90 = pct(bare, rounds, 0.9);
    *tmed = pct(tile, rounds, 0.5), *tmin = pct(tile, rounds, 0), *t90 = pct(tile, rounds, 0.9);
    *dmed = pct(diff, rounds, 0.5);
    free(bare);
    free(tile);
    free(diff);
    return 0;
}

/* The same for a kernel with four configurations, the autotuner in
 * front (spin_bundle.h, n = 4096: the tuned key's table hit each time). */
static int compare_tuned(const RtDriver *d, CUstream s, int rounds, CUdeviceptr out) {
    void *data;
    size_t size;
    TileBundle *b;
    TileKernel *k;
    if (spin_bundle(&data, &size)) return 1;
    TILE_OK_OR_DIE(tile_bundle_load_memory(data, size, &b));
    free(data);
    TILE_OK_OR_DIE(tile_kernel_get(b, "spin", &k));
    TileLaunchArg args[2] = {tile_ptr(out), tile_int(N)};
    int c;
    TILE_OK_OR_DIE(tile_kernel_choose(k, 0, NULL, args, 2, s, &c));   /* tunes */
    char *ptx = spin_ptx(), entry[32];
    CUmodule mod;
    CUfunction f;
    CU(d, d->module_load_data(&mod, ptx));
    free(ptx);
    snprintf(entry, sizeof entry, "spin_i%d", spin_iters[c]);
    CU(d, d->module_get_function(&f, mod, entry));
    int n = N;
    void *params[2] = {&out, &n};
    for (int i = 0; i < 1000; i++) {
        CU(d, d->launch_kernel(f, N / 128, 1, 1, 128, 1, 1, 0, s, params, NULL));
        TILE_OK_OR_DIE(tile_launch(k, args, 2, s));
    }
    CU(d, d->stream_synchronize(s));
    double bmed, tmed, dmed, x1, x2, x3, x4;
    if (compare(d, s, rounds, f, N / 128, params, k, args, 2, &bmed, &tmed, &dmed, &x1, &x2,
                &x3, &x4))
        return 1;
    printf("tuned kernel (%d configurations, chose %s): bare %.3f us, tile_launch %.3f us\n",
           tile_kernel_nconfigs(k), tile_kernel_config_name(k, c), bmed, tmed);
    printf("tuned tile_launch - bare (median of per-round differences): %.3f us; target "
           "<= 0.5 us: %s\n", dmed, dmed <= 0.5 ? "met" : "MISSED");
    tile_bundle_free(b);
    CU(d, d->module_unload(mod));
    return 0;
}

int main(int argc, char **argv) {
    const RtDriver *d = gpu_driver("launch_overhead");
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    if (rounds < 1) rounds = 1;
    gpu_bind(d, 0);
    CUdeviceptr out, x, y;
    CU(d, d->mem_alloc(&out, N * 4));
    CU(d, d->mem_alloc(&x, N * 4));
    CU(d, d->mem_alloc(&y, N * 4));
    CU(d, d->memset_d8(x, 0, N * 4));
    CU(d, d->memset_d8(y, 0, N * 4));
    CUstream s;
    CU(d, d->stream_create(&s, CU_STREAM_NON_BLOCKING));

    /* The bare side: the same PTX, loaded directly. */
    CUmodule mod;
    CUfunction f;
    CU(d, d->module_load_data(&mod, vadd_ptx));
    CU(d, d->module_get_function(&f, mod, "vadd_aligned16"));
    int n = N;
    void *params[4] = {&out, &x, &y, &n};

    void *data;
    size_t size;
    if (vadd_bundle(&data, &size)) return 1;
    TileBundle *b;
    TileKernel *k;
    TILE_OK_OR_DIE(tile_bundle_load_memory(data, size, &b));
    TILE_OK_OR_DIE(tile_kernel_get(b, "vadd", &k));
    TileLaunchArg args[4] = {tile_ptr(out), tile_ptr(x), tile_ptr(y), tile_int(N)};
    RtPlan plan;
    TILE_OK_OR_DIE(rt_plan(k, NULL, args, 4, &plan));
    if (strcmp(plan.variant->v->entry, "vadd_aligned16") != 0) {
        fprintf(stderr, "launch_overhead: tile_launch would use %s\n", plan.variant->v->entry);
        return 1;
    }

    for (int i = 0; i < 1000; i++) {       /* warm-up: modules, caches */
        CU(d, d->launch_kernel(f, N / 1024, 1, 1, 128, 1, 1, 0, s, params, NULL));
        TILE_OK_OR_DIE(tile_launch(k, args, 4, s));
    }
    CU(d, d->stream_synchronize(s));

    double bmed, tmed, dmed, bmin, b90, tmin, t90;
    if (compare(d, s, rounds, f, N / 1024, params, k, args, 4, &bmed, &tmed, &dmed, &bmin,
                &b90, &tmin, &t90))
        return 1;
    char name[128] = "?";
    CUdevice dev;
    CU(d, d->ctx_get_device(&dev));
    d->device_get_name(name, sizeof name, dev);
    printf("launch overhead on %s (driver for CUDA %d.%d): host time per launch, "
           "%d rounds of %d launches\n", name, d->version / 1000, d->version % 1000 / 10,
           rounds, BATCH);
    printf("%-22s %9s %9s %9s\n", "", "median", "min", "p90");
    printf("%-22s %8.3f us %8.3f us %8.3f us\n", "bare cuLaunchKernel", bmed, bmin, b90);
    printf("%-22s %8.3f us %8.3f us %8.3f us\n", "tile_launch", tmed, tmin, t90);
    printf("tile_launch - bare (median of per-round differences): %.3f us; target <= 0.5 us: %s\n",
           dmed, dmed <= 0.5 ? "met" : "MISSED");
    tile_bundle_free(b);
    free(data);
    CU(d, d->module_unload(mod));
    return compare_tuned(d, s, rounds, out);
}
