/*
 * elementwise.c — casts, arithmetic, comparisons, math functions, fma and
 * select, element by element.
 *
 * Integers follow C at the type's width: add/sub/mul/neg/abs wrap, `/` and
 * `%` truncate toward zero, division by zero stops the run with a located
 * error, and INT_MIN / -1 wraps to INT_MIN (remainder 0). Shift amounts are
 * taken as unsigned; an amount >= the width gives 0 for `<<` and for `>>`
 * on unsigned types, and the sign fill (0 or -1) for `>>` on signed types,
 * as PTX's shl/shr clamp them. umulhi gives the high half of the unsigned
 * double-width product.
 *
 * Floats: f32 ops are computed in float and f64 ops in double. f16 and
 * bf16 ops are computed in float and rounded to the type after every op
 * (float's 24 bits make that a correctly rounded result for + - * / and
 * sqrt). min/max are IEEE minNum/maxNum: a NaN operand loses to a number.
 * Comparisons with a NaN are false, except `!=`. `%` on floats is C's
 * fmod. The math functions (exp, log, erf, tanh, tan, pow, atan2, ...) are
 * computed in double and rounded once to the result type; rsqrt is 1/sqrt
 * in double. floor, ceil, trunc, round (half away from zero) and rint
 * (half to even) are exact in any format. bitcast rereads an element's
 * bits (fp.c). `libdevice("name", ...)` is the host libm function of that
 * name (sema/libdevice.h), likewise in double and rounded once; operands
 * are f32 or f64 (sema widens f16/bf16).
 *
 * Operands whose static type is a scalar broadcast over a tile result (the
 * IR makes broadcasting explicit, but this keeps scalar conditions and
 * constants cheap).
 */
#include "interp.h"
#include "../sema/libdevice.h"

#include <math.h>

static int64_t stride_of(const IrValue *v) { return ty_numel(v->ty) == 1 ? 0 : 1; }

/* -------------------------------------------------------------- integers */

