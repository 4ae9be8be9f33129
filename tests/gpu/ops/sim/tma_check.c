/*
 * tma_check.c — the simulated TMA loads and mbarriers (warpsim.c's
 * ws_tma_load and ws_mbar_*, reached through tma.ll's inline asm and
 * x86.py) against a reference computed here:
 *
 *   tma_check LIB.so
 *
 * LIB.so is tests/gpu/ops/sim/tma.ll through x86.py and llc, linked with
 * warpsim.o (check.sh builds it). Each case fills a tensor in memory
 * (strided: rows and planes padded with bytes no element holds, every
 * element byte non-zero so that the out-of-bounds fill shows), encodes
 * its map with ws_tmap_encode, passes the map's address in the slot after
 * the kernel's ordinary parameters, runs the kernel on simulated warps
 * and compares, byte by byte, each box the kernel copied out of shared
 * memory with the box computed here from the PTX ISA's description: the
 * element at (x0 + i, x1 + j, x2 + k), zero outside the tensor, at byte
 * ((k box1 + j) box0 + i) esize of the box, whose 16-byte chunk number,
 * for a swizzle of S bytes, is XORed with the number of its 128-byte row
 * modulo S/16 (shared memory lies at a multiple of 256 KiB, so offsets
 * are addresses here). The tma_Nd kernels also record what try_wait
 * said at four points of each phase (tma.ll): 1, 0, 1, 0 — the previous
 * phase complete, the current one not while an arrival or the bytes are
 * outstanding (the count of 2, the transaction count, negative for a copy
 * before its expect_tx), complete after both, the other parity not.
 *
 * Cases: 1-D, 2-D and 3-D boxes; elements of 1, 2, 4 and 8 bytes; no
 * swizzle and 32, 64, 128-byte swizzling; boxes inside the tensor, partly
 * outside (negative coordinates, past the end, in each dimension) and
 * wholly outside; three phases on one mbarrier (parity 0, 1, 0); a
 * two-stage ring of mbarriers (tma_ring: five boxes, each stage reused,
 * parities by stage) over two programs. Then what must be refused (each
 * in a child process, which must exit with warpsim's 70): a copy whose
 * rank is not the map's, a swizzled map narrower than its span, a
 * swizzled map of rank 1 (the driver refuses it), an
 * arrival on an mbarrier never initialized, and one a finished program
 * initialized (the program's end clears them). Copies land when a
 * thread waits for their phase: a slot read before the wait holds its
 * old bytes, after it the copy's; a copy no thread waits for is refused
 * at the program's end. Exit status 0 pass, 1 fail.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef void (*Kernel)(const uint64_t *);
typedef void (*RunFn)(Kernel, const uint64_t *, int, const uint32_t[3]);
typedef void (*EncodeFn)(void *, uint64_t, int, const uint64_t *, const uint64_t *,
                         const uint32_t *, int, int);
typedef void (*InitFn)(uint64_t *, int32_t);
typedef void (*ArriveFn)(uint64_t *, int32_t);

typedef struct Case {
    int ring;   /* tma_ring (rank 2), else tma_{rank}d */
    int rank, esize, swizzle;
    uint64_t dim[3];
    uint32_t box[3];
    int32_t c[3], d[3];   /* box it at c + it d */
    int iters;
} Case;

static RunFn run;
static EncodeFn encode;
static void *lib;

/* Byte b of element (x0, x1, x2): a hash, never 0 (zero is the fill)
 * and never 0xee (the padding). */
static unsigned char elem_byte(int64_t x0, int64_t x1, int64_t x2, int b) {
    uint64_t h = (uint64_t)(x0 * 1000003 + x1 * 7919 + x2 * 104729 + b * 31) * 0x9e3779b97f4a7c15ull;
    unsigned char v = (unsigned char)(h >> 56);
    return v == 0 || v == 0xee ? 0x5a : v;
}

/* Where byte `off` of the box lands with swizzle sw (bytes): its 16-byte
 * chunk XOR its 128-byte row modulo the span's chunks. */
