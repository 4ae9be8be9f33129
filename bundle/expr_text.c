/*
 * expr_text.c — postfix `grid`/`@require` code back to source-like text,
 * for messages: "cols % 128 == 0", with the runtime parameters' names and
 * the compile-time values sema folded in.
 *
 * The code is printed where it is stored, without building a tree: the
 * operands of the instruction at j are the subexpressions ending at j-1,
 * at (start of that) - 1, and so on; span_start walks back counting the
 * values still owed, so it needs no stack and no memory. Operators get the
 * language's precedences (docs/language.md: C's), and parentheses only
 * where the tree needs them; `x ^ -1` prints as `~x`, the form sema
 * translates `~x` into. The recursion is bounded (deeper parts print as
 * "...") so that a crafted bundle's long chain cannot exhaust the stack,
 * and nothing assumes the code is well formed: a malformed part prints as
 * "?".
 *
 * tlb_tmap_text prints a variant's tensor map the same way: "tmap a: f16
 * [K, M] stride [lda] box [64, 128] swizzle 128", dimensions innermost
 * first, strides in elements, as the bundle holds them.
 *
 * tlb_expr_culprit narrows a failed condition to the conjunct of a
 * top-level `&&` chain that made it fail, by evaluating the left operand's
 * code on its own (a subexpression's code is itself valid postfix code);
 * it too stops after MAX_PRINT_DEPTH steps, so each call stays linear in
 * the code's length.
 */
#include "bundle/choose.h"
#include "bundle/text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

enum { MAX_PRINT_DEPTH = 48, PREC_UNARY = 11, PREC_PRIMARY = 14 };

TlbText tlb_text(char *buf, size_t n) {
    if (n) buf[0] = 0;
    return (TlbText){buf, n, 0, 0};
}

void tlb_text_printf(TlbText *t, const char *fmt, ...) {
    if (t->full || t->n == 0) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->s + t->used, t->n - t->used, fmt, ap);
    va_end(ap);
    if (w >= 0 && (size_t)w < t->n - t->used) {
        t->used += (size_t)w;
        return;
    }
    t->full = 1;
    t->used = t->n - 1;
    t->s[t->used] = 0;
    for (size_t i = 1; i <= 3 && i <= t->used; i++) t->s[t->used - i] = '.';
}

/* The first instruction of the subexpression that ends at j; -1 when the
 * code before j does not hold one. */
static int64_t span_start(const TlbExpr *e, int64_t j) {
    int64_t need = 1;
    for (int64_t i = j; i >= 0; i--) {
        int a = tlb_op_arity((TlbOp)e->code[i].op);
        if (a < 0) return -1;
        need += a - 1;
        if (need == 0) return i;
    }
    return -1;
}

static const struct {
    const char *sym;
    int prec;
} binops[TLB_X_NOPS] = {
    [TLB_X_LOR] = {"||", 1},  [TLB_X_LAND] = {"&&", 2}, [TLB_X_OR] = {"|", 3},
    [TLB_X_XOR] = {"^", 4},   [TLB_X_AND] = {"&", 5},   [TLB_X_EQ] = {"==", 6},
    [TLB_X_NE] = {"!=", 6},   [TLB_X_LT] = {"<", 7},    [TLB_X_LE] = {"<=", 7},
    [TLB_X_GT] = {">", 7},    [TLB_X_GE] = {">=", 7},   [TLB_X_SHL] = {"<<", 8},
    [TLB_X_SHR] = {">>", 8},  [TLB_X_ADD] = {"+", 9},   [TLB_X_SUB] = {"-", 9},
    [TLB_X_MUL] = {"*", 10},  [TLB_X_DIV] = {"/", 10},  [TLB_X_MOD] = {"%", 10},
};

/* Is the instruction at j `x ^ -1`, i.e. `~x`? */
static int is_bitnot(const TlbExpr *e, int64_t j) {
    return e->code[j].op == TLB_X_XOR && j > 0 && e->code[j - 1].op == TLB_X_CONST &&
           e->code[j - 1].value == -1;
}

/* How tightly the subexpression ending at j binds. */
static int prec_of(const TlbExpr *e, int64_t j) {
    const TlbInsn *in = &e->code[j];
    if (in->op == TLB_X_CONST) return in->value < 0 ? PREC_UNARY : PREC_PRIMARY;
    if (in->op == TLB_X_LNOT || in->op == TLB_X_NEG || is_bitnot(e, j)) return PREC_UNARY;
    if (in->op < TLB_X_NOPS && binops[in->op].sym) return binops[in->op].prec;
    return PREC_PRIMARY;   /* parameters, calls, the parenthesized select */
}

typedef struct Printer {
    TlbText *t;
    const TlbKernel *k;
    const TlbExpr *e;
} Printer;

static void print_at(Printer *p, int64_t j, int depth);

/* The subexpression ending at j, in parentheses when it binds less
 * tightly than `min`. */
static void operand(Printer *p, int64_t j, int min, int depth) {
    int paren = j >= 0 && prec_of(p->e, j) < min;
    if (paren) tlb_text_printf(p->t, "(");
    print_at(p, j, depth + 1);
    if (paren) tlb_text_printf(p->t, ")");
}

/* The ends of the `n` operands of the instruction at j, first to last;
 * -1 for an operand that is missing. */
static void operands(const TlbExpr *e, int64_t j, int n, int64_t *end) {
    int64_t at = j - 1;
    for (int i = n - 1; i >= 0; i--) {
        end[i] = at;
        int64_t s = i && at >= 0 ? span_start(e, at) : -1;
        at = s >= 0 ? s - 1 : -1;
    }
}

