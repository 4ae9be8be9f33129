/*
 * budget.c — the limits on compile-time work.
 *
 * Sema runs the program at compile time: static_range loops are unrolled
 * and fn calls inlined, so a short input can ask for unbounded work (three
 * nested static_range(0, 4096) loops, or forty fns each calling the
 * previous one twice). Three budgets per compilation bound it, whatever the
 * input: SM_MAX_UNROLL_TOTAL static_range iterations, SM_MAX_INLINE_TOTAL
 * inlined calls and SM_MAX_IR_OPS IR operations (each kernel counts its
 * own; the sum is polled at every statement and expression). Together
 * with the parser's depth limit and the input size cap they bound the
 * compiler's memory.
 *
 * Exceeding one is a fatal error: it blames the outermost construct that
 * multiplies the work — the outermost unrolled loop for the unroll budget,
 * the outermost inlined call for the inline budget, the outermost of either
 * for the IR budget — and dg_stop() ends the compilation, since everything
 * after it would exceed the budget too.
 */
#include "sm.h"

/* The outermost loop (want == 1), call (want == 0) or either (-1). */
static const SmNest *outermost(const SmCtx *c, int want) {
    for (int i = 0; i < c->nest.n; i++)
        if (want < 0 || (c->nest.v[i].fn == NULL) == want) return &c->nest.v[i];
    return NULL;
}

int sm_ops_ok(SmCtx *c, Loc at) {
    int64_t ops = c->ops_done + c->scratch->nops;
    if (c->b.k != c->scratch) ops += c->b.k->nops;
    if (ops <= SM_MAX_IR_OPS) return 1;
    const SmNest *o = outermost(c, -1);
    if (!o)
        dg_error(c->dg, at, "the program is too large: compiling it creates "
                 "more than %d IR operations, the limit of a compilation",
                 SM_MAX_IR_OPS);
    else if (o->fn)
        dg_error(c->dg, o->loc, "inlining this call to fn '%s' creates more "
                 "than %d IR operations, the limit of a compilation", o->fn,
                 SM_MAX_IR_OPS);
    else
        dg_error(c->dg, o->loc, "unrolling this 'static_range' creates more "
                 "than %d IR operations, the limit of a compilation",
                 SM_MAX_IR_OPS);
    dg_stop(c->dg);
    return 0;
}

void sm_unroll_enter(SmCtx *c, Loc loop, int64_t n) {
    SmNest e = {loop, NULL, n};
    vec_push(c->ar, &c->nest, e);
}

void sm_unroll_leave(SmCtx *c) { c->nest.n--; }

/* Counts one iteration of the innermost unrolled loop. */
int sm_unroll_step(SmCtx *c) {
    if (++c->unrolled <= SM_MAX_UNROLL_TOTAL) return 1;
    const SmNest *o = outermost(c, 1);
    Buf nest = {0};
    int loops = 0;
    for (const SmNest *e = o; e < c->nest.v + c->nest.n; e++)
        if (!e->fn)
            buf_printf(&nest, "%s%lld", loops++ ? " x " : "", (long long)e->n);
    dg_error(c->dg, o->loc, "unrolling this 'static_range' exceeds the limit of "
             "%d unrolled iterations in a compilation%s%s%s",
             SM_MAX_UNROLL_TOTAL, loops > 1 ? " (nested loops multiply: " : "",
             loops > 1 && nest.s ? nest.s : "", loops > 1 ? ")" : "");
    buf_free(&nest);
    dg_stop(c->dg);
    return 0;
}

int sm_inline_enter(SmCtx *c, const char *fn, Loc call) {
    if (++c->inlined > SM_MAX_INLINE_TOTAL) {
        const SmNest *o = outermost(c, 0);
        dg_error(c->dg, o ? o->loc : call, "inlining this call to fn '%s' "
                 "exceeds the limit of %d inlined fn calls in a compilation "
                 "(calls inside fns multiply)", o ? o->fn : fn,
                 SM_MAX_INLINE_TOTAL);
        dg_stop(c->dg);
        return 0;
    }
    SmNest e = {call, fn, 0};
    vec_push(c->ar, &c->nest, e);
    return 1;
}

void sm_inline_leave(SmCtx *c) { c->nest.n--; }
