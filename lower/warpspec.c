/*
 * warpspec.c — warp specialization (tilec --warp-specialize): a producer
 * warpgroup beside the kernel's warps issues a TMA loop's copies, and
 * the kernel's warps (the consumers) only wait for them and compute.
 *
 * Without it, thread 0 (or, counted, the last warp done with a slot)
 * refills the slots between its own products: the copies' address
 * arithmetic, the release's wait and the issue sit on a consumer's path.
 * With it (the form of CUTLASS's and FlashAttention-3's Hopper kernels),
 * a program runs warps + 4 warps; warps 0 .. warps-1 run the kernel as
 * before with thread identities unchanged, their barriers named ones of
 * their own (lw_barrier: bar.sync 8, 32 * warps) so that the producer
 * never takes part in them, and warp `warps` lane 0 alone runs the
 * producer:
 *
 *   entry      thread 0 initializes the loop's mbarriers (lw_tma_init:
 *              the copies' and the releases', one arrival a consumer
 *              warp), then one CTA barrier (bar.sync 0, every thread)
 *   producer   the values the copies need (LyPlan.ws_need: the loop's
 *              bounds, each ring's index tiles, masks' bounds, from the
 *              parameters), lowered with lane = warp = 0 (thread 0's
 *              registers, where element 0 of an index tile lies); then
 *              for each iteration j, slot j % S: wait for the slot's
 *              release of use j/S - 1 (parity (j/S + 1) % 2, at once on a
 *              fresh mbarrier), announce the bytes, issue the boxes
 *              (lower/pipeline.c lw_pipe_produce); then it exits
 *   consumers  the loop without prologue copies or refills: iteration j
 *              waits for slot j % S's copies and each warp releases the
 *              slot once its products are done with it (the plan's
 *              release becomes LY_RELEASE_MBARRIER)
 *
 * The producer exits once it has issued the last iteration's copies;
 * the consumers finish the loop only after every copy has landed, so
 * when they reuse the rings' memory as scratch (the epilogue), or
 * invalidate the mbarriers, nothing of the producer's is in flight. The
 * rings live from the entry on, so they lie above the scratch used
 * before the loop as well as in it (kernel.c lw_finish_smem, scratch.c).
 *
 * Which kernels (lw_ws_plan, before lowering, a side table of the plan):
 * one pipelined loop, at the kernel's top level or inside `if`s whose
 * conditions the producer computes too (a persistent walk's `if kt > 0`:
 * it branches around its loop as the consumers do), every ring TMA's,
 * read by wgmma descriptors alone (no stage buffers, A rings into
 * registers, product issued ahead, turns), slots released by
 * counters or mbarriers (not --slot-sync=cta); warps a multiple of 4 with
 * room for 4 more; and the producer's values computed from the
 * parameters, the program id and the induction variable by ops that stay
 * within a thread — no scratch, shuffles, barriers, stores or tile loads
 * (LyPlan.ws_need marks them) — and the rings still fit above the
 * scratch before the loop. Anything else keeps the plain loop; `--stats`
 * says which entries are specialized.
 */
#include "lower/lw.h"

#include <stdio.h>
#include <string.h>

typedef struct WsCone {
    const IrKernel *k;
    const IrOp *loop;
    uint8_t *need;
} WsCone;

/* An op the producer may lower for thread 0 alone: its value stays in
 * the thread's registers (every operand in its layout or moved within
 * the thread), and it touches no memory but a scalar's load. */
static int producer_op(const IrOp *op) {
    switch (op->op) {
    case IR_CONST: case IR_PROGRAM_ID: case IR_NUM_PROGRAMS: case IR_ARANGE:
        return 1;
    case IR_SPLAT: case IR_BROADCAST: case IR_EXPAND_DIMS: case IR_RESHAPE:
    case IR_PERMUTE: case IR_MULTIPLE_OF: case IR_MAX_CONTIG:
        return lw_shape_in_thread(op);
    LW_ELEMENTWISE_CASES:
        for (int i = 0; i < op->nargs && i < 3; i++)
            if (!lw_in_layout_in_thread(op->args[i], op->res[0]->layout)) return 0;
        return 1;
    case IR_LOAD:
        return !op->res[0]->layout;
    default:
        return 0;
    }
}

