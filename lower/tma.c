/*
 * tma.c — rings filled by TMA copies (plan/tma.c chose them; lower/
 * pipeline.c runs the loop around them), and stores written by TMA
 * (plan/lowering.c chose them; "stores by TMA" below has their design).
 *
 * Each slot of a loop with TMA rings has an mbarrier (LyPipe.bar_off),
 * initialized by thread 0 at the loop's start for one arrival (then
 * every thread's proxy fence, so that what it wrote there as scratch
 * is ordered before the copies, and a barrier): filling
 * slot s, thread 0 announces the bytes every TMA ring of the slot will
 * bring (mbarrier.arrive.expect_tx) and issues the copies, one per box:
 *
 *   cp.async.bulk.tensor.2d.shared::cluster.global.tile
 *       .mbarrier::complete_tx::bytes [slot + b * rows * swizzle],
 *       [map, {i_f(0) + b * box0, i_o(0)}], [bar_s]
 *
 * (the ring's buffer is ly_smem_wgmma's: box b is the b-th block of
 * `swizzle` bytes of every row). The phase completes when the bytes
 * have landed. Iteration j reads slot j % S; its threads wait for the
 * barrier's phase of parity (j / S) % 2 (an i32 phi of the loop header
 * flipped where the slot wraps), which makes the copies' writes visible
 * to them; wgmma then reads the slot through the async proxy the copies
 * wrote through, so no proxy fence is needed. The slots are freed for
 * the next copies as for cp.async rings (the iteration's barrier).
 *
 * A coordinate is element 0 of the load's index tile, which thread 0
 * holds in its register 0 (a linear layout maps index 0 to coordinate
 * 0), computed for the iteration being copied as the cp.async rings'
 * addresses are (pipeline.c's issue). Where the mask's bound is not
 * positive at run time, every element must read zero, but the tensor
 * map's extent is at least 1 (libtile clamps it): the coordinate then
 * moves to -2^30, a box wholly out of bounds.
 *
 * A copy for an iteration that does not run (the prologue's, past the
 * loop's end) is not issued at all, and no thread waits for it; so by
 * the loop's end every copy issued has been waited for, and after a
 * barrier thread 0 invalidates the mbarriers, whose bytes the scratch
 * may reuse. A loop entered again (inside an outer loop) initializes
 * them again, from phase 0.
 *
 * Released slots (plan LyPipe.release): each slot has a second mbarrier,
 * `stages` slots after the first ones, initialized for one arrival per
 * warp. A warp is done with slot s once its wait for the products that
 * read it returns (wgmma.wait_group is warp-synchronous, and only
 * descriptors read a TMA ring); its lane 0 then arrives on s's second
 * mbarrier (lw_tma_release). Thread 0, before refilling s for its n-th
 * use (n = 0, 1, ...), waits for that mbarrier's phase of parity
 * (n + 1) % 2, which on a fresh mbarrier (phase 0, "parity 1 complete")
 * returns at once. The phases cannot alias: a warp arrives for use n of
 * s only after waiting for its copies, which thread 0 issued after phase
 * n - 1 completed; and a warp waits for the copies of use n only before
 * arriving for it, so thread 0 cannot complete use n + 1's copies
 * before every warp saw use n's. So no CTA barrier is crossed in the
 * loop: warps wait only for the data they read, and thread 0 (a
 * consumer too) for every warp to be done with the slot it refills.
 *
 * Counted slots (LY_RELEASE_LAST): the second mbarrier is a u32 counter
 * instead, zeroed with the mbarriers. Where thread 0 would wait for the
 * release and refill, every warp's lane 0 counts its warp done with the
 * slot (atom.acq_rel inc, wrapping at warps - 1) and the warp that
 * completes the count copies (lw_tma_refill_last): nothing waits for a
 * release. Its acquire follows every warp's release (one release
 * sequence), as the mbarrier's phase did. That warp's coordinates come
 * from its own registers (box_coordinate's any_thread).
 */
#include "lower/lw.h"

/* Slot `slot`'s mbarrier (i32 slot), in the ring region: the copies'
 * (which = 0) or, for released slots, the readers' (which = 1: an
 * mbarrier, or the counter of counted slots, in the same 8 bytes). */
