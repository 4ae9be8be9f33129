/*
 * print.c — the frontend's textual dumps: the token stream (tilec
 * --emit=tokens) and the AST (tilec --emit=ast).
 *
 * Both are for people and golden tests, so they are deterministic and
 * line-oriented: one token or one node a line, each with its source range
 * as `@line:col-line:col` (end exclusive). The AST dump is an indented tree:
 * a node's line names its kind and its own data (operator, name, value),
 * its children follow indented by two spaces. Strings are printed with
 * their escapes re-encoded so that the dump stays one line per node.
 *
 * A chain a + b + ... + z is a left spine as long as the input (the parser
 * bounds only true nesting): it is printed by a loop, not by recursion,
 * and indentation stops growing at PS_MAX_DEPTH levels so that the dump
 * stays linear in the input.
 */
#include "parser/build.h"
#include "parser/parser.tab.h"

#include <stdlib.h>
#include <string.h>

/* The shortest %g spelling that reads back as the same double. */
static void print_double(FILE *out, double v) {
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, out);
}

static void print_loc(FILE *out, Loc l) {
    fprintf(out, " @%u:%u-%u:%u\n", l.line, l.col, l.eline, l.ecol);
}

/* A string literal's value, quoted, with escapes for '"', '\\' and
 * control/non-ASCII bytes as \xHH (bytes, so the output is plain ASCII). */
static void print_quoted(FILE *out, const char *s) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", out);
        else if (*p == '\t') fputs("\\t", out);
        else if (*p < 0x20 || *p >= 0x7f) fprintf(out, "\\x%02x", *p);
        else fputc(*p, out);
    }
    fputc('"', out);
}

/* -------------------------------------------------------------- tokens */

int ps_print_tokens(FILE *out, Arena *ar, Diag *dg, uint32_t file,
                    const char *text, size_t len) {
    LxCtx lx;
    void *scanner = lx_open(&lx, ar, dg, file, text, len);
    YYSTYPE v;
    Loc l;
    for (;;) {
        memset(&v, 0, sizeof v);
        int tok = yylex(&v, &l, scanner);
        fprintf(out, "%u:%u-%u:%u ", l.line, l.col, l.eline, l.ecol);
        switch (tok) {
        case 0: fputs("eof\n", out); break;
        case IDENT: fprintf(out, "ident %s\n", v.tok.text); break;
        case INT:
            fprintf(out, "int %s = %llu\n", v.tok.text,
                    (unsigned long long)v.tok.ival);
            break;
        case FLOAT:
            fprintf(out, "float %s = ", v.tok.text);
            print_double(out, v.tok.fval);
            fputc('\n', out);
            break;
        case STRING:
            fputs("string ", out);
            print_quoted(out, v.tok.text);
            fputc('\n', out);
            break;
        default: fprintf(out, "%s\n", lx_token_name(tok)); break;
        }
        if (tok == 0) break;
    }
    int errors = lx.errors;
    lx_close(scanner);
    return errors;
}

/* ----------------------------------------------------------------- AST */

