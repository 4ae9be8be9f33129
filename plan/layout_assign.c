/*
 * layout_assign.c — give every tile value a layout, for one specialization
 * variant, and insert `convert_layout` where layouts meet.
 *
 * 1. Anchors. Each load, store and atomic on a tile of pointers gets a
 *    coalesced blocked layout (Triton's Coalesce.cpp, in our words): the
 *    dimensions ordered by the pointer's contiguity, most contiguous
 *    first (ties: the later dimension, i.e. row-major); elements per
 *    thread along it = min(byte alignment / element size, contiguity,
 *    16 bytes / element size) — for a load, at least what another access
 *    of the same shape along the same dimension takes (shared_per) —,
 *    capped by elements / threads; lanes then
 *    warps laid along the order (ly_blocked_default). A product's operand
 *    loaded in its loop takes 16 bytes' worth whatever the alignment
 *    (stage_operand says why). A load's result
 *    has its anchor's layout. Matrix products are the second kind of
 *    anchor: dot_layout() gives the result (and accumulator) an mma.sync
 *    layout (plan/mma.c; the FMA path's blocked layout where no
 *    tensor-core instruction applies) and the operands the matching
 *    operand layouts, reached by conversions (docs/internals/mma.md).
 *
 * 2. Planning. Layouts flow forward from anchors through element-wise ops,
 *    broadcasts, expand_dims of slices, permutes, reshapes and reductions
 *    (whose results are slices of their operands), and backward from what
 *    each op needs of its operands (ptr chains, masks, aranges). Loop- and
 *    if-carried values are linked: the initial value, the region argument,
 *    the yielded value and the result share one layout, so nothing is
 *    converted per iteration. Values still without a layout after the
 *    two directions settle (e.g. a tile that only feeds a full reduction)
 *    get a default blocked layout, which then flows on. A value gets the
 *    first layout that reaches it; later, different wishes are conflicts.
 *
 * 3. Materializing. Walking the kernel in order, each operand whose layout
 *    differs from what its op needs is replaced: a cheap producer (arange,
 *    splat, broadcast/expand_dims/integer arithmetic of such, and a load
 *    of fewer elements than the program has threads from such addresses)
 *    is recomputed in the needed layout, anything else is converted with one
 *    `convert_layout` placed right after its definition (so a conversion
 *    of a loop-invariant value happens once, outside the loop). Both are
 *    cached per (value, layout).
 *
 * Before step 1, ly_induction (induction.c) reads pointers and integers
 * a loop steps by an invariant as their start plus the iterations done
 * times the step, ly_hoist (hoist.c) moves scalars that do not change in
 * a loop before it, ly_cse (cse.c) merges common subexpressions (loads
 * among them, where no write comes between), ly_carry_reduce
 * (carry_reduce.c) rewrites loops that
 * accumulate a reduction (`acc += sum(t, 0)`) to carry t's whole tile
 * and reduce it once after the loop; planning then gives the carried
 * tile t's layout like any element-wise value. Then ly_fold_trans
 * (fold_trans.c) turns a transposed load feeding a product into a load
 * of the transposed pointers, so that the load is the product's operand,
 * and ly_widen_f8 (widen_f8.c) converts f8 operands of products that
 * wgmma does not take to f16.
 *
 * The pass runs on one IrKernel per variant: the variant changes axis info
 * and therefore the anchors.
 */
#include "plan/layout.h"

#include <string.h>

typedef struct Anchor {
    const IrOp *op;
    const Layout *ly;
} Anchor;

typedef struct Remat {
    const IrValue *v;
    const Layout *ly;
    IrValue *as;
} Remat;

typedef struct LaCtx {
    Arena *ar;
    IrKernel *k;
    AxTable *ax;
    Vec(Anchor) anchors;
    Vec(Remat) remat;
    int changed;
    int wgmma;           /* the target has warpgroup MMA (sm_90a) */
    int f8_wide;         /* every f8 product widened (LY_ASSIGN_F8_WIDE) */
    LyRealign realign;   /* realign.c's accesses */
    LyStaged staged;     /* loads stage_operand lays out 16 bytes a thread */
} LaCtx;

static int is_tile(const IrValue *v) { return v->ty.rank > 0; }

static void assign(LaCtx *c, IrValue *v, const Layout *ly) {
    if (!ly || !is_tile(v) || v->layout) return;
    v->layout = ly;
    c->changed = 1;
}

static const Layout *anchor_of(const LaCtx *c, const IrOp *op) {
    for (int i = 0; i < c->anchors.n; i++)
        if (c->anchors.v[i].op == op) return c->anchors.v[i].ly;
    return NULL;
}

/* Row-major, one element per thread: for values nothing else decides. */
static const Layout *default_layout(LaCtx *c, Type t) {
    uint8_t order[IR_MAXRANK];
    for (int d = 0; d < t.rank; d++) order[d] = (uint8_t)(t.rank - 1 - d);
    return ly_blocked_default(c->ar, t.rank, ty_pad(t).dim, c->k->warps, 1, order);
}

/* ----------------------------------------------------------- coalescing */

/* Dimensions by decreasing contiguity; ties keep the later dimension
 * first (row-major). */
