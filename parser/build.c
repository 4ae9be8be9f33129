/*
 * build.c — AST constructors for the grammar actions (see build.h).
 *
 * Each constructor allocates one node in the arena and fills the fields
 * its kind uses (ast.h lists them). Expression constructors also carry the
 * depth of the tree they build and enforce PS_MAX_DEPTH through
 * check_depth(); list constructors append in place (arena Vec), so a list
 * of n elements costs O(n) however it grows.
 */
#include "parser/build.h"

#include <string.h>

static int max_int(int a, int b) { return a > b ? a : b; }

/* Reports the first tree deeper than the limit and stops the scanner: the
 * parser then sees the end of the input, and the item being built is
 * dropped (ps_add_item). */
static PsExpr check_depth(PsCtx *ps, AstExpr *e, int depth) {
    if (depth > PS_MAX_DEPTH && !ps->too_deep) {
        ps->too_deep = 1;
        ps->lx->fatal = 1;
        dg_error(ps->dg, e->loc, "nesting too deep (the limit is %d levels)",
                 PS_MAX_DEPTH);
    }
    return (PsExpr){e, depth};
}

static AstExpr *new_expr(PsCtx *ps, AstExprKind kind, Loc l) {
    AstExpr *e = ar_alloc(ps->ar, sizeof *e);
    e->kind = kind;
    e->loc = l;
    return e;
}

PsExpr ps_leaf(PsCtx *ps, AstExprKind kind, Loc l) {
    AstExpr *e = new_expr(ps, kind, l);
    if (kind == E_BOOL) e->ival = 0;
    return (PsExpr){e, 1};
}

PsExpr ps_int(PsCtx *ps, const LxTok *t, Loc l) {
    AstExpr *e = new_expr(ps, E_INT, l);
    e->ival = t->ival;
    e->text = t->text;
    return (PsExpr){e, 1};
}

PsExpr ps_float(PsCtx *ps, const LxTok *t, Loc l) {
    AstExpr *e = new_expr(ps, E_FLOAT, l);
    e->fval = t->fval;
    e->text = t->text;
    return (PsExpr){e, 1};
}

PsExpr ps_str(PsCtx *ps, const LxTok *t, Loc l) {
    AstExpr *e = new_expr(ps, E_STR, l);
    e->text = t->text;
    return (PsExpr){e, 1};
}

PsExpr ps_name(PsCtx *ps, const char *name, Loc l) {
    AstExpr *e = new_expr(ps, E_NAME, l);
    e->name = name;
    return (PsExpr){e, 1};
}

PsExpr ps_unary(PsCtx *ps, AstOp op, PsExpr x, Loc l) {
    AstExpr *e = new_expr(ps, E_UNARY, l);
    e->op = op;
    e->lhs = x.e;
    return check_depth(ps, e, x.depth + 1);
}

/* The left operand adds no depth: consumers walk a binary node's left
 * spine by a loop (sema's binary_expr, print.c), so a flat chain
 * a + b + ... + z is not nesting; a right operand is one level down. */
PsExpr ps_binary(PsCtx *ps, AstOp op, PsExpr a, PsExpr b, Loc l) {
    AstExpr *e = new_expr(ps, E_BINARY, l);
    e->op = op;
    e->lhs = a.e;
    e->rhs = b.e;
    return check_depth(ps, e, max_int(a.depth, b.depth + 1));
}

PsExpr ps_cast(PsCtx *ps, PsExpr x, AstType *t, Loc l) {
    AstExpr *e = new_expr(ps, E_CAST, l);
    e->lhs = x.e;
    e->type = t;
    return check_depth(ps, e, x.depth + 1);
}

