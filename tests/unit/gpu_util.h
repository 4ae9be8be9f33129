/* gpu_util.h — what the runtime's GPU programs share: getting the driver
 * through libtile (or exiting 77, the harness's "skipped", when there is
 * no driver or device), binding device `ordinal`'s primary context, and
 * failing loudly on a driver error. */
#ifndef TILE_TEST_GPU_UTIL_H
#define TILE_TEST_GPU_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "runtime/rt.h"

static const RtDriver *gpu_driver(const char *prog) {
    TileStatus s = tile_init();
    if (s == TILE_ERROR_NO_DRIVER || s == TILE_ERROR_NO_DEVICE) {
        fprintf(stderr, "%s: skipped: %s\n", prog, tile_last_error());
        exit(77);
    }
    if (s) {
        fprintf(stderr, "%s: %s: %s\n", prog, tile_status_name(s), tile_last_error());
        exit(1);
    }
    return rt_driver(&s);
}

#define CU(d, call)                                                           \
    do {                                                                      \
        CUresult r_ = (call);                                                 \
        if (r_ != CUDA_SUCCESS) {                                             \
            char b_[160];                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
                    rt_cuda_error(d, r_, b_, sizeof b_));                     \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

#define TILE_OK_OR_DIE(call)                                                  \
    do {                                                                      \
        TileStatus s_ = (call);                                               \
        if (s_ != TILE_OK) {                                                  \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, \
                    tile_status_name(s_), tile_last_error());                 \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

/* A check that counts a failure and goes on; the program declares
 * `static int failures;` and exits non-zero when it is not 0. */
#define EXPECT(c)                                                              \
    do {                                                                       \
        if (!(c)) {                                                            \
            failures++;                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
        }                                                                      \
    } while (0)

/* Makes device `ordinal`'s primary context current; returns it. */
static CUcontext gpu_bind(const RtDriver *d, int ordinal) {
    CUdevice dev;
    CUcontext ctx;
    CU(d, d->device_get(&dev, ordinal));
    CU(d, d->primary_ctx_retain(&ctx, dev));
    CU(d, d->ctx_set_current(ctx));
    return ctx;
}

#endif