static uint32_t swizzled(uint32_t off, int sw) {
    if (!sw) return off;
    uint32_t chunk = off / 16, row = off / 128, n = (uint32_t)sw / 16;
    return (chunk ^ row % n) * 16 + off % 16;
}

static const char *describe(const Case *c) {
    static char s[256];
    int n = snprintf(s, sizeof s, "%s %dB elements swizzle %d dims (", c->ring ? "ring 2d" :
                     c->rank == 1 ? "1d" : c->rank == 2 ? "2d" : "3d", c->esize, c->swizzle);
    for (int i = 0; i < c->rank; i++)
        n += snprintf(s + n, sizeof s - (size_t)n, "%s%llu", i ? "," : "", (unsigned long long)c->dim[i]);
    n += snprintf(s + n, sizeof s - (size_t)n, ") box (");
    for (int i = 0; i < c->rank; i++)
        n += snprintf(s + n, sizeof s - (size_t)n, "%s%u", i ? "," : "", c->box[i]);
    n += snprintf(s + n, sizeof s - (size_t)n, ") at");
    for (int it = 0; it < c->iters; it++) {
        n += snprintf(s + n, sizeof s - (size_t)n, " (");
        for (int i = 0; i < c->rank; i++)
            n += snprintf(s + n, sizeof s - (size_t)n, "%s%d", i ? "," : "", c->c[i] + it * c->d[i]);
        n += snprintf(s + n, sizeof s - (size_t)n, ")");
    }
    return s;
}

static int run_case(const Case *c) {
    uint64_t stride[3] = {(uint64_t)c->esize, 0, 0}, size;
    stride[1] = (c->dim[0] * (uint64_t)c->esize + 15) / 16 * 16 + 32;   /* padded rows */
    stride[2] = stride[1] * c->dim[1] + 64;                               /* and planes */
    size = c->rank == 1 ? stride[1] : c->rank == 2 ? stride[1] * c->dim[1] : stride[2] * c->dim[2];
    unsigned char *t = aligned_alloc(64, (size + 63) / 64 * 64);
    memset(t, 0xee, size);
    for (uint64_t z = 0; z < (c->rank > 2 ? c->dim[2] : 1); z++)
        for (uint64_t y = 0; y < (c->rank > 1 ? c->dim[1] : 1); y++)
            for (uint64_t x = 0; x < c->dim[0]; x++)
                for (int b = 0; b < c->esize; b++)
                    t[z * stride[2] + y * stride[1] + x * (uint64_t)c->esize + (uint64_t)b] =
                        elem_byte((int64_t)x, (int64_t)y, (int64_t)z, b);
    _Alignas(64) unsigned char map[128];
    encode(map, (uint64_t)(uintptr_t)t, c->rank, c->dim, stride + 1, c->box, c->esize, c->swizzle);

    uint32_t b0 = c->box[0], b1 = c->rank > 1 ? c->box[1] : 1, b2 = c->rank > 2 ? c->box[2] : 1;
    uint32_t bytes = b0 * b1 * b2 * (uint32_t)c->esize;
    unsigned char *out = malloc((size_t)bytes * (size_t)c->iters), *want = malloc(bytes);
    int32_t probe[4 * 8];
    memset(out, 0xcc, (size_t)bytes * (size_t)c->iters);
    memset(probe, 0xcc, sizeof probe);
    char name[32];
    snprintf(name, sizeof name, c->ring ? "tma_ring__sim" : "tma_%dd__sim", c->rank);
    Kernel k = (Kernel)dlsym(lib, name);
    if (!k) {
        fprintf(stderr, "tma_check: no %s in the library\n", name);
        exit(1);
    }
    uint64_t slots[11];
    int n = 0;
    slots[n++] = (uint64_t)(uintptr_t)out;
    if (!c->ring) slots[n++] = (uint64_t)(uintptr_t)probe;
    slots[n++] = bytes;
    slots[n++] = (uint64_t)c->iters;
    for (int i = 0; i < (c->ring ? 2 : 3); i++) slots[n++] = (uint32_t)c->c[i];
    for (int i = 0; i < (c->ring ? 2 : 3); i++) slots[n++] = (uint32_t)c->d[i];
    slots[n++] = (uint64_t)(uintptr_t)map;   /* the tensor map: its address */
    static const uint32_t one[3] = {1, 1, 1}, two[3] = {2, 1, 1};
    run(k, slots, 64, c->ring ? two : one);

    int bad = 0;
    for (int it = 0; it < c->iters; it++) {
        int64_t x[3];
        for (int i = 0; i < 3; i++) x[i] = (int64_t)c->c[i] + (int64_t)it * c->d[i];
        for (uint32_t kk = 0; kk < b2; kk++)
            for (uint32_t j = 0; j < b1; j++)
                for (uint32_t i = 0; i < b0; i++) {
                    int64_t e[3] = {x[0] + i, c->rank > 1 ? x[1] + j : 0, c->rank > 2 ? x[2] + kk : 0};
                    int in = 1;
                    for (int d = 0; d < c->rank; d++) in &= e[d] >= 0 && e[d] < (int64_t)c->dim[d];
                    uint32_t off = ((kk * b1 + j) * b0 + i) * (uint32_t)c->esize;
                    for (int b = 0; b < c->esize; b++)
                        want[swizzled(off + (uint32_t)b, c->swizzle)] =
                            in ? elem_byte(e[0], e[1], e[2], b) : 0;
                }
        for (uint32_t o = 0; o < bytes; o++) {
            unsigned char got = out[(size_t)it * bytes + o];
            if (got != want[o] && bad++ < 4) {
                uint32_t u = swizzled(o, c->swizzle) / (uint32_t)c->esize;   /* (an involution) */
                fprintf(stderr, "  box %d, shared byte %u (element i=%u j=%u k=%u): 0x%02x, want 0x%02x\n",
                        it, o, u % b0, u / b0 % b1, u / b0 / b1, got, want[o]);
            }
        }
        static const int32_t expect[4] = {1, 0, 1, 0};
        for (int p = 0; p < 4 && !c->ring; p++)
            if (probe[4 * it + p] != expect[p] && bad++ < 4)
                fprintf(stderr, "  phase %d: try_wait probe %d said %d, want %d\n", it, p,
                        probe[4 * it + p], expect[p]);
    }
    printf("%s %s\n", bad ? "FAIL" : "ok  ", describe(c));
    free(t);
    free(out);
    free(want);
    return bad != 0;
}

