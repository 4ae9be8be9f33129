/* test_runtime_driver.c — libtile's messages for each way the driver can
 * be missing or unusable, on any machine: each case runs in a child
 * process (libtile loads the driver once per process) with $TILE_LIBCUDA
 * pointing at fake_libcuda.so (a test double; see fake_libcuda.c), at
 * nothing, or at a library that is no driver, and reports the status
 * and message of tile_init or of a launch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/rt.h"
#include "tests/unit/check.h"
#include "tests/unit/vadd_bundle.h"

#define FAKE TILE_BUILDDIR "/tests/unit/fakecuda.so"

/* In a child: set the environment (NAME, VALUE pairs), then tile_init
 * (launch: a vadd launch) and write "STATUS|message" into buf. */
static void run_case(const char *const *env, int launch, char *buf, size_t n) {
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        for (; env[0]; env += 2) setenv(env[0], env[1], 1);
        TileStatus s = tile_init();
        if (launch && s == TILE_OK) {
            void *data;
            size_t size;
            TileBundle *b;
            TileKernel *k;
            if (vadd_bundle(&data, &size) || tile_bundle_load_memory(data, size, &b) ||
                tile_kernel_get(b, "vadd", &k))
                _exit(2);
            TileLaunchArg a[4] = {tile_ptr(0x1000), tile_ptr(0x2000), tile_ptr(0x3000),
                                  tile_int(100)};
            s = tile_launch(k, a, 4, NULL);
            tile_bundle_free(b);
            free(data);
        }
        char out[RT_ERRLEN + 40];
        int len = snprintf(out, sizeof out, "%s|%s", tile_status_name(s), tile_last_error());
        if (write(fds[1], out, (size_t)len) != len) _exit(3);
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < n && (r = read(fds[0], buf + got, n - 1 - got)) > 0) got += (size_t)r;
    buf[got] = 0;
    close(fds[0]);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void expect(const char *const *env, int launch, const char *want) {
    char got[RT_ERRLEN + 64];
    run_case(env, launch, got, sizeof got);
    CHECK_STR(got, want);
}

int main(void) {
    expect((const char *[]){"TILE_LIBCUDA", FAKE, "FAKE_CUDA_VERSION", "11080", NULL}, 0,
           "TILE_ERROR_DRIVER_TOO_OLD|the CUDA driver supports CUDA 11.8; libtile needs "
           "12.0 or newer (update the NVIDIA driver)");
    expect((const char *[]){"TILE_LIBCUDA", FAKE, "FAKE_CUDA_DEVICES", "0", NULL}, 0,
           "TILE_ERROR_NO_DEVICE|no CUDA device (the driver sees none; check "
           "CUDA_VISIBLE_DEVICES)");
    expect((const char *[]){"TILE_LIBCUDA", FAKE, "FAKE_CUDA_INIT", "100", NULL}, 0,
           "TILE_ERROR_NO_DEVICE|no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE (no "
           "CUDA-capable device is detected); check CUDA_VISIBLE_DEVICES)");
    expect((const char *[]){"TILE_LIBCUDA", FAKE, "FAKE_CUDA_INIT", "34", NULL}, 0,
           "TILE_ERROR_NO_DRIVER|" FAKE " is the CUDA toolkit's stub library, not a "
           "driver; is the NVIDIA driver installed?");
    expect((const char *[]){"TILE_LIBCUDA", FAKE, "FAKE_CUDA_INIT", "999", NULL}, 0,
           "TILE_ERROR_CUDA|cannot initialize the CUDA driver: cuInit: "
           "CUDA_ERROR_UNKNOWN (unknown error)");
    expect((const char *[]){"TILE_LIBCUDA", FAKE, "FAKE_CUDA_MISSING", "cuLaunchKernel", NULL}, 0,
           "TILE_ERROR_DRIVER_TOO_OLD|the CUDA driver lacks cuLaunchKernel (error 500); "
           "libtile needs CUDA 12.0 or newer");
    expect((const char *[]){"TILE_LIBCUDA", "libm.so.6", NULL}, 0,
           "TILE_ERROR_NO_DRIVER|libm.so.6 is not a CUDA driver (it has no "
           "cuDriverGetVersion)");
    expect((const char *[]){"TILE_LIBCUDA", "/nonexistent/libcuda.so.1", NULL}, 0,
           "TILE_ERROR_NO_DRIVER|cannot load the CUDA driver (/nonexistent/libcuda.so.1): "
           "/nonexistent/libcuda.so.1: cannot open shared object file: No such file or "
           "directory; is the NVIDIA driver installed?");
    /* A usable driver whose calls fail: the launch names the call and the
     * CUDA error. */
    expect((const char *[]){"TILE_LIBCUDA", FAKE, NULL}, 0, "TILE_OK|");
    expect((const char *[]){"TILE_LIBCUDA", FAKE, NULL}, 1,
           "TILE_ERROR_CUDA|kernel 'vadd': cuCtxGetCurrent: CUDA_ERROR_NOT_SUPPORTED "
           "(operation not supported)");
    return check_done("test_runtime_driver");
}
