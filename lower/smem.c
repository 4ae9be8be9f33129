/*
 * smem.c — tensor-core operands through swizzled shared memory and
 * ldmatrix.
 *
 * A `convert_layout` whose destination is an mma.sync operand layout
 * (#dot_op with an MMA parent) and whose data crosses lanes or warps is
 * lowered here instead of by the generic padded round trip of layout.c:
 *
 *   1. every thread stores its registers into a swizzled buffer
 *      (ly_smem_swizzled, rows along the source's contiguous dimension),
 *      as many consecutive elements per store as its layout holds in
 *      registers at consecutive offsets (run_bits), up to one 16-byte
 *      unit (st.shared.v4 for a coalesced 16-byte load);
 *   2. a barrier;
 *   3. ldmatrix.x4 (x2 or x1 when the operand has fewer registers) reads
 *      four 8 x 16-byte core matrices at a time straight into the
 *      operand's registers; `.trans` when the buffer's rows run along the
 *      operand's other dimension (B stored [K, N] row-major, or A stored
 *      column-major), which only exists for 16-bit elements: tf32 and i8
 *      operands stored that way are read register by register, in runs
 *      of consecutive offsets where the layout has them (tf32 after
 *      plan/mma.c's ly_mma_low: one ld.shared.v4 per 4 elements).
 *
 * Everything is a linear map, so no case analysis of the operand is
 * needed. The swizzle is a map from packed coordinates to element
 * offsets (LySmem.off); pushing a layout's basis vectors through it gives
 * a layout whose "coordinate" is the element's offset in the buffer, and
 * layout.c's lw_packed_coord then computes every address as a constant
 * XOR a per-thread part hoisted into the prologue. For the reads, lane l
 * of an ldmatrix supplies the address of row l % 8 of core matrix l / 8
 * (matrix j lands in the j-th 32-bit register of the group): the
 * operand's own bases say where that row starts — lane bits 2-4 walk the
 * core matrix's 8 rows (plain), or register bit 0 and lane bits 0-1 walk
 * its 8 K positions (.trans) — and the 32-bit register bits walk the
 * matrices. So the address layout (ly_ldmatrix_addr, plan/mma.c, where
 * tests/unit/test_mma.c simulates ldmatrix over it for every operand
 * case) takes its lane bases from the operand's, rearranged, and its
 * register bases from the operand's register bases above the group.
 *
 * An operand read from a cp.async ring whose only users are products
 * is not read here at once: lw_frag_operand returns its reads as an
 * LwFrag, which the product (dot.c) performs group by group, one K
 * sub-step ahead of its mma.sync (and a pipelined loop may carry the
 * first sub-step's results: pipeline.c).
 *
 * Addresses (lw_smem_addr): T(lane, warp) ^ R(r) with the bits of R(r)
 * that no lane or warp basis reaches added as a constant, so that LLVM
 * and ptxas fold them into an immediate offset: an operand's ldmatrix
 * reads (and the copies into a cp.async ring) use a few base registers,
 * not one address computation each.
 *
 * The same buffer serves conversions out of an MMA accumulator layout
 * (lw_acc_convert: the epilogue's store layout): vector stores of the
 * accumulator's register pairs, vector loads of the destination's runs.
 *
 * Why conflict-free: see docs/internals/mma.md (tests/unit/test_mma.c
 * counts the banks of every core matrix of these buffers).
 */
#include "lower/lw.h"

#include <stdint.h>
#include <string.h>

/* l with every basis vector pushed through the buffer's offset map. */
Layout *lw_offset_layout(Arena *ar, const Layout *l, const LySmem *s) {
    Layout *o = ar_alloc(ar, sizeof *o);
    *o = *l;
    o->kind = LY_LINEAR;
    for (int d = 0; d < LY_NIN; d++)
        for (int i = 0; i < o->nbits[d]; i++)
            o->basis[d][i] = ly_smem_offset(s, o->basis[d][i]);
    return o;
}

