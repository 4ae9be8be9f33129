/*
 * layout.c — from linear layouts to registers: element coordinates, the
 * register maps behind every shape op and layout conversion, ownership of
 * replicated elements, and the shared scratch.
 *
 * A layout (plan/layout.h) maps a hardware index (register r, lane l,
 * warp w) to the packed (row-major) coordinate of the element it holds,
 * linearly over F2: coord(r, l, w) = R(r) ^ T(l, w). R(r) is a constant
 * per register; T is computed once per layout from the lane and warp ids
 * (LLVM folds the bit moves of a blocked layout into a few shifts and
 * masks). A scalar has no layout: one register, the same in every thread.
 *
 * Every shape op — splat, broadcast, expand_dims, reshape, permute,
 * convert_layout — is one question: the destination element at packed
 * coordinate y is source element P(y), for a linear P on packed
 * coordinates (identity for reshape, expand_dims and conversions, since
 * row-major packing ignores size-1 axes and reshapes; dropped bits for a
 * broadcast; moved bits for a permute). With D the destination layout,
 * the source layout S and P∘D agree on every lane and warp basis vector
 * exactly when each thread already holds what it needs: then each
 * destination register is a source register of the same thread (found by
 * its constant R part) and the op costs nothing. When the data crosses
 * lanes but not warps, warp shuffles move it: for each destination
 * register, the source (register, lane) holding its element is affine in
 * the thread's (lane, warp) bits, so solving at zero and at each unit
 * vector (ly_cvt_source, warp kept) gives a plan that holds for every
 * thread by linearity; the destination register is then one
 * shfl.sync.idx from the computed lane, or one per candidate source
 * register (at most 4) and a select when the wanted register varies with
 * the lane. Anything else (data crossing warps, or more candidates: a
 * transpose inside a warp) goes through shared memory: every thread
 * writes its elements at their packed coordinates, padded by one element
 * every 32 so that rows of 32 (the transposes of 2-D conversions) fall in
 * distinct banks, a barrier, and every thread reads P(y) for its
 * registers.
 */
#include "lower/lw.h"

#include <string.h>

static int lw_nbits(const Layout *l, LyIn d) { return l ? l->nbits[d] : 0; }

static uint32_t lw_basis(const Layout *l, LyIn d, int i) {
    return l && i < l->nbits[d] ? l->basis[d][i] : 0;
}

/* The constant part R(r) of register r's packed coordinate. */
uint32_t lw_reg_part(const Layout *l, int r) {
    uint32_t y = 0;
    for (int i = 0; i < lw_nbits(l, LY_REG); i++)
        if (r >> i & 1) y ^= lw_basis(l, LY_REG, i);
    return y;
}

/* T(lane, warp) for this thread: the XOR of the lane and warp basis
 * vectors of the set bits of lane and warp. Computed once per kernel and
 * set of lane and warp bases, in the prologue (the entry block, which
 * dominates every use): per-register coordinates then cost one XOR with a
 * constant, and LLVM gets a fraction of the IR to clean up (compile time
 * grew with registers × layouts otherwise). */
static LLVMValueRef lw_thread_part_here(LwFn *f, const Layout *l);

static LLVMValueRef lw_thread_part(LwFn *f, const Layout *l) {
    LwTpart key;
    memset(&key, 0, sizeof key);
    for (int i = 0; i < lw_nbits(l, LY_LANE); i++) key.lane[i] = lw_basis(l, LY_LANE, i);
    for (int i = 0; i < lw_nbits(l, LY_WARP); i++) key.warp[i] = lw_basis(l, LY_WARP, i);
    for (int i = 0; i < f->tparts.n; i++)
        if (!memcmp(f->tparts.v[i].lane, key.lane, sizeof key.lane) &&
            !memcmp(f->tparts.v[i].warp, key.warp, sizeof key.warp))
            return f->tparts.v[i].v;
    if (!f->entry_br) return lw_thread_part_here(f, l);
    LLVMBuilderRef b = f->c->b;
    LLVMBasicBlockRef at = LLVMGetInsertBlock(b);
    LLVMPositionBuilderBefore(b, f->entry_br);
    key.v = lw_thread_part_here(f, l);
    LLVMPositionBuilderAtEnd(b, at);
    vec_push(f->c->ar, &f->tparts, key);
    return key.v;
}

