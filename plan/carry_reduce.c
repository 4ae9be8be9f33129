/*
 * carry_reduce.c — loop-carried reductions reduced once, after the loop.
 *
 * A column sum written as users write it,
 *
 *     var acc = zeros([BN], f32);
 *     for i in range(0, rows, BM) {
 *         let t = load(...);               // [BM, BN]
 *         acc += sum(t, 0);
 *     }
 *
 * reduces t across threads in every iteration: with t's rows spread over
 * lanes or warps (the coalesced layout puts a warp along each row), each
 * iteration pays shuffles, or a shared-memory round trip between two
 * barriers, before the next iteration's loads may start. Since the sum
 * is associative (up to the order of float additions, which the
 * language leaves unspecified), the loop may instead carry the
 * unreduced tile, element by element, and reduce it once:
 *
 *     acc2 = identity [BM, BN]             // -0.0 for float sums
 *     for ... { acc2 = acc2 + t; }         // in t's layout: no traffic
 *     acc = acc_init + sum(acc2, 0)
 *
 * The pass rewrites, in every `for` loop (at any depth), each carried
 * value j whose update is exactly `acc = acc OP red(t, axis)` with
 *
 *   - OP / red one of add / sum, max / max, min / min, both in the body
 *     block itself (not under an `if`: the update is unconditional);
 *   - the region argument read only by that update, the update read
 *     only by the yield, the reduction read only by the update;
 *   - the reduction's result of t's element kind and, for a sum, not
 *     f16/bf16 (those accumulate in f32 and round once per call: an
 *     element-wise f16 accumulator would round every iteration);
 *   - the carried tiles of one loop together at most LY_CARRY_MAX_REGS
 *     32-bit registers per thread (numel(t) / threads each, 64-bit
 *     kinds twice; taken in order, a value that would pass the budget
 *     is left as it is): they live in registers for the whole loop,
 *     beside everything else. 64 is the budget: with 4 warps, one
 *     [32, 256] or [64, 128] f32 tile.
 *
 * The identity starts the carried tile: -0.0 for float sums (x + -0.0
 * is x for every x, -0.0 included), 0 for integer sums (exact, modulo
 * 2^w, in any order), NaN for float max/min (maxNum(NaN, x) = x, so a
 * loop that runs no iteration or sees only NaN leaves acc_init as
 * before), the type's extremes for integer max/min. max and min are
 * exact; an integer sum is exact; a float sum adds the same terms in
 * another order (docs/language.md: the order is unspecified).
 *
 * The rewrite runs on the per-variant copy of the kernel, at the start
 * of layout assignment (ly_assign_kernel), so the layout pass sees the
 * carried tile: its update is element-wise with t, so it takes t's
 * (load anchor's) layout, and the reduction after the loop gives the
 * usual slice. The IR sema built — what the interpreter runs — is not
 * touched: the difftest compares the two. Values keep their ids; the
 * carried slot's region argument, update and loop result change type
 * in place, the reduction op moves after the loop, and two ops (the
 * identity constant and its splat) go before it, one (the combine with
 * acc_init) after.
 */
#include "plan/layout.h"

#include <math.h>
#include <string.h>

typedef struct Cr {
    Arena *ar;
    IrKernel *k;
    int *uses;           /* operand reads per value id */
    int nuses;
} Cr;

/* ----------------------------------------------------------- the shape */

static void recount(Cr *c) {
    if (c->nuses < c->k->nvalues + 1) {
        c->nuses = c->k->nvalues + 1;
        c->uses = ar_alloc(c->ar, sizeof(int) * (size_t)c->nuses);
    }
    memset(c->uses, 0, sizeof(int) * (size_t)c->nuses);
    ir_count_uses(c->uses, c->k->body);
}

/* The element-wise op that combines partial results of reduction kind
 * red, or -1. */
static int combine_op(int64_t red) {
    switch (red) {
    case RED_SUM: return IR_ADD;
    case RED_MAX: return IR_MAX;
    case RED_MIN: return IR_MIN;
    default: return -1;
    }
}

/* 32-bit registers per thread that a tile of type t takes. */
static int64_t regs_per_thread(const IrKernel *k, Type t) {
    int64_t words = ty_bytes((ScalarKind)t.k) > 4 ? 2 : 1;
    int64_t threads = (int64_t)k->warps * 32;
    return (ty_numel(ty_pad(t)) * words + threads - 1) / threads;
}

/* The reduction of carried value j of `loop` when its update has the
 * shape the header describes, else NULL. */
