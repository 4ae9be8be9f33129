/* test_gpu_tmap.c — tensor maps through libtile on a GPU of sm_90 or
 * newer (exit 77 without one).
 *
 * A hand-written bundle: copy2d(out: *f32, x: *f32, M, N, ld: i32)
 * grid(cdiv(N, 32), cdiv(M, 8)), one warp per program, whose entry takes
 * the map `x: f32 [N, M] stride [ld] box [32, 8]` after its parameters and
 * copies its program's box, loaded by TMA (cp.async.bulk.tensor.2d into
 * shared memory, completing on an mbarrier), to a dense out of
 * (gridy * 8) x (gridx * 32). So the real driver must accept what libtile
 * encodes, the map must arrive where the entry expects it, extents must
 * be innermost first and strides in bytes, and elements past M or N must
 * read as zeros. Checked for several shapes and two inputs (a second base
 * re-encodes), and the host time of a launch whose maps come from the
 * thread's cache against one that encodes (printed, not checked). */
#include <string.h>
#include <time.h>

#include "tests/unit/gpu_util.h"

static const RtDriver *d;
static int failures;

static const char ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry copy2d(.param .u64 out, .param .u64 x, .param .u32 M, .param .u32 N,\n"
    "    .param .u32 ld, .param .align 64 .b8 tmap[128])\n{\n"
    "    .reg .b32 %r<16>;\n    .reg .b64 %rd<8>;\n    .reg .pred %p<4>;\n"
    "    .reg .f32 %f<2>;\n"
    "    .shared .align 128 .b8 buf[1024];\n    .shared .align 8 .b64 bar;\n"
    "    mov.u32 %r1, %tid.x;\n    mov.u32 %r2, %ctaid.x;\n    mov.u32 %r3, %ctaid.y;\n"
    "    mov.u32 %r4, %nctaid.x;\n    setp.eq.u32 %p1, %r1, 0;\n"
    "    @%p1 mbarrier.init.shared::cta.b64 [bar], 1;\n"
    "    fence.mbarrier_init.release.cluster;\n    fence.proxy.async.shared::cta;\n"
    "    bar.sync 0;\n"
    "    shl.b32 %r5, %r2, 5;\n    shl.b32 %r6, %r3, 3;\n"
    "    mov.u64 %rd1, tmap;\n    cvta.param.u64 %rd2, %rd1;\n"
    "    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 1024;\n"
    "    @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
    " [buf], [%rd2, {%r5, %r6}], [bar];\n"
    "WAIT:\n    mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;\n"
    "    @!%p2 bra WAIT;\n"
    "    ld.param.u64 %rd4, [out];\n    cvta.to.global.u64 %rd4, %rd4;\n"
    "    shl.b32 %r7, %r4, 5;\n"            /* out's row length: gridx * 32 */
    "    mov.u32 %r8, 0;\n"
    "ROW:\n"
    "    shl.b32 %r9, %r8, 5;\n    add.u32 %r9, %r9, %r1;\n    shl.b32 %r9, %r9, 2;\n"
    "    mov.u32 %r10, buf;\n    add.u32 %r10, %r10, %r9;\n"
    "    ld.shared.f32 %f1, [%r10];\n"
    "    add.u32 %r11, %r6, %r8;\n    mul.lo.u32 %r11, %r11, %r7;\n"
    "    add.u32 %r11, %r11, %r5;\n    add.u32 %r11, %r11, %r1;\n"
    "    mul.wide.u32 %rd5, %r11, 4;\n    add.u64 %rd6, %rd4, %rd5;\n"
    "    st.global.f32 [%rd6], %f1;\n"
    "    add.u32 %r8, %r8, 1;\n    setp.lt.u32 %p3, %r8, 8;\n    @%p3 bra ROW;\n"
    "    ret;\n}\n";

enum { OUT, X, M, N, LD, NPARAMS };
static TlbParam params[] = {{"out", TLB_PTR, TLB_F32, TLB_PARAM_STORED},
                            {"x", TLB_PTR, TLB_F32, 0}, {"M", TLB_I32, 0, 0},
                            {"N", TLB_I32, 0, 0}, {"ld", TLB_I32, 0, 0}};
static TlbInsn x_m[] = {{TLB_X_PARAM, M, 0}}, x_n[] = {{TLB_X_PARAM, N, 0}},
               x_ld[] = {{TLB_X_PARAM, LD, 0}},
               gx[] = {{TLB_X_PARAM, N, 0}, {TLB_X_CONST, 0, 32}, {TLB_X_CDIV, 0, 0}},
               gy[] = {{TLB_X_PARAM, M, 0}, {TLB_X_CONST, 0, 8}, {TLB_X_CDIV, 0, 0}};
static TlbTmap maps[] = {{.param = X, .elem = TLB_F32, .rank = 2, .box = {32, 8},
                          .dim = {{1, x_n}, {1, x_m}}, .stride = {{1, x_ld}}}};
static const uint8_t none[NPARAMS];
static TlbVariant variants[] = {{none, 0, "copy2d", 0, 1, maps, 0}};
static TlbConfig configs[] = {{1, 1, NULL, {{3, gx}, {3, gy}}, 0, NULL, 1, variants}};
static TlbKernel kernels[] = {{"copy2d", NPARAMS, params, 0, NULL, 0, NULL, 2, 1, configs}};

static TileKernel *load(TileBundle **b) {
    TlbBundle t = {"test", "sm_90", ptx, sizeof ptx - 1, 0, NULL, 1, kernels, NULL};
    void *data;
    size_t size;
    char err[256];
    if (tlb_write(&t, &data, &size, err, sizeof err)) {
        fprintf(stderr, "tlb_write: %s\n", err);
        exit(1);
    }
    TileKernel *k;
    TILE_OK_OR_DIE(tile_bundle_load_memory(data, size, b));
    TILE_OK_OR_DIE(tile_kernel_get(*b, "copy2d", &k));
    free(data);
    return k;
}

static TileStatus launch(TileKernel *k, CUdeviceptr out, CUdeviceptr x, int m, int n, int ld) {
    TileLaunchArg a[NPARAMS] = {tile_ptr(out), tile_ptr(x), tile_int(m), tile_int(n),
                                tile_int(ld)};
    return tile_launch(k, a, NPARAMS, NULL);
}

/* One shape: out must be x's [m, n] (row stride ld), zeros past it. */
static void run_case(TileKernel *k, int m, int n, int ld, float scale) {
    size_t xn = (size_t)m * ld, rows = (size_t)(m + 7) / 8 * 8, cols = (size_t)(n + 31) / 32 * 32;
    float *hx = malloc(xn * 4), *hout = malloc(rows * cols * 4);
    for (size_t i = 0; i < xn; i++) hx[i] = scale * (float)i + 0.5f;
    CUdeviceptr x, out;
    CU(d, d->mem_alloc(&x, xn * 4));
    CU(d, d->mem_alloc(&out, rows * cols * 4));
    CU(d, d->memcpy_htod(x, hx, xn * 4));
    CU(d, d->memset_d8(out, 0xff, rows * cols * 4));
    TILE_OK_OR_DIE(launch(k, out, x, m, n, ld));
    CU(d, d->ctx_synchronize());
    CU(d, d->memcpy_dtoh(hout, out, rows * cols * 4));
    int bad = 0;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            float want = r < (size_t)m && c < (size_t)n ? hx[r * ld + c] : 0.0f;
            if (memcmp(&hout[r * cols + c], &want, 4) && bad++ < 5)
                fprintf(stderr, "M=%d N=%d ld=%d: out[%zu][%zu] = %g, want %g\n", m, n, ld, r,
                        c, hout[r * cols + c], want);
        }
    EXPECT(bad == 0);
    CU(d, d->mem_free(x));
    CU(d, d->mem_free(out));
    free(hx);
    free(hout);
}

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* Host time per launch: the same arguments (maps from the cache) against
 * 64 bases in turn (each launch encodes: the cache holds 16). */
