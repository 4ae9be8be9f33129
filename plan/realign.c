/*
 * realign.c — row tiles rotated so that their accesses start 16-byte
 * aligned, whatever the row's offset (issue 13's "alignment at run time").
 *
 * A row whose stride is odd starts at a different offset modulo 16 bytes
 * in every program. Axis info cannot prove any alignment, so the generic
 * variant moves the row one element at a time. torch's own kernels peel
 * a scalar head until the address is aligned; Triton 3.6 stays scalar.
 * Tile cannot peel a tile operation, but it chooses which lane holds
 * which index.
 *
 * A *component* is a set of 1-D tiles of one power-of-two extent B that
 * meet only through element-wise operations, memory accesses, `for`
 * loops' carried values and reductions (sum, max, min) to scalars.
 * Applying one permutation of positions to every tile of a component
 * changes nothing a program can observe: element-wise operations commute
 * with it, each access touches the same address with the same value in
 * another lane, and a sum, max or min sees the same values in another
 * order (the order of a float sum is unspecified: docs/language.md). The
 * pass rotates: every `arange(lo, lo + B)` of the component becomes
 * `arange lo, lo + B rotated s` (ir.h), position p holding
 * lo + (p - s) mod B, with s the misalignment in elements of the anchor
 * (the component's first candidate) at index lo, computed at the top of
 * the kernel: s = (address & 15) >> log2(element size). Then each
 * thread's 16 bytes of positions [gV, gV + V) start 16-byte aligned but
 * in the group holding the wrap (index B - 1 beside index lo).
 *
 * The candidates are the component's loads and stores whose pointers are
 * consecutive over the whole tile (axis contiguity >= B) but which axis
 * info cannot give 16 bytes at once (alignment or mask constancy), with
 * each thread holding whole groups (B >= 16 bytes a thread): the layout
 * gives them 16 bytes a thread (layout_assign.c, coalesced) and the
 * lowering tests each group at run time (lower/memory.c). Correctness
 * rests only on the rotation being a permutation of a legal component and
 * on that test; s decides only how many groups take the vector way.
 * Every candidate must have the anchor's offsets from its base parameter
 * (same_offsets: rows of x and of out at `row * stride + c`), or the
 * component stays as it is: a rotation that aligns rows leaves a vector
 * of weights (`w + c`, aligned at 0) misaligned, and its element
 * accesses, 16 bytes apart across lanes, measured 2.7x the time of the
 * unrotated layernorm (docs/PERF.md, session 15). With LY_ASSIGN_SPLIT
 * (tilec --split-loads, experimental) such a load is split instead
 * (split_load): read in a rotation of its own, then gathered into the
 * anchor's through shared memory; the anchor is then the first candidate
 * store where the stores' offsets differ from the first candidate's.
 *
 * What a component may not contain (any such tile leaves it alone):
 * tiles of another rank or a padded extent, operations that see
 * positions (scan, sort, gather, cat, slice, reshape, permute, broadcast,
 * expand_dims, dot, argmax/argmin and reductions of a user's function,
 * prints and asserts of tiles, multiple_of / max_contiguous hints on
 * tiles), and tiles passed through `if` or `while`. The anchor's address
 * at index lo is recomputed at the top of the kernel from parameters,
 * program ids and constants through add, sub, mul, integer casts and
 * pointer additions (a loop's induction variable read as its start: a
 * later iteration's groups stay aligned when the step is a multiple of
 * the group, and merely take the element way otherwise); an anchor whose
 * address needs anything else (a load, a division, which would move out
 * of the control flow guarding it) leaves the component alone.
 *
 * The pass runs on the variant's copy of the kernel at the start of
 * layout assignment (after widen_f8.c); axis info is then computed
 * again, and sees the rotated indices (no contiguity), so nothing else in
 * the plan relies on a fact the rotation broke. The IR sema built, which
 * the interpreter runs, is not touched: the difftest compares the two.
 */
