/* vadd_bundle.h — a bundle with a hand-written PTX vadd, for the runtime's
 * GPU test and the launch benchmark (until tilec writes bundles of its
 * own). The signature and metadata are what tilec gives the language
 * brief's vadd:
 *
 *   kernel vadd<BLOCK: i32 = 1024>(out: *f32, x: *f32, y: *f32, n: i32)
 *       grid(cdiv(n, BLOCK))
 *
 * with two variants: vadd_generic (scalar accesses) and vadd_aligned16
 * (16-byte vectors; assumes aligned pointers and n divisible by 16). Both
 * take the parameters in signature order, as tilec's entries do. */
#ifndef TILE_TEST_VADD_BUNDLE_H
#define TILE_TEST_VADD_BUNDLE_H

#include "bundle/bundle.h"

static const char vadd_ptx[] =
    "//\n"
    "// Hand-written vadd for the runtime's GPU tests: out[i] = x[i] + y[i] for\n"
    "// i < n, BLOCK = 1024 elements per program, 128 threads (4 warps).\n"
    "// vadd_generic: scalar accesses, any alignment.\n"
    "// vadd_aligned16: 16-byte vectors; assumes 16-byte aligned pointers and\n"
    "// n divisible by 16, so a vector is either wholly in bounds or not.\n"
    "//\n"
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry vadd_generic(\n"
    "    .param .u64 out, .param .u64 x, .param .u64 y, .param .u32 n)\n"
    "{\n"
    "    .reg .pred %p<3>;\n"
    "    .reg .b32 %r<8>;\n"
    "    .reg .f32 %f<4>;\n"
    "    .reg .b64 %rd<10>;\n"
    "\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    ld.param.u64 %rd2, [x];\n"
    "    ld.param.u64 %rd3, [y];\n"
    "    ld.param.u32 %r1, [n];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    cvta.to.global.u64 %rd2, %rd2;\n"
    "    cvta.to.global.u64 %rd3, %rd3;\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %tid.x;\n"
    "    shl.b32 %r2, %r2, 10;\n"
    "    add.s32 %r4, %r2, %r3;\n"
    "    mov.u32 %r5, 0;\n"
    "LOOP:\n"
    "    setp.ge.s32 %p1, %r4, %r1;\n"
    "    @%p1 bra NEXT;\n"
    "    mul.wide.s32 %rd4, %r4, 4;\n"
    "    add.s64 %rd5, %rd2, %rd4;\n"
    "    ld.global.f32 %f1, [%rd5];\n"
    "    add.s64 %rd6, %rd3, %rd4;\n"
    "    ld.global.f32 %f2, [%rd6];\n"
    "    add.f32 %f3, %f1, %f2;\n"
    "    add.s64 %rd7, %rd1, %rd4;\n"
    "    st.global.f32 [%rd7], %f3;\n"
    "NEXT:\n"
    "    add.s32 %r4, %r4, 128;\n"
    "    add.s32 %r5, %r5, 1;\n"
    "    setp.lt.u32 %p2, %r5, 8;\n"
    "    @%p2 bra LOOP;\n"
    "    ret;\n"
    "}\n"
    "\n"
    ".visible .entry vadd_aligned16(\n"
    "    .param .u64 out, .param .u64 x, .param .u64 y, .param .u32 n)\n"
    "{\n"
    "    .reg .pred %p<3>;\n"
    "    .reg .b32 %r<8>;\n"
    "    .reg .f32 %f<13>;\n"
    "    .reg .b64 %rd<10>;\n"
    "\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    ld.param.u64 %rd2, [x];\n"
    "    ld.param.u64 %rd3, [y];\n"
    "    ld.param.u32 %r1, [n];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    cvta.to.global.u64 %rd2, %rd2;\n"
    "    cvta.to.global.u64 %rd3, %rd3;\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %tid.x;\n"
    "    shl.b32 %r2, %r2, 10;\n"
    "    shl.b32 %r3, %r3, 2;\n"
    "    add.s32 %r4, %r2, %r3;\n"
    "    mov.u32 %r5, 0;\n"
    "LOOP:\n"
    "    setp.ge.s32 %p1, %r4, %r1;\n"
    "    @%p1 bra NEXT;\n"
    "    mul.wide.s32 %rd4, %r4, 4;\n"
    "    add.s64 %rd5, %rd2, %rd4;\n"
    "    ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5];\n"
    "    add.s64 %rd6, %rd3, %rd4;\n"
    "    ld.global.v4.f32 {%f5, %f6, %f7, %f8}, [%rd6];\n"
    "    add.f32 %f9, %f1, %f5;\n"
    "    add.f32 %f10, %f2, %f6;\n"
    "    add.f32 %f11, %f3, %f7;\n"
    "    add.f32 %f12, %f4, %f8;\n"
    "    add.s64 %rd7, %rd1, %rd4;\n"
    "    st.global.v4.f32 [%rd7], {%f9, %f10, %f11, %f12};\n"
    "NEXT:\n"
    "    add.s32 %r4, %r4, 512;\n"
    "    add.s32 %r5, %r5, 1;\n"
    "    setp.lt.u32 %p2, %r5, 2;\n"
    "    @%p2 bra LOOP;\n"
    "    ret;\n"
    "}\n";

/* Serializes the vadd bundle (malloc'd, free it); 0 or -1. */
static int vadd_bundle(void **data, size_t *size) {
    static TlbInsn grid[] = {{TLB_X_PARAM, 3, 0}, {TLB_X_CONST, 0, 1024},
                             {TLB_X_CDIV, 0, 0}};
    static TlbParam params[] = {{"out", TLB_PTR, TLB_F32, TLB_PARAM_STORED},
                                {"x", TLB_PTR, TLB_F32, 0},
                                {"y", TLB_PTR, TLB_F32, 0},
                                {"n", TLB_I32, TLB_VOID, 0}};
    static TlbCparam cparams[] = {{"BLOCK", TLB_CPARAM_INT, TLB_I32}};
    static int64_t cvalues[] = {1024};
    static const uint8_t none[4], all[4] = {4, 4, 4, 4};
    static TlbVariant variants[] = {{all, 0, "vadd_aligned16", 0, 0, NULL, 0}, {none, 0, "vadd_generic", 0, 0, NULL, 0}};
    static uint32_t key[] = {3};
    static TlbConfig config = {4, 3, cvalues, {{3, grid}}, 0, NULL, 2, variants};
    static TlbKernel kernel = {"vadd", 4, params, 1, cparams, 1, key, 1, 1, &config};
    TlbBundle b = {"hand-written", "sm_80", vadd_ptx, sizeof vadd_ptx - 1, 0, NULL,
                   1, &kernel, NULL};
    char err[256];
    if (tlb_write(&b, data, size, err, sizeof err)) {
        fprintf(stderr, "vadd_bundle: %s\n", err);
        return -1;
    }
    return 0;
}

#endif
