/* test_tune.c — libtile's autotuner without a GPU, against the working
 * mode of the driver test double (fake_libcuda.c, FAKE_CUDA_WORKING=1):
 * kernels whose launches take the times the test sets, host memory as
 * device memory, each launch adding 1 to out[0].
 *
 * Checked: tune keys (power-of-two rounding, facts, candidate sets); the
 * fastest candidate wins; candidates that fail to load, need too much
 * shared memory, too many registers or spill are skipped with their
 * reason in verbose output; outputs are restored (out[0] grows by exactly
 * one per tile_launch, whatever the timing launched); a key seen before
 * takes no timing; the disk cache answers a fresh bundle, a corrupt or
 * truncated cache file is ignored with a warning and rewritten; a FIFO or
 * directory at the cache path is neither read nor replaced;
 * TILE_AUTOTUNE=0 and force; stream capture; selections and the
 * introspection calls; the shared-memory carveout a function gets. */
#include "config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/rt.h"
#include "tests/unit/check.h"
#include "tests/unit/bundle_util.h"
#include "tests/unit/spin_bundle.h"

#define FAKE TILE_BUILDDIR "/tests/unit/fakecuda.so"

/* pick<BLOCK: i32>(out: *f32 stored, x: *f32, n: i32) @tune_key(n)
 * grid(cdiv(n, BLOCK)), BLOCK in 64, 128, 256, 512 (the last with
 * @require(n >= 512)), 4 warps; one variant each, entry pick_bBLOCK. */
static TlbParam params[] = {{"out", TLB_PTR, TLB_F32, TLB_PARAM_STORED},
                            {"x", TLB_PTR, TLB_F32, 0}, {"n", TLB_I32, 0, 0}};
static TlbCparam cparams[] = {{"BLOCK", TLB_CPARAM_INT, TLB_I32}};
static uint32_t tune_key[] = {2};
static int64_t blocks[4][1] = {{64}, {128}, {256}, {512}};
static TlbInsn g64[] = {{TLB_X_PARAM, 2, 0}, {TLB_X_CONST, 0, 64}, {TLB_X_CDIV, 0, 0}};
static TlbInsn g128[] = {{TLB_X_PARAM, 2, 0}, {TLB_X_CONST, 0, 128}, {TLB_X_CDIV, 0, 0}};
static TlbInsn g256[] = {{TLB_X_PARAM, 2, 0}, {TLB_X_CONST, 0, 256}, {TLB_X_CDIV, 0, 0}};
static TlbInsn g512[] = {{TLB_X_PARAM, 2, 0}, {TLB_X_CONST, 0, 512}, {TLB_X_CDIV, 0, 0}};
static TlbInsn req512[] = {{TLB_X_PARAM, 2, 0}, {TLB_X_CONST, 0, 512}, {TLB_X_GE, 0, 0}};
static TlbExpr r512[] = {{3, req512}};
/* b512's first variant: `out` 16-byte aligned (the largest guard: 4) */
static const uint8_t none[3], out16[3] = {4};
static TlbVariant v64[] = {{none, 0, "pick_b64", 5, 0, NULL, 0}}, v128[] = {{none, 0, "pick_b128", 5, 0, NULL, 0}},
                  v256[] = {{none, 0, "pick_b256", 0, 0, NULL, 0}},
                  v512[] = {{out16, 0, "pick_b512", 0, 0, NULL, 0}, {none, 0, "pick_b512", 0, 0, NULL, 0}};
static TlbConfig configs[] = {{4, 1, blocks[0], {{3, g64}}, 0, NULL, 1, v64},
                              {4, 1, blocks[1], {{3, g128}}, 0, NULL, 1, v128},
                              {4, 1, blocks[2], {{3, g256}}, 0, NULL, 1, v256},
                              {4, 1, blocks[3], {{3, g512}}, 1, r512, 2, v512}};
static TlbKernel kernels[] = {{"pick", 3, params, 1, cparams, 1, tune_key, 1, 4, configs}};

static int (*fake_launches)(void);
static const RtDriver *d;
static char root[] = "/tmp/tile-tune-XXXXXX";
static char cache_dir[256];
static CUdeviceptr out, x;

