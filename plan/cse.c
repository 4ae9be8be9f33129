/*
 * cse.c — one computation per value: an op that computes what an earlier
 * op already computed from the same operands is dropped and its readers
 * read the earlier result (common subexpressions), loads included where
 * no write can come between the two.
 *
 * Why here: sema inlines every fn call, so a kernel written with helpers
 * asks for the same tile many times. examples/stencil.tile's heat2 calls
 * heat_at five times and each loads five neighbours: 25 loads of 13
 * distinct tiles, 110 ld.global per thread where Triton (whose IR is
 * CSE'd) issues 37. LLVM cannot merge them after lowering: a masked load
 * is a branch around an access, and the second branch is not dominated
 * by the first.
 *
 * The walk: program order, scoped as dominance is (a value defined in a
 * block is seen by the ops after it in that block and in the regions
 * nested in them, and by nothing after the block). Each op's operands
 * are first replaced by what they were merged into; then an op without
 * regions and with one result is looked up by its key (opcode, result
 * type, operands, attributes) and merged into an earlier equal one. A
 * load's key also holds the memory epoch, a counter that every store,
 * atomic and barrier moves on, and that moves on at the start and end of
 * any `for`, `while` or `if` whose regions write (a loop's second
 * iteration follows its first's writes). Not merged: products (plans
 * are made per product), region ops and what they end with, prints and
 * asserts, volatile loads (`cache="cv"`), and ops of more than one result.
 *
 * One rewrite besides: an integer `(x - c) + c` or `(x + c) - c` (c a
 * constant or a splat of one; any two constants whose sum wraps to 0 in
 * the type) is x, exactly, wrapping arithmetic being a group. It is what
 * a helper called at shifted coordinates computes (heat_at(i - 1, j)
 * reads row (i - 1) + 1), and the loads at x then merge with those at x.
 *
 * Nothing after a loop is merged with anything before it (the era, a
 * count of loops passed): the earlier value would stay live through the
 * loop, and where the later use wants another layout, its cheap copy is
 * made right after the earlier value (layout_assign.c), before the loop
 * too. Merging a product's epilogue masks with its loads' before the K
 * loop made swiglu's 64x64 configuration 1.25x slower on the H200
 * (docs/PERF.md, session 18, runs 6-7); the loop's body still reads
 * values from before it.
 *
 * Bounds: one hash table of the ops in scope (chained; a block's entries
 * are popped when it ends, last in first out), so the pass takes time
 * linear in the kernel's ops times its nesting depth (whether a region
 * writes is asked at each level). It runs on the per-variant copy at the start of
 * layout assignment, as carry_reduce.c does; the IR sema built, which
 * the interpreter runs, is not touched, so the difftest compares the two.
 */
#include "plan/layout.h"

#include <string.h>

typedef struct CseEntry {
    const IrOp *op;
    uint32_t hash;
    int epoch;           /* loads: the memory epoch they read in */
    int era;             /* loops passed before it (CseCtx.era) */
    int next;            /* chain in the bucket, -1 ends it */
} CseEntry;

typedef struct CseCtx {
    Arena *ar;
    Vec(CseEntry) entries;
    int *bucket;         /* heads, -1: empty */
    uint32_t nbucket;    /* a power of two */
    IrValue **repl;      /* by value id: what it was merged into */
    int epoch;
    int era;             /* loops passed so far */
    int merged;
} CseCtx;

/* Op starts a new memory epoch: a store, an atomic or a barrier. */
static int writes_memory(const IrOp *op) {
    return (ir_op_effects(op->op) & (IR_FX_WRITES | IR_FX_SYNC)) != 0;
}

static int writes(const IrBlock *b) {
    for (const IrOp *op = b->first; op; op = op->next) {
        if (writes_memory(op)) return 1;
        for (int r = 0; r < op->nregions; r++)
            if (writes(op->regions[r])) return 1;
    }
    return 0;
}

/* Ops that compute a value from their operands, their attributes and
 * (loads) the memory of their epoch alone; not a product (costly to
 * keep live) nor a layout conversion (its result's layout is its point). */
static int pure(const IrOp *op) {
    if (op->nregions || op->nres != 1 || (ir_op_effects(op->op) & ~IR_FX_READS)) return 0;
    switch (op->op) {
    case IR_DOT: case IR_CONVERT_LAYOUT:
        return 0;
    case IR_LOAD:
        return op->iattr[1] != CACHE_CV;
    default:
        return 1;
    }
}

static uint32_t mix(uint32_t h, uint64_t x) {
    h ^= (uint32_t)x + 0x9e3779b9u + (h << 6) + (h >> 2);
    return h ^ ((uint32_t)(x >> 32) + 0x9e3779b9u + (h << 6) + (h >> 2));
}

static uint32_t key_hash(const IrOp *op, int epoch) {
    uint32_t h = mix(op->op, (uint64_t)op->nargs);
    for (int i = 0; i < op->nargs; i++) h = mix(h, (uint64_t)op->args[i]->id);
    for (int i = 0; i < IR_MAXRANK; i++) h = mix(h, (uint64_t)op->iattr[i]);
    uint64_t f;
    memcpy(&f, &op->fattr, sizeof f);
    h = mix(h, f);
    const Type t = op->res[0]->ty;
    h = mix(h, ((uint64_t)t.k << 8) | (uint64_t)t.rank);
    for (int d = 0; d < t.rank; d++) h = mix(h, (uint64_t)t.dim[d]);
    return op->op == IR_LOAD ? mix(h, (uint64_t)epoch) : h;
}

