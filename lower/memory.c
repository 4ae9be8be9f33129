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
 * mask bit (the mask is constant over it). A masked load is a branch
 * around the access (a masked-off load yields `other`, or 0: the language
 * leaves that element unspecified, and the interpreter poisons it).
 *
 * Realigned accesses (plan/realign.c rotated their tile so that groups
 * start aligned whatever the row's offset): each group of 16 bytes of
 * positions goes one of up to four ways, chosen by warp votes so that
 * the branches are uniform: nothing where no lane has a mask bit set
 * (skip), one vector access where every lane's group is aligned, free of
 * the rotation's wrap and wholly unmasked (lw_group_fits), else one
 * access per element under its own mask bit, at the first element's
 * address plus offsets (near) or, in the group holding the wrap, twice
 * under complementary predicates, from the first element's address and
 * from the tile's extent before it (far; lw_group, lw_split, lw_far).
 *
 * Masked stores. A store of a 16-byte group under a predicate (its mask,
 * and/or being the owner of a replicated element) in code no loop
 * precedes is one inline-asm `@p st.global`, as in Triton, not a branch
 * around an LLVM store: with the branch, LLVM sinks the stored value's
 * computation into it and ptxas then needs more registers around the
 * branches (layernorm f16 8192, 8 warps, aligned: 79 registers with
 * branches, 62 predicated; bias_gelu bf16 4096: 58 and 32). Narrower
 * groups and stores after a loop keep the branch (lw_store_predicated
 * says why). The predicate goes through the `b` constraint
 * (a .pred register); the group is written as the same words loads
 * read (lw_words: .b8/.b16 from 16-bit registers, .b32/.v2/.v4 of 32-bit
 * words, .b64/.v2.b64 for 8-byte elements). The asm has side effects and
 * clobbers memory, so LLVM keeps it in order with every other access. A
 * store under no predicate stays an LLVM store (LLVM folds its address
 * offsets into the instruction, `[%rd+2048]`, which the asm's register
 * address cannot have).
 *
 * Copies. Where a layout replicates elements (zero basis vectors: a
 * scalar is held by every thread, a broadcast tile by several lanes), only
 * the owner — the copy with the lowest register, lane and warp — stores or
 * performs an atomic, so that an `atomic_add` happens once per element.
 * The other copies receive an atomic's old value from the owner through
 * shared memory when the result is used.
 *
 * Atomics are acq_rel at GPU scope, as in Triton (its default
 * `sem="acq_rel"`), one per element. Stores are plain (weak) accesses.
 *
 * Loads. A load with neither a hint nor the non-coherent path is an LLVM
 * `load`. Otherwise it is one inline-asm `ld.global` per group, marked
 * as only reading memory (LLVM keeps it before any later store and may
 * drop it when unused), with its qualifiers in the order PTX requires:
 *
 *   ld.global[.ca|.cg|.cs|.cv][.nc][.L1::evict_first|last][.L2::cache_hint]
 *
 * `cache=` is the cache operator; `evict="first"|"last"` is, as in
 * Triton, both an L1 eviction priority and an L2 one given through a
 * `createpolicy.fractional.L2::evict_*` cache policy (ld takes
 * `.L2::evict_*` itself only for 256-bit accesses). PTX forbids an L1
 * priority beside a cache operator, so with both the eviction applies to
 * L2 only; `.cv` forbids `.nc`. Groups are the same as for plain loads:
 * 32-bit words (`.v2`/`.v4.b32`), 64-bit ones for 8-byte elements, one
 * 8- or 16-bit access for a smaller group.
 *
 * Non-coherent loads (`ld.global.nc`, the read-only data path). PTX lets
 * the hardware and ptxas assume that what such a load reads stays
 * unwritten while the kernel runs (ptxas may move it, or repeat it rather
 * than keep its value in a register). The kernel cannot know which
 * buffers its caller passes: one buffer may be passed as two parameters
 * (in place: vadd(x, x, y)). So a load goes non-coherent only when
 *   (1) no store or atomic of its program can have executed before it:
 *       it comes, in program order, before the first write and before
 *       any loop holding that write (whose later iterations follow it);
 *   (2) every parameter its pointer may derive from is one the kernel
 *       never stores or atomically updates through (sema's
 *       IrParam.stored);
 *   (3) nothing after that point uses its value or anything computed
 *       from it, except the first write itself (when not in a loop); and
 *   (4) it has no `cache="cv"`.
 * (2) makes PTX's requirement literally true whenever the caller passes
 * distinct buffers. (1) and (3) keep the result right when it does not:
 * every use of the loaded value is over before the program writes
 * anything, so moving or repeating the load within that window reads what
 * the first read did; writes of other programs are unordered with it
 * (programs synchronize only through atomics, and no load after an atomic
 * is non-coherent), so a coherent load could as well return the old
 * value. What remains is the first store itself, which consumes the
 * values group by group: were ptxas to repeat a load for a later group
 * after an earlier group's store, it would see that store only if one
 * thread both wrote an element (in one group) and read it (for another)
 * in a buffer passed twice — an in-place permutation within a thread's
 * registers. The lowering assumes ptxas does not move a load below a
 * store whose value does not depend on it.
 * vadd, bias_gelu, softmax and transpose load only so; a load in a loop
 * that stores, after a store, or whose value outlives the first store
 * (layernorm's passes, cross_entropy's row statistics) stays coherent.
 */
#include "lower/lw.h"

#include <limits.h>
#include <string.h>

/* i1 a && b where either may be NULL (true). */
static LLVMValueRef lw_and(LwFn *f, LLVMValueRef a, LLVMValueRef b) {
    if (!a) return b;
    if (!b) return a;
    return LLVMBuildAnd(f->c->b, a, b, "");
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
    LLVMBasicBlockRef join = lw_only_if(f, p, "mem.then", "mem.join");
    LLVMValueRef v = emit(f, arg);
    LLVMBasicBlockRef end = LLVMGetInsertBlock(b);
    lw_join(f, join);
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
    int vec;                   /* elements (loads, predicated stores) */
    const char *quals;         /* loads: ld.global qualifiers, or NULL for
                                  a plain LLVM load */
    LLVMValueRef policy;       /* loads: L2 cache policy (i64), or NULL */
} LwAccess;

/* The L2 policy of evict="first"/"last" (a register ld reads). */
static LLVMValueRef lw_l2_policy(LwFn *f, int evict) {
    const char *text = evict == EVICT_FIRST
                           ? "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;"
                           : "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;";
    return lw_asm(f->c, f->c->i64, text, "=l", NULL, 0, LW_ASM_NONE);
}

/* How an inline-asm ld/st.global moves a group of vec elements of kind
 * k: nw words of w bits (w = min(group bits, max(32, element bits))),
 * per elements each, in registers of type wt (8-bit words in 16-bit
 * registers: PTX has no 8-bit ones) with constraint letter cons. */
typedef struct LwWords {
    int w, nw, per;
    LLVMTypeRef wt;
    char cons;
} LwWords;

static LwWords lw_words(LwCtx *c, ScalarKind k, int vec) {
    int eb = 8 * ty_bytes(k), total = eb * vec;
    LwWords x = {.w = total < 32 ? total : eb > 32 ? eb : 32};
    x.nw = total / x.w;
    x.per = x.w / eb;
    x.wt = LLVMIntTypeInContext(c->ctx, (unsigned)(x.w < 16 ? 16 : x.w));
    x.cons = x.w <= 16 ? 'h' : x.w == 32 ? 'r' : 'l';
    return x;
}

/* The access type of words x: ".vN.bW" (or ".bW"). */
static void lw_words_type(Buf *text, LwWords x) {
    if (x.nw > 1) buf_printf(text, ".v%d", x.nw);
    buf_printf(text, ".b%d", x.w);
}

/* The operands of words x from $first: "{$i, ...}" (or "$i"). */
static void lw_words_ops(Buf *text, LwWords x, int first) {
    if (x.nw > 1) buf_puts(text, "{");
    for (int i = 0; i < x.nw; i++) buf_printf(text, "%s$%d", i ? ", " : "", first + i);
    if (x.nw > 1) buf_puts(text, "}");
}

/* The text of one ld.global of words x with a->quals: under predicate
 * operand $pred (pred < 0: none), its words from $0, its address $addr,
 * a->policy (if any) $policy. Every inline-asm load is written here, so
 * that its qualifiers and policy operand are the same in all ways. */
static void lw_load_text(Buf *text, const LwAccess *a, LwWords x, int pred, int addr,
                         int policy) {
    if (pred >= 0) buf_printf(text, "@$%d ", pred);
    buf_printf(text, "ld.global%s", a->quals ? a->quals : "");
    lw_words_type(text, x);
    buf_puts(text, " ");
    lw_words_ops(text, x, 0);
    buf_printf(text, ", [$%d]", addr);
    if (a->policy) buf_printf(text, ", $%d", policy);
    buf_puts(text, ";");
}

/* One ld.global with a->quals, its words reassembled into a value of
 * type a->t. */
static LLVMValueRef lw_emit_load_asm(LwFn *f, LwAccess *a) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LwWords x = lw_words(c, a->k, a->vec);
    Buf text = {0}, cons = {0};
    lw_load_text(&text, a, x, -1, x.nw, x.nw + 1);
    for (int i = 0; i < x.nw; i++) buf_printf(&cons, "=%c,", x.cons);
    buf_puts(&cons, a->policy ? "l,l" : "l");
    LLVMTypeRef words[4] = {x.wt, x.wt, x.wt, x.wt};
    LLVMTypeRef rt = x.nw > 1 ? LLVMStructTypeInContext(c->ctx, words, (unsigned)x.nw, 0) : x.wt;
    LLVMValueRef args[2] = {LLVMBuildPtrToInt(b, a->ptr, c->i64, ""), a->policy};
    LLVMValueRef r = lw_asm(c, rt, text.s, cons.s, args, a->policy ? 2 : 1, LW_ASM_READS);
    buf_free(&text);
    buf_free(&cons);
    LLVMTypeRef et = a->vec > 1 ? LLVMGetElementType(a->t) : a->t;
    LLVMValueRef v = a->vec > 1 ? LLVMGetUndef(a->t) : NULL;
    for (int i = 0; i < x.nw; i++) {
        LLVMValueRef e = x.nw > 1 ? LLVMBuildExtractValue(b, r, (unsigned)i, "") : r;
        if (x.w == 8) e = LLVMBuildTrunc(b, e, c->i8, "");
        e = LLVMBuildBitCast(b, e, x.per > 1 ? LLVMVectorType(et, (unsigned)x.per) : et, "");
        if (a->vec == 1) return e;
        for (int j = 0; j < x.per; j++) {
            LLVMValueRef y = x.per > 1 ? LLVMBuildExtractElement(b, e, lw_i32(c, j), "") : e;
            v = LLVMBuildInsertElement(b, v, y, lw_i32(c, i * x.per + j), "");
        }
    }
    return v;
}

