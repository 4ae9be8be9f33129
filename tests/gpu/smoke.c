/*
 * smoke.c — a GPU smoke test of the code generator: loads the PTX that
 * `tilec --emit=ptx` wrote for examples/vadd.tile and examples/softmax.tile
 * with the CUDA driver API (libcuda.so.1 through dlopen, so this builds
 * and links without the driver), runs every entry on fresh random inputs
 * of several sizes and compares with C.
 *
 *   smoke VADD.ptx SOFTMAX.ptx SOFTMAX_BLOCK
 *
 * vadd: n not a multiple of the block, unaligned pointers for the generic
 * variant, outputs poisoned (NaN) before each run; exact comparison
 * (f32 addition is correctly rounded on both sides). softmax (compiled
 * with -DBLOCK=SOFTMAX_BLOCK): rows of cols <= BLOCK, row stride > cols,
 * relative error <= 1e-5 against a double-precision reference, and the
 * padding between rows untouched. The block size of each entry is read
 * from its `.reqntid` directive. Exit status: 0 pass, 1 fail, 77 no GPU.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef CUresult (*PInit)(unsigned);
typedef CUresult (*PDeviceGet)(CUdevice *, int);
typedef CUresult (*PDeviceGetCount)(int *);
typedef CUresult (*PCtxCreate)(CUcontext *, unsigned, CUdevice);
typedef CUresult (*PModuleLoadData)(CUmodule *, const void *);
typedef CUresult (*PModuleGetFunction)(CUfunction *, CUmodule, const char *);
typedef CUresult (*PMemAlloc)(CUdeviceptr *, size_t);
typedef CUresult (*PMemFree)(CUdeviceptr);
typedef CUresult (*PMemcpyHtoD)(CUdeviceptr, const void *, size_t);
typedef CUresult (*PMemcpyDtoH)(void *, CUdeviceptr, size_t);
typedef CUresult (*PLaunch)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                            unsigned, unsigned, unsigned, CUstream, void **,
                            void **);
typedef CUresult (*PSync)(void);
typedef CUresult (*PErrStr)(CUresult, const char **);

static struct {
    PInit init;
    PDeviceGet device_get;
    PDeviceGetCount device_count;
    PCtxCreate ctx_create;
    PModuleLoadData load;
    PModuleGetFunction get_function;
    PMemAlloc alloc;
    PMemFree free;
    PMemcpyHtoD htod;
    PMemcpyDtoH dtoh;
    PLaunch launch;
    PSync sync;
    PErrStr err;
} cu;

static int failures;

#define CK(call)                                                             \
    do {                                                                     \
        CUresult r_ = (call);                                                \
        if (r_ != CUDA_SUCCESS) {                                            \
            const char *s_ = "?";                                            \
            if (cu.err) cu.err(r_, &s_);                                     \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,    \
                    #call, s_);                                              \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

static void *sym(void *h, const char *a, const char *b) {
    void *p = dlsym(h, a);
    if (!p && b) p = dlsym(h, b);
    if (!p) {
        fprintf(stderr, "libcuda.so.1 lacks %s\n", a);
        exit(1);
    }
    return p;
}

static int load_driver(void) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) return -1;
    cu.init = (PInit)sym(h, "cuInit", NULL);
    cu.device_get = (PDeviceGet)sym(h, "cuDeviceGet", NULL);
    cu.device_count = (PDeviceGetCount)sym(h, "cuDeviceGetCount", NULL);
    cu.ctx_create = (PCtxCreate)sym(h, "cuCtxCreate_v2", NULL);
    cu.load = (PModuleLoadData)sym(h, "cuModuleLoadData", NULL);
    cu.get_function = (PModuleGetFunction)sym(h, "cuModuleGetFunction", NULL);
    cu.alloc = (PMemAlloc)sym(h, "cuMemAlloc_v2", NULL);
    cu.free = (PMemFree)sym(h, "cuMemFree_v2", NULL);
    cu.htod = (PMemcpyHtoD)sym(h, "cuMemcpyHtoD_v2", NULL);
    cu.dtoh = (PMemcpyDtoH)sym(h, "cuMemcpyDtoH_v2", NULL);
    cu.launch = (PLaunch)sym(h, "cuLaunchKernel", NULL);
    cu.sync = (PSync)sym(h, "cuCtxSynchronize", NULL);
    cu.err = (PErrStr)sym(h, "cuGetErrorString", NULL);
    return 0;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) exit(1);
    s[n] = 0;
    fclose(f);
    return s;
}

/* The `.reqntid` of entry `name` in ptx (0 if absent). */
static unsigned reqntid(const char *ptx, const char *name) {
    char key[256];
    snprintf(key, sizeof key, ".entry %s(", name);
    const char *e = strstr(ptx, key);
    if (!e) return 0;
    const char *r = strstr(e, ".reqntid");
    return r ? (unsigned)strtoul(r + 8, NULL, 10) : 0;
}

