/*
 * narrow.c — 8- and 16-bit integer arithmetic done in 32-bit registers,
 * after LLVM's optimisation and before PTX emission.
 *
 * Why: ptxas keeps a 16-bit PTX register in a 32-bit hardware one and
 * tracks what the upper half holds, and gets some 16-bit sequences wrong.
 * The H200 campaign of issue 10 found programs the interpreter and the
 * simulated warps agree on and the GPU does not (tests/fuzz/gpu-open):
 * for `shl.b16; neg.s16; shr.s16`, right by the PTX ISA, ptxas 12.9 and
 * 13.0 (and the 580 driver's JIT, which is 13.0's) sign-extend the
 * shifted value, negate it in 32 bits without wrapping at -32768 and
 * shift that, so sext(-(i8)-128) is 128; ptxas 13.5 re-extends after the
 * negation (docs/gpu-testing.md). nvcc never emits 16-bit integer
 * arithmetic (C promotes to int), so its path is the one ptxas is known
 * to get right; this pass gives ptxas that path too.
 *
 * What: every add, sub, mul, shift, division, remainder, comparison,
 * min/max/abs, saturating add/sub, bit count (cttz, ctlz, ctpop) and
 * vector reduction (add, mul, min, max) on i8 or i16, or on any other
 * width from 2 to 31 bits that LLVM formed (nw_width; vectors lane by lane)
 * is rebuilt on i32 operands, extended as the operation reads them (sext
 * for signed ones, zext for unsigned ones, either where only low bits
 * matter), its result truncated back. Conversions pass through a fence:
 * truncations to 8 or 16 bits of computed values, extensions of 8 or 16
 * bits (and of bools to 8 or 16), conversions of 8 or 16 bits to floating
 * point (the same for the other narrow widths; nw_fenced_conv says what
 * the DAG does without). The fence is an
 * inline-asm `mov.b32`, which ptxas folds and LLVM cannot see through:
 * without it LLVM's DAG combiner narrows `trunc(op(ext a, ext b))` back
 * to a 16-bit op. Bitwise and/or/xor stay narrow (each result bit is the
 * same bits' function, whatever the upper half holds); loads, stores,
 * selects and phis are not arithmetic and stay too.
 *
 * The pass runs on the optimised module (lw_finish), so --emit=llvm
 * shows it and the simulated warps run it (x86.py reads the fence as a
 * copy). tests/fuzz/narrow-check.sh asserts the PTX has no 16-bit
 * arithmetic left, on every generated program (gen-run.sh) and on
 * tests/lit/ptx/narrow-int.tile.
 */
#include "lower/lw.h"

#include <stdio.h>
#include <string.h>

typedef enum { NW_SEXT, NW_ZEXT } NwExt;

/* The width of a narrow integer type (or vector's lanes): 2 to 31 bits
 * but 1, else 0. i8 and i16 come from the program; other widths from
 * LLVM's InstCombine, which narrows 32-bit code of which only a few bits
 * matter (`icmp sgt i4 (bitreverse.i4 (trunc tid)), -1` of a selection
 * by lane bits) and which the back end then promotes to 16-bit registers
 * (`shr.s16 %rs, %rs, 12; setp.gt.s16`: generated program 7010's dot_2). */
static unsigned nw_width(LLVMTypeRef t) {
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) t = LLVMGetElementType(t);
    if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind) return 0;
    unsigned w = LLVMGetIntTypeWidth(t);
    return w > 1 && w < 32 ? w : 0;
}

/* A copy LLVM cannot see through. */
static LLVMValueRef nw_fence(LwCtx *c, LLVMValueRef v32) { return lw_opaque32(c, v32, NULL); }

/* Operand v (a narrow scalar) as an i32, fenced. */
static LLVMValueRef nw_ext(LwCtx *c, LLVMValueRef v, NwExt how) {
    LLVMValueRef w = how == NW_SEXT ? LLVMBuildSExt(c->b, v, c->i32, "")
                                    : LLVMBuildZExt(c->b, v, c->i32, "");
    return LLVMIsAConstant(w) ? w : nw_fence(c, w);
}

