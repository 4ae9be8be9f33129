/*
 * memory.c — loads, stores and atomics on global memory.
 *
 * Vectors. The layout pass says, per access, how many elements each thread
 * moves at once (ly_mem_vec: the pointer layout's run of consecutive
 * registers along the fastest dimension, bounded by the pointers'
 * contiguity and alignment, the mask's constancy and 16 bytes). Registers
 * then go in groups of that width: one `load <N x T>` / `store <N x T>`
 * with the group's alignment (N * sizeof T), which NVPTX emits as
 * ld.global.v2/v4 (or a wider scalar for small types). A group has one
 * mask bit (the mask is constant over it): a masked group is a branch
 * around the access, and a masked-off load yields `other` (or 0).
 *
 * Copies. Where a layout replicates elements (zero basis vectors: a
 * scalar is held by every thread, a broadcast tile by several lanes), only
 * the owner — the copy with the lowest register, lane and warp — stores or
 * performs an atomic, so that an `atomic_add` happens once per element.
 * The other copies receive an atomic's old value from the owner through
 * shared memory when the result is used.
 *
 * Atomics are acq_rel at GPU scope, as in Triton (its default
 * `sem="acq_rel"`), one per element. Loads and stores are plain
 * (weak, coherent) accesses; the cache and eviction hints of `load` are
 * accepted and not yet used by this back end, and no load uses the
 * non-coherent path (see kernel.c).
 */
#include "lower/lw.h"

/* i1 a && b where either may be NULL (true). */
static LLVMValueRef lw_and(LwFn *f, LLVMValueRef a, LLVMValueRef b) {
    if (!a) return b;
    if (!b) return a;
    return LLVMBuildAnd(f->c->b, a, b, "");
}

static LLVMValueRef lw_mem_val(LwFn *f, LLVMValueRef v, ScalarKind k) {
    return k == SK_BOOL ? LLVMBuildZExt(f->c->b, v, f->c->i8, "") : v;
}

static LLVMValueRef lw_reg_val(LwFn *f, LLVMValueRef v, ScalarKind k) {
    return k == SK_BOOL ? LLVMBuildICmp(f->c->b, LLVMIntNE, v,
                                        LLVMConstInt(f->c->i8, 0, 0), "")
                        : v;
}

/* Packs regs [g, g+vec) of x (memory form) into one value of type vt. */
static LLVMValueRef lw_pack(LwFn *f, LLVMTypeRef vt, int vec, LLVMValueRef *x) {
    if (vec == 1) return x[0];
    LLVMValueRef v = LLVMGetUndef(vt);
    for (int i = 0; i < vec; i++)
        v = LLVMBuildInsertElement(f->c->b, v, x[i], lw_i32(f->c, i), "");
    return v;
}

/* Runs `emit` under predicate p (NULL: unconditionally); returns the value
 * it produced, or `otherwise` when p is false (NULL: no value). */
typedef LLVMValueRef (*LwEmit)(LwFn *f, void *arg);
static LLVMValueRef lw_guarded(LwFn *f, LLVMValueRef p, LwEmit emit,
                               void *arg, LLVMValueRef otherwise) {
    LLVMBuilderRef b = f->c->b;
    if (!p) return emit(f, arg);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef then = lw_new_bb(f, "mem.then"), join = lw_new_bb(f, "mem.join");
    LLVMBuildCondBr(b, p, then, join);
    LLVMPositionBuilderAtEnd(b, then);
    LLVMValueRef v = emit(f, arg);
    LLVMBasicBlockRef end = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
    if (!otherwise) return NULL;
    LLVMValueRef phi = LLVMBuildPhi(b, LLVMTypeOf(otherwise), "");
    LLVMAddIncoming(phi, &v, &end, 1);
    LLVMAddIncoming(phi, &otherwise, &pre, 1);
    return phi;
}

typedef struct LwAccess {
    LLVMTypeRef t;             /* memory type of the access (maybe vector) */
    LLVMValueRef ptr, val, cmp;
    unsigned align;
    int kind;                  /* AtomicKind, or -1 for cas */
    ScalarKind k;
} LwAccess;

static LLVMValueRef lw_emit_load(LwFn *f, void *arg) {
    LwAccess *a = arg;
    LLVMValueRef v = LLVMBuildLoad2(f->c->b, a->t, a->ptr, "");
    LLVMSetAlignment(v, a->align);
    return v;
}

static LLVMValueRef lw_emit_store(LwFn *f, void *arg) {
    LwAccess *a = arg;
    LLVMValueRef s = LLVMBuildStore(f->c->b, a->val, a->ptr);
    LLVMSetAlignment(s, a->align);
    return NULL;
}