#include "plan/layout.h"

#include <string.h>

typedef struct Rl {
    Arena *ar;
    IrKernel *k;
    const AxTable *ax;
    int n;               /* values known to the union-find */
    int *up;             /* union-find parent, by value id */
    uint8_t *bad;        /* by value id; read at roots after spread() */
    IrValue **scalar;    /* scalar_of's memo, by value id */
    IrValue **nat;       /* natural's memo for the load split_load
                            rewrites (its clones precede the load), by
                            value id */
    IrOp *top;           /* the last op put at the top of the body */
    LyRealign *out;
} Rl;

static int is_tile(const IrValue *v) { return v->ty.rank > 0; }

static int find(Rl *c, int i) {
    while (c->up[i] != i) i = c->up[i] = c->up[c->up[i]];
    return i;
}

static void unite(Rl *c, const IrValue *a, const IrValue *b) {
    if (!a || !b || !is_tile(a) || !is_tile(b) || a->id >= c->n || b->id >= c->n) return;
    int x = find(c, a->id), y = find(c, b->id);
    if (x != y) c->up[x] = y;
}

static void mark_bad(Rl *c, const IrValue *v) {
    if (v && is_tile(v) && v->id < c->n) c->bad[v->id] = 1;
}

/* Every tile operand and result of op in one component. */
static void unite_all(Rl *c, const IrOp *op) {
    const IrValue *first = NULL;
    for (int i = 0; i < op->nargs + op->nres; i++) {
        const IrValue *v = i < op->nargs ? op->args[i] : op->res[i - op->nargs];
        if (!is_tile(v)) continue;
        if (first) unite(c, first, v);
        else first = v;
    }
}

static void mark_all(Rl *c, const IrOp *op) {
    for (int i = 0; i < op->nargs; i++) mark_bad(c, op->args[i]);
    for (int i = 0; i < op->nres; i++) mark_bad(c, op->res[i]);
}

static int elementwise(int op) {
    return (op >= IR_ADD && op <= IR_CEIL) || op == IR_CAST || op == IR_FMA ||
           op == IR_SELECT || op == IR_PTRADD;
}

/* A tile of a shape the rotation handles: rank 1, a power-of-two extent. */
static int rotatable(const IrValue *v) {
    return !is_tile(v) || (v->ty.rank == 1 && !ty_padded(v->ty) &&
                           (v->ty.dim[0] & (v->ty.dim[0] - 1)) == 0);
}

/* The components of b's tiles (see the top). */
static void components(Rl *c, const IrBlock *b) {
    for (const IrOp *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nargs; i++)
            if (!rotatable(op->args[i])) mark_bad(c, op->args[i]);
        for (int i = 0; i < op->nres; i++)
            if (!rotatable(op->res[i])) mark_bad(c, op->res[i]);
        for (int r = 0; r < op->nregions; r++) components(c, op->regions[r]);
        /* tiles entering or leaving an `if` or `while` stay as they are */
        for (int r = 0; op->op != IR_FOR && r < op->nregions; r++)
            for (int i = 0; i < op->regions[r]->nargs; i++) mark_bad(c, op->regions[r]->args[i]);
        int owner_for = op->parent && op->parent->parent && op->parent->parent->op == IR_FOR;
        switch (op->op) {
        case IR_SPLAT: case IR_ARANGE: case IR_CONST:
            break;
        case IR_YIELD:
            if (!owner_for) mark_all(c, op);
            break;
        case IR_LOAD: case IR_STORE: case IR_ATOMIC: case IR_ATOMIC_CAS:
            unite_all(c, op);
            break;
        case IR_REDUCE:
            if (op->args[0]->ty.rank != 1 || (op->iattr[0] != RED_SUM &&
                op->iattr[0] != RED_MAX && op->iattr[0] != RED_MIN))
                mark_all(c, op);
            break;
        case IR_FOR: {
            const IrBlock *body = op->regions[0];
            for (int j = 0; j < op->nres; j++) {
                unite(c, op->args[3 + j], op->res[j]);
                unite(c, body->args[1 + j], op->res[j]);
                if (body->last && body->last->op == IR_YIELD && j < body->last->nargs)
                    unite(c, body->last->args[j], op->res[j]);
            }
            break;
        }
        default:
            if (elementwise(op->op)) unite_all(c, op);
            else mark_all(c, op);
            break;
        }
    }
}

