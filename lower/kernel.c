/*
 * kernel.c — one kernel configuration and variant as one LLVM function:
 * the signature, the walk over the IR's nested blocks, and structured
 * control flow.
 *
 * The function: calling convention 71 (ptx_kernel), "nvvm.reqntid" =
 * 32 * warps (the launch block size is fixed: this lets LLVM know the
 * range of tid and ptxas budget registers; ptxas rejects .maxntid beside
 * .reqntid, which implies it), global pointers
 * in address space 1. A variant's facts (plan/guard.c) reach LLVM too: a
 * pointer known aligned to 2^n bytes is marked `align 2^n` (what lets
 * LLVM emit vector accesses from it), an integer known a multiple of 2^n
 * gets an llvm.assume saying so, and one known to equal 1 (a unit
 * stride) is the constant 1 in the body, which LLVM folds. No parameter is `noalias`: callers may pass one buffer as two
 * parameters (in-place kernels), and LLVM would then be free to reorder
 * a load and a store of the same memory; memory.c picks the loads that
 * may read through the non-coherent path regardless.
 *
 * Control flow. A tile IR `for`/`while`/`if` becomes LLVM blocks with one
 * phi per register of each carried value. The loop counter is kept in 64
 * bits so that `iv + step` cannot wrap before the comparison, as the
 * interpreter counts. Conditions are scalars, hence uniform across the
 * program, so regions may contain barriers.
 */
#include "lower/lw.h"

#include <string.h>

/* `x` (a lowered value of IR value `from`) in the layout of `to`. */
static LwVal lw_as(LwFn *f, const IrValue *from, const IrValue *to) {
    LwVal *x = lw_val(f, from);
    const Layout *a = from->layout, *b = to->layout;
    if (a == b || (a && b && ly_eq(a, b))) return *x;
    return lw_remap(f, *x, (ScalarKind)from->ty.k, a, b, NULL);
}

/* ----------------------------------------------------------- control */

/* Phis for each register of each value in `vals`, in the current block. */
static LwVal *lw_phis(LwFn *f, int n, IrValue *const *vals) {
    LwVal *p = ar_alloc(f->c->ar, sizeof(LwVal) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        p[i] = lw_new_val(f, lw_nregs(vals[i]));
        LLVMTypeRef t = lw_type(f->c, (ScalarKind)vals[i]->ty.k);
        for (int r = 0; r < p[i].n; r++)
            p[i].r[r] = LLVMBuildPhi(f->c->b, t, "");
    }
    return p;
}

/* IR values `src` converted to the layouts of `dst`. */
static LwVal *lw_convert_all(LwFn *f, int n, IrValue *const *src,
                             IrValue *const *dst) {
    LwVal *x = ar_alloc(f->c->ar, sizeof(LwVal) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) x[i] = lw_as(f, src[i], dst[i]);
    return x;
}

/* Adds x (converted values) as incoming from block bb to phis p; none
 * after an error, whose op left its values unset (the function is
 * thrown away). */
static void lw_incoming(LwFn *f, LwVal *p, int n, const LwVal *x, LLVMBasicBlockRef bb) {
    if (f->failed) return;
    for (int i = 0; i < n; i++)
        for (int r = 0; r < p[i].n; r++)
            LLVMAddIncoming(p[i].r[r], &x[i].r[r], &bb, 1);
}

LLVMValueRef lw_to_i64(LwFn *f, const IrValue *v) {
    LLVMValueRef x = lw_val(f, v)->r[0];
    if (ty_bits((ScalarKind)v->ty.k) == 64) return x;
    return ty_issigned((ScalarKind)v->ty.k)
               ? LLVMBuildSExt(f->c->b, x, f->c->i64, "")
               : LLVMBuildZExt(f->c->b, x, f->c->i64, "");
}