/* LLVM's "device" scope is PTX's .gpu (the default would be .sys). */
static unsigned lw_gpu_scope(LwFn *f) {
    return LLVMGetSyncScopeID(f->c->ctx, "device", 6);
}

static LLVMValueRef lw_emit_atomic(LwFn *f, void *arg) {
    LwAccess *a = arg;
    LLVMBuilderRef b = f->c->b;
    LLVMAtomicOrdering ord = LLVMAtomicOrderingAcquireRelease;
    if (a->kind < 0) {
        LLVMValueRef cmp = a->cmp, val = a->val;
        LLVMTypeRef it = LLVMIntTypeInContext(f->c->ctx, (unsigned)ty_bits(a->k));
        int fl = ty_isfloat(a->k);
        if (fl) {
            cmp = LLVMBuildBitCast(b, cmp, it, "");
            val = LLVMBuildBitCast(b, val, it, "");
        }
        LLVMValueRef x = LLVMBuildAtomicCmpXchgSyncScope(
            b, a->ptr, cmp, val, ord, LLVMAtomicOrderingAcquire,
            lw_gpu_scope(f));
        LLVMValueRef old = LLVMBuildExtractValue(b, x, 0, "");
        return fl ? LLVMBuildBitCast(b, old, a->t, "") : old;
    }
    int fl = ty_isfloat(a->k), sg = ty_issigned(a->k);
    LLVMAtomicRMWBinOp op;
    switch (a->kind) {
    case ATOM_ADD: op = fl ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd; break;
    case ATOM_MAX: op = fl ? LLVMAtomicRMWBinOpFMax : sg ? LLVMAtomicRMWBinOpMax
                                                         : LLVMAtomicRMWBinOpUMax; break;
    case ATOM_MIN: op = fl ? LLVMAtomicRMWBinOpFMin : sg ? LLVMAtomicRMWBinOpMin
                                                         : LLVMAtomicRMWBinOpUMin; break;
    default: op = LLVMAtomicRMWBinOpXchg; break;
    }
    return LLVMBuildAtomicRMWSyncScope(b, op, a->ptr, a->val, ord,
                                       lw_gpu_scope(f));
}

/* load ptr [, mask [, other]] */
static void lw_load(LwFn *f, const IrOp *op) {
    LwCtx *c = f->c;
    const IrValue *res = op->res[0], *pv = op->args[0];
    const Layout *l = pv->layout;
    ScalarKind k = (ScalarKind)res->ty.k;
    int has_mask = (op->iattr[0] & LOAD_MASK) != 0;
    int has_other = (op->iattr[0] & LOAD_OTHER) != 0;
    LwVal p = *lw_val(f, pv);
    LwVal m = has_mask ? lw_in_layout(f, op->args[1], l) : (LwVal){0, NULL};
    LwVal o = has_other ? lw_in_layout(f, op->args[has_mask ? 2 : 1], l)
                        : (LwVal){0, NULL};
    int vec = l ? ly_mem_vec(f->ly, op) : 1;
    if (vec < 1) vec = 1;
    LLVMTypeRef et = lw_mem_type(c, k);
    LLVMTypeRef vt = vec > 1 ? LLVMVectorType(et, (unsigned)vec) : et;
    LwVal out = lw_new_val(f, p.n);
    LwVal res_l = out;
    for (int g = 0; g < p.n; g += vec) {
        LwAccess a = {.t = vt, .ptr = p.r[g], .k = k,
                      .align = (unsigned)(vec * ty_bytes(k))};
        LLVMValueRef v;
        if (has_mask) {
            LLVMValueRef oth[16];
            for (int i = 0; i < vec; i++)
                oth[i] = has_other ? lw_mem_val(f, o.r[g + i], k)
                                   : LLVMConstNull(et);
            v = lw_guarded(f, m.r[g], lw_emit_load, &a, lw_pack(f, vt, vec, oth));
        } else {
            v = lw_emit_load(f, &a);
        }
        for (int i = 0; i < vec; i++) {
            LLVMValueRef e = vec == 1 ? v
                                      : LLVMBuildExtractElement(c->b, v, lw_i32(c, i), "");
            out.r[g + i] = lw_reg_val(f, e, k);
        }
    }
    /* the result may have been given another layout than the pointer */
    if (res->layout != l && !(res->layout && l && ly_eq(res->layout, l)))
        res_l = lw_remap(f, out, k, l, res->layout, NULL);
    lw_set(f, res, res_l);
}

