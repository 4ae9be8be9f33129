/* test_runtime.c — libtile without a GPU: loading bundles (file, memory,
 * damaged, missing), kernel lookup and signatures, every argument error
 * with its exact text, configuration choice by @require, variant choice by
 * alignment, divisibility and unit strides, grids, float conversions, and the error for
 * a missing driver ($TILE_LIBCUDA points at nothing, so this holds on any
 * machine). The hand-written PTX of the GPU tests goes through ptxas where
 * the toolkit is present. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/rt.h"
#include "tests/unit/check.h"
#include "tests/unit/bundle_util.h"
#include "tests/unit/vadd_bundle.h"

/* softmax: three configurations, BLOCK = 256, 1024, 4096, each with
 * @require(BLOCK >= cols); grid(rows). */
static TlbInsn g_rows[] = {{TLB_X_PARAM, 2, 0}};
static TlbInsn req256[] = {{TLB_X_CONST, 0, 256}, {TLB_X_PARAM, 3, 0}, {TLB_X_GE, 0, 0}};
static TlbInsn req1024[] = {{TLB_X_CONST, 0, 1024}, {TLB_X_PARAM, 3, 0}, {TLB_X_GE, 0, 0}};
static TlbInsn req4096[] = {{TLB_X_CONST, 0, 4096}, {TLB_X_PARAM, 3, 0}, {TLB_X_GE, 0, 0}};
static TlbInsn req_div[] = {{TLB_X_PARAM, 4, 0}, {TLB_X_PARAM, 4, 0}, {TLB_X_DIV, 0, 0}};
static TlbExpr r0[] = {{3, req256}}, r1[] = {{3, req1024}, {3, req_div}}, r2[] = {{3, req4096}};
static TlbParam sm_params[] = {{"out", TLB_PTR, TLB_F32, TLB_PARAM_STORED},
                               {"x", TLB_PTR, TLB_F32, 0}, {"rows", TLB_I32, 0, 0},
                               {"cols", TLB_I32, 0, 0}, {"stride", TLB_I32, 0, 0}};
/* Guards: out and x 16-byte aligned, cols a multiple of 8 and stride
 * equal to 1 (rows anything); the same with stride anything; every fact. */
static const uint8_t none[16], sm_a[] = {4, 4, 0, 3, 0}, all[] = {4, 4, 4, 4, 4},
                     sm_u[] = {4, 4, 0, 3, TLB_GUARD_ONE};
static TlbVariant smv0[] = {{sm_u, 0, "sm0_u", 0, 0, NULL, 0}, {sm_a, 0, "sm0_a", 0, 0, NULL, 0},
                            {none, 0, "sm0_g", 0, 0, NULL, 0}};
static TlbVariant smv1[] = {{all, 0, "sm1_a", 0, 0, NULL, 0}, {none, 0, "sm1_g", 0, 0, NULL, 0}};
static TlbVariant smv2[] = {{none, 0, "sm2_g", 0, 0, NULL, 0}};
static TlbConfig sm_configs[] = {{4, 3, NULL, {{1, g_rows}}, 1, r0, 3, smv0},
                                 {8, 3, NULL, {{1, g_rows}}, 2, r1, 2, smv1},
                                 {16, 3, NULL, {{1, g_rows}}, 1, r2, 1, smv2}};

/* mix: one parameter of every type, no grid clause, and only variants
 * with assumptions (so some arguments have no variant). */
static TlbParam mix_params[] = {
    {"b", TLB_BOOL, 0, 0},  {"i8", TLB_I8, 0, 0},   {"u8", TLB_U8, 0, 0},
    {"i16", TLB_I16, 0, 0}, {"u16", TLB_U16, 0, 0}, {"u32", TLB_U32, 0, 0},
    {"i64", TLB_I64, 0, 0}, {"u64", TLB_U64, 0, 0}, {"h", TLB_F16, 0, 0},
    {"bf", TLB_BF16, 0, 0}, {"f", TLB_F32, 0, 0},   {"d", TLB_F64, 0, 0},
    {"p", TLB_PTR, TLB_F16, 0}, {"ns", TLB_I32, 0, TLB_PARAM_NOSPECIALIZE}};
