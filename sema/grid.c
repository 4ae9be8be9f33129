/*
 * grid.c — `grid(...)` and `@require(...)` to GExpr.
 *
 * These expressions are evaluated by the runtime at each launch, so they
 * get their own small translator instead of the tile evaluator: the only
 * leaves are integer (or bool) runtime scalar parameters and compile-time
 * values (compile-time parameters of this configuration, consts, literals),
 * and the only operations are integer arithmetic, comparisons, logic and
 * cdiv/min/max — in this context `min(a, b)` and `max(a, b)` are binary,
 * not reductions. Constant subtrees are folded (with gx_eval itself, so the
 * folding matches the runtime exactly). Anything else is reported at the
 * sub-expression that is not allowed.
 *
 * The runtime walks a GExpr recursively, so its depth is bounded like the
 * parser's nesting (PS_MAX_DEPTH); here a flat chain a + b + ... counts
 * one level per operator, as its GExpr is that deep.
 */
#include "sm.h"
#include "../parser/parser.h"

#include <string.h>

typedef struct GridCtx {
    SmCtx *c;
    IrKernel *k;
    const char *what;
    int depth;           /* of the walk; reported once past PS_MAX_DEPTH */
} GridCtx;

static GExpr *gx_new(SmCtx *c, GxKind kind, GExpr *a, GExpr *b) {
    GExpr *e = ar_alloc(c->ar, sizeof *e);
    e->kind = (uint8_t)kind;
    e->a = a;
    e->b = b;
    return e;
}

static GExpr *gx_const(SmCtx *c, int64_t v) {
    GExpr *e = gx_new(c, GX_CONST, NULL, NULL);
    e->value = v;
    return e;
}

/* Folds e when all its operands are constants. */
static GExpr *fold(GridCtx *g, GExpr *e, Loc loc) {
    if ((e->a && e->a->kind != GX_CONST) || (e->b && e->b->kind != GX_CONST))
        return e;
    int64_t v;
    if (gx_eval(e, NULL, &v)) {
        dg_error(g->c->dg, loc, "division by zero in %s", g->what);
        return NULL;
    }
    return gx_const(g->c, v);
}

static GExpr *not_allowed(GridCtx *g, Loc loc, const char *thing) {
    dg_error(g->c->dg, loc, "%s cannot use %s", g->what, thing);
    return NULL;
}

static GExpr *leaf(GridCtx *g, const AstExpr *e) {
    SmCtx *c = g->c;
    for (int i = 0; i < g->k->nparams; i++) {
        if (strcmp(g->k->params[i].name, e->name)) continue;
        Type t = g->k->params[i].ty;
        if (t.k == SK_PTR)
            return not_allowed(g, e->loc, ar_printf(c->ar, "pointer parameter '%s'",
                                                    e->name));
        if (ty_isfloat(t.k))
            return not_allowed(g, e->loc, ar_printf(c->ar, "floating-point "
                                                    "parameter '%s'", e->name));
        GExpr *p = gx_new(c, GX_PARAM, NULL, NULL);
        p->param = i;
        return p;
    }
    SmVal v = sm_const_expr(c, e, "a grid operand");
    if (v.kind == SV_POISON) return NULL;
    if (v.kind != SV_CONST || ty_isfloat(v.k))
        return not_allowed(g, e->loc, ar_printf(c->ar, "'%s' (%s)", e->name,
                                                sm_describe(c, &v)));
    return gx_const(c, v.i);
}

static GExpr *node(GridCtx *g, const AstExpr *e);

static GExpr *walk(GridCtx *g, const AstExpr *e) {
    if (g->depth >= PS_MAX_DEPTH) {
        if (g->depth++ == PS_MAX_DEPTH)
            dg_error(g->c->dg, e->loc, "%s is nested too deeply (the limit is "
                     "%d levels)", g->what, PS_MAX_DEPTH);
        return NULL;
    }
    g->depth++;
    GExpr *r = node(g, e);
    g->depth--;
    return r;
}

static GExpr *node(GridCtx *g, const AstExpr *e) {
    static const GxKind bin[] = {
        [OP_OROR] = GX_LOR, [OP_ANDAND] = GX_LAND, [OP_OR] = GX_OR,
        [OP_XOR] = GX_XOR, [OP_AND] = GX_AND, [OP_EQ] = GX_EQ, [OP_NE] = GX_NE,
        [OP_LT] = GX_LT, [OP_LE] = GX_LE, [OP_GT] = GX_GT, [OP_GE] = GX_GE,
        [OP_SHL] = GX_SHL, [OP_SHR] = GX_SHR, [OP_ADD] = GX_ADD,
        [OP_SUB] = GX_SUB, [OP_MUL] = GX_MUL, [OP_DIV] = GX_DIV,
        [OP_MOD] = GX_MOD,
    };
    SmCtx *c = g->c;
    switch (e->kind) {
    case E_INT:
        if (e->ival > (uint64_t)INT64_MAX) {
            dg_error(c->dg, e->loc, "integer literal is too large");
            return NULL;
        }
        return gx_const(c, (int64_t)e->ival);
    case E_BOOL: return gx_const(c, (int64_t)e->ival);
    case E_NAME: return leaf(g, e);
    case E_UNARY: {
        GExpr *a = walk(g, e->lhs);
        if (!a) return NULL;
        if (e->op == OP_BITNOT)
            return fold(g, gx_new(c, GX_XOR, a, gx_const(c, -1)), e->loc);
        return fold(g, gx_new(c, e->op == OP_NEG ? GX_NEG : GX_LNOT, a, NULL), e->loc);
    }
    case E_BINARY: {
        GExpr *a = walk(g, e->lhs);
        GExpr *b = walk(g, e->rhs);
        if (!a || !b) return NULL;
        return fold(g, gx_new(c, bin[e->op], a, b), e->loc);
    }
    case E_CALL: {
        GxKind kind = !strcmp(e->name, "cdiv") ? GX_CDIV
                    : !strcmp(e->name, "min")  ? GX_MIN
                    : !strcmp(e->name, "max")  ? GX_MAX : GX_CONST;
        if (kind == GX_CONST)
            return not_allowed(g, e->nloc, ar_printf(c->ar, "'%s'; only cdiv, min "
                                                     "and max can be called there",
                                                     e->name));
        if (e->nargs != 2 || e->nnamed) {
            dg_error(c->dg, e->loc, "'%s' in %s takes exactly 2 arguments",
                     e->name, g->what);
            return NULL;
        }
        GExpr *a = walk(g, e->args[0]);
        GExpr *b = walk(g, e->args[1]);
        if (!a || !b) return NULL;
        return fold(g, gx_new(c, kind, a, b), e->loc);
    }
    case E_FLOAT:
    case E_INF: return not_allowed(g, e->loc, "floating-point values");
    case E_CAST: return not_allowed(g, e->loc, "conversions");
    case E_INDEX: return not_allowed(g, e->loc, "indexing");
    default: return not_allowed(g, e->loc, "this expression");
    }
}

GExpr *sm_gexpr(SmCtx *c, const AstExpr *e, IrKernel *k, const char *what) {
    GridCtx g = {c, k, what, 0};
    return walk(&g, e);
}