/* One `@p st.global` of a->val under the i1 predicate p: the words of
 * the value (lw_words, as lw_emit_load_asm reads them), p through the
 * `b` (predicate register) constraint. */
static void lw_emit_store_pred(LwFn *f, LwAccess *a, LLVMValueRef p) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LwWords x = lw_words(c, a->k, a->vec);
    Buf text = {0}, cons = {0};
    buf_puts(&text, "@$0 st.global");
    lw_words_type(&text, x);
    buf_puts(&text, " [$1], ");
    lw_words_ops(&text, x, 2);
    buf_puts(&text, ";");
    buf_puts(&cons, "b,l");
    for (int i = 0; i < x.nw; i++) buf_printf(&cons, ",%c", x.cons);
    buf_puts(&cons, ",~{memory}");
    LLVMValueRef args[6] = {p, LLVMBuildPtrToInt(b, a->ptr, c->i64, "")};
    LLVMValueRef words = x.nw > 1
        ? LLVMBuildBitCast(b, a->val, LLVMVectorType(x.wt, (unsigned)x.nw), "")
        : LLVMBuildBitCast(b, a->val, LLVMIntTypeInContext(c->ctx, (unsigned)x.w), "");
    for (int i = 0; i < x.nw; i++) {
        LLVMValueRef e = x.nw > 1 ? LLVMBuildExtractElement(b, words, lw_i32(c, i), "") : words;
        args[2 + i] = x.w == 8 ? LLVMBuildZExt(b, e, x.wt, "") : e;
    }
    lw_asm(c, c->vd, text.s, cons.s, args, 2 + x.nw, LW_ASM_WRITES);
    buf_free(&text);
    buf_free(&cons);
}

/* One element load under predicate p: `@p ld.global` (lw_load_text),
 * the register keeping `otherwise` (memory form) where p is false. No
 * branch, so the element ways of a realigned group stay one block (fewer
 * registers than a branch around each load, in ptxas's allocation). */
static LLVMValueRef lw_emit_load_pred(LwFn *f, LwAccess *a, LLVMValueRef p,
                                      LLVMValueRef otherwise) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LwWords x = lw_words(c, a->k, 1);
    Buf text = {0}, cons = {0};
    lw_load_text(&text, a, x, 1, 2, 4);
    buf_printf(&cons, "=%c,b,l,0%s", x.cons, a->policy ? ",l" : "");
    LLVMValueRef o = LLVMBuildBitCast(b, otherwise, LLVMIntTypeInContext(c->ctx, (unsigned)x.w), "");
    if (x.w == 8) o = LLVMBuildZExt(b, o, x.wt, "");
    LLVMValueRef args[4] = {p, LLVMBuildPtrToInt(b, a->ptr, c->i64, ""), o, a->policy};
    LLVMValueRef r = lw_asm(c, x.wt, text.s, cons.s, args, a->policy ? 4 : 3, LW_ASM_READS);
    buf_free(&text);
    buf_free(&cons);
    if (x.w == 8) r = LLVMBuildTrunc(b, r, c->i8, "");
    return LLVMBuildBitCast(b, r, a->t, "");
}