static void spread(Rl *c) {
    for (int i = 0; i < c->n; i++)
        if (c->bad[i]) c->bad[find(c, i)] = 1;
}

/* ---------------------------------------------------------- the anchor */

static IrValue *at_top(Rl *c, IrOp *op) {
    ir_insert_after(op, c->k->body, c->top);
    c->top = op;
    return op->res[0];
}

static IrValue *const_at_top(Rl *c, ScalarKind k, int64_t v, Loc loc) {
    IrOp *op = ir_detached(c->ar, c->k, IR_CONST, ty_scalar(k), 0, NULL, loc);
    op->iattr[0] = v;
    op->fattr = (double)v;
    return at_top(c, op);
}

/* A detached copy of op of type t over args, with op's attributes. */
static IrOp *copy_op(Rl *c, const IrOp *op, Type t, int nargs, IrValue **args) {
    IrOp *x = ir_detached(c->ar, c->k, (IrOpcode)op->op, t, nargs, args, op->loc);
    memcpy(x->iattr, op->iattr, sizeof x->iattr);
    x->fattr = op->fattr;
    x->sattr = op->sattr;
    return x;
}

/* v's value at index lo of its tile (a scalar v: v itself), computed at
 * the top of the kernel; NULL when that needs anything but the ops the
 * top of the file lists. */
static IrValue *scalar_of(Rl *c, IrValue *v, int depth) {
    if (depth > 32) return NULL;
    if (v->id < c->n && c->scalar[v->id]) return c->scalar[v->id];
    IrValue *s = NULL;
    const IrOp *op = v->def;
    if (!op) {
        const IrOp *own = v->block->parent;
        if (v->block == c->k->body) s = v;
        else if (own && own->op == IR_FOR && v->index == 0)
            s = scalar_of(c, own->args[0], depth + 1);
    } else {
        Type t = ty_elem(v->ty);
        IrValue *args[2] = {NULL, NULL};
        switch (op->op) {
        case IR_ARANGE:
            s = const_at_top(c, (ScalarKind)t.k, op->iattr[0], op->loc);
            break;
        case IR_SPLAT:
            s = scalar_of(c, op->args[0], depth + 1);
            break;
        case IR_CONST: case IR_PROGRAM_ID: case IR_NUM_PROGRAMS:
        case IR_ADD: case IR_SUB: case IR_MUL: case IR_CAST: case IR_PTRADD: {
            /* integers and pointers only: a float's conversion to an
             * integer may be poison in LLVM */
            ScalarKind from = op->nargs ? (ScalarKind)op->args[0]->ty.k : SK_I32;
            int ok = op->nargs <= 2 && (ty_isint((ScalarKind)t.k) || t.k == SK_PTR) &&
                     (op->op != IR_CAST || ty_isint(from) || from == SK_PTR);
            for (int i = 0; ok && i < op->nargs; i++)
                ok = (args[i] = scalar_of(c, op->args[i], depth + 1)) != NULL;
            if (!ok) break;
            s = at_top(c, copy_op(c, op, t, op->nargs, args));
            break;
        }
        default:
            break;
        }
    }
    if (s && v->id < c->n) c->scalar[v->id] = s;
    return s;
}

