/*
 * tma.c — rings filled by TMA copies (plan/tma.c chose them; lower/
 * pipeline.c runs the loop around them).
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
 * Row maps (LyTma.rows, plan/tma.c): thread 0 also stores, before its
 * arrival, each row ring's tail for the slot (the columns inside the
 * mask's bound: an i32 per slot and ring from LyPipe.tail_off); warp
 * 0's lanes then copy the rows (issue_rows), without a barrier after
 * thread 0: a copy completing first takes its bytes off the transaction
 * count, and the phase still waits for the arrival. After the wait,
 * where a slot's tail is short of its width, every thread zeroes the
 * columns past it (lw_tma_fixup, zero_tail) and fences the async proxy
 * before the caller's barrier.
 *
 * A copy for an iteration that does not run (the prologue's, past the
 * loop's end) is not issued at all, and no thread waits for it; so by
 * the loop's end every copy issued has been waited for, and after a
 * barrier thread 0 invalidates the mbarriers, whose bytes the scratch
 * may reuse. A loop entered again (inside an outer loop) initializes
 * them again, from phase 0.
 */
#include "lower/lw.h"

/* Slot `slot`'s mbarrier (i32 slot), in the ring region. */
static LLVMValueRef bar_addr(LwFn *f, const LyPipe *q, LLVMValueRef slot) {
    LwCtx *c = f->c;
    LLVMValueRef off = LLVMBuildAdd(c->b, lw_i32(c, q->bar_off),
                                    LLVMBuildMul(c->b, slot, lw_i32(c, 8), ""), "");
    return LLVMBuildGEP2(c->b, c->i8, f->ring, &off, 1, "");
}

/* Branches to a new block where `cond` holds (i1) and returns the block
 * that join() continues in afterwards. */
static LLVMBasicBlockRef only_if(LwFn *f, LLVMValueRef cond, const char *name) {
    LLVMBasicBlockRef then = lw_new_bb(f, name), join = lw_new_bb(f, "tma.join");
    LLVMBuildCondBr(f->c->b, cond, then, join);
    LLVMPositionBuilderAtEnd(f->c->b, then);
    return join;
}

/* Ends only_if's block: on to j. */
static void join(LwFn *f, LLVMBasicBlockRef j) {
    LLVMBuildBr(f->c->b, j);
    LLVMPositionBuilderAtEnd(f->c->b, j);
}

/* i1: this is the program's thread 0, the one that issues the copies. */
static LLVMValueRef thread0(LwFn *f) {
    LwCtx *c = f->c;
    return LLVMBuildICmp(c->b, LLVMIntEQ, LLVMBuildOr(c->b, f->lane, f->warp, ""),
                         lw_i32(c, 0), "");
}

void lw_tma_init(LwFn *f, const LyPipe *q) {
    LwCtx *c = f->c;
    LLVMBasicBlockRef j = only_if(f, thread0(f), "tma.init");
    for (int s = 0; s < q->stages; s++) {
        LLVMValueRef a[2] = {bar_addr(f, q, lw_i32(c, s)), lw_i32(c, 1)};
        lw_asm(c, c->vd, "mbarrier.init.shared::cta.b64 [$0], $1;", "l,r,~{memory}", a, 2,
               LW_ASM_WRITES);
    }
    lw_asm(c, c->vd, "fence.mbarrier_init.release.cluster;", "~{memory}", NULL, 0,
           LW_ASM_WRITES);
    join(f, j);
    /* the slots may hold what threads wrote there as scratch (generic
     * proxy) before the copies (async proxy) write them: each thread
     * orders its own writes first, then the barrier */
    lw_call_intr(c, "llvm.nvvm.fence.proxy.async.shared_cta", NULL, 0, NULL, 0);
    lw_barrier(f);
}

/* Coordinate d of ring tma t's copy: element 0 of its index tile, or far
 * out of bounds where the mask's bound is not positive. */
