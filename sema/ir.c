/*
 * ir.c — types, construction and printing of the tile IR.
 *
 * The printer is the contract for golden tests, so it is deterministic:
 * values are renumbered %0, %1, ... in the order they are printed, block
 * arguments included, independent of creation order. Constants print as
 * ops of their own (`%3 = const 1024 : i32`) so every operand is a value.
 */
#include "ir.h"
#include "plan/layout.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

const char *const ir_op_name[IR_NUM_OPS] = {
#define X(n, s) s,
    IR_OPS(X)
#undef X
};

/* ---------------------------------------------------------------- types */

static const struct {
    const char *name;
    uint8_t bits, bytes, isint, isfloat, issigned;
} kinds[SK_COUNT] = {
    [SK_VOID] = {"void", 0, 0, 0, 0, 0},
    [SK_BOOL] = {"bool", 1, 1, 0, 0, 0},
    [SK_I8] = {"i8", 8, 1, 1, 0, 1},     [SK_I16] = {"i16", 16, 2, 1, 0, 1},
    [SK_I32] = {"i32", 32, 4, 1, 0, 1},  [SK_I64] = {"i64", 64, 8, 1, 0, 1},
    [SK_U8] = {"u8", 8, 1, 1, 0, 0},     [SK_U16] = {"u16", 16, 2, 1, 0, 0},
    [SK_U32] = {"u32", 32, 4, 1, 0, 0},  [SK_U64] = {"u64", 64, 8, 1, 0, 0},
    [SK_F16] = {"f16", 16, 2, 0, 1, 1},  [SK_BF16] = {"bf16", 16, 2, 0, 1, 1},
    [SK_F32] = {"f32", 32, 4, 0, 1, 1},  [SK_F64] = {"f64", 64, 8, 0, 1, 1},
    [SK_F8E4M3] = {"f8e4m3", 8, 1, 0, 1, 1}, [SK_F8E5M2] = {"f8e5m2", 8, 1, 0, 1, 1},
    [SK_PTR] = {"ptr", 64, 8, 0, 0, 0},
};

Type ty_scalar(ScalarKind k) {
    Type t = {0};
    t.k = (uint8_t)k;
    return t;
}

Type ty_ptr(ScalarKind pointee) {
    Type t = {0};
    t.k = SK_PTR;
    t.pointee = (uint8_t)pointee;
    return t;
}

Type ty_tile(Type elem, int rank, const int32_t *dims) {
    Type t = ty_elem(elem);
    t.rank = (uint8_t)rank;
    for (int i = 0; i < rank; i++) t.dim[i] = dims[i];
    return t;
}

Type ty_elem(Type t) {
    Type e = {0};
    e.k = t.k;
    e.pointee = t.pointee;
    return e;
}

int ty_same_shape(Type a, Type b) {
    if (a.rank != b.rank) return 0;
    for (int i = 0; i < a.rank; i++)
        if (a.dim[i] != b.dim[i]) return 0;
    return 1;
}

int ty_eq(Type a, Type b) {
    return a.k == b.k && (a.k != SK_PTR || a.pointee == b.pointee) &&
           ty_same_shape(a, b);
}

int64_t ty_numel(Type t) {
    int64_t n = 1;
    for (int i = 0; i < t.rank; i++) n *= t.dim[i];
    return n;
}

Type ty_pad(Type t) {
    for (int i = 0; i < t.rank; i++) t.dim[i] = (int32_t)pow2_ceil(t.dim[i]);
    return t;
}

int ty_padded(Type t) {
    for (int i = 0; i < t.rank; i++)
        if (!is_pow2(t.dim[i])) return 1;
    return 0;
}

/* The row-major index in the padded shape of logical element i of t. */
static int64_t padded_index(Type t, int64_t i) {
    int64_t at = 0, scale = 1;
    for (int d = t.rank - 1; d >= 0; d--) {
        at += i % t.dim[d] * scale;
        i /= t.dim[d];
        scale *= pow2_ceil(t.dim[d]);
    }
    return at;
}

/* Checked element by element (tiles hold at most 2^20): a rule on the
 * extents (size-1 axes aside, a power-of-two inner part splits or merges)
 * is easy to get subtly wrong, the brute force is not. */
