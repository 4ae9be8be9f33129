/* test_interp_limits.c — the interpreter under careless and hostile
 * kernels, through tile_interp.h:
 *   - memory follows the live values, not all values: an unrolled kernel
 *     of ~100 tiles of 4 MiB runs in a few of them (peak RSS checked, and
 *     where the build is not sanitized, under an address-space limit the
 *     old one-slot-per-value plan cannot fit);
 *   - a kernel whose live tiles do not fit is an "out of memory" error,
 *     not an abort (under an address-space limit; skipped under ASan,
 *     whose shadow memory needs the address space);
 *   - the step limit (TileRunOptions.max_steps, $TILE_INTERP_MAX_STEPS)
 *     ends an endless loop with a located error;
 *   - the cancel flag ends a run, set from another thread or from a SIGINT
 *     handler (the pattern a command-line program uses).
 * Limits apply in forked children so that the test process keeps its
 * own. */
#include "interp/tile_interp.h"
#include "check.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

enum { N = 1 << 19, ITERS = 48 };

static TileProgram *compile(const char *name, const char *src) {
    char *diags = NULL;
    TileProgram *p = tile_compile_source(name, src, strlen(src), NULL, &diags);
    if (!p) fprintf(stderr, "%s", diags ? diags : "compile failed\n");
    CHECK(p != NULL);
    free(diags);
    return p;
}

static const char unrolled_src[] =
    "kernel unrolled(out: *f32, x: *f32) grid(1) {\n"
    "    let c = arange(0, 524288);\n"
    "    var acc = load(x + c);\n"
    "    for i in static_range(0, 48) {\n"
    "        acc = acc * 0.5 + 1.0;\n"
    "    }\n"
    "    store(out + c, acc);\n"
    "}\n";

static long maxrss_kib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Runs the unrolled kernel; 0 when every element is right. */
static int run_unrolled(TileProgram *p, char **err) {
    float *x = malloc(sizeof(float) * N), *out = malloc(sizeof(float) * N);
    if (!x || !out) return -1;
    for (int i = 0; i < N; i++) x[i] = (float)(i % 7);
    TileArg args[2] = {tile_arg_buffer(out, sizeof(float) * N),
                       tile_arg_buffer(x, sizeof(float) * N)};
    int rc = tile_interp_run(p, "unrolled", args, 2, NULL, err);
    for (int i = 0; i < N && rc == 0; i++) {
        float want = x[i];
        for (int k = 0; k < ITERS; k++) want = want * 0.5f + 1.0f;
        rc = out[i] != want;
    }
    free(x);
    free(out);
    return rc;
}

static void test_memory(void) {
    TileProgram *p = compile("unrolled.tile", unrolled_src);
    if (!p) return;
    /* ~4 tiles a copy, 48 copies, 4 MiB a tile: ~770 MiB when every value
     * has its own slots; a handful of tiles when dead ones are reused. */
    long before = maxrss_kib();
    char *err = NULL;
    CHECK(run_unrolled(p, &err) == 0 && err == NULL);
    free(err);
    long grew = maxrss_kib() - before;
    fprintf(stderr, "unrolled kernel: peak RSS grew by %ld MiB\n", grew / 1024);
    CHECK(grew < 160 * 1024);
    if (!SANITIZED) {
        pid_t pid = fork();
        if (pid == 0) {
            struct rlimit rl = {320u << 20, 320u << 20};
            setrlimit(RLIMIT_AS, &rl);
            char *e = NULL;
            int rc = run_unrolled(p, &e);
            if (rc) fprintf(stderr, "under 320 MiB: %s\n", e ? e : "wrong results");
            _exit(rc ? 1 : 0);
        }
        int status = 0;
        CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0);
    }
    tile_program_free(p);
}

/* 64 tiles of 8 MiB live at once: 512 MiB that a 256 MiB address space
 * cannot hold. */
static void test_out_of_memory(void) {
    if (SANITIZED) {
        fprintf(stderr, "out-of-memory check skipped (address sanitizer)\n");
        return;
    }
    static char src[8192];
    size_t n = (size_t)snprintf(src, sizeof src, "kernel big(out: *f32, x: *f32) grid(1) {\n"
                                "    let c = arange(0, 1048576);\n");
    for (int i = 0; i < 64; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, "    let a%d = load(x + c) * %d.0;\n",
                              i, i);
    n += (size_t)snprintf(src + n, sizeof src - n, "    store(out + c, a0");
    for (int i = 1; i < 64; i++) n += (size_t)snprintf(src + n, sizeof src - n, " + a%d", i);
    snprintf(src + n, sizeof src - n, ");\n}\n");
    TileProgram *p = compile("big.tile", src);
    if (!p) return;
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        struct rlimit rl = {256u << 20, 256u << 20};
        setrlimit(RLIMIT_AS, &rl);
        static float x[1], out[1];
        TileArg args[2] = {tile_arg_buffer(out, sizeof out), tile_arg_buffer(x, sizeof x)};
        char *err = NULL;
        int rc = tile_interp_run(p, "big", args, 2, NULL, &err);
        const char *msg = rc && err ? err : "no error";
        ssize_t w = write(fds[1], msg, strlen(msg));
        _exit(w > 0 ? 0 : 1);
    }
    close(fds[1]);
    char got[512] = "";
    ssize_t len = read(fds[0], got, sizeof got - 1);
    got[len > 0 ? len : 0] = 0;
    close(fds[0]);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(strncmp(got, "big.tile:1:8: error: out of memory: kernel 'big' needs 5", 56) == 0 &&
          strstr(got, " MiB for its live values\n"));
    if (strncmp(got, "big.tile:1:8: error: out of memory", 34)) fprintf(stderr, "got: %s\n", got);
    tile_program_free(p);
}

