/*
 * guard.c — which specialization variants a kernel configuration gets,
 * and the guard of each: the argument facts its plan needs, and no more.
 *
 * A variant is the kernel planned under facts about its parameters (a
 * pointer 16-byte aligned, an integer divisible by 16 or equal to 1:
 * LyFacts). Axis
 * info starts from those facts, and everything the lowering decides from
 * axis info is in the plan: the layouts (coalescing follows contiguity
 * and alignment), each memory access's vector width (ly_mem_vec), the
 * registers that repeat a value (ly_repeated_regs), the cp.async marks,
 * the conversions inserted. Emission reads nothing else of axis info.
 * So two sets of facts that give the same plan give the same code, and
 * the code is correct under either: a variant needs only the facts
 * without which its plan would change. libtile tests exactly those (the
 * bundle's per-parameter guard), so an integer that only bounds a mask,
 * a loop or the grid never sends a launch to the generic variant.
 *
 * The search is greedy and each step is checked, never inferred: start
 * from every fact (LY_FACT_MAX); for each parameter, integers first (a
 * size or stride is what user inputs break; allocators align pointers),
 * drop its fact and plan again (ir_clone_kernel + ly_assign_kernel,
 * linear in the kernel); if the plan is the same, the fact goes, else
 * the first differing op is recorded as what needs it, and weaker
 * multiples are tried (16, then 8, 4, 2: an f16 row of 1000 elements is
 * 16-byte aligned though 1000 is not a multiple of 16). Whatever the
 * order, every fact kept was tried and every variant is planned under
 * its final facts.
 *
 * The variants, at most LY_MAX_VARIANTS, most specialized first (libtile
 * takes the first whose guard the arguments meet):
 *   u1..u4  unit strides (Triton's `== 1`): a16's facts with some
 *        integers equal to 1 (LY_FACT_ONE), minimized (the 1 is never
 *        weakened). An integer is a candidate when its value 1 makes an
 *        access wider than under every fact (a stride times an arange;
 *        axis info alone first: its address runs must grow, or the
 *        integer is not planned again, which keeps matmul's M, N, K
 *        from costing a plan each);
 *        candidates widening a common access are alternatives, a group
 *        (an operand's row and column strides). A pick takes one of each
 *        group; picks go by how many groups leave their first (the one
 *        along the access's last dimension: row-major), so NN, then each
 *        operand transposed alone, ...; at most LY_MAX_UNIT (4), which a
 *        strided matmul's NN, NT, TN, TT fill. Arguments no pick admits
 *        (a group with neither stride 1) go on to a16.
 *   a16  every fact, minimized; not built when its plan is the generic
 *        one (nothing to gain: one variant fewer to compile and load).
 *   l16  the loops' facts: a16's less every fact whose removal leaves
 *        each loop's plan as a16's (what only code run once per program
 *        needs: an epilogue's store, a prologue's load), minimized; built
 *        when that drops an integer's fact (a pointer's alone is seldom
 *        broken: not worth an entry) and its loops differ from g's. An odd
 *        output width (a language model's 50257-word vocabulary) then
 *        costs the epilogue its vector stores, not the product its
 *        pipeline. Before p16 when it keeps an integer fact, else after.
 *   p16  pointers only, minimized; built when a16 keeps an integer fact
 *        and pointers alone still make some access wider than the
 *        generic variant's, or pipeline a load it does not (aligned
 *        buffers, odd sizes). When pointers alone give a16's very plan,
 *        a16 becomes that, with the weaker guard.
 *   g    nothing assumed; always built, always last.
 */
#include "plan/layout.h"

#include <string.h>

static LyFacts copy_facts(Arena *ar, const LyFacts *f) {
    LyFacts c = {f->n, ar_alloc(ar, (size_t)f->n + 1)};
    for (int i = 0; i < f->n; i++) c.log2[i] = (uint8_t)ly_fact_raw(f, i);
    return c;
}

static LyVariant plan_under(Arena *ar, const IrKernel *k, LyFacts f, int wgmma,
                            const char *tag) {
    LyVariant v = {tag, f, NULL, ir_clone_kernel(ar, k), NULL};
    v.ly = ly_assign_kernel(ar, v.k, &v.facts, wgmma);
    return v;
}

/* ------------------------------------------------------ comparing plans */

