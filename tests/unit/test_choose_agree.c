/* test_choose_agree.c — the interpreter and libtile choose configurations
 * through one chooser (bundle/choose.c), so for the same selection and
 * the same arguments they must pick the same configuration, or fail with
 * the same message. Inputs/choose.tile is compiled twice: by
 * tile_compile_file for the interpreter, whose run stores the BLOCK and
 * SPLIT it ran with, and by tilec into a bundle that libtile loads and
 * plans launches of (tile_kernel_select, then the launch plan: no GPU).
 * The expected messages are spelled out: a failed @require names each
 * configuration's failed condition (the failing conjunct, BLOCK folded
 * in) and the integer arguments; a division by zero is an error in both. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/tile_interp.h"
#include "runtime/rt.h"
#include "tests/unit/check.h"

#define INPUT TILE_SRCDIR "/tests/unit/Inputs/choose.tile"
#define CFG(B, S) "BLOCK=" #B ",SPLIT=" #S ",T=f32,warps=4,stages=3"

typedef struct Case {
    const char *spec;    /* NULL: no selection */
    int64_t n, m;
    int config;          /* the expected configuration, or -1 */
    const char *error;   /* when config is -1: the message of both */
} Case;

static const Case cases[] = {
    {NULL, 512, 1, 0, NULL},
    {"", 512, 1, 0, NULL},
    {"SPLIT=true", 512, 1, 1, NULL},
    {"BLOCK=256", 512, 1, 4, NULL},
    {" BLOCK = 128 , SPLIT = 1 ", 256, 1, 3, NULL},
    {"T=f32,warps=4,stages=3", 1024, 2, 0, NULL},
    {"BLOCK=128", 4096, 4, 2, NULL},
    {NULL, 100, 1, -1,
     "kernel 'pick': no configuration's @require holds for these arguments (n=100, m=1; "
     "6 configurations): " CFG(64, false) " and 1 more need n % 64 == 0; "
     CFG(128, false) " and 1 more need n % 128 == 0; " CFG(256, false)
     " and 1 more need n % 256 == 0"},
    {"BLOCK=256", 256, 1, -1,
     "kernel 'pick': no configuration matching 'BLOCK=256' has its @require hold for "
     "these arguments (n=256, m=1; 2 of 6 configurations selected): " CFG(256, false)
     " and 1 more need n >= 512"},
    {NULL, 512, 1000, -1,
     "kernel 'pick': no configuration's @require holds for these arguments (n=512, "
     "m=1000; 6 configurations): " CFG(64, false) " and 5 more need n / m >= 1"},
    {NULL, 512, 0, -1,
     "kernel 'pick': division by zero in @require of configuration 0 (" CFG(64, false)
     "), in n / m >= 1, for these arguments (n=512, m=0)"},
    {"BLOCK=100", 512, 1, -1,
     "kernel 'pick' has no configuration 'BLOCK=100'; available: " CFG(64, false) "; "
     CFG(64, true) "; " CFG(128, false) "; " CFG(128, true) "; " CFG(256, false) "; "
     CFG(256, true)},
    {"T=f16", 512, 1, -1,
     "kernel 'pick' has no configuration 'T=f16'; available: " CFG(64, false) "; "
     CFG(64, true) "; " CFG(128, false) "; " CFG(128, true) "; " CFG(256, false) "; "
     CFG(256, true)},
    {"NOPE=1", 512, 1, -1,
     "kernel 'pick': no compile-time parameter 'NOPE' (configurations set BLOCK, SPLIT, "
     "T, warps, stages)"},
    {"BLOCK", 512, 1, -1,
     "kernel 'pick': invalid configuration 'BLOCK' (expected NAME=VALUE,...)"},
};

static TileBundle *compile_bundle(void) {
    char path[] = "/tmp/tile-choose-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "TILE_STDLIB=%s/stdlib %s/tilec --emit=bundle -o %s %s",
             TILE_SRCDIR, TILE_BUILDDIR, path, INPUT);
    CHECK(system(cmd) == 0);
    TileBundle *b = NULL;
    if (tile_bundle_load(path, &b) != TILE_OK) fprintf(stderr, "%s\n", tile_last_error());
    unlink(path);
    return b;
}

/* libtile's choice: the configuration, or -1 with *msg its error. */
static int libtile_choice(TileKernel *k, const Case *c, const char **msg) {
    int sel = 0;
    if (c->spec && tile_kernel_select(k, c->spec, &sel) != TILE_OK) {
        *msg = tile_last_error();
        return -1;
    }
    TileLaunchArg a[3] = {tile_ptr(0x10000), tile_int(c->n), tile_int(c->m)};
    RtPlan p;
    TileStatus s = rt_plan_select(k, sel, NULL, a, 3, &p);
    *msg = tile_last_error();
    CHECK(s == TILE_OK || s == TILE_ERROR_NO_CONFIG);
    return s ? -1 : (int)(p.config - k->configs);
}

/* The interpreter's choice, as BLOCK * 10 + SPLIT, or -1 with *msg (to
 * free) its error. */
static int interp_choice(TileProgram *p, const Case *c, char **msg) {
    int32_t out = -1;
    TileArg a[3] = {tile_arg_buffer(&out, sizeof out), tile_arg_int(c->n),
                    tile_arg_int(c->m)};
    TileRunOptions o = {.config = c->spec};
    *msg = NULL;
    return tile_interp_run(p, "pick", a, 3, &o, msg) ? -1 : out;
}

static void check_case(TileProgram *p, TileKernel *k, const Case *c) {
    const char *lmsg;
    char *imsg;
    int lc = libtile_choice(k, c, &lmsg);
    int iv = interp_choice(p, c, &imsg);
    CHECK(lc == c->config);
    if (c->config >= 0 && lc == c->config) {
        const int64_t *v = k->k->configs[lc].cvalues;
        CHECK(iv == (int)(v[0] * 10 + v[1]));
    } else if (c->config < 0) {
        CHECK(iv == -1);
        CHECK_STR(lmsg, c->error);
        CHECK_STR(imsg, c->error);
    }
    if (lc != c->config || (c->config >= 0 && iv < 0))
        fprintf(stderr, "case '%s' n=%lld m=%lld: libtile %d (%s), interpreter %d (%s)\n",
                c->spec ? c->spec : "(none)", (long long)c->n, (long long)c->m, lc, lmsg,
                iv, imsg ? imsg : "");
    free(imsg);
}

int main(void) {
    setenv("TILE_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    setenv("TILE_STDLIB", TILE_SRCDIR "/stdlib", 1);
    char *diags = NULL;
    TileProgram *p = tile_compile_file(INPUT, NULL, &diags);
    if (!p) fprintf(stderr, "%s", diags ? diags : "");
    free(diags);
    TileBundle *b = compile_bundle();
    TileKernel *k = NULL;
    CHECK(p && b && tile_kernel_get(b, "pick", &k) == TILE_OK);
    if (p && k) {
        CHECK(tile_kernel_nconfigs(k) == 6);
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check_case(p, k, &cases[i]);
    }
    tile_bundle_free(b);
    tile_program_free(p);
    return check_done("test_choose_agree");
}