static const uint8_t mix_ints[14] = {0, 4, 4, 4, 4, 4, 4, 4},
                     mix_ptr[14] = {[12] = 4}, mix_one[14] = {[6] = TLB_GUARD_ONE};
static TlbVariant mixv[] = {{mix_ints, 0, "mix_div", 0, 0, NULL, 0}, {mix_ptr, 0, "mix_align", 0, 0, NULL, 0},
                            {mix_one, 0, "mix_one", 0, 0, NULL, 0}};
static TlbConfig mix_config = {1, 1, NULL, {{0}}, 0, NULL, 3, mixv};

static TlbKernel kernels[] = {
    {"softmax", 5, sm_params, 0, NULL, 0, NULL, 1, 3, sm_configs},
    {"mix", 14, mix_params, 0, NULL, 0, NULL, 0, 1, &mix_config}};

static TileBundle *load_test_bundle(void) {
    return load_kernels(kernels, sizeof kernels / sizeof kernels[0]);
}

static TileKernel *kernel(TileBundle *b, const char *name) {
    TileKernel *k = NULL;
    CHECK(tile_kernel_get(b, name, &k) == TILE_OK && k);
    return k;
}

/* Expects status s and exactly `msg` from tile_last_error. */
#define EXPECT(call, s, msg)                                                  \
    do {                                                                      \
        TileStatus st_ = (call);                                              \
        CHECK(st_ == (s));                                                    \
        if (st_ != (s)) fprintf(stderr, "status %s\n", tile_status_name(st_)); \
        CHECK_STR(tile_last_error(), msg);                                    \
    } while (0)

static void test_load(void) {
    void *data;
    size_t size;
    CHECK(vadd_bundle(&data, &size) == 0);
    char path[] = "/tmp/tile-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, data, size) == (ssize_t)size);
    close(fd);
    TileBundle *b = NULL;
    CHECK(tile_bundle_load(path, &b) == TILE_OK);
    CHECK(tile_bundle_nkernels(b) == 1 && strcmp(tile_bundle_kernel(b, 0), "vadd") == 0);
    CHECK(tile_bundle_kernel(b, 1) == NULL);
    TileKernel *k = kernel(b, "vadd");
    CHECK_STR(tile_kernel_signature(k), "vadd(out: *f32, x: *f32, y: *f32, n: i32)");
    const char *name, *type;
    CHECK(tile_kernel_nparams(k) == 4);
    CHECK(tile_kernel_param(k, 3, &name, &type) == TILE_OK && !strcmp(name, "n") &&
          !strcmp(type, "i32"));
    EXPECT(tile_kernel_param(k, 4, &name, &type), TILE_ERROR_INVALID_VALUE,
           "tile_kernel_param: no parameter 4");
    EXPECT(tile_kernel_get(b, "vad", &k), TILE_ERROR_NOT_FOUND,
           "no kernel 'vad' in the bundle (it has 'vadd')");
    CHECK(k == NULL);
    tile_bundle_free(b);

    /* One byte damaged in the file. */
    ((unsigned char *)data)[size - 5] ^= 0x20;
    fd = open(path, O_WRONLY);
    CHECK(fd >= 0 && write(fd, data, size) == (ssize_t)size);
    close(fd);
    char msg[512];
    snprintf(msg, sizeof msg, "cannot load bundle '%s': damaged Tile bundle: payload "
             "checksum mismatch", path);
    EXPECT(tile_bundle_load(path, &b), TILE_ERROR_INVALID_BUNDLE, msg);
    CHECK(b == NULL);
    unlink(path);
    CHECK(tile_bundle_load(path, &b) == TILE_ERROR_IO);
    snprintf(msg, sizeof msg, "cannot open bundle '%s': No such file or directory", path);
    CHECK_STR(tile_last_error(), msg);
    EXPECT(tile_bundle_load_memory(data, 20, &b), TILE_ERROR_INVALID_BUNDLE,
           "cannot load bundle from memory: truncated Tile bundle: 20 bytes, the header "
           "alone takes 32");
    EXPECT(tile_bundle_load_memory("GIF89a", 6, &b), TILE_ERROR_INVALID_BUNDLE,
           "cannot load bundle from memory: not a Tile bundle (no bundle magic number)");
    EXPECT(tile_bundle_load(NULL, &b), TILE_ERROR_INVALID_VALUE,
           "tile_bundle_load: NULL argument");
    free(data);
}

