/*
 * divide.c — integer `/` and `%` by a divisor inverted once (the plan's
 * LyPlan.magic, plan/divisor.c says which and why).
 *
 * Right after an inverted divisor d of N bits (8, 16 or 32) is defined,
 * lw_magic_setup computes from it, once per program:
 *   d1 = d, or 1 where d is 0 (a zero divisor divides by 1, as
 *        lw_divrem does: the interpreter reports it, the GPU cannot);
 *   signed (Granlund and Montgomery's figure 5.1): l = max(ceil(log2
 *        |d1|), 1), m = 2^(N+l-1) / |d1| + 1 in 2N bits, kept to its low
 *        N bits (m - 2^N as a signed number), shift l - 1, and the sign
 *        of d1 (0 or -1);
 *   unsigned (figure 4.1): l = ceil(log2 d1), m = 2^N (2^l - d1) / d1 +
 *        1 (N bits), shifts min(l, 1) and l - min(l, 1).
 * Each division by d is then (lw_magic_divrem), with hi() the high N
 * bits of the 2N-bit product:
 *   signed:   q0 = n + hi(m * n); q0 = (q0 >> shift) - (n >> (N-1));
 *             q = (q0 ^ sign) - sign                    (>> arithmetic)
 *   unsigned: t = hi(m * n); q = (t + ((n - t) >> s1)) >> s2
 * and the remainder n - q * d1. All arithmetic wraps at N bits, which is
 * what makes |d1| = 1 and INT_MIN / -1 (INT_MIN, remainder 0) come out as
 * the plain division's. For N = 32 the high product is one mul.hi.
 * lw_magic and lw_magic_div build the same sequence for any width;
 * tests/unit/test_divide.c builds it at 8 and 12 bits and evaluates the
 * LLVM instructions it built for every pair of operands, signed and
 * unsigned, against the plain division.
 */
#include "lower/lw.h"

#include <string.h>

/* ceil(log2 x) for x >= 1 of N bits: N - ctlz(x - 1). */
static LLVMValueRef lw_ceil_log2(LwCtx *c, LLVMValueRef x, unsigned bits) {
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef a[2] = {LLVMBuildSub(b, x, LLVMConstInt(t, 1, 0), ""),
                         LLVMConstInt(c->i1, 0, 0)};
    LLVMValueRef lz = lw_call_intr(c, "llvm.ctlz", &t, 1, a, 2);
    return LLVMBuildSub(b, LLVMConstInt(t, bits, 0), lz, "");
}

/* num / den + 1 in 2N bits (num of 2N, den of N), kept to N bits. */
static LLVMValueRef lw_magic_m(LwCtx *c, LLVMValueRef num, LLVMValueRef den) {
    LLVMBuilderRef b = c->b;
    LLVMTypeRef w = LLVMTypeOf(num);
    LLVMValueRef q = LLVMBuildUDiv(b, num, LLVMBuildZExt(b, den, w, ""), "");
    return LLVMBuildTrunc(b, LLVMBuildAdd(b, q, LLVMConstInt(w, 1, 0), ""),
                          LLVMTypeOf(den), "magic");
}

LwMagic *lw_magic(LwCtx *c, LLVMValueRef d, int sgn) {
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = LLVMTypeOf(d);
    unsigned bits = LLVMGetIntTypeWidth(t);
    LLVMTypeRef w = LLVMIntTypeInContext(c->ctx, 2 * bits);
    LLVMValueRef zero = LLVMConstNull(t), one = LLVMConstInt(t, 1, 0);
    LwMagic *mg = ar_alloc(c->ar, sizeof *mg);
    mg->sgn = sgn;
    mg->d = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, d, zero, ""), one, d, "");
    if (sgn) {
        LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, mg->d, zero, "");
        LLVMValueRef ad = LLVMBuildSelect(b, neg, LLVMBuildNeg(b, mg->d, ""), mg->d, "");
        LLVMValueRef l = lw_ceil_log2(c, ad, bits);
        l = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, l, zero, ""), one, l, "");
        LLVMValueRef e = LLVMBuildAdd(b, LLVMBuildZExt(b, l, w, ""),
                                      LLVMConstInt(w, bits - 1, 0), "");
        mg->m = lw_magic_m(c, LLVMBuildShl(b, LLVMConstInt(w, 1, 0), e, ""), ad);
        mg->s1 = LLVMBuildSub(b, l, one, "");
        mg->s2 = LLVMBuildAShr(b, mg->d, LLVMConstInt(t, bits - 1, 0), "");
    } else {
        LLVMValueRef l = lw_ceil_log2(c, mg->d, bits);
        LLVMValueRef p = LLVMBuildShl(b, LLVMConstInt(w, 1, 0), LLVMBuildZExt(b, l, w, ""), "");
        LLVMValueRef num = LLVMBuildShl(b, LLVMBuildSub(b, p, LLVMBuildZExt(b, mg->d, w, ""), ""),
                                        LLVMConstInt(w, bits, 0), "");
        mg->m = lw_magic_m(c, num, mg->d);
        mg->s1 = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntNE, l, zero, ""), t, "");
        mg->s2 = LLVMBuildSub(b, l, mg->s1, "");
    }
    return mg;
}

