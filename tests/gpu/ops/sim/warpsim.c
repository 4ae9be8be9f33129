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
 * The simulation follows the PTX ISA where it matters: vote.sync (all,
 * any), shfl.sync (up,
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
 * predicated st.global, cp.async with ignore-src, wgmma) x86.py turns into
 * host code; kernels needing anything else (libdevice's inline PTX, a
 * tensor-core form not below) are left out by x86.py and run on the
 * interpreter only.
 *
 * Tensor cores (the section at the end): cp.async with its groups and
 * waits, ldmatrix and mma.sync (f16, bf16, tf32, s8) as warp rendezvous,
 * and wgmma (f16, bf16; tf32, e4m3, e5m2 K-major; B, and A or not, from shared memory through
 * matrix descriptors, every swizzle mode) per thread, with A in
 * registers a rendezvous of the warpgroup — all from the PTX ISA's text,
 * not from tilec's lowering, so that they check it. dot.tile (difftest)
 * covers what tilec emits for sm_80 and sm_90a (wgmma there);
 * sim/wgmma_check.c covers wgmma against plain products beyond what
 * tilec emits (every swizzle mode, both major-nesses of A and B, any N,
 * A in registers). TMA (the last sections): cp.async.bulk.tensor loads, 1-D
 * to 3-D, every swizzle mode, zero fill out of bounds, with their
 * mbarriers; the tensor map in the simulation's own layout, filled by
 * ws_tmap_encode; sim/tma_check.c checks them against boxes of its own.
 * TMA stores (2-D, 3-D) with their bulk groups, performed late, at the
 * issuing thread's wait.
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
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "examples/ref/ref.h"

enum { MAXTHREADS = 1024, MAXWARPS = MAXTHREADS / 32, MAXGROUPS = MAXTHREADS / 128 };

typedef struct Program {
    pthread_barrier_t all, warp[MAXWARPS], group[MAXGROUPS];
    int ngroups;                            /* whole warpgroups (group[]) */
    uint32_t slot[MAXWARPS][32];
    uint32_t frag[MAXWARPS][32][6];        /* mma.sync: A and B registers */
    const unsigned char *row[MAXWARPS][32];   /* ldmatrix: row addresses */
    uint32_t areg[MAXGROUPS][128][4];       /* wgmma with A in registers */
} Program;

/* A cp.async in flight: its source read at issue, written to dst when a
 * wait covers its group (copies_complete). */
typedef struct Copy {
    unsigned char *dst;
    unsigned char data[16];
    int bytes;
    unsigned group;
} Copy;

static Program prog;
static _Thread_local int t_tid, t_cta[3];
static _Thread_local Copy *t_copy;          /* this thread's copies in flight */
static _Thread_local int t_ncopy, t_capcopy;
static _Thread_local unsigned t_group;      /* cp.async groups committed */
static _Thread_local unsigned char *t_smem; /* the program's shared memory */

/* wgmma accumulators in flight (ws_wgmma_async) */
enum { TOKENS = 1 << 12, TOKEN = (int32_t)0xffc00000 };

typedef struct Tokens {
    float val[TOKENS];
    unsigned group[TOKENS], gen[TOKENS];
    uint16_t free[TOKENS];
    unsigned char live[TOKENS];
    int nfree;
} Tokens;

static _Thread_local Tokens *t_tok;
static _Thread_local unsigned t_wg_group;   /* wgmma groups committed */

/* A wgmma: its operands, and while in flight (ws_wgmma_async) its
 * group, C and tokens. With A in registers (rega), arow holds the two
 * rows of A this thread's accumulators lie in (16w + l/4 and 8 below),
 * the bits of their 16 elements (tf32: 8), from the rendezvous at
 * issue. */
typedef struct WgOp {
    int32_t n, kind, scale_d, sa, sb, ta, tb, rega;
    uint64_t da, db;
    uint32_t arow[2][16];
    unsigned group;
    float c[128];
    int in[128], out[128];   /* token slots of C (-1: c holds it) and of D */
} WgOp;

static _Thread_local WgOp *t_ops;   /* issued, not yet computed, in order */
static _Thread_local int t_nops, t_capops;
static unsigned g_grid[3] = {1, 1, 1};

int sim_read_ptx_sreg_tid_x(void);
int sim_read_ptx_sreg_ctaid_x(void);
int sim_read_ptx_sreg_ctaid_y(void);
int sim_read_ptx_sreg_ctaid_z(void);
int sim_read_ptx_sreg_nctaid_x(void);
int sim_read_ptx_sreg_nctaid_y(void);
int sim_read_ptx_sreg_nctaid_z(void);
void sim_barrier_cta_sync_aligned_all(int id);
static void rc_bar0_arrive(void);
static void rc_bar0_leave(void);
static void rc_program_start(int threads);
int sim_read_ptx_sreg_tid_x(void) { return t_tid; }
int sim_read_ptx_sreg_ctaid_x(void) { return t_cta[0]; }
int sim_read_ptx_sreg_ctaid_y(void) { return t_cta[1]; }
int sim_read_ptx_sreg_ctaid_z(void) { return t_cta[2]; }
int sim_read_ptx_sreg_nctaid_x(void) { return (int)g_grid[0]; }
int sim_read_ptx_sreg_nctaid_y(void) { return (int)g_grid[1]; }
int sim_read_ptx_sreg_nctaid_z(void) { return (int)g_grid[2]; }
void sim_barrier_cta_sync_aligned_all(int id) {
    (void)id;
    rc_bar0_arrive();
    pthread_barrier_wait(&prog.all);
    rc_bar0_leave();
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

/* vote.sync.all / .any over the whole warp (the lowering votes only where
 * every lane is present: lower/memory.c, realigned groups). The i1
 * arrives in the low bit of an int (no zeroext in the IR declaration). */
static int vote(int p, int all) {
    int w = t_tid / 32, r = all;
    prog.slot[w][t_tid % 32] = (uint32_t)(p & 1);
    pthread_barrier_wait(&prog.warp[w]);
    for (int l = 0; l < 32; l++) r = all ? r & (int)prog.slot[w][l] : r | (int)prog.slot[w][l];
    pthread_barrier_wait(&prog.warp[w]);
    return r;
}
int sim_vote_all_sync(uint32_t m, int p);
int sim_vote_any_sync(uint32_t m, int p);
int sim_vote_all_sync(uint32_t m, int p) { (void)m; return vote(p, 1); }
int sim_vote_any_sync(uint32_t m, int p) { (void)m; return vote(p, 0); }

static void tc_thread_exit(void);
static void mbar_program_end(void);
static void named_program_end(void);

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
    tc_thread_exit();
    return NULL;
}

