/*
 * config.c — kernels: attributes, compile-time parameters, configurations.
 *
 * A kernel is compiled once per configuration. The attributes are read
 * first, once, into a KernelSpec: the @tune axes (in source order), fixed
 * warps/stages, @prune, @require, @tune_key and @nospecialize. Each
 * compile-time parameter then gets its value source by precedence: a -D
 * on the command line (which also removes the parameter's @tune axis),
 * else its @tune axis, else its default. A parameter with none of these is
 * an error that says how to give one. warps and stages likewise: -D, else
 * @tune or @warps/@stages, else 4 and 3.
 *
 * The configurations are the cartesian product of the remaining axes, the
 * first axis outermost — an odometer whose last digit turns fastest. For
 * each: defaults are evaluated (they may use earlier parameters), @prune
 * may drop it, the runtime signature is resolved (pointee types may be type
 * parameters), and the body is evaluated into a fresh IrKernel. When a
 * configuration reports errors, the remaining ones are skipped: they would
 * mostly repeat the same messages.
 */
#include "sm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SM_MAX_CONFIGS 4096

typedef struct Axis {
    const char *name;
    Loc loc;
    int cparam;          /* index, or -1 for warps, -2 for stages */
    SmVal *values;
    int n;
} Axis;

typedef struct KernelSpec {
    const AstItem *k;
    Vec(Axis) axes;
    const AstAttr *seen[8];
    int warps, stages;
    const AstExpr *prune;
    const AstExpr *require;
    Vec(int) tune_key;
    int has_tune_key;
    Vec(int) nospec;
    int *source;         /* per cparam: 0 default, 1 -D, 2 tune */
    SmVal *dvalue;       /* per cparam: the -D value */
    int *axis_of;        /* per cparam: the axis index, or -1 */
} KernelSpec;

static const char *const attr_names[] = {"tune", "tune_key", "prune", "require",
                                         "warps", "stages", "nospecialize", NULL};

static int cparam_index(const AstItem *k, const char *name) {
    for (int i = 0; i < k->ncparams; i++)
        if (!strcmp(k->cparams[i].name, name)) return i;
    return -1;
}

static int param_index(const AstItem *k, const char *name) {
    for (int i = 0; i < k->nparams; i++)
        if (!strcmp(k->params[i].name, name)) return i;
    return -1;
}

/* CP_INT, CP_BOOL or CP_TYPE, and the declared int type; -1 if invalid. */
static int cparam_kind(const AstParam *p, ScalarKind *ty) {
    if (!p->type || p->type->kind != T_NAME) return -1;
    if (!strcmp(p->type->name, "type")) return CP_TYPE;
    ScalarKind k = ty_kind_by_name(p->type->name);
    *ty = k;
    if (k == SK_BOOL) return CP_BOOL;
    return ty_isint(k) ? CP_INT : -1;
}

/* Checks that v can be the value of cparam p; returns it normalized. */
static int cparam_value(SmCtx *c, const AstParam *p, SmVal *v, Loc at) {
    ScalarKind ty = SK_VOID;
    int kind = cparam_kind(p, &ty);
    if (v->kind == SV_POISON) return 0;
    int ok = kind == CP_TYPE ? v->kind == SV_TYPE
           : kind == CP_BOOL ? v->kind == SV_CONST && v->k == SK_BOOL
           : v->kind == SV_CONST && ty_isint(v->k);
    if (ok && kind == CP_INT && !(v->weak ? sm_const_fits(v, ty)
                                          : sm_implicit_ok(v, ty))) ok = 0;
    if (!ok) {
        dg_error(c->dg, at, "value %s does not suit compile-time parameter '%s' "
                 "of type '%s'", v->kind == SV_CONST && ty_isint(v->k)
                     ? ar_printf(c->ar, "%lld", (long long)v->i)
                     : ar_printf(c->ar, "of kind '%s'", sm_describe(c, v)),
                 p->name, p->type->name);
        return 0;
    }
    if (kind == CP_INT) *v = sm_fold_cast(v, ty);
    return 1;
}