/* In a child process: what must end the simulation with warpsim's 70. */
static int refused(const char *what, void (*body)(void)) {
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        if (!freopen("/dev/null", "w", stderr)) _exit(3);
        body();
        _exit(0);
    }
    int st = 0;
    waitpid(p, &st, 0);
    int ok = WIFEXITED(st) && WEXITSTATUS(st) == 70;
    printf("%s refused: %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) fprintf(stderr, "  the child ended with status 0x%x, not exit 70\n", (unsigned)st);
    return !ok;
}

static void rank_mismatch(void) {   /* a 2-D map through the 1-D copy */
    Case c = {.rank = 2, .esize = 4, .dim = {32, 8}, .box = {8, 2}, .iters = 1};
    static _Alignas(64) unsigned char map[128];
    static _Alignas(16) float t[32 * 8];
    uint64_t stride = 128, slots[11] = {0};
    static unsigned char out[64];
    static int32_t probe[4];
    encode(map, (uint64_t)(uintptr_t)t, c.rank, c.dim, &stride, c.box, c.esize, 0);
    slots[0] = (uint64_t)(uintptr_t)out;
    slots[1] = (uint64_t)(uintptr_t)probe;
    slots[2] = 64;
    slots[3] = 1;
    slots[10] = (uint64_t)(uintptr_t)map;
    static const uint32_t one[3] = {1, 1, 1};
    run((Kernel)dlsym(lib, "tma_1d__sim"), slots, 64, one);
}