static LLVMValueRef mbar_addr(LwFn *f, const LyPipe *q, LLVMValueRef slot, int which) {
    LwCtx *c = f->c;
    LLVMValueRef off = LLVMBuildAdd(c->b, lw_i32(c, q->bar_off + 8 * which * q->stages),
                                    LLVMBuildMul(c->b, slot, lw_i32(c, 8), ""), "");
    return LLVMBuildGEP2(c->b, c->i8, f->ring, &off, 1, "");
}

/* i1: this is the program's thread 0, the one that issues the copies. */
static LLVMValueRef thread0(LwFn *f) {
    LwCtx *c = f->c;
    return LLVMBuildICmp(c->b, LLVMIntEQ, LLVMBuildOr(c->b, f->lane, f->warp, ""),
                         lw_i32(c, 0), "");
}

/* The number of mbarriers of q's slots: the copies', and the readers'
 * where released through mbarriers (counters are no mbarriers). */
static int mbarriers(const LyPipe *q) {
    return q->stages * (q->release == LY_RELEASE_MBARRIER ? 2 : 1);
}

void lw_tma_init(LwFn *f, const LyPipe *q) {
    LwCtx *c = f->c;
    LLVMBasicBlockRef j = lw_only_if(f, thread0(f), "tma.init", "tma.join");
    for (int s = 0; s < mbarriers(q); s++) {
        /* the copies' mbarriers take thread 0's arrival, the readers'
         * one a warp */
        LLVMValueRef a[2] = {mbar_addr(f, q, lw_i32(c, s % q->stages), s / q->stages),
                             lw_i32(c, s < q->stages ? 1 : f->k->warps)};
        lw_asm(c, c->vd, "mbarrier.init.shared::cta.b64 [$0], $1;", "l,r,~{memory}", a, 2,
               LW_ASM_WRITES);
    }
    for (int s = 0; q->release == LY_RELEASE_LAST && s < q->stages; s++)
        LLVMBuildStore(c->b, lw_i32(c, 0), mbar_addr(f, q, lw_i32(c, s), 1));   /* counters */
    lw_asm(c, c->vd, "fence.mbarrier_init.release.cluster;", "~{memory}", NULL, 0,
           LW_ASM_WRITES);
    lw_join(f, j);
    /* the slots may hold what threads wrote there as scratch (generic
     * proxy) before the copies (async proxy) write them: each thread
     * orders its own writes first, then the barrier */
    lw_call_intr(c, "llvm.nvvm.fence.proxy.async.shared_cta", NULL, 0, NULL, 0);
    lw_barrier(f);
}

/* i1: the mask's bound on dimension d of t is positive; NULL: no bound. */
static LLVMValueRef bound_positive(LwFn *f, const LyTma *t, int d) {
    if (!t->bound[d]) return NULL;
    LLVMValueRef b = lw_val(f, t->bound[d])->r[0];
    return LLVMBuildICmp(f->c->b, LLVMIntSGT, b, LLVMConstInt(LLVMTypeOf(b), 0, 0), "");
}

/* Coordinate d of t's copy: element 0 of its index tile plus its shift.
 * Thread 0's register 0 holds element 0; `any_thread`: the coordinate is
 * wanted in whichever thread computes it (a released slot's last warp),
 * whose register 0 holds the element as many places along t->run[d]
 * further, and as much larger. */
static LLVMValueRef box_coordinate(LwFn *f, const LyTma *t, int d, int any_thread) {
    LLVMBuilderRef b = f->c->b;
    LLVMValueRef x = lw_val(f, t->index[d])->r[0];
    if (any_thread) x = LLVMBuildSub(b, x, lw_coord(f, t->index[d]->layout, 0, t->run[d]), "");
    if (t->shift[d]) x = LLVMBuildAdd(b, x, lw_val(f, t->shift[d])->r[0], "");
    return x;
}

/* The batch coordinate of a 3-D t: an i32 by plan/tma.c's interval. */
static LLVMValueRef batch_coordinate(LwFn *f, const LyTma *t) {
    LLVMValueRef z = lw_val(f, t->batch)->r[0];
    return LLVMTypeOf(z) == f->c->i32 ? z : LLVMBuildTrunc(f->c->b, z, f->c->i32, "");
}

/* Coordinate d of ring tma t's copy: box_coordinate, or far out of
 * bounds where the mask's bound is not positive (the box reads zeros). */
