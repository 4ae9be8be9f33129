/*
 * layernorm.c — runs examples/layernorm.tile from its bundle: residual add
 * and LayerNorm per row, h = x + res written out, mean and 1/std kept.
 *
 *   tilec examples/layernorm.tile -o layernorm.tlb && ./layernorm .
 *   tilec -D T=f16 examples/layernorm.tile -o layernorm_f16.tlb
 *
 * Rows longer than the kernel's tile are walked in chunks, so one bundle
 * serves any row length; the checks include rows of 5000 and 20000.
 * Tolerances as in tests/numerics: one rounding to T, plus the f32 sums'
 * error carried through the normalization.
 */
#include <stdio.h>
#include <stdlib.h>

#include "examples/host/host.h"
#include "examples/ref/ref.h"

int example_layernorm(const char *dir, const char *file, HostType t, HostRng *rng) {
    TileKernel *k = host_kernel(dir, file, "add_layernorm");
    if (!k)
        return 1;
    static const long shapes[][4] = {{1, 1, 1, 0},       {3, 100, 107, 1},  {16, 512, 512, 0},
                                     {7, 1000, 1003, 1}, {32, 4096, 4096, 0}, {5, 5000, 5008, 0},
                                     {3, 20000, 20003, 1}};
    int fails = 0;
    double eps = 1e-5;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        long rows = shapes[i][0], cols = shapes[i][1], stride = shapes[i][2],
             off = shapes[i][3], n = rows * stride;
        printf("  add_layernorm %s rows=%ld cols=%ld stride=%ld offset=%ld\n",
               host_type_name(t), rows, cols, stride, off);
        HostBuf x = host_buf(t, n, off), res = host_buf(t, n, off), w = host_buf(t, cols, off),
                b = host_buf(t, cols, off), out = host_buf(t, n, off), h = host_buf(t, n, off),
                mean = host_buf(HOST_F32, rows, off), rstd = host_buf(HOST_F32, rows, off);
        /* An offset of 3 makes the one-pass E[h^2] - mean^2 visibly wrong. */
        double *xd = host_fill_uniform(&x, rng, 2, 4), *rd = host_fill_normal(&res, rng, 1.0);
        host_poison_padding(&x, rows, cols, stride);
        host_poison_padding(&res, rows, cols, stride);
        double *wd = host_fill_uniform(&w, rng, 0.5, 1.5), *bd = host_fill_uniform(&b, rng, -1, 1);
        double *ro = malloc((size_t)n * sizeof *ro), *rh = malloc((size_t)n * sizeof *rh);
        double *rm = malloc((size_t)rows * sizeof *rm), *rr = malloc((size_t)rows * sizeof *rr);
        ref_add_layernorm(ro, rh, rm, rr, xd, rd, wd, bd, rows, cols, stride, eps);
        uint8_t *written = host_row_mask(rows, cols, stride);
        TileLaunchArg args[] = {tile_ptr(out.dev), tile_ptr(h.dev),   tile_ptr(mean.dev),
                                tile_ptr(rstd.dev), tile_ptr(x.dev),  tile_ptr(res.dev),
                                tile_ptr(w.dev),   tile_ptr(b.dev),   tile_int(rows),
                                tile_int(cols),    tile_int(stride), tile_float(eps)};
        if (host_launch(k, args, 12)) {
            fails++;
        } else {
            double stat = host_sum_rtol(cols), u = host_unit(t);
            fails += host_download(&out) + host_download(&h) + host_download(&mean) +
                     host_download(&rstd);
            fails += host_check("h", &h, rh, written, u + 1e-7, 0);
            fails += host_check("mean", &mean, rm, NULL, stat, 0);
            fails += host_check("rstd", &rstd, rr, NULL, stat + 1e-6, 0);
            fails += host_check("out", &out, ro, written, u + 2 * stat, 6 * stat);
        }
        free(xd), free(rd), free(wd), free(bd), free(ro), free(rh), free(rm), free(rr);
        free(written);
        HostBuf *all[] = {&x, &res, &w, &b, &out, &h, &mean, &rstd};
        for (int j = 0; j < 8; j++)
            host_buf_free(all[j]);
    }
    return fails;
}

/* layernorm [DIR [f16|bf16]] */
HOST_MAIN_TYPED(example_layernorm, "layernorm")
