/*
 * stencil.c — runs examples/stencil.tile from its bundle: one explicit
 * heat step (heat1) and two fused steps (heat2) on a grid with a zero
 * border, and one step with the border held (jacobi, whose interior masks
 * `i > 0`, `j > 0`, ... were miscompiled before issue 10).
 *
 *   tilec examples/stencil.tile -o stencil.tlb && ./stencil .
 *
 * Both kernels have a 2-D grid(cdiv(rows, BM), cdiv(cols, BN)); grids
 * smaller than, equal to and ragged against the tiles are checked, with
 * row strides wider than the rows.
 */
#include <stdio.h>
#include <stdlib.h>

#include "examples/host/host.h"
#include "examples/ref/ref.h"

int example_stencil(const char *dir, const char *file, HostType t, HostRng *rng) {
    (void)t;
    static const long shapes[][4] = {{1, 1, 1, 0},       {17, 33, 36, 1},   {64, 64, 64, 0},
                                     {100, 130, 133, 1}, {1000, 999, 1008, 0}};
    static const char *kernels[] = {"heat1", "heat2", "jacobi"};
    float alpha = 0.2f;
    int fails = 0;
    for (int kn = 0; kn < 3; kn++) {
        TileKernel *k = host_kernel(dir, file, kernels[kn]);
        if (!k) {
            fails++;
            continue;
        }
        for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
            long rows = shapes[i][0], cols = shapes[i][1], stride = shapes[i][2],
                 off = shapes[i][3], n = rows * stride;
            printf("  %s rows=%ld cols=%ld stride=%ld offset=%ld\n", kernels[kn], rows, cols,
                   stride, off);
            HostBuf u = host_buf(HOST_F32, n, off), out = host_buf(HOST_F32, n, off);
            double *ud = host_fill_uniform(&u, rng, -1, 1);
            host_poison_padding(&u, rows, cols, stride);
            double *ref = malloc((size_t)n * sizeof *ref);
            if (kn < 2)
                ref_heat(ref, ud, rows, cols, stride, alpha, kn + 1);
            else
                ref_jacobi(ref, ud, rows, cols, stride, alpha);
            uint8_t *written = host_row_mask(rows, cols, stride);
            TileLaunchArg args[] = {tile_ptr(out.dev),  tile_ptr(u.dev),   tile_int(rows),
                                    tile_int(cols),     tile_int(stride), tile_float(alpha)};
            /* A handful of f32 operations on values below 1 in magnitude
             * (contracted into FMAs or not). */
            fails += host_run_check(k, args, 6, "out", &out, ref, written, 1e-6, 2e-6 * (kn % 2 + 1));
            free(ud), free(ref), free(written);
            host_buf_free(&u), host_buf_free(&out);
        }
    }
    return fails;
}

HOST_MAIN(example_stencil, "stencil.tlb", HOST_F32)