static LLVMValueRef lw_thread_part_here(LwFn *f, const Layout *l) {
    LwCtx *c = f->c;
    LLVMValueRef acc = lw_i32(c, 0);
    LyIn dims[2] = {LY_LANE, LY_WARP};
    LLVMValueRef ids[2] = {f->lane, f->warp};
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < lw_nbits(l, dims[d]); i++) {
            uint32_t b = lw_basis(l, dims[d], i);
            if (!b) continue;
            LLVMValueRef bit = LLVMBuildAnd(
                c->b, LLVMBuildLShr(c->b, ids[d], lw_i32(c, i), ""),
                lw_i32(c, 1), "");
            LLVMValueRef term =
                (b & (b - 1)) == 0
                    ? LLVMBuildShl(c->b, bit, lw_i32(c, __builtin_ctz(b)), "")
                    : LLVMBuildMul(c->b, bit, lw_i32(c, b), "");
            acc = LLVMBuildXor(c->b, acc, term, "");
        }
    return acc;
}

/* Does no bit of a register basis vector of l appear in a lane or warp
 * one? Then T & R(r) = 0 for every thread and register: T ^ R(r) is
 * T + R(r), and T | R(r). */
static int lw_reg_bits_apart(const Layout *l) {
    uint32_t regs = 0, threads = 0;
    for (int i = 0; i < lw_nbits(l, LY_REG); i++) regs |= lw_basis(l, LY_REG, i);
    for (int in = LY_LANE; in <= LY_WARP; in++)
        for (int i = 0; i < lw_nbits(l, (LyIn)in); i++) threads |= lw_basis(l, (LyIn)in, i);
    return !(regs & threads);
}

int lw_reg_const(const Layout *l, int r, uint32_t *reg) {
    if (!l || l->rank != 1 || !lw_reg_bits_apart(l)) return 0;
    *reg = lw_reg_part(l, r);
    return 1;
}

LLVMValueRef lw_thread_coord(LwFn *f, const Layout *l) {
    return lw_thread_part(f, l);
}

LLVMValueRef lw_packed_coord(LwFn *f, const Layout *l, int r) {
    return LLVMBuildXor(f->c->b, lw_thread_part(f, l),
                        lw_i32(f->c, lw_reg_part(l, r)), "");
}

/* Bit offset of dimension d in a packed coordinate of `shape`. */
static int lw_dim_offset(int rank, const int32_t *shape, int d) {
    int off = 0;
    for (int i = rank - 1; i > d; i--) off += ly_log2(shape[i]);
    return off;
}

LLVMValueRef lw_coord(LwFn *f, const Layout *l, int r, int d) {
    LwCtx *c = f->c;
    if (!l) return lw_i32(c, 0);
    LLVMValueRef y = lw_packed_coord(f, l, r);
    int off = lw_dim_offset(l->rank, l->shape, d);
    if (off) y = LLVMBuildLShr(c->b, y, lw_i32(c, off), "");
    return LLVMBuildAnd(c->b, y, lw_i32(c, l->shape[d] - 1), "");
}

/* ------------------------------------------------------ shared scratch */

LLVMValueRef lw_smem(LwFn *f, int64_t bytes) {
    LwCtx *c = f->c;
    if (!f->smem)
        f->smem = LLVMAddGlobalInAddressSpace(c->mod, LLVMArrayType2(c->i8, 0),
                                              "tile.smem.placeholder",
                                              LW_AS_SHARED);
    if (bytes > f->smem_bytes) f->smem_bytes = bytes;
    f->smem_users++;
    return f->smem;
}

/* Before a user writes the scratch: earlier users done reading it (and
 * bulk stores, lower/tma.c, done reading it too). */
void lw_scratch_barrier(LwFn *f) {
    if (f->smem_users > 1 || f->loops > 0) {
        if (f->plan->ntstores) lw_tma_store_read_wait(f);
        lw_barrier(f);
    }
}

/* Every thread of the program; a warp-specialized kernel's consumers
 * (f->ws) among themselves, on a named barrier the producer never
 * reaches (lower/warpspec.c; pingpong.c's turns take 1 to 4). */
#define LW_WS_BARRIER 8
void lw_barrier(LwFn *f) {
    if (f->ws) {
        LLVMValueRef a[2] = {lw_i32(f->c, LW_WS_BARRIER), lw_i32(f->c, 32 * f->k->warps)};
        lw_call_intr(f->c, "llvm.nvvm.barrier.cta.sync.aligned.count", NULL, 0, a, 2);
        return;
    }
    LLVMValueRef zero = lw_i32(f->c, 0);
    lw_call_intr(f->c, "llvm.nvvm.barrier.cta.sync.aligned.all", NULL, 0,
                 &zero, 1);
}