/* Writes n bytes to path from a child process (for FIFOs); returns its pid. */
static pid_t write_in_child(const char *path, const void *data, size_t n) {
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(path, O_WRONLY);
        ssize_t w = fd >= 0 ? write(fd, data, n) : -1;
        _exit(w == (ssize_t)n ? 0 : 1);
    }
    return pid;
}

/* Hostile files: devices, FIFOs, directories, headers that declare huge
 * payloads. Each is refused after its header, without reading (or
 * allocating) what the header promises; an alarm turns a hang into a
 * failure. Special files live in a scratch directory. */
static void test_hostile_files(void) {
    alarm(60);
    void *data;
    size_t size;
    char msg[512];
    TileBundle *b = NULL;
    CHECK(vadd_bundle(&data, &size) == 0);
    EXPECT(tile_bundle_load("/dev/zero", &b), TILE_ERROR_INVALID_BUNDLE,
           "cannot load bundle '/dev/zero': not a Tile bundle (no bundle magic number)");
    char dir[] = "/tmp/tile-test-dir-XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(msg, sizeof msg, "cannot load bundle '%s': it is a directory", dir);
    EXPECT(tile_bundle_load(dir, &b), TILE_ERROR_IO, msg);

    /* A bundle through a FIFO loads; a header declaring 2 GiB is refused
     * before the payload is read. */
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0);
    int status;
    pid_t pid = write_in_child(path, data, size);
    CHECK(tile_bundle_load(path, &b) == TILE_OK && b);
    tile_bundle_free(b);
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    unsigned char head[TLB_HEADER_SIZE];
    memcpy(head, data, sizeof head);
    uint64_t big = (uint64_t)2 << 30;
    for (int i = 0; i < 8; i++) head[16 + i] = (unsigned char)(big >> 8 * i);
    uint32_t crc = tlb_crc32c(0, head, 28);
    for (int i = 0; i < 4; i++) head[28 + i] = (unsigned char)(crc >> 8 * i);
    pid = write_in_child(path, head, sizeof head);
    snprintf(msg, sizeof msg, "cannot load bundle '%s': its header declares 2147483648 "
             "bytes of payload; libtile reads bundles of at most 1024 MiB", path);
    EXPECT(tile_bundle_load(path, &b), TILE_ERROR_INVALID_BUNDLE, msg);
    CHECK(waitpid(pid, &status, 0) == pid);
    unlink(path);

    /* A regular file: header of 512 MiB, 100 bytes present; extra bytes. */
    snprintf(path, sizeof path, "%s/b.tlb", dir);
    big = (uint64_t)512 << 20;
    for (int i = 0; i < 8; i++) head[16 + i] = (unsigned char)(big >> 8 * i);
    crc = tlb_crc32c(0, head, 28);
    for (int i = 0; i < 4; i++) head[28 + i] = (unsigned char)(crc >> 8 * i);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(head, 1, sizeof head, f) == sizeof head &&
          fwrite(data, 1, 100, f) == 100 && fclose(f) == 0);
    snprintf(msg, sizeof msg, "cannot load bundle '%s': truncated Tile bundle: 536870912 "
             "bytes of payload expected, 100 present", path);
    EXPECT(tile_bundle_load(path, &b), TILE_ERROR_INVALID_BUNDLE, msg);
    f = fopen(path, "wb");
    CHECK(f && fwrite(data, 1, size, f) == size && fwrite("abc", 1, 3, f) == 3 &&
          fclose(f) == 0);
    snprintf(msg, sizeof msg, "cannot load bundle '%s': damaged Tile bundle: 3 unexpected "
             "bytes after the payload", path);
    EXPECT(tile_bundle_load(path, &b), TILE_ERROR_INVALID_BUNDLE, msg);
    unlink(path);
    rmdir(dir);
    free(data);
    alarm(0);
}

