/*
 * api.c — the public C API of tile_interp.h: compile Tile source to a
 * TileProgram, pick a kernel configuration, check arguments, run.
 *
 * A TileProgram owns the compilation's arena (the IR and the source texts)
 * and the file table of its Diag, so that runtime errors long after the
 * compilation still print the offending source line. Each run gets a Diag
 * of its own (the same files, a fresh message buffer, a per-run arena), so
 * runs share nothing mutable and a program may serve several threads.
 *
 * Configuration choice follows the language brief: an explicit `config`
 * string "NAME=V,..." (any subset of the compile-time parameters and
 * warps/stages) selects the configurations that agree with it; without
 * one, every configuration is a candidate. The first candidate (in the
 * @tune order sema keeps) whose @require expressions hold for these
 * arguments runs. That choice is libtile's own code (bundle/choose.c)
 * over the same kernel descriptor a bundle carries: tlb_from_ir builds it
 * from the module once, at compilation, with a table from each of its
 * configurations back to the IrKernel that runs. Failures name the kernel,
 * what exists, and for @require the failed conditions and the arguments.
 *
 * Errors that have no source position (arguments, configuration, grid)
 * are returned as one line without a trailing newline; errors found while
 * running carry the clang-style location, source line and caret.
 */
#include "tile_interp.h"

#include "interp.h"
#include "../bundle/choose.h"
#include "../bundle/from_ir.h"
#include "../parser/parser.h"
#include "../sema/sema.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct TileProgram {
    Arena *ar;
    Diag *dg;            /* the compilation's; holds the file table */
    IrModule *mod;
    TlbBundle desc;      /* the kernels as a bundle describes them, no code */
    const IrKernel ***ir;   /* [kernel][configuration] of desc: what runs */
};

static char *dup_or_null(const char *s) {
    return s && *s ? strdup(s) : NULL;
}

/* --------------------------------------------------------------- compile */

/* Splits the "NAME=VALUE" defines; reports a malformed one. */
static int split_defines(Arena *ar, Diag *dg, const TileCompileOptions *opt,
                         SmOptions *so) {
    int n = opt ? opt->ndefines : 0;
    SmDefine *d = ar_alloc(ar, sizeof *d * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        const char *s = opt->defines[i], *eq = s ? strchr(s, '=') : NULL;
        if (!eq || eq == s) {
            dg_plain(dg, DG_ERROR, "invalid define '%s' (expected NAME=VALUE)",
                     s ? s : "(null)");
            return -1;
        }
        d[i] = (SmDefine){ar_strndup(ar, s, (size_t)(eq - s)), eq + 1};
    }
    so->defines = d;
    so->ndefines = n;
    return 0;
}

/* The bundle kernels' descriptor of m (configuration choice works on it)
 * and, per kernel and configuration, its IrKernel; NULL, reported, when
 * an expression does not fit the bundle format. */
static const IrKernel ***describe(Arena *ar, Diag *dg, const IrModule *m, TlbBundle *desc) {
    char err[256];
    if (tlb_from_ir(ar, m, NULL, desc, err, sizeof err)) {
        dg_plain(dg, DG_ERROR, "%s", err);
        return NULL;
    }
    const IrKernel ***ir = ar_alloc(ar, sizeof *ir * (desc->nkernels + 1));
    for (uint32_t k = 0; k < desc->nkernels; k++)
        ir[k] = ar_alloc(ar, sizeof **ir * desc->kernels[k].nconfigs);
    for (int i = 0; i < m->nkernels; i++) {
        uint32_t k = 0;
        while (strcmp(desc->kernels[k].name, m->kernels[i]->name)) k++;
        ir[k][tlb_ir_config_rank(m, i)] = m->kernels[i];
    }
    return ir;
}

