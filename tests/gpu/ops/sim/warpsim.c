/*
 * warpsim.c — a simulated GPU for tests/gpu/ops/difftest -x: kernels that
 * tilec lowered, their LLVM IR rebuilt for the host (x86.py, llc) and
 * linked with this file into one shared library per .tile file, run on
 * the CPU with one pthread per GPU thread. That checks what the
 * interpreter never sees — the code generator's cross-thread machinery
 * (warp shuffles, barriers, the shared scratch, layouts and their
 * conversions, vectorized and masked memory access) — where there is no
 * GPU.
 *
 * The simulation follows the PTX ISA where it matters: shfl.sync (up,
 * idx, bfly) computes its source lane from `b` and the packed clamp and
 * segment mask `c` as the ISA's pseudo-code does, and a lane whose source
 * is out of range reads its own value; each shuffle is a rendezvous of
 * the warp's 32 threads (write, wait, read, wait), bar.sync one of all the
 * program's threads. Programs run one after another, so a program's
 * shared memory is an ordinary global. Code relying on lock-step
 * execution without a shuffle or a barrier would show up as a race, not
 * pass by luck. The llvm.nvvm.* math intrinsics that libdevice and the
 * lowering use (sim_* below) are computed with the host's IEEE
 * arithmetic: the approximate ones (ex2, rcp, rsqrt, div.approx) come out
 * exact or nearly so, within the tolerances the GPU meets against the
 * interpreter. tilec's own inline asm (ld.global with qualifiers,
 * predicated st.global) x86.py turns into host code; kernels needing
 * anything else (tensor cores, libdevice's inline PTX) are left out by
 * x86.py and run on the interpreter only.
 *
 * Entry point: ws_run(NAME__sim, slots, threads, grid), NAME__sim being
 * x86.py's wrapper that reads the kernel's parameters from libtile's
 * packed slots (RtPlan.slots). The test's own state (the program being
 * run) is global: one simulation runs at a time.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include <fenv.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXTHREADS = 1024, MAXWARPS = MAXTHREADS / 32 };

typedef struct Program {
    pthread_barrier_t all, warp[MAXWARPS];
    uint32_t slot[MAXWARPS][32];
} Program;

static Program prog;
static _Thread_local int t_tid, t_cta[3];
static unsigned g_grid[3] = {1, 1, 1};

int sim_read_ptx_sreg_tid_x(void);
int sim_read_ptx_sreg_ctaid_x(void);
int sim_read_ptx_sreg_ctaid_y(void);
int sim_read_ptx_sreg_ctaid_z(void);
int sim_read_ptx_sreg_nctaid_x(void);
int sim_read_ptx_sreg_nctaid_y(void);
int sim_read_ptx_sreg_nctaid_z(void);
void sim_barrier_cta_sync_aligned_all(int id);
int sim_read_ptx_sreg_tid_x(void) { return t_tid; }
int sim_read_ptx_sreg_ctaid_x(void) { return t_cta[0]; }
int sim_read_ptx_sreg_ctaid_y(void) { return t_cta[1]; }
int sim_read_ptx_sreg_ctaid_z(void) { return t_cta[2]; }
int sim_read_ptx_sreg_nctaid_x(void) { return (int)g_grid[0]; }
int sim_read_ptx_sreg_nctaid_y(void) { return (int)g_grid[1]; }
int sim_read_ptx_sreg_nctaid_z(void) { return (int)g_grid[2]; }
void sim_barrier_cta_sync_aligned_all(int id) {
    (void)id;
    pthread_barrier_wait(&prog.all);
}

/* The PTX ISA's shfl.sync source lane: mode 0 up, 1 idx, 2 bfly. */
static int source_lane(int mode, uint32_t b, uint32_t c) {
    int lane = t_tid % 32, seg = (int)(c >> 8 & 31), clamp = (int)(c & 31);
    int max_lane = (lane & seg) | (clamp & ~seg), min_lane = lane & seg, j, ok;
    int bv = (int)(b & 31);
    if (mode == 0) {
        j = lane - bv;
        ok = j >= max_lane;
    } else if (mode == 1) {
        j = min_lane | (bv & ~seg);
        ok = j <= max_lane;
    } else {
        j = lane ^ bv;
        ok = j <= max_lane;
    }
    return ok ? j : lane;
}

