/*
 * lowering.c — the lowering plan: the choices LLVM emission (lower/)
 * reads instead of making, made once per kernel configuration and
 * variant, after layout assignment and before any LLVM exists.
 *
 *  - Uses: how many operands read each value (lower/ and the rules below
 *    ask whether a conversion is read only by products, whether a ring's
 *    load has one reader).
 *  - Pipelines: for each `for` loop whose body has loads marked for a
 *    ring (plan/pipeline.c), the rings — their swizzled or wgmma buffer,
 *    the elements per cp.async, offsets in the ring region — and whether
 *    the body's products read them as wgmma through descriptors (with
 *    one group in flight across iterations: `pending`, also through an
 *    epilogue's `if` inside the loop: `drain_if`), with the stage
 *    buffers of operands that are no ring's or that the threads move
 *    K-major from one (tf32 along M or N); or the reason
 *    the loop runs unpipelined (a chunk cp.async cannot copy, or rings
 *    beside a bound on the scratch that do not fit `max_shared`), kept
 *    for --stats. Loops are planned in program order, as the ring region
 *    grows: a later loop's rings start above an earlier one's.
 *  - How: for each load and each layout conversion, which of the
 *    lowering's ways does it (LyHow): a ring load emits nothing and its
 *    conversion reads the ring; a conversion to an mma.sync operand
 *    across lanes or warps goes through a swizzled buffer and ldmatrix
 *    when ldmatrix can read it; an accumulator's conversion across lanes
 *    or warps through a swizzled buffer; everything else by its kind.
 *    The buffers are part of the plan (LyPlan.smem).
 *
 * The plan reads the IR and its layouts and writes only its own tables;
 * lower/kernel.c's lw_op dispatches on it with one switch.
 */
#include "plan/layout.h"

#include <string.h>

static int64_t align128(int64_t x) { return (x + 127) & ~(int64_t)127; }
static int64_t align1024(int64_t x) { return (x + 1023) & ~(int64_t)1023; }

typedef struct Planner {
    Arena *ar;
    const IrKernel *k;
    const LyResult *ly;
    int64_t max_shared;
    int flags;          /* LY_PLAN_* */
    LyPlan *p;
    int64_t limit;      /* plan_block: the split_limit of the pipelined
                           loop whose body it is in (0: none) */
} Planner;

int ly_is_mma_operand(const Layout *l) {
    return l && l->kind == LY_DOT_OP && l->parent && l->parent->kind == LY_MMA &&
           l->rank == 2;
}

int ly_only_products(const LyPlan *p, const IrOp *op) {
    const IrValue *v = op->res[0];
    int n = 0;
    for (const IrOp *u = op->next; u; u = u->next)
        for (int i = 0; i < 2 && u->op == IR_DOT; i++) n += u->args[i] == v;
    return n > 0 && n == p->uses[v->id];
}

const IrOp *ly_ring_operand(const LyPlan *p, const IrBlock *body, const IrOp *dot, int i) {
    const IrOp *cv = dot->args[i]->def;
    if (!cv || cv->op != IR_CONVERT_LAYOUT || cv->parent != body) return NULL;
    const IrOp *ld = cv->args[0]->def;
    if (!ld || ld->op != IR_LOAD || ld->parent != body || ld->iattr[3] < 2 ||
        p->uses[ld->res[0]->id] != 1 || !ly_only_products(p, cv))
        return NULL;
    return cv;
}

/* ------------------------------------------------------------ scratch */

/* An upper bound of the scratch the body uses: the largest tile an op
 * that takes scratch produces or reduces — a layout conversion (padded:
 * layout.c's round trip is the largest user), an atomic's old values,
 * a reduction or scan. A conversion of a load read from a ring (by
 * ldmatrix, descriptors or element loads) takes none, nor does one into
 * loop q's stage buffers, nor do the products: mma.sync, wgmma and the FMA chains write their
 * accumulator in place. (Counting every tile instead counted a [64, 256]
 * i32 index tile of a matmul's masks: 64 KiB that no one uses.) */
static int uses_scratch(const LyPipe *q, const IrOp *op) {
    switch (op->op) {
    case IR_CONVERT_LAYOUT: {
        const IrOp *ld = op->args[0]->def;
        if (ly_stage_of(q, op)) return 0;
        return !(ld && ld->op == IR_LOAD && ld->iattr[3] >= 2);
    }
    case IR_ATOMIC: case IR_ATOMIC_CAS: case IR_REDUCE: case IR_SCAN:
    case IR_SLICE: case IR_CAT: case IR_GATHER: case IR_SORT:
        return 1;
    default:
        return 0;
    }
}

static int64_t padded_bytes(const Type *t) {
    if (t->rank == 0 || t->k == SK_PTR) return 0;
    int64_t n = ty_numel(ty_pad(*t));
    return (n + n / 32 + 1) * ty_bytes((ScalarKind)t->k);
}

static LySmem *acc_buffer(Planner *pl, const IrOp *op);

/* The pieces (a power of two up to 8) in which a conversion through a
 * swizzled buffer of `bytes` takes at most `limit` bytes; 0: none do. */
static int pieces_for(int64_t bytes, int64_t limit) {
    int n = 1;
    while (n < 8 && bytes / n > limit) n *= 2;
    return bytes / n <= limit ? n : 0;
}

/* scratch_bound's figure for op (uses_scratch): a conversion through a
 * swizzled buffer larger than `limit` (> 0) in pieces. */
static int64_t op_bound(Planner *pl, const IrOp *op, int64_t limit) {
    const LySmem *s = limit > 0 && op->op == IR_CONVERT_LAYOUT ? acc_buffer(pl, op) : NULL;
    int n = s ? pieces_for(ly_smem_bytes(s), limit) : 0;
    int64_t m = 0;
    for (int i = 0; i < op->nres; i++) {
        int64_t x = n ? ly_smem_bytes(s) / n : padded_bytes(&op->res[i]->ty);
        if (x > m) m = x;
    }
    for (int i = 0; i < op->nargs && (op->op == IR_REDUCE || op->op == IR_SCAN ||
                                      op->op == IR_SLICE || op->op == IR_GATHER); i++) {
        int64_t x = padded_bytes(&op->args[i]->ty);
        if (x > m) m = x;
    }
    return m;
}

