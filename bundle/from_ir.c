/*
 * from_ir.c — IrModule + code generator output to a TlbBundle.
 *
 * sema gives one IrKernel per kernel and configuration; a bundle kernel is
 * one name with its signature once and its configurations in
 * `config_index` order. Everything that differs per configuration (the
 * compile-time values, warps, stages, and the grid and @require
 * expressions, which have those values folded in) goes to the
 * configuration; the signature and the tune key come from the first.
 *
 * Types go through explicit tables from ScalarKind/GxKind to the format's
 * codes, so that a renumbering in the IR cannot silently change what a
 * bundle means. GExpr trees become postfix code by a post-order walk (a,
 * b, c, then the node), which evaluates operands in the order gx_eval
 * does.
 */
#include "bundle/from_ir.h"

#include <stdio.h>
#include <string.h>

static uint8_t type_code(ScalarKind k) {
    switch (k) {
    case SK_BOOL: return TLB_BOOL;
    case SK_I8: return TLB_I8;
    case SK_I16: return TLB_I16;
    case SK_I32: return TLB_I32;
    case SK_I64: return TLB_I64;
    case SK_U8: return TLB_U8;
    case SK_U16: return TLB_U16;
    case SK_U32: return TLB_U32;
    case SK_U64: return TLB_U64;
    case SK_F16: return TLB_F16;
    case SK_BF16: return TLB_BF16;
    case SK_F32: return TLB_F32;
    case SK_F64: return TLB_F64;
    case SK_PTR: return TLB_PTR;
    case SK_F8E4M3: return TLB_F8E4M3;
    case SK_F8E5M2: return TLB_F8E5M2;
    default: return TLB_VOID;
    }
}

static const uint8_t op_code[] = {
    [GX_CONST] = TLB_X_CONST, [GX_PARAM] = TLB_X_PARAM, [GX_ADD] = TLB_X_ADD,
    [GX_SUB] = TLB_X_SUB,     [GX_MUL] = TLB_X_MUL,     [GX_DIV] = TLB_X_DIV,
    [GX_MOD] = TLB_X_MOD,     [GX_CDIV] = TLB_X_CDIV,   [GX_MIN] = TLB_X_MIN,
    [GX_MAX] = TLB_X_MAX,     [GX_SHL] = TLB_X_SHL,     [GX_SHR] = TLB_X_SHR,
    [GX_AND] = TLB_X_AND,     [GX_OR] = TLB_X_OR,       [GX_XOR] = TLB_X_XOR,
    [GX_EQ] = TLB_X_EQ,       [GX_NE] = TLB_X_NE,       [GX_LT] = TLB_X_LT,
    [GX_LE] = TLB_X_LE,       [GX_GT] = TLB_X_GT,       [GX_GE] = TLB_X_GE,
    [GX_LAND] = TLB_X_LAND,   [GX_LOR] = TLB_X_LOR,     [GX_LNOT] = TLB_X_LNOT,
    [GX_NEG] = TLB_X_NEG,     [GX_SELECT] = TLB_X_SELECT,
};

static uint32_t gx_size(const GExpr *g) {
    return g ? 1 + gx_size(g->a) + gx_size(g->b) + gx_size(g->c) : 0;
}

/* Appends g's code at out[*n]; returns the stack depth it needs, or -1. */
static int emit(const GExpr *g, TlbInsn *out, uint32_t *n, int depth) {
    int need = depth + 1;
    const GExpr *kids[3] = {g->a, g->b, g->c};
    for (int i = 0; i < 3 && kids[i]; i++) {
        int d = emit(kids[i], out, n, depth + i);
        if (d < 0) return -1;
        if (d > need) need = d;
    }
    if (g->kind >= sizeof op_code || !op_code[g->kind]) return -1;
    TlbInsn *in = &out[(*n)++];
    in->op = op_code[g->kind];
    in->value = g->kind == GX_CONST ? g->value : 0;
    in->param = g->kind == GX_PARAM ? (uint16_t)g->param : 0;
    return need > TLB_EXPR_MAXDEPTH ? -1 : need;
}

int tlb_expr_from_gexpr(Arena *ar, const GExpr *g, TlbExpr *out) {
    out->n = 0;
    out->code = ar_alloc(ar, sizeof *out->code * gx_size(g));
    return emit(g, out->code, &out->n, 0) < 0 ? -1 : 0;
}

