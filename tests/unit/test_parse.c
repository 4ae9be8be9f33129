/* Unit tests of the frontend: the spec's examples parse cleanly into the
 * expected trees with exact locations; precedence; error recovery reports
 * several errors in one run; the nesting limit stops deep input cleanly. */
#include "parser/parser.h"
#include "check.h"

#include <stdlib.h>

typedef struct Parsed {
    Arena *ar;
    Diag *dg;
    AstFile *file;
} Parsed;

static Parsed parse(const char *src) {
    Parsed p;
    p.ar = ar_new();
    p.dg = dg_new(p.ar, NULL, 0);
    dg_set_limit(p.dg, 0);
    uint32_t f = dg_add_file(p.dg, "t.tile", src, strlen(src));
    p.file = ps_parse(p.ar, p.dg, f, src, strlen(src));
    return p;
}

static void done(Parsed *p) {
    dg_free(p->dg);
    ar_free(p->ar);
}

static int loc_is(Loc l, uint32_t line, uint32_t col, uint32_t eline,
                  uint32_t ecol) {
    return l.line == line && l.col == col && l.eline == eline && l.ecol == ecol;
}

/* The four examples of LANGUAGE.md, verbatim, parse with no error. */
static void test_spec_examples(void) {
    Arena *ar = ar_new();
    size_t len;
    char *text = read_file(ar, TEST_INPUTS "/spec-examples.tile", &len);
    CHECK(text != NULL);
    if (!text) {
        ar_free(ar);
        return;
    }
    Diag *dg = dg_new(ar, NULL, 0);
    uint32_t f = dg_add_file(dg, "spec-examples.tile", text, len);
    AstFile *file = ps_parse(ar, dg, f, text, len);
    CHECK(dg_errors(dg) == 0);
    CHECK_STR(dg_text(dg), "");
    CHECK(file->nitems == 5);
    if (file->nitems != 5) goto out;

    AstItem *imp = file->items[0];
    CHECK(imp->kind == I_IMPORT);
    CHECK_STR(imp->path, "std/math");
    CHECK(loc_is(imp->loc, 1, 1, 1, 19));

    /* vadd: one cparam with a default, four params, a grid, three stmts. */
    AstItem *vadd = file->items[1];
    CHECK(vadd->kind == I_KERNEL);
    CHECK_STR(vadd->name, "vadd");
    CHECK(loc_is(vadd->nloc, 3, 8, 3, 12));
    CHECK(vadd->nattrs == 0);
    CHECK(vadd->ncparams == 1);
    CHECK_STR(vadd->cparams[0].name, "BLOCK");
    CHECK(vadd->cparams[0].type->kind == T_NAME);
    CHECK_STR(vadd->cparams[0].type->name, "i32");
    CHECK(vadd->cparams[0].deflt->kind == E_INT);
    CHECK(vadd->cparams[0].deflt->ival == 1024);
    CHECK(vadd->nparams == 4);
    CHECK(vadd->params[0].type->kind == T_PTR);
    CHECK_STR(vadd->params[0].type->elem->name, "f32");
    CHECK(vadd->ngrid == 1);
    CHECK(vadd->grid[0]->kind == E_CALL);
    CHECK_STR(vadd->grid[0]->name, "cdiv");
    CHECK(loc_is(vadd->gloc, 4, 5, 4, 25));
    CHECK(vadd->body->kind == S_BLOCK && vadd->body->nbody == 3);
    AstStmt *st = vadd->body->body[2];
    CHECK(st->kind == S_EXPR);
    AstExpr *store = st->value;
    CHECK(store->kind == E_CALL && store->nargs == 2 && store->nnamed == 1);
    CHECK_STR(store->names[0], "mask");
    CHECK(loc_is(store->nlocs[0], 8, 72, 8, 76));
    CHECK(store->args[2]->kind == E_NAME);

    /* bias_gelu: @tune with two named list arguments, a type cparam. */
    AstItem *bg = file->items[2];
    CHECK(bg->nattrs == 1);
    CHECK_STR(bg->attrs[0].name, "tune");
    AstExpr *tune = bg->attrs[0].call;
    CHECK(tune && tune->nargs == 0 && tune->nnamed == 2);
    CHECK_STR(tune->names[1], "warps");
    CHECK(tune->args[0]->kind == E_LIST && tune->args[0]->nargs == 3);
    CHECK(bg->ncparams == 2);
    CHECK_STR(bg->cparams[0].type->name, "type");
    CHECK(bg->cparams[0].deflt->kind == E_NAME);
    CHECK(bg->cparams[1].deflt == NULL);
    /* let z = load(...) as f32 * a + b: ((cast * a) + b) */
    AstExpr *z = bg->body->body[2]->value;
    CHECK(z->kind == E_BINARY && z->op == OP_ADD);
    CHECK(z->lhs->kind == E_BINARY && z->lhs->op == OP_MUL);
    CHECK(z->lhs->lhs->kind == E_CAST);
    CHECK_STR(z->lhs->lhs->type->name, "f32");

    /* softmax: two attributes; other=-inf is a negated inf. */
    AstItem *sm = file->items[3];
    CHECK(sm->nattrs == 2);
    CHECK_STR(sm->attrs[1].name, "require");
    CHECK(sm->attrs[1].call->nargs == 1);
    CHECK(sm->attrs[1].call->args[0]->op == OP_GE);
    AstExpr *v = sm->body->body[3]->value;
    CHECK(v->kind == E_CALL && v->nnamed == 2);
    CHECK(v->args[2]->kind == E_UNARY && v->args[2]->op == OP_NEG);
    CHECK(v->args[2]->lhs->kind == E_INF);

    /* matmul: var, for over range, compound index lists, assignment. */
    AstItem *mm = file->items[4];
    CHECK(mm->nparams == 10 && mm->ngrid == 2);
    AstStmt *acc = mm->body->body[3];
    CHECK(acc->kind == S_VAR);
    CHECK_STR(acc->name, "acc");
    AstStmt *loop = mm->body->body[4];
    CHECK(loop->kind == S_FOR);
    CHECK_STR(loop->name, "k");
    CHECK(loop->iter->kind == E_CALL && loop->iter->nargs == 3);
    CHECK(loop->nbody == 1 && loop->body[0]->kind == S_BLOCK);
    AstStmt *upd = loop->body[0]->body[2];
    CHECK(upd->kind == S_ASSIGN && upd->op == -1);
    /* rm[:, None] */
    AstExpr *at = loop->body[0]->body[0]->value;
    AstExpr *idx = at->args[0]->lhs->rhs->lhs;
    CHECK(idx->kind == E_INDEX && idx->nargs == 2);
    CHECK(idx->args[0]->kind == E_SLICE && idx->args[1]->kind == E_NONE);
    CHECK(loc_is(idx->loc, 46, 27, 46, 38));
out:
    dg_free(dg);
    ar_free(ar);
}