/* ---------------------------------------------------------- attributes */

static int want_args(SmCtx *c, const AstAttr *a, int positional, int named) {
    const AstExpr *call = a->call;
    int np = call ? call->nargs : 0, nn = call ? call->nnamed : 0;
    if ((positional && np == 0) || (!positional && np) || (named && nn == 0) ||
        (!named && nn) || np + nn == 0) {
        const char *form = !strcmp(a->name, "tune") ? "NAME = [v, ...], ..."
                         : !strcmp(a->name, "tune_key") || !strcmp(a->name, "nospecialize")
                             ? "param, ..."
                         : !strcmp(a->name, "warps") || !strcmp(a->name, "stages")
                             ? "N" : "expr";
        dg_error(c->dg, a->loc, "'@%s' takes arguments of the form '@%s(%s)'",
                 a->name, a->name, form);
        return 0;
    }
    return 1;
}

static int const_int_attr(SmCtx *c, const AstAttr *a, int *out) {
    if (!want_args(c, a, 1, 0)) return 0;
    if (a->call->nargs != 1) {
        dg_error(c->dg, a->call->args[1]->loc, "'@%s' takes one value", a->name);
        return 0;
    }
    SmVal v = sm_const_expr(c, a->call->args[0], ar_printf(c->ar, "the value of '@%s'", a->name));
    int64_t n;
    if (!sm_const_int_arg(c, &v, ar_printf(c->ar, "the value of '@%s'", a->name), &n))
        return 0;
    *out = (int)n;
    return 1;
}

static int check_warps_stages(SmCtx *c, const char *name, int64_t v, Loc loc) {
    if (!strcmp(name, "warps") && (!is_pow2(v) || v > 32)) {
        dg_error(c->dg, loc, "warps must be a power of two from 1 to 32, got %lld",
                 (long long)v);
        return 0;
    }
    if (!strcmp(name, "stages") && (v < 1 || v > 16)) {
        dg_error(c->dg, loc, "stages must be from 1 to 16, got %lld", (long long)v);
        return 0;
    }
    return 1;
}

/* @tune(NAME = [v, ...], ...) */
static void tune_attr(SmCtx *c, KernelSpec *ks, const AstAttr *a) {
    const AstItem *k = ks->k;
    if (!want_args(c, a, 0, 1)) return;
    for (int j = 0; j < a->call->nnamed; j++) {
        const char *name = a->call->names[j];
        Loc nl = a->call->nlocs[j];
        const AstExpr *list = a->call->args[j];
        Axis ax = {name, nl, cparam_index(k, name), NULL, 0};
        if (!strcmp(name, "warps")) ax.cparam = -1;
        if (!strcmp(name, "stages")) ax.cparam = -2;
        if (ax.cparam == -1 && strcmp(name, "warps")) {
            dg_error(c->dg, nl, "'@tune' names '%s', which is not a compile-time "
                     "parameter of kernel '%s'", name, k->name);
            continue;
        }
        int dup = 0;
        for (int i = 0; i < ks->axes.n; i++)
            if (!strcmp(ks->axes.v[i].name, name)) dup = 1;
        if (dup) {
            dg_error(c->dg, nl, "'%s' is tuned twice", name);
            continue;
        }
        if (list->kind != E_LIST || list->nargs == 0) {
            dg_error(c->dg, list->loc, "'@tune' values for '%s' must be a non-empty "
                     "list such as [64, 128]", name);
            continue;
        }
        ax.n = list->nargs;
        ax.values = ar_alloc(c->ar, sizeof(SmVal) * (size_t)ax.n);
        int ok = 1;
        for (int i = 0; i < ax.n; i++) {
            SmVal v = sm_const_expr(c, list->args[i], "a '@tune' value");
            if (ax.cparam >= 0) {
                ok &= cparam_value(c, &k->cparams[ax.cparam], &v, list->args[i]->loc);
            } else {
                int64_t n;
                ok &= sm_const_int_arg(c, &v, ar_printf(c->ar, "a '%s' value", name), &n) &&
                      check_warps_stages(c, name, n, list->args[i]->loc);
            }
            ax.values[i] = v;
        }
        if (ok) vec_push(c->ar, &ks->axes, ax);
    }
}