/* The name of the intrinsic call i calls, or "". */
static const char *nw_callee(LLVMValueRef i) {
    LLVMValueRef fn = LLVMGetCalledValue(i);
    if (!fn || !LLVMIsAFunction(fn)) return "";
    size_t n;
    const char *s = LLVMGetValueName2(fn, &n);
    return s ? s : "";
}

static int nw_prefix(const char *s, const char *p) {
    return strncmp(s, p, strlen(p)) == 0;
}

/* A call of intrinsic `name` overloaded on i32 (base.c's lw_call_intr). */
static LLVMValueRef nw_intrinsic(LwCtx *c, const char *name, LLVMValueRef *args,
                                 unsigned n) {
    LLVMTypeRef t = c->i32;
    return lw_call_intr(c, name, &t, 1, args, (int)n);
}

/* Saturating add/sub of w-bit values a and b (extended as the signedness
 * says) in i32: the exact result clamped to the w-bit range. */
static LLVMValueRef nw_saturate(LwCtx *c, const char *name, LLVMValueRef a,
                                LLVMValueRef b, unsigned w) {
    int is_signed = nw_prefix(name, "llvm.s");
    int is_add = strstr(name, "add.sat") != NULL;
    LLVMValueRef r = is_add ? LLVMBuildAdd(c->b, a, b, "") : LLVMBuildSub(c->b, a, b, "");
    long long lo = is_signed ? -(1LL << (w - 1)) : 0;
    long long hi = is_signed ? (1LL << (w - 1)) - 1 : (1LL << w) - 1;
    LLVMValueRef args[2] = {r, LLVMConstInt(c->i32, (unsigned long long)lo, 1)};
    r = nw_intrinsic(c, "llvm.smax", args, 2);
    args[0] = r;
    args[1] = LLVMConstInt(c->i32, (unsigned long long)hi, 1);
    return nw_intrinsic(c, "llvm.smin", args, 2);
}

/* How operation i reads its narrow operands: 0 when it is not one this
 * pass rebuilds. */
static int nw_reads(LLVMValueRef i, NwExt *how) {
    *how = NW_SEXT;
    switch (LLVMGetInstructionOpcode(i)) {
    case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl:
        return 1;
    case LLVMAShr: case LLVMSDiv: case LLVMSRem:
        return 1;
    case LLVMLShr: case LLVMUDiv: case LLVMURem:
        *how = NW_ZEXT;
        return 1;
    case LLVMICmp: {
        LLVMIntPredicate p = LLVMGetICmpPredicate(i);
        *how = p == LLVMIntSGT || p == LLVMIntSGE || p == LLVMIntSLT || p == LLVMIntSLE
                   ? NW_SEXT : NW_ZEXT;
        return 1;
    }
    case LLVMCall: {
        const char *s = nw_callee(i);
        if (nw_prefix(s, "llvm.umax.") || nw_prefix(s, "llvm.umin.") ||
            nw_prefix(s, "llvm.uadd.sat.") || nw_prefix(s, "llvm.usub.sat.") ||
            nw_prefix(s, "llvm.cttz.") || nw_prefix(s, "llvm.ctlz.") ||
            nw_prefix(s, "llvm.ctpop.")) {
            *how = NW_ZEXT;
            return 1;
        }
        return nw_prefix(s, "llvm.smax.") || nw_prefix(s, "llvm.smin.") ||
               nw_prefix(s, "llvm.abs.") || nw_prefix(s, "llvm.sadd.sat.") ||
               nw_prefix(s, "llvm.ssub.sat.");
    }
    default:
        return 0;
    }
}

/* One lane of operation i on narrow scalars a and b (b unused by abs):
 * the i32 result (an i1 for a comparison), before truncation. */
