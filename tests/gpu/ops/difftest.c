/*
 * difftest.c — differential test of the GPU back end against the reference
 * interpreter: every kernel of the .tile files in tests/gpu/ops runs on
 * the same random inputs through libtilec (interpreter) and through the bundle
 * tilec built for it, loaded and launched with libtile; every buffer is
 * then compared, integers bit for bit, floats as the case's tolerance says.
 *
 *   difftest [-v|-q] [-s SEED] [-k NAME] [-x SIMDIR [-r]] BUNDLE_DIR FILE.tile...
 *
 * FILE.tile's bundle is BUNDLE_DIR/FILE.tlb (scripts/gpu-ops-check.sh
 * prepare builds them). The cases are comment lines of the .tile file:
 *
 *   // diff: KERNEL key=value ...
 *
 * one line per case (a kernel may have several), keys:
 *   NAME=V          a scalar runtime parameter (integer or float)
 *   grid=X[,Y[,Z]]  the grid, for kernels without a grid clause
 *   len=N           elements of every buffer (len.BUF=N for one buffer)
 *   range=LO,HI     input values (range.BUF= for one): integers uniform in
 *                   [LO, HI], floats in [LO, HI) (f8: codes whose value
 *                   lies there, uniform over codes); default: any bits
 *                   for integers and f8, [-4, 4) for floats, 0/1 for bool
 *   special=1       floats: about one element in 8 is NaN, +-inf, +-0, a
 *                   subnormal or huge (special.BUF=1 for one buffer);
 *                   special=finite: the same but never +-1e30, which
 *                   absorb small addends, so that a sum's value depends on
 *                   the order of its terms by far more than rounding
 *   step=Q          floats: each value rounded to a multiple of Q
 *                   (step.BUF= for one buffer), so that sums of products
 *                   of them are exact in f32 and a rounding rule on top
 *                   of them can be checked exactly; f8 with range=: only
 *                   codes whose value is a multiple of Q (FP8 tensor
 *                   cores accumulate with fewer bits than f32: sums of
 *                   few distinct values stay exact there)
 *   init=poison|zero|rand  (init.BUF=): a buffer's initial contents.
 *                   Default: poison (a random byte repeated) for parameters
 *                   named out*, random inputs otherwise
 *   rtol=R atol=A ulp=U  (and .BUF): float tolerance |gpu - ref| <=
 *                   atol + rtol |ref|, or <= U units in the last place of
 *                   ref in the buffer's type; default exact (NaN matches
 *                   NaN, -0 matches +0). Integer buffers: exact, or
 *                   |gpu - ref| <= atol where atol is given
 *   config=SPEC     run the configurations that agree with SPEC
 *                   ("BLOCK=64,warps=2", tile_kernel_select's form): the
 *                   interpreter its first, the GPU or simulation the
 *                   first whose @require holds (default: every one, the
 *                   interpreter's first and libtile's choice)
 *   modes=au        run aligned (a: buffers 16-byte aligned; the a16
 *                   variant when integer parameters are multiples of 16)
 *                   and/or unaligned (u: every buffer one element off, so
 *                   the generic variant); default both
 *
 * Without a GPU, `-x SIMDIR` runs the kernels on simulated warps instead:
 * SIMDIR/FILE.so is FILE.tile's lowered LLVM IR rebuilt for the host
 * (tests/gpu/ops/check.sh builds it with tests/gpu/ops/sim/x86.py,
 * llc and warpsim.c: one pthread per GPU thread, shuffles and barriers
 * as the PTX ISA defines them). libtile's own planning picks the variant
 * and the grid from the host buffers' alignment, exactly as for a launch;
 * kernels the simulation leaves out (libdevice's inline PTX, tensor-core
 * forms warpsim.c does not model) run on the interpreter only — or, with
 * -r, fail (check.sh requires every tensor-core case to be simulated).
 *
 * Inputs come from the seed (-s; default the time, printed) and the
 * file's base name, so that `-s SEED` replays one file's run alone.
 * Every buffer starts with the same contents on both sides, and on the GPU
 * carries a guard zone of 64 poisoned elements after its end that must
 * stay poisoned. One line per case and mode (-q: failures only), then a
 * summary. Exit status:
 * 0 all passed; 1 a failure; 77 no GPU and no -x (after running every
 * case on the interpreter, which checks the test files themselves).
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/tile_interp.h"
#include "runtime/rt.h"

enum { GUARD = 64, MAXPARAMS = 32, MAXKEYS = 64, MAXREPORT = 6 };

/* ------------------------------------------------------------- types */