/* Block b is the kernel's body, the loop's, or a region of an `if`
 * that encloses the loop (the producer runs those ops too). */
static int producer_block(const WsCone *w, const IrBlock *b) {
    if (b == w->k->body || b == w->loop->regions[0]) return 1;
    for (const IrBlock *x = w->loop->parent; x && x != w->k->body; x = x->parent->parent)
        if (x == b) return 1;
    return 0;
}

/* Marks v and what it is computed from; NULL, or why the producer
 * cannot compute it. */
static const char *mark(WsCone *w, const IrValue *v) {
    if (!v || w->need[v->id]) return NULL;
    const IrOp *op = v->def;
    if (!op) {   /* a parameter, or the loop's induction variable */
        const IrBlock *body = w->loop->regions[0];
        if (v->block == w->k->body || (v->block == body && v->index == 0)) {
            w->need[v->id] = 1;
            return NULL;
        }
        return "a copy's address depends on a value the loop carries";
    }
    if (!producer_block(w, op->parent))
        return "a copy's address depends on a value computed in a branch or loop";
    if (!producer_op(op))
        return "a copy's address depends on a value that threads exchange or load";
    for (int i = 0; i < op->nres; i++) w->need[op->res[i]->id] = 1;
    for (int i = 0; i < op->nargs; i++) {
        const char *why = mark(w, op->args[i]);
        if (why) return why;
    }
    return NULL;
}

/* The pipelined loops of b (nested blocks too), counted; *one: the last. */
static int pipelined_loops(const LyPlan *p, const IrBlock *b, const IrOp **one) {
    int n = 0;
    for (const IrOp *op = b->first; op; op = op->next) {
        if (op->op == IR_FOR && ly_pipe_of(p, op)) {
            *one = op;
            n++;
        }
        for (int r = 0; r < op->nregions; r++) n += pipelined_loops(p, op->regions[r], one);
    }
    return n;
}

/* NULL where the loop's plan takes a producer (TMA rings that only
 * descriptors read), else why not. */
static const char *producer_loop(const LyPipe *q) {
    if (!q->nring || q->ntma != q->nring) return "the loop's loads are not all TMA copies";
    if (!q->nwg || q->nstage || q->nreg_a || q->threads_read)
        return "the loop's copies are not all read by warpgroup MMA descriptors";
    if (q->early || q->pingpong) return "--early-products or --pingpong took the loop";
    if (q->release == LY_RELEASE_NONE) return "the loop's slots are freed by CTA barriers";
    return NULL;
}

static const char *cone(WsCone *w, const LyPipe *q) {
    const char *why = NULL;
    for (const IrBlock *b = w->loop->parent; b != w->k->body && !why; b = b->parent->parent)
        why = mark(w, b->parent->args[0]);   /* an enclosing `if`'s condition */
    for (int i = 0; i < 3 && !why; i++) why = mark(w, w->loop->args[i]);
    for (int i = 0; i < q->nring && !why; i++) {
        const IrOp *ld = q->ring[i].load;
        const LyTma *t = q->ring[i].tma;
        for (int a = 0; a < ld->nargs && !why; a++) why = mark(w, ld->args[a]);
        for (int d = 0; d < 2 && !why; d++) {
            why = mark(w, t->index[d]);
            if (!why) why = mark(w, t->shift[d]);
            if (!why) why = mark(w, t->bound[d]);
        }
        if (!why && t->rank == 3) why = mark(w, t->batch);
    }
    return why;
}

