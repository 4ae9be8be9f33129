/*
 * mma.c — runs the tensor-core examples from their bundles: matmul (f16,
 * bf16, f32 through tf32), matmul_bias_relu, matmul_gelu, linear_relu,
 * bmm and attention (D = 64 / 128, causal or not), each against the float64
 * references of examples/ref on fresh random inputs.
 *
 *   tilec -D BM=64 -D BN=64 -D BK=32 examples/matmul.tile -o matmul.tlb
 *   ./mma . matmul          (NAME: matmul, matmul_bf16, matmul_f32,
 *                            matmul_bias_relu, matmul_gelu, linear_relu, bmm,
 *                            attention_d64, attention_d64_causal,
 *                            attention_d128, attention_d128_causal)
 *
 * Shapes include ones that are not multiples of any tile (every mask of
 * M, N and K), row strides with poisoned padding (a kernel that reads
 * past K computes NaN), and offset views (the generic variant).
 *
 * Tolerances (|got - ref| <= atol + rtol |ref|, per element): the
 * reference sees the inputs as rounded to T, so the kernel's error is the
 * f32 accumulation, the output's rounding to T (rtol = its unit
 * roundoff) and, for tf32, the rounding of each operand to 11
 * significant bits: a product's relative error up to 2^-10, summed over K
 * random-signed terms of size ~1/3: atol = 4 * 2^-10 * sqrt(K) / 3
 * (norm-wise about 3e-4, METHOD's band; printed by host_check). For
 * attention, p is rounded to f16 before the second product: relative
 * 2^-11 on each weight, so the output (a convex combination of v, |v| < 1)
 * is off by at most about 2^-10; atol 4e-3.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/host/host.h"
#include "examples/ref/ref.h"

/* The per-element tolerance of a K-term product of values in [-1, 1]. */
static double dot_atol(HostType in, long K) {
    double acc = host_sum_rtol(K) * (double)K / 4;
    if (in == HOST_F32) acc += 4 * 0x1p-10 * sqrt((double)K) / 3;
    return acc + 1e-6;
}

/* M, N, K, pad (extra row stride), offset (elements). */
static const long mm_shapes[][5] = {
    {64, 64, 32, 0, 0},    {128, 128, 64, 0, 0},  {256, 512, 320, 0, 0},
    {1, 1, 1, 0, 0},       {17, 9, 5, 3, 0},      {257, 129, 95, 0, 0},
    {1000, 513, 300, 8, 0}, {200, 72, 48, 0, 1},  {129, 255, 1024, 16, 1},
};

/* kind 0: matmul(c, a, b, M, N, K, lda, ldb, ldc); 1: + bias (relu);
 * 2: + bias (gelu). */