/* @tune_key(p, ...), @nospecialize(p, ...) */
static void params_attr(SmCtx *c, KernelSpec *ks, const AstAttr *a) {
    if (!want_args(c, a, 1, 0)) return;
    int key = !strcmp(a->name, "tune_key");
    for (int i = 0; i < a->call->nargs; i++) {
        const AstExpr *e = a->call->args[i];
        int p = e->kind == E_NAME ? param_index(ks->k, e->name) : -1;
        if (p < 0) {
            if (e->kind == E_NAME)
                dg_error(c->dg, e->loc, "'@%s' names '%s', which is not a runtime "
                         "parameter of kernel '%s'", a->name, e->name, ks->k->name);
            else
                dg_error(c->dg, e->loc, "'@%s' takes parameter names", a->name);
            continue;
        }
        const AstType *t = ks->k->params[p].type;
        if (key && (t->kind != T_NAME || !ty_isint(ty_kind_by_name(t->name)))) {
            dg_error(c->dg, e->loc, "'@tune_key' parameter '%s' must be an integer "
                     "scalar", e->name);
            continue;
        }
        if (key)
            vec_push(c->ar, &ks->tune_key, p);
        else
            vec_push(c->ar, &ks->nospec, p);
    }
    ks->has_tune_key |= key;
}

static void read_attrs(SmCtx *c, KernelSpec *ks) {
    const AstItem *k = ks->k;
    for (int i = 0; i < k->nattrs; i++) {
        const AstAttr *a = &k->attrs[i];
        int which = -1;
        for (int j = 0; attr_names[j]; j++)
            if (!strcmp(attr_names[j], a->name)) which = j;
        if (which < 0) {
            dg_error(c->dg, a->loc, "unknown attribute '@%s'", a->name);
            continue;
        }
        if (ks->seen[which]) {
            dg_error(c->dg, a->loc, "duplicate attribute '@%s'", a->name);
            dg_note(c->dg, ks->seen[which]->loc, "previous '@%s' is here", a->name);
            continue;
        }
        ks->seen[which] = a;
        switch (which) {
        case 0: tune_attr(c, ks, a); break;
        case 1:
        case 6: params_attr(c, ks, a); break;
        case 2:
        case 3:
            if (!want_args(c, a, 1, 0)) break;
            if (a->call->nargs != 1) {
                dg_error(c->dg, a->call->args[1]->loc, "'@%s' takes one condition",
                         a->name);
                break;
            }
            if (which == 2) ks->prune = a->call->args[0];
            else ks->require = a->call->args[0];
            break;
        default: {
            int v;
            if (!const_int_attr(c, a, &v) ||
                !check_warps_stages(c, a->name, v, a->call->args[0]->loc))
                break;
            if (which == 4) ks->warps = v;
            else ks->stages = v;
        }
        }
    }
    for (int i = 0; i < ks->axes.n; i++) {
        Axis *ax = &ks->axes.v[i];
        if (ax->cparam < 0 && ks->seen[ax->cparam == -1 ? 4 : 5]) {
            dg_error(c->dg, ax->loc, "'%s' is both tuned and fixed by '@%s'",
                     ax->name, ax->name);
        }
    }
}

/* ---------------------------------------------------------- -D values */