/* for lo, hi, step, inits...: region 0 args (iv, carried...) */
static void lw_for(LwFn *f, const IrOp *op) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    const IrBlock *body = op->regions[0];
    int n = op->nargs - 3;
    LLVMValueRef lo = lw_to_i64(f, op->args[0]);
    LLVMValueRef hi = lw_to_i64(f, op->args[1]);
    LLVMValueRef step = lw_to_i64(f, op->args[2]);
    LwVal *init = lw_convert_all(f, n, op->args + 3, body->args + 1);
    struct LwPipe *pipe = lw_pipe_begin(f, op, lo, hi, step);   /* cp.async */
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef head = lw_new_bb(f, "for.head");
    LLVMBasicBlockRef loop = lw_new_bb(f, "for.body");
    LLVMBasicBlockRef exit = lw_new_bb(f, "for.exit");
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    LLVMValueRef iv = LLVMBuildPhi(b, c->i64, "iv");
    LLVMAddIncoming(iv, &lo, &pre, 1);
    LwVal *carried = lw_phis(f, n, body->args + 1);
    lw_incoming(f, carried, n, init, pre);
    LLVMValueRef zero = LLVMConstInt(c->i64, 0, 0);
    LLVMValueRef up = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGT, step, zero, ""),
                                   LLVMBuildICmp(b, LLVMIntSLT, iv, hi, ""), "");
    LLVMValueRef down = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSLT, step, zero, ""),
                                     LLVMBuildICmp(b, LLVMIntSGT, iv, hi, ""), "");
    LLVMBuildCondBr(b, LLVMBuildOr(b, up, down, ""), loop, exit);

    LLVMPositionBuilderAtEnd(b, loop);
    LwVal ivv = lw_new_val(f, 1);
    ivv.r[0] = LLVMBuildTrunc(b, iv, lw_type(c, (ScalarKind)body->args[0]->ty.k), "");
    if (ty_bits((ScalarKind)body->args[0]->ty.k) == 64) ivv.r[0] = iv;
    lw_set(f, body->args[0], ivv);
    for (int i = 0; i < n; i++) lw_set(f, body->args[i + 1], carried[i]);
    if (pipe) lw_pipe_iter(f, pipe, iv);
    lw_block(f, body);
    if (pipe) lw_pipe_iter_end(f, pipe);
    const IrOp *y = body->last;
    if (y && y->op == IR_YIELD && !f->failed) {
        LwVal *x = lw_convert_all(f, n, y->args, body->args + 1);
        lw_incoming(f, carried, n, x, LLVMGetInsertBlock(b));
    }
    LLVMValueRef next = LLVMBuildAdd(b, iv, step, "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
    LLVMAddIncoming(iv, &next, &latch, 1);
    LLVMBuildBr(b, head);

    LLVMPositionBuilderAtEnd(b, exit);
    if (pipe) lw_pipe_end(f, pipe);
    for (int i = 0; i < op->nres; i++)
        lw_set(f, op->res[i], lw_as(f, body->args[i + 1], op->res[i]));
}

/* if cond: regions then, else; results from their yields */
static void lw_if(LwFn *f, const IrOp *op) {
    LLVMBuilderRef b = f->c->b;
    LLVMBasicBlockRef bb[2] = {lw_new_bb(f, "if.then"), lw_new_bb(f, "if.else")};
    LLVMBasicBlockRef join = lw_new_bb(f, "if.join");
    LLVMBuildCondBr(b, lw_val(f, op->args[0])->r[0], bb[0], bb[1]);
    LLVMBasicBlockRef ends[2];
    const IrOp *ys[2] = {NULL, NULL};
    LwVal in_flight = {0, NULL};
    int drain = 0;
    for (int i = 0; i < 2; i++) {
        LLVMPositionBuilderAtEnd(b, bb[i]);
        if (i == 0) drain = lw_pipe_drain_begin(f, op, &in_flight);
        if (i == 1 && drain) lw_pipe_drain_end(f, &in_flight);
        if (i < op->nregions) {
            lw_block(f, op->regions[i]);
            ys[i] = op->regions[i]->last;
        }
        ends[i] = LLVMGetInsertBlock(b);
        if (op->nres && ys[i] && ys[i]->op == IR_YIELD && !f->failed) {
            /* convert in the arm, before the branch */
            for (int r = 0; r < op->nres; r++) {
                LwVal x = lw_as(f, ys[i]->args[r], op->res[r]);
                lw_set(f, ys[i]->args[r], x);
            }
            ends[i] = LLVMGetInsertBlock(b);
        }
        LLVMBuildBr(b, join);
    }
    LLVMPositionBuilderAtEnd(b, join);
    if (!op->nres || f->failed) return;
    LwVal *p = lw_phis(f, op->nres, op->res);
    for (int i = 0; i < 2; i++)
        for (int r = 0; r < op->nres; r++) {
            LwVal *x = lw_val(f, ys[i]->args[r]);
            for (int k = 0; k < p[r].n; k++)
                LLVMAddIncoming(p[r].r[k], &x->r[k], &ends[i], 1);
        }
    for (int r = 0; r < op->nres; r++) lw_set(f, op->res[r], p[r]);
}

