/*
 * cross_entropy.c — runs examples/cross_entropy.tile from its bundle: the
 * loss per row and its gradient, once into a separate buffer and once in
 * place over the logits.
 *
 *   tilec examples/cross_entropy.tile -o cross_entropy.tlb && ./cross_entropy .
 *
 * Vocabulary-sized rows (50257) are longer than any tile; row 1's target
 * is the ignore index (-100): loss 0, gradient 0.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/host/host.h"
#include "examples/ref/ref.h"

enum { IGNORE_INDEX = -100 };

int example_cross_entropy(const char *dir, const char *file, HostType t, HostRng *rng) {
    (void)t;
    TileKernel *k = host_kernel(dir, file, "cross_entropy");
    if (!k)
        return 1;
    static const long shapes[][4] = {{1, 1, 1, 0},      {4, 10, 13, 1},    {8, 1000, 1000, 0},
                                     {5, 4097, 4100, 1}, {4, 50257, 50264, 0}};
    int fails = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        long rows = shapes[i][0], cols = shapes[i][1], stride = shapes[i][2],
             off = shapes[i][3], n = rows * stride;
        double scale = 1.0 / (double)rows;
        HostBuf logits = host_buf(HOST_F32, n, off), target = host_buf(HOST_I32, rows, off),
                loss = host_buf(HOST_F32, rows, off), grad = host_buf(HOST_F32, n, off);
        double *ld = host_fill_normal(&logits, rng, 3.0);
        host_poison_padding(&logits, rows, cols, stride);
        for (long r = 0; r < rows; r++)
            host_set(&target, r, r == 1 ? IGNORE_INDEX : (double)(host_u64(rng) % (uint64_t)cols));
        host_upload(&target);
        double *rl = malloc((size_t)rows * sizeof *rl), *rg = malloc((size_t)n * sizeof *rg);
        ref_cross_entropy(rl, rg, ld, (const int32_t *)target.host, rows, cols, stride, scale,
                          IGNORE_INDEX);
        uint8_t *written = host_row_mask(rows, cols, stride);
        double lrtol = host_sum_rtol(cols), grtol = 1e-5 + 2 * host_sum_rtol(cols);
        double latol = 4e-6 * (1 + log((double)cols)), gatol = 2e-6 * scale;
        for (int inplace = 0; inplace < 2; inplace++) {
            printf("  cross_entropy rows=%ld cols=%ld stride=%ld offset=%ld%s\n", rows, cols,
                   stride, off, inplace ? " (grad = logits)" : "");
            HostBuf *g = inplace ? &logits : &grad;
            TileLaunchArg args[] = {tile_ptr(loss.dev),   tile_ptr(g->dev),  tile_ptr(logits.dev),
                                    tile_ptr(target.dev), tile_int(rows),   tile_int(cols),
                                    tile_int(stride),     tile_float(scale)};
            host_poison(&loss);
            if (host_launch(k, args, 8)) {
                fails++;
                continue;
            }
            fails += host_download(&loss) + host_download(g);
            fails += host_check("loss", &loss, rl, NULL, lrtol, latol);
            /* In place too, the padding between rows keeps its poison. */
            fails += host_check("grad", g, rg, written, grtol, gatol);
        }
        free(ld), free(rl), free(rg), free(written);
        host_buf_free(&logits), host_buf_free(&target), host_buf_free(&loss),
            host_buf_free(&grad);
    }
    return fails;
}

HOST_MAIN(example_cross_entropy, "cross_entropy.tlb", HOST_F32)
