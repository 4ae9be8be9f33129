/*
 * softmax.c — runs examples/softmax.tile from its bundle: a row-wise
 * softmax over rows of any length up to 16384.
 *
 *   tilec examples/softmax.tile -o softmax.tlb && ./softmax .
 *
 * The kernel's @require(BLOCK >= cols) lets libtile pick, at each launch,
 * the first configuration whose tile covers the row; grid(rows) gives one
 * program per row. Rows are `stride` elements apart; the gap between rows
 * must keep its poison.
 */
#include <stdio.h>
#include <stdlib.h>

#include "examples/host/host.h"
#include "examples/ref/ref.h"

int example_softmax(const char *dir, const char *file, HostType t, HostRng *rng) {
    (void)t;
    TileKernel *k = host_kernel(dir, file, "softmax");
    if (!k)
        return 1;
    /* rows, cols, stride, offset */
    static const long shapes[][4] = {{1, 1, 1, 0},      {3, 17, 20, 1},    {7, 256, 256, 0},
                                     {5, 257, 300, 1},  {64, 1000, 1024, 0}, {33, 4096, 4096, 0},
                                     {9, 5000, 5003, 3}, {4, 16384, 16384, 0}, {3, 16383, 16390, 1}};
    int fails = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        long rows = shapes[i][0], cols = shapes[i][1], stride = shapes[i][2],
             off = shapes[i][3], n = rows * stride;
        printf("  softmax rows=%ld cols=%ld stride=%ld offset=%ld\n", rows, cols, stride, off);
        HostBuf x = host_buf(HOST_F32, n, off), out = host_buf(HOST_F32, n, off);
        double *xd = host_fill_normal(&x, rng, 4.0);
        host_poison_padding(&x, rows, cols, stride);
        double *ref = malloc((size_t)n * sizeof *ref);
        ref_softmax(ref, xd, rows, cols, stride);
        uint8_t *written = host_row_mask(rows, cols, stride);
        TileLaunchArg args[] = {tile_ptr(out.dev), tile_ptr(x.dev), tile_int(rows),
                                tile_int(cols), tile_int(stride)};
        /* exp of v - max (|v - max| < 40: its rounding is relative 40 *
         * 2^-24 after exp), the f32 sum, one division. */
        fails += host_run_check(k, args, 5, "out", &out, ref, written,
                                1e-5 + host_sum_rtol(cols), 1e-30);
        free(xd), free(ref), free(written);
        host_buf_free(&x), host_buf_free(&out);
    }
    return fails;
}

HOST_MAIN(example_softmax, "softmax.tlb", HOST_F32)