LLVMValueRef lw_smem_addr(LwFn *f, LLVMValueRef base, const Layout *ol, int r,
                          int esize) {
    LwCtx *c = f->c;
    uint32_t thread = 0, rp = lw_reg_part(ol, r);
    for (int d = LY_LANE; d <= LY_WARP; d++)
        for (int i = 0; i < ol->nbits[d]; i++) thread |= ol->basis[d][i];
    /* lw_packed_coord(ol, 0) is T: R(0) = 0 */
    LLVMValueRef t = LLVMBuildXor(c->b, lw_packed_coord(f, ol, 0),
                                  lw_i32(c, rp & thread), "");
    LLVMValueRef off = LLVMBuildMul(c->b, t, lw_i32(c, esize), "");
    LLVMValueRef at = LLVMBuildGEP2(c->b, c->i8, base, &off, 1, "");
    LLVMValueRef imm = lw_i32(c, (int64_t)(rp & ~thread) * esize);
    return LLVMBuildGEP2(c->b, c->i8, at, &imm, 1, "");
}

static LLVMValueRef smem_elt(LwFn *f, LLVMValueRef base, LLVMTypeRef t,
                             LLVMValueRef off) {
    return LLVMBuildGEP2(f->c->b, t, base, &off, 1, "");
}

/* The register bits of offset layout ol whose offsets are 1, 2, 4, ..
 * elements (into bits[], at most `most` elements: the buffer's 16-byte
 * unit, LySmem.vec), so many that no other basis vector reaches their
 * offset bits: a thread's registers over them are one aligned vector of
 * the buffer. */
static int run_bits(const Layout *ol, int most, int bits[4]) {
    int n = 0;
    while (n < 4 && (2 << n) <= most) {
        int found = -1;
        for (int i = 0; i < ol->nbits[LY_REG] && found < 0; i++)
            if (ol->basis[LY_REG][i] == 1u << n) found = i;
        if (found < 0) break;
        bits[n++] = found;
    }
    for (; n > 0; n--) {
        uint32_t low = (1u << n) - 1, clash = 0;
        for (int d = 0; d < LY_NIN; d++)
            for (int i = 0; i < ol->nbits[d]; i++) {
                int mine = 0;
                for (int j = 0; d == LY_REG && j < n; j++) mine |= bits[j] == i;
                if (!mine) clash |= ol->basis[d][i] & low;
            }
        if (!clash) break;
    }
    return n;
}

/* Register r with the run's bits set as element e of the run says. */
static int run_reg(int r, const int *bits, int nb, int e) {
    for (int j = 0; j < nb; j++)
        if (e >> j & 1) r |= 1 << bits[j];
    return r;
}

/* --------------------------------------------------------- pieces
 *
 * A conversion whose whole buffer does not fit beside a loop's rings
 * goes through it in pieces (plan/lowering.c fit_split, LyPlan.pieces):
 * piece q holds the elements whose offsets' top bits (`top`, a power of
 * two's worth) are q, at their offsets with those bits cleared, so the
 * buffer shrinks by the piece count. An offset is T(lane, warp) ^ R(r);
 * a register is in piece q where its R's top bits XOR the thread's T's
 * are q: a constant where no lane or warp basis reaches those bits (the
 * store layout's registers along M), else a test (the accumulator's
 * warpgroups along M: one branch per register group and piece). */
typedef struct Piece {
    uint32_t top;       /* the offset bits that number the pieces */
    uint32_t want;      /* this piece's value of them */
    Layout *within;     /* the offset layout with them cleared */
    LLVMValueRef mine;  /* i32: the thread's T & top; NULL: 0 */
} Piece;

/* Piece q of `pieces` of offset layout ol (over n elements). */
static Piece piece_of(LwFn *f, Layout *ol, int n, int pieces, int q) {
    Piece pc = {.top = (uint32_t)(n - n / pieces), .want = (uint32_t)(q * (n / pieces))};
    Layout *w = ar_alloc(f->c->ar, sizeof *w);
    *w = *ol;
    uint32_t thread = 0;
    for (int d = 0; d < LY_NIN; d++)
        for (int i = 0; i < w->nbits[d]; i++) {
            if (d != LY_REG) thread |= ol->basis[d][i];
            w->basis[d][i] &= ~pc.top;
        }
    pc.within = w;
    if (thread & pc.top)
        pc.mine = LLVMBuildAnd(f->c->b, lw_packed_coord(f, ol, 0), lw_i32(f->c, pc.top), "");
    return pc;
}