/* Element i of type t in the scratch. */
static LLVMValueRef lw_smem_at(LwFn *f, LLVMTypeRef t, LLVMValueRef i) {
    return LLVMBuildGEP2(f->c->b, t, f->smem, &i, 1, "");
}

/* One element every 32 of padding, and q more every 2^p (lw_remap_pad). */
static LLVMValueRef lw_pad_value(LwFn *f, LwPad d, LLVMValueRef y) {
    LwCtx *c = f->c;
    LLVMValueRef s = LLVMBuildAdd(c->b, y, LLVMBuildLShr(c->b, y, lw_i32(c, 5), ""), "");
    if (!d.q) return s;
    LLVMValueRef hi = LLVMBuildMul(c->b, LLVMBuildLShr(c->b, y, lw_i32(c, d.p), ""),
                                   lw_i32(c, d.q), "");
    return LLVMBuildAdd(c->b, s, hi, "");
}

uint32_t lw_pad_const(LwPad d, uint32_t y) {
    return y + (y >> 5) + (d.q ? (y >> d.p) * (uint32_t)d.q : 0);
}

uint32_t lw_padded_const(uint32_t y) { return lw_pad_const(LW_PAD_DEFAULT, y); }

/* The scratch slot of register r of l: its packed coordinate T ^ R(r),
 * padded. Where l's register bits lie apart from its thread bits
 * (lw_reg_bits_apart), T ^ R = T + R and (T + R) >> 5 = (T >> 5) +
 * (R >> 5) (the two shifted values are still disjoint), so the slot is
 * pad(T) + pad(R): one value per thread plus a constant, which LLVM folds
 * into each access's immediate offset. Computed per register as
 * pad(T ^ R), every access had its own address register (transpose
 * 64x64, 4 warps: 32 of them), and ptxas, short of registers, issued the
 * global loads a few at a time between the scratch stores. */
static LLVMValueRef lw_scratch_slot(LwFn *f, const Layout *l, int r, LwPad d) {
    LwCtx *c = f->c;
    if (!lw_reg_bits_apart(l)) return lw_pad_value(f, d, lw_packed_coord(f, l, r));
    LLVMValueRef t = lw_pad_value(f, d, lw_thread_part(f, l));
    uint32_t k = lw_pad_const(d, lw_reg_part(l, r));
    if (!k) return t;
    LLVMValueRef y = LLVMBuildAdd(c->b, t, lw_i32(c, k), "");
    LLVMSetNUW(y, 1);
    LLVMSetNSW(y, 1);
    return y;
}

/* ----------------------------------------------------------- ownership */

/* Mask of the register bits whose basis vector is zero (copies). */
static uint32_t lw_copy_bits(const Layout *l, LyIn d, int nbits) {
    uint32_t m = 0;
    for (int i = 0; i < nbits; i++)
        if (!lw_basis(l, d, i)) m |= 1u << i;
    return m;
}

int lw_replicated(const Layout *l, int warps) {
    return lw_copy_bits(l, LY_LANE, 5) || lw_copy_bits(l, LY_WARP, ly_log2(warps));
}

LLVMValueRef lw_owner(LwFn *f, const Layout *l, int r, int *first_reg) {
    LwCtx *c = f->c;
    if (first_reg)
        *first_reg = (r & (int)lw_copy_bits(l, LY_REG, lw_nbits(l, LY_REG))) == 0;
    uint32_t lanes = lw_copy_bits(l, LY_LANE, 5);
    uint32_t warps = lw_copy_bits(l, LY_WARP, ly_log2(f->k->warps));
    LLVMValueRef p = NULL;
    if (lanes)
        p = LLVMBuildICmp(c->b, LLVMIntEQ,
                          LLVMBuildAnd(c->b, f->lane, lw_i32(c, lanes), ""),
                          lw_i32(c, 0), "");
    if (warps) {
        LLVMValueRef q = LLVMBuildICmp(
            c->b, LLVMIntEQ, LLVMBuildAnd(c->b, f->warp, lw_i32(c, warps), ""),
            lw_i32(c, 0), "");
        p = p ? LLVMBuildAnd(c->b, p, q, "") : q;
    }
    return p;
}

