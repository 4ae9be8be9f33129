/*
 * examples_gpu.c — every example kernel that tilec compiles for the GPU,
 * run from its bundle through libtile and checked against the C
 * references (examples/ref) on fresh random inputs. Exit 77 without a GPU.
 *
 *   examples_gpu BUNDLE_DIR [NAME ...]
 *   examples_gpu --probe        exit 0 with a GPU, 77 without
 *
 * BUNDLE_DIR holds the bundles `scripts/gpu-bench.sh prepare` (or
 * tests/gpu/examples-gpu.test) builds: one per example and type, and
 * spec.tlb, the LANGUAGE.md examples compiled as printed there (all but
 * matmul_bias_relu, whose spec configurations need more than the 48 KiB
 * of static shared memory), and the tensor-core examples in one tile
 * configuration each (examples/host/mma.c).
 * NAMEs pick entries of the table below (all by default). The checks are
 * those of the example programs in examples/host/, each example's sizes,
 * offsets and tolerances in its own file. A failing or missing bundle is
 * reported and the rest still run. The seed is printed; TILE_SEED=S
 * replays it. Exit status: 0 all passed, 1 a failure, 77 no GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "examples/host/host.h"

static const struct {
    const char *name, *file;
    HostExample fn;
    HostType type;
} examples[] = {
    {"vadd", "vadd.tlb", example_vadd, HOST_F32},
    {"bias_gelu", "bias_gelu.tlb", example_bias_gelu, HOST_F32},
    {"bias_gelu_bf16", "bias_gelu_bf16.tlb", example_bias_gelu, HOST_BF16},
    {"softmax", "softmax.tlb", example_softmax, HOST_F32},
    {"layernorm", "layernorm.tlb", example_layernorm, HOST_F32},
    {"layernorm_f16", "layernorm_f16.tlb", example_layernorm, HOST_F16},
    {"cross_entropy", "cross_entropy.tlb", example_cross_entropy, HOST_F32},
    {"stencil", "stencil.tlb", example_stencil, HOST_F32},
    {"dropout", "dropout.tlb", example_dropout, HOST_F32},
    {"transpose", "transpose.tlb", example_transpose, HOST_F32},
    {"spec_vadd", "spec.tlb", example_vadd, HOST_F32},
    {"spec_bias_gelu", "spec.tlb", example_bias_gelu, HOST_F32},
    {"spec_softmax", "spec.tlb", example_softmax, HOST_F32},
    {"matmul", "matmul.tlb", example_matmul, HOST_F16},
    {"matmul_bf16", "matmul_bf16.tlb", example_matmul, HOST_BF16},
    {"matmul_f32", "matmul_f32.tlb", example_matmul, HOST_F32},
    {"matmul_bias_relu", "matmul_bias_relu.tlb", example_matmul_bias_relu, HOST_F16},
    {"matmul_gelu", "matmul_gelu.tlb", example_matmul_gelu, HOST_F16},
    {"matmul_wg", "matmul_wg.tlb", example_matmul, HOST_F16},
    {"matmul_wg_bf16", "matmul_wg_bf16.tlb", example_matmul, HOST_BF16},
    {"matmul_bias_relu_wg", "matmul_bias_relu_wg.tlb", example_matmul_bias_relu, HOST_F16},
    {"linear_relu", "linear_relu.tlb", example_linear_relu, HOST_F16},
    {"linear_relu_wg", "linear_relu_wg.tlb", example_linear_relu, HOST_F16},
    {"bmm", "bmm.tlb", example_bmm, HOST_F16},
    {"attention_d64", "attention_d64.tlb", example_attention, HOST_F16},
    {"attention_d64_causal", "attention_d64_causal.tlb", example_attention, HOST_F16},
    {"attention_d128", "attention_d128.tlb", example_attention, HOST_F16},
    {"attention_d128_causal", "attention_d128_causal.tlb", example_attention, HOST_F16},
    {"attention_d128_wg", "attention_d128_wg.tlb", example_attention, HOST_F16},
    {"attention_d128_causal_wg", "attention_d128_causal_wg.tlb", example_attention, HOST_F16},
};

static int wanted(const char *name, int argc, char **argv) {
    if (argc <= 2)
        return 1;
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], name))
            return 1;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s BUNDLE_DIR [NAME ...]\n", argv[0]);
        return 2;
    }
    host_init("examples_gpu");
    if (!strcmp(argv[1], "--probe"))
        return 0;
    const char *env = getenv("TILE_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    printf("seed %llu (TILE_SEED=%llu replays it)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    int total = 0, ran = 0;
    char summary[4096] = "";
    size_t used = 0;
    for (size_t i = 0; i < sizeof examples / sizeof *examples; i++) {
        if (!wanted(examples[i].name, argc, argv))
            continue;
        printf("== %s (%s)\n", examples[i].name, examples[i].file);
        fflush(stdout);
        HostRng rng = {seed + i};
        int fails = examples[i].fn(argv[1], examples[i].file, examples[i].type, &rng);
        printf("== %s: %s\n", examples[i].name, fails ? "FAIL" : "ok");
        fflush(stdout);
        used += (size_t)snprintf(summary + used, sizeof summary - used, "  %-22s %s\n",
                                 examples[i].name, fails ? "FAIL" : "ok");
        total += fails != 0;
        ran++;
    }
    printf("examples_gpu summary:\n%s%d of %d example(s) failed\n", summary, total, ran);
    return total || ran == 0 ? 1 : 0;
}
