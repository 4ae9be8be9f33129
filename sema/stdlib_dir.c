/*
 * stdlib_dir.c — where the standard library is, for tilec and libtilec.
 *
 * Like clang with its resource directory, the compiler looks for its stdlib
 * relative to the file it runs from, so that the build tree and an
 * installation (moved or not: a tarball unpacked anywhere, a wheel) work
 * with no environment set. In order:
 *
 *  1. $TILE_STDLIB, if set and non-empty: the user said so;
 *  2. beside the file holding this code — the shared libtilec, found with
 *     dladdr, then the running executable (/proc/self/exe). With DIR its
 *     directory (a libtool .libs/ directory counts as its parent):
 *        DIR/stdlib                  tilec at the top of the build tree
 *        DIR/../share/tile/stdlib    bin/tilec or lib/libtilec.so installed
 *     and, when DIR is the build tree of a build outside the source tree
 *     (VPATH), the source tree's stdlib (TILE_SOURCE_STDLIB);
 *  3. the configure-time install directory TILE_STDLIB_DIR.
 *
 * A candidate of step 2 counts only if it holds std/math.tile, so that an
 * unrelated directory called stdlib is never taken. Step 3 is returned even
 * when it does not exist, so that a failed import lists it among the places
 * searched. Nothing is cached: the answer is a string in the caller's arena.
 */
#define _GNU_SOURCE   /* dladdr */
#include "config.h"
#include "sema.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_DLADDR
#include <dlfcn.h>
#endif

/* Resolves DIR/REL into `out` and checks that it holds std/math.tile. */
static int stdlib_at(const char *dir, const char *rel, char out[PATH_MAX]) {
    char path[PATH_MAX];
    struct stat st;
    int n = snprintf(path, sizeof path, "%s/%s", dir, rel);
    if (n < 0 || (size_t)n >= sizeof path || !realpath(path, out)) return 0;
    n = snprintf(path, sizeof path, "%s/std/math.tile", out);
    return n >= 0 && (size_t)n < sizeof path && stat(path, &st) == 0 &&
           S_ISREG(st.st_mode);
}

/* The stdlib beside the binary `file` (a path with a slash), or NULL. */
static const char *beside(Arena *ar, const char *file) {
    char dir[PATH_MAX], found[PATH_MAX];
    if (!file || !strchr(file, '/') || !realpath(file, dir)) return NULL;
    char *slash = strrchr(dir, '/');
    *slash = '\0';
    if (slash - dir >= 6 && strcmp(slash - 6, "/.libs") == 0) slash[-6] = '\0';
    if (stdlib_at(dir, "stdlib", found) ||
        stdlib_at(dir, "../share/tile/stdlib", found))
        return ar_strdup(ar, found);
#if defined(TILE_BUILD_TREE) && defined(TILE_SOURCE_STDLIB)
    char tree[PATH_MAX];
    if (realpath(TILE_BUILD_TREE, tree) && strcmp(tree, dir) == 0 &&
        stdlib_at(TILE_SOURCE_STDLIB, ".", found))
        return ar_strdup(ar, found);
#endif
    return NULL;
}

const char *sm_stdlib_dir(Arena *ar) {
    const char *env = getenv("TILE_STDLIB");
    if (env && *env) return ar_strdup(ar, env);
    const char *dir = NULL;
#ifdef HAVE_DLADDR
    /* The object that holds this function: libtilec.so, or the program
     * itself (then glibc gives argv[0], which may lack a slash). */
    union { const char *(*fn)(Arena *); void *p; } self = {sm_stdlib_dir};
    Dl_info info;
    if (dladdr(self.p, &info)) dir = beside(ar, info.dli_fname);
#endif
    char exe[PATH_MAX];
    ssize_t n = dir ? -1 : readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        dir = beside(ar, exe);
    }
    if (dir) return dir;
#ifdef TILE_STDLIB_DIR
    return TILE_STDLIB_DIR;
#else
    return NULL;
#endif
}
