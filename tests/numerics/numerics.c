/*
 * numerics.c — runs one numerics test case: `numerics CASE.num`.
 *
 * A case file is a few lines of `keyword value`:
 *
 *   # softmax on rows longer than most tiles
 *   example softmax           which runner (and examples/NAME.tile)
 *   file    tests/numerics/kernels/x.tile    (optional) another source file
 *   kernel  heat2             (optional) which kernel of the file
 *   define  T=f16             passed as -D; T also sets the runner's dtype
 *   config  auto              automatic choice (first whose @require holds)
 *   config  BLOCK=512,warps=4 an explicit configuration
 *   size    8x5000            one per line: N, RxC or MxNxK
 *
 * Every size runs in every configuration. Automake runs each .num file as
 * its own test (NUM_LOG_COMPILER), so a failure names the example and the
 * size set. The seed is printed first; TILE_NUMERICS_SEED=S replays it.
 * Exit status: 0 pass, 1 a check failed, 99 a hard error (bad case file,
 * compile error).
 */
#include "harness.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef TILE_SRCDIR
#error "TILE_SRCDIR must name the top source directory"
#endif

static const struct { const char *name; Runner fn; } runners[] = {
    {"vadd", run_vadd},
    {"bias_gelu", run_bias_gelu},
    {"softmax", run_softmax},
    {"matmul_bias_relu", run_matmul_bias_relu},
    {"layernorm", run_layernorm},
    {"cross_entropy", run_cross_entropy},
    {"stencil", run_stencil},
    {"dropout", run_dropout},
    {"transpose", run_transpose},
    {"matmul", run_matmul},
    {"matmul_gelu", run_matmul_gelu},
    {"bmm", run_bmm},
    {"attention", run_attention},
    {"std_math", run_std_math},
    {"std_gelu", run_std_gelu},
    {"std_random", run_std_random},
    {"std_grid", run_std_grid},
    {"builtin_math", run_builtin_math},
    {"libdevice_math", run_libdevice_math},
    {"user", run_user},
    {"mlp", run_mlp},
    {"dot_f16acc", run_dot_f16acc},
};

static Runner find_runner(const char *name) {
    for (size_t i = 0; i < sizeof runners / sizeof *runners; i++)
        if (!strcmp(runners[i].name, name))
            return runners[i].fn;
    return NULL;
}

static int parse_size(const char *s, long *dims) {
    int n = 0;
    char *end;
    for (;;) {
        if (n == 4 || !isdigit((unsigned char)*s))
            return -1;
        dims[n++] = strtol(s, &end, 10);
        if (*end == '\0')
            return n;
        if (*end != 'x')
            return -1;
        s = end + 1;
    }
}

/* Copies a value into a fixed field; 0, or -1 when it does not fit. */
static int copy_word(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap)
        return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

/* Reads the case file into c and the defines into h. Returns 0 or -1. */
static int parse_case(const char *path, Case *c, Harness *h) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    memset(c, 0, sizeof *c);
    c->path = path;
    c->dtype = DT_F32;
    char line[512];
    int lineno = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char key[32], val[400];
        int got = sscanf(line, "%31s %399s", key, val);
        if (got <= 0)
            continue;
        if (got != 2) {
            fprintf(stderr, "%s:%d: error: expected 'keyword value'\n", path,
                    lineno);
            bad = 1;
        } else if (!strcmp(key, "example") || !strcmp(key, "file") ||
                   !strcmp(key, "kernel")) {
            int err = key[0] == 'e' ? copy_word(c->example, sizeof c->example, val)
                    : key[0] == 'f' ? copy_word(c->file, sizeof c->file, val)
                                    : copy_word(c->kernel, sizeof c->kernel, val);
            if (err) {
                fprintf(stderr, "%s:%d: error: '%s' is too long\n", path,
                        lineno, val);
                bad = 1;
            }
        } else if (!strcmp(key, "define") && h->ndefines < 16) {
            h->defines[h->ndefines++] = strdup(val);
            if (!strncmp(val, "T=", 2) && (int)dt_parse(val + 2) < 0) {
                fprintf(stderr, "%s:%d: error: unknown type '%s'\n", path,
                        lineno, val + 2);
                bad = 1;
            } else if (!strncmp(val, "T=", 2)) {
                c->dtype = dt_parse(val + 2);
            }
        } else if (!strcmp(key, "config") && c->nconfigs < MAX_ITEMS) {
            c->configs[c->nconfigs++] = strcmp(val, "auto") ? strdup(val)
                                                            : NULL;
        } else if (!strcmp(key, "size") && c->nsizes < MAX_ITEMS) {
            int n = parse_size(val, c->dims[c->nsizes]);
            if (n < 0) {
                fprintf(stderr, "%s:%d: error: bad size '%s'\n", path, lineno,
                        val);
                bad = 1;
            } else {
                c->ndims[c->nsizes++] = n;
            }
        } else {
            fprintf(stderr, "%s:%d: error: unknown keyword '%s'\n", path,
                    lineno, key);
            bad = 1;
        }
    }
    fclose(f);
    if (!c->example[0] || !c->nsizes) {
        fprintf(stderr, "%s: error: a case needs 'example' and 'size'\n", path);
        bad = 1;
    }
    if (!c->nconfigs)
        c->nconfigs = 1;               /* configs[0] is NULL: automatic */
    if (!c->file[0])
        snprintf(c->file, sizeof c->file, "examples/%s.tile", c->example);
    return bad ? -1 : 0;
}