static int same_key(const IrOp *a, const IrOp *b) {
    if (a->op != b->op || a->nargs != b->nargs) return 0;
    for (int i = 0; i < a->nargs; i++)
        if (a->args[i] != b->args[i]) return 0;
    if (memcmp(a->iattr, b->iattr, sizeof a->iattr) || memcmp(&a->fattr, &b->fattr, sizeof a->fattr))
        return 0;
    if ((a->sattr == NULL) != (b->sattr == NULL) || (a->sattr && strcmp(a->sattr, b->sattr)))
        return 0;
    return ty_eq(a->res[0]->ty, b->res[0]->ty);
}

static const IrOp *lookup(const CseCtx *c, const IrOp *op, uint32_t h) {
    for (int e = c->bucket[h & (c->nbucket - 1)]; e >= 0; e = c->entries.v[e].next) {
        const CseEntry *x = &c->entries.v[e];
        if (x->hash == h && x->era == c->era && (op->op != IR_LOAD || x->epoch == c->epoch) &&
            same_key(x->op, op))
            return x->op;
    }
    return NULL;
}

static void enter(CseCtx *c, const IrOp *op, uint32_t h) {
    uint32_t b = h & (c->nbucket - 1);
    CseEntry e = {op, h, c->epoch, c->era, c->bucket[b]};
    vec_push(c->ar, &c->entries, e);
    c->bucket[b] = c->entries.n - 1;
}

/* Pops the entries above `mark` (they were pushed at their buckets'
 * heads, so each is its bucket's head when popped in reverse). */
static void leave(CseCtx *c, int mark) {
    while (c->entries.n > mark) {
        const CseEntry *e = &c->entries.v[--c->entries.n];
        c->bucket[e->hash & (c->nbucket - 1)] = e->next;
    }
}

/* v is an integer constant or a splat of one: its value in *c. */
static int const_int(const IrValue *v, int64_t *c) {
    const IrOp *d = v->def;
    if (d && d->op == IR_SPLAT) d = d->args[0]->def;
    if (!d || d->op != IR_CONST || !ty_isint((ScalarKind)v->ty.k)) return 0;
    *c = d->iattr[0];
    return 1;
}

/* v = x + c or x - c with c constant: x, and the signed offset in *c
 * (NULL otherwise). */
static IrValue *offset_of(const IrValue *v, int64_t *c) {
    const IrOp *d = v->def;
    if (!d || (d->op != IR_ADD && d->op != IR_SUB) || !ty_isint((ScalarKind)v->ty.k))
        return NULL;
    if (const_int(d->args[1], c)) {
        if (d->op == IR_SUB) *c = (int64_t)(0 - (uint64_t)*c);
        return d->args[0];
    }
    if (d->op == IR_ADD && const_int(d->args[0], c)) return d->args[1];
    return NULL;
}

/* op is `(x - c) + c` or `(x + c) - c` of x's type: x, else NULL. */
static IrValue *cancelled(const IrOp *op) {
    int64_t a, b;
    IrValue *x = offset_of(op->res[0], &b);
    if (!x) return NULL;
    IrValue *y = offset_of(x, &a);
    if (!y || !ty_eq(y->ty, op->res[0]->ty)) return NULL;
    int bits = ty_bits((ScalarKind)y->ty.k);
    uint64_t sum = (uint64_t)a + (uint64_t)b;
    return (bits >= 64 ? sum : sum & ((UINT64_C(1) << bits) - 1)) ? NULL : y;
}

static void cse_block(CseCtx *c, IrBlock *b) {
    int mark = c->entries.n;
    for (IrOp *op = b->first, *next; op; op = next) {
        next = op->next;
        for (int i = 0; i < op->nargs; i++)
            if (c->repl[op->args[i]->id]) op->args[i] = c->repl[op->args[i]->id];
        if (op->nregions) {
            int w = 0;
            for (int r = 0; r < op->nregions; r++) w |= writes(op->regions[r]);
            c->epoch += w;
            for (int r = 0; r < op->nregions; r++) cse_block(c, op->regions[r]);
            c->epoch += w;
            c->era += op->op == IR_FOR || op->op == IR_WHILE;
            continue;
        }
        c->epoch += writes_memory(op);
        if (!pure(op)) continue;
        IrValue *same = cancelled(op);
        uint32_t h = key_hash(op, c->epoch);
        if (!same) {
            const IrOp *e = lookup(c, op, h);
            same = e ? e->res[0] : NULL;
        }
        if (!same) {
            enter(c, op, h);
            continue;
        }
        c->repl[op->res[0]->id] = same;
        ir_unlink(op);
        c->merged++;
    }
    leave(c, mark);
}

int ly_cse(Arena *ar, IrKernel *k) {
    CseCtx c = {.ar = ar};
    c.nbucket = 64;
    while (c.nbucket < (uint32_t)k->nvalues && c.nbucket < (1u << 20)) c.nbucket <<= 1;
    c.bucket = ar_alloc(ar, sizeof(int) * c.nbucket);
    memset(c.bucket, 0xff, sizeof(int) * c.nbucket);
    c.repl = ar_alloc(ar, sizeof(IrValue *) * (size_t)(k->nvalues + 1));
    memset(c.repl, 0, sizeof(IrValue *) * (size_t)(k->nvalues + 1));
    cse_block(&c, k->body);
    return c.merged;
}
