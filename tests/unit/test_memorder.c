/*
 * test_memorder.c — brute-force soundness of plan/memorder.c's two
 * claims that leave a barrier out:
 *
 *  - apart across iterations: in
 *        for s in range(LO, HI, STEP) {
 *            let v = load(out + (s * CB + DB) + arange(B0, B1) * KB);
 *            store(out + (s * CA + DA) + arange(A0, A1) * KA, full([A1 - A0], sum(v, 0), f32));
 *        }
 *    the store of an iteration and the load of any later one reach no
 *    address in common wherever no barrier precedes the load, and the
 *    load and the store of one iteration none wherever no barrier
 *    precedes the store (and the pointers differ);
 *  - rows apart: loads and stores of `out + r * S + D + c` masked to
 *    c < B, B = S or B <= S by @require, in a loop over r;
 *  - slots and intervals apart: two stores `out + K * n + D + c`, masked
 *    below n or not, K and D apart;
 *  - distinct addresses: where a load and a store through one pointer
 *    tile `out + r[:, None] * K1 + c[None, :] * K2 + D` have no barrier
 *    between them, no two elements of the tile share an address (so the
 *    thread that holds an element is the only one to reach its address).
 *
 * Each case is a kernel compiled by sema and planned by ly_assign_kernel
 * (both variants); the footprints are enumerated from the case's numbers.
 * The test also requires the rule to fire somewhere (chunks walked apart,
 * rows of a tile), so that it cannot pass by inserting every barrier.
 */
#include "../../parser/parser.h"
#include "../../plan/layout.h"
#include "../../sema/sema.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x2545f4914f6cdd1du;
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}
static int pick(const int *v, int n) { return v[rnd() % (uint64_t)n]; }

static IrModule *compile_src(Arena *ar, Diag *dg, const char *src) {
    uint32_t f = dg_add_file(dg, "t.tile", src, strlen(src));
    AstFile *ast = ps_parse(ar, dg, f, src, strlen(src));
    SmOptions so = {0};
    return ast && !dg_errors(dg) ? sm_compile(ar, dg, ast, &so) : NULL;
}

/* The first op of b (nested blocks included) with opcode opc. */
static const IrOp *find(const IrBlock *b, int opc) {
    for (const IrOp *op = b->first; op; op = op->next) {
        if (op->op == opc) return op;
        for (int r = 0; r < op->nregions; r++) {
            const IrOp *x = find(op->regions[r], opc);
            if (x) return x;
        }
    }
    return NULL;
}

/* A barrier right before op. */
static int fenced(const IrOp *op) { return op->prev && op->prev->op == IR_BARRIER; }

/* Plans kernel 0 of src in variant v; its copy, or NULL. */
static IrKernel *planned(Arena *ar, Diag *dg, const char *src, int v) {
    IrModule *m = compile_src(ar, dg, src);
    CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s", src);
        return NULL;
    }
    IrKernel *k = m->kernels[0];
    LyFacts f = v ? ly_facts_full(ar, k, 1) : ly_facts_none(k);
    ly_assign_kernel(ar, k, &f, 0);
    return k;
}

typedef struct Loop {
    int lo, step, trips, ca, da, a0, a1, ka, cb, db, b0, b1, kb;
} Loop;

/* Some iteration's load and store share an address. */
static int overlap_same(const Loop *c) {
    for (int i = 0; i < c->trips; i++) {
        int64_t si = c->lo + (int64_t)i * c->step;
        for (int a = c->a0; a < c->a1; a++)
            for (int b = c->b0; b < c->b1; b++)
                if (si * c->ca + c->da + (int64_t)a * c->ka == si * c->cb + c->db + (int64_t)b * c->kb)
                    return 1;
    }
    return 0;
}

/* Some iteration's store and a later iteration's load share an address. */
static int overlap_later(const Loop *c) {
    for (int i = 0; i < c->trips; i++)
        for (int j = i + 1; j < c->trips; j++) {
            int64_t si = c->lo + (int64_t)i * c->step, sj = c->lo + (int64_t)j * c->step;
            for (int a = c->a0; a < c->a1; a++)
                for (int b = c->b0; b < c->b1; b++)
                    if (si * c->ca + c->da + (int64_t)a * c->ka ==
                        sj * c->cb + c->db + (int64_t)b * c->kb)
                        return 1;
        }
    return 0;
}