/* Register r's coordinate along d is R ^ T with R its constant part and
 * T the thread's, whose bits lie within the OR of l's lane and warp basis
 * vectors: so it lies in [R & ~M, R | M] (M those bits along d). A
 * register wholly inside the extent needs no predicate; one wholly in the
 * padding gets the constant false, which its callers drop the access for
 * (an inline-asm store would keep a false predicate). */
LLVMValueRef lw_pad_and(LwFn *f, const IrValue *v, const Layout *l, int r,
                        LLVMValueRef p) {
    LwCtx *c = f->c;
    uint32_t M = 0;
    for (int i = 0; l && i < lw_nbits(l, LY_LANE); i++) M |= lw_basis(l, LY_LANE, i);
    for (int i = 0; l && i < lw_nbits(l, LY_WARP); i++) M |= lw_basis(l, LY_WARP, i);
    for (int d = 0; l && d < v->ty.rank; d++) {
        if (is_pow2(v->ty.dim[d])) continue;
        int off = lw_dim_offset(l->rank, l->shape, d);
        uint32_t ext = (uint32_t)l->shape[d] - 1;
        uint32_t R = lw_reg_part(l, r) >> off & ext, m = M >> off & ext;
        uint32_t n = (uint32_t)v->ty.dim[d];
        if ((R | m) < n) continue;
        if ((R & ~m) >= n) return LLVMConstInt(c->i1, 0, 0);
        LLVMValueRef in = LLVMBuildICmp(c->b, LLVMIntULT, lw_coord(f, l, r, d),
                                        lw_i32(c, (int)n), "pad.in");
        p = p ? LLVMBuildAnd(c->b, p, in, "") : in;
    }
    return p;
}

int lw_never(LLVMValueRef p) {
    return p && LLVMIsAConstantInt(p) && LLVMConstIntGetZExtValue(p) == 0;
}

/* ------------------------------------------------------------ shuffles */

/* How one destination register of a conversion inside warps is fetched:
 * the source hardware index holding its element is affine in (lane, warp)
 * (the layouts are linear): src(l, w) = p0 ^ sum of col[i] over the set
 * bits i of l and then of w, with the warp kept. */
enum { LW_SHFL_MAX_SRC = 4 };   /* shuffles per destination register, at most */

typedef struct LwShflPlan {
    LyIndex p0;
    LyIndex col[2 * LY_MAXBITS];   /* lane bits, then warp bits */
    uint32_t span[LW_SHFL_MAX_SRC];  /* source registers ^ p0.reg */
    int nspan;
} LwShflPlan;

/* Plans register r of pd (the destination in source coordinates) read
 * from sl with shuffles. 0 when its element is not in the same warp, or
 * when the source register varies with the lane over more than
 * LW_SHFL_MAX_SRC registers. The columns come from actual solutions at
 * 0 and at each unit vector, so by linearity src(l, w) holds pd's element
 * for every l and w: the plan is correct by construction, not by a
 * sample. */
static int lw_shfl_plan(const Layout *sl, const Layout *pd, int r, LwShflPlan *p) {
    int nl = pd->nbits[LY_LANE], nw = pd->nbits[LY_WARP];
    LyIndex x = {(uint32_t)r, 0, 0}, q;
    if (ly_cvt_source(sl, pd, 1u << LY_WARP, x, &p->p0)) return 0;
    p->span[0] = 0;
    p->nspan = 1;
    for (int i = 0; i < nl + nw; i++) {
        x.lane = i < nl ? 1u << i : 0;
        x.warp = i < nl ? 0 : 1u << (i - nl);
        if (ly_cvt_source(sl, pd, 1u << LY_WARP, x, &q)) return 0;
        p->col[i] = (LyIndex){q.reg ^ p->p0.reg, q.lane ^ p->p0.lane, 0};
        int known = 0;
        for (int j = 0; j < p->nspan; j++) known |= p->span[j] == p->col[i].reg;
        if (known) continue;
        if (2 * p->nspan > LW_SHFL_MAX_SRC) return 0;
        for (int j = 0, n = p->nspan; j < n; j++)
            p->span[p->nspan++] = p->span[j] ^ p->col[i].reg;
    }
    return 1;
}

/* The runtime value of sum over the set bits of (lane, warp) of the
 * `reg` (or else `lane`) parts of p's columns, XOR the same part of p0:
 * a thread part (computed once, in the prologue) plus a constant. */