static int64_t scratch_bound(Planner *pl, const LyPipe *q, const IrBlock *b, int64_t limit) {
    int64_t m = 0;
    for (const IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++) {
            int64_t x = scratch_bound(pl, q, op->regions[r], limit);
            if (x > m) m = x;
        }
        const LyTmaStore *ts = op->op == IR_STORE ? ly_tma_store_of(pl->p, op) : NULL;
        if (ts && ly_smem_bytes(ts->s) > m) m = ly_smem_bytes(ts->s);   /* its box buffer */
        if (!uses_scratch(q, op)) continue;
        int64_t x = op_bound(pl, op, limit);
        if (x > m) m = x;
    }
    return m;
}

/* ---------------------------------------------------------- pipelines */

/* The ring for marked load `load`, or 0 when it cannot be copied with
 * cp.async: a chunk of the pointer layout's vector would cross a 16-byte
 * unit of the buffer, or be other than 4, 8 or 16 bytes. */
static int ring_for(Planner *pl, const IrOp *load, LyRing *r, int wgmma) {
    const Layout *ptr = load->args[0]->layout;
    const Type tp = ty_pad(load->res[0]->ty), *t = &tp;   /* buffers are padded */
    if (!ptr || ptr->rank != 2 || t->rank != 2) return 0;
    int esize = ty_bytes((ScalarKind)t->k), fast = ly_fastest_dim(ptr);
    LySmem *s = wgmma ? ly_smem_wgmma(pl->ar, t->dim, fast, esize)
                      : ly_smem_swizzled(pl->ar, t->dim, fast, esize);
    int w = ly_mem_vec(pl->ly, load), bytes = w * esize;
    if (!s || (bytes != 4 && bytes != 8 && bytes != 16) || w > s->vec ||
        w > ly_vec_width(ptr, fast))
        return 0;
    int64_t size = ly_smem_bytes(s);
    *r = (LyRing){.load = load, .s = s, .w = w,
                  .buf = wgmma ? align1024(size) : align128(size)};
    return 1;
}

/* Whether product `op`'s A comes from a ring that none of the products
 * before it (dots[0 .. n-1]) reads: an A loaded once and fed to two
 * products (SwiGLU's x against two weights) is one ring both read. */
static int new_ring(const LyPlan *p, const IrBlock *body, const IrOp *const *dots, int n,
                    const IrOp *op) {
    const IrOp *a = ly_ring_operand(p, body, op, 0);
    for (int i = 0; a && i < n; i++)
        if (ly_ring_operand(p, body, dots[i], 0) == a) return 0;
    return a != NULL;
}

/* Operand i of product `dot` into a stage buffer of q: a conversion in
 * `body` read only by products (one conversion feeding two products is
 * staged once), into wgmma's canonical layout with rows along its
 * source's contiguous dimension, so that each thread stores runs of its
 * registers (along K where wgmma reads the kind K-major only). 0 when it
 * cannot be. */
static int add_stage(Planner *pl, LyPipe *q, const IrBlock *body, const IrOp *dot, int i) {
    const IrOp *cv = dot->args[i]->def;
    if (!cv || cv->op != IR_CONVERT_LAYOUT || cv->parent != body ||
        !ly_is_mma_operand(cv->res[0]->layout) || !ly_only_products(pl->p, cv) ||
        !cv->args[0]->layout)
        return 0;
    if (ly_stage_of(q, cv)) return 1;
    const Type tp = ty_pad(cv->res[0]->ty), *t = &tp;
    int fast = ly_wgmma_kmajor_only((ScalarKind)t->k) ? (i == 0 ? 1 : 0)
                                                      : ly_fastest_dim(cv->args[0]->layout);
    LySmem *s = ly_smem_wgmma(pl->ar, t->dim, fast, ty_bytes((ScalarKind)t->k));
    if (!s || q->nstage == (int)(sizeof q->stage / sizeof q->stage[0])) return 0;
    q->stage[q->nstage++] = (LyStage){.cvt = cv, .s = s};
    return 1;
}

/* Operand i of `dot`, a ring's load (ly_ring_operand), is of a kind
 * wgmma reads K-major only (tf32, f8) and its pointer layout runs along
 * M (A) or N (B). */
static int ring_mn_major(const IrOp *dot, int i) {
    const Layout *ptr = dot->args[i]->def->args[0]->def->args[0]->layout;
    return ly_wgmma_kmajor_only((ScalarKind)dot->args[i]->ty.k) && ptr &&
           ly_fastest_dim(ptr) != (i == 0 ? 1 : 0);
}

/* Operand i of `dot`, a ring's, along M or N (ring_mn_major): staged
 * K-major from the ring (ring_stages gives it its layout once the rings
 * are laid out). 1 when that is not needed or done. */
static int stage_ring(Planner *pl, LyPipe *q, const IrBlock *body, const IrOp *dot, int i) {
    return !ring_mn_major(dot, i) || add_stage(pl, q, body, dot, i);
}

/* A of `dot`, a ring's, tf32 loaded along M: the product takes it from
 * registers, read from the ring's slot in its mma.sync fragment layout
 * (4-byte loads), rather than moved K-major into a stage buffer and
 * read by a descriptor: no stores, no barrier, half the shared-memory
 * traffic. 1 when so (recorded in q). */
static int ring_a_regs(LyPipe *q, const IrOp *dot) {
    const IrOp *cv = dot->args[0]->def;
    if (!ring_mn_major(dot, 0) || ty_bytes((ScalarKind)dot->args[0]->ty.k) != 4) return 0;
    if (ly_reg_a(q, cv)) return 1;
    if (q->nreg_a == (int)(sizeof q->reg_a / sizeof q->reg_a[0])) return 0;
    q->reg_a[q->nreg_a++] = cv;
    return 1;
}