/* while inits...: "before" ends in condition(c, values...), "after" in
 * yield */
static void lw_while(LwFn *f, const IrOp *op) {
    LLVMBuilderRef b = f->c->b;
    const IrBlock *before = op->regions[0], *after = op->regions[1];
    int n = op->nargs;
    LwVal *init = lw_convert_all(f, n, op->args, before->args);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef head = lw_new_bb(f, "while.before");
    LLVMBasicBlockRef loop = lw_new_bb(f, "while.after");
    LLVMBasicBlockRef exit = lw_new_bb(f, "while.exit");
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    LwVal *carried = lw_phis(f, n, before->args);
    lw_incoming(f, carried, n, init, pre);
    for (int i = 0; i < n; i++) lw_set(f, before->args[i], carried[i]);
    lw_block(f, before);
    if (f->failed) return;
    const IrOp *cond = before->last;
    int nv = cond->nargs - 1;
    for (int i = 0; i < nv; i++) {
        lw_set(f, after->args[i], lw_as(f, cond->args[i + 1], after->args[i]));
    }
    LwVal *outs = ar_alloc(f->c->ar, sizeof(LwVal) * (size_t)(nv ? nv : 1));
    for (int i = 0; i < nv && i < op->nres; i++)
        outs[i] = lw_as(f, cond->args[i + 1], op->res[i]);
    LLVMBuildCondBr(b, lw_val(f, cond->args[0])->r[0], loop, exit);

    LLVMPositionBuilderAtEnd(b, loop);
    lw_block(f, after);
    const IrOp *y = after->last;
    if (y && y->op == IR_YIELD && !f->failed) {
        LwVal *x = lw_convert_all(f, n, y->args, before->args);
        lw_incoming(f, carried, n, x, LLVMGetInsertBlock(b));
    }
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, exit);
    for (int i = 0; i < op->nres; i++) lw_set(f, op->res[i], outs[i]);
}

/* ----------------------------------------------------------- the walk */

static LLVMValueRef lw_sreg(LwFn *f, const char *what, int axis) {
    char name[64];
    snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s.%c", what,
             "xyz"[axis < 0 || axis > 2 ? 0 : axis]);
    return lw_call_intr(f->c, name, NULL, 0, NULL, 0);
}

static void lw_const(LwFn *f, const IrOp *op) {
    ScalarKind k = (ScalarKind)op->res[0]->ty.k;
    LLVMTypeRef t = lw_type(f->c, k);
    LwVal v = lw_new_val(f, 1);
    if (ty_isf8(k))
        v.r[0] = LLVMConstInt(t, ty_f8_from_float(k, (float)op->fattr), 0);
    else if (ty_isfloat(k))
        v.r[0] = LLVMConstReal(t, op->fattr);
    else if (k == SK_PTR)
        v.r[0] = LLVMConstNull(t);
    else
        v.r[0] = LLVMConstInt(t, (unsigned long long)op->iattr[0], 0);
    lw_set(f, op->res[0], v);
}

/* arange lo, hi [rotated s]: position p holds lo + p, or, rotated by s
 * (plan/realign.c; 0 <= s < hi - lo), lo + ((p - s) mod (hi - lo)). A
 * rotated register is (thread part - s) + its constant, additions that
 * cannot overflow (nsw), so LLVM keeps one base address per thread with
 * immediate offsets; the wrap's test compares the position itself, which
 * folds to false in registers whose constant exceeds s's known bound. */
LwVal lw_arange_in(LwFn *f, const IrOp *op, const Layout *l) {
    LLVMBuilderRef b = f->c->b;
    LwVal v = lw_new_val(f, ly_size(l, LY_REG));
    int64_t lo = op->iattr[0], n = op->iattr[1] - op->iattr[0];
    LLVMValueRef s = op->nargs ? lw_val(f, op->args[0])->r[0] : NULL;
    for (int r = 0; r < v.n; r++) {
        LLVMValueRef tp, pos, x;
        uint32_t k;
        if (!s) {
            v.r[r] = LLVMBuildAdd(b, lw_coord(f, l, r, 0), lw_i32(f->c, lo), "");
            continue;
        }
        if (lw_reg_const(l, r, &k)) {
            tp = lw_thread_coord(f, l);
            pos = LLVMBuildNUWAdd(b, tp, lw_i32(f->c, k), "");
            x = LLVMBuildNSWAdd(b, LLVMBuildNSWSub(b, tp, s, ""), lw_i32(f->c, k + lo), "");
        } else {
            pos = lw_coord(f, l, r, 0);
            x = LLVMBuildNSWAdd(b, LLVMBuildNSWSub(b, pos, s, ""), lw_i32(f->c, lo), "");
        }
        LLVMValueRef wrap = LLVMBuildICmp(b, LLVMIntULT, pos, s, "");
        v.r[r] = LLVMBuildSelect(b, wrap, LLVMBuildNSWAdd(b, x, lw_i32(f->c, n), ""), x, "");
    }
    return v;
}