/* Runs body(ctx) on `threads` threads for program (x, y, z). */
static void run_program(int threads, const int cta[3], void (*body)(void *), void *ctx) {
    static pthread_t th[MAXTHREADS];
    static Thread t[MAXTHREADS];
    if (threads % 32 || threads > MAXTHREADS) abort();
    {   /* a fresh set of threads per program: slow, simple */
        rc_program_start(threads);
        pthread_barrier_init(&prog.all, NULL, (unsigned)threads);
        for (int w = 0; w < threads / 32; w++)
            pthread_barrier_init(&prog.warp[w], NULL, 32);
        prog.ngroups = threads / 128;
        for (int g = 0; g < prog.ngroups; g++)
            pthread_barrier_init(&prog.group[g], NULL, 128);
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
        mbar_program_end();
        named_program_end();
        pthread_attr_destroy(&a);
        pthread_barrier_destroy(&prog.all);
        for (int w = 0; w < threads / 32; w++) pthread_barrier_destroy(&prog.warp[w]);
        for (int g = 0; g < prog.ngroups; g++) pthread_barrier_destroy(&prog.group[g]);
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
/* mul.hi.s32/u32: the high half of the 64-bit product (divide.c's
 * multiplications by an inverted divisor) */
FN2(int32_t, mulhi_i, int32_t, (int32_t)(((int64_t)x * y) >> 32))
FN2(uint32_t, mulhi_ui, uint32_t, (uint32_t)(((uint64_t)x * y) >> 32))
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
/* Rounding to bfloat16 (nearest even; NaN stays NaN: the C references'
 * ref_f32_to_bf16), which LLVM calls for `fptrunc ... to bfloat` on the
 * host and older libgcc lacks. The result travels like a _Float16: its
 * bits in the low half of xmm0. */
static _Float16 bf16_bits(uint16_t h) {
    _Float16 r;
    memcpy(&r, &h, 2);
    return r;
}
_Float16 __truncsfbf2(float f);
_Float16 __truncdfbf2(double d);
_Float16 __truncsfbf2(float f) { return bf16_bits(ref_f32_to_bf16(f)); }
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

/* FP8 conversions (PTX ISA, cvt): e4m3 is OCP's E4M3 "fn" (no
 * infinities, S.1111.111 NaN), e5m2 E5M2 (IEEE-like). The value of code
 * b, from the formats' definitions. */
static double ws_f8_value(int e5, unsigned b) {
    int mb = e5 ? 2 : 3, bias = e5 ? 15 : 7, top = e5 ? 31 : 15;
    int e = (int)(b & 0x7f) >> mb, m = (int)b & ((1 << mb) - 1);
    double v = !e5 && e == top && m == (1 << mb) - 1 ? NAN
             : e5 && e == top                       ? (m ? NAN : INFINITY)
             : e == 0 ? ldexp(m, 1 - bias - mb) : ldexp(m + (1 << mb), e - bias - mb);
    return b & 0x80 ? -v : v;
}

/* cvt.rn.satfinite.{e4m3,e5m2}x2.f32 of one value: the nearest finite
 * code (ties to the even code), MAX_NORM with x's sign past it (and for
 * infinities), NaN to 0x7f. By search over the codes. */
static unsigned ws_f8_of(int e5, float x) {
    if (isnan(x)) return 0x7f;
    unsigned top = e5 ? 0x7b : 0x7e, sign = signbit(x) ? 0x80 : 0;
    if (fabs((double)x) >= ws_f8_value(e5, top)) return top | sign;
    unsigned best = sign;
    double bd = INFINITY;
    for (unsigned c = sign; c <= (sign | top); c++) {
        double d = fabs(ws_f8_value(e5, c) - (double)x);
        if (d < bd || (d == bd && !(c & 1))) best = c, bd = d;
    }
    return best;
}

/* d = {cvt(a), cvt(b)}: a's code in the upper byte. */
uint16_t ws_cvt_f8x2(int32_t e5, float a, float b);
uint16_t ws_cvt_f8x2(int32_t e5, float a, float b) {
    return (uint16_t)(ws_f8_of(e5, a) << 8 | ws_f8_of(e5, b));
}

/* cvt.rn.f16x2.{e4m3,e5m2}x2: both codes of p to f16 (exact), the upper
 * byte's in the upper half. */
uint32_t ws_cvt_f16x2_f8x2(int32_t e5, uint16_t p);
uint32_t ws_cvt_f16x2_f8x2(int32_t e5, uint16_t p) {
    uint32_t r = 0;
    for (int i = 0; i < 2; i++) {
        _Float16 h = (_Float16)ws_f8_value(e5, (unsigned)(p >> (8 * i)) & 0xff);
        uint16_t u;
        memcpy(&u, &h, 2);
        r |= (uint32_t)u << (16 * i);
    }
    return r;
}

float sim_fma_rz_f(float x, float y, float z) {
    int mode = fegetround();   /* the rounding mode is per thread */
    fesetround(FE_TOWARDZERO);
    volatile float r = fmaf(x, y, z);
    fesetround(mode);
    return r;
}

/* ------------------------------------------------------------ tensor cores
 * What tilec's `dot` lowering uses on sm_80 and sm_90a, from the PTX ISA's
 * descriptions (section numbers of PTX ISA 8.x/9.x):
 *
 * cp.async (9.7.9.25): the source is read at issue; the destination is
 * undefined from the issue (all bytes 0xff: NaN for every float type)
 * until a cp.async.wait_group/wait_all covers the copy's group, which
 * writes it — so a read of a ring slot before its wait, a wait for too
 * few groups, or a copy into a slot that a reader (an ldmatrix not yet
 * past the barrier, a wgmma in flight) still needs, reads garbage here
 * as it may on the GPU. Copies not yet committed to a group are not covered by
 * wait_group (only by wait_all, which commits first). The ignore-src form
 * (and src-size) fills with zeros; a misaligned address is an error.
 *
 * ldmatrix (9.7.14.5.15), a warp rendezvous: lanes 8j..8j+7 give the row
 * addresses of matrix j (16-byte aligned rows of eight b16), lane l gets
 * elements 2(l%4), 2(l%4)+1 of row l/4 in register j (.trans: of column
 * l/4, rows 2(l%4) and 2(l%4)+1); the addresses of lanes beyond .num's
 * matrices are never read.
 *
 * mma.sync (9.7.14.5.7/8/10), a warp rendezvous: every lane publishes its
 * A and B registers, every lane rebuilds the whole A (16xK) and B (Kx8)
 * with the ISA's fragment formulas (groupID = lane >> 2,
 * threadID_in_group = lane % 4) and computes its own four elements of D:
 * the products summed in double (exact for f16, bf16, tf32 and s8) and
 * added to C with one rounding to f32; s32 wraps. tf32 operands use their
 * upper 19 bits only, as the hardware does (f2tf32.rna rounds first).
 *
 * wgmma.mma_async (9.7.15), per thread, with no rendezvous since both
 * operands are in shared memory: the thread's accumulator elements
 * (register i of warp w of the warpgroup, lane l: row 16w + l/4 + 8((i/2)%2),
 * column 8(i/4) + 2(l%4) + i%2) are computed from the matrices the two
 * descriptors (9.7.15.5.1.2.2) describe: start address, LBO and SBO (in
 * 16-byte units), base offset and swizzle mode; element (mn, k) lies at
 * the byte offset of the canonical layout (9.7.15.5.1.2.1.3, the CuTe
 * layouts there, K-major or MN-major by the instruction's transpose
 * immediates), added to the start address, and the sum's bits [4, 4+B)
 * are XORed with bits [7, 7+B) less the base offset (Swizzle<B,4,3>,
 * B = 3, 2, 1 for 128B, 64B, 32B swizzling). The start address field holds
 * address bits [4, 18): shared memory is an ordinary global here, placed
 * (x86.py) at a multiple of 256 KiB so that its offsets are its host
 * address's low 18 bits, and the kernel's wrapper tells ws_smem where it
 * is.
 *
 * wgmma with A in registers (the same section; the form with four .f16x2
 * registers in braces for A, no imm-trans-a): a rendezvous of the
 * warpgroup's 128 threads at issue, as mma.sync is of the warp's 32:
 * each publishes its four registers, each rebuilds the whole A (64 x 16)
 * from all of them by the ISA's fragment layout (9.7.15.5.1.1.1, Figure
 * 148: warp w of the warpgroup holds rows 16w..16w+15 — lane l, with
 * g = l/4 and t = l%4: a0, a1 at row 16w + g, columns 2t and 2t+1; a2, a3
 * at row 16w + g + 8, the same columns; a4..a7 as a0..a3 eight columns
 * on; a0 the low half of the first register) and keeps the two rows its
 * accumulators lie in; B comes through its descriptor as above. A
 * thread outside a whole warpgroup issuing it is an error.
 *
 * Where the kernel fences its accumulators with wait_group's
 * register form, the product is computed when a wait covers its group,
 * reading shared memory then, and its accumulators are in flight until
 * that wait (ws_wgmma_async, ws_wgmma_ra_async: tokens, below);
 * otherwise (wait_group only as the intrinsic, with no registers to hand
 * back) at issue. Both are schedules the ISA allows. A's registers are
 * read at issue either way (the rendezvous needs every thread there;
 * in SSA form they cannot change before the wait). wgmma.fence and fence.proxy.async are no-ops
 * (shared memory is ordinary memory here, with one proxy).
 *
 * What this cannot catch: a missing fence.proxy.async between generic
 * stores and wgmma's reads, and anything about timing or bank conflicts.
 */
static _Noreturn void sim_fail(const char *what, const void *p) {
    fprintf(stderr, "warpsim: thread %d of program (%d, %d, %d): %s (%p)\n", t_tid,
            t_cta[0], t_cta[1], t_cta[2], what, p);
    _Exit(70);
}

/* Named barriers 1 to 15 with a thread count (bar.sync id, n and
 * bar.arrive id, n; lower/pingpong.c's turns): a phase completes once n
 * threads arrived (each thread counts one, so a warp counts 32), bar.sync
 * waiting for it and bar.arrive not. Barrier 0 is prog.all above. A
 * phase that waits 20 seconds is a deadlock, a count that changes
 * within a phase an error (the ISA leaves both undefined), and so is a
 * program that ends with arrivals pending: on the GPU they would be
 * left for the barrier's next use. */
enum { NAMED = 16 };

static pthread_mutex_t nb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nb_cond = PTHREAD_COND_INITIALIZER;
static struct { int arrived, count; unsigned gen; } nb[NAMED];
static void rc_named_release(int id);
static void rc_named_acquire(int id);

/* One thread's arrival on barrier id (nb_lock held); the phase it
 * arrived in. */
static unsigned named_arrive(int id, int n) {
    if (id < 1 || id >= NAMED) sim_fail("bar: a named barrier's id not 1 to 15", NULL);
    if (n < 32 || n % 32 || n > MAXTHREADS)
        sim_fail("bar: a thread count not a multiple of 32 up to 1024", NULL);
    if (nb[id].arrived && nb[id].count != n)
        sim_fail("bar: the thread count changed within a phase", NULL);
    nb[id].count = n;
    unsigned gen = nb[id].gen;
    if (++nb[id].arrived == n) {
        nb[id].arrived = 0;
        nb[id].gen++;
        pthread_cond_broadcast(&nb_cond);
    }
    return gen;
}

void sim_barrier_cta_sync_aligned_count(int id, int n);
void sim_barrier_cta_sync_aligned_count(int id, int n) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 20;
    if (id >= 1 && id < NAMED) rc_named_release(id);
    pthread_mutex_lock(&nb_lock);
    unsigned gen = named_arrive(id, n);
    while (nb[id].gen == gen)
        if (pthread_cond_timedwait(&nb_cond, &nb_lock, &until))
            sim_fail("bar.sync: a named barrier's phase not complete in 20 s (deadlock)", NULL);
    pthread_mutex_unlock(&nb_lock);
    rc_named_acquire(id);
}

void sim_barrier_cta_arrive_aligned_count(int id, int n);
void sim_barrier_cta_arrive_aligned_count(int id, int n) {
    if (id >= 1 && id < NAMED) rc_named_release(id);
    pthread_mutex_lock(&nb_lock);
    named_arrive(id, n);
    pthread_mutex_unlock(&nb_lock);
}

static void named_program_end(void) {
    for (int id = 1; id < NAMED; id++) {
        if (nb[id].arrived)
            sim_fail("bar.arrive: arrivals pending on a named barrier when the program ended",
                     NULL);
        nb[id].gen = 0;
    }
}

/* ------------------------------------------------------------ racecheck
 * With WARPSIM_RACECHECK=1 in the environment, shared-memory hazards
 * between warps fail the run, as compute-sanitizer's racecheck reports
 * them on a GPU: two accesses to one byte by threads of different warps,
 * a read and a write, neither ordered before the other by a
 * synchronization the PTX ISA defines. Two writes are not reported: the lowering has every warp that holds a copy
 * of a value store it (lw_store_smem), equal values, a race in the ISA's
 * terms that cannot change what is read. Checked: the threads' loads and
 * stores of shared memory (x86.py puts a ws_rc_access before each),
 * ldmatrix's rows, cp.async's and TMA loads' writes (at issue: the bytes
 * are the copy's from then on), TMA stores' reads (at the wait that ends
 * them) and wgmma's (lane 0's elements of each warp, when the simulation
 * computes the product: for one in flight, at the wait that ends it).
 * Ordering: vector clocks (one per thread, over the program's threads),
 * joined by bar.sync (barrier 0 exactly, per phase; named barriers and
 * mbarriers accumulated over their phases, which can only order more
 * than the ISA does, so that a hazard reported is a hazard), a TMA load's
 * issue released into its mbarrier, an acq_rel atomic (a released slot's
 * count) acquiring its address's release sequence. Not checked: accesses
 * within one warp (shuffles and votes are not modelled as ordering), the
 * atomics' own bytes. Each
 * byte keeps its last write and the last reads of up to RC_READS warps;
 * a hazard whose read was displaced goes unseen. The first hazard ends
 * the run (exit 70, as sim_fail). */
enum { RC_READS = 4, RC_BASES = 4, RC_SMEM = 1 << 18, RC_STRIPES = 1024 };

typedef uint64_t RcEpoch;   /* generation 22 bits | thread 10 | clock 32; 0: none */

typedef struct RcByte {
    RcEpoch w, r[RC_READS];
} RcByte;

static int rc_on = -1;                       /* WARPSIM_RACECHECK, read once */
static uint32_t rc_gen;                      /* the program running (from 1) */
static uint32_t rc_vc[MAXTHREADS][MAXTHREADS];   /* [t][u]: u's clock t has seen */
static _Atomic uintptr_t rc_base[RC_BASES];  /* the program's shared arrays seen
                                                (256 KiB-aligned; x86.py): read
                                                without the lock, so atomic; a
                                                base is published (release)
                                                after its shadow */
static RcByte *rc_shadow[RC_BASES];          /* theirs, reused from program to
                                                program (the generation tells) */
static pthread_mutex_t rc_stripe[RC_STRIPES];
static pthread_mutex_t rc_lock = PTHREAD_MUTEX_INITIALIZER;   /* rc_base, the clocks below */
static uint32_t rc_bar0[2][MAXTHREADS];      /* barrier 0's join, by phase parity */
static unsigned rc_bar0_tag[2];
static _Thread_local unsigned t_bar0;        /* barrier 0 phases passed */
static uint32_t rc_named[NAMED][MAXTHREADS];
static uint32_t rc_mbar[256][MAXTHREADS];    /* by mb_list index */
enum { RC_ATOMS = 64 };
static const void *rc_atom_at[RC_ATOMS];     /* counters' addresses (acq_rel atomics) */
static uint32_t rc_atom[RC_ATOMS][MAXTHREADS];   /* and their release sequences */
static int rc_natoms;
static int rc_threads;

static int rc_enabled(void) {
    if (rc_on < 0) {
        const char *e = getenv("WARPSIM_RACECHECK");
        rc_on = e && *e && strcmp(e, "0") != 0;
        for (int i = 0; i < RC_STRIPES; i++) pthread_mutex_init(&rc_stripe[i], NULL);
    }
    return rc_on;
}

/* The shadows go with the library (difftest unloads it: LeakSanitizer). */
__attribute__((destructor)) static void rc_unload(void) {
    for (int i = 0; i < RC_BASES; i++) free(rc_shadow[i]);
}

/* run_program, before its threads start. */
static void rc_program_start(int threads) {
    if (!rc_enabled()) return;
    rc_gen = (rc_gen + 1) & 0x3fffff;
    if (!rc_gen) rc_gen = 1;
    rc_threads = threads;
    for (int i = 0; i < RC_BASES; i++) atomic_store_explicit(&rc_base[i], 0, memory_order_relaxed);
    for (int t = 0; t < threads; t++) {
        memset(rc_vc[t], 0, sizeof(uint32_t) * (size_t)threads);
        rc_vc[t][t] = 1;
    }
    memset(rc_bar0_tag, 0, sizeof rc_bar0_tag);
    memset(rc_named, 0, sizeof rc_named);
    memset(rc_mbar, 0, sizeof rc_mbar);
    rc_natoms = 0;
}

static void rc_join(uint32_t *into, const uint32_t *from) {
    for (int u = 0; u < rc_threads; u++)
        if (from[u] > into[u]) into[u] = from[u];
}

/* This thread's clock into *acc (a release), its own clock moving on. */
static void rc_release(uint32_t *acc) {
    rc_join(acc, rc_vc[t_tid]);
    rc_vc[t_tid][t_tid]++;
}

/* Barrier 0 (bar.sync 0, all threads): before and after the wait. */
static void rc_bar0_arrive(void) {
    if (!rc_enabled()) return;
    unsigned p = t_bar0 & 1;
    pthread_mutex_lock(&rc_lock);
    if (rc_bar0_tag[p] != t_bar0 + 1) {   /* the phase's first: the parity's last
                                             readers passed a phase since */
        memset(rc_bar0[p], 0, sizeof(uint32_t) * (size_t)rc_threads);
        rc_bar0_tag[p] = t_bar0 + 1;
    }
    rc_release(rc_bar0[p]);
    pthread_mutex_unlock(&rc_lock);
}
static void rc_bar0_leave(void) {
    if (!rc_enabled()) return;
    rc_join(rc_vc[t_tid], rc_bar0[t_bar0 & 1]);   /* complete: no writer until the next */
    t_bar0++;
}

/* Named barrier id and the mbarrier at mb_list index i: a release (an
 * arrival) and an acquire (a completed wait). */
static void rc_named_release(int id) {
    if (!rc_enabled()) return;
    pthread_mutex_lock(&rc_lock);
    rc_release(rc_named[id]);
    pthread_mutex_unlock(&rc_lock);
}
static void rc_named_acquire(int id) {
    if (!rc_enabled()) return;
    pthread_mutex_lock(&rc_lock);
    rc_join(rc_vc[t_tid], rc_named[id]);
    pthread_mutex_unlock(&rc_lock);
}
static void rc_mbar_release(int i) {
    if (!rc_enabled() || i < 0) return;
    pthread_mutex_lock(&rc_lock);
    rc_release(rc_mbar[i]);
    pthread_mutex_unlock(&rc_lock);
}
static void rc_mbar_acquire(int i) {
    if (!rc_enabled() || i < 0) return;
    pthread_mutex_lock(&rc_lock);
    rc_join(rc_vc[t_tid], rc_mbar[i]);
    pthread_mutex_unlock(&rc_lock);
}

/* An acq_rel read-modify-write of the word at p: it acquires what every
 * earlier one on p released (they form one release sequence), then
 * releases. */
static void rc_atom_acq_rel(const void *p) {
    if (!rc_enabled()) return;
    pthread_mutex_lock(&rc_lock);
    int i = 0;
    while (i < rc_natoms && rc_atom_at[i] != p) i++;
    if (i == rc_natoms) {
        if (rc_natoms == RC_ATOMS) sim_fail("racecheck: more than 64 atomic counters", p);
        rc_atom_at[rc_natoms++] = p;
        memset(rc_atom[i], 0, sizeof rc_atom[i]);
    }
    rc_join(rc_vc[t_tid], rc_atom[i]);
    rc_release(rc_atom[i]);
    pthread_mutex_unlock(&rc_lock);
}

static _Noreturn void rc_hazard(const unsigned char *p, size_t off, int write, RcEpoch other,
                                int other_write, const char *what) {
    int u = (int)(other >> 32 & 0x3ff);
    fprintf(stderr,
            "warpsim: racecheck: thread %d (warp %d) of program (%d, %d, %d) %s shared byte "
            "%zu (%s) that thread %d (warp %d) %s with no synchronization between\n",
            t_tid, t_tid / 32, t_cta[0], t_cta[1], t_cta[2], write ? "writes" : "reads", off,
            what, u, u / 32, other_write ? "wrote" : "read");
    (void)p;
    _Exit(70);
}

/* (the stripe held) One byte's check and update. */
static void rc_byte(RcByte *b, const unsigned char *p, size_t off, int write, RcEpoch me,
                    const char *what) {
    const uint32_t *vc = rc_vc[t_tid];
    RcEpoch w = b->w;
    if (w >> 42 == rc_gen && !write) {
        int u = (int)(w >> 32 & 0x3ff);
        if (u / 32 != t_tid / 32 && vc[u] < (uint32_t)w) rc_hazard(p, off, write, w, 1, what);
    }
    if (write) {
        for (int i = 0; i < RC_READS; i++) {
            RcEpoch r = b->r[i];
            int u = (int)(r >> 32 & 0x3ff);
            if (r >> 42 == rc_gen && u / 32 != t_tid / 32 && vc[u] < (uint32_t)r)
                rc_hazard(p, off, write, r, 0, what);
            b->r[i] = 0;
        }
        b->w = me;
        return;
    }
    int slot = -1;
    for (int i = 0; i < RC_READS && slot < 0; i++)
        if (b->r[i] >> 42 != rc_gen || (int)(b->r[i] >> 32 & 0x3ff) / 32 == t_tid / 32)
            slot = i;
    b->r[slot < 0 ? t_tid / 32 % RC_READS : slot] = me;
}

/* An access of n bytes at p by this thread (write: 1), if p is shared. */
static void rc_check(const unsigned char *p, size_t n, int write, const char *what) {
    uintptr_t base = (uintptr_t)p & ~(uintptr_t)(RC_SMEM - 1);
    int k = -1;
    for (int i = 0; i < RC_BASES && k < 0; i++)
        if (atomic_load_explicit(&rc_base[i], memory_order_acquire) == base) k = i;
    if (k < 0) {
        pthread_mutex_lock(&rc_lock);
        for (int i = 0; i < RC_BASES && k < 0; i++) {
            uintptr_t b = atomic_load_explicit(&rc_base[i], memory_order_relaxed);
            if (!b || b == base) k = i;
        }
        if (k >= 0 && !rc_shadow[k]) {
            rc_shadow[k] = calloc(RC_SMEM, sizeof(RcByte));
            if (!rc_shadow[k]) abort();
        }
        if (k >= 0) atomic_store_explicit(&rc_base[k], base, memory_order_release);
        pthread_mutex_unlock(&rc_lock);
        if (k < 0) sim_fail("racecheck: more shared arrays in one kernel than it tracks", p);
    }
    RcEpoch me = (RcEpoch)rc_gen << 42 | (RcEpoch)t_tid << 32 | rc_vc[t_tid][t_tid];
    size_t off = (uintptr_t)p - base;
    for (size_t i = 0; i < n;) {
        size_t o = off + i, stripe = o / 128 % RC_STRIPES, run = 128 - o % 128;
        if (run > n - i) run = n - i;
        if (o + run > RC_SMEM) sim_fail("racecheck: an access past 256 KiB of shared memory", p);
        pthread_mutex_lock(&rc_stripe[stripe]);
        for (size_t j = 0; j < run; j++)
            rc_byte(&rc_shadow[k][o + j], p, o + j, write, me, what);
        pthread_mutex_unlock(&rc_stripe[stripe]);
        i += run;
    }
}

/* x86.py's hook before each load (write 0) and store (write 1) of shared
 * memory. */
void ws_rc_access(const unsigned char *p, int32_t bytes, int32_t write);
void ws_rc_access(const unsigned char *p, int32_t bytes, int32_t write) {
    if (rc_enabled()) rc_check(p, (size_t)bytes, write, write ? "st.shared" : "ld.shared");
}

/* Completes this thread's copies of groups before `below`. */
static void copies_complete(unsigned below) {
    int n = 0;
    while (n < t_ncopy && t_copy[n].group < below) {
        memcpy(t_copy[n].dst, t_copy[n].data, (size_t)t_copy[n].bytes);
        n++;
    }
    memmove(t_copy, t_copy + n, sizeof *t_copy * (size_t)(t_ncopy - n));
    t_ncopy -= n;
}

static void tc_thread_exit(void) {
    copies_complete(~0u);   /* a program may end with copies in flight */
    free(t_copy);
    t_copy = NULL;
    t_ncopy = t_capcopy = 0;
    t_group = 0;
    t_smem = NULL;
    free(t_tok);
    t_tok = NULL;
    t_wg_group = 0;
    free(t_ops);   /* wgmma never waited for: their results unused */
    t_ops = NULL;
    t_nops = t_capops = 0;
}

/* cp.async of `bytes` from src to dst, the first src_bytes of src, zeros
 * after them. */
void ws_cp_async(unsigned char *dst, const unsigned char *src, int32_t bytes,
                 int32_t src_bytes);
void ws_cp_async(unsigned char *dst, const unsigned char *src, int32_t bytes,
                 int32_t src_bytes) {
    if ((uintptr_t)dst % (uintptr_t)bytes) sim_fail("cp.async: misaligned shared address", dst);
    if (src_bytes > 0 && (uintptr_t)src % (uintptr_t)bytes)
        sim_fail("cp.async: misaligned global address", src);
    if (t_ncopy == t_capcopy) {
        t_capcopy = t_capcopy ? 2 * t_capcopy : 64;
        t_copy = realloc(t_copy, sizeof *t_copy * (size_t)t_capcopy);
        if (!t_copy) abort();
    }
    Copy *c = &t_copy[t_ncopy++];
    c->dst = dst;
    c->bytes = bytes;
    c->group = t_group;
    memset(c->data, 0, sizeof c->data);
    if (src_bytes > 0) memcpy(c->data, src, (size_t)(src_bytes < bytes ? src_bytes : bytes));
    memset(dst, 0xff, (size_t)bytes);   /* in flight: undefined until the wait */
    if (rc_enabled()) rc_check(dst, (size_t)bytes, 1, "cp.async");
}

#define CP_ASYNC(level, n)                                                    \
    void sim_cp_async_##level##_shared_global_##n(unsigned char *d,           \
                                                  const unsigned char *s);    \
    void sim_cp_async_##level##_shared_global_##n(unsigned char *d,           \
                                                  const unsigned char *s) {   \
        ws_cp_async(d, s, n, n);                                              \
    }                                                                         \
    void sim_cp_async_##level##_shared_global_##n##_s(                        \
        unsigned char *d, const unsigned char *s, int32_t src_bytes);         \
    void sim_cp_async_##level##_shared_global_##n##_s(                        \
        unsigned char *d, const unsigned char *s, int32_t src_bytes) {        \
        ws_cp_async(d, s, n, src_bytes);                                      \
    }