int ly_wgmma_planned(const LyPipe *q, const IrOp *dot) {
    for (int i = 0; q && i < q->nwg; i++)
        if (q->wg_dot[i] == dot) return 1;
    return 0;
}

int ly_reg_a(const LyPipe *q, const IrOp *cv) {
    for (int i = 0; q && i < q->nreg_a; i++)
        if (q->reg_a[i] == cv) return 1;
    return 0;
}

/* The stages of q whose source is a ring's load (stage_ring): their ring
 * and the layout the threads move the tile in; 0 when one has none. */
static int ring_stages(Planner *pl, LyPipe *q) {
    for (int i = 0; i < q->nstage; i++) {
        LyStage *st = &q->stage[i];
        const IrOp *ld = st->cvt->args[0]->def;
        for (int j = 0; j < q->nring && ld && ld->op == IR_LOAD; j++)
            if (q->ring[j].load == ld) st->ring = &q->ring[j];
        if (!st->ring) continue;
        st->xl = ly_transpose_layout(pl->ar, st->ring->s, st->s, pl->k->warps);
        if (!st->xl) return 0;
    }
    return 1;
}

/* Rings of q that only A operands read into registers (ring_a_regs)
 * get the buffer that serves those reads best (ly_smem_read_by): no
 * descriptor reads them, so wgmma's swizzle order is not needed. */
static void reg_a_rings(Planner *pl, LyPipe *q) {
    for (int i = 0; i < q->nring; i++) {
        LyRing *r = &q->ring[i];
        const IrValue *v = r->load->res[0];
        const IrOp *cv = NULL;
        int readers = 0;
        for (int j = 0; j < q->nreg_a; j++)
            if (q->reg_a[j]->args[0] == v) {
                cv = q->reg_a[j];
                readers++;
            }
        if (!cv || readers != pl->p->uses[v->id] || r->s->esize != 4) continue;
        LySmem *s = ly_smem_read_by(pl->ar, r->s->shape, r->s->fast, cv->res[0]->layout);
        if (s) r->s = s;
    }
}

/* Whether a product of q reads a ring through a descriptor: an operand
 * that is neither an A in registers nor staged reads its ring directly. */
static int descriptor_rings(const LyPipe *q) {
    for (int d = 0; d < q->nwg; d++)
        for (int i = 0; i < 2; i++) {
            const IrOp *cv = q->wg_dot[d]->args[i]->def;
            if ((i == 0 && ly_reg_a(q, cv)) || ly_stage_of(q, cv)) continue;
            for (int j = 0; cv && j < q->nring; j++)
                if (cv->nargs && q->ring[j].load == cv->args[0]->def) return 1;
        }
    return 0;
}

/* Whether every reader of ring r's load is a conversion that q's wgmma
 * products read through a descriptor (not into registers, not staged). */
static int read_by_descriptors(const Planner *pl, const LyPipe *q, const LyRing *r) {
    const IrValue *v = r->load->res[0];
    int readers = 0;
    for (int d = 0; d < q->nwg; d++)
        for (int i = 0; i < 2; i++) {
            const IrOp *cv = q->wg_dot[d]->args[i]->def;
            if (!cv || cv->op != IR_CONVERT_LAYOUT || cv->args[0] != v) continue;
            if ((i == 0 && ly_reg_a(q, cv)) || ly_stage_of(q, cv) ||
                pl->p->uses[cv->res[0]->id] != 1)
                return 0;
            readers++;
        }
    return readers && readers == pl->p->uses[v->id];
}

/* The rings of wgmma loop q that TMA fills (plan/tma.c), each given the
 * next of the entry's tensor maps while there are any left. */
static void tma_rings(Planner *pl, LyPipe *q) {
    if (!(pl->flags & LY_PLAN_TMA) || !q->nwg) return;
    for (int i = 0; i < q->nring; i++) {
        LyRing *r = &q->ring[i];
        if (pl->p->ntmaps == LY_MAX_TMAPS || !read_by_descriptors(pl, q, r)) continue;
        LyTma *t = ly_tma_ring(pl->ar, pl->k, pl->ly->axis, r);
        if (!t) continue;
        t->map = pl->p->ntmaps;
        pl->p->tmaps[pl->p->ntmaps++] = t;
        r->tma = t;
        q->ntma++;
        q->tma_bytes += ly_smem_bytes(r->s);
    }
}

/* How q's slots are released (LyPipe.release: LY_RELEASE_NONE, or the
 * flags' choice where they can be released through mbarriers or
 * counters):
 * every ring is TMA's (tma_rings: only descriptors read it, so a warp is
 * done with a slot once its wait for the products reading it returns),
 * and nothing else in the loop relies on the iteration's CTA barrier —
 * no stage buffer (its stores cross one), no A read from a ring into
 * registers, no product issued ahead (its own waits), no cp.async ring
 * (its copies are published by the barrier). A product drained in an
 * arm (a persistent walk's epilogue, drain_if) is counted: each warp
 * counts itself done after the product's wait_group 1, before the arm,
 * whose barriers every warp crosses in the same iteration, and whose
 * scratch lies below the rings (session 46: 2-5% faster than with the
 * barriers on an H100). Through mbarriers it keeps the barriers, as
 * measured in session 38 (not tried since). */
static int release_plan(const Planner *pl, const LyPipe *q) {
    if ((pl->flags & LY_PLAN_CTA_SYNC) || !q->nwg || !q->nring || q->ntma != q->nring ||
        q->nstage || q->nreg_a || q->threads_read || q->early)
        return LY_RELEASE_NONE;
    if (pl->flags & LY_PLAN_MBAR_SYNC) return q->drain_if ? LY_RELEASE_NONE : LY_RELEASE_MBARRIER;
    return LY_RELEASE_LAST;
}

/* Warpgroups taking turns at the products (LY_PLAN_PINGPONG; lower/
 * pingpong.c): where the loop has two products or more and the kernel
 * two warpgroups or more, each computing its own rows of every product,
 * so that one warpgroup's work between the products (attention's
 * softmax) runs while the tensor cores compute another's. Not with a
 * group in flight across iterations (one product: nothing to overlap)
 * or a product issued ahead (issued outside its turn). Returns the
 * number of warpgroups, or 0. */