static int parse_define(SmCtx *c, const AstItem *k, const AstParam *p,
                        const char *text, SmVal *out) {
    ScalarKind ty = SK_VOID;
    int kind = cparam_kind(p, &ty);
    Loc none = {0};
    if (kind == CP_TYPE) {
        ScalarKind t = ty_kind_by_name(text);
        if (t != SK_VOID) {
            out->kind = SV_TYPE;
            out->k = (uint8_t)t;
            return 1;
        }
    } else if (kind == CP_BOOL) {
        if (!strcmp(text, "true") || !strcmp(text, "1") || !strcmp(text, "false") ||
            !strcmp(text, "0")) {
            *out = sm_const_bool(text[0] == 't' || text[0] == '1', none);
            return 1;
        }
    } else {
        char *end;
        errno = 0;
        int bin = (text[0] == '0' && (text[1] == 'b' || text[1] == 'B'));
        long long v = strtoll(bin ? text + 2 : text, &end, bin ? 2 : 0);
        if (*text && !*end && !errno) {
            SmVal sv = sm_const_int(SK_I32, v, 1, none);
            if (sm_const_fits(&sv, ty)) {
                *out = sm_const_int(ty, v, 0, none);
                return 1;
            }
        }
    }
    dg_plain(c->dg, DG_ERROR, "invalid value '%s' in -D %s=%s: compile-time "
             "parameter '%s' of kernel '%s' is %s", text, p->name, text, p->name,
             k->name, kind == CP_TYPE ? "a type such as f32"
                      : kind == CP_BOOL ? "a bool (true or false)"
                      : ar_printf(c->ar, "an integer of type '%s'", ty_kind_name(ty)));
    dg_note(c->dg, p->loc, "'%s' is declared here", p->name);
    return 0;
}

/* -D warps=N and -D stages=N set the launch settings of every kernel that
 * has no compile-time parameter of that name, as -D NAME=V sets a
 * parameter: they replace @warps/@stages and the @tune axis. The last of
 * several wins, as for parameters. Checked once, here, not per kernel. */
int sm_launch_defines(SmCtx *c) {
    int ok = 1;
    for (int d = 0; d < c->opt->ndefines; d++) {
        const char *name = c->opt->defines[d].name, *text = c->opt->defines[d].value;
        int w = !strcmp(name, "warps");
        if (!w && strcmp(name, "stages")) continue;
        char *end;
        errno = 0;
        long long v = strtoll(text, &end, 0);
        if (!*text || *end || errno) {
            dg_plain(c->dg, DG_ERROR, "invalid value '%s' in -D %s=%s: %s is an "
                     "integer", text, name, text, name);
            ok = 0;
        } else if (w ? !is_pow2(v) || v > 32 : v < 1 || v > 16) {
            dg_plain(c->dg, DG_ERROR, "invalid value '%s' in -D %s=%s: %s", text, name,
                     text, w ? "warps must be a power of two from 1 to 32"
                             : "stages must be from 1 to 16");
            ok = 0;
        } else if (w) {
            c->dwarps = (int)v;
        } else {
            c->dstages = (int)v;
        }
    }
    return ok;
}

