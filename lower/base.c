/*
 * base.c — the helpers every file of lower/ shares, and nothing else:
 * types and constants, calls of intrinsics, inline asm and libdevice,
 * errors, a lowered value's registers and new basic blocks, warp shuffles.
 * Feature files (kernel.c, elementwise.c, memory.c, reduce.c, dot.c,
 * smem.c, pipeline.c, layout.c, debug.c) call these and lw_op's entry
 * points, not each other's helpers.
 */
#include "config.h"

#include "lower/lw.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------- types and constants */


LLVMTypeRef lw_type(LwCtx *c, ScalarKind k) {
    switch (k) {
    case SK_BOOL: return c->i1;
    case SK_I8: case SK_U8: return c->i8;
    case SK_I16: case SK_U16: return c->i16;
    case SK_I32: case SK_U32: return c->i32;
    case SK_I64: case SK_U64: return c->i64;
    case SK_F16: return c->f16;
    case SK_BF16: return c->bf16;
    case SK_F32: return c->f32;
    case SK_F64: return c->f64;
    case SK_F8E4M3: case SK_F8E5M2: return c->i8;   /* the bits: see lw_f8_to_f32 */
    case SK_PTR: return c->gptr;
    default: return c->vd;
    }
}

LLVMTypeRef lw_mem_type(LwCtx *c, ScalarKind k) {
    return k == SK_BOOL ? c->i8 : lw_type(c, k);
}

/* A value of kind k between its register form and its memory form (a
 * bool is an i1 in registers and a byte in memory). */
LLVMValueRef lw_to_mem(LwFn *f, LLVMValueRef v, ScalarKind k) {
    return k == SK_BOOL ? LLVMBuildZExt(f->c->b, v, f->c->i8, "") : v;
}

LLVMValueRef lw_from_mem(LwFn *f, LLVMValueRef v, ScalarKind k) {
    return k == SK_BOOL ? LLVMBuildICmp(f->c->b, LLVMIntNE, v,
                                        LLVMConstInt(f->c->i8, 0, 0), "")
                        : v;
}

LLVMValueRef lw_int_limit(LwCtx *c, ScalarKind k, int largest) {
    int bits = ty_bits(k);
    uint64_t top = bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
    if (ty_issigned(k)) return LLVMConstInt(lw_type(c, k), largest ? top >> 1 : ~(top >> 1), 1);
    return LLVMConstInt(lw_type(c, k), largest ? top : 0, 0);
}

LLVMValueRef lw_i32(LwCtx *c, int64_t v) {
    return LLVMConstInt(c->i32, (unsigned long long)v, 1);
}

/* --------------------------------------------- intrinsics, asm, libdevice */

/* Intrinsics by name. An overloaded intrinsic needs exactly its overload
 * types (a wrong count crashes LLVM), a plain one none: checked here so
 * that a typo or a renamed intrinsic is a clear internal error. */
LLVMValueRef lw_intrinsic(LwCtx *c, const char *name, LLVMTypeRef *over,
                          int nover) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    if (id == 0) {
        fprintf(stderr, "tilec: internal error: LLVM has no intrinsic %s\n",
                name);
        abort();
    }
    if (!LLVMIntrinsicIsOverloaded(id))
        nover = 0;
    else if (nover == 0) {
        fprintf(stderr, "tilec: internal error: intrinsic %s needs overload "
                "types\n", name);
        abort();
    }
    return LLVMGetIntrinsicDeclaration(c->mod, id, over, (size_t)nover);
}

LLVMValueRef lw_call(LwCtx *c, LLVMValueRef fn, LLVMValueRef *args, int n) {
    return LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, args,
                          (unsigned)n, "");
}

LLVMValueRef lw_call_intr(LwCtx *c, const char *name, LLVMTypeRef *over,
                          int nover, LLVMValueRef *args, int n) {
    return lw_call(c, lw_intrinsic(c, name, over, nover), args, n);
}

LLVMValueRef lw_opaque32(LwCtx *c, LLVMValueRef v, const char *note) {
    char text[64];
    snprintf(text, sizeof text, "mov.b32 $0, $1;%s%s", note ? " // " : "", note ? note : "");
    return lw_asm(c, c->i32, text, "=r,r", &v, 1, LW_ASM_NONE);
}

/* LLVM's memory(read) (MemoryEffects::readOnly(): ModRef::Ref for each
 * of LLVM 22's six memory locations, two bits each). */
#define LW_MEMORY_READ 0x555u

/* A call of inline asm `text` (constraints `cons`) returning rt. */
LLVMValueRef lw_asm(LwCtx *c, LLVMTypeRef rt, const char *text, const char *cons,
                    LLVMValueRef *args, int n, LwAsmMem mem) {
    LLVMTypeRef *at = ar_alloc(c->ar, sizeof(LLVMTypeRef) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) at[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef ft = LLVMFunctionType(rt, at, (unsigned)n, 0);
    LLVMValueRef fn = LLVMGetInlineAsm(ft, text, strlen(text), cons,
                                       strlen(cons), mem == LW_ASM_WRITES, 0,
                                       LLVMInlineAsmDialectATT, 0);
    LLVMValueRef call = LLVMBuildCall2(c->b, ft, fn, args, (unsigned)n, "");
    if (mem == LW_ASM_WRITES) return call;
    unsigned kind = LLVMGetEnumAttributeKindForName("memory", 6);
    unsigned ret = LLVMGetEnumAttributeKindForName("willreturn", 10);
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                             LLVMCreateEnumAttribute(c->ctx, kind,
                                                     mem == LW_ASM_READS ? LW_MEMORY_READ : 0));
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                             LLVMCreateEnumAttribute(c->ctx, ret, 0));
    return call;
}