static LLVMValueRef lw_plan_part(LwFn *f, const Layout *pd, const LwShflPlan *p,
                                 int reg) {
    Layout t;
    memset(&t, 0, sizeof t);
    t.nbits[LY_LANE] = pd->nbits[LY_LANE];
    t.nbits[LY_WARP] = pd->nbits[LY_WARP];
    for (int i = 0; i < t.nbits[LY_LANE] + t.nbits[LY_WARP]; i++) {
        uint32_t v = reg ? p->col[i].reg : p->col[i].lane;
        if (i < t.nbits[LY_LANE]) t.basis[LY_LANE][i] = v;
        else t.basis[LY_WARP][i - t.nbits[LY_LANE]] = v;
    }
    return LLVMBuildXor(f->c->b, lw_thread_part(f, &t),
                        lw_i32(f->c, reg ? p->p0.reg : p->p0.lane), "");
}

/* A conversion whose data moves between the lanes of a warp only
 * (Triton's transferWithinWarp, in its simplest form): each destination
 * register is one shfl.sync.idx of a source register from the lane the
 * plan computes (none when that is the thread's own lane); where the
 * wanted source register differs between lanes, one shuffle per candidate
 * register (at most LW_SHFL_MAX_SRC) and the receiver selects. Returns 0,
 * building nothing, when some register has no plan. */
static int lw_remap_shuffle(LwFn *f, LwVal src, const Layout *sl,
                            const Layout *pd, LwVal *out) {
    int nd = ly_size(pd, LY_REG);
    LwShflPlan *plan = ar_alloc(f->c->ar, sizeof(LwShflPlan) * (size_t)nd);
    for (int r = 0; r < nd; r++)
        if (!lw_shfl_plan(sl, pd, r, &plan[r])) return 0;
    LLVMBuilderRef b = f->c->b;
    for (int r = 0; r < nd; r++) {
        const LwShflPlan *p = &plan[r];
        int own = p->p0.lane == 0;
        for (int i = 0; i < pd->nbits[LY_LANE]; i++) own &= p->col[i].lane == 1u << i;
        for (int i = 0; i < pd->nbits[LY_WARP]; i++)
            own &= p->col[pd->nbits[LY_LANE] + i].lane == 0;
        LLVMValueRef lane = own ? NULL : lw_plan_part(f, pd, p, 0);
        LLVMValueRef want = p->nspan > 1 ? lw_plan_part(f, pd, p, 1) : NULL;
        for (int j = 0; j < p->nspan; j++) {
            uint32_t s = p->p0.reg ^ p->span[j];
            LLVMValueRef y = own ? src.r[s] : lw_shfl(f, LW_SHFL_IDX, src.r[s], lane);
            out->r[r] = j == 0 ? y
                               : LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, want,
                                                                  lw_i32(f->c, s), ""),
                                                 y, out->r[r], "");
        }
    }
    return 1;
}

/* ------------------------------------------------------------- remaps */

static uint32_t lw_map(const LyMap *m, uint32_t x) {
    if (!m) return x;
    uint32_t y = 0;
    for (int i = 0; i < m->nin; i++)
        if (x >> i & 1) y ^= m->col[i];
    return y;
}

/* How lw_remap moves a value: within threads, by shuffles, or through
 * the scratch. */
typedef enum { LW_REMAP_THREAD, LW_REMAP_SHUFFLE, LW_REMAP_SCRATCH } LwRemapWay;

/* P∘D: destination layout dl with source coordinates (proj applied). */
static void lw_remap_target(const Layout *sl, const Layout *dl, const LyMap *proj,
                            Layout *pd) {
    memset(pd, 0, sizeof *pd);
    if (sl) {
        pd->rank = sl->rank;
        memcpy(pd->shape, sl->shape, sizeof pd->shape);
    }
    for (int d = 0; d < LY_NIN; d++) {
        pd->nbits[d] = (uint8_t)lw_nbits(dl, (LyIn)d);
        for (int i = 0; i < pd->nbits[d]; i++)
            pd->basis[d][i] = lw_map(proj, lw_basis(dl, (LyIn)d, i));
    }
}

/* The source register (of ns) holding destination register r of pd in
 * the same thread, or -1. */
static int lw_same_thread_reg(const Layout *sl, const Layout *pd, int r, int ns) {
    uint32_t y = lw_reg_part(pd, r);
    for (int s = 0; s < ns; s++)
        if (lw_reg_part(sl, s) == y) return s;
    return -1;
}

