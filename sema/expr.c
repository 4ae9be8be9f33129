/*
 * expr.c — expressions: names, operators, casts, indexing, calls.
 *
 * Each operator goes through the same three steps: classify the operands
 * (rejecting kinds the operator does not take), find the result element
 * type (types.c's promotion, literals adapting), then either fold — when
 * both operands are compile-time constants — or convert, broadcast and
 * emit one IR op. Folding follows the IR's semantics exactly (wrap-around
 * ints of the result's width, C truncating division, f32 rounding), so a
 * folded expression means what the unfolded one would have computed.
 *
 * Pointer arithmetic is the one asymmetric case: `p + offs` (or `offs + p`,
 * `p - offs`) is a ptradd whose shape is the broadcast of both.
 */
#include "sm.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *op_spelling(AstOp op) {
    static const char *const s[] = {
        [OP_OROR] = "||", [OP_ANDAND] = "&&", [OP_OR] = "|", [OP_XOR] = "^",
        [OP_AND] = "&", [OP_EQ] = "==", [OP_NE] = "!=", [OP_LT] = "<",
        [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=", [OP_SHL] = "<<",
        [OP_SHR] = ">>", [OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*",
        [OP_DIV] = "/", [OP_MOD] = "%", [OP_NEG] = "-", [OP_NOT] = "!",
        [OP_BITNOT] = "~",
    };
    return s[op];
}

static int is_cmp(AstOp op) { return op >= OP_EQ && op <= OP_GE; }

static IrOpcode ir_opcode(AstOp op) {
    switch (op) {
    case OP_ADD: return IR_ADD;
    case OP_SUB: return IR_SUB;
    case OP_MUL: return IR_MUL;
    case OP_DIV: return IR_DIV;
    case OP_MOD: return IR_REM;
    case OP_AND: case OP_ANDAND: return IR_AND;
    case OP_OR: case OP_OROR: return IR_OR;
    case OP_XOR: return IR_XOR;
    case OP_SHL: return IR_SHL;
    case OP_SHR: return IR_SHR;
    default: return IR_CMP;
    }
}

/* ------------------------------------------------------------- folding */

static int fold_error(SmCtx *c, Loc loc, const char *msg) {
    dg_error(c->dg, loc, "%s", msg);
    return 0;
}

static int cmp_result(AstOp op, int lt, int eq) {
    switch (op) {
    case OP_EQ: return eq;
    case OP_NE: return !eq;
    case OP_LT: return lt;
    case OP_LE: return lt || eq;
    case OP_GT: return !lt && !eq;
    default: return !lt;
    }
}

/* Whether x op y overflows: weak (two literals), the exact result does
 * not fit in 64 bits, the width of compile-time integer arithmetic; typed,
 * it does not fit in signed kind k. Unsigned kinds wrap by definition. y
 * is a valid divisor or shift amount. */
static int overflows(AstOp op, int64_t x, int64_t y, ScalarKind k, int weak) {
    if (!weak && !ty_issigned(k)) return 0;
    int64_t r;
    switch (op) {
    case OP_ADD: if (__builtin_add_overflow(x, y, &r)) return 1; break;
    case OP_SUB: if (__builtin_sub_overflow(x, y, &r)) return 1; break;
    case OP_MUL: if (__builtin_mul_overflow(x, y, &r)) return 1; break;
    case OP_DIV:
        if (x == INT64_MIN && y == -1) return 1;
        r = x / y;
        break;
    case OP_SHL:
        r = (int64_t)((uint64_t)x << y);
        if (r >> y != x) return 1;
        break;
    default: return 0;
    }
    return !weak && sm_wrap_int(k, r) != r;
}

static SmVal overflow_error(SmCtx *c, AstOp op, int64_t x, int64_t y,
                            ScalarKind k, int weak, Loc loc) {
    dg_error(c->dg, loc, "integer overflow in a constant expression: %lld %s "
             "%lld does not fit in %s", (long long)x, op_spelling(op),
             (long long)y, weak ? "64 bits" : ar_printf(c->ar, "'%s'",
                                                          ty_kind_name(k)));
    return sm_poison();
}

/* Folds a op b, both constants converted to kind k. */
static SmVal fold_binary(SmCtx *c, AstOp op, SmVal a, SmVal b, ScalarKind k,
                         int weak, Loc loc) {
    if (!weak) {
        a = sm_fold_cast(&a, k);
        b = sm_fold_cast(&b, k);
    }
    if (ty_isfloat(k)) {
        double x = a.kind == SV_CONST && ty_isfloat(a.k) ? a.f : (double)a.i;
        double y = b.kind == SV_CONST && ty_isfloat(b.k) ? b.f : (double)b.i;
        if (is_cmp(op)) return sm_const_bool(cmp_result(op, x < y, x == y), loc);
        double r = op == OP_ADD ? x + y : op == OP_SUB ? x - y
                 : op == OP_MUL ? x * y : op == OP_DIV ? x / y : fmod(x, y);
        return sm_const_float(k, r, weak, loc);
    }
    int64_t x = a.i, y = b.i;
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
    int uns = !weak && !ty_issigned(k) && k != SK_BOOL;
    if (is_cmp(op))
        return sm_const_bool(cmp_result(op, uns ? ux < uy : x < y, x == y), loc);
    int64_t r = 0;
    switch (op) {
    case OP_ADD: r = (int64_t)(ux + uy); break;
    case OP_SUB: r = (int64_t)(ux - uy); break;
    case OP_MUL: r = (int64_t)(ux * uy); break;
    case OP_DIV:
    case OP_MOD:
        if (y == 0) {
            fold_error(c, loc, "division by zero in a constant expression");
            return sm_poison();
        }
        if (uns) r = (int64_t)(op == OP_DIV ? ux / uy : ux % uy);
        else if (x == INT64_MIN && y == -1) r = op == OP_DIV ? x : 0;
        else r = op == OP_DIV ? x / y : x % y;
        break;
    case OP_AND: case OP_ANDAND: r = x & y; break;
    case OP_OR: case OP_OROR: r = x | y; break;
    case OP_XOR: r = x ^ y; break;
    case OP_SHL:
    case OP_SHR: {
        int bits = weak ? 64 : ty_bits(k);
        if (y < 0 || y >= bits) {
            dg_error(c->dg, loc, "shift amount %lld is out of range for %s "
                     "(0 to %d)", (long long)y,
                     weak ? "a 64-bit integer literal"
                          : ar_printf(c->ar, "'%s'", ty_kind_name(k)),
                     bits - 1);
            return sm_poison();
        }
        r = op == OP_SHL ? (int64_t)(ux << y) : uns ? (int64_t)(ux >> y) : x >> y;
        break;
    }
    default: break;
    }
    if (k != SK_BOOL && overflows(op, x, y, k, weak))
        return overflow_error(c, op, x, y, k, weak, loc);
    if (k == SK_BOOL) return sm_const_bool((int)(r & 1), loc);
    return sm_const_int(k, r, weak, loc);
}

/* ----------------------------------------------------------- operators */

static SmVal invalid_operands(SmCtx *c, AstOp op, SmVal *a, SmVal *b,
                              Loc loc) {
    dg_error(c->dg, loc, "invalid operands to '%s' ('%s' and '%s')",
             op_spelling(op), sm_describe(c, a), sm_describe(c, b));
    return sm_poison();
}

/* p + offs, offs + p, p - offs */
static SmVal pointer_arith(SmCtx *c, AstOp op, SmVal a, SmVal b, Loc loc) {
    int pa = sm_type_of(&a).k == SK_PTR, pb = sm_type_of(&b).k == SK_PTR;
    SmVal *p = pa ? &a : &b, *o = pa ? &b : &a;
    if ((pa && pb) || !ty_isint(sm_type_of(o).k) || (op != OP_ADD && op != OP_SUB) ||
        (op == OP_SUB && !pa))
        return invalid_operands(c, op, &a, &b, loc);
    Type shape;
    if (!sm_broadcast_shape(sm_type_of(p), sm_type_of(o), &shape)) {
        dg_error(c->dg, loc, "incompatible shapes for '%s': '%s' and '%s'",
                 op_spelling(op), sm_describe(c, &a), sm_describe(c, &b));
        return sm_poison();
    }
    SmVal off = *o;
    if (op == OP_SUB) off = sm_unary(c, OP_NEG, off, o->loc);
    IrValue *ov = sm_convert(c, &off, off.kind == SV_CONST && off.weak
                                         ? (ScalarKind)off.k : sm_type_of(&off).k);
    Type pt = sm_type_of(p);
    Type rt = shape;
    rt.k = SK_PTR;
    rt.pointee = pt.pointee;
    IrValue *pv = sm_broadcast_to(c, p->v, rt);
    ov = sm_broadcast_to(c, ov, rt);
    return sm_val(sm_emit1(c, IR_PTRADD, rt, pv, ov, NULL), loc);
}

SmVal sm_binary(SmCtx *c, AstOp op, SmVal a, SmVal b, Loc loc) {
    if (a.kind == SV_POISON || b.kind == SV_POISON) return sm_poison();
    int ok = sm_check_value(c, &a);
    ok &= sm_check_value(c, &b);
    if (!ok) return sm_poison();
    c->b.loc = loc;
    ScalarKind ka = sm_type_of(&a).k, kb = sm_type_of(&b).k;
    if (ka == SK_PTR || kb == SK_PTR) return pointer_arith(c, op, a, b, loc);
    ScalarKind k = sm_promote_weak(&a, &b);
    if (ty_isf8(k))
        return sm_f8_refused(c, ar_printf(c->ar, "'%s'", op_spelling(op)),
                             ty_isf8(sm_type_of(&a).k) ? &a : &b, loc);
    int fl = ty_isfloat(k), bo = k == SK_BOOL;
    if (((op == OP_SHL || op == OP_SHR) && !ty_isint(k)) ||
        ((op == OP_AND || op == OP_OR || op == OP_XOR) && fl) ||
        (op >= OP_SHL && op <= OP_MOD && bo))
        return invalid_operands(c, op, &a, &b, loc);
    SmVal *lit[2] = {&a, &b};
    for (int i = 0; i < 2; i++)
        if (!sm_const_fits(lit[i], k)) {
            dg_error(c->dg, lit[i]->loc, "integer literal %lld does not fit in '%s'",
                     (long long)lit[i]->i, ty_kind_name(k));
            return sm_poison();
        }
    if (a.kind == SV_CONST && b.kind == SV_CONST)
        return fold_binary(c, op, a, b, k,
                           a.weak && b.weak && !is_cmp(op), loc);
    Type shape;
    if (!sm_broadcast_shape(sm_type_of(&a), sm_type_of(&b), &shape)) {
        dg_error(c->dg, loc, "incompatible shapes for '%s': '%s' and '%s'",
                 op_spelling(op), sm_describe(c, &a), sm_describe(c, &b));
        return sm_poison();
    }
    IrValue *x = sm_broadcast_to(c, sm_convert(c, &a, k), shape);
    IrValue *y = sm_broadcast_to(c, sm_convert(c, &b, k), shape);
    c->b.loc = loc;
    Type rt = sm_with_kind(shape, is_cmp(op) ? SK_BOOL : k);
    IrValue *r = sm_emit1(c, ir_opcode(op), rt, x, y, NULL);
    if (is_cmp(op)) r->def->iattr[0] = op - OP_EQ;
    return sm_val(r, loc);
}

SmVal sm_unary(SmCtx *c, AstOp op, SmVal a, Loc loc) {
    if (a.kind == SV_POISON || !sm_check_value(c, &a)) return sm_poison();
    ScalarKind k = sm_type_of(&a).k;
    if (ty_isf8(k)) return sm_f8_refused(c, ar_printf(c->ar, "'%s'", op_spelling(op)), &a, loc);
    int bad = op == OP_NEG ? !(ty_isint(k) || ty_isfloat(k))
            : op == OP_NOT ? k != SK_BOOL : !ty_isint(k);
    if (bad) {
        dg_error(c->dg, loc, "invalid operand to '%s' ('%s')%s", op_spelling(op),
                 sm_describe(c, &a),
                 op == OP_NOT && ty_isint(k) ? "; use '~' for bitwise not"
                 : op == OP_BITNOT && k == SK_BOOL ? "; use '!' for logical not"
                                                   : "");
        return sm_poison();
    }
    if (a.kind == SV_CONST) {
        if (op == OP_NOT) return sm_const_bool(!a.i, loc);
        if (ty_isfloat(k)) return sm_const_float(k, -a.f, a.weak, loc);
        if (op == OP_NEG && overflows(OP_SUB, 0, a.i, k, a.weak)) {
            dg_error(c->dg, loc, "integer overflow in a constant expression: "
                     "-(%lld) does not fit in %s", (long long)a.i, a.weak
                     ? "64 bits" : ar_printf(c->ar, "'%s'", ty_kind_name(k)));
            return sm_poison();
        }
        return sm_const_int(k, op == OP_NEG ? (int64_t)(0 - (uint64_t)a.i) : ~a.i,
                            a.weak, loc);
    }
    c->b.loc = loc;
    return sm_val(sm_emit1(c, op == OP_NEG ? IR_NEG : IR_NOT, a.v->ty, a.v,
                           NULL, NULL), loc);
}

/* a && b, a || b (a evaluated already): scalar bools only; folded when
 * both are known. */
static SmVal logical(SmCtx *c, const AstExpr *e, SmVal a) {
    SmVal b = sm_expr(c, e->rhs);
    if (a.kind == SV_POISON || b.kind == SV_POISON) return sm_poison();
    int ok = sm_check_value(c, &a);
    ok &= sm_check_value(c, &b);
    if (!ok) return sm_poison();
    Type ta = sm_type_of(&a), tb = sm_type_of(&b);
    if (ta.k != SK_BOOL || tb.k != SK_BOOL || ta.rank || tb.rank) {
        dg_error(c->dg, e->loc, "'%s' requires scalar bool operands, got '%s' "
                 "and '%s'%s", op_spelling(e->op), sm_describe(c, &a),
                 sm_describe(c, &b),
                 ta.rank || tb.rank ? e->op == OP_ANDAND
                     ? "; use '&' for element-wise and"
                     : "; use '|' for element-wise or" : "");
        return sm_poison();
    }
    return sm_binary(c, e->op == OP_ANDAND ? OP_AND : OP_OR, a, b, e->loc);
}

/* ----------------------------------------------------------------- types */

int sm_resolve_type(SmCtx *c, const AstType *t, Type *out, int allow_tile) {
    switch (t->kind) {
    case T_NAME: {
        ScalarKind k = ty_kind_by_name(t->name);
        if (k == SK_VOID) {
            SmBind *b = sm_lookup(c, t->name);
            if (b && b->val.kind == SV_TYPE) k = (ScalarKind)b->val.k;
        }
        if (k == SK_VOID) {
            dg_error(c->dg, t->loc, "unknown type '%s'", t->name);
            return 0;
        }
        *out = ty_scalar(k);
        return 1;
    }
    case T_PTR: {
        Type e;
        if (t->elem->kind != T_NAME) {
            dg_error(c->dg, t->elem->loc,
                     "a pointer must point to a scalar type such as 'f32'");
            return 0;
        }
        if (!sm_resolve_type(c, t->elem, &e, 0)) return 0;
        *out = ty_ptr((ScalarKind)e.k);
        return 1;
    }
    default: {
        if (!allow_tile) {
            dg_error(c->dg, t->loc, "a tile type is not allowed here");
            return 0;
        }
        AstType et = *t;
        et.kind = T_NAME;
        Type e;
        if (!sm_resolve_type(c, &et, &e, 0)) return 0;
        int32_t dims[IR_MAXRANK] = {0};
        if (t->ndims > IR_MAXRANK) return sm_check_shape(c, t->loc, t->ndims, dims);
        for (int i = 0; i < t->ndims; i++) {
            SmVal d = sm_const_expr(c, t->dims[i], "a tile dimension");
            int64_t v;
            if (!sm_const_int_arg(c, &d, "a tile dimension", &v)) return 0;
            dims[i] = (int32_t)v;
            if (v != dims[i] || v < 1) {
                dg_error(c->dg, t->dims[i]->loc,
                         "tile dimension %lld is not positive", (long long)v);
                return 0;
            }
        }
        if (!sm_check_shape(c, t->loc, t->ndims, dims)) return 0;
        *out = ty_tile(e, t->ndims, dims);
        return 1;
    }
    }
}

/* x as T */
static SmVal cast_expr(SmCtx *c, const AstExpr *e) {
    SmVal v = sm_expr(c, e->lhs);
    Type t;
    if (e->type->kind != T_NAME) {
        dg_error(c->dg, e->type->loc,
                 "'as' converts the element type; write a scalar type such as 'f32'");
        return sm_poison();
    }
    if (!sm_resolve_type(c, e->type, &t, 0)) return sm_poison();
    if (v.kind == SV_POISON || !sm_check_value(c, &v)) return sm_poison();
    if (sm_type_of(&v).k == SK_PTR) {
        dg_error(c->dg, e->lhs->loc, "cannot convert pointer '%s' with 'as'",
                 sm_describe(c, &v));
        return sm_poison();
    }
    if (v.kind == SV_CONST) {
        SmVal r = sm_fold_cast(&v, (ScalarKind)t.k);
        r.loc = e->loc;
        return r;
    }
    c->b.loc = e->loc;
    return sm_val(sm_cast(c, v.v, (ScalarKind)t.k), e->loc);
}

/* ------------------------------------------------------------ indexing */

/* One index of an axis of extent n: `lo:hi` (*len its length, a power of
 * two) or an integer (*len 0); bounds are compile-time integers and may
 * count from the end (-1 is n - 1). Returns 0 after an error. */
static int axis_index(SmCtx *c, const AstExpr *a, int32_t n, int64_t *start,
                      int64_t *len) {
    int64_t b[2] = {0, n};
    const AstExpr *e[2] = {a->kind == E_SLICE ? a->lhs : a, a->kind == E_SLICE ? a->rhs : NULL};
    for (int i = 0; i < 2; i++) {
        if (!e[i]) continue;
        SmVal v = sm_expr(c, e[i]);
        if (!sm_const_int_arg(c, &v, "an index", &b[i])) return 0;
        if (b[i] < 0) b[i] += n;
    }
    *start = b[0];
    *len = a->kind == E_SLICE ? b[1] - b[0] : 0;
    if (a->kind != E_SLICE && (b[0] < 0 || b[0] >= n)) {
        dg_error(c->dg, a->loc, "index %lld is out of range for an axis of %d",
                 (long long)b[0], n);
        return 0;
    }
    if (a->kind == E_SLICE && (b[0] < 0 || b[1] > n || *len <= 0)) {
        dg_error(c->dg, a->loc, "slice %lld:%lld of an axis of %d must lie in it "
                 "and not be empty", (long long)b[0], (long long)b[1], n);
        return 0;
    }
    return 1;
}

/* v's elements start .. start + len along axis (a slice op; none for
 * the whole axis). */
static IrValue *slice_axis(SmCtx *c, IrValue *v, int axis, int64_t start, int64_t len) {
    if (start == 0 && len == v->ty.dim[axis]) return v;
    Type r = v->ty;
    r.dim[axis] = (int32_t)len;
    v = sm_emit1(c, IR_SLICE, r, v, NULL, NULL);
    v->def->iattr[0] = axis;
    v->def->iattr[1] = start;
    return v;
}

/* x[...]: one index per axis of x — ':' keeps it, `lo:hi` keeps part of
 * it, an integer keeps one position and drops it — and None inserts an
 * axis of size 1 where it stands. */
static SmVal index_expr(SmCtx *c, const AstExpr *e) {
    SmVal x = sm_expr(c, e->lhs);
    int naxes = 0;
    for (int i = 0; i < e->nargs; i++) naxes += e->args[i]->kind != E_NONE;
    if (x.kind == SV_POISON || !sm_check_value(c, &x)) return sm_poison();
    Type t = sm_type_of(&x);
    if (naxes != t.rank) {
        dg_error(c->dg, e->loc, "index of '%s' needs one index (':', 'lo:hi' or "
                 "an integer) per dimension (%d), got %d", sm_describe(c, &x), t.rank,
                 naxes);
        return sm_poison();
    }
    if (e->nargs > IR_MAXRANK) {
        dg_error(c->dg, e->loc, "tiles have at most %d dimensions, not %d",
                 IR_MAXRANK, e->nargs);
        return sm_poison();
    }
    c->b.loc = e->loc;
    IrValue *v = x.kind == SV_VAL ? x.v
               : sm_materialize(c, &x, (ScalarKind)x.k);
    int drop[IR_MAXRANK], ndrop = 0;
    for (int i = 0, ax = 0; i < e->nargs; i++) {
        const AstExpr *a = e->args[i];
        if (a->kind == E_NONE) continue;
        int64_t start, len;
        if (!axis_index(c, a, t.dim[ax], &start, &len)) return sm_poison();
        c->b.loc = e->loc;
        v = slice_axis(c, v, ax, start, len ? len : 1);
        if (!len) drop[ndrop++] = ax;
        ax++;
    }
    for (int j = ndrop - 1; j >= 0; j--) {   /* a size-1 axis reduced away */
        Type r = v->ty;
        memmove(r.dim + drop[j], r.dim + drop[j] + 1,
                sizeof(int32_t) * (size_t)(r.rank - drop[j] - 1));
        r.dim[--r.rank] = 0;
        v = sm_emit1(c, IR_REDUCE, r, v, NULL, NULL);
        v->def->iattr[0] = RED_MAX;
        v->def->iattr[1] = drop[j];
    }
    for (int i = 0, pos = 0; i < e->nargs; i++) {
        const AstExpr *a = e->args[i];
        if (a->kind != E_NONE) {
            pos += a->kind == E_SLICE;
            continue;
        }
        Type r = v->ty;
        memmove(r.dim + pos + 1, r.dim + pos, sizeof(int32_t) * (size_t)(r.rank - pos));
        r.dim[pos] = 1;
        r.rank++;
        v = sm_emit1(c, IR_EXPAND_DIMS, r, v, NULL, NULL);
        v->def->iattr[0] = pos++;
    }
    return sm_val(v, e->loc);
}

/* ---------------------------------------------------------------- names */

SmVal sm_global_const(SmCtx *c, SmGlobal *g, Loc use) {
    if (g->state == 2) return g->val;
    if (g->state == 1) {
        dg_error(c->dg, use, "const '%s' depends on itself", g->name);
        return sm_poison();
    }
    g->state = 1;
    SmCtx saved = *c;
    c->mod = g->mod;
    c->scope = NULL;
    sm_push_scope(c, 1);
    const AstItem *it = g->item;
    SmVal v = sm_const_expr(c, it->value, "the value of a const");
    if (v.kind == SV_CONST && it->type) {
        Type t;
        if (!sm_resolve_type(c, it->type, &t, 0) || t.k == SK_PTR) {
            if (t.k == SK_PTR)
                dg_error(c->dg, it->type->loc, "a const must be a bool, an integer "
                         "or a float");
            v = sm_poison();
        } else if (!sm_implicit_ok(&v, (ScalarKind)t.k)) {
            dg_error(c->dg, it->value->loc, "cannot initialize const '%s' of type "
                     "'%s' with '%s'", g->name, ty_kind_name(t.k),
                     sm_describe(c, &v));
            v = sm_poison();
        } else {
            v = sm_fold_cast(&v, (ScalarKind)t.k);
        }
    }
    c->mod = saved.mod;
    c->scope = saved.scope;
    g->val = v;
    g->state = 2;
    return v;
}

static SmVal name_expr(SmCtx *c, const AstExpr *e) {
    SmBind *b = sm_lookup(c, e->name);
    if (b) {
        SmVal v = b->val;
        if (v.kind != SV_POISON) v.loc = e->loc;
        return v;
    }
    SmGlobal *g = sm_lookup_global(c, e->name);
    if (g && g->kind == G_CONST) {
        SmVal v = sm_global_const(c, g, e->loc);
        if (v.kind != SV_POISON) v.loc = e->loc;
        return v;
    }
    if (g) {
        dg_error(c->dg, e->loc, "%s '%s' cannot be used as a value",
                 g->kind == G_FN ? "fn" : "kernel", e->name);
        return sm_poison();
    }
    ScalarKind k = ty_kind_by_name(e->name);
    if (k != SK_VOID) {
        SmVal v = {0};
        v.kind = SV_TYPE;
        v.k = (uint8_t)k;
        v.loc = e->loc;
        return v;
    }
    if (c->mod->failed_import) return sm_poison();  /* reported (scope.c) */
    if (!strcmp(e->name, "break")) {
        dg_error(c->dg, e->loc, "'break' is not supported in Tile: a 'for' "
                 "loop runs to its bound; to stop early, use a 'while' loop "
                 "whose condition turns false");
        return sm_poison();
    }
    if (!strcmp(e->name, "continue")) {
        dg_error(c->dg, e->loc, "'continue' is not supported in Tile: put "
                 "the rest of the loop body under an 'if'");
        return sm_poison();
    }
    const char *s = sm_suggest(c, e->name);
    if (s)
        dg_error(c->dg, e->loc, "use of undeclared name '%s'; did you mean '%s'?",
                 e->name, s);
    else
        dg_error(c->dg, e->loc, "use of undeclared name '%s'", e->name);
    return sm_poison();
}

/* ---------------------------------------------------------------- calls */

/* The stdlib module ("math" for std/math.tile) that defines fn `name`,
 * found by reading the stdlib's std/ directory, so that the answer never
 * drifts from the library; NULL if none. Runs only on the error path. */
static const char *stdlib_module_of(SmCtx *c, const char *name) {
    if (!c->opt->stdlib_dir) return NULL;
    char dir[4096], path[4096];
    int n = snprintf(dir, sizeof dir, "%s/std", c->opt->stdlib_dir);
    if (n < 0 || (size_t)n >= sizeof dir) return NULL;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    const char *found = NULL;
    size_t nlen = strlen(name);
    struct dirent *de;
    while (!found && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len <= 5 || strcmp(de->d_name + len - 5, ".tile")) continue;
        n = snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = n >= 0 && (size_t)n < sizeof path ? fopen(path, "r") : NULL;
        if (!f) continue;
        char line[512];
        while (fgets(line, sizeof line, f)) {
            const char *p = line;
            while (*p == ' ' || *p == '\t') p++;
            if (strncmp(p, "fn", 2) || (p[2] != ' ' && p[2] != '\t')) continue;
            p += 2;
            while (*p == ' ' || *p == '\t') p++;
            if (!strncmp(p, name, nlen) &&
                (p[nlen] == '(' || p[nlen] == ' ' || p[nlen] == '<')) {
                found = ar_strndup(c->ar, de->d_name, len - 5);
                break;
            }
        }
        fclose(f);
    }
    closedir(d);
    return found;
}

