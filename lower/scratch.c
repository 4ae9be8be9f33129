/*
 * scratch.c — the shared memory an entry takes, known before it is
 * lowered: lw_compile judges the budget with it, so a configuration that
 * does not fit is dropped before any of its LLVM exists.
 *
 * The scratch is one buffer that every user reuses (lw_smem: its size is
 * the largest request), and the cp.async rings of pipelined loops lie
 * above the scratch requested while they are live and overlap the rest
 * (lower/pipeline.c, kernel.c's lw_finish_smem). So the figure follows
 * the same walk: each op's request is the largest of its own buffer and
 * the remaps its lowering makes (each file gives its ops' sizes through
 * pure functions that its emitters use as well: lw_remap_scratch,
 * lw_memory_scratch, lw_reduce_scratch, lw_scan_scratch); a pipelined
 * loop's body (and the re-evaluated address computations of its
 * prologue, which are ops of that body) counts apart and is pinned below
 * the rings. lw_kernel checks the emitted entry against this figure, so
 * a lowering that asks for scratch this walk does not know is an
 * internal error in every test, not a silent overrun of the budget.
 */
#include "lower/lw.h"

typedef struct Scratch {
    Arena *ar;
    const IrKernel *k;
    const LyPlan *plan;
    int64_t cur;        /* largest request so far (LwFn.smem_bytes) */
    int64_t pinned;     /* largest while rings are live (LwFn.smem_pinned) */
} Scratch;

static void take(Scratch *s, int64_t bytes) {
    if (bytes > s->cur) s->cur = bytes;
}

/* kernel.c's lw_as: from's registers in to's layout. */
static int64_t as_scratch(const IrValue *from, const IrValue *to) {
    const Layout *a = from->layout, *b = to->layout;
    if (a == b || (a && b && ly_eq(a, b))) return 0;
    return lw_remap_scratch(a, b, NULL, (ScalarKind)from->ty.k);
}

static void take_as_all(Scratch *s, int n, IrValue *const *from, IrValue *const *to) {
    for (int i = 0; i < n; i++) take(s, as_scratch(from[i], to[i]));
}

static int64_t convert_scratch(const Scratch *s, const IrOp *op) {
    switch ((LyHow)s->plan->how[op->res[0]->id]) {
    case LY_HOW_RING: case LY_HOW_STAGE: return 0;   /* its ring or stage buffer */
    case LY_HOW_TMA_STORE: return 0;   /* its store writes the source */
    case LY_HOW_LDMATRIX: return ly_smem_bytes(s->plan->smem[op->res[0]->id]);
    case LY_HOW_SWIZZLED: {   /* in pieces: one piece's */
        int n = s->plan->pieces[op->res[0]->id];
        return ly_smem_bytes(s->plan->smem[op->res[0]->id]) / (n > 1 ? n : 1);
    }
    case LY_HOW_KIND: return lw_shape_scratch(op);
    }
    return 0;
}

