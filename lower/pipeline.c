/*
 * pipeline.c — software pipelining: loads that feed tensor cores inside a
 * `for` loop become cp.async copies into rings of shared-memory buffers,
 * `stages - 1` iterations ahead of their use.
 *
 * plan/pipeline.c marks the loads (LOAD iattr[3] = stages) whose pointer,
 * mask and `other` are pure functions of the induction variable and loop
 * invariants, whose `other` is zero and whose every use is a conversion
 * to an mma.sync operand layout; plan/lowering.c lays out the rings (or
 * leaves a loop unpipelined) before any LLVM exists. Here, per marked
 * load of a loop, a ring
 * of `stages` swizzled buffers (ly_smem_swizzled, rows along the pointer
 * layout's contiguous dimension, as smem.c stages operands) in a region
 * of shared memory of its own. With S stages and iteration j using slot
 * j % S:
 *
 *   prologue   barrier                   (the rings overlap scratch that
 *                                         threads may still be reading)
 *              for j in 0 .. S-2: copy tile j into slot j; commit
 *   iteration  cp.async.wait.group S-2   (tile j has landed: S-1+j groups
 *                                         committed, at most S-2 pending)
 *              barrier                   (everyone's copies visible; and
 *                                         everyone is done reading slot
 *                                         (j-1) % S, overwritten next)
 *              if iteration j+S-1 runs (uniform branch):
 *                  copy tile j+S-1 into slot (j+S-1) % S
 *              commit
 *              the body: each conversion of a marked load reads slot
 *              j % S (ldmatrix, or element loads where ldmatrix cannot),
 *              the load itself emits nothing
 *   after      cp.async.wait.all
 *
 * When the body's one tensor-core product reads every ring, the wait
 * and the barrier move to just before the mma.sync of the product's
 * last K sub-step, and the first sub-step's fragments are loop-carried
 * (carry_plan, below): the prologue ends with the wait, the barrier and
 * slot 0's first sub-step.
 *
 * With a wgmma group left in flight across iterations (plan `pending`),
 * slot (j + S-1) % S is still read by iteration j-1's group at the top
 * of iteration j: the copy and its commit move after the product's
 * wgmma wait and a second barrier (lw_pipe_late_copy). A then-arm that
 * reads the product inside the loop (plan drain_if: a persistent
 * kernel's epilogue) waits for the group first (lw_pipe_drain_begin).
 * Where only the
 * threads read the rings (plan `threads_read`: no descriptor does), the
 * top barrier alone frees that slot: the copy follows the product with
 * no second barrier (and no fence after the wait), so that the stage
 * buffers' fence, which waits for every copy the thread has in flight,
 * comes most of an iteration after it.
 *
 * Stage buffers (plan LyStage): a wgmma operand that is no ring's is
 * stored from its registers, and a tf32 ring read along M or N is moved
 * K-major by the threads (read from the slot and written in the plan's
 * transposing layout), each iteration after the top barrier; with a
 * group in flight there are two buffers, chosen by an i32 phi of the
 * header flipped in the latch (stage_par).
 *
 * One barrier per iteration for all operands together (two with a
 * pending wgmma group), none for the copies themselves — none at all in
 * a loop whose slots are released through mbarriers (plan `release`,
 * tilec --slot-sync=mbarrier; lower/tma.c): there each warp releases a
 * slot once done with it (at the end of the body, or with a pending
 * group after the product's wait) and thread 0 waits for the release
 * before refilling it, at the top of the iteration before the threads'
 * wait for their own slot (or, pending, after the product); counted
 * (tilec --slot-sync=last), each warp counts itself done with the slot
 * there instead and the last one refills it. The read slot is an i32 phi of the loop header,
 * advanced and wrapped in the latch (no division of the counter). A
 * masked-off chunk (or, in the prologue, a copy for an iteration that may
 * not run) is zero-filled through cp.async's ignore-src predicate, which
 * is what the load's zero `other` would have given. Every iteration
 * commits a group, empty or not, so that the count stays uniform.
 *
 * Copying tile j+S-1 needs its addresses and masks: the ops of the body
 * that compute them (the load's operands, transitively, within the body)
 * are lowered once more with the induction variable replaced by
 * iv + (S-1)·step — or lo + j·step in the prologue — before the body is
 * lowered for iv; those values are dead afterwards and LLVM drops them.
 * Shared addresses are a base plus an immediate (smem.c, lw_smem_addr).
 *
 * Shared memory: the rings lie above the scratch requested while they
 * are live (the prologue and the loop: LwFn.smem_pinned) and overlap the
 * rest of the scratch (kernel.c places both at the end), so that the
 * epilogue's conversion after the loop reuses the rings' memory. After
 * the loop every thread has passed cp.async.wait.all before the barrier
 * that opens any scratch use, so no copy lands in scratch being used.
 *
 * Each thread copies what its pointer layout holds, ly_mem_vec elements
 * at a time: 16 bytes with cp.async.cg (L2 only), 4 or 8 with cp.async.ca.
 * A loop whose marked loads cannot all be copied so (a chunk that would
 * cross a 16-byte unit of the swizzle) or whose rings, beside a bound on
 * the scratch inside the loop, do not fit the architecture's shared
 * memory is lowered without pipelining: the loads stay ordinary loads and
 * the conversions go through the scratch (smem.c). That is no error (the
 * configuration still runs, only slower), but the plan records it, the
 * entry carries it (LwEntry.unpipelined) and `tilec --stats` says it,
 * with the loop.
 */
#include "lower/lw.h"

#include <string.h>

/* A pipelined loop being lowered: its plan (plan/lowering.c) and the
 * LLVM values its iterations share. */