int ty_reshape_in_place(Type from, Type to) {
    if (!ty_padded(from) && !ty_padded(to)) return 1;
    if (ty_numel(ty_pad(from)) != ty_numel(ty_pad(to))) return 0;
    int64_t n = ty_numel(from);
    for (int64_t i = 0; i < n; i++)
        if (padded_index(from, i) != padded_index(to, i)) return 0;
    return 1;
}

int ty_isint(ScalarKind k) { return k < SK_COUNT && kinds[k].isint; }
int ty_isfloat(ScalarKind k) { return k < SK_COUNT && kinds[k].isfloat; }
int ty_issigned(ScalarKind k) { return k < SK_COUNT && kinds[k].issigned; }
int ty_bits(ScalarKind k) { return k < SK_COUNT ? kinds[k].bits : 0; }
int ty_bytes(ScalarKind k) { return k < SK_COUNT ? kinds[k].bytes : 0; }
const char *ty_kind_name(ScalarKind k) {
    return k < SK_COUNT ? kinds[k].name : "?";
}

int ty_isf8(ScalarKind k) { return k == SK_F8E4M3 || k == SK_F8E5M2; }

TyF8Format ty_f8_format(ScalarKind k) {
    return k == SK_F8E4M3 ? (TyF8Format){3, 7, 448.0f, 0x7e}
                          : (TyF8Format){2, 15, 57344.0f, 0x7b};
}

/* Rounds |x| (finite, below the largest value) by integer arithmetic on
 * its bits, as the lowering does: in the normal range, add half an ulp
 * of the narrow format minus one, plus the kept mantissa's low bit (ties
 * to even), and shift; below it, x scaled to units of the smallest
 * subnormal and rounded to an integer (exact: scaling by a power of two). */
uint8_t ty_f8_from_float(ScalarKind k, float x) {
    TyF8Format fmt = ty_f8_format(k);
    int mbits = fmt.mbits, bias = fmt.bias;
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    uint8_t sign = (uint8_t)((u >> 24) & 0x80);
    if (isnan(x)) return 0x7f;
    float a = fabsf(x);
    uint8_t code;
    if (a >= fmt.largest) {
        code = fmt.largest_code;
    } else if (a < ldexpf(1.0f, 1 - bias)) {           /* subnormal or zero */
        code = (uint8_t)rintf(ldexpf(a, bias - 1 + mbits));
    } else {
        uint32_t m;
        memcpy(&m, &a, sizeof m);
        int drop = 23 - mbits;
        m += (UINT32_C(1) << (drop - 1)) - 1 + ((m >> drop) & 1);
        code = (uint8_t)((m >> drop) - ((uint32_t)(127 - bias) << mbits));
    }
    return (uint8_t)(code | sign);
}

uint8_t ty_f8_bits(ScalarKind k, float x) {
    if (k == SK_F8E5M2 && isinf(x)) return x > 0 ? 0x7c : 0xfc;
    return ty_f8_from_float(k, x);
}

float ty_f8_to_float(ScalarKind k, uint8_t b) {
    TyF8Format fmt = ty_f8_format(k);
    int mbits = fmt.mbits, bias = fmt.bias;
    int e = (b & 0x7f) >> mbits, m = b & ((1 << mbits) - 1);
    int top = k == SK_F8E4M3 ? 15 : 31;
    float v;
    if (k == SK_F8E4M3 && e == top && m == (1 << mbits) - 1) v = NAN;
    else if (k == SK_F8E5M2 && e == top) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexpf((float)m, 1 - bias - mbits);
    else v = ldexpf((float)(m | (1 << mbits)), e - bias - mbits);
    return b & 0x80 ? -v : v;
}

ScalarKind ty_kind_by_name(const char *name) {
    for (int k = SK_BOOL; k < SK_PTR; k++)
        if (strcmp(kinds[k].name, name) == 0) return (ScalarKind)k;
    return SK_VOID;
}