/* R(r)'s bits of the piece's number. */
static uint32_t reg_top(const Layout *ol, int r, uint32_t top) {
    return lw_reg_part(ol, r) & top;
}

/* i1: the registers whose R has bits `rt` of the piece's number are in
 * it for this thread; NULL: in it for every thread (no test needed). A
 * constant false where they are in it for none. */
static LLVMValueRef in_piece(LwFn *f, const Piece *pc, uint32_t rt) {
    if (!pc->mine) return rt == pc->want ? NULL : LLVMConstInt(f->c->i1, 0, 0);
    return LLVMBuildICmp(f->c->b, LLVMIntEQ, pc->mine, lw_i32(f->c, pc->want ^ rt), "");
}

/* Step 1: the registers of src (all, or piece pc's) into the buffer at
 * `base`, vectors of up to 16 bytes: the registers whose offsets are
 * consecutive (run_bits; consecutive registers for blocked layouts,
 * every fourth for an accumulator whose N ly_mma_low permuted). Register
 * copies are stored once; lane and warp copies store equal values. */
static void store_smem(LwFn *f, LLVMValueRef base, LwVal src, ScalarKind k,
                       const Layout *sl, const LySmem *s, const Piece *pc) {
    LwCtx *c = f->c;
    LLVMTypeRef t = lw_mem_type(c, k);
    Layout *ol = lw_offset_layout(c->ar, sl, s);
    int bits[4], nb = run_bits(ol, s->vec, bits), w = 1 << nb;
    uint32_t skip = 0;
    for (int i = 0; i < sl->nbits[LY_REG]; i++)
        if (!sl->basis[LY_REG][i]) skip |= 1u << i;
    for (int j = 0; j < nb; j++) skip |= 1u << bits[j];
    uint32_t groups = pc ? pc->top : 0, rt = 0;   /* one pass per value of R's piece bits */
    do {
        LLVMValueRef cond = pc ? in_piece(f, pc, rt) : NULL;
        LLVMBasicBlockRef join = NULL;
        if (cond && !lw_never(cond)) join = lw_only_if(f, cond, "piece", "piece.join");
        for (int r = 0; r < src.n && !(cond && lw_never(cond)); r++) {
            if ((uint32_t)r & skip || (pc && reg_top(ol, r, pc->top) != rt)) continue;
            LLVMValueRef at = lw_smem_addr(f, base, pc ? pc->within : ol, r, ty_bytes(k));
            LLVMValueRef v = src.r[r];
            if (w > 1) {
                v = LLVMGetUndef(LLVMVectorType(t, (unsigned)w));
                for (int e = 0; e < w; e++)
                    v = LLVMBuildInsertElement(c->b, v, src.r[run_reg(r, bits, nb, e)],
                                               lw_i32(c, e), "");
            }
            LLVMValueRef st = LLVMBuildStore(c->b, v, at);
            LLVMSetAlignment(st, (unsigned)(w * ty_bytes(k)));
        }
        if (join) lw_join(f, join);
        rt = (rt - groups) & groups;   /* the next subset of groups; 0 after the last */
    } while (rt);
}

void lw_store_smem(LwFn *f, LLVMValueRef base, LwVal src, ScalarKind k,
                   const Layout *sl, const LySmem *s) {
    store_smem(f, base, src, k, sl, s, NULL);
}

/* Step 3: ldmatrix into the operand's registers, one x4 (x2, x1) group
 * at a time, so that a product can interleave the reads of its next K
 * sub-step with the mma.sync of the current one (dot.c). */
struct LwFrag {
    LLVMValueRef base;
    const Layout *dl;
    Layout *al;         /* ldmatrix address layout */
    LLVMTypeRef vt;     /* one 32-bit register's elements */
    char name[64];
    int n, kw, esize, kdim;
    char *done;         /* by group: read */
    LLVMValueRef *raw;  /* the 32-bit registers ldmatrix wrote (NULL:
                           not read yet), n per group */
    LwVal out;          /* registers of groups not read yet: NULL */
};