static LLVMValueRef lw_emit_load(LwFn *f, void *arg) {
    LwAccess *a = arg;
    if (a->quals) return lw_emit_load_asm(f, a);
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

/* ----------------------------------------------- non-coherent loads */

/* The value region r of `own` passes on as its i-th result or carried
 * value (its yield's, or its condition's after the flag), or NULL. */
static const IrValue *lw_region_out(const IrOp *own, int r, int i) {
    const IrOp *last = r < own->nregions ? own->regions[r]->last : NULL;
    if (!last || (last->op != IR_YIELD && last->op != IR_CONDITION)) return NULL;
    int off = last->op == IR_CONDITION;
    return i >= 0 && i + off < last->nargs ? last->args[i + off] : NULL;
}

static int lw_unstored(const IrKernel *k, const IrValue *p, uint8_t *seen);

/* lw_unstored of a value that may be missing (NULL: unknown, so 0). */
static int lw_unstored1(const IrKernel *k, const IrValue *v, uint8_t *seen) {
    return v && lw_unstored(k, v, seen);
}

static int lw_unstored2(const IrKernel *k, const IrValue *a, const IrValue *b,
                        uint8_t *seen) {
    return lw_unstored1(k, a, seen) && lw_unstored1(k, b, seen);
}

/* Does pointer p derive only from parameters the kernel never stores
 * through? (0 when it may come from anything else.) */
static int lw_unstored(const IrKernel *k, const IrValue *p, uint8_t *seen) {
    if (seen[p->id]) return 1;   /* a cycle: the other paths decide */
    seen[p->id] = 1;
    int i = p->index;
    if (!p->def) {               /* a block argument */
        const IrOp *own = p->block->parent;
        if (p->block == k->body) return !k->params[i].stored;
        if (!own) return 0;
        if (own->op == IR_FOR)   /* args: iv, carried... */
            return i >= 1 && 3 + i - 1 < own->nargs &&
                   lw_unstored2(k, own->args[3 + i - 1], lw_region_out(own, 0, i - 1), seen);
        if (own->op == IR_WHILE && p->block == own->regions[0])
            return i < own->nargs &&
                   lw_unstored2(k, own->args[i], lw_region_out(own, 1, i), seen);
        if (own->op == IR_WHILE) return lw_unstored1(k, lw_region_out(own, 0, i), seen);
        return 0;
    }
    const IrOp *op = p->def;
    switch (op->op) {
    case IR_PTRADD: case IR_SPLAT: case IR_BROADCAST: case IR_EXPAND_DIMS:
    case IR_RESHAPE: case IR_PERMUTE: case IR_MULTIPLE_OF: case IR_MAX_CONTIG:
    case IR_CONVERT_LAYOUT:
        return lw_unstored(k, op->args[0], seen);
    case IR_SELECT: return lw_unstored2(k, op->args[1], op->args[2], seen);
    case IR_FOR:
        return 3 + i < op->nargs &&
               lw_unstored2(k, op->args[3 + i], lw_region_out(op, 0, i), seen);
    case IR_IF: return lw_unstored2(k, lw_region_out(op, 0, i), lw_region_out(op, 1, i), seen);
    case IR_WHILE: return lw_unstored1(k, lw_region_out(op, 0, i), seen);
    default: return 0;
    }
}

static int lw_is_write(const IrOp *op) {
    return op->op == IR_STORE || op->op == IR_ATOMIC || op->op == IR_ATOMIC_CAS;
}

/* The analysis. Ops are numbered in program order (pre-order, regions in
 * order); from `cut` on, a write of the program may have executed: the
 * first write, or the outermost loop holding it (later iterations follow
 * its first execution). */
typedef struct LwNc {
    const IrKernel *k;
    uint8_t *seen;             /* by value id: lw_unstored's visited set */
    uint8_t *taint;            /* by value id: derived from the load judged */
    int cut;                   /* INT_MAX: the kernel never writes */
    const IrOp *first;         /* the first write, if not in a loop (it may
                                  consume loaded values) */
} LwNc;

static void lw_nc_cut(LwNc *a, const IrBlock *b, int *pos, int loop) {
    for (const IrOp *op = b->first; op; op = op->next) {
        int p = (*pos)++;
        if (a->cut == INT_MAX && lw_is_write(op)) {
            a->cut = loop >= 0 ? loop : p;
            a->first = loop >= 0 ? NULL : op;
        }
        int inner = loop < 0 && (op->op == IR_FOR || op->op == IR_WHILE) ? p : loop;
        for (int r = 0; r < op->nregions; r++) lw_nc_cut(a, op->regions[r], pos, inner);
    }
}

static int lw_tainted_arg(const LwNc *a, const IrOp *op) {
    for (int i = 0; i < op->nargs; i++)
        if (a->taint[op->args[i]->id]) return 1;
    return 0;
}

/* Spreads a->taint through b; returns whether an op of b used a tainted
 * value. A region op using one anywhere taints all its results and block
 * arguments (then its regions are walked again for what those reach). */
static int lw_taint(LwNc *a, const IrBlock *b) {
    int any = 0;
    for (const IrOp *op = b->first; op; op = op->next) {
        int t = lw_tainted_arg(a, op);
        for (int r = 0; r < op->nregions; r++) t |= lw_taint(a, op->regions[r]);
        if (t && op->nregions) {
            for (int r = 0; r < op->nregions; r++)
                for (int i = 0; i < op->regions[r]->nargs; i++)
                    a->taint[op->regions[r]->args[i]->id] = 1;
            for (int r = 0; r < op->nregions; r++) lw_taint(a, op->regions[r]);
        }
        for (int i = 0; t && i < op->nres; i++) a->taint[op->res[i]->id] = 1;
        any |= t;
    }
    return any;
}

/* Does an op from the cut on (but the first write itself) use a tainted
 * value? */
static int lw_used_late(const LwNc *a, const IrBlock *b, int *pos) {
    for (const IrOp *op = b->first; op; op = op->next) {
        int p = (*pos)++;
        if (p >= a->cut && op != a->first && lw_tainted_arg(a, op)) return 1;
        for (int r = 0; r < op->nregions; r++)
            if (lw_used_late(a, op->regions[r], pos)) return 1;
    }
    return 0;
}

/* Does b reduce or scan a tainted tile of rank >= 2 along one axis, so
 * that each thread may hold several independent rows? ptxas moves
 * non-coherent loads freely, and there it finishes one row (its loads,
 * reduction and store) before it loads the next: the loads of softmax
 * over [64, 128] tiles spread over the kernel instead of issuing
 * together (H200: 25.6 us non-coherent, 19.4 us coherent, where every
 * load is issued before the first store). Such loads stay coherent. */
static int lw_rows_reduced(const LwNc *a, const IrBlock *b) {
    for (const IrOp *op = b->first; op; op = op->next) {
        if ((op->op == IR_REDUCE || op->op == IR_SCAN) && op->args[0]->ty.rank >= 2 &&
            a->taint[op->args[0]->id] && op->res[0]->ty.rank >= 1)
            return 1;
        for (int r = 0; r < op->nregions; r++)
            if (lw_rows_reduced(a, op->regions[r])) return 1;
    }
    return 0;
}

/* Judges each load of b (see the top); *pos numbers the ops. */
static void lw_nc_judge(LwFn *f, LwNc *a, const IrBlock *b, int *pos) {
    size_t n = (size_t)f->k->nvalues + 1;
    for (const IrOp *op = b->first; op; op = op->next) {
        int p = (*pos)++;
        if (op->op == IR_LOAD && p < a->cut && op->iattr[1] != CACHE_CV) {
            memset(a->seen, 0, n);
            memset(a->taint, 0, n);
            a->taint[op->res[0]->id] = 1;
            int late = 0;
            lw_taint(a, a->k->body);
            f->nc[op->res[0]->id] = lw_unstored(a->k, op->args[0], a->seen) &&
                                    !lw_used_late(a, a->k->body, &late) &&
                                    !lw_rows_reduced(a, a->k->body);
        }
        for (int r = 0; r < op->nregions; r++) lw_nc_judge(f, a, op->regions[r], pos);
    }
}

/* The qualifiers of a load after `ld.global` (see the top), or NULL for a
 * plain load. */
static const char *lw_load_quals(LwFn *f, const IrOp *op) {
    if (!f->nc) {
        size_t n = (size_t)f->k->nvalues + 1;
        LwNc a = {.k = f->k, .seen = ar_alloc(f->c->ar, n),
                  .taint = ar_alloc(f->c->ar, n), .cut = INT_MAX};
        int pos = 0;
        f->nc = ar_alloc(f->c->ar, n);
        memset(f->nc, 0, n);
        lw_nc_cut(&a, f->k->body, &pos, -1);
        pos = 0;
        lw_nc_judge(f, &a, f->k->body, &pos);
    }
    static const char *const cops[] = {"", ".ca", ".cg", ".cs", ".cv"};
    static const char *const l1[] = {"", ".L1::evict_first", ".L1::evict_last"};
    int cache = (int)op->iattr[1], evict = (int)op->iattr[2];
    int nc = f->nc[op->res[0]->id];
    if (!cache && !evict && !nc) return NULL;
    return ar_printf(f->c->ar, "%s%s%s%s", cops[cache], nc ? ".nc" : "",
                     cache ? "" : l1[evict], evict ? ".L2::cache_hint" : "");
}

/* ---------------------------------------------- realigned accesses */

/* Group g (registers [g, g + vec)) of a realigned access r through layout
 * l. Its first position is q0 = thread coordinate + k (lw_reg_const);
 * the rotation by s < smax (plan/realign.c) wraps inside it when q0 < s <
 * q0 + vec, which only a group with k < smax can: such a group is tested
 * (wrap), and its elements' addresses in the far way are the first one's
 * plus i, or i - B past the wrap (B the tile's extent: the pass checked
 * that the pointers were consecutive before the rotation). A group that
 * cannot wrap has its first address at the thread's first such group's
 * plus the difference of their constants: one base register with
 * immediate offsets for all, where LLVM, given each address, kept one
 * register per group (softmax f32 8192, 8 warps: 89 registers, 2
 * programs per SM instead of 3, 1.5x the time). */
typedef struct LwGroup {
    LLVMValueRef first;
    LLVMValueRef q0, s;        /* where it may wrap; else NULL */
    LLVMValueRef inside;       /* i1: the wrap is inside it (NULL: cannot) */
    int n;                     /* the tile's extent */
} LwGroup;

static LwGroup lw_group(LwFn *f, const LyRealigned *r, const Layout *l, LLVMTypeRef et,
                        const LwVal *p, int g, int vec) {
    LLVMBuilderRef b = f->c->b;
    uint32_t k, kref = 0;
    LwGroup x = {p->r[g], NULL, NULL, NULL, l->shape[0]};
    if (lw_reg_const(l, g, &k) && k >= (uint32_t)r->smax) {
        int ref = 0;
        for (; ref < g; ref += vec)
            if (lw_reg_const(l, ref, &kref) && kref >= (uint32_t)r->smax) break;
        if (ref == g) return x;
        LLVMValueRef at = lw_i32(f->c, (int64_t)k - (int64_t)kref);
        x.first = LLVMBuildGEP2(b, et, p->r[ref], &at, 1, "");
        return x;
    }
    if (!lw_reg_const(l, g, &k)) k = 0, x.q0 = lw_coord(f, l, g, 0);
    else x.q0 = LLVMBuildNUWAdd(b, lw_thread_coord(f, l), lw_i32(f->c, k), "");
    x.s = lw_val(f, r->shift)->r[0];
    x.inside = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntULT, x.q0, x.s, ""),
                            LLVMBuildICmp(b, LLVMIntULT, x.s,
                                          LLVMBuildNUWAdd(b, x.q0, lw_i32(f->c, vec), ""), ""), "");
    return x;
}