static void print_call(Printer *p, const char *name, const int64_t *end, int n, int depth) {
    tlb_text_printf(p->t, "%s(", name);
    for (int i = 0; i < n; i++) {
        if (i) tlb_text_printf(p->t, name[0] ? ", " : i == 1 ? " ? " : " : ");
        operand(p, end[i], 0, depth);
    }
    tlb_text_printf(p->t, ")");
}

/* Leaves and unary operators; 0 when the instruction is none of them. */
static int print_simple(Printer *p, const TlbInsn *in, const int64_t *end, int depth) {
    switch ((TlbOp)in->op) {
    case TLB_X_CONST: tlb_text_printf(p->t, "%" PRId64, in->value); return 1;
    case TLB_X_PARAM:
        tlb_text_printf(p->t, "%s", in->param < p->k->nparams
                                        ? p->k->params[in->param].name : "?");
        return 1;
    case TLB_X_LNOT:
    case TLB_X_NEG:
        tlb_text_printf(p->t, in->op == TLB_X_LNOT ? "!" : "-");
        operand(p, end[0], PREC_PRIMARY, depth);
        return 1;
    case TLB_X_CDIV: print_call(p, "cdiv", end, 2, depth); return 1;
    case TLB_X_MIN: print_call(p, "min", end, 2, depth); return 1;
    case TLB_X_MAX: print_call(p, "max", end, 2, depth); return 1;
    case TLB_X_SELECT: print_call(p, "", end, 3, depth); return 1;   /* (c ? a : b) */
    default: return 0;
    }
}

static void print_at(Printer *p, int64_t j, int depth) {
    if (j < 0 || j >= (int64_t)p->e->n) {
        tlb_text_printf(p->t, "?");
        return;
    }
    if (depth > MAX_PRINT_DEPTH) {
        tlb_text_printf(p->t, "...");
        return;
    }
    const TlbInsn *in = &p->e->code[j];
    int64_t end[3];
    int arity = tlb_op_arity((TlbOp)in->op);
    if (arity > 0) operands(p->e, j, arity, end);
    if (print_simple(p, in, end, depth)) return;
    if (arity != 2 || !binops[in->op].sym) {
        tlb_text_printf(p->t, "?");
    } else if (is_bitnot(p->e, j)) {
        tlb_text_printf(p->t, "~");
        operand(p, end[0], PREC_PRIMARY, depth);
    } else {
        int prec = binops[in->op].prec;
        operand(p, end[0], prec, depth);          /* left-associative: a - b - c */
        tlb_text_printf(p->t, " %s ", binops[in->op].sym);
        operand(p, end[1], prec + 1, depth);
    }
}

void tlb_expr_print_range(TlbText *t, const TlbKernel *k, const TlbExpr *e, uint32_t last) {
    Printer p = {t, k, e};
    print_at(&p, (int64_t)last, 0);
}

const char *tlb_expr_text(const TlbKernel *k, const TlbExpr *e, char *buf, size_t n) {
    TlbText t = tlb_text(buf, n);
    if (e->n) tlb_expr_print_range(&t, k, e, e->n - 1);
    return buf;
}

/* "[e0, e1]": n expressions of k, innermost first. */
static void print_list(TlbText *t, const TlbKernel *k, const TlbExpr *e, uint32_t n) {
    tlb_text_printf(t, "[");
    for (uint32_t i = 0; i < n; i++) {
        if (i) tlb_text_printf(t, ", ");
        if (e[i].n) tlb_expr_print_range(t, k, &e[i], e[i].n - 1);
        else tlb_text_printf(t, "?");
    }
    tlb_text_printf(t, "]");
}

const char *tlb_tmap_text(const TlbKernel *k, const TlbTmap *m, char *buf, size_t n) {
    TlbText t = tlb_text(buf, n);
    uint32_t rank = m->rank <= TLB_TMAP_MAXRANK ? m->rank : 0;
    tlb_text_printf(&t, "tmap %s: %s ", m->param < k->nparams ? k->params[m->param].name : "?",
                    tlb_type_name((TlbType)m->elem));
    print_list(&t, k, m->dim, rank);
    if (rank > 1) {
        tlb_text_printf(&t, " stride ");
        print_list(&t, k, m->stride, rank - 1);
    }
    tlb_text_printf(&t, " box [");
    for (uint32_t i = 0; i < rank; i++) tlb_text_printf(&t, "%s%u", i ? ", " : "", m->box[i]);
    tlb_text_printf(&t, "] swizzle %u", m->swizzle);
    return buf;
}

/* Does the code first..last, alone, fail the way the whole did (divide by
 * zero when `divzero`, else give 0)? */
static int fails(const TlbExpr *e, uint32_t first, uint32_t last, const int64_t *args,
                 int divzero) {
    TlbExpr sub = {last - first + 1, e->code + first};
    int64_t v = 1;
    int rc = tlb_eval(&sub, args, &v);
    return divzero ? rc != 0 : rc == 0 && v == 0;
}

uint32_t tlb_expr_culprit(const TlbExpr *e, const int64_t *args, int divzero) {
    uint32_t last = e->n - 1;
    for (int step = 0; step < MAX_PRINT_DEPTH && e->code[last].op == TLB_X_LAND; step++) {
        int64_t end[2];
        operands(e, last, 2, end);
        int64_t first = end[0] >= 0 ? span_start(e, end[0]) : -1;
        if (first < 0 || end[1] < 0) break;
        last = fails(e, (uint32_t)first, (uint32_t)end[0], args, divzero) ? (uint32_t)end[0]
                                                                         : (uint32_t)end[1];
    }
    return last;
}