/* An op without regions: what its lowering requests. */
static int64_t op_scratch(const Scratch *s, const IrOp *op) {
    switch (op->op) {
    case IR_CONVERT_LAYOUT: return convert_scratch(s, op);
    case IR_SPLAT: case IR_BROADCAST: case IR_EXPAND_DIMS: case IR_RESHAPE:
    case IR_PERMUTE: case IR_MULTIPLE_OF: case IR_MAX_CONTIG:
        return lw_shape_scratch(op);
    case IR_LOAD:
        if (s->plan->how[op->res[0]->id] == LY_HOW_RING)   /* its mask, for the copies */
            return (op->iattr[0] & LOAD_MASK) ? lw_in_layout_scratch(op->args[1],
                                                                    op->args[0]->layout) : 0;
        return lw_memory_scratch(op, s->plan->uses, s->k->warps);
    case IR_STORE: {
        const LyTmaStore *ts = ly_tma_store_of(s->plan, op);
        if (ts) return ly_smem_bytes(ts->s);   /* its box buffer */
        return lw_memory_scratch(op, s->plan->uses, s->k->warps);
    }
    case IR_ATOMIC: case IR_ATOMIC_CAS:
        return lw_memory_scratch(op, s->plan->uses, s->k->warps);
    case IR_REDUCE: return lw_reduce_scratch(s->ar, op);
    case IR_SCAN: return lw_scan_scratch(s->ar, op, s->k->warps);
    case IR_SLICE: case IR_CAT: case IR_GATHER: return lw_move_scratch(op);
    case IR_SORT: return lw_sort_scratch(op);
    LW_ELEMENTWISE_CASES: {
        int64_t m = 0;   /* operands in the result's layout */
        for (int i = 0; i < op->nargs && i < 3; i++) {
            int64_t x = lw_in_layout_scratch(op->args[i], op->res[0]->layout);
            if (x > m) m = x;
        }
        return m;
    }
    default:   /* products write in place; the rest take none */
        return 0;
    }
}

static void walk(Scratch *s, const IrBlock *b);

/* A `for`: its carried values converted in, the body (apart, when its
 * loads are copied into rings), the results converted out. */
static void walk_for(Scratch *s, const IrOp *op) {
    const IrBlock *body = op->regions[0];
    int n = op->nargs - 3;
    take_as_all(s, n, op->args + 3, body->args + 1);
    const LyPipe *q = ly_pipe_of(s->plan, op);
    int64_t outside = s->cur;
    if (q) s->cur = 0;
    walk(s, body);
    const IrOp *y = body->last;
    if (y && y->op == IR_YIELD) take_as_all(s, n, y->args, body->args + 1);
    if (q) {
        if (s->cur > s->pinned) s->pinned = s->cur;
        if (s->plan->ws_loop == op && outside > s->pinned)   /* live from the entry */
            s->pinned = outside;
        if (outside > s->cur) s->cur = outside;
    }
    take_as_all(s, op->nres, body->args + 1, op->res);
}

static void walk_if(Scratch *s, const IrOp *op) {
    for (int i = 0; i < op->nregions && i < 2; i++) {
        walk(s, op->regions[i]);
        const IrOp *y = op->regions[i]->last;
        if (op->nres && y && y->op == IR_YIELD) take_as_all(s, op->nres, y->args, op->res);
    }
}

static void walk_while(Scratch *s, const IrOp *op) {
    const IrBlock *before = op->regions[0], *after = op->regions[1];
    take_as_all(s, op->nargs, op->args, before->args);
    walk(s, before);
    const IrOp *cond = before->last;
    int nv = cond->nargs - 1;
    take_as_all(s, nv, cond->args + 1, after->args);
    take_as_all(s, nv < op->nres ? nv : op->nres, cond->args + 1, op->res);
    walk(s, after);
    const IrOp *y = after->last;
    if (y && y->op == IR_YIELD) take_as_all(s, op->nargs, y->args, before->args);
}

static void walk(Scratch *s, const IrBlock *b) {
    for (const IrOp *op = b->first; op; op = op->next) {
        switch (op->op) {
        case IR_FOR: walk_for(s, op); break;
        case IR_IF: walk_if(s, op); break;
        case IR_WHILE: walk_while(s, op); break;
        default: take(s, op_scratch(s, op)); break;
        }
    }
}

int64_t lw_planned_shared(Arena *ar, const IrKernel *k, const LyPlan *plan) {
    Scratch s = {.ar = ar, .k = k, .plan = plan};
    walk(&s, k->body);
    if (!plan->ring_bytes) return s.cur;
    int64_t align = plan->ring_align > 128 ? plan->ring_align : 128;
    int64_t end = ((s.pinned + align - 1) & ~(align - 1)) + plan->ring_bytes;
    return end > s.cur ? end : s.cur;
}
