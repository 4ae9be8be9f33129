/*
 * elementwise.c — element-wise ops, one register at a time.
 *
 * Operands are first brought into the result's layout (the layout pass
 * makes them equal; lw_in_layout converts if not, and replicates scalars).
 * Semantics follow the interpreter (docs/internals/interp.md) where the
 * hardware allows:
 *  - integers wrap; `/` and `%` truncate; INT_MIN / -1 gives INT_MIN
 *    (remainder 0); a zero divisor divides by 1 instead (the interpreter
 *    stops with an error there; the GPU cannot, and LLVM must not see the
 *    undefined division). Shifts by the width or more give 0, or the sign
 *    fill for `>>` on signed types, as PTX shl/shr clamp.
 *  - floats: IEEE ops (sqrt is sqrt.rn) but f32 `/`; min/max are
 *    minNum/maxNum; casts to integers saturate and map NaN to 0
 *    (fptosi.sat, like cvt.rzi.sat). `%` is C's fmod, exact: libdevice's
 *    __nv_fmod[f] (f16/bf16 through f32, where fmod is exact too), never
 *    LLVM's `frem`, which NVPTX expands as x - trunc(x / y) * y: wrong by
 *    up to |x| once x / y no longer fits in the mantissa (1e30 % 3 gave
 *    ~1e22 on the H200).
 *  - f32 `/` is `div.full.f32` (llvm.nvvm.div.full), as Triton: at most
 *    2 ulp over the full range, subnormals kept, a few instructions
 *    instead of div.rn's Newton iterations and slow-path branch. A
 *    constant power-of-two divisor stays an fdiv (exact; LLVM folds it
 *    into a multiplication). f64 `/` is div.rn.f64; f16/bf16 `/` divides
 *    in f32 correctly rounded (div.rn) and rounds once, so it is exact.
 *  - math functions come from libdevice (__nv_*), computed in f32 for f16
 *    and bf16 and rounded once. floor, ceil, trunc, rint (roundeven) and
 *    round are LLVM's intrinsics: cvt.rmi/rpi/rzi/rni, and for round
 *    (half away from zero, which PTX has no mode for) NVPTX's exact
 *    sequence; all exact, as are bitcasts (LLVM bitcast: no instruction). The exceptions are f32 `exp` and `exp2`,
 *    which use the MUFU instruction `ex2.approx` (as Triton does):
 *    exp2(x) is `ex2.approx.ftz.f32`, relative error at most 2^-22
 *    (2 ulp) where the result is normal; results below 2^-126 flush to 0
 *    and subnormal inputs count as 0 (exp2 = 1). exp(x) is the
 *    non-flushing
 *    ex2.approx(x * log2(e)), whose error grows with |x| by the rounding
 *    of the product: about 2^-24 * |x| * 1.44 relative, i.e. below 1e-5
 *    for |x| < 88, where exp(x) is finite in f32 — inside the f32
 *    tolerance the numerics tests use. f64 `exp` stays exact (__nv_exp).
 *    `rsqrt` is __nv_rsqrtf (rsqrt.approx, 2 ulp). `libdevice("j0", x)`
 *    is __nv_j0f / __nv_j0 (sema/libdevice.h lists the names).
 *  - contraction: by default (LwOptions.fp_contract_off unset) every
 *    floating-point add, sub, mul and neg of the module, libdevice's
 *    included, carries LLVM's `contract` flag, so that the back end fuses
 *    a multiplication into the addition it feeds (fma.rn: one rounding
 *    instead of two). That is Triton's default (enable_fp_fusion) and
 *    nvcc's (-fmad=true); `tilec --fp-contract=off` keeps every operation
 *    separately rounded, as the interpreter computes. No other fast-math
 *    flag is set: no reassociation, NaNs and infinities kept.
 *
 * Constancy. Where axis info says a result is constant over aligned runs
 * of K[d] elements along each dimension d, registers of a thread whose
 * elements lie in one such run hold the same value: the op is computed
 * for the first of them only and the others reuse it (ly_repeated_regs).
 * With a 16-byte vector of f16 per thread, `arange(0, B) < n` for n
 * divisible by 16 is one comparison per 8 elements, not 8, and so is
 * everything computed from it alone (`m & (r < rows)`, a where's
 * condition); LLVM cannot see this itself (c + 1 < n and c < n are
 * different comparisons unless it knows 16 | n and 8 | c).
 */
