/*
 * wgmma_check.c — the simulated wgmma (warpsim.c's ws_wgmma and
 * ws_wgmma_ra) against a plain product, over forms tilec does not emit
 * (so difftest cannot reach them: tilec's rings are 128-byte swizzled,
 * A K-major):
 *
 *   wgmma_check LIB.so
 *
 * LIB.so is tests/gpu/ops/sim/wgmma.ll through x86.py and llc, linked with
 * warpsim.o (check.sh builds it). Every case lays out A (64 x 16) and B
 * (16 x N) in the library's shared memory the way PTX ISA 9.7.15.5.1.2
 * describes for its swizzle mode and major-ness — written here from the
 * canonical layouts as CuTe layouts in elements, ((8,m),(T,2k)) etc.,
 * composed with Swizzle<B,4,3> on the byte address, where warpsim.c works
 * in bytes per case — builds the two descriptors, runs the warpgroup (128
 * simulated threads) and compares every thread's accumulator registers,
 * by the m64nNk16 D fragment (row 16w + l/4 + 8((i/2)%2), column 8(i/4) +
 * 2(l%4) + i%2), with A B (+ C where scale-d is set). Values are small
 * multiples of 1/4, so every sum is exact and the comparison bitwise.
 * Cases: f16 and bf16; N 8 to 256; A and B each K- or MN-major; no swizzle
 * and 32, 64, 128-byte swizzling; scale-d 0 and 1; a start address
 * advanced by one K step inside a 128-byte atom; a pattern starting off
 * its natural boundary (the descriptor's base offset); A in registers
 * (ws_wgmma_ra: each thread's four registers by the ISA's Figure 148,
 * written here as a CuTe layout, the simulator rebuilding A from the
 * warpgroup's registers by the element formulas) for f16 and bf16, N 8,
 * 64 and 256, B K- and N-major. Four of them go through wgmma.ll's
 * kernels, whose inline asm x86.py must parse (the shared-memory and the
 * register form of A, each with the accumulators in flight until the
 * wait and with results at issue); the rest call ws_wgmma and ws_wgmma_ra
 * directly. Exit status 0 pass, 1 fail.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*Kernel)(const uint64_t *);
typedef void (*RunFn)(Kernel, const uint64_t *, int, const uint32_t[3]);
typedef void (*WgmmaFn)(int32_t, int32_t, uint64_t, uint64_t, int32_t, int32_t, int32_t,
                        int32_t, int32_t, float *);
typedef void (*WgmmaRaFn)(int32_t, int32_t, const uint32_t *, uint64_t, int32_t, int32_t,
                          int32_t, int32_t, float *);
typedef int (*TidFn)(void);
typedef void (*SmemFn)(unsigned char *);

enum { M = 64, K = 16, MAXN = 256, A_AT = 0, B_AT = 65536 };

/* One case; the simulated threads read it. */
typedef struct Case {
    int n, bf16, kmajor_a, kmajor_b, swizzle_a, swizzle_b, scale_d, base_a, kstep, rega;
    uint64_t da, db;
    uint32_t areg[128][4];   /* rega: each thread's A registers */
    float a[M][K], b[K][MAXN], c[128][MAXN / 2], d[128][MAXN / 2];
} Case;

static Case cs;
static unsigned char *smem;
static WgmmaFn wgmma;
static WgmmaRaFn wgmma_ra;
static TidFn tid_of;
static SmemFn set_smem;

static uint16_t bits16(float v, int bf16) {
    if (bf16) {
        uint32_t u;
        memcpy(&u, &v, 4);
        return (uint16_t)(u >> 16);   /* exact: v has few mantissa bits */
    }
    _Float16 h = (_Float16)v;
    uint16_t r;
    memcpy(&r, &h, 2);
    return r;
}

/* Swizzle<b,4,3> on a byte address: bits [4, 4+b) ^= bits [7, 7+b), the
 * latter counted from the pattern's start row `base`. */
static uint32_t swizzle(uint32_t addr, int b, uint32_t base) {
    uint32_t mask = (1u << b) - 1;
    return addr ^ ((((addr >> 7) - base) & mask) << 4);
}

/* Element offset of (mn, k) in the canonical layout (elements of 2 bytes:
 * T = 8), LBO and SBO in elements; b the swizzle's bit count (0 none). */