static int pingpong_plan(const Planner *pl, const LyPipe *q) {
    int warps = pl->k->warps;
    if (!(pl->flags & LY_PLAN_PINGPONG) || q->nwg < 2 || q->pending || q->early ||
        warps < 8 || warps % 4)
        return 0;
    return warps / 4;
}

/* Whether v has one value in every iteration of the loop whose body is
 * b: defined outside b, or in b by constants and splats or broadcasts of
 * such values (a zero accumulator, which layout assignment may put in
 * the body; lower/pipeline.c lowers those in the preheader too). */
int ly_invariant_in(const IrBlock *b, const IrValue *v) {
    for (int i = 0; i < b->nargs; i++)
        if (b->args[i] == v) return 0;
    const IrOp *op = v->def;
    if (!op || op->parent != b) return 1;
    if (op->op != IR_CONST && op->op != IR_SPLAT && op->op != IR_BROADCAST) return 0;
    for (int i = 0; i < op->nargs; i++)
        if (!ly_invariant_in(b, op->args[i])) return 0;
    return 1;
}

/* Products issued one iteration ahead (LY_PLAN_EARLY): where the body's
 * first wgmma product reads only loop invariants (its accumulator, an A
 * in registers) and rings that TMA fills, read through descriptors, and
 * another product follows it in the body, iteration j issues the first
 * product of iteration j+1 right after taking its own, so that the
 * tensor cores run it while the threads work on what lies between the
 * two (attention: S = Q K^T of block j+1 under block j's softmax; as
 * FlashAttention-3's intra-warpgroup overlap). The group needs no wait
 * of its own: the later product's wait (no group stays in flight across
 * iterations where there are two products) covers it within the
 * iteration, before the top barrier of the next frees any slot. Slot
 * j+1 is waited for mid-iteration j, so its copy must have been issued
 * an iteration before: 3 stages or more. Sets q->early. */
static void early_plan(Planner *pl, LyPipe *q) {
    q->early = NULL;
    if (!(pl->flags & LY_PLAN_EARLY) || q->nwg < 2 || q->pending || !q->nring ||
        q->ntma != q->nring || q->stages < 3)
        return;
    const IrOp *dot = q->wg_dot[0];
    const IrBlock *body = q->loop->regions[0];
    if (!ly_invariant_in(body, dot->args[2])) return;
    for (int i = 0; i < 2; i++) {
        const IrOp *cv = dot->args[i]->def;
        if (ly_stage_of(q, cv) || (i == 0 && ly_reg_a(q, cv))) return;
        if (ly_ring_operand(pl->p, body, dot, i)) continue;   /* descriptors */
        if (i == 0 && ly_invariant_in(body, dot->args[0])) continue;   /* registers */
        return;
    }
    q->early = dot;
}

/* Operands reading v in block b and the blocks nested in it. */
static int uses_in(const IrBlock *b, const IrValue *v) {
    int n = 0;
    for (const IrOp *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nargs; i++) n += op->args[i] == v;
        for (int r = 0; r < op->nregions; r++) n += uses_in(op->regions[r], v);
    }
    return n;
}

/* Whether product dot's accumulator is carried as the loop's value
 * `carried` through an `if` of the body whose else-arm yields the
 * product as it is and whose then-arm alone reads it otherwise (a
 * persistent kernel's epilogue: store the tile, then start the next one
 * from zero), the accumulator, the product and the `if`'s value sharing
 * one layout (the else-arm converts nothing); conversions of the product
 * between it and the `if` that only the then-arm reads (layout
 * assignment puts a store's conversion at the product) count as the
 * arm's, at most two. Fills q's drain_if and drain_cvt: the group can
 * then stay in flight through every iteration but those that take the
 * then-arm, which waits for it first and converts then
 * (lower/pipeline.c, lw_pipe_drain_begin). */
static int drain_plan(const LyPlan *p, LyPipe *q, const IrOp *dot, const IrValue *carried,
                      const IrValue *acc) {
    const IrValue *d = dot->res[0];
    int ncvt = 0;
    for (const IrOp *g = dot->next; g; g = g->next) {
        if (g->op != IR_IF || g->nregions != 2) {
            for (int i = 0; i < g->nargs; i++) {
                if (g->args[i] != d) continue;
                if (g->op != IR_CONVERT_LAYOUT || ncvt == 2) return 0;
                q->drain_cvt[ncvt++] = g;
            }
            continue;
        }
        const IrOp *ye = g->regions[1]->last;
        int r = 0;
        while (r < g->nres && g->res[r] != carried) r++;
        if (r == g->nres || !ye || ye->op != IR_YIELD || ye->args[r] != d) continue;
        for (int i = 0; i < ncvt; i++) {
            const IrValue *x = q->drain_cvt[i]->res[0];
            if (p->uses[x->id] != uses_in(g->regions[0], x)) return 0;
        }
        if (p->uses[carried->id] != 1 || p->uses[acc->id] != 1 ||
            uses_in(g->regions[1], d) != 1 ||
            p->uses[d->id] != 1 + ncvt + uses_in(g->regions[0], d) ||
            !ly_eq(acc->layout, carried->layout) || !ly_eq(carried->layout, d->layout))
            return 0;
        q->drain_if = g;
        q->ndrain_cvt = ncvt;
        return 1;
    }
    return 0;
}

/* Warpgroup MMA (sm_90a; lower/pipeline.c says how it runs): when layout
 * assignment allowed it for the body's products (Layout.wgmma; at most
 * 4), each takes B from a ring only it reads or from a stage buffer
 * (add_stage: a load too narrow for cp.async, say), and A from a ring
 * only products read (one may serve several), a stage buffer, or
 * registers (f16 and bf16 only); the rings are exactly theirs. With one product that
 * carries its accumulator straight from one iteration to the next
 * (acc = dot(a, b, acc=acc), nothing else reading it; or through an
 * epilogue's `if`, drain_plan), 3 stages or
 * more, its group stays in flight across the barrier (`pending`), and
 * its stage buffers, if any, are two (iteration j stores into one while
 * group j-1 reads the other; plan_pipe takes one and no group in flight
 * where two do not fit). A tf32 operand loaded along M or N from a ring
 * is also staged, from the ring (stage_ring). Returns 1 and fills q
 * when so. */