/* s = (address & 15) >> log2(esize), an i32 at the top of the kernel. */
static IrValue *shift_of(Rl *c, IrValue *addr, int esize, Loc loc) {
    IrValue *a[2];
    a[0] = addr;
    IrValue *i = at_top(c, ir_detached(c->ar, c->k, IR_CAST, ty_scalar(SK_I64), 1, a, loc));
    a[0] = i;
    a[1] = const_at_top(c, SK_I64, 15, loc);
    IrValue *low = at_top(c, ir_detached(c->ar, c->k, IR_AND, ty_scalar(SK_I64), 2, a, loc));
    int lg = 0;
    while ((1 << lg) < esize) lg++;
    a[0] = low;
    a[1] = const_at_top(c, SK_I64, lg, loc);
    IrValue *el = at_top(c, ir_detached(c->ar, c->k, IR_SHR, ty_scalar(SK_I64), 2, a, loc));
    a[0] = el;
    return at_top(c, ir_detached(c->ar, c->k, IR_CAST, ty_scalar(SK_I32), 1, a, loc));
}

/* ------------------------------------------------------------ rotation */

/* arange(lo, lo + B) becomes `arange lo, lo + B rotated s` (ir.h), which
 * the lowering emits as a thread's base index minus s plus each
 * register's constant (lower/kernel.c lw_arange). */
static void rotate(Rl *c, IrOp *ar, IrValue *s) {
    ar->args = ar_alloc(c->ar, sizeof *ar->args);
    ar->args[0] = s;
    ar->nargs = 1;
}

/* ----------------------------------------------------------- the pass */

/* Loads of other offsets split in one component, at most. */
#define RL_MAX_SPLIT 8

typedef struct RlComp {
    int root;
    IrOp *anchor;        /* the first candidate, or store (first_anchors) */
    IrOp *store;         /* the first candidate store */
    IrOp **split;        /* candidate loads of other offsets (judge) */
    int nsplit;
} RlComp;

/* Access op can gain from realignment: its pointers are consecutive over
 * the whole tile, each thread holds one to LY_REALIGN_MAX_GROUPS whole
 * groups, and axis info alone gives less than a group. Returns the
 * group's elements, or 0. The bound is measured, not derived: with 8
 * groups a thread (softmax f32 over rows of 4097 in blocks of 8192, 8
 * warps) the rotated kernel took 1.07x the time of the element-wise one,
 * the run-time tests and votes of the groups in the row's padding
 * costing more than they save, while with 4 (cross-entropy's chunks of
 * 4096, 8 warps) it took 0.87x (docs/PERF.md, session 15). */
static int candidate(const Rl *c, const IrOp *op) {
    if ((op->op != IR_LOAD && op->op != IR_STORE) || !is_tile(op->args[0])) return 0;
    const IrValue *p = op->args[0];
    int esize = ty_bytes(p->ty.pointee);
    if (esize < 1 || esize > 8 || p->ty.rank != 1 || p->id >= c->n) return 0;
    int vec = 16 / esize;
    int64_t n = p->ty.dim[0], threads = (int64_t)c->k->warps * 32;
    const AxInfo *a = ax_of(c->ax, p);
    if (n < vec * threads || n > LY_REALIGN_MAX_GROUPS * vec * threads || a->contig[0] < n)
        return 0;
    int mask = ir_access_mask(op);
    const AxInfo *m = mask > 0 && is_tile(op->args[mask]) ? ax_of(c->ax, op->args[mask]) : NULL;
    return ax_mem_run(a, esize, m, 0) < vec ? vec : 0;
}

static void record(Rl *c, const IrOp *op, int vec, const IrValue *shift, int smax, int moved) {
    LyRealign *o = c->out;
    if (o->n == o->cap) {
        int cap = o->cap ? 2 * o->cap : 8;
        LyRealigned *v = ar_alloc(c->ar, sizeof *v * (size_t)cap);
        if (o->n) memcpy(v, o->v, sizeof *v * (size_t)o->n);
        o->v = v;
        o->cap = cap;
    }
    o->v[o->n++] = (LyRealigned){op, shift, vec, smax, moved};
}

/* Integer offsets a and b are the same expression (opcodes, attributes
 * and operands; the same values where they are values). */
