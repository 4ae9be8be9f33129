/* test_tmap.c — libtile's tensor maps (TMA descriptors) without a GPU,
 * against the working mode of the driver test double (fake_libcuda.c,
 * FAKE_CUDA_WORKING=1), which records every cuTensorMapEncodeTiled call
 * and the maps each launch passes (fake_cuda.h).
 *
 * Checked: what libtile asks the driver to encode (data type, rank,
 * address, extents innermost first, strides in bytes, box, element
 * strides, interleave, swizzle, L2 promotion, OOB fill); that a launch
 * passes the ordinary parameters, then the maps, 64-byte aligned; the
 * extents clamped to [1, 2^32]; every argument error (base alignment,
 * strides below 1 element, not a multiple of 16 bytes, of 2^40 bytes or
 * more, division by zero) with its message, and none for an empty grid;
 * a failing encoding and a driver without cuTensorMapEncodeTiled (in a
 * child process: libtile loads the driver once per process) with theirs;
 * the per-thread cache (an identical launch encodes nothing, another
 * base encodes that map only); the plan's fields (RtPlan.tmap) as a
 * simulator reads them; the autotuner's timing launches, each of
 * which must pass the maps of the candidate it times; and row maps
 * (rank 1: what tilec --row-tma emitted until it was withdrawn in
 * session 34; a bundle may still hold them): their extent, and the
 * bounds that leave their variant to the next. */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/rt.h"
#include "tests/unit/check.h"
#include "tests/unit/bundle_util.h"
#include "tests/unit/fake_cuda.h"

#define FAKE TILE_BUILDDIR "/tests/unit/fakecuda.so"

/* mm(c: *f32 stored, a: *f16, b: *f16, M, N, K, lda, ldb: i32)
 * grid(cdiv(M, 64)); variant mm_tma (M even) takes two maps:
 *   a: f16 [K, M] stride [lda] box [64, 128] swizzle 128
 *   b: f16 [N * 4, K - 8, 1024 / N] stride [ldb, ldb * K] box [8, 16, 2]
 * and mm_plain (anything) none. */
enum { C, A, B, M, N, K, LDA, LDB, NPARAMS };
static TlbParam mm_params[] = {
    {"c", TLB_PTR, TLB_F32, TLB_PARAM_STORED}, {"a", TLB_PTR, TLB_F16, 0},
    {"b", TLB_PTR, TLB_F16, 0}, {"M", TLB_I32, 0, 0}, {"N", TLB_I32, 0, 0},
    {"K", TLB_I32, 0, 0}, {"lda", TLB_I32, 0, 0}, {"ldb", TLB_I32, 0, 0}};
static TlbInsn x_m[] = {{TLB_X_PARAM, M, 0}}, x_k[] = {{TLB_X_PARAM, K, 0}},
               x_lda[] = {{TLB_X_PARAM, LDA, 0}}, x_ldb[] = {{TLB_X_PARAM, LDB, 0}},
               x_n4[] = {{TLB_X_PARAM, N, 0}, {TLB_X_CONST, 0, 4}, {TLB_X_MUL, 0, 0}},
               x_k8[] = {{TLB_X_PARAM, K, 0}, {TLB_X_CONST, 0, 8}, {TLB_X_SUB, 0, 0}},
               x_1024n[] = {{TLB_X_CONST, 0, 1024}, {TLB_X_PARAM, N, 0}, {TLB_X_DIV, 0, 0}},
               x_ldbk[] = {{TLB_X_PARAM, LDB, 0}, {TLB_X_PARAM, K, 0}, {TLB_X_MUL, 0, 0}},
               x_grid[] = {{TLB_X_PARAM, M, 0}, {TLB_X_CONST, 0, 64}, {TLB_X_CDIV, 0, 0}};
static TlbTmap mm_maps[] = {
    {.param = A, .elem = TLB_F16, .rank = 2, .swizzle = 128, .box = {64, 128},
     .dim = {{1, x_k}, {1, x_m}}, .stride = {{1, x_lda}}},
    {.param = B, .elem = TLB_F16, .rank = 3, .swizzle = 0, .box = {8, 16, 2},
     .dim = {{3, x_n4}, {3, x_k8}, {3, x_1024n}}, .stride = {{1, x_ldb}, {3, x_ldbk}}}};