/* The way from sl (ns registers) to pd (nd registers); pure, so that the
 * plan of the scratch (scratch.c) and lw_remap agree by construction. */
static LwRemapWay lw_remap_way(const Layout *sl, const Layout *dl, const Layout *pd,
                               int nd, int ns) {
    int in_thread = 1;
    for (int d = LY_LANE; d <= LY_WARP && in_thread; d++) {
        int n = pd->nbits[d] > lw_nbits(sl, (LyIn)d) ? pd->nbits[d] : lw_nbits(sl, (LyIn)d);
        for (int i = 0; i < n; i++)
            if (lw_basis(pd, (LyIn)d, i) != lw_basis(sl, (LyIn)d, i)) in_thread = 0;
    }
    for (int r = 0; r < nd && in_thread; r++)
        if (lw_same_thread_reg(sl, pd, r, ns) < 0) in_thread = 0;
    if (in_thread) return LW_REMAP_THREAD;
    LwShflPlan plan;
    int shuffle = sl && dl;
    for (int r = 0; r < ly_size(pd, LY_REG) && shuffle; r++)
        shuffle = lw_shfl_plan(sl, pd, r, &plan);
    return shuffle ? LW_REMAP_SHUFFLE : LW_REMAP_SCRATCH;
}

/* The scratch for n elements padded by d: every slot up to pad(n) (the
 * padding is increasing in y). */
static int64_t lw_pad_bytes(LwPad d, int64_t n, ScalarKind k) {
    return ((int64_t)lw_pad_const(d, (uint32_t)n) + 1) * ty_bytes(k);
}

int64_t lw_smem_elems_bytes(int64_t n, ScalarKind k) {
    return lw_pad_bytes(LW_PAD_DEFAULT, n, k);
}

static int64_t lw_numel(const Layout *l) {
    int64_t numel = 1;
    for (int d = 0; l && d < l->rank; d++) numel *= l->shape[d];
    return numel;
}

/* Shared-memory wavefronts that the accesses of warp 0 to l's registers
 * (copies left out when `owners`) take with padding d: per access, the
 * most distinct 4-byte words that its lanes touch in one bank. Other
 * warps' addresses differ by a constant per access, which preserves the
 * count for 4-byte elements and nearly so for others. */
static int lw_pad_cost(const Layout *l, LwPad d, ScalarKind k, int owners) {
    int nreg = 1 << lw_nbits(l, LY_REG), bytes = ty_bytes(k), cost = 0;
    uint32_t copies = owners ? lw_copy_bits(l, LY_REG, lw_nbits(l, LY_REG)) : 0;
    for (int r = 0; r < nreg; r++) {
        if (r & (int)copies) continue;
        uint32_t w[64];
        int n = 0, worst = 0;
        for (uint32_t lane = 0; lane < 32; lane++) {
            uint32_t y = lw_reg_part(l, r);
            for (int i = 0; i < lw_nbits(l, LY_LANE); i++)
                if (lane >> i & 1) y ^= lw_basis(l, LY_LANE, i);
            uint32_t at = lw_pad_const(d, y) * (uint32_t)bytes;
            for (uint32_t b = at / 4; b <= (at + (uint32_t)bytes - 1) / 4; b++) {
                int seen = 0;
                for (int j = 0; j < n && !seen; j++) seen = w[j] == b;
                if (!seen) w[n++] = b;
            }
        }
        for (int bank = 0; bank < 32; bank++) {
            int m = 0;
            for (int j = 0; j < n; j++) m += (int)(w[j] % 32) == bank;
            if (m > worst) worst = m;
        }
        cost += worst;
    }
    return cost;
}

/* The padding of a conversion from sl through the scratch, read as pd
 * (the destination in source coordinates): the default (one element
 * every 32, which makes the columns of 32-wide rows distinct banks)
 * unless a second interval (q elements every 2^p) takes fewer
 * wavefronts for the stores and loads together; among equals the
 * smaller buffer. A transpose of [64, 64] f32 with 4 warps reads 16 rows
 * 4 apart in one access: 4-way conflicts by default, none with 2 more
 * elements every 1024. Pure: scratch.c sizes the buffer with it. */