static LLVMValueRef coordinate(LwFn *f, const LyTma *t, int d) {
    LwCtx *c = f->c;
    LLVMValueRef x = lw_val(f, t->index[d])->r[0];
    if (!t->bound[d]) return x;
    LLVMValueRef b = lw_val(f, t->bound[d])->r[0];
    LLVMValueRef pos = LLVMBuildICmp(c->b, LLVMIntSGT, b, LLVMConstInt(LLVMTypeOf(b), 0, 0), "");
    return LLVMBuildSelect(c->b, pos, x, lw_i32(c, -(1 << 30)), "");
}

/* Row ring number `i` (its order among the loop's row rings): slot
 * `slot`'s tail word. */
static LLVMValueRef tail_addr(LwFn *f, const LyPipe *q, LLVMValueRef slot, int i) {
    LwCtx *c = f->c;
    LLVMValueRef off = LLVMBuildAdd(
        c->b, lw_i32(c, q->tail_off + 4 * i),
        LLVMBuildMul(c->b, slot, lw_i32(c, 4 * q->nrows), ""), "");
    return LLVMBuildGEP2(c->b, c->i8, f->ring, &off, 1, "");
}

/* i64 of integer scalar x, sign-extended. */
static LLVMValueRef wide(LwFn *f, LLVMValueRef x) {
    LwCtx *c = f->c;
    return LLVMTypeOf(x) == c->i64 ? x : LLVMBuildSExt(c->b, x, c->i64, "");
}

/* i32 of integer scalar x (the low word). */
static LLVMValueRef narrow(LwFn *f, LLVMValueRef x) {
    LwCtx *c = f->c;
    return LLVMTypeOf(x) == c->i32 ? x : LLVMBuildTrunc(c->b, x, c->i32, "");
}

/* Row ring t's tail for the tile whose first column is if0 (i32): the
 * columns inside the mask's bound, clamped to [0, the tile's width]. */
static LLVMValueRef row_tail(LwFn *f, const LyTma *t, LLVMValueRef if0) {
    LwCtx *c = f->c;
    LLVMValueRef n = LLVMBuildSub(c->b, wide(f, lw_val(f, t->bound[0])->r[0]), wide(f, if0), "");
    LLVMValueRef w = LLVMConstInt(c->i64, (unsigned long long)t->nbox * (unsigned)t->box[0], 0);
    LLVMValueRef zero = LLVMConstInt(c->i64, 0, 0);
    n = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, n, zero, ""), zero, n, "");
    n = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSGT, n, w, ""), w, n, "");
    return LLVMBuildTrunc(c->b, n, c->i32, "");
}

/* Warp 0's copies of row ring r (map t) into `slot`: lane l copies rows
 * l, l + 32, ..., each box of each; a row past the mask's bound starts
 * at -2^30 (wholly out of bounds: zeros). The tile's corner is thread
 * 0's register 0, shuffled from lane 0. */