const char *ty_str(Arena *a, Type t) {
    char buf[128];
    int n = 0;
    if (t.k == SK_PTR)
        n = snprintf(buf, sizeof buf, "*%s", ty_kind_name(t.pointee));
    else
        n = snprintf(buf, sizeof buf, "%s", ty_kind_name(t.k));
    if (t.rank) {
        n += snprintf(buf + n, sizeof buf - (size_t)n, "[");
        for (int i = 0; i < t.rank; i++)
            n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%d",
                          i ? ", " : "", (int)t.dim[i]);
        snprintf(buf + n, sizeof buf - (size_t)n, "]");
    }
    return ar_strdup(a, buf);
}

/* -------------------------------------------------------------- building */

IrKernel *ir_kernel(Arena *ar, const char *name, int nparams,
                    const IrParam *params) {
    IrKernel *k = ar_alloc(ar, sizeof *k);
    k->name = name;
    k->nparams = nparams;
    k->params = ar_alloc(ar, sizeof(IrParam) * (size_t)(nparams + 1));
    if (nparams) memcpy(k->params, params, sizeof(IrParam) * (size_t)nparams);
    k->warps = 4;
    k->stages = 3;
    IrBuilder b = {ar, k, NULL, {0}};
    Type *tys = ar_alloc(ar, sizeof(Type) * (size_t)(nparams + 1));
    for (int i = 0; i < nparams; i++) tys[i] = params[i].ty;
    k->body = ir_block(&b, nparams, tys);
    for (int i = 0; i < nparams; i++) k->body->args[i]->name = params[i].name;
    return k;
}

static IrValue *new_value(IrBuilder *b, Type t) {
    IrValue *v = ar_alloc(b->ar, sizeof *v);
    v->ty = t;
    v->id = b->k->nvalues++;
    return v;
}

IrBlock *ir_block(IrBuilder *b, int nargs, const Type *argty) {
    IrBlock *blk = ar_alloc(b->ar, sizeof *blk);
    blk->nargs = nargs;
    blk->args = ar_alloc(b->ar, sizeof(IrValue *) * (size_t)(nargs + 1));
    for (int i = 0; i < nargs; i++) {
        IrValue *v = new_value(b, argty[i]);
        v->block = blk;
        v->index = i;
        blk->args[i] = v;
    }
    return blk;
}

IrOp *ir_emit(IrBuilder *b, IrOpcode opc, int nres, const Type *resty,
              int nargs, IrValue *const *args) {
    IrOp *op = ar_alloc(b->ar, sizeof *op);
    b->k->nops++;
    op->op = (uint16_t)opc;
    op->loc = b->loc;
    op->nargs = nargs;
    op->args = ar_alloc(b->ar, sizeof(IrValue *) * (size_t)(nargs + 1));
    if (nargs) memcpy(op->args, args, sizeof(IrValue *) * (size_t)nargs);
    op->nres = nres;
    op->res = ar_alloc(b->ar, sizeof(IrValue *) * (size_t)(nres + 1));
    for (int i = 0; i < nres; i++) {
        IrValue *v = new_value(b, resty[i]);
        v->def = op;
        v->index = i;
        op->res[i] = v;
    }
    if (b->blk) ir_insert_after(op, b->blk, b->blk->last);
    return op;
}

int ir_access_mask(const IrOp *op) {
    if (op->op == IR_LOAD) return (op->iattr[0] & LOAD_MASK) ? 1 : -1;
    if (op->op == IR_STORE) return op->nargs > 2 ? 2 : -1;
    return -1;
}

int ir_op_effects(IrOpcode op) {
    switch (op) {
    case IR_LOAD: return IR_FX_READS;
    case IR_STORE: case IR_ATOMIC: case IR_ATOMIC_CAS: return IR_FX_WRITES;
    case IR_BARRIER: return IR_FX_SYNC;
    case IR_PRINT: case IR_ASSERT: return IR_FX_OUTPUT;
    case IR_FOR: case IR_IF: case IR_WHILE: case IR_YIELD: case IR_CONDITION:
        return IR_FX_CONTROL;
    default: return 0;
    }
}

IrOp *ir_detached(Arena *ar, IrKernel *k, IrOpcode opc, Type t, int nargs,
                  IrValue *const *args, Loc loc) {
    IrBuilder b = {ar, k, NULL, loc};
    return ir_emit(&b, opc, 1, &t, nargs, args);
}