#include "lower/lw.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------- contraction */

void lw_allow_contract(LwCtx *c) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(c->mod); fn;
         fn = LLVMGetNextFunction(fn))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
             bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
                 i = LLVMGetNextInstruction(i)) {
                LLVMOpcode o = LLVMGetInstructionOpcode(i);
                if (o == LLVMFAdd || o == LLVMFSub || o == LLVMFMul || o == LLVMFNeg)
                    LLVMSetFastMathFlags(i, LLVMGetFastMathFlags(i) |
                                                LLVMFastMathAllowContract);
            }
}

/* ---------------------------------------------------------------- casts */

/* FP8 conversions. From sm_89 on, the hardware's cvt (e4m3 and e5m2 from
 * f32 with .rn.satfinite, e4m3 to f16; e5m2 to f16 is a shift anyway);
 * before, integer and f32 arithmetic that gives the same results. f8
 * registers hold the format's bits (an i8). The simulated warps run the
 * cvt forms through warpsim.c (sim/x86.py).
 * The rules are sema/ir.h's (ty_f8_from_float, ty_f8_to_float), which
 * the interpreter applies; tests/unit/test_fp8.c checks those against a
 * search over every f8 value, tests/gpu/ops/fp8.tile this code against
 * the interpreter. */

static LLVMValueRef lw_u32(LwCtx *c, uint32_t v) { return LLVMConstInt(c->i32, v, 0); }

/* sm_89 and later: the hardware's conversions, one element in the low
 * byte of a pair. cvt.rn.satfinite rounds as ty_f8_from_float does. */
static LLVMValueRef lw_f8_to_f32_cvt(LwFn *f, LLVMValueRef x, ScalarKind k) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LLVMValueRef pair = LLVMBuildZExt(b, x, c->i16, "");
    LLVMValueRef h2 = lw_asm(c, c->i32, k == SK_F8E4M3 ? "cvt.rn.f16x2.e4m3x2 $0, $1;"
                                                       : "cvt.rn.f16x2.e5m2x2 $0, $1;",
                             "=r,h", &pair, 1, LW_ASM_NONE);
    LLVMValueRef h = LLVMBuildBitCast(b, LLVMBuildTrunc(b, h2, c->i16, ""), c->f16, "");
    return LLVMBuildFPExt(b, h, c->f32, "");
}

static LLVMValueRef lw_f32_to_f8_cvt(LwFn *f, LLVMValueRef x, ScalarKind k) {
    LwCtx *c = f->c;
    LLVMValueRef args[2] = {LLVMConstReal(c->f32, 0.0), x};
    LLVMValueRef pair = lw_asm(c, c->i16, k == SK_F8E4M3
                                              ? "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $2;"
                                              : "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $2;",
                               "=h,f,f", args, 2, LW_ASM_NONE);
    return LLVMBuildTrunc(c->b, pair, c->i8, "");
}

/* f8 bits b to f32, exactly. e5m2 is the top byte of an f16. For e4m3,
 * a normal value's f32 bits are its exponent and mantissa shifted to
 * f32's places plus the bias difference (120 << 23); a subnormal one is
 * its mantissa times 2^-9; 0x7f is NaN. */