static TileBundle *load(void) {
    return load_kernels(kernels, sizeof kernels / sizeof kernels[0]);
}

static TileKernel *pick(TileBundle *b) {
    TileKernel *k = NULL;
    CHECK(tile_kernel_get(b, "pick", &k) == TILE_OK);
    return k;
}

static void use_cache(const char *sub) {
    snprintf(cache_dir, sizeof cache_dir, "%s/%s", root, sub);
    setenv("TILE_CACHE_DIR", cache_dir, 1);
}

/* The configuration chosen for n (tuning if needed); -1 on an error. */
static int choose(TileKernel *k, int selection, int64_t n) {
    TileLaunchArg a[3] = {tile_ptr(out), tile_ptr(x), tile_int(n)};
    int c = -1;
    TileStatus s = tile_kernel_choose(k, selection, NULL, a, 3, NULL, &c);
    if (s) fprintf(stderr, "choose: %s\n", tile_last_error());
    return s ? -1 : c;
}

static float out0(void) {
    float v;
    CHECK(d->memcpy_dtoh(&v, out, sizeof v) == CUDA_SUCCESS);
    return v;
}

/* stderr into a file between begin_capture and end_capture. */
static int saved_stderr = -1;
static char capture_path[300];
static void begin_capture(void) {
    fflush(stderr);
    snprintf(capture_path, sizeof capture_path, "%s/stderr", root);
    int fd = open(capture_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    saved_stderr = dup(2);
    dup2(fd, 2);
    close(fd);
}
static void end_capture(char *buf, size_t n) {
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    FILE *f = fopen(capture_path, "r");
    size_t got = f ? fread(buf, 1, n - 1, f) : 0;
    buf[got] = 0;
    if (f) fclose(f);
}

static void test_keys(void) {
    TileBundle *b = load();
    TileKernel *k = pick(b);
    RtPlan p;
    memset(&p, 0, sizeof p);
    RtTuneKey key;
    int64_t ns[][2] = {{300, 512}, {512, 512}, {513, 1024}, {1, 1}, {0, 0}, {-5, -5},
                       {3, 4}, {(1ll << 62) + 1, INT64_MAX}, {1ll << 62, 1ll << 62}};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        p.ints[2] = ns[i][0];
        rt_tune_key(k, &p, NULL, 0, &key);
        CHECK(key.nvals == 1 && key.vals[0] == ns[i][1]);
    }
    uint32_t c3[] = {0, 1, 2}, c4[] = {0, 1, 2, 3};
    p.ints[2] = 300;
    p.mult[0] = 5;
    RtTuneKey a, b2;
    rt_tune_key(k, &p, c3, 3, &a);
    rt_tune_key(k, &p, c4, 4, &b2);
    CHECK(a.candidates != b2.candidates && a.facts == b2.facts);
    /* facts count up to the kernel's largest guard only */
    RtTuneKey c, d;
    p.mult[0] = 30;
    rt_tune_key(k, &p, c3, 3, &c);
    p.mult[0] = 3;
    rt_tune_key(k, &p, c3, 3, &d);
    CHECK(c.facts == a.facts && d.facts != a.facts);
    /* n equal to 1 or 3 (both odd) is one key, unless a variant guards n
     * to equal 1 */
    RtTuneKey n1, n3, g1, g3;
    p.ints[2] = 1;
    rt_tune_key(k, &p, c3, 3, &n1);
    p.ints[2] = 3;
    rt_tune_key(k, &p, c3, 3, &n3);
    CHECK(n1.facts == n3.facts && k->params[2].guard_one == 0);
    k->params[2].guard_one = 1;
    rt_tune_key(k, &p, c3, 3, &g3);
    p.ints[2] = 1;
    rt_tune_key(k, &p, c3, 3, &g1);
    CHECK(g1.facts != g3.facts && g3.facts == n3.facts);
    k->params[2].guard_one = 0;
    p.ints[2] = 300;
    char text[256];
    rt_key_text(k, &a, text, sizeof text);
    char want[256];
    snprintf(want, sizeof want, "n=512,facts=%016llx,candidates=%016llx",
             (unsigned long long)a.facts, (unsigned long long)a.candidates);
    CHECK_STR(text, want);
    tile_bundle_free(b);
}