void ir_insert_after(IrOp *op, IrBlock *blk, IrOp *pos) {
    op->parent = blk;
    op->prev = pos;
    op->next = pos ? pos->next : blk->first;
    if (op->next)
        op->next->prev = op;
    else
        blk->last = op;
    if (pos)
        pos->next = op;
    else
        blk->first = op;
}

void ir_unlink(IrOp *op) {
    IrBlock *b = op->parent;
    if (op->prev) op->prev->next = op->next; else b->first = op->next;
    if (op->next) op->next->prev = op->prev; else b->last = op->prev;
    op->prev = op->next = NULL;
}

void ir_replace_uses(IrBlock *b, const IrValue *from, IrValue *to) {
    for (IrOp *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nargs; i++)
            if (op->args[i] == from) op->args[i] = to;
        for (int r = 0; r < op->nregions; r++) ir_replace_uses(op->regions[r], from, to);
    }
}

void ir_count_uses(int *uses, const IrBlock *b) {
    for (const IrOp *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nargs; i++) uses[op->args[i]->id]++;
        for (int r = 0; r < op->nregions; r++) ir_count_uses(uses, op->regions[r]);
    }
}

int *ir_use_counts(Arena *ar, const IrKernel *k) {
    size_t n = (size_t)k->nvalues + 1;
    int *uses = ar_alloc(ar, sizeof(int) * n);
    memset(uses, 0, sizeof(int) * n);
    ir_count_uses(uses, k->body);
    return uses;
}

IrValue *ir_op1(IrBuilder *b, IrOpcode opc, Type t, ...) {
    IrValue *args[8];
    int n = 0;
    va_list ap;
    va_start(ap, t);
    for (IrValue *v; (v = va_arg(ap, IrValue *)) != NULL && n < 8;)
        args[n++] = v;
    va_end(ap);
    return ir_emit(b, opc, 1, &t, n, args)->res[0];
}

IrValue *ir_const_int(IrBuilder *b, Type t, int64_t v) {
    IrOp *op = ir_emit(b, IR_CONST, 1, &t, 0, NULL);
    op->iattr[0] = v;
    op->fattr = (double)v;
    return op->res[0];
}

IrValue *ir_const_float(IrBuilder *b, Type t, double v) {
    IrOp *op = ir_emit(b, IR_CONST, 1, &t, 0, NULL);
    op->fattr = v;
    /* Converting a double outside int64's range (inf, nan, 1e300) is
     * undefined behaviour in C: such a constant has no integer view. */
    op->iattr[0] = v > -0x1p63 && v < 0x1p63 ? (int64_t)v : 0;
    return op->res[0];
}

void ir_add_regions(IrBuilder *b, IrOp *op, int n) {
    op->nregions = n;
    op->regions = ar_alloc(b->ar, sizeof(IrBlock *) * (size_t)n);
}

/* ------------------------------------------------------------ grid exprs */

int gx_eval(const GExpr *e, const int64_t *args, int64_t *out) {
    int64_t a = 0, b = 0, c = 0;
    if (e->a && gx_eval(e->a, args, &a)) return -1;
    if (e->b && gx_eval(e->b, args, &b)) return -1;
    if (e->c && gx_eval(e->c, args, &c)) return -1;
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch ((GxKind)e->kind) {
    case GX_CONST: *out = e->value; break;
    case GX_PARAM: *out = args[e->param]; break;
    case GX_ADD: *out = (int64_t)(ua + ub); break;
    case GX_SUB: *out = (int64_t)(ua - ub); break;
    case GX_MUL: *out = (int64_t)(ua * ub); break;
    case GX_DIV:
    case GX_MOD:
    case GX_CDIV:
        if (b == 0 || (a == INT64_MIN && b == -1)) return -1;
        *out = e->kind == GX_DIV ? a / b
             : e->kind == GX_MOD ? a % b
                                 : a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
        break;
    case GX_MIN: *out = a < b ? a : b; break;
    case GX_MAX: *out = a > b ? a : b; break;
    case GX_SHL: *out = (int64_t)(ua << (ub & 63)); break;
    case GX_SHR: *out = a >> (ub & 63); break;
    case GX_AND: *out = a & b; break;
    case GX_OR: *out = a | b; break;
    case GX_XOR: *out = a ^ b; break;
    case GX_EQ: *out = a == b; break;
    case GX_NE: *out = a != b; break;
    case GX_LT: *out = a < b; break;
    case GX_LE: *out = a <= b; break;
    case GX_GT: *out = a > b; break;
    case GX_GE: *out = a >= b; break;
    case GX_LAND: *out = a && b; break;
    case GX_LOR: *out = a || b; break;
    case GX_LNOT: *out = !a; break;
    case GX_NEG: *out = (int64_t)(0 - ua); break;
    case GX_SELECT: *out = a ? b : c; break;
    default: return -1;
    }
    return 0;
}

