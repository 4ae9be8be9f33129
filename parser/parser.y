/*
 * parser.y — the Tile grammar (GNU Bison, pure, LALR(1), no conflicts).
 *
 * Shape of the grammar:
 *
 *   file    := item*
 *   item    := attr* ( import STRING ';'
 *                    | const NAME [':' type] '=' expr ';'
 *                    | fn NAME '(' params ')' block
 *                    | kernel NAME ['<' cparams '>'] '(' params ')'
 *                          [grid '(' exprs ')'] block )
 *   attr    := '@' NAME ['(' args ')']
 *   stmt    := let|var NAME [':' type] '=' expr ';' | NAME assign-op expr ';'
 *            | if expr block [else (block | if ...)] | for NAME in expr block
 *            | while expr block | return [expr] ';' | expr ';' | block
 *   expr    := binary operators by precedence (LANGUAGE.md), then
 *              unary - ! ~, then `as`, then postfix [...], then primary
 *   type    := NAME | NAME '[' exprs ']' | '*' type
 *
 * Binary operators are one rule each with bison precedence declarations;
 * unary, cast and postfix levels are separate nonterminals, which states
 * "unary binds looser than `as`, which binds looser than indexing" in the
 * grammar itself. A compile-time parameter's default is a `unary`
 * expression, since a top-level `>` would close the parameter list.
 *
 * Error recovery: `stmts: stmts error` resynchronises at the next token
 * that can start a statement (or the closing '}'), and `stmt: error ';'`
 * swallows the rest of a broken statement; `items: items error` skips to
 * the next item keyword. Messages come from yyreport_syntax_error below,
 * which reads the expected-token set together with the scanner's token
 * history and bracket stack (lexer.h) to say what was missing and where.
 */
%define api.pure full
%define api.location.type {Loc}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%param {void *scanner}
%parse-param {PsCtx *ps}

%code requires {
#include "parser/build.h"
}

%code provides {
int yylex(YYSTYPE *yylval, Loc *yylloc, void *scanner);
int yyparse(void *scanner, PsCtx *ps);
}