/* The largest ldmatrix group (matrices per instruction, up to 4 and
 * up to the operand's 32-bit registers); with `split`, none whose
 * registers lie in two K sub-steps of the product (the register bases
 * below the group's are linear, so group 0 says it for all). */
static int group_size(const Layout *dl, int split) {
    int kw = dl->kwidth, n32 = ly_size(dl, LY_REG) / kw, kdim = dl->op_idx == 0 ? 1 : 0;
    int n = n32 >= 4 ? 4 : n32 >= 2 ? 2 : 1;
    for (int r = 0; split && n > 1 && r < n * kw; r++) {
        int32_t co[2];
        ly_coord(dl, (LyIndex){(uint32_t)r, 0, 0}, co);
        if (co[kdim] >= dl->parent->mma_k) {
            n /= 2;
            r = -1;
        }
    }
    return n;
}

static LwFrag *frag_new(LwFn *f, LLVMValueRef base, ScalarKind k, const Layout *dl,
                        int trans, const LySmem *s, int split) {
    LwCtx *c = f->c;
    LwFrag *z = ar_alloc(c->ar, sizeof *z);
    LLVMTypeRef t = lw_mem_type(c, k);
    int kw = dl->kwidth, nd = ly_size(dl, LY_REG), n32 = nd / kw;
    int n = group_size(dl, split);
    *z = (LwFrag){.base = base, .dl = dl, .al = ly_ldmatrix_addr(c->ar, dl, n, trans, s),
                  .vt = kw > 1 ? LLVMVectorType(t, (unsigned)kw) : t, .n = n, .kw = kw,
                  .esize = ty_bytes(k), .kdim = dl->op_idx == 0 ? 1 : 0,
                  .out = lw_new_val(f, nd)};
    z->done = ar_alloc(c->ar, (size_t)(n32 / n));
    memset(z->done, 0, (size_t)(n32 / n));
    z->raw = ar_alloc(c->ar, sizeof(LLVMValueRef) * (size_t)n32);
    memset(z->raw, 0, sizeof(LLVMValueRef) * (size_t)n32);
    memset(z->out.r, 0, sizeof(LLVMValueRef) * (size_t)nd);
    snprintf(z->name, sizeof z->name, "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x%d%s.b16",
             n, trans ? ".trans" : "");
    return z;
}

/* Group g's registers from its raw 32-bit ones. */
static void frag_unpack(LwFn *f, LwFrag *z, int g) {
    LwCtx *c = f->c;
    z->done[g] = 1;
    for (int j = 0; j < z->n; j++) {
        LLVMValueRef v = LLVMBuildBitCast(c->b, z->raw[g * z->n + j], z->vt, "");
        for (int e = 0; e < z->kw; e++) {
            LLVMValueRef x = z->kw > 1 ? LLVMBuildExtractElement(c->b, v, lw_i32(c, e), "") : v;
            z->out.r[(g * z->n + j) * z->kw + e] = x;
        }
    }
}

static void frag_group(LwFn *f, LwFrag *z, int g) {
    LwCtx *c = f->c;
    if (z->done[g]) return;
    LLVMValueRef at = lw_smem_addr(f, z->base, z->al, g, z->esize);
    LLVMValueRef m = lw_call_intr(c, z->name, &c->sptr, 1, &at, 1);
    for (int j = 0; j < z->n; j++)
        z->raw[g * z->n + j] = z->n > 1 ? LLVMBuildExtractValue(c->b, m, (unsigned)j, "") : m;
    frag_unpack(f, z, g);
}

int lw_frag_nraw(const LwFrag *z) { return z->out.n / z->kw; }

LLVMValueRef *lw_frag_raw(LwFrag *z) { return z->raw; }