static int same_expr(const IrValue *a, const IrValue *b, int depth) {
    if (a == b) return 1;
    const IrOp *x = a->def, *y = b->def;
    if (depth > 32 || !x || !y || x->op != y->op || x->nargs != y->nargs ||
        a->ty.k != b->ty.k || memcmp(x->iattr, y->iattr, sizeof x->iattr) != 0 ||
        x->op == IR_LOAD || x->op == IR_ATOMIC || x->op == IR_ATOMIC_CAS || x->nregions)
        return 0;
    if (x->op == IR_CONST && x->fattr != y->fattr) return 0;
    for (int i = 0; i < x->nargs; i++)
        if (!same_expr(x->args[i], y->args[i], depth + 1)) return 0;
    return 1;
}

/* Pointers a and b are a kernel parameter each (any two) plus the same
 * offsets: then their accesses meet the same misalignment whenever the
 * parameters are equally aligned (rows of x and out in one kernel), and
 * one rotation serves both. */
static int same_offsets(const IrValue *a, const IrValue *b, int depth) {
    const IrOp *x = a->def, *y = b->def;
    if (!x && !y) return a->block == b->block && !a->block->parent;
    if (depth > 32 || !x || !y || x->op != y->op) return 0;
    if (x->op == IR_SPLAT) return same_offsets(x->args[0], y->args[0], depth + 1);
    if (x->op != IR_PTRADD) return 0;
    return same_offsets(x->args[0], y->args[0], depth + 1) &&
           same_expr(x->args[1], y->args[1], 0);
}

/* Finds each good component's anchor: its first candidate (program
 * order), or its first candidate store where their offsets differ (the
 * anchor's address must then be computed at the top: scalar_of, in
 * ly_realign). A candidate of other offsets
 * (same_offsets: rows of x beside a vector of weights `w + c`, aligned
 * at 0) would stay misaligned under the anchor's rotation, its groups'
 * element accesses 16 bytes apart across lanes (layernorm's weights
 * beside its rows measured 2.7x the time, docs/PERF.md session 15): a
 * load of other offsets whose operands can be recomputed (natural_ok)
 * is split instead under LY_ASSIGN_SPLIT (judge, split_load); anything
 * else leaves the component alone. */
static void first_anchors(Rl *c, const IrBlock *b, RlComp *comp, int *ncomp) {
    for (IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++) first_anchors(c, op->regions[r], comp, ncomp);
        if (!candidate(c, op)) continue;
        int root = find(c, op->args[0]->id);
        if (c->bad[root]) continue;
        int i = 0;
        while (i < *ncomp && comp[i].root != root) i++;
        if (i == *ncomp) comp[(*ncomp)++] = (RlComp){root, op, NULL, NULL, 0};
        if (op->op == IR_STORE && !comp[i].store) comp[i].store = op;
    }
    /* of two offset classes the stores' is aligned (a store cannot be split) */
    for (int i = 0; i < *ncomp; i++)
        if (comp[i].store && !same_offsets(comp[i].anchor->args[0], comp[i].store->args[0], 0))
            comp[i].anchor = comp[i].store;
}

static int natural_ok(const IrValue *v, int depth);

/* Marks each candidate of other offsets than its component's anchor to
 * be split, or the component bad. */
static void judge(Rl *c, const IrBlock *b, RlComp *comp, int ncomp, int split) {
    for (IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++) judge(c, op->regions[r], comp, ncomp, split);
        if (!candidate(c, op)) continue;
        int root = find(c, op->args[0]->id), i = 0;
        while (i < ncomp && comp[i].root != root) i++;
        if (i == ncomp || c->bad[root] || same_offsets(comp[i].anchor->args[0], op->args[0], 0))
            continue;
        int ok = split && op->op == IR_LOAD && comp[i].nsplit < RL_MAX_SPLIT;
        for (int a = 0; ok && a < op->nargs; a++) ok = natural_ok(op->args[a], 0);
        if (ok) comp[i].split[comp[i].nsplit++] = op;
        else c->bad[root] = 1;
    }
}