/* The high N bits of the 2N-bit product of x and y (signed or not; also
 * the lowering of `umulhi`, elementwise.c): PTX mul.hi for 32 bits (LLVM, given the product of extensions, may fold
 * the multiplier's extension into the division that made it and multiply
 * in 64 bits instead); the product's high half otherwise, which narrow.c
 * then computes in 32-bit registers (ptxas must see no 16-bit
 * arithmetic, mul.hi.s16 included). */
LLVMValueRef lw_mulhi(LwCtx *c, LLVMValueRef x, LLVMValueRef y, int sgn) {
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = LLVMTypeOf(x);
    unsigned bits = LLVMGetIntTypeWidth(t);
    LLVMValueRef a[2] = {x, y};
    if (bits == 32)
        return lw_call_intr(c, sgn ? "llvm.nvvm.mulhi.i" : "llvm.nvvm.mulhi.ui", NULL, 0, a, 2);
    LLVMTypeRef w = LLVMIntTypeInContext(c->ctx, 2 * bits);
    LLVMValueRef p = sgn ? LLVMBuildMul(b, LLVMBuildSExt(b, x, w, ""), LLVMBuildSExt(b, y, w, ""), "")
                         : LLVMBuildMul(b, LLVMBuildZExt(b, x, w, ""), LLVMBuildZExt(b, y, w, ""), "");
    return LLVMBuildTrunc(b, LLVMBuildLShr(b, p, LLVMConstInt(w, bits, 0), ""), t, "");
}

LLVMValueRef lw_magic_div(LwCtx *c, const LwMagic *mg, int rem, LLVMValueRef n) {
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = LLVMTypeOf(n);
    LLVMValueRef q;
    if (mg->sgn) {
        unsigned bits = LLVMGetIntTypeWidth(t);
        LLVMValueRef q0 = LLVMBuildAdd(b, n, lw_mulhi(c, mg->m, n, 1), "");
        q0 = LLVMBuildSub(b, LLVMBuildAShr(b, q0, mg->s1, ""),
                          LLVMBuildAShr(b, n, LLVMConstInt(t, bits - 1, 0), ""), "");
        q = LLVMBuildSub(b, LLVMBuildXor(b, q0, mg->s2, ""), mg->s2, "");
    } else {
        LLVMValueRef hi = lw_mulhi(c, mg->m, n, 0);
        LLVMValueRef s = LLVMBuildLShr(b, LLVMBuildSub(b, n, hi, ""), mg->s1, "");
        q = LLVMBuildLShr(b, LLVMBuildAdd(b, hi, s, ""), mg->s2, "");
    }
    return rem ? LLVMBuildSub(b, n, LLVMBuildMul(b, q, mg->d, ""), "") : q;
}

void lw_magic_setup(LwFn *f, const IrValue *v) {
    LLVMValueRef d = lw_val(f, v)->r[0];
    if (LLVMIsAConstantInt(d)) return;   /* a unit variant's 1: LLVM folds it */
    f->magic[v->id] = lw_magic(f->c, d, ty_issigned((ScalarKind)v->ty.k));
}

LLVMValueRef lw_magic_divrem(LwFn *f, const IrOp *op, LLVMValueRef n) {
    const IrValue *dv = f->magic ? ly_divisor_scalar(op) : NULL;
    const LwMagic *mg = dv ? f->magic[dv->id] : NULL;
    return mg ? lw_magic_div(f->c, mg, op->op == IR_REM, n) : NULL;
}