/* An argument of a call: a fn's bare name, passed to a builtin, is the fn
 * itself (SV_FN: the combiner of reduce and scan); anything else is
 * evaluated. */
static SmVal call_arg(SmCtx *c, const AstExpr *a, int to_builtin) {
    if (to_builtin && a->kind == E_NAME && !sm_lookup(c, a->name)) {
        SmGlobal *g = sm_lookup_global(c, a->name);
        if (g && g->kind == G_FN) {
            SmVal v = {0};
            v.kind = SV_FN;
            v.s = g->name;
            v.loc = a->loc;
            return v;
        }
    }
    return sm_expr(c, a);
}

SmVal sm_call(SmCtx *c, const AstExpr *e) {
    int n = e->nargs + e->nnamed;
    SmVal *args = ar_alloc(c->ar, sizeof(SmVal) * (size_t)(n + 1));
    SmGlobal *g = sm_lookup_global(c, e->name);
    int to_builtin = !g && sm_has_builtin(e->name);
    for (int i = 0; i < n; i++) args[i] = call_arg(c, e->args[i], to_builtin);
    if (g && g->kind == G_FN) return sm_inline(c, g, e, args);
    if (g) {
        dg_error(c->dg, e->nloc, "'%s' is a %s, not a fn", e->name,
                 g->kind == G_CONST ? "const" : "kernel");
        return sm_poison();
    }
    if (sm_has_builtin(e->name)) return sm_builtin(c, e, args);
    if (!strcmp(e->name, "range") || !strcmp(e->name, "static_range")) {
        dg_error(c->dg, e->nloc, "'%s' can only be the iterable of a for loop",
                 e->name);
        return sm_poison();
    }
    if (c->mod->failed_import) return sm_poison();  /* reported (scope.c) */
    const char *s = sm_suggest(c, e->name);
    if (s)
        dg_error(c->dg, e->nloc, "call to undeclared fn '%s'; did you mean '%s'?",
                 e->name, s);
    else
        dg_error(c->dg, e->nloc, "call to undeclared fn '%s'", e->name);
    const char *m = stdlib_module_of(c, e->name);
    if (m)
        dg_note(c->dg, e->nloc, "'%s' is defined in the standard library: "
                "add 'import \"std/%s\";'", e->name, m);
    return sm_poison();
}