static void test_argument_errors(void) {
    TileBundle *b = load_test_bundle();
    TileKernel *sm = kernel(b, "softmax"), *mix = kernel(b, "mix");
    uint64_t out = 0x7f0000000000, x = 0x7f0000100000;
    TileLaunchArg ok[5] = {tile_ptr(out), tile_ptr(x), tile_int(4), tile_int(300),
                           tile_int(300)};
    EXPECT(tile_launch(sm, ok, 4, NULL), TILE_ERROR_ARGUMENT,
           "kernel 'softmax' takes 5 arguments, got 4");
    TileLaunchArg a[5];
    memcpy(a, ok, sizeof a);
    a[1] = tile_int(7);
    EXPECT(tile_launch(sm, a, 5, NULL), TILE_ERROR_ARGUMENT,
           "kernel 'softmax': argument 1 ('x', *f32) must be a pointer, got an integer");
    a[1] = ok[1];
    a[3] = tile_float(3.0);
    EXPECT(tile_launch(sm, a, 5, NULL), TILE_ERROR_ARGUMENT,
           "kernel 'softmax': argument 3 ('cols', i32) must be an integer, got a float");
    a[3] = tile_int(3000000000);
    EXPECT(tile_launch(sm, a, 5, NULL), TILE_ERROR_ARGUMENT,
           "kernel 'softmax': argument 3 ('cols', i32) is 3000000000, which does not fit "
           "in i32");
    a[3] = ok[3];
    a[0] = tile_ptr(out + 2);
    EXPECT(tile_launch(sm, a, 5, NULL), TILE_ERROR_ARGUMENT,
           "kernel 'softmax': argument 0 ('out', *f32) is 0x7f0000000002, not aligned to "
           "its 4-byte elements");
    a[0] = ok[0];
    a[2].kind = (TileLaunchArgKind)9;
    EXPECT(tile_launch(sm, a, 5, NULL), TILE_ERROR_ARGUMENT,
           "kernel 'softmax': argument 2 ('rows', i32) must be an integer, got of an "
           "unknown kind");
    a[2] = ok[2];
    a[3] = tile_int(5000);
    EXPECT(tile_launch(sm, a, 5, NULL), TILE_ERROR_NO_CONFIG,
           "kernel 'softmax': no configuration's @require holds for these arguments "
           "(rows=4, cols=5000, stride=300; 3 configurations): warps=4,stages=3 needs "
           "256 >= cols; warps=8,stages=3 needs 1024 >= cols; warps=16,stages=3 needs "
           "4096 >= cols");
    a[3] = tile_int(1000);
    a[4] = tile_int(0);
    EXPECT(tile_launch(sm, a, 5, NULL), TILE_ERROR_NO_CONFIG,
           "kernel 'softmax': division by zero in @require of configuration 1 "
           "(warps=8,stages=3), in stride / stride, for these arguments (rows=4, "
           "cols=1000, stride=0)");
    a[4] = ok[4];
    a[2] = tile_int(-1);
    EXPECT(tile_launch(sm, a, 5, NULL), TILE_ERROR_GRID,
           "kernel 'softmax': grid dimension 0 is -1 (must be 0 to 2147483647)");
    EXPECT(tile_launch(NULL, a, 5, NULL), TILE_ERROR_INVALID_VALUE,
           "tile_launch: the kernel is NULL");
    EXPECT(tile_launch(sm, NULL, 5, NULL), TILE_ERROR_INVALID_VALUE,
           "kernel 'softmax': the argument array is NULL");
    EXPECT(tile_launch_grid(sm, (uint32_t[]){1, 70000, 1}, ok, 5, NULL), TILE_ERROR_GRID,
           "kernel 'softmax': grid dimension 1 is 70000 (must be 0 to 65535)");

    TileLaunchArg m[14] = {tile_int(1), tile_int(-128), tile_int(255), tile_int(-32768),
                           tile_int(65535), tile_int(4294967295), tile_int(INT64_MIN),
                           tile_int(-1), tile_float(1.0), tile_float(1.0),
                           tile_float(1.5), tile_float(-2.0), tile_ptr(0x1000), tile_int(3)};
    EXPECT(tile_launch(mix, m, 14, NULL), TILE_ERROR_GRID,
           "kernel 'mix' has no grid(...) clause: launch it with tile_launch_grid");
    m[0] = tile_int(2);
    EXPECT(tile_launch_grid(mix, (uint32_t[]){1, 1, 1}, m, 14, NULL), TILE_ERROR_ARGUMENT,
           "kernel 'mix': argument 0 ('b', bool) is 2, which does not fit in bool");
    m[0] = tile_int(0);
    m[1] = tile_int(128);
    EXPECT(tile_launch_grid(mix, (uint32_t[]){1, 1, 1}, m, 14, NULL), TILE_ERROR_ARGUMENT,
           "kernel 'mix': argument 1 ('i8', i8) is 128, which does not fit in i8");
    m[1] = tile_int(0);
    m[5] = tile_int(-1);
    EXPECT(tile_launch_grid(mix, (uint32_t[]){1, 1, 1}, m, 14, NULL), TILE_ERROR_ARGUMENT,
           "kernel 'mix': argument 5 ('u32', u32) is -1, which does not fit in u32");
    m[5] = tile_int(16);
    m[12] = tile_ptr(0x1001);
    EXPECT(tile_launch_grid(mix, (uint32_t[]){1, 1, 1}, m, 14, NULL), TILE_ERROR_ARGUMENT,
           "kernel 'mix': argument 12 ('p', *f16) is 0x1001, not aligned to its 2-byte "
           "elements");
    m[12] = tile_ptr(0x1002);
    m[2] = tile_int(3);
    EXPECT(tile_launch_grid(mix, (uint32_t[]){1, 1, 1}, m, 14, NULL), TILE_ERROR_ARGUMENT,
           "kernel 'mix': configuration 0 has no variant for these arguments (argument 6, "
           "'i64', must be equal to 1)");
    tile_bundle_free(b);
}