/* Assigns each cparam its value source; 0 on error. */
static int value_sources(SmCtx *c, KernelSpec *ks) {
    const AstItem *k = ks->k;
    int n = k->ncparams, ok = 1;
    ks->source = ar_alloc(c->ar, sizeof(int) * (size_t)(n + 1));
    ks->dvalue = ar_alloc(c->ar, sizeof(SmVal) * (size_t)(n + 1));
    ks->axis_of = ar_alloc(c->ar, sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        const AstParam *p = &k->cparams[i];
        ScalarKind ty;
        ks->axis_of[i] = -1;
        if (cparam_kind(p, &ty) < 0) {
            dg_error(c->dg, p->type ? p->type->loc : p->loc, "compile-time parameter "
                     "'%s' must be an integer, a bool or a 'type'", p->name);
            ok = 0;
            continue;
        }
        for (int j = 0; j < i; j++)
            if (!strcmp(k->cparams[j].name, p->name)) {
                dg_error(c->dg, p->loc, "redefinition of '%s'", p->name);
                dg_note(c->dg, k->cparams[j].loc, "previous definition is here");
                ok = 0;
            }
        for (int d = 0; d < c->opt->ndefines; d++)
            if (!strcmp(c->opt->defines[d].name, p->name)) {
                ks->source[i] = 1;
                ok &= parse_define(c, k, p, c->opt->defines[d].value, &ks->dvalue[i]);
            }
        for (int a = 0; a < ks->axes.n; a++)
            if (ks->axes.v[a].cparam == i && ks->source[i] != 1) {
                ks->source[i] = 2;
                ks->axis_of[i] = a;
            }
        if (!ks->source[i] && !p->deflt) {
            dg_error(c->dg, p->loc, "compile-time parameter '%s' of kernel '%s' has "
                     "no value", p->name, k->name);
            dg_note(c->dg, p->loc, "give it one with -D %s=<value>, @tune(%s = [...]) "
                    "or a default `%s: %s = <value>`", p->name, p->name, p->name,
                    p->type->name);
            ok = 0;
        }
    }
    for (int i = 0; i < k->nparams; i++) {
        if (cparam_index(k, k->params[i].name) >= 0 || param_index(k, k->params[i].name) < i) {
            const AstParam *prev = cparam_index(k, k->params[i].name) >= 0
                ? &k->cparams[cparam_index(k, k->params[i].name)]
                : &k->params[param_index(k, k->params[i].name)];
            dg_error(c->dg, k->params[i].loc, "redefinition of '%s'", k->params[i].name);
            dg_note(c->dg, prev->loc, "previous definition is here");
            ok = 0;
        }
    }
    /* -D warps/stages (unless a parameter has the name) fix the setting */
    int dw = c->dwarps && cparam_index(k, "warps") < 0;
    int ds = c->dstages && cparam_index(k, "stages") < 0;
    if (dw) ks->warps = c->dwarps;
    if (ds) ks->stages = c->dstages;
    /* axes overridden by -D drop out of the product */
    int w = 0;
    for (int a = 0; a < ks->axes.n; a++) {
        Axis ax = ks->axes.v[a];
        if (ax.cparam >= 0 && ks->source[ax.cparam] == 1) continue;
        if ((ax.cparam == -1 && dw) || (ax.cparam == -2 && ds)) continue;
        if (ax.cparam >= 0) ks->axis_of[ax.cparam] = w;
        ks->axes.v[w++] = ax;
    }
    ks->axes.n = w;
    return ok;
}

/* ------------------------------------------------------------ configs */

/* Binds this configuration's cparams in the current scope and fills
 * IrCparams; 0 on error. */
static int bind_cparams(SmCtx *c, KernelSpec *ks, const int *digit,
                        IrCparam *out, int *warps, int *stages) {
    const AstItem *k = ks->k;
    *warps = ks->warps ? ks->warps : 4;
    *stages = ks->stages ? ks->stages : 3;
    for (int a = 0; a < ks->axes.n; a++) {
        Axis *ax = &ks->axes.v[a];
        if (ax->cparam == -1) *warps = (int)ax->values[digit[a]].i;
        if (ax->cparam == -2) *stages = (int)ax->values[digit[a]].i;
    }
    for (int i = 0; i < k->ncparams; i++) {
        const AstParam *p = &k->cparams[i];
        SmVal v;
        if (ks->source[i] == 1)
            v = ks->dvalue[i];
        else if (ks->source[i] == 2)
            v = ks->axes.v[ks->axis_of[i]].values[digit[ks->axis_of[i]]];
        else {
            v = sm_const_expr(c, p->deflt, ar_printf(c->ar, "the default of '%s'", p->name));
            if (!cparam_value(c, p, &v, p->deflt->loc)) return 0;
        }
        v.loc = p->loc;
        ScalarKind ty = SK_VOID;
        out[i].name = p->name;
        out[i].kind = cparam_kind(p, &ty);
        out[i].ty = ty;
        out[i].value = out[i].kind == CP_TYPE ? v.k : v.i;
        v.weak = 0;
        sm_declare(c, p->name, B_CPARAM, p->loc, v);
    }
    return 1;
}