static void mem_order(const AxInfo *a, int rank, uint8_t *order) {
    for (int i = 0; i < rank; i++) {
        int d = rank - 1 - i, j = i;
        while (j > 0 && a->contig[order[j - 1]] < a->contig[d]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = (uint8_t)d;
    }
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static int stage_operand(const LaCtx *c, const IrOp *op);

/* Elements per thread along the fastest dimension that memory op op's
 * own facts allow, and the dimensions' order (fastest first). */
static int64_t own_per(LaCtx *c, const IrOp *op, uint8_t *order) {
    const IrValue *p = op->args[0];
    const AxInfo *a = ax_of(c->ax, p);
    mem_order(a, p->ty.rank, order);
    int fast = order[0];
    int64_t esize = ty_bytes(p->ty.pointee) > 0 ? ty_bytes(p->ty.pointee) : 1;
    int64_t aligned = a->div[fast] / esize > 1 ? a->div[fast] / esize : 1;
    const Type pt = ty_pad(p->ty);   /* layouts are padded (ir.h) */
    int64_t contig = min64(a->contig[fast], pt.dim[fast]);
    if (stage_operand(c, op)) aligned = 16 / esize;
    if (ly_realigned(&c->realign, op)) aligned = contig = ly_realigned(&c->realign, op)->vec;
    return min64(min64(aligned, contig), 16 / esize > 1 ? 16 / esize : 1);
}

/* An access whose width is its facts' (not a product's operand given 16
 * bytes whatever its alignment, nor a realigned row). */
static int plain_access(LaCtx *c, const IrOp *op) {
    return !stage_operand(c, op) && !ly_realigned(&c->realign, op);
}

/* A memory op and what its own facts allow (find_anchors). */
typedef struct MemAccess {
    IrOp *op;
    int64_t per;                 /* own_per */
    uint8_t order[IR_MAXRANK];
    int plain;                   /* plain_access */
} MemAccess;

typedef Vec(MemAccess) MemVec;

/* Access i's elements per thread: its own, or for a plain load as many
 * as another plain access of the same padded shape along the same
 * fastest dimension moves at once by its own facts, up to 16 bytes
 * (Triton's Coalesce.cpp does the same). The load then shares that
 * access's layout, read in pieces as narrow as its own facts allow
 * (ly_mem_vec), rather than having a layout of its own and a conversion
 * through shared memory where the two tiles meet; the gaps one warp
 * instruction leaves, the next ones read from L1. A stencil's neighbours
 * one element left and right of its aligned centre are such loads
 * (examples/stencil.tile; H200, 32x64 tiles at 8192^2: heat1 182 -> 152
 * us, jacobi 207 -> 184, Triton 155 and 181). Stores keep their own
 * width: their gaps would be partial writes. */
static int64_t shared_per(const MemAccess *m, int n, int i) {
    const IrValue *p = m[i].op->args[0];
    int64_t per = m[i].per;
    if (m[i].op->op != IR_LOAD || !m[i].plain) return per;
    int64_t esize = ty_bytes(p->ty.pointee) > 0 ? ty_bytes(p->ty.pointee) : 1;
    for (int j = 0; j < n; j++) {
        const IrValue *q = m[j].op->args[0];
        if (j == i || !m[j].plain || m[j].order[0] != m[i].order[0] || m[j].per <= per ||
            !ty_same_shape(ty_pad(q->ty), ty_pad(p->ty)))
            continue;
        per = min64(m[j].per, 16 / esize > 1 ? 16 / esize : 1);
    }
    return per;
}

/* Access i's anchor layout: a blocked layout along its order. */
static const Layout *coalesced(LaCtx *c, const MemAccess *m, int n, int i) {
    const IrValue *p = m[i].op->args[0];
    const Type pt = ty_pad(p->ty);
    int64_t threads = (int64_t)c->k->warps * 32;
    int64_t share = ty_numel(pt) / threads;
    int64_t per = min64(shared_per(m, n, i), share > 1 ? share : 1);
    return ly_blocked_default(c->ar, p->ty.rank, pt.dim, c->k->warps, (int)per, m[i].order);
}

/* --------------------------------------------------------- matrix products */

/* Marks in `seen` every value computed from v, forward through any op
 * (and loop-carried values, by repeating the walk). */
static int reach_block(const IrBlock *b, unsigned char *seen) {
    int grew = 0;
    for (const IrOp *op = b->first; op; op = op->next) {
        int from = 0;
        for (int i = 0; i < op->nargs; i++) from |= seen[op->args[i]->id];
        for (int r = 0; r < op->nregions; r++) {
            const IrBlock *rb = op->regions[r];
            /* Carried values: an initial value reaching a region argument. */
            int first = op->op == IR_FOR ? 3 : 0;
            for (int i = 0; r == 0 && i + first < op->nargs && op->op != IR_IF; i++)
                if (seen[op->args[i + first]->id]) {
                    int a = i + (op->op == IR_FOR);
                    if (a < rb->nargs && !seen[rb->args[a]->id])
                        seen[rb->args[a]->id] = 1, grew = 1;
                }
            grew |= reach_block(rb, seen);
            const IrOp *t = rb->last;
            if (t && (t->op == IR_YIELD || t->op == IR_CONDITION))
                for (int i = 0; i < t->nargs; i++) from |= seen[t->args[i]->id];
        }
        if (!from) continue;
        for (int i = 0; i < op->nres; i++)
            if (!seen[op->res[i]->id]) seen[op->res[i]->id] = 1, grew = 1;
    }
    return grew;
}

typedef Vec(IrOp *) OpVec;

static void collect_dots(IrBlock *b, OpVec *dots, Arena *ar) {
    for (IrOp *op = b->first; op; op = op->next) {
        if (op->op == IR_DOT) vec_push(ar, dots, op);
        for (int r = 0; r < op->nregions; r++) collect_dots(op->regions[r], dots, ar);
    }
}

/* True when dot d's result flows into another dot's operands, or another
 * dot's result into d's (Triton's chained-dot rule: attention). */
static int chained_dot(LaCtx *c, IrOp *const *dots, int n, const IrOp *d) {
    for (int j = 0; j < n; j++) {
        const IrOp *from = dots[j];
        unsigned char *seen = ar_alloc(c->ar, (size_t)c->k->nvalues + 1);
        memset(seen, 0, (size_t)c->k->nvalues + 1);
        seen[from->res[0]->id] = 1;
        for (int round = 0; round < 4 && reach_block(c->k->body, seen); round++) {}
        for (int i = 0; i < 2; i++)
            for (int e = 0; e < n; e++) {
                const IrOp *to = dots[e];
                if (to == from || (from != d && to != d)) continue;
                if (seen[to->args[i]->id]) return 1;
            }
    }
    return 0;
}

/* (layout.h) Contiguity, divisibility and constancy of the address and
 * mask bound the run; ly_mem_vec bounds it further by the layout and 16
 * bytes. */
int64_t ly_access_run(const AxTable *ax, const IrOp *op, int dim) {
    const IrValue *p = op->args[0];
    int64_t esize = ty_bytes(p->ty.pointee) > 0 ? ty_bytes(p->ty.pointee) : 1;
    int mask = -1;
    if (op->op == IR_LOAD && (op->iattr[0] & LOAD_MASK)) mask = 1;
    if ((op->op == IR_STORE || op->op == IR_ATOMIC) && op->nargs > 2) mask = 2;
    const AxInfo *m = mask > 0 && is_tile(op->args[mask]) ? ax_of(ax, op->args[mask]) : NULL;
    int64_t run = ax_mem_run(ax_of(ax, p), esize, m, dim);
    /* the padding's mask (coordinate < extent) is constant over aligned
     * runs of the largest power of two dividing the extent */
    int64_t n = p->ty.dim[dim];
    return is_pow2(n) || (n & -n) >= run ? run : n & -n;
}

/* Operand i of dot `op` is loaded in the body of the `for` loop the
 * product is in: what the pipeliner may turn into a cp.async ring
 * (plan/pipeline.c), or, when the load is narrower than a cp.async (the
 * layout is not known yet; ly_mem_vec decides later), what the lowering
 * plan stores into a stage buffer (plan/lowering.c). */
static int loop_loaded(const IrKernel *k, const IrOp *op, int i) {
    const IrOp *ld = op->args[i]->def;
    if (ld && ld->op == IR_CONVERT_LAYOUT)   /* after materialization (--stats) */
        ld = ld->args[0]->def;
    const IrOp *loop = op->parent ? op->parent->parent : NULL;
    return ld && ld->op == IR_LOAD && ld->parent == op->parent && loop &&
           loop->op == IR_FOR && k->stages >= 2 && is_tile(ld->args[0]);
}

/* Load op is an operand of a product in the product's loop
 * (loop_loaded): the coalesced layout then gives each thread 16 bytes of
 * consecutive elements even where the alignment allows only narrower
 * accesses (ly_mem_vec still splits them). The thread then holds whole
 * 16-byte rows of the stage buffer or ring (one st.shared.v4 per group
 * rather than one per element) and its narrow loads of a group share one
 * address with immediate offsets: the generic variant of a ragged f16
 * matmul (2-byte loads; 128x256x64, 8 warps) went from 859 SASS
 * instructions per iteration with spills to 477 without, 0.80x -> 1.23x
 * Triton's speed on the H200. Only here: a streaming kernel's narrow loads
 * spread this way span 512 bytes per warp instruction (vadd over an odd
 * n measured 0.76x, softmax over odd rows 0.63x). */
static int stage_operand(const LaCtx *c, const IrOp *op) {
    if (op->op != IR_LOAD || !op->parent) return 0;
    for (const IrOp *d = op->parent->first; d; d = d->next)
        if (d->op == IR_DOT)
            for (int i = 0; i < 2; i++)
                if (d->args[i]->def == op && loop_loaded(c->k, d, i)) return 1;
    return 0;
}

/* Whether warpgroup MMA can take product `op` of k (sm_90a), and if not
 * the first reason: f16/bf16 operands (m16n8k16) or f32 ones in tf32
 * (m16n8k8, A loaded in the loop too: a tf32 A comes from registers
 * only as read from its ring, plan/lowering.c ring_a_regs) into f32
 * accumulators
 * (lower/dot.c issues wgmma with f32 ones only), B loaded in the
 * product's loop (wgmma reads it from its ring or its stage buffer; A
 * from its ring or stage buffer too when it is loaded there, else from
 * registers: attention's Q and probabilities), every warp on M in whole
 * warpgroups (warps 4g..4g+3 own rows 64g..64g+63 of each 16·warps
 * rows, as the mma.sync map with mma_warps = [warps, 1] has them; the
 * chained-dot rule gives chained products that map too), N at least one
 * n8 column block. */
LyWgmmaMisfit ly_wgmma_misfit(const IrKernel *k, const IrOp *op) {
    const Type ta = op->args[0]->ty, tr = ty_pad(op->res[0]->ty);
    int w = k->warps;
    int mk = ly_mma_k((ScalarKind)ta.k, (int)op->iattr[0], ta.dim[1]);
    if (!mk || mk != ly_wgmma_k((ScalarKind)ta.k)) return LY_WG_DTYPE;
    if (tr.k == SK_F16) return LY_WG_F16_ACC;
    if (w % 4) return LY_WG_WARPS;
    if (tr.dim[0] % 64) return LY_WG_ROWS;
    if (tr.dim[0] < 16 * w) return LY_WG_FEW_ROWS;
    if (tr.dim[1] < 8) return LY_WG_COLS;
    if (k->stages < 2) return LY_WG_STAGES;
    if (!loop_loaded(k, op, 1)) return LY_WG_LOOP;
    if (ly_wgmma_kmajor_only((ScalarKind)ta.k) && !loop_loaded(k, op, 0)) return LY_WG_A_LOOP;
    return LY_WG_FITS;
}

/* Operand i of dot `op` is a load whose coalesced layout runs along the
 * product's M (A) or N (B) dimension: its shared-memory buffer has rows
 * along that dimension, where ldmatrix cannot transpose 32-bit elements
 * (ly_mma_low then lets a lane read 16 bytes at a time). */
static int mn_major(LaCtx *c, const IrOp *op, int i) {
    const IrOp *ld = op->args[i]->def;
    if (!ld || ld->op != IR_LOAD || !is_tile(ld->args[0]) || ld->args[0]->ty.rank != 2)
        return 0;
    uint8_t order[IR_MAXRANK];
    mem_order(ax_of(c->ax, ld->args[0]), 2, order);
    return order[0] == (i == 0 ? 0 : 1);
}

/* Operand i of dot `op` is loaded along M or N (mn_major) in runs
 * narrower than 16 bytes under the variant's facts (ly_access_run: the generic
 * variant of a ragged product). */
static int narrow_mn(LaCtx *c, const IrOp *op, int i) {
    const IrOp *ld = op->args[i]->def;
    return ly_access_run(c->ax, ld, i == 0 ? 0 : 1) * ty_bytes((ScalarKind)ld->res[0]->ty.k) < 16;
}

/* ly_wgmma_misfit after two checks of its own: f8 operands converted to
 * f16 by widen_f8.c (which recorded why in iattr[2]), and for kinds
 * wgmma reads K-major only, an operand loaded along M or N, but for a
 * tf32 one copied 16 bytes at a time: that one's ring runs along M or N
 * and the threads move each slot K-major into a stage buffer (plan/
 * lowering.c stage_ring: 1.34x mma.sync's speed at 4096^3 with B
 * [K, N] on the H200). With 4-byte copies (the generic variant) the same
 * measured slower than mma.sync (4093^3: 1173 us against 1157 with the
 * best tiles, 1443 against 1251 at 128x128), and so did filling the
 * ring along K one element per cp.async (4096^3: 1.63 ms against 0.91). */
static LyWgmmaMisfit wgmma_misfit(LaCtx *c, const IrOp *op) {
    if (op->iattr[2]) return LY_WG_F8;
    LyWgmmaMisfit why = ly_wgmma_misfit(c->k, op);
    ScalarKind ka = (ScalarKind)op->args[0]->ty.k;
    if (why != LY_WG_FITS || !ly_wgmma_kmajor_only(ka)) return why;
    for (int i = 0; i < 2; i++)
        if (mn_major(c, op, i) && (ty_bytes(ka) != 4 || narrow_mn(c, op, i)))
            return i ? LY_WG_B_MN : LY_WG_A_MN;
    return LY_WG_FITS;
}

/* widen_f8.c's question: why product op of f8 operands cannot keep them
 * (wgmma on sm_90a is their only tensor-core instruction here), or
 * LY_WG_FITS. */
static int f8_misfit(void *cx, const IrOp *op) {
    LaCtx *c = cx;
    if (c->wgmma && c->f8_wide) return LY_WG_F8_LOOP;
    return c->wgmma ? (int)wgmma_misfit(c, op) : LY_WG_DTYPE;
}

/* The anchor layout of a dot's accumulator and result: an mma.sync
 * accumulator layout (plan/mma.c) when a tensor-core instruction fits
 * the operands, else (f32 with precision="ieee", i8 with K < 32) the
 * default blocked layout, which the FMA path computes in. */
static const Layout *dot_layout(LaCtx *c, IrOp *const *dots, int n, IrOp *op) {
    const Type ta = op->args[0]->ty, tr = ty_pad(op->res[0]->ty);
    int mk = ly_mma_k((ScalarKind)ta.k, (int)op->iattr[0], ta.dim[1]);
    if (!mk) return default_layout(c, tr);
    int32_t warps[2];
    int chained = chained_dot(c, dots, n, op);
    op->iattr[1] = c->wgmma ? wgmma_misfit(c, op) : LY_WG_FITS;
    if (c->wgmma && op->iattr[1] == LY_WG_FITS) {
        warps[0] = c->k->warps;
        warps[1] = 1;
        Layout *l = ly_mma(c->ar, tr.dim, mk, warps);
        if (l) l->wgmma = 1;
        return l;
    }
    ly_mma_warps(tr.dim[0], tr.dim[1], c->k->warps, chained, warps);
    Layout *l = ly_mma(c->ar, tr.dim, mk, warps);
    if (ta.k == SK_F32 && !chained) {
        uint8_t low[2] = {mn_major(c, op, 0), mn_major(c, op, 1)};
        ly_mma_low(l, low);
    }
    return l;
}

static void anchor_dots(LaCtx *c) {
    OpVec dots = {0};
    collect_dots(c->k->body, &dots, c->ar);
    for (int i = 0; i < dots.n; i++)
        assign(c, dots.v[i]->res[0], dot_layout(c, dots.v, dots.n, dots.v[i]));
}

static void collect_mem(LaCtx *c, IrBlock *b, MemVec *mem) {
    for (IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++) collect_mem(c, op->regions[r], mem);
        int m = op->op == IR_LOAD || op->op == IR_STORE ||
                op->op == IR_ATOMIC || op->op == IR_ATOMIC_CAS;
        if (!m || !is_tile(op->args[0])) continue;
        MemAccess a = {.op = op, .plain = plain_access(c, op)};
        a.per = own_per(c, op, a.order);
        vec_push(c->ar, mem, a);
    }
}

static void find_anchors(LaCtx *c) {
    MemVec mem = {0};
    collect_mem(c, c->k->body, &mem);
    for (int i = 0; i < mem.n; i++) {
        IrOp *op = mem.v[i].op;
        Anchor an = {op, coalesced(c, mem.v, mem.n, i)};
        vec_push(c->ar, &c->anchors, an);
        if (stage_operand(c, op)) vec_push(c->ar, &c->staged, (const IrOp *)op);
        if (op->nres) assign(c, op->res[0], an.ly);
    }
}

/* ------------------------------------------------------- what ops need */

static int elementwise(int opc) {
    switch (opc) {
    case IR_CAST: case IR_CMP: case IR_FMA: case IR_SELECT: case IR_PTRADD:
    case IR_MULTIPLE_OF: case IR_MAX_CONTIG: case IR_SCAN:
        return 1;
    default:
        return opc >= IR_ADD && opc <= IR_CEIL;
    }
}

/* The layout op's result takes from its operands' layouts (NULL: none
 * follows, or the op is a source that takes whatever is wanted). */
static const Layout *forward_layout(LaCtx *c, const IrOp *op) {
    const IrValue *res = op->res[0];
    const IrValue *x = op->nargs ? op->args[0] : NULL;
    const Layout *lx = x ? x->layout : NULL;
    if (elementwise(op->op)) {
        for (int i = 0; i < op->nargs; i++)
            if (op->args[i]->layout && ty_same_shape(op->args[i]->ty, res->ty))
                return op->args[i]->layout;
        return NULL;
    }
    if (!lx) return NULL;
    switch (op->op) {
    case IR_BROADCAST: return ly_reshaped_family(c->ar, lx, ty_pad(res->ty).dim);
    case IR_EXPAND_DIMS:
        if (lx->kind == LY_SLICE && lx->slice_dim == op->iattr[0])
            return ly_reshaped_family(c->ar, lx->parent, ty_pad(res->ty).dim);
        return NULL;
    case IR_PERMUTE: return ly_permute(c->ar, lx, op->iattr);
    case IR_RESHAPE: return ly_reshape(c->ar, lx, res->ty.rank, ty_pad(res->ty).dim);
    case IR_REDUCE: return ly_slice(c->ar, lx, (int)op->iattr[1]);
    default: return NULL;
    }
}

/* The value that region argument / result i of a structured op is
 * linked with, seen from a yield or condition operand. */
static const Layout *carried_layout(const IrOp *term, int i) {
    const IrOp *p = term->parent->parent;
    if (!p) return NULL;
    if (p->op == IR_FOR) return p->regions[0]->args[i + 1]->layout;
    if (p->op == IR_IF) return p->res[i]->layout;
    if (p->op == IR_WHILE && term->op == IR_CONDITION)
        return i >= 1 ? p->regions[1]->args[i - 1]->layout : NULL;
    if (p->op == IR_WHILE) return p->regions[0]->args[i]->layout;
    return NULL;
}

/* The layout operand i of op must have, given the layouts of op's
 * results (and anchors, region arguments); NULL when any will do. */
static const Layout *operand_layout(LaCtx *c, const IrOp *op, int i) {
    const IrValue *x = op->args[i];
    if (!is_tile(x)) return NULL;
    const Layout *an = anchor_of(c, op);
    if (an) return ty_same_shape(x->ty, op->args[0]->ty) ? an : NULL;
    const Layout *r = op->nres ? op->res[0]->layout : NULL;
    switch (op->op) {
    case IR_YIELD: case IR_CONDITION: return carried_layout(op, i);
    case IR_FOR: return i >= 3 ? op->regions[0]->args[i - 2]->layout : NULL;
    case IR_WHILE: return op->regions[0]->args[i]->layout;
    case IR_DOT:
        if (!r) return NULL;
        return i == 2 ? r : ly_dot_operand(c->ar, r, i, ty_pad(x->ty).dim, ty_bits(x->ty.k));
    default: break;
    }
    if (!r) return NULL;
    if (elementwise(op->op)) return ty_same_shape(x->ty, op->res[0]->ty) ? r : NULL;
    switch (op->op) {
    case IR_BROADCAST: return ly_reshaped_family(c->ar, r, ty_pad(x->ty).dim);
    case IR_EXPAND_DIMS: return ly_slice(c->ar, r, (int)op->iattr[0]);
    case IR_PERMUTE: {
        int64_t inv[IR_MAXRANK];
        for (int d = 0; d < x->ty.rank; d++) inv[op->iattr[d]] = d;
        return ly_permute(c->ar, r, inv);
    }
    case IR_RESHAPE: return ly_reshape(c->ar, r, x->ty.rank, ty_pad(x->ty).dim);
    case IR_REDUCE:
        if (r->kind == LY_SLICE && r->slice_dim == op->iattr[1])
            return ly_reshaped_family(c->ar, r->parent, ty_pad(x->ty).dim);
        return NULL;
    default: return NULL;
    }
}

/* --------------------------------------------------------------- planning */

/* Gives every member of a carried group (initial value's wish, yielded
 * value's wish, region argument, result) the first layout among them. */
static void link(LaCtx *c, IrValue **vals, int n) {
    const Layout *ly = NULL;
    for (int i = 0; i < n && !ly; i++)
        if (vals[i]) ly = vals[i]->layout;
    for (int i = 0; i < n; i++)
        if (vals[i]) assign(c, vals[i], ly);
}

static void link_structured(LaCtx *c, IrOp *op) {
    if (op->op == IR_FOR || op->op == IR_WHILE) {
        int isfor = op->op == IR_FOR, first = isfor ? 3 : 0;
        IrBlock *body = op->regions[0];
        IrOp *back = isfor ? body->last : op->regions[1]->last;
        for (int i = first; i < op->nargs; i++) {
            int j = i - first;
            IrValue *g[3] = {op->args[i], back ? back->args[j] : NULL,
                             body->args[j + isfor]};
            link(c, g, 3);
        }
        const IrOp *cond = isfor ? NULL : body->last;
        for (int j = 0; j < op->nres; j++) {
            IrValue *g[3] = {isfor ? body->args[j + 1] : cond->args[j + 1],
                             isfor ? NULL : op->regions[1]->args[j], op->res[j]};
            link(c, g, 3);
        }
    } else if (op->op == IR_IF) {
        for (int j = 0; j < op->nres; j++) {
            IrValue *g[3] = {op->regions[0]->last->args[j],
                             op->nregions > 1 ? op->regions[1]->last->args[j] : NULL,
                             op->res[j]};
            link(c, g, 3);
        }
    }
}

static void forward_block(LaCtx *c, IrBlock *b) {
    for (IrOp *op = b->first; op; op = op->next) {
        if (op->nregions) {
            for (int round = 0; round < 2; round++) {
                link_structured(c, op);
                for (int r = 0; r < op->nregions; r++) forward_block(c, op->regions[r]);
            }
            link_structured(c, op);
            continue;
        }
        if (op->nres == 1) assign(c, op->res[0], forward_layout(c, op));
    }
}

static void backward_block(LaCtx *c, IrBlock *b) {
    for (IrOp *op = b->last; op; op = op->prev) {
        if (op->nregions) {
            link_structured(c, op);
            for (int r = op->nregions - 1; r >= 0; r--) backward_block(c, op->regions[r]);
            link_structured(c, op);
        }
        for (int i = 0; i < op->nargs; i++)
            assign(c, op->args[i], operand_layout(c, op, i));
    }
}

/* The first tile value (in program order) with no layout yet. */
static IrValue *first_unassigned(IrBlock *b) {
    for (int i = 0; i < b->nargs; i++)
        if (is_tile(b->args[i]) && !b->args[i]->layout) return b->args[i];
    for (IrOp *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nres; i++)
            if (is_tile(op->res[i]) && !op->res[i]->layout) return op->res[i];
        for (int r = 0; r < op->nregions; r++) {
            IrValue *v = first_unassigned(op->regions[r]);
            if (v) return v;
        }
    }
    return NULL;
}

