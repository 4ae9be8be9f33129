/*
 * bias_gelu.c — runs examples/bias_gelu.tile from its bundle:
 * out = gelu(x * a + b), storage type T, arithmetic in f32.
 *
 *   tilec examples/bias_gelu.tile -o bias_gelu.tlb && ./bias_gelu .
 *   tilec -D T=bf16 examples/bias_gelu.tile -o bias_gelu_bf16.tlb
 *
 * Scalars are passed as tile_float (converted to the parameter's f32).
 * The tolerance is one rounding to T plus the f32 evaluation of x*a + b
 * and of 1 + erf(z/sqrt 2), which cancels for negative z.
 */
#include <stdio.h>
#include <stdlib.h>

#include "examples/host/host.h"
#include "examples/ref/ref.h"

int example_bias_gelu(const char *dir, const char *file, HostType t, HostRng *rng) {
    TileKernel *k = host_kernel(dir, file, "bias_gelu");
    if (!k)
        return 1;
    static const long sizes[] = {1, 1000, 2048, 4097, 100003, (1 << 20) + 5, 3 << 20};
    int fails = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (long off = 0; off < 2; off++) {
            long n = sizes[i];
            float a = (float)host_uniform(rng, 0.5, 1.5), b = (float)host_uniform(rng, -1, 1);
            printf("  bias_gelu %s n=%ld offset=%ld a=%g b=%g\n", host_type_name(t), n, off,
                   a, b);
            HostBuf x = host_buf(t, n, off), out = host_buf(t, n, off);
            double *xd = host_fill_normal(&x, rng, 2.0);
            double *ref = malloc((size_t)n * sizeof *ref);
            ref_bias_gelu(ref, xd, a, b, n);
            TileLaunchArg args[] = {tile_ptr(out.dev), tile_ptr(x.dev), tile_float(a),
                                    tile_float(b), tile_int(n)};
            fails += host_run_check(k, args, 5, "out", &out, ref, NULL, 1e-5 + host_unit(t), 4e-6);
            free(xd), free(ref);
            host_buf_free(&x), host_buf_free(&out);
        }
    return fails;
}

/* bias_gelu [DIR [f16|bf16]] */
HOST_MAIN_TYPED(example_bias_gelu, "bias_gelu")