/* @prune(expr) for this configuration: 1 keep, 0 drop, -1 error. */
static int keep_config(SmCtx *c, KernelSpec *ks, int warps, int stages) {
    if (!ks->prune) return 1;
    sm_push_scope(c, 0);
    if (!sm_lookup(c, "warps"))
        sm_declare(c, "warps", B_CPARAM, ks->k->nloc, sm_const_int(SK_I32, warps, 0, ks->k->nloc));
    if (!sm_lookup(c, "stages"))
        sm_declare(c, "stages", B_CPARAM, ks->k->nloc, sm_const_int(SK_I32, stages, 0, ks->k->nloc));
    SmVal v = sm_const_expr(c, ks->prune, "the condition of '@prune'");
    sm_pop_scope(c);
    if (v.kind == SV_POISON) return -1;
    if (v.kind != SV_CONST || v.k != SK_BOOL) {
        dg_error(c->dg, ks->prune->loc, "the condition of '@prune' must be a bool, "
                 "got '%s'", sm_describe(c, &v));
        return -1;
    }
    return (int)v.i;
}

/* Resolves the runtime signature; NULL on error. */
static IrParam *signature(SmCtx *c, KernelSpec *ks) {
    const AstItem *k = ks->k;
    IrParam *ps = ar_alloc(c->ar, sizeof(IrParam) * (size_t)(k->nparams + 1));
    int ok = 1;
    for (int i = 0; i < k->nparams; i++) {
        const AstParam *p = &k->params[i];
        ps[i].name = p->name;
        ps[i].loc = p->loc;
        if (!p->type) {
            dg_error(c->dg, p->loc, "kernel parameter '%s' needs a type", p->name);
            ok = 0;
            continue;
        }
        if (p->type->kind == T_TILE) {
            dg_error(c->dg, p->type->loc, "kernel parameter '%s' cannot be a tile; "
                     "pass a pointer and load it", p->name);
            ok = 0;
            continue;
        }
        int typed = sm_resolve_type(c, p->type, &ps[i].ty, 0);
        if (typed && ty_isf8((ScalarKind)ps[i].ty.k)) {
            dg_error(c->dg, p->type->loc, "kernel parameter '%s' cannot be an f8 scalar; "
                     "pass an f32 and convert it ('as %s')", p->name,
                     ty_kind_name((ScalarKind)ps[i].ty.k));
            typed = 0;
        }
        ok &= typed;
    }
    for (int i = 0; i < ks->nospec.n; i++) ps[ks->nospec.v[i]].nospecialize = 1;
    return ok ? ps : NULL;
}

/* Builds the IrKernel of one configuration; NULL on error or when @prune
 * drops it (*pruned set). *desc gets the configuration's text. */