static void test_introspection(void) {
    TileBundle *b = load();
    TileKernel *k = pick(b);
    CHECK(tile_kernel_nconfigs(k) == 4);
    CHECK_STR(tile_kernel_config_name(k, 1), "BLOCK=128,warps=4,stages=1");
    CHECK(tile_kernel_config_name(k, 4) == NULL);
    CHECK(tile_kernel_grid_dims(k) == 1 && tile_kernel_grid_dims(NULL) == -1);
    CHECK(tile_kernel_param_stored(k, 0) == 1 && tile_kernel_param_stored(k, 1) == 0);
    CHECK(tile_kernel_param_stored(k, 3) == -1);
    int s1 = -1, s2 = -1, s3 = -1;
    CHECK(tile_kernel_select(k, "BLOCK=256", &s1) == TILE_OK && s1 == 1);
    CHECK(tile_kernel_select(k, "BLOCK=256", &s2) == TILE_OK && s2 == 1);
    CHECK(tile_kernel_select(k, "warps=4,BLOCK=64", &s3) == TILE_OK && s3 == 2);
    CHECK(tile_kernel_select(k, "", &s2) == TILE_OK && s2 == 0);
    CHECK(tile_kernel_select(k, "BLOCK=100", &s2) == TILE_ERROR_NOT_FOUND);
    CHECK_STR(tile_last_error(), "kernel 'pick' has no configuration 'BLOCK=100'; "
              "available: BLOCK=64,warps=4,stages=1; BLOCK=128,warps=4,stages=1; "
              "BLOCK=256,warps=4,stages=1; BLOCK=512,warps=4,stages=1");
    CHECK(tile_kernel_select(k, "SIZE=1", &s2) == TILE_ERROR_INVALID_VALUE);
    CHECK_STR(tile_last_error(), "kernel 'pick': no compile-time parameter 'SIZE' "
              "(configurations set BLOCK, warps, stages)");
    CHECK(tile_kernel_select(k, "BLOCK", &s2) == TILE_ERROR_INVALID_VALUE);
    CHECK_STR(tile_last_error(), "kernel 'pick': invalid configuration 'BLOCK' (expected "
              "NAME=VALUE,...)");
    /* A selection narrows the candidates; @require still applies. */
    use_cache("select");
    CHECK(choose(k, s1, 300) == 2 && choose(k, s3, 300) == 0);
    int s4;
    CHECK(tile_kernel_select(k, "BLOCK=512", &s4) == TILE_OK);
    CHECK(choose(k, s4, 300) == -1);
    CHECK_STR(tile_last_error(), "kernel 'pick': no configuration matching 'BLOCK=512' has "
              "its @require hold for these arguments (n=300; 1 of 4 configurations "
              "selected): BLOCK=512,warps=4,stages=1 needs n >= 512");
    CHECK(choose(k, 9, 300) == -1);
    CHECK_STR(tile_last_error(), "tile_kernel_choose: kernel 'pick' has no selection 9");
    tile_bundle_free(b);
}

