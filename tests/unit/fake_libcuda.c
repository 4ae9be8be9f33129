/* fake_libcuda.c — a test double of the CUDA driver library, so that
 * test_runtime_driver can check libtile's messages for drivers it cannot
 * otherwise meet on a machine without a GPU: too old, no device, cuInit
 * failing, a driver call failing. Environment variables choose the
 * behaviour:
 *   FAKE_CUDA_VERSION   what cuDriverGetVersion reports (default 12040)
 *   FAKE_CUDA_INIT      what cuInit returns (default 0)
 *   FAKE_CUDA_DEVICES   the device count (default 1)
 *   FAKE_CUDA_MISSING   a function cuGetProcAddress does not find
 * Every other function it hands out returns CUDA_ERROR_NOT_SUPPORTED
 * (801), unless
 *   FAKE_CUDA_WORKING=1
 * makes it a working device whose memory is host memory, for the
 * autotuner's tests (test_tune): contexts (below), modules that load, kernels
 * that "run" by adding 1 to the first f32 their first parameter points at
 * and advance a clock by their time, events that read the clock. Per-entry
 * properties come from lists "ENTRY:VALUE,...":
 *   FAKE_CUDA_TIMES       microseconds per launch (default 10)
 *   FAKE_CUDA_SMEM        static shared memory bytes (default 0)
 *   FAKE_CUDA_LOCAL       local memory bytes per thread (default 0)
 *   FAKE_CUDA_MAXTHREADS  threads per block the registers allow (1024)
 *   FAKE_CUDA_BADENTRY    entries cuModuleGetFunction does not find
 * and FAKE_CUDA_CAPTURING=1 makes every stream "capturing".
 * cuTensorMapEncodeTiled records its arguments and launches record the
 * maps they pass (fake_cuda.h says how; FAKE_CUDA_TMAP_FAIL=1 makes it
 * fail, FAKE_CUDA_MISSING=cuTensorMapEncodeTiled absent). The test sees
 * what ran through fake_cuda_launches(), fake_cuda_last_entry() and
 * fake_cuda_last_launch() (the grid and stream of the last launch).
 * Shared memory, carveout preferences and the occupancy calculator are
 * modelled as on sm_90 (w_occupancy); fake_cuda_carveout(entry) is the
 * preference libtile set last.
 * Contexts are modelled as the driver has them: each of the
 * FAKE_CUDA_DEVICES devices has a primary context, each thread a current
 * context (none at first) and a push/pop stack; module loads and launches
 * need a current context (else CUDA_ERROR_INVALID_CONTEXT, 201) and are
 * counted per device, as are primary-context retains and module unloads
 * (fake_cuda_device_stats); fake_cuda_set_device(dev) is cudaSetDevice
 * (the device's primary context made current on the calling thread).
 * It is built as a shared object by make check and loaded through
 * $TILE_LIBCUDA. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_cuda.h"

typedef int CUresult;

static int env(const char *name, int def) {
    const char *v = getenv(name);
    return v ? atoi(v) : def;
}

CUresult cuDriverGetVersion(int *v);
CUresult cuDriverGetVersion(int *v) {
    *v = env("FAKE_CUDA_VERSION", 12040);
    return 0;
}

static CUresult fake_init(unsigned flags) {
    (void)flags;
    return env("FAKE_CUDA_INIT", 0);
}

static CUresult fake_count(int *n) {
    *n = env("FAKE_CUDA_DEVICES", 1);
    return 0;
}

static const char *error_name(CUresult r) {
    return r == 1 ? "CUDA_ERROR_INVALID_VALUE" : r == 100 ? "CUDA_ERROR_NO_DEVICE"
         : r == 801 ? "CUDA_ERROR_NOT_SUPPORTED" : "CUDA_ERROR_UNKNOWN";
}

static CUresult fake_error_name(CUresult r, const char **s) {
    *s = error_name(r);
    return 0;
}

static CUresult fake_error_string(CUresult r, const char **s) {
    *s = r == 1 ? "invalid argument" : r == 100 ? "no CUDA-capable device is detected"
       : r == 801 ? "operation not supported" : "unknown error";
    return 0;
}

static CUresult fake_unsupported(void) { return 801; }

/* ------------------------------------------------ FAKE_CUDA_WORKING=1 */