static int wgmma_plan(Planner *pl, LyPipe *q, int nmarked) {
    const LyPlan *p = pl->p;
    const IrBlock *body = q->loop->regions[0];
    int rings = 0, n = 0;
    for (const IrOp *op = body->first; op; op = op->next) {
        if (op->op != IR_DOT) continue;
        const Layout *cl = op->res[0]->layout;
        if (!cl || cl->kind != LY_MMA || !cl->wgmma || n == 4) return q->nstage = 0;
        if (ly_ring_operand(p, body, op, 1)) {
            rings++;
            if (!stage_ring(pl, q, body, op, 1)) return q->nstage = 0;
        } else if (!add_stage(pl, q, body, op, 1)) {
            return q->nstage = 0;
        }
        if (ly_ring_operand(p, body, op, 0)) {
            rings += new_ring(p, body, q->wg_dot, n, op);
            if (!ring_a_regs(q, op) && !stage_ring(pl, q, body, op, 0)) return q->nstage = 0;
        } else if (!add_stage(pl, q, body, op, 0) &&   /* else A from registers */
                   ly_wgmma_kmajor_only((ScalarKind)op->args[0]->ty.k)) {
            return q->nstage = 0;
        }
        q->wg_dot[n++] = op;
    }
    if (!n || rings != nmarked) return q->nstage = 0;
    q->nwg = n;
    q->carry = -1;
    const IrOp *dot = q->wg_dot[0], *y = body->last;
    for (int i = 0; n == 1 && y && y->op == IR_YIELD && i < y->nargs; i++)
        if (y->args[i] == dot->res[0] && dot->args[2] == body->args[i + 1] &&
            p->uses[dot->res[0]->id] == 1 && p->uses[body->args[i + 1]->id] == 1 &&
            ly_eq(body->args[i + 1]->layout, dot->res[0]->layout))
            q->carry = i;
    q->drain_if = NULL;
    q->ndrain_cvt = 0;
    for (int i = 0; n == 1 && q->carry < 0 && y && y->op == IR_YIELD && i < y->nargs; i++)
        if (dot->args[2] == body->args[i + 1] &&
            drain_plan(p, q, dot, y->args[i], body->args[i + 1]))
            q->carry = i;
    q->pending = q->carry >= 0 && q->stages >= 3;
    q->stage_bufs = q->pending ? 2 : 1;
    return 1;
}

/* Records a loop with marked loads that runs without rings (need: the
 * shared memory its rings would have taken, 0 when room was not the
 * reason). */
static void unpipelined(Planner *pl, const IrOp *loop, int64_t need) {
    LyPlan *p = pl->p;
    if (!p->unpipelined++) {
        p->unpipelined_loop = loop->loc;
        p->unpipelined_need = need;
    }
}

/* A product of `body` that layout assignment allowed on wgmma. */
static int has_wgmma_dot(const IrBlock *body) {
    for (const IrOp *op = body->first; op; op = op->next)
        if (op->op == IR_DOT && op->res[0]->layout && op->res[0]->layout->kind == LY_MMA &&
            op->res[0]->layout->wgmma)
            return 1;
    return 0;
}

/* The shared memory a loop whose rings and stage buffers end `end`
 * bytes into the ring region needs: the scratch used while they are
 * live lies below them, the rest of the scratch may overlap them
 * (lower/kernel.c places both). */
static int64_t pipe_need(Planner *pl, const LyPipe *q, int64_t end) {
    int64_t inside = align128(scratch_bound(pl, q, q->loop->regions[0], q->split_limit)) + end;
    int64_t outside = scratch_bound(pl, NULL, pl->k->body, 0);
    return inside > outside ? inside : outside;
}

/* pipe_need where the body's scratch does not fit below the rings: with
 * the most it may take there as q's split_limit, so that the
 * conversions through a swizzled buffer (a persistent loop's epilogue:
 * 64 KiB for a 128 x 256 f16 tile beside four stages of 48 KiB) go in
 * pieces; the limit stays only where that fits. */
static int64_t fit_split(Planner *pl, LyPipe *q, int64_t end, int64_t need) {
    q->split_limit = (pl->max_shared - end) & ~(int64_t)127;
    int64_t split = q->split_limit > 0 ? pipe_need(pl, q, end) : need;
    if (q->split_limit > 0 && split <= pl->max_shared) return split;
    q->split_limit = 0;
    return need;
}

/* The rings of `loop`'s marked loads and the stage buffers of its
 * products' other operands, placed above the region so far; NULL when
 * the loop has neither or runs without them. */