/* The run-time test of group [g, g + vec) of a realigned access (see the
 * top): its first address a multiple of the group's bytes, no wrap inside
 * it, every mask bit set (m->r NULL: no mask). */
static LLVMValueRef lw_group_fits(LwFn *f, const LwVal *m, int g, int vec, int esize, LwGroup gr) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LLVMValueRef a0 = LLVMBuildPtrToInt(b, gr.first, c->i64, "");
    LLVMValueRef low = LLVMBuildAnd(b, a0, LLVMConstInt(c->i64, (unsigned long long)(vec * esize - 1), 0), "");
    LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntEQ, low, LLVMConstInt(c->i64, 0, 0), "");
    if (gr.inside) ok = LLVMBuildAnd(b, ok, LLVMBuildNot(b, gr.inside, ""), "");
    for (int i = 0; m->r && i < vec; i++) ok = LLVMBuildAnd(b, ok, m->r[g + i], "");
    return ok;
}

/* The group width of a realigned access op through layout l (0: not
 * realigned, or its layout does not give each thread whole groups of
 * its own, or is not 1-D), and its record in *r. */
static int lw_realigned_vec(LwFn *f, const IrOp *op, const Layout *l, const LyRealigned **r) {
    *r = l ? ly_realigned(&f->ly->realign, op) : NULL;
    int vec = *r ? (*r)->vec : 0;
    if (vec < 2 || l->rank != 1 || ly_vec_width(l, 0) < vec) return 0;
    for (int in = LY_LANE; in <= LY_WARP; in++)
        for (int i = 0; i < l->nbits[in]; i++)
            if (!l->basis[in][i]) return 0;
    return vec;
}

/* A realigned group's ways: one vector access (fits), elements at the
 * first one's address plus their offsets (near: consecutive), where the
 * rotation wraps inside the group (wrap: NULL where it cannot) at their
 * own addresses (far), and nothing where no lane of the warp has a mask
 * bit set (skip: the padding of a row shorter than the block; `any` NULL
 * without a mask). Each test is a warp vote, so the branches are uniform
 * but for far and near. lw_split branches and leaves the builder in the
 * vector way; lw_split_next moves to the next way that exists, keeping
 * where the previous one ended. */
enum { LW_VEC, LW_NEAR, LW_FAR, LW_SKIP, LW_WAYS };

typedef struct LwSplit {
    LLVMBasicBlockRef way[LW_WAYS], end[LW_WAYS], join;
} LwSplit;

static LLVMValueRef lw_vote(LwFn *f, const char *kind, LLVMValueRef p) {
    LLVMValueRef args[2] = {LLVMConstInt(f->c->i32, 0xffffffffu, 0), p};
    return lw_call_intr(f->c, kind, NULL, 0, args, 2);
}

static LwSplit lw_split(LwFn *f, LLVMValueRef fits, LLVMValueRef wrap, LLVMValueRef any) {
    LLVMBuilderRef b = f->c->b;
    LwSplit s = {{lw_new_bb(f, "mem.vec"), lw_new_bb(f, "mem.near"),
                  wrap ? lw_new_bb(f, "mem.far") : NULL, any ? lw_new_bb(f, "mem.skip") : NULL},
                 {NULL}, lw_new_bb(f, "mem.done")};
    if (any) {   /* padding first: nothing to test there */
        LLVMBasicBlockRef some = lw_new_bb(f, "mem.some");
        LLVMBuildCondBr(b, lw_vote(f, "llvm.nvvm.vote.any.sync", any), some, s.way[LW_SKIP]);
        LLVMPositionBuilderAtEnd(b, some);
    }
    LLVMBasicBlockRef elem = lw_new_bb(f, "mem.elem");
    LLVMBuildCondBr(b, lw_vote(f, "llvm.nvvm.vote.all.sync", fits), s.way[LW_VEC], elem);
    LLVMPositionBuilderAtEnd(b, elem);
    if (wrap) LLVMBuildCondBr(b, wrap, s.way[LW_FAR], s.way[LW_NEAR]);
    else LLVMBuildBr(b, s.way[LW_NEAR]);
    LLVMPositionBuilderAtEnd(b, s.way[LW_VEC]);
    return s;
}