static void issue_rows(LwFn *f, const LyRing *r, const LyTma *t, LLVMValueRef slot,
                       LLVMValueRef bar) {
    LwCtx *c = f->c;
    LLVMValueRef zero = lw_i32(c, 0);
    LLVMValueRef io0 = lw_shfl(f, LW_SHFL_IDX, lw_val(f, t->index[1])->r[0], zero);
    LLVMValueRef if0 = lw_shfl(f, LW_SHFL_IDX, lw_val(f, t->index[0])->r[0], zero);
    LLVMValueRef stride = narrow(f, lw_val(f, t->stride)->r[0]);
    LLVMValueRef bo = wide(f, lw_val(f, t->bound[1])->r[0]);
    LLVMValueRef base = lw_slot_base(f, r, slot);
    int rows = t->box[1];
    for (int j = 0; j * 32 < rows; j++) {
        LLVMValueRef y = LLVMBuildAdd(c->b, f->lane, lw_i32(c, 32 * j), "");
        LLVMValueRef row = LLVMBuildAdd(c->b, io0, y, "");
        LLVMValueRef in = LLVMBuildICmp(c->b, LLVMIntSLT, wide(f, row), bo, "");
        LLVMValueRef at = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, row, stride, ""), if0, "");
        at = LLVMBuildSelect(c->b, in, at, lw_i32(c, -(1 << 30)), "");
        /* lanes past the slot's rows (fewer than 32 a turn) copy nothing */
        LLVMBasicBlockRef past = NULL;
        if ((j + 1) * 32 > rows)
            past = only_if(f, LLVMBuildICmp(c->b, LLVMIntSLT, y, lw_i32(c, rows), ""),
                           "tma.row");
        for (int b = 0; b < t->nbox; b++) {
            LLVMValueRef off = LLVMBuildAdd(c->b, lw_i32(c, (int64_t)b * rows * t->swizzle),
                                            LLVMBuildMul(c->b, y, lw_i32(c, t->swizzle), ""), "");
            LLVMValueRef a[4] = {LLVMBuildGEP2(c->b, c->i8, base, &off, 1, ""),
                                 f->tmap[t->map],
                                 LLVMBuildAdd(c->b, at, lw_i32(c, (int64_t)b * t->box[0]), ""),
                                 bar};
            lw_asm(c, c->vd,
                   "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::"
                   "complete_tx::bytes [$0], [$1, {$2}], [$3];",
                   "l,l,r,l,~{memory}", a, 4, LW_ASM_WRITES);
        }
        if (past) join(f, past);
    }
}

