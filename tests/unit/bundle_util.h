/* bundle_util.h — for CPU tests of libtile that describe a bundle by hand
 * (TlbKernel tables): write it with the bundle writer and load it from
 * memory, as a program embedding a bundle would. The PTX is a bare
 * `.version` line: these tests never reach the driver's module loader.
 * Include after check.h. */
#ifndef TILE_TEST_BUNDLE_UTIL_H
#define TILE_TEST_BUNDLE_UTIL_H

#include <stdlib.h>

#include "bundle/bundle.h"
#include "runtime/tile.h"

/* The bundle of `nkernels` kernels (for sm_90), loaded; a failed CHECK
 * when it cannot be written or loaded. */
static TileBundle *load_kernels(TlbKernel *kernels, uint32_t nkernels) {
    TlbBundle b = {"test", "sm_90", ".version 8.0\n", 13, 0, NULL, nkernels, kernels, NULL};
    void *data;
    size_t size;
    char err[256];
    CHECK(tlb_write(&b, &data, &size, err, sizeof err) == 0);
    TileBundle *tb = NULL;
    CHECK(tile_bundle_load_memory(data, size, &tb) == TILE_OK);
    free(data);
    return tb;
}

#endif