static uint64_t mulhi64(uint64_t a, uint64_t b) {
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static uint64_t int_pow(int64_t x, int64_t y, int is_signed) {
    if (is_signed && y < 0)          /* 1 / x^|y|, truncated */
        return x == 1 ? 1 : x == -1 ? ((y & 1) ? (uint64_t)-1 : 1) : 0;
    uint64_t r = 1, b = (uint64_t)x, e = (uint64_t)y;
    for (; e; e >>= 1, b *= b)
        if (e & 1) r *= b;
    return r;
}

/* One integer binary op at kind k; sets *div0 on division by zero. */
static int64_t int_binary(int opc, ScalarKind k, IpSlot a, IpSlot b, int *div0) {
    int sgn = ty_issigned(k), bits = ty_bits(k);
    uint64_t x = a.u, y = b.u;
    switch (opc) {
    case IR_ADD: return ip_wrap(k, x + y);
    case IR_SUB: return ip_wrap(k, x - y);
    case IR_MUL: return ip_wrap(k, x * y);
    case IR_DIV:
    case IR_REM:
        if (y == 0) {
            *div0 = 1;
            return 0;
        }
        if (sgn && a.i == INT64_MIN && b.i == -1)
            return opc == IR_DIV ? INT64_MIN : 0;
        if (sgn) return ip_wrap(k, (uint64_t)(opc == IR_DIV ? a.i / b.i : a.i % b.i));
        return ip_wrap(k, opc == IR_DIV ? x / y : x % y);
    case IR_AND: return ip_wrap(k, x & y);
    case IR_OR: return ip_wrap(k, x | y);
    case IR_XOR: return ip_wrap(k, x ^ y);
    case IR_SHL: return y >= (uint64_t)bits ? 0 : ip_wrap(k, x << y);
    case IR_SHR:
        if (sgn) return y >= (uint64_t)bits ? (a.i < 0 ? -1 : 0) : a.i >> y;
        return y >= (uint64_t)bits ? 0 : (int64_t)(x >> y);
    case IR_MIN: return (sgn ? a.i < b.i : x < y) ? a.i : b.i;
    case IR_MAX: return (sgn ? a.i > b.i : x > y) ? a.i : b.i;
    case IR_POW: return ip_wrap(k, int_pow(a.i, b.i, sgn));
    case IR_UMULHI: {
        uint64_t mask = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
        if (bits == 64) return (int64_t)mulhi64(x, y);
        return ip_wrap(k, ((x & mask) * (y & mask)) >> bits);
    }
    default: return 0;
    }
}

/* ---------------------------------------------------------------- floats */

static double float_binary(int opc, ScalarKind k, double x, double y) {
    if (opc == IR_POW) return ip_round(k, pow(x, y));
    if (opc == IR_ATAN2) return ip_round(k, atan2(x, y));
    if (k == SK_F64) {
        switch (opc) {
        case IR_ADD: return x + y;
        case IR_SUB: return x - y;
        case IR_MUL: return x * y;
        case IR_DIV: return x / y;
        case IR_REM: return fmod(x, y);
        case IR_MIN: return fmin(x, y);
        case IR_MAX: return fmax(x, y);
        default: return 0;
        }
    }
    float a = (float)x, b = (float)y, r;
    switch (opc) {
    case IR_ADD: r = a + b; break;
    case IR_SUB: r = a - b; break;
    case IR_MUL: r = a * b; break;
    case IR_DIV: r = a / b; break;
    case IR_REM: r = fmodf(a, b); break;
    case IR_MIN: r = fminf(a, b); break;
    case IR_MAX: r = fmaxf(a, b); break;
    default: r = 0; break;
    }
    return k == SK_F32 ? (double)r : ip_round(k, r);
}

static double float_unary(int opc, double x) {
    switch (opc) {
    case IR_NEG: return -x;
    case IR_ABS: return fabs(x);
    case IR_EXP: return exp(x);
    case IR_EXP2: return exp2(x);
    case IR_LOG: return log(x);
    case IR_LOG2: return log2(x);
    case IR_SQRT: return sqrt(x);
    case IR_RSQRT: return 1.0 / sqrt(x);
    case IR_SIN: return sin(x);
    case IR_COS: return cos(x);
    case IR_TANH: return tanh(x);
    case IR_ERF: return erf(x);
    case IR_FLOOR: return floor(x);
    case IR_CEIL: return ceil(x);
    case IR_ROUND: return round(x);
    case IR_RINT: return nearbyint(x);   /* the default mode: to even */
    case IR_TRUNC: return trunc(x);
    case IR_TAN: return tan(x);
    default: return 0;
    }
}

static int64_t int_unary(int opc, ScalarKind k, IpSlot a) {
    switch (opc) {
    case IR_NEG: return ip_wrap(k, 0 - a.u);
    case IR_NOT: return k == SK_BOOL ? !a.i : ip_wrap(k, ~a.u);
    case IR_ABS: return ty_issigned(k) && a.i < 0 ? ip_wrap(k, 0 - a.u) : a.i;
    default: return a.i;                 /* floor/ceil of an integer */
    }
}

/* ------------------------------------------------------------------ ops */

static int exec_binary(IpMachine *m, const IrOp *op) {
    ScalarKind k = op->res[0]->ty.k;
    const IpSlot *a = ip_val(m, op->args[0]), *b = ip_val(m, op->args[1]);
    int64_t sa = stride_of(op->args[0]), sb = stride_of(op->args[1]);
    IpSlot *r = ip_val(m, op->res[0]);
    int64_t n = ty_numel(op->res[0]->ty);
    if (ty_isfloat(k)) {
        for (int64_t i = 0; i < n; i++)
            r[i].f = float_binary(op->op, k, a[i * sa].f, b[i * sb].f);
        return 0;
    }
    for (int64_t i = 0; i < n; i++) {
        int div0 = 0;
        r[i].i = int_binary(op->op, k, a[i * sa], b[i * sb], &div0);
        if (div0) {
            char idx[64];
            return ip_fail(m, op, "integer division by zero: index %s",
                           ip_index_str(idx, sizeof idx, op->res[0]->ty, i));
        }
    }
    return 0;
}

static int compare(CmpPred p, ScalarKind k, IpSlot a, IpSlot b) {
    int lt, eq;
    if (ty_isfloat(k)) {
        if (isnan(a.f) || isnan(b.f)) return p == CMP_NE;
        lt = a.f < b.f, eq = a.f == b.f;
    } else if (ty_issigned(k)) {
        lt = a.i < b.i, eq = a.i == b.i;
    } else {
        lt = a.u < b.u, eq = a.u == b.u;
    }
    switch (p) {
    case CMP_EQ: return eq;
    case CMP_NE: return !eq;
    case CMP_LT: return lt;
    case CMP_LE: return lt || eq;
    case CMP_GT: return !lt && !eq;
    case CMP_GE: return !lt;
    }
    return 0;
}

static int exec_cmp(IpMachine *m, const IrOp *op) {
    ScalarKind k = op->args[0]->ty.k;
    const IpSlot *a = ip_val(m, op->args[0]), *b = ip_val(m, op->args[1]);
    int64_t sa = stride_of(op->args[0]), sb = stride_of(op->args[1]);
    IpSlot *r = ip_val(m, op->res[0]);
    int64_t n = ty_numel(op->res[0]->ty);
    for (int64_t i = 0; i < n; i++)
        r[i].i = compare((CmpPred)op->iattr[0], k, a[i * sa], b[i * sb]);
    return 0;
}

static int exec_unary(IpMachine *m, const IrOp *op) {
    ScalarKind k = op->res[0]->ty.k;
    const IpSlot *a = ip_val(m, op->args[0]);
    int64_t sa = stride_of(op->args[0]);
    IpSlot *r = ip_val(m, op->res[0]);
    int64_t n = ty_numel(op->res[0]->ty);
    if (ty_isfloat(k)) {
        for (int64_t i = 0; i < n; i++)
            r[i].f = ip_round(k, float_unary(op->op, a[i * sa].f));
    } else {
        for (int64_t i = 0; i < n; i++) r[i].i = int_unary(op->op, k, a[i * sa]);
    }
    return 0;
}

static double libdevice_at(const LdFn *ld, ScalarKind k, double x, double y) {
    if (ld->nargs == 1) return ip_round(k, ld->f1(x));
    if (ld->f2_f32 && k != SK_F64) return ip_round(k, ld->f2_f32((float)x, (float)y));
    return ip_round(k, ld->f2(x, y));
}

static int exec_libdevice(IpMachine *m, const IrOp *op) {
    const LdFn *ld = ld_find(op->sattr ? op->sattr : "");
    if (!ld || ld->nargs != op->nargs)
        return ip_fail(m, op, "no libdevice function '%s' of %d operands",
                       op->sattr ? op->sattr : "", op->nargs);
    ScalarKind k = op->res[0]->ty.k;
    const IpSlot *a = ip_val(m, op->args[0]);
    const IpSlot *b = op->nargs == 2 ? ip_val(m, op->args[1]) : a;
    int64_t sa = stride_of(op->args[0]), sb = stride_of(op->args[op->nargs - 1]);
    IpSlot *r = ip_val(m, op->res[0]);
    int64_t n = ty_numel(op->res[0]->ty);
    for (int64_t i = 0; i < n; i++)
        r[i].f = libdevice_at(ld, k, a[i * sa].f, b[i * sb].f);
    return 0;
}

static int exec_fma(IpMachine *m, const IrOp *op) {
    ScalarKind k = op->res[0]->ty.k;
    const IpSlot *a = ip_val(m, op->args[0]), *b = ip_val(m, op->args[1]),
                 *c = ip_val(m, op->args[2]);
    int64_t sa = stride_of(op->args[0]), sb = stride_of(op->args[1]),
            sc = stride_of(op->args[2]);
    IpSlot *r = ip_val(m, op->res[0]);
    int64_t n = ty_numel(op->res[0]->ty);
    for (int64_t i = 0; i < n; i++) {
        IpSlot x = a[i * sa], y = b[i * sb], z = c[i * sc];
        if (k == SK_F32)
            r[i].f = fmaf((float)x.f, (float)y.f, (float)z.f);
        else if (ty_isfloat(k))
            r[i].f = ip_round(k, fma(x.f, y.f, z.f));
        else
            r[i].i = ip_wrap(k, x.u * y.u + z.u);
    }
    return 0;
}

static int exec_select(IpMachine *m, const IrOp *op) {
    const IpSlot *c = ip_val(m, op->args[0]), *a = ip_val(m, op->args[1]),
                 *b = ip_val(m, op->args[2]);
    int64_t sc = stride_of(op->args[0]), sa = stride_of(op->args[1]),
            sb = stride_of(op->args[2]);
    IpSlot *r = ip_val(m, op->res[0]);
    int64_t n = ty_numel(op->res[0]->ty);
    for (int64_t i = 0; i < n; i++) r[i] = c[i * sc].i ? a[i * sa] : b[i * sb];
    return 0;
}

/* Pointer casts rescale the element offset to the new pointee; a byte
 * offset that the new element size does not divide cannot be expressed. */
static int cast_pointers(IpMachine *m, const IrOp *op) {
    const IpSlot *a = ip_val(m, op->args[0]);
    IpSlot *r = ip_val(m, op->res[0]);
    int64_t from = ty_bytes(op->args[0]->ty.pointee), to = ty_bytes(op->res[0]->ty.pointee);
    int64_t n = ty_numel(op->res[0]->ty), sa = stride_of(op->args[0]);
    for (int64_t i = 0; i < n; i++) {
        uint64_t p = a[i * sa].u;
        int64_t off = ip_ptr_off(p);
        if (off != IP_WILD && (off * from) % to != 0) {
            char idx[64];
            return ip_fail(m, op, "pointer cast to '*%s' is misaligned: index %s",
                           ty_kind_name(op->res[0]->ty.pointee),
                           ip_index_str(idx, sizeof idx, op->res[0]->ty, i));
        }
        r[i].u = ip_ptr(ip_ptr_buf(p), off == IP_WILD ? off : off * from / to);
    }
    return 0;
}

/* Each element of op's operand through f, from its kind to the result's
 * (a cast or a bitcast). */
static int map_kinds(IpMachine *m, const IrOp *op,
                     IpSlot (*f)(ScalarKind, ScalarKind, IpSlot)) {
    ScalarKind from = op->args[0]->ty.k, to = op->res[0]->ty.k;
    const IpSlot *a = ip_val(m, op->args[0]);
    int64_t sa = stride_of(op->args[0]);
    IpSlot *r = ip_val(m, op->res[0]);
    int64_t n = ty_numel(op->res[0]->ty);
    for (int64_t i = 0; i < n; i++) r[i] = f(from, to, a[i * sa]);
    return 0;
}

static int exec_bitcast(IpMachine *m, const IrOp *op) {
    return map_kinds(m, op, ip_bitcast);
}

static int exec_cast(IpMachine *m, const IrOp *op) {
    ScalarKind from = op->args[0]->ty.k, to = op->res[0]->ty.k;
    if (from == SK_PTR && to == SK_PTR) return cast_pointers(m, op);
    if (from == SK_PTR || to == SK_PTR)
        return ip_fail(m, op, "the interpreter cannot convert between "
                       "pointers and integers");
    return map_kinds(m, op, ip_convert);
}

int ip_exec_elementwise(IpMachine *m, const IrOp *op) {
    switch (op->op) {
    case IR_CAST: return exec_cast(m, op);
    case IR_BITCAST: return exec_bitcast(m, op);
    case IR_ADD: case IR_SUB: case IR_MUL: case IR_DIV: case IR_REM:
    case IR_AND: case IR_OR: case IR_XOR: case IR_SHL: case IR_SHR:
    case IR_MIN: case IR_MAX: case IR_POW: case IR_UMULHI: case IR_ATAN2:
        return exec_binary(m, op);
    case IR_CMP: return exec_cmp(m, op);
    case IR_FMA: return exec_fma(m, op);
    case IR_LIBDEVICE: return exec_libdevice(m, op);
    case IR_SELECT: return exec_select(m, op);
    default: return exec_unary(m, op);
    }
}