static LyPipe *plan_pipe(Planner *pl, const IrOp *loop) {
    const IrBlock *body = loop->regions[0];
    int n = 0, stages = 0;
    for (const IrOp *op = body->first; op; op = op->next)
        if (op->op == IR_LOAD && op->iattr[3] >= 2) {
            n++;
            stages = (int)op->iattr[3];
        }
    if (!n && !has_wgmma_dot(body)) return NULL;
    /* stage buffers alone (the generic variant's narrow operands): the
     * kernel's stages, so that with 3 a product stays in flight over two
     * sets of buffers (wgmma_plan); with none, each iteration loaded,
     * stored, multiplied and waited in turn (ragged f16 cubes on an H200
     * 1.03-1.06x faster with the best tile, docs/PERF.md session 32) */
    if (!n) stages = pl->k->stages;
    LyPipe *q = ar_alloc(pl->ar, sizeof *q);
    *q = (LyPipe){.loop = loop, .stages = stages};
    q->ring = ar_alloc(pl->ar, sizeof(LyRing) * (size_t)(n ? n : 1));
    int wg = wgmma_plan(pl, q, n);
    if (!n && !q->nstage) return NULL;
    q->ahead = !n ? 0 : stages - 1;
    /* wgmma's swizzle repeats every 1024 bytes from an aligned start */
    int64_t start = wg ? align1024(pl->p->ring_bytes) : pl->p->ring_bytes, total = 0;
    for (const IrOp *op = body->first; op; op = op->next) {
        if (op->op != IR_LOAD || op->iattr[3] < 2) continue;
        LyRing *r = &q->ring[q->nring++];
        if (op->iattr[3] != stages || !ring_for(pl, op, r, wg)) {
            unpipelined(pl, loop, 0);
            return NULL;
        }
        r->off = start + total;
        total += stages * r->buf;
    }
    if (!ring_stages(pl, q)) {
        unpipelined(pl, loop, 0);
        return NULL;
    }
    reg_a_rings(pl, q);
    q->threads_read = wg && n && !descriptor_rings(q);
    int maps = pl->p->ntmaps;
    if (wg && n) tma_rings(pl, q);
    early_plan(pl, q);
    q->release = release_plan(pl, q);
    q->pingpong = pingpong_plan(pl, q);
    int64_t rings_end = total, need = 0;
    for (;;) {   /* double stage buffers where they fit, else single */
        total = rings_end;
        for (int i = 0; i < q->nstage; i++) {
            LyStage *st = &q->stage[i];
            st->off = start + total;
            st->stage_buf = align1024(ly_smem_bytes(st->s));
            total += q->stage_bufs * st->stage_buf;
        }
        if (q->ntma) {   /* the mbarriers, one per slot (and its release's) */
            q->bar_off = start + total;
            total += 8 * (int64_t)stages * (q->release ? 2 : 1);
        }
        need = pipe_need(pl, q, start + total);
        if (need > pl->max_shared && wg) need = fit_split(pl, q, start + total, need);
        if (need <= pl->max_shared || q->stage_bufs == 1 || !q->nstage) break;
        q->stage_bufs = 1;
        q->pending = 0;
    }
    total += start - pl->p->ring_bytes;
    if (wg) pl->p->ring_align = 1024;   /* even when the budget says no */
    if (need > pl->max_shared) {
        if (n) unpipelined(pl, loop, need);
        pl->p->ntmaps = maps;   /* the loop's maps go with it */
        return NULL;
    }
    q->bytes = total;
    pl->p->ring_bytes += total;
    if (q->early && !pl->p->early) pl->p->early = q->early;
    if (q->release && !pl->p->released) pl->p->released = loop;
    if (q->pingpong && !pl->p->pingpong) pl->p->pingpong = loop;
    return q;
}

/* ---------------------------------------------------------------- how */

static LyHow convert_how(Planner *pl, const IrOp *op) {
    const IrValue *sv = op->args[0], *dv = op->res[0];
    const Layout *sl = sv->layout, *dl = dv->layout;
    const IrOp *ld = sv->def;
    if (ly_is_mma_operand(dl) && ld && ld->op == IR_LOAD &&
        pl->p->how[ld->res[0]->id] == LY_HOW_RING)
        return LY_HOW_RING;
    if (!sl || !dl || sl->rank != 2 || dl->rank != 2 ||
        !(ly_cvt_moves(sl, dl) & (LY_MOVE_LANE | LY_MOVE_WARP)))
        return LY_HOW_KIND;
    ScalarKind k = (ScalarKind)sv->ty.k;
    int esize = ty_bytes(k), trans;
    if (ly_is_mma_operand(dl)) {
        LySmem *s = ly_smem_swizzled(pl->ar, dl->shape, ly_fastest_dim(sl), esize);
        if (!s || !ly_ldmatrix_ok(dl, esize, ly_fastest_dim(sl), s, &trans))
            return LY_HOW_KIND;
        pl->p->smem[dv->id] = s;
        return LY_HOW_LDMATRIX;
    }
    LySmem *s = acc_buffer(pl, op);
    if (!s) return LY_HOW_KIND;
    pl->p->smem[dv->id] = s;
    if (pl->limit > 0 && ly_smem_bytes(s) > pl->limit)
        pl->p->pieces[dv->id] = (uint8_t)pieces_for(ly_smem_bytes(s), pl->limit);
    return LY_HOW_SWIZZLED;
}

/* The swizzled buffer through which conversion op goes
 * (LY_HOW_SWIZZLED): out of an MMA accumulator's layout, across lanes
 * or warps, not into an mma operand; or NULL. */
static LySmem *acc_buffer(Planner *pl, const IrOp *op) {
    const Layout *sl = op->args[0]->layout, *dl = op->res[0]->layout;
    ScalarKind k = (ScalarKind)op->args[0]->ty.k;
    if (!sl || !dl || sl->rank != 2 || dl->rank != 2 || sl->kind != LY_MMA || k == SK_BOOL ||
        ly_is_mma_operand(dl) || !(ly_cvt_moves(sl, dl) & (LY_MOVE_LANE | LY_MOVE_WARP)))
        return NULL;
    return ly_smem_swizzled(pl->ar, dl->shape, ly_fastest_dim(dl), ty_bytes(k));
}

/* ---------------------------------------------------- stores by TMA */

static int is_loop(const IrOp *op) { return op->op == IR_FOR || op->op == IR_WHILE; }

/* op is a loop or holds one. */
static int has_loop(const IrOp *op) {
    if (is_loop(op)) return 1;
    for (int r = 0; r < op->nregions; r++)
        for (const IrOp *x = op->regions[r]->first; x; x = x->next)
            if (has_loop(x)) return 1;
    return 0;
}

/* A loop other than op's own enclosing loops may start after op runs: a
 * later op at any level holds one, or an enclosing loop, which runs
 * its body again, holds one beside op's chain. Such a loop's rings may
 * overlap the scratch (lower/kernel.c) while a bulk store still reads
 * it, and ring copies wait for no bulk store. */
static int loop_may_follow(const IrOp *op) {
    for (const IrOp *x = op; x && x->parent; x = x->parent->parent) {
        for (const IrOp *y = x->next; y; y = y->next)
            if (has_loop(y)) return 1;
        const IrOp *owner = x->parent->parent;
        if (!owner || !is_loop(owner)) continue;
        for (int r = 0; r < owner->nregions; r++)
            for (const IrOp *y = owner->regions[r]->first; y; y = y->next)
                if (y != x && has_loop(y)) return 1;
    }
    return 0;
}