typedef struct Ty {
    const char *name;
    int bytes, isfloat, issigned, isbool;
} Ty;

static const Ty types[] = {
    {"bool", 1, 0, 0, 1}, {"i8", 1, 0, 1, 0},  {"i16", 2, 0, 1, 0},
    {"i32", 4, 0, 1, 0},  {"i64", 8, 0, 1, 0}, {"u8", 1, 0, 0, 0},
    {"u16", 2, 0, 0, 0},  {"u32", 4, 0, 0, 0}, {"u64", 8, 0, 0, 0},
    {"f16", 2, 1, 1, 0},  {"bf16", 2, 1, 1, 0}, {"f32", 4, 1, 1, 0},
    {"f64", 8, 1, 1, 0},  {"f8e4m3", 1, 1, 1, 0}, {"f8e5m2", 1, 1, 1, 0},
};

static const Ty *type_of(const char *name) {
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (strcmp(types[i].name, name) == 0) return &types[i];
    return NULL;
}

static double f16_value(uint16_t h) {
    int e = h >> 10 & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                                : ldexp(m + 1024, e - 25);
    return h >> 15 ? -v : v;
}

static double bf16_value(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* FP8 code b (OCP's formats, from their definition: e4m3 "fn" has no
 * infinities and S.1111.111 for NaN; e5m2 is IEEE-like). */
static double f8_value(const Ty *t, uint8_t b) {
    int e4 = strcmp(t->name, "f8e4m3") == 0, mb = e4 ? 3 : 2, bias = e4 ? 7 : 15;
    int e = (b & 0x7f) >> mb, m = b & ((1 << mb) - 1), top = e4 ? 15 : 31;
    double v = e4 && e == top && m == (1 << mb) - 1 ? NAN
             : !e4 && e == top                      ? (m ? NAN : INFINITY)
             : e == 0 ? ldexp(m, 1 - bias - mb)
                      : ldexp(m + (1 << mb), e - bias - mb);
    return b >> 7 ? -v : v;
}

/* Element i of a buffer of type t as a double (floats) */
static double get_float(const Ty *t, const unsigned char *p, size_t i) {
    if (t->bytes == 8) { double d; memcpy(&d, p + 8 * i, 8); return d; }
    if (t->bytes == 4) { float f; memcpy(&f, p + 4 * i, 4); return f; }
    if (t->bytes == 1) return f8_value(t, p[i]);
    uint16_t h;
    memcpy(&h, p + 2 * i, 2);
    return strcmp(t->name, "f16") == 0 ? f16_value(h) : bf16_value(h);
}

static void put_float(const Ty *t, unsigned char *p, size_t i, double v) {
    if (t->bytes == 8) { memcpy(p + 8 * i, &v, 8); return; }
    if (t->bytes == 4) { float f = (float)v; memcpy(p + 4 * i, &f, 4); return; }
    uint16_t h = strcmp(t->name, "f16") == 0 ? rt_f16_bits(v) : rt_bf16_bits(v);
    memcpy(p + 2 * i, &h, 2);
}

/* Element i as a sign- or zero-extended integer. */
static int64_t get_int(const Ty *t, const unsigned char *p, size_t i) {
    uint64_t u = 0;
    memcpy(&u, p + (size_t)t->bytes * i, (size_t)t->bytes);   /* little endian */
    int bits = 8 * t->bytes;
    if (t->issigned && bits < 64 && (u >> (bits - 1) & 1)) u |= ~0ull << bits;
    return (int64_t)u;
}

static void put_int(const Ty *t, unsigned char *p, size_t i, uint64_t v) {
    memcpy(p + (size_t)t->bytes * i, &v, (size_t)t->bytes);
}

/* One unit in the last place of |v| in type t. */
static double ulp_of(const Ty *t, double v) {
    v = fabs(v);
    if (!isfinite(v)) return 0;
    int mant = t->bytes == 8 ? 52 : t->bytes == 4 ? 23
                                  : strcmp(t->name, "f16") == 0 ? 10 : 7;
    int emin = t->bytes == 8 ? -1022 : t->bytes == 4 ? -126
                                     : strcmp(t->name, "f16") == 0 ? -14 : -126;
    int e = v == 0 ? emin : ilogb(v);
    if (e < emin) e = emin;
    return ldexp(1.0, e - mant);
}

/* ------------------------------------------------------------- random */

static uint64_t rng;

static uint64_t next_u64(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double next_unit(void) { return (double)(next_u64() >> 11) / 9007199254740992.0; }

/* ------------------------------------------------------------- cases */

typedef struct Case {
    const char *file;
    char kernel[128];
    int index;                      /* of the kernel's cases */
    int nkeys;
    char *key[MAXKEYS], *val[MAXKEYS];
} Case;

/* The value of key `k` for buffer `buf` (k.buf first, then k), or NULL. */
static const char *case_get(const Case *c, const char *k, const char *buf) {
    char full[160];
    if (buf) {
        snprintf(full, sizeof full, "%s.%s", k, buf);
        for (int i = 0; i < c->nkeys; i++)
            if (strcmp(c->key[i], full) == 0) return c->val[i];
    }
    for (int i = 0; i < c->nkeys; i++)
        if (strcmp(c->key[i], k) == 0) return c->val[i];
    return NULL;
}

static double case_num(const Case *c, const char *k, const char *buf, double dflt) {
    const char *v = case_get(c, k, buf);
    return v ? strtod(v, NULL) : dflt;
}

/* Reads every `// diff:` line of path. */
static int read_cases(const char *path, Case **out) {
    FILE *fp = fopen(path, "r");
    if (!fp) {
        perror(path);
        return -1;
    }
    char line[2048];
    int n = 0, cap = 0;
    Case *cs = NULL;
    while (fgets(line, sizeof line, fp)) {
        char *p = strstr(line, "// diff:");
        if (!p || p != line) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            cs = realloc(cs, sizeof *cs * (size_t)cap);
        }
        Case *c = &cs[n];
        memset(c, 0, sizeof *c);
        c->file = path;
        char *save, *tok = strtok_r(p + 8, " \t\r\n", &save);
        if (!tok) continue;
        snprintf(c->kernel, sizeof c->kernel, "%s", tok);
        for (int i = 0; i < n; i++)
            if (strcmp(cs[i].kernel, c->kernel) == 0) c->index++;
        while ((tok = strtok_r(NULL, " \t\r\n", &save)) && c->nkeys < MAXKEYS) {
            char *eq = strchr(tok, '=');
            if (!eq) {
                fprintf(stderr, "%s: case of %s: '%s' is not key=value\n", path,
                        c->kernel, tok);
                fclose(fp);
                return -1;
            }
            *eq = 0;
            c->key[c->nkeys] = strdup(tok);
            c->val[c->nkeys++] = strdup(eq + 1);
        }
        n++;
    }
    fclose(fp);
    *out = cs;
    return n;
}

/* ------------------------------------------------------------- buffers */

typedef struct Param {
    const char *name;
    const Ty *ty;                   /* element type (pointee for buffers) */
    int isbuf;
    size_t len;
    unsigned char *init, *ref, *gpu;   /* len (+ GUARD for gpu) elements */
    CUdeviceptr dev;                /* allocation */
    unsigned char *sim;             /* the simulation's "device" buffer */
    double rtol, atol, ulp;
    int64_t ival;
    double fval;
} Param;

/* A range bound as an integer: ranges written for float parameters
 * (e.g. -1e19,1e19) also reach integer ones, and converting a double
 * outside int64_t's range is undefined behaviour in C. */
static int64_t clamp_i64(double v) {
    if (!(v > -9.2233720368547758e18)) return INT64_MIN;
    if (!(v < 9.2233720368547758e18)) return INT64_MAX;
    return (int64_t)v;
}

static void fill(const Case *c, Param *p, unsigned char poison) {
    const Ty *t = p->ty;
    const char *init = case_get(c, "init", p->name);
    if (!init) init = strncmp(p->name, "out", 3) == 0 ? "poison" : "rand";
    size_t bytes = p->len * (size_t)t->bytes;
    if (strcmp(init, "poison") == 0) {
        memset(p->init, poison, bytes);
        return;
    }
    if (strcmp(init, "zero") == 0) {
        memset(p->init, 0, bytes);
        return;
    }
    const char *range = case_get(c, "range", p->name);
    double lo = t->isfloat ? -4 : 0, hi = t->isfloat ? 4 : 0;
    int ranged = range && sscanf(range, "%lf,%lf", &lo, &hi) == 2;
    const char *sp = case_get(c, "special", p->name);
    int special = sp && strcmp(sp, "0") != 0;
    /* the huge values (+-1e30) come last: special=finite leaves them out */
    static const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0,
                                      1e-40, -3e-39, 6e-8, 65504, 2.5, -2.5,
                                      0.5, -0.5, 1.5, 1e30, -1e30};
    size_t nspecial = sizeof specials / sizeof *specials;
    if (special && strcmp(sp, "finite") == 0) nspecial -= 2;
    const char *st = case_get(c, "step", p->name);
    double step = st ? strtod(st, NULL) : 0;
    for (size_t i = 0; i < p->len; i++) {
        if (t->isbool)
            put_int(t, p->init, i, next_u64() >> 63);
        else if (t->isfloat && t->bytes == 1 && ranged) {   /* f8: codes in range */
            uint8_t b;
            int tries = 0;
            do b = (uint8_t)next_u64();
            while (!(f8_value(t, b) >= lo && f8_value(t, b) < hi &&
                     (step <= 0 || fmod(f8_value(t, b), step) == 0)) && ++tries < 100000);
            put_int(t, p->init, i, b);
        } else if (t->isfloat && t->bytes == 1)     /* f8: every code */
            put_int(t, p->init, i, next_u64());
        else if (t->isfloat) {
            double v = lo + (hi - lo) * next_unit();
            if (step > 0) v = floor(v / step) * step;
            if (special && next_u64() % 8 == 0)
                v = specials[next_u64() % nspecial];
            put_float(t, p->init, i, v);
        } else if (ranged) {
            int64_t a = clamp_i64(lo), b = clamp_i64(hi);
            uint64_t span = (uint64_t)b - (uint64_t)a + 1;  /* 0: all 2^64 */
            put_int(t, p->init, i, (uint64_t)a + (span ? next_u64() % span : next_u64()));
        } else {
            put_int(t, p->init, i, next_u64());
        }
    }
}