static void narrow_swizzle(void) {   /* 64-byte rows under 128-byte swizzling */
    static _Alignas(64) unsigned char map[128];
    static _Alignas(16) float t[64 * 8];
    uint64_t dim[2] = {64, 8}, stride = 256;
    uint32_t box[2] = {16, 8};
    encode(map, (uint64_t)(uintptr_t)t, 2, dim, &stride, box, 4, 128);
}

static void swizzled_1d(void) {   /* the driver refuses it too (session 34) */
    static _Alignas(64) unsigned char map[128];
    static _Alignas(16) uint16_t t[256];
    uint64_t dim = 256, stride = 0;
    uint32_t box = 64;
    encode(map, (uint64_t)(uintptr_t)t, 1, &dim, &stride, &box, 2, 128);
}

static uint64_t bar_never, bar_last;

static void arrive_uninitialized(void) {
    ((ArriveFn)dlsym(lib, "ws_mbar_arrive_expect_tx"))(&bar_never, 0);
}

static void init_only(const uint64_t *slots) {   /* a program leaving bar_last valid */
    (void)slots;
    if (((int (*)(void))dlsym(lib, "sim_read_ptx_sreg_tid_x"))() == 0)
        ((InitFn)dlsym(lib, "ws_mbar_init"))(&bar_last, 1);
}

static void arrive_after_program(void) {
    ((ArriveFn)dlsym(lib, "ws_mbar_arrive_expect_tx"))(&bar_last, 0);
}

/* Late landing: one thread copies 8 floats (1-D box) into a buffer of
 * zeros, reads it before waiting (the old bytes), waits for the phase,
 * reads it again (the copy); `wait` 0 leaves the copy unwaited. */
typedef void (*TmaLoadFn)(unsigned char *, const void *, int32_t, int32_t, int32_t, int32_t,
                          uint64_t *);
typedef int32_t (*TryWaitFn)(uint64_t *, int32_t);
static _Alignas(64) unsigned char late_map[128];
static _Alignas(128) unsigned char late_dst[32];
static float late_src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, late_before[8], late_after[8];
static uint64_t late_bar;
static int late_wait;

static void late_body(const uint64_t *slots) {
    (void)slots;
    if (((int (*)(void))dlsym(lib, "sim_read_ptx_sreg_tid_x"))() != 0) return;
    ((InitFn)dlsym(lib, "ws_mbar_init"))(&late_bar, 1);
    ((ArriveFn)dlsym(lib, "ws_mbar_arrive_expect_tx"))(&late_bar, 32);
    ((TmaLoadFn)dlsym(lib, "ws_tma_load"))(late_dst, late_map, 1, 0, 0, 0, &late_bar);
    memcpy(late_before, late_dst, 32);
    if (!late_wait) return;
    while (!((TryWaitFn)dlsym(lib, "ws_mbar_try_wait_parity"))(&late_bar, 0)) {}
    memcpy(late_after, late_dst, 32);
}

static void late_run(int wait) {
    uint64_t dim = 8, stride = 32;
    uint32_t box = 8;
    static const uint32_t one[3] = {1, 1, 1};
    encode(late_map, (uint64_t)(uintptr_t)late_src, 1, &dim, &stride, &box, 4, 0);
    memset(late_dst, 0, sizeof late_dst);
    late_wait = wait;
    run(late_body, NULL, 32, one);
}

static int late_landing(void) {
    late_run(1);
    static const float zero[8];
    int ok = !memcmp(late_before, zero, 32) && !memcmp(late_after, late_src, 32);
    printf("%s a slot read before its wait holds its old bytes, after it the copy's\n",
           ok ? "ok  " : "FAIL");
    return !ok;
}