static LLVMValueRef lw_f8_to_f32(LwFn *f, LLVMValueRef x, ScalarKind k) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    if (lw_arch_fp8_cvt(c->opt->arch) && k == SK_F8E4M3) return lw_f8_to_f32_cvt(f, x, k);
    if (k == SK_F8E5M2) {
        LLVMValueRef h = LLVMBuildShl(b, LLVMBuildZExt(b, x, c->i16, ""),
                                      LLVMConstInt(c->i16, 8, 0), "");
        return LLVMBuildFPExt(b, LLVMBuildBitCast(b, h, c->f16, ""), c->f32, "");
    }
    LLVMValueRef u = LLVMBuildZExt(b, x, c->i32, "");
    LLVMValueRef sign = LLVMBuildShl(b, LLVMBuildAnd(b, u, lw_u32(c, 0x80), ""), lw_u32(c, 24), "");
    LLVMValueRef mag = LLVMBuildAnd(b, u, lw_u32(c, 0x7f), "");
    LLVMValueRef normal = LLVMBuildAdd(b, LLVMBuildShl(b, mag, lw_u32(c, 20), ""),
                                       lw_u32(c, 120u << 23), "");
    LLVMValueRef sub = LLVMBuildFMul(b, LLVMBuildUIToFP(b, mag, c->f32, ""),
                                     LLVMConstReal(c->f32, 0x1p-9), "");
    sub = LLVMBuildBitCast(b, sub, c->i32, "");
    LLVMValueRef bits = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, mag, lw_u32(c, 8), ""),
                                        sub, normal, "");
    bits = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, mag, lw_u32(c, 0x7f), ""),
                           lw_u32(c, 0x7fc00000), LLVMBuildOr(b, bits, sign, ""), "");
    return LLVMBuildBitCast(b, bits, c->f32, "");
}

/* f32 x to f8 bits: ty_f8_from_float's steps on x's bits (a: |x|'s). */
static LLVMValueRef lw_f32_to_f8(LwFn *f, LLVMValueRef x, ScalarKind k) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    if (lw_arch_fp8_cvt(c->opt->arch)) return lw_f32_to_f8_cvt(f, x, k);
    TyF8Format fmt = ty_f8_format(k);
    int mbits = fmt.mbits, bias = fmt.bias, drop = 23 - mbits;
    float smallest_normal = ldexpf(1.0f, 1 - bias);
    uint32_t largest_bits, normal_bits;
    memcpy(&largest_bits, &fmt.largest, sizeof largest_bits);
    memcpy(&normal_bits, &smallest_normal, sizeof normal_bits);
    LLVMValueRef u = LLVMBuildBitCast(b, x, c->i32, "");
    LLVMValueRef a = LLVMBuildAnd(b, u, lw_u32(c, 0x7fffffff), "");
    LLVMValueRef sign = LLVMBuildAnd(b, LLVMBuildLShr(b, u, lw_u32(c, 24), ""), lw_u32(c, 0x80), "");
    LLVMValueRef odd = LLVMBuildAnd(b, LLVMBuildLShr(b, a, lw_u32(c, (uint32_t)drop), ""),
                                    lw_u32(c, 1), "");
    LLVMValueRef r = LLVMBuildAdd(b, LLVMBuildAdd(b, a, lw_u32(c, (1u << (drop - 1)) - 1), ""),
                                  odd, "");
    LLVMValueRef normal = LLVMBuildSub(b, LLVMBuildLShr(b, r, lw_u32(c, (uint32_t)drop), ""),
                                       lw_u32(c, (uint32_t)(127 - bias) << mbits), "");
    LLVMValueRef fa = LLVMBuildBitCast(b, a, c->f32, "");
    LLVMTypeRef f32 = c->f32;
    LLVMValueRef scaled = LLVMBuildFMul(b, fa, LLVMConstReal(c->f32, ldexp(1.0, bias - 1 + mbits)), "");
    LLVMValueRef rounded = lw_call_intr(c, "llvm.rint", &f32, 1, &scaled, 1);
    LLVMTypeRef ov[2] = {c->i32, f32};
    LLVMValueRef sub = lw_call_intr(c, "llvm.fptoui.sat", ov, 2, &rounded, 1);
    LLVMValueRef code = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, a, lw_u32(c, normal_bits), ""),
                                        sub, normal, "");
    code = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGE, a, lw_u32(c, largest_bits), ""),
                           lw_u32(c, fmt.largest_code), code, "");
    code = LLVMBuildOr(b, code, sign, "");
    code = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, a, lw_u32(c, 0x7f800000), ""),
                           lw_u32(c, 0x7f), code, "");
    return LLVMBuildTrunc(b, code, c->i8, "");
}