static void lw_split_next(LwFn *f, LwSplit *s, int way) {
    s->end[way] = LLVMGetInsertBlock(f->c->b);
    LLVMBuildBr(f->c->b, s->join);
    int next = way + 1;
    while (next < LW_WAYS && !s->way[next]) next++;
    LLVMPositionBuilderAtEnd(f->c->b, next < LW_WAYS ? s->way[next] : s->join);
}

/* Some mask bit of group g is set (NULL without a mask). */
static LLVMValueRef lw_group_any(LwFn *f, const LwVal *m, int g, int vec) {
    LLVMValueRef any = NULL;
    for (int i = 0; m->r && i < vec; i++)
        any = any ? LLVMBuildOr(f->c->b, any, m->r[g + i], "") : m->r[g + i];
    return any;
}

/* The far way (the group holding the wrap): element i lies at first + i
 * before the wrap and at first + i - B past it. Each element is accessed
 * twice under complementary predicates, from `first` and from `first -
 * B` with the same immediate offset: two base registers, where one
 * address an element (first plus a selected offset) took ptxas a
 * register pair each. The tests `q0 + i >= s` read q0 and s through
 * opaque copies made in the far way's block: given q0 and s themselves,
 * LLVM merged them with the rotated arange's `p >= s` at the top of the
 * kernel (the masks' indices), and ptxas kept those predicates live from
 * there to the row's last store. A rotated f16 row over 8 warps (BLOCK
 * 4096, no weights) took 59 registers with the far way as one address an
 * element, 32 without a far way. */
typedef struct LwFar {
    LLVMValueRef wrapped;      /* first - B */
    LLVMValueRef q0, s;        /* opaque copies */
} LwFar;

static LwFar lw_far(LwFn *f, LLVMTypeRef et, LwGroup gr) {
    LLVMValueRef back = lw_i32(f->c, -(int64_t)gr.n);
    return (LwFar){LLVMBuildGEP2(f->c->b, et, gr.first, &back, 1, ""),
                   lw_opaque32(f->c, gr.q0, NULL), lw_opaque32(f->c, gr.s, NULL)};
}

/* i1: element i of the far way lies past the wrap. */
static LLVMValueRef lw_far_past(LwFn *f, const LwFar *w, int i) {
    LLVMBuilderRef b = f->c->b;
    return LLVMBuildICmp(b, LLVMIntUGE, LLVMBuildNUWAdd(b, w->q0, lw_i32(f->c, i), ""), w->s, "");
}

/* mask AND (past or not past): the far way's predicate of one of an
 * element's two accesses (m NULL: no mask). */
static LLVMValueRef lw_far_pred(LwFn *f, LLVMValueRef m, LLVMValueRef past, int want_past) {
    LLVMBuilderRef b = f->c->b;
    LLVMValueRef p = want_past ? past : LLVMBuildNot(b, past, "");
    return m ? LLVMBuildAnd(b, m, p, "") : p;
}

/* Element i's address in way LW_NEAR of group gr; in the far way, from
 * base (gr.first or LwFar.wrapped). */
static LLVMValueRef lw_way_ptr(LwFn *f, LLVMTypeRef et, LLVMValueRef base, int i) {
    if (i == 0) return base;
    LLVMValueRef at = lw_i32(f->c, i);
    return LLVMBuildGEP2(f->c->b, et, base, &at, 1, "");
}

/* Masks of realigned accesses, packed. A group's ways test each of its
 * mask bits, and a store after a row's reductions tests the bits a load
 * before them tested: kept as i1 values across the reductions' barriers,
 * they took ptxas a register each. So a tile that is a realigned access's
 * mask, in the access's layout, is packed where it is defined, 32 bits a
 * word (lw_set calls lw_pack_mask for every value), and each access reads
 * its bits from its own opaque copy of the words (lw_unpacked_mask: an asm
 * mov that LLVM can neither merge with another access's copy nor see
 * through), so that one register per 32 bits stays live between them.
 *
 * lw_masks_to_pack, once per kernel: f->maskw by IrValue id, for each
 * such mask an array of its words, NULL until packed (f->maskw NULL: the
 * plan realigned nothing). */
void lw_masks_to_pack(LwFn *f) {
    const LyRealign *r = &f->ly->realign;
    if (!r->n) return;
    f->maskw = ar_alloc(f->c->ar, sizeof *f->maskw * (size_t)(f->k->nvalues + 1));
    memset(f->maskw, 0, sizeof *f->maskw * (size_t)(f->k->nvalues + 1));
    for (int i = 0; i < r->n; i++) {
        const IrOp *op = r->v[i].op;
        int a = ir_access_mask(op);
        const IrValue *mv = a >= 0 ? op->args[a] : NULL;
        if (!mv || !mv->layout || mv->ty.k != SK_BOOL || f->maskw[mv->id] ||
            !op->args[0]->layout || !ly_eq(mv->layout, op->args[0]->layout))
            continue;
        size_t nw = (size_t)(lw_nregs(mv) + 31) / 32;
        f->maskw[mv->id] = ar_alloc(f->c->ar, sizeof **f->maskw * nw);
        memset(f->maskw[mv->id], 0, sizeof **f->maskw * nw);
    }
}

void lw_pack_mask(LwFn *f, const IrValue *v, LwVal x) {
    LLVMValueRef *w = f->maskw[v->id];
    if (!w || w[0] || x.n < 2 || !x.r || x.n != lw_nregs(v)) return;
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    for (int j = 0; 32 * j < x.n; j++) {
        w[j] = lw_i32(c, 0);
        for (int i = 32 * j; i < x.n && i < 32 * j + 32; i++)
            w[j] = LLVMBuildOr(b, w[j], LLVMBuildShl(b, LLVMBuildZExt(b, x.r[i], c->i32, ""),
                                                     lw_i32(c, i - 32 * j), ""), "");
    }
}

/* m, mask mv of a realigned access through layout l, read from the words
 * lw_pack_mask packed (m itself where it packed none, or where mv has
 * another layout than l, whose registers the words do not follow). */
static LwVal lw_unpacked_mask(LwFn *f, const IrValue *mv, const Layout *l, LwVal m) {
    LLVMValueRef *w = f->maskw && m.r ? f->maskw[mv->id] : NULL;
    if (!w || !w[0] || !mv->layout || !ly_eq(mv->layout, l)) return m;
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LwVal u = lw_new_val(f, m.n);
    for (int j = 0; 32 * j < m.n; j++) {
        char note[24];
        snprintf(note, sizeof note, "mask %d", f->pins++);
        LLVMValueRef y = lw_opaque32(c, w[j], note);
        for (int i = 32 * j; i < m.n && i < 32 * j + 32; i++)
            u.r[i] = LLVMBuildICmp(b, LLVMIntNE,
                                   LLVMBuildAnd(b, y, lw_i32(c, (int64_t)1 << (i - 32 * j)), ""),
                                   lw_i32(c, 0), "");
    }
    return u;
}

/* Loads group g of a realigned load; its elements' memory forms in mem. */
/* Register r of a load's `other` in memory form (o: its registers, NULL
 * r: zero). */
static LLVMValueRef lw_other(LwFn *f, const LwVal *o, int r, ScalarKind k) {
    return o->r ? lw_to_mem(f, o->r[r], k) : LLVMConstNull(lw_mem_type(f->c, k));
}

/* One element of access `proto` at `at`, under predicate `pred` (NULL:
 * none), `oth` where it is off: the element ways of realigned and
 * shifted loads. */