/* Every `.entry NAME` of ptx starting with prefix, into names. */
static int entries(const char *ptx, const char *prefix, char names[][128], int max) {
    int n = 0;
    for (const char *p = ptx; (p = strstr(p, ".entry ")) && n < max; p += 7) {
        const char *s = p + 7, *e = strchr(s, '(');
        if (!e || (size_t)(e - s) >= 128) continue;
        if (strncmp(s, prefix, strlen(prefix)) != 0) continue;
        memcpy(names[n], s, (size_t)(e - s));
        names[n][e - s] = 0;
        n++;
    }
    return n;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static float frand(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (float)((rng >> 11) * (1.0 / 9007199254740992.0)) * 8.0f - 4.0f;
}

static int aligned_variant(const char *name) { return strstr(name, "__a16") != NULL; }

/* ---------------------------------------------------------------- vadd */

static void test_vadd(CUmodule mod, const char *ptx, const char *name) {
    CUfunction fn;
    CK(cu.get_function(&fn, mod, name));
    unsigned threads = reqntid(ptx, name);
    int block = 1024;   /* vadd compiled with its default BLOCK */
    int sizes[] = {1, 100, 1024, 1040, 4096 + 16, (1 << 20) + 48, 3 * 1024 * 1024 + 5};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        int n = sizes[si];
        int a16 = aligned_variant(name);
        if (a16 && n % 16) continue;
        int off = a16 ? 0 : 1;   /* the generic variant gets unaligned pointers */
        size_t bytes = (size_t)(n + 8) * sizeof(float);
        float *x = malloc(bytes), *y = malloc(bytes), *o = malloc(bytes);
        for (int i = 0; i < n + 8; i++) x[i] = frand(), y[i] = frand();
        CUdeviceptr dx, dy, dout;
        CK(cu.alloc(&dx, bytes));
        CK(cu.alloc(&dy, bytes));
        CK(cu.alloc(&dout, bytes));
        CK(cu.htod(dx, x, bytes));
        CK(cu.htod(dy, y, bytes));
        for (int i = 0; i < n + 8; i++) o[i] = NAN;
        CK(cu.htod(dout, o, bytes));
        CUdeviceptr po = dout + off * 4, px = dx + off * 4, py = dy + off * 4;
        void *args[] = {&po, &px, &py, &n};
        CK(cu.launch(fn, (unsigned)((n + block - 1) / block), 1, 1, threads, 1,
                     1, 0, NULL, args, NULL));
        CK(cu.sync());
        CK(cu.dtoh(o, dout, bytes));
        int bad = 0;
        for (int i = 0; i < n + 8; i++) {
            int inside = i >= off && i < n + off;
            float want = x[i] + y[i];
            if (inside ? o[i] != want : !isnan(o[i])) {
                if (bad++ < 5)
                    fprintf(stderr, "%s n=%d: out[%d] = %g, want %g\n", name, n,
                            i - off, o[i], inside ? want : NAN);
            }
        }
        printf("%-24s n=%-8d %s\n", name, n, bad ? "FAIL" : "ok");
        failures += bad != 0;
        CK(cu.free(dx));
        CK(cu.free(dy));
        CK(cu.free(dout));
        free(x), free(y), free(o);
    }
}

