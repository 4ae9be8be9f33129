/*
 * host.c — the example programs' shared machinery (host.h): the driver
 * through libtile's table, device buffers with poison and guard zones,
 * random inputs, and the comparison with the C references.
 */
#include "host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "examples/ref/ref.h"
#include "runtime/driver.h"

enum { GUARD_BYTES = 256, SHOW = 5 };

static const RtDriver *drv;

static void cu_check(CUresult r, const char *what) {
    if (r == CUDA_SUCCESS)
        return;
    char buf[160];
    fprintf(stderr, "%s: %s\n", what, rt_cuda_error(drv, r, buf, sizeof buf));
    exit(1);    /* the device is unusable: nothing after this would mean much */
}

void host_init(const char *prog) {
    TileStatus s = tile_init();
    if (s == TILE_ERROR_NO_DRIVER || s == TILE_ERROR_NO_DEVICE) {
        fprintf(stderr, "%s: skipped: %s\n", prog, tile_last_error());
        exit(77);
    }
    if (s == TILE_OK)
        drv = rt_driver(&s);
    if (s != TILE_OK || !drv) {
        fprintf(stderr, "%s: %s\n", prog, tile_last_error());
        exit(1);
    }
    CUdevice dev;
    CUcontext ctx;
    char name[128];
    cu_check(drv->device_get(&dev, 0), "cuDeviceGet");
    cu_check(drv->device_get_name(name, sizeof name, dev), "cuDeviceGetName");
    cu_check(drv->primary_ctx_retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    cu_check(drv->ctx_set_current(ctx), "cuCtxSetCurrent");
    printf("%s: device 0: %s\n", prog, name);
}

TileKernel *host_kernel(const char *dir, const char *file, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    /* Loaded once per file and kept for the life of the program. */
    static struct { char path[4096]; TileBundle *b; } loaded[32];
    static int nloaded;
    TileBundle *b = NULL;
    for (int i = 0; i < nloaded; i++)
        if (!strcmp(loaded[i].path, path))
            b = loaded[i].b;
    if (!b) {
        if (tile_bundle_load(path, &b) != TILE_OK) {
            printf("  FAIL: %s\n", tile_last_error());
            return NULL;
        }
        if (nloaded < 32) {
            snprintf(loaded[nloaded].path, sizeof loaded[nloaded].path, "%s", path);
            loaded[nloaded++].b = b;
        }
    }
    TileKernel *k;
    if (tile_kernel_get(b, name, &k) != TILE_OK) {
        printf("  FAIL: %s: %s\n", path, tile_last_error());
        return NULL;
    }
    return k;
}

int host_launch(TileKernel *k, const TileLaunchArg *args, int nargs) {
    TileStatus s = tile_launch(k, args, nargs, NULL);
    if (s == TILE_OK) {
        CUresult r = drv->ctx_synchronize();
        if (r != CUDA_SUCCESS) {
            char buf[160];
            printf("  FAIL: %s: %s\n", tile_kernel_signature(k),
                   rt_cuda_error(drv, r, buf, sizeof buf));
            exit(1);    /* a fault in a kernel poisons the context */
        }
        return 0;
    }
    printf("  FAIL: %s: %s\n", tile_status_name(s), tile_last_error());
    return -1;
}

int host_run_check(TileKernel *k, const TileLaunchArg *args, int nargs, const char *what,
                   HostBuf *out, const double *ref, const uint8_t *written, double rtol,
                   double atol) {
    if (host_launch(k, args, nargs)) return 1;
    return host_download(out) + host_check(what, out, ref, written, rtol, atol);
}

/* ---------------------------------------------------------- randomness */

uint64_t host_u64(HostRng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double host_uniform(HostRng *r, double lo, double hi) {
    return lo + (hi - lo) * (double)(host_u64(r) >> 11) * 0x1p-53;
}

double host_normal(HostRng *r) {
    double u1 = host_uniform(r, 0x1p-53, 1.0), u2 = host_uniform(r, 0, 1);
    return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ---------------------------------------------------- device buffers */

static size_t type_size(HostType t) { return t == HOST_F16 || t == HOST_BF16 ? 2 : 4; }

const char *host_type_name(HostType t) {
    static const char *names[] = {"f32", "f16", "bf16", "i32"};
    return names[t];
}

double host_unit(HostType t) {
    return t == HOST_F32 ? 0x1p-24 : t == HOST_F16 ? 0x1p-11 : t == HOST_BF16 ? 0x1p-8 : 0;
}

static size_t alloc_bytes(const HostBuf *b) {
    return ((size_t)b->n + (size_t)b->off) * type_size(b->type) + GUARD_BYTES;
}

HostBuf host_buf(HostType t, long n, long off) {
    HostBuf b = {t, n, off, 0, 0, NULL};
    CUdeviceptr p;
    cu_check(drv->mem_alloc(&p, alloc_bytes(&b)), "cuMemAlloc");
    b.alloc = p;
    b.dev = b.alloc + (uint64_t)off * type_size(t);
    b.host = calloc((size_t)(n > 0 ? n : 1), type_size(t));
    host_poison(&b);
    return b;
}

void host_buf_free(HostBuf *b) {
    cu_check(drv->mem_free(b->alloc), "cuMemFree");
    free(b->host);
}

double host_get(const HostBuf *b, long i) {
    switch (b->type) {
    case HOST_F32: return ((const float *)b->host)[i];
    case HOST_F16: return ref_f16_to_f32(((const uint16_t *)b->host)[i]);
    case HOST_BF16: return ref_bf16_to_f32(((const uint16_t *)b->host)[i]);
    case HOST_I32: return ((const int32_t *)b->host)[i];
    }
    return NAN;
}

void host_set(HostBuf *b, long i, double v) {
    switch (b->type) {
    case HOST_F32: ((float *)b->host)[i] = (float)v; break;
    case HOST_F16: ((uint16_t *)b->host)[i] = ref_f32_to_f16((float)v); break;
    case HOST_BF16: ((uint16_t *)b->host)[i] = ref_f32_to_bf16((float)v); break;
    case HOST_I32: ((int32_t *)b->host)[i] = (int32_t)v; break;
    }
}

static double *fill(HostBuf *b, HostRng *r, double lo, double hi, double scale) {
    double *d = malloc((size_t)(b->n > 0 ? b->n : 1) * sizeof *d);
    for (long i = 0; i < b->n; i++) {
        host_set(b, i, scale > 0 ? scale * host_normal(r) : host_uniform(r, lo, hi));
        d[i] = host_get(b, i);
    }
    host_upload(b);
    return d;
}

double *host_fill_uniform(HostBuf *b, HostRng *r, double lo, double hi) {
    return fill(b, r, lo, hi, 0);
}

double *host_fill_normal(HostBuf *b, HostRng *r, double scale) {
    return fill(b, r, 0, 0, scale);
}

void host_upload(HostBuf *b) {
    if (b->n > 0)
        cu_check(drv->memcpy_htod(b->dev, b->host, (size_t)b->n * type_size(b->type)),
                 "cuMemcpyHtoD");
}

void host_poison_padding(HostBuf *b, long rows, long cols, long stride) {
    size_t sz = type_size(b->type);
    for (long r = 0; r < rows; r++)
        memset((char *)b->host + (size_t)(r * stride + cols) * sz, 0xff,
               (size_t)(stride - cols) * sz);
    host_upload(b);
}

void host_poison(HostBuf *b) {
    cu_check(drv->memset_d8(b->alloc, 0xff, alloc_bytes(b)), "cuMemsetD8");
}

int host_download(HostBuf *b) {
    size_t bytes = (size_t)b->n * type_size(b->type);
    unsigned char guard[GUARD_BYTES];
    if (bytes)
        cu_check(drv->memcpy_dtoh(b->host, b->dev, bytes), "cuMemcpyDtoH");
    cu_check(drv->memcpy_dtoh(guard, b->dev + bytes, GUARD_BYTES), "cuMemcpyDtoH");
    int clobbered = 0;
    for (int i = 0; i < GUARD_BYTES; i++)
        clobbered += guard[i] != 0xff;
    if (clobbered)
        printf("    FAIL: %d bytes of the guard after a %ld-element buffer overwritten\n",
               clobbered, b->n);
    return clobbered;
}

/* ------------------------------------------------------------ checking */

static int is_poison(const HostBuf *b, long i) {
    size_t sz = type_size(b->type);
    const unsigned char *p = (const unsigned char *)b->host + (size_t)i * sz;
    for (size_t k = 0; k < sz; k++)
        if (p[k] != 0xff)
            return 0;
    return 1;
}

int host_check(const char *what, const HostBuf *got, const double *ref,
               const uint8_t *written, double rtol, double atol) {
    int fails = 0, clobbered = 0;
    long checked = 0;
    double max_abs = 0, err2 = 0, ref2 = 0;
    for (long i = 0; i < got->n; i++) {
        if (written && !written[i]) {
            if (!is_poison(got, i) && clobbered++ < SHOW)
                printf("    %s[%ld]: written (%.9g) but must not be\n", what, i,
                       host_get(got, i));
            continue;
        }
        double g = host_get(got, i), r = ref[i], d = fabs(g - r);
        checked++;
        if (!(d <= atol + rtol * fabs(r)) && fails++ < SHOW)   /* NaN fails */
            printf("    %s[%ld]: got %.9g, want %.9g (|err| %.3g)\n", what, i, g, r, d);
        max_abs = isnan(d) || d > max_abs ? (isnan(d) ? INFINITY : d) : max_abs;
        err2 += isnan(d) ? INFINITY : d * d;
        ref2 += r * r;
    }
    double norm_rel = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
    printf("    %-6s %9ld elements  max |err| %.3g  |err|/|ref| %.3g  (rtol %.2g atol %.2g)  %s\n",
           what, checked, max_abs, norm_rel, rtol, atol,
           fails + clobbered ? "FAIL" : "ok");
    if (fails > SHOW || clobbered > SHOW)
        printf("    %s: %d out of tolerance, %d clobbered\n", what, fails, clobbered);
    return fails + clobbered;
}

uint8_t *host_row_mask(long rows, long cols, long stride) {
    long n = rows * stride;
    uint8_t *m = calloc((size_t)(n > 0 ? n : 1), 1);
    for (long i = 0; i < rows; i++)
        memset(m + i * stride, 1, (size_t)cols);
    return m;
}

double host_sum_rtol(long n) { return 2e-6 + 10 * 0x1p-24 * sqrt((double)n); }

/* ------------------------------------------------------------ main */

int host_main(int argc, char **argv, HostExample ex, const char *file, HostType t) {
    const char *dir = argc > 1 ? argv[1] : ".";
    host_init(argv[0]);
    const char *env = getenv("TILE_SEED");
    HostRng rng = {env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL)};
    printf("seed %llu (TILE_SEED=%llu replays it)\n", (unsigned long long)rng.s,
           (unsigned long long)rng.s);
    int fails = ex(dir, file, t, &rng);
    printf("%s: %s (%d failure(s))\n", argv[0], fails ? "FAIL" : "PASS", fails);
    return fails ? 1 : 0;
}

int host_main_typed(int argc, char **argv, HostExample ex, const char *name) {
    const char *type = argc > 2 ? argv[2] : "f32";
    HostType t = type[0] == 'b' ? HOST_BF16
               : type[0] == 'f' && type[1] == '1' ? HOST_F16 : HOST_F32;
    char file[128];
    snprintf(file, sizeof file, "%s%s.tlb", name,
             t == HOST_BF16 ? "_bf16" : t == HOST_F16 ? "_f16" : "");
    return host_main(argc > 2 ? 2 : argc, argv, ex, file, t);
}
