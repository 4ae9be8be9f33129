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
 * (801). It is built as a shared object by make check and loaded through
 * $TILE_LIBCUDA. */
#include <stdlib.h>
#include <string.h>

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
    return r == 100 ? "CUDA_ERROR_NO_DEVICE" : r == 801 ? "CUDA_ERROR_NOT_SUPPORTED"
                                                        : "CUDA_ERROR_UNKNOWN";
}

static CUresult fake_error_name(CUresult r, const char **s) {
    *s = error_name(r);
    return 0;
}

static CUresult fake_error_string(CUresult r, const char **s) {
    *s = r == 100 ? "no CUDA-capable device is detected"
       : r == 801 ? "operation not supported" : "unknown error";
    return 0;
}

static CUresult fake_unsupported(void) { return 801; }

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
    if (status) *status = 0;
    return 0;
}