/* lw_ws_plan's decision: NULL (p's ws fields set), or why not. */
static const char *ws_plan(Arena *ar, const IrKernel *k, LyPlan *p, int64_t max_shared) {
    const IrOp *loop = NULL;
    if (k->warps % 4 || k->warps + LW_WS_WARPS > 32)
        return "its warps are not a multiple of 4 with room for 4 more";
    int n = pipelined_loops(p, k->body, &loop);
    if (n != 1) return n ? "it has more than one pipelined loop" : "it has no pipelined loop";
    for (const IrBlock *b = loop->parent; b != k->body; b = b->parent->parent)
        if (b->parent->op != IR_IF) return "its pipelined loop lies inside another loop";
    LyPipe *q = (LyPipe *)ly_pipe_of(p, loop);   /* the plan's own, in its arena */
    const char *why = producer_loop(q);
    if (why) return why;
    WsCone w = {k, loop, ar_alloc(ar, (size_t)k->nvalues + 1)};
    memset(w.need, 0, (size_t)k->nvalues + 1);
    if ((why = cone(&w, q))) return why;
    int release = q->release;
    q->release = LY_RELEASE_MBARRIER;   /* same bytes as the counters */
    p->ws_loop = loop;
    p->ws_need = w.need;
    if (lw_planned_shared(ar, k, p) <= max_shared) return NULL;
    q->release = release;
    p->ws_loop = NULL;
    p->ws_need = NULL;
    return "its rings do not fit above the scratch used before the loop";
}

int lw_ws_plan(Arena *ar, const IrKernel *k, LyPlan *p, int64_t max_shared) {
    p->ws_refused = ws_plan(ar, k, p, max_shared);
    return !p->ws_refused;
}

/* The producer's function state: f's, with values of its own (the
 * parameters' shared: the entry block computed them), thread 0's
 * identity, and thread parts computed where used. */
static LwFn producer_fn(LwFn *f) {
    LwCtx *c = f->c;
    size_t n = (size_t)f->k->nvalues + 1;
    LwFn pf = *f;
    pf.vals = ar_alloc(c->ar, sizeof(LwVal) * n);
    memset(pf.vals, 0, sizeof(LwVal) * n);
    if (f->magic) {
        pf.magic = ar_alloc(c->ar, sizeof(LwMagic *) * n);
        memset(pf.magic, 0, sizeof(LwMagic *) * n);
    }
    for (int i = 0; i < f->k->nparams; i++) {
        int id = f->k->body->args[i]->id;
        pf.vals[id] = f->vals[id];
        if (f->magic) pf.magic[id] = f->magic[id];
    }
    pf.lane = pf.warp = lw_i32(c, 0);
    pf.entry_br = NULL;
    memset(&pf.tparts, 0, sizeof pf.tparts);
    pf.pipe = NULL;
    pf.frag = NULL;
    pf.nc = NULL;
    pf.maskw = NULL;
    pf.ws = NULL;
    return pf;
}

/* The op of block b that is or holds the loop, or NULL. */
static const IrOp *holder(const IrBlock *b, const IrOp *loop) {
    for (const IrOp *op = loop; op; op = op->parent->parent)
        if (op->parent == b) return op;
    return NULL;
}

/* The producer's ops of block b up to the op that is or holds the loop,
 * then the loop (lw_pipe_produce) or that `if`: its condition's arm
 * holding the loop, recursively, the other arm empty. */
static void produce_block(LwFn *pf, const IrBlock *b) {
    const IrOp *loop = pf->plan->ws_loop, *at = holder(b, loop);
    for (const IrOp *op = b->first; op && op != at && !pf->failed; op = op->next) {
        if (!op->nres || !pf->plan->ws_need[op->res[0]->id]) continue;
        lw_op(pf, op);
        for (int i = 0; pf->magic && i < op->nres; i++)
            if (pf->plan->magic[op->res[i]->id]) lw_magic_setup(pf, op->res[i]);
    }
    if (pf->failed || !at) return;
    if (at == loop) {
        lw_pipe_produce(pf, loop);
        return;
    }
    LwCtx *c = pf->c;
    int arm = holder(at->regions[0], loop) ? 0 : 1;   /* then, or else */
    LLVMBasicBlockRef in = lw_new_bb(pf, "ws.if"), join = lw_new_bb(pf, "ws.join");
    LLVMValueRef cond = lw_val(pf, at->args[0])->r[0];
    LLVMBuildCondBr(c->b, cond, arm ? join : in, arm ? in : join);
    LLVMPositionBuilderAtEnd(c->b, in);
    produce_block(pf, at->regions[arm]);
    LLVMBuildBr(c->b, join);
    LLVMPositionBuilderAtEnd(c->b, join);
}