/* A libdevice function, declared on first use (defined once libdevice is
 * linked). */
LLVMValueRef lw_libdevice(LwCtx *c, const char *name, LLVMTypeRef ret,
                          LLVMTypeRef *params, int n) {
    LLVMValueRef fn = LLVMGetNamedFunction(c->mod, name);
    if (!fn)
        fn = LLVMAddFunction(c->mod, name,
                             LLVMFunctionType(ret, params, (unsigned)n, 0));
    return fn;
}

/* ---------------------------------------------------------------- errors */

void lw_error(LwFn *f, Loc l, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    dg_report(f->c->dg, DG_ERROR, l, fmt, ap);
    va_end(ap);
    f->failed = 1;
}

/* ------------------------------------------------- values and blocks */

LwVal *lw_val(LwFn *f, const IrValue *v) { return &f->vals[v->id]; }

void lw_set(LwFn *f, const IrValue *v, LwVal x) {
    f->vals[v->id] = x;
    if (f->maskw) lw_pack_mask(f, v, x);
}

LwVal lw_new_val(LwFn *f, int n) {
    LwVal v = {n, ar_alloc(f->c->ar, sizeof(LLVMValueRef) * (size_t)n)};
    return v;
}

int lw_nregs(const IrValue *v) {
    return v->layout ? ly_size(v->layout, LY_REG) : 1;
}

LLVMBasicBlockRef lw_new_bb(LwFn *f, const char *name) {
    return LLVMAppendBasicBlockInContext(f->c->ctx, f->fn, name);
}

LLVMBasicBlockRef lw_only_if(LwFn *f, LLVMValueRef cond, const char *name,
                             const char *join_name) {
    LLVMBasicBlockRef then = lw_new_bb(f, name), join = lw_new_bb(f, join_name);
    LLVMBuildCondBr(f->c->b, cond, then, join);
    LLVMPositionBuilderAtEnd(f->c->b, then);
    return join;
}

void lw_join(LwFn *f, LLVMBasicBlockRef join) {
    LLVMBuildBr(f->c->b, join);
    LLVMPositionBuilderAtEnd(f->c->b, join);
}

/* ------------------------------------------------------------- shuffles */

/* One 32-bit shuffle. `c` packs the clamp and segment mask: 0x1f for bfly
 * and idx (the whole warp), 0 for up (a source below lane 0 leaves the
 * value unchanged; callers mask such lanes themselves). */
static LLVMValueRef lw_shfl32(LwFn *f, LwShfl mode, LLVMValueRef v,
                              LLVMValueRef lane, int fl) {
    static const char *const names[3][2] = {
        {"llvm.nvvm.shfl.sync.bfly.i32", "llvm.nvvm.shfl.sync.bfly.f32"},
        {"llvm.nvvm.shfl.sync.up.i32", "llvm.nvvm.shfl.sync.up.f32"},
        {"llvm.nvvm.shfl.sync.idx.i32", "llvm.nvvm.shfl.sync.idx.f32"},
    };
    LwCtx *c = f->c;
    LLVMValueRef a[4] = {LLVMConstInt(c->i32, 0xffffffffu, 0), v, lane,
                         lw_i32(c, mode == LW_SHFL_UP ? 0 : 0x1f)};
    return lw_call_intr(c, names[mode][fl], NULL, 0, a, 4);
}

LLVMValueRef lw_shfl(LwFn *f, LwShfl mode, LLVMValueRef v, LLVMValueRef lane) {
    LwCtx *c = f->c;
    LLVMBuilderRef b = c->b;
    LLVMTypeRef t = LLVMTypeOf(v);
    if (t == c->f32) return lw_shfl32(f, mode, v, lane, 1);
    if (t == c->i32) return lw_shfl32(f, mode, v, lane, 0);
    if (LLVMGetTypeKind(t) == LLVMPointerTypeKind)
        return LLVMBuildIntToPtr(
            b, lw_shfl(f, mode, LLVMBuildPtrToInt(b, v, c->i64, ""), lane), t, "");
    unsigned bits = t == c->f16 || t == c->bf16 ? 16
                    : t == c->f64               ? 64
                                                : LLVMGetIntTypeWidth(t);
    LLVMTypeRef it = LLVMIntTypeInContext(c->ctx, bits);
    LLVMValueRef x = t == it ? v : LLVMBuildBitCast(b, v, it, "");
    LLVMValueRef r;
    if (bits == 64) {
        LLVMValueRef lo = LLVMBuildTrunc(b, x, c->i32, "");
        LLVMValueRef hi = LLVMBuildTrunc(b, LLVMBuildLShr(b, x, LLVMConstInt(c->i64, 32, 0), ""), c->i32, "");
        lo = LLVMBuildZExt(b, lw_shfl32(f, mode, lo, lane, 0), c->i64, "");
        hi = LLVMBuildZExt(b, lw_shfl32(f, mode, hi, lane, 0), c->i64, "");
        r = LLVMBuildOr(b, lo, LLVMBuildShl(b, hi, LLVMConstInt(c->i64, 32, 0), ""), "");
    } else {
        r = LLVMBuildTrunc(b, lw_shfl32(f, mode, LLVMBuildZExt(b, x, c->i32, ""), lane, 0), it, "");
    }
    return t == it ? r : LLVMBuildBitCast(b, r, t, "");
}

LLVMValueRef lw_shfl_xor(LwFn *f, LLVMValueRef v, int mask) {
    return lw_shfl(f, LW_SHFL_BFLY, v, lw_i32(f->c, mask));
}