static void test_plans(void) {
    TileBundle *b = load_test_bundle();
    TileKernel *sm = kernel(b, "softmax"), *mix = kernel(b, "mix");
    RtPlan p;
    TileLaunchArg a[5] = {tile_ptr(0x10000), tile_ptr(0x20000), tile_int(7), tile_int(300),
                          tile_int(320)};
    /* cols = 300: BLOCK 256 fails, 1024 holds; cols is not divisible by 16. */
    CHECK(rt_plan(sm, NULL, a, 5, &p) == TILE_OK);
    CHECK(p.config == &sm->configs[1] && p.config->threads == 256);
    CHECK(strcmp(p.variant->v->entry, "sm1_g") == 0);
    CHECK(p.grid[0] == 7 && p.grid[1] == 1 && p.grid[2] == 1 && !p.empty);
    CHECK(p.slots[0] == 0x10000 && p.slots[2] == 7 && p.slots[3] == 300);
    a[3] = tile_int(248);   /* a multiple of 8; rows 7, stride 320: no guard */
    CHECK(rt_plan(sm, NULL, a, 5, &p) == TILE_OK && p.config == &sm->configs[0]);
    CHECK(strcmp(p.variant->v->entry, "sm0_a") == 0);
    a[4] = tile_int(1);     /* stride equal to 1: the unit variant */
    CHECK(rt_plan(sm, NULL, a, 5, &p) == TILE_OK && strcmp(p.variant->v->entry, "sm0_u") == 0);
    a[4] = tile_int(-1);
    CHECK(rt_plan(sm, NULL, a, 5, &p) == TILE_OK && strcmp(p.variant->v->entry, "sm0_a") == 0);
    a[4] = tile_int(320);
    a[3] = tile_int(252);   /* a multiple of 4 only */
    CHECK(rt_plan(sm, NULL, a, 5, &p) == TILE_OK && strcmp(p.variant->v->entry, "sm0_g") == 0);
    a[3] = tile_int(0);     /* a multiple of everything */
    CHECK(rt_plan(sm, NULL, a, 5, &p) == TILE_OK && strcmp(p.variant->v->entry, "sm0_a") == 0);
    a[3] = tile_int(256);
    a[1] = tile_ptr(0x20008);               /* not 16-byte aligned */
    CHECK(rt_plan(sm, NULL, a, 5, &p) == TILE_OK && strcmp(p.variant->v->entry, "sm0_g") == 0);
    a[1] = tile_ptr(0x20000);
    a[3] = tile_int(4000);
    CHECK(rt_plan(sm, NULL, a, 5, &p) == TILE_OK && p.config == &sm->configs[2]);
    CHECK(strcmp(p.variant->v->entry, "sm2_g") == 0 && p.config->threads == 512);
    a[2] = tile_int(0);                     /* no rows: nothing to launch */
    CHECK(rt_plan(sm, NULL, a, 5, &p) == TILE_OK && p.empty);
    CHECK(rt_plan(sm, (uint32_t[]){3, 2, 1}, a, 5, &p) == TILE_OK && !p.empty &&
          p.grid[0] == 3 && p.grid[1] == 2);
    CHECK(tile_launch(sm, a, 5, NULL) == TILE_OK);   /* empty: no driver needed */

    TileLaunchArg m[14] = {tile_int(1), tile_int(-128), tile_int(255), tile_int(-32768),
                           tile_int(65535), tile_int(4294967295), tile_int(INT64_MIN),
                           tile_int(-1), tile_float(1.0), tile_float(-3.140625),
                           tile_float(1.5), tile_float(-2.0), tile_ptr(0x1000), tile_int(3)};
    uint32_t one[3] = {1, 1, 1};
    /* Pointers aligned, integers not all divisible by 16: mix_align. */
    CHECK(rt_plan(mix, one, m, 14, &p) == TILE_OK && strcmp(p.variant->v->entry, "mix_align") == 0);
    CHECK(p.slots[0] == 1 && (uint8_t)p.slots[1] == 0x80 && p.slots[2] == 255 &&
          (uint16_t)p.slots[3] == 0x8000 && (uint32_t)p.slots[5] == 0xffffffffu &&
          p.slots[6] == 0x8000000000000000ull && p.slots[7] == UINT64_MAX);
    CHECK(p.slots[8] == 0x3c00 && p.slots[9] == 0xc049 && p.slots[10] == 0x3fc00000 &&
          p.slots[11] == 0xc000000000000000ull);
    /* Integers divisible by 16 (the @nospecialize one need not be), pointer
     * not 16-byte aligned: mix_div. */
    for (int i = 0; i < 8; i++) m[i] = tile_int(i == 0 ? 0 : 32);
    m[12] = tile_ptr(0x1002);
    CHECK(rt_plan(mix, one, m, 14, &p) == TILE_OK && strcmp(p.variant->v->entry, "mix_div") == 0);
    /* Neither, but i64 equal to 1: mix_one. */
    m[1] = tile_int(3);
    m[6] = tile_int(1);
    CHECK(rt_plan(mix, one, m, 14, &p) == TILE_OK && strcmp(p.variant->v->entry, "mix_one") == 0);
    tile_bundle_free(b);
}