LLVMValueRef lw_cast_scalar(LwFn *f, LLVMValueRef x, ScalarKind from,
                            ScalarKind to) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = lw_type(c, to);
    if (from == to) return x;
    /* f8 through f32 both ways (exact from f8; one rounding to it) */
    if (ty_isf8(from)) return lw_cast_scalar(f, lw_f8_to_f32(f, x, from), SK_F32, to);
    if (ty_isf8(to)) return lw_f32_to_f8(f, lw_cast_scalar(f, x, from, SK_F32), to);
    if (to == SK_BOOL) {
        LLVMValueRef z = LLVMConstNull(LLVMTypeOf(x));
        return ty_isfloat(from) ? LLVMBuildFCmp(b, LLVMRealUNE, x, z, "")
                                : LLVMBuildICmp(b, LLVMIntNE, x, z, "");
    }
    if (from == SK_BOOL)
        return ty_isfloat(to) ? LLVMBuildUIToFP(b, x, t, "")
                              : LLVMBuildZExt(b, x, t, "");
    if (from == SK_PTR || to == SK_PTR) {
        if (from == SK_PTR && to == SK_PTR) return x;
        return from == SK_PTR ? LLVMBuildPtrToInt(b, x, t, "")
                              : LLVMBuildIntToPtr(b, x, t, "");
    }
    int fb = ty_bits(from), tb = ty_bits(to);
    if (ty_isint(from) && ty_isint(to)) {
        if (tb < fb) return LLVMBuildTrunc(b, x, t, "");
        if (tb == fb) return x;
        return ty_issigned(from) ? LLVMBuildSExt(b, x, t, "")
                                 : LLVMBuildZExt(b, x, t, "");
    }
    if (ty_isint(from))
        return ty_issigned(from) ? LLVMBuildSIToFP(b, x, t, "")
                                 : LLVMBuildUIToFP(b, x, t, "");
    if (ty_isint(to)) {
        LLVMTypeRef ov[2] = {t, LLVMTypeOf(x)};
        return lw_call_intr(c, ty_issigned(to) ? "llvm.fptosi.sat"
                                               : "llvm.fptoui.sat",
                            ov, 2, &x, 1);
    }
    /* float to float; f16 <-> bf16 through f32 (exact, then one rounding) */
    if (fb == tb) x = LLVMBuildFPExt(b, x, c->f32, "");
    else if (tb > fb) return LLVMBuildFPExt(b, x, t, "");
    return LLVMBuildFPTrunc(b, x, t, "");
}

/* ---------------------------------------------------------------- math */

/* ex2.approx.f32, or with ftz its flushing form: subnormal inputs read as
 * 0 and results below 2^-126 come out 0, which spares ptxas's three
 * instructions of range scaling around MUFU.EX2 (Triton does the same:
 * ftz for exp2, not for exp). */
static LLVMValueRef lw_ex2(LwFn *f, LLVMValueRef x, int ftz) {
    LLVMTypeRef t = f->c->f32;
    return lw_call_intr(f->c, ftz ? "llvm.nvvm.ex2.approx.ftz" : "llvm.nvvm.ex2.approx",
                        &t, 1, &x, 1);
}

/* A libdevice function of one or two arguments at f32 or f64. */
static LLVMValueRef lw_nv(LwFn *f, const char *base, int f64,
                          LLVMValueRef *args, int n) {
    LwCtx *c = f->c;
    char name[32];
    snprintf(name, sizeof name, "__nv_%s%s", base, f64 ? "" : "f");
    LLVMTypeRef t = f64 ? c->f64 : c->f32, p[2] = {t, t};
    return lw_call(c, lw_libdevice(c, name, t, p, n), args, n);
}

/* A float math op at f32/f64 (f16/bf16 go through f32); name: the
 * libdevice function of IR_LIBDEVICE. */