static LLVMValueRef lw_elem_load(LwFn *f, const LwAccess *proto, LLVMValueRef at,
                                 LLVMValueRef pred, LLVMValueRef oth) {
    LwAccess e = *proto;
    e.t = lw_mem_type(f->c, proto->k);
    e.ptr = at;
    e.vec = 1;
    e.align = (unsigned)ty_bytes(proto->k);
    return pred ? lw_emit_load_pred(f, &e, pred, oth) : lw_emit_load(f, &e);
}

static void lw_load_realigned(LwFn *f, LwAccess proto, const LyRealigned *r, const Layout *l,
                              const LwVal *p, const LwVal *m, const LwVal *o, int g, int vec,
                              LLVMValueRef *mem) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LLVMTypeRef et = lw_mem_type(c, proto.k);
    int esize = ty_bytes(proto.k);
    LwGroup gr = lw_group(f, r, l, et, p, g, vec);
    LLVMTypeRef vt = LLVMVectorType(et, (unsigned)vec), wt = LLVMVectorType(c->i32, 4);
    LLVMValueRef got[LW_WAYS];
    LLVMValueRef fits = lw_group_fits(f, m, g, vec, esize, gr);
    LwSplit s = lw_split(f, fits, gr.inside, lw_group_any(f, m, g, vec));
    LwAccess a = proto;
    a.t = vt;
    a.ptr = gr.first;
    a.vec = vec;
    a.align = (unsigned)(vec * esize);
    got[LW_VEC] = LLVMBuildBitCast(b, lw_emit_load(f, &a), wt, "");
    lw_split_next(f, &s, LW_VEC);
    for (int way = LW_NEAR; way < LW_WAYS; way++) {
        if (!s.way[way]) continue;
        LLVMValueRef x = LLVMGetUndef(vt);
        LwFar w = way == LW_FAR ? lw_far(f, et, gr) : (LwFar){NULL, NULL, NULL};
        for (int i = 0; i < vec; i++) {
            LLVMValueRef oth = lw_other(f, o, g + i, proto.k), mi = m->r ? m->r[g + i] : NULL;
            LLVMValueRef y = oth;
            if (way == LW_NEAR || (way == LW_FAR && i == 0)) {
                y = lw_elem_load(f, &proto, lw_way_ptr(f, et, gr.first, i), mi, oth);
            } else if (way == LW_FAR) {   /* the wrapped access's `other`: the first's */
                LLVMValueRef past = lw_far_past(f, &w, i);
                y = lw_elem_load(f, &proto, lw_way_ptr(f, et, gr.first, i),
                                 lw_far_pred(f, mi, past, 0), oth);
                y = lw_elem_load(f, &proto, lw_way_ptr(f, et, w.wrapped, i),
                                 lw_far_pred(f, mi, past, 1), y);
            }
            x = LLVMBuildInsertElement(b, x, y, lw_i32(c, i), "");
        }
        got[way] = LLVMBuildBitCast(b, x, wt, "");
        lw_split_next(f, &s, way);
    }
    /* One phi of the group's 16 bytes as four words: with a phi per
     * element, ptxas gave each 16-bit element a register of its own, where
     * the words take one per two (examples/layernorm.tile f16, BLOCK 4096,
     * 8 warps, generic: 128 registers -> 104; two realigned f16 loads of 4
     * groups in a loop 128 -> 102); on an H100 the example ran 4-8% faster
     * at odd row lengths (docs/PERF.md, session 31). */
    LLVMValueRef words = LLVMBuildPhi(b, wt, "");
    for (int way = 0; way < LW_WAYS; way++)
        if (s.way[way]) LLVMAddIncoming(words, &got[way], &s.end[way], 1);
    LLVMValueRef v = LLVMBuildBitCast(b, words, vt, "");
    for (int i = 0; i < vec; i++) mem[i] = LLVMBuildExtractElement(b, v, lw_i32(c, i), "");
}

/* Shifted loads (plan ly_shift_run: a product's operand of 16-bit
 * elements laid out 16 bytes of consecutive elements a thread, their
 * alignment unknown: the generic variant of a product over rows of odd
 * length). Element by element, a thread's group took eight 2-byte loads.
 * A group whose mask bits are all set (whole) is read instead as the four
 * 4-byte words from its first element's word (2 bytes before the group
 * where it starts at 2 mod 4: inside the allocation, which starts
 * aligned) and its last element alone where it is past them (nothing past
 * the group is read: compute-sanitizer reports reads past an allocation
 * even inside its last word, docs/PERF.md session 25), joined by funnel
 * shifts of 0 or 16 bits (one prmt a word): five loads instead of eight.
 * On an H100 the ragged f16
 * cubes ran 1.17-1.20x faster with the autotuner's best tile (some tiles
 * slower: more registers). Reading the aligned 16-byte chunks around a
 * group instead (the next lane's chunk through shuffles, the word offset
 * chosen by selects, exact reads at a row's end) took one load a group
 * but some 100 instructions, 2.4x slower; two 8-byte words and the last
 * 2-6 bytes were level with this (docs/PERF.md, session 32). Where a
 * lane's group is not whole the whole access goes element by element
 * (lw_load_shifted). */
typedef struct LwShift {
    LLVMValueRef pred[16];   /* each element's mask and padding (NULL: true) */
    LLVMValueRef u[5];       /* the words */
    LLVMValueRef bits;       /* the shift: 8 x (first address & 3) */
} LwShift;

/* Group x's reads from `first`: words u[0..3] from its first element's
 * word, u[4] its last element where that is past them. */
static void lw_shift_reads(LwFn *f, LwAccess proto, LLVMValueRef first, LwShift *x) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    /* the address's low word through a copy the DAG cannot see through:
     * given only its two low bits to keep, the DAG narrowed the address
     * arithmetic to 16 bits (mul.lo.s16), which lower/narrow.c keeps out
     * of the PTX (generated programs 32123, 32265) */
    LLVMValueRef lo = LLVMBuildTrunc(b, LLVMBuildPtrToInt(b, first, c->i64, ""), c->i32, "");
    lo = lw_opaque32(c, lo, NULL);
    LLVMValueRef db = LLVMBuildAnd(b, lo, lw_i32(c, 3), "");
    LLVMValueRef back = LLVMBuildNeg(b, db, "");
    LLVMValueRef word = LLVMBuildGEP2(b, c->i8, first, &back, 1, "");
    x->bits = LLVMBuildShl(b, db, lw_i32(c, 3), "");
    /* the last element is in word 3 where db is 0, else the first half
     * of word 4: all five from one address with immediate offsets */
    LLVMValueRef shifted = LLVMBuildICmp(b, LLVMIntNE, db, lw_i32(c, 0), "");
    for (int i = 0; i < 5; i++) {
        LwAccess e = proto;
        LLVMValueRef at = lw_i32(c, 4 * i);
        e.k = i < 4 ? SK_I32 : SK_I16;
        e.t = i < 4 ? c->i32 : c->i16;
        e.ptr = LLVMBuildGEP2(b, c->i8, word, &at, 1, "");
        e.vec = 1;
        e.align = i < 4 ? 4 : 2;
        x->u[i] = i < 4 ? lw_emit_load(f, &e) : lw_emit_load_pred(f, &e, shifted, LLVMConstNull(e.t));
    }
    x->u[4] = LLVMBuildZExt(b, x->u[4], c->i32, "");
}