%code {
#include <string.h>

/* A rule's location spans its non-empty parts; an empty rule sits at the
 * end of what precedes it. Empty parts (an absent attribute list, say) must
 * not stretch a location back to the previous item. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                         \
    do {                                                                    \
        int f_ = 1, l_ = (N);                                               \
        while (f_ < l_ && ps_loc_empty(YYRHSLOC(Rhs, f_))) f_++;            \
        while (l_ > f_ && ps_loc_empty(YYRHSLOC(Rhs, l_))) l_--;            \
        if (N) {                                                            \
            (Cur) = loc_span(YYRHSLOC(Rhs, f_), YYRHSLOC(Rhs, l_));         \
        } else {                                                            \
            (Cur) = YYRHSLOC(Rhs, 0);                                       \
            (Cur).line = (Cur).eline;                                       \
            (Cur).col = (Cur).ecol;                                         \
        }                                                                   \
    } while (0)

static int ps_loc_empty(Loc l) { return l.line == l.eline && l.col == l.ecol; }

static void yyerror(Loc *l, void *scanner, PsCtx *ps, const char *msg);
}

%union {
    LxTok tok;
    PsExpr ex;
    PsList list;
    PsArgs *args;
    AstType *type;
    AstStmt *stmt;
    PsStmts stmts;
    AstParam param;
    PsParams params;
    AstAttr attr;
    PsAttrs attrs;
    AstItem *item;
    int op;
}

%token <tok> IDENT "identifier" INT "integer literal" FLOAT "float literal"
%token <tok> STRING "string literal"
%token IMPORT "import" CONST "const" FN "fn" KERNEL "kernel" LET "let"
%token VAR "var" IF "if" ELSE "else" FOR "for" IN "in" WHILE "while"
%token RETURN "return" TRUE "true" FALSE "false" NONE "None" INF "inf"
%token AS "as" GRID "grid"
%token OROR "||" ANDAND "&&" EQ "==" NE "!=" LE "<=" GE ">=" SHL "<<"
%token SHR ">>"
%token ADDEQ "+=" SUBEQ "-=" MULEQ "*=" DIVEQ "/=" MODEQ "%=" ANDEQ "&="
%token OREQ "|=" XOREQ "^=" SHLEQ "<<=" SHREQ ">>="

%left "||"
%left "&&"
%left '|'
%left '^'
%left '&'
%left "==" "!="
%left '<' "<=" '>' ">="
%left "<<" ">>"
%left '+' '-'
%left '*' '/' '%'

%type <ex> expr unary cast postfix primary index
%type <list> exprs exprs1 exprs2 indices
%type <args> args args1
%type <type> type opt_type
%type <stmt> stmt block if_stmt
%type <stmts> stmts
%type <param> param cparam
%type <params> params params1 cparams cparams1
%type <attr> attr
%type <attrs> attrs
%type <item> item
%type <tok> name
%type <op> assign_op

%%

file: items ;

items
    : %empty
    | items attrs item      { ps_add_item(ps, $3, $2); }
    | items error
    ;

attrs
    : %empty                { $$ = (PsAttrs){0}; }
    | attrs attr            { $$ = $1; vec_push(ps->ar, &$$, $2); }
    ;

attr
    : '@' name              { $$ = ps_attr(ps, $2.text, @2, NULL, @$); }
    | '@' name '(' args ')' { $$ = ps_attr(ps, $2.text, @2, $4, @$); }
    ;

item
    : "import" STRING ';' {
        $$ = ps_item(ps, I_IMPORT, NULL, @2, @$);
        $$->path = $2.text;
    }
    | "const" name opt_type '=' expr ';' {
        $$ = ps_item(ps, I_CONST, $2.text, @2, @$);
        $$->type = $3;
        $$->value = $5.e;
    }
    | "fn" name '(' params ')' block {
        $$ = ps_item(ps, I_FN, $2.text, @2, @$);
        $$->params = $4.v;
        $$->nparams = $4.n;
        $$->body = $6;
    }
    | "kernel" name cparams '(' params ')' block {
        $$ = ps_item(ps, I_KERNEL, $2.text, @2, @$);
        $$->cparams = $3.v;
        $$->ncparams = $3.n;
        $$->params = $5.v;
        $$->nparams = $5.n;
        $$->body = $7;
    }
    | "kernel" name cparams '(' params ')' "grid" '(' exprs1 ')' block {
        $$ = ps_item(ps, I_KERNEL, $2.text, @2, @$);
        $$->cparams = $3.v;
        $$->ncparams = $3.n;
        $$->params = $5.v;
        $$->nparams = $5.n;
        $$->grid = $9.v;
        $$->ngrid = $9.n;
        $$->gloc = loc_span(@7, @10);
        $$->body = $11;
    }
    ;

name: IDENT ;

/* Compile-time parameters: `<NAME: T [= default], ...>`. */
cparams
    : %empty                { $$ = (PsParams){0}; }
    | '<' cparams1 '>'      { $$ = $2; }
    | '<' cparams1 ',' '>'  { $$ = $2; }
    ;

cparams1
    : cparam                { $$ = (PsParams){0}; vec_push(ps->ar, &$$, $1); }
    | cparams1 ',' cparam   { $$ = $1; vec_push(ps->ar, &$$, $3); }
    ;

cparam
    : name ':' type         { $$ = ps_param($1.text, $3, NULL, @$); }
    | name ':' type '=' unary { $$ = ps_param($1.text, $3, $5.e, @$); }
    ;

/* Runtime parameters (kernels) and fn parameters: `NAME [: type]`. */
params
    : %empty                { $$ = (PsParams){0}; }
    | params1
    | params1 ','
    ;

params1
    : param                 { $$ = (PsParams){0}; vec_push(ps->ar, &$$, $1); }
    | params1 ',' param     { $$ = $1; vec_push(ps->ar, &$$, $3); }
    ;

param
    : name                  { $$ = ps_param($1.text, NULL, NULL, @$); }
    | name ':' type         { $$ = ps_param($1.text, $3, NULL, @$); }
    ;

opt_type
    : %empty                { $$ = NULL; }
    | ':' type              { $$ = $2; }
    ;

type
    : name                  { $$ = ps_type_name(ps, $1.text, @$); }
    | name '[' exprs1 ']'   { $$ = ps_type_tile(ps, $1.text, $3, @$); }
    | '*' type              { $$ = ps_type_ptr(ps, $2, @$); }
    ;

/* ------------------------------------------------------------ statements */

block
    : '{' stmts '}'         { $$ = ps_block(ps, $2, @$); }
    ;

stmts
    : %empty                { $$ = (PsStmts){0}; }
    | stmts stmt            { $$ = $1; vec_push(ps->ar, &$$, $2); }
    | stmts error           { $$ = $1; }
    ;

stmt
    : "let" name opt_type '=' expr ';' {
        $$ = ps_bind(ps, S_LET, $2.text, @2, $3, $5, @$);
    }
    | "var" name opt_type '=' expr ';' {
        $$ = ps_bind(ps, S_VAR, $2.text, @2, $3, $5, @$);
    }
    | name assign_op expr ';' { $$ = ps_assign(ps, $1.text, @1, $2, $3, @$); }
    | if_stmt
    | "for" name "in" expr block { $$ = ps_for(ps, $2.text, @2, $4, $5, @$); }
    | "while" expr block    { $$ = ps_while(ps, $2, $3, @$); }
    | "return" ';'          { $$ = ps_expr_stmt(ps, S_RETURN, NULL, @$); }
    | "return" expr ';'     { $$ = ps_expr_stmt(ps, S_RETURN, $2.e, @$); }
    | expr ';'              { $$ = ps_expr_stmt(ps, S_EXPR, $1.e, @$); }
    | block
    | error ';'             { $$ = ps_stmt(ps, S_BLOCK, @$); yyerrok; }
    ;

if_stmt
    : "if" expr block       { $$ = ps_if(ps, $2, $3, NULL, @$); }
    | "if" expr block "else" block   { $$ = ps_if(ps, $2, $3, $5, @$); }
    | "if" expr block "else" if_stmt { $$ = ps_if(ps, $2, $3, $5, @$); }
    ;

assign_op
    : '='                   { $$ = -1; }
    | "+="                  { $$ = OP_ADD; }
    | "-="                  { $$ = OP_SUB; }
    | "*="                  { $$ = OP_MUL; }
    | "/="                  { $$ = OP_DIV; }
    | "%="                  { $$ = OP_MOD; }
    | "&="                  { $$ = OP_AND; }
    | "|="                  { $$ = OP_OR; }
    | "^="                  { $$ = OP_XOR; }
    | "<<="                 { $$ = OP_SHL; }
    | ">>="                 { $$ = OP_SHR; }
    ;

/* ----------------------------------------------------------- expressions */

expr
    : expr "||" expr        { $$ = ps_binary(ps, OP_OROR, $1, $3, @$); }
    | expr "&&" expr        { $$ = ps_binary(ps, OP_ANDAND, $1, $3, @$); }
    | expr '|' expr         { $$ = ps_binary(ps, OP_OR, $1, $3, @$); }
    | expr '^' expr         { $$ = ps_binary(ps, OP_XOR, $1, $3, @$); }
    | expr '&' expr         { $$ = ps_binary(ps, OP_AND, $1, $3, @$); }
    | expr "==" expr        { $$ = ps_binary(ps, OP_EQ, $1, $3, @$); }
    | expr "!=" expr        { $$ = ps_binary(ps, OP_NE, $1, $3, @$); }
    | expr '<' expr         { $$ = ps_binary(ps, OP_LT, $1, $3, @$); }
    | expr "<=" expr        { $$ = ps_binary(ps, OP_LE, $1, $3, @$); }
    | expr '>' expr         { $$ = ps_binary(ps, OP_GT, $1, $3, @$); }
    | expr ">=" expr        { $$ = ps_binary(ps, OP_GE, $1, $3, @$); }
    | expr "<<" expr        { $$ = ps_binary(ps, OP_SHL, $1, $3, @$); }
    | expr ">>" expr        { $$ = ps_binary(ps, OP_SHR, $1, $3, @$); }
    | expr '+' expr         { $$ = ps_binary(ps, OP_ADD, $1, $3, @$); }
    | expr '-' expr         { $$ = ps_binary(ps, OP_SUB, $1, $3, @$); }
    | expr '*' expr         { $$ = ps_binary(ps, OP_MUL, $1, $3, @$); }
    | expr '/' expr         { $$ = ps_binary(ps, OP_DIV, $1, $3, @$); }
    | expr '%' expr         { $$ = ps_binary(ps, OP_MOD, $1, $3, @$); }
    | unary
    ;

unary
    : '-' unary             { $$ = ps_unary(ps, OP_NEG, $2, @$); }
    | '!' unary             { $$ = ps_unary(ps, OP_NOT, $2, @$); }
    | '~' unary             { $$ = ps_unary(ps, OP_BITNOT, $2, @$); }
    | cast
    ;

cast
    : cast "as" type        { $$ = ps_cast(ps, $1, $3, @$); }
    | postfix
    ;

postfix
    : postfix '[' indices ']' { $$ = ps_index(ps, $1, $3, @$); }
    | primary
    ;

primary
    : INT                   { $$ = ps_int(ps, &$1, @$); }
    | FLOAT                 { $$ = ps_float(ps, &$1, @$); }
    | STRING                { $$ = ps_str(ps, &$1, @$); }
    | "true"                { $$ = ps_leaf(ps, E_BOOL, @$); $$.e->ival = 1; }
    | "false"               { $$ = ps_leaf(ps, E_BOOL, @$); }
    | "None"                { $$ = ps_leaf(ps, E_NONE, @$); }
    | "inf"                 { $$ = ps_leaf(ps, E_INF, @$); }
    | name                  { $$ = ps_name(ps, $1.text, @$); }
    | name '(' args ')'     { $$ = ps_call(ps, $1.text, @1, $3, @$); }
    | '(' expr ')'          { $$ = $2; }
    | '[' exprs ']'         { $$ = ps_list(ps, $2, @$); }
    ;

/* `x[:, None, 0:32, 3]`: each index is ':' (keep an axis), a slice
 * `lo:hi` (either bound may be left out) or an expression. */
indices
    : index                 { $$ = ps_list_add(ps, (PsList){0}, $1); }
    | indices ',' index     { $$ = ps_list_add(ps, $1, $3); }
    ;

index
    : expr
    | ':'                   { $$ = ps_leaf(ps, E_SLICE, @$); }
    | expr ':'              { $$ = ps_slice(ps, $1.e, NULL, @$); }
    | ':' expr              { $$ = ps_slice(ps, NULL, $2.e, @$); }
    | expr ':' expr         { $$ = ps_slice(ps, $1.e, $3.e, @$); }
    ;

/* Expression lists (grid, shapes, tile dimensions) allow a trailing ','. */
exprs
    : %empty                { $$ = (PsList){0}; }
    | exprs1
    ;

exprs1
    : exprs2
    | exprs2 ','
    ;

exprs2
    : expr                  { $$ = ps_list_add(ps, (PsList){0}, $1); }
    | exprs2 ',' expr       { $$ = ps_list_add(ps, $1, $3); }
    ;

/* Call arguments: positional ones, then `name = value` ones. */
args
    : %empty                { $$ = ar_alloc(ps->ar, sizeof(PsArgs)); }
    | args1
    | args1 ','
    ;

args1
    : expr                  { $$ = ps_args_add(ps, NULL, NULL, @1, $1); }
    | name '=' expr         { $$ = ps_args_add(ps, NULL, $1.text, @1, $3); }
    | args1 ',' expr        { $$ = ps_args_add(ps, $1, NULL, @3, $3); }
    | args1 ',' name '=' expr { $$ = ps_args_add(ps, $1, $3.text, @3, $5); }
    ;

%%

static void yyerror(Loc *l, void *scanner, PsCtx *ps, const char *msg) {
    /* With custom syntax errors, bison calls yyerror only when its stack
     * is exhausted: more pending nesting (prefix operators, '*' types,
     * else-if links) than the depth limit allows by far. */
    (void)scanner;
    (void)msg;
    if (ps->too_deep || ps->lx->fatal) return;
    ps->too_deep = 1;
    dg_error(ps->dg, *l, "nesting too deep (the limit is %d levels)",
             PS_MAX_DEPTH);
}

/* The token code of a symbol kind (for lx_token_name). */
static int ps_sym_code(yysymbol_kind_t sym) {
    for (int c = 0; c <= YYMAXUTOK; c++)
        if (YYTRANSLATE(c) == sym) return c;
    return -1;
}

/* A zero-width location just past `l` (where a missing token belongs). */
static Loc ps_after(Loc l) {
    l.line = l.eline;
    l.col = l.ecol;
    return l;
}

static const char *ps_closer_msg(const LxDelim *d) {
    switch (d->kind) {
    case LD_CALL: return "expected ')' to close call";
    case LD_PARAMS: return "expected ')' to close parameter list";
    case LD_ATTR: return "expected ')' to close attribute arguments";
    case LD_GRID: return "expected ')' to close grid";
    case LD_PAREN: return "expected ')'";
    case LD_BRACKET: return "expected ']'";
    case LD_BLOCK: return "expected '}'";
    }
    return "expected closing bracket";
}

static int ps_closer(char open) {
    return open == '(' ? ')' : open == '[' ? ']' : '}';
}

/* Chooses the message for a syntax error from what the parser expected,
 * what it got and the scanner's recent history (see the file comment).
 * Returns 0: the error was reported (or deliberately not: after a fatal
 * nesting error the parser only sees a fake end of input). */
static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner,
                                 PsCtx *ps) {
    LxCtx *lx = lx_ctx(scanner);
    if (lx->fatal || ps->too_deep) return 0;
    yysymbol_kind_t expected[YYNTOKENS];
    int nexp = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
    char want[YYNTOKENS] = {0};
    for (int i = 0; i < nexp; i++) want[expected[i]] = 1;
#define WANT(tok) want[YYTRANSLATE(tok)]
    int la = ps_sym_code(yypcontext_token(ctx));
    Loc at = *yypcontext_location(ctx), prev_end = ps_after(lx->prevloc);
    const LxDelim *open = lx->ndelims ? &lx->delims[lx->ndelims - 1] : NULL;
    int prev = lx->prev;
    if (la == YYEOF) {
        at = prev_end;
        if (lx->prev == 0) at = (Loc){lx->file, 1, 1, 1, 1};
    }
    Diag *dg = ps->dg;

    if (la == ELSE && WANT(LET)) {
        dg_error(dg, at, "'else' without a matching 'if'");
    } else if (WANT(FN)) {
        dg_error(dg, at, "expected item (fn, kernel, const or import)");
    } else if (la == YYEOF && open && WANT(ps_closer(open->ch))) {
        dg_error(dg, at, "expected '%c' at end of file", ps_closer(open->ch));
        dg_note(dg, open->loc, "to match this '%c'", open->ch);
    } else if (WANT(LET)) {
        dg_error(dg, at, "expected statement");
    } else if (WANT(IDENT) && !WANT(INT) &&
               (prev == '<' || (prev == ',' && lx->in_header && !open) ||
                ((prev == '(' || prev == ',') && open &&
                 open->kind == LD_PARAMS))) {
        dg_error(dg, at, "expected parameter name");
    } else if (open && WANT(ps_closer(open->ch))) {
        dg_error(dg, at, "%s", ps_closer_msg(open));
        dg_note(dg, open->loc, "to match this '%c'", open->ch);
    } else if (WANT(';') && WANT(INT)) {
        dg_error(dg, at, "expected expression or ';'");
    } else if (WANT(';')) {
        dg_error(dg, prev_end, "expected ';' after %s",
                 lx->prev2 == IMPORT ? "import" : "expression");
    } else if (WANT(INT)) {
        dg_error(dg, at, "expected expression");
    } else if (WANT(IDENT) && (prev == ':' || prev == AS || prev == '*')) {
        dg_error(dg, at, "expected type after %s", lx_token_name(prev));
    } else if (WANT(IDENT) && prev == '@') {
        dg_error(dg, at, "expected attribute name after '@'");
    } else if (WANT(IDENT)) {
        dg_error(dg, at, "expected name after %s", lx_token_name(prev));
    } else if (WANT('{') && (prev == ')' || prev == '>')) {
        dg_error(dg, at, "expected '{' to begin the body");
    } else if (WANT('{')) {
        dg_error(dg, at, "expected '{'");
    } else {
        /* Name up to four alternatives; more than that says nothing. */
        Buf b = {0};
        int shown = 0;
        for (int i = 0; i < nexp && nexp <= 4; i++) {
            int code = ps_sym_code(expected[i]);
            if (code < 0) continue;
            if (shown) buf_puts(&b, i == nexp - 1 ? " or " : ", ");
            buf_puts(&b, lx_token_name(code));
            shown++;
        }
        if (shown)
            dg_error(dg, at, "expected %s", b.s);
        else
            dg_error(dg, at, "unexpected %s", lx_token_name(la));
        buf_free(&b);
    }
#undef WANT
    return 0;
}

AstFile *ps_parse(Arena *ar, Diag *dg, uint32_t file, const char *text,
                  size_t len) {
    LxCtx lx;
    PsCtx ps = {.ar = ar, .dg = dg, .lx = &lx};
    void *scanner = lx_open(&lx, ar, dg, file, text, len);
    yyparse(scanner, &ps);
    lx_close(scanner);
    AstFile *f = ar_alloc(ar, sizeof *f);
    f->path = dg_file_path(dg, file);
    f->file = file;
    f->items = ps.items.v;
    f->nitems = ps.items.n;
    return f;
}