/* ------------------------------------------------------------ dispatch */

/* A binary expression, left to right. The left operands are walked by a
 * loop, not by recursion: the parser bounds only true nesting (build.h),
 * and a flat chain a + b + ... + z is a left spine as long as the input. */
static SmVal binary_expr(SmCtx *c, const AstExpr *e) {
    const AstExpr *local[32], **spine = local, *x;
    int n = 0;
    for (x = e; x->kind == E_BINARY; x = x->lhs) n++;
    if (n > 32) spine = ar_alloc(c->ar, sizeof *spine * (size_t)n);
    n = 0;
    for (x = e; x->kind == E_BINARY; x = x->lhs) spine[n++] = x;
    SmVal l = sm_expr(c, x);
    for (int i = n - 1; i >= 0 && !dg_full(c->dg); i--) {
        const AstExpr *b = spine[i];
        if (b->op == OP_ANDAND || b->op == OP_OROR) {
            l = logical(c, b, l);
        } else {
            SmVal r = sm_expr(c, b->rhs);
            l = sm_binary(c, b->op, l, r, b->loc);
        }
    }
    return dg_full(c->dg) ? sm_poison() : l;
}

SmVal sm_expr(SmCtx *c, const AstExpr *e) {
    if (dg_full(c->dg) || !sm_ops_ok(c, e->loc)) return sm_poison();
    switch (e->kind) {
    case E_INT:
        if (e->ival > (uint64_t)INT64_MAX) {
            dg_error(c->dg, e->loc, "integer literal is too large");
            return sm_poison();
        }
        return sm_const_int(SK_I32, (int64_t)e->ival, 1, e->loc);
    case E_FLOAT: return sm_const_float(SK_F32, e->fval, 1, e->loc);
    case E_INF: return sm_const_float(SK_F32, INFINITY, 1, e->loc);
    case E_BOOL: return sm_const_bool((int)e->ival, e->loc);
    case E_NONE:
    case E_SLICE:
    case E_STR: {
        SmVal v = {0};
        v.kind = e->kind == E_NONE ? SV_NONE : e->kind == E_SLICE ? SV_SLICE : SV_STR;
        v.s = e->text;
        v.loc = e->loc;
        return v;
    }
    case E_NAME: return name_expr(c, e);
    case E_UNARY: return sm_unary(c, e->op, sm_expr(c, e->lhs), e->loc);
    case E_BINARY: return binary_expr(c, e);
    case E_CAST: return cast_expr(c, e);
    case E_CALL: return sm_call(c, e);
    case E_INDEX: return index_expr(c, e);
    case E_LIST: {
        SmVal v = {0};
        v.kind = SV_LIST;
        v.n = e->nargs;
        v.items = ar_alloc(c->ar, sizeof(SmVal) * (size_t)(e->nargs + 1));
        for (int i = 0; i < e->nargs; i++) v.items[i] = sm_expr(c, e->args[i]);
        v.loc = e->loc;
        return v;
    }
    }
    return sm_poison();
}

