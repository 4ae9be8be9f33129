/*
 * types.c — element types, promotion, conversion and broadcasting.
 *
 * The rules are LANGUAGE.md's, in one place:
 *
 *  - Promotion of two typed (strong) operands: float beats int; the wider
 *    float wins; f16 with bf16 gives f32; the wider int wins; signed with
 *    unsigned of one width gives unsigned; bool loses to everything.
 *  - A literal (a *weak* constant) adapts to the other operand: `x * 2.0`
 *    stays f16, `i + 1` stays i8 — provided the literal fits; an int
 *    operand meeting a float literal becomes f32 (Triton's rule). Two
 *    literals stay weak; a lone literal defaults to i32 (i64 when it does
 *    not fit) or f32 when it is materialized.
 *  - Implicit conversion (let/var annotations, store values, fn parameter
 *    annotations, `other=`) is allowed exactly when the target is what
 *    promotion would produce: from ⊔ to == to. That forbids every
 *    narrowing (f32→f16, i32→i8, float→int, u32→i32) with one test.
 *  - Broadcasting: NumPy's. Shapes align from the right, size-1 dims
 *    stretch. The IR gets explicit splat / expand_dims / broadcast ops so
 *    that every element-wise op sees equal shapes.
 */
#include "sm.h"

#include <math.h>
#include <string.h>

SmVal sm_poison(void) {
    SmVal v = {0};
    v.kind = SV_POISON;
    return v;
}

SmVal sm_void(const char *callee, Loc loc) {
    SmVal v = {0};
    v.kind = SV_VOID;
    v.s = callee;
    v.loc = loc;
    return v;
}

SmVal sm_val(IrValue *iv, Loc loc) {
    SmVal v = {0};
    v.kind = SV_VAL;
    v.v = iv;
    v.loc = loc;
    return v;
}

int64_t sm_wrap_int(ScalarKind k, int64_t v) {
    switch (k) {
    case SK_BOOL: return v != 0;
    case SK_I8: return (int8_t)v;
    case SK_I16: return (int16_t)v;
    case SK_I32: return (int32_t)v;
    case SK_U8: return (uint8_t)v;
    case SK_U16: return (uint16_t)v;
    case SK_U32: return (uint32_t)v;
    default: return v;
    }
}

SmVal sm_const_int(ScalarKind k, int64_t i, int weak, Loc loc) {
    SmVal v = {0};
    v.kind = SV_CONST;
    v.weak = (uint8_t)weak;
    if (weak) k = i == (int32_t)i ? SK_I32 : SK_I64;
    v.k = (uint8_t)k;
    v.i = weak ? i : sm_wrap_int(k, i);
    v.f = (double)v.i;
    v.loc = loc;
    return v;
}

SmVal sm_const_float(ScalarKind k, double f, int weak, Loc loc) {
    SmVal v = {0};
    v.kind = SV_CONST;
    v.weak = (uint8_t)weak;
    v.k = (uint8_t)(weak ? SK_F32 : k);
    v.f = k == SK_F32 && !weak ? (double)(float)f : f;
    if (!weak && ty_isf8(k)) v.f = ty_f8_to_float(k, ty_f8_from_float(k, (float)f));
    v.loc = loc;
    return v;
}

SmVal sm_const_bool(int b, Loc loc) {
    SmVal v = {0};
    v.kind = SV_CONST;
    v.k = SK_BOOL;
    v.i = b != 0;
    v.f = (double)v.i;
    v.loc = loc;
    return v;
}

Type sm_type_of(const SmVal *v) {
    if (v->kind == SV_VAL) return v->v->ty;
    return ty_scalar((ScalarKind)v->k);
}

Type sm_with_kind(Type shape, ScalarKind k) {
    Type t = shape;
    t.k = (uint8_t)k;
    t.pointee = 0;
    return t;
}

const char *sm_describe(SmCtx *c, const SmVal *v) {
    switch ((SvKind)v->kind) {
    case SV_VAL: return ty_str(c->ar, v->v->ty);
    case SV_CONST:
        if (v->weak) return ty_isfloat(v->k) ? "float literal" : "int literal";
        return ty_kind_name((ScalarKind)v->k);
    case SV_TYPE: return ar_printf(c->ar, "type %s", ty_kind_name((ScalarKind)v->k));
    case SV_STR: return "string";
    case SV_LIST: return "list";
    case SV_NONE: return "None";
    case SV_SLICE: return "slice";
    case SV_VOID: return "no value";
    case SV_FN: return ar_printf(c->ar, "fn '%s'", v->s);
    default: return "error";
    }
}