static LLVMValueRef nw_lane32(LwCtx *c, LLVMValueRef i, LLVMValueRef a,
                              LLVMValueRef b, NwExt how, unsigned w) {
    LLVMOpcode op = LLVMGetInstructionOpcode(i);
    LLVMValueRef a32 = nw_ext(c, a, how);
    const char *s = op == LLVMCall ? nw_callee(i) : "";
    LLVMValueRef args[2] = {a32, LLVMConstInt(c->i1, 0, 0)};
    if (nw_prefix(s, "llvm.abs.")) return nw_intrinsic(c, "llvm.abs", args, 2);
    if (nw_prefix(s, "llvm.ctpop.")) return nw_intrinsic(c, "llvm.ctpop", args, 1);
    if (nw_prefix(s, "llvm.cttz.")) {   /* a bit above the w: w for 0 */
        args[0] = LLVMBuildOr(c->b, a32, LLVMConstInt(c->i32, 1ull << w, 0), "");
        return nw_intrinsic(c, "llvm.cttz", args, 2);
    }
    if (nw_prefix(s, "llvm.ctlz."))
        return LLVMBuildSub(c->b, nw_intrinsic(c, "llvm.ctlz", args, 2),
                            LLVMConstInt(c->i32, 32 - w, 0), "");
    /* a shift's amount is read unsigned */
    NwExt bhow = op == LLVMShl || op == LLVMLShr || op == LLVMAShr ? NW_ZEXT : how;
    LLVMValueRef b32 = nw_ext(c, b, bhow);
    if (op == LLVMICmp) return LLVMBuildICmp(c->b, LLVMGetICmpPredicate(i), a32, b32, "");
    if (op != LLVMCall) return LLVMBuildBinOp(c->b, op, a32, b32, "");
    if (strstr(s, ".sat.")) return nw_saturate(c, s, a32, b32, w);
    char base[16];   /* "llvm.smax" of "llvm.smax.i16" */
    size_t n = strlen("llvm.smax");
    memcpy(base, s, n);
    base[n] = '\0';
    args[1] = b32;
    return nw_intrinsic(c, base, args, 2);
}

/* Rebuilds narrow operation i (scalar or vector) on i32 lanes and returns
 * the value replacing it. */
static LLVMValueRef nw_rebuild(LwCtx *c, LLVMValueRef i, NwExt how, unsigned w) {
    LLVMValueRef a = LLVMGetOperand(i, 0);
    const char *s = LLVMIsACallInst(i) ? nw_callee(i) : "";
    int unary = nw_prefix(s, "llvm.abs.") || nw_prefix(s, "llvm.ct");
    LLVMValueRef b = unary ? NULL : LLVMGetOperand(i, 1);
    LLVMTypeRef rt = LLVMTypeOf(i);
    int is_cmp = LLVMGetInstructionOpcode(i) == LLVMICmp;
    LLVMTypeRef lane_t = LLVMGetTypeKind(rt) == LLVMVectorTypeKind ? LLVMGetElementType(rt) : rt;
    if (LLVMGetTypeKind(rt) != LLVMVectorTypeKind) {
        LLVMValueRef r = nw_lane32(c, i, a, b, how, w);
        return is_cmp ? r : LLVMBuildTrunc(c->b, nw_fence(c, r), lane_t, "");
    }
    LLVMValueRef v = LLVMGetPoison(rt);
    unsigned n = LLVMGetVectorSize(rt);
    for (unsigned k = 0; k < n; k++) {
        LLVMValueRef idx = LLVMConstInt(c->i32, k, 0);
        LLVMValueRef ak = LLVMBuildExtractElement(c->b, a, idx, "");
        LLVMValueRef bk = b ? LLVMBuildExtractElement(c->b, b, idx, "") : NULL;
        LLVMValueRef r = nw_lane32(c, i, ak, bk, how, w);
        if (!is_cmp) r = LLVMBuildTrunc(c->b, nw_fence(c, r), lane_t, "");
        v = LLVMBuildInsertElement(c->b, v, r, idx, "");
    }
    return v;
}

/* One lane of a conversion the pass rebuilds: scalar x to lane type t. */
typedef LLVMValueRef (*NwConv)(LwCtx *c, LLVMOpcode op, LLVMValueRef x, LLVMTypeRef t);

/* Conversion i (op, operand x, type rt) rebuilt by one(), lane by lane
 * for vectors. */