static const char *gx_sym[] = {
    [GX_ADD] = "+", [GX_SUB] = "-", [GX_MUL] = "*", [GX_DIV] = "/",
    [GX_MOD] = "%", [GX_SHL] = "<<", [GX_SHR] = ">>", [GX_AND] = "&",
    [GX_OR] = "|", [GX_XOR] = "^", [GX_EQ] = "==", [GX_NE] = "!=",
    [GX_LT] = "<", [GX_LE] = "<=", [GX_GT] = ">", [GX_GE] = ">=",
    [GX_LAND] = "&&", [GX_LOR] = "||",
};

void gx_print(FILE *out, const GExpr *e, const IrKernel *k) {
    switch ((GxKind)e->kind) {
    case GX_CONST: fprintf(out, "%" PRId64, e->value); return;
    case GX_PARAM: fprintf(out, "%%%s", k->params[e->param].name); return;
    case GX_CDIV:
    case GX_MIN:
    case GX_MAX:
        fprintf(out, "%s(", e->kind == GX_CDIV ? "cdiv"
                          : e->kind == GX_MIN  ? "min" : "max");
        gx_print(out, e->a, k);
        fputs(", ", out);
        gx_print(out, e->b, k);
        fputs(")", out);
        return;
    case GX_LNOT:
    case GX_NEG:
        fputs(e->kind == GX_LNOT ? "!" : "-", out);
        gx_print(out, e->a, k);
        return;
    case GX_SELECT:
        fputs("(", out);
        gx_print(out, e->a, k);
        fputs(" ? ", out);
        gx_print(out, e->b, k);
        fputs(" : ", out);
        gx_print(out, e->c, k);
        fputs(")", out);
        return;
    default:
        fputs("(", out);
        gx_print(out, e->a, k);
        fprintf(out, " %s ", gx_sym[e->kind]);
        gx_print(out, e->b, k);
        fputs(")", out);
        return;
    }
}

/* ------------------------------------------------------------- printing */

typedef struct Printer {
    FILE *out;
    Arena *ar;
    int *num;      /* value id -> printed number, -1 when not yet seen */
    int next;
    const IrBlock *body;  /* kernel parameters print by name */
} Printer;

static void pr_name(Printer *p, const IrValue *v) {
    if (!v->def && v->block == p->body && v->name) {
        fprintf(p->out, "%%%s", v->name);
        return;
    }
    if (p->num[v->id] < 0) p->num[v->id] = p->next++;
    fprintf(p->out, "%%%d", p->num[v->id]);
}

static const char *pred_name[] = {"eq", "ne", "lt", "le", "gt", "ge"};
static const char *reduce_name[] = {"sum", "max", "min", "argmax", "argmin", "fn"};
static const char *scan_name[] = {"cumsum", "cumprod", "cummax", "cummin", "scan"};
static const char *atomic_name[] = {"add", "max", "min", "xchg"};

/* Arithmetic ops print with an i/f suffix (addi, addf), the way a reader
 * of MLIR's arith dialect expects; cmp prints its predicate (cmplt). */
static void pr_mnemonic(Printer *p, const IrOp *op) {
    const char *m = ir_op_name[op->op];
    switch (op->op) {
    case IR_ADD: case IR_SUB: case IR_MUL: case IR_DIV: case IR_REM:
    case IR_MIN: case IR_MAX: case IR_NEG: {
        ScalarKind k = op->res[0]->ty.k;
        fprintf(p->out, "%s%s", m, ty_isfloat(k) ? "f" : ty_issigned(k) ? "i" : "u");
        return;
    }
    case IR_CMP:
        fprintf(p->out, "cmp%s", pred_name[op->iattr[0]]);
        return;
    case IR_REDUCE:
        fprintf(p->out, "reduce.%s", reduce_name[op->iattr[0]]);
        return;
    case IR_SCAN:
        fputs(scan_name[op->iattr[1]], p->out);
        return;
    case IR_ATOMIC:
        fprintf(p->out, "atomic_%s", atomic_name[op->iattr[0]]);
        return;
    default:
        fputs(m, p->out);
    }
}