int sm_is_value(const SmVal *v) {
    return v->kind == SV_VAL || v->kind == SV_CONST;
}

/* The one place that explains why something is not a value. */
int sm_check_value(SmCtx *c, const SmVal *v) {
    switch ((SvKind)v->kind) {
    case SV_VAL:
    case SV_CONST: return 1;
    case SV_POISON: return 0;
    case SV_VOID:
        dg_error(c->dg, v->loc, "'%s' does not return a value", v->s);
        return 0;
    case SV_TYPE:
        dg_error(c->dg, v->loc, "type '%s' cannot be used as a value",
                 ty_kind_name((ScalarKind)v->k));
        return 0;
    case SV_NONE:
        dg_error(c->dg, v->loc, "'None' can only appear in an index list");
        return 0;
    case SV_FN:
        dg_error(c->dg, v->loc, "fn '%s' cannot be used as a value", v->s);
        return 0;
    default:
        dg_error(c->dg, v->loc, "a %s cannot be used as a value",
                 sm_describe(c, v));
        return 0;
    }
}

SmVal sm_f8_refused(SmCtx *c, const char *what, const SmVal *v, Loc loc) {
    dg_error(c->dg, loc, "%s on '%s': f8 values are only loaded, stored, converted and "
             "moved; convert first ('as f32')", what, sm_describe(c, v));
    return sm_poison();
}

/* ------------------------------------------------------------ promotion */

ScalarKind sm_promote(ScalarKind a, ScalarKind b) {
    if (a == b) return a;
    if (a == SK_BOOL) return b;
    if (b == SK_BOOL) return a;
    int fa = ty_isfloat(a), fb = ty_isfloat(b);
    if (fa != fb) return fa ? a : b;
    if (fa) {
        if (ty_bits(a) == ty_bits(b)) return SK_F32;  /* f16 with bf16 */
        return ty_bits(a) > ty_bits(b) ? a : b;
    }
    if (ty_bits(a) != ty_bits(b)) return ty_bits(a) > ty_bits(b) ? a : b;
    return ty_issigned(a) ? b : a;                    /* unsigned wins */
}

/* The result kind of a binary op on a and b, literals adapting. */
ScalarKind sm_promote_weak(const SmVal *a, const SmVal *b) {
    int wa = a->kind == SV_CONST && a->weak, wb = b->kind == SV_CONST && b->weak;
    ScalarKind ka = sm_type_of(a).k, kb = sm_type_of(b).k;
    if (wa && wb) return sm_promote(ka, kb);
    if (wa || wb) {
        const SmVal *w = wa ? a : b;
        ScalarKind ks = wa ? kb : ka, kw = wa ? ka : kb;
        if (ty_isfloat(ks)) return ks;
        if (ty_isint(ks)) return ty_isfloat(kw) ? SK_F32 : ks;
        (void)w;
        return kw;                                     /* strong is bool */
    }
    return sm_promote(ka, kb);
}

static int int_fits(int64_t v, ScalarKind k) {
    switch (k) {
    case SK_I8: return v >= INT8_MIN && v <= INT8_MAX;
    case SK_I16: return v >= INT16_MIN && v <= INT16_MAX;
    case SK_I32: return v >= INT32_MIN && v <= INT32_MAX;
    case SK_U8: return v >= 0 && v <= UINT8_MAX;
    case SK_U16: return v >= 0 && v <= UINT16_MAX;
    case SK_U32: return v >= 0 && v <= (int64_t)UINT32_MAX;
    case SK_U64: return v >= 0;
    default: return 1;
    }
}

/* Does a weak int literal keep its value as kind `to`? */
int sm_const_fits(const SmVal *v, ScalarKind to) {
    if (v->kind != SV_CONST || !v->weak || !ty_isint(v->k)) return 1;
    return !ty_isint(to) || int_fits(v->i, to);
}

int sm_implicit_ok(const SmVal *v, ScalarKind to) {
    ScalarKind from = sm_type_of(v).k;
    if (from == SK_PTR || to == SK_PTR) return from == to;
    if (v->kind == SV_CONST && v->weak) {
        if (ty_isfloat(to)) return 1;
        return ty_isint(to) && ty_isint(from) && int_fits(v->i, to);
    }
    return sm_promote(from, to) == to;
}

/* --------------------------------------------------------- conversions */