void lw_tma_issue(LwFn *f, const LyPipe *q, LLVMValueRef slot, LLVMValueRef valid) {
    LwCtx *c = f->c;
    LLVMValueRef (*coord)[3] = ar_alloc(c->ar, sizeof *coord * (size_t)q->nring);
    for (int i = 0; i < q->nring; i++) {
        const LyTma *t = q->ring[i].tma;
        if (!t || t->rows) continue;
        for (int d = 0; d < 2; d++) coord[i][d] = coordinate(f, t, d);
        if (t->rank == 3) {   /* the batch index, an i32 by plan/tma.c's interval */
            LLVMValueRef x = lw_val(f, t->batch)->r[0];
            coord[i][2] = LLVMTypeOf(x) == c->i32 ? x : LLVMBuildTrunc(c->b, x, c->i32, "");
        }
    }
    LLVMValueRef go = thread0(f);
    if (valid) go = LLVMBuildAnd(c->b, go, valid, "");
    LLVMBasicBlockRef j = only_if(f, go, "tma.copy");
    LLVMValueRef bar = bar_addr(f, q, slot);
    LLVMValueRef a[6] = {bar, lw_i32(c, q->tma_bytes)};
    /* the row rings' tails, before the arrival that publishes them */
    for (int i = 0, n = 0; i < q->nring; i++) {
        const LyTma *t = q->ring[i].tma;
        if (!t || !t->rows) continue;
        LLVMValueRef st = LLVMBuildStore(
            c->b, row_tail(f, t, lw_val(f, t->index[0])->r[0]), tail_addr(f, q, slot, n++));
        LLVMSetAlignment(st, 4);
    }
    lw_asm(c, c->vd, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;",
           "l,r,~{memory}", a, 2, LW_ASM_WRITES);
    for (int i = 0; i < q->nring; i++) {
        const LyRing *r = &q->ring[i];
        const LyTma *t = r->tma;
        if (!t || t->rows) continue;
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
    join(f, j);
    if (!q->nrows) return;
    go = LLVMBuildICmp(c->b, LLVMIntEQ, f->warp, lw_i32(c, 0), "");
    if (valid) go = LLVMBuildAnd(c->b, go, valid, "");
    /* no barrier after thread 0's arrival: a copy completing before it
     * takes its bytes off first, and the phase waits for the arrival */
    j = only_if(f, go, "tma.rows");
    bar = bar_addr(f, q, slot);
    for (int i = 0; i < q->nring; i++)
        if (q->ring[i].tma && q->ring[i].tma->rows)
            issue_rows(f, &q->ring[i], q->ring[i].tma, slot, bar);
    join(f, j);
}

/* Row ring r's slot at `base` (1024-byte aligned) after its copies
 * landed, columns from `tail` (i32) on set to zero: every thread takes
 * 16-byte units of the slot in turn, reads one, zeroes its elements at
 * or past the tail and writes it back. The unit of row y, columns x0 ..
 * x0 + 16/esize - 1, lies in box x0 / box0 at y * swizzle + (x0 % box0)
 * * esize, its 16-byte index XORed with the address bits from 7 up, as
 * TMA and wgmma swizzle (lower/smem.c's layout). A loop, not unrolled:
 * unrolled, ptxas kept every unit's words live at once (matmul 128 x 128
 * over 4 warps, 35 registers more). */
static void zero_tail(LwFn *f, const LyTma *t, LLVMValueRef base, LLVMValueRef tail) {
    LwCtx *c = f->c;
    int esize = ty_bytes(t->elem), per = 16 / esize, rows = t->box[1];
    int units = rows * t->nbox * t->box[0] / per, per_row = units / rows;
    int threads = f->k->warps * 32, mask = t->swizzle / 16 - 1;
    LLVMTypeRef et = LLVMIntTypeInContext(c->ctx, (unsigned)esize * 8);
    LLVMTypeRef vt = LLVMVectorType(et, (unsigned)per);
    LLVMValueRef tid = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, f->warp, lw_i32(c, 32), ""),
                                    f->lane, "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(c->b), head = lw_new_bb(f, "tma.zero"),
                      body = lw_new_bb(f, "tma.zero.unit"), done = lw_new_bb(f, "tma.zeroed");
    LLVMBuildBr(c->b, head);
    LLVMPositionBuilderAtEnd(c->b, head);
    LLVMValueRef u = LLVMBuildPhi(c->b, c->i32, "");
    LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, u, lw_i32(c, units), ""), body, done);
    LLVMPositionBuilderAtEnd(c->b, body);
    LLVMValueRef y = LLVMBuildUDiv(c->b, u, lw_i32(c, per_row), "");
    LLVMValueRef x0 = LLVMBuildMul(c->b, LLVMBuildURem(c->b, u, lw_i32(c, per_row), ""),
                                   lw_i32(c, per), "");
    LLVMValueRef xb = LLVMBuildMul(c->b, x0, lw_i32(c, esize), "");   /* bytes */
    LLVMValueRef box = LLVMBuildUDiv(c->b, xb, lw_i32(c, t->swizzle), "");
    LLVMValueRef off = LLVMBuildAdd(
        c->b, LLVMBuildMul(c->b, box, lw_i32(c, (int64_t)rows * t->swizzle), ""),
        LLVMBuildAdd(c->b, LLVMBuildMul(c->b, y, lw_i32(c, t->swizzle), ""),
                     LLVMBuildURem(c->b, xb, lw_i32(c, t->swizzle), ""), ""), "");
    LLVMValueRef x = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, off, lw_i32(c, 7), ""),
                                  lw_i32(c, mask), "");
    off = LLVMBuildXor(c->b, off, LLVMBuildShl(c->b, x, lw_i32(c, 4), ""), "");
    LLVMValueRef at = LLVMBuildGEP2(c->b, c->i8, base, &off, 1, "");
    LLVMValueRef v = LLVMBuildLoad2(c->b, vt, at, "");
    LLVMSetAlignment(v, 16);
    for (int e = 0; e < per; e++) {
        LLVMValueRef past = LLVMBuildICmp(
            c->b, LLVMIntSGE, LLVMBuildAdd(c->b, x0, lw_i32(c, e), ""), tail, "");
        LLVMValueRef old = LLVMBuildExtractElement(c->b, v, lw_i32(c, e), "");
        v = LLVMBuildInsertElement(
            c->b, v, LLVMBuildSelect(c->b, past, LLVMConstInt(et, 0, 0), old, ""),
            lw_i32(c, e), "");
    }
    LLVMValueRef st = LLVMBuildStore(c->b, v, at);
    LLVMSetAlignment(st, 16);
    LLVMValueRef next = LLVMBuildAdd(c->b, u, lw_i32(c, threads), "");
    LLVMValueRef latch = LLVMBuildBr(c->b, head);
    /* llvm.loop.unroll.disable on the latch */
    LLVMMetadataRef dis = LLVMMDStringInContext2(c->ctx, "llvm.loop.unroll.disable", 24);
    LLVMMetadataRef opt = LLVMMDNodeInContext2(c->ctx, &dis, 1);
    LLVMMetadataRef tmp = LLVMTemporaryMDNode(c->ctx, NULL, 0);
    LLVMMetadataRef ops[2] = {tmp, opt};
    LLVMMetadataRef loop = LLVMMDNodeInContext2(c->ctx, ops, 2);
    LLVMMetadataReplaceAllUsesWith(tmp, loop);   /* frees tmp */
    LLVMSetMetadata(latch, LLVMGetMDKindIDInContext(c->ctx, "llvm.loop", 9),
                    LLVMMetadataAsValue(c->ctx, loop));
    LLVMBasicBlockRef from[2] = {pre, body};
    LLVMValueRef in[2] = {tid, next};
    LLVMAddIncoming(u, in, from, 2);
    LLVMPositionBuilderAtEnd(c->b, done);
}