typedef unsigned long long CUdeviceptr;

static struct {
    int launches;
    double clock_us;
    char last[128];
    unsigned last_grid[3];
    unsigned last_block;    /* threads of the last launch's program */
    void *last_stream;
    char funcs[256][128];
    int carveout[256];      /* per function: the preference set, or -1 */
    int nfuncs;
    struct { CUdeviceptr base; size_t size; } allocs[64];
    int ntmap_calls;
    FakeTmapCall tmap_calls[FAKE_MAX_TMAP_CALLS];
    FakeLaunch log[FAKE_LAUNCH_LOG];
} w;

int fake_cuda_tmap_calls(void);
int fake_cuda_tmap_calls(void) { return w.ntmap_calls; }
const FakeTmapCall *fake_cuda_tmap_call(int n);
const FakeTmapCall *fake_cuda_tmap_call(int n) {
    return n >= 1 && n <= w.ntmap_calls && n <= FAKE_MAX_TMAP_CALLS ? &w.tmap_calls[n - 1]
                                                                     : NULL;
}
const FakeLaunch *fake_cuda_launch_log(int n);
const FakeLaunch *fake_cuda_launch_log(int n) {
    return n >= 1 && n <= w.launches && n > w.launches - FAKE_LAUNCH_LOG
               ? &w.log[(n - 1) % FAKE_LAUNCH_LOG] : NULL;
}

int fake_cuda_launches(void);
int fake_cuda_launches(void) { return w.launches; }
const char *fake_cuda_last_entry(void);
const char *fake_cuda_last_entry(void) { return w.last; }
unsigned fake_cuda_last_block(void);
unsigned fake_cuda_last_block(void) { return w.last_block; }
void fake_cuda_last_launch(unsigned grid[3], void **stream);
void fake_cuda_last_launch(unsigned grid[3], void **stream) {
    memcpy(grid, w.last_grid, sizeof w.last_grid);
    *stream = w.last_stream;
}

/* The value for `entry` in list variable `var`, else def. */
static long listed(const char *var, const char *entry, long def) {
    const char *s = getenv(var);
    size_t n = strlen(entry);
    for (; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL) {
        if (!strncmp(s, entry, n) && (s[n] == ':' || s[n] == ',' || !s[n]))
            return s[n] == ':' ? atol(s + n + 1) : 1;
    }
    return def;
}

/* A context: its device. Device i's primary context is ctxs[i]. */
typedef struct FakeCtx {
    int dev;
} FakeCtx;
enum { MAX_DEVICES = 8, CTX_STACK = 8, MAX_MODULES = 256 };
static FakeCtx ctxs[MAX_DEVICES];
static FakeCtx modules[MAX_MODULES];   /* a module: the device it was loaded on */
static int nmodules;
static struct { int retains, loads, unloads, launches; } per_device[MAX_DEVICES];
static int last_device = -1;
static _Thread_local FakeCtx *cur, *stack[CTX_STACK];
static _Thread_local int depth;
static int stream_storage;

void fake_cuda_device_stats(int dev, int out[4]);
void fake_cuda_device_stats(int dev, int out[4]) {
    out[0] = per_device[dev].retains, out[1] = per_device[dev].loads;
    out[2] = per_device[dev].unloads, out[3] = per_device[dev].launches;
}
int fake_cuda_last_device(void);
int fake_cuda_last_device(void) { return last_device; }
int fake_cuda_set_device(int dev);
int fake_cuda_set_device(int dev) {
    if (dev < 0 || dev >= MAX_DEVICES) return 101;
    ctxs[dev].dev = dev;
    cur = &ctxs[dev];
    return 0;
}