static uint32_t exchange(uint32_t v, int from) {
    int w = t_tid / 32;
    prog.slot[w][t_tid % 32] = v;
    pthread_barrier_wait(&prog.warp[w]);
    uint32_t r = prog.slot[w][from];
    pthread_barrier_wait(&prog.warp[w]);
    return r;
}

#define SHUFFLE(name, mode)                                                   \
    uint32_t sim_shfl_sync_##name##_i32(uint32_t m, uint32_t v, uint32_t b,   \
                                        uint32_t c);                          \
    float sim_shfl_sync_##name##_f32(uint32_t m, float v, uint32_t b,         \
                                     uint32_t c);                             \
    uint32_t sim_shfl_sync_##name##_i32(uint32_t m, uint32_t v, uint32_t b,   \
                                        uint32_t c) {                         \
        (void)m;                                                              \
        return exchange(v, source_lane(mode, b, c));                          \
    }                                                                         \
    float sim_shfl_sync_##name##_f32(uint32_t m, float v, uint32_t b,         \
                                     uint32_t c) {                            \
        uint32_t u;                                                           \
        (void)m;                                                              \
        memcpy(&u, &v, 4);                                                    \
        u = exchange(u, source_lane(mode, b, c));                             \
        memcpy(&v, &u, 4);                                                    \
        return v;                                                             \
    }
SHUFFLE(up, 0)
SHUFFLE(idx, 1)
SHUFFLE(bfly, 2)

typedef struct Thread {
    void (*body)(void *);
    void *ctx;
    int tid, cta[3];
} Thread;

static void *thread_main(void *p) {
    Thread *t = p;
    t_tid = t->tid;
    memcpy(t_cta, t->cta, sizeof t_cta);
    t->body(t->ctx);
    return NULL;
}

/* Runs body(ctx) on `threads` threads for program (x, y, z). */
static void run_program(int threads, const int cta[3], void (*body)(void *), void *ctx) {
    static pthread_t th[MAXTHREADS];
    static Thread t[MAXTHREADS];
    if (threads % 32 || threads > MAXTHREADS) abort();
    {   /* a fresh set of threads per program: slow, simple */
        pthread_barrier_init(&prog.all, NULL, (unsigned)threads);
        for (int w = 0; w < threads / 32; w++)
            pthread_barrier_init(&prog.warp[w], NULL, 32);
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setstacksize(&a, 1 << 20);
        for (int i = 0; i < threads; i++) {
            t[i] = (Thread){body, ctx, i, {cta[0], cta[1], cta[2]}};
            if (pthread_create(&th[i], &a, thread_main, &t[i])) {
                perror("warpsim: pthread_create");
                exit(2);
            }
        }
        for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
        pthread_attr_destroy(&a);
        pthread_barrier_destroy(&prog.all);
        for (int w = 0; w < threads / 32; w++) pthread_barrier_destroy(&prog.warp[w]);
    }
}

typedef struct Launch {
    void (*kernel)(const uint64_t *);
    const uint64_t *slots;
} Launch;

static void launch_body(void *p) {
    Launch *l = p;
    l->kernel(l->slots);
}

void ws_run(void (*kernel)(const uint64_t *), const uint64_t *slots, int threads,
            const uint32_t grid[3]);
void ws_run(void (*kernel)(const uint64_t *), const uint64_t *slots, int threads,
            const uint32_t grid[3]) {
    Launch l = {kernel, slots};
    memcpy(g_grid, grid, sizeof g_grid);
    for (uint32_t z = 0; z < grid[2]; z++)
        for (uint32_t y = 0; y < grid[1]; y++)
            for (uint32_t x = 0; x < grid[0]; x++)
                run_program(threads, (int[3]){(int)x, (int)y, (int)z}, launch_body, &l);
}

