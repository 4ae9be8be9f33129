/*
 * test_persist.c — plan/persist.c by brute force on the interpreter: for
 * each kernel the rewrite takes, every shape of a grid around its tiles
 * (M, N, K from 0 or 1 past two tiles) and every number of programs
 * launched P (1, 2, 3, 7 and more than the tiles), the rewritten kernel
 * on P programs stores bit for bit what the kernel as written stores on
 * its grid (the same ops on the same tiles, in the same order). And the
 * kernels it must leave alone: a load before the loop, a bound that
 * depends on the program id, two loops, no grid clause.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp.h"
#include "parser/parser.h"
#include "plan/layout.h"
#include "sema/sema.h"
#include "tests/unit/check.h"

#define MM_BODY(INDEX, LO, EPI)                                                        \
    "    let rk = arange(0, 16);\n"                                                     \
    INDEX                                                                               \
    "    var acc = zeros([16, 16], f32);\n"                                             \
    "    for k in range(" LO ", K, 16) {\n"                                              \
    "        let at = load(a + rm[:, None] * K + (k + rk)[None, :],\n"                 \
    "                      mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0);\n" \
    "        let bt = load(b + (k + rk)[:, None] * N + rn[None, :],\n"                 \
    "                      mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0);\n" \
    "        acc = dot(at, bt, acc=acc);\n"                                             \
    "    }\n"                                                                           \
    EPI                                                                                 \
    "    store(c + rm[:, None] * N + rn[None, :], acc + e,\n"                          \
    "          mask=(rm[:, None] < M) & (rn[None, :] < N));\n"                          \
    "}\n"

#define SIG "(c: *f32, a: *f16, b: *f16, M: i32, N: i32, K: i32)"

static const char SRC[] =
    /* tiles in row-major order over a 1-D grid; num_programs in the epilogue */
    "kernel flat" SIG " grid(cdiv(M, 16) * cdiv(N, 16)) {\n"
    "    let tn = cdiv(N, 16);\n"
    MM_BODY("    let rm = (program_id(0) / tn) * 16 + arange(0, 16);\n"
            "    let rn = (program_id(0) % tn) * 16 + arange(0, 16);\n",
            "0", "    let e = num_programs(0) as f32;\n")
    /* grouped order (groups of 2 tile rows), the loop from 4 */
    "kernel grouped" SIG " grid(cdiv(M, 16) * cdiv(N, 16)) {\n"
    "    let tm = cdiv(M, 16);\n"
    "    let tn = cdiv(N, 16);\n"
    "    let pid = program_id(0);\n"
    "    let first = (pid / (2 * tn)) * 2;\n"
    "    let rows = minimum(tm - first, 2);\n"
    "    let pm = first + (pid % (2 * tn)) % rows;\n"
    "    let pn = (pid % (2 * tn)) / rows;\n"
    MM_BODY("    let rm = pm * 16 + arange(0, 16);\n"
            "    let rn = pn * 16 + arange(0, 16);\n",
            "4", "    let e = pid as f32;\n")
    /* a 2-D grid; program_id(1) and num_programs(1) in the epilogue */
    "kernel grid2" SIG " grid(cdiv(M, 16), cdiv(N, 16)) {\n"
    MM_BODY("    let rm = program_id(0) * 16 + arange(0, 16);\n"
            "    let rn = program_id(1) * 16 + arange(0, 16);\n",
            "0", "    let e = (num_programs(1) * 100 + program_id(1)) as f32;\n")
    /* a 3-D grid: two batches of the product, c offset by the batch */
    "kernel grid3(c0: *f32, a: *f16, b: *f16, M: i32, N: i32, K: i32)\n"
    "    grid(cdiv(M, 16), cdiv(N, 16), 2) {\n"
    "    let z = program_id(2);\n"
    "    let c = c0 + z * M * N;\n"
    MM_BODY("    let rm = program_id(0) * 16 + arange(0, 16);\n"
            "    let rn = program_id(1) * 16 + arange(0, 16);\n",
            "0", "    let e = (z * 1000 + num_programs(2)) as f32;\n"
                 "    acc = acc * (z + 1) as f32;\n")
    /* left alone: a load before the loop */
    "kernel loaded" SIG " grid(cdiv(M, 16), cdiv(N, 16)) {\n"
    "    let s = load(a);\n"
    MM_BODY("    let rm = program_id(0) * 16 + arange(0, 16);\n"
            "    let rn = program_id(1) * 16 + arange(0, 16);\n",
            "0", "    let e = s as f32;\n")
    /* left alone: the loop's start depends on the program id */
    "kernel ragged" SIG " grid(cdiv(M, 16), cdiv(N, 16)) {\n"
    "    let lo = program_id(0) * 16;\n"
    MM_BODY("    let rm = program_id(0) * 16 + arange(0, 16);\n"
            "    let rn = program_id(1) * 16 + arange(0, 16);\n",
            "lo", "    let e = 0.0;\n")
    /* left alone: no grid clause */
    "kernel nogrid" SIG " {\n"
    MM_BODY("    let rm = program_id(0) * 16 + arange(0, 16);\n"
            "    let rn = program_id(1) * 16 + arange(0, 16);\n",
            "0", "    let e = 0.0;\n");