static const char *describe(const Ty *t, const unsigned char *p, size_t i, char *buf) {
    if (t->isfloat)
        snprintf(buf, 64, "%.9g", get_float(t, p, i));
    else
        snprintf(buf, 64, "%lld", (long long)get_int(t, p, i));
    return buf;
}

/* Compares element i; 1 when they match. */
static int same(const Param *p, const unsigned char *g, const unsigned char *r, size_t i) {
    const Ty *t = p->ty;
    if (!t->isfloat) {
        long long a = get_int(t, g, i), b = get_int(t, r, i);
        return a == b || (p->atol > 0 && fabs((double)a - (double)b) <= p->atol);
    }
    double a = get_float(t, g, i), b = get_float(t, r, i);
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    if (a == b) return 1;
    if (isinf(a) || isinf(b)) return 0;
    double d = fabs(a - b);
    if (p->rtol > 0 || p->atol > 0)
        if (d <= p->atol + p->rtol * fabs(b)) return 1;
    if (p->ulp > 0 && d <= p->ulp * ulp_of(t, b)) return 1;
    return 0;
}

/* ------------------------------------------------------------- running */

static const RtDriver *drv;
static void *simlib;                /* -x: the current file's simulation */

typedef void (*SimRun)(void (*)(const uint64_t *), const uint64_t *, int,
                       const uint32_t[3]);