static void pr_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void pr_block(Printer *p, const IrBlock *b, int depth);

/* A value's type, then its layout once layout assignment has given it one
 * (`f32[1024] #blocked<...>`). */
static void pr_type(Printer *p, const IrValue *v) {
    fputs(ty_str(p->ar, v->ty), p->out);
    if (v->layout) {
        fputc(' ', p->out);
        ly_print(p->out, v->layout);
    }
}

static void pr_attrs(Printer *p, const IrOp *op) {
    FILE *o = p->out;
    switch (op->op) {
    case IR_CONST: {
        ScalarKind k = op->res[0]->ty.k;
        if (ty_isfloat(k)) {
            if (isinf(op->fattr))
                fputs(op->fattr < 0 ? " -inf" : " inf", o);
            else if (isnan(op->fattr))
                fputs(" nan", o);
            else
                fprintf(o, " %.17g", op->fattr);
        } else if (k == SK_BOOL) {
            fputs(op->iattr[0] ? " true" : " false", o);
        } else {
            fprintf(o, " %" PRId64, op->iattr[0]);
        }
        break;
    }
    case IR_PROGRAM_ID: case IR_NUM_PROGRAMS: case IR_EXPAND_DIMS:
    case IR_SCAN: case IR_MULTIPLE_OF: case IR_MAX_CONTIG:
        fprintf(o, " %" PRId64, op->iattr[0]);
        break;
    case IR_ARANGE:
        fprintf(o, " %" PRId64 ", %" PRId64, op->iattr[0], op->iattr[1]);
        break;
    default: break;
    }
}

static void pr_op(Printer *p, const IrOp *op, int depth) {
    FILE *o = p->out;
    fprintf(o, "%*s", depth * 2, "");
    for (int i = 0; i < op->nres; i++) {
        if (i) fputs(", ", o);
        pr_name(p, op->res[i]);
    }
    if (op->nres) fputs(" = ", o);
    pr_mnemonic(p, op);
    pr_attrs(p, op);
    int first = op->op != IR_CONST && op->op != IR_ARANGE &&
                op->op != IR_PROGRAM_ID && op->op != IR_NUM_PROGRAMS &&
                op->op != IR_SCAN && op->op != IR_EXPAND_DIMS &&
                op->op != IR_MULTIPLE_OF && op->op != IR_MAX_CONTIG;
    for (int i = 0; i < op->nargs; i++) {
        const char *label = NULL;
        if (op->op == IR_LOAD && i == 1 && (op->iattr[0] & LOAD_MASK)) label = "mask ";
        if (op->op == IR_ARANGE) label = "rotated ";
        if (op->op == IR_LOAD && i == op->nargs - 1 && (op->iattr[0] & LOAD_OTHER)) label = "other ";
        if ((op->op == IR_STORE || op->op == IR_ATOMIC) && i == 2) label = "mask ";
        if (op->op == IR_DOT && i == 2) label = "acc ";
        fputs(first && i == 0 ? " " : ", ", o);
        if (label) fputs(label, o);
        pr_name(p, op->args[i]);
    }
    if (op->op == IR_REDUCE)
        fprintf(o, "%saxis %" PRId64, op->nargs ? ", " : " ", op->iattr[1]);
    if (op->op == IR_SLICE || op->op == IR_CAT || op->op == IR_GATHER || op->op == IR_SORT)
        fprintf(o, ", axis %" PRId64, op->iattr[0]);
    if (op->op == IR_SORT && op->iattr[1]) fputs(", descending", o);
    if (op->op == IR_SLICE) fprintf(o, ", start %" PRId64, op->iattr[1]);
    if (op->op == IR_PERMUTE) {
        fputs(", [", o);
        for (int i = 0; i < op->res[0]->ty.rank; i++)
            fprintf(o, "%s%" PRId64, i ? ", " : "", op->iattr[i]);
        fputs("]", o);
    }
    if (op->op == IR_DOT && op->iattr[0]) fputs(", ieee", o);
    if (op->op == IR_LOAD && op->iattr[1])
        fprintf(o, ", cache %s", (const char *[]){"", "ca", "cg", "cs", "cv"}[op->iattr[1]]);
    if (op->op == IR_LOAD && op->iattr[2])
        fprintf(o, ", evict %s", (const char *[]){"", "first", "last"}[op->iattr[2]]);
    if (op->op == IR_LOAD && op->iattr[3])
        fprintf(o, ", cp.async stages %" PRId64, op->iattr[3]);
    if (op->sattr) {
        fputs(op->nargs ? ", " : " ", o);
        pr_string(o, op->sattr);
    }
    if (op->nres) {
        fputs(" : ", o);
        for (int i = 0; i < op->nres; i++) {
            if (i) fputs(", ", o);
            pr_type(p, op->res[i]);
        }
    }
    if (op->nregions) {
        for (int r = 0; r < op->nregions; r++) {
            const IrBlock *b = op->regions[r];
            fputs(r ? " else" : "", o);
            if (op->op == IR_WHILE) fputs(r ? " do" : "", o);
            if (b->nargs) {
                fputs(" (", o);
                for (int i = 0; i < b->nargs; i++) {
                    if (i) fputs(", ", o);
                    pr_name(p, b->args[i]);
                    fputs(": ", o);
                    pr_type(p, b->args[i]);
                }
                fputs(")", o);
            }
            fputs(" {\n", o);
            pr_block(p, b, depth + 1);
            fprintf(o, "%*s}", depth * 2, "");
        }
    }
    fputc('\n', o);
}