static LwPad lw_remap_pad(const Layout *sl, const Layout *pd, ScalarKind k) {
    LwPad best = LW_PAD_DEFAULT;
    uint32_t n = (uint32_t)lw_numel(sl), size = lw_pad_const(best, n);
    int cost = lw_pad_cost(sl, best, k, 1) + lw_pad_cost(pd, best, k, 0);
    static const int qs[] = {1, 2, 4, 8, 16};
    for (int p = 6; p < ly_log2((int)n); p++)
        for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
            LwPad d = {p, qs[i]};
            int c = lw_pad_cost(sl, d, k, 1) + lw_pad_cost(pd, d, k, 0);
            if (c < cost || (c == cost && lw_pad_const(d, n) < size)) {
                best = d;
                cost = c;
                size = lw_pad_const(d, n);
            }
        }
    return best;
}

/* Stores src's registers (but copies) at their slots padded by d, the
 * packed coordinates offset by base elements (gather.c's operands; d is
 * then the default). */
static void lw_smem_put_padded(LwFn *f, LwVal src, ScalarKind k, const Layout *sl, LwPad d,
                               int64_t base) {
    LwCtx *c = f->c;
    LLVMTypeRef t = lw_mem_type(c, k);
    uint32_t copies = lw_copy_bits(sl, LY_REG, lw_nbits(sl, LY_REG));
    for (int s = 0; s < src.n; s++) {
        if (s & (int)copies) continue;
        LLVMValueRef slot =
            base ? lw_pad_value(f, d, LLVMBuildAdd(c->b, lw_packed_coord(f, sl, s),
                                                   lw_i32(c, base), ""))
                 : lw_scratch_slot(f, sl, s, d);
        LLVMBuildStore(c->b, lw_to_mem(f, src.r[s], k), lw_smem_at(f, t, slot));
    }
}

void lw_smem_put(LwFn *f, LwVal src, ScalarKind k, const Layout *sl, int64_t base) {
    lw_smem_put_padded(f, src, k, sl, LW_PAD_DEFAULT, base);
}

/* The element at a scratch slot (a padded index). */
static LLVMValueRef lw_smem_load(LwFn *f, ScalarKind k, LLVMValueRef slot) {
    LLVMTypeRef t = lw_mem_type(f->c, k);
    return lw_from_mem(f, LLVMBuildLoad2(f->c->b, t, lw_smem_at(f, t, slot), ""), k);
}

LLVMValueRef lw_smem_get(LwFn *f, ScalarKind k, LLVMValueRef i) {
    return lw_smem_load(f, k, lw_pad_value(f, LW_PAD_DEFAULT, i));
}

/* The way lw_remap moves sl to dl (proj: a shape op's). */
static LwRemapWay lw_remap_way_of(const Layout *sl, const Layout *dl, const LyMap *proj) {
    Layout pd;
    lw_remap_target(sl, dl, proj, &pd);
    int nd = dl ? ly_size(dl, LY_REG) : 1, ns = sl ? ly_size(sl, LY_REG) : 1;
    return lw_remap_way(sl, dl, &pd, nd, ns);
}

int lw_in_layout_in_thread(const IrValue *v, const Layout *l) {
    if (v->layout == l || !v->layout || (l && ly_eq(v->layout, l))) return 1;
    return lw_remap_way_of(v->layout, l, NULL) == LW_REMAP_THREAD;
}

int64_t lw_remap_scratch(const Layout *sl, const Layout *dl, const LyMap *proj,
                         ScalarKind k) {
    Layout pd;
    lw_remap_target(sl, dl, proj, &pd);
    int nd = dl ? ly_size(dl, LY_REG) : 1, ns = sl ? ly_size(sl, LY_REG) : 1;
    if (lw_remap_way(sl, dl, &pd, nd, ns) != LW_REMAP_SCRATCH) return 0;
    return lw_pad_bytes(lw_remap_pad(sl, &pd, k), lw_numel(sl), k);
}