static LLVMValueRef coordinate(LwFn *f, const LyTma *t, int d, int any_thread) {
    LLVMValueRef x = box_coordinate(f, t, d, any_thread), pos = bound_positive(f, t, d);
    return pos ? LLVMBuildSelect(f->c->b, pos, x, lw_i32(f->c, -(1 << 30)), "") : x;
}

/* Polls slot `slot`'s mbarrier `which` (mbar_addr) until its phase of
 * parity `phase` has completed. */
static void poll(LwFn *f, const LyPipe *q, LLVMValueRef slot, int which, LLVMValueRef phase) {
    LwCtx *c = f->c;
    LLVMBasicBlockRef again = lw_new_bb(f, "tma.wait"), done = lw_new_bb(f, "tma.ready");
    LLVMValueRef bar = mbar_addr(f, q, slot, which);
    LLVMBuildBr(c->b, again);
    LLVMPositionBuilderAtEnd(c->b, again);
    LLVMValueRef a[2] = {bar, phase};
    LLVMValueRef ok = lw_asm(c, c->i32,
                             "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, "
                             "[$1], $2; selp.u32 $0, 1, 0, p; }",
                             "=r,l,r,~{memory}", a, 2, LW_ASM_WRITES);
    LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntNE, ok, lw_i32(c, 0), ""), done, again);
    LLVMPositionBuilderAtEnd(c->b, done);
}

LLVMValueRef (*lw_tma_coords(LwFn *f, const LyPipe *q, int pin))[3] {
    LwCtx *c = f->c;
    LLVMValueRef (*coord)[3] = ar_alloc(c->ar, sizeof *coord * (size_t)q->nring);
    for (int i = 0; i < q->nring; i++) {
        const LyTma *t = q->ring[i].tma;
        if (!t) continue;
        for (int d = 0; d < 2; d++)
            coord[i][d] = coordinate(f, t, d, q->release == LY_RELEASE_LAST);
        if (t->rank == 3) coord[i][2] = batch_coordinate(f, t);
        for (int d = 0; pin && d < t->rank; d++)
            coord[i][d] = lw_asm(c, c->i32, "mov.b32 $0, $1;", "=r,r", &coord[i][d], 1,
                                 LW_ASM_WRITES);
    }
    return coord;
}

/* (in the copying thread) Announces slot `slot`'s bytes on its mbarrier
 * and copies every TMA ring's boxes into it. */
static void copy_boxes(LwFn *f, const LyPipe *q, LLVMValueRef slot, LLVMValueRef (*coord)[3]) {
    LwCtx *c = f->c;
    LLVMValueRef bar = mbar_addr(f, q, slot, 0);
    LLVMValueRef a[6] = {bar, lw_i32(c, q->tma_bytes)};
    lw_asm(c, c->vd, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;",
           "l,r,~{memory}", a, 2, LW_ASM_WRITES);
    for (int i = 0; i < q->nring; i++) {
        const LyRing *r = &q->ring[i];
        const LyTma *t = r->tma;
        if (!t) continue;
        for (int b = 0; b < t->nbox; b++) {
            LLVMValueRef off = LLVMBuildAdd(
                c->b, lw_i32(c, r->off + (int64_t)b * t->box[1] * t->swizzle),
                LLVMBuildMul(c->b, slot, lw_i32(c, r->buf), ""), "");
            a[0] = LLVMBuildGEP2(c->b, c->i8, f->ring, &off, 1, "");
            a[1] = f->tmap[t->map];
            a[2] = LLVMBuildAdd(c->b, coord[i][0], lw_i32(c, (int64_t)b * t->box[0]), "");
            a[3] = coord[i][1];
            if (t->rank == 3) {
                a[4] = coord[i][2];
                a[5] = bar;
                lw_asm(c, c->vd,
                       "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::"
                       "complete_tx::bytes [$0], [$1, {$2, $3, $4}], [$5];",
                       "l,l,r,r,r,l,~{memory}", a, 6, LW_ASM_WRITES);
                continue;
            }
            a[4] = bar;
            lw_asm(c, c->vd,
                   "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                   "complete_tx::bytes [$0], [$1, {$2, $3}], [$4];",
                   "l,l,r,r,l,~{memory}", a, 5, LW_ASM_WRITES);
        }
    }
}