/* The group's 16 bytes as four words (undefined where not whole). */
static LLVMValueRef lw_shift_join(LwFn *f, const LwShift *x) {
    LwCtx *c = f->c;
    LLVMTypeRef i32 = c->i32;
    LLVMValueRef out = LLVMGetUndef(LLVMVectorType(i32, 4));
    for (int j = 0; j < 4; j++) {
        LLVMValueRef args[3] = {x->u[j + 1], x->u[j], x->bits};
        out = LLVMBuildInsertElement(c->b, out, lw_call_intr(c, "llvm.fshr", &i32, 1, args, 3),
                                     lw_i32(c, j), "");
    }
    return out;
}

/* Shifted load op (groups of run elements, 16 bytes) into out (memory
 * forms, then lw_from_mem): where every group of every lane of the warp
 * is whole, the shift way for all of them (no predicate), else the
 * element way for all — two branches, so that ptxas allocates registers
 * for the larger of the two ways rather than for both. */
static void lw_load_shifted(LwFn *f, LwAccess proto, const IrOp *op, const Layout *l,
                            const LwVal *p, const LwVal *m, const LwVal *o, int run,
                            LwVal *out) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LLVMTypeRef et = lw_mem_type(c, proto.k), wt = LLVMVectorType(c->i32, 4);
    LLVMTypeRef vt = LLVMVectorType(et, (unsigned)run);
    int ng = p->n / run;
    LwShift *x = ar_alloc(c->ar, sizeof *x * (size_t)ng);
    LLVMValueRef *words = ar_alloc(c->ar, sizeof *words * (size_t)ng);
    LLVMValueRef all = LLVMConstInt(c->i1, 1, 0);
    int masked = 0;
    for (int gi = 0; gi < ng; gi++)
        for (int i = 0; i < run; i++) {
            x[gi].pred[i] = lw_pad_and(f, op->args[0], l, gi * run + i,
                                       m->r ? m->r[gi * run + i] : NULL);
            if (x[gi].pred[i]) all = LLVMBuildAnd(b, all, x[gi].pred[i], ""), masked = 1;
        }
    LLVMBasicBlockRef shift = lw_new_bb(f, "mem.shift"), elem = NULL, join = NULL;
    if (masked) {
        elem = lw_new_bb(f, "mem.elem"), join = lw_new_bb(f, "mem.join");
        LLVMBuildCondBr(b, lw_vote(f, "llvm.nvvm.vote.all.sync", all), shift, elem);
    } else {
        LLVMBuildBr(b, shift);
    }
    LLVMPositionBuilderAtEnd(b, shift);
    for (int gi = 0; gi < ng; gi++) lw_shift_reads(f, proto, p->r[gi * run], &x[gi]);
    for (int gi = 0; gi < ng; gi++) words[gi] = lw_shift_join(f, &x[gi]);
    if (masked) {
        LLVMBasicBlockRef shift_end = LLVMGetInsertBlock(b);
        LLVMBuildBr(b, join);
        LLVMPositionBuilderAtEnd(b, elem);
        LLVMValueRef *ew = ar_alloc(c->ar, sizeof *ew * (size_t)ng);
        for (int gi = 0; gi < ng; gi++) {
            LLVMValueRef v = LLVMGetUndef(vt);
            for (int i = 0; i < run; i++) {
                LLVMValueRef at = lw_i32(c, i);   /* consecutive: from the first */
                at = LLVMBuildGEP2(b, et, p->r[gi * run], &at, 1, "");
                LLVMValueRef oth = lw_other(f, o, gi * run + i, proto.k);
                LLVMValueRef pr = x[gi].pred[i];
                LLVMValueRef y = lw_never(pr) ? oth : lw_elem_load(f, &proto, at, pr, oth);
                v = LLVMBuildInsertElement(b, v, y, lw_i32(c, i), "");
            }
            ew[gi] = LLVMBuildBitCast(b, v, wt, "");
        }
        LLVMBasicBlockRef elem_end = LLVMGetInsertBlock(b);
        LLVMBuildBr(b, join);
        LLVMPositionBuilderAtEnd(b, join);
        for (int gi = 0; gi < ng; gi++) {
            LLVMValueRef phi = LLVMBuildPhi(b, wt, "");
            LLVMAddIncoming(phi, &words[gi], &shift_end, 1);
            LLVMAddIncoming(phi, &ew[gi], &elem_end, 1);
            words[gi] = phi;
        }
    }
    for (int gi = 0; gi < ng; gi++) {
        LLVMValueRef v = LLVMBuildBitCast(b, words[gi], vt, "");
        for (int i = 0; i < run; i++)
            out->r[gi * run + i] = lw_from_mem(f, LLVMBuildExtractElement(b, v, lw_i32(c, i), ""), proto.k);
    }
}

/* Stores group g of a realigned store of x (memory forms). */
static void lw_store_realigned(LwFn *f, ScalarKind k, const LyRealigned *r, const Layout *l,
                               const LwVal *p, const LwVal *m, int g, int vec, LLVMValueRef *x) {
    LwCtx *c = f->c;
    LLVMTypeRef et = lw_mem_type(c, k), vt = LLVMVectorType(et, (unsigned)vec);
    int esize = ty_bytes(k);
    LwGroup gr = lw_group(f, r, l, et, p, g, vec);
    LLVMValueRef fits = lw_group_fits(f, m, g, vec, esize, gr);
    LwSplit s = lw_split(f, fits, gr.inside, lw_group_any(f, m, g, vec));
    LwAccess a = {.t = vt, .ptr = gr.first, .val = lw_pack(f, vt, vec, x), .k = k,
                  .vec = vec, .align = (unsigned)(vec * esize)};
    lw_emit_store(f, &a);
    lw_split_next(f, &s, LW_VEC);
    for (int way = LW_NEAR; way < LW_WAYS; way++) {
        if (!s.way[way]) continue;
        LwFar w = way == LW_FAR ? lw_far(f, et, gr) : (LwFar){NULL, NULL, NULL};
        for (int i = 0; way != LW_SKIP && i < vec; i++) {
            LLVMValueRef mi = m->r ? m->r[g + i] : NULL;
            LwAccess e = {.t = et, .ptr = lw_way_ptr(f, et, gr.first, i), .val = x[i], .k = k,
                          .vec = 1, .align = (unsigned)esize};
            if (way == LW_FAR && i > 0) {
                LLVMValueRef past = lw_far_past(f, &w, i);
                lw_guarded(f, lw_far_pred(f, mi, past, 0), lw_emit_store, &e, NULL);
                e.ptr = lw_way_ptr(f, et, w.wrapped, i);
                lw_guarded(f, lw_far_pred(f, mi, past, 1), lw_emit_store, &e, NULL);
            } else if (mi) {
                lw_guarded(f, mi, lw_emit_store, &e, NULL);
            } else {
                lw_emit_store(f, &e);
            }
        }
        lw_split_next(f, &s, way);
    }
}

