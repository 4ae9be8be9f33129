/*
 * driver.c — finding and loading the CUDA driver.
 *
 * The driver is process-wide by nature (one libcuda per process), so this
 * is libtile's one piece of global state: the loaded table, written once
 * under pthread_once and read-only afterwards. A failure is remembered
 * too, with its message, so that every later call reports the same clear
 * reason instead of retrying dlopen.
 *
 * Order of checks, each with its own message:
 *   1. dlopen($TILE_LIBCUDA or "libcuda.so.1"): no driver installed;
 *   2. cuDriverGetVersion through dlsym: older than CUDA 12.0 is refused
 *      (the PTX tilec writes needs PTX ISA 8.0, i.e. a 12.0 driver);
 *   3. cuGetProcAddress (the _v2 form with its status out-parameter where
 *      the driver has it, 12.5+, else the 11.3 form) for every function
 *      in RT_DRIVER_FUNCS at 12.0 semantics (and RT_DRIVER_OPTIONAL's,
 *      left NULL where the driver lacks them);
 *   4. cuInit(0) and cuDeviceGetCount: the toolkit's stub library, no
 *      device, or CUDA_VISIBLE_DEVICES hiding them all.
 */
#include "runtime/rt.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef CUresult (*GetProcV1)(const char *, void **, int, unsigned long long);
typedef CUresult (*GetProcV2)(const char *, void **, int, unsigned long long, int *);

static struct {
    pthread_once_t once;
    RtDriver d;
    TileStatus status;
    char message[RT_ERRLEN];
} g = {PTHREAD_ONCE_INIT, {0}, TILE_OK, ""};

const char *rt_cuda_error(const RtDriver *d, CUresult r, char *buf, size_t n) {
    const char *name = NULL, *text = NULL;
    if (d && d->get_error_name) d->get_error_name(r, &name);
    if (d && d->get_error_string) d->get_error_string(r, &text);
    if (name && text) snprintf(buf, n, "%s (%s)", name, text);
    else snprintf(buf, n, "CUDA error %d", r);
    return buf;
}

static TileStatus fail(TileStatus s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static TileStatus fail(TileStatus s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g.message, sizeof g.message, fmt, ap);
    va_end(ap);
    return s;
}

/* Driver function `name` through cuGetProcAddress (v2 where there is
 * one); NULL with *r the error when the driver lacks it. */
static void *lookup(GetProcV2 v2, GetProcV1 v1, const char *name, CUresult *r) {
    void *fn = NULL;
    int found = 0;
    *r = v2 ? v2(name, &fn, RT_CUDA_VERSION, 0, &found) : v1(name, &fn, RT_CUDA_VERSION, 0);
    return *r == CUDA_SUCCESS ? fn : NULL;
}

static TileStatus resolve(void *lib, RtDriver *d) {
    GetProcV2 v2 = (GetProcV2)dlsym(lib, "cuGetProcAddress_v2");
    GetProcV1 v1 = (GetProcV1)dlsym(lib, "cuGetProcAddress");
    if (!v2 && !v1)
        return fail(TILE_ERROR_DRIVER_TOO_OLD, "the CUDA driver has no "
                    "cuGetProcAddress; libtile needs a driver for CUDA 12.0 or newer");
    CUresult r;
#define X(field, name, params)                                                     \
    {                                                                              \
        void *fn = lookup(v2, v1, name, &r);                                       \
        if (!fn)                                                                   \
            return fail(TILE_ERROR_DRIVER_TOO_OLD, "the CUDA driver lacks %s "     \
                        "(error %d); libtile needs CUDA 12.0 or newer", name, r);  \
        memcpy(&d->field, &fn, sizeof fn);                                         \
    }
    RT_DRIVER_FUNCS(X)
#undef X
#define X(field, name, params)                                                     \
    {                                                                              \
        void *fn = lookup(v2, v1, name, &r);                                       \
        memcpy(&d->field, &fn, sizeof fn);                                         \
    }
    RT_DRIVER_OPTIONAL(X)
#undef X
    return TILE_OK;
}

static TileStatus load(void) {
    const char *path = getenv("TILE_LIBCUDA");
    if (!path || !*path) path = "libcuda.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        return fail(TILE_ERROR_NO_DRIVER, "cannot load the CUDA driver (%s): %s; "
                    "is the NVIDIA driver installed?", path, why ? why : "not found");
    }
    CUresult (*get_version)(int *);
    void *sym = dlsym(lib, "cuDriverGetVersion");
    memcpy(&get_version, &sym, sizeof sym);
    RtDriver *d = &g.d;
    if (!sym)
        return fail(TILE_ERROR_NO_DRIVER, "%s is not a CUDA driver (it has no "
                    "cuDriverGetVersion)", path);
    CUresult r = get_version(&d->version);
    if (r == CUDA_ERROR_STUB_LIBRARY)
        return fail(TILE_ERROR_NO_DRIVER, "%s is the CUDA toolkit's stub library, "
                    "not a driver; is the NVIDIA driver installed?", path);
    if (r != CUDA_SUCCESS)
        return fail(TILE_ERROR_NO_DRIVER, "%s: cuDriverGetVersion failed (CUDA error "
                    "%d)", path, r);
    if (d->version < RT_CUDA_VERSION)
        return fail(TILE_ERROR_DRIVER_TOO_OLD, "the CUDA driver supports CUDA %d.%d; "
                    "libtile needs 12.0 or newer (update the NVIDIA driver)",
                    d->version / 1000, d->version % 1000 / 10);
    TileStatus s = resolve(lib, d);
    if (s) return s;
    char buf[160];
    r = d->init(0);
    if (r == CUDA_ERROR_STUB_LIBRARY)
        return fail(TILE_ERROR_NO_DRIVER, "%s is the CUDA toolkit's stub library, "
                    "not a driver; is the NVIDIA driver installed?", path);
    if (r == CUDA_ERROR_NO_DEVICE)
        return fail(TILE_ERROR_NO_DEVICE, "no CUDA device (cuInit: %s; check "
                    "CUDA_VISIBLE_DEVICES)", rt_cuda_error(d, r, buf, sizeof buf));
    if (r != CUDA_SUCCESS)
        return fail(TILE_ERROR_CUDA, "cannot initialize the CUDA driver: cuInit: %s",
                    rt_cuda_error(d, r, buf, sizeof buf));
    r = d->device_get_count(&d->ndevices);
    if (r != CUDA_SUCCESS)
        return fail(TILE_ERROR_CUDA, "cuDeviceGetCount: %s",
                    rt_cuda_error(d, r, buf, sizeof buf));
    if (d->ndevices <= 0)
        return fail(TILE_ERROR_NO_DEVICE, "no CUDA device (the driver sees none; "
                    "check CUDA_VISIBLE_DEVICES)");
    if (d->ndevices > RT_MAX_DEVICES) d->ndevices = RT_MAX_DEVICES;
    return TILE_OK;
}

static void load_once(void) { g.status = load(); }

const RtDriver *rt_driver(TileStatus *status) {
    pthread_once(&g.once, load_once);
    *status = g.status;
    if (g.status) {
        rt_error(g.status, "%s", g.message);
        return NULL;
    }
    return &g.d;
}

TileStatus tile_init(void) {
    TileStatus s;
    rt_driver(&s);
    return s;
}
