/*
 * scope.c — modules, imports and names.
 *
 * A module is one parsed file. `import "std/math";` finds `std/math.tile`
 * in the importing file's directory, then each -I directory, then each
 * TILE_PATH entry, then the stdlib (SmOptions.stdlib_dir, which the
 * callers take from sm_stdlib_dir: stdlib_dir.c); the first hit wins. Modules
 * are keyed by their real path, so a file imported from several places is
 * parsed once. Loading is a depth-first walk with an explicit stack, which
 * makes a cycle easy to spell out: the stack from the first occurrence of
 * the module to the top *is* the cycle. A failed import is reported once:
 * the module that made it does not report the names it would have
 * supplied as undeclared (load_import).
 *
 * Visibility is per module, as in Python: a module sees its own consts and
 * fns, then those of the modules it imports directly (in import order). A
 * local definition therefore shadows an imported one instead of clashing
 * with it, and a stdlib helper never leaks into user code through a second
 * import.
 *
 * Local names live in a chain of scopes, one per block. A fn body starts
 * with a *barrier* scope: lookups do not cross it into the caller's locals,
 * so an inlined fn sees only its parameters and its module's globals.
 *
 * Every table is hashed (base/map.c), so that analysis time stays linear in
 * the input: a module's globals by name, the modules by real path, and a
 * scope's bindings once it holds more than SM_SCOPE_LIST (a short list is
 * cheaper to scan than to hash).
 */
#define _XOPEN_SOURCE 700  /* realpath */
#include "sm.h"
#include "../parser/parser.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *dir_of(SmCtx *c, const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return ".";
    if (slash == path) return "/";
    return ar_strndup(c->ar, path, (size_t)(slash - path));
}