static const uint8_t none[NPARAMS], m_even[NPARAMS] = {[M] = 1};
static TlbVariant mm_v[] = {{m_even, 0, "mm_tma", 0, 2, mm_maps, 0},
                            {none, 0, "mm_plain", 0, 0, NULL, 0}};
static TlbConfig mm_configs[] = {{4, 1, NULL, {{3, x_grid}}, 0, NULL, 2, mm_v}};
/* mmt: mm with mm_tma alone, so that maps that cannot be made leave no
 * variant to fall back on. */
static TlbConfig mmt_configs[] = {{4, 1, NULL, {{3, x_grid}}, 0, NULL, 1, mm_v}};

/* pick(out: *f32 stored, x: *f16, n: i32) grid(cdiv(n, BLOCK)), BLOCK 64
 * or 128, each with a map of x: f16 [n + BLOCK] box [BLOCK]. */
static TlbParam pick_params[] = {{"out", TLB_PTR, TLB_F32, TLB_PARAM_STORED},
                                 {"x", TLB_PTR, TLB_F16, 0}, {"n", TLB_I32, 0, 0}};
static TlbCparam pick_cparams[] = {{"BLOCK", TLB_CPARAM_INT, TLB_I32}};
static int64_t blocks[2][1] = {{64}, {128}};
static TlbInsn n64[] = {{TLB_X_PARAM, 2, 0}, {TLB_X_CONST, 0, 64}, {TLB_X_ADD, 0, 0}},
               n128[] = {{TLB_X_PARAM, 2, 0}, {TLB_X_CONST, 0, 128}, {TLB_X_ADD, 0, 0}},
               g64[] = {{TLB_X_PARAM, 2, 0}, {TLB_X_CONST, 0, 64}, {TLB_X_CDIV, 0, 0}},
               g128[] = {{TLB_X_PARAM, 2, 0}, {TLB_X_CONST, 0, 128}, {TLB_X_CDIV, 0, 0}};
static TlbTmap pick_maps[2][1] = {
    {{.param = 1, .elem = TLB_F16, .rank = 1, .box = {64}, .dim = {{3, n64}}}},
    {{.param = 1, .elem = TLB_F16, .rank = 1, .box = {128}, .dim = {{3, n128}}}}};
static TlbVariant pick_v[2][1] = {{{none, 0, "pick_b64", 0, 1, pick_maps[0], 0}},
                                  {{none, 0, "pick_b128", 0, 1, pick_maps[1], 0}}};
static TlbConfig pick_configs[] = {{4, 1, blocks[0], {{3, g64}}, 0, NULL, 1, pick_v[0]},
                                   {4, 1, blocks[1], {{3, g128}}, 0, NULL, 1, pick_v[1]}};
static uint32_t pick_key[] = {2};

/* rows: mm whose variant row_tma reads a by a row map (tilec --row-tma,
 * bundle/from_ir.c's row_extent): rank 1, extent
 *   lda >= 1 ? (M - 1) * lda + K : 2^40
 * box [64] swizzle 128; row_plain takes anything (rowst: row_tma alone). */
static TlbInsn x_rows[] = {{TLB_X_PARAM, LDA, 0}, {TLB_X_CONST, 0, 1}, {TLB_X_GE, 0, 0},
                           {TLB_X_PARAM, M, 0},   {TLB_X_CONST, 0, 1}, {TLB_X_SUB, 0, 0},
                           {TLB_X_PARAM, LDA, 0}, {TLB_X_MUL, 0, 0},   {TLB_X_PARAM, K, 0},
                           {TLB_X_ADD, 0, 0},     {TLB_X_CONST, 0, INT64_C(1) << 40},
                           {TLB_X_SELECT, 0, 0}};
static TlbTmap row_maps[] = {
    {.param = A, .elem = TLB_F16, .rank = 1, .swizzle = 128, .box = {64}, .dim = {{12, x_rows}}}};
static TlbVariant row_v[] = {{none, 0, "row_tma", 0, 1, row_maps, 0},
                             {none, 0, "row_plain", 0, 0, NULL, 0}};
static TlbConfig row_configs[] = {{4, 1, NULL, {{3, x_grid}}, 0, NULL, 2, row_v}};
static TlbConfig rowt_configs[] = {{4, 1, NULL, {{3, x_grid}}, 0, NULL, 1, row_v}};