static void unwaited_copy(void) {
    late_run(0);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIB.so\n", argv[0]);
        return 2;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "tma_check: %s\n", dlerror());
        return 1;
    }
    run = (RunFn)dlsym(lib, "ws_run");
    encode = (EncodeFn)dlsym(lib, "ws_tmap_encode");
    if (!run || !encode || !dlsym(lib, "ws_mbar_init") || !dlsym(lib, "ws_mbar_arrive_expect_tx") ||
        !dlsym(lib, "sim_read_ptx_sreg_tid_x")) {
        fprintf(stderr, "tma_check: %s lacks a symbol\n", argv[1]);
        return 1;
    }
    static const Case cases[] = {
        /* 1-D: partly before the start, inside, partly past the end */
        {.rank = 1, .esize = 4, .dim = {100}, .box = {32}, .c = {-8}, .d = {40}, .iters = 3},
        /* wholly past the end, inside, at the start */
        {.rank = 1, .esize = 2, .dim = {50}, .box = {16}, .c = {60}, .d = {-30}, .iters = 3},
        /* 2-D, 128B swizzling: rows partly before, inside, partly past */
        {.rank = 2, .esize = 2, .dim = {64, 40}, .box = {64, 16}, .swizzle = 128, .c = {0, -4},
         .d = {0, 16}, .iters = 3},
        /* 64B: partly out in both dimensions, inside, wholly past in x */
        {.rank = 2, .esize = 4, .dim = {40, 30}, .box = {16, 8}, .swizzle = 64, .c = {-8, 26},
         .d = {24, -12}, .iters = 3},
        /* 32B, bytes: partly past in x, inside, wholly before in x */
        {.rank = 2, .esize = 1, .dim = {100, 20}, .box = {32, 8}, .swizzle = 32, .c = {70, 0},
         .d = {-55, 6}, .iters = 3},
        /* no swizzle, 8-byte elements */
        {.rank = 2, .esize = 8, .dim = {20, 10}, .box = {4, 4}, .c = {18, 8}, .d = {-9, -5},
         .iters = 3},
        /* 3-D, 128B: partly before in y and z, inside, partly past in y and z */
        {.rank = 3, .esize = 2, .dim = {64, 12, 5}, .box = {64, 4, 3}, .swizzle = 128,
         .c = {0, -2, -1}, .d = {0, 6, 2}, .iters = 3},
        /* no swizzle: partly out in x, y and z, inside, partly before in y */
        {.rank = 3, .esize = 4, .dim = {24, 9, 7}, .box = {8, 3, 2}, .c = {-4, 7, 6},
         .d = {10, -4, -3}, .iters = 3},
        /* 64B: partly before in y; partly before in x, past in z; wholly outside */
        {.rank = 3, .esize = 2, .dim = {40, 10, 6}, .box = {32, 4, 2}, .swizzle = 64,
         .c = {8, -1, 4}, .d = {-20, 4, 1}, .iters = 3},
        /* 32B: partly out in y and z, inside, partly out in x, y and z */
        {.rank = 3, .esize = 1, .dim = {50, 6, 4}, .box = {32, 4, 2}, .swizzle = 32,
         .c = {10, 3, -1}, .d = {-9, -2, 2}, .iters = 3},
        /* the two-stage ring: five boxes down a 64 x 100 tensor (128B) */
        {.ring = 1, .rank = 2, .esize = 2, .dim = {64, 100}, .box = {64, 32}, .swizzle = 128,
         .c = {0, -8}, .d = {0, 24}, .iters = 5},
        /* ... with 4-byte elements, no swizzle, along x */
        {.ring = 1, .rank = 2, .esize = 4, .dim = {70, 9}, .box = {16, 8}, .c = {-6, 2},
         .d = {17, 0}, .iters = 5},
    };
    int fails = 0, total = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++, total++) fails += run_case(&cases[i]);

    static const uint32_t one[3] = {1, 1, 1};
    run(init_only, NULL, 32, one);
    fails += refused("a 1-D copy through a 2-D map", rank_mismatch);
    fails += refused("a 128B-swizzled map with 64-byte rows", narrow_swizzle);
    fails += refused("a swizzled map of rank 1", swizzled_1d);
    fails += refused("an arrival on an mbarrier never initialized", arrive_uninitialized);
    fails += refused("an arrival on an mbarrier of a finished program", arrive_after_program);
    fails += late_landing();
    fails += refused("a copy no thread waited for", unwaited_copy);
    total += 6;
    printf("tma_check: %d of %d cases passed\n", total - fails, total);
    return fails != 0;
}