static void lw_arange(LwFn *f, const IrOp *op) {
    lw_set(f, op->res[0], lw_arange_in(f, op, op->res[0]->layout));
}

/* The program id or count along a dimension (i32, widened for i64). */
static void lw_program_reg(LwFn *f, const IrOp *op) {
    LwVal v = lw_new_val(f, 1);
    v.r[0] = lw_sreg(f, op->op == IR_PROGRAM_ID ? "ctaid" : "nctaid", (int)op->iattr[0]);
    if (ty_bits((ScalarKind)op->res[0]->ty.k) == 64)
        v.r[0] = LLVMBuildZExt(f->c->b, v.r[0], f->c->i64, "");
    lw_set(f, op->res[0], v);
}

/* A layout conversion, the way the plan chose (plan/lowering.c). */
static void lw_convert(LwFn *f, const IrOp *op) {
    switch ((LyHow)f->plan->how[op->res[0]->id]) {
    case LY_HOW_RING: lw_pipe_operand(f, op); return;
    case LY_HOW_STAGE: lw_pipe_stage(f, op); return;
    case LY_HOW_TMA_STORE: lw_set(f, op->res[0], (LwVal){0, NULL}); return;   /* tma.c */
    case LY_HOW_LDMATRIX: lw_dot_operand(f, op); return;
    case LY_HOW_SWIZZLED: lw_acc_convert(f, op); return;
    case LY_HOW_KIND: lw_shape_op(f, op); return;
    }
}

/* One op: the one dispatch of the lowering. Loads and conversions that
 * have more than one way go the way the plan says. */
void lw_op(LwFn *f, const IrOp *op) {
    lw_set_loc(f, op->loc);
    switch (op->op) {
    case IR_CONST: lw_const(f, op); return;
    case IR_PROGRAM_ID: case IR_NUM_PROGRAMS: lw_program_reg(f, op); return;
    case IR_ARANGE: lw_arange(f, op); return;
    case IR_FOR: f->loops++; lw_for(f, op); return;
    case IR_IF: lw_if(f, op); return;
    case IR_WHILE: f->loops++; lw_while(f, op); return;
    case IR_YIELD: case IR_CONDITION: return;   /* read by the parent */
    case IR_DOT: lw_dot(f, op); return;
    case IR_LOAD:
        if (f->plan->how[op->res[0]->id] == LY_HOW_RING) lw_pipe_load(f, op);
        else lw_load(f, op);
        return;
    case IR_STORE: {
        const LyTmaStore *ts = ly_tma_store_of(f->plan, op);
        if (ts) lw_tma_store(f, ts);
        else lw_store(f, op);
        return;
    }
    case IR_ATOMIC: case IR_ATOMIC_CAS: lw_atomic(f, op); return;
    case IR_CONVERT_LAYOUT:
        if (!lw_pipe_deferred(f, op)) lw_convert(f, op);
        return;
    case IR_SPLAT: case IR_BROADCAST: case IR_EXPAND_DIMS: case IR_RESHAPE:
    case IR_PERMUTE: case IR_MULTIPLE_OF: case IR_MAX_CONTIG:
        lw_shape_op(f, op);
        return;
    LW_ELEMENTWISE_CASES:
        lw_elementwise(f, op);
        return;
    case IR_REDUCE: lw_reduce(f, op); return;
    case IR_SCAN: lw_scan(f, op); return;
    case IR_SLICE: case IR_CAT: case IR_GATHER: lw_move(f, op); return;
    case IR_SORT: lw_sort(f, op); return;
    case IR_PRINT: lw_print(f, op); return;
    case IR_ASSERT: lw_assert(f, op); return;
    case IR_BARRIER: lw_barrier(f); return;
    default: break;
    }
    lw_error(f, op->loc, "internal error: no lowering for '%s'",
             ir_op_name[op->op]);
}