struct LwPipe {
    struct LwPipe *prev;
    const LyPipe *plan;
    const IrOp *loop;
    char *need;         /* by IrValue id: part of an address computation */
    LwVal *kept;        /* by the same id: the iteration's own values of
                           those, while issue() lowers them for another */
    LLVMValueRef lo, hi, step;
    LLVMValueRef iv;    /* the loop's counter (a phi of its header) */
    LLVMValueRef read_slot;   /* i32 phi of the header: j % stages */
    LLVMValueRef phase;       /* i32 phi of the header: (j / stages) % 2,
                                 the parity TMA rings' waits are for */
    LLVMValueRef stage_par;   /* i32 phi of the header: j % 2, with two
                                 buffers a stage (plan stage_bufs) */
    /* the iteration copied next and its slot, until copy_next copies it */
    LLVMValueRef copy_iv, copy_slot;
    /* its TMA copies' coordinates where lw_pipe_prepare_copy computed
     * them ahead (by ring; NULL: not computed) */
    LLVMValueRef (*tma_coord)[3];
    int64_t smem_outside;     /* scratch requested before the loop */
    /* Loop-carried fragments (see carry_plan): the product, and per
     * operand (0: A, 1: B) its conversion from a ring (NULL: none), the
     * ring, and the 32-bit ldmatrix results of its first K sub-step:
     * from the prologue, the header's phis, and from the next slot
     * (read by the product, the latch's incoming). */
    const IrOp *carry_dot;
    const IrOp *carry_cvt[2];
    const LyRing *carry_ring[2];
    LLVMValueRef *carry_init[2], *carry_phi[2], *carry_next[2];
    int carry_n[2];
    /* The stage buffers in this iteration's emission: 0 none written
     * yet, 1 written since the last barrier, 2 published. */
    int staged;
    /* This iteration opened with the copies' wait and barrier (every
     * warpgroup past its wait for the iteration before). */
    int top_barrier;
    /* lw_pipe_drain_begin is lowering the conversions it defers */
    int draining;
    /* The product issued one iteration ahead (plan `early`): its group
     * for iteration lo, issued and waited for in the preheader; the
     * header's phis, the group this iteration takes; the group issued
     * for the next iteration (the latch's incoming). */
    LwVal early_init, early_cur, early_next;
};

/* Marks v and, within `body`, everything it is computed from. */
static void mark_cone(struct LwPipe *p, const IrBlock *body, const IrValue *v) {
    const IrOp *op = v->def;
    if (!op || op->parent != body || p->need[v->id]) return;
    for (int i = 0; i < op->nres; i++) p->need[op->res[i]->id] = 1;
    for (int i = 0; i < op->nargs; i++) mark_cone(p, body, op->args[i]);
}

static LLVMValueRef slot_base(LwFn *f, const LyRing *r, LLVMValueRef slot) {
    LwCtx *c = f->c;
    LLVMValueRef off = LLVMBuildAdd(
        c->b, lw_i32(c, r->off),
        LLVMBuildMul(c->b, slot, lw_i32(c, r->buf), ""), "");
    return LLVMBuildGEP2(c->b, c->i8, f->ring, &off, 1, "");
}

/* i1: iteration iv (i64) runs. */
static LLVMValueRef runs(LwFn *f, struct LwPipe *p, LLVMValueRef iv) {
    LLVMBuilderRef b = f->c->b;
    LLVMValueRef zero = LLVMConstInt(f->c->i64, 0, 0);
    LLVMValueRef up = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGT, p->step, zero, ""),
                                   LLVMBuildICmp(b, LLVMIntSLT, iv, p->hi, ""), "");
    LLVMValueRef down = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSLT, p->step, zero, ""),
                                     LLVMBuildICmp(b, LLVMIntSGT, iv, p->hi, ""), "");
    return LLVMBuildOr(b, up, down, "");
}

/* Lowers the body's address computations (p->need) for iteration iv
 * (i64); returns the induction variable's own registers, which
 * back_from_iteration restores with the iteration's own values of those
 * computations, where the body lowered them already (late copies): what
 * the rest of the body reads. */
static LwVal at_iteration(LwFn *f, struct LwPipe *p, LLVMValueRef iv) {
    LwCtx *c = f->c;
    const IrBlock *body = p->loop->regions[0];
    const IrValue *ivv = body->args[0];
    LwVal saved = *lw_val(f, ivv), now = lw_new_val(f, 1);
    now.r[0] = ty_bits((ScalarKind)ivv->ty.k) == 64
                   ? iv
                   : LLVMBuildTrunc(c->b, iv, lw_type(c, (ScalarKind)ivv->ty.k), "");
    lw_set(f, ivv, now);
    for (const IrOp *op = body->first; op; op = op->next)
        if (op->nres && p->need[op->res[0]->id]) {
            for (int i = 0; i < op->nres; i++) p->kept[op->res[i]->id] = *lw_val(f, op->res[i]);
            lw_op(f, op);
        }
    return saved;
}

static void back_from_iteration(LwFn *f, struct LwPipe *p, LwVal saved) {
    const IrBlock *body = p->loop->regions[0];
    for (const IrOp *op = body->first; op; op = op->next)
        if (op->nres && p->need[op->res[0]->id])
            for (int i = 0; i < op->nres; i++) lw_set(f, op->res[i], p->kept[op->res[i]->id]);
    lw_set(f, body->args[0], saved);
}

/* One cp.async of `bytes` from global `src` to shared `dst`; where `ok`
 * (i1, NULL: always) is false, zeros. The zero fill is cp.async's
 * ignore-src predicate (PTX 7.5), which ptxas takes as the LDGSTS's own
 * predicate; the source-size operand of LLVM's intrinsic would cost a
 * select and a compare per copy to get there. Inline assembly, as LLVM
 * has no intrinsic with that operand. */
static void copy_async(LwFn *f, LLVMValueRef dst, LLVMValueRef src, int bytes,
                       LLVMValueRef ok) {
    LwCtx *c = f->c;
    const char *level = bytes == 16 ? "cg" : "ca";
    if (!ok) {
        char name[48];
        snprintf(name, sizeof name, "llvm.nvvm.cp.async.%s.shared.global.%d", level,
                 bytes);
        LLVMValueRef args[2] = {dst, src};
        lw_call_intr(c, name, NULL, 0, args, 2);
        return;
    }
    char text[80];
    snprintf(text, sizeof text, "cp.async.%s.shared.global [$0], [$1], %d, $2;",
             level, bytes);
    LLVMValueRef args[3] = {dst, src, LLVMBuildNot(c->b, ok, "")};
    lw_asm(c, c->vd, text, "l,l,b,~{memory}", args, 3, LW_ASM_WRITES);
}

/* The TMA copies into `slot` (coordinates `coord`, NULL: of the index
 * tiles as lowered), where `valid` (NULL: always). A `refill` (copy_next's:
 * not the slot's first use) waits for the slot's release where the plan
 * releases it: through mbarriers, the readers' phase of parity `freed`
 * (copy_next computes it before its branch); by counters, this warp
 * counts itself done with the slot and the last one copies. */
static void tma_copy(LwFn *f, struct LwPipe *p, LLVMValueRef slot, LLVMValueRef valid, int refill,
                     LLVMValueRef freed, LLVMValueRef (*coord)[3]) {
    if (refill && p->plan->release == LY_RELEASE_LAST)
        lw_tma_refill_last(f, p->plan, slot, valid, coord);
    else
        lw_tma_issue(f, p->plan, slot, valid, freed, coord);
}