static CUresult w_ctx_get_current(FakeCtx **ctx) {
    *ctx = cur;
    return 0;
}
static CUresult w_ctx_set_current(FakeCtx *ctx) {
    cur = ctx;
    return 0;
}
static CUresult w_ctx_push(FakeCtx *ctx) {
    if (depth == CTX_STACK) return 2;
    stack[depth++] = cur;
    cur = ctx;
    return 0;
}
static CUresult w_ctx_pop(FakeCtx **ctx) {
    if (!depth) return 201;
    if (ctx) *ctx = cur;
    cur = stack[--depth];
    return 0;
}
static CUresult w_device_get(int *dev, int ordinal) {
    if (ordinal < 0 || ordinal >= env("FAKE_CUDA_DEVICES", 1) || ordinal >= MAX_DEVICES)
        return 101;
    *dev = ordinal;
    return 0;
}
static CUresult w_primary_ctx_retain(FakeCtx **ctx, int dev) {
    ctxs[dev].dev = dev;
    per_device[dev].retains++;
    *ctx = &ctxs[dev];
    return 0;
}
static CUresult w_stream_create(void **s, unsigned flags) {
    (void)flags;
    *s = &stream_storage;
    return 0;
}
static CUresult w_ctx_get_device(int *dev) {
    if (!cur) return 201;
    *dev = cur->dev;
    return 0;
}
/* Shared memory as on sm_90: 228 KiB per SM at most, 1 KiB reserved per
 * program; 4 SMs. */
enum { SM_SMEM = 233472, RESERVED_SMEM = 1024, SMS = 4 };
static CUresult w_device_get_attribute(int *v, int attr, int dev) {
    (void)dev;
    *v = attr == 75 ? 9 : attr == 76 ? 0 : attr == 38 ? 1 << 16
       : attr == 97 ? env("FAKE_CUDA_SMEM_MAX", 232448)
       : attr == 81 ? SM_SMEM : attr == 111 ? RESERVED_SMEM : attr == 16 ? SMS : 0;
    return 0;
}
static CUresult w_device_get_name(char *name, int len, int dev) {
    (void)dev;
    snprintf(name, (size_t)len, "Fake GPU");
    return 0;
}
static CUresult w_module_load_data(FakeCtx **mod, const void *image) {
    (void)image;
    if (!cur) return 201;
    if (nmodules == MAX_MODULES) return 2;
    modules[nmodules].dev = cur->dev;
    per_device[cur->dev].loads++;
    *mod = &modules[nmodules++];
    return 0;
}
static CUresult w_module_unload(FakeCtx *mod) {
    per_device[mod->dev].unloads++;
    return 0;
}
static CUresult w_module_get_function(void **f, void *mod, const char *name) {
    (void)mod;
    if (listed("FAKE_CUDA_BADENTRY", name, 0) || w.nfuncs == 256) return 500;
    snprintf(w.funcs[w.nfuncs], sizeof w.funcs[0], "%s", name);
    w.carveout[w.nfuncs] = -1;
    *f = w.funcs[w.nfuncs++];
    return 0;
}
static CUresult w_func_get_attribute(int *v, int attr, const char *f) {
    *v = (int)(attr == 0 ? listed("FAKE_CUDA_MAXTHREADS", f, 1024)
             : attr == 1 ? listed("FAKE_CUDA_SMEM", f, 0)
             : attr == 3 ? listed("FAKE_CUDA_LOCAL", f, 0) : attr == 4 ? 32 : 0);
    return 0;
}
static CUresult w_ok(void) { return 0; }

static int func_index(const char *f) { return (int)((f - w.funcs[0]) / sizeof w.funcs[0]); }
/* The carveout preference of p% gives p% of SM_SMEM (the real driver
 * rounds up to a size it supports), none gives all of it. The occupancy
 * calculator: at most 32 programs and 2048 threads per SM, and what the
 * carveout holds. */