static uint64_t pick_seed(void) {
    const char *env = getenv("TILE_NUMERICS_SEED");
    if (env && *env)
        return strtoull(env, NULL, 0);
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&s, sizeof s, 1, f) != 1)
        s = (uint64_t)time(NULL);
    if (f)
        fclose(f);
    return s & 0xffffffffffffull;      /* short enough to copy by hand */
}

int same_across_configs(Run *r, int slot, const char *what, const HBuf *b) {
    if (r->config_index == 0) {
        HBuf copy = hb_new(b->dt, b->n);
        memcpy(copy.data, b->data, (size_t)b->n * dt_size(b->dt));
        r->saved[slot] = copy;
        if (slot >= r->nsaved)
            r->nsaved = slot + 1;
        return 0;
    }
    return check_identical(what, &r->saved[slot], b);
}

double f32_sum_rtol(long n) {
    return 2e-6 + 10 * 0x1p-24 * sqrt((double)n);
}

static void print_size(const long *d, int n) {
    for (int i = 0; i < n; i++)
        printf("%s%ld", i ? "x" : "", d[i]);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASE.num\n", argv[0]);
        return 2;
    }
    Harness h = {TILE_SRCDIR, pick_seed(), {0}, 0};
    Case c;
    if (parse_case(argv[1], &c, &h))
        return 99;
    Runner fn = find_runner(c.example);
    if (!fn) {
        fprintf(stderr, "%s: error: no runner for example '%s'\n", argv[1],
                c.example);
        return 99;
    }
    printf("%s: %s, seed %llu (TILE_NUMERICS_SEED=%llu replays it)\n",
           argv[1], c.file, (unsigned long long)h.seed,
           (unsigned long long)h.seed);
    TileProgram *prog = h_compile(&h, c.file);
    if (!prog)
        return 99;
    int fails = 0;
    for (int s = 0; s < c.nsizes; s++) {
        Run run = {0};
        for (int k = 0; k < c.nconfigs; k++) {
            run.h = &h;
            run.prog = prog;
            run.c = &c;
            run.config = c.configs[k];
            run.config_index = k;
            run.dims = c.dims[s];
            run.ndims = c.ndims[s];
            run.rng.s = h.seed * 0x100000001B3ull + (uint64_t)s;
            printf("%s%s%s ", c.example, c.kernel[0] ? "." : "", c.kernel);
            print_size(c.dims[s], c.ndims[s]);
            printf(" %s [%s]\n", dt_name(c.dtype),
                   run.config ? run.config : "automatic configuration");
            fflush(stdout);
            int f = fn(&run);
            fflush(stdout);
            fails += f;
        }
        for (int i = 0; i < run.nsaved; i++)
            hb_free(&run.saved[i]);
    }
    tile_program_free(prog);
    for (int i = 0; i < h.ndefines; i++)
        free((char *)h.defines[i]);
    for (int i = 0; i < c.nconfigs; i++)
        free(c.configs[i]);
    printf("%s: %s (seed %llu)\n", argv[1], fails ? "FAIL" : "PASS",
           (unsigned long long)h.seed);
    return fails ? 1 : 0;
}