/* ------------------------------------------------------------------ math
 * The NVVM intrinsics libdevice and the lowering use, with the host's
 * IEEE arithmetic (compiled with -ffp-contract=off): the approximate ones
 * (ex2, rcp, rsqrt, div.approx) come out exact or nearly so, which stays
 * within the tolerances the GPU meets against the interpreter. */
#define FN1(ret, name, arg, expr) ret sim_##name(arg x); ret sim_##name(arg x) { return expr; }
#define FN2(ret, name, arg, expr)                                             \
    ret sim_##name(arg x, arg y);                                             \
    ret sim_##name(arg x, arg y) { return expr; }
static float ftz(float x) { return fpclassify(x) == FP_SUBNORMAL ? copysignf(0, x) : x; }
static double dftz(double x) { return fpclassify(x) == FP_SUBNORMAL ? copysign(0, x) : x; }
FN1(float, fabs_f32, float, fabsf(x))
FN1(double, fabs_f64, double, fabs(x))
FN2(float, mul_rn_f, float, x * y)
FN2(double, mul_rn_d, double, x * y)
FN2(float, add_rn_f, float, x + y)
FN2(double, add_rn_d, double, x + y)
FN2(float, div_approx_f, float, x / y)
FN2(float, div_full, float, x / y)
FN1(float, ex2_approx_f32, float, exp2f(x))
FN1(float, ex2_approx_ftz_f32, float, ftz(exp2f(ftz(x))))
FN1(float, round_f, float, rintf(x))
FN1(double, rcp_approx_ftz_d, double, dftz(1 / dftz(x)))
FN1(float, rsqrt_approx_f, float, 1 / sqrtf(x))
FN1(double, rsqrt_approx_d, double, 1 / sqrt(x))
FN1(int32_t, f2i_rn, float, (int32_t)lrintf(x))
FN1(int32_t, d2i_rn, double, (int32_t)lrint(x))
int32_t sim_d2i_hi(double x);
int32_t sim_d2i_lo(double x);
double sim_lohi_i2d(int32_t lo, int32_t hi);
float sim_fma_rz_f(float x, float y, float z);
int32_t sim_d2i_hi(double x) {
    uint64_t u;
    memcpy(&u, &x, 8);
    return (int32_t)(u >> 32);
}
int32_t sim_d2i_lo(double x) {
    uint64_t u;
    memcpy(&u, &x, 8);
    return (int32_t)u;
}
double sim_lohi_i2d(int32_t lo, int32_t hi) {
    uint64_t u = (uint64_t)(uint32_t)hi << 32 | (uint32_t)lo;
    double d;
    memcpy(&d, &u, 8);
    return d;
}
/* Rounding to bfloat16 (nearest even; NaN stays NaN), which LLVM calls
 * for `fptrunc ... to bfloat` on the host and older libgcc lacks. The
 * result travels like a _Float16: its bits in the low half of xmm0. */
static _Float16 bf16_bits(uint16_t h) {
    _Float16 r;
    memcpy(&r, &h, 2);
    return r;
}
_Float16 __truncsfbf2(float f);
_Float16 __truncdfbf2(double d);
_Float16 __truncsfbf2(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if (isnan(f)) return bf16_bits((uint16_t)(u >> 16 | 0x40));
    return bf16_bits((uint16_t)((u + 0x7fff + (u >> 16 & 1)) >> 16));
}
_Float16 __truncdfbf2(double d) {
    /* to float with round-to-odd, then to bfloat16: no double rounding */
    float f = (float)d;
    if (!isnan(d) && !isinf(f) && f != 0 && (double)f != d) {
        uint32_t u;
        memcpy(&u, &f, 4);
        if (!(u & 1)) {
            if (((double)f < d) == (f > 0)) u++;
            else u--;
            u |= 1;
            memcpy(&f, &u, 4);
        }
    }
    return __truncsfbf2(f);
}

float sim_fma_rz_f(float x, float y, float z) {
    int mode = fegetround();   /* the rounding mode is per thread */
    fesetround(FE_TOWARDZERO);
    volatile float r = fmaf(x, y, z);
    fesetround(mode);
    return r;
}