static TlbKernel kernels[] = {
    {"mm", NPARAMS, mm_params, 0, NULL, 0, NULL, 1, 1, mm_configs},
    {"pick", 3, pick_params, 1, pick_cparams, 1, pick_key, 1, 2, pick_configs},
    {"mmt", NPARAMS, mm_params, 0, NULL, 0, NULL, 1, 1, mmt_configs},
    {"rows", NPARAMS, mm_params, 0, NULL, 0, NULL, 1, 1, row_configs},
    {"rowst", NPARAMS, mm_params, 0, NULL, 0, NULL, 1, 1, rowt_configs}};

static int (*tmap_calls)(void);
static const FakeTmapCall *(*tmap_call)(int);
static const FakeLaunch *(*launch_log)(int);
static int (*launches)(void);
static CUdeviceptr out;

static void *sym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    CHECK(p != NULL);
    return p;
}

typedef struct MmArgs {
    uint64_t a, b;
    int64_t m, n, k, lda, ldb;
} MmArgs;

static TileStatus launch_mm(TileKernel *k, const MmArgs *x) {
    TileLaunchArg args[NPARAMS] = {tile_ptr(out), tile_ptr(x->a), tile_ptr(x->b),
                                   tile_int(x->m), tile_int(x->n), tile_int(x->k),
                                   tile_int(x->lda), tile_int(x->ldb)};
    return tile_launch(k, args, NPARAMS, NULL);
}

static const MmArgs base = {0x10000, 0x20000, 256, 512, 100, 104, 520};

/* The call that made map t of the last launch. */
static const FakeTmapCall *map_of_last(int t) {
    const FakeLaunch *l = launch_log(launches());
    if (!l || l->maps[t][0] != FAKE_TMAP_MAGIC) return NULL;
    return tmap_call((int)l->maps[t][1]);
}