static int test_loops(void) {
    static const int steps[] = {1, 2, 3, 4, 7, 16, 64, -1, -3, -16};
    static const int coefs[] = {0, 1, 1, 1, 2, -1, 3};
    static const int offs[] = {0, 0, 1, 5, -7, 16, 63, 64, 65};
    static const int ks[] = {1, 1, 1, 2, -1, 3};
    static const int ranges[][2] = {{0, 4}, {0, 16}, {2, 9}, {0, 1}, {0, 64}, {0, 7}};
    int apart = 0;
    for (int n = 0; n < 1500; n++) {
        Loop c;
        c.lo = (int)(rnd() % 9) - 4;
        c.step = pick(steps, 10);
        c.trips = 1 + (int)(rnd() % 5);
        c.ca = pick(coefs, 7);
        c.cb = rnd() % 2 ? c.ca : pick(coefs, 7);
        c.da = pick(offs, 9);
        c.db = rnd() % 2 ? c.da : pick(offs, 9);
        c.ka = pick(ks, 6);
        c.kb = rnd() % 2 ? c.ka : pick(ks, 6);
        int ra = (int)(rnd() % 6), rb = rnd() % 2 ? ra : (int)(rnd() % 6);
        c.a0 = ranges[ra][0], c.a1 = ranges[ra][1], c.b0 = ranges[rb][0], c.b1 = ranges[rb][1];
        int hi = c.lo + c.trips * c.step - (c.step > 0 ? c.step - 1 : c.step + 1);
        char src[1024];
        snprintf(src, sizeof src,
                 "kernel k(out: *f32, n: i32) grid(1) {\n"
                 "  for s in range(%d, %d, %d) {\n"
                 "    let v = load(out + (s * %d + %d) + arange(%d, %d) * %d);\n"
                 "    store(out + (s * %d + %d) + arange(%d, %d) * %d, full([%d], sum(v, 0), f32));\n"
                 "  }\n}\n",
                 c.lo, hi, c.step, c.cb, c.db, c.b0, c.b1, c.kb, c.ca, c.da, c.a0, c.a1, c.ka,
                 c.a1 - c.a0);
        for (int v = 0; v <= 1; v++) {
            Arena *ar = ar_new();
            Diag *dg = dg_new(ar, stderr, 0);
            IrKernel *k = planned(ar, dg, src, v);
            const IrOp *ld = k ? find(k->body, IR_LOAD) : NULL;
            const IrOp *st = k ? find(k->body, IR_STORE) : NULL;
            CHECK(ld && st);
            if (ld && st) {
                int same = ld->args[0] == st->args[0];
                /* no barrier before the store (write after read): the
                 * same pointers, or apart in every iteration */
                if (!same && !fenced(st)) {
                    int bad = overlap_same(&c);
                    CHECK(!bad);
                    if (bad) fprintf(stderr, "no barrier, yet a load meets its store:\n%s", src);
                }
                if (!fenced(ld)) {
                    apart++;
                    /* one pointer the same in every iteration: each
                     * address stays with its element (the ranges'
                     * factors are not 0) */
                    int bad = overlap_later(&c) && !(same && c.ca == 0);
                    CHECK(!bad);
                    if (bad) fprintf(stderr, "no barrier, yet later loads meet stores:\n%s", src);
                }
            }
            dg_free(dg);
            ar_free(ar);
        }
    }
    return apart;
}

static int cmp64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Two elements (i, j) of an r x c tile at i * k1 + j * k2 share an
 * address. */
static int repeats(int r, int c, int k1, int k2) {
    static int64_t at[32 * 32];
    for (int i = 0; i < r * c; i++) at[i] = (int64_t)(i / c) * k1 + (int64_t)(i % c) * k2;
    qsort(at, (size_t)(r * c), sizeof *at, cmp64);
    for (int i = 1; i < r * c; i++)
        if (at[i] == at[i - 1]) return 1;
    return 0;
}