static void test_float_bits(void) {
    CHECK(rt_f16_bits(1.0) == 0x3c00 && rt_f16_bits(-2.0) == 0xc000);
    CHECK(rt_f16_bits(65504.0) == 0x7bff && rt_f16_bits(65520.0) == 0x7c00);
    CHECK(rt_f16_bits(65519.99) == 0x7bff && rt_f16_bits(-INFINITY) == 0xfc00);
    CHECK(rt_f16_bits(NAN) == 0x7e00 && rt_f16_bits(-0.0) == 0x8000);
    CHECK(rt_f16_bits(ldexp(1, -24)) == 0x0001 && rt_f16_bits(ldexp(1, -25)) == 0);
    CHECK(rt_f16_bits(ldexp(3, -25)) == 0x0002);          /* 1.5 ulp: to even */
    CHECK(rt_f16_bits(ldexp(1, -14)) == 0x0400);           /* smallest normal */
    CHECK(rt_f16_bits(ldexp(1023, -24) + ldexp(1, -25)) == 0x0400);   /* carries */
    CHECK(rt_f16_bits(1.0 + ldexp(1, -11)) == 0x3c00);    /* tie: to even */
    CHECK(rt_f16_bits(1.0 + ldexp(3, -11)) == 0x3c02);
    CHECK(rt_f16_bits(0.1) == 0x2e66);
    CHECK(rt_bf16_bits(1.0) == 0x3f80 && rt_bf16_bits(3.140625) == 0x4049);
    CHECK(rt_bf16_bits(-1.0 / 3) == 0xbeab && rt_bf16_bits(1e39) == 0x7f80);
    CHECK(rt_bf16_bits(3.3895313892515355e38) == 0x7f7f);
    /* Rounded from the double, not through f32: 1 + 2^-8 + 2^-30 is above
     * the tie and rounds up, where (float) would make it a tie to even. */
    CHECK(rt_bf16_bits(1.0 + ldexp(1, -8) + ldexp(1, -30)) == 0x3f81);
}

