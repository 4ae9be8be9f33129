/*
 * hoist.c — scalars that do not change in a loop are computed before it
 * (loop-invariant code motion of scalars, on a variant's copy).
 *
 * Why here and not only in LLVM (which hoists the arithmetic anyway):
 * the plans decide by where a value is defined. A divisor is inverted
 * once (divisor.c) only where it is defined outside the loops that
 * divide by it; std/grid's group_m, called in a persistent kernel's loop
 * (`group_m(t, tm, tn, GROUP)`), divides by `group * num_n`, which sema's
 * inlining placed inside the loop although nothing of it changes there.
 *
 * The walk: innermost loops first. An op of a `for` body or of a
 * `while`'s condition or body (not nested in an `if` there) moves
 * to just before the loop when it has one scalar result, no regions,
 * cannot fail or touch memory (arithmetic, comparisons, selects, casts,
 * constants, program ids; integer `/` and `%` too, which on the GPU
 * divide by 1 where the divisor is 0 instead of failing: lower/
 * elementwise.c), and every operand is defined outside the loop (or was
 * moved before it). Program order among moved ops is kept, so each still
 * follows its operands. A loop that never runs now computes them once
 * for nothing; nothing else changes, since they have no effects. Tiles
 * stay where they are: moving one would hold its registers through the
 * loop. The interpreter runs sema's IR, not this copy.
 */
#include "plan/layout.h"

int ly_defined_in(const IrValue *v, const IrOp *loop) {
    const IrBlock *b = v->def ? v->def->parent : v->block;
    for (; b; b = b->parent ? b->parent->parent : NULL)
        if (b->parent == loop) return 1;
    return 0;
}

/* A scalar op of the kinds the header names, whose operands are scalars
 * defined outside loop: a list of its own (ir_op_effects' 0 would admit
 * any math function, and tiles are excluded on purpose). */
static int movable(const IrOp *op, const IrOp *loop) {
    if (op->nres != 1 || op->nregions || op->res[0]->ty.rank != 0) return 0;
    switch (op->op) {
    case IR_CONST: case IR_PROGRAM_ID: case IR_NUM_PROGRAMS: case IR_CAST:
    case IR_ADD: case IR_SUB: case IR_MUL: case IR_DIV: case IR_REM:
    case IR_AND: case IR_OR: case IR_XOR: case IR_SHL: case IR_SHR:
    case IR_MIN: case IR_MAX: case IR_UMULHI: case IR_CMP: case IR_NEG:
    case IR_NOT: case IR_ABS: case IR_SELECT:
        break;
    default:
        return 0;
    }
    for (int i = 0; i < op->nargs; i++)
        if (op->args[i]->ty.rank != 0 || ly_defined_in(op->args[i], loop)) return 0;
    return 1;
}

/* Moves the movable ops of loop's regions (a `for` body; a `while`'s
 * condition and body) to just before loop. */
static int hoist_loop(IrOp *loop) {
    int moved = 0;
    for (int r = 0; r < loop->nregions; r++) {
        IrOp *next;
        for (IrOp *op = loop->regions[r]->first; op; op = next) {
            next = op->next;
            if (!movable(op, loop)) continue;
            ir_unlink(op);
            ir_insert_after(op, loop->parent, loop->prev);
            moved++;
        }
    }
    return moved;
}

static int hoist_block(IrBlock *b) {
    int moved = 0;
    for (IrOp *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nregions; i++) moved += hoist_block(op->regions[i]);
        if (op->op == IR_FOR || op->op == IR_WHILE) moved += hoist_loop(op);
    }
    return moved;
}

int ly_hoist(Arena *ar, IrKernel *k) {
    (void)ar;
    return hoist_block(k->body);
}