/* load ptr [, mask [, other]] */
void lw_load(LwFn *f, const IrOp *op) {
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
    const char *quals = lw_load_quals(f, op);
    LLVMValueRef policy = op->iattr[2] ? lw_l2_policy(f, (int)op->iattr[2]) : NULL;
    const LyRealigned *ra;
    int wide = lw_realigned_vec(f, op, l, &ra);
    if (wide > vec && has_mask) m = lw_unpacked_mask(f, op->args[1], l, m);
    for (int g = 0; wide > vec && g < p.n; g += wide) {
        LwAccess proto = {.k = k, .quals = quals, .policy = policy};
        LLVMValueRef mem[16];
        lw_load_realigned(f, proto, ra, l, &p, &m, &o, g, wide, mem);
        for (int i = 0; i < wide; i++) out.r[g + i] = lw_from_mem(f, mem[i], k);
    }
    int shift = wide ? 0 : ly_shift_run(f->ly, op);
    if (shift > vec) {
        LwAccess proto = {.k = k, .quals = quals, .policy = policy};
        lw_load_shifted(f, proto, op, l, &p, &m, &o, shift, &out);
    }
    for (int g = 0; wide <= vec && shift <= vec && g < p.n; g += vec) {
        LwAccess a = {.t = vt, .ptr = p.r[g], .k = k, .vec = vec,
                      .align = (unsigned)(vec * ty_bytes(k)),
                      .quals = quals, .policy = policy};
        LLVMValueRef v;
        LLVMValueRef pred = lw_pad_and(f, pv, l, g, has_mask ? m.r[g] : NULL);
        if (pred) {
            LLVMValueRef oth[16];
            for (int i = 0; i < vec; i++)
                oth[i] = has_other ? lw_to_mem(f, o.r[g + i], k)
                                   : LLVMConstNull(et);
            v = lw_pack(f, vt, vec, oth);
            if (!lw_never(pred)) v = lw_guarded(f, pred, lw_emit_load, &a, v);
        } else {
            v = lw_emit_load(f, &a);
        }
        for (int i = 0; i < vec; i++) {
            LLVMValueRef e = vec == 1 ? v
                                      : LLVMBuildExtractElement(c->b, v, lw_i32(c, i), "");
            out.r[g + i] = lw_from_mem(f, e, k);
        }
    }
    /* the result may have been given another layout than the pointer */
    if (res->layout != l && !(res->layout && l && ly_eq(res->layout, l)))
        res_l = lw_remap(f, out, k, l, res->layout, NULL);
    lw_set(f, res, res_l);
}

/* store ptr, value [, mask] */
/* v (one element of 2, 4 or 8 bytes) through an identity `mov` that LLVM
 * may not move (a convergent asm): computed where it is, not sunk into
 * the branch around a masked store. Sunk, a value computed for every
 * element (softmax's e / sum) is computed in each of a thread's 32
 * branches and ptxas keeps the branches (BSSY/BSYNC around each store,
 * one MUFU.RCP per element); kept before them, ptxas shares the
 * reciprocal and predicates the tiny branches itself (softmax f32 BLOCK
 * 8192, 8 warps, generic variant: 920 SASS instructions -> 664, no BSSY,
 * 64 MUFU -> 33, registers 80 -> 79). Other sizes pass unchanged. */
static LLVMValueRef lw_pin(LwFn *f, LLVMValueRef v, ScalarKind k) {
    LwCtx *c = f->c;
    static const char *const text[] = {"mov.b16 $0, $1;", "mov.b32 $0, $1;", "mov.b64 $0, $1;"};
    static const char *const cons[] = {"=h,h", "=r,r", "=l,l"};
    int bytes = ty_bytes(k);
    int i = bytes == 2 ? 0 : bytes == 4 ? 1 : bytes == 8 ? 2 : -1;
    if (i < 0 || k == SK_PTR) return v;
    LLVMTypeRef it = LLVMIntTypeInContext(c->ctx, (unsigned)(8 * bytes));
    LLVMValueRef x = LLVMBuildBitCast(c->b, v, it, "");
    LLVMValueRef y = lw_asm(c, it, text[i], cons[i], &x, 1, LW_ASM_NONE);
    unsigned kind = LLVMGetEnumAttributeKindForName("convergent", 10);
    LLVMAddCallSiteAttribute(y, LLVMAttributeFunctionIndex,
                             LLVMCreateEnumAttribute(c->ctx, kind, 0));
    return LLVMBuildBitCast(c->b, y, LLVMTypeOf(v), "");
}

/* Whether a masked store is one predicated asm store rather than a
 * branch around an LLVM store: for 16-byte groups in code that no loop
 * precedes (the memory-bound kernels' stores). Elsewhere the predicated
 * form measured worse in ptxas's register allocation: narrower groups
 * (the generic variants: layernorm f16 8192 w4 154 -> 255 registers,
 * transpose 40 -> 64) and stores after a loop, whose address and mask
 * arithmetic then stays live through it (attention D=64: 148 -> 168
 * registers and a spill), where the branch recomputes it after. */
static int lw_store_predicated(const LwFn *f, const LwAccess *a) {
    return f->loops == 0 && a->vec * ty_bytes(a->k) == 16;
}

void lw_store(LwFn *f, const IrOp *op) {
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
    const LyRealigned *ra;
    int wide = lw_realigned_vec(f, op, l, &ra);
    if (wide > vec && has_mask) m = lw_unpacked_mask(f, op->args[2], l, m);
    for (int g = 0; wide > vec && g < p.n; g += wide) {
        LLVMValueRef x[16];
        for (int i = 0; i < wide; i++) x[i] = lw_to_mem(f, v.r[g + i], k);
        lw_store_realigned(f, k, ra, l, &p, &m, g, wide, x);
    }
    for (int g = 0; wide <= vec && g < p.n; g += vec) {
        int first;
        LLVMValueRef own = lw_owner(f, l, g, &first);
        if (!first) continue;
        LLVMValueRef x[16];
        for (int i = 0; i < vec; i++) x[i] = lw_to_mem(f, v.r[g + i], k);
        LwAccess a = {.t = vt, .ptr = p.r[g], .val = lw_pack(f, vt, vec, x),
                      .k = k, .vec = vec, .align = (unsigned)(vec * ty_bytes(k))};
        LLVMValueRef pred = lw_pad_and(f, pv, l, g, lw_and(f, has_mask ? m.r[g] : NULL, own));
        if (lw_never(pred)) continue;
        if (!pred) lw_emit_store(f, &a);
        else if (lw_store_predicated(f, &a)) lw_emit_store_pred(f, &a, pred);
        else {
            if (f->loops == 0 && vec == 1) a.val = lw_pin(f, a.val, k);
            lw_guarded(f, pred, lw_emit_store, &a, NULL);
        }
    }
}

/* atomic ptr, value [, mask]; atomic_cas ptr, cmp, value */
int64_t lw_memory_scratch(const IrOp *op, const int *uses, int warps) {
    const IrValue *res = op->nres ? op->res[0] : NULL;
    const Layout *l = op->args[0]->layout;
    int64_t m = 0;
    for (int i = 1; i < op->nargs; i++) {
        int64_t x = lw_in_layout_scratch(op->args[i], l);
        if (x > m) m = x;
    }
    if (op->op == IR_ATOMIC || op->op == IR_ATOMIC_CAS) {
        int64_t numel = 1;
        for (int d = 0; l && d < l->rank; d++) numel *= l->shape[d];
        int64_t x = lw_replicated(l, warps) && uses[res->id]
                        ? numel * ty_bytes((ScalarKind)res->ty.k) : 0;
        if (x > m) m = x;
    }
    if (res && res->layout != l && !(res->layout && l && ly_eq(res->layout, l))) {
        int64_t x = lw_remap_scratch(l, res->layout, NULL, (ScalarKind)res->ty.k);
        if (x > m) m = x;
    }
    return m;
}

void lw_atomic(LwFn *f, const IrOp *op) {
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
        LLVMValueRef pred = lw_pad_and(f, pv, l, r, lw_and(f, has_mask ? m.r[r] : NULL, own));
        old.r[r] = lw_never(pred) ? LLVMConstNull(a.t)
                                  : lw_guarded(f, pred, lw_emit_atomic, &a, LLVMConstNull(a.t));
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
        lw_scratch_barrier(f);
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