static int run_matmul(const char *dir, const char *file, const char *kname,
                      HostType t, HostRng *rng, int kind) {
    TileKernel *k = host_kernel(dir, file, kname);
    if (!k)
        return 1;
    int fails = 0;
    for (size_t i = 0; i < sizeof mm_shapes / sizeof *mm_shapes; i++) {
        long M = mm_shapes[i][0], N = mm_shapes[i][1], K = mm_shapes[i][2];
        long pad = mm_shapes[i][3], off = mm_shapes[i][4];
        long lda = K + pad, ldb = N + pad, ldc = N + pad;
        printf("  %s %s M=%ld N=%ld K=%ld pad=%ld offset=%ld\n", kname, host_type_name(t),
               M, N, K, pad, off);
        HostBuf a = host_buf(t, M * lda, off), b = host_buf(t, K * ldb, off),
                c = host_buf(t, M * ldc, off), bias = host_buf(t, N, off);
        double *ad = host_fill_uniform(&a, rng, -1, 1);
        double *bd = host_fill_uniform(&b, rng, -1, 1);
        double *bsd = host_fill_uniform(&bias, rng, -1, 1);
        host_poison_padding(&a, M, K, lda);
        host_poison_padding(&b, K, N, ldb);
        double *ref = malloc((size_t)(M * ldc) * sizeof *ref);
        if (kind == 0)
            ref_matmul(ref, ad, bd, M, N, K, lda, ldb, ldc);
        else if (kind == 1)
            ref_matmul_bias_relu(ref, ad, bd, bsd, M, N, K, lda, ldb, ldc);
        else
            ref_matmul_gelu(ref, ad, bd, bsd, M, N, K, lda, ldb, ldc);
        uint8_t *written = host_row_mask(M, N, ldc);
        TileLaunchArg args[10];
        int n = 0;
        args[n++] = tile_ptr(c.dev);
        args[n++] = tile_ptr(a.dev);
        args[n++] = tile_ptr(b.dev);
        if (kind) args[n++] = tile_ptr(bias.dev);
        args[n++] = tile_int(M), args[n++] = tile_int(N), args[n++] = tile_int(K);
        args[n++] = tile_int(lda), args[n++] = tile_int(ldb), args[n++] = tile_int(ldc);
        host_poison(&c);
        fails += host_run_check(k, args, n, "c", &c, ref, written, host_unit(t), dot_atol(t, K));
        free(ad), free(bd), free(bsd), free(ref), free(written);
        host_buf_free(&a), host_buf_free(&b), host_buf_free(&c), host_buf_free(&bias);
    }
    return fails;
}

int example_matmul(const char *dir, const char *file, HostType t, HostRng *rng) {
    return run_matmul(dir, file, "matmul", t, rng, 0);
}

int example_matmul_bias_relu(const char *dir, const char *file, HostType t, HostRng *rng) {
    return run_matmul(dir, file, "matmul_bias_relu", t, rng, 1);
}

int example_matmul_gelu(const char *dir, const char *file, HostType t, HostRng *rng) {
    return run_matmul(dir, file, "matmul_gelu", t, rng, 2);
}

int example_linear_relu(const char *dir, const char *file, HostType t, HostRng *rng) {
    return run_matmul(dir, file, "linear_relu", t, rng, 1);
}

int example_bmm(const char *dir, const char *file, HostType t, HostRng *rng) {
    TileKernel *k = host_kernel(dir, file, "bmm");
    if (!k)
        return 1;
    static const long shapes[][5] = {   /* batch, M, N, K, offset */
        {1, 64, 64, 32, 0}, {4, 128, 256, 64, 0}, {3, 100, 70, 45, 0},
        {7, 33, 129, 200, 1}, {2, 1, 1, 1, 0},
    };
    int fails = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        long B = shapes[i][0], M = shapes[i][1], N = shapes[i][2], K = shapes[i][3];
        long off = shapes[i][4], sa = M * K + 8, sb = K * N + 8, sc = M * N + 8;
        printf("  bmm batch=%ld M=%ld N=%ld K=%ld offset=%ld\n", B, M, N, K, off);
        HostBuf a = host_buf(t, B * sa, off), b = host_buf(t, B * sb, off),
                c = host_buf(t, B * sc, off);
        double *ad = host_fill_uniform(&a, rng, -1, 1);
        double *bd = host_fill_uniform(&b, rng, -1, 1);
        double *ref = malloc((size_t)(B * sc) * sizeof *ref);
        uint8_t *written = calloc((size_t)(B * sc), 1);
        ref_bmm(ref, ad, bd, B, M, N, K, sa, sb, sc, K, N, N);
        for (long j = 0; j < B; j++) memset(written + j * sc, 1, (size_t)(M * N));
        TileLaunchArg args[] = {tile_ptr(c.dev), tile_ptr(a.dev), tile_ptr(b.dev),
                                tile_int(B),     tile_int(M),     tile_int(N),
                                tile_int(K),     tile_int(sa),    tile_int(sb),
                                tile_int(sc),    tile_int(K),     tile_int(N),
                                tile_int(N)};
        host_poison(&c);
        fails += host_run_check(k, args, 13, "c", &c, ref, written, host_unit(t), dot_atol(t, K));
        free(ad), free(bd), free(ref), free(written);
        host_buf_free(&a), host_buf_free(&b), host_buf_free(&c);
    }
    return fails;
}

