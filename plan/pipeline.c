/*
 * pipeline.c — software pipelining analysis for loads that feed tensor
 * cores.
 *
 * A matmul's loop body loads an A and a B tile and multiplies them; on
 * the GPU the loads become cp.async copies into shared memory, issued
 * `stages - 1` iterations ahead, so that the tensor cores never wait for
 * global memory (Triton's software pipeliner). This pass decides which
 * loads can be copied ahead and records it in the IR: a pipelined LOAD
 * has iattr[3] = the depth of its ring of shared-memory buffers (the
 * kernel's `stages`); 0 means an ordinary load. The transformation itself
 * (prologue, ring indexing, commit/wait) belongs to the lowering, which
 * re-evaluates the load's address and mask computation for iteration
 * i + stages - 1; hence the conditions below, all of which keep that
 * re-evaluation a pure function of the induction variable:
 *
 *  - the load sits directly in the body of a `for` loop (not under an
 *    `if` or a nested loop inside it), and stages >= 2;
 *  - every use of its result is a `convert_layout` to a tensor-core
 *    operand layout (LY_DOT_OP with an LY_MMA accumulator) in the same
 *    body: the tile is only ever read from shared memory by ldmatrix;
 *  - its pointer, mask and `other` are computed in the body from the
 *    induction variable and values defined outside the loop, by ops
 *    without side effects (no loads, no loop-carried values; a pointer
 *    advanced by `p += BK` qualifies, plan/induction.c having rewritten
 *    it as its start plus the steps done);
 *  - masked-off elements read as zero (no `other`, or a splat of the
 *    constant 0): cp.async's source-size operand fills zeros;
 *  - each thread copies at least 4 bytes at once (cp.async copies 4, 8
 *    or 16 bytes): the load's vector width (ly_mem_vec) times the element
 *    size.
 *
 * Whether a configuration's rings fit is not decided here: the lowering
 * plan (plan/lowering.c) sizes them beside a bound on the scratch and
 * drops a loop that does not fit back to ordinary loads, and lower/lower.c
 * skips a configuration that does not fit at all.
 */
#include "plan/layout.h"

#include <math.h>

static int is_mma_operand(const Layout *l) {
    return l && l->kind == LY_DOT_OP && l->parent && l->parent->kind == LY_MMA;
}

/* Ops cheap and free of effects (ir_op_effects), that the lowering may
 * evaluate again for a later iteration: not a product, nor an op that
 * moves values between lanes. */
static int pure_op(int opc) {
    if (ir_op_effects((IrOpcode)opc)) return 0;
    switch (opc) {
    case IR_DOT: case IR_REDUCE: case IR_SCAN: case IR_SLICE: case IR_CAT: case IR_GATHER:
    case IR_SORT:
        return 0;
    default:
        return 1;
    }
}

/* v can be recomputed for another iteration: built from the induction
 * variable and loop invariants by pure ops in the loop's body. */
static int clonable(const IrValue *v, const IrOp *loop, int depth) {
    if (!ly_defined_in(v, loop)) return 1;
    const IrBlock *body = loop->regions[0];
    if (!v->def) return v == body->args[0];
    const IrOp *op = v->def;
    if (depth > 64 || op->parent != body || !pure_op(op->op) || op->nregions)
        return 0;
    for (int i = 0; i < op->nargs; i++)
        if (!clonable(op->args[i], loop, depth + 1)) return 0;
    return 1;
}

static int zero_splat(const IrValue *v) {
    const IrOp *op = v->def;
    while (op && (op->op == IR_SPLAT || op->op == IR_BROADCAST ||
                  op->op == IR_CONVERT_LAYOUT || op->op == IR_PERMUTE))
        op = op->args[0]->def;
    return op && op->op == IR_CONST && op->iattr[0] == 0 && op->fattr == 0 &&
           !signbit(op->fattr);
}

/* Every use of v in b (nested included) is a convert_layout to a
 * tensor-core operand layout, and there is at least one. */
static int only_mma_operand_uses(const IrBlock *b, const IrValue *v, int *uses) {
    for (const IrOp *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nargs; i++) {
            if (op->args[i] != v) continue;
            if (op->op != IR_CONVERT_LAYOUT || !is_mma_operand(op->res[0]->layout))
                return 0;
            ++*uses;
        }
        for (int r = 0; r < op->nregions; r++)
            if (!only_mma_operand_uses(op->regions[r], v, uses)) return 0;
    }
    return 1;
}

static int pipelinable(const LyResult *r, const IrKernel *k, const IrOp *load,
                       const IrOp *loop) {
    const IrValue *p = load->args[0];
    if (p->ty.rank != 2 || k->stages < 2) return 0;
    int uses = 0;
    if (!only_mma_operand_uses(loop->regions[0], load->res[0], &uses) || !uses)
        return 0;
    for (int i = 0; i < load->nargs; i++)
        if (!clonable(load->args[i], loop, 0)) return 0;
    if ((load->iattr[0] & LOAD_OTHER) && !zero_splat(load->args[load->nargs - 1]))
        return 0;
    return ly_mem_vec(r, load) * ty_bytes(p->ty.pointee) >= 4;
}

static int mark_block(const LyResult *r, IrKernel *k, IrBlock *b) {
    int n = 0;
    for (IrOp *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nregions; i++) n += mark_block(r, k, op->regions[i]);
        const IrOp *loop = b->parent;
        if (op->op != IR_LOAD || !loop || loop->op != IR_FOR) continue;
        op->iattr[3] = pipelinable(r, k, op, loop) ? k->stages : 0;
        n += op->iattr[3] > 0;
    }
    return n;
}

int ly_pipeline_kernel(const LyResult *r, IrKernel *k) {
    return mark_block(r, k, k->body);
}