static IrOp *carried_reduce(const Cr *c, const IrOp *loop, int j) {
    const IrBlock *body = loop->regions[0];
    const IrOp *y = body->last;
    if (!y || y->op != IR_YIELD || j >= y->nargs) return NULL;
    const IrValue *arg = body->args[j + 1];
    const IrOp *upd = y->args[j]->def;
    if (!upd || upd->parent != body || upd->nargs != 2 || upd->nres != 1) return NULL;
    int side = upd->args[0] == arg ? 1 : upd->args[1] == arg ? 0 : -1;
    if (side < 0 || upd->args[side] == arg) return NULL;
    IrOp *red = upd->args[side]->def;
    if (!red || red->op != IR_REDUCE || red->parent != body ||
        combine_op(red->iattr[0]) != upd->op)
        return NULL;
    ScalarKind k = (ScalarKind)red->res[0]->ty.k;
    Type t = red->args[0]->ty;
    if (t.k != k || !(ty_isint(k) || ty_isfloat(k))) return NULL;
    if (red->iattr[0] == RED_SUM && (k == SK_F16 || k == SK_BF16)) return NULL;
    if (c->uses[arg->id] != 1 || c->uses[upd->res[0]->id] != 1 ||
        c->uses[red->res[0]->id] != 1)
        return NULL;
    return red;
}

/* ------------------------------------------------------------ rewriting */

/* The identity of reduction kind red over kind k, as a detached
 * constant op (attributes as ir_const_float / ir_const_int set them). */
static IrOp *identity(Cr *c, int64_t red, ScalarKind k, Loc loc) {
    IrOp *op = ir_detached(c->ar, c->k, IR_CONST, ty_scalar(k), 0, NULL, loc);
    if (ty_isfloat(k)) {
        op->fattr = red == RED_SUM ? -0.0 : (double)NAN;
        return op;
    }
    int bits = ty_bits(k), sgn = ty_issigned(k);
    int64_t lo = sgn ? -(int64_t)((UINT64_C(1) << (bits - 1)) - 1) - 1 : 0;
    int64_t hi = sgn ? (int64_t)((UINT64_C(1) << (bits - 1)) - 1) : -1;
    op->iattr[0] = red == RED_SUM ? 0 : red == RED_MAX ? lo : hi;
    op->fattr = (double)op->iattr[0];
    return op;
}

/* Rewrites carried value j of `loop`, whose update reduces with red. */
static void rewrite(Cr *c, IrOp *loop, int j, IrOp *red) {
    IrBlock *body = loop->regions[0];
    IrValue *arg = body->args[j + 1], *res = loop->res[j], *s = red->res[0];
    IrOp *upd = body->last->args[j]->def;
    IrValue *t = red->args[0], *init = loop->args[3 + j];
    Type tt = t->ty;
    /* the identity tile, before the loop */
    IrOp *one = identity(c, red->iattr[0], (ScalarKind)tt.k, red->loc);
    IrOp *splat = ir_detached(c->ar, c->k, IR_SPLAT, tt, 1, &one->res[0], red->loc);
    ir_insert_after(one, loop->parent, loop->prev);
    ir_insert_after(splat, loop->parent, one);
    loop->args[3 + j] = splat->res[0];
    /* the loop carries t's shape, updated element-wise */
    arg->ty = tt;
    res->ty = tt;
    upd->res[0]->ty = tt;
    upd->args[upd->args[0] == s ? 0 : 1] = t;
    /* after the loop: acc = init OP red(carried) */
    IrValue *ops[2] = {init, s};
    IrOp *fin = ir_detached(c->ar, c->k, (IrOpcode)upd->op, s->ty, 2, ops, upd->loc);
    fin->res[0]->name = res->name;
    ir_replace_uses(c->k->body, res, fin->res[0]);
    ir_unlink(red);
    red->args[0] = res;
    ir_insert_after(red, loop->parent, loop);
    ir_insert_after(fin, loop->parent, red);
}

/* Rewrites the carried values of `loop` that qualify, in order, while
 * their tiles together stay within the register budget. */
static int carry_loop(Cr *c, IrOp *loop) {
    int n = 0;
    int64_t regs = 0;
    for (int j = 0; j < loop->nres; j++) {
        recount(c);
        IrOp *red = carried_reduce(c, loop, j);
        if (!red) continue;
        int64_t more = regs_per_thread(c->k, red->args[0]->ty);
        if (regs + more > LY_CARRY_MAX_REGS) continue;
        regs += more;
        rewrite(c, loop, j, red);
        n++;
    }
    return n;
}

static int carry_block(Cr *c, IrBlock *b) {
    int n = 0;
    for (IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++) n += carry_block(c, op->regions[r]);
        if (op->op == IR_FOR) n += carry_loop(c, op);
    }
    return n;
}

int ly_carry_reduce(Arena *ar, IrKernel *k) {
    Cr c = {ar, k, NULL, 0};
    return carry_block(&c, k->body);
}