/* Copies every ring's tile for iteration iv (i64) into `slot` (i32).
 * Unless `runs_known` (the caller branched on it), a copy for an
 * iteration that does not run passes source size 0. `refill` and
 * `freed`: tma_copy's. */
static void issue(LwFn *f, struct LwPipe *p, LLVMValueRef iv, LLVMValueRef slot,
                  int runs_known, int refill, LLVMValueRef freed) {
    LwCtx *c = f->c;
    if (p->tma_coord) {   /* TMA rings alone, their coordinates computed ahead */
        LLVMValueRef valid = runs_known ? NULL : runs(f, p, iv);
        tma_copy(f, p, slot, valid, refill, freed, p->tma_coord);
        p->tma_coord = NULL;
        return;
    }
    LwVal saved = at_iteration(f, p, iv);
    LLVMValueRef valid = runs_known ? NULL : runs(f, p, iv);
    for (int i = 0; i < p->plan->nring; i++) {
        const LyRing *r = &p->plan->ring[i];
        if (r->tma) continue;   /* below */
        const IrOp *ld = r->load;
        const Layout *pl = ld->args[0]->layout;
        ScalarKind k = (ScalarKind)ld->res[0]->ty.k;
        LwVal ptr = *lw_val(f, ld->args[0]);
        int has_mask = (ld->iattr[0] & LOAD_MASK) != 0;
        LwVal m = has_mask ? lw_in_layout(f, ld->args[1], pl) : (LwVal){0, NULL};
        Layout *ol = lw_offset_layout(c->ar, pl, r->s);
        LLVMValueRef base = slot_base(f, r, slot);
        int esize = ty_bytes(k);
        int bytes = r->w * ty_bytes(k);
        uint32_t copies = 0;
        for (int j = 0; j < pl->nbits[LY_REG]; j++)
            if (!pl->basis[LY_REG][j]) copies |= 1u << j;
        for (int g = 0; g < ptr.n; g += r->w) {
            if ((uint32_t)g & copies) continue;
            LLVMValueRef ok = lw_pad_and(f, ld->args[0], pl, g, has_mask ? m.r[g] : NULL);
            if (valid && !lw_never(ok)) ok = ok ? LLVMBuildAnd(c->b, valid, ok, "") : valid;
            copy_async(f, lw_smem_addr(f, base, ol, g, esize), ptr.r[g], bytes, ok);
        }
    }
    if (p->plan->ntma) tma_copy(f, p, slot, valid, refill, freed, NULL);
    back_from_iteration(f, p, saved);
}

/* The ring of this loop that marked load `load` is copied into. */
static const LyRing *ring_of(struct LwPipe *p, const IrOp *load) {
    for (int i = 0; i < p->plan->nring; i++)
        if (p->plan->ring[i].load == load) return &p->plan->ring[i];
    return NULL;
}

/* Loop-carried fragments, CUTLASS-style: when the body's one product on
 * tensor cores is the only reader of every ring (through one conversion
 * per ring, read by ldmatrix), the wait and the barrier move from the
 * top of the iteration to just before the mma.sync of the product's last
 * K sub-step, and right after them the product reads the first sub-step
 * of the next slot, whose registers the next iteration starts with (the
 * prologue reads slot 0's). So the ldmatrix of the next tile overlap the
 * last sub-step's mma.sync, and the barrier still orders every read of a
 * slot before the copies that overwrite it (issued at the top of the
 * iteration after). Called in the preheader, after the prologue's
 * copies: plans, and reads slot 0's first sub-step (behind its own wait
 * and barrier), or leaves p->carry_dot NULL. */
static void carry_plan(LwFn *f, struct LwPipe *p) {
    const IrBlock *body = p->loop->regions[0];
    const IrOp *dot = NULL;
    for (const IrOp *op = body->first; op; op = op->next)
        if (op->op == IR_DOT) {
            if (dot) return;
            dot = op;
        }
    const Layout *cl = dot ? dot->res[0]->layout : NULL;
    if (!cl || cl->kind != LY_MMA) return;
    /* A computed in registers (e.g. a ring's tile scaled before the
     * product): lw_dot_mma then reads B whole before its tiles and never
     * reaches a last sub-step (lw_pipe_last_step) to read the next slot
     * in; only B's ring would be carried, and nothing would feed it */
    if (!ly_ring_operand(f->plan, body, dot, 0)) return;
    int covered = 0;
    LwFrag *z[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        const IrOp *cv = ly_ring_operand(f->plan, body, dot, i);
        if (!cv) continue;   /* in registers, or a ring read elsewhere too */
        const IrOp *ld = cv->args[0]->def;
        const LyRing *r = ring_of(p, ld);
        z[i] = lw_frag_operand(f, slot_base(f, r, lw_i32(f->c, 0)),
                               (ScalarKind)ld->res[0]->ty.k, cv->res[0]->layout, r->s, 1);
        if (!z[i]) return;
        p->carry_cvt[i] = cv;
        p->carry_ring[i] = r;
        p->carry_n[i] = lw_frag_nraw(z[i]);
        covered++;
    }
    if (covered != p->plan->nring) return;
    LLVMValueRef wait = lw_i32(f->c, p->plan->ahead - 1);
    lw_call_intr(f->c, "llvm.nvvm.cp.async.wait.group", NULL, 0, &wait, 1);
    lw_barrier(f);
    for (int i = 0; i < 2; i++)
        if (z[i]) {
            lw_frag_load(f, z[i], 0, cl->mma_k);
            p->carry_init[i] = lw_frag_raw(z[i]);
        }
    p->carry_dot = dot;
}

/* Lowers the ops of `body` that loop invariant v is computed by
 * (ly_invariant_in: constants, splats, broadcasts), for the preheader. */
static void lower_invariant(LwFn *f, const IrBlock *body, const IrValue *v) {
    const IrOp *op = v->def;
    if (!op || op->parent != body) return;
    for (int i = 0; i < op->nargs; i++) lower_invariant(f, body, op->args[i]);
    lw_op(f, op);
}

/* Issues plan `early`'s product for iteration iv (i64) from ring slot
 * `slot` (i32), after waiting for the slot's copies (mbarrier phase
 * parity `phase`) where that iteration runs; where it does not, no copy
 * was issued into the slot, so the product reads what the slot holds
 * and no one reads its result: a branch around the issue would make the
 * registers in flight the operands of a phi, and ptxas would serialize
 * the kernel's wgmma over the copies. Returns the registers in flight. */