static TileProgram *compile(Arena *ar, Diag *dg, uint32_t file, const char *text,
                            size_t len, const TileCompileOptions *opt,
                            char **diagnostics) {
    SmOptions so = {0};
    IrModule *mod = NULL;
    TlbBundle desc;
    const IrKernel ***ir = NULL;
    if (split_defines(ar, dg, opt, &so) == 0) {
        so.include_dirs = opt ? opt->include_dirs : NULL;
        so.ninclude_dirs = opt ? opt->ninclude_dirs : 0;
        so.stdlib_dir = opt && opt->stdlib_dir ? opt->stdlib_dir
                                                : sm_stdlib_dir(ar);
        so.debug = opt ? opt->debug : 0;
        AstFile *ast = ps_parse(ar, dg, file, text, len);
        if (!dg_errors(dg)) mod = sm_compile(ar, dg, ast, &so);
        if (mod && !dg_errors(dg)) ir = describe(ar, dg, mod, &desc);
    }
    if (diagnostics) *diagnostics = dup_or_null(dg_text(dg));
    if (!ir || dg_errors(dg)) {
        dg_free(dg);
        ar_free(ar);
        return NULL;
    }
    dg_free(dg);   /* the messages were copied; the file table stays */
    TileProgram *p = calloc(1, sizeof *p);
    if (!p) {
        ar_free(ar);
        if (diagnostics) {
            free(*diagnostics);
            *diagnostics = strdup("error: out of memory\n");
        }
        return NULL;
    }
    *p = (TileProgram){ar, dg, mod, desc, ir};
    return p;
}

/* The compiler's memory ran out before it could start (arena.c). */
static TileProgram *out_of_memory(Arena *ar, char **diagnostics) {
    if (diagnostics) *diagnostics = dup_or_null("tilec: error: out of memory\n");
    ar_free(ar);
    return NULL;
}

TileProgram *tile_compile_source(const char *name, const char *src, size_t len,
                                 const TileCompileOptions *opt, char **diagnostics) {
    Arena *ar = ar_new();
    char *text = ar ? ar_try_alloc(ar, len + 1) : NULL;
    if (!text) return out_of_memory(ar, diagnostics);
    if (len) memcpy(text, src, len);
    Diag *dg = dg_new(ar, NULL, 0);
    uint32_t file = dg_add_file(dg, ar_strdup(ar, name ? name : "<source>"), text, len);
    return compile(ar, dg, file, text, len, opt, diagnostics);
}

TileProgram *tile_compile_file(const char *path, const TileCompileOptions *opt,
                               char **diagnostics) {
    Arena *ar = ar_new();
    if (!ar) return out_of_memory(ar, diagnostics);
    Diag *dg = dg_new(ar, NULL, 0);
    size_t len = 0;
    char *text = read_file(ar, path, &len);
    if (!text) {
        dg_plain(dg, DG_ERROR, "cannot open '%s': %s", path, strerror(errno));
        if (diagnostics) *diagnostics = dup_or_null(dg_text(dg));
        dg_free(dg);
        ar_free(ar);
        return NULL;
    }
    uint32_t file = dg_add_file(dg, ar_strdup(ar, path), text, len);
    return compile(ar, dg, file, text, len, opt, diagnostics);
}

void tile_program_free(TileProgram *p) {
    if (!p) return;
    ar_free(p->ar);
    free(p);
}

/* ---------------------------------------------------------------- queries */

/* Kernel `name`'s index in p->desc, or -1. */
static int kernel_index(const TileProgram *p, const char *name) {
    for (uint32_t k = 0; name && k < p->desc.nkernels; k++)
        if (!strcmp(p->desc.kernels[k].name, name)) return (int)k;
    return -1;
}

int tile_kernel_count(const TileProgram *p) { return (int)p->desc.nkernels; }

const char *tile_kernel_name(const TileProgram *p, int i) {
    return i >= 0 && (uint32_t)i < p->desc.nkernels ? p->desc.kernels[i].name : NULL;
}

char *tile_kernel_configs(const TileProgram *p, const char *kernel) {
    int k = kernel_index(p, kernel);
    if (k < 0) return NULL;
    Buf b = {0};
    for (uint32_t c = 0; c < p->desc.kernels[k].nconfigs; c++) {
        char name[1024];
        tlb_config_name(&p->desc.kernels[k], c, name, sizeof name);
        buf_printf(&b, "%s\n", name);
    }
    return b.s;
}

/* The first configuration of `name` (they share the signature), or NULL. */
static const IrKernel *first_config(const TileProgram *p, const char *name) {
    int k = kernel_index(p, name);
    return k < 0 ? NULL : p->ir[k][0];
}