/* Every level of LANGUAGE.md's precedence list, lowest first. */
static void test_precedence(void) {
    Parsed p = parse("const X = a || b && c | d ^ e & f == g < h << i + j * "
                     "-k as T[0];");
    CHECK(dg_errors(p.dg) == 0);
    AstExpr *e = p.file->items[0]->value;
    AstOp chain[] = {OP_OROR, OP_ANDAND, OP_OR, OP_XOR, OP_AND, OP_EQ,
                     OP_LT, OP_SHL, OP_ADD, OP_MUL};
    for (size_t i = 0; i < sizeof chain / sizeof *chain; i++) {
        CHECK(e->kind == E_BINARY && e->op == chain[i]);
        e = e->rhs;
    }
    CHECK(e->kind == E_UNARY && e->op == OP_NEG);
    CHECK(e->lhs->kind == E_CAST);
    CHECK(e->lhs->lhs->kind == E_NAME);
    CHECK(e->lhs->type->kind == T_TILE);
    done(&p);

    /* Left associativity and postfix over unary. */
    p = parse("const Y = a - b - c; const Z = -x[0] as f32;");
    CHECK(dg_errors(p.dg) == 0);
    e = p.file->items[0]->value;
    CHECK(e->op == OP_SUB && e->lhs->op == OP_SUB && e->rhs->kind == E_NAME);
    e = p.file->items[1]->value;
    CHECK(e->kind == E_UNARY && e->lhs->kind == E_CAST &&
          e->lhs->lhs->kind == E_INDEX);
    done(&p);
}

