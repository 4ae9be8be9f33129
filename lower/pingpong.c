/*
 * pingpong.c — warpgroups taking turns at a loop's products (plan
 * LyPipe.pingpong, tilec --pingpong; FlashAttention-3's "ping-pong"
 * schedule).
 *
 * In a loop of two or more wgmma products (attention: S = Q K^T, the
 * softmax, O += P V), each warpgroup computes its own rows. Left alone,
 * the warpgroups issue each product together, the tensor cores
 * interleave their instructions so that all finish together, and then
 * every warpgroup computes its softmax at once while the tensor cores
 * idle. Taking turns, warpgroup g issues a product only after warpgroup
 * g - 1 issued the same product (warpgroup 0: after the last warpgroup
 * issued the product before), so the tensor cores finish one
 * warpgroup's product before the next one's, and the first one's
 * softmax runs under the next one's product.
 *
 * A turn is a named barrier for two warpgroups (256 threads): barrier
 * 1 + g is warpgroup g's. Before the fence of each of the loop's
 * products, warpgroup g waits at it (bar.sync 1+g, 256); after the
 * product's commit (issued, not completed) it hands the turn on
 * (bar.arrive 1 + (g+1) % G, 256). Before the loop the last warpgroup
 * arrives on barrier 1, which gives warpgroup 0 the first turn; after
 * it warpgroup 0 arrives on barrier 1 once more, completing the phase
 * the last warpgroup's final hand-over opened, so no arrival is left
 * pending when the program ends (the simulated warps check that). An
 * arrival, not a wait: every warpgroup then waits at named barriers as
 * often as the others (with a wait here, compute-sanitizer's racecheck
 * reported hazards that it does not with the arrival: docs/PERF.md,
 * sessions 39 and 40), and warpgroup 0 leaves the loop without waiting
 * for the last product's hand-over. A named barrier completes one phase
 * at a time: warpgroup g - 1 cannot arrive twice on barrier g before g
 * waited there, since its next arrival needs a turn that g's wait
 * precedes. Entered again (an outer loop), the last warpgroup's first
 * arrival may come before warpgroup 0's arrival after the previous run:
 * arrivals are anonymous, so those two complete one phase and warpgroup
 * 0's arrival and its first wait the next, which is the order of turns
 * the loop needs.
 *
 * No deadlock with the loop's other waits: the issues of all
 * warpgroups form one sequence (product 1 by warpgroups 0 .. G-1,
 * product 2 by 0 .. G-1, ...), and every CTA barrier of the body lies
 * between two products in every warpgroup's order (the products are
 * the body's own operations, unconditional; none lies inside a turn),
 * so every warpgroup can reach it by issuing products whose turns come
 * before it. The mbarriers wait for copies (thread 0 issues them ahead)
 * or, with released slots, for every warp to be done with the slot of
 * an iteration every warpgroup can finish.
 */
#include "lower/lw.h"

enum { TURN_THREADS = 256 };

/* The warpgroup this thread belongs to (i32). */
static LLVMValueRef warpgroup(LwFn *f) {
    return LLVMBuildLShr(f->c->b, f->warp, lw_i32(f->c, 2), "");
}

/* bar.sync (sync = 1) or bar.arrive on named barrier `id` (i32) for
 * TURN_THREADS threads. */
static void turn_barrier(LwFn *f, LLVMValueRef id, int sync) {
    LLVMValueRef a[2] = {id, lw_i32(f->c, TURN_THREADS)};
    lw_call_intr(f->c, sync ? "llvm.nvvm.barrier.cta.sync.aligned.count"
                            : "llvm.nvvm.barrier.cta.arrive.aligned.count",
                 NULL, 0, a, 2);
}

/* Warpgroup `g` alone arrives on barrier 1 (`then`: its block's name). */
static void arrive_first_turn(LwFn *f, int g, const char *then) {
    LwCtx *c = f->c;
    LLVMValueRef is_g = LLVMBuildICmp(c->b, LLVMIntEQ, warpgroup(f), lw_i32(c, g), "");
    LLVMBasicBlockRef j = lw_only_if(f, is_g, then, "turn.join");
    turn_barrier(f, lw_i32(c, 1), 0);
    lw_join(f, j);
}

void lw_pingpong_begin(LwFn *f, const LyPipe *q) {
    arrive_first_turn(f, q->pingpong - 1, "turn.first");
}

void lw_pingpong_end(LwFn *f) {
    arrive_first_turn(f, 0, "turn.last");
}

void lw_pingpong_turn(LwFn *f, const LyPipe *q, int end) {
    LwCtx *c = f->c;
    LLVMValueRef g = warpgroup(f);
    if (!end) {   /* barrier 1 + g */
        turn_barrier(f, LLVMBuildAdd(c->b, g, lw_i32(c, 1), ""), 1);
        return;
    }
    /* barrier 1 + (g + 1) % G: g + 2, or 1 for the last warpgroup */
    LLVMValueRef last = LLVMBuildICmp(c->b, LLVMIntEQ, g, lw_i32(c, q->pingpong - 1), "");
    LLVMValueRef id = LLVMBuildSelect(c->b, last, lw_i32(c, 1),
                                      LLVMBuildAdd(c->b, g, lw_i32(c, 2), ""), "");
    turn_barrier(f, id, 0);
}