static void sig_from_ir(Arena *ar, const IrKernel *ik, TlbKernel *k) {
    k->name = ik->name;
    k->nparams = (uint32_t)ik->nparams;
    k->params = ar_alloc(ar, sizeof *k->params * (size_t)ik->nparams);
    for (int i = 0; i < ik->nparams; i++) {
        const IrParam *p = &ik->params[i];
        k->params[i] = (TlbParam){
            p->name, type_code((ScalarKind)p->ty.k),
            p->ty.k == SK_PTR ? type_code((ScalarKind)p->ty.pointee) : TLB_VOID,
            (uint8_t)((p->stored ? TLB_PARAM_STORED : 0) |
                      (p->nospecialize ? TLB_PARAM_NOSPECIALIZE : 0))};
    }
    k->ncparams = (uint32_t)ik->ncparams;
    k->cparams = ar_alloc(ar, sizeof *k->cparams * (size_t)ik->ncparams);
    for (int i = 0; i < ik->ncparams; i++) {
        const IrCparam *c = &ik->cparams[i];
        k->cparams[i] = (TlbCparam){
            c->name,
            c->kind == CP_INT ? TLB_CPARAM_INT : c->kind == CP_BOOL ? TLB_CPARAM_BOOL
                                                                    : TLB_CPARAM_TYPE,
            c->kind == CP_INT ? type_code(c->ty) : TLB_VOID};
    }
    k->ntune_key = (uint32_t)ik->ntune_key;
    k->tune_key = ar_alloc(ar, sizeof *k->tune_key * (size_t)ik->ntune_key);
    for (int i = 0; i < ik->ntune_key; i++) k->tune_key[i] = (uint32_t)ik->tune_key[i];
    k->ngrid = (uint32_t)ik->ngrid;
}

/* A scalar the compiler found a parameter or an integer constant, as a
 * one-instruction expression; NULL: `none`. */
static TlbExpr scalar_expr(Arena *ar, const IrValue *v, int64_t none) {
    while (v && v->def && v->def->op == IR_CAST) v = v->def->args[0];   /* widenings */
    TlbInsn *i = ar_alloc(ar, sizeof *i);
    *i = (TlbInsn){.op = TLB_X_CONST, .value = none};
    if (v && !v->def) *i = (TlbInsn){.op = TLB_X_PARAM, .param = (uint16_t)v->index};
    else if (v) i->value = v->def->iattr[0];   /* an integer constant's value */
    return (TlbExpr){1, i};
}

/* A variant's tensor maps in the format's terms. */
static const TlbTmap *tmaps_from_code(Arena *ar, const TlbCodeVariant *v) {
    if (!v->ntmaps) return NULL;
    TlbTmap *t = ar_alloc(ar, sizeof *t * (size_t)v->ntmaps);
    memset(t, 0, sizeof *t * (size_t)v->ntmaps);
    for (int i = 0; i < v->ntmaps; i++) {
        const TlbCodeTmap *c = &v->tmaps[i];
        t[i].param = (uint16_t)c->param;
        t[i].elem = type_code(c->elem);
        t[i].rank = (uint8_t)c->rank;
        t[i].swizzle = (uint8_t)c->swizzle;
        for (int d = 0; d < c->rank; d++) {
            t[i].box[d] = d < 2 ? (uint32_t)c->box[d] : 1;
            t[i].dim[d] = scalar_expr(ar, d < 2 ? c->dim[d] : NULL, INT64_C(1) << 31);
        }
        for (int d = 0; d + 1 < c->rank; d++) t[i].stride[d] = scalar_expr(ar, c->stride[d], 1);
    }
    return t;
}

/* One configuration: values, expressions and the variants built for m's
 * kernel `index`. */