/* store ptr, value [, mask] */
static void lw_store(LwFn *f, const IrOp *op) {
    LwCtx *c = f->c;
    const IrValue *pv = op->args[0];
    const Layout *l = pv->layout;
    ScalarKind k = (ScalarKind)op->args[1]->ty.k;
    LwVal p = *lw_val(f, pv);
    LwVal v = lw_in_layout(f, op->args[1], l);
    int has_mask = op->nargs > 2;
    LwVal m = has_mask ? lw_in_layout(f, op->args[2], l) : (LwVal){0, NULL};
    int vec = l ? ly_mem_vec(f->ly, op) : 1;
    if (vec < 1) vec = 1;
    LLVMTypeRef et = lw_mem_type(c, k);
    LLVMTypeRef vt = vec > 1 ? LLVMVectorType(et, (unsigned)vec) : et;
    for (int g = 0; g < p.n; g += vec) {
        int first;
        LLVMValueRef own = lw_owner(f, l, g, &first);
        if (!first) continue;
        LLVMValueRef x[16];
        for (int i = 0; i < vec; i++) x[i] = lw_mem_val(f, v.r[g + i], k);
        LwAccess a = {.t = vt, .ptr = p.r[g], .val = lw_pack(f, vt, vec, x),
                      .k = k, .align = (unsigned)(vec * ty_bytes(k))};
        lw_guarded(f, lw_and(f, has_mask ? m.r[g] : NULL, own), lw_emit_store,
                   &a, NULL);
    }
}

/* atomic ptr, value [, mask]; atomic_cas ptr, cmp, value */
static void lw_atomic(LwFn *f, const IrOp *op) {
    LwCtx *c = f->c;
    const IrValue *pv = op->args[0], *res = op->res[0];
    const Layout *l = pv->layout;
    int cas = op->op == IR_ATOMIC_CAS;
    ScalarKind k = (ScalarKind)res->ty.k;
    LwVal p = *lw_val(f, pv);
    LwVal v = lw_in_layout(f, op->args[cas ? 2 : 1], l);
    LwVal cmp = cas ? lw_in_layout(f, op->args[1], l) : (LwVal){0, NULL};
    int has_mask = !cas && op->nargs > 2;
    LwVal m = has_mask ? lw_in_layout(f, op->args[2], l) : (LwVal){0, NULL};
    LwVal old = lw_new_val(f, p.n);
    int replicated = 0;
    for (int r = 0; r < p.n; r++) {
        int first;
        LLVMValueRef own = lw_owner(f, l, r, &first);
        if (own) replicated = 1;
        if (!first) continue;
        LwAccess a = {.t = lw_type(c, k), .ptr = p.r[r], .val = v.r[r],
                      .cmp = cas ? cmp.r[r] : NULL, .k = k,
                      .kind = cas ? -1 : (int)op->iattr[0]};
        old.r[r] = lw_guarded(f, lw_and(f, has_mask ? m.r[r] : NULL, own),
                              lw_emit_atomic, &a, LLVMConstNull(a.t));
    }
    /* register copies take their canonical register's value */
    for (int r = 0; r < p.n; r++)
        if (!old.r[r]) {
            int base = r;
            for (int i = 0; l && i < l->nbits[LY_REG]; i++)
                if (!l->basis[LY_REG][i]) base &= ~(1 << i);
            old.r[r] = old.r[base];
        }
    if (replicated && f->uses[res->id]) {
        /* the owner's old values to every copy, through shared memory */
        LLVMTypeRef t = lw_type(c, k);
        int64_t numel = 1;
        for (int d = 0; l && d < l->rank; d++) numel *= l->shape[d];
        lw_smem(f, numel * ty_bytes(k));
        lw_barrier(f);
        for (int r = 0; r < p.n; r++) {
            int first;
            LLVMValueRef own = lw_owner(f, l, r, &first);
            if (!first) continue;
            LLVMValueRef at = l ? lw_packed_coord(f, l, r) : lw_i32(c, 0);
            LwAccess a = {.t = t, .val = old.r[r], .align = (unsigned)ty_bytes(k),
                          .ptr = LLVMBuildGEP2(c->b, t, f->smem, &at, 1, "")};
            lw_guarded(f, own, lw_emit_store, &a, NULL);
        }
        lw_barrier(f);
        for (int r = 0; r < p.n; r++) {
            LLVMValueRef at = l ? lw_packed_coord(f, l, r) : lw_i32(c, 0);
            old.r[r] = LLVMBuildLoad2(c->b, t, LLVMBuildGEP2(c->b, t, f->smem, &at, 1, ""), "");
        }
    }
    LwVal out = old;
    if (res->layout != l && !(res->layout && l && ly_eq(res->layout, l)))
        out = lw_remap(f, old, k, l, res->layout, NULL);
    lw_set(f, res, out);
}

int lw_memory(LwFn *f, const IrOp *op) {
    switch (op->op) {
    case IR_LOAD: lw_load(f, op); return 1;
    case IR_STORE: lw_store(f, op); return 1;
    case IR_ATOMIC: case IR_ATOMIC_CAS: lw_atomic(f, op); return 1;
    default: return 0;
    }
}