PsExpr ps_call(PsCtx *ps, const char *name, Loc nloc, PsArgs *args, Loc l) {
    AstExpr *e = new_expr(ps, E_CALL, l);
    e->name = name;
    e->nloc = nloc;
    int depth = 0;
    if (args) {
        int n = args->pos.n + args->named.n;
        e->args = ar_alloc(ps->ar, sizeof *e->args * (size_t)(n ? n : 1));
        if (args->pos.n)
            memcpy(e->args, args->pos.v, sizeof *e->args * (size_t)args->pos.n);
        if (args->named.n)
            memcpy(e->args + args->pos.n, args->named.v,
                   sizeof *e->args * (size_t)args->named.n);
        e->nargs = args->pos.n;
        e->nnamed = args->named.n;
        e->names = args->names.v;
        e->nlocs = args->nlocs.v;
        depth = max_int(args->pos.depth, args->named.depth);
    }
    return check_depth(ps, e, depth + 1);
}

PsExpr ps_index(PsCtx *ps, PsExpr x, PsList idx, Loc l) {
    AstExpr *e = new_expr(ps, E_INDEX, l);
    e->lhs = x.e;
    e->args = idx.v;
    e->nargs = idx.n;
    return check_depth(ps, e, max_int(x.depth, idx.depth) + 1);
}

PsExpr ps_slice(PsCtx *ps, AstExpr *lo, AstExpr *hi, Loc l) {
    AstExpr *e = new_expr(ps, E_SLICE, l);
    e->lhs = lo;
    e->rhs = hi;
    return (PsExpr){e, 1};
}

PsExpr ps_list(PsCtx *ps, PsList elems, Loc l) {
    AstExpr *e = new_expr(ps, E_LIST, l);
    e->args = elems.v;
    e->nargs = elems.n;
    return check_depth(ps, e, elems.depth + 1);
}

PsList ps_list_add(PsCtx *ps, PsList list, PsExpr x) {
    vec_push(ps->ar, &list, x.e);
    list.depth = max_int(list.depth, x.depth);
    return list;
}

/* Positional arguments must come first: `f(a, mask=m, b)` is an error
 * (reported here; the argument is dropped). */
PsArgs *ps_args_add(PsCtx *ps, PsArgs *args, const char *name, Loc nloc,
                    PsExpr x) {
    if (!args) args = ar_alloc(ps->ar, sizeof *args);
    if (name) {
        args->named = ps_list_add(ps, args->named, x);
        vec_push(ps->ar, &args->names, name);
        vec_push(ps->ar, &args->nlocs, nloc);
    } else if (args->named.n) {
        dg_error(ps->dg, x.e->loc, "positional argument after named "
                 "argument '%s'", args->names.v[args->names.n - 1]);
    } else {
        args->pos = ps_list_add(ps, args->pos, x);
    }
    return args;
}

/* ---------------------------------------------------------------- types */

AstType *ps_type_name(PsCtx *ps, const char *name, Loc l) {
    AstType *t = ar_alloc(ps->ar, sizeof *t);
    t->kind = T_NAME;
    t->loc = l;
    t->name = name;
    return t;
}

/* `*T`: a chain of stars is as deep as it is long, so it obeys the depth
 * limit too (counted along the chain; the limit keeps that cheap). */
AstType *ps_type_ptr(PsCtx *ps, AstType *elem, Loc l) {
    AstType *t = ar_alloc(ps->ar, sizeof *t);
    t->kind = T_PTR;
    t->loc = l;
    t->elem = elem;
    int depth = 1;
    for (AstType *e = elem; e && e->kind == T_PTR; e = e->elem) depth++;
    if (depth > PS_MAX_DEPTH && !ps->too_deep) {
        ps->too_deep = 1;
        ps->lx->fatal = 1;
        dg_error(ps->dg, l, "nesting too deep (the limit is %d levels)",
                 PS_MAX_DEPTH);
    }
    return t;
}

AstType *ps_type_tile(PsCtx *ps, const char *name, PsList dims, Loc l) {
    AstType *t = ps_type_name(ps, name, l);
    t->kind = T_TILE;
    t->dims = dims.v;
    t->ndims = dims.n;
    return t;
}

/* ----------------------------------------------------------- statements */

AstStmt *ps_stmt(PsCtx *ps, AstStmtKind kind, Loc l) {
    AstStmt *s = ar_alloc(ps->ar, sizeof *s);
    s->kind = kind;
    s->loc = l;
    s->op = -1;
    return s;
}

