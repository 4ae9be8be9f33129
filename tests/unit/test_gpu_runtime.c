/* test_gpu_runtime.c — libtile on a GPU (exit 77 without one).
 *
 *   test_gpu_runtime [BUNDLE.tlb ...]
 *
 * The hand-written vadd bundle (vadd_bundle.h), then every bundle named
 * on the command line (e.g. tilec's examples/vadd.tlb, softmax.tlb): each
 * must load; a kernel `vadd(out: *f32, x: *f32, y: *f32, n: i32)` in it
 * gets the size tests below, a kernel `softmax(out: *f32, x: *f32, rows:
 * i32, cols: i32, stride: i32)` is compared with a C softmax (relative
 * error 1e-5) over row lengths below, at and above its blocks, strides
 * wider than the rows, unaligned rows, outputs poisoned. For vadd:
 *   - sizes around the block and the vector width, pointers aligned and
 *     offset by one element (the generic variant), fresh random inputs
 *     each run, outputs poisoned with NaNs and a guard zone after n that
 *     must stay poisoned, results compared bit for bit with C;
 *   - CUDA graph capture of two dependent tile launches, replayed twice
 *     with new inputs;
 *   - four threads without a context launching at once on their own
 *     streams through a freshly loaded bundle (lazy module loading
 *     racing, device 0's primary context picked up);
 *   - with two or more devices, the same bundle on device 1.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "tests/unit/gpu_util.h"
#include "tests/unit/vadd_bundle.h"

static const RtDriver *d;
static int failures;
static uint32_t seed;

static float frand(void) {
    seed = seed * 1664525u + 1013904223u;
    return (float)(seed >> 8) / (float)(1u << 24) * 200.0f - 100.0f;
}

enum { GUARD = 64 };

typedef struct Buffers {
    size_t n, off;                 /* elements; offset of x, y, out */
    CUdeviceptr x, y, out;         /* allocations (offset applied on use) */
    float *hx, *hy, *hout;
} Buffers;

static void buffers_init(Buffers *b, size_t n, size_t off) {
    b->n = n;
    b->off = off;
    size_t bytes = (n + off + GUARD) * sizeof(float);
    CU(d, d->mem_alloc(&b->x, bytes));
    CU(d, d->mem_alloc(&b->y, bytes));
    CU(d, d->mem_alloc(&b->out, bytes));
    b->hx = malloc(bytes);
    b->hy = malloc(bytes);
    b->hout = malloc(bytes);
}

/* Fresh inputs, poisoned output (all bits set: a NaN). */
static void buffers_fill(Buffers *b) {
    size_t bytes = (b->n + b->off + GUARD) * sizeof(float);
    for (size_t i = 0; i < b->n + b->off + GUARD; i++) {
        b->hx[i] = frand();
        b->hy[i] = frand();
    }
    CU(d, d->memcpy_htod(b->x, b->hx, bytes));
    CU(d, d->memcpy_htod(b->y, b->hy, bytes));
    CU(d, d->memset_d8(b->out, 0xff, bytes));
    /* cuMemsetD8 (and the DMA of a pageable cuMemcpyHtoD) may still be in
     * flight on the legacy stream, which the tests' CU_STREAM_NON_BLOCKING
     * stream does not wait for: without this, the poison can land after
     * the kernel's stores (seen on the H200). */
    CU(d, d->ctx_synchronize());
}

static void buffers_free(Buffers *b) {
    CU(d, d->mem_free(b->x));
    CU(d, d->mem_free(b->y));
    CU(d, d->mem_free(b->out));
    free(b->hx);
    free(b->hy);
    free(b->hout);
}

static uint64_t at(CUdeviceptr p, size_t off) { return p + off * sizeof(float); }

/* out = x + y over n elements, bit for bit, and the guard untouched. */
static int buffers_check(Buffers *b, const float *x, const float *y) {
    size_t bytes = (b->n + b->off + GUARD) * sizeof(float);
    CU(d, d->memcpy_dtoh(b->hout, b->out, bytes));
    int bad = 0;
    for (size_t i = 0; i < b->n; i++) {
        float want = x[b->off + i] + y[b->off + i];
        if (memcmp(&want, &b->hout[b->off + i], 4) && bad++ < 5)
            fprintf(stderr, "  n=%zu off=%zu: out[%zu] = %g, expected %g\n", b->n, b->off,
                    i, b->hout[b->off + i], want);
    }
    uint32_t poison = 0xffffffffu;
    for (size_t i = b->n + b->off; i < b->n + b->off + GUARD; i++)
        if (memcmp(&poison, &b->hout[i], 4) && bad++ < 5)
            fprintf(stderr, "  n=%zu: guard element %zu overwritten\n", b->n, i - b->off);
    return bad;
}