static LLVMValueRef nw_lanes(LwCtx *c, LLVMValueRef i, NwConv one) {
    LLVMOpcode op = LLVMGetInstructionOpcode(i);
    LLVMTypeRef rt = LLVMTypeOf(i);
    LLVMValueRef x = LLVMGetOperand(i, 0);
    if (LLVMGetTypeKind(rt) != LLVMVectorTypeKind) return one(c, op, x, rt);
    LLVMValueRef v = LLVMGetPoison(rt);
    for (unsigned k = 0; k < LLVMGetVectorSize(rt); k++) {
        LLVMValueRef idx = LLVMConstInt(c->i32, k, 0);
        LLVMValueRef xk = LLVMBuildExtractElement(c->b, x, idx, "");
        v = LLVMBuildInsertElement(c->b, v, one(c, op, xk, LLVMGetElementType(rt)), idx, "");
    }
    return v;
}

/* Truncation to 8 or 16 bits of a 32- or 64-bit lane, through the fence. */
static LLVMValueRef nw_trunc_lane(LwCtx *c, LLVMOpcode op, LLVMValueRef x, LLVMTypeRef t) {
    (void)op;
    if (LLVMGetIntTypeWidth(LLVMTypeOf(x)) > 32) x = LLVMBuildTrunc(c->b, x, c->i32, "");
    return LLVMBuildTrunc(c->b, nw_fence(c, x), t, "");
}

/* Extension of a narrow lane to a wider type, through the fence. */
static LLVMValueRef nw_ext_lane(LwCtx *c, LLVMOpcode op, LLVMValueRef x, LLVMTypeRef t) {
    LLVMValueRef r = nw_ext(c, x, op == LLVMSExt ? NW_SEXT : NW_ZEXT);
    if (LLVMGetIntTypeWidth(t) < 32) return LLVMBuildTrunc(c->b, r, t, "");
    if (LLVMGetIntTypeWidth(t) == 32) return r;
    return op == LLVMSExt ? LLVMBuildSExt(c->b, r, t, "") : LLVMBuildZExt(c->b, r, t, "");
}

/* Extension of a bool lane to 8 or 16 bits, made in 32 through the
 * fence (else the DAG forms sext as `selp.b16 1, 0; add.s16 -1`). */
static LLVMValueRef nw_bool_lane(LwCtx *c, LLVMOpcode op, LLVMValueRef x, LLVMTypeRef t) {
    LLVMValueRef r = op == LLVMSExt ? LLVMBuildSExt(c->b, x, c->i32, "")
                                    : LLVMBuildZExt(c->b, x, c->i32, "");
    return LLVMBuildTrunc(c->b, nw_fence(c, r), t, "");
}

/* Conversion of an 8- or 16-bit lane to floating point, from its fenced
 * i32 extension. */
static LLVMValueRef nw_itofp_lane(LwCtx *c, LLVMOpcode op, LLVMValueRef x, LLVMTypeRef t) {
    LLVMValueRef x32 = nw_ext(c, x, op == LLVMSIToFP ? NW_SEXT : NW_ZEXT);
    return op == LLVMSIToFP ? LLVMBuildSIToFP(c->b, x32, t, "") : LLVMBuildUIToFP(c->b, x32, t, "");
}

static unsigned nw_lane_width(LLVMTypeRef t) {
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) t = LLVMGetElementType(t);
    return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : 0;
}

/* Conversion i rebuilt to pass through the fence, or NULL when it is not
 * one the pass rebuilds: a truncation of a computed value to 8 or 16
 * bits (else the DAG narrows the computation), an extension of 8 or 16
 * bits to 16, 32 or 64 (else it narrows 32-bit code of which only low
 * bits are used: `(zext x << 1) & 254`), an extension of a bool to 8 or
 * 16 bits (else it forms `selp.b16 1, 0; add.s16 -1`), a conversion of 8
 * or 16 bits to floating point (fewer byte extractions by shr.s16). */