static void plan(LaCtx *c) {
    for (;;) {
        do {
            c->changed = 0;
            forward_block(c, c->k->body);
            backward_block(c, c->k->body);
        } while (c->changed);
        IrValue *v = first_unassigned(c->k->body);
        if (!v) return;
        assign(c, v, default_layout(c, v->ty));
    }
}

/* ---------------------------------------------------------- materializing */

/* Right after v's definition: dominates every use of v. */
static void place_after_def(IrOp *op, const IrValue *v) {
    if (v->def)
        ir_insert_after(op, v->def->parent, v->def);
    else
        ir_insert_after(op, v->block, NULL);
}

static int cheap_op(int opc) {
    switch (opc) {
    case IR_ARANGE: case IR_SPLAT: case IR_BROADCAST: case IR_EXPAND_DIMS:
    case IR_ADD: case IR_SUB: case IR_MUL: case IR_AND: case IR_OR:
    case IR_XOR: case IR_SHL: case IR_SHR: case IR_MIN: case IR_MAX:
    case IR_CMP: case IR_SELECT: case IR_PTRADD: case IR_NOT: case IR_NEG:
    case IR_MULTIPLE_OF: case IR_MAX_CONTIG:
        return 1;
    default:
        return 0;
    }
}

/* True when v is computed from scalars by a few integer/pointer ops (or
 * is a float splat): recomputing it in another layout costs less than
 * moving it. A load is cheap too when it has fewer elements than the
 * program has threads (Triton's test of a load that is not expensive) and
 * cheap addresses, mask and `other`: issued again in the wanted layout
 * right after the original (recompute), it reads the same memory at the
 * same point, and the copies several threads then hold come from L1 —
 * where a conversion would go through shared memory between barriers
 * (RoPE's row of cos and sin broadcast over its heads). Not a
 * cache="cv" load: that one asks for memory that may change under it,
 * and two reads could give its uses two values. */