void lw_frag_set_raw(LwFn *f, LwFrag *z, LLVMValueRef *raw) {
    for (int g = 0; g * z->n < lw_frag_nraw(z); g++) {
        int all = 1;
        for (int j = 0; j < z->n; j++) all &= raw[g * z->n + j] != NULL;
        if (!all || z->done[g]) continue;
        memcpy(z->raw + g * z->n, raw + g * z->n, sizeof(LLVMValueRef) * (size_t)z->n);
        frag_unpack(f, z, g);
    }
}

void lw_frag_load(LwFn *f, LwFrag *z, int32_t k0, int32_t k1) {
    int per = z->n * z->kw;
    for (int g = 0; g * per < z->out.n; g++)
        for (int r = g * per; r < (g + 1) * per && !z->done[g]; r++) {
            int32_t co[2];
            ly_coord(z->dl, (LyIndex){(uint32_t)r, 0, 0}, co);
            if (co[z->kdim] >= k0 && co[z->kdim] < k1) frag_group(f, z, g);
        }
}

LwVal lw_frag_val(const LwFrag *z) { return z->out; }

static LwVal load_ldmatrix(LwFn *f, LLVMValueRef base, ScalarKind k,
                           const Layout *dl, int trans, const LySmem *s) {
    LwFrag *z = frag_new(f, base, k, dl, trans, s, 0);
    lw_frag_load(f, z, INT32_MIN, INT32_MAX);
    return z->out;
}

LwFrag *lw_frag_operand(LwFn *f, LLVMValueRef base, ScalarKind k,
                        const Layout *dl, const LySmem *s, int split) {
    int trans;
    if (!ly_ldmatrix_ok(dl, ty_bytes(k), s->fast, s, &trans)) return NULL;
    return frag_new(f, base, k, dl, trans, s, split);
}

LwVal lw_read_operand(LwFn *f, LLVMValueRef base, ScalarKind k,
                      const Layout *dl, const LySmem *s) {
    int trans;
    if (ly_ldmatrix_ok(dl, ty_bytes(k), s->fast, s, &trans))
        return load_ldmatrix(f, base, k, dl, trans, s);
    /* runs of registers at consecutive offsets (an operand of a product
     * whose layout ly_mma_low permuted: 16 bytes), else element by
     * element, at each register's swizzled offset */
    LwCtx *c = f->c;
    LLVMTypeRef t = lw_mem_type(c, k);
    Layout *ol = lw_offset_layout(c->ar, dl, s);
    LwVal out = lw_new_val(f, ly_size(dl, LY_REG));
    int bits[4], nb = run_bits(ol, s->vec, bits), w = 1 << nb;
    uint32_t in_run = 0;
    for (int j = 0; j < nb; j++) in_run |= 1u << bits[j];
    for (int r = 0; r < out.n; r++) {
        if ((uint32_t)r & in_run) continue;
        if (w == 1) {
            out.r[r] = LLVMBuildLoad2(c->b, t, smem_elt(f, base, t, lw_packed_coord(f, ol, r)), "");
            continue;
        }
        LLVMTypeRef vt = LLVMVectorType(t, (unsigned)w);
        LLVMValueRef v = LLVMBuildLoad2(c->b, vt, lw_smem_addr(f, base, ol, r, ty_bytes(k)), "");
        LLVMSetAlignment(v, (unsigned)(w * ty_bytes(k)));
        for (int e = 0; e < w; e++)
            out.r[run_reg(r, bits, nb, e)] = LLVMBuildExtractElement(c->b, v, lw_i32(c, e), "");
    }
    return out;
}

/* Step 3 for a layout that is not an operand: vectors of up to 16 bytes
 * along the buffer's rows, as many consecutive elements as the layout
 * holds in consecutive registers. */