static LLVMValueRef lw_float_math(LwFn *f, int opc, const char *name,
                                  ScalarKind k, LLVMValueRef *a, int n) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    int narrow = k == SK_F16 || k == SK_BF16, f64 = k == SK_F64;
    LLVMValueRef x[3];
    for (int i = 0; i < n; i++)
        x[i] = narrow ? LLVMBuildFPExt(b, a[i], c->f32, "") : a[i];
    LLVMTypeRef t = f64 ? c->f64 : c->f32;
    LLVMValueRef r;
    switch (opc) {
    case IR_EXP:
        r = f64 ? lw_nv(f, "exp", 1, x, 1)
                : lw_ex2(f, LLVMBuildFMul(b, x[0], LLVMConstReal(c->f32,
                                                    1.4426950408889634), ""), 0);
        break;
    case IR_EXP2: r = f64 ? lw_nv(f, "exp2", 1, x, 1) : lw_ex2(f, x[0], 1); break;
    case IR_LOG: r = lw_nv(f, "log", f64, x, 1); break;
    case IR_LOG2: r = lw_nv(f, "log2", f64, x, 1); break;
    case IR_RSQRT: r = lw_nv(f, "rsqrt", f64, x, 1); break;
    case IR_SIN: r = lw_nv(f, "sin", f64, x, 1); break;
    case IR_COS: r = lw_nv(f, "cos", f64, x, 1); break;
    case IR_TANH: r = lw_nv(f, "tanh", f64, x, 1); break;
    case IR_ERF: r = lw_nv(f, "erf", f64, x, 1); break;
    case IR_TAN: r = lw_nv(f, "tan", f64, x, 1); break;
    case IR_POW: r = lw_nv(f, "pow", f64, x, 2); break;
    case IR_ATAN2: r = lw_nv(f, "atan2", f64, x, 2); break;
    case IR_REM: r = lw_nv(f, "fmod", f64, x, 2); break;
    case IR_LIBDEVICE: r = lw_nv(f, name, f64, x, n); break;
    case IR_SQRT: r = lw_call_intr(c, "llvm.sqrt", &t, 1, x, 1); break;
    case IR_FLOOR: r = lw_call_intr(c, "llvm.floor", &t, 1, x, 1); break;
    case IR_CEIL: r = lw_call_intr(c, "llvm.ceil", &t, 1, x, 1); break;
    case IR_TRUNC: r = lw_call_intr(c, "llvm.trunc", &t, 1, x, 1); break;
    case IR_RINT: r = lw_call_intr(c, "llvm.roundeven", &t, 1, x, 1); break;
    case IR_ROUND: r = lw_call_intr(c, "llvm.round", &t, 1, x, 1); break;
    case IR_ABS: r = lw_call_intr(c, "llvm.fabs", &t, 1, x, 1); break;
    case IR_FMA: r = lw_call_intr(c, "llvm.fma", &t, 1, x, 3); break;
    case IR_MIN: r = lw_call_intr(c, "llvm.minnum", &t, 1, x, 2); break;
    case IR_MAX: r = lw_call_intr(c, "llvm.maxnum", &t, 1, x, 2); break;
    default: return NULL;
    }
    return narrow ? LLVMBuildFPTrunc(b, r, lw_type(c, k), "") : r;
}

/* Integer x ** y by squaring (wrapping); a negative exponent on a signed
 * type gives 1/x^|y| truncated: 1 for x == 1, +-1 for x == -1, else 0. */
static LLVMValueRef lw_int_pow(LwFn *f, LLVMValueRef x, LLVMValueRef y,
                               int sgn) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef zero = LLVMConstInt(t, 0, 0), one = LLVMConstInt(t, 1, 0);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef head = lw_new_bb(f, "pow.head"), body = lw_new_bb(f, "pow.body"),
                      done = lw_new_bb(f, "pow.done");
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    LLVMValueRef r = LLVMBuildPhi(b, t, ""), base = LLVMBuildPhi(b, t, ""),
                 e = LLVMBuildPhi(b, t, "");
    LLVMAddIncoming(r, &one, &pre, 1);
    LLVMAddIncoming(base, &x, &pre, 1);
    LLVMAddIncoming(e, &y, &pre, 1);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, e, zero, ""), body, done);
    LLVMPositionBuilderAtEnd(b, body);
    LLVMValueRef odd = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, e, one, ""), zero, "");
    LLVMValueRef r2 = LLVMBuildSelect(b, odd, LLVMBuildMul(b, r, base, ""), r, "");
    LLVMValueRef base2 = LLVMBuildMul(b, base, base, "");
    LLVMValueRef e2 = LLVMBuildLShr(b, e, one, "");
    LLVMAddIncoming(r, &r2, &body, 1);
    LLVMAddIncoming(base, &base2, &body, 1);
    LLVMAddIncoming(e, &e2, &body, 1);
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, done);
    if (!sgn) return r;
    LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, y, zero, "");
    LLVMValueRef minus1 = LLVMConstAllOnes(t);
    LLVMValueRef yodd = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, y, one, ""), zero, "");
    LLVMValueRef inv = LLVMBuildSelect(
        b, LLVMBuildICmp(b, LLVMIntEQ, x, one, ""), one,
        LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, x, minus1, ""),
                        LLVMBuildSelect(b, yodd, minus1, one, ""), zero, ""),
        "");
    return LLVMBuildSelect(b, neg, inv, r, "");
}