/* The branch a copy runs in, where `valid` (NULL: always) holds: thread
 * 0's, or with `counted` each warp's lane 0, which counts its warp done
 * with the slot. The coordinates, where not given, are computed before
 * it, by every thread from its own registers (box_coordinate). */
static LLVMBasicBlockRef open_copy(LwFn *f, const LyPipe *q, LLVMValueRef valid, int counted,
                                   LLVMValueRef (**coord)[3]) {
    LwCtx *c = f->c;
    if (!*coord) *coord = lw_tma_coords(f, q, 0);
    LLVMValueRef go = counted ? LLVMBuildICmp(c->b, LLVMIntEQ, f->lane, lw_i32(c, 0), "")
                              : thread0(f);
    if (valid) go = LLVMBuildAnd(c->b, go, valid, "");
    return lw_only_if(f, go, counted ? "tma.count" : "tma.copy", "tma.join");
}

void lw_tma_issue(LwFn *f, const LyPipe *q, LLVMValueRef slot, LLVMValueRef valid,
                  LLVMValueRef freed, LLVMValueRef (*coord)[3]) {
    LLVMBasicBlockRef j = open_copy(f, q, valid, 0, &coord);
    if (freed) poll(f, q, slot, 1, freed);   /* every warp done with the slot */
    copy_boxes(f, q, slot, coord);
    lw_join(f, j);
}

void lw_tma_refill_last(LwFn *f, const LyPipe *q, LLVMValueRef slot, LLVMValueRef valid,
                        LLVMValueRef (*coord)[3]) {
    LwCtx *c = f->c;
    LLVMBasicBlockRef j = open_copy(f, q, valid, 1, &coord);
    /* inc wraps to 0 past the bound: the warps' count of this use */
    LLVMValueRef a[2] = {mbar_addr(f, q, slot, 1), lw_i32(c, f->k->warps - 1)};
    LLVMValueRef old = lw_asm(c, c->i32, "atom.acq_rel.cta.shared::cta.inc.u32 $0, [$1], $2;",
                              "=r,l,r,~{memory}", a, 2, LW_ASM_WRITES);
    LLVMBasicBlockRef k = lw_only_if(
        f, LLVMBuildICmp(c->b, LLVMIntEQ, old, lw_i32(c, f->k->warps - 1), ""), "tma.last",
        "tma.join");
    copy_boxes(f, q, slot, coord);
    lw_join(f, k);
    lw_join(f, j);
}

void lw_tma_wait(LwFn *f, const LyPipe *q, LLVMValueRef slot, LLVMValueRef phase) {
    poll(f, q, slot, 0, phase);
}

void lw_tma_release(LwFn *f, const LyPipe *q, LLVMValueRef slot, LLVMValueRef cond) {
    LwCtx *c = f->c;
    LLVMValueRef go = LLVMBuildICmp(c->b, LLVMIntEQ, f->lane, lw_i32(c, 0), "");
    if (cond) go = LLVMBuildAnd(c->b, go, cond, "");
    LLVMBasicBlockRef j = lw_only_if(f, go, "tma.release", "tma.join");
    LLVMValueRef a = mbar_addr(f, q, slot, 1);
    lw_asm(c, c->vd, "mbarrier.arrive.shared::cta.b64 _, [$0];", "l,~{memory}", &a, 1,
           LW_ASM_WRITES);
    lw_join(f, j);
}

void lw_tma_end(LwFn *f, const LyPipe *q) {
    LwCtx *c = f->c;
    lw_barrier(f);
    LLVMBasicBlockRef j = lw_only_if(f, thread0(f), "tma.inval", "tma.join");
    for (int s = 0; s < mbarriers(q); s++) {
        LLVMValueRef a = mbar_addr(f, q, lw_i32(c, s % q->stages), s / q->stages);
        lw_asm(c, c->vd, "mbarrier.inval.shared::cta.b64 [$0];", "l,~{memory}", &a, 1,
               LW_ASM_WRITES);
    }
    lw_join(f, j);
}

