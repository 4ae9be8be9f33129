/* softmax_main.c — a C program calling a Tile kernel through the typed
 * launcher that `tilec --emit=c examples/softmax.tile -o softmax_aot`
 * generates (softmax_aot.h / softmax_aot.c, built by make): no bundle file
 * to find at run time, no argument arrays, the grid from the kernel, the
 * configuration autotuned by libtile.
 *
 * It checks that the embedded bundle loads (no GPU needed), then, with a
 * GPU, runs softmax over rows of several lengths and compares with a C
 * reference (relative error 1e-5). Without a CUDA driver or device it
 * says so and exits 77 (a skip for make check).
 *
 * Device memory comes from the CUDA driver API, looked up with dlsym so
 * that this example builds without the CUDA toolkit; a program that has
 * cuda.h (or the CUDA runtime, or PyTorch) passes its pointers and stream
 * directly.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softmax_aot.h"

typedef int (*CuFn)();

static CuFn cu(void *lib, const char *name) {
    CuFn f;
    void *sym = dlsym(lib, name);
    memcpy(&f, &sym, sizeof f);
    if (!f) {
        fprintf(stderr, "softmax_aot: the CUDA driver lacks %s\n", name);
        exit(1);
    }
    return f;
}

#define CHECK_CU(call)                                                        \
    do {                                                                      \
        int r_ = (call);                                                      \
        if (r_) {                                                             \
            fprintf(stderr, "softmax_aot: %s failed: CUDA error %d\n", #call, r_); \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

static void reference(float *out, const float *x, int rows, int cols, int stride) {
    for (int r = 0; r < rows; r++) {
        double m = -INFINITY, sum = 0;
        for (int c = 0; c < cols; c++) m = fmax(m, x[r * stride + c]);
        for (int c = 0; c < cols; c++) sum += exp(x[r * stride + c] - m);
        for (int c = 0; c < cols; c++) out[r * stride + c] = (float)(exp(x[r * stride + c] - m) / sum);
    }
}

int main(void) {
    /* The embedded bundle: loads anywhere. */
    TileKernel *k = softmax_aot_softmax_kernel();
    if (!k) {
        fprintf(stderr, "softmax_aot: %s\n", tile_last_error());
        return 1;
    }
    printf("embedded: %s, %d configurations\n", tile_kernel_signature(k),
           tile_kernel_nconfigs(k));
    if (strcmp(tile_kernel_signature(k),
               "softmax(out: *f32, x: *f32, rows: i32, cols: i32, stride: i32)") != 0)
        return 1;
    TileStatus s = tile_init();
    if (s == TILE_ERROR_NO_DRIVER || s == TILE_ERROR_NO_DEVICE) {
        printf("softmax_aot: skipped (no GPU): %s\n", tile_last_error());
        return 77;
    }
    if (s) {
        fprintf(stderr, "softmax_aot: %s\n", tile_last_error());
        return 1;
    }
    const char *path = getenv("TILE_LIBCUDA");
    void *lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW);
    if (!lib) return 1;
    int dev;
    void *ctx;
    CHECK_CU(cu(lib, "cuDeviceGet")(&dev, 0));
    CHECK_CU(cu(lib, "cuDevicePrimaryCtxRetain")(&ctx, dev));
    CHECK_CU(cu(lib, "cuCtxSetCurrent")(ctx));
    CuFn mem_alloc = cu(lib, "cuMemAlloc_v2"), mem_free = cu(lib, "cuMemFree_v2"),
         htod = cu(lib, "cuMemcpyHtoD_v2"), dtoh = cu(lib, "cuMemcpyDtoH_v2"),
         sync = cu(lib, "cuCtxSynchronize");

    int shapes[][3] = {{37, 1000, 1024}, {5, 4096, 4096}, {64, 77, 80}, {3, 16384, 16500}};
    int failed = 0;
    for (size_t t = 0; t < sizeof shapes / sizeof *shapes; t++) {
        int rows = shapes[t][0], cols = shapes[t][1], stride = shapes[t][2];
        size_t n = (size_t)rows * (size_t)stride, bytes = n * sizeof(float);
        float *x = malloc(bytes), *got = malloc(bytes), *want = malloc(bytes);
        for (size_t i = 0; i < n; i++) x[i] = (float)((i * 2654435761u) % 1000) / 100.0f;
        memset(want, 0, bytes);
        reference(want, x, rows, cols, stride);
        unsigned long long dx, dout;
        CHECK_CU(mem_alloc(&dx, bytes));
        CHECK_CU(mem_alloc(&dout, bytes));
        CHECK_CU(htod(dx, x, bytes));
        CHECK_CU(htod(dout, want, bytes));   /* so that the gaps compare equal */
        s = softmax_aot_softmax((float *)(uintptr_t)dout, (const float *)(uintptr_t)dx, rows,
                                cols, stride, NULL);
        if (s) {
            fprintf(stderr, "softmax_aot: %s\n", tile_last_error());
            return 1;
        }
        CHECK_CU(sync());
        CHECK_CU(dtoh(got, dout, bytes));
        double worst = 0;
        for (size_t i = 0; i < n; i++)
            worst = fmax(worst, fabs(got[i] - want[i]) / fmax(fabs(want[i]), 1e-30));
        TileLaunchArg a[5] = {tile_ptr(dout), tile_ptr(dx), tile_int(rows), tile_int(cols),
                              tile_int(stride)};
        int c = -1;
        tile_kernel_choose(k, 0, NULL, a, 5, NULL, &c);
        printf("rows=%d cols=%d stride=%d: %s, max relative error %.2g (%s)\n", rows, cols,
               stride, c >= 0 ? tile_kernel_config_name(k, c) : "?", worst,
               worst <= 1e-5 ? "ok" : "WRONG");
        failed |= !(worst <= 1e-5);
        CHECK_CU(mem_free(dx));
        CHECK_CU(mem_free(dout));
        free(x);
        free(got);
        free(want);
    }
    return failed;
}