/* x << y, x >> y with amounts >= the width clamped as PTX does. */
static LLVMValueRef lw_shift(LwFn *f, int opc, ScalarKind k, LLVMValueRef x,
                             LLVMValueRef y) {
    LLVMBuilderRef b = f->c->b;
    LLVMTypeRef t = LLVMTypeOf(x);
    int w = ty_bits(k);
    LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGE, y, LLVMConstInt(t, (unsigned)w, 0), "");
    if (opc == IR_SHL)
        return LLVMBuildSelect(b, big, LLVMConstNull(t), LLVMBuildShl(b, x, y, ""), "");
    if (!ty_issigned(k))
        return LLVMBuildSelect(b, big, LLVMConstNull(t), LLVMBuildLShr(b, x, y, ""), "");
    LLVMValueRef amt = LLVMBuildSelect(b, big, LLVMConstInt(t, (unsigned)w - 1, 0), y, "");
    return LLVMBuildAShr(b, x, amt, "");
}

/* Float x / y: div.full for f32 (see the header), IEEE otherwise. */
static LLVMValueRef lw_fdiv(LwFn *f, ScalarKind k, LLVMValueRef x, LLVMValueRef y) {
    LwCtx *c = f->c;
    if (k == SK_F32) {
        LLVMBool lossy;
        int e;
        if (!LLVMIsAConstantFP(y) ||
            frexp(LLVMConstRealGetDouble(y, &lossy), &e) != 0.5) {
            LLVMValueRef a[2] = {x, y};
            return lw_call_intr(c, "llvm.nvvm.div.full", NULL, 0, a, 2);
        }
    }
    return LLVMBuildFDiv(c->b, x, y, "");
}

/* x / y, x % y (C semantics, see the header). */
static LLVMValueRef lw_divrem(LwFn *f, const IrOp *op, ScalarKind k, LLVMValueRef x,
                              LLVMValueRef y) {
    LLVMValueRef q = lw_magic_divrem(f, op, x);   /* an inverted divisor */
    if (q) return q;
    int opc = op->op;
    LLVMBuilderRef b = f->c->b;
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef one = LLVMConstInt(t, 1, 0);
    LLVMValueRef bad = LLVMBuildICmp(b, LLVMIntEQ, y, LLVMConstNull(t), "");
    if (ty_issigned(k)) {
        int w = ty_bits(k);
        LLVMValueRef min = LLVMConstInt(t, 1ull << (w - 1), 0);
        LLVMValueRef ovf = LLVMBuildAnd(
            b, LLVMBuildICmp(b, LLVMIntEQ, x, min, ""),
            LLVMBuildICmp(b, LLVMIntEQ, y, LLVMConstAllOnes(t), ""), "");
        bad = LLVMBuildOr(b, bad, ovf, "");
    }
    LLVMValueRef d = LLVMBuildSelect(b, bad, one, y, "");
    if (opc == IR_DIV)
        return ty_issigned(k) ? LLVMBuildSDiv(b, x, d, "") : LLVMBuildUDiv(b, x, d, "");
    return ty_issigned(k) ? LLVMBuildSRem(b, x, d, "") : LLVMBuildURem(b, x, d, "");
}

static LLVMValueRef lw_int_minmax(LwFn *f, int opc, ScalarKind k,
                                  LLVMValueRef *x) {
    LLVMTypeRef t = LLVMTypeOf(x[0]);
    int s = ty_issigned(k);
    const char *n = opc == IR_MIN ? (s ? "llvm.smin" : "llvm.umin")
                                  : (s ? "llvm.smax" : "llvm.umax");
    return lw_call_intr(f->c, n, &t, 1, x, 2);
}