char *tile_kernel_params(const TileProgram *p, const char *kernel) {
    const IrKernel *k = first_config(p, kernel);
    if (!k) return NULL;
    Buf b = {0};
    for (int i = 0; i < k->nparams; i++) {
        const IrParam *pa = &k->params[i];
        int ptr = pa->ty.k == SK_PTR;
        buf_printf(&b, "%s %s%s%s\n", pa->name, ptr ? "*" : "",
                   ty_kind_name((ScalarKind)(ptr ? pa->ty.pointee : pa->ty.k)),
                   ptr && pa->stored ? " stored" : "");
    }
    if (!b.s) buf_puts(&b, "");   /* a kernel without parameters: "" */
    return b.s;
}

int tile_kernel_has_grid(const TileProgram *p, const char *kernel) {
    const IrKernel *k = first_config(p, kernel);
    return k ? k->ngrid > 0 : -1;
}

/* ------------------------------------------------------------------- run */

typedef struct Run {
    const TileProgram *p;
    const char *name;
    const TileArg *args;
    int nargs;
    int64_t *scalars;    /* runtime parameters for GExprs */
    Buf err;
} Run;

static int fail(Run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(Run *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&r->err, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *kind_name(TileArgKind k) {
    return k == TILE_ARG_BUFFER ? "a buffer" : k == TILE_ARG_INT ? "an integer" : "a float";
}

/* Is v a value of integer kind k? (u64 takes any value's bits.) */
static int fits(ScalarKind k, int64_t v) {
    int bits = ty_bits(k);
    if (bits == 64) return 1;
    if (ty_issigned(k)) return v >= -((int64_t)1 << (bits - 1)) && v < (int64_t)1 << (bits - 1);
    return v >= 0 && v < (int64_t)1 << bits;
}

/* Checks count and kinds against the signature of k (all configurations
 * share it) and fills r->scalars. */
static int check_args(Run *r, const IrKernel *k) {
    if (r->nargs != k->nparams)
        return fail(r, "kernel '%s' takes %d argument%s, got %d", k->name, k->nparams,
                    k->nparams == 1 ? "" : "s", r->nargs);
    r->scalars = calloc((size_t)k->nparams + 1, sizeof(int64_t));
    if (!r->scalars) return fail(r, "out of memory running kernel '%s'", k->name);
    for (int i = 0; i < k->nparams; i++) {
        ScalarKind pk = k->params[i].ty.k;
        TileArgKind want = pk == SK_PTR ? TILE_ARG_BUFFER
                         : ty_isfloat(pk) ? TILE_ARG_FLOAT : TILE_ARG_INT;
        TileArgKind got = r->args[i].kind;
        if (got != want && !(want == TILE_ARG_FLOAT && got == TILE_ARG_INT))
            return fail(r, "kernel '%s': argument %d ('%s') must be %s, got %s", k->name,
                        i, k->params[i].name, kind_name(want), kind_name(got));
        if (got == TILE_ARG_BUFFER && !r->args[i].data && r->args[i].bytes)
            return fail(r, "kernel '%s': argument %d ('%s') is a NULL buffer of %zu bytes",
                        k->name, i, k->params[i].name, r->args[i].bytes);
        if (got == TILE_ARG_INT && ty_isint(pk) && !fits(pk, r->args[i].i))
            return fail(r, "kernel '%s': argument %d ('%s') is %" PRId64
                        ", which does not fit in %s", k->name, i, k->params[i].name,
                        r->args[i].i, ty_kind_name(pk));
        IpSlot f = {.f = r->args[i].f};
        r->scalars[i] = got == TILE_ARG_INT ? r->args[i].i
                      : got == TILE_ARG_FLOAT ? ip_convert(SK_F64, SK_I64, f).i : 0;
    }
    return 0;
}

/* The message of a kernel name that is not there. */
static void no_kernel(Run *r) {
    fail(r, "no kernel named '%s'", r->name);
    for (int i = 0, n = tile_kernel_count(r->p); i < n; i++)
        buf_printf(&r->err, "%s'%s'", i ? ", " : " (kernels: ", tile_kernel_name(r->p, i));
    if (tile_kernel_count(r->p)) buf_putc(&r->err, ')');
}

/* Picks the configuration to run, or reports why there is none: the
 * selection and @require by bundle/choose.c, as libtile picks ("" selects
 * all, as tile_kernel_select's does). */
static const IrKernel *choose(Run *r, const char *config) {
    if (config && !*config) config = NULL;
    int ki = kernel_index(r->p, r->name);
    if (ki < 0) {
        no_kernel(r);
        return NULL;
    }
    const TlbKernel *k = &r->p->desc.kernels[ki];
    if (check_args(r, r->p->ir[ki][0])) return NULL;
    uint8_t *in = config ? calloc(k->nconfigs, 1) : NULL;
    if (config && !in) {
        fail(r, "out of memory running kernel '%s'", r->name);
        return NULL;
    }
    char err[TLB_CHOOSE_ERRLEN];
    uint32_t c = 0;
    TlbChoice rc = config ? tlb_select(k, config, in, err, sizeof err) : TLB_CHOICE_OK;
    if (!rc) rc = tlb_choose(k, in, config, r->scalars, &c, err, sizeof err);
    free(in);
    if (rc) {
        fail(r, "%s", err);
        return NULL;
    }
    return r->p->ir[ki][c];
}

/* The launch grid: the caller's, or the kernel's grid() evaluated. */
static int grid_of(Run *r, const IrKernel *k, const TileRunOptions *opt, uint32_t g[3]) {
    if (opt && (opt->grid[0] || opt->grid[1] || opt->grid[2])) {
        g[0] = opt->grid[0];
        g[1] = opt->grid[1] ? opt->grid[1] : 1;
        g[2] = opt->grid[2] ? opt->grid[2] : 1;
        return 0;
    }
    if (!k->ngrid)
        return fail(r, "kernel '%s' has no grid(): pass one in TileRunOptions.grid", k->name);
    for (int d = 0; d < 3; d++) {
        int64_t v = 1;
        if (d < k->ngrid && gx_eval(k->grid[d], r->scalars, &v))
            return fail(r, "kernel '%s': grid() divides by zero for these arguments", k->name);
        if (v < 0 || v > UINT32_MAX)
            return fail(r, "kernel '%s': grid() dimension %d is %" PRId64
                        " for these arguments", k->name, d, v);
        g[d] = (uint32_t)v;
    }
    return 0;
}

/* The run's limits: the options', else $TILE_INTERP_MAX_STEPS. */
static int limits_of(Run *r, const TileRunOptions *opt, IpLimits *lim) {
    *lim = (IpLimits){opt ? opt->max_steps : 0, opt ? opt->cancel : NULL};
    const char *env = getenv("TILE_INTERP_MAX_STEPS");
    if (lim->max_steps || !env || !*env) return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(env, &end, 10);
    if (*end || errno || env[0] == '-')
        return fail(r, "invalid TILE_INTERP_MAX_STEPS '%s' (expected a number of steps; "
                    "0: no limit)", env);
    lim->max_steps = v;
    return 0;
}

/* Runs k with a Diag of its own over the program's files. */
static int execute(Run *r, const IrKernel *k, const uint32_t grid[3], const IpLimits *lim) {
    Arena *ar = ar_new();
    Diag *dg = dg_new(ar, NULL, 0);
    size_t len;
    const char *text;
    for (uint32_t f = 0; (text = dg_file_text(r->p->dg, f, &len)) != NULL; f++)
        dg_add_file(dg, dg_file_path(r->p->dg, f), text, len);
    IpArg *args = calloc((size_t)k->nparams + 1, sizeof *args);
    if (!args) {
        dg_free(dg);
        ar_free(ar);
        return fail(r, "out of memory running kernel '%s'", k->name);
    }
    for (int i = 0; i < k->nparams; i++) {
        const TileArg *a = &r->args[i];
        args[i] = (IpArg){a->data, a->bytes, a->i,
                          a->kind == TILE_ARG_INT ? (double)a->i : a->f};
    }
    int rc = ip_run_limited(k, args, grid, dg, NULL, lim);
    if (rc) buf_puts(&r->err, dg_text(dg));
    free(args);
    dg_free(dg);
    ar_free(ar);
    return rc;
}

int tile_interp_run(TileProgram *p, const char *kernel, const TileArg *args, int nargs,
                    const TileRunOptions *opt, char **error) {
    Run r = {p, kernel ? kernel : "", args, nargs, NULL, {0}};
    const IrKernel *k = choose(&r, opt ? opt->config : NULL);
    uint32_t grid[3];
    IpLimits lim;
    int rc = !k || grid_of(&r, k, opt, grid) || limits_of(&r, opt, &lim)
                 ? -1 : execute(&r, k, grid, &lim);
    if (error) *error = rc ? dup_or_null(r.err.s ? r.err.s : "error") : NULL;
    buf_free(&r.err);
    free(r.scalars);
    return rc;
}