static int cheap(const LaCtx *c, const IrValue *v, int budget) {
    const IrOp *op = v->def;
    if (!op || budget == 0 || op->nres != 1) return 0;
    if (op->op == IR_LOAD) {
        if (ty_numel(ty_pad(v->ty)) >= (int64_t)c->k->warps * 32 ||
            op->iattr[1] == CACHE_CV)
            return 0;
    } else if (!cheap_op(op->op) || (ty_isfloat(v->ty.k) && op->op != IR_SPLAT)) {
        return 0;
    }
    for (int i = 0; i < op->nargs; i++)
        if (is_tile(op->args[i]) && !cheap(c, op->args[i], budget - 1)) return 0;
    return 1;
}

static IrValue *get_as(LaCtx *c, IrValue *v, const Layout *ly);

static IrValue *recompute(LaCtx *c, IrValue *v, const Layout *ly) {
    const IrOp *orig = v->def;
    IrOp *op = ir_detached(c->ar, c->k, (IrOpcode)orig->op, v->ty, orig->nargs, orig->args,
                           orig->loc);
    memcpy(op->iattr, orig->iattr, sizeof op->iattr);
    op->fattr = orig->fattr;
    op->sattr = orig->sattr;
    op->res[0]->name = v->name;
    op->res[0]->layout = ly;
    place_after_def(op, v);
    for (int i = 0; i < op->nargs; i++) {   /* a load: its operands in its layout */
        const Layout *want = op->op != IR_LOAD ? operand_layout(c, op, i)
                             : is_tile(op->args[i]) ? ly : NULL;
        if (want) op->args[i] = get_as(c, op->args[i], want);
    }
    return op->res[0];
}