static const char *base_of(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

SmModule *sm_new_module(SmCtx *c, const AstFile *f) {
    SmModule *m = ar_alloc(c->ar, sizeof *m);
    m->ast = f;
    m->path = f->path ? f->path : dg_file_path(c->dg, f->file);
    m->dir = dir_of(c, m->path);
    char buf[PATH_MAX];
    if (realpath(m->path, buf)) {
        m->real = ar_strdup(c->ar, buf);
        map_put(c->ar, &c->by_path, m->real, m);
    }
    vec_push(c->ar, &c->modules, m);
    return m;
}

/* The module already loaded from `real`, if any. */
static SmModule *find_module(SmCtx *c, const char *real) {
    return map_get(&c->by_path, real);
}

/* Candidate directories for an import from m, in search order. */
typedef Vec(const char *) StrVec;

static void search_dirs(SmCtx *c, SmModule *m, StrVec *dirs) {
    vec_push(c->ar, dirs, m->dir);
    for (int i = 0; i < c->opt->ninclude_dirs; i++)
        vec_push(c->ar, dirs, c->opt->include_dirs[i]);
    const char *tp = getenv("TILE_PATH");
    while (tp && *tp) {
        const char *colon = strchr(tp, ':');
        size_t n = colon ? (size_t)(colon - tp) : strlen(tp);
        if (n) vec_push(c->ar, dirs, ar_strndup(c->ar, tp, n));
        tp = colon ? colon + 1 : NULL;
    }
    if (c->opt->stdlib_dir) vec_push(c->ar, dirs, c->opt->stdlib_dir);
}

static SmModule *parse_module(SmCtx *c, const char *path, const char *name,
                              Loc at) {
    size_t len;
    char *text = read_file(c->ar, path, &len);
    if (!text && errno == EISDIR)
        dg_error(c->dg, at, "cannot import '%s': '%s' is a directory", name, path);
    else if (!text)
        dg_error(c->dg, at, "cannot import '%s': cannot read '%s': %s", name,
                 path, strerror(errno));
    if (!text) return NULL;
    uint32_t file = dg_add_file(c->dg, path, text, len);
    AstFile *f = ps_parse(c->ar, c->dg, file, text, len);
    if (!f->path) f->path = path;
    return sm_new_module(c, f);
}

/* import "PATH"; */
static void import_one(SmCtx *c, SmModule *m, const AstItem *it,
                       SmModVec *stack) {
    const char *rel = it->path;
    size_t n = strlen(rel);
    if (n < 5 || strcmp(rel + n - 5, ".tile") != 0)
        rel = ar_printf(c->ar, "%s.tile", rel);
    StrVec dirs = {0};
    if (rel[0] == '/')
        vec_push(c->ar, &dirs, "");
    else
        search_dirs(c, m, &dirs);
    const char *found = NULL;
    char real[PATH_MAX];
    for (int i = 0; i < dirs.n && !found; i++) {
        const char *p = dirs.v[i][0] ? ar_printf(c->ar, "%s/%s", dirs.v[i], rel)
                                     : rel;
        if (realpath(p, real)) found = p;
    }
    if (!found) {
        dg_error(c->dg, it->nloc, "cannot find imported module '%s'", it->path);
        for (int i = 0; i < dirs.n; i++)
            dg_plain(c->dg, DG_NOTE, "searched '%s'",
                     dirs.v[i][0] ? ar_printf(c->ar, "%s/%s", dirs.v[i], rel) : rel);
        return;
    }
    SmModule *dep = find_module(c, real);
    if (dep && dep->loading) {
        Buf chain = {0};
        int from = 0;
        while (stack->v[from] != dep) from++;
        for (int i = from; i < stack->n; i++)
            buf_printf(&chain, "%s -> ", base_of(stack->v[i]->path));
        buf_puts(&chain, base_of(dep->path));
        dg_error(c->dg, it->nloc, "import cycle: %s", chain.s);
        buf_free(&chain);
        return;
    }
    if (!dep) {
        dep = parse_module(c, found, it->path, it->nloc);
        if (!dep) return;
        sm_load_imports(c, dep, stack);
    }
    vec_push(c->ar, &m->imports, dep);
}

/* An import that reported an error (not found, unreadable, a cycle, or
 * errors inside the imported module or its own imports) marks m: the
 * names it would have defined are then missing, and reporting each use as
 * undeclared would bury the one real error under a cascade. Sema stays
 * quiet about undeclared names in such a module (expr.c); the compilation
 * has failed already, so nothing goes unreported for good. */
static void load_import(SmCtx *c, SmModule *m, const AstItem *it,
                        SmModVec *stack) {
    int errors = dg_errors(c->dg);
    import_one(c, m, it, stack);
    if (dg_errors(c->dg) > errors) m->failed_import = 1;
}

void sm_load_imports(SmCtx *c, SmModule *m, SmModVec *stack) {
    m->loading = 1;
    vec_push(c->ar, stack, m);
    for (int i = 0; i < m->ast->nitems && !dg_full(c->dg); i++)
        if (m->ast->items[i]->kind == I_IMPORT)
            load_import(c, m, m->ast->items[i], stack);
    stack->n--;
    m->loading = 0;
    m->loaded = 1;
}

/* ------------------------------------------------------------- globals */

static SmGlobal *own_global(SmModule *m, const char *name) {
    return map_get(&m->by_name, name);
}

int sm_is_builtin_name(const char *name) {
    static const char *const reserved[] = {"range", "static_range",
                                           "static_assert", "type", NULL};
    for (int i = 0; reserved[i]; i++)
        if (strcmp(reserved[i], name) == 0) return 1;
    return sm_has_builtin(name) || ty_kind_by_name(name) != SK_VOID;
}

void sm_collect_globals(SmCtx *c, SmModule *m) {
    for (int i = 0; i < m->ast->nitems; i++) {
        const AstItem *it = m->ast->items[i];
        if (it->kind == I_IMPORT || !it->name) continue;
        if (sm_is_builtin_name(it->name)) {
            dg_error(c->dg, it->nloc, "'%s' is a builtin name and cannot be "
                     "redefined", it->name);
            continue;
        }
        SmGlobal *prev = own_global(m, it->name);
        if (prev) {
            dg_error(c->dg, it->nloc, "redefinition of '%s'", it->name);
            dg_note(c->dg, prev->item->nloc, "previous definition is here");
            continue;
        }
        SmGlobal *g = ar_alloc(c->ar, sizeof *g);
        g->name = it->name;
        g->kind = it->kind == I_CONST ? G_CONST
                : it->kind == I_FN    ? G_FN : G_KERNEL;
        g->item = it;
        g->mod = m;
        vec_push(c->ar, &m->globals, g);
        map_put(c->ar, &m->by_name, g->name, g);
    }
}

SmGlobal *sm_lookup_global(SmCtx *c, const char *name) {
    SmGlobal *g = own_global(c->mod, name);
    for (int i = 0; !g && i < c->mod->imports.n; i++) {
        g = own_global(c->mod->imports.v[i], name);
        if (g && g->kind == G_KERNEL) g = NULL;  /* kernels stay home */
    }
    return g;
}

/* -------------------------------------------------------------- locals */

void sm_push_scope(SmCtx *c, int barrier) {
    SmScope *s = ar_alloc(c->ar, sizeof *s);
    s->parent = c->scope;
    s->barrier = barrier;
    c->scope = s;
}

void sm_pop_scope(SmCtx *c) { c->scope = c->scope->parent; }

/* The binding of `name` in scope s itself, or NULL. */
static SmBind *in_scope(const SmScope *s, const char *name) {
    if (s->n > SM_SCOPE_LIST) return map_get(&s->map, name);
    for (SmBind *b = s->first; b; b = b->next)
        if (strcmp(b->name, name) == 0) return b;
    return NULL;
}

SmBind *sm_declare(SmCtx *c, const char *name, BindKind kind, Loc loc,
                   SmVal val) {
    SmScope *s = c->scope;
    SmBind *prev = in_scope(s, name);
    if (prev) {
        dg_error(c->dg, loc, "redefinition of '%s'", name);
        dg_note(c->dg, prev->loc, "previous definition is here");
    }
    SmBind *b = ar_alloc(c->ar, sizeof *b);
    b->name = name;
    b->kind = kind;
    b->loc = loc;
    b->val = val;
    b->next = s->first;
    s->first = b;
    if (++s->n == SM_SCOPE_LIST + 1) {   /* index the list, oldest first */
        SmBind *list[SM_SCOPE_LIST + 1];
        int k = 0;
        for (SmBind *e = b; e; e = e->next) list[k++] = e;
        while (k > 0) map_put(c->ar, &s->map, list[k - 1]->name, list[k - 1]), k--;
    } else if (s->n > SM_SCOPE_LIST) {
        map_put(c->ar, &s->map, name, b);
    }
    return b;
}

SmBind *sm_lookup(SmCtx *c, const char *name) {
    for (SmScope *s = c->scope; s; s = s->parent) {
        SmBind *b = in_scope(s, name);
        if (b) return b;
        if (s->barrier) break;
    }
    return NULL;
}

/* ------------------------------------------------------- suggestions */

static int edit_distance(const char *a, const char *b) {
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 32 || lb > 32) return 99;
    int d[33][33];
    for (int i = 0; i <= la; i++) d[i][0] = i;
    for (int j = 0; j <= lb; j++) d[0][j] = j;
    for (int i = 1; i <= la; i++)
        for (int j = 1; j <= lb; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

static void consider(const char *name, const char *cand, const char **best,
                     int *bestd) {
    int d = edit_distance(name, cand);
    if (d < *bestd && d * 3 <= (int)strlen(name) + 1) {
        *best = cand;
        *bestd = d;
    }
}

/* A visible name close to `name`, or NULL: locals, then globals. */
const char *sm_suggest(SmCtx *c, const char *name) {
    const char *best = NULL;
    int bestd = 3;
    for (SmScope *s = c->scope; s; s = s->parent) {
        for (SmBind *b = s->first; b; b = b->next)
            consider(name, b->name, &best, &bestd);
        if (s->barrier) break;
    }
    SmModule *ms[1] = {c->mod};
    for (int i = -1; i < c->mod->imports.n; i++) {
        SmModule *m = i < 0 ? ms[0] : c->mod->imports.v[i];
        for (int j = 0; j < m->globals.n; j++)
            if (m->globals.v[j]->kind != G_KERNEL)
                consider(name, m->globals.v[j]->name, &best, &bestd);
    }
    return best;
}