static const char spin_src[] =
    "kernel spin(out: *i32, n: i32) grid(1) {\n"
    "    var i = 0;\n"
    "    while i >= 0 {\n"
    "        i = (i + n) % 1000;\n"
    "    }\n"
    "    store(out, i);\n"
    "}\n";

static volatile sig_atomic_t cancel_flag;

static void *cancel_later(void *arg) {
    (void)arg;
    struct timespec t = {0, 50 * 1000 * 1000};
    nanosleep(&t, NULL);
    cancel_flag = 1;
    return NULL;
}

static void on_sigint(int sig) {
    (void)sig;
    cancel_flag = 1;
}

static void *sigint_later(void *arg) {
    (void)arg;
    struct timespec t = {0, 50 * 1000 * 1000};
    nanosleep(&t, NULL);
    kill(getpid(), SIGINT);
    return NULL;
}

static void test_steps_and_cancel(void) {
    TileProgram *p = compile("spin.tile", spin_src);
    if (!p) return;
    int out = 0;
    TileArg args[2] = {tile_arg_buffer(&out, sizeof out), tile_arg_int(1)};
    char *err = NULL;
    alarm(120);   /* a run that does not stop fails the test */

    TileRunOptions o = {.max_steps = 1000};
    CHECK(tile_interp_run(p, "spin", args, 2, &o, &err) == -1);
    CHECK(err && strncmp(err, "spin.tile:3:", 12) == 0 &&
          strstr(err, "error: the run exceeded its limit of 1000 steps (TileRunOptions"
                      ".max_steps or $TILE_INTERP_MAX_STEPS), program (0, 0, 0)\n"));
    free(err);

    setenv("TILE_INTERP_MAX_STEPS", "5000", 1);
    CHECK(tile_interp_run(p, "spin", args, 2, NULL, &err) == -1);
    CHECK(err && strstr(err, "limit of 5000 steps"));
    free(err);
    setenv("TILE_INTERP_MAX_STEPS", "lots", 1);
    CHECK(tile_interp_run(p, "spin", args, 2, NULL, &err) == -1);
    CHECK_STR(err, "invalid TILE_INTERP_MAX_STEPS 'lots' (expected a number of steps; "
                   "0: no limit)");
    free(err);
    setenv("TILE_INTERP_MAX_STEPS", "0", 1);   /* no limit: the flag stops it */

    /* A flag already set stops the run at its first step. */
    cancel_flag = 1;
    TileRunOptions c = {.cancel = &cancel_flag};
    CHECK(tile_interp_run(p, "spin", args, 2, &c, &err) == -1);
    CHECK(err && strstr(err, "spin.tile:2:") == err &&
          strstr(err, "error: run interrupted, program (0, 0, 0)\n"));
    free(err);

    /* Set by another thread while the kernel loops. */
    cancel_flag = 0;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, cancel_later, NULL) == 0);
    CHECK(tile_interp_run(p, "spin", args, 2, &c, &err) == -1);
    CHECK(err && strstr(err, "run interrupted"));
    free(err);
    pthread_join(t, NULL);

    /* Set by the caller's SIGINT handler (Ctrl-C in a command-line tool). */
    cancel_flag = 0;
    struct sigaction sa = {0}, old;
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGINT, &sa, &old) == 0);
    CHECK(pthread_create(&t, NULL, sigint_later, NULL) == 0);
    CHECK(tile_interp_run(p, "spin", args, 2, &c, &err) == -1);
    CHECK(err && strstr(err, "run interrupted"));
    free(err);
    pthread_join(t, NULL);
    sigaction(SIGINT, &old, NULL);
    unsetenv("TILE_INTERP_MAX_STEPS");
    alarm(0);
    tile_program_free(p);
}

int main(void) {
    test_memory();
    test_out_of_memory();
    test_steps_and_cancel();
    return check_done("test_interp_limits");
}