void lw_tma_fixup(LwFn *f, const LyPipe *q, LLVMValueRef slot) {
    LwCtx *c = f->c;
    for (int i = 0, n = 0; i < q->nring; i++) {
        const LyRing *r = &q->ring[i];
        const LyTma *t = r->tma;
        if (!t || !t->rows) continue;
        LLVMValueRef ta = tail_addr(f, q, slot, n++);
        LLVMValueRef tail = LLVMBuildLoad2(c->b, c->i32, ta, "");
        LLVMSetAlignment(tail, 4);
        LLVMValueRef part = LLVMBuildICmp(c->b, LLVMIntSLT, tail,
                                          lw_i32(c, (int64_t)t->nbox * t->box[0]), "");
        LLVMBasicBlockRef j = only_if(f, part, "tma.tail");
        zero_tail(f, t, lw_slot_base(f, r, slot), tail);
        /* written through the generic proxy, read by wgmma through the
         * async one: each thread's fence, then the caller's barrier */
        lw_call_intr(c, "llvm.nvvm.fence.proxy.async.shared_cta", NULL, 0, NULL, 0);
        join(f, j);
    }
}

void lw_tma_wait(LwFn *f, const LyPipe *q, LLVMValueRef slot, LLVMValueRef phase) {
    LwCtx *c = f->c;
    LLVMBasicBlockRef poll = lw_new_bb(f, "tma.wait"), done = lw_new_bb(f, "tma.ready");
    LLVMValueRef bar = bar_addr(f, q, slot);
    LLVMBuildBr(c->b, poll);
    LLVMPositionBuilderAtEnd(c->b, poll);
    LLVMValueRef a[2] = {bar, phase};
    LLVMValueRef ok = lw_asm(c, c->i32,
                             "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, "
                             "[$1], $2; selp.u32 $0, 1, 0, p; }",
                             "=r,l,r,~{memory}", a, 2, LW_ASM_WRITES);
    LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntNE, ok, lw_i32(c, 0), ""), done, poll);
    LLVMPositionBuilderAtEnd(c->b, done);
}

void lw_tma_end(LwFn *f, const LyPipe *q) {
    LwCtx *c = f->c;
    lw_barrier(f);
    LLVMBasicBlockRef j = only_if(f, thread0(f), "tma.inval");
    for (int s = 0; s < q->stages; s++) {
        LLVMValueRef a = bar_addr(f, q, lw_i32(c, s));
        lw_asm(c, c->vd, "mbarrier.inval.shared::cta.b64 [$0];", "l,~{memory}", &a, 1,
               LW_ASM_WRITES);
    }
    join(f, j);
}
