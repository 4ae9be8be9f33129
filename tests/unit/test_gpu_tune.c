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
 * comes "from the tuning cache", without timing, and is the same.
 *
 *   test_gpu_tune ranks       two processes at once, as the ranks of a
 *                             data-parallel job: rank i on device
 *                             i % devices (both on the one GPU of a
 *                             one-GPU machine), a fresh cache directory
 *
 * Each rank runs the first phase (tuning, or taking the winner the other
 * rank stored meanwhile); then the second phase in a new process must
 * find the winner in the cache file both stored into.
 *
 *   test_gpu_tune devices     (two or more devices; else exit 77)
 *
 * Two threads of one process, each bound to its own device, tune and
 * launch at once: both must choose the fastest and leave exact outputs,
 * and the bundle must hold one module per device. */
#include <fcntl.h>
#include <pthread.h>
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

enum { FIRST, SECOND, RANK };

static int phase(int mode, int device, TileKernel *k) {
    enum { N = 1 << 20 };
    int second = mode == SECOND;
    gpu_bind(d, device);
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
    printf("test_gpu_tune %s (device %d): chose %s in %.1f ms\n",
           mode == RANK ? "rank" : second ? "second" : "first", device,
           tile_kernel_config_name(k, chosen), ms);
    EXPECT(chosen == SPIN_FASTEST);
    EXPECT(strstr(log, second ? "from the tuning cache" : "tile: tuning spin for n=1048576") ||
           (mode == RANK && strstr(log, "from the tuning cache")));
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
    free(h);
    return failures ? 1 : 0;
}

/* The phase of a process of its own, on a fresh load of the bundle. */
static int process_phase(int mode, int device) {
    TileKernel *k = load();
    int r = phase(mode, device, k);
    tile_bundle_free(k->bundle);
    return r;
}

/* Starts `argv0 WHAT ARG` as a new process; its pid. */
static pid_t start(const char *argv0, const char *what, const char *arg) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", argv0, what, arg, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int succeeded(pid_t pid, const char *what) {
    int status;
    if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
        WEXITSTATUS(status) == 0)
        return 1;
    fprintf(stderr, "test_gpu_tune: %s failed\n", what);
    return 0;
}

/* Two processes at once (rank i on device i % devices), then the second
 * phase. */
static int ranks(const char *argv0) {
    char dev[2][16];
    pid_t pid[2];
    for (int i = 0; i < 2; i++) {
        snprintf(dev[i], sizeof dev[i], "%d", i % d->ndevices);
        pid[i] = start(argv0, "rank", dev[i]);
    }
    int ok = succeeded(pid[0], "rank 0") & succeeded(pid[1], "rank 1");
    ok = ok && succeeded(start(argv0, "second", NULL), "the second phase after the ranks");
    printf("test_gpu_tune ranks: 2 processes on %d device(s): %s\n",
           d->ndevices < 2 ? 1 : 2, ok ? "passed" : "FAILED");
    return ok ? 0 : 1;
}

typedef struct Job {
    TileKernel *k;
    int device, result;
} Job;

static void *job_main(void *arg) {
    Job *j = arg;
    j->result = phase(RANK, j->device, j->k);
    return NULL;
}

/* Devices 0 and 1 tuning and launching at once from two threads. */
static int devices(void) {
    if (d->ndevices < 2) {
        fprintf(stderr, "test_gpu_tune devices: skipped: one device\n");
        return 77;
    }
    TileKernel *k = load();
    Job jobs[2] = {{k, 0, 1}, {k, 1, 1}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, job_main, &jobs[i]);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    TileBundle *b = k->bundle;
    int n = atomic_load(&b->nmodules);
    EXPECT(jobs[0].result == 0 && jobs[1].result == 0);
    EXPECT(n == 2 && b->modules[0].dev != b->modules[1].dev);
    tile_bundle_free(b);
    printf("test_gpu_tune devices: %s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}

int main(int argc, char **argv) {
    setenv("TILE_VERBOSE", "1", 1);
    unsetenv("TILE_AUTOTUNE");
    d = gpu_driver("test_gpu_tune");
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "first") || !strcmp(what, "second"))
        return process_phase(strcmp(what, "second") == 0 ? SECOND : FIRST, 0);
    if (!strcmp(what, "rank") && argc > 2) return process_phase(RANK, atoi(argv[2]));
    if (!strcmp(what, "devices")) return devices();
    char dir[] = "/tmp/tile-gpu-tune-XXXXXX";
    if (!getenv("TILE_CACHE_DIR")) {
        if (!mkdtemp(dir)) return 1;
        setenv("TILE_CACHE_DIR", dir, 1);
    }
    if (!strcmp(what, "ranks")) return ranks(argv[0]);
    if (process_phase(FIRST, 0) || !succeeded(start(argv[0], "second", NULL), "the second process"))
        return 1;
    printf("test_gpu_tune: passed\n");
    return 0;
}