/* The LyTmaStore of store op, or NULL where the threads write it: a 2-D
 * tile whose address and mask are a box (plan/tma.c: rows at least 32
 * bytes wide, boxes side by side only over a multiple of 8 rows), no
 * loop of another's rings after it, a tensor map left. */
static LyTmaStore *tma_store(Planner *pl, const IrOp *op) {
    const IrValue *v = op->args[1];
    ScalarKind k = (ScalarKind)v->ty.k;
    if (v->ty.rank != 2 || !v->layout || k == SK_BOOL || k == SK_PTR ||
        pl->p->ntmaps == LY_MAX_TMAPS || loop_may_follow(op))
        return NULL;
    LyTma *t = NULL;
    const LySmem *s = NULL;
    for (int fast = 1; fast >= 0 && !t; fast--) {
        s = ly_smem_wgmma(pl->ar, v->ty.dim, fast, ty_bytes(k));
        t = s ? ly_tma_store(pl->ar, pl->k, pl->ly->axis, op, s) : NULL;
    }
    if (!t) return NULL;
    t->map = pl->p->ntmaps;
    LyTmaStore *ts = ar_alloc(pl->ar, sizeof *ts);
    *ts = (LyTmaStore){.store = op, .src = v, .s = s, .t = t};
    const IrOp *cv = v->def;   /* its conversion's source written instead */
    if (cv && cv->op == IR_CONVERT_LAYOUT && pl->p->uses[v->id] == 1 && cv->args[0]->layout) {
        ts->src = cv->args[0];
        pl->p->how[v->id] = LY_HOW_TMA_STORE;
    }
    return ts;
}

/* The stores of b written by TMA (LY_PLAN_TMA_STORE), each given the
 * next of the entry's tensor maps, before the loops' rings take theirs. */
static void tma_stores(Planner *pl, const IrBlock *b) {
    if (!(pl->flags & LY_PLAN_TMA_STORE)) return;
    for (const IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++) tma_stores(pl, op->regions[r]);
        LyTmaStore *ts = op->op == IR_STORE ? tma_store(pl, op) : NULL;
        if (!ts) continue;
        LyPlan *p = pl->p;
        LyTmaStore *all = ar_alloc(pl->ar, sizeof *all * (size_t)(p->ntstores + 1));
        if (p->ntstores) memcpy(all, p->tstores, sizeof *all * (size_t)p->ntstores);
        all[p->ntstores++] = *ts;
        p->tstores = all;
        p->tmaps[p->ntmaps++] = ts->t;
    }
}

const LyTmaStore *ly_tma_store_of(const LyPlan *p, const IrOp *op) {
    for (int i = 0; i < p->ntstores; i++)
        if (p->tstores[i].store == op) return &p->tstores[i];
    return NULL;
}

/* Plans b's loops (in program order) and the how of its ops; the rings
 * of a pipelined loop are known before its body's ops are visited. */
static void plan_block(Planner *pl, const IrBlock *b) {
    LyPlan *p = pl->p;
    for (const IrOp *op = b->first; op; op = op->next) {
        if (op->op == IR_FOR) {
            LyPipe *q = plan_pipe(pl, op);
            p->pipe[op->regions[0]->args[0]->id] = q;
            for (int i = 0; q && i < q->nring; i++)
                p->how[q->ring[i].load->res[0]->id] = LY_HOW_RING;
            for (int i = 0; q && i < q->nstage; i++) {
                p->how[q->stage[i].cvt->res[0]->id] = LY_HOW_STAGE;
                p->smem[q->stage[i].cvt->res[0]->id] = q->stage[i].s;
            }
        }
        if (op->op == IR_CONVERT_LAYOUT && p->how[op->res[0]->id] != LY_HOW_STAGE &&
            p->how[op->res[0]->id] != LY_HOW_TMA_STORE)
            p->how[op->res[0]->id] = (uint8_t)convert_how(pl, op);
        int64_t limit = pl->limit;
        if (op->op == IR_FOR && p->pipe[op->regions[0]->args[0]->id])
            pl->limit = p->pipe[op->regions[0]->args[0]->id]->split_limit;
        for (int r = 0; r < op->nregions; r++) plan_block(pl, op->regions[r]);
        pl->limit = limit;
    }
}

LyPlan *ly_plan_lowering(Arena *ar, const IrKernel *k, const LyResult *ly,
                         int64_t max_shared, int flags) {
    size_t n = (size_t)k->nvalues + 1;
    LyPlan *p = ar_alloc(ar, sizeof *p);
    memset(p, 0, sizeof *p);
    p->uses = ar_alloc(ar, sizeof(int) * n);
    p->how = ar_alloc(ar, n);
    p->smem = ar_alloc(ar, sizeof(LySmem *) * n);
    p->pieces = ar_alloc(ar, n);
    memset(p->pieces, 0, n);
    p->pipe = ar_alloc(ar, sizeof(LyPipe *) * n);
    memset(p->uses, 0, sizeof(int) * n);
    memset(p->how, LY_HOW_KIND, n);
    memset(p->smem, 0, sizeof(LySmem *) * n);
    memset(p->pipe, 0, sizeof(LyPipe *) * n);
    ir_count_uses(p->uses, k->body);
    Planner pl = {.ar = ar, .k = k, .ly = ly, .max_shared = max_shared, .flags = flags,
                  .p = p};
    tma_stores(&pl, k->body);
    plan_block(&pl, k->body);
    p->magic = ly_plan_divisors(ar, k, ly);
    return p;
}

const LyPipe *ly_pipe_of(const LyPlan *p, const IrOp *loop) {
    return p->pipe[loop->regions[0]->args[0]->id];
}

const LyStage *ly_stage_of(const LyPipe *q, const IrOp *cv) {
    for (int i = 0; q && cv && i < q->nstage; i++)
        if (q->stage[i].cvt == cv) return &q->stage[i];
    return NULL;
}