/* Records the candidates and rotates the aranges of component root by s,
 * which is below smax. */
static void apply(Rl *c, const IrBlock *b, int root, IrValue *s, int smax) {
    for (IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++) apply(c, op->regions[r], root, s, smax);
        if (op->op == IR_ARANGE && op->res[0]->id < c->n && find(c, op->res[0]->id) == root)
            rotate(c, op, s);
        int vec = candidate(c, op);
        if (vec && find(c, op->args[0]->id) == root) record(c, op, vec, s, smax, 0);
    }
}

/* ------------------------------------------- loads of other offsets */

/* Whether tile v can be recomputed with fresh aranges: built from
 * aranges, splats and element-wise operations (scalars as they are; all
 * of one extent, a component's). */
static int natural_ok(const IrValue *v, int depth) {
    if (!is_tile(v)) return 1;
    const IrOp *op = v->def;
    if (!op || depth > 32 || v->ty.rank != 1) return 0;
    if (op->op == IR_ARANGE) return op->nargs == 0;
    if (op->op != IR_SPLAT && !elementwise(op->op)) return 0;
    for (int i = 0; i < op->nargs; i++)
        if (!natural_ok(op->args[i], depth + 1)) return 0;
    return 1;
}

/* The op after *at in blk (first where *at is NULL), which becomes *at. */
static IrValue *put(IrOp *op, IrBlock *blk, IrOp **at) {
    ir_insert_after(op, blk, *at);
    *at = op;
    return op->res[0];
}

/* v recomputed after *at with its aranges rotated by sw instead (NULL:
 * unrotated); natural_ok holds. */
static IrValue *natural(Rl *c, IrValue *v, IrValue *sw, IrBlock *blk, IrOp **at) {
    if (!is_tile(v)) return v;
    if (v->id < c->n && c->nat[v->id]) return c->nat[v->id];
    const IrOp *op = v->def;
    IrValue *args[3] = {NULL, NULL, NULL};
    for (int i = 0; i < op->nargs && op->op != IR_ARANGE; i++)
        args[i] = natural(c, op->args[i], sw, blk, at);
    IrOp *x = copy_op(c, op, v->ty, op->op == IR_ARANGE ? 0 : op->nargs, args);
    if (op->op == IR_ARANGE && sw) rotate(c, x, sw);
    IrValue *r = put(x, blk, at);
    if (v->id < c->n) c->nat[v->id] = r;
    return r;
}

/* (a - b) & (n - 1), an i32 at the top of the kernel. */
static IrValue *rotation_between(Rl *c, IrValue *a, IrValue *b, int32_t n, Loc loc) {
    IrValue *x[2] = {a, b};
    x[0] = at_top(c, ir_detached(c->ar, c->k, IR_SUB, ty_scalar(SK_I32), 2, x, loc));
    x[1] = const_at_top(c, SK_I32, n - 1, loc);
    return at_top(c, ir_detached(c->ar, c->k, IR_AND, ty_scalar(SK_I32), 2, x, loc));
}

/* Load ld of other offsets than its component's anchor, split in two:
 * the same load of operands whose aranges are rotated by its own
 * misalignment sw instead of the anchor's s (a component of its own:
 * realigned, its groups tested at run time), and a gather of it by an
 * arange rotated by s - sw, which moves each element through shared
 * memory to the position the anchor's rotation gave it (position p reads
 * p - s + sw modulo the extent, where the load's own rotation put the
 * index every arange of the operands held at p). One round trip through
 * shared memory instead of element accesses 16 bytes apart across lanes.
 * Where sw cannot be computed at the top, the load's aranges stay
 * unrotated (sw = 0, its accesses as the variant's facts allow). */