LwVal lw_remap(LwFn *f, LwVal src, ScalarKind k, const Layout *sl,
               const Layout *dl, const LyMap *proj) {
    Layout pd;
    lw_remap_target(sl, dl, proj, &pd);
    int nd = dl ? ly_size(dl, LY_REG) : 1;
    int ns = src.n;
    LwVal out = lw_new_val(f, nd);
    LwRemapWay way = lw_remap_way(sl, dl, &pd, nd, ns);
    if (way == LW_REMAP_THREAD) {
        for (int r = 0; r < nd; r++) out.r[r] = src.r[lw_same_thread_reg(sl, &pd, r, ns)];
        return out;
    }

    /* Inside warps: shuffles. */
    if (way == LW_REMAP_SHUFFLE) {
        lw_remap_shuffle(f, src, sl, &pd, &out);
        return out;
    }

    /* Across warps: shared memory. */
    LwPad d = lw_remap_pad(sl, &pd, k);
    lw_smem(f, lw_pad_bytes(d, lw_numel(sl), k));
    lw_scratch_barrier(f);
    lw_smem_put_padded(f, src, k, sl, d, 0);
    lw_barrier(f);
    for (int r = 0; r < nd; r++) out.r[r] = lw_smem_load(f, k, lw_scratch_slot(f, &pd, r, d));
    return out;
}

int64_t lw_in_layout_scratch(const IrValue *v, const Layout *l) {
    if (v->layout == l || !v->layout || (l && ly_eq(v->layout, l))) return 0;
    return lw_remap_scratch(v->layout, l, NULL, (ScalarKind)v->ty.k);
}

LwVal lw_in_layout(LwFn *f, const IrValue *v, const Layout *l) {
    LwVal *x = lw_val(f, v);
    if (v->layout == l || (v->layout && l && ly_eq(v->layout, l))) return *x;
    if (!v->layout) {
        LwVal out = lw_new_val(f, l ? ly_size(l, LY_REG) : 1);
        for (int r = 0; r < out.n; r++) out.r[r] = x->r[0];
        return out;
    }
    return lw_remap(f, *x, (ScalarKind)v->ty.k, v->layout, l, NULL);
}

/* ----------------------------------------------------------- shape ops */

static int lw_total_bits(const Type *t) {
    int n = 0;
    for (int d = 0; d < t->rank; d++) n += ly_log2(t->dim[d]);
    return n;
}

/* The map from destination to source packed coordinates of a shape op. */
static LyMap lw_shape_map(const IrOp *op) {
    /* on the padded shapes (sema allows only reshapes that keep padded
     * positions: ty_reshape_in_place) */
    const Type dpad = ty_pad(op->res[0]->ty), spad = ty_pad(op->args[0]->ty);
    const Type *dt = &dpad, *st = &spad;
    LyMap m;
    memset(&m, 0, sizeof m);
    m.nin = lw_total_bits(dt);
    m.nout = lw_total_bits(st);
    for (int d = 0; d < dt->rank; d++) {
        int off = lw_dim_offset(dt->rank, dt->dim, d);
        for (int j = 0; j < ly_log2(dt->dim[d]); j++) {
            uint32_t col;
            if (op->op == IR_BROADCAST)
                col = st->dim[d] == 1
                          ? 0
                          : 1u << (lw_dim_offset(st->rank, st->dim, d) + j);
            else if (op->op == IR_PERMUTE) {
                int sd = (int)op->iattr[d];
                col = 1u << (lw_dim_offset(st->rank, st->dim, sd) + j);
            } else
                col = 1u << (off + j);
            m.col[off + j] = col;
        }
    }
    return m;
}

int64_t lw_shape_scratch(const IrOp *op) {
    const IrValue *s = op->args[0], *d = op->res[0];
    if (op->op == IR_SPLAT || !s->layout) return 0;
    LyMap m = lw_shape_map(op);
    return lw_remap_scratch(s->layout, d->layout, &m, (ScalarKind)s->ty.k);
}

int lw_shape_in_thread(const IrOp *op) {
    const IrValue *s = op->args[0], *d = op->res[0];
    if (op->op == IR_SPLAT || !s->layout) return 1;
    LyMap m = lw_shape_map(op);
    return lw_remap_way_of(s->layout, d->layout, &m) == LW_REMAP_THREAD;
}

void lw_shape_op(LwFn *f, const IrOp *op) {
    const IrValue *s = op->args[0], *d = op->res[0];
    LyMap m = lw_shape_map(op);
    const LyMap *proj = op->op == IR_SPLAT ? NULL : &m;
    if (op->op == IR_SPLAT || !s->layout) {
        LwVal out = lw_new_val(f, lw_nregs(d));
        for (int r = 0; r < out.n; r++) out.r[r] = lw_val(f, s)->r[0];
        lw_set(f, d, out);
        return;
    }
    lw_set(f, d, lw_remap(f, *lw_val(f, s), (ScalarKind)s->ty.k, s->layout,
                          d->layout, proj));
}