static CUresult w_func_set_attribute(const char *f, int attr, int value) {
    if (attr == 9) {
        if (value < -1 || value > 100) return 1;
        w.carveout[func_index(f)] = value;
    }
    return 0;
}
static CUresult w_occupancy(int *blocks, const char *f, int threads, size_t dyn) {
    int pct = w.carveout[func_index(f)];
    long carve = pct < 0 ? SM_SMEM : (long)SM_SMEM * pct / 100;
    long block = listed("FAKE_CUDA_SMEM", f, 0) + (long)dyn + RESERVED_SMEM;
    long n = threads > 0 ? 2048 / threads : 0;
    if (n > 32) n = 32;
    if (carve / block < n) n = carve / block;
    *blocks = (int)n;
    return 0;
}
/* The carveout preference last set on `entry`'s newest function, or -1. */
int fake_cuda_carveout(const char *entry);
int fake_cuda_carveout(const char *entry) {
    for (int i = w.nfuncs - 1; i >= 0; i--)
        if (!strcmp(w.funcs[i], entry)) return w.carveout[i];
    return -1;
}
static CUresult w_tmap_encode(unsigned long long *map, int type, unsigned rank, void *addr,
                              const unsigned long long *dim, const unsigned long long *stride,
                              const unsigned *box, const unsigned *estride, int interleave,
                              int swizzle, int l2, int oob) {
    if (env("FAKE_CUDA_TMAP_FAIL", 0) || rank < 1 || rank > 5) return 1;
    FakeTmapCall c = {type, interleave, swizzle, l2, oob, rank, (uintptr_t)addr,
                      {0}, {0}, {0}, {0}};
    for (unsigned i = 0; i < rank; i++) {
        c.dim[i] = dim[i], c.box[i] = box[i], c.estride[i] = estride[i];
        if (i + 1 < rank) c.stride[i] = stride[i];
    }
    if (w.ntmap_calls < FAKE_MAX_TMAP_CALLS) w.tmap_calls[w.ntmap_calls] = c;
    memset(map, 0, 128);
    map[0] = FAKE_TMAP_MAGIC;
    map[1] = (unsigned long long)++w.ntmap_calls;
    return 0;
}

/* Records launch number w.launches: its entry, parameters and maps. */
static void log_launch(const char *f, void **params) {
    FakeLaunch *l = &w.log[(w.launches - 1) % FAKE_LAUNCH_LOG];
    memset(l, 0, sizeof *l);
    snprintf(l->entry, sizeof l->entry, "%s", f);
    int n = env("FAKE_CUDA_NPARAMS", 0), maps = env("FAKE_CUDA_NTMAPS", 0);
    l->aligned = 1;
    for (int i = 0; i < n && i < 16; i++) memcpy(&l->params[i], params[i], 8);
    for (int t = 0; t < maps && t < 8; t++) {
        memcpy(l->maps[t], params[n + t], 128);
        l->aligned &= (uintptr_t)params[n + t] % 64 == 0;
    }
}

static CUresult w_launch(const char *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz, unsigned smem, void *stream,
                         void **params, void **extra) {
    (void)smem, (void)extra;
    if (!cur) return 201;
    per_device[cur->dev].launches++;
    last_device = cur->dev;
    w.launches++;
    w.last_grid[0] = gx, w.last_grid[1] = gy, w.last_grid[2] = gz;
    w.last_block = bx * by * bz;
    w.last_stream = stream;
    w.clock_us += (double)listed("FAKE_CUDA_TIMES", f, 10);
    snprintf(w.last, sizeof w.last, "%s", f);
    log_launch(f, params);
    float *out;
    memcpy(&out, params[0], sizeof out);
    if (out) out[0] += 1.0f;
    return 0;
}
static CUresult w_mem_alloc(CUdeviceptr *p, size_t size) {
    for (int i = 0; i < 64; i++)
        if (!w.allocs[i].base) {
            void *m = calloc(1, size ? size : 1);
            if (!m) return 2;
            w.allocs[i].base = (CUdeviceptr)(size_t)m;
            w.allocs[i].size = size;
            *p = w.allocs[i].base;
            return 0;
        }
    return 2;
}
static CUresult w_mem_free(CUdeviceptr p) {
    for (int i = 0; i < 64; i++)
        if (w.allocs[i].base == p) {
            free((void *)(size_t)p);
            w.allocs[i].base = 0;
            return 0;
        }
    return 1;
}
static CUresult w_address_range(CUdeviceptr *base, size_t *size, CUdeviceptr p) {
    for (int i = 0; i < 64; i++)
        if (w.allocs[i].base && p >= w.allocs[i].base &&
            p < w.allocs[i].base + w.allocs[i].size) {
            *base = w.allocs[i].base;
            *size = w.allocs[i].size;
            return 0;
        }
    return 1;
}
static CUresult w_memcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
    memcpy((void *)(size_t)dst, (const void *)(size_t)src, n);
    return 0;
}
static CUresult w_memcpy_async(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) {
    (void)s;
    return w_memcpy(dst, src, n);
}
static CUresult w_memset_async(CUdeviceptr dst, unsigned char v, size_t n, void *s) {
    (void)s;
    memset((void *)(size_t)dst, v, n);
    return 0;
}
static CUresult w_event_create(double **e, unsigned flags) {
    (void)flags;
    return (*e = malloc(sizeof **e)) ? 0 : 2;
}
static CUresult w_event_record(double *e, void *s) {
    (void)s;
    *e = w.clock_us;
    return 0;
}
static CUresult w_event_elapsed(float *ms, const double *a, const double *b) {
    *ms = (float)((*b - *a) / 1000);
    return 0;
}
static CUresult w_event_destroy(double *e) {
    free(e);
    return 0;
}
static CUresult w_is_capturing(void *s, int *status) {
    (void)s;
    *status = env("FAKE_CUDA_CAPTURING", 0);
    return 0;
}