CP_ASYNC(ca, 4)
CP_ASYNC(ca, 8)
CP_ASYNC(ca, 16)
CP_ASYNC(cg, 16)

void sim_cp_async_commit_group(void);
void sim_cp_async_wait_group(int32_t n);
void sim_cp_async_wait_all(void);
void sim_cp_async_commit_group(void) { t_group++; }
void sim_cp_async_wait_group(int32_t n) {
    if (n < 0 || (unsigned)n > t_group) return;
    copies_complete(t_group - (unsigned)n);
}
void sim_cp_async_wait_all(void) {
    t_group++;
    copies_complete(t_group);
}

/* ldmatrix.sync.aligned.m8n8.x{num}{.trans}.b16: p is this lane's row
 * address; out gets num registers. */
void ws_ldmatrix(const unsigned char *p, int32_t num, int32_t trans, uint32_t *out);
void ws_ldmatrix(const unsigned char *p, int32_t num, int32_t trans, uint32_t *out) {
    int w = t_tid / 32, lane = t_tid % 32;
    if (rc_enabled()) rc_check(p, 16, 0, "ldmatrix");
    prog.row[w][lane] = p;
    pthread_barrier_wait(&prog.warp[w]);
    for (int j = 0; j < num; j++)
        for (int r = 0; r < 8; r++)
            if ((uintptr_t)prog.row[w][8 * j + r] % 16)
                sim_fail("ldmatrix: row address not 16-byte aligned", prog.row[w][8 * j + r]);
    for (int j = 0; j < num; j++) {
        uint16_t e[2];
        for (int h = 0; h < 2; h++) {
            int row = trans ? 2 * (lane % 4) + h : lane / 4;
            int col = trans ? lane / 4 : 2 * (lane % 4) + h;
            memcpy(&e[h], prog.row[w][8 * j + row] + 2 * col, 2);
        }
        out[j] = (uint32_t)e[0] | (uint32_t)e[1] << 16;
    }
    pthread_barrier_wait(&prog.warp[w]);
}