/* ------------------------------------------------------------- softmax */

static void test_softmax(CUmodule mod, const char *ptx, const char *name, int block) {
    CUfunction fn;
    CK(cu.get_function(&fn, mod, name));
    unsigned threads = reqntid(ptx, name);
    int colss[] = {1, 17, block / 2 + 3, block - 16, block};
    for (size_t ci = 0; ci < sizeof colss / sizeof *colss; ci++) {
        int a16 = aligned_variant(name);
        int cols = colss[ci], rows = a16 ? 48 : 37;
        int stride = cols + (a16 ? 16 - cols % 16 + 16 : 5);
        if (a16 && (cols % 16 || stride % 16)) continue;
        size_t bytes = (size_t)rows * stride * sizeof(float);
        float *x = malloc(bytes), *o = malloc(bytes);
        for (size_t i = 0; i < (size_t)rows * stride; i++) x[i] = frand() * 4;
        CUdeviceptr dx, dout;
        CK(cu.alloc(&dx, bytes));
        CK(cu.alloc(&dout, bytes));
        CK(cu.htod(dx, x, bytes));
        for (size_t i = 0; i < (size_t)rows * stride; i++) o[i] = NAN;
        CK(cu.htod(dout, o, bytes));
        void *args[] = {&dout, &dx, &rows, &cols, &stride};
        CK(cu.launch(fn, (unsigned)rows, 1, 1, threads, 1, 1, 0, NULL, args, NULL));
        CK(cu.sync());
        CK(cu.dtoh(o, dout, bytes));
        int bad = 0;
        for (int r = 0; r < rows; r++) {
            const float *xr = x + (size_t)r * stride, *orow = o + (size_t)r * stride;
            double mx = -INFINITY, sum = 0;
            for (int c = 0; c < cols; c++) mx = fmax(mx, xr[c]);
            for (int c = 0; c < cols; c++) sum += exp(xr[c] - mx);
            for (int c = 0; c < stride; c++) {
                double want = c < cols ? exp(xr[c] - mx) / sum : NAN;
                int ok = c < cols ? fabs(orow[c] - want) <= 1e-5 * fabs(want) + 1e-12
                                  : isnan(orow[c]);
                if (!ok && bad++ < 5)
                    fprintf(stderr, "%s cols=%d: out[%d][%d] = %.9g, want %.9g\n",
                            name, cols, r, c, orow[c], want);
            }
        }
        printf("%-24s rows=%d cols=%-6d %s\n", name, rows, cols, bad ? "FAIL" : "ok");
        failures += bad != 0;
        CK(cu.free(dx));
        CK(cu.free(dout));
        free(x), free(o);
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s VADD.ptx SOFTMAX.ptx SOFTMAX_BLOCK\n", argv[0]);
        return 2;
    }
    if (load_driver() != 0) {
        fprintf(stderr, "skip: no CUDA driver (libcuda.so.1)\n");
        return 77;
    }
    int ndev = 0;
    if (cu.init(0) != CUDA_SUCCESS || cu.device_count(&ndev) != CUDA_SUCCESS ||
        ndev == 0) {
        fprintf(stderr, "skip: no CUDA device\n");
        return 77;
    }
    CUdevice dev;
    CUcontext ctx;
    CK(cu.device_get(&dev, 0));
    CK(cu.ctx_create(&ctx, 0, dev));
    char names[64][128];
    char *vadd = slurp(argv[1]), *softmax = slurp(argv[2]);
    int block = atoi(argv[3]);
    CUmodule mv, ms;
    CK(cu.load(&mv, vadd));
    CK(cu.load(&ms, softmax));
    int n = entries(vadd, "vadd__", names, 64);
    for (int i = 0; i < n; i++) test_vadd(mv, vadd, names[i]);
    int m = entries(softmax, "softmax__", names, 64);
    for (int i = 0; i < m; i++) test_softmax(ms, softmax, names[i], block);
    if (n == 0 || m == 0) {
        fprintf(stderr, "no entries found\n");
        return 1;
    }
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