typedef void (*SimTmapEncode)(void *, uint64_t, int, const uint64_t *, const uint64_t *,
                              const uint32_t *, int, int);

/* Programs a persistent entry (TlbVariant.flags) is launched with on
 * simulated warps at most (rt_persistent_grid: a 1-D grid, as libtile
 * launches it): few, so that each walks several of the grid's programs. */
#define SIM_PERSISTENT_PROGRAMS 3u

/* Runs plan's entry on simulated warps: its tensor maps (TMA) encoded
 * in the simulation's own layout (warpsim.c, ws_tmap_encode) from the
 * fields libtile evaluated, each map's address in the slot after the
 * parameters, as a GPU launch passes the maps themselves; a persistent
 * entry on SIM_PERSISTENT_PROGRAMS programs at most. Returns NULL, or why
 * it could not run. */
static const char *sim_launch(const TileKernel *k, const RtPlan *plan, uint32_t nparams,
                              void (*entry)(const uint64_t *), SimRun run) {
    uint64_t slots[RT_MAX_PARAMS + TLB_MAX_TMAPS];
    static _Alignas(64) unsigned char maps[TLB_MAX_TMAPS][128];
    const TlbVariant *v = plan->variant->v;
    memcpy(slots, plan->slots, sizeof plan->slots);
    SimTmapEncode enc = plan->ntmaps ? (SimTmapEncode)dlsym(simlib, "ws_tmap_encode") : NULL;
    if (plan->ntmaps && !enc) return "the simulation cannot encode its tensor maps";
    for (uint32_t t = 0; t < plan->ntmaps; t++) {
        const TlbTmap *m = &v->tmaps[t];
        uint32_t box[TLB_TMAP_MAXRANK];
        for (uint32_t d = 0; d < m->rank; d++) box[d] = m->box[d];
        enc(maps[t], plan->tmap[t].base, m->rank, plan->tmap[t].dim, plan->tmap[t].stride, box,
            tlb_type_bytes((TlbType)m->elem), m->swizzle);
        slots[nparams + t] = (uint64_t)(uintptr_t)maps[t];
    }
    uint32_t grid[3] = {plan->grid[0], plan->grid[1], plan->grid[2]};
    if (rt_persistent_grid(k, plan, SIM_PERSISTENT_PROGRAMS, grid)) return tile_last_error();
    run(entry, slots, (int)plan->variant->threads, grid);
    return NULL;
}