/* v, or a value equal to v in layout ly. */
static IrValue *get_as(LaCtx *c, IrValue *v, const Layout *ly) {
    if (ly_eq(v->layout, ly)) return v;
    for (int i = 0; i < c->remat.n; i++)
        if (c->remat.v[i].v == v && ly_eq(c->remat.v[i].ly, ly)) return c->remat.v[i].as;
    IrValue *as;
    if (cheap(c, v, 8)) {
        as = recompute(c, v, ly);
    } else {
        IrOp *op = ir_detached(c->ar, c->k, IR_CONVERT_LAYOUT, v->ty, 1, &v,
                               v->def ? v->def->loc : c->k->loc);
        op->res[0]->name = v->name;
        op->res[0]->layout = ly;
        place_after_def(op, v);
        as = op->res[0];
    }
    Remat r = {v, ly, as};
    vec_push(c->ar, &c->remat, r);
    return as;
}

/* Reductions and broadcasts whose result layout cannot be asked of the
 * operand take the operand's: the result's own users convert. */
static void settle_result(LaCtx *c, IrOp *op) {
    IrValue *x = op->args[0], *res = op->res[0];
    if (!is_tile(res) || operand_layout(c, op, 0)) return;
    const Layout *ly = forward_layout(c, op);
    if (!ly && op->op == IR_BROADCAST) {
        op->args[0] = get_as(c, x, default_layout(c, x->ty));
        ly = forward_layout(c, op);
    }
    if (ly) res->layout = ly;
}