static void launch_vadd(TileKernel *k, Buffers *b, CUdeviceptr out, CUstream s) {
    TileLaunchArg a[4] = {tile_ptr(at(out, b->off)), tile_ptr(at(b->x, b->off)),
                          tile_ptr(at(b->y, b->off)), tile_int((int64_t)b->n)};
    TILE_OK_OR_DIE(tile_launch(k, a, 4, s));
}

/* Arguments a (pointers and integers) meet variant v's guard. */
static int meets(const TlbVariant *v, const TileLaunchArg *a, int n) {
    for (int i = 0; i < n; i++) {
        uint64_t x = a[i].kind == TILE_LAUNCH_PTR ? a[i].v.ptr : (uint64_t)a[i].v.i;
        if (!tlb_guard_holds(v->guard[i], x)) return 0;
    }
    return 1;
}

static void test_sizes(TileKernel *k) {
    static const size_t sizes[] = {1, 15, 16, 1000, 1024, 1025, 4096, 65536 + 16,
                                   (1 << 20) + 7, 3 << 20};
    CUstream s;
    CU(d, d->stream_create(&s, CU_STREAM_NON_BLOCKING));
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (size_t off = 0; off < 2; off++) {
            Buffers b;
            buffers_init(&b, sizes[i], off);
            buffers_fill(&b);
            /* Which variant the arguments get, as the launch will. */
            RtPlan p;
            TileLaunchArg a[4] = {tile_ptr(at(b.out, off)), tile_ptr(at(b.x, off)),
                                  tile_ptr(at(b.y, off)), tile_int((int64_t)b.n)};
            EXPECT(rt_plan(k, NULL, a, 4, &p) == TILE_OK);
            /* the first variant whose guard the arguments meet; the most
             * specialized one for aligned buffers and n % 16 == 0 */
            uint32_t want = 0;
            while (want + 1 < p.config->nvariants && !meets(p.config->variants[want].v, a, 4))
                want++;
            EXPECT(p.variant == &p.config->variants[want]);
            EXPECT(want == 0 || off || sizes[i] % 16);
            launch_vadd(k, &b, b.out, s);
            CU(d, d->stream_synchronize(s));
            int bad = buffers_check(&b, b.hx, b.hy);
            EXPECT(bad == 0);
            fprintf(stderr, "vadd n=%zu offset=%zu (%s): %s\n", sizes[i], off,
                    p.variant->v->entry, bad ? "FAILED" : "ok");
            buffers_free(&b);
        }
    CU(d, d->stream_destroy(s));
}