static LwVal early_issue(LwFn *f, struct LwPipe *p, LLVMValueRef iv, LLVMValueRef slot,
                         LLVMValueRef phase) {
    LwCtx *c = f->c;
    const IrOp *dot = p->plan->early;
    const IrBlock *body = p->loop->regions[0];
    LLVMBasicBlockRef wait = lw_new_bb(f, "early.wait"), go = lw_new_bb(f, "early.issue");
    LLVMBuildCondBr(c->b, runs(f, p, iv), wait, go);
    LLVMPositionBuilderAtEnd(c->b, wait);
    lw_tma_wait(f, p->plan, slot, phase);
    LLVMBuildBr(c->b, go);
    LLVMPositionBuilderAtEnd(c->b, go);
    LLVMValueRef base[2] = {NULL, NULL};
    const LySmem *s[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        const IrOp *cv = dot->args[i]->def;
        const LyRing *r = cv && cv->parent == body && cv->op == IR_CONVERT_LAYOUT
                              ? ring_of(p, cv->args[0]->def) : NULL;
        if (!r) continue;   /* A in registers, a loop invariant */
        base[i] = slot_base(f, r, slot);
        s[i] = r->s;
    }
    LwVal out = {0, NULL};
    if (!s[1]) {
        lw_error(f, dot->loc, "internal error: the product issued ahead has no B ring");
        return out;
    }
    lw_wgmma_product(f, dot, base, s, *lw_val(f, dot->args[2]), &out);
    return out;
}

struct LwPipe *lw_pipe_begin(LwFn *f, const IrOp *loop, LLVMValueRef lo,
                             LLVMValueRef hi, LLVMValueRef step) {
    LwCtx *c = f->c;
    const IrBlock *body = loop->regions[0];
    const LyPipe *q = ly_pipe_of(f->plan, loop);
    if (!q) return NULL;
    struct LwPipe *p = ar_alloc(c->ar, sizeof *p);
    *p = (struct LwPipe){.plan = q, .loop = loop, .lo = lo, .hi = hi, .step = step};
    lw_ring_region(f);
    p->need = ar_alloc(c->ar, (size_t)f->k->nvalues + 1);
    memset(p->need, 0, (size_t)f->k->nvalues + 1);
    p->kept = ar_alloc(c->ar, sizeof(LwVal) * ((size_t)f->k->nvalues + 1));
    for (int i = 0; i < p->plan->nring; i++)
        for (int a = 0; a < p->plan->ring[i].load->nargs; a++)
            mark_cone(p, body, p->plan->ring[i].load->args[a]);
    /* The rings may overlap scratch that threads still read (a conversion
     * before the loop, or after it in an enclosing loop's body). With a
     * producer (warpspec.c), they lie above it, their mbarriers made at
     * the entry, and the producer copies from the first iteration on. */
    if (f->ws != q) {
        lw_barrier(f);
        if (q->ntma) lw_tma_init(f, q);
    }
    p->smem_outside = f->smem_bytes;
    f->smem_bytes = 0;
    for (int j = 0; j < p->plan->ahead && f->ws != q; j++) {
        LLVMValueRef iv = LLVMBuildAdd(
            c->b, lo, LLVMBuildMul(c->b, step, LLVMConstInt(c->i64, (unsigned)j, 0), ""), "");
        issue(f, p, iv, lw_i32(c, j), 0, 0, NULL);
        if (q->nring > q->ntma)
            lw_call_intr(c, "llvm.nvvm.cp.async.commit.group", NULL, 0, NULL, 0);
    }
    if (!p->plan->nwg) carry_plan(f, p);
    if (q->early) {
        lower_invariant(f, body, q->early->args[2]);
        if (!ly_ring_operand(f->plan, body, q->early, 0))
            lower_invariant(f, body, q->early->args[0]);
        LwVal g = early_issue(f, p, lo, lw_i32(c, 0), lw_i32(c, 0));
        p->early_init = lw_wgmma_wait(f, g, 0);
    }
    if (q->pingpong) lw_pingpong_begin(f, q);
    p->prev = f->pipe;
    f->pipe = p;
    return p;
}

void lw_ring_region(LwFn *f) {
    if (f->ring) return;
    lw_smem(f, 0);   /* the region lives in the scratch's global */
    f->ring = LLVMAddGlobalInAddressSpace(f->c->mod, LLVMArrayType2(f->c->i8, 0),
                                          "tile.ring.placeholder", LW_AS_SHARED);
}

/* A phi of iv's block (the loop header), placed before its first
 * non-phi instruction, with `init` coming from the preheader. */
static LLVMValueRef header_phi(LwFn *f, LLVMValueRef iv, LLVMValueRef init) {
    LLVMBuilderRef b = f->c->b;
    LLVMBasicBlockRef at = LLVMGetInsertBlock(b);
    LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetInstructionParent(iv));
    while (LLVMIsAPHINode(i)) i = LLVMGetNextInstruction(i);
    LLVMPositionBuilderBefore(b, i);
    LLVMValueRef phi = LLVMBuildPhi(b, LLVMTypeOf(init), "slot");
    LLVMBasicBlockRef pre = LLVMGetIncomingBlock(iv, 0);
    LLVMAddIncoming(phi, &init, &pre, 1);
    LLVMPositionBuilderAtEnd(b, at);
    return phi;
}

/* The parity of the TMA phase of slot `next`, the read slot advanced by
 * one: the read slot's, flipped where `next` wraps to 0. */
static LLVMValueRef next_phase(LwFn *f, struct LwPipe *p, LLVMValueRef next) {
    LwCtx *c = f->c;
    LLVMValueRef wrap = LLVMBuildZExt(
        c->b, LLVMBuildICmp(c->b, LLVMIntEQ, next, lw_i32(c, 0), ""), c->i32, "");
    return LLVMBuildXor(c->b, p->phase, wrap, "");
}

/* (s + by) mod stages, for 0 <= s < stages and 0 < by < stages. */
static LLVMValueRef slot_add(LwFn *f, struct LwPipe *p, LLVMValueRef s, int by) {
    LwCtx *c = f->c;
    LLVMValueRef x = LLVMBuildAdd(c->b, s, lw_i32(c, by), "");
    LLVMValueRef wrap = LLVMBuildICmp(c->b, LLVMIntSGE, x, lw_i32(c, p->plan->stages), "");
    return LLVMBuildSelect(c->b, wrap, LLVMBuildSub(c->b, x, lw_i32(c, p->plan->stages), ""),
                           x, "");
}