static uint32_t canonical(int kmajor, int b, int mn, int k, uint32_t lbo, uint32_t sbo) {
    const uint32_t T = 8, w = 1u << b;
    if (kmajor) {   /* ((8,m),(T,2k)) : ((wT,SBO),(1,LBO or T)) */
        uint32_t kstride = b ? T : lbo, rstride = b ? w * T : T;
        return (uint32_t)(mn % 8) * rstride + (uint32_t)(mn / 8) * sbo + (uint32_t)(k % 8) +
               (uint32_t)(k / 8) * kstride;
    }
    if (!b)   /* ((T,1,m),(8,k)) : ((1,T,SBO),(T,LBO)) */
        return (uint32_t)(mn % 8) + (uint32_t)(mn / 8) * sbo + (uint32_t)(k % 8) * T +
               (uint32_t)(k / 8) * lbo;
    /* ((T,w,m),(8,k)) : ((1,T,LBO),(wT,SBO)) */
    return (uint32_t)(mn % 8) + (uint32_t)(mn / 8 % w) * T + (uint32_t)(mn / (8 * w)) * lbo +
           (uint32_t)(k % 8) * w * T + (uint32_t)(k / 8) * sbo;
}

static const int mode_bits[4] = {0, 3, 2, 1};   /* descriptor mode: none, 128B, 64B, 32B */

/* Writes matrix x (rows mn, columns k: A, or B transposed) at byte `at`
 * and returns its descriptor. Strides: K-major, 8-row groups one atom
 * apart (SBO), no-swizzle K halves LBO apart; MN-major, atoms along MN
 * LBO apart and K halves SBO apart; each with a gap so that strides
 * matter. */
static uint64_t place(int rows, const float *x, int ld, int kmajor, int mode, uint32_t at,
                      uint32_t base, int kofs) {
    int b = mode_bits[mode];
    uint32_t atom = 8u * (16u << b);   /* bytes of one 8-row swizzle atom */
    uint32_t lbo, sbo;                 /* bytes */
    if (kmajor) {
        sbo = b ? 2 * atom : 256;
        lbo = b ? 16 : (uint32_t)rows / 8 * 256 + 128;
    } else if (!b) {
        sbo = 256;
        lbo = (uint32_t)rows / 8 * 256 + 512;
    } else {
        sbo = atom + 1024;
        lbo = 2 * sbo + 1024;
    }
    for (int mn = 0; mn < rows; mn++)
        for (int k = 0; k < K; k++) {
            uint32_t a = at + 2 * canonical(kmajor, b, mn, k + kofs, lbo / 2, sbo / 2);
            if (b) a = swizzle(a, b, base);
            uint16_t h = bits16(x[mn * ld + k], cs.bf16);
            memcpy(smem + a, &h, 2);
        }
    at += 2 * (uint32_t)kofs;   /* K-major, swizzled: K is contiguous */
    return (uint64_t)(at >> 4 & 0x3fff) | (uint64_t)(lbo >> 4 & 0x3fff) << 16 |
           (uint64_t)(sbo >> 4 & 0x3fff) << 32 | (uint64_t)(base & 7) << 49 |
           (uint64_t)mode << 62;
}

static void direct(const uint64_t *slots) {
    (void)slots;
    int t = tid_of();
    set_smem(smem);
    float acc[MAXN / 2];
    memcpy(acc, cs.c[t], sizeof acc);
    wgmma(cs.n, cs.bf16, cs.da, cs.db, cs.scale_d, 1, 1, !cs.kmajor_a, !cs.kmajor_b, acc);
    memcpy(cs.d[t], acc, sizeof acc);
}

/* wgmma with A in registers: thread t's four registers. The fragment
 * layout of Figure 148 (PTX ISA 9.7.15.5.1.1.1) written as the CuTe layout
 * ((4,8,4),(2,2,2)):((128,1,16),(64,8,512)) from (thread, element) to
 * m + 64k: lane%4 two K columns apart, lane/4 and the warp (16 rows)
 * along M; the elements a0..a7 (low half of register 0 first) one K
 * column, 8 rows, 8 K columns apart. */
static void a_registers(void) {
    for (int t = 0; t < 128; t++)
        for (int e = 0; e < 8; e++) {
            int at = 128 * (t % 4) + (t % 32 / 4) + 16 * (t / 32) + 64 * (e & 1) +
                     8 * (e >> 1 & 1) + 512 * (e >> 2);
            uint32_t h = bits16(cs.a[at % 64][at / 64], cs.bf16);
            if (e % 2 == 0) cs.areg[t][e / 2] = h;
            else cs.areg[t][e / 2] |= h << 16;
        }
}