static int test_tiles(void) {
    static const int ext[] = {1, 2, 4, 8, 16, 32};
    static const int ks[] = {0, 1, 2, 3, 4, 8, 16, 17, 32, 64, -1, -4, -16};
    static const int warps[] = {1, 2, 4};
    int kept = 0;
    for (int n = 0; n < 600; n++) {
        int r = pick(ext, 6), c = pick(ext, 6), k1 = pick(ks, 13), k2 = pick(ks, 13);
        int w = pick(warps, 3);
        char src[1024];
        snprintf(src, sizeof src,
                 "@warps(%d)\nkernel k(out: *f32) grid(1) {\n"
                 "  let p = out + 4096 + arange(0, %d)[:, None] * %d + arange(0, %d)[None, :] * %d;\n"
                 "  let v = load(p);\n"
                 "  store(p, v * 2.0);\n}\n",
                 w, r, k1, c, k2);
        for (int v = 0; v <= 1; v++) {
            Arena *ar = ar_new();
            Diag *dg = dg_new(ar, stderr, 0);
            IrKernel *k = planned(ar, dg, src, v);
            const IrOp *st = k ? find(k->body, IR_STORE) : NULL;
            CHECK(st != NULL);
            if (st && !fenced(st)) {
                kept++;
                int bad = repeats(r, c, k1, k2);
                CHECK(!bad);
                if (bad) fprintf(stderr, "no barrier, yet elements share addresses:\n%s", src);
            }
            dg_free(dg);
            ar_free(ar);
        }
    }
    return kept;
}

/* Rows: `for r in range(LO, HI, STEP)` loading `out + r * S + D + c`
 * and storing `out + r * S + D + c2`, each
 * masked to its columns below B (B = S, or B <= S by @require); c and
 * c2 aranges from C0 and C2 (not negative). Wherever no barrier precedes
 * the load, for every S and B the rule admits, no masked-in element of a
 * store meets one of a later iteration's load. */
static int test_rows(void) {
    int apart = 0;
    for (int n = 0; n < 300; n++) {
        int lo = (int)(rnd() % 5), step = 1 + (int)(rnd() % 3), trips = 1 + (int)(rnd() % 4);
        int d = (int)(rnd() % 7) - 3, c0 = (int)(rnd() % 4), c2 = (int)(rnd() % 4);
        /* req 0: masks below S; 1: below B, @require(S >= B); 2: below B
         * with nothing relating B to S (the barrier must stay) */
        int w1 = 1 << (rnd() % 5), w2 = 1 << (rnd() % 5), req = (int)(rnd() % 3);
        char src[1024];
        snprintf(src, sizeof src,
                 "%skernel k(out: *f32, S: i32, B: i32) grid(1) {\n"
                 "  for r in range(%d, %d, %d) {\n"
                 "    let c = %d + arange(0, %d);\n"
                 "    let v = load(out + 64 + r * S + %d + c, mask=c < %s, other=0.0);\n"
                 "    let c2 = %d + arange(0, %d);\n"
                 "    store(out + 64 + r * S + %d + c2, full([%d], sum(v, 0), f32), mask=c2 < %s);\n"
                 "  }\n}\n",
                 req == 1 ? "@require(S >= B)\n" : "", lo, lo + trips * step, step, c0, w1, d,
                 req ? "B" : "S", c2, w2, d, w2, req ? "B" : "S");
        Arena *ar = ar_new();
        Diag *dg = dg_new(ar, stderr, 0);
        IrKernel *k = planned(ar, dg, src, 0);
        const IrOp *ld = k ? find(k->body, IR_LOAD) : NULL;
        CHECK(ld != NULL);
        if (ld && req == 2 && trips > 1) CHECK(fenced(ld));
        if (ld && !fenced(ld)) {
            apart++;
            for (int S = 0; S <= 40; S++)
                for (int B = req ? 0 : S; B <= S; B++)
                    for (int i = 0; i < trips; i++)
                        for (int j = i + 1; j < trips; j++)
                            for (int a = 0; a < w2; a++)
                                for (int b = 0; b < w1; b++) {
                                    int ri = lo + i * step, rj = lo + j * step;
                                    if (c2 + a >= B || c0 + b >= B) continue;
                                    int meet = ri * S + c2 + a == rj * S + c0 + b;
                                    CHECK(!meet);
                                    if (meet) fprintf(stderr, "S=%d B=%d rows %d, %d:\n%s",
                                                      S, B, ri, rj, src);
                                }
        }
        dg_free(dg);
        ar_free(ar);
    }
    return apart;
}