static void pr_block(Printer *p, const IrBlock *b, int depth) {
    for (const IrOp *op = b->first; op; op = op->next) pr_op(p, op, depth);
}

const char *ir_config_text(Arena *ar, const IrCparam *cp, int n, int warps,
                           int stages) {
    const char *s = "";
    for (int i = 0; i < n; i++) {
        const char *v = cp[i].kind == CP_TYPE ? ty_kind_name((ScalarKind)cp[i].value)
                        : cp[i].kind == CP_BOOL ? (cp[i].value ? "true" : "false")
                        : ar_printf(ar, "%" PRId64, cp[i].value);
        s = ar_printf(ar, "%s%s=%s, ", s, cp[i].name, v);
    }
    return ar_printf(ar, "%swarps=%d, stages=%d", s, warps, stages);
}

void ir_print_kernel(FILE *out, const IrKernel *k) {
    Arena *ar = ar_new();
    if (!ar) return;
    Printer p = {out, ar, ar_alloc(ar, sizeof(int) * (size_t)(k->nvalues + 1)), 0,
                 k->body};
    for (int i = 0; i < k->nvalues; i++) p.num[i] = -1;
    fprintf(out, "kernel @%s<%s>(", k->name,
            ir_config_text(ar, k->cparams, k->ncparams, k->warps, k->stages));
    for (int i = 0; i < k->nparams; i++) {
        if (i) fputs(", ", out);
        pr_name(&p, k->body->args[i]);
        fprintf(out, ": %s", ty_str(ar, k->params[i].ty));
    }
    fputs(")", out);
    if (k->ngrid) {
        fputs(" grid(", out);
        for (int i = 0; i < k->ngrid; i++) {
            if (i) fputs(", ", out);
            gx_print(out, k->grid[i], k);
        }
        fputs(")", out);
    }
    for (int i = 0; i < k->nrequire; i++) {
        fputs(" require(", out);
        gx_print(out, k->require[i], k);
        fputs(")", out);
    }
    fputs(" {\n", out);
    pr_block(&p, k->body, 1);
    fputs("}\n", out);
    ar_free(ar);
}

void ir_print_module(FILE *out, const IrModule *m) {
    for (int i = 0; i < m->nkernels; i++) {
        if (i) fputc('\n', out);
        ir_print_kernel(out, m->kernels[i]);
    }
}