void lw_block(LwFn *f, const IrBlock *b) {
    for (const IrOp *op = b->first; op && !f->failed; op = op->next) {
        lw_op(f, op);
        for (int i = 0; f->magic && i < op->nres; i++)
            if (f->plan->magic[op->res[i]->id]) lw_magic_setup(f, op->res[i]);
    }
}

/* ----------------------------------------------------------- function */

static LLVMTypeRef lw_param_type(LwCtx *c, const IrParam *p) {
    return p->ty.k == SK_BOOL ? c->i8 : lw_type(c, (ScalarKind)p->ty.k);
}

static void lw_str_attr(LwCtx *c, LLVMValueRef fn, const char *k,
                        const char *v) {
    LLVMAddAttributeAtIndex(
        fn, LLVMAttributeFunctionIndex,
        LLVMCreateStringAttribute(c->ctx, k, (unsigned)strlen(k), v,
                                  (unsigned)strlen(v)));
}

/* The tensor maps (plan/tma.c) after the parameters: each a CUtensorMap
 * the launch passes by value, `.param .align 64 .b8 [128]` read where
 * it lies (nvvm.grid_constant: its address is the copies' operand). */
static void lw_tmap_params(LwFn *f) {
    LwCtx *c = f->c;
    unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
    unsigned align = LLVMGetEnumAttributeKindForName("align", 5);
    LLVMTypeRef map = LLVMArrayType2(c->i8, 128);
    for (int i = 0; i < f->plan->ntmaps; i++) {
        unsigned at = (unsigned)(f->k->nparams + i) + 1;
        LLVMAddAttributeAtIndex(f->fn, at, LLVMCreateTypeAttribute(c->ctx, byval, map));
        LLVMAddAttributeAtIndex(f->fn, at, LLVMCreateEnumAttribute(c->ctx, align, 64));
        LLVMAddAttributeAtIndex(f->fn, at,
                                LLVMCreateStringAttribute(c->ctx, "nvvm.grid_constant", 18,
                                                          "", 0));
        f->tmap[i] = LLVMGetParam(f->fn, (unsigned)(f->k->nparams + i));
        char name[24];
        snprintf(name, sizeof name, "tmap%d", i);
        LLVMSetValueName2(f->tmap[i], name, strlen(name));
    }
}

/* The parameters as IR values of the body; what the variant assumes of
 * them, told to LLVM. */
static void lw_params(LwFn *f, const LyFacts *facts) {
    LwCtx *c = f->c;
    const IrKernel *k = f->k;
    unsigned align = LLVMGetEnumAttributeKindForName("align", 5);
    for (int i = 0; i < k->nparams; i++) {
        const IrParam *p = &k->params[i];
        LLVMValueRef x = LLVMGetParam(f->fn, (unsigned)i);
        LLVMSetValueName2(x, p->name, strlen(p->name));
        int log2 = ly_fact(facts, i);
        if (log2 && p->ty.k == SK_PTR)
            LLVMAddAttributeAtIndex(f->fn, (unsigned)i + 1,
                                    LLVMCreateEnumAttribute(c->ctx, align, 1ull << log2));
        if (log2 && ty_isint((ScalarKind)p->ty.k)) {
            LLVMTypeRef t = LLVMTypeOf(x);
            LLVMValueRef low = LLVMBuildAnd(c->b, x, LLVMConstInt(t, (1ull << log2) - 1, 0), "");
            LLVMValueRef ok = LLVMBuildICmp(c->b, LLVMIntEQ, low,
                                            LLVMConstInt(t, 0, 0), "");
            lw_call_intr(c, "llvm.assume", NULL, 0, &ok, 1);
        }
        if (p->ty.k == SK_BOOL)
            x = LLVMBuildICmp(c->b, LLVMIntNE, x, LLVMConstInt(c->i8, 0, 0), "");
        if (ly_fact_one(facts, i)) x = LLVMConstInt(LLVMTypeOf(x), 1, 0);
        LwVal v = lw_new_val(f, 1);
        v.r[0] = x;
        lw_set(f, k->body->args[i], v);
        if (f->magic && f->plan->magic[k->body->args[i]->id])
            lw_magic_setup(f, k->body->args[i]);
    }
}