/* The bundle's name says the head dimension and causality
 * (attention_d128_causal.tlb). */
int example_attention(const char *dir, const char *file, HostType t, HostRng *rng) {
    TileKernel *k = host_kernel(dir, file, "attention");
    if (!k)
        return 1;
    long D = strstr(file, "d128") ? 128 : 64;
    int causal = strstr(file, "causal") != NULL;
    /* heads x S; 16 x 192 takes the aligned variant (every integer
     * argument a multiple of 16), whose loads are pipelined and whose
     * products run on wgmma with --arch=sm_90a; the others take the
     * generic one */
    static const long shapes[][2] = {{1, 64}, {2, 128}, {3, 200}, {2, 1}, {4, 1000}, {1, 257},
                                     {16, 192}};
    int fails = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        long H = shapes[i][0], S = shapes[i][1], sh = S * D, ss = D;
        double scale = 1 / sqrt((double)D);
        printf("  attention D=%ld %s heads=%ld S=%ld\n", D, causal ? "causal" : "full", H, S);
        HostBuf q = host_buf(t, H * sh, 0), kk = host_buf(t, H * sh, 0),
                v = host_buf(t, H * sh, 0), o = host_buf(t, H * sh, 0);
        double *qd = host_fill_normal(&q, rng, 1.0), *kd = host_fill_normal(&kk, rng, 1.0);
        double *vd = host_fill_uniform(&v, rng, -1, 1);
        double *ref = malloc((size_t)(H * sh) * sizeof *ref);
        ref_attention(ref, qd, kd, vd, H, S, D, sh, ss, scale, causal);
        TileLaunchArg args[] = {tile_ptr(o.dev), tile_ptr(q.dev), tile_ptr(kk.dev),
                                tile_ptr(v.dev), tile_int(H),     tile_int(S),
                                tile_int(sh),    tile_int(ss),    tile_float((float)scale)};
        host_poison(&o);
        fails += host_run_check(k, args, 9, "o", &o, ref, NULL, 2 * host_unit(t), 4e-3);
        free(qd), free(kd), free(vd), free(ref);
        host_buf_free(&q), host_buf_free(&kk), host_buf_free(&v), host_buf_free(&o);
    }
    return fails;
}

#ifndef TILE_HOST_NO_MAIN
static const struct {
    const char *name;
    HostExample fn;
    HostType type;
} mma_examples[] = {
    {"matmul", example_matmul, HOST_F16},
    {"matmul_bf16", example_matmul, HOST_BF16},
    {"matmul_f32", example_matmul, HOST_F32},
    {"matmul_bias_relu", example_matmul_bias_relu, HOST_F16},
    {"matmul_gelu", example_matmul_gelu, HOST_F16},
    {"linear_relu", example_linear_relu, HOST_F16},
    {"bmm", example_bmm, HOST_F16},
    {"attention_d64", example_attention, HOST_F16},
    {"attention_d64_causal", example_attention, HOST_F16},
    {"attention_d128", example_attention, HOST_F16},
    {"attention_d128_causal", example_attention, HOST_F16},
};

int main(int argc, char **argv) {
    /* mma [DIR [NAME]]: the bundle NAME.tlb (default matmul) */
    const char *name = argc > 2 ? argv[2] : "matmul";
    for (size_t i = 0; i < sizeof mma_examples / sizeof *mma_examples; i++)
        if (!strcmp(mma_examples[i].name, name)) {
            char file[128];
            snprintf(file, sizeof file, "%s.tlb", name);
            return host_main(argc > 2 ? 2 : argc, argv, mma_examples[i].fn, file,
                             mma_examples[i].type);
        }
    fprintf(stderr, "mma: unknown example '%s'\n", name);
    return 2;
}
#endif
