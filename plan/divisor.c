/*
 * divisor.c — which integer divisors get their multiply-shift constants
 * computed once, where they are defined (a plan: LyPlan.magic).
 *
 * Why: the GPU has no integer divide. `div.s32` by a register is a
 * sequence of about 30 instructions (a float reciprocal on the SFU, a
 * correction), per element and per iteration; a divisor known at compile
 * time LLVM already turns into a multiplication. A divisor that is only
 * known at run time but does not change where it is divided — a
 * parameter, `cdiv(M, BM)` — can be inverted once (Granlund and
 * Montgomery, "Division by invariant integers using multiplication",
 * PLDI 1994, figures 4.1 and 5.1): each division is then a high multiply,
 * an add and shifts (lower/divide.c). A persistent kernel's tile walk
 * (`it / kt`, `it % kt`, std/grid's group_m and group_n) divides by five
 * such values in every iteration of its loop, and a flattened index
 * (`offs / cols`, `offs % cols`) divides each element of a tile.
 *
 * The rule: a divisor qualifies when it is a scalar integer of 8, 16 or
 * 32 bits (a 64-bit one would need a 128-bit division), a kernel
 * parameter or the result of an op of the kernel's top block (so that
 * the constants, computed right after it, dominate every division by it
 * and are computed once per program), and not a constant. Its divisions
 * (an integer `/` or `%` whose divisor is it, or a splat of it) weigh
 * what they cost per thread: the distinct registers of the quotient, or
 * LY_MAGIC_LOOP when the division is inside a loop. It is inverted when
 * they weigh LY_MAGIC_MIN or more: the inversion costs about as much as
 * three divisions (one division of twice the width), each division so
 * replaced saves about 25 instructions.
 *
 * Nothing else changes: results equal the plain division's for every
 * divisor, zero included (which divides by 1, as lw_divrem does), and
 * INT_MIN / -1 (INT_MIN, remainder 0). tests/unit/test_divide checks the
 * constants and the sequence for every pair of 8- and 12-bit operands;
 * tests/gpu/ops/divide.tile runs the lowered code against the
 * interpreter.
 */
#include "plan/layout.h"

#include <string.h>

enum { LY_MAGIC_LOOP = 64, LY_MAGIC_MIN = 4 };

const IrValue *ly_divisor_scalar(const IrOp *op) {
    if ((op->op != IR_DIV && op->op != IR_REM) || op->nargs != 2) return NULL;
    if (!ty_isint((ScalarKind)op->res[0]->ty.k)) return NULL;
    const IrValue *d = op->args[1];
    while (d->ty.rank > 0 && d->def &&
           (d->def->op == IR_SPLAT || d->def->op == IR_BROADCAST ||
            d->def->op == IR_EXPAND_DIMS))
        d = d->def->args[0];
    return d->ty.rank == 0 ? d : NULL;
}

/* The value qualifies as a divisor to invert (the header's rule, but for
 * the weight): defined at the top of kernel k. */
static int invertible(const IrKernel *k, const IrValue *d) {
    int bits = ty_bits((ScalarKind)d->ty.k);
    if (!ty_isint((ScalarKind)d->ty.k) || bits > 32) return 0;
    if (!d->def) return d->block == k->body;
    return d->def->parent == k->body && d->def->op != IR_CONST;
}

/* Registers of v a thread computes: its layout's, less those that repeat
 * another (ly_repeated_regs). */
static int distinct_regs(const LyResult *ly, const IrValue *v) {
    if (!v->layout) return 1;
    uint32_t same = ly_repeated_regs(ly, v);
    int n = ly_size(v->layout, LY_REG);
    while (same) {
        n >>= 1;
        same &= same - 1;
    }
    return n > 0 ? n : 1;
}

static void weigh_block(const IrKernel *k, const LyResult *ly, const IrBlock *b,
                        int in_loop, int *weight) {
    for (const IrOp *op = b->first; op; op = op->next) {
        const IrValue *d = ly_divisor_scalar(op);
        if (d && invertible(k, d)) {
            if (weight[d->id] < LY_MAGIC_MIN)
                weight[d->id] += in_loop ? LY_MAGIC_LOOP : distinct_regs(ly, op->res[0]);
        }
        int loop = in_loop || op->op == IR_FOR || op->op == IR_WHILE;
        for (int i = 0; i < op->nregions; i++)
            weigh_block(k, ly, op->regions[i], loop, weight);
    }
}

uint8_t *ly_plan_divisors(Arena *ar, const IrKernel *k, const LyResult *ly) {
    size_t n = (size_t)k->nvalues + 1;
    int *weight = ar_alloc(ar, sizeof(int) * n);
    memset(weight, 0, sizeof(int) * n);
    weigh_block(k, ly, k->body, 0, weight);
    uint8_t *marks = NULL;
    for (size_t i = 0; i < n; i++) {
        if (weight[i] < LY_MAGIC_MIN) continue;
        if (!marks) {
            marks = ar_alloc(ar, n);
            memset(marks, 0, n);
        }
        marks[i] = 1;
    }
    return marks;
}