static void materialize_block(LaCtx *c, IrBlock *b) {
    for (IrOp *op = b->first; op; op = op->next) {
        if (op->op == IR_CONVERT_LAYOUT) continue;
        if ((op->op == IR_REDUCE || op->op == IR_BROADCAST) && is_tile(op->args[0]))
            settle_result(c, op);
        for (int i = 0; i < op->nargs; i++) {
            const Layout *want = operand_layout(c, op, i);
            if (want && !ly_eq(op->args[i]->layout, want))
                op->args[i] = get_as(c, op->args[i], want);
        }
        for (int r = 0; r < op->nregions; r++) materialize_block(c, op->regions[r]);
    }
}

/* ------------------------------------------------------------------ API */

LyResult *ly_assign_kernel(Arena *ar, IrKernel *k, const LyFacts *f, int wgmma) {
    LaCtx c = {0};
    c.ar = ar;
    c.k = k;
    c.wgmma = wgmma & LY_ASSIGN_WGMMA;
    c.f8_wide = (wgmma & LY_ASSIGN_F8_WIDE) != 0;
    ly_induction(ar, k);
    ly_hoist(ar, k);
    ly_cse(ar, k);
    ly_carry_reduce(ar, k);
    ly_fold_trans(ar, k);
    c.ax = ax_analyze(ar, k, f);
    if (ly_widen_f8(ar, k, f8_misfit, &c)) c.ax = ax_analyze(ar, k, f);
    if (ly_realign(ar, k, c.ax, &c.realign, (wgmma & LY_ASSIGN_SPLIT) != 0))
        c.ax = ax_analyze(ar, k, f);
    if (c.wgmma && ly_swap_dots(ar, k, c.ax)) c.ax = ax_analyze(ar, k, f);
    find_anchors(&c);
    anchor_dots(&c);
    plan(&c);
    materialize_block(&c, k->body);
    ly_order_memory(ar, k);
    LyResult *r = ar_alloc(ar, sizeof *r);
    r->facts = *f;
    r->axis = ax_analyze(ar, k, f);
    r->realign = c.realign;
    r->staged = c.staged;
    ly_pipeline_kernel(r, k);
    return r;
}

