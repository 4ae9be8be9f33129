/*
 * transpose.c — runs examples/transpose.tile from its bundle: out = x^T.
 *
 *   tilec examples/transpose.tile -o transpose.tlb && ./transpose .
 *
 * A pure copy, so every element must be exact; oblong matrices, sides
 * that are not multiples of the tile, row strides wider than the rows
 * (whose padding in out must keep its poison) and unaligned views.
 */
#include <stdio.h>
#include <stdlib.h>

#include "examples/host/host.h"
#include "examples/ref/ref.h"

int example_transpose(const char *dir, const char *file, HostType t, HostRng *rng) {
    (void)t;
    TileKernel *k = host_kernel(dir, file, "transpose");
    if (!k)
        return 1;
    /* rows, cols, extra stride, offset */
    static const long shapes[][4] = {{1, 1, 0, 0},     {3, 70, 3, 1},      {64, 64, 0, 0},
                                     {65, 31, 5, 1},   {1000, 777, 0, 0},  {2048, 2048, 0, 0},
                                     {1025, 4099, 13, 1}};
    int fails = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        long rows = shapes[i][0], cols = shapes[i][1], off = shapes[i][3];
        long x_stride = cols + shapes[i][2], out_stride = rows + shapes[i][2];
        printf("  transpose %ldx%ld strides %ld/%ld offset=%ld\n", rows, cols, x_stride,
               out_stride, off);
        HostBuf x = host_buf(HOST_F32, rows * x_stride, off),
                out = host_buf(HOST_F32, cols * out_stride, off);
        double *xd = host_fill_uniform(&x, rng, -100, 100);
        host_poison_padding(&x, rows, cols, x_stride);
        double *ref = malloc((size_t)(cols * out_stride) * sizeof *ref);
        ref_transpose(ref, xd, rows, cols, x_stride, out_stride);
        uint8_t *written = host_row_mask(cols, rows, out_stride);
        TileLaunchArg args[] = {tile_ptr(out.dev), tile_ptr(x.dev),     tile_int(rows),
                                tile_int(cols),    tile_int(x_stride), tile_int(out_stride)};
        fails += host_run_check(k, args, 6, "out", &out, ref, written, 0, 0);
        free(xd), free(ref), free(written);
        host_buf_free(&x), host_buf_free(&out);
    }
    return fails;
}

HOST_MAIN(example_transpose, "transpose.tlb", HOST_F32)
