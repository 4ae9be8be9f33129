/*
 * dropout.c — runs examples/dropout.tile from its bundle: seeded dropout
 * whose keep/drop decisions come from Philox (std/random).
 *
 *   tilec examples/dropout.tile -o dropout.tlb && ./dropout .
 *
 * The decisions must match the C Philox bit for bit (a wrong decision
 * is off by at least 0.5, far outside the tolerance), the same seed must
 * drop the same elements when launched again, and the kept fraction must
 * be 1 - p within six standard deviations.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/host/host.h"
#include "examples/ref/ref.h"

int example_dropout(const char *dir, const char *file, HostType t, HostRng *rng) {
    (void)t;
    TileKernel *k = host_kernel(dir, file, "dropout");
    if (!k)
        return 1;
    static const long sizes[] = {1, 1000, 1025, 100003, 1 << 20};
    static const float ps[] = {0.1f, 0.5f, 0.9f};
    int fails = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (int pi = 0; pi < 3; pi++) {
            long n = sizes[i], off = (long)(i % 2);
            float p = ps[pi];
            int32_t seed = (int32_t)(uint32_t)host_u64(rng);
            printf("  dropout n=%ld offset=%ld p=%.1f seed=%d\n", n, off, p, (int)seed);
            HostBuf x = host_buf(HOST_F32, n, off), out = host_buf(HOST_F32, n, off);
            double *xd = host_fill_uniform(&x, rng, 0.5, 2);
            double *ref = malloc((size_t)n * sizeof *ref);
            ref_dropout(ref, xd, p, seed, n);
            TileLaunchArg args[] = {tile_ptr(out.dev), tile_ptr(x.dev), tile_float(p),
                                    tile_int(seed), tile_int(n)};
            if (host_launch(k, args, 5)) {
                fails++;
            } else {
                fails += host_download(&out) + host_check("out", &out, ref, NULL, 1e-6, 0);
                long kept = 0;
                for (long j = 0; j < n; j++)
                    kept += host_get(&out, j) != 0;
                /* Again with the same seed: the same elements, bit for bit. */
                size_t bytes = (size_t)n * 4;
                void *first = malloc(bytes);
                memcpy(first, out.host, bytes);
                host_poison(&out);
                if (host_launch(k, args, 5)) {
                    fails++;
                } else {
                    fails += host_download(&out);
                    int same = !memcmp(first, out.host, bytes);
                    printf("    same seed, same result: %s\n", same ? "ok" : "FAIL");
                    fails += !same;
                }
                free(first);
                if (n >= 1000) {
                    double want = (1 - p) * (double)n, sigma = sqrt((double)n * p * (1 - p));
                    int ok = fabs((double)kept - want) <= 6 * sigma;
                    printf("    kept %ld of %ld (expected %.0f +- %.0f): %s\n", kept, n, want,
                           6 * sigma, ok ? "ok" : "FAIL");
                    fails += !ok;
                }
            }
            free(xd), free(ref);
            host_buf_free(&x), host_buf_free(&out);
        }
    return fails;
}

HOST_MAIN(example_dropout, "dropout.tlb", HOST_F32)