static void copy_next(LwFn *f, struct LwPipe *p);

/* Whether the iteration's copies follow its product's wgmma wait
 * (lw_pipe_late_copy) rather than the top of the iteration. */
static int late_copies(const struct LwPipe *p) {
    return p->plan->nring && p->plan->nwg && (p->plan->pending || p->plan->threads_read);
}

/* The slots are loop-carried (no division by the step or the stages):
 * iteration j reads slot j % S and writes slot (j + S-1) % S. The copy
 * of iteration j + S-1 sits behind a uniform branch on whether that
 * iteration runs, so that in the steady state no copy carries the
 * "iteration runs" term in its source size. */
void lw_pipe_iter(LwFn *f, struct LwPipe *p, LLVMValueRef iv) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    p->iv = iv;
    p->staged = 0;
    p->top_barrier = 0;
    p->stage_par = p->plan->stage_bufs == 2 ? header_phi(f, iv, lw_i32(c, 0)) : NULL;
    if (!p->plan->nring) return;   /* stage buffers only */
    p->read_slot = header_phi(f, iv, lw_i32(c, 0));
    p->phase = p->plan->ntma ? header_phi(f, iv, lw_i32(c, 0)) : NULL;
    if (p->plan->early) {
        p->early_cur = lw_new_val(f, p->early_init.n);
        for (int r = 0; r < p->early_init.n; r++)
            p->early_cur.r[r] = header_phi(f, iv, p->early_init.r[r]);
    }
    LLVMValueRef ahead = LLVMConstInt(c->i64, (unsigned)p->plan->ahead, 0);
    LLVMValueRef wslot = slot_add(f, p, p->read_slot, p->plan->ahead);
    for (int i = 0; i < 2; i++) {
        LLVMValueRef *init = p->carry_init[i];
        if (!p->carry_dot || !init) continue;
        int n = p->carry_n[i];
        p->carry_phi[i] = ar_alloc(c->ar, sizeof(LLVMValueRef) * (size_t)n);
        for (int j = 0; j < n; j++)
            p->carry_phi[i][j] = init[j] ? header_phi(f, iv, init[j]) : NULL;
    }
    if (!p->carry_dot) {
        if (p->plan->nring > p->plan->ntma) {
            LLVMValueRef wait = lw_i32(c, p->plan->ahead - 1);
            lw_call_intr(c, "llvm.nvvm.cp.async.wait.group", NULL, 0, &wait, 1);
            /* cp.async writes through the generic proxy, wgmma reads
             * through the async one: each thread's landed copies are made
             * visible to it before the barrier publishes them (not needed
             * where only threads read the rings; and the fence would wait
             * for every copy in flight) */
            if (p->plan->nwg && !p->plan->threads_read)
                lw_call_intr(c, "llvm.nvvm.fence.proxy.async.shared_cta", NULL, 0, NULL, 0);
        }
        if (p->plan->release) {
            /* no barrier: the copies first (thread 0 waits for the slot
             * to be released), then the wait for this iteration's */
            p->copy_iv = LLVMBuildAdd(b, iv, LLVMBuildMul(b, p->step, ahead, ""), "");
            p->copy_slot = wslot;
            if (!late_copies(p)) copy_next(f, p);
            lw_tma_wait(f, p->plan, p->read_slot, p->phase);
            return;
        }
        if (p->plan->ntma) lw_tma_wait(f, p->plan, p->read_slot, p->phase);
        lw_barrier(f);
        p->top_barrier = 1;
    }
    p->copy_iv = LLVMBuildAdd(b, iv, LLVMBuildMul(b, p->step, ahead, ""), "");
    p->copy_slot = wslot;
    if (late_copies(p)) return;
    copy_next(f, p);
}

/* The end of an iteration's body: a loop whose slots are released
 * through mbarriers and whose products were all waited for (not
 * `pending`) is done with its read slot. (Counted, the warp counts
 * itself done with it when the next iteration refills it.) */
void lw_pipe_iter_end(LwFn *f, struct LwPipe *p) {
    if (p->plan->release == LY_RELEASE_MBARRIER && !late_copies(p))
        lw_tma_release(f, p->plan, p->read_slot, NULL);
}

/* The copy of iteration j + S-1 into slot (j + S-1) % S, behind a
 * uniform branch on whether that iteration runs, and the commit: a
 * refill (tma_copy). Released through mbarriers, the slot's use by
 * iteration j + S-1 is its ((j + S-1) / S)-th, so its readers' phase of
 * parity ((j-1) / S) % 2 must have completed: the read slot's parity,
 * flipped where the read slot is 0 (for j = 0, parity 1: a fresh
 * mbarrier's, at once). By counters, every warp counts itself done with
 * the slot here, for iteration j = 0 too (nothing has read slot S-1
 * yet). */
static void copy_next(LwFn *f, struct LwPipe *p) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LLVMValueRef freed = NULL;
    if (f->ws == p->plan) {   /* the producer copies (warpspec.c) */
        p->copy_iv = NULL;
        return;
    }
    if (p->plan->release == LY_RELEASE_MBARRIER) {
        LLVMValueRef first = LLVMBuildICmp(b, LLVMIntEQ, p->read_slot, lw_i32(c, 0), "");
        freed = LLVMBuildXor(b, p->phase, LLVMBuildZExt(b, first, c->i32, ""), "");
    }
    LLVMBasicBlockRef join = lw_only_if(f, runs(f, p, p->copy_iv), "pipe.copy", "pipe.join");
    issue(f, p, p->copy_iv, p->copy_slot, 1, 1, freed);
    p->copy_iv = NULL;
    lw_join(f, join);
    if (p->plan->nring > p->plan->ntma)   /* TMA copies need no group */
        lw_call_intr(c, "llvm.nvvm.cp.async.commit.group", NULL, 0, NULL, 0);
}

/* With a wgmma group in flight across iterations (`pending`), slot
 * (j + S-1) % S = (j-1) % S is read by iteration j-1's group until each
 * warpgroup's wait in iteration j: the copies go after the product's
 * wait, behind a barrier (every warpgroup past it), so that S-1 tiles
 * are in flight as without the pending group. Where only the threads
 * read the rings (plan `threads_read`), the top barrier already follows
 * every read of that slot: the copies go there with no barrier of their
 * own, after the stage's fence, which would wait for them. Called by the
 * product. */
