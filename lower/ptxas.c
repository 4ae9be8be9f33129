/*
 * ptxas.c — PTX to cubin, and the resource report, through ptxas.
 *
 * Which ptxas (lw_ptxas_path): $TILE_PTXAS when set, alone (a path that
 * cannot run then means none: PTX-only bundles on purpose); else the CUDA
 * toolkit's that configure found (--with-cuda); else the first `ptxas` on
 * $PATH, as clang finds the toolkit's tools. Where none runs (a tilec
 * carried to a machine without the toolkit, as the wheel's) bundles hold
 * PTX only, which the driver compiles at load; the Python package then
 * looks further, in pip's nvidia-cuda-nvcc and Triton's copy
 * (python/tile/_cache.py), and names what it found in $TILE_PTXAS.
 *
 * ptxas runs as a child process on temporary files: `ptxas -v
 * --split-compile 0 --gpu-name ARCH -o T.cubin T.ptx`. --split-compile 0
 * optimizes the entries on as many threads as the machine has CPUs (a
 * bundle of many configurations is hundreds of entries; the code is the
 * same: session 36 compared every section of the cubins); a ptxas too old
 * to know the option (before CUDA 12.1: it says "Unknown option") runs
 * again without it. Its `-v` report names each entry
 * ("Function properties for NAME", then "N bytes stack frame, N bytes
 * spill stores, N bytes spill loads", then "Used N registers, ... N bytes
 * smem"), which is parsed into one LwStats per entry. nvJitLink would do
 * the same in-process; it is not used yet.
 */
#include "config.h"

#include "lower/lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *lw_ptxas_path(Arena *ar) {
    const char *env = getenv("TILE_PTXAS");
    if (env && *env) return access(env, X_OK) == 0 ? env : NULL;
#ifdef TILE_PTXAS
    if (access(TILE_PTXAS, X_OK) == 0) return TILE_PTXAS;
#endif
    return find_on_path(ar, "ptxas", getenv("PATH"));
}

static char *lw_slurp(Arena *ar, const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    Buf b = {0};
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) buf_put(&b, tmp, n);
    fclose(f);
    char *out = ar_alloc(ar, b.n + 1);
    if (b.n) memcpy(out, b.s, b.n);
    *len = b.n;
    buf_free(&b);
    return out;
}

/* Parses ptxas -v output into stats (one per "Function properties"). */
static void lw_parse_report(Arena *ar, const char *text, LwStats **stats,
                            int *nstats) {
    Vec(LwStats) v = {0};
    LwStats *cur = NULL;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        char *l = ar_strndup(ar, line, n);
        const char *p;
        long long a, b2, c;
        if ((p = strstr(l, "Function properties for "))) {
            LwStats s = {0};
            s.entry = ar_strdup(ar, p + strlen("Function properties for "));
            vec_push(ar, &v, s);
            cur = &v.v[v.n - 1];
        } else if (cur && sscanf(l, " %lld bytes stack frame, %lld bytes spill "
                                    "stores, %lld bytes spill loads",
                                 &a, &b2, &c) == 3) {
            cur->stack = a, cur->spill_stores = b2, cur->spill_loads = c;
        } else if (cur && (p = strstr(l, "Used ")) &&
                   sscanf(p, "Used %lld registers", &a) == 1) {
            cur->registers = (int)a;
            const char *s = strstr(p, "bytes smem");
            if (s) {
                while (s > p && s[-1] == ' ') s--;
                while (s > p && s[-1] >= '0' && s[-1] <= '9') s--;
                cur->shared = atoll(s);
            }
        }
        line = end ? end + 1 : NULL;
    }
    /* vec_push may have moved entries: cur pointers are not kept */
    *stats = v.v;
    *nstats = v.n;
}

int lw_ptxas(Arena *ar, Diag *dg, const char *ptx, const char *arch,
             char **cubin, size_t *cubin_len, LwStats **stats, int *nstats) {
    const char *ptxas = lw_ptxas_path(ar);
    if (!ptxas) {
        const char *env = getenv("TILE_PTXAS");
        if (env && *env)
            dg_plain(dg, DG_ERROR, "TILE_PTXAS: '%s' cannot run", env);
        else
            dg_plain(dg, DG_ERROR, "no ptxas: none configured (configure "
                     "--with-cuda=DIR) and none on PATH; set TILE_PTXAS");
        return -1;
    }
    if (strchr(ptxas, '\'')) {
        dg_plain(dg, DG_ERROR, "TILE_PTXAS: a path with a quote is not supported: %s", ptxas);
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tilec-ptxas-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        dg_plain(dg, DG_ERROR, "cannot create a temporary directory in '%s'", tmp);
        return -1;
    }
    char *in = ar_printf(ar, "%s/in.ptx", dir), *out = ar_printf(ar, "%s/out.cubin", dir);
    char *log = ar_printf(ar, "%s/log.txt", dir);
    int rc = -1;
    FILE *f = fopen(in, "wb");
    if (!f || fwrite(ptx, 1, strlen(ptx), f) != strlen(ptx)) {
        if (f) fclose(f);
        dg_plain(dg, DG_ERROR, "cannot write '%s'", in);
        goto done;
    }
    fclose(f);
    size_t loglen = 0;
    char *report = NULL;
    int st = -1;
    for (int split = 1; split >= 0; split--) {
        char *cmd = ar_printf(ar, "'%s' -v%s --gpu-name %s -o '%s' '%s' >'%s' 2>&1", ptxas,
                              split ? " --split-compile 0" : "", arch, out, in, log);
        st = system(cmd);
        report = lw_slurp(ar, log, &loglen);
        if (st == 0 || !report || !strstr(report, "Unknown option '-split-compile'")) break;
    }
    if (st != 0) {
        dg_plain(dg, DG_ERROR, "ptxas failed on the generated PTX:\n%s",
                 report ? report : "");
        goto done;
    }
    if (cubin && !(*cubin = lw_slurp(ar, out, cubin_len))) {
        dg_plain(dg, DG_ERROR, "cannot read '%s'", out);
        goto done;
    }
    if (stats) lw_parse_report(ar, report ? report : "", stats, nstats);
    rc = 0;
done:
    unlink(in);
    unlink(out);
    unlink(log);
    rmdir(dir);
    return rc;
}