/* Two plans are the same when every value has the same layout, every op
 * the same operands and attributes (cp.async marks among them) and every
 * memory access the same width: the conversions, the products'
 * instructions and the accesses are then the same. Repeated registers
 * (ly_repeated_regs) are left out on purpose: they save arithmetic on
 * values constant over a run (one mask compare per 8 elements), never
 * memory traffic, and a guard kept for them alone would send whole
 * launches to a slower variant (attention's S, which only bounds the
 * last key block's `where`). A variant is still planned, and so compiled,
 * under its own facts: this only decides which facts are worth a guard. */

static int is_memory(const IrOp *op) {
    return op->op == IR_LOAD || op->op == IR_STORE || op->op == IR_ATOMIC ||
           op->op == IR_ATOMIC_CAS;
}

static int layouts_differ(IrValue *const *a, IrValue *const *b, int n) {
    for (int i = 0; i < n; i++)
        if (!ly_eq(a[i]->layout, b[i]->layout)) return 1;
    return 0;
}

/* Op a of one plan against op b of the other, regions excluded. */
static int op_differs(const IrOp *a, const LyResult *ra, const IrOp *b, const LyResult *rb) {
    if (a->op != b->op || a->nargs != b->nargs || a->nres != b->nres ||
        a->nregions != b->nregions || memcmp(a->iattr, b->iattr, sizeof a->iattr))
        return 1;
    for (int i = 0; i < a->nargs; i++)
        if (a->args[i]->id != b->args[i]->id) return 1;
    if (layouts_differ(a->res, b->res, a->nres)) return 1;
    return is_memory(a) && ly_mem_vec(ra, a) != ly_mem_vec(rb, b);
}

/* The first op where blocks a and b differ (a block argument: the op
 * owning the block), or NULL. */
static const IrOp *block_differs(const IrBlock *a, const LyResult *ra, const IrBlock *b,
                                 const LyResult *rb, const IrOp *owner) {
    if (a->nargs != b->nargs || layouts_differ(a->args, b->args, a->nargs))
        return owner ? owner : a->first;
    const IrOp *x = a->first, *y = b->first;
    for (; x && y; x = x->next, y = y->next) {
        if (op_differs(x, ra, y, rb)) return x;
        for (int r = 0; r < x->nregions; r++) {
            const IrOp *d = block_differs(x->regions[r], ra, y->regions[r], rb, x);
            if (d) return d;
        }
    }
    return x ? x : y ? (owner ? owner : a->first) : NULL;
}

/* The n-th memory access of b in walk order (*n counts down), or NULL. */
static const IrOp *nth_access(const IrBlock *b, int *n) {
    for (const IrOp *op = b->first; op; op = op->next) {
        if (is_memory(op) && (*n)-- == 0) return op;
        for (int r = 0; r < op->nregions; r++) {
            const IrOp *x = nth_access(op->regions[r], n);
            if (x) return x;
        }
    }
    return NULL;
}

/* Calls each(i-th access of a, i-th of b) for every i, in order, until
 * it returns non-zero; returns that access of a, or NULL. Layout
 * assignment adds no access, so the i-th ones are the same source op. */
static const IrOp *pair_accesses(const IrKernel *a, const LyResult *ra, const IrKernel *b,
                                 const LyResult *rb,
                                 int (*each)(const IrOp *, const LyResult *, const IrOp *,
                                             const LyResult *)) {
    for (int i = 0;; i++) {
        int m = i, n = i;
        const IrOp *x = nth_access(a->body, &m), *y = nth_access(b->body, &n);
        if (!x || !y) return NULL;
        if (each(x, ra, y, rb)) return x;
    }
}

static int access_differs(const IrOp *x, const LyResult *rx, const IrOp *y,
                          const LyResult *ry) {
    return ly_mem_vec(rx, x) != ly_mem_vec(ry, y) || x->iattr[3] != y->iattr[3] ||
           !ly_eq(x->args[0]->layout, y->args[0]->layout);
}

static int access_wider(const IrOp *x, const LyResult *rx, const IrOp *y,
                        const LyResult *ry) {
    return ly_mem_vec(rx, x) > ly_mem_vec(ry, y) ||
           (x->op == IR_LOAD && x->iattr[3] > y->iattr[3]);
}

const IrOp *ly_plans_differ(const IrKernel *a, const LyResult *ra,
                            const IrKernel *b, const LyResult *rb) {
    const IrOp *op = block_differs(a->body, ra, b->body, rb, NULL);
    if (!op) return NULL;
    const IrOp *access = pair_accesses(a, ra, b, rb, access_differs);
    return access ? access : op;
}

/* The n-th outermost loop of b in walk order (*n counts down; loops
 * inside an `if` count), or NULL. Layout assignment adds no loop, so the
 * n-th ones of two plans are the same source loop. */