static void test_encode(TileKernel *k) {
    setenv("FAKE_CUDA_NPARAMS", "8", 1);
    setenv("FAKE_CUDA_NTMAPS", "2", 1);
    int calls = tmap_calls();
    CHECK(launch_mm(k, &base) == TILE_OK);
    CHECK(tmap_calls() == calls + 2);
    const FakeLaunch *l = launch_log(launches());
    CHECK(l && strcmp(l->entry, "mm_tma") == 0 && l->aligned);
    if (!l) return;
    /* the ordinary parameters first, in their slots */
    CHECK(l->params[C] == out && l->params[A] == base.a && l->params[B] == base.b &&
          (uint32_t)l->params[M] == 256 && (uint32_t)l->params[LDB] == 520);
    const FakeTmapCall *a = map_of_last(0), *b = map_of_last(1);
    CHECK(a && b && a == tmap_call(calls + 1) && b == tmap_call(calls + 2));
    if (!a || !b) return;
    CHECK(a->type == CU_TENSOR_MAP_DATA_TYPE_FLOAT16 && a->rank == 2 && a->addr == base.a);
    CHECK(a->dim[0] == 100 && a->dim[1] == 256 && a->stride[0] == 208);
    CHECK(a->box[0] == 64 && a->box[1] == 128 && a->estride[0] == 1 && a->estride[1] == 1);
    CHECK(a->interleave == CU_TENSOR_MAP_INTERLEAVE_NONE &&
          a->swizzle == CU_TENSOR_MAP_SWIZZLE_128B &&
          a->l2 == CU_TENSOR_MAP_L2_PROMOTION_L2_128B &&
          a->oob == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    CHECK(b->type == CU_TENSOR_MAP_DATA_TYPE_FLOAT16 && b->rank == 3 && b->addr == base.b);
    CHECK(b->dim[0] == 2048 && b->dim[1] == 92 && b->dim[2] == 2);
    CHECK(b->stride[0] == 1040 && b->stride[1] == 520 * 100 * 2);
    CHECK(b->box[0] == 8 && b->box[1] == 16 && b->box[2] == 2 && b->estride[2] == 1);
    CHECK(b->swizzle == CU_TENSOR_MAP_SWIZZLE_NONE);
    /* odd M: mm_plain, no maps */
    MmArgs x = base;
    x.m = 255;
    calls = tmap_calls();
    CHECK(launch_mm(k, &x) == TILE_OK && tmap_calls() == calls);
    CHECK(strcmp(launch_log(launches())->entry, "mm_plain") == 0);
}

/* Extents below 1 become 1, above 2^32 become 2^32. */
static void test_clamp(TileKernel *k) {
    MmArgs x = base;
    x.k = 4;
    x.lda = 8;
    x.n = INT32_MAX - 1;       /* even: N * 4 > 2^32; 1024 / N = 0 */
    CHECK(launch_mm(k, &x) == TILE_OK);
    const FakeTmapCall *a = map_of_last(0), *b = map_of_last(1);
    CHECK(a && b);
    if (!a || !b) return;
    CHECK(a->dim[0] == 4 && a->stride[0] == 16);
    CHECK(b->dim[0] == UINT64_C(1) << 32 && b->dim[1] == 1 && b->dim[2] == 1);
    CHECK(b->stride[1] == 520 * 4 * 2);
    x.n = 1 << 30;             /* N * 4 = 2^32 exactly: kept */
    CHECK(launch_mm(k, &x) == TILE_OK);
    b = map_of_last(1);
    CHECK(b && b->dim[0] == UINT64_C(1) << 32 && b->dim[2] == 1);
}

static void expect_error(TileKernel *k, const MmArgs *x, TileStatus want, const char *msg) {
    int n = launches();
    TileStatus s = launch_mm(k, x);
    CHECK(s == want && launches() == n);
    CHECK_STR(tile_last_error(), msg);
}

/* With a variant without maps behind it, arguments that cannot make
 * mm_tma's maps (or a driver refusing them) launch mm_plain. */
static void test_fallback(TileKernel *k) {
    MmArgs bad[4] = {base, base, base, base};
    bad[0].a = 0x10008;
    bad[1].lda = 0;
    bad[2].lda = -8;
    bad[3].n = 0;
    for (int i = 0; i < 4; i++) {
        int n = launches();
        CHECK(launch_mm(k, &bad[i]) == TILE_OK && launches() == n + 1);
        CHECK(strcmp(launch_log(launches())->entry, "mm_plain") == 0);
    }
    MmArgs x = base;
    x.a = 0x40000;   /* a key not in the cache */
    setenv("FAKE_CUDA_TMAP_FAIL", "1", 1);
    CHECK(launch_mm(k, &x) == TILE_OK);
    CHECK(strcmp(launch_log(launches())->entry, "mm_plain") == 0);
    unsetenv("FAKE_CUDA_TMAP_FAIL");
    CHECK(launch_mm(k, &base) == TILE_OK);
    CHECK(strcmp(launch_log(launches())->entry, "mm_tma") == 0);
}

/* Without one (kernel mmt), the errors. */
static void test_errors(TileKernel *k) {
    const char *pre = "kernel 'mmt': entry 'mm_tma': tensor map ";
    char msg[512];
    MmArgs x = base;
    x.a = 0x10008;
    snprintf(msg, sizeof msg, "%s0 of argument 1 ('a', *f16): its base address 0x10008 is "
             "not 16-byte aligned", pre);
    expect_error(k, &x, TILE_ERROR_ARGUMENT, msg);
    x = base;
    x.lda = 100;
    snprintf(msg, sizeof msg, "%s0 of argument 1 ('a', *f16): the stride of dimension 1 is "
             "100 elements = 200 bytes, not a multiple of 16", pre);
    expect_error(k, &x, TILE_ERROR_ARGUMENT, msg);
    int64_t small[] = {0, -8};
    for (int i = 0; i < 2; i++) {
        x.lda = small[i];
        snprintf(msg, sizeof msg, "%s0 of argument 1 ('a', *f16): the stride of dimension 1 "
                 "is %lld elements (must be at least 1)", pre, (long long)small[i]);
        expect_error(k, &x, TILE_ERROR_ARGUMENT, msg);
    }
    x = base;
    x.ldb = 1 << 20;
    x.k = 1 << 19;             /* ldb * K = 2^39 elements = 2^40 bytes */
    snprintf(msg, sizeof msg, "%s1 of argument 2 ('b', *f16): the stride of dimension 2 is "
             "549755813888 elements of 2 bytes (must be below 2^40 bytes)", pre);
    expect_error(k, &x, TILE_ERROR_ARGUMENT, msg);
    x.k = (1 << 19) - 8;       /* just below */
    x.lda = 1 << 20;
    CHECK(launch_mm(k, &x) == TILE_OK);
    x = base;
    x.n = 0;
    snprintf(msg, sizeof msg, "%s1 of argument 2 ('b', *f16): division by zero in the "
             "extent of dimension 2", pre);
    expect_error(k, &x, TILE_ERROR_ARGUMENT, msg);
    /* an empty grid launches nothing: no map is evaluated */
    x = base;
    x.m = 0;
    x.lda = 3;
    int n = launches();
    CHECK(launch_mm(k, &x) == TILE_OK && launches() == n);
    /* the driver refusing to encode (a key not in the cache) */
    x = base;
    x.a = 0x30000;
    setenv("FAKE_CUDA_TMAP_FAIL", "1", 1);
    expect_error(k, &x, TILE_ERROR_CUDA,
                 "kernel 'mmt': entry 'mm_tma': cannot encode tensor map 0 of argument 1 ('a', "
                 "base 0x30000, dims [100, 256, 0], strides [208, 0] bytes, box [64, 128, 0]): "
                 "CUDA_ERROR_INVALID_VALUE (invalid argument)");
    unsetenv("FAKE_CUDA_TMAP_FAIL");
}

/* A row map: encoded with rank 1 and the whole buffer's extent; a row
 * stride below 1, or an extent from 2^31 - 2^16 on (its copies'
 * coordinates are 32-bit), leaves the variant to the next (k), or is an
 * error without one (kt). */
static void test_rows(TileKernel *k, TileKernel *kt) {
    MmArgs x = base;
    x.m = 100, x.k = 87, x.lda = 87;
    CHECK(launch_mm(k, &x) == TILE_OK);
    CHECK(strcmp(launch_log(launches())->entry, "row_tma") == 0);
    const FakeTmapCall *a = map_of_last(0);
    CHECK(a && a->rank == 1 && a->addr == base.a && a->dim[0] == 99 * 87 + 87 &&
          a->box[0] == 64 && a->swizzle == CU_TENSOR_MAP_SWIZZLE_128B);
    x.lda = 0;
    CHECK(launch_mm(k, &x) == TILE_OK);
    CHECK(strcmp(launch_log(launches())->entry, "row_plain") == 0);
    x.m = 1 << 16, x.lda = 1 << 15, x.k = 1 << 15;   /* extent M 2^15: 2^31 */
    CHECK(launch_mm(k, &x) == TILE_OK);
    CHECK(strcmp(launch_log(launches())->entry, "row_plain") == 0);
    x.m = (1 << 16) - 2;       /* 2^31 - 2^16 exactly: refused */
    CHECK(launch_mm(k, &x) == TILE_OK);
    CHECK(strcmp(launch_log(launches())->entry, "row_plain") == 0);
    x.m = (1 << 16) - 3;       /* one row less: kept */
    CHECK(launch_mm(k, &x) == TILE_OK);
    CHECK(strcmp(launch_log(launches())->entry, "row_tma") == 0);
    a = map_of_last(0);
    CHECK(a && a->dim[0] == (uint64_t)((1 << 16) - 3) << 15);
    x.lda = -3;
    expect_error(kt, &x, TILE_ERROR_ARGUMENT,
                 "kernel 'rowst': entry 'row_tma': tensor map 0 of argument 1 ('a', *f16): a "
                 "row map's extent is 1099511627776 elements (its row stride below 1, or not "
                 "below 2^31 - 2^16 elements)");
}

/* An identical launch encodes nothing; another base encodes its map only,
 * other strides theirs. */
static void test_cache(TileKernel *k) {
    MmArgs x = base;
    CHECK(launch_mm(k, &x) == TILE_OK);
    int calls = tmap_calls();
    const FakeLaunch *l = launch_log(launches());
    unsigned long long first[2][16];
    memcpy(first, l->maps, sizeof first);
    CHECK(launch_mm(k, &x) == TILE_OK && tmap_calls() == calls);
    l = launch_log(launches());
    CHECK(memcmp(first, l->maps, sizeof first) == 0 && l->aligned);
    x.a = 0x40000;
    CHECK(launch_mm(k, &x) == TILE_OK && tmap_calls() == calls + 1);
    CHECK(map_of_last(0) == tmap_call(calls + 1) && map_of_last(0)->addr == 0x40000);
    CHECK(memcmp(first[1], launch_log(launches())->maps[1], 128) == 0);
    CHECK(launch_mm(k, &x) == TILE_OK && tmap_calls() == calls + 1);
    x.ldb = 528;
    CHECK(launch_mm(k, &x) == TILE_OK && tmap_calls() == calls + 2);
    CHECK(map_of_last(1) && map_of_last(1)->stride[0] == 1056);
    /* Many keys alike but for a stride share the 16 entries: every launch
     * must still pass its own map, hit or miss. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 40; i++) {
            x.ldb = 520 + 8 * i;
            CHECK(launch_mm(k, &x) == TILE_OK);
            const FakeTmapCall *c = map_of_last(1);
            CHECK(c && c->stride[0] == (unsigned long long)x.ldb * 2 &&
                  c->stride[1] == (unsigned long long)x.ldb * 200 && c->addr == base.b);
        }
}

/* The plan alone, as a simulator reads it. */
static void test_plan(TileKernel *k) {
    TileLaunchArg args[NPARAMS] = {tile_ptr(out), tile_ptr(base.a), tile_ptr(base.b),
                                   tile_int(256), tile_int(512), tile_int(100),
                                   tile_int(104), tile_int(520)};
    RtPlan p;
    memset(&p, 0xff, sizeof p);
    CHECK(rt_plan(k, NULL, args, NPARAMS, &p) == TILE_OK);
    CHECK(p.ntmaps == 2 && p.variant->v->ntmaps == 2 && p.variant->v->tmaps[1].box[1] == 16);
    CHECK(p.tmap[0].base == base.a && p.tmap[0].dim[0] == 100 && p.tmap[0].dim[1] == 256 &&
          p.tmap[0].dim[2] == 0 && p.tmap[0].stride[0] == 208 && p.tmap[0].stride[1] == 0);
    CHECK(p.tmap[1].base == base.b && p.tmap[1].dim[2] == 2 && p.tmap[1].stride[1] == 104000);
    args[M] = tile_int(255);
    CHECK(rt_plan(k, NULL, args, NPARAMS, &p) == TILE_OK && p.ntmaps == 0);
    CHECK(rt_tmap_data_type(TLB_F8E4M3) == CU_TENSOR_MAP_DATA_TYPE_UINT8 &&
          rt_tmap_data_type(TLB_I8) == CU_TENSOR_MAP_DATA_TYPE_UINT8 &&
          rt_tmap_data_type(TLB_I16) == CU_TENSOR_MAP_DATA_TYPE_UINT16 &&
          rt_tmap_data_type(TLB_U32) == CU_TENSOR_MAP_DATA_TYPE_UINT32 &&
          rt_tmap_data_type(TLB_I32) == CU_TENSOR_MAP_DATA_TYPE_INT32 &&
          rt_tmap_data_type(TLB_I64) == CU_TENSOR_MAP_DATA_TYPE_INT64 &&
          rt_tmap_data_type(TLB_U64) == CU_TENSOR_MAP_DATA_TYPE_UINT64 &&
          rt_tmap_data_type(TLB_BF16) == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 &&
          rt_tmap_data_type(TLB_F32) == CU_TENSOR_MAP_DATA_TYPE_FLOAT32 &&
          rt_tmap_data_type(TLB_F64) == CU_TENSOR_MAP_DATA_TYPE_FLOAT64 &&
          rt_tmap_data_type(TLB_BOOL) == -1);
}

/* Tuning pick: every launch of an entry passes that entry's map (the
 * extent n + BLOCK tells them apart). */
static void test_tuning(TileBundle *bundle) {
    TileKernel *k = NULL;
    CHECK(tile_kernel_get(bundle, "pick", &k) == TILE_OK);
    setenv("FAKE_CUDA_NPARAMS", "3", 1);
    setenv("FAKE_CUDA_NTMAPS", "1", 1);
    setenv("FAKE_CUDA_TIMES", "pick_b64:50,pick_b128:5", 1);
    int first = launches() + 1;
    TileLaunchArg args[3] = {tile_ptr(out), tile_ptr(0x50000), tile_int(1000)};
    CHECK(tile_launch(k, args, 3, NULL) == TILE_OK);
    int n64 = 0, n128 = 0;
    for (int i = first; i <= launches(); i++) {
        const FakeLaunch *l = launch_log(i);
        const FakeTmapCall *c = l && l->maps[0][0] == FAKE_TMAP_MAGIC
                                    ? tmap_call((int)l->maps[0][1]) : NULL;
        CHECK(c != NULL);
        if (!c) continue;
        int b64 = strcmp(l->entry, "pick_b64") == 0;
        n64 += b64, n128 += !b64;
        CHECK(c->dim[0] == (b64 ? 1064u : 1128u) && c->box[0] == (b64 ? 64u : 128u));
    }
    CHECK(n64 >= 2 && n128 >= 3);   /* both timed; pick_b128 won and ran */
    CHECK(strcmp(launch_log(launches())->entry, "pick_b128") == 0);
    unsetenv("FAKE_CUDA_TIMES");
}

/* A driver without cuTensorMapEncodeTiled, in a child: a variant with
 * maps falls back on the next one without, or where there is none fails
 * with its own message; the others launch. */
static void test_missing_symbol(void) {
    pid_t pid = fork();
    if (pid == 0) {
        setenv("FAKE_CUDA_MISSING", "cuTensorMapEncodeTiled", 1);
        TileBundle *b = load_kernels(kernels, 5);
        TileKernel *k = NULL, *kt = NULL;
        if (!b || tile_kernel_get(b, "mm", &k) || tile_kernel_get(b, "mmt", &kt)) _exit(2);
        if (launch_mm(k, &base) != TILE_OK) _exit(6);
        TileStatus s = launch_mm(kt, &base);
        if (s != TILE_ERROR_DRIVER_TOO_OLD) _exit(3);
        if (strcmp(tile_last_error(), "kernel 'mmt': variant 'mm_tma' uses TMA, which this "
                   "driver (cuTensorMapEncodeTiled) lacks")) {
            fprintf(stderr, "got '%s'\n", tile_last_error());
            _exit(4);
        }
        MmArgs x = base;
        x.m = 255;
        _exit(launch_mm(k, &x) == TILE_OK ? 0 : 5);
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void) {
    char dir[] = "/tmp/tile-tmap-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("TILE_CACHE_DIR", dir, 1);
    setenv("TILE_LIBCUDA", FAKE, 1);
    setenv("FAKE_CUDA_WORKING", "1", 1);
    test_missing_symbol();   /* before this process loads the driver */
    TileStatus s;
    const RtDriver *d = rt_driver(&s);
    void *lib = dlopen(FAKE, RTLD_NOW | RTLD_LOCAL);
    CHECK(d != NULL && lib != NULL && d && d->tensor_map_encode_tiled != NULL);
    if (!d || !lib) return check_done("test_tmap");
    void *p;
    p = sym(lib, "fake_cuda_tmap_calls"), memcpy(&tmap_calls, &p, sizeof p);
    p = sym(lib, "fake_cuda_tmap_call"), memcpy(&tmap_call, &p, sizeof p);
    p = sym(lib, "fake_cuda_launch_log"), memcpy(&launch_log, &p, sizeof p);
    p = sym(lib, "fake_cuda_launches"), memcpy(&launches, &p, sizeof p);
    if (!tmap_calls || !tmap_call || !launch_log || !launches) return check_done("test_tmap");
    CHECK(d->mem_alloc(&out, 4096) == CUDA_SUCCESS);
    TileBundle *b = load_kernels(kernels, 5);
    TileKernel *k = NULL, *kt = NULL, *kr = NULL, *krt = NULL;
    CHECK(b && tile_kernel_get(b, "mm", &k) == TILE_OK);
    CHECK(b && tile_kernel_get(b, "mmt", &kt) == TILE_OK);
    CHECK(b && tile_kernel_get(b, "rows", &kr) == TILE_OK);
    CHECK(b && tile_kernel_get(b, "rowst", &krt) == TILE_OK);
    if (k && kt) {
        test_encode(k);
        test_clamp(k);
        test_fallback(k);
        test_errors(kt);
        test_cache(k);
        test_plan(k);
    }
    if (kr && krt) test_rows(kr, krt);
    if (b) test_tuning(b);
    tile_bundle_free(b);
    d->mem_free(out);
    dlclose(lib);
    CHECK(remove_tree(dir) == 0);
    return check_done("test_tmap");
}