static const char *op_name(AstOp op) {
    static const char *names[] = {
        [OP_OROR] = "||", [OP_ANDAND] = "&&", [OP_OR] = "|", [OP_XOR] = "^",
        [OP_AND] = "&", [OP_EQ] = "==", [OP_NE] = "!=", [OP_LT] = "<",
        [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=", [OP_SHL] = "<<",
        [OP_SHR] = ">>", [OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*",
        [OP_DIV] = "/", [OP_MOD] = "%", [OP_NEG] = "-", [OP_NOT] = "!",
        [OP_BITNOT] = "~",
    };
    return (unsigned)op < sizeof names / sizeof *names && names[op]
               ? names[op] : "?";
}

static void indent(FILE *out, int depth) {
    for (int i = 0; i < depth && i < PS_MAX_DEPTH; i++) fputs("  ", out);
}

static void print_expr(FILE *out, const AstExpr *e, int d);

static void print_exprs(FILE *out, AstExpr *const *v, int n, int d) {
    for (int i = 0; i < n; i++) print_expr(out, v[i], d);
}

/* Types print on one line when they are names or pointers to names; tile
 * types list their dimension expressions below. */
static void print_type_text(FILE *out, const AstType *t) {
    if (t->kind == T_PTR) {
        fputc('*', out);
        print_type_text(out, t->elem);
    } else {
        fputs(t->name, out);
        if (t->kind == T_TILE) fprintf(out, "[%d]", t->ndims);
    }
}

static void print_type(FILE *out, const AstType *t, int d) {
    indent(out, d);
    fputs("type ", out);
    print_type_text(out, t);
    print_loc(out, t->loc);
    const AstType *inner = t;
    while (inner->kind == T_PTR) inner = inner->elem;
    if (inner->kind == T_TILE)
        print_exprs(out, inner->dims, inner->ndims, d + 1);
}

static void print_node(FILE *out, const AstExpr *e, int d);

/* A binary node and its left spine: each spine node's line, then the leaf
 * at the bottom, then the right operands from the innermost out. */
static void print_binary(FILE *out, const AstExpr *e, int d) {
    int n = 0;
    const AstExpr *x, *local[64], **spine = local;
    for (x = e; x->kind == E_BINARY; x = x->lhs) n++;
    if (n > 64 && !(spine = malloc(sizeof *spine * (size_t)n))) return;
    n = 0;
    for (x = e; x->kind == E_BINARY; x = x->lhs) {
        spine[n] = x;
        print_node(out, x, d + n++);
    }
    print_expr(out, x, d + n);
    while (n-- > 0) print_expr(out, spine[n]->rhs, d + n + 1);
    if (spine != local) free(spine);
}

static void print_expr(FILE *out, const AstExpr *e, int d) {
    if (e->kind == E_BINARY) {
        print_binary(out, e, d);
        return;
    }
    print_node(out, e, d);
    switch (e->kind) {
    case E_UNARY: print_expr(out, e->lhs, d + 1); break;
    case E_CAST:
        print_expr(out, e->lhs, d + 1);
        print_type(out, e->type, d + 1);
        break;
    case E_CALL:
        print_exprs(out, e->args, e->nargs, d + 1);
        for (int i = 0; i < e->nnamed; i++) {
            indent(out, d + 1);
            fprintf(out, "named %s", e->names[i]);
            print_loc(out, e->nlocs[i]);
            print_expr(out, e->args[e->nargs + i], d + 2);
        }
        break;
    case E_INDEX:
        print_expr(out, e->lhs, d + 1);
        print_exprs(out, e->args, e->nargs, d + 1);
        break;
    case E_LIST: print_exprs(out, e->args, e->nargs, d + 1); break;
    case E_SLICE:   /* lo:hi; a left-out bound prints nothing */
        if (e->lhs) print_expr(out, e->lhs, d + 1);
        if (e->rhs) print_expr(out, e->rhs, d + 1);
        break;
    default: break;
    }
}

/* One node's own line. */
static void print_node(FILE *out, const AstExpr *e, int d) {
    indent(out, d);
    switch (e->kind) {
    case E_INT: fprintf(out, "int %llu", (unsigned long long)e->ival); break;
    case E_FLOAT:
        fprintf(out, "float %s = ", e->text);
        print_double(out, e->fval);
        break;
    case E_BOOL: fputs(e->ival ? "bool true" : "bool false", out); break;
    case E_NONE: fputs("none", out); break;
    case E_INF: fputs("inf", out); break;
    case E_STR: fputs("string ", out); print_quoted(out, e->text); break;
    case E_NAME: fprintf(out, "name %s", e->name); break;
    case E_UNARY: fprintf(out, "unary %s", op_name(e->op)); break;
    case E_BINARY: fprintf(out, "binary %s", op_name(e->op)); break;
    case E_CAST: fputs("cast", out); break;
    case E_CALL: fprintf(out, "call %s", e->name); break;
    case E_INDEX: fputs("index", out); break;
    case E_SLICE:
        fputs(e->lhs || e->rhs ? (e->lhs ? (e->rhs ? "slice lo:hi" : "slice lo:")
                                         : "slice :hi") : "slice", out);
        break;
    case E_LIST: fputs("list", out); break;
    }
    print_loc(out, e->loc);
}

static void print_stmt(FILE *out, const AstStmt *s, int d) {
    static const char *assign_ops[] = {
        [OP_OR] = "|=", [OP_XOR] = "^=", [OP_AND] = "&=", [OP_SHL] = "<<=",
        [OP_SHR] = ">>=", [OP_ADD] = "+=", [OP_SUB] = "-=", [OP_MUL] = "*=",
        [OP_DIV] = "/=", [OP_MOD] = "%=",
    };
    indent(out, d);
    switch (s->kind) {
    case S_LET: fprintf(out, "let %s", s->name); break;
    case S_VAR: fprintf(out, "var %s", s->name); break;
    case S_ASSIGN:
        fprintf(out, "assign %s %s", s->name,
                s->op < 0 ? "=" : assign_ops[s->op]);
        break;
    case S_IF: fputs("if", out); break;
    case S_FOR: fprintf(out, "for %s", s->name); break;
    case S_WHILE: fputs("while", out); break;
    case S_RETURN: fputs("return", out); break;
    case S_EXPR: fputs("expr", out); break;
    case S_BLOCK: fputs("block", out); break;
    }
    print_loc(out, s->loc);
    if (s->type) print_type(out, s->type, d + 1);
    if (s->cond) print_expr(out, s->cond, d + 1);
    if (s->iter) print_expr(out, s->iter, d + 1);
    if (s->value) print_expr(out, s->value, d + 1);
    for (int i = 0; i < s->nbody; i++) print_stmt(out, s->body[i], d + 1);
    if (s->els) {
        indent(out, d + 1);
        fputs("else\n", out);
        print_stmt(out, s->els, d + 2);
    }
}

static void print_params(FILE *out, const char *what, const AstParam *p,
                         int n, int d) {
    for (int i = 0; i < n; i++) {
        indent(out, d);
        fprintf(out, "%s %s", what, p[i].name);
        print_loc(out, p[i].loc);
        if (p[i].type) print_type(out, p[i].type, d + 1);
        if (p[i].deflt) {
            indent(out, d + 1);
            fputs("default\n", out);
            print_expr(out, p[i].deflt, d + 2);
        }
    }
}

static void print_item(FILE *out, const AstItem *it, int d) {
    static const char *kinds[] = {"import", "const", "fn", "kernel"};
    indent(out, d);
    fputs(kinds[it->kind], out);
    if (it->kind == I_IMPORT) {
        fputc(' ', out);
        print_quoted(out, it->path);
    } else {
        fprintf(out, " %s", it->name);
    }
    print_loc(out, it->loc);
    for (int i = 0; i < it->nattrs; i++) {
        const AstAttr *a = &it->attrs[i];
        indent(out, d + 1);
        fprintf(out, "attr %s", a->name);
        print_loc(out, a->loc);
        if (a->call) print_expr(out, a->call, d + 2);
    }
    if (it->type) print_type(out, it->type, d + 1);
    if (it->value) print_expr(out, it->value, d + 1);
    print_params(out, "cparam", it->cparams, it->ncparams, d + 1);
    print_params(out, "param", it->params, it->nparams, d + 1);
    if (it->ngrid) {
        indent(out, d + 1);
        fputs("grid", out);
        print_loc(out, it->gloc);
        print_exprs(out, it->grid, it->ngrid, d + 2);
    }
    if (it->body) print_stmt(out, it->body, d + 1);
}

void ps_print_ast(FILE *out, const AstFile *f) {
    fprintf(out, "file %s\n", f->path);
    for (int i = 0; i < f->nitems; i++) print_item(out, f->items[i], 1);
}