/* MMA_F16_F16: f16 operands into f16 accumulators (c0..c3 and d0..d3 in
 * two f16x2 registers); the others accumulate in f32 (s32 for s8). */
enum { MMA_F16, MMA_BF16, MMA_TF32, MMA_S8, MMA_F16_F16 };

static double half_value(uint32_t h, int bf16) {
    if (bf16) {
        uint32_t u = h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    _Float16 x;
    uint16_t b = (uint16_t)h;
    memcpy(&x, &b, 2);
    return (double)x;
}

/* Element `e` (0 the lowest) of a register holding elements of `kind`. */
static double mma_elem(int kind, uint32_t reg, int e) {
    switch (kind) {
    case MMA_F16:
    case MMA_F16_F16:
    case MMA_BF16: return half_value(reg >> 16 * e & 0xffff, kind == MMA_BF16);
    case MMA_TF32: {
        uint32_t u = reg & ~0x1fffu;   /* the tensor core reads 19 bits */
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    default: return (int8_t)(reg >> 8 * e & 0xff);
    }
}

/* The warp's A (16 x k) and B (k x 8) from every lane's registers, by the
 * ISA's row/col formulas for a_i and b_i; returns k. */
static int mma_matrices(int kind, uint32_t frag[32][6], double a[16][32], double b[32][8]) {
    for (int lane = 0; lane < 32; lane++) {
        int g = lane >> 2, t = lane % 4;
        const uint32_t *ra = frag[lane], *rb = frag[lane] + 4;
        if (kind == MMA_F16 || kind == MMA_BF16 || kind == MMA_F16_F16) {   /* m16n8k16 */
            for (int i = 0; i < 8; i++) {
                int row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
                int col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
                a[row][col] = mma_elem(kind, ra[i / 2], i % 2);
            }
            for (int i = 0; i < 4; i++)
                b[t * 2 + (i & 1) + (i >= 2 ? 8 : 0)][g] = mma_elem(kind, rb[i / 2], i % 2);
        } else if (kind == MMA_TF32) {                        /* m16n8k8 */
            for (int i = 0; i < 4; i++) {
                int row = (i == 0 || i == 2) ? g : g + 8;
                a[row][t + (i >= 2 ? 4 : 0)] = mma_elem(kind, ra[i], 0);
            }
            for (int i = 0; i < 2; i++) b[t + (i ? 4 : 0)][g] = mma_elem(kind, rb[i], 0);
        } else {                                              /* m16n8k32 */
            for (int i = 0; i < 16; i++) {
                int row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
                int col = t * 4 + (i & 3) + (i >= 8 ? 16 : 0);
                a[row][col] = mma_elem(kind, ra[i / 4], i % 4);
            }
            for (int i = 0; i < 8; i++)
                b[t * 4 + (i & 3) + (i >= 4 ? 16 : 0)][g] = mma_elem(kind, rb[i / 4], i % 4);
        }
    }
    return kind == MMA_TF32 ? 8 : kind == MMA_S8 ? 32 : 16;
}

/* One f16 accumulator element: c (the low or high half of an f16x2
 * register) plus the exact sum, rounded once to f16 (nearest even). */
static uint32_t mma_f16_acc(uint32_t reg, int hi, double sum) {
    _Float16 d = (_Float16)(half_value(reg >> 16 * hi & 0xffff, 0) + sum);
    uint16_t u;
    memcpy(&u, &d, 2);
    return (uint32_t)u << 16 * hi;
}

/* mma.sync.aligned.m16n8kK.row.col: in holds a0..a3, b0..b1, c0..c3 (the
 * bits of f32 or s32 accumulators; MMA_F16_F16: c0/c1 and c2/c3 packed in
 * in[6] and in[7]), out gets d0..d3 (or the two f16x2 registers). */
void ws_mma(int32_t kind, const uint32_t *in, uint32_t *out);
void ws_mma(int32_t kind, const uint32_t *in, uint32_t *out) {
    int w = t_tid / 32, lane = t_tid % 32;
    double a[16][32], b[32][8];
    memcpy(prog.frag[w][lane], in, sizeof prog.frag[w][lane]);
    pthread_barrier_wait(&prog.warp[w]);
    int k = mma_matrices(kind, prog.frag[w], a, b);
    pthread_barrier_wait(&prog.warp[w]);
    for (int i = 0; i < 4; i++) {
        int row = (lane >> 2) + (i >= 2 ? 8 : 0), col = (lane % 4) * 2 + (i & 1);
        double sum = 0;
        for (int j = 0; j < k; j++) sum += a[row][j] * b[j][col];
        if (kind == MMA_F16_F16) {
            if (!(i & 1)) out[i / 2] = 0;
            out[i / 2] |= mma_f16_acc(in[6 + i / 2], i & 1, sum);
        } else if (kind == MMA_S8) {
            out[i] = in[6 + i] + (uint32_t)(int64_t)sum;
        } else {
            float c, d;
            memcpy(&c, &in[6 + i], 4);
            d = (float)(sum + c);
            memcpy(&out[i], &d, 4);
        }
    }
}

/* cvt.rna.tf32.f32: nearest, ties away from zero; the result's low 13
 * bits are zero. */
uint32_t sim_f2tf32_rna(float x);
uint32_t sim_f2tf32_rna(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    if (isnan(x)) return 0x7fffffffu;
    if (isinf(x)) return u;
    return (u + 0x1000u) & ~0x1fffu;
}

/* The program's shared memory (the kernel's wrapper calls this). */
void ws_smem(unsigned char *p);
void ws_smem(unsigned char *p) {
    if ((uintptr_t)p & 0x3ffff)
        sim_fail("shared memory global not at a multiple of 256 KiB", p);
    t_smem = p;
}

/* Byte address (offset in t_smem's 256 KiB window) of element (mn, k) of
 * the matrix descriptor d describes, elements of `esize` bytes, K-major
 * (kmajor) or MN-major. */
static uint32_t desc_addr(uint64_t d, int esize, int kmajor, int mn, int k) {
    uint32_t start = (uint32_t)(d & 0x3fff) << 4, lbo = (uint32_t)(d >> 16 & 0x3fff) << 4,
             sbo = (uint32_t)(d >> 32 & 0x3fff) << 4, base = (uint32_t)(d >> 49 & 7);
    int mode = (int)(d >> 62 & 3);
    int bits = mode == 1 ? 3 : mode == 2 ? 2 : mode == 3 ? 1 : 0;   /* Swizzle<bits,4,3> */
    int T = 16 / esize, rowb = 16 << bits;   /* elements per 16 bytes; bytes per atom row */
    uint32_t off;
    if (kmajor) {   /* ((8,m),(T,2k)): rows of rowb bytes, groups of 8 rows SBO apart */
        off = (uint32_t)(mn % 8) * (uint32_t)rowb + (uint32_t)(mn / 8) * sbo;
        if (bits == 0) off += (uint32_t)(k % T * esize) + (uint32_t)(k / T) * lbo;
        else off += (uint32_t)(k * esize);
    } else if (bits == 0) {   /* ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)) */
        off = (uint32_t)(mn % T * esize) + (uint32_t)(mn / T) * sbo + (uint32_t)(k % 8) * 16 +
              (uint32_t)(k / 8) * lbo;
    } else {   /* ((T,2^bits,m),(8,k)):((1,T,LBO),(2^bits T,SBO)) */
        int span = T << bits;
        off = (uint32_t)(mn % span * esize) + (uint32_t)(mn / span) * lbo +
              (uint32_t)(k % 8) * (uint32_t)rowb + (uint32_t)(k / 8) * sbo;
    }
    uint32_t a = (start + off) & 0x3ffff;
    if (bits) {
        uint32_t mask = (1u << bits) - 1;
        a ^= (((a >> 7) - base) & mask) << 4;
    }
    return a;
}

/* wgmma's operand kinds: ws_wgmma's `kind` is A's kind, and B's << 4
 * where it differs (f8 only: .e4m3.e5m2 and .e5m2.e4m3). */
enum { WG_F16, WG_BF16, WG_TF32, WG_E4M3, WG_E5M2 };

static int wg_kind_a(int kind) { return kind & 15; }
static int wg_kind_b(int kind) { return kind >> 4 ? kind >> 4 : kind; }
static int wg_esize(int k) { return k == WG_TF32 ? 4 : k >= WG_E4M3 ? 1 : 2; }

/* The value of an operand element of kind k at p in shared memory. */
static double wg_elem(int k, const unsigned char *p) {
    uint32_t u = 0;
    memcpy(&u, p, (size_t)wg_esize(k));
    switch (k) {
    case WG_TF32: return mma_elem(MMA_TF32, u, 0);
    case WG_E4M3: case WG_E5M2: return ws_f8_value(k == WG_E5M2, u);
    default: return half_value(u, k == WG_BF16);
    }
}

/* Racecheck's record of a wgmma's reads (lane 0 of each warp, when the
 * product is computed: at issue, or for one in flight at the wait that
 * ends it, the latest its operands may be read): the two rows of A and
 * the columns of B lane 0's accumulators lie in. */
static void wgmma_reads(const WgOp *op, int w, int ka, int kb, int K) {
    for (int h = 0; h < 2 && !op->rega; h++)
        for (int k = 0; k < K; k++)
            rc_check(t_smem + desc_addr(op->da, wg_esize(ka), !op->ta, 16 * w + 8 * h, k),
                     (size_t)wg_esize(ka), 0, "wgmma, A");
    for (int col = 0; col < op->n; col += col % 2 ? 7 : 1)   /* 0, 1, 8, 9, ... */
        for (int k = 0; k < K; k++)
            rc_check(t_smem + desc_addr(op->db, wg_esize(kb), !op->tb, col, k),
                     (size_t)wg_esize(kb), 0, "wgmma, B");
}

/* The product of wgmma op into acc, this thread's n/2 accumulators: A
 * from shared memory through da, or (rega) from arow; B through db; K
 * is 32 bytes of elements. */
static void wgmma_compute(const WgOp *op, float *acc) {
    if (!t_smem) sim_fail("wgmma: no shared memory registered", NULL);
    int ka = wg_kind_a(op->kind), kb = wg_kind_b(op->kind);
    if (ka > WG_E5M2 || kb > WG_E5M2 || (op->rega && ka > WG_TF32) ||
        (ka != kb && (ka < WG_E4M3 || kb < WG_E4M3)))
        sim_fail("wgmma: an operand kind not modelled", NULL);
    int w = t_tid % 128 / 32, lane = t_tid % 32, K = 32 / wg_esize(ka);
    for (int i = 0; i < op->n / 2; i++) {
        int row = 16 * w + lane / 4 + 8 * (i / 2 % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
        double sum = 0;
        for (int k = 0; k < K; k++) {
            double x = !op->rega ? wg_elem(ka, t_smem + desc_addr(op->da, wg_esize(ka), !op->ta, row, k))
                       : ka == WG_TF32 ? mma_elem(MMA_TF32, op->arow[i / 2 % 2][k], 0)
                                       : half_value((uint16_t)op->arow[i / 2 % 2][k], ka == WG_BF16);
            sum += x * wg_elem(kb, t_smem + desc_addr(op->db, wg_esize(kb), !op->tb, col, k));
        }
        sum *= op->sa * op->sb;
        acc[i] = (float)(op->scale_d ? sum + acc[i] : sum);
    }
    if (lane == 0 && rc_enabled()) wgmma_reads(op, w, ka, kb, K);
}

/* wgmma with A in registers, a rendezvous of the warpgroup's 128 threads:
 * each publishes its four registers a, rebuilds the whole of A (64 x 16)
 * by the ISA's fragment layout (Figure 148, .m64nNk16 A: warp w of the
 * warpgroup, lane l, element i of a0..a7 — register i/2, its low half
 * first — at row 16w + l/4 + 8((i/2)%2), column 2(l%4) + i%2 + 8(i/4))
 * and keeps the two rows its accumulators lie in; for tf32 (.m64nNk8,
 * 64 x 8) register i at row 16w + l/4 + 8(i%2), column l%4 + 4(i/2), as
 * mma.m16n8k8's A. */
static void wgmma_a_rows(const uint32_t a[4], int tf32, uint32_t arow[2][16]) {
    int g = t_tid / 128, me = t_tid % 128;
    if (g >= prog.ngroups) sim_fail("wgmma: thread outside a whole warpgroup", NULL);
    uint32_t A[64][16];
    memcpy(prog.areg[g][me], a, sizeof prog.areg[g][me]);
    pthread_barrier_wait(&prog.group[g]);
    for (int t = 0; t < 128; t++) {
        int w = t / 32, l = t % 32;
        for (int i = 0; i < 8 && !tf32; i++) {
            int row = 16 * w + l / 4 + 8 * (i / 2 % 2), col = 2 * (l % 4) + i % 2 + 8 * (i / 4);
            A[row][col] = (uint16_t)(prog.areg[g][t][i / 2] >> 16 * (i % 2));
        }
        for (int i = 0; i < 4 && tf32; i++)   /* .m64nNk8 A: a_i at (l/4 + 8(i%2), l%4 + 4(i/2)) */
            A[16 * w + l / 4 + 8 * (i % 2)][l % 4 + 4 * (i / 2)] = prog.areg[g][t][i];
    }
    pthread_barrier_wait(&prog.group[g]);
    for (int h = 0; h < 2; h++)
        memcpy(arow[h], A[16 * (me / 32) + me % 32 / 4 + 8 * h], sizeof arow[h]);
}

/* wgmma.mma_async.sync.aligned.m64n{n}k{16,8,32}.f32.{f16,bf16,tf32,
 * e4m3,e5m2}.{the same, or the other f8} (kind: WG_*, B's << 4 where it
 * differs): acc holds this thread's n/2 accumulators; scale_d 0: D = A B.
 * sa, sb: the immediate scales of A and B (1 or -1); ta, tb: 0 K-major, 1
 * MN-major (tf32, f8: K-major, 0). */
void ws_wgmma(int32_t n, int32_t kind, uint64_t da, uint64_t db, int32_t scale_d, int32_t sa,
              int32_t sb, int32_t ta, int32_t tb, float *acc);
void ws_wgmma(int32_t n, int32_t kind, uint64_t da, uint64_t db, int32_t scale_d, int32_t sa,
              int32_t sb, int32_t ta, int32_t tb, float *acc) {
    WgOp op = {.n = n, .kind = kind, .scale_d = scale_d, .sa = sa, .sb = sb, .ta = ta,
               .tb = tb, .da = da, .db = db};
    wgmma_compute(&op, acc);
}

/* The same with A in registers: a, this thread's four (no imm-trans-a:
 * A from registers is K-major). */
void ws_wgmma_ra(int32_t n, int32_t kind, const uint32_t *a, uint64_t db, int32_t scale_d,
                 int32_t sa, int32_t sb, int32_t tb, float *acc);
void ws_wgmma_ra(int32_t n, int32_t kind, const uint32_t *a, uint64_t db, int32_t scale_d,
                 int32_t sa, int32_t sb, int32_t tb, float *acc) {
    WgOp op = {.n = n, .kind = kind, .scale_d = scale_d, .sa = sa, .sb = sb, .tb = tb,
               .rega = 1, .db = db};
    wgmma_a_rows(a, wg_kind_a(kind) == WG_TF32, op.arow);
    wgmma_compute(&op, acc);
}

void sim_wgmma_fence_sync_aligned(void);
void sim_wgmma_commit_group_sync_aligned(void);
void sim_wgmma_wait_group_sync_aligned(int64_t n);
/* wgmma's accumulators in flight. Where the kernel fences them with the
 * register form of wgmma.wait_group (x86.py then calls ws_wgmma_async),
 * a wgmma only records itself and returns tokens: NaNs with the sign bit
 * set whose payload names a slot of this thread's table (slot, and a
 * generation so that a stale copy is no token). The product is computed,
 * reading shared memory, when a wait_group covers its group — the latest
 * moment the ISA allows, so a ring slot overwritten while a wgmma in
 * flight still reads it shows — and wait_group N then turns the tokens
 * of groups before the newest N into their values. A wgmma taking a
 * token as its C chains on that product (the hardware chains
 * accumulators in flight); anything else reading a token — an
 * accumulator used before its wait — reads a NaN. */

static int token_slot(float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    if ((u & (uint32_t)TOKEN) != (uint32_t)TOKEN || !t_tok) return -1;
    int slot = (int)(u & (TOKENS - 1));
    return t_tok->live[slot] && t_tok->gen[slot] == (u >> 12 & 0x3ff) ? slot : -1;
}

static float token_take(int slot) {
    t_tok->live[slot] = 0;
    t_tok->free[t_tok->nfree++] = (uint16_t)slot;
    return t_tok->val[slot];
}

/* A new token of the open group; its value comes later (val). */
static float token_new(int *slot_out) {
    if (!t_tok) {
        t_tok = calloc(1, sizeof *t_tok);
        if (!t_tok) abort();
        for (int i = 0; i < TOKENS; i++) t_tok->free[i] = (uint16_t)(TOKENS - 1 - i);
        t_tok->nfree = TOKENS;
    }
    if (!t_tok->nfree) sim_fail("wgmma: too many accumulators in flight", NULL);
    int slot = t_tok->free[--t_tok->nfree];
    t_tok->live[slot] = 1;
    t_tok->gen[slot] = (t_tok->gen[slot] + 1) & 0x3ff;
    t_tok->val[slot] = NAN;
    t_tok->group[slot] = t_wg_group;
    *slot_out = slot;
    uint32_t u = (uint32_t)TOKEN | t_tok->gen[slot] << 12 | (uint32_t)slot;
    float v;
    memcpy(&v, &u, 4);
    return v;
}

/* Records op (its operands) as in flight, its accumulators acc
 * (C: values or tokens of earlier ones) turned into tokens. */
static void wgmma_issue(const WgOp *op, float *acc) {
    if (t_nops == t_capops) {
        t_capops = t_capops ? 2 * t_capops : 16;
        t_ops = realloc(t_ops, sizeof *t_ops * (size_t)t_capops);
        if (!t_ops) abort();
    }
    WgOp *in = &t_ops[t_nops++];
    *in = *op;
    in->group = t_wg_group;
    for (int i = 0; i < op->n / 2; i++) {
        in->in[i] = token_slot(acc[i]);
        in->c[i] = acc[i];
        acc[i] = token_new(&in->out[i]);
    }
}

void ws_wgmma_async(int32_t n, int32_t kind, uint64_t da, uint64_t db, int32_t scale_d,
                    int32_t sa, int32_t sb, int32_t ta, int32_t tb, float *acc);
void ws_wgmma_async(int32_t n, int32_t kind, uint64_t da, uint64_t db, int32_t scale_d,
                    int32_t sa, int32_t sb, int32_t ta, int32_t tb, float *acc) {
    WgOp op = {.n = n, .kind = kind, .scale_d = scale_d, .sa = sa, .sb = sb, .ta = ta,
               .tb = tb, .da = da, .db = db};
    wgmma_issue(&op, acc);
}

/* With A in registers: the registers are read at issue (the rendezvous),
 * shared memory (B) when a wait covers the group, as above. */
void ws_wgmma_ra_async(int32_t n, int32_t kind, const uint32_t *a, uint64_t db,
                       int32_t scale_d, int32_t sa, int32_t sb, int32_t tb, float *acc);
void ws_wgmma_ra_async(int32_t n, int32_t kind, const uint32_t *a, uint64_t db,
                       int32_t scale_d, int32_t sa, int32_t sb, int32_t tb, float *acc) {
    WgOp op = {.n = n, .kind = kind, .scale_d = scale_d, .sa = sa, .sb = sb, .tb = tb,
               .rega = 1, .db = db};
    wgmma_a_rows(a, wg_kind_a(kind) == WG_TF32, op.arow);
    wgmma_issue(&op, acc);
}

static void wgmma_wait_products(int32_t n, int32_t count, float *regs) {
    int done = 0;
    for (; done < t_nops && t_ops[done].group + (unsigned)n < t_wg_group; done++) {
        WgOp *op = &t_ops[done];
        for (int i = 0; i < op->n / 2; i++)
            if (op->in[i] >= 0) op->c[i] = token_take(op->in[i]);
        wgmma_compute(op, op->c);
        for (int i = 0; i < op->n / 2; i++)
            t_tok->val[op->out[i]] = isnan(op->c[i]) ? NAN : op->c[i];
    }
    memmove(t_ops, t_ops + done, sizeof *t_ops * (size_t)(t_nops - done));
    t_nops -= done;
    for (int i = 0; i < count; i++) {
        int slot = token_slot(regs[i]);
        if (slot >= 0 && t_tok->group[slot] + (unsigned)n < t_wg_group)
            regs[i] = token_take(slot);
    }
}

/* wgmma.wait_group n over the count accumulator registers regs: the
 * products of the groups it covers, then their values for their tokens;
 * then a rendezvous of the warp (.sync: no thread of the warp leaves the
 * wait before every one of them has done it, so none leaves before the
 * warp's products have read their shared memory — what one thread's
 * signal after the wait, freeing the buffers for the whole warp, may
 * rely on). */
void ws_wgmma_wait(int32_t n, int32_t count, float *regs);
void ws_wgmma_wait(int32_t n, int32_t count, float *regs) {
    wgmma_wait_products(n, count, regs);
    pthread_barrier_wait(&prog.warp[t_tid / 32]);
}

void sim_fence_proxy_async(void);
void sim_fence_proxy_async_global(void);
void sim_fence_proxy_async_shared_cta(void);
void sim_fence_proxy_async_shared_cluster(void);
void sim_fence_proxy_async(void) {}
void sim_fence_proxy_async_global(void) {}
void sim_fence_proxy_async_shared_cta(void) {}
void sim_fence_proxy_async_shared_cluster(void) {}
void sim_wgmma_fence_sync_aligned(void) {}
void sim_wgmma_commit_group_sync_aligned(void) { t_wg_group++; }
void sim_wgmma_wait_group_sync_aligned(int64_t n) { (void)n; }

/* ------------------------------------------------------ TMA and mbarriers
 * What tilec's TMA loads use on sm_90a (PTX ISA 8.x: mbarrier, 9.7.13.15;
 * cp.async.bulk.tensor, 9.7.9.25.5; tensor maps and their swizzle modes,
 * 5.5), as x86.py passes tilec's inline asm here:
 *
 * An mbarrier (the 8 bytes at its shared address; the hardware's encoding
 * is opaque, this one is the simulation's) holds a phase parity, the
 * expected arrival count of init, the arrivals pending in the current
 * phase and a transaction count. init sets the count (1 to 2^20 - 1),
 * phase 0, tx 0; arrive.expect_tx adds its bytes to tx, then arrives
 * (pending - 1: an arrival beyond the count is an error), arrive alone
 * arrives; a tensor copy's
 * complete_tx takes its box's bytes (out-of-bounds fill included) off
 * tx. tx may go negative (a copy completing before its expect_tx), within
 * +-(2^20 - 1). The phase completes when pending is 0 and tx is 0: the
 * parity flips and pending is the count again. try_wait.parity P is true
 * when the current phase's parity is not P (the phase of parity P, or for
 * the first phase "the one before it", has completed); false, it yields
 * the CPU, and 20 seconds of falses in a row are a deadlock (an error).
 * Using an mbarrier not initialized (or invalidated: inval clears it) is
 * an error; the barriers a program initialized are cleared when it ends,
 * so the next program must initialize them again. The state is guarded by
 * one mutex, which also orders the copied data before a successful wait.
 * fence.mbarrier_init and fence.proxy.async do nothing here.
 *
 * cp.async.bulk.tensor.{1,2,3}d...tile.mbarrier::complete_tx::bytes
 * reads global memory at issue and lands late: the first try_wait for
 * the current phase of its mbarrier, by any thread, writes every copy
 * pending on it and completes their transactions, then answers (so a
 * thread that reads a slot without waiting for that phase, or waits for
 * the wrong parity, sees what was there before; a copy nobody waits for
 * never lands: an error at the program's end, as is invalidating a
 * barrier with copies pending). The box at
 * coordinates (x0, x1, x2), element
 * (x0 + i, x1 + j, x2 + k) for i < box0, j < box1, k < box2, zero where
 * a coordinate is < 0 or >= its dimension, is written to shared memory
 * row-major by box, innermost contiguous (byte offset
 * ((k box1 + j) box0 + i) esize), then swizzled on the address: 128B
 * swizzling XORs address bits [4, 7) with bits [7, 10), 64B bits [4, 6)
 * with [7, 9), 32B bit 4 with bit 7 (CuTe's Swizzle<3,4,3>, <2,4,3>,
 * <1,4,3>); then complete_tx on the mbarrier. The destination must be
 * aligned to 128 bytes, and to the swizzle pattern's period (256, 512,
 * 1024 bytes) when swizzled. A rank-1 map cannot swizzle: the driver
 * refuses it (cuTensorMapEncodeTiled, invalid argument, on an H100:
 * session 34, which withdrew tilec --row-tma, built on such maps after
 * this simulation had accepted them and boxes at any 128-byte row).
 *
 * The tensor map is the simulation's own 128-byte layout (WsTmap), filled
 * by ws_tmap_encode where a GPU launcher would call
 * cuTensorMapEncodeTiled: the kernel receives its address. Only what
 * tilec uses: tiled mode, element strides 1, no interleave, zero fill.
 *
 * What this cannot catch: copies in flight (one landing while a slot is
 * still read shows only if the read happens after the issue in real
 * time), a missing fence.proxy.async, the driver's own checks beyond
 * those of ws_tmap_encode. A swizzled map whose inner box is narrower
 * than the swizzle span is refused, its layout not being modelled.
 */
enum { WS_TMAP_MAGIC = 0x544d4150 /* "TMAP" */, MB_MAX = (1 << 20) - 1 };

typedef struct WsTmap {
    uint32_t magic, rank, esize, swizzle;   /* swizzle in bytes: 0, 32, 64, 128 */
    uint64_t base;
    uint64_t dim[3], stride[3];             /* stride in bytes; stride[0] = esize */
    uint32_t box[3], pad;                   /* unused dimensions: dim 1, box 1 */
    unsigned char rest[40];
} WsTmap;
_Static_assert(sizeof(WsTmap) == 128, "a tensor map is 128 bytes");

static _Noreturn void tmap_fail(const char *what) {
    fprintf(stderr, "warpsim: ws_tmap_encode: %s\n", what);
    _Exit(70);
}

/* Fills map128 (128 bytes, 64-byte aligned) for a tiled tensor of `rank`
 * (1 to 3) dimensions at base: dim and box innermost first, stride_bytes
 * the strides of dimensions 1 .. rank-1 (multiples of 16), elements of
 * esize bytes (1, 2, 4, 8), swizzle 0, 32, 64 or 128 (bytes). As
 * cuTensorMapEncodeTiled requires: base 16-byte aligned, boxes of 1 to
 * 256, the inner box a multiple of 16 bytes, and no wider than the
 * swizzle span; here, equal to it. */
void ws_tmap_encode(void *map128, uint64_t base, int rank, const uint64_t *dim,
                    const uint64_t *stride_bytes, const uint32_t *box, int esize, int swizzle);
void ws_tmap_encode(void *map128, uint64_t base, int rank, const uint64_t *dim,
                    const uint64_t *stride_bytes, const uint32_t *box, int esize, int swizzle) {
    WsTmap m;
    memset(&m, 0, sizeof m);
    if ((uintptr_t)map128 % 64) tmap_fail("the map is not 64-byte aligned");
    if (rank < 1 || rank > 3) tmap_fail("rank not 1 to 3");
    if (esize != 1 && esize != 2 && esize != 4 && esize != 8) tmap_fail("element size not 1, 2, 4 or 8");
    if (base % 16) tmap_fail("global address not 16-byte aligned");
    if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
        tmap_fail("swizzle not 0, 32, 64 or 128");
    /* the driver's answer on an H100 (session 34): invalid argument */
    if (rank == 1 && swizzle) tmap_fail("a rank-1 map cannot swizzle");
    m.magic = WS_TMAP_MAGIC;
    m.rank = (uint32_t)rank;
    m.esize = (uint32_t)esize;
    m.swizzle = (uint32_t)swizzle;
    m.base = base;
    for (int d = 0; d < 3; d++) {
        m.dim[d] = d < rank ? dim[d] : 1;
        m.box[d] = d < rank ? box[d] : 1;
        m.stride[d] = d == 0 ? (uint64_t)esize : d < rank ? stride_bytes[d - 1] : 0;
        if (m.dim[d] < 1 || m.dim[d] > (1ull << 32)) tmap_fail("a dimension not 1 to 2^32");
        if (m.box[d] < 1 || m.box[d] > 256) tmap_fail("a box dimension not 1 to 256");
        if (d > 0 && d < rank && (m.stride[d] % 16 || m.stride[d] >= (1ull << 40)))
            tmap_fail("a stride not a multiple of 16 below 2^40");
    }
    if (m.box[0] * m.esize % 16) tmap_fail("inner box not a multiple of 16 bytes");
    if (swizzle && m.box[0] * m.esize > (uint32_t)swizzle)
        tmap_fail("inner box wider than the swizzle span");
    if (swizzle && m.box[0] * m.esize != (uint32_t)swizzle)
        tmap_fail("inner box narrower than the swizzle span (not modelled)");
    memcpy(map128, &m, sizeof m);
}

/* An mbarrier's state, and its encoding in the object's 8 bytes: bit 63
 * valid (initialized), 62 the phase parity, [41, 62) tx (21 bits, two's
 * complement), [20, 40) the count, [0, 20) the pending arrivals. */
typedef struct Mbar {
    int valid, phase;
    int32_t tx, count, pending;
} Mbar;

static pthread_mutex_t mb_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *mb_list[256];   /* initialized by the program running */
static int mb_n;
static _Thread_local unsigned long t_spins;   /* try_wait falses in a row */

/* (mb_lock held) bar's index in mb_list (its racecheck clock), or -1. */
static int mb_index(const uint64_t *bar) {
    for (int i = 0; i < mb_n; i++)
        if (mb_list[i] == bar) return i;
    return -1;
}
static _Thread_local struct timespec t_spin_since;

/* (the lock held) The valid mbarrier at p, or an error. */
static Mbar mb_get(uint64_t *p, const char *what) {
    if ((uintptr_t)p % 8) sim_fail("mbarrier: address not 8-byte aligned", p);
    uint64_t w = *p;
    uint32_t tx = (uint32_t)(w >> 41 & 0x1fffff);
    Mbar m = {(int)(w >> 63), (int)(w >> 62 & 1),
              tx & 0x100000 ? (int32_t)tx - 0x200000 : (int32_t)tx,
              (int32_t)(w >> 20 & 0xfffff), (int32_t)(w & 0xfffff)};
    if (!m.valid) sim_fail(what, p);
    return m;
}

/* (the lock held) Stores m, completing the phase where nothing is left. */
static void mb_put(uint64_t *p, Mbar m) {
    if (m.pending == 0 && m.tx == 0) {
        m.phase ^= 1;
        m.pending = m.count;
    }
    *p = (uint64_t)m.valid << 63 | (uint64_t)m.phase << 62 |
         (uint64_t)((uint32_t)m.tx & 0x1fffff) << 41 | (uint64_t)m.count << 20 |
         (uint64_t)m.pending;
}

static void mb_tx(Mbar *m, int64_t bytes, uint64_t *p) {
    int64_t tx = (int64_t)m->tx + bytes;
    if (tx > MB_MAX || tx < -MB_MAX) sim_fail("mbarrier: tx-count out of +-(2^20 - 1)", p);
    m->tx = (int32_t)tx;
}

/* Copies issued and not landed yet (ws_tma_load): the image of the
 * destination's bytes, landed by the first try_wait on `bar`. */
typedef struct TmaCopy {
    uint64_t *bar;
    unsigned char *dst, *img;
    size_t bytes;
} TmaCopy;
static TmaCopy *tc_list;
static int tc_n, tc_cap;

/* (the lock held) Lands the copies pending on bar: their bytes written,
 * their transactions completed. Returns how many landed. */
static int tma_land(uint64_t *bar, Mbar *m) {
    int k = 0, n = tc_n;
    for (int i = 0; i < tc_n; i++) {
        if (tc_list[i].bar != bar) {
            tc_list[k++] = tc_list[i];
            continue;
        }
        memcpy(tc_list[i].dst, tc_list[i].img, tc_list[i].bytes);
        free(tc_list[i].img);
        mb_tx(m, -(int64_t)tc_list[i].bytes, bar);
    }
    tc_n = k;
    return n - k;
}

/* (the lock held) Whether a copy is pending on bar. */
static int tma_pending(const uint64_t *bar) {
    for (int i = 0; i < tc_n; i++)
        if (tc_list[i].bar == bar) return 1;
    return 0;
}

/* The end of a program (run_program): its mbarriers are no more, and
 * every copy it issued must have been waited for. */
static void bulk_program_end(void);

static void mbar_program_end(void) {
    if (tc_n) sim_fail("cp.async.bulk.tensor: a copy no thread waited for", tc_list[0].dst);
    bulk_program_end();
    free(tc_list);
    tc_list = NULL;
    tc_cap = 0;
    for (int i = 0; i < mb_n; i++) *mb_list[i] = 0;
    mb_n = 0;
}

/* mbarrier.init.shared::cta.b64 [bar], count */
void ws_mbar_init(uint64_t *bar, int32_t count);
void ws_mbar_init(uint64_t *bar, int32_t count) {
    if ((uintptr_t)bar % 8) sim_fail("mbarrier.init: address not 8-byte aligned", bar);
    if (count < 1 || count > MB_MAX) sim_fail("mbarrier.init: count not 1 to 2^20 - 1", bar);
    pthread_mutex_lock(&mb_lock);
    int known = 0;
    for (int i = 0; i < mb_n; i++) known |= mb_list[i] == bar;
    if (!known) {
        if (mb_n == (int)(sizeof mb_list / sizeof *mb_list))
            sim_fail("mbarrier.init: too many mbarriers in one program", bar);
        mb_list[mb_n++] = bar;
    }
    *bar = 0;
    mb_put(bar, (Mbar){1, 0, 0, count, count});   /* (pending = count: not complete) */
    pthread_mutex_unlock(&mb_lock);
}

/* mbarrier.inval.shared::cta.b64 [bar] */
void ws_mbar_inval(uint64_t *bar);
void ws_mbar_inval(uint64_t *bar) {
    pthread_mutex_lock(&mb_lock);
    mb_get(bar, "mbarrier.inval: not an initialized mbarrier");
    if (tma_pending(bar)) sim_fail("mbarrier.inval: copies still pending on it", bar);
    *bar = 0;
    pthread_mutex_unlock(&mb_lock);
}

/* mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes */
void ws_mbar_arrive_expect_tx(uint64_t *bar, int32_t bytes);
void ws_mbar_arrive_expect_tx(uint64_t *bar, int32_t bytes) {
    pthread_mutex_lock(&mb_lock);
    Mbar m = mb_get(bar, "mbarrier.arrive.expect_tx: not an initialized mbarrier");
    if (bytes < 0) sim_fail("mbarrier.arrive.expect_tx: a negative byte count", bar);
    mb_tx(&m, bytes, bar);
    if (m.pending == 0) sim_fail("mbarrier.arrive: more arrivals than its count in one phase", bar);
    rc_mbar_release(mb_index(bar));
    m.pending--;
    mb_put(bar, m);
    pthread_mutex_unlock(&mb_lock);
}

/* mbarrier.arrive.shared::cta.b64 _, [bar] (a released slot's reader) */
void ws_mbar_arrive(uint64_t *bar);
void ws_mbar_arrive(uint64_t *bar) {
    pthread_mutex_lock(&mb_lock);
    Mbar m = mb_get(bar, "mbarrier.arrive: not an initialized mbarrier");
    if (m.pending == 0) sim_fail("mbarrier.arrive: more arrivals than its count in one phase", bar);
    rc_mbar_release(mb_index(bar));
    m.pending--;
    mb_put(bar, m);
    pthread_mutex_unlock(&mb_lock);
}

/* atom.acq_rel.cta.shared::cta.inc.u32 old, [p], bound: (old >= bound
 * ? 0 : old + 1) stored, old returned (a released slot's count, lower/
 * tma.c lw_tma_refill_last) */
uint32_t ws_atom_inc_acq_rel(uint32_t *p, uint32_t bound);
uint32_t ws_atom_inc_acq_rel(uint32_t *p, uint32_t bound) {
    if ((uintptr_t)p % 4) sim_fail("atom.inc: address not 4-byte aligned", p);
    pthread_mutex_lock(&mb_lock);
    uint32_t old = *p;
    *p = old >= bound ? 0 : old + 1;
    rc_atom_acq_rel(p);
    pthread_mutex_unlock(&mb_lock);
    return old;
}

/* mbarrier.try_wait.parity.shared::cta.b64 p, [bar], parity; selp 1, 0 */
int32_t ws_mbar_try_wait_parity(uint64_t *bar, int32_t parity);
int32_t ws_mbar_try_wait_parity(uint64_t *bar, int32_t parity) {
    pthread_mutex_lock(&mb_lock);
    Mbar m = mb_get(bar, "mbarrier.try_wait: not an initialized mbarrier");
    if (m.phase == (parity & 1) && tma_land(bar, &m)) {   /* waits for this phase */
        mb_put(bar, m);
        m = mb_get(bar, "mbarrier.try_wait: not an initialized mbarrier");
    }
    int idx = mb_index(bar);
    pthread_mutex_unlock(&mb_lock);
    if (m.phase != (parity & 1)) {
        rc_mbar_acquire(idx);
        t_spins = 0;
        return 1;
    }
    struct timespec now;
    if (t_spins++ == 0) {
        clock_gettime(CLOCK_MONOTONIC, &t_spin_since);
    } else if (t_spins % 1024 == 0) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t_spin_since.tv_sec > 20)
            sim_fail("mbarrier.try_wait: the phase has not completed in 20 s (deadlock)", bar);
    }
    sched_yield();
    return 0;
}

/* The tensor map at `map` for a copy of `rank` dimensions between global
 * memory and shared memory at smem (`side` names it in errors), checked. */
static WsTmap tmap_get(const void *map, int32_t rank, const void *smem, const char *side) {
    WsTmap m;
    if ((uintptr_t)map % 64) sim_fail("cp.async.bulk.tensor: tensor map not 64-byte aligned", map);
    memcpy(&m, map, sizeof m);
    if (m.magic != WS_TMAP_MAGIC)
        sim_fail("cp.async.bulk.tensor: not a tensor map of ws_tmap_encode", map);
    if ((int32_t)m.rank != rank)
        sim_fail("cp.async.bulk.tensor: the instruction's dimensions are not the map's", map);
    if ((uintptr_t)smem % (m.swizzle ? 8 * m.swizzle : 128)) {
        fprintf(stderr, "warpsim: cp.async.bulk.tensor: the %s in shared memory:\n", side);
        sim_fail("cp.async.bulk.tensor: not aligned to 128 bytes (swizzled: to the pattern's "
                 "8 rows)", smem);
    }
    return m;
}

static size_t box_bytes(const WsTmap *m) {
    return (size_t)m->box[0] * m->box[1] * m->box[2] * m->esize;
}

/* Element (i, j, k) of map m's box at coordinates c, the box in shared
 * memory at smem: its byte offset there (row-major by box, innermost
 * contiguous, then swizzled on the address: the swizzle moves 16-byte
 * chunks within their 128-byte row only), its global address *g, and
 * whether it lies inside the tensor (*in). */
static size_t box_elem(const WsTmap *m, const int64_t c[3], const unsigned char *smem,
                       uint32_t i, uint32_t j, uint32_t k, uint64_t *g, int *in) {
    const uintptr_t mask = m->swizzle ? (m->swizzle / 16 - 1) : 0;
    const int64_t x[3] = {c[0] + i, c[1] + j, c[2] + k};
    uintptr_t a = (uintptr_t)smem + ((k * m->box[1] + j) * m->box[0] + i) * m->esize;
    a ^= (a >> 7 & mask) << 4;
    if (a - (uintptr_t)smem >= box_bytes(m))
        sim_fail("cp.async.bulk.tensor: a swizzled byte outside the box", smem);
    *in = 1;
    *g = m->base;
    for (int d = 0; d < 3; d++) {
        *in &= x[d] >= 0 && (uint64_t)x[d] < m->dim[d];
        *g += (uint64_t)x[d] * m->stride[d];
    }
    return a - (uintptr_t)smem;
}

/* cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile
 * .mbarrier::complete_tx::bytes [dst], [map, {c0, c1, c2}], [bar]
 * (coordinates beyond the rank 0), complete at issue. */
void ws_tma_load(unsigned char *dst, const void *map, int32_t rank, int32_t c0, int32_t c1,
                 int32_t c2, uint64_t *bar);
void ws_tma_load(unsigned char *dst, const void *map, int32_t rank, int32_t c0, int32_t c1,
                 int32_t c2, uint64_t *bar) {
    WsTmap m = tmap_get(map, rank, dst, "destination");
    const int64_t c[3] = {c0, rank > 1 ? c1 : 0, rank > 2 ? c2 : 0};
    const size_t bytes = box_bytes(&m);
    if (rc_enabled()) rc_check(dst, bytes, 1, "cp.async.bulk.tensor, a load");
    unsigned char *img = malloc(bytes);   /* the image of [dst, dst + bytes) */
    if (!img) abort();
    for (uint32_t k = 0; k < m.box[2]; k++)
        for (uint32_t j = 0; j < m.box[1]; j++)
            for (uint32_t i = 0; i < m.box[0]; i++) {
                uint64_t src;
                int in;
                unsigned char *to = img + box_elem(&m, c, dst, i, j, k, &src, &in);
                if (in) memcpy(to, (const void *)(uintptr_t)src, m.esize);
                else memset(to, 0, m.esize);
            }
    pthread_mutex_lock(&mb_lock);
    mb_get(bar, "cp.async.bulk.tensor: not an initialized mbarrier");
    rc_mbar_release(mb_index(bar));   /* its complete_tx follows the issue */
    if (tc_n == tc_cap) {
        tc_cap = tc_cap ? 2 * tc_cap : 64;
        tc_list = realloc(tc_list, sizeof *tc_list * (size_t)tc_cap);
        if (!tc_list) abort();
    }
    tc_list[tc_n++] = (TmaCopy){bar, dst, img, bytes};
    pthread_mutex_unlock(&mb_lock);
}

/* ------------------------------------------------------------ TMA stores
 * cp.async.bulk.tensor.{2,3}d.global.shared::cta.bulk_group [map, {c}],
 * [src] (PTX ISA 9.7.9.25.5) and its bulk groups (commit_group,
 * wait_group[.read] N, 9.7.9.25.6-7), as tilec's TMA stores use them:
 * the store reads its box from shared memory laid out as a TMA load
 * writes it (row-major by box, swizzled on the address: ws_tma_load) and
 * writes the elements whose coordinates lie inside the tensor's extents
 * to global memory, dropping the rest. Here it does so late: at the
 * issuing thread's wait for the group holding it (wait_group N with N =
 * 0, the only form tilec uses), reading shared memory then — so a
 * program that writes the buffer again before that wait stores what it
 * wrote, not the tile, and fails its test. A store not committed, or
 * committed and never waited for, is an error at the program's end (its
 * source, the program's shared memory, is gone then). */
typedef struct BulkStore {
    WsTmap m;
    int64_t c[3];
    const unsigned char *src;
    int tid;          /* the issuing thread */
    int committed;
} BulkStore;
static BulkStore *bs_list;
static int bs_n, bs_cap;

void ws_tma_store(const void *map, int32_t rank, int32_t c0, int32_t c1, int32_t c2,
                  const unsigned char *src);
void ws_tma_store(const void *map, int32_t rank, int32_t c0, int32_t c1, int32_t c2,
                  const unsigned char *src) {
    WsTmap m = tmap_get(map, rank, src, "source");
    pthread_mutex_lock(&mb_lock);
    if (bs_n == bs_cap) {
        bs_cap = bs_cap ? 2 * bs_cap : 64;
        bs_list = realloc(bs_list, sizeof *bs_list * (size_t)bs_cap);
        if (!bs_list) abort();
    }
    bs_list[bs_n++] = (BulkStore){m, {c0, rank > 1 ? c1 : 0, rank > 2 ? c2 : 0}, src, t_tid, 0};
    pthread_mutex_unlock(&mb_lock);
}

/* cp.async.bulk.commit_group */
void ws_bulk_commit(void);
void ws_bulk_commit(void) {
    pthread_mutex_lock(&mb_lock);
    for (int i = 0; i < bs_n; i++)
        if (bs_list[i].tid == t_tid) bs_list[i].committed = 1;
    pthread_mutex_unlock(&mb_lock);
}

/* (the lock held) Performs bulk store b. */
static void bulk_store(const BulkStore *b) {
    for (uint32_t k = 0; k < b->m.box[2]; k++)
        for (uint32_t j = 0; j < b->m.box[1]; j++)
            for (uint32_t i = 0; i < b->m.box[0]; i++) {
                uint64_t dst;
                int in;
                size_t off = box_elem(&b->m, b->c, b->src, i, j, k, &dst, &in);
                if (in) memcpy((void *)(uintptr_t)dst, b->src + off, b->m.esize);
            }
}

/* cp.async.bulk.wait_group[.read] n: this thread's committed stores
 * performed (n = 0 only). */
void ws_bulk_wait(int32_t n);
void ws_bulk_wait(int32_t n) {
    if (n != 0) sim_fail("cp.async.bulk.wait_group: only 0 is modelled", NULL);
    pthread_mutex_lock(&mb_lock);
    int k = 0;
    for (int i = 0; i < bs_n; i++) {
        if (bs_list[i].tid == t_tid && bs_list[i].committed) {
            if (rc_enabled())   /* its reads, done by now */
                rc_check(bs_list[i].src, box_bytes(&bs_list[i].m), 0,
                         "cp.async.bulk.tensor, a store");
            bulk_store(&bs_list[i]);
        }
        else bs_list[k++] = bs_list[i];
    }
    bs_n = k;
    pthread_mutex_unlock(&mb_lock);
}

static void bulk_program_end(void) {
    if (bs_n)
        sim_fail(bs_list[0].committed ? "cp.async.bulk.tensor: a bulk store no thread waited for"
                                      : "cp.async.bulk.tensor: a bulk store never committed",
                 bs_list[0].src);
    free(bs_list);
    bs_list = NULL;
    bs_cap = 0;
}