/* Block b's shared memory, as planned, holds nothing but layout
 * conversions and reductions: no product, scan, sort, slice, cat or
 * gather, and every load and conversion done by kind (no ring, ldmatrix,
 * swizzled or staged buffer). */
static int lw_exchanges_only(const LyPlan *p, const IrBlock *b) {
    for (const IrOp *op = b->first; op; op = op->next) {
        switch (op->op) {
        case IR_DOT: case IR_SCAN: case IR_SORT: case IR_SLICE: case IR_CAT: case IR_GATHER:
            return 0;
        case IR_LOAD: case IR_CONVERT_LAYOUT:
            if (p->how[op->res[0]->id] != LY_HOW_KIND) return 0;
            break;
        default:
            break;
        }
        for (int r = 0; r < op->nregions; r++)
            if (!lw_exchanges_only(p, op->regions[r])) return 0;
    }
    return 1;
}

/* Whether block b (nested blocks included) has a matrix product. */
static int lw_has_product(const IrBlock *b) {
    for (const IrOp *op = b->first; op; op = op->next) {
        if (op->op == IR_DOT) return 1;
        for (int r = 0; r < op->nregions; r++)
            if (lw_has_product(op->regions[r])) return 1;
    }
    return 0;
}

/* Programs per SM whose shared memory libtile should carve out, the rest
 * of the store staying L1 (runtime/launch.c, prefer_l1), for an entry
 * whose shared memory holds only layout conversions and reductions, and
 * at least LW_L1_SCRATCH bytes of them (a tile's conversion, not a
 * reduction's few words): enough programs for LW_L1_WARPS warps and for
 * LW_L1_INFLIGHT bytes of scratch per SM. Such a kernel reads global
 * memory through L1. On the H200 (docs/PERF.md, session 20), f32
 * transposes of 64x64 and 32x64 tiles ran 8189^2 12-15% and 8200^2 up to
 * 12% faster with 3 to 6 programs per SM and L1 large than with the most
 * that fit, and 8192^2 no slower; 32x32 tiles (4 KiB) lost 17% at 8192^2
 * with 6 programs (24 KiB in flight) and nothing with 12. Other kernels
 * (operands staged for products, cp.async rings, scans, sorts, gathers in
 * shared memory, or too little of it to matter) keep every program that
 * fits (0): nothing was measured for them. */
#define LW_L1_WARPS 20
#define LW_L1_INFLIGHT (48 * 1024)
#define LW_L1_SCRATCH 4096
static int lw_l1_programs(const LwFn *f, int warps) {
    if (!f->smem || f->ring || warps <= 0 || f->smem_bytes < LW_L1_SCRATCH ||
        !lw_exchanges_only(f->plan, f->k->body))
        return 0;
    int64_t by_warps = (LW_L1_WARPS + warps - 1) / warps;
    int64_t by_bytes = (LW_L1_INFLIGHT + f->smem_bytes - 1) / f->smem_bytes;
    return (int)(by_warps > by_bytes ? by_warps : by_bytes);
}

/* The shared scratch: a placeholder global of no size while lowering,
 * replaced by one of the final size — a static `.shared` array up to
 * 48 KiB (what a launch gets without asking), else dynamic shared memory:
 * an external array of unknown size (`.extern .shared .b8 X[]`) whose
 * size the runtime opts in to and passes at launch (LwEntry.dyn_shared_bytes,
 * the bundle's dyn_smem). That is all the shared memory an entry has;
 * whether it fits the architecture is lw_compile's to judge (lower.c). */