static LLVMValueRef lw_cmp(LwFn *f, CmpPred p, ScalarKind k, LLVMValueRef x,
                           LLVMValueRef y) {
    LLVMBuilderRef b = f->c->b;
    if (ty_isfloat(k)) {
        static const LLVMRealPredicate fp[] = {LLVMRealOEQ, LLVMRealUNE,
                                               LLVMRealOLT, LLVMRealOLE,
                                               LLVMRealOGT, LLVMRealOGE};
        return LLVMBuildFCmp(b, fp[p], x, y, "");
    }
    static const LLVMIntPredicate sp[] = {LLVMIntEQ, LLVMIntNE, LLVMIntSLT,
                                          LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
    static const LLVMIntPredicate up[] = {LLVMIntEQ, LLVMIntNE, LLVMIntULT,
                                          LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
    return LLVMBuildICmp(b, ty_issigned(k) ? sp[p] : up[p], x, y, "");
}

/* One element of op (operand kind k, result kind rk). */
static LLVMValueRef lw_scalar(LwFn *f, const IrOp *op, ScalarKind k,
                              ScalarKind rk, LLVMValueRef *x) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    int fl = ty_isfloat(k);
    switch (op->op) {
    case IR_CAST: return lw_cast_scalar(f, x[0], k, rk);
    case IR_ADD: return fl ? LLVMBuildFAdd(b, x[0], x[1], "") : LLVMBuildAdd(b, x[0], x[1], "");
    case IR_SUB: return fl ? LLVMBuildFSub(b, x[0], x[1], "") : LLVMBuildSub(b, x[0], x[1], "");
    case IR_MUL: return fl ? LLVMBuildFMul(b, x[0], x[1], "") : LLVMBuildMul(b, x[0], x[1], "");
    case IR_DIV: return fl ? lw_fdiv(f, k, x[0], x[1]) : lw_divrem(f, op, k, x[0], x[1]);
    case IR_REM:
        return fl ? lw_float_math(f, IR_REM, NULL, k, x, 2)
                  : lw_divrem(f, op, k, x[0], x[1]);
    case IR_AND: return LLVMBuildAnd(b, x[0], x[1], "");
    case IR_OR: return LLVMBuildOr(b, x[0], x[1], "");
    case IR_XOR: return LLVMBuildXor(b, x[0], x[1], "");
    case IR_SHL: case IR_SHR: return lw_shift(f, op->op, k, x[0], x[1]);
    case IR_MIN: case IR_MAX:
        return fl ? lw_float_math(f, op->op, NULL, k, x, 2) : lw_int_minmax(f, op->op, k, x);
    case IR_POW:
        return fl ? lw_float_math(f, op->op, NULL, k, x, 2)
                  : lw_int_pow(f, x[0], x[1], ty_issigned(k));
    case IR_UMULHI: return lw_mulhi(c, x[0], x[1], 0);
    case IR_CMP: return lw_cmp(f, (CmpPred)op->iattr[0], k, x[0], x[1]);
    case IR_NEG: return fl ? LLVMBuildFNeg(b, x[0], "") : LLVMBuildNeg(b, x[0], "");
    case IR_NOT: return LLVMBuildNot(b, x[0], "");
    case IR_ABS:
        if (fl) return lw_float_math(f, IR_ABS, NULL, k, x, 1);
        if (!ty_issigned(k)) return x[0];
        {
            LLVMTypeRef t = LLVMTypeOf(x[0]);
            LLVMValueRef a[2] = {x[0], LLVMConstInt(c->i1, 0, 0)};
            return lw_call_intr(c, "llvm.abs", &t, 1, a, 2);
        }
    case IR_FMA:
        if (fl) return lw_float_math(f, IR_FMA, NULL, k, x, 3);
        return LLVMBuildAdd(b, LLVMBuildMul(b, x[0], x[1], ""), x[2], "");
    case IR_SELECT: return LLVMBuildSelect(b, x[0], x[1], x[2], "");
    case IR_PTRADD: {
        LLVMValueRef off = x[1];
        if (ty_bits(k) < 64)
            off = ty_issigned(k) ? LLVMBuildSExt(b, off, c->i64, "")
                                 : LLVMBuildZExt(b, off, c->i64, "");
        ScalarKind pk = (ScalarKind)op->args[0]->ty.pointee;
        return LLVMBuildGEP2(b, lw_mem_type(c, pk), x[0], &off, 1, "");
    }
    case IR_EXP: case IR_EXP2: case IR_LOG: case IR_LOG2: case IR_SQRT:
    case IR_RSQRT: case IR_SIN: case IR_COS: case IR_TANH: case IR_ERF:
    case IR_FLOOR: case IR_CEIL: case IR_ROUND: case IR_RINT: case IR_TRUNC:
    case IR_TAN:
        return lw_float_math(f, op->op, NULL, k, x, 1);
    case IR_ATAN2: return lw_float_math(f, op->op, NULL, k, x, 2);
    case IR_LIBDEVICE:
        return lw_float_math(f, op->op, op->sattr, k, x, op->nargs);
    case IR_BITCAST: return LLVMBuildBitCast(b, x[0], lw_type(c, rk), "");
    default: return NULL;
    }
}

/* f32 lo and hi to f16 or bf16 (rk) in one cvt.rn.{f16,bf16}x2.f32.
 * LLVM's NVPTX back end forms that instruction only where the two
 * results go on packed (a vector store); a tile's registers stored one
 * at a time got one cvt each, and ptxas 13.0, finding an accumulator
 * register of wgmma read alone by a conversion, serializes every wgmma
 * of the kernel (ptxas's C7514 note): the l16 variant of an x @ W.T
 * whose output row stride is odd (plan/guard.c) ran its loop that way.
 * Pairs: half the conversions, and no such note. */
static void lw_narrow_pair(LwFn *f, ScalarKind rk, LLVMValueRef lo, LLVMValueRef hi,
                           LLVMValueRef out[2]) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LLVMValueRef args[2] = {hi, lo};   /* d.hi = cvt($1), d.lo = cvt($2) */
    LLVMValueRef w = lw_asm(c, c->i32, rk == SK_F16 ? "cvt.rn.f16x2.f32 $0, $1, $2;"
                                                    : "cvt.rn.bf16x2.f32 $0, $1, $2;",
                            "=r,f,f", args, 2, LW_ASM_NONE);
    LLVMTypeRef t = lw_type(c, rk);
    out[0] = LLVMBuildBitCast(b, LLVMBuildTrunc(b, w, c->i16, ""), t, "");
    out[1] = LLVMBuildBitCast(b, LLVMBuildTrunc(b, LLVMBuildLShr(b, w, lw_u32(c, 16), ""),
                                                c->i16, ""), t, "");
}