static IrKernel *build(SmCtx *c, KernelSpec *ks, const int *digit, int index,
                       int *pruned, const char **desc) {
    const AstItem *k = ks->k;
    IrCparam *cp = ar_alloc(c->ar, sizeof(IrCparam) * (size_t)(k->ncparams + 1));
    int warps, stages, before = dg_errors(c->dg);
    *pruned = 0;
    *desc = NULL;
    c->scope = NULL;
    sm_push_scope(c, 1);
    if (!bind_cparams(c, ks, digit, cp, &warps, &stages)) return NULL;
    *desc = ir_config_text(c->ar, cp, k->ncparams, warps, stages);
    int keep = keep_config(c, ks, warps, stages);
    if (keep <= 0) {
        *pruned = keep == 0;
        return NULL;
    }
    IrParam *ps = signature(c, ks);
    if (!ps) return NULL;
    IrKernel *ir = ir_kernel(c->ar, k->name, k->nparams, ps);
    ir->loc = k->nloc;
    ir->ncparams = k->ncparams;
    ir->cparams = cp;
    ir->warps = warps;
    ir->stages = stages;
    ir->config_index = index;
    if (ks->has_tune_key) {
        ir->ntune_key = ks->tune_key.n;
        ir->tune_key = ks->tune_key.v;
    } else {
        ir->tune_key = ar_alloc(c->ar, sizeof(int) * (size_t)(k->nparams + 1));
        for (int i = 0; i < k->nparams; i++)
            if (ty_isint(ps[i].ty.k))
                ir->tune_key[ir->ntune_key++] = i;
    }
    for (int i = 0; i < k->nparams; i++)
        sm_declare(c, k->params[i].name, B_PARAM, k->params[i].loc,
                   sm_val(ir->body->args[i], k->params[i].loc));
    c->b = (IrBuilder){c->ar, ir, ir->body, k->loc};
    for (int i = 0; i < k->ngrid && i < 3; i++)
        ir->grid[ir->ngrid++] = sm_gexpr(c, k->grid[i], ir, "the grid");
    if (k->ngrid > 3)
        dg_error(c->dg, k->grid[3]->loc, "the grid has at most 3 dimensions");
    if (ks->require) {
        GExpr *r = sm_gexpr(c, ks->require, ir, "'@require'");
        if (r && !(r->kind == GX_CONST && r->value)) {
            ir->require = ar_alloc(c->ar, sizeof(GExpr *));
            ir->require[ir->nrequire++] = r;
        }
    }
    sm_block(c, k->body);
    c->b = (IrBuilder){c->ar, c->scratch, c->scratch->body, k->loc};
    c->ops_done += ir->nops;
    if (dg_errors(c->dg) > before) return NULL;
    return ir;
}

void sm_compile_kernel(SmCtx *c, SmModule *m, const AstItem *k) {
    KernelSpec ks = {0};
    ks.k = k;
    c->mod = m;
    c->scope = NULL;
    sm_push_scope(c, 1);
    int before = dg_errors(c->dg);
    read_attrs(c, &ks);
    if (dg_errors(c->dg) > before) return;  /* sources would cascade */
    if (!value_sources(c, &ks) || dg_errors(c->dg) > before) return;
    int64_t total = 1;
    int huge = 0;   /* the product does not even fit in 64 bits */
    for (int a = 0; a < ks.axes.n; a++)
        huge |= __builtin_mul_overflow(total, (int64_t)ks.axes.v[a].n, &total);
    if (huge || total > SM_MAX_CONFIGS) {
        dg_error(c->dg, k->nloc, "kernel '%s' has %s configurations, more than "
                 "the limit of %d", k->name, huge ? "over 2^63"
                 : ar_printf(c->ar, "%lld", (long long)total), SM_MAX_CONFIGS);
        return;
    }
    int *digit = ar_alloc(c->ar, sizeof(int) * (size_t)(ks.axes.n + 1));
    int built = 0;
    for (int64_t n = 0; n < total; n++) {
        int64_t rest = n;
        for (int a = ks.axes.n - 1; a >= 0; a--) {
            digit[a] = (int)(rest % ks.axes.v[a].n);
            rest /= ks.axes.v[a].n;
        }
        int pruned;
        const char *desc;
        IrKernel *ir = build(c, &ks, digit, built, &pruned, &desc);
        if (pruned) continue;
        if (!ir) {
            if (total > 1 && desc && !dg_full(c->dg))
                dg_note(c->dg, k->nloc, "while compiling kernel '%s' with %s",
                        k->name, desc);
            return;
        }
        vec_push(c->ar, &c->kernels, ir);
        built++;
    }
    if (!built)
        dg_error(c->dg, k->nloc, "every configuration of kernel '%s' is pruned by "
                 "'@prune'", k->name);
}