static const IrOp *nth_loop(const IrBlock *b, int *n) {
    for (const IrOp *op = b->first; op; op = op->next) {
        if (op->op == IR_FOR || op->op == IR_WHILE) {
            if ((*n)-- == 0) return op;
            continue;
        }
        for (int r = 0; r < op->nregions; r++) {
            const IrOp *x = nth_loop(op->regions[r], n);
            if (x) return x;
        }
    }
    return NULL;
}

/* Where the plans of a and b differ inside a loop (the loop op itself:
 * its carried values' layouts), or NULL: the code that runs once per
 * program may differ. */
static const IrOp *loops_differ(const IrKernel *a, const LyResult *ra, const IrKernel *b,
                                const LyResult *rb) {
    for (int i = 0;; i++) {
        int m = i, n = i;
        const IrOp *x = nth_loop(a->body, &m), *y = nth_loop(b->body, &n);
        if (!x || !y) return x ? x : y;
        if (op_differs(x, ra, y, rb)) return x;
        for (int r = 0; r < x->nregions; r++) {
            const IrOp *d = block_differs(x->regions[r], ra, y->regions[r], rb, x);
            if (d) return d;
        }
    }
}

/* ------------------------------------------------------- minimal guards */

/* Plans v's kernel with parameter i's fact at `log2`; adopts that plan
 * when it is v's, else records in *why (when not yet set) where they
 * first differ. Returns whether it was adopted. */
static int try_fact(Arena *ar, const IrKernel *k, int wgmma, LyVariant *v, int i,
                    int log2, const IrOp **why) {
    LyFacts f = copy_facts(ar, &v->facts);
    f.log2[i] = (uint8_t)log2;
    LyVariant t = plan_under(ar, k, f, wgmma, v->tag);
    const IrOp *d = ly_plans_differ(v->k, v->ly, t.k, t.ly);
    if (d) {
        if (why && !*why) *why = d;
        return 0;
    }
    t.needed_by = v->needed_by;
    *v = t;
    return 1;
}

/* Drops from v every fact its plan does not need, and weakens each one
 * it needs as far as the plan allows; integers first. */
static void minimize(Arena *ar, const IrKernel *k, int wgmma, LyVariant *v) {
    v->needed_by = ar_alloc(ar, sizeof *v->needed_by * (size_t)(k->nparams + 1));
    memset(v->needed_by, 0, sizeof *v->needed_by * (size_t)(k->nparams + 1));
    for (int pointers = 0; pointers < 2; pointers++)
        for (int i = 0; i < k->nparams; i++) {
            int top = ly_fact_raw(&v->facts, i);
            if (top == 0 || (k->params[i].ty.k == SK_PTR) != pointers) continue;
            if (try_fact(ar, k, wgmma, v, i, 0, &v->needed_by[i]) || top == LY_FACT_ONE)
                continue;
            for (int l = top - 1; l > 0 && try_fact(ar, k, wgmma, v, i, l, NULL); l--) {}
        }
}

/* The l16 variant from a (a16, minimized) into *out: each fact of a,
 * integers first, dropped or else weakened as far as every loop's plan
 * stays a's; then minimized for its own guard. Returns 0 (out unset)
 * when the kernel has no loop, no integer's fact goes, or its loops plan
 * as g's. */
static int loop_variant(Arena *ar, const IrKernel *k, int wgmma, const LyVariant *a,
                        const LyVariant *g, LyVariant *out) {
    int first = 0;
    if (!nth_loop(a->k->body, &first)) return 0;
    LyVariant v = *a;
    int dropped = 0;
    for (int pointers = 0; pointers < 2; pointers++)
        for (int i = 0; i < k->nparams; i++) {
            int top = ly_fact_raw(&v.facts, i);
            if (top == 0 || top == LY_FACT_ONE || (k->params[i].ty.k == SK_PTR) != pointers)
                continue;
            for (int l = 0; l < top; l++) {
                LyFacts f = copy_facts(ar, &v.facts);
                f.log2[i] = (uint8_t)l;
                LyVariant t = plan_under(ar, k, f, wgmma, "l16");
                if (loops_differ(v.k, v.ly, t.k, t.ly)) continue;
                v = t;
                dropped |= !pointers;
                break;
            }
        }
    if (!dropped || !loops_differ(v.k, v.ly, g->k, g->ly)) return 0;
    minimize(ar, k, wgmma, &v);
    *out = v;
    return 1;
}

/* --------------------------------------------------------- unit strides */

