/*
 * vadd.c — runs examples/vadd.tile from its bundle: out = x + y.
 *
 *   tilec examples/vadd.tile -o vadd.tlb && ./vadd .
 *
 * The kernel declares grid(cdiv(n, BLOCK)), so the caller passes only the
 * four arguments. Lengths that are not multiples of the block, and
 * pointers one element off 16-byte alignment (which select the generic
 * variant), are checked too. f32 addition is correctly rounded, so the
 * results must equal the reference's f32 rounding exactly.
 */
#include <stdio.h>
#include <stdlib.h>

#include "examples/host/host.h"
#include "examples/ref/ref.h"

int example_vadd(const char *dir, const char *file, HostType t, HostRng *rng) {
    (void)t;
    TileKernel *vadd = host_kernel(dir, file, "vadd");
    if (!vadd)
        return 1;
    static const long sizes[] = {1, 1000, 1024, 1025, 4096, 100003, (1 << 20) + 7, 3 << 20};
    int fails = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (long off = 0; off < 2; off++) {
            long n = sizes[i];
            printf("  vadd n=%ld offset=%ld\n", n, off);
            HostBuf x = host_buf(HOST_F32, n, off), y = host_buf(HOST_F32, n, off),
                    out = host_buf(HOST_F32, n, off);
            double *xd = host_fill_uniform(&x, rng, -100, 100);
            double *yd = host_fill_uniform(&y, rng, -100, 100);
            double *ref = malloc((size_t)n * sizeof *ref);
            ref_vadd(ref, xd, yd, n);
            for (long j = 0; j < n; j++)
                ref[j] = (float)ref[j];
            TileLaunchArg args[] = {tile_ptr(out.dev), tile_ptr(x.dev), tile_ptr(y.dev),
                                    tile_int(n)};
            fails += host_run_check(vadd, args, 4, "out", &out, ref, NULL, 0, 0);
            free(xd), free(yd), free(ref);
            host_buf_free(&x), host_buf_free(&y), host_buf_free(&out);
        }
    return fails;
}

HOST_MAIN(example_vadd, "vadd.tlb", HOST_F32)