static void time_launches(TileKernel *k) {
    enum { LAUNCHES = 2000, BASES = 64 };
    CUdeviceptr x, out;
    CU(d, d->mem_alloc(&x, 64 * 64 * 4 + BASES * 16));
    CU(d, d->mem_alloc(&out, 64 * 64 * 4));
    double t[2];
    for (int pass = 0; pass < 2; pass++) {
        TILE_OK_OR_DIE(launch(k, out, x, 64, 64, 64));
        CU(d, d->ctx_synchronize());
        double t0 = now_us();
        for (int i = 0; i < LAUNCHES; i++)
            TILE_OK_OR_DIE(launch(k, out, x + (pass ? (CUdeviceptr)(i % BASES) * 16 : 0), 64,
                                  64, 64));
        t[pass] = (now_us() - t0) / LAUNCHES;
        CU(d, d->ctx_synchronize());
    }
    CUtensorMap map;
    uint64_t dim[2] = {64, 64}, stride[1] = {256};
    uint32_t box[2] = {32, 8}, ones[2] = {1, 1};
    double t0 = now_us();
    for (int i = 0; i < LAUNCHES; i++)
        CU(d, d->tensor_map_encode_tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2,
                                         (void *)(uintptr_t)(x + (CUdeviceptr)(i % BASES) * 16),
                                         dim, stride, box, ones, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                         CU_TENSOR_MAP_SWIZZLE_NONE,
                                         CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    double enc = (now_us() - t0) / LAUNCHES;
    fprintf(stderr, "tile_launch with 1 tensor map: %.2f us (cached map), %.2f us (encoded); "
            "cuTensorMapEncodeTiled alone %.2f us\n", t[0], t[1], enc);
    CU(d, d->mem_free(x));
    CU(d, d->mem_free(out));
}

int main(void) {
    d = gpu_driver("test_gpu_tmap");
    gpu_bind(d, 0);
    int major = 0;
    CUdevice dev;
    CU(d, d->ctx_get_device(&dev));
    CU(d, d->device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    if (major < 9 || !d->tensor_map_encode_tiled) {
        fprintf(stderr, "test_gpu_tmap: skipped: no sm_90 device or no cuTensorMapEncodeTiled\n");
        return 77;
    }
    TileBundle *b;
    TileKernel *k = load(&b);
    run_case(k, 8, 32, 32, 1.0f);
    run_case(k, 20, 50, 64, 1.0f);
    run_case(k, 20, 50, 64, -2.0f);    /* another input: another base */
    run_case(k, 1, 7, 8, 3.0f);
    run_case(k, 100, 333, 340, 1.0f);
    time_launches(k);
    tile_bundle_free(b);
    fprintf(stderr, "test_gpu_tmap: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}