enum { UNITS_MAX = 16 };   /* candidates considered, in parameter order */

/* An integer whose value 1 (LY_FACT_ONE) widens some access of the plan
 * under every fact: a stride that multiplies an arange. */
typedef struct Unit {
    int param;
    uint64_t widens;     /* bit i: the i-th access (walk order, first 64) */
    int inner;           /* one of them along its last dimension */
    int group;
} Unit;

typedef struct UnitSearch {
    Arena *ar;
    const IrKernel *k;
    int wgmma;
    const LyFacts *full;
    Unit *units;         /* sorted by group, inner first */
    int nunits, ngroups;
    int first[UNITS_MAX + 1], size[UNITS_MAX]; /* per group */
    int pick[UNITS_MAX];
    LyVariant *out;
    int n;
} UnitSearch;

/* The accesses of a (walk order, the first 64) wider than b's; *inner
 * set when one is along its pointer's last dimension. */
static uint64_t wider_mask(const IrKernel *a, const LyResult *ra, const IrKernel *b,
                           const LyResult *rb, int *inner) {
    uint64_t m = 0;
    for (int i = 0; i < 64; i++) {
        int p = i, q = i;
        const IrOp *x = nth_access(a->body, &p), *y = nth_access(b->body, &q);
        if (!x || !y) break;
        if (!access_wider(x, ra, y, rb)) continue;
        m |= UINT64_C(1) << i;
        const IrValue *ptr = x->args[0];
        const AxInfo *ax = ax_of(ra->axis, ptr);
        *inner |= ax && ptr->ty.rank && ax->contig[ptr->ty.rank - 1] > 1;
    }
    return m;
}

/* Some access of b (k's ops, axis info `one` against `full`) has a
 * longer run of consecutive aligned addresses along some dimension: the
 * cheap test (axis info, no layouts) before planning a candidate. */
static int runs_longer(const IrBlock *b, const AxTable *one, const AxTable *full) {
    for (const IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            if (runs_longer(op->regions[r], one, full)) return 1;
        if (!is_memory(op)) continue;
        const IrValue *p = op->args[0];
        int64_t esize = ty_bytes(p->ty.pointee) > 0 ? ty_bytes(p->ty.pointee) : 1;
        for (int d = 0; d < (p->ty.rank ? p->ty.rank : 1); d++)
            if (ax_mem_run(ax_of(one, p), esize, NULL, d) >
                ax_mem_run(ax_of(full, p), esize, NULL, d))
                return 1;
    }
    return 0;
}

/* The candidates against plan `a` (every fact), grouped: two whose
 * widened accesses meet are alternatives (a row and a column stride of
 * one operand). Returns how many. */
static int find_units(UnitSearch *s, const LyVariant *a) {
    const IrKernel *k = s->k;
    Unit *u = ar_alloc(s->ar, sizeof *u * (size_t)(k->nparams + 1));
    AxTable *full = ax_analyze(s->ar, k, s->full);
    int n = 0;
    for (int i = 0; i < k->nparams && n < UNITS_MAX; i++) {
        if (k->params[i].ty.k == SK_PTR || !ly_fact(s->full, i)) continue;
        LyFacts f = copy_facts(s->ar, s->full);
        f.log2[i] = LY_FACT_ONE;
        if (!runs_longer(k->body, ax_analyze(s->ar, k, &f), full)) continue;
        LyVariant t = plan_under(s->ar, k, f, s->wgmma, "u");
        Unit c = {i, 0, 0, n};
        c.widens = wider_mask(t.k, t.ly, a->k, a->ly, &c.inner);
        if (!c.widens) continue;
        for (int j = 0; j < n; j++)     /* merge the groups c meets */
            if (u[j].widens & c.widens)
                for (int g = u[j].group, x = 0; x < n; x++)
                    if (u[x].group == g) u[x].group = c.group;
        u[n++] = c;
    }
    s->units = u;
    return n;
}

/* Orders the units by group (first appearance), inner ones first in each,
 * and fills the per-group tables. */
static void sort_units(UnitSearch *s) {
    Unit *sorted = ar_alloc(s->ar, sizeof *sorted * (size_t)(s->nunits + 1));
    int m = 0;
    s->ngroups = 0;
    for (int i = 0; i < s->nunits; i++) {
        int g = s->units[i].group, seen = 0;
        for (int j = 0; j < i; j++) seen |= s->units[j].group == g;
        if (seen) continue;
        s->first[s->ngroups] = m;
        for (int inner = 1; inner >= 0; inner--)
            for (int j = i; j < s->nunits; j++)
                if (s->units[j].group == g && s->units[j].inner == inner)
                    sorted[m++] = s->units[j];
        s->size[s->ngroups] = m - s->first[s->ngroups];
        s->ngroups++;
    }
    s->units = sorted;
}