static void test_statements(void) {
    Parsed p = parse(
        "fn f(x, y: f32[64]) {\n"
        "    var a: i32 = 0;\n"
        "    a += 1; a <<= 2;\n"
        "    if a < 1 { } else if a < 2 { return x; } else { return; }\n"
        "    while a > 0 { a -= 1; }\n"
        "    for i in static_range(0, 4) { static_assert(i < 4, \"m\"); }\n"
        "    { }\n"
        "}\n");
    CHECK(dg_errors(p.dg) == 0);
    AstItem *f = p.file->items[0];
    CHECK(f->kind == I_FN && f->nparams == 2 && f->params[0].type == NULL);
    CHECK(f->params[1].type->kind == T_TILE && f->params[1].type->ndims == 1);
    AstStmt **b = f->body->body;
    CHECK(f->body->nbody == 7);
    CHECK(b[0]->kind == S_VAR && b[0]->type && loc_is(b[0]->nloc, 2, 9, 2, 10));
    CHECK(b[1]->kind == S_ASSIGN && b[1]->op == OP_ADD);
    CHECK(b[2]->kind == S_ASSIGN && b[2]->op == OP_SHL);
    CHECK(b[3]->kind == S_IF && b[3]->els && b[3]->els->kind == S_IF);
    CHECK(b[3]->els->els && b[3]->els->els->kind == S_BLOCK);
    CHECK(b[3]->els->body[0]->body[0]->kind == S_RETURN);
    CHECK(b[4]->kind == S_WHILE);
    CHECK(b[5]->kind == S_FOR && b[5]->body[0]->body[0]->kind == S_EXPR);
    CHECK_STR(b[5]->body[0]->body[0]->value->args[1]->text, "m");
    CHECK(b[6]->kind == S_BLOCK && b[6]->nbody == 0);
    CHECK(loc_is(b[4]->loc, 5, 5, 5, 28));
    done(&p);
}

/* One run reports every independent error, each once. */
static void test_recovery(void) {
    Parsed p = parse("kernel k() {\n"
                     "    let x = ;\n"
                     "    let y = 1\n"
                     "    let z = f(1, 2;\n"
                     "    else { }\n"
                     "}\n"
                     "fn g(a b) { }\n"
                     "const OK = 1;\n"
                     "fn h() { return 1 }\n");
    CHECK(dg_errors(p.dg) == 6);
    const char *t = dg_text(p.dg);
    CHECK(strstr(t, "t.tile:2:13: error: expected expression\n") != NULL);
    CHECK(strstr(t, "t.tile:3:14: error: expected ';' after expression\n"));
    CHECK(strstr(t, "t.tile:4:19: error: expected ')' to close call\n"));
    CHECK(strstr(t, "t.tile:4:14: note: to match this '('\n"));
    CHECK(strstr(t, "t.tile:5:5: error: 'else' without a matching 'if'\n"));
    CHECK(strstr(t, "t.tile:7:8: error: expected ')' to close parameter "
                    "list\n"));
    CHECK(strstr(t, "t.tile:9:18: error: expected ';' after expression\n"));
    /* The kernel and the const survive; the broken fns do not. */
    CHECK(p.file->nitems >= 2);
    int found = 0;
    for (int i = 0; i < p.file->nitems; i++)
        found += p.file->items[i]->name &&
                 strcmp(p.file->items[i]->name, "OK") == 0;
    CHECK(found == 1);
    done(&p);

    p = parse("kernel k() { let x = 1; ");
    CHECK(dg_errors(p.dg) == 1);
    CHECK(strstr(dg_text(p.dg), "expected '}' at end of file") != NULL);
    done(&p);

    p = parse("let x = 1;\nkernel k() { }\n");
    CHECK(dg_errors(p.dg) == 1);
    CHECK(strstr(dg_text(p.dg), "t.tile:1:1: error: expected item (fn, "
                                "kernel, const or import)\n") != NULL);
    CHECK(p.file->nitems == 1);
    done(&p);
}

/* Deep input stops with one clear error, never a crash, whatever nests;
 * a long flat chain is not nesting and parses whatever its length. */
static void test_depth(void) {
    static const char *const shapes[][3] = {
        {"const X = ", "(", ")"},     /* brackets: counted by the scanner */
        {"const X = ", "-", ""},      /* prefix operators */
        {"const X = ", "a+", ""},     /* a flat chain: not nesting */
        {"const X: ", "*", ""},       /* pointer types */
        {"fn f() ", "{", "}"},        /* blocks */
    };
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        for (int n = 100; n <= 100000; n *= 1000) {
            Buf b = {0};
            buf_puts(&b, shapes[s][0]);
            for (int i = 0; i < n; i++) buf_puts(&b, shapes[s][1]);
            buf_puts(&b, s == 3 ? "f32 = 1" : s == 4 ? "" : "1");
            for (int i = 0; i < n; i++) buf_puts(&b, shapes[s][2]);
            if (s != 4) buf_puts(&b, ";");
            Parsed p = parse(b.s);
            int deep = strstr(dg_text(p.dg), "nesting too deep") != NULL;
            if (n == 100 || s == 2) {
                CHECK(dg_errors(p.dg) == 0 && p.file->nitems == 1);
            } else {
                CHECK(deep && dg_errors(p.dg) == 1);
                CHECK(p.file->nitems == 0);
            }
            done(&p);
            buf_free(&b);
        }
    }
}

int main(void) {
    test_spec_examples();
    test_precedence();
    test_statements();
    test_recovery();
    test_depth();
    return check_done("test_parse");
}
