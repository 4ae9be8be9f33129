/* spin_bundle.h — a bundle whose configurations differ only in speed, for
 * the autotuner's GPU test:
 *
 *   kernel spin<ITERS: i32>(out: *f32, n: i32) @tune_key(n)
 *       grid(cdiv(n, 128))
 *
 * Every configuration adds exactly 1 to out[i] for i < n (so a launch's
 * effect is known and tuning launches that were not undone would show);
 * before that each thread runs ITERS dependent multiply-adds whose result
 * ptxas cannot fold away (it only decides, never true, whether 2 is added
 * instead of 1). ITERS = 400000, 40000, 16 and 4000: configuration 2 is
 * the fastest by far. Hand-written PTX, 4 warps, one generic variant each
 * (entry spin_iITERS). */
#ifndef TILE_TEST_SPIN_BUNDLE_H
#define TILE_TEST_SPIN_BUNDLE_H

#include <stdio.h>
#include <stdlib.h>

#include "bundle/bundle.h"

#define SPIN_NCONFIGS 4
#define SPIN_FASTEST 2
static const int spin_iters[SPIN_NCONFIGS] = {400000, 40000, 16, 4000};

/* The PTX of every entry, malloc'd. */
static char *spin_ptx(void) {
    size_t cap = 16384, used = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    used += (size_t)snprintf(s, cap, ".version 8.0\n.target sm_80\n.address_size 64\n");
    for (int c = 0; c < SPIN_NCONFIGS; c++)
        used += (size_t)snprintf(s + used, cap - used,
            "\n.visible .entry spin_i%d(.param .u64 out, .param .u32 n)\n"
            "{\n"
            "    .reg .pred %%p<3>;\n    .reg .b32 %%r<8>;\n"
            "    .reg .f32 %%f<5>;\n    .reg .b64 %%rd<5>;\n"
            "    ld.param.u64 %%rd1, [out];\n    ld.param.u32 %%r1, [n];\n"
            "    cvta.to.global.u64 %%rd1, %%rd1;\n"
            "    mov.u32 %%r2, %%ctaid.x;\n    mov.u32 %%r3, %%tid.x;\n"
            "    shl.b32 %%r2, %%r2, 7;\n    add.s32 %%r4, %%r2, %%r3;\n"
            "    setp.ge.s32 %%p1, %%r4, %%r1;\n    @%%p1 bra L%d_done;\n"
            "    mul.wide.s32 %%rd2, %%r4, 4;\n    add.s64 %%rd3, %%rd1, %%rd2;\n"
            "    ld.global.f32 %%f1, [%%rd3];\n"
            "    cvt.rn.f32.u32 %%f2, %%r3;\n    mov.u32 %%r5, 0;\n"
            "L%d_loop:\n"
            "    setp.ge.u32 %%p2, %%r5, %d;\n    @%%p2 bra L%d_end;\n"
            "    fma.rn.f32 %%f2, %%f2, 0f3F7FF972, 0f3A83126F;\n"
            "    add.u32 %%r5, %%r5, 1;\n    bra L%d_loop;\n"
            "L%d_end:\n"
            "    setp.gt.f32 %%p1, %%f2, 0f7E967699;\n"
            "    selp.f32 %%f3, 0f40000000, 0f3F800000, %%p1;\n"
            "    add.f32 %%f1, %%f1, %%f3;\n    st.global.f32 [%%rd3], %%f1;\n"
            "L%d_done:\n    ret;\n}\n",
            spin_iters[c], c, c, spin_iters[c], c, c, c, c);
    return s;
}

static int spin_bundle(void **data, size_t *size) {
    static TlbInsn grid[] = {{TLB_X_PARAM, 1, 0}, {TLB_X_CONST, 0, 128}, {TLB_X_CDIV, 0, 0}};
    static TlbParam params[] = {{"out", TLB_PTR, TLB_F32, TLB_PARAM_STORED},
                                {"n", TLB_I32, TLB_VOID, 0}};
    static TlbCparam cparams[] = {{"ITERS", TLB_CPARAM_INT, TLB_I32}};
    static int64_t cvalues[SPIN_NCONFIGS][1];
    static const uint8_t none[2];
    static TlbVariant variants[SPIN_NCONFIGS][1];
    static char entries[SPIN_NCONFIGS][32];
    static TlbConfig configs[SPIN_NCONFIGS];
    static uint32_t key[] = {1};
    for (int c = 0; c < SPIN_NCONFIGS; c++) {
        cvalues[c][0] = spin_iters[c];
        snprintf(entries[c], sizeof entries[c], "spin_i%d", spin_iters[c]);
        variants[c][0] = (TlbVariant){none, 0, entries[c], 0, 0, NULL, 0};
        configs[c] = (TlbConfig){4, 1, cvalues[c], {{3, grid}}, 0, NULL, 1, variants[c]};
    }
    static TlbKernel kernel = {"spin", 2, params, 1, cparams, 1, key, 1, SPIN_NCONFIGS,
                               configs};
    char *ptx = spin_ptx();
    if (!ptx) return -1;
    TlbBundle b = {"hand-written", "sm_80", ptx, strlen(ptx), 0, NULL, 1, &kernel, NULL};
    char err[256];
    int r = tlb_write(&b, data, size, err, sizeof err);
    if (r) fprintf(stderr, "spin_bundle: %s\n", err);
    free(ptx);
    return r;
}

#endif