AstStmt *ps_bind(PsCtx *ps, AstStmtKind kind, const char *name, Loc nloc,
                 AstType *t, PsExpr value, Loc l) {
    AstStmt *s = ps_stmt(ps, kind, l);
    s->name = name;
    s->nloc = nloc;
    s->type = t;
    s->value = value.e;
    return s;
}

AstStmt *ps_assign(PsCtx *ps, const char *name, Loc nloc, int op,
                   PsExpr value, Loc l) {
    AstStmt *s = ps_bind(ps, S_ASSIGN, name, nloc, NULL, value, l);
    s->op = op;
    return s;
}

AstStmt *ps_block(PsCtx *ps, PsStmts body, Loc l) {
    AstStmt *s = ps_stmt(ps, S_BLOCK, l);
    s->body = body.v;
    s->nbody = body.n;
    return s;
}

/* The body of if/for/while is stored as a one-element list holding the
 * S_BLOCK (ast.h). */
static void set_body(PsCtx *ps, AstStmt *s, AstStmt *block) {
    s->body = ar_alloc(ps->ar, sizeof *s->body);
    s->body[0] = block;
    s->nbody = 1;
}

/* An else-if chain nests one S_IF per link, so its length counts against
 * the depth limit. */
AstStmt *ps_if(PsCtx *ps, PsExpr cond, AstStmt *then, AstStmt *els, Loc l) {
    AstStmt *s = ps_stmt(ps, S_IF, l);
    s->cond = cond.e;
    set_body(ps, s, then);
    s->els = els;
    int depth = 1;
    for (AstStmt *e = els; e && e->kind == S_IF; e = e->els) depth++;
    if (depth > PS_MAX_DEPTH && !ps->too_deep) {
        ps->too_deep = 1;
        ps->lx->fatal = 1;
        dg_error(ps->dg, l, "nesting too deep (the limit is %d levels)",
                 PS_MAX_DEPTH);
    }
    return s;
}

AstStmt *ps_for(PsCtx *ps, const char *name, Loc nloc, PsExpr iter,
                AstStmt *body, Loc l) {
    AstStmt *s = ps_stmt(ps, S_FOR, l);
    s->name = name;
    s->nloc = nloc;
    s->iter = iter.e;
    set_body(ps, s, body);
    return s;
}

AstStmt *ps_while(PsCtx *ps, PsExpr cond, AstStmt *body, Loc l) {
    AstStmt *s = ps_stmt(ps, S_WHILE, l);
    s->cond = cond.e;
    set_body(ps, s, body);
    return s;
}

AstStmt *ps_expr_stmt(PsCtx *ps, AstStmtKind kind, AstExpr *value, Loc l) {
    AstStmt *s = ps_stmt(ps, kind, l);
    s->value = value;
    return s;
}

/* ---------------------------------------------------------------- items */

AstParam ps_param(const char *name, AstType *t, AstExpr *deflt, Loc l) {
    return (AstParam){l, name, t, deflt};
}

AstAttr ps_attr(PsCtx *ps, const char *name, Loc nloc, PsArgs *args, Loc l) {
    AstAttr a = {l, name, NULL};
    if (args) {
        a.call = ps_call(ps, name, nloc, args, l).e;
    }
    return a;
}

AstItem *ps_item(PsCtx *ps, AstItemKind kind, const char *name, Loc nloc,
                 Loc l) {
    AstItem *it = ar_alloc(ps->ar, sizeof *it);
    it->kind = kind;
    it->name = name;
    it->nloc = nloc;
    it->loc = l;
    return it;
}

/* Items are collected in the context rather than as a semantic value, so
 * that everything parsed before an abort survives it. An item that hit the
 * depth limit is dropped: it may hold a tree deeper than the limit. */
void ps_add_item(PsCtx *ps, AstItem *it, PsAttrs attrs) {
    if (ps->too_deep) return;
    it->attrs = attrs.v;
    it->nattrs = attrs.n;
    vec_push(ps->ar, &ps->items, it);
}