/* The text of misfit `why` of product dot (not LY_WG_FITS). */
static const char *misfit_text(Arena *ar, const IrKernel *k, const IrOp *dot,
                               LyWgmmaMisfit why) {
    const Type ta = dot->args[0]->ty, tr = ty_pad(dot->res[0]->ty);
    switch (why) {
    case LY_WG_DTYPE:
        return ar_printf(ar, "its operands are %s (wgmma is used for f16, bf16, tf32 "
                         "and f8)", ty_kind_name((ScalarKind)ta.k));
    case LY_WG_F16_ACC:
        return "its accumulator is f16 (out_dtype=f16: mma.sync accumulates in f16; "
               "wgmma with f16 accumulators is not implemented)";
    case LY_WG_WARPS:
        return ar_printf(ar, "warps = %d is not a multiple of 4 (a warpgroup)", k->warps);
    case LY_WG_ROWS:
        return ar_printf(ar, "its M = %d is not a multiple of 64", (int)tr.dim[0]);
    case LY_WG_FEW_ROWS:
        return ar_printf(ar, "its M = %d is below 16 x warps = %d (wgmma puts every "
                         "warp on M)", (int)tr.dim[0], 16 * k->warps);
    case LY_WG_COLS:
        return ar_printf(ar, "its N = %d is below 8", (int)tr.dim[1]);
    case LY_WG_STAGES:
        return ar_printf(ar, "stages = %d (wgmma reads operands staged in shared memory "
                         "by a loop with stages >= 2)", k->stages);
    case LY_WG_LOOP:
        return "its B operand is not loaded in the product's `for` loop";
    case LY_WG_F8: {
        LyWgmmaMisfit sub = (LyWgmmaMisfit)dot->iattr[2];
        const char *r = sub == LY_WG_DTYPE ? "FP8 tensor-core instructions are used on "
                                             "sm_90a (wgmma) only"
                                           : misfit_text(ar, k, dot, sub);
        return ar_printf(ar, "its operands are f8, converted to f16 for the product: %s", r);
    }
    case LY_WG_A_MN: case LY_WG_B_MN:   /* tf32, or f8 (widened: iattr[2]) */
        return ar_printf(ar, "its %s operand is loaded along %s%s (wgmma reads %s K-major "
                         "only%s)", why == LY_WG_A_MN ? "A" : "B", why == LY_WG_A_MN ? "M" : "N",
                         dot->iattr[2] ? "" : " in pieces narrower than 16 bytes",
                         dot->iattr[2] ? "f8" : "tf32",
                         dot->iattr[2] ? "" : "; from 4-byte copies a product stays on "
                         "mma.sync, which measured faster");
    case LY_WG_A_LOOP:
        return "its A operand is not loaded in the product's `for` loop (wgmma "
               "takes a tf32 A from registers only as read from its ring in the loop)";
    case LY_WG_F8_LOOP:
        return "its loop cannot run it on warpgroup MMA (its rings, beside the scratch, "
               "do not fit the shared memory; or another product of the loop keeps it off)";
    case LY_WG_FITS:
        break;
    }
    return "?";
}

/* The stage of q that conversion cv fills from a ring, or NULL. */
static const LyStage *ring_stage(const LyPipe *q, const IrOp *cv) {
    const LyStage *st = ly_stage_of(q, cv);
    return st && st->ring ? st : NULL;
}

/* The pipeline plan of the `for` loop product dot is in, or NULL. */
static const LyPipe *dot_pipe(const LyPlan *p, const IrOp *dot) {
    const IrOp *loop = dot->parent ? dot->parent->parent : NULL;
    return loop && loop->op == IR_FOR ? ly_pipe_of(p, loop) : NULL;
}

const char *ly_wgmma_note(Arena *ar, const LyPlan *p, const IrOp *dot) {
    const Layout *cl = dot->res[0]->layout;
    const LyPipe *q = dot_pipe(p, dot);
    if (!cl || cl->kind != LY_MMA || !cl->wgmma || !ly_wgmma_planned(q, dot)) return NULL;
    const IrOp *ca = dot->args[0]->def, *cb = dot->args[1]->def;
    const char *a = ly_reg_a(q, ca) && dot->iattr[3]
                        ? "its operands are swapped (C^T = B^T A^T: plan/swap_dot.c): B, loaded "
                          "along N, is read from its ring into registers as wgmma's A, and A, "
                          "loaded along K, is its K-major B"
                    : ly_reg_a(q, ca) ? "its A operand, loaded along M, is read from its ring "
                                        "into registers"
                    : ring_stage(q, ca) ? "its A operand, loaded along M, is moved K-major by "
                                          "the threads each iteration" : NULL;
    const char *b = ring_stage(q, cb) ? "its B operand, loaded along N, is moved K-major by "
                                        "the threads each iteration" : NULL;
    if (!a && !b) return NULL;
    const char *one = q->nstage && q->stage_bufs == 1 && q->carry >= 0 && q->stages >= 3
                          ? " (one stage buffer each: two do not fit beside the rings, so no "
                            "wgmma group stays in flight across iterations)" : "";
    return ar_printf(ar, "%s%s%s%s", a ? a : "", a && b ? "; " : "", b ? b : "", one);
}

const char *ly_mma_reason(Arena *ar, const LyPlan *p, const IrKernel *k, const IrOp *dot) {
    const Layout *cl = dot->res[0]->layout;
    if (!cl || cl->kind != LY_MMA) return NULL;   /* FMA chains: no tensor cores */
    LyWgmmaMisfit why = cl->wgmma ? LY_WG_FITS : (LyWgmmaMisfit)dot->iattr[1];
    if (why != LY_WG_FITS) return misfit_text(ar, k, dot, why);
    const LyPipe *q = dot_pipe(p, dot);
    if (ly_wgmma_planned(q, dot)) return NULL;
    if (!q)
        return "its loop's rings and stage buffers, beside the scratch, do not fit "
               "the shared memory";
    return "its loop has more than 4 products, or an operand's ring or conversion "
           "is read by more than products";
}