/* Two launches captured into a graph: t = x + y; out = t + y. */
static void test_graph(TileKernel *k) {
    CUstream s;
    CU(d, d->stream_create(&s, CU_STREAM_NON_BLOCKING));
    Buffers b;
    buffers_init(&b, 100000, 0);
    CUdeviceptr t;
    CU(d, d->mem_alloc(&t, (b.n + GUARD) * sizeof(float)));
    buffers_fill(&b);
    launch_vadd(k, &b, t, s);           /* loads the module outside capture */
    CU(d, d->stream_synchronize(s));
    CU(d, d->stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    launch_vadd(k, &b, t, s);
    TileLaunchArg a[4] = {tile_ptr(b.out), tile_ptr(t), tile_ptr(b.y), tile_int((int64_t)b.n)};
    TILE_OK_OR_DIE(tile_launch(k, a, 4, s));
    CUgraph g;
    CU(d, d->stream_end_capture(s, &g));
    CUgraphExec e;
    CU(d, d->graph_instantiate(&e, g, 0));
    for (int replay = 0; replay < 2; replay++) {
        buffers_fill(&b);                /* new inputs, poisoned output */
        CU(d, d->memset_d8(t, 0xff, (b.n + GUARD) * sizeof(float)));
        CU(d, d->graph_launch(e, s));
        CU(d, d->stream_synchronize(s));
        float *tx = malloc(b.n * sizeof(float));
        for (size_t i = 0; i < b.n; i++) tx[i] = b.hx[i] + b.hy[i];
        int bad = buffers_check(&b, tx, b.hy);
        EXPECT(bad == 0);
        fprintf(stderr, "graph replay %d: %s\n", replay, bad ? "FAILED" : "ok");
        free(tx);
    }
    CU(d, d->graph_exec_destroy(e));
    CU(d, d->graph_destroy(g));
    CU(d, d->mem_free(t));
    buffers_free(&b);
    CU(d, d->stream_destroy(s));
}

typedef struct Job {
    TileKernel *k;
    Buffers b;
    int status;
} Job;

static void *thread_main(void *arg) {
    Job *j = arg;
    CUstream s = NULL;
    /* No context on this thread: the launch binds device 0's primary
     * context, and the stream is created after it. */
    TileLaunchArg a[4] = {tile_ptr(j->b.out), tile_ptr(j->b.x), tile_ptr(j->b.y),
                          tile_int((int64_t)j->b.n)};
    j->status = tile_launch(j->k, a, 4, NULL);
    if (j->status == TILE_OK && d->stream_create(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS) {
        for (int i = 0; i < 50 && j->status == TILE_OK; i++)
            j->status = tile_launch(j->k, a, 4, s);
        if (d->stream_synchronize(s) != CUDA_SUCCESS) j->status = TILE_ERROR_CUDA;
        d->stream_destroy(s);
    }
    if (j->status) fprintf(stderr, "thread: %s\n", tile_last_error());
    return NULL;
}

static void test_threads(const void *data, size_t size) {
    TileBundle *fresh;
    TileKernel *k;
    TILE_OK_OR_DIE(tile_bundle_load_memory(data, size, &fresh));
    TILE_OK_OR_DIE(tile_kernel_get(fresh, "vadd", &k));
    enum { N = 4 };
    Job jobs[N];
    pthread_t th[N];
    for (int i = 0; i < N; i++) {
        jobs[i].k = k;
        buffers_init(&jobs[i].b, 50000 + (size_t)i * 1111, 0);
        buffers_fill(&jobs[i].b);
    }
    CU(d, d->ctx_synchronize());
    for (int i = 0; i < N; i++) pthread_create(&th[i], NULL, thread_main, &jobs[i]);
    for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < N; i++) {
        EXPECT(jobs[i].status == TILE_OK);
        int bad = buffers_check(&jobs[i].b, jobs[i].b.hx, jobs[i].b.hy);
        EXPECT(bad == 0);
        fprintf(stderr, "thread %d: %s\n", i, jobs[i].status || bad ? "FAILED" : "ok");
        buffers_free(&jobs[i].b);
    }
    tile_bundle_free(fresh);
}

static void test_second_device(TileKernel *k) {
    if (d->ndevices < 2) {
        fprintf(stderr, "one device: the several-device test is skipped\n");
        return;
    }
    CUcontext c0;
    CU(d, d->ctx_get_current(&c0));
    gpu_bind(d, 1);
    Buffers b;
    buffers_init(&b, 123457, 1);
    buffers_fill(&b);
    launch_vadd(k, &b, b.out, NULL);
    CU(d, d->ctx_synchronize());
    int bad = buffers_check(&b, b.hx, b.hy);
    EXPECT(bad == 0);
    fprintf(stderr, "device 1: %s\n", bad ? "FAILED" : "ok");
    buffers_free(&b);
    CU(d, d->ctx_set_current(c0));
}

/* softmax over `rows` rows of `cols` elements, `stride` apart, starting
 * `off` elements into the buffers. */
static void softmax_case(TileKernel *k, int rows, int cols, int stride, int off) {
    size_t elems = (size_t)rows * (size_t)stride + (size_t)off + GUARD;
    float *hx = malloc(elems * 4), *hout = malloc(elems * 4);
    for (size_t i = 0; i < elems; i++) hx[i] = frand() / 10.0f;
    CUdeviceptr x, out;
    CU(d, d->mem_alloc(&x, elems * 4));
    CU(d, d->mem_alloc(&out, elems * 4));
    CU(d, d->memcpy_htod(x, hx, elems * 4));
    CU(d, d->memset_d8(out, 0xff, elems * 4));
    TileLaunchArg a[5] = {tile_ptr(at(out, (size_t)off)), tile_ptr(at(x, (size_t)off)),
                          tile_int(rows), tile_int(cols), tile_int(stride)};
    TILE_OK_OR_DIE(tile_launch(k, a, 5, NULL));
    CU(d, d->ctx_synchronize());
    CU(d, d->memcpy_dtoh(hout, out, elems * 4));
    int bad = 0;
    double worst = 0;
    for (int r = 0; r < rows; r++) {
        const float *xr = hx + off + (size_t)r * stride;
        const float *yr = hout + off + (size_t)r * stride;
        double mx = -INFINITY, sum = 0;
        for (int c = 0; c < cols; c++) mx = xr[c] > mx ? xr[c] : mx;
        for (int c = 0; c < cols; c++) sum += exp((double)xr[c] - mx);
        for (int c = 0; c < cols; c++) {
            double want = exp((double)xr[c] - mx) / sum;
            double err = fabs(yr[c] - want) / want;
            if (!(err <= 1e-5) && bad++ < 5)
                fprintf(stderr, "  softmax %dx%d: [%d][%d] = %g, expected %g\n", rows, cols,
                        r, c, yr[c], want);
            if (err > worst) worst = err;
        }
        /* Between rows (stride > cols) the output must stay poisoned. */
        uint32_t poison = 0xffffffffu;
        for (int c = cols; c < stride && r + 1 < rows; c++)
            if (memcmp(&poison, &yr[c], 4) && bad++ < 5)
                fprintf(stderr, "  softmax %dx%d: gap [%d][%d] written\n", rows, cols, r, c);
    }
    EXPECT(bad == 0);
    fprintf(stderr, "softmax rows=%d cols=%d stride=%d offset=%d: %s (max rel. error %.2g)\n",
            rows, cols, stride, off, bad ? "FAILED" : "ok", worst);
    CU(d, d->mem_free(x));
    CU(d, d->mem_free(out));
    free(hx);
    free(hout);
}

static void test_softmax(TileKernel *k) {
    static const int shapes[][4] = {{1, 1, 1, 0},       {3, 100, 100, 0},
                                    {7, 256, 256, 0},   {5, 257, 300, 1},
                                    {64, 1000, 1024, 0}, {33, 4096, 4096, 0},
                                    {9, 5000, 5003, 3}, {4, 16384, 16384, 0}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        softmax_case(k, shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3]);
}

static void test_bundle_file(const char *path) {
    TileBundle *b;
    TileStatus s = tile_bundle_load(path, &b);
    EXPECT(s == TILE_OK);
    if (s) {
        fprintf(stderr, "%s\n", tile_last_error());
        return;
    }
    fprintf(stderr, "%s: %d kernel(s)\n", path, tile_bundle_nkernels(b));
    TileKernel *k;
    if (tile_kernel_get(b, "vadd", &k) == TILE_OK &&
        strcmp(tile_kernel_signature(k), "vadd(out: *f32, x: *f32, y: *f32, n: i32)") == 0)
        test_sizes(k);
    if (tile_kernel_get(b, "softmax", &k) == TILE_OK &&
        strcmp(tile_kernel_signature(k),
               "softmax(out: *f32, x: *f32, rows: i32, cols: i32, stride: i32)") == 0)
        test_softmax(k);
    tile_bundle_free(b);
}

int main(int argc, char **argv) {
    d = gpu_driver("test_gpu_runtime");
    seed = (uint32_t)time(NULL);
    fprintf(stderr, "seed %u, driver for CUDA %d.%d, %d device(s)\n", seed,
            d->version / 1000, d->version % 1000 / 10, d->ndevices);
    gpu_bind(d, 0);
    void *data;
    size_t size;
    if (vadd_bundle(&data, &size)) return 1;
    TileBundle *b;
    TileKernel *k;
    TILE_OK_OR_DIE(tile_bundle_load_memory(data, size, &b));
    TILE_OK_OR_DIE(tile_kernel_get(b, "vadd", &k));
    test_sizes(k);
    test_graph(k);
    test_threads(data, size);
    test_second_device(k);
    tile_bundle_free(b);
    free(data);
    for (int i = 1; i < argc; i++) test_bundle_file(argv[i]);
    fprintf(stderr, "test_gpu_runtime: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}