static void test_no_driver(void) {
    TileBundle *b = load_test_bundle();
    TileKernel *sm = kernel(b, "softmax");
    TileLaunchArg a[5] = {tile_ptr(0x10000), tile_ptr(0x20000), tile_int(7), tile_int(300),
                          tile_int(320)};
    const char *want = "cannot load the CUDA driver (/nonexistent/libcuda.so.1): "
                       "/nonexistent/libcuda.so.1: cannot open shared object file: No "
                       "such file or directory; is the NVIDIA driver installed?";
    EXPECT(tile_launch(sm, a, 5, NULL), TILE_ERROR_NO_DRIVER, want);
    EXPECT(tile_init(), TILE_ERROR_NO_DRIVER, want);
    tile_bundle_free(b);
}

/* ptxas accepts the GPU tests' hand-written PTX, where the toolkit is. */
static void test_ptx_assembles(void) {
#ifdef TILE_PTXAS
    char path[] = "/tmp/tile-vadd-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, vadd_ptx, sizeof vadd_ptx - 1) == (ssize_t)sizeof vadd_ptx - 1);
    close(fd);
    const char *archs[] = {"sm_80", "sm_90"};
    for (int i = 0; i < 2; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "%s -arch=%s %s -o /dev/null", TILE_PTXAS, archs[i], path);
        CHECK(system(cmd) == 0);
    }
    unlink(path);
#endif
}

/* tilec FILE -o X.tlb, loaded back: the signature, configurations and
 * variant entries the compiler wrote, and what launches would pick. */
static TileBundle *compile_example(const char *name) {
    char path[] = "/tmp/tile-example-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "TILE_STDLIB=%s/stdlib %s/tilec --emit=bundle -o %s "
             "%s/examples/%s.tile", TILE_SRCDIR, TILE_BUILDDIR, path, TILE_SRCDIR, name);
    CHECK(system(cmd) == 0);
    TileBundle *b = NULL;
    TileStatus s = tile_bundle_load(path, &b);
    if (s) fprintf(stderr, "%s\n", tile_last_error());
    CHECK(s == TILE_OK);
    unlink(path);
    return b;
}