/* The fastest wins; outputs restored; a key seen before is not timed. */
static void test_winner_and_restore(void) {
    use_cache("winner");
    setenv("FAKE_CUDA_TIMES", "pick_b64:50,pick_b128:5,pick_b256:20,pick_b512:1", 1);
    TileBundle *b = load();
    TileKernel *k = pick(b);
    float seven = 7;
    CHECK(d->memcpy_htod(out, &seven, sizeof seven) == CUDA_SUCCESS);
    int before = fake_launches();
    TileLaunchArg a[3] = {tile_ptr(out), tile_ptr(x), tile_int(300)};
    int chosen = -1;
    CHECK(tile_launch_select(k, 0, NULL, a, 3, NULL, &chosen) == TILE_OK && chosen == 1);
    /* 3 candidates (512 fails @require), each warmed up, estimated and
     * timed at least 5 times, then the launch itself. */
    CHECK(fake_launches() - before >= 3 * 7 + 1);
    CHECK(out0() == 8.0f);                      /* one launch's worth */
    before = fake_launches();
    a[2] = tile_int(290);                       /* rounds to 512 too: no tuning */
    CHECK(tile_launch(k, a, 3, NULL) == TILE_OK && fake_launches() == before + 1);
    CHECK(out0() == 9.0f);
    /* n = 600: key 1024, and BLOCK=512 is now a candidate (and wins). */
    CHECK(choose(k, 0, 600) == 3);
    CHECK(out0() == 9.0f);                      /* choosing launches nothing for good */
    char path[1100];
    CHECK(rt_cache_path(b, path, sizeof path) == 0 && access(path, R_OK) == 0);
    tile_bundle_free(b);

    /* A fresh bundle (nothing in memory) reads the winners from disk: no
     * timing even though the times have changed. */
    setenv("FAKE_CUDA_TIMES", "pick_b64:1,pick_b128:50,pick_b256:50,pick_b512:50", 1);
    b = load();
    k = pick(b);
    before = fake_launches();
    CHECK(choose(k, 0, 300) == 1 && choose(k, 0, 600) == 3 && fake_launches() == before);
    tile_bundle_free(b);

    /* TILE_AUTOTUNE=force: measured again (and the cache rewritten). */
    setenv("TILE_AUTOTUNE", "force", 1);
    b = load();
    CHECK(choose(pick(b), 0, 300) == 0 && fake_launches() > before);
    tile_bundle_free(b);
    unsetenv("TILE_AUTOTUNE");
    b = load();
    before = fake_launches();
    CHECK(choose(pick(b), 0, 300) == 0 && fake_launches() == before);
    tile_bundle_free(b);

    /* TILE_AUTOTUNE=0: the first candidate, nothing launched. */
    setenv("TILE_AUTOTUNE", "0", 1);
    b = load();
    CHECK(choose(pick(b), 0, 5000) == 0 && fake_launches() == before);
    tile_bundle_free(b);
    unsetenv("TILE_AUTOTUNE");
    unsetenv("FAKE_CUDA_TIMES");
}

