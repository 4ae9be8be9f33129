/*
 * warpsim.c — the simulated GPU of warpsim.h: thread-local thread and
 * program ids, a pthread barrier per program and per warp, and a 32-slot
 * exchange buffer per warp through which every shuffle passes. The sim_*
 * functions are what x86.py turned the llvm.nvvm.* intrinsics into.
 */
#define _POSIX_C_SOURCE 200809L
#include "warpsim.h"

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
static _Thread_local int t_tid, t_cta;
static int failures;
static uint64_t seed = 0x9e3779b97f4a7c15u;

int sim_read_ptx_sreg_tid_x(void);
int sim_read_ptx_sreg_ctaid_x(void);
void sim_barrier_cta_sync_aligned_all(int id);
int sim_read_ptx_sreg_tid_x(void) { return t_tid; }
int sim_read_ptx_sreg_ctaid_x(void) { return t_cta; }
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
    int tid, cta;
} Thread;

static void *thread_main(void *p) {
    Thread *t = p;
    t_tid = t->tid;
    t_cta = t->cta;
    t->body(t->ctx);
    return NULL;
}

void ws_launch(int threads, int grid, void (*body)(void *), void *ctx) {
    static pthread_t th[MAXTHREADS];
    static Thread t[MAXTHREADS];
    if (threads % 32 || threads > MAXTHREADS) abort();
    for (int cta = 0; cta < grid; cta++) {
        pthread_barrier_init(&prog.all, NULL, (unsigned)threads);
        for (int w = 0; w < threads / 32; w++)
            pthread_barrier_init(&prog.warp[w], NULL, 32);
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setstacksize(&a, 1 << 20);
        for (int i = 0; i < threads; i++) {
            t[i] = (Thread){body, ctx, i, cta};
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

static void report(const char *what, int bad, int n) {
    printf("%s %s (%d elements)\n", bad ? "FAIL" : "ok", what, n);
    failures += bad != 0;
}

void ws_check_f(const char *what, const float *got, const double *want, int n,
                double tol) {
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (!(fabs(got[i] - want[i]) <= tol * (1 + fabs(want[i]))) && bad++ < 5)
            printf("  %s[%d]: got %.9g, want %.9g\n", what, i, got[i], want[i]);
    report(what, bad, n);
}

void ws_check_i(const char *what, const int64_t *got, const int64_t *want, int n) {
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ < 5)
            printf("  %s[%d]: got %lld, want %lld\n", what, i, (long long)got[i],
                   (long long)want[i]);
    report(what, bad, n);
}

int ws_failures(void) { return failures; }

void *ws_buffer(size_t bytes) {
    void *p = aligned_alloc(16, (bytes + 15) & ~(size_t)15);
    if (!p) abort();
    memset(p, 0xa5, bytes);
    return p;
}

static uint32_t next(void) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (uint32_t)(seed >> 16);
}

double ws_frand(void) { return next() / 4294967296.0 * 4 - 2; }
int ws_irand(int lo, int hi) { return lo + (int)(next() % (uint32_t)(hi - lo + 1)); }

/* Kernels that call what the simulation does not model (tensor cores)
 * still link; calling one aborts. */
void sim_ldmatrix_sync_aligned_m8n8_x4_trans_b16_p3(void);
void sim_ldmatrix_sync_aligned_m8n8_x4_b16_p3(void);
void sim_mma_m16n8k16_row_col_f32_f32(void);
void sim_ldmatrix_sync_aligned_m8n8_x4_trans_b16_p3(void) { abort(); }
void sim_ldmatrix_sync_aligned_m8n8_x4_b16_p3(void) { abort(); }
void sim_mma_m16n8k16_row_col_f32_f32(void) { abort(); }