void ly_assign_module(Arena *ar, IrModule *m, int aligned, int wgmma) {
    for (int i = 0; i < m->nkernels; i++) {
        IrKernel *k = m->kernels[i];
        LyFacts f = aligned ? ly_facts_full(ar, k, 1) : ly_facts_none(k);
        ly_assign_kernel(ar, k, &f, wgmma);
    }
}

int ly_mem_vec(const LyResult *r, const IrOp *op) {
    const IrValue *p = op->args[0];
    if (!is_tile(p) || !p->layout) return 1;
    int dim = ly_fastest_dim(p->layout);
    int64_t esize = ty_bytes(p->ty.pointee) > 0 ? ty_bytes(p->ty.pointee) : 1;
    int64_t vec = min64(ly_vec_width(p->layout, dim), ly_access_run(r->axis, op, dim));
    vec = min64(vec, 16 / esize > 1 ? 16 / esize : 1);
    return vec > 1 ? (int)vec : 1;
}

int ly_shift_run(const LyResult *r, const IrOp *op) {
    int staged = 0;
    for (int i = 0; i < r->staged.n; i++) staged |= r->staged.v[i] == op;
    const IrValue *p = op->args[0];
    if (!staged || op->op != IR_LOAD || !is_tile(p) || !p->layout ||
        ly_realigned(&r->realign, op))
        return 0;
    int dim = ly_fastest_dim(p->layout);
    if (ty_bytes(p->ty.pointee) != 2 || ly_vec_width(p->layout, dim) % 8 ||
        ax_of(r->axis, p)->contig[dim] < 8)
        return 0;
    return ly_mem_vec(r, op) < 8 ? 8 : 0;
}

