/*
 * swap_dot.c — a TF32 product whose B runs along N computes its
 * transpose instead: Cᵀ = Bᵀ Aᵀ.
 *
 * wgmma reads tf32 operands K-major only. With B stored [K, N] (`x @ w`,
 * examples/matmul.tile, the forward linears of a training step) the
 * product as written moves each B tile K-major through a stage buffer
 * every iteration (plan/lowering.c stage_ring). Swapped, B becomes the
 * product's first operand, which wgmma takes from registers in any
 * order (read from its ring: plan/lowering.c ring_a_regs), and A, read
 * along K, a K-major second operand: no stage buffer at all. CUTLASS
 * does the same. Measured on the H200 (docs/PERF.md session 22, run 9,
 * by hand in bench/kernels/matmul_kn_swap.tile): 9–15% faster with the
 * output tile's N at most its M; with N larger the swapped product's M
 * (the old N) holds more registers of A than it gains, and it was slower
 * (4096³ at 128x256: 618 µs against 552).
 *
 * The rewrite, on a `for` loop's product `acc = dot(a, b, acc)`: the
 * carried accumulator only that product reads, its result only the
 * loop's yield; a and b loads of this block read only by it, of f32 (not
 * precision="ieee"), a along K and b along N in 16-byte runs under the
 * variant's facts (so only where wgmma would stage b; with 4-byte copies
 * of b, the generic variant's, the product stays on mma.sync), and a
 * loop of at least 2 stages (wgmma's). The loads take their
 * transposed pointer tiles (as fold_trans.c does: each tile operand
 * permuted right before the load), the product becomes dot(bᵀ, aᵀ,
 * accᵀ), the carried value, its initial value (permuted before the loop)
 * and the loop's result are [N, M], and a permute after the loop gives
 * the [M, N] tile back to every later reader. The dot is marked
 * (iattr[3]) so that --stats can say so. It runs on the per-variant copy
 * during layout assignment, after axis analysis (it needs the runs); the
 * IR sema built, which the interpreter runs, is not touched, so the
 * difftest compares the two.
 */
#include "plan/layout.h"

static const int64_t transpose[IR_MAXRANK] = {1, 0};

/* Load `ld` of block b reads its transposed pointers, mask and `other`. */
static void load_transposed(Arena *ar, IrKernel *k, IrOp *ld) {
    for (int i = 0; i < ld->nargs; i++)
        if (ld->args[i]->ty.rank == 2)
            ld->args[i] = ly_permute_tile(ar, k, ld->args[i], transpose, ld->parent, ld->prev,
                                           ld->loc);
    IrValue *r = ld->res[0];
    int32_t m = r->ty.dim[0];
    r->ty.dim[0] = r->ty.dim[1];
    r->ty.dim[1] = m;
}

/* Operand i of dot d: a 2-D f32 load of d's block that only d reads,
 * fastest along dimension 1, in runs of 16 bytes or more where `run`. */
static IrOp *row_load(const AxTable *ax, const int *uses, const IrOp *d, int i, int run) {
    IrOp *ld = d->args[i]->def;
    if (!ld || ld->op != IR_LOAD || ld->parent != d->parent || uses[ld->res[0]->id] != 1 ||
        ld->res[0]->ty.rank != 2 || ld->res[0]->ty.k != SK_F32 || ld->args[0]->ty.rank != 2)
        return NULL;
    const AxInfo *p = ax_of(ax, ld->args[0]);
    if (!p || p->contig[1] < p->contig[0] || (run && ly_access_run(ax, ld, 1) * 4 < 16))
        return NULL;
    return ld;
}

/* The carried index (0-based, after the induction variable) of dot d's
 * accumulator in `loop`, when d may be swapped; else -1. */
static int swappable(const AxTable *ax, const int *uses, const IrOp *loop, const IrOp *d,
                     const IrKernel *k) {
    const IrBlock *body = loop->regions[0];
    const IrValue *acc = d->args[2], *res = d->res[0];
    const IrOp *yield = body->last;
    if (d->op != IR_DOT || d->iattr[0] || d->nargs != 3 || acc->def || acc->block != body ||
        acc->index < 1 || !yield || yield->op != IR_YIELD || acc->index - 1 >= yield->nargs ||
        yield->args[acc->index - 1] != res || uses[acc->id] != 1 || uses[res->id] != 1 ||
        res->ty.k != SK_F32)
        return -1;
    int32_t m = res->ty.dim[0], n = res->ty.dim[1];
    if (n > m || n % 64 || n < 16 * k->warps || k->stages < 2)   /* wgmma's, swapped */
        return -1;
    if (!row_load(ax, uses, d, 0, 0) || !row_load(ax, uses, d, 1, 1)) return -1;
    return acc->index - 1;
}

static void swap(Arena *ar, IrKernel *k, IrOp *loop, IrOp *d, int j) {
    IrBlock *body = loop->regions[0], *outer = loop->parent;
    IrOp *la = d->args[0]->def, *lb = d->args[1]->def;
    load_transposed(ar, k, la);
    load_transposed(ar, k, lb);
    d->args[0] = lb->res[0];
    d->args[1] = la->res[0];
    d->iattr[3] = 1;
    Type t = d->res[0]->ty;
    t.dim[0] = d->res[0]->ty.dim[1];
    t.dim[1] = d->res[0]->ty.dim[0];
    d->res[0]->ty = t;
    body->args[1 + j]->ty = t;
    loop->args[3 + j] =
        ly_permute_tile(ar, k, loop->args[3 + j], transpose, outer, loop->prev, loop->loc);
    IrValue *r = loop->res[j];
    r->ty = t;
    IrValue *back = ly_permute_tile(ar, k, r, transpose, outer, loop, loop->loc);
    ir_replace_uses(outer, r, back);
    back->def->args[0] = r;
}

static int swap_block(Arena *ar, IrKernel *k, const AxTable *ax, const int *uses, IrBlock *b) {
    int n = 0;
    for (IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++) n += swap_block(ar, k, ax, uses, op->regions[r]);
        if (op->op != IR_FOR) continue;
        for (IrOp *d = op->regions[0]->first; d; d = d->next) {
            int j = d->op == IR_DOT ? swappable(ax, uses, op, d, k) : -1;
            if (j >= 0) {
                swap(ar, k, op, d, j);
                n++;
            }
        }
    }
    return n;
}

int ly_swap_dots(Arena *ar, IrKernel *k, const AxTable *ax) {
    return swap_block(ar, k, ax, ir_use_counts(ar, k), k->body);
}
