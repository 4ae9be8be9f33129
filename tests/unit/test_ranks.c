/* test_ranks.c — libtile as the ranks of a data-parallel job use it,
 * without a GPU: several devices in one process (the driver test double,
 * fake_libcuda.c, with two devices whose contexts it tracks per thread)
 * and several processes on one tuning cache.
 *
 * Devices: a thread bound to device 1 (cudaSetDevice(1), as
 * torch.cuda.set_device(LOCAL_RANK) does) loads the bundle's module there
 * and launches and tunes there only, never retaining, loading into or
 * launching on device 0; a thread without a context gets device 0's
 * primary context (the documented fallback), where the key is answered by
 * the disk cache (same device name) without timing; a key seen before in
 * a context is neither loaded nor timed again; freeing the bundle unloads
 * its module from both contexts and leaves the caller's context current.
 *
 * Cache: RANKS processes store KEYS winners each into one cache file at
 * once while another process reads it in a loop. Every line must survive
 * (stores are serialized by the cache's lock: without it lines are lost)
 * and the reader must never meet a damaged file (writes are atomic renames:
 * a file written in place would be seen truncated). */
#include "config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/rt.h"
#include "tests/unit/check.h"
#include "tests/unit/spin_bundle.h"

#define FAKE TILE_BUILDDIR "/tests/unit/fakecuda.so"
enum { RANKS = 8, KEYS = 25, N = 4096 };

static const RtDriver *d;
static void (*device_stats)(int dev, int out[4]);   /* retains, loads, unloads, launches */
static int (*last_device)(void);
static char root[] = "/tmp/tile-ranks-XXXXXX";
static CUdeviceptr out;

static TileKernel *load_spin(void) {
    void *data;
    size_t size;
    TileBundle *b = NULL;
    TileKernel *k = NULL;
    CHECK(spin_bundle(&data, &size) == 0);
    CHECK(tile_bundle_load_memory(data, size, &b) == TILE_OK);
    free(data);
    CHECK(b && tile_kernel_get(b, "spin", &k) == TILE_OK);
    return k;
}

/* A launch from a thread of its own, bound to `device` first (-1: left
 * without a context). */
typedef struct Rank {
    TileKernel *k;
    int device;
    TileStatus status;
    int chosen;
} Rank;

static void *rank_main(void *arg) {
    Rank *r = arg;
    CUdevice dev;
    CUcontext ctx;
    if (r->device >= 0 && (d->device_get(&dev, r->device) ||
                           d->primary_ctx_retain(&ctx, dev) || d->ctx_set_current(ctx))) {
        r->status = TILE_ERROR_CUDA;
        return NULL;
    }
    TileLaunchArg a[2] = {tile_ptr(out), tile_int(N)};
    r->status = tile_launch_select(r->k, 0, NULL, a, 2, NULL, &r->chosen);
    return NULL;
}

static void run_rank(Rank *r) {
    pthread_t t;
    CHECK(pthread_create(&t, NULL, rank_main, r) == 0 && pthread_join(t, NULL) == 0);
    if (r->status) fprintf(stderr, "rank on device %d: %s\n", r->device, tile_last_error());
}

static void test_devices(void) {
    setenv("TILE_CACHE_DIR", root, 1);
    setenv("FAKE_CUDA_TIMES", "spin_i400000:400,spin_i40000:40,spin_i16:1,spin_i4000:4", 1);
    TileKernel *k = load_spin();
    int s0[4], s1[4], before[4];
    Rank one = {k, 1, TILE_OK, -1}, none = {k, -1, TILE_OK, -1};
    run_rank(&one);
    device_stats(0, s0);
    device_stats(1, s1);
    CHECK(one.status == TILE_OK && one.chosen == SPIN_FASTEST && last_device() == 1);
    CHECK(s1[1] == 1 && s1[3] > SPIN_NCONFIGS);          /* loaded, tuned, launched */
    CHECK(s0[0] == 0 && s0[1] == 0 && s0[3] == 0);       /* device 0 untouched */
    /* No context: device 0's primary; the disk cache answers (no timing). */
    run_rank(&none);
    device_stats(0, s0);
    CHECK(none.status == TILE_OK && none.chosen == SPIN_FASTEST && last_device() == 0);
    CHECK(s0[0] == 1 && s0[1] == 1 && s0[3] == 1);
    /* Device 1 again: its module and its tuning table are kept. */
    device_stats(1, before);
    run_rank(&one);
    device_stats(1, s1);
    CHECK(one.status == TILE_OK && s1[1] == 1 && s1[3] == before[3] + 1);
    /* Freeing unloads from both contexts; the caller's stays current. */
    CUdevice dev;
    CUcontext ctx = NULL, now = NULL;
    CHECK(d->device_get(&dev, 1) == 0 && d->primary_ctx_retain(&ctx, dev) == 0);
    CHECK(d->ctx_set_current(ctx) == 0);
    tile_bundle_free(k->bundle);
    device_stats(0, s0);
    device_stats(1, s1);
    CHECK(s0[2] == 1 && s1[2] == 1);
    CHECK(d->ctx_get_current(&now) == 0 && now == ctx);
    unsetenv("FAKE_CUDA_TIMES");
}