static int same_facts(const LyFacts *a, const LyFacts *b) {
    for (int i = 0; i < a->n; i++)
        if (ly_fact_raw(a, i) != ly_fact_raw(b, i)) return 0;
    return 1;
}

/* Builds the variant of the current pick (each group's chosen unit equal
 * to 1, every other fact), minimized; keeps it unless an earlier one has
 * its facts. Returns 0 when LY_MAX_UNIT are built. */
static int build_pick(UnitSearch *s) {
    static const char *const tags[LY_MAX_UNIT] = {"u1", "u2", "u3", "u4"};
    LyFacts f = copy_facts(s->ar, s->full);
    for (int g = 0; g < s->ngroups; g++)
        f.log2[s->units[s->first[g] + s->pick[g]].param] = LY_FACT_ONE;
    LyVariant v = plan_under(s->ar, s->k, f, s->wgmma, tags[s->n]);
    minimize(s->ar, s->k, s->wgmma, &v);
    for (int i = 0; i < s->n; i++)
        if (same_facts(&s->out[i].facts, &v.facts)) return 1;
    s->out[s->n++] = v;
    return s->n < LY_MAX_UNIT;
}

/* Every pick of groups g.. with `flips` groups taking another than their
 * first unit, in order; stops when build_pick does (returns 0). */
static int enumerate(UnitSearch *s, int g, int flips) {
    if (g == s->ngroups) return flips ? 1 : build_pick(s);
    if (flips > s->ngroups - g) return 1;
    for (int j = 0; j < s->size[g] && (j == 0 || flips > 0); j++) {
        s->pick[g] = j;
        if (!enumerate(s, g + 1, flips - (j > 0))) return 0;
    }
    return 1;
}

/* The unit-stride variants of k, at most LY_MAX_UNIT, into out; `a` is
 * the plan under `full` (every fact). Returns how many. */
static int unit_variants(Arena *ar, const IrKernel *k, int wgmma, const LyFacts *full,
                         const LyVariant *a, LyVariant *out) {
    UnitSearch s = {.ar = ar, .k = k, .wgmma = wgmma, .full = full, .out = out};
    s.nunits = find_units(&s, a);
    if (!s.nunits) return 0;
    sort_units(&s);
    for (int flips = 0; flips <= s.ngroups && enumerate(&s, 0, flips); flips++) {}
    return s.n;
}

static int has_int_fact(const IrKernel *k, const LyFacts *f) {
    for (int i = 0; i < k->nparams; i++)
        if (k->params[i].ty.k != SK_PTR && ly_fact(f, i)) return 1;
    return 0;
}

int ly_plan_variants(Arena *ar, const IrKernel *k, int wgmma,
                     LyVariant out[LY_MAX_VARIANTS]) {
    LyVariant g = plan_under(ar, k, ly_facts_none(k), wgmma, "g");
    LyVariant a = plan_under(ar, k, ly_facts_full(ar, k, 1), wgmma, "a16");
    int n = unit_variants(ar, k, wgmma, &a.facts, &a, out);
    if (ly_plans_differ(a.k, a.ly, g.k, g.ly)) {
        minimize(ar, k, wgmma, &a);
        LyVariant l, p;
        int has_l = loop_variant(ar, k, wgmma, &a, &g, &l), has_p = 0;
        if (has_int_fact(k, &a.facts)) {
            p = plan_under(ar, k, ly_facts_full(ar, k, 0), wgmma, "p16");
            if (!ly_plans_differ(p.k, p.ly, a.k, a.ly)) {
                p.tag = "a16";
                minimize(ar, k, wgmma, &p);
                a = p;
                has_l = 0;     /* a needs no integer: l16 has nothing to drop */
            } else if (pair_accesses(p.k, p.ly, g.k, g.ly, access_wider)) {
                minimize(ar, k, wgmma, &p);
                has_p = 1;
            }
        }
        int l_first = has_l && has_int_fact(k, &l.facts);
        out[n++] = a;
        if (l_first) out[n++] = l;
        if (has_p) out[n++] = p;
        if (has_l && !l_first && !(has_p && same_facts(&l.facts, &p.facts))) out[n++] = l;
    }
    g.needed_by = NULL;
    out[n++] = g;
    return n;
}
