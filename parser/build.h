/*
 * build.h — the parser's private half: its context and the AST
 * constructors the grammar actions call (build.c).
 *
 * Grammar actions stay one line each by handing their pieces to a
 * constructor here. Semantic values are plain structs held by value on
 * bison's stack; lists grow in the arena (Vec), so nothing a value holds is
 * ever malloc'ed and an abandoned value (error recovery, YYABORT) leaks
 * nothing — which is why the grammar needs no %destructor.
 *
 * Expressions travel with their depth (PsExpr) so that every constructor
 * can enforce PS_MAX_DEPTH: `- - - x` or `a + (b + (c ...))` nest without
 * brackets for the scanner to count, and sema walks trees recursively. The
 * depth is the recursion a walker needs, which does not grow along a
 * binary node's left operand: walkers follow that spine with a loop, so a
 * flat chain a + a + ... + a is one level deep however long it is. The
 * first node past the limit reports "nesting too deep" and stops the
 * scanner; the item being parsed is then dropped, so no tree deeper than
 * the limit leaves the parser.
 */
#ifndef TILE_PARSER_BUILD_H
#define TILE_PARSER_BUILD_H

#include "lexer/lexer.h"
#include "parser/ast.h"

typedef struct PsExpr {
    AstExpr *e;
    int depth;
} PsExpr;

typedef struct PsList {      /* expressions; depth = the deepest */
    AstExpr **v;
    int n, cap, depth;
} PsList;

typedef struct PsArgs {      /* call arguments: positional, then named */
    PsList pos, named;
    Vec(const char *) names;
    Vec(Loc) nlocs;
} PsArgs;

typedef struct PsStmts {
    AstStmt **v;
    int n, cap;
} PsStmts;

typedef struct PsParams {
    AstParam *v;
    int n, cap;
} PsParams;

typedef struct PsAttrs {
    AstAttr *v;
    int n, cap;
} PsAttrs;

typedef struct PsCtx {
    Arena *ar;
    Diag *dg;
    LxCtx *lx;
    Vec(AstItem *) items;
    int too_deep;            /* the depth limit was hit */
} PsCtx;

/* Expressions. */
PsExpr ps_leaf(PsCtx *ps, AstExprKind kind, Loc l);
PsExpr ps_int(PsCtx *ps, const LxTok *t, Loc l);
PsExpr ps_float(PsCtx *ps, const LxTok *t, Loc l);
PsExpr ps_str(PsCtx *ps, const LxTok *t, Loc l);
PsExpr ps_name(PsCtx *ps, const char *name, Loc l);
PsExpr ps_unary(PsCtx *ps, AstOp op, PsExpr x, Loc l);
PsExpr ps_binary(PsCtx *ps, AstOp op, PsExpr a, PsExpr b, Loc l);
PsExpr ps_cast(PsCtx *ps, PsExpr x, AstType *t, Loc l);
PsExpr ps_call(PsCtx *ps, const char *name, Loc nloc, PsArgs *args, Loc l);
PsExpr ps_index(PsCtx *ps, PsExpr x, PsList idx, Loc l);
PsExpr ps_slice(PsCtx *ps, AstExpr *lo, AstExpr *hi, Loc l);   /* lo:hi */
PsExpr ps_list(PsCtx *ps, PsList elems, Loc l);

/* Lists. */
PsList ps_list_add(PsCtx *ps, PsList list, PsExpr x);
PsArgs *ps_args_add(PsCtx *ps, PsArgs *args, const char *name, Loc nloc,
                    PsExpr x);

/* Types. */
AstType *ps_type_name(PsCtx *ps, const char *name, Loc l);
AstType *ps_type_ptr(PsCtx *ps, AstType *elem, Loc l);
AstType *ps_type_tile(PsCtx *ps, const char *name, PsList dims, Loc l);

/* Statements. */
AstStmt *ps_stmt(PsCtx *ps, AstStmtKind kind, Loc l);
AstStmt *ps_bind(PsCtx *ps, AstStmtKind kind, const char *name, Loc nloc,
                 AstType *t, PsExpr value, Loc l);
AstStmt *ps_assign(PsCtx *ps, const char *name, Loc nloc, int op,
                   PsExpr value, Loc l);
AstStmt *ps_block(PsCtx *ps, PsStmts body, Loc l);
AstStmt *ps_if(PsCtx *ps, PsExpr cond, AstStmt *then, AstStmt *els, Loc l);
AstStmt *ps_for(PsCtx *ps, const char *name, Loc nloc, PsExpr iter,
                AstStmt *body, Loc l);
AstStmt *ps_while(PsCtx *ps, PsExpr cond, AstStmt *body, Loc l);
AstStmt *ps_expr_stmt(PsCtx *ps, AstStmtKind kind, AstExpr *value, Loc l);

/* Items and their parts. */
AstParam ps_param(const char *name, AstType *t, AstExpr *deflt, Loc l);
AstAttr ps_attr(PsCtx *ps, const char *name, Loc nloc, PsArgs *args, Loc l);
AstItem *ps_item(PsCtx *ps, AstItemKind kind, const char *name, Loc nloc,
                 Loc l);
void ps_add_item(PsCtx *ps, AstItem *it, PsAttrs attrs);

#endif