static void split_load(Rl *c, IrOp *ld, IrValue *s, int smax) {
    IrBlock *blk = ld->parent;
    IrOp *at = ld->prev;
    IrValue *res = ld->res[0], *addr = scalar_of(c, ld->args[0], 0), *sw = NULL;
    int esize = ty_bytes(ld->args[0]->ty.pointee);
    if (addr) sw = shift_of(c, addr, esize, ld->loc);
    IrValue *args[3] = {NULL, NULL, NULL};
    memset(c->nat, 0, sizeof(IrValue *) * (size_t)(c->n + 1));
    for (int i = 0; i < ld->nargs; i++) args[i] = natural(c, ld->args[i], sw, blk, &at);
    IrOp *nat = copy_op(c, ld, res->ty, ld->nargs, args);
    IrValue *src = put(nat, blk, &at);
    int32_t n = res->ty.dim[0];
    IrOp *ix = ir_detached(c->ar, c->k, IR_ARANGE, ty_tile(ty_scalar(SK_I32), 1, &n), 0,
                           NULL, ld->loc);
    ix->iattr[1] = n;
    rotate(c, ix, sw ? rotation_between(c, s, sw, n, ld->loc) : s);
    IrValue *ga[2] = {src, put(ix, blk, &at)};
    IrOp *g = ir_detached(c->ar, c->k, IR_GATHER, res->ty, 2, ga, ld->loc);
    put(g, blk, &at);
    g->res[0]->name = res->name;
    ir_replace_uses(c->k->body, res, g->res[0]);
    ir_unlink(ld);
    /* apply() recorded ld: nat in its own rotation instead, or g */
    for (int i = 0; i < c->out->n; i++)
        if (c->out->v[i].op == ld)
            c->out->v[i] = sw ? (LyRealigned){nat, sw, 16 / esize, 16 / esize, 1}
                              : (LyRealigned){g, s, 0, smax, 1};
}

int ly_realign(Arena *ar, IrKernel *k, const AxTable *ax, LyRealign *out, int split) {
    Rl c = {ar, k, ax, k->nvalues, NULL, NULL, NULL, NULL, NULL, out};
    c.up = ar_alloc(ar, sizeof(int) * (size_t)(c.n + 1));
    c.bad = ar_alloc(ar, (size_t)c.n + 1);
    c.scalar = ar_alloc(ar, sizeof(IrValue *) * (size_t)(c.n + 1));
    c.nat = ar_alloc(ar, sizeof(IrValue *) * (size_t)(c.n + 1));
    memset(c.bad, 0, (size_t)c.n + 1);
    memset(c.scalar, 0, sizeof(IrValue *) * (size_t)(c.n + 1));
    for (int i = 0; i < c.n; i++) c.up[i] = i;
    components(&c, k->body);
    spread(&c);
    RlComp *comp = ar_alloc(ar, sizeof *comp * (size_t)(c.n + 1));
    int ncomp = 0, done = 0;
    first_anchors(&c, k->body, comp, &ncomp);
    for (int i = 0; i < ncomp; i++)
        comp[i].split = ar_alloc(ar, sizeof *comp[i].split * RL_MAX_SPLIT);
    judge(&c, k->body, comp, ncomp, split);
    for (int i = 0; i < ncomp; i++) {
        IrValue *addr = c.bad[comp[i].root] ? NULL : scalar_of(&c, comp[i].anchor->args[0], 0);
        if (!addr) continue;   /* its address at index lo, at the top */
        int esize = ty_bytes(comp[i].anchor->args[0]->ty.pointee);
        IrValue *s = shift_of(&c, addr, esize, comp[i].anchor->loc);
        apply(&c, k->body, comp[i].root, s, 16 / esize);
        for (int j = 0; j < comp[i].nsplit; j++) split_load(&c, comp[i].split[j], s, 16 / esize);
        done++;
    }
    return done;
}

const LyRealigned *ly_realigned(const LyRealign *r, const IrOp *op) {
    for (int i = 0; r && i < r->n; i++)
        if (r->v[i].op == op) return &r->v[i];
    return NULL;
}