static void load_swizzled(LwFn *f, ScalarKind k, const Layout *dl, const LySmem *s,
                          int pieces, int q, LwVal *out) {
    LwCtx *c = f->c;
    LLVMTypeRef t = lw_mem_type(c, k);
    Layout *ol = lw_offset_layout(c->ar, dl, s);
    Piece pc = {0};
    if (pieces > 1) pc = piece_of(f, ol, s->shape[0] * s->shape[1], pieces, q);
    int w = ly_vec_width(dl, s->fast), esize = ty_bytes(k);
    if (w > s->vec) w = s->vec;
    /* a vector needs its first element at a multiple of w: no other
     * basis may reach the offset's low bits */
    for (int d = 0; d < LY_NIN; d++)
        for (int i = d == LY_REG ? ly_log2(w) : 0; i < ol->nbits[d]; i++)
            if (ol->basis[d][i] & (uint32_t)(w - 1)) w = 1;
    LLVMTypeRef vt = w > 1 ? LLVMVectorType(t, (unsigned)w) : t;
    for (int r = 0; r < out->n; r += w) {
        /* in pieces: this piece's registers, or (a test) every register's
         * element of this piece's offset, kept where it is this piece's */
        LLVMValueRef in = pieces > 1 ? in_piece(f, &pc, reg_top(ol, r, pc.top)) : NULL;
        if (in && lw_never(in)) continue;
        LLVMValueRef at = lw_smem_addr(f, f->smem, pieces > 1 ? pc.within : ol, r, esize);
        LLVMValueRef v = LLVMBuildLoad2(c->b, vt, at, "");
        LLVMSetAlignment(v, (unsigned)(w * esize));
        for (int i = 0; i < w; i++) {
            LLVMValueRef x = w > 1 ? LLVMBuildExtractElement(c->b, v, lw_i32(c, i), "") : v;
            out->r[r + i] = in && out->r[r + i] ? LLVMBuildSelect(c->b, in, x, out->r[r + i], "")
                                                : x;
        }
    }
}

/* A conversion out of an MMA accumulator layout (the epilogue's store
 * layout, or a reduction's) through the swizzled buffer instead of the
 * generic padded round trip (layout.c), which moves one element per
 * st.shared/ld.shared: here each thread stores the accumulator's pairs
 * (n+1 in registers: 2 elements, st.shared.b32 for f16) and reads the
 * destination's vectors (16 bytes for a blocked store layout). The
 * swizzle keeps both sides free of bank conflicts: the 8 rows a warp's
 * stores touch at one 16-byte unit land in 8 distinct units, and 8 lanes
 * reading 16 consecutive bytes each of one row read 8 distinct units. */
void lw_acc_convert(LwFn *f, const IrOp *op) {
    const IrValue *sv = op->args[0], *dv = op->res[0];
    ScalarKind k = (ScalarKind)sv->ty.k;
    const LySmem *s = f->plan->smem[dv->id];
    int pieces = f->plan->pieces[dv->id] > 1 ? f->plan->pieces[dv->id] : 1;
    LwVal out = lw_new_val(f, ly_size(dv->layout, LY_REG));
    lw_smem(f, ly_smem_bytes(s) / pieces);
    for (int q = 0; q < pieces; q++) {
        if (q) lw_barrier(f);   /* the piece before read */
        else lw_scratch_barrier(f);
        Piece pc = {0};
        if (pieces > 1)
            pc = piece_of(f, lw_offset_layout(f->c->ar, sv->layout, s),
                          s->shape[0] * s->shape[1], pieces, q);
        store_smem(f, f->smem, *lw_val(f, sv), k, sv->layout, s, pieces > 1 ? &pc : NULL);
        lw_barrier(f);
        load_swizzled(f, k, dv->layout, s, pieces, q, &out);
    }
    lw_set(f, dv, out);
}

void lw_dot_operand(LwFn *f, const IrOp *op) {
    const IrValue *sv = op->args[0], *dv = op->res[0];
    ScalarKind k = (ScalarKind)sv->ty.k;
    const LySmem *s = f->plan->smem[dv->id];
    int trans;
    ly_ldmatrix_ok(dv->layout, ty_bytes(k), s->fast, s, &trans);
    lw_smem(f, ly_smem_bytes(s));
    lw_scratch_barrier(f);
    lw_store_smem(f, f->smem, *lw_val(f, sv), k, sv->layout, s);
    lw_barrier(f);
    lw_set(f, dv, load_ldmatrix(f, f->smem, k, dv->layout, trans, s));
}
