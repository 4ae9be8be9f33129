/*
 * sema.h — semantic analysis: AST in, typed tile IR out.
 *
 * sm_compile() resolves imports (search path: the importing file's
 * directory, then -I directories, then TILE_PATH entries, then the stdlib
 * directory), checks every item, enumerates each kernel's configurations
 * (@tune product filtered by @prune, with -D values and defaults), and for
 * each configuration builds one IrKernel: fn calls inlined per call site,
 * static_range loops unrolled, broadcasting made explicit. Errors go to the
 * Diag, with notes pointing at declarations; analysis continues past an
 * error where it can, so one run reports several.
 */
#ifndef TILE_SEMA_H
#define TILE_SEMA_H

#include "../parser/ast.h"
#include "ir.h"

typedef struct SmDefine {
    const char *name;
    const char *value;   /* as written after NAME= on the command line */
} SmDefine;

typedef struct SmOptions {
    const SmDefine *defines;
    int ndefines;
    const char *const *include_dirs;   /* -I, in order */
    int ninclude_dirs;
    const char *stdlib_dir;            /* the stdlib (sm_stdlib_dir); may be NULL */
    int debug;                         /* -g: keep device_assert */
} SmOptions;

/* Checks `main` (already parsed, registered in dg) and returns the module,
 * or NULL when errors were reported. All IR lives in `ar`. */
IrModule *sm_compile(Arena *ar, Diag *dg, const AstFile *main,
                     const SmOptions *opt);

/* The stdlib directory when the caller names none: $TILE_STDLIB, else one
 * found beside the running libtilec or executable (the build tree's or an
 * installed one), else the configure-time TILE_STDLIB_DIR; allocated in
 * `ar` (stdlib_dir.c). NULL only when there is none at all. */
const char *sm_stdlib_dir(Arena *ar);

#endif