/* Skipped candidates and their reasons (TILE_VERBOSE). */
static void test_filters(void) {
    use_cache("filters");
    setenv("FAKE_CUDA_TIMES", "pick_b64:50,pick_b128:5,pick_b256:20,pick_b512:1", 1);
    setenv("TILE_VERBOSE", "1", 1);
    char log[8192];
    struct {
        const char *var, *value;
        int want;
        const char *reason;
    } cases[] = {
        {"FAKE_CUDA_BADENTRY", "pick_b512", 1, "skipped: cannot load: kernel 'pick': entry 'pick_b512' is "
         "missing from the bundle's code: CUDA_ERROR_UNKNOWN (unknown error)\n"},
        {"FAKE_CUDA_SMEM", "pick_b512:300000", 1, "skipped: needs 300000 bytes of shared "
         "memory, the device has 232448 per block\n"},
        {"FAKE_CUDA_MAXTHREADS", "pick_b512:64", 1, "skipped: uses 32 registers per "
         "thread: at most 64 threads per program, it runs 128\n"},
        {"FAKE_CUDA_LOCAL", "pick_b512:1024,pick_b128:4096", 2, "skipped: spills: 1024 "
         "bytes of local memory per thread (more than TILE_TUNE_MAX_SPILL=256)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        setenv(cases[i].var, cases[i].value, 1);
        TileBundle *b = load();
        begin_capture();
        int c = choose(pick(b), 0, 1000);
        end_capture(log, sizeof log);
        CHECK(c == cases[i].want);
        if (!strstr(log, cases[i].reason) || !strstr(log, "tile: tuning pick for n=1024"))
            fprintf(stderr, "case %zu: log:\n%s", i, log);
        CHECK(strstr(log, cases[i].reason) != NULL);
        CHECK(strstr(log, "<- chosen") != NULL);
        tile_bundle_free(b);
        unsetenv(cases[i].var);
        unlink(cache_dir);
        CHECK(remove_tree(cache_dir) == 0);
    }
    /* Every spilling: spills are tolerated; every one unloadable: an error. */
    setenv("FAKE_CUDA_LOCAL", "pick_b64:999,pick_b128:999,pick_b256:999,pick_b512:999", 1);
    TileBundle *b = load();
    CHECK(choose(pick(b), 0, 1000) == 3);
    tile_bundle_free(b);
    unsetenv("FAKE_CUDA_LOCAL");
    setenv("FAKE_CUDA_BADENTRY", "pick_b64,pick_b128,pick_b256,pick_b512", 1);
    b = load();
    begin_capture();
    CHECK(choose(pick(b), 0, 2000) == -1);
    end_capture(log, sizeof log);
    CHECK_STR(tile_last_error(), "kernel 'pick': none of its 4 candidate configurations "
              "can run on device 0 (Fake GPU); configuration BLOCK=64,warps=4,stages=1: "
              "cannot load: kernel 'pick': entry 'pick_b64' is missing from the bundle's "
              "code: CUDA_ERROR_UNKNOWN (unknown error)");
    tile_bundle_free(b);
    unsetenv("FAKE_CUDA_BADENTRY");
    /* A capturing stream: the first candidate, not remembered. */
    setenv("FAKE_CUDA_CAPTURING", "1", 1);
    b = load();
    TileKernel *k = pick(b);
    int before = fake_launches();
    CHECK(choose(k, 0, 4000) == 0 && fake_launches() == before);
    unsetenv("FAKE_CUDA_CAPTURING");
    CHECK(choose(k, 0, 4000) == 3 && fake_launches() > before);
    tile_bundle_free(b);
    unsetenv("TILE_VERBOSE");
    unsetenv("FAKE_CUDA_TIMES");
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static char *read_text(const char *path) {
    static char buf[8192];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f) fclose(f);
    return buf;
}

/* Corrupt cache files: ignored with a warning, tuned again, rewritten. */
static void test_corrupt_cache(void) {
    use_cache("corrupt");
    setenv("FAKE_CUDA_TIMES", "pick_b64:50,pick_b128:5,pick_b256:20,pick_b512:1", 1);
    TileBundle *b = load();
    char path[1100], good[8192], log[4096], want[1400];
    CHECK(choose(pick(b), 0, 300) == 1);
    CHECK(rt_cache_path(b, path, sizeof path) == 0);
    tile_bundle_free(b);
    snprintf(good, sizeof good, "%s", read_text(path));
    static const char head[] = "tile-tune 1\npick\tFake GPU\t12040\tn=512,facts=";
    CHECK(strncmp(good, head, sizeof head - 1) == 0);
    CHECK(strstr(good, ",candidates=") != NULL);
    CHECK(strstr(good, "\t1\tBLOCK=128,warps=4,stages=1\t5.000\nend 1 ") != NULL);

    char damaged[8192];
    snprintf(damaged, sizeof damaged, "%s", good);
    *strstr(damaged, "5.000") = '6';            /* checksum no longer matches */
    struct { const char *text, *why; } cases[] = {
        {"garbage\n", "no 'tile-tune 1' header"},
        {damaged, "checksum mismatch"},
        {"tile-tune 1\npick\tFake GPU\t12040\tn=512\t1\tBLOCK=128,warps=4,stages=1\t5\n",
         "truncated (no 'end' line)"},
        {"tile-tune 1\nend 0", "truncated (no final newline)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        write_text(path, cases[i].text);
        b = load();
        int before = fake_launches();
        begin_capture();
        CHECK(choose(pick(b), 0, 300) == 1 && fake_launches() > before);
        end_capture(log, sizeof log);
        snprintf(want, sizeof want, "tile: warning: ignoring the tuning cache '%s': %s; it "
                 "will be rewritten\n", path, cases[i].why);
        CHECK_STR(log, want);
        CHECK_STR(read_text(path), good);        /* rewritten whole */
        tile_bundle_free(b);
    }
    /* A configuration index that disagrees with its name is not used. */
    b = load();
    char *line = strstr(good, "\t1\tBLOCK=128");
    line[1] = '2';
    /* (the checksum must match for the line to be read at all) */
    char *end = strstr(good, "end 1 ");
    snprintf(end, 32, "end 1 %08x\n", tlb_crc32c(0, good, (size_t)(end - good)));
    write_text(path, good);
    int before = fake_launches();
    CHECK(choose(pick(b), 0, 300) == 1 && fake_launches() > before);
    tile_bundle_free(b);
    unsetenv("FAKE_CUDA_TIMES");
}

/* Special files at the cache path: a FIFO (which would block a blocking
 * open forever: an alarm turns that into a failure), a directory. Neither
 * is read nor replaced; tuning works, with a warning. */
static void test_special_cache(void) {
    use_cache("special");
    setenv("FAKE_CUDA_TIMES", "pick_b64:50,pick_b128:5,pick_b256:20,pick_b512:1", 1);
    char path[1100], log[4096], want[1400];
    CHECK(mkdir(cache_dir, 0755) == 0);
    for (int i = 0; i < 2; i++) {
        TileBundle *b = load();
        CHECK(rt_cache_path(b, path, sizeof path) == 0);
        CHECK(i == 0 ? mkfifo(path, 0600) == 0 : mkdir(path, 0755) == 0);
        alarm(60);
        begin_capture();
        CHECK(choose(pick(b), 0, 300) == 1);
        end_capture(log, sizeof log);
        alarm(0);
        snprintf(want, sizeof want, "tile: warning: ignoring the tuning cache '%s': it is "
                 "not a regular file; tuning results are not kept (set TILE_CACHE_DIR)\n",
                 path);
        CHECK_STR(log, want);
        struct stat st;
        CHECK(lstat(path, &st) == 0 && (i == 0 ? S_ISFIFO(st.st_mode) : S_ISDIR(st.st_mode)));
        tile_bundle_free(b);
        CHECK(i == 0 ? unlink(path) == 0 : rmdir(path) == 0);
    }
    unsetenv("FAKE_CUDA_TIMES");
}

/* The GPU test's spin bundle: it loads, and ptxas takes its PTX where the
 * toolkit is. */
static void test_spin_bundle(void) {
    void *data;
    size_t size;
    TileBundle *b = NULL;
    CHECK(spin_bundle(&data, &size) == 0);
    CHECK(tile_bundle_load_memory(data, size, &b) == TILE_OK);
    free(data);
    TileKernel *k = NULL;
    CHECK(tile_kernel_get(b, "spin", &k) == TILE_OK && tile_kernel_nconfigs(k) == 4);
    CHECK_STR(tile_kernel_config_name(k, SPIN_FASTEST), "ITERS=16,warps=4,stages=1");
    tile_bundle_free(b);
#ifdef TILE_PTXAS
    char *ptx = spin_ptx(), path[300], cmd[800];
    snprintf(path, sizeof path, "%s/spin.ptx", root);
    FILE *f = fopen(path, "w");
    CHECK(f && ptx && fputs(ptx, f) >= 0);
    if (f) fclose(f);
    free(ptx);
    snprintf(cmd, sizeof cmd, "%s -arch=sm_90 %s -o /dev/null", TILE_PTXAS, path);
    CHECK(system(cmd) == 0);
#endif
}

/* The shared-memory carveout libtile prefers (launch.c, prefer_l1 and
 * switch_carveout), seen through the fake's sm_90 occupancy calculator
 * and 4 SMs: pick_b64 with 16932 bytes of shared memory fits 13 programs
 * of 4 warps and its variant asks for 5 (39% of 228 KiB) — for grids of
 * more than 65 programs (a wave of 52 and a quarter); a grid of 16 or 65
 * gets the driver's carveout back. pick_b128 asks for 5 too, and fits
 * only 4 (48000 bytes each): the driver's choice stays; pick_b256 asks
 * for nothing. */
static void test_carveout(int (*carveout)(const char *)) {
    use_cache("carveout");
    setenv("FAKE_CUDA_SMEM", "pick_b64:16932,pick_b128:48000,pick_b256:16932", 1);
    setenv("TILE_VERBOSE", "1", 1);
    char log[8192];
    TileBundle *b = load();
    begin_capture();
    CHECK(choose(pick(b), 0, 1000) >= 0);
    end_capture(log, sizeof log);
    CHECK(carveout("pick_b64") == -1);    /* its last launch: 16 programs */
    CHECK(carveout("pick_b128") == -1);
    CHECK(carveout("pick_b256") == -1);
    CHECK(strstr(log, "tile: kernel 'pick': entry 'pick_b64' carves out 39% of the SM's "
                      "233472 bytes of shared memory (5 programs of 17956 bytes per SM, of "
                      "the 13 that fit) for grids of more than 65 programs; the rest stays "
                      "L1\n") != NULL);
    CHECK(strstr(log, "'pick_b128' carves") == NULL);
    int sel = -1;
    TileKernel *k = pick(b);
    CHECK(tile_kernel_select(k, "BLOCK=64", &sel) == TILE_OK);
    const int64_t ns[] = {64 * 66, 64 * 65, 64 * 1000, 64 * 1000, 64};
    const int want[] = {39, -1, 39, 39, -1};
    for (int i = 0; i < 5; i++) {
        TileLaunchArg a[3] = {tile_ptr(out), tile_ptr(x), tile_int(ns[i])};
        CHECK(tile_launch_select(k, sel, NULL, a, 3, NULL, NULL) == TILE_OK);
        CHECK(carveout("pick_b64") == want[i]);
    }
    tile_bundle_free(b);
    unsetenv("TILE_VERBOSE");
    unsetenv("FAKE_CUDA_SMEM");
    CHECK(remove_tree(cache_dir) == 0);
}

/* A persistent variant (TlbVariant.flags; tilec --persistent) is
 * launched with at most the programs resident at once: the fake's
 * occupancy calculator fits 16 programs of 4 warps (no shared memory) on
 * each of its 4 SMs, so 64; a grid smaller than that as it is;
 * $TILE_PERSISTENT_PROGRAMS (read at load) caps it instead. The same
 * kernel's variant without the flag launches its whole grid. A grid
 * given at launch must be the clause's for the persistent variant (it
 * walks its clause's programs), and replaces it for the other. */
static void test_persistent(void (*last)(unsigned[3], void **)) {
    static TlbVariant vw[] = {{none, 0, "walk_p", 0, 0, NULL, TLB_VARIANT_PERSISTENT}},
                      vn[] = {{none, 0, "walk_n", 0, 0, NULL, 0}};
    static TlbConfig cw[] = {{4, 1, blocks[2], {{3, g256}}, 0, NULL, 1, vw},
                             {4, 2, blocks[2], {{3, g256}}, 0, NULL, 1, vn}};
    static TlbKernel kw[] = {{"walk", 3, params, 1, cparams, 0, NULL, 1, 2, cw}};
    const int64_t ns[] = {256 * 1000, 256 * 10, 256 * 64, 256 * 65};
    const unsigned want[] = {64, 10, 64, 64};
    for (int capped = 0; capped < 2; capped++) {
        if (capped) setenv("TILE_PERSISTENT_PROGRAMS", "3", 1);
        TileBundle *b = load_kernels(kw, 1);
        TileKernel *k = NULL;
        int sels[2] = {-1, -1};
        CHECK(tile_kernel_get(b, "walk", &k) == TILE_OK);
        CHECK(k && tile_kernel_select(k, "stages=1", &sels[0]) == TILE_OK &&
              tile_kernel_select(k, "stages=2", &sels[1]) == TILE_OK);
        for (int i = 0; k && i < 4; i++)
            for (int j = 0; j < 2; j++) {
                int sel = sels[j];
                TileLaunchArg a[3] = {tile_ptr(out), tile_ptr(x), tile_int(ns[i])};
                unsigned g[3] = {0, 0, 0};
                void *stream;
                CHECK(tile_launch_select(k, sel, NULL, a, 3, NULL, NULL) == TILE_OK);
                last(g, &stream);
                unsigned full = (unsigned)(ns[i] / 256);
                unsigned w = j ? full : capped ? 3 : want[i];
                CHECK(g[0] == w && g[1] == 1 && g[2] == 1);
                uint32_t same[3] = {full, 1, 1}, other[3] = {full + 1, 1, 1};
                CHECK(tile_launch_select(k, sel, same, a, 3, NULL, NULL) == TILE_OK);
                TileStatus s = tile_launch_select(k, sel, other, a, 3, NULL, NULL);
                CHECK(j ? s == TILE_OK : s == TILE_ERROR_GRID);
                if (!j && i == 1 && !capped)
                    CHECK(strcmp(tile_last_error(),
                                 "kernel 'walk': entry 'walk_p' is persistent (tilec "
                                 "--persistent): it walks the programs of its grid clause, "
                                 "so a grid given at launch (11x1x1) cannot replace it") == 0);
            }
        tile_bundle_free(b);
    }
    unsetenv("TILE_PERSISTENT_PROGRAMS");
}
/* A warp-specialized variant (TlbVariant.flags; tilec
 * --warp-specialize) is launched with a producer warpgroup more than
 * its configuration's warps; the same configuration's other variant
 * (`out` not 16-byte aligned) with the warps alone. */
static void test_warpspec(unsigned (*block)(void)) {
    static TlbVariant v[] = {{out16, 0, "ws_a", 0, 0, NULL, TLB_VARIANT_WARPSPEC},
                             {none, 0, "ws_g", 0, 0, NULL, 0}};
    static TlbConfig c[] = {{8, 2, blocks[2], {{3, g256}}, 0, NULL, 2, v}};
    static TlbKernel k1[] = {{"spec", 3, params, 1, cparams, 0, NULL, 1, 1, c}};
    TileBundle *b = load_kernels(k1, 1);
    TileKernel *k = NULL;
    CHECK(tile_kernel_get(b, "spec", &k) == TILE_OK && k);
    TileLaunchArg a[3] = {tile_ptr(out), tile_ptr(x), tile_int(256 * 4)};
    CHECK(k && tile_launch(k, a, 3, NULL) == TILE_OK);
    CHECK(block() == 32 * (8 + TLB_WARPSPEC_WARPS));
    a[0] = tile_ptr(out + 4);   /* not 16-byte aligned: the other variant */
    CHECK(k && tile_launch(k, a, 3, NULL) == TILE_OK);
    CHECK(block() == 32 * 8);
    tile_bundle_free(b);
}

int main(void) {
    setenv("TILE_LIBCUDA", FAKE, 1);
    setenv("FAKE_CUDA_WORKING", "1", 1);
    CHECK(mkdtemp(root) != NULL);
    TileStatus s;
    d = rt_driver(&s);
    void *lib = dlopen(FAKE, RTLD_NOW | RTLD_LOCAL);
    CHECK(d != NULL && lib != NULL);
    if (!d || !lib) return check_done("test_tune");
    void *sym = dlsym(lib, "fake_cuda_launches");
    memcpy(&fake_launches, &sym, sizeof sym);
    CHECK(d->mem_alloc(&out, 4096) == CUDA_SUCCESS && d->mem_alloc(&x, 4096) == CUDA_SUCCESS);
    test_keys();
    test_introspection();
    test_winner_and_restore();
    test_filters();
    test_corrupt_cache();
    test_special_cache();
    test_spin_bundle();
    sym = dlsym(lib, "fake_cuda_carveout");
    int (*carveout)(const char *);
    memcpy(&carveout, &sym, sizeof sym);
    CHECK(carveout != NULL);
    if (carveout) test_carveout(carveout);
    sym = dlsym(lib, "fake_cuda_last_launch");
    void (*last)(unsigned[3], void **);
    memcpy(&last, &sym, sizeof sym);
    CHECK(last != NULL);
    if (last) test_persistent(last);
    sym = dlsym(lib, "fake_cuda_last_block");
    unsigned (*block)(void);
    memcpy(&block, &sym, sizeof sym);
    CHECK(block != NULL);
    if (block) test_warpspec(block);
    d->mem_free(out);
    d->mem_free(x);
    dlclose(lib);
    CHECK(remove_tree(root) == 0);
    return check_done("test_tune");
}