static const char *const TAKEN[] = {"flat", "grouped", "grid2", "grid3"};

static int taken(const char *name) {
    for (size_t i = 0; i < sizeof TAKEN / sizeof *TAKEN; i++)
        if (!strcmp(TAKEN[i], name)) return 1;
    return 0;
}

/* The grid the kernel as written runs on. */
static void grid_of(const IrKernel *k, int64_t M, int64_t N, uint32_t g[3]) {
    const int64_t args[6] = {0, 0, 0, M, N, 0};
    g[0] = g[1] = g[2] = 1;
    for (int d = 0; d < k->ngrid; d++) {
        int64_t v = 0;
        CHECK(gx_eval(k->grid[d], args, &v) == 0);
        g[d] = (uint32_t)v;
    }
}

enum { MAXM = 40, MAXN = 40, MAXK = 56 };
static uint16_t A[MAXM * MAXK + 8], B[2 * MAXK * MAXN + 8];
static float C0[2 * MAXM * MAXN + 8], C1[2 * MAXM * MAXN + 8];

static void run(const IrKernel *k, float *c, int64_t M, int64_t N, int64_t K,
                const uint32_t grid[3], Diag *dg) {
    memset(c, 0xA5, sizeof C0);
    IpArg args[6] = {{c, sizeof C0, 0, 0}, {A, sizeof A, 0, 0}, {B, sizeof B, 0, 0},
                     {NULL, 0, M, 0}, {NULL, 0, N, 0}, {NULL, 0, K, 0}};
    CHECK(ip_run(k, args, grid, dg, NULL) == 0);
}

int main(void) {
    Arena *ar = ar_new();
    Diag *dg = dg_new(ar, stderr, 0);
    uint32_t f = dg_add_file(dg, "persist.tile", SRC, strlen(SRC));
    AstFile *ast = ps_parse(ar, dg, f, SRC, strlen(SRC));
    SmOptions so = {0};
    IrModule *m = ast && !dg_errors(dg) ? sm_compile(ar, dg, ast, &so) : NULL;
    CHECK(m != NULL);
    if (!m) return check_done("test_persist");
    srand(7);
    for (size_t i = 0; i < sizeof A / sizeof *A; i++)
        A[i] = ip_f16_from_double((rand() % 17 - 8) / 8.0);
    for (size_t i = 0; i < sizeof B / sizeof *B; i++)
        B[i] = ip_f16_from_double((rand() % 17 - 8) / 8.0);
    const int64_t Ms[] = {1, 15, 16, 17, 40}, Ns[] = {1, 16, 33}, Ks[] = {0, 1, 16, 17, 40};
    const uint32_t Ps[] = {1, 2, 3, 7, 1000};
    long runs = 0, differ = 0;
    for (int i = 0; i < m->nkernels; i++) {
        const IrKernel *k = m->kernels[i];
        IrKernel *pk = ly_persistent(ar, k);
        CHECK((pk != NULL) == taken(k->name));
        if (!pk) continue;
        CHECK(pk->ngrid == k->ngrid && pk->nparams == k->nparams);
        for (size_t a = 0; a < sizeof Ms / sizeof *Ms; a++)
            for (size_t b = 0; b < sizeof Ns / sizeof *Ns; b++)
                for (size_t c = 0; c < sizeof Ks / sizeof *Ks; c++) {
                    int64_t M = Ms[a], N = Ns[b], K = Ks[c];
                    uint32_t g[3];
                    grid_of(k, M, N, g);
                    run(k, C0, M, N, K, g, dg);
                    for (size_t p = 0; p < sizeof Ps / sizeof *Ps; p++) {
                        uint32_t gp[3] = {Ps[p], 1, 1};
                        run(pk, C1, M, N, K, gp, dg);
                        runs++;
                        if (memcmp(C0, C1, sizeof C0)) {
                            differ++;
                            if (differ <= 5)
                                fprintf(stderr, "%s: M=%lld N=%lld K=%lld P=%u differs\n",
                                        k->name, (long long)M, (long long)N, (long long)K,
                                        Ps[p]);
                        }
                    }
                }
    }
    CHECK(runs == 4L * 5 * 3 * 5 * 5);
    CHECK(differ == 0);
    dg_free(dg);
    ar_free(ar);
    return check_done("test_persist");
}