/* Evaluates e where only a compile-time value will do. Runtime ops it
 * might emit go to the scratch kernel and are dropped. */
SmVal sm_const_expr(SmCtx *c, const AstExpr *e, const char *what) {
    IrBuilder saved = c->b;
    c->b.k = c->scratch;
    c->b.blk = c->scratch->body;
    SmVal v = sm_expr(c, e);
    c->b = saved;
    if (v.kind == SV_POISON || v.kind == SV_CONST || v.kind == SV_TYPE ||
        v.kind == SV_STR || v.kind == SV_LIST)
        return v;
    if (v.kind == SV_VAL) {
        dg_error(c->dg, e->loc, "%s must be a compile-time constant", what);
        return sm_poison();
    }
    sm_check_value(c, &v);
    return sm_poison();
}

int sm_const_int_arg(SmCtx *c, const SmVal *v, const char *what,
                     int64_t *out) {
    if (v->kind == SV_POISON) return 0;
    if (v->kind != SV_CONST || !ty_isint(v->k)) {
        dg_error(c->dg, v->loc, "%s must be a compile-time integer, got %s",
                 what, v->kind == SV_VAL ? "a runtime value"
                       : ar_printf(c->ar, "'%s'", sm_describe(c, v)));
        return 0;
    }
    *out = v->i;
    return 1;
}
