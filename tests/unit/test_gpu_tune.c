/* test_gpu_tune.c — autotuning on a GPU (exit 77 without one): the
 * spin bundle (spin_bundle.h), whose configurations differ only in speed.
 *
 *   test_gpu_tune            both phases, the second in a new process
 *   test_gpu_tune first|second
 *
 * First phase (TILE_CACHE_DIR: a fresh directory, made here when unset):
 * the first launch for n = 2^20 tunes (TILE_VERBOSE's "tuning spin" line
 * is checked in the captured stderr) on a stream of its own, must choose
 * the fastest configuration, must leave out[i] = i % 97 + 1 exactly (the
 * tuning launches undone), and the cache file must exist; a second launch
 * (n = 2^20 - 16, the same key) must not tune again and adds 1 more.
 * Second phase, a new process with the same cache directory: the choice
 * comes "from the tuning cache", without timing, and is the same. */
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/gpu_util.h"
#include "tests/unit/spin_bundle.h"

static const RtDriver *d;
static int failures;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Runs choose-and-launch with stderr captured into log. */
static TileStatus launch_logged(TileKernel *k, CUdeviceptr out, int n, CUstream s,
                                int *chosen, char *log, size_t cap) {
    char path[] = "/tmp/tile-gpu-tune-log-XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    fflush(stderr);
    dup2(fd, 2);
    TileLaunchArg a[2] = {tile_ptr(out), tile_int(n)};
    TileStatus st = tile_launch_select(k, 0, NULL, a, 2, s, chosen);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t got = pread(fd, log, cap - 1, 0);
    log[got > 0 ? got : 0] = 0;
    close(fd);
    unlink(path);
    fputs(log, stderr);
    return st;
}

static TileKernel *load(void) {
    void *data;
    size_t size;
    TileBundle *b;
    TileKernel *k;
    if (spin_bundle(&data, &size)) exit(1);
    TILE_OK_OR_DIE(tile_bundle_load_memory(data, size, &b));
    free(data);
    TILE_OK_OR_DIE(tile_kernel_get(b, "spin", &k));
    return k;
}

static int phase(int second) {
    enum { N = 1 << 20 };
    gpu_bind(d, 0);
    TileKernel *k = load();
    CUstream s;
    CU(d, d->stream_create(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr out;
    CU(d, d->mem_alloc(&out, N * sizeof(float)));
    float *h = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) h[i] = (float)(i % 97);
    CU(d, d->memcpy_htod(out, h, N * sizeof(float)));
    char log[8192];
    int chosen = -1;
    double t0 = now_ms();
    TILE_OK_OR_DIE(launch_logged(k, out, N, s, &chosen, log, sizeof log));
    CU(d, d->stream_synchronize(s));
    double ms = now_ms() - t0;
    printf("test_gpu_tune %s: chose %s in %.1f ms\n", second ? "second" : "first",
           tile_kernel_config_name(k, chosen), ms);
    EXPECT(chosen == SPIN_FASTEST);
    EXPECT(strstr(log, second ? "from the tuning cache" : "tile: tuning spin for n=1048576"));
    if (second) EXPECT(!strstr(log, "tile: tuning spin"));
    CU(d, d->memcpy_dtoh(h, out, N * sizeof(float)));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += h[i] != (float)(i % 97 + 1);
    EXPECT(bad == 0);
    /* The same key again: no tuning, one more launch's effect. */
    TILE_OK_OR_DIE(launch_logged(k, out, N - 16, s, &chosen, log, sizeof log));
    EXPECT(chosen == SPIN_FASTEST && !strstr(log, "tile: tuning") && !strstr(log, "cache"));
    CU(d, d->stream_synchronize(s));
    CU(d, d->memcpy_dtoh(h, out, N * sizeof(float)));
    for (int i = 0; i < N; i++) bad += h[i] != (float)(i % 97 + 1 + (i < N - 16));
    EXPECT(bad == 0);
    char path[1100];
    EXPECT(rt_cache_path(k->bundle, path, sizeof path) == 0 && access(path, R_OK) == 0);
    d->mem_free(out);
    d->stream_destroy(s);
    tile_bundle_free(k->bundle);
    free(h);
    return failures ? 1 : 0;
}

int main(int argc, char **argv) {
    setenv("TILE_VERBOSE", "1", 1);
    unsetenv("TILE_AUTOTUNE");
    d = gpu_driver("test_gpu_tune");
    if (argc > 1) return phase(strcmp(argv[1], "second") == 0);
    char dir[] = "/tmp/tile-gpu-tune-XXXXXX";
    if (!getenv("TILE_CACHE_DIR")) {
        if (!mkdtemp(dir)) return 1;
        setenv("TILE_CACHE_DIR", dir, 1);
    }
    if (phase(0)) return 1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], "second", (char *)NULL);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "test_gpu_tune: the second process failed\n");
        return 1;
    }
    printf("test_gpu_tune: passed\n");
    return 0;
}