/* Slots and intervals, no loop: two stores `out + 200 + K * n + D + (C +
 * arange(0, W))`, each masked below n, below m (a parameter nothing
 * relates to n) or not at all. Wherever no barrier precedes the second,
 * for every n and m from 0 to 40 their masked-in elements meet nowhere. */
static int test_slots(void) {
    static const char *const masks[] = {"", ", mask=c%d < n", ", mask=c%d < m"};
    int apart = 0;
    for (int t = 0; t < 400; t++) {
        int k[2], d[2], c0[2], w[2], mk[2];
        for (int i = 0; i < 2; i++) {
            k[i] = (int)(rnd() % 4) - 1;
            d[i] = rnd() % 2 ? 0 : (int)(rnd() % 70) - 10;
            c0[i] = (int)(rnd() % 3);
            w[i] = 1 << (rnd() % 6);
            mk[i] = (int)(rnd() % 3);
        }
        if (rnd() % 2) d[1] = d[0];
        char src[1024], m0[32], m1[32];
        snprintf(m0, sizeof m0, masks[mk[0]], 0);
        snprintf(m1, sizeof m1, masks[mk[1]], 1);
        snprintf(src, sizeof src,
                 "kernel k(out: *f32, n: i32, m: i32) grid(1) {\n"
                 "  let c0 = %d + arange(0, %d);\n"
                 "  store(out + 200 + %d * n + %d + c0, full([%d], 1.0, f32)%s);\n"
                 "  let c1 = %d + arange(0, %d);\n"
                 "  store(out + 200 + %d * n + %d + c1, full([%d], 2.0, f32)%s);\n}\n",
                 c0[0], w[0], k[0], d[0], w[0], m0, c0[1], w[1], k[1], d[1], w[1], m1);
        Arena *ar = ar_new();
        Diag *dg = dg_new(ar, stderr, 0);
        IrKernel *kk = planned(ar, dg, src, 0);
        const IrOp *st = kk ? find(kk->body, IR_STORE) : NULL;
        st = st ? st->next : NULL;
        while (st && st->op != IR_STORE) st = st->next;
        CHECK(st != NULL);
        if (st && !fenced(st)) {
            apart++;
            for (int n = 0; n <= 40; n++)
                for (int m = 0; m <= 40; m++)
                    for (int a = 0; a < w[0]; a++)
                        for (int b = 0; b < w[1]; b++) {
                            int ca = c0[0] + a, cb = c0[1] + b;
                            if ((mk[0] == 1 && ca >= n) || (mk[0] == 2 && ca >= m) ||
                                (mk[1] == 1 && cb >= n) || (mk[1] == 2 && cb >= m))
                                continue;
                            int meet = k[0] * n + d[0] + ca == k[1] * n + d[1] + cb;
                            CHECK(!meet);
                            if (meet) fprintf(stderr, "n=%d m=%d:\n%s", n, m, src);
                        }
        }
        dg_free(dg);
        ar_free(ar);
    }
    return apart;
}

int main(void) {
    int apart = test_loops(), kept = test_tiles(), rows = test_rows(), slots = test_slots();
    CHECK(rows > 60);
    CHECK(slots > 40);
    /* the rules fire: some loads keep no barrier, some tiles none */
    CHECK(apart > 100);
    CHECK(kept > 100);
    printf("test_memorder: %d loops' loads, %d tiles' stores, %d rows' loads, %d second "
           "stores without a barrier\n", apart, kept, rows, slots);
    return check_done("test_memorder");
}