/* The key of winner i of rank r, and its configuration. */
static RtTuneKey rank_key(int r, int i) {
    RtTuneKey key;
    memset(&key, 0, sizeof key);
    key.nvals = 1;
    key.vals[0] = r * 1000 + i;
    return key;
}
static int rank_config(int r, int i) { return (r + i) % SPIN_NCONFIGS; }

/* Rank r: waits for the start (EOF on fd), then stores its winners. */
static int store_rank(TileKernel *k, int r, int fd) {
    char c;
    if (read(fd, &c, 1) != 0) return 2;
    for (int i = 0; i < KEYS; i++) {
        RtTuneKey key = rank_key(r, i);
        if (rt_cache_store(k, "Fake GPU", 12040, &key, rank_config(r, i), 1.0)) return 1;
    }
    return 0;
}

/* The reader: looks up until the stores are done (EOF on done_fd); its
 * stderr (warnings of damaged files) goes to `log`. */
static int read_loop(TileKernel *k, int fd, int done_fd, const char *log) {
    char c;
    if (read(fd, &c, 1) != 0 || !freopen(log, "w", stderr) ||
        fcntl(done_fd, F_SETFL, O_NONBLOCK))
        return 2;
    RtTuneKey key = rank_key(0, 0);
    do rt_cache_lookup(k, "Fake GPU", 12040, &key);
    while (read(done_fd, &c, 1) < 0);
    return 0;
}

static void test_cache_race(void) {
    char dir[300], log[320];
    snprintf(dir, sizeof dir, "%s/race", root);
    snprintf(log, sizeof log, "%s/reader.log", root);
    setenv("TILE_CACHE_DIR", dir, 1);
    TileKernel *k = load_spin();
    int start[2], done[2];
    pid_t pids[RANKS + 1];
    CHECK(pipe(start) == 0 && pipe(done) == 0);
    fflush(NULL);
    for (int r = 0; r <= RANKS; r++) {
        if ((pids[r] = fork()) == 0) {
            close(start[1]);
            close(done[1]);
            _exit(r < RANKS ? store_rank(k, r, start[0]) : read_loop(k, start[0], done[0], log));
        }
    }
    close(start[0]);
    close(start[1]);                    /* go */
    close(done[0]);
    int failed = 0, status;
    for (int r = 0; r < RANKS; r++)
        failed += waitpid(pids[r], &status, 0) != pids[r] || !WIFEXITED(status) ||
                  WEXITSTATUS(status);
    close(done[1]);                     /* the reader stops */
    failed += waitpid(pids[RANKS], &status, 0) != pids[RANKS] || !WIFEXITED(status) ||
              WEXITSTATUS(status);
    CHECK(failed == 0);
    int missing = 0;
    for (int r = 0; r < RANKS; r++)
        for (int i = 0; i < KEYS; i++) {
            RtTuneKey key = rank_key(r, i);
            missing += rt_cache_lookup(k, "Fake GPU", 12040, &key) != rank_config(r, i);
        }
    if (missing) fprintf(stderr, "%d of %d winners lost\n", missing, RANKS * KEYS);
    CHECK(missing == 0);
    FILE *f = fopen(log, "r");
    char warning[512] = "";
    CHECK(f != NULL);
    if (f && fgets(warning, sizeof warning, f)) fprintf(stderr, "reader: %s", warning);
    if (f) fclose(f);
    CHECK(warning[0] == 0);
    tile_bundle_free(k->bundle);
}

int main(void) {
    setenv("TILE_LIBCUDA", FAKE, 1);
    setenv("FAKE_CUDA_WORKING", "1", 1);
    setenv("FAKE_CUDA_DEVICES", "2", 1);
    unsetenv("TILE_AUTOTUNE");
    unsetenv("TILE_VERBOSE");
    CHECK(mkdtemp(root) != NULL);
    TileStatus s;
    d = rt_driver(&s);
    void *lib = dlopen(FAKE, RTLD_NOW | RTLD_LOCAL);
    CHECK(d != NULL && lib != NULL && d->ndevices == 2);
    if (!d || !lib) return check_done("test_ranks");
    void *sym = dlsym(lib, "fake_cuda_device_stats");
    memcpy(&device_stats, &sym, sizeof sym);
    sym = dlsym(lib, "fake_cuda_last_device");
    memcpy(&last_device, &sym, sizeof sym);
    CHECK(device_stats && last_device && d->mem_alloc(&out, N * sizeof(float)) == CUDA_SUCCESS);
    if (device_stats && last_device) test_devices();
    test_cache_race();
    d->mem_free(out);
    dlclose(lib);
    CHECK(remove_tree(root) == 0);
    return check_done("test_ranks");
}