static void direct_ra(const uint64_t *slots) {
    (void)slots;
    int t = tid_of();
    set_smem(smem);
    float acc[MAXN / 2];
    memcpy(acc, cs.c[t], sizeof acc);
    wgmma_ra(cs.n, cs.bf16, cs.areg[t], cs.db, cs.scale_d, 1, 1, !cs.kmajor_b, acc);
    memcpy(cs.d[t], acc, sizeof acc);
}

static int check(const char *what) {
    int bad = 0;
    for (int t = 0; t < 128; t++)
        for (int i = 0; i < cs.n / 2; i++) {
            int w = t / 32, l = t % 32;
            int row = 16 * w + l / 4 + 8 * (i / 2 % 2), col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
            float want = cs.scale_d ? cs.c[t][i] : 0;
            for (int k = 0; k < K; k++) want += cs.a[row][k] * cs.b[k][col];
            if (cs.d[t][i] != want && bad++ < 4)
                fprintf(stderr, "  %s: thread %d register %d (D[%d][%d]): %g, want %g\n", what,
                        t, i, row, col, (double)cs.d[t][i], (double)want);
        }
    printf("%s %s\n", bad ? "FAIL" : "ok  ", what);
    return bad != 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static float small(void) {   /* a multiple of 1/4 in [-2, 2) */
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (float)((int)(rng >> 40 & 15) - 8) / 4;
}

/* Fills the case's A, B and C (C also into out, thread-major, where not
 * NULL), lays A and B out in shared memory and sets the descriptors. */
static void prepare(float *out) {
    float bt[MAXN][K];
    memset(smem, 0x7f, B_AT + 65536);   /* NaNs where nothing is placed */
    for (int m = 0; m < M; m++)
        for (int k = 0; k < K; k++) cs.a[m][k] = small();
    for (int k = 0; k < K; k++)
        for (int n = 0; n < cs.n; n++) bt[n][k] = cs.b[k][n] = small();
    for (int t = 0; t < 128; t++)
        for (int i = 0; i < cs.n / 2; i++) {
            cs.c[t][i] = small() * 8;
            if (out) out[t * (cs.n / 2) + i] = cs.c[t][i];
        }
    cs.da = place(M, &cs.a[0][0], K, cs.kmajor_a, cs.swizzle_a, A_AT + 128 * (uint32_t)cs.base_a,
                  (uint32_t)cs.base_a, cs.kstep);
    cs.db = place(cs.n, &bt[0][0], K, cs.kmajor_b, cs.swizzle_b, B_AT, 0, 0);
    if (cs.rega) a_registers();
}

static const char *describe(const char *how) {
    static char what[160], a[64];
    if (cs.rega)
        snprintf(a, sizeof a, "in registers");
    else
        snprintf(a, sizeof a, "%s-major mode %d%s%s", cs.kmajor_a ? "K" : "M", cs.swizzle_a,
                 cs.base_a ? " base offset" : "", cs.kstep ? " K step" : "");
    snprintf(what, sizeof what, "%s %s n=%d A %s, B %s-major mode %d, scale-d %d", how,
             cs.bf16 ? "bf16" : "f16", cs.n, a, cs.kmajor_b ? "K" : "N", cs.swizzle_b,
             cs.scale_d);
    return what;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIB.so\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "wgmma_check: %s\n", dlerror());
        return 1;
    }
    RunFn run = (RunFn)dlsym(lib, "ws_run");
    wgmma = (WgmmaFn)dlsym(lib, "ws_wgmma");
    wgmma_ra = (WgmmaRaFn)dlsym(lib, "ws_wgmma_ra");
    tid_of = (TidFn)dlsym(lib, "sim_read_ptx_sreg_tid_x");
    set_smem = (SmemFn)dlsym(lib, "ws_smem");
    Kernel k16 = (Kernel)dlsym(lib, "wg_f16_n16__sim"), k8 = (Kernel)dlsym(lib, "wg_bf16_n8__sim");
    unsigned char *s16 = dlsym(lib, "wg_f16_n16__smem"), *s8 = dlsym(lib, "wg_bf16_n8__smem");
    Kernel r16 = (Kernel)dlsym(lib, "wg_ra_f16_n16__sim"),
           r8 = (Kernel)dlsym(lib, "wg_ra_bf16_n8__sim");
    unsigned char *rs16 = dlsym(lib, "wg_ra_f16_n16__smem"),
                  *rs8 = dlsym(lib, "wg_ra_bf16_n8__smem");
    if (!run || !wgmma || !wgmma_ra || !tid_of || !set_smem || !k16 || !k8 || !s16 || !s8 ||
        !r16 || !r8 || !rs16 || !rs8) {
        fprintf(stderr, "wgmma_check: %s lacks a symbol\n", argv[1]);
        return 1;
    }
    int fails = 0, cases = 0;
    static const uint32_t one[3] = {1, 1, 1};
    /* wgmma.ll's kernels (the asm through x86.py) read C from out and add
     * their shared memory's offset to the descriptors themselves; those
     * with A in registers read each thread's four from areg. The first
     * of each pair keeps its accumulators in flight until the wait. */
    static const Case asm_cases[4] = {
        {.n = 16, .kmajor_a = 1, .swizzle_a = 1, .swizzle_b = 2, .scale_d = 1},
        {.n = 8, .bf16 = 1, .kmajor_b = 1, .swizzle_a = 3, .scale_d = 1},
        {.n = 16, .rega = 1, .swizzle_b = 1, .scale_d = 1},
        {.n = 8, .bf16 = 1, .rega = 1, .kmajor_b = 1, .swizzle_b = 3, .scale_d = 1}};
    Kernel asm_kernels[4] = {k16, k8, r16, r8};
    unsigned char *asm_smem[4] = {s16, s8, rs16, rs8};
    for (int j = 0; j < 4; j++) {
        float out[128 * 8];
        Kernel kern = asm_kernels[j];
        smem = asm_smem[j];
        cs = asm_cases[j];
        prepare(out);
        uint64_t slots[4] = {(uint64_t)(uintptr_t)out, cs.da, cs.db, (uint64_t)cs.scale_d};
        if (cs.rega) {   /* (out, areg, db, scale) */
            slots[1] = (uint64_t)(uintptr_t)&cs.areg[0][0];
            slots[2] = cs.db;
        }
        run(kern, slots, 128, one);
        for (int t = 0; t < 128; t++)
            for (int i = 0; i < cs.n / 2; i++) cs.d[t][i] = out[t * (cs.n / 2) + i];
        fails += check(describe("asm"));
        cases++;
    }
    /* the sweep, calling ws_wgmma directly: every swizzle mode for A and
     * B, both major-nesses, the N values, scale-d, f16 and bf16 */
    static const int ns[] = {8, 16, 24, 64, 128, 256};
    smem = s16;
    static const Case special[2] = {
        /* A's start address one K step (32 bytes) into a 128-byte K-major
         * atom: the K = 16..31 part of a [64, 64] tile */
        {.n = 32, .kmajor_a = 1, .kmajor_b = 1, .swizzle_a = 1, .swizzle_b = 1, .scale_d = 1,
         .kstep = 16},
        /* A's pattern starting 2 rows (256 bytes) past a 1024-byte boundary */
        {.n = 32, .kmajor_a = 1, .swizzle_a = 1, .swizzle_b = 3, .scale_d = 1, .base_a = 2}};
    for (int j = 0; j < 2 + 32; j++) {
        if (j < 32) {
            int bf = j / 16, mode = j / 4 % 4, maj = j % 4;
            cs = (Case){.n = ns[(mode * 4 + maj + bf) % 6], .bf16 = bf, .kmajor_a = maj & 1,
                        .kmajor_b = maj >> 1 & 1, .swizzle_a = mode,
                        .swizzle_b = (mode + maj) % 4, .scale_d = (maj + bf) % 2};
        } else {
            cs = special[j - 32];
        }
        prepare(NULL);
        run(direct, NULL, 128, one);
        fails += check(describe("direct"));
        cases++;
    }
    /* A in registers: f16 and bf16, N 8, 64 and 256, B K- and N-major
     * (swizzle modes in turn), scale-d 0 and 1 */
    static const int ra_ns[] = {8, 64, 256};
    for (int j = 0; j < 12; j++) {
        cs = (Case){.n = ra_ns[j / 2 % 3], .bf16 = j / 6, .rega = 1, .kmajor_b = j % 2,
                    .swizzle_b = (j + j / 4) % 4, .scale_d = j / 3 % 2};
        prepare(NULL);
        run(direct_ra, NULL, 128, one);
        fails += check(describe("direct"));
        cases++;
    }
    printf("wgmma_check: %d of %d cases passed\n", cases - fails, cases);
    return fails != 0;
}