static void test_tilec_bundles(void) {
    TileBundle *b = compile_example("vadd");
    TileKernel *k;
    RtPlan p;
    if (b && tile_kernel_get(b, "vadd", &k) == TILE_OK) {
        CHECK_STR(tile_kernel_signature(k), "vadd(out: *f32, x: *f32, y: *f32, n: i32)");
        CHECK(k->k->nconfigs == 1 && k->configs[0].nvariants == 2);
        TileLaunchArg a[4] = {tile_ptr(0x10000), tile_ptr(0x20000), tile_ptr(0x30000),
                              tile_int(4096)};
        /* the aligned variant needs the pointers 16-byte aligned and n a
         * multiple of 4 (the mask of a 4-element access) */
        CHECK(rt_plan(k, NULL, a, 4, &p) == TILE_OK && strstr(p.variant->v->entry, "__a16"));
        CHECK(p.grid[0] == 4 && p.config->threads == 32 * k->k->configs[0].warps);
        a[3] = tile_int(4100);
        CHECK(rt_plan(k, NULL, a, 4, &p) == TILE_OK && strstr(p.variant->v->entry, "__a16"));
        a[3] = tile_int(4097);
        CHECK(rt_plan(k, NULL, a, 4, &p) == TILE_OK && strstr(p.variant->v->entry, "__g") &&
              p.grid[0] == 5);
        CHECK(strstr(b->tlb->ptx, p.variant->v->entry) != NULL);
    }
    tile_bundle_free(b);
    b = compile_example("softmax");
    if (b && tile_kernel_get(b, "softmax", &k) == TILE_OK) {
        CHECK(k->k->nconfigs == 21 && k->has_require);
        TileLaunchArg a[5] = {tile_ptr(0x10000), tile_ptr(0x20000), tile_int(7),
                              tile_int(300), tile_int(300)};
        /* BLOCK = 256 fails @require(BLOCK >= cols); 512 is next. */
        CHECK(rt_plan(k, NULL, a, 5, &p) == TILE_OK && p.grid[0] == 7);
        CHECK(p.config->c->cvalues[0] == 512);
        a[3] = tile_int(100000);
        EXPECT(tile_launch(k, a, 5, NULL), TILE_ERROR_NO_CONFIG,
               "kernel 'softmax': no configuration's @require holds for these arguments "
               "(rows=7, cols=100000, stride=300; 21 configurations): "
               "BLOCK=256,warps=4,stages=3 and 2 more need 256 >= cols; "
               "BLOCK=512,warps=4,stages=3 and 2 more need 512 >= cols; "
               "BLOCK=1024,warps=4,stages=3 and 2 more need 1024 >= cols; "
               "BLOCK=2048,warps=4,stages=3 and 2 more need 2048 >= cols; and 9 more");
    }
    tile_bundle_free(b);
}

/* rt_carveout_percent over every program count a device could report,
 * shared memory per program (in steps of 64 bytes) and the SM sizes of
 * sm_80, sm_86/89 and sm_90: the least percentage of the SM's shared
 * memory that holds the programs, at most 100. */
static void test_carveout(void) {
    const uint32_t sms[] = {167936, 102400, 233472};
    long bad = 0;
    for (size_t s = 0; s < sizeof sms / sizeof *sms; s++)
        for (uint32_t block = 64; block <= sms[s]; block += 64)
            for (uint32_t blocks = 1; blocks <= 32; blocks++) {
                uint32_t sm = sms[s];
                int pct = rt_carveout_percent(blocks, block, sm);
                uint64_t need = (uint64_t)blocks * block * 100;
                bad += pct < 1 || pct > 100;
                bad += pct < 100 && (uint64_t)pct * sm < need;
                bad += (uint64_t)(pct - 1) * sm >= need;
            }
    CHECK(bad == 0);
    /* examples/transpose.tile 64x64, 4 warps, on an H200: 16932 bytes
     * (1024 reserved), 5 programs: 39% */
    CHECK(rt_carveout_percent(5, 17956, 233472) == 39);
    CHECK(rt_carveout_percent(32, 233472, 233472) == 100);
    CHECK(rt_carveout_percent(1, 1, 233472) == 1);
}

int main(void) {
    setenv("TILE_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    test_carveout();
    test_load();
    test_hostile_files();
    test_argument_errors();
    test_plans();
    test_float_bits();
    test_no_driver();
    test_ptx_assembles();
    test_tilec_bundles();
    return check_done("test_runtime");
}