uint32_t ly_repeated_regs(const LyResult *r, const IrValue *v) {
    const Layout *l = v->layout;
    const AxInfo *a = ax_of(r->axis, v);
    uint32_t mask = 0;
    if (!l || !a) return 0;
    for (int i = 0; i < l->nbits[LY_REG]; i++) {
        int32_t at[IR_MAXRANK];
        ly_unpack(l->rank, l->shape, l->basis[LY_REG][i], at);
        int inside = 1;
        for (int d = 0; d < l->rank; d++) {
            /* runs of K aligned to K are made of aligned runs of the
             * largest power of two dividing K */
            int64_t k = a->constancy[d] & -a->constancy[d];
            inside &= at[d] < k;
        }
        if (inside) mask |= UINT32_C(1) << i;
    }
    return mask;
}

/* A tile value has a layout that keeps the invariants (ly_check), of its
 * padded shape (ir.h, ty_pad); a scalar has none. */
static int verify_value(LaCtx *c, const IrValue *v) {
    if (!is_tile(v)) return v->layout != NULL;
    if (!v->layout || ly_check(v->layout, c->k->warps) != NULL) return 1;
    Type p = ty_pad(v->ty);
    return v->layout->rank != p.rank ||
           memcmp(v->layout->shape, p.dim, sizeof(int32_t) * (size_t)p.rank) != 0;
}

/* Every tile value has a valid layout, no scalar has one, and every
 * operand has the layout its op needs. */
static int verify_block(LaCtx *c, const IrBlock *b) {
    int bad = 0;
    for (int i = 0; i < b->nargs; i++) bad += verify_value(c, b->args[i]);
    for (const IrOp *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nres; i++) bad += verify_value(c, op->res[i]);
        int mem = op->op == IR_LOAD || op->op == IR_STORE ||
                  op->op == IR_ATOMIC || op->op == IR_ATOMIC_CAS;
        if (mem && is_tile(op->args[0]))
            for (int i = 0; i < op->nres; i++)
                bad += !ly_eq(op->res[i]->layout, op->args[0]->layout);
        for (int i = 0; i < op->nargs; i++) {
            const Layout *want = op->op == IR_CONVERT_LAYOUT ? NULL
                                 : mem && is_tile(op->args[0])
                                     ? (ty_same_shape(op->args[i]->ty, op->args[0]->ty)
                                            ? op->args[0]->layout : NULL)
                                     : operand_layout(c, op, i);
            bad += want && !ly_eq(want, op->args[i]->layout);
        }
        if (op->op == IR_REDUCE && is_tile(op->res[0]))
            bad += !ly_eq(op->res[0]->layout,
                          ly_slice(c->ar, op->args[0]->layout, (int)op->iattr[1]));
        for (int r = 0; r < op->nregions; r++) bad += verify_block(c, op->regions[r]);
    }
    return bad;
}

int ly_verify_kernel(Arena *ar, const IrKernel *k) {
    LaCtx c = {0};
    c.ar = ar;
    c.k = (IrKernel *)k;
    return verify_block(&c, k->body);
}