void lw_pipe_late_copy(LwFn *f, const IrOp *dot) {
    struct LwPipe *p = f->pipe;
    if (!p || !late_copies(p) || !p->copy_iv || p->plan->wg_dot[0] != dot) return;
    if (p->plan->release == LY_RELEASE_MBARRIER) {
        /* this warp is done with slot (j-1) % S, the one refilled now,
         * since iteration 1 */
        LLVMValueRef after_first = LLVMBuildICmp(f->c->b, LLVMIntNE, p->iv, p->lo, "");
        lw_tma_release(f, p->plan, p->copy_slot, after_first);
    } else if (!p->plan->release && !p->plan->threads_read) {
        lw_barrier(f);   /* (counted: copy_next counts this warp done) */
    }
    copy_next(f, p);
}

/* Where the copies follow the product's wait (late copies) and every
 * ring is TMA's, the copies' coordinates for iteration j + S-1 are
 * computed here, after the product's commit and before its wait, in
 * every thread, and pinned there (an opaque copy with side effects, so
 * that LLVM does not sink them into thread 0's branch): thread 0 then
 * issues the copies right after the barrier, instead of running their
 * address arithmetic (a persistent walk's divisions) while every other
 * warp waits for it at the next barrier. The other threads' work falls
 * where they would wait for the product. Called by the product. Not in
 * a loop that holds its epilogue (plan drain_if: a persistent walk),
 * where the SASS said it should pay most and the H100 measured it 3-5%
 * slower (examples/matmul.tile 128x256x64 s3 --persistent at 4096^3,
 * 8192x8192x4096 and 4000^3; 3% faster at 4104^3: docs/PERF.md,
 * session 43); plain loops measured level or up to 2% faster. */
void lw_pipe_prepare_copy(LwFn *f, const IrOp *dot) {
    struct LwPipe *p = f->pipe;
    if (!p || !late_copies(p) || !p->copy_iv || p->plan->wg_dot[0] != dot ||
        p->plan->nring != p->plan->ntma || p->plan->drain_if || f->ws == p->plan)
        return;
    LwVal saved = at_iteration(f, p, p->copy_iv);
    p->tma_coord = lw_tma_coords(f, p->plan, 1);
    back_from_iteration(f, p, saved);
}

/* The product issued one iteration ahead (plan `early`), at its place
 * in iteration j: its value is the group issued in iteration j-1 (or
 * the preheader), which the later product's wait in that iteration
 * completed (the wait here ties its registers, and covers the
 * preheader's); then iteration j+1's group, from slot (j+1) % S (its
 * parity flips where the slot wraps), runs under the rest of the body. */
int lw_pipe_early(LwFn *f, const IrOp *dot) {
    struct LwPipe *p = f->pipe;
    if (!p || p->plan->early != dot || !p->read_slot) return 0;
    LwCtx *c = f->c;
    lw_set(f, dot->res[0], lw_wgmma_wait(f, p->early_cur, 0));
    LLVMValueRef slot = slot_add(f, p, p->read_slot, 1);
    p->early_next = early_issue(f, p, LLVMBuildAdd(c->b, p->iv, p->step, ""), slot,
                                next_phase(f, p, slot));
    return 1;
}

/* A persistent kernel's epilogue inside the loop (plan drain_if): the
 * group stays in flight through the iterations that do not store, and
 * the arm that does waits for it before anything reads the sum. */
int lw_pipe_drain_begin(LwFn *f, const IrOp *ifop, LwVal *in_flight) {
    struct LwPipe *p = f->pipe;
    if (!p || !p->plan->pending || p->plan->drain_if != ifop) return 0;
    const IrValue *d = p->plan->wg_dot[0]->res[0];
    *in_flight = *lw_val(f, d);
    lw_set(f, d, lw_wgmma_wait(f, *in_flight, 0));
    p->draining = 1;
    for (int i = 0; i < p->plan->ndrain_cvt; i++) lw_op(f, p->plan->drain_cvt[i]);
    p->draining = 0;
    return 1;
}

int lw_pipe_deferred(LwFn *f, const IrOp *cvt) {
    const struct LwPipe *p = f->pipe;
    if (!p || !p->plan->pending || !p->plan->drain_if || p->draining) return 0;
    for (int i = 0; i < p->plan->ndrain_cvt; i++)
        if (p->plan->drain_cvt[i] == cvt) return 1;
    return 0;
}

void lw_pipe_drain_end(LwFn *f, const LwVal *in_flight) {
    lw_set(f, f->pipe->plan->wg_dot[0]->res[0], *in_flight);
}

void lw_pipe_end(LwFn *f, struct LwPipe *p) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    if ((p->read_slot || p->stage_par) && LLVMCountIncoming(p->iv) == 2) {
        /* the latch (the counter's second incoming block) advances the
         * slot and flips the stage buffers */
        LLVMBasicBlockRef at = LLVMGetInsertBlock(b), latch = LLVMGetIncomingBlock(p->iv, 1);
        LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(latch));
        if (p->read_slot) {
            LLVMValueRef next = slot_add(f, p, p->read_slot, 1);
            LLVMAddIncoming(p->read_slot, &next, &latch, 1);
            if (p->phase) {   /* flipped where the slot wraps */
                LLVMValueRef flip = next_phase(f, p, next);
                LLVMAddIncoming(p->phase, &flip, &latch, 1);
            }
        }
        if (p->stage_par) {
            LLVMValueRef flip = LLVMBuildXor(b, p->stage_par, lw_i32(c, 1), "");
            LLVMAddIncoming(p->stage_par, &flip, &latch, 1);
        }
        for (int r = 0; r < p->early_cur.n; r++) {
            LLVMValueRef x = r < p->early_next.n ? p->early_next.r[r] : NULL;
            if (!x) x = LLVMGetUndef(LLVMTypeOf(p->early_cur.r[r]));   /* reported below */
            LLVMAddIncoming(p->early_cur.r[r], &x, &latch, 1);
        }
        for (int i = 0; i < 2; i++)
            for (int j = 0; p->carry_phi[i] && j < p->carry_n[i]; j++) {
                LLVMValueRef phi = p->carry_phi[i][j];
                if (!phi) continue;
                LLVMValueRef x = p->carry_next[i] ? p->carry_next[i][j] : NULL;
                if (!x) x = LLVMGetUndef(LLVMTypeOf(phi));   /* reported below */
                LLVMAddIncoming(phi, &x, &latch, 1);
            }
        LLVMPositionBuilderAtEnd(b, at);
    }
    if (p->carry_dot && !p->carry_next[0] && !p->carry_next[1] && !f->failed)
        lw_error(f, p->carry_dot->loc, "internal error: the product did not "
                 "read the next slot's fragments");
    if (p->early_cur.n && p->early_next.n != p->early_cur.n && !f->failed)
        lw_error(f, p->plan->early->loc, "internal error: the product issued ahead was "
                 "not issued for the next iteration");
    if (p->copy_iv && !f->failed)   /* late copies: the product never waited */
        lw_error(f, p->loop->loc, "internal error: the loop's next tiles were not copied");
    if (p->plan->pingpong) lw_pingpong_end(f);
    if (p->plan->nwg && p->plan->pending) {
        /* the last product's group: done before anyone reads the sum */
        const IrValue *acc = p->loop->regions[0]->args[p->plan->carry + 1];
        lw_set(f, acc, lw_wgmma_wait(f, *lw_val(f, acc), 0));
    }
    if (p->plan->nring > p->plan->ntma)
        lw_call_intr(c, "llvm.nvvm.cp.async.wait.all", NULL, 0, NULL, 0);
    if (p->plan->ntma) lw_tma_end(f, p->plan);
    if (f->smem_bytes > f->smem_pinned) f->smem_pinned = f->smem_bytes;
    if (f->ws == p->plan && p->smem_outside > f->smem_pinned)   /* live from the entry */
        f->smem_pinned = p->smem_outside;
    if (p->smem_outside > f->smem_bytes) f->smem_bytes = p->smem_outside;
    f->pipe = p->prev;
}

