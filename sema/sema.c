/*
 * sema.c — sm_compile(): the order of the whole analysis.
 *
 *  1. Load the import graph (scope.c), parsing each file once.
 *  2. Collect every module's items into its global table, rejecting
 *     redefinitions and attributes on fns.
 *  3. Evaluate every const (folded once; later uses read the value).
 *  4. Compile each kernel of the main file, configuration by
 *     configuration (config.c). Kernels of imported files are library
 *     code and are not compiled; fns are only checked where called, since
 *     they are generic and mean nothing until their arguments are known.
 */
#include "sm.h"

#include <string.h>

/* A -D that names no compile-time parameter of any kernel (nor warps or
 * stages) is most likely a typo; say so rather than ignore it silently. */
static void warn_unused_defines(SmCtx *c, const AstFile *main) {
    for (int d = 0; d < c->opt->ndefines; d++) {
        const char *name = c->opt->defines[d].name;
        int used = 0;
        if (!strcmp(name, "warps") || !strcmp(name, "stages"))
            continue;   /* launch settings of every kernel (config.c) */
        for (int i = 0; i < main->nitems && !used; i++) {
            const AstItem *it = main->items[i];
            for (int j = 0; it->kind == I_KERNEL && j < it->ncparams; j++)
                used |= !strcmp(it->cparams[j].name, name);
        }
        if (!used)
            dg_plain(c->dg, DG_WARNING, "-D %s matches no compile-time "
                     "parameter of any kernel", name);
    }
}

IrModule *sm_compile(Arena *ar, Diag *dg, const AstFile *main,
                     const SmOptions *opt) {
    SmOptions none = {0};
    SmCtx ctx = {0};
    SmCtx *c = &ctx;
    c->ar = ar;
    c->dg = dg;
    c->opt = opt ? opt : &none;
    static const IrParam no_params[1];
    c->scratch = ir_kernel(ar, "<const>", 0, no_params);
    c->b = (IrBuilder){ar, c->scratch, c->scratch->body, {0}};  /* ops counted in nops */
    SmModule *m = sm_new_module(c, main);
    SmModVec stack = {0};
    sm_load_imports(c, m, &stack);
    for (int i = 0; i < c->modules.n; i++) {
        SmModule *mod = c->modules.v[i];
        sm_collect_globals(c, mod);
        for (int j = 0; j < mod->ast->nitems; j++) {
            const AstItem *it = mod->ast->items[j];
            if (it->kind != I_KERNEL && it->nattrs)
                dg_error(c->dg, it->attrs[0].loc, "attributes are only allowed on "
                         "kernels, not on %s '%s'",
                         it->kind == I_FN ? "fn" : "const", it->name);
        }
    }
    for (int i = 0; i < c->modules.n && !dg_full(dg); i++) {
        SmModule *mod = c->modules.v[i];
        for (int j = 0; j < mod->globals.n; j++)
            if (mod->globals.v[j]->kind == G_CONST) {
                c->mod = mod;
                sm_global_const(c, mod->globals.v[j], mod->globals.v[j]->item->nloc);
            }
    }
    int launch_ok = sm_launch_defines(c);
    for (int i = 0; i < main->nitems && launch_ok && !dg_full(dg); i++) {
        const AstItem *it = main->items[i];
        if (it->kind == I_KERNEL && it->name) sm_compile_kernel(c, m, it);
    }
    warn_unused_defines(c, main);
    if (dg_errors(dg)) return NULL;
    IrModule *out = ar_alloc(ar, sizeof *out);
    out->ar = ar;
    out->nkernels = c->kernels.n;
    out->kernels = c->kernels.v;
    out->nfiles = c->modules.n;
    out->files = ar_alloc(ar, sizeof(char *) * (size_t)(c->modules.n + 1));
    for (int i = 0; i < c->modules.n; i++) out->files[i] = c->modules.v[i]->path;
    return out;
}