static const struct { const char *name; void *fn; } working_funcs[] = {
    {"cuCtxGetCurrent", (void *)w_ctx_get_current},
    {"cuCtxGetDevice", (void *)w_ctx_get_device},
    {"cuDeviceGet", (void *)w_device_get},
    {"cuDevicePrimaryCtxRetain", (void *)w_primary_ctx_retain},
    {"cuStreamCreate", (void *)w_stream_create},
    {"cuStreamDestroy", (void *)w_ok},
    {"cuDeviceGetAttribute", (void *)w_device_get_attribute},
    {"cuDeviceGetName", (void *)w_device_get_name},
    {"cuModuleLoadData", (void *)w_module_load_data},
    {"cuModuleGetFunction", (void *)w_module_get_function},
    {"cuModuleUnload", (void *)w_module_unload},
    {"cuCtxPushCurrent", (void *)w_ctx_push},
    {"cuCtxPopCurrent", (void *)w_ctx_pop},
    {"cuCtxSetCurrent", (void *)w_ctx_set_current},
    {"cuCtxSynchronize", (void *)w_ok},
    {"cuStreamSynchronize", (void *)w_ok},
    {"cuEventSynchronize", (void *)w_ok},
    {"cuFuncSetAttribute", (void *)w_func_set_attribute},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessor", (void *)w_occupancy},
    {"cuFuncGetAttribute", (void *)w_func_get_attribute},
    {"cuLaunchKernel", (void *)w_launch},
    {"cuMemAlloc", (void *)w_mem_alloc},
    {"cuMemFree", (void *)w_mem_free},
    {"cuMemGetAddressRange", (void *)w_address_range},
    {"cuMemcpyHtoD", (void *)w_memcpy},
    {"cuMemcpyDtoH", (void *)w_memcpy},
    {"cuMemcpyDtoDAsync", (void *)w_memcpy_async},
    {"cuMemsetD8Async", (void *)w_memset_async},
    {"cuEventCreate", (void *)w_event_create},
    {"cuEventRecord", (void *)w_event_record},
    {"cuEventElapsedTime", (void *)w_event_elapsed},
    {"cuEventDestroy", (void *)w_event_destroy},
    {"cuStreamIsCapturing", (void *)w_is_capturing},
    {"cuTensorMapEncodeTiled", (void *)w_tmap_encode},
};

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                             unsigned long long flags, int *status);
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                             unsigned long long flags, int *status) {
    (void)version;
    (void)flags;
    const char *missing = getenv("FAKE_CUDA_MISSING");
    if (missing && strcmp(missing, symbol) == 0) {
        *pfn = NULL;
        if (status) *status = 1;
        return 500;
    }
    if (!strcmp(symbol, "cuInit")) *pfn = (void *)fake_init;
    else if (!strcmp(symbol, "cuDeviceGetCount")) *pfn = (void *)fake_count;
    else if (!strcmp(symbol, "cuGetErrorName")) *pfn = (void *)fake_error_name;
    else if (!strcmp(symbol, "cuGetErrorString")) *pfn = (void *)fake_error_string;
    else *pfn = (void *)fake_unsupported;
    if (env("FAKE_CUDA_WORKING", 0))
        for (size_t i = 0; i < sizeof working_funcs / sizeof *working_funcs; i++)
            if (!strcmp(symbol, working_funcs[i].name)) *pfn = working_funcs[i].fn;
    if (status) *status = 0;
    return 0;
}