/* Warp specialization's producer (warpspec.c calls it in the producer's
 * function state: thread 0's identity, the values outside the loop that
 * LyPlan.ws_need marks lowered): iteration j of the loop copies into
 * slot j % S after the slot's release of its use j/S - 1 — the readers'
 * phase of parity (j/S + 1) % 2, at once for j < S, a fresh mbarrier's
 * — its body's marked values lowered for j first (at_iteration), so
 * that their arithmetic overlaps the wait. */
void lw_pipe_produce(LwFn *f, const IrOp *loop) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    const LyPipe *q = ly_pipe_of(f->plan, loop);
    size_t n = (size_t)f->k->nvalues + 1;
    struct LwPipe *p = ar_alloc(c->ar, sizeof *p);
    *p = (struct LwPipe){.plan = q, .loop = loop, .lo = lw_to_i64(f, loop->args[0]),
                         .hi = lw_to_i64(f, loop->args[1]), .step = lw_to_i64(f, loop->args[2])};
    p->need = ar_alloc(c->ar, n);
    memcpy(p->need, f->plan->ws_need, n);
    p->kept = ar_alloc(c->ar, sizeof(LwVal) * n);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b), head = lw_new_bb(f, "ws.head"),
                      body = lw_new_bb(f, "ws.copy"), done = lw_new_bb(f, "ws.done");
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    LLVMValueRef iv = LLVMBuildPhi(b, c->i64, "iv");
    p->read_slot = LLVMBuildPhi(b, c->i32, "slot");
    p->phase = LLVMBuildPhi(b, c->i32, "phase");
    LLVMValueRef zero = lw_i32(c, 0);
    LLVMAddIncoming(iv, &p->lo, &pre, 1);
    LLVMAddIncoming(p->read_slot, &zero, &pre, 1);
    LLVMAddIncoming(p->phase, &zero, &pre, 1);
    LLVMBuildCondBr(b, runs(f, p, iv), body, done);
    LLVMPositionBuilderAtEnd(b, body);
    at_iteration(f, p, iv);
    LLVMValueRef freed = LLVMBuildXor(b, p->phase, lw_i32(c, 1), "");
    lw_tma_issue(f, q, p->read_slot, NULL, freed, NULL);
    LLVMValueRef next = slot_add(f, p, p->read_slot, 1), flip = next_phase(f, p, next),
                 iv_next = LLVMBuildAdd(b, iv, p->step, "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
    LLVMAddIncoming(iv, &iv_next, &latch, 1);
    LLVMAddIncoming(p->read_slot, &next, &latch, 1);
    LLVMAddIncoming(p->phase, &flip, &latch, 1);
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, done);
}

static const LyRing *find_ring(LwFn *f, const IrOp *load, LLVMValueRef *slot) {
    if (!load || load->op != IR_LOAD || load->iattr[3] < 2) return NULL;
    for (struct LwPipe *p = f->pipe; p; p = p->prev)
        for (int i = 0; i < p->plan->nring; i++)
            if (p->plan->ring[i].load == load) {
                *slot = p->read_slot;
                return &p->plan->ring[i];
            }
    return NULL;
}

void lw_pipe_load(LwFn *f, const IrOp *op) {
    lw_set(f, op->res[0], (LwVal){0, NULL});   /* read only from the ring */
}

void lw_pipe_operand(LwFn *f, const IrOp *op) {
    LLVMValueRef slot;
    const LyRing *r = find_ring(f, op->args[0]->def, &slot);
    if (!r) {
        lw_error(f, op->loc, "internal error: a ring operand outside its loop");
        return;
    }
    if (f->pipe && f->pipe->plan->nwg && ring_of(f->pipe, op->args[0]->def) &&
        ly_only_products(f->plan, op)) {
        /* read by descriptors, or into registers by the product
         * (lw_pipe_reg_a); an enclosing loop's ring is read here */
        lw_set(f, op->res[0], (LwVal){0, NULL});
        return;
    }
    LLVMValueRef base = slot_base(f, r, slot);
    ScalarKind k = (ScalarKind)op->args[0]->ty.k;
    struct LwPipe *p = f->pipe;
    int carried = p && p->carry_dot && (p->carry_cvt[0] == op || p->carry_cvt[1] == op);
    LwFrag *z = ly_only_products(f->plan, op)
                    ? lw_frag_operand(f, base, k, op->res[0]->layout, r->s, carried)
                    : NULL;
    if (z && carried)
        lw_frag_set_raw(f, z, p->carry_phi[p->carry_cvt[0] == op ? 0 : 1]);
    if (z) {
        if (!f->frag) {
            size_t n = sizeof(LwFrag *) * ((size_t)f->k->nvalues + 1);
            f->frag = ar_alloc(f->c->ar, n);
            memset(f->frag, 0, n);
        }
        f->frag[op->res[0]->id] = z;
        lw_set(f, op->res[0], lw_frag_val(z));
    } else {
        lw_set(f, op->res[0], lw_read_operand(f, base, k, op->res[0]->layout, r->s));
    }
}