SmVal sm_fold_cast(const SmVal *v, ScalarKind to) {
    ScalarKind from = (ScalarKind)v->k;
    if (ty_isfloat(to)) {
        double f = ty_isfloat(from) ? v->f
                 : from == SK_U64   ? (double)(uint64_t)v->i
                                    : (double)v->i;
        return sm_const_float(to, f, 0, v->loc);
    }
    if (to == SK_BOOL)
        return sm_const_bool(ty_isfloat(from) ? v->f != 0 : v->i != 0, v->loc);
    int64_t i = v->i;
    if (ty_isfloat(from)) {
        double f = trunc(v->f);
        if (isnan(f)) i = 0;
        else if (f >= 9.2233720368547758e18) i = INT64_MAX;
        else if (f <= -9.2233720368547758e18) i = INT64_MIN;
        else i = (int64_t)f;
    }
    return sm_const_int(to, i, 0, v->loc);
}

IrValue *sm_emit1(SmCtx *c, IrOpcode op, Type t, IrValue *a, IrValue *b,
                  IrValue *d) {
    IrValue *args[3] = {a, b, d};
    int n = d ? 3 : b ? 2 : a ? 1 : 0;
    return ir_emit(&c->b, op, 1, &t, n, args)->res[0];
}

IrValue *sm_cast(SmCtx *c, IrValue *v, ScalarKind k) {
    if (v->ty.k == k) return v;
    return sm_emit1(c, IR_CAST, sm_with_kind(v->ty, k), v, NULL, NULL);
}

IrValue *sm_materialize(SmCtx *c, const SmVal *v, ScalarKind k) {
    if (v->kind == SV_VAL) return sm_cast(c, v->v, k);
    SmVal cv = sm_fold_cast(v, k);
    Type t = ty_scalar(k);
    return ty_isfloat(k) ? ir_const_float(&c->b, t, cv.f)
                         : ir_const_int(&c->b, t, cv.i);
}

/* A value as an IR value of element kind k: literals take k directly. */
IrValue *sm_convert(SmCtx *c, const SmVal *v, ScalarKind k) {
    return sm_materialize(c, v, k);
}

/* --------------------------------------------------------- broadcasting */

int sm_broadcast_shape(Type a, Type b, Type *out) {
    Type r = a.rank >= b.rank ? a : b;
    int ra = a.rank, rb = b.rank;
    for (int i = 1; i <= r.rank; i++) {
        int32_t da = i <= ra ? a.dim[ra - i] : 1;
        int32_t db = i <= rb ? b.dim[rb - i] : 1;
        if (da != db && da != 1 && db != 1) return 0;
        r.dim[r.rank - i] = da == 1 ? db : da;
    }
    *out = r;
    return 1;
}

IrValue *sm_broadcast_to(SmCtx *c, IrValue *v, Type shape) {
    Type want = sm_with_kind(shape, v->ty.k);
    want.pointee = v->ty.pointee;
    if (ty_same_shape(v->ty, want)) return v;
    if (v->ty.rank == 0) return sm_emit1(c, IR_SPLAT, want, v, NULL, NULL);
    while (v->ty.rank < want.rank) {
        Type t = v->ty;
        memmove(t.dim + 1, t.dim, sizeof(int32_t) * t.rank);
        t.dim[0] = 1;
        t.rank++;
        v = sm_emit1(c, IR_EXPAND_DIMS, t, v, NULL, NULL);
        v->def->iattr[0] = 0;
    }
    if (ty_same_shape(v->ty, want)) return v;
    return sm_emit1(c, IR_BROADCAST, want, v, NULL, NULL);
}

/* Largest tile sema accepts, as Triton: 2^20 elements. */
#define SM_MAX_NUMEL (1 << 20)

int sm_check_shape(SmCtx *c, Loc loc, int rank, const int32_t *dims) {
    if (rank > IR_MAXRANK) {
        dg_error(c->dg, loc, "tiles have at most %d dimensions, not %d",
                 IR_MAXRANK, rank);
        return 0;
    }
    /* a tile is laid out padded to powers of two (ir.h, ty_pad): the
     * padded tile is what must fit */
    int64_t n = 1, padded = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 1) {
            dg_error(c->dg, loc, "tile dimension %d is not positive", (int)dims[i]);
            return 0;
        }
        n *= dims[i];
        padded *= pow2_ceil(dims[i]);
    }
    if (padded > SM_MAX_NUMEL) {
        if (padded != n)
            dg_error(c->dg, loc, "tile of %lld elements, %lld when each extent is "
                     "rounded up to a power of two, is too large (at most %d)",
                     (long long)n, (long long)padded, SM_MAX_NUMEL);
        else
            dg_error(c->dg, loc, "tile of %lld elements is too large (at most %d)",
                     (long long)n, SM_MAX_NUMEL);
        return 0;
    }
    return 1;
}