/* ---------------------------------------------------- stores by TMA
 *
 * A store the plan gives a box (LyTmaStore): after the scratch barrier,
 * every thread writes its elements of the tile (the store's value, or
 * the source of its conversion, in that layout) into the scratch laid
 * out as the box buffer (ly_smem_wgmma: blocks of `swizzle` bytes of
 * every row, units XORed with the row — what TMA's swizzle modes read),
 * orders its writes before the async proxy's reads (fence.proxy.async),
 * and after a barrier thread 0 copies box b out:
 *
 *   cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
 *       [map, {i_f(0) + b * box0, i_o(0)}], [scratch + b * rows * swizzle]
 *
 * then commits them as one bulk group. TMA writes the elements of the
 * box inside the tensor's extents (the mask's bounds) and drops the
 * rest, as the masked store does; where a bound is not positive nothing
 * is copied (a load's box far out of bounds, coordinate(), stopped an
 * H200 with an illegal instruction as a store: docs/PERF.md, session
 * 41). The threads go on at once: only before
 * the scratch is written again (lw_scratch_barrier, called by every
 * user of the scratch before it writes) does thread 0 wait for its bulk
 * groups to have been read (cp.async.bulk.wait_group.read 0), the
 * barrier after it holding the others; and before the program ends, the
 * same wait: its shared memory, the source, must outlive the reads,
 * while the writes to global memory complete with the grid (CUTLASS's
 * epilogues end so too; a full wait_group 0 kept the program's shared
 * memory until they had: docs/PERF.md, session 41).
 * The plan (plan/lowering.c) keeps such stores where no loop of other
 * rings follows them: ring copies, which may overlap the scratch, do
 * not wait for bulk stores. */

void lw_tma_store(LwFn *f, const LyTmaStore *ts) {
    LwCtx *c = f->c;
    const LyTma *t = ts->t;
    ScalarKind k = (ScalarKind)ts->src->ty.k;
    LLVMValueRef base = lw_smem(f, ly_smem_bytes(ts->s));
    LLVMValueRef x = box_coordinate(f, t, 0, 0), y = box_coordinate(f, t, 1, 0), z = NULL;
    LLVMValueRef go = thread0(f);   /* and no bound is below 1: else nothing to store */
    for (int d = 0; d < 2; d++) {
        LLVMValueRef pos = bound_positive(f, t, d);
        if (pos) go = LLVMBuildAnd(c->b, go, pos, "");
    }
    if (t->rank == 3) z = batch_coordinate(f, t);
    lw_scratch_barrier(f);
    lw_store_smem(f, base, *lw_val(f, ts->src), k, ts->src->layout, ts->s);
    lw_call_intr(c, "llvm.nvvm.fence.proxy.async.shared_cta", NULL, 0, NULL, 0);
    lw_barrier(f);
    LLVMBasicBlockRef j = lw_only_if(f, go, "tma.store", "tma.join");
    for (int b = 0; b < t->nbox; b++) {
        LLVMValueRef off = lw_i32(c, (int64_t)b * t->box[1] * t->swizzle);
        LLVMValueRef a[5] = {f->tmap[t->map],
                             LLVMBuildAdd(c->b, x, lw_i32(c, (int64_t)b * t->box[0]), ""), y,
                             z, LLVMBuildGEP2(c->b, c->i8, base, &off, 1, "")};
        if (t->rank == 3)
            lw_asm(c, c->vd,
                   "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group "
                   "[$0, {$1, $2, $3}], [$4];",
                   "l,r,r,r,l,~{memory}", a, 5, LW_ASM_WRITES);
        else {
            a[3] = a[4];
            lw_asm(c, c->vd,
                   "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$0, {$1, $2}], [$3];",
                   "l,r,r,l,~{memory}", a, 4, LW_ASM_WRITES);
        }
    }
    lw_asm(c, c->vd, "cp.async.bulk.commit_group;", "~{memory}", NULL, 0, LW_ASM_WRITES);
    lw_join(f, j);
}

/* Thread 0 waits for its bulk groups to have read their source. */
void lw_tma_store_read_wait(LwFn *f) {
    LwCtx *c = f->c;
    LLVMBasicBlockRef j = lw_only_if(f, thread0(f), "tma.drain", "tma.join");
    lw_asm(c, c->vd, "cp.async.bulk.wait_group.read 0;", "~{memory}", NULL, 0, LW_ASM_WRITES);
    lw_join(f, j);
}