/* A tf32 A read from its ring into registers (plan reg_a) when product
 * `dot` runs, after the stage buffers' stores and the barrier that
 * publishes them. With a group in flight (`pending`), the registers the
 * group before reads must not be written until it is done (PTX: a
 * wgmma's A registers are undefined to write before the wait_group
 * covering it; without this wait, tiles of 128 rows came out wrong on
 * the H200): so a wait for it first, which by then, past the stage's
 * stores, costs little; *acc, the product's accumulator, is then the
 * waited one. */
void lw_pipe_reg_a(LwFn *f, const IrOp *dot, LwVal *acc) {
    struct LwPipe *p = f->pipe;
    const IrOp *cv = dot->args[0]->def;
    LLVMValueRef slot;
    if (!p || !ly_reg_a(p->plan, cv)) return;
    const LyRing *r = find_ring(f, cv->args[0]->def, &slot);
    if (!r) {
        lw_error(f, dot->loc, "internal error: a register A outside its ring's loop");
        return;
    }
    if (p->plan->pending) *acc = lw_wgmma_wait(f, *acc, 0);
    lw_set(f, cv->res[0], lw_read_operand(f, slot_base(f, r, slot), (ScalarKind)dot->args[0]->ty.k,
                                          cv->res[0]->layout, r->s));
}

void lw_pipe_last_step(LwFn *f, const IrOp *dot) {
    struct LwPipe *p = f->pipe;
    if (!p || p->carry_dot != dot) return;
    LwCtx *c = f->c;
    LLVMValueRef wait = lw_i32(c, p->plan->ahead - 1);
    lw_call_intr(c, "llvm.nvvm.cp.async.wait.group", NULL, 0, &wait, 1);
    lw_barrier(f);
    LLVMValueRef slot = slot_add(f, p, p->read_slot, 1);
    for (int i = 0; i < 2; i++) {
        const IrOp *cv = p->carry_cvt[i];
        if (!cv) continue;
        const LyRing *r = p->carry_ring[i];
        LwFrag *z = lw_frag_operand(f, slot_base(f, r, slot), (ScalarKind)cv->args[0]->ty.k,
                                    cv->res[0]->layout, r->s, 1);
        lw_frag_load(f, z, 0, dot->res[0]->layout->mma_k);
        p->carry_next[i] = lw_frag_raw(z);
    }
}

/* The stage buffer of conversion `cv` in the innermost pipelined loop,
 * or NULL. */
static const LyStage *stage_of(LwFn *f, const IrOp *cv) {
    return ly_stage_of(f->pipe ? f->pipe->plan : NULL, cv);
}

/* The stage's buffer of this iteration. */
static LLVMValueRef stage_base(LwFn *f, const LyStage *st) {
    LwCtx *c = f->c;
    LLVMValueRef off = lw_i32(c, st->off), par = f->pipe->stage_par;
    if (par)
        off = LLVMBuildAdd(c->b, off, LLVMBuildMul(c->b, par, lw_i32(c, st->stage_buf), ""), "");
    return LLVMBuildGEP2(c->b, c->i8, f->ring, &off, 1, "");
}

/* A staged conversion stores its source's registers at once: the first
 * time in an iteration behind a barrier, for every warpgroup's products
 * that read the buffer before to finish: the iteration before's
 * (waited for), or with two buffers a stage and a group in flight
 * (`pending`), the one before that, which each warpgroup's wait in the
 * iteration before completed. (Deferring every store to the product, so
 * that all of the iteration's loads issue first, measured 30% slower on
 * the H200: all loaded registers live at once.) The product then passes
 * each thread's stores to the async proxy that wgmma reads through, and
 * a barrier publishes them (publish_stages). */
void lw_pipe_stage(LwFn *f, const IrOp *op) {
    const LyStage *st = stage_of(f, op);
    if (!st) {
        lw_error(f, op->loc, "internal error: a staged operand outside its loop");
        return;
    }
    struct LwPipe *p = f->pipe;
    if (!p->staged && !p->top_barrier) lw_barrier(f);
    p->staged = 1;
    const IrValue *sv = op->args[0];
    ScalarKind k = (ScalarKind)sv->ty.k;
    if (st->ring) {   /* along M or N in the ring, K-major in the stage */
        LwVal v = lw_read_operand(f, slot_base(f, st->ring, p->read_slot), k, st->xl,
                                  st->ring->s);
        lw_store_smem(f, stage_base(f, st), v, k, st->xl, st->s);
    } else {
        lw_store_smem(f, stage_base(f, st), *lw_val(f, sv), k, sv->layout, st->s);
    }
    lw_set(f, op->res[0], (LwVal){0, NULL});   /* read by descriptors */
}

/* The stage buffers' stores, made visible to wgmma (the fence waits for
 * the thread's copies in flight too). */
static void publish_stages(LwFn *f, struct LwPipe *p) {
    if (p->staged != 1) return;
    lw_call_intr(f->c, "llvm.nvvm.fence.proxy.async.shared_cta", NULL, 0, NULL, 0);
    lw_barrier(f);
    p->staged = 2;
}

void lw_pipe_turn(LwFn *f, const IrOp *dot, int end) {
    const struct LwPipe *p = f->pipe;
    if (p && p->plan->pingpong && ly_wgmma_planned(p->plan, dot))
        lw_pingpong_turn(f, p->plan, end);
}

int lw_pipe_wgmma(LwFn *f, const IrOp *dot, LLVMValueRef base[2], const LySmem *s[2],
                  int *pending) {
    struct LwPipe *p = f->pipe;
    if (!p || !ly_wgmma_planned(p->plan, dot)) return 0;
    for (int i = 0; i < 2; i++) {
        const IrOp *cv = dot->args[i]->def;
        if (i == 0 && ly_reg_a(p->plan, cv)) {   /* A read from its ring into registers */
            base[0] = NULL;
            s[0] = NULL;
            continue;
        }
        const LyStage *st = stage_of(f, cv);   /* before a ring it reads */
        /* this loop's ring only, as the plan has it (ly_ring_operand): an
         * operand converted from an enclosing loop's ring was read into
         * registers there, and that ring is not laid out for wgmma */
        const LyRing *r = !st && cv && cv->op == IR_CONVERT_LAYOUT
                              ? ring_of(p, cv->args[0]->def) : NULL;
        base[i] = r ? slot_base(f, r, p->read_slot) : st ? stage_base(f, st) : NULL;
        s[i] = r ? r->s : st ? st->s : NULL;
        if (!s[i] && i == 1) return 0;
    }
    publish_stages(f, p);
    *pending = p->plan->pending;
    return 1;
}