void lw_elementwise(LwFn *f, const IrOp *op) {
    const IrValue *res = op->res[0];
    const Layout *l = res->layout;
    LwVal in[3];
    for (int i = 0; i < op->nargs && i < 3; i++)
        in[i] = lw_in_layout(f, op->args[i], l);
    /* the operand kind: of the value operands (select: operand 1; ptradd:
     * the offset) */
    int ki = op->op == IR_SELECT || op->op == IR_PTRADD ? 1 : 0;
    ScalarKind k = (ScalarKind)op->args[ki]->ty.k;
    LwVal out = lw_new_val(f, lw_nregs(res));
    uint32_t same = ly_repeated_regs(f->ly, res);
    ScalarKind rk = (ScalarKind)res->ty.k;
    int narrow = op->op == IR_CAST && k == SK_F32 && (rk == SK_F16 || rk == SK_BF16);
    for (int r = 0; r < out.n; r++) {
        if ((uint32_t)r & same) {
            out.r[r] = out.r[(uint32_t)r & ~same];
            continue;
        }
        if (narrow && r % 2 == 0 && r + 1 < out.n && !((uint32_t)(r + 1) & same)) {
            lw_narrow_pair(f, rk, in[0].r[r], in[0].r[r + 1], &out.r[r]);
            r++;
            continue;
        }
        LLVMValueRef x[3];
        for (int i = 0; i < op->nargs && i < 3; i++) x[i] = in[i].r[r];
        out.r[r] = lw_scalar(f, op, k, rk, x);
    }
    lw_set(f, res, out);
}