static LLVMValueRef nw_fenced_conv(LwCtx *c, LLVMValueRef i) {
    LLVMValueRef x = LLVMGetOperand(i, 0);
    unsigned from = nw_lane_width(LLVMTypeOf(x)), to = nw_lane_width(LLVMTypeOf(i));
    switch (LLVMGetInstructionOpcode(i)) {
    case LLVMTrunc:
        if (!nw_width(LLVMTypeOf(i)) || !LLVMIsAInstruction(x) || LLVMIsALoadInst(x) ||
            (LLVMIsACallInst(x) && LLVMIsAInlineAsm(LLVMGetCalledValue(x))))
            return NULL;
        return nw_lanes(c, i, nw_trunc_lane);
    case LLVMSExt: case LLVMZExt:
        if (from == 1 && nw_width(LLVMTypeOf(i))) return nw_lanes(c, i, nw_bool_lane);
        return nw_width(LLVMTypeOf(x)) && to > from ? nw_lanes(c, i, nw_ext_lane) : NULL;
    case LLVMSIToFP: case LLVMUIToFP:
        return nw_width(LLVMTypeOf(x)) ? nw_lanes(c, i, nw_itofp_lane) : NULL;
    default:
        return NULL;
    }
}

/* A reduction of narrow lanes the SLP vectorizer formed
 * (llvm.vector.reduce.add/mul/smax/smin/umax/umin; and/or/xor are
 * bitwise and stay): the lanes combined in i32 in order, the result
 * truncated through the fence. Wrapping add and mul agree with the
 * narrow ones in the low bits. NULL when i is not one. */
static LLVMValueRef nw_vector_reduce(LwCtx *c, LLVMValueRef i) {
    static const char *const kinds[] = {"add", "mul", "smax", "smin", "umax", "umin"};
    const char *s = nw_callee(i), *prefix = "llvm.vector.reduce.";
    if (!nw_prefix(s, prefix)) return NULL;
    s += strlen(prefix);
    int k = 0;
    while (k < 6 && !(nw_prefix(s, kinds[k]) && s[strlen(kinds[k])] == '.')) k++;
    if (k == 6) return NULL;
    LLVMValueRef v = LLVMGetOperand(i, 0), acc = NULL;
    NwExt how = kinds[k][0] == 'u' ? NW_ZEXT : NW_SEXT;
    char intr[16];
    snprintf(intr, sizeof intr, "llvm.%s", kinds[k]);
    for (unsigned j = 0; j < LLVMGetVectorSize(LLVMTypeOf(v)); j++) {
        LLVMValueRef x = nw_ext(c, LLVMBuildExtractElement(c->b, v, LLVMConstInt(c->i32, j, 0), ""),
                                how);
        LLVMValueRef args[2] = {acc, x};
        acc = !acc ? x : k == 0 ? LLVMBuildAdd(c->b, acc, x, "")
                       : k == 1 ? LLVMBuildMul(c->b, acc, x, "")
                                : nw_intrinsic(c, intr, args, 2);
    }
    return LLVMBuildTrunc(c->b, nw_fence(c, acc), LLVMTypeOf(i), "");
}

static void nw_block(LwCtx *c, LLVMBasicBlockRef bb) {
    LLVMValueRef next;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = next) {
        next = LLVMGetNextInstruction(i);
        NwExt how;
        unsigned w = LLVMGetNumOperands(i) > 0 ? nw_width(LLVMTypeOf(LLVMGetOperand(i, 0))) : 0;
        LLVMPositionBuilderBefore(c->b, i);
        LLVMValueRef r = NULL;
        if (w && nw_reads(i, &how))
            r = nw_rebuild(c, i, how, w);
        else if (w && LLVMIsACallInst(i))
            r = nw_vector_reduce(c, i);
        else if (LLVMGetNumOperands(i) > 0)
            r = nw_fenced_conv(c, i);
        if (!r) continue;
        LLVMReplaceAllUsesWith(i, r);
        LLVMInstructionEraseFromParent(i);
    }
}

void lw_widen_narrow_ints(LwCtx *c) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(c->mod); fn; fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            nw_block(c, bb);
}