static int verbose, quiet, require_sim;
static int npass, nfail, nskip;

#define CU(call)                                                              \
    do {                                                                      \
        CUresult r_ = (call);                                                 \
        if (r_ != CUDA_SUCCESS) {                                             \
            char b_[160];                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
                    rt_cuda_error(drv, r_, b_, sizeof b_));                   \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

static int parse_grid(const char *s, unsigned g[3]) {
    g[0] = g[1] = g[2] = 1;
    return s ? sscanf(s, "%u,%u,%u", &g[0], &g[1], &g[2]) >= 1 : 0;
}

/* Runs case c in mode 'a' or 'u'. Returns 0 pass, 1 fail, -1 run on the
 * interpreter only. */
static int run_case(TileProgram *prog, TileKernel *k, const Case *c, char mode) {
    int np = tile_kernel_nparams(k);
    Param ps[MAXPARAMS];
    memset(ps, 0, sizeof ps);
    char what[256];
    snprintf(what, sizeof what, "%s %s#%d %c", c->file, c->kernel, c->index, mode);
    const char *slash = strrchr(c->file, '/');
    if (slash) snprintf(what, sizeof what, "%s %s#%d %c", slash + 1, c->kernel, c->index, mode);
    if (np > MAXPARAMS) {
        printf("FAIL %s: too many parameters\n", what);
        return 1;
    }
    unsigned char poison = (unsigned char)(next_u64() | 1);
    size_t dflt_len = (size_t)case_num(c, "len", NULL, 1024);
    TileArg iargs[MAXPARAMS];
    TileLaunchArg gargs[MAXPARAMS];
    for (int i = 0; i < np; i++) {
        Param *p = &ps[i];
        const char *type;
        tile_kernel_param(k, i, &p->name, &type);
        p->isbuf = type[0] == '*';
        p->ty = type_of(type + p->isbuf);
        if (!p->ty) {
            printf("FAIL %s: parameter type %s not handled\n", what, type);
            return 1;
        }
        if (!p->isbuf) {
            const char *v = case_get(c, p->name, NULL);
            if (!v) {
                printf("FAIL %s: no value for parameter '%s'\n", what, p->name);
                return 1;
            }
            p->ival = strtoll(v, NULL, 0);
            p->fval = strtod(v, NULL);
            iargs[i] = p->ty->isfloat ? tile_arg_float(p->fval) : tile_arg_int(p->ival);
            gargs[i] = p->ty->isfloat ? tile_float(p->fval) : tile_int(p->ival);
            continue;
        }
        p->len = (size_t)case_num(c, "len", p->name, (double)dflt_len);
        size_t eb = (size_t)p->ty->bytes, bytes = (p->len + GUARD) * eb + 16;
        p->init = malloc(bytes);
        p->ref = malloc(bytes);
        p->gpu = malloc(bytes);
        p->rtol = case_num(c, "rtol", p->name, 0);
        p->atol = case_num(c, "atol", p->name, 0);
        p->ulp = case_num(c, "ulp", p->name, 0);
        fill(c, p, poison);
        memset(p->init + p->len * eb, poison, GUARD * eb);
        memcpy(p->ref, p->init, p->len * eb);
        iargs[i] = tile_arg_buffer(p->ref, p->len * eb);
        if (drv) {
            CU(drv->mem_alloc(&p->dev, bytes));
            size_t off = mode == 'u' ? eb : 0;
            CU(drv->memcpy_htod(p->dev + off, p->init, (p->len + GUARD) * eb));
            gargs[i] = tile_ptr(p->dev + off);
        } else if (simlib) {
            size_t off = mode == 'u' ? eb : 0;
            p->sim = aligned_alloc(16, (bytes + 15) & ~(size_t)15);
            memcpy(p->sim + off, p->init, (p->len + GUARD) * eb);
            gargs[i] = tile_ptr((CUdeviceptr)(uintptr_t)(p->sim + off));
        }
    }
    char *err = NULL;
    int failed = 0;
    unsigned grid[3] = {0, 0, 0};
    int explicit_grid = parse_grid(case_get(c, "grid", NULL), grid);
    TileRunOptions ro = {.config = case_get(c, "config", NULL)};
    if (explicit_grid) memcpy(ro.grid, grid, sizeof grid);
    int selection = 0;
    if (ro.config && tile_kernel_select(k, ro.config, &selection) != TILE_OK) {
        printf("FAIL %s: config=%s: %s\n", what, ro.config, tile_last_error());
        failed = 1;
        goto done;
    }
    if (tile_interp_run(prog, c->kernel, iargs, np, &ro, &err) != 0) {
        printf("FAIL %s: interpreter: %s\n", what, err ? err : "?");
        free(err);
        failed = 1;
        goto done;
    }
    if (!drv && !simlib) {
        if (verbose) printf("skip %s (interpreter ran; no GPU)\n", what);
        failed = -1;
        goto done;
    }
    RtPlan plan;
    uint32_t g32[3] = {grid[0], grid[1], grid[2]};
    TileStatus s = rt_plan_select(k, selection, explicit_grid ? g32 : NULL, gargs, np, &plan);
    if (simlib && s == TILE_OK) {
        char sym[300];
        snprintf(sym, sizeof sym, "%s__sim", plan.variant->v->entry);
        void (*entry)(const uint64_t *) = (void (*)(const uint64_t *))dlsym(simlib, sym);
        SimRun run = (SimRun)dlsym(simlib, "ws_run");
        if (!entry || !run) {
            if (require_sim) printf("FAIL %s: %s not simulated\n", what, sym);
            else if (verbose) printf("skip %s (interpreter ran; %s not simulated)\n", what, sym);
            failed = require_sim ? 1 : -1;
            goto done;
        }
        const char *why = plan.empty ? NULL : sim_launch(k, &plan, k->k->nparams, entry, run);
        if (why) {
            printf("FAIL %s: %s: %s\n", what, sym, why);
            failed = 1;
            goto done;
        }
    } else if (s == TILE_OK)
        s = selection ? tile_launch_select(k, selection, explicit_grid ? g32 : NULL, gargs,
                                           np, NULL, NULL)
            : explicit_grid ? tile_launch_grid(k, g32, gargs, np, NULL)
                            : tile_launch(k, gargs, np, NULL);
    if (s == TILE_OK && drv) {
        CUresult r = drv->ctx_synchronize();
        if (r != CUDA_SUCCESS) {
            char b[160];
            printf("FAIL %s: kernel failed: %s\n", what, rt_cuda_error(drv, r, b, sizeof b));
            exit(1);   /* the context is gone: nothing else can run */
        }
    } else if (s != TILE_OK) {
        printf("FAIL %s: launch: %s: %s\n", what, tile_status_name(s), tile_last_error());
        failed = 1;
        goto done;
    }
    int reported = 0;
    size_t nbad = 0;
    for (int i = 0; i < np; i++) {
        Param *p = &ps[i];
        if (!p->isbuf) continue;
        size_t eb = (size_t)p->ty->bytes, off = mode == 'u' ? eb : 0;
        if (drv) CU(drv->memcpy_dtoh(p->gpu, p->dev + off, (p->len + GUARD) * eb));
        else memcpy(p->gpu, p->sim + off, (p->len + GUARD) * eb);
        for (size_t e = 0; e < p->len + GUARD; e++) {
            int ok = e < p->len ? same(p, p->gpu, p->ref, e)
                                : memcmp(p->gpu + e * eb, p->init + e * eb, eb) == 0;
            if (ok) continue;
            nbad++;
            if (reported++ < MAXREPORT) {
                char a[64], b[64];
                if (e < p->len)
                    fprintf(stderr, "  %s: %s[%zu]: gpu %s, interpreter %s (input %s)\n",
                            what, p->name, e, describe(p->ty, p->gpu, e, a),
                            describe(p->ty, p->ref, e, b),
                            describe(p->ty, p->init, e, (char[64]){0}));
                else
                    fprintf(stderr, "  %s: %s: guard element %zu written (%s)\n", what,
                            p->name, e - p->len, describe(p->ty, p->gpu, e, a));
            }
        }
    }
    failed = nbad != 0;
    if (quiet && !failed) goto done;
    printf("%s %s (%s%s, warps=%u)", failed ? "FAIL" : "ok  ", what,
           plan.variant->v->entry, drv ? "" : " simulated", plan.config->c->warps);
    if (failed) printf(": %zu element(s) differ", nbad);
    printf("\n");
done:
    for (int i = 0; i < np; i++) {
        if (!ps[i].isbuf) continue;
        if (drv && ps[i].dev) CU(drv->mem_free(ps[i].dev));
        free(ps[i].sim);
        free(ps[i].init);
        free(ps[i].ref);
        free(ps[i].gpu);
    }
    return failed;
}

static uint64_t base_seed;

static void run_file(const char *dir, const char *simdir, const char *path,
                     const char *filter) {
    /* Each file's inputs depend on the seed and the file's name only (not
     * on the files run before it): `-s SEED` replays one file alone. */
    const char *bn = strrchr(path, '/');
    uint64_t h = 1469598103934665603ull;
    for (const char *q = bn ? bn + 1 : path; *q; q++) h = (h ^ (unsigned char)*q) * 1099511628211ull;
    rng = (base_seed * 0x9e3779b97f4a7c15ull + 1) ^ h;
    if (!rng) rng = 1;
    Case *cs;
    int n = read_cases(path, &cs);
    if (n <= 0) {
        printf("FAIL %s: %s\n", path, n == 0 ? "no '// diff:' cases" : "unreadable");
        nfail++;
        return;
    }
    char *diag = NULL;
    TileProgram *prog = tile_compile_file(path, NULL, &diag);
    if (!prog) {
        printf("FAIL %s: does not compile:\n%s", path, diag ? diag : "");
        free(diag);
        nfail++;
        return;
    }
    free(diag);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char bpath[1024];
    snprintf(bpath, sizeof bpath, "%s/%.*s.tlb", dir, (int)(strlen(base) - 5), base);
    TileBundle *b = NULL;
    if (tile_bundle_load(bpath, &b) != TILE_OK) {
        printf("FAIL %s: %s\n", bpath, tile_last_error());
        nfail++;
        tile_program_free(prog);
        return;
    }
    if (simdir && !drv) {
        snprintf(bpath, sizeof bpath, "%s/%.*s.so", simdir, (int)(strlen(base) - 5), base);
        simlib = dlopen(bpath, RTLD_NOW | RTLD_LOCAL);
        if (!simlib) {
            printf("FAIL %s: %s\n", bpath, dlerror());
            nfail++;
            tile_bundle_free(b);
            tile_program_free(prog);
            return;
        }
    }
    for (int i = 0; i < n; i++) {
        Case *c = &cs[i];
        if (filter && !strstr(c->kernel, filter)) continue;
        TileKernel *k;
        if (tile_kernel_get(b, c->kernel, &k) != TILE_OK) {
            printf("FAIL %s: %s\n", path, tile_last_error());
            nfail++;
            continue;
        }
        const char *modes = case_get(c, "modes", NULL);
        if (!modes) modes = "au";
        for (const char *m = modes; *m; m++) {
            int f = run_case(prog, k, c, *m);
            if (f > 0) nfail++;
            else if (f < 0) nskip++;
            else npass++;
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < cs[i].nkeys; j++) free(cs[i].key[j]), free(cs[i].val[j]);
    free(cs);
    if (simlib) dlclose(simlib);
    simlib = NULL;
    tile_bundle_free(b);
    tile_program_free(prog);
}

int main(int argc, char **argv) {
    const char *filter = NULL, *simdir = NULL;
    uint64_t seed = (uint64_t)time(NULL);
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-v") == 0) verbose = 1;
        else if (strcmp(argv[i], "-q") == 0) quiet = 1;
        else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "-k") == 0 && i + 1 < argc) filter = argv[++i];
        else if (strcmp(argv[i], "-x") == 0 && i + 1 < argc) simdir = argv[++i];
        else if (strcmp(argv[i], "-r") == 0) require_sim = 1;
        else break;
    }
    if (argc - i < 2) {
        fprintf(stderr, "usage: %s [-v|-q] [-s SEED] [-k NAME] [-x SIMDIR [-r]] BUNDLE_DIR FILE.tile...\n",
                argv[0]);
        return 2;
    }
    base_seed = seed;
    printf("difftest: seed %llu\n", (unsigned long long)seed);
    TileStatus s = tile_init();
    if (s == TILE_OK) {
        CUdevice dev;
        CUcontext ctx;
        drv = rt_driver(&s);
        CU(drv->device_get(&dev, 0));
        CU(drv->primary_ctx_retain(&ctx, dev));
        CU(drv->ctx_set_current(ctx));
        char name[128] = "?";
        drv->device_get_name(name, sizeof name, dev);
        printf("difftest: device %s\n", name);
    } else {
        printf("difftest: no GPU (%s): %s\n", tile_last_error(),
               simdir ? "simulated warps (-x)" : "interpreter only");
    }
    const char *dir = argv[i++];
    for (; i < argc; i++) run_file(dir, simdir, argv[i], filter);
    printf("difftest: %d passed%s, %d failed, %d run on the interpreter only%s\n",
           npass, drv || !simdir ? "" : " (simulated)", nfail, nskip, drv ? "" : " (no GPU)");
    if (nfail) return 1;
    return drv || simdir ? 0 : 77;
}