/* The producer thread's code: its values, its loop, the end. */
static void produce(LwFn *f) {
    LwFn pf = producer_fn(f);
    produce_block(&pf, f->k->body);
    f->failed |= pf.failed;
    LLVMBuildRetVoid(f->c->b);
}

/* The producer keeps 40 registers: at 24, a persistent walk's producer
 * (its coordinates' divisions) spilled 16 bytes (examples/matmul.tile
 * 128x256x64, 3 stages). */

/* Registers a thread of the program starts with (ptxas gives an entry
 * with setmaxnreg what .reqntid allows: 65536 for the program, in 8s),
 * and the consumers' after the producer gives all but LW_WS_PRODUCER_REGS
 * back: 168 and 232 at 8 warps. 0: no reallocation (below 8 warps a
 * thread may already hold 255). */
enum { LW_WS_PRODUCER_REGS = 40 };
static int consumer_regs(int warps) {
    int threads = 32 * (warps + LW_WS_WARPS);
    int start = 65536 / threads / 8 * 8;
    if (warps < 8) return 0;
    int n = (start * threads - LW_WS_PRODUCER_REGS * 32 * LW_WS_WARPS) / (32 * warps) / 8 * 8;
    return n > 256 ? 256 : n;
}

static void setmaxnreg(LwCtx *c, const char *how, int regs) {
    char text[64];
    snprintf(text, sizeof text, "setmaxnreg.%s.sync.aligned.u32 %d;", how, regs);
    lw_asm(c, c->vd, text, "~{memory}", NULL, 0, LW_ASM_WRITES);
}

void lw_ws_split(LwFn *f) {
    LwCtx *c = f->c;
    const LyPipe *q = ly_pipe_of(f->plan, f->plan->ws_loop);
    lw_ring_region(f);
    lw_tma_init(f, q);   /* f->ws unset: its barrier is every thread's */
    LLVMValueRef producer =
        LLVMBuildICmp(c->b, LLVMIntUGE, f->warp, lw_i32(c, f->k->warps), "producer");
    LLVMBasicBlockRef pb = lw_new_bb(f, "ws.producer"), cb = lw_new_bb(f, "ws.consumer");
    LLVMBuildCondBr(c->b, producer, pb, cb);
    LLVMPositionBuilderAtEnd(c->b, pb);
    int regs = consumer_regs(f->k->warps);
    if (regs) setmaxnreg(c, "dec", LW_WS_PRODUCER_REGS);
    LLVMValueRef first = LLVMBuildAnd(
        c->b, LLVMBuildICmp(c->b, LLVMIntEQ, f->warp, lw_i32(c, f->k->warps), ""),
        LLVMBuildICmp(c->b, LLVMIntEQ, f->lane, lw_i32(c, 0), ""), "");
    LLVMBasicBlockRef issue = lw_new_bb(f, "ws.issue"), idle = lw_new_bb(f, "ws.idle");
    LLVMBuildCondBr(c->b, first, issue, idle);
    LLVMPositionBuilderAtEnd(c->b, idle);
    LLVMBuildRetVoid(c->b);
    LLVMPositionBuilderAtEnd(c->b, issue);
    produce(f);
    LLVMPositionBuilderAtEnd(c->b, cb);
    if (regs) setmaxnreg(c, "inc", regs);
    f->ws = q;
}