static int config_from_ir(Arena *ar, const IrKernel *ik, int index, const TlbCode *code,
                          TlbConfig *c, char *err, size_t errlen) {
    c->warps = (uint32_t)ik->warps;
    c->stages = (uint32_t)ik->stages;
    c->cvalues = ar_alloc(ar, sizeof *c->cvalues * (size_t)ik->ncparams);
    for (int i = 0; i < ik->ncparams; i++)
        c->cvalues[i] = ik->cparams[i].kind == CP_TYPE
                            ? type_code((ScalarKind)ik->cparams[i].value)
                            : ik->cparams[i].value;
    for (int d = 0; d < ik->ngrid && d < TLB_MAXDIM; d++)
        if (tlb_expr_from_gexpr(ar, ik->grid[d], &c->grid[d])) {
            snprintf(err, errlen, "kernel '%s': grid expression too deep for a "
                     "bundle", ik->name);
            return -1;
        }
    c->nrequire = (uint32_t)ik->nrequire;
    c->require = ar_alloc(ar, sizeof *c->require * (size_t)ik->nrequire);
    for (int i = 0; i < ik->nrequire; i++)
        if (tlb_expr_from_gexpr(ar, ik->require[i], &c->require[i])) {
            snprintf(err, errlen, "kernel '%s': @require expression too deep "
                     "for a bundle", ik->name);
            return -1;
        }
    if (!code) return 0;   /* a descriptor without code (the interpreter's) */
    c->variants = ar_alloc(ar, sizeof *c->variants * (size_t)(code->nvariants + 1));
    for (int i = 0; i < code->nvariants; i++) {
        const TlbCodeVariant *v = &code->variants[i];
        if (v->kernel == index)
            c->variants[c->nvariants++] =
                (TlbVariant){v->guard, v->dyn_smem, v->entry, v->l1_programs,
                             (uint32_t)v->ntmaps, tmaps_from_code(ar, v), v->flags};
    }
    if (c->nvariants == 0) {
        snprintf(err, errlen, "kernel '%s': no code for configuration %d",
                 ik->name, ik->config_index);
        return -1;
    }
    return 0;
}

int tlb_ir_config_rank(const IrModule *m, int i) {
    const IrKernel *ki = m->kernels[i];
    int rank = 0;
    for (int j = 0; j < m->nkernels; j++) {
        const IrKernel *kj = m->kernels[j];
        if (!strcmp(kj->name, ki->name) &&
            (kj->config_index < ki->config_index ||
             (kj->config_index == ki->config_index && j < i)))
            rank++;
    }
    return rank;
}

int tlb_from_ir(Arena *ar, const IrModule *m, const TlbCode *code,
                TlbBundle *out, char *err, size_t errlen) {
    static const TlbCode none = {0};
    memset(out, 0, sizeof *out);
    const TlbCode *c = code ? code : &none;
    for (int i = 0; i < c->nvariants; i++)
        if (c->variants[i].kernel < 0 || c->variants[i].kernel >= m->nkernels) {
            snprintf(err, errlen, "variant '%s' names kernel %d of %d",
                     c->variants[i].entry ? c->variants[i].entry : "",
                     c->variants[i].kernel, m->nkernels);
            return -1;
        }
    out->producer = c->producer;
    out->arch = c->arch;
    out->ptx = c->ptx ? c->ptx : "";
    out->ptx_size = strlen(out->ptx);
    out->ncubins = (uint32_t)c->ncubins;
    out->cubins = (TlbCubin *)c->cubins;
    out->kernels = ar_alloc(ar, sizeof *out->kernels * (size_t)(m->nkernels + 1));
    /* Group the IR kernels by name, in order of first appearance. */
    int *owner = ar_alloc(ar, sizeof *owner * (size_t)(m->nkernels + 1));
    for (int i = 0; i < m->nkernels; i++) {
        uint32_t k = 0;
        while (k < out->nkernels && strcmp(out->kernels[k].name, m->kernels[i]->name))
            k++;
        if (k == out->nkernels) sig_from_ir(ar, m->kernels[i], &out->kernels[out->nkernels++]);
        owner[i] = (int)k;
        out->kernels[k].nconfigs++;
    }
    for (uint32_t k = 0; k < out->nkernels; k++) {
        TlbKernel *tk = &out->kernels[k];
        tk->configs = ar_alloc(ar, sizeof *tk->configs * tk->nconfigs);
        /* Configurations in config_index order: place each by its rank. */
        for (int i = 0; i < m->nkernels; i++)
            if (owner[i] == (int)k &&
                config_from_ir(ar, m->kernels[i], i, code,
                               &tk->configs[tlb_ir_config_rank(m, i)], err, errlen))
                return -1;
    }
    return 0;
}