static void lw_finish_smem(LwFn *f, const char *name, LwEntry *entry) {
    /* cp.async rings (pipeline.c) above the scratch used while they are
     * live, 128-byte aligned (1024 for wgmma's, and the array with
     * them); the rest of the scratch overlaps them */
    int64_t align = f->plan->ring_align > 128 ? f->plan->ring_align : 128;
    int64_t ring_off = (f->smem_pinned + align - 1) & ~(align - 1);
    if (f->ring && ring_off + f->plan->ring_bytes > f->smem_bytes)
        f->smem_bytes = ring_off + f->plan->ring_bytes;
    entry->shared_bytes = f->smem_bytes;
    entry->dyn_shared_bytes = 0;
    if (!f->smem) return;
    LwCtx *c = f->c;
    int dyn = f->smem_bytes > LW_STATIC_SHARED_MAX;
    LLVMTypeRef t = LLVMArrayType2(c->i8, dyn ? 0 : (uint64_t)f->smem_bytes);
    char *gname = ar_printf(c->ar, "%s__smem", name);
    LLVMValueRef g = LLVMAddGlobalInAddressSpace(c->mod, t, gname, LW_AS_SHARED);
    if (dyn) {
        LLVMSetLinkage(g, LLVMExternalLinkage);
        entry->dyn_shared_bytes = f->smem_bytes;
    } else {
        LLVMSetInitializer(g, LLVMGetUndef(t));
        LLVMSetLinkage(g, LLVMInternalLinkage);
    }
    /* TMA stores' buffers (the scratch, at 0) swizzled as ring slots are */
    LLVMSetAlignment(g, f->plan->ntstores ? 1024 : f->ring && align > 128 ? (unsigned)align : 16);
    LLVMReplaceAllUsesWith(f->smem, g);
    LLVMDeleteGlobal(f->smem);
    if (f->ring) {
        LLVMValueRef off = LLVMConstInt(c->i64, (unsigned long long)ring_off, 0);
        LLVMReplaceAllUsesWith(f->ring, LLVMConstGEP2(c->i8, g, &off, 1));
        LLVMDeleteGlobal(f->ring);
    }
}

void lw_kernel(LwCtx *c, const IrKernel *k, const LyResult *ly, const LyPlan *plan,
               const LyFacts *facts, const char *name, LwEntry *entry) {
    LwFn fs = {.c = c, .k = k, .ly = ly, .plan = plan, .uses = plan->uses, .entry = entry},
         *f = &fs;
    entry->unpipelined = plan->unpipelined;
    entry->unpipelined_loop = plan->unpipelined_loop;
    entry->unpipelined_need = plan->unpipelined_need;
    f->vals = ar_alloc(c->ar, sizeof(LwVal) * (size_t)(k->nvalues + 1));
    if (plan->magic) {
        f->magic = ar_alloc(c->ar, sizeof(LwMagic *) * (size_t)(k->nvalues + 1));
        memset(f->magic, 0, sizeof(LwMagic *) * (size_t)(k->nvalues + 1));
    }
    lw_masks_to_pack(f);
    int np = k->nparams + plan->ntmaps;
    LLVMTypeRef *pt = ar_alloc(c->ar, sizeof(LLVMTypeRef) * (size_t)(np + 1));
    for (int i = 0; i < k->nparams; i++) pt[i] = lw_param_type(c, &k->params[i]);
    for (int i = k->nparams; i < np; i++) pt[i] = c->gen_ptr;
    LLVMTypeRef ft = LLVMFunctionType(c->vd, pt, (unsigned)np, 0);
    f->fn = LLVMAddFunction(c->mod, name, ft);
    lw_tmap_params(f);
    LLVMSetFunctionCallConv(f->fn, LW_CC_PTX_KERNEL);
    char threads[16];
    snprintf(threads, sizeof threads, "%d", 32 * (k->warps + (plan->ws_loop ? LW_WS_WARPS : 0)));
    lw_str_attr(c, f->fn, "nvvm.reqntid", threads);
    lw_di_kernel(f, name);
    LLVMPositionBuilderAtEnd(c->b, lw_new_bb(f, "entry"));
    lw_set_loc(f, k->loc);
    LLVMValueRef tid = lw_sreg(f, "tid", 0);
    f->lane = LLVMBuildAnd(c->b, tid, lw_i32(c, 31), "lane");
    f->warp = LLVMBuildLShr(c->b, tid, lw_i32(c, 5), "warp");
    lw_params(f, facts);
    /* the prologue ends here; per-layout thread parts go before its
     * branch (layout.c) */
    LLVMBasicBlockRef body = lw_new_bb(f, "body");
    f->entry_br = LLVMBuildBr(c->b, body);
    LLVMPositionBuilderAtEnd(c->b, body);
    if (plan->ws_loop) lw_ws_split(f);   /* the producer's branch, to its end */
    lw_block(f, k->body);
    if (plan->ntstores) lw_tma_store_read_wait(f);   /* the scratch outlives its reads */
    LLVMBuildRetVoid(c->b);
    entry->l1_programs = lw_l1_programs(f, k->warps);
    entry->memory_pass = !f->ring && !lw_has_product(k->body);
    lw_finish_smem(f, name, entry);
    entry->name = name;
    entry->kernel = k;
    entry->warps = k->warps;
    entry->ws = plan->ws_loop != NULL;
}
