/*
 * load.c — bundles in, kernels ready to launch out.
 *
 * Loading reads and verifies the file (bundle/read.c does every check)
 * and then precomputes, per kernel, everything the launch path would
 * otherwise work out each time (see rt.h): parameter classes and integer
 * ranges, per configuration its thread count and variants in order of
 * preference, per variant a slot in the per-context function tables, and
 * the type names and signature used in messages. No driver is touched:
 * a bundle can be loaded, inspected and argument-checked on a machine
 * without a GPU. Modules are loaded later, per context, by launch.c.
 *
 * A file is read header first and no further than the payload size its
 * header declares, at most TLB_MAX_FILE in all, so that a device
 * (/dev/zero), a pipe or a large foreign file is refused after 32 bytes;
 * pipes and FIFOs that carry a bundle load as files do.
 */
#include "runtime/rt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void *zalloc(size_t n) { return calloc(1, n ? n : 1); }

static void set_class(RtParam *rp, const TlbParam *p) {
    TlbType t = (TlbType)p->type;
    rp->type = p->type;
    if (t == TLB_PTR) {
        rp->cls = RT_PARAM_PTR;
        rp->elem_bytes = (uint8_t)tlb_type_bytes((TlbType)p->pointee);
    } else if (tlb_type_isfloat(t)) {
        rp->cls = RT_PARAM_FLOAT;
    } else if (t == TLB_BOOL) {
        rp->cls = RT_PARAM_BOOL;
        rp->min = 0;
        rp->max = 1;
    } else {
        int bits = 8 * tlb_type_bytes(t);
        rp->cls = RT_PARAM_INT;
        rp->specialize = !(p->flags & TLB_PARAM_NOSPECIALIZE);
        if (bits == 64) {
            /* u64 takes any int64_t's bits, as tile_interp_run does. */
            rp->min = INT64_MIN;
            rp->max = INT64_MAX;
        } else if (tlb_type_issigned(t)) {
            rp->min = -((int64_t)1 << (bits - 1));
            rp->max = ((int64_t)1 << (bits - 1)) - 1;
        } else {
            rp->min = 0;
            rp->max = ((int64_t)1 << bits) - 1;
        }
    }
}

static char *type_name(const TlbParam *p) {
    char buf[16];
    if (p->type == TLB_PTR) snprintf(buf, sizeof buf, "*%s", tlb_type_name((TlbType)p->pointee));
    else snprintf(buf, sizeof buf, "%s", tlb_type_name((TlbType)p->type));
    return strdup(buf);
}

static char *make_signature(const TlbKernel *k, const char **types) {
    size_t n = strlen(k->name) + 3;
    for (uint32_t i = 0; i < k->nparams; i++) n += strlen(k->params[i].name) + strlen(types[i]) + 4;
    char *s = malloc(n), *p = s;
    if (!s) return NULL;
    p += sprintf(p, "%s(", k->name);
    for (uint32_t i = 0; i < k->nparams; i++)
        p += sprintf(p, "%s%s: %s", i ? ", " : "", k->params[i].name, types[i]);
    strcpy(p, ")");
    return s;
}

/* "BLOCK=1024,warps=4,stages=3": the form tile_interp_run's config and
 * tile_kernel_select take (bundle/choose.c writes it). */
static char *config_name(const TlbKernel *k, uint32_t c) {
    char buf[1024];
    tlb_config_name(k, c, buf, sizeof buf);
    return strdup(buf);
}

/* Fills kernel i of b; 0, or -1 when out of memory. */
static int prepare_kernel(TileBundle *b, TileKernel *tk, const TlbKernel *k) {
    tk->bundle = b;
    tk->k = k;
    tk->index = (uint32_t)(k - b->tlb->kernels);
    pthread_mutex_init(&tk->tune_lock, NULL);
    atomic_init(&tk->nselections, 1);
    tk->config_names = zalloc(sizeof *tk->config_names * k->nconfigs);
    if (!tk->config_names) return -1;
    for (uint32_t c = 0; c < k->nconfigs; c++)
        if (!(tk->config_names[c] = config_name(k, c))) return -1;
    tk->params = zalloc(sizeof *tk->params * k->nparams);
    tk->type_names = zalloc(sizeof *tk->type_names * k->nparams);
    tk->configs = zalloc(sizeof *tk->configs * k->nconfigs);
    if (!tk->params || !tk->type_names || !tk->configs) return -1;
    for (uint32_t i = 0; i < k->nparams; i++) {
        set_class(&tk->params[i], &k->params[i]);
        if (!(tk->type_names[i] = type_name(&k->params[i]))) return -1;
    }
    if (!(tk->signature = make_signature(k, tk->type_names))) return -1;
    for (uint32_t c = 0; c < k->nconfigs; c++) {
        const TlbConfig *tc = &k->configs[c];
        RtConfig *rc = &tk->configs[c];
        rc->c = tc;
        rc->threads = tc->warps * 32;
        rc->nvariants = tc->nvariants;
        rc->variants = zalloc(sizeof *rc->variants * tc->nvariants);
        if (!rc->variants) return -1;
        tk->has_require |= tc->nrequire > 0;
        for (uint32_t v = 0; v < tc->nvariants; v++) {
            uint32_t threads = rc->threads;   /* and a producer warpgroup */
            if (tc->variants[v].flags & TLB_VARIANT_WARPSPEC) threads += 32 * TLB_WARPSPEC_WARPS;
            rc->variants[v] = (RtVariant){&tc->variants[v], b->nslots + v, threads};
            for (uint32_t i = 0; i < k->nparams; i++) {
                uint8_t g = tc->variants[v].guard[i];
                if (g == TLB_GUARD_ONE) tk->params[i].guard_one = 1;
                else if (g > tk->params[i].guard_cap) tk->params[i].guard_cap = g;
            }
        }
        b->nslots += tc->nvariants;
    }
    return 0;
}

static void free_kernels(TileBundle *b) {
    if (!b->kernels) return;
    for (uint32_t i = 0; i < b->tlb->nkernels; i++) {
        TileKernel *k = &b->kernels[i];
        if (!k->k) continue;   /* never prepared */
        pthread_mutex_destroy(&k->tune_lock);
        for (int s = 1; s < atomic_load(&k->nselections); s++) {
            free(k->selections[s].spec);
            free(k->selections[s].in);
        }
        if (k->config_names)
            for (uint32_t c = 0; c < k->k->nconfigs; c++) free(k->config_names[c]);
        free(k->config_names);
        if (k->configs)
            for (uint32_t c = 0; c < k->k->nconfigs; c++) free(k->configs[c].variants);
        if (k->type_names)
            for (uint32_t p = 0; p < k->k->nparams; p++) free((char *)k->type_names[p]);
        free(k->type_names);
        free(k->configs);
        free(k->params);
        free(k->signature);
    }
    free(b->kernels);
}

static TileStatus from_bytes(const void *data, size_t size, const char *name,
                             TileBundle **out) {
    char err[RT_ERRLEN - 128];
    TlbBundle *tlb;
    if (tlb_read(data, size, &tlb, err, sizeof err))
        return rt_error(TILE_ERROR_INVALID_BUNDLE, "cannot load bundle %s: %s", name, err);
    for (uint32_t i = 0; i < tlb->nkernels; i++)
        if (tlb->kernels[i].nparams > RT_MAX_PARAMS) {
            TileStatus s = rt_error(TILE_ERROR_INVALID_BUNDLE, "cannot load bundle %s: "
                                    "kernel '%s' has %u parameters (libtile takes at "
                                    "most %d)", name, tlb->kernels[i].name,
                                    tlb->kernels[i].nparams, RT_MAX_PARAMS);
            tlb_free(tlb);
            return s;
        }
    TileBundle *b = zalloc(sizeof *b);
    if (!b) {
        tlb_free(tlb);
        return rt_error(TILE_ERROR_OUT_OF_MEMORY, "out of memory loading bundle %s", name);
    }
    b->tlb = tlb;
    b->hash = rt_hash(RT_HASH_SEED, data, size);
    const char *tune = getenv("TILE_AUTOTUNE"), *verbose = getenv("TILE_VERBOSE");
    b->autotune = !tune || !*tune ? 1 : !strcmp(tune, "force") ? 2 : strcmp(tune, "0") != 0;
    b->verbose = verbose && *verbose && strcmp(verbose, "0") != 0;
    const char *cap = getenv("TILE_PERSISTENT_PROGRAMS");
    unsigned long capv = cap && *cap ? strtoul(cap, NULL, 10) : 0;
    b->persistent_cap = capv > UINT32_MAX ? UINT32_MAX : (uint32_t)capv;
    pthread_mutex_init(&b->lock, NULL);
    b->kernels = zalloc(sizeof *b->kernels * tlb->nkernels);
    int failed = !b->kernels;
    for (uint32_t i = 0; i < tlb->nkernels && !failed; i++)
        failed = prepare_kernel(b, &b->kernels[i], &tlb->kernels[i]);
    if (failed) {
        tile_bundle_free(b);
        return rt_error(TILE_ERROR_OUT_OF_MEMORY, "out of memory loading bundle %s", name);
    }
    *out = b;
    return TILE_OK;
}

TileStatus tile_bundle_load_memory(const void *data, size_t size, TileBundle **out) {
    if (!out || (!data && size))
        return rt_error(TILE_ERROR_INVALID_VALUE, "tile_bundle_load_memory: NULL argument");
    *out = NULL;
    return from_bytes(data, size, "from memory", out);
}

/* Reads up to `want` bytes into buf; the count read (short only at end of
 * file), or -1 with errno. */
static ssize_t read_full(int fd, unsigned char *buf, size_t want) {
    size_t got = 0;
    while (got < want) {
        ssize_t r = read(fd, buf + got, want - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* The bytes of the bundle file at fd, header first: the header is checked
 * before anything else is read, and the rest is read only up to the
 * payload size it declares (at most TLB_MAX_FILE in all), so /dev/zero, a
 * pipe or a huge foreign file costs 32 bytes. `fsize`: the file's size
 * when it is a regular file, else -1 (for the message about extra bytes). */
static TileStatus read_bundle_fd(int fd, const char *path, long long fsize,
                                 unsigned char **out, size_t *size) {
    unsigned char head[TLB_HEADER_SIZE];
    char err[RT_ERRLEN / 2];
    uint64_t payload;
    ssize_t n = read_full(fd, head, sizeof head);
    if (n < 0) return rt_error(TILE_ERROR_IO, "cannot read bundle '%s': %s", path, strerror(errno));
    if (tlb_read_header(head, (size_t)n, &payload, err, sizeof err))
        return rt_error(TILE_ERROR_INVALID_BUNDLE, "cannot load bundle '%s': %s", path, err);
    if (payload > TLB_MAX_FILE - TLB_HEADER_SIZE)
        return rt_error(TILE_ERROR_INVALID_BUNDLE, "cannot load bundle '%s': its header "
                        "declares %llu bytes of payload; libtile reads bundles of at "
                        "most %llu MiB", path, (unsigned long long)payload,
                        (unsigned long long)(TLB_MAX_FILE >> 20));
    /* One byte more than declared, so that extra bytes are noticed. */
    size_t want = (size_t)payload + 1, cap = want < (1u << 20) ? want : 1u << 20, got = 0;
    unsigned char *data = malloc(TLB_HEADER_SIZE + cap);
    while (data) {
        n = read_full(fd, data + TLB_HEADER_SIZE + got, cap - got);
        if (n < 0) break;
        got += (size_t)n;
        if (got < cap || cap == want) break;
        cap = cap * 2 < want ? cap * 2 : want;
        unsigned char *bigger = realloc(data, TLB_HEADER_SIZE + cap);
        if (!bigger) free(data);
        data = bigger;
    }
    if (!data)
        return rt_error(TILE_ERROR_OUT_OF_MEMORY, "out of memory reading bundle '%s' "
                        "(%llu bytes)", path, (unsigned long long)payload + TLB_HEADER_SIZE);
    if (n < 0) {
        TileStatus s = rt_error(TILE_ERROR_IO, "cannot read bundle '%s': %s", path,
                                strerror(errno));
        free(data);
        return s;
    }
    if (got == want) {
        free(data);
        if (fsize < 0)
            return rt_error(TILE_ERROR_INVALID_BUNDLE, "cannot load bundle '%s': damaged "
                            "Tile bundle: unexpected bytes after the payload", path);
        return rt_error(TILE_ERROR_INVALID_BUNDLE, "cannot load bundle '%s': damaged Tile "
                        "bundle: %llu unexpected bytes after the payload", path,
                        (unsigned long long)fsize - TLB_HEADER_SIZE - payload);
    }
    memcpy(data, head, sizeof head);
    *out = data;
    *size = TLB_HEADER_SIZE + got;
    return TILE_OK;
}

TileStatus tile_bundle_load(const char *path, TileBundle **out) {
    if (!path || !out)
        return rt_error(TILE_ERROR_INVALID_VALUE, "tile_bundle_load: NULL argument");
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return rt_error(TILE_ERROR_IO, "cannot open bundle '%s': %s", path, strerror(errno));
    struct stat st;
    int stat_ok = fstat(fd, &st) == 0;
    if (stat_ok && S_ISDIR(st.st_mode)) {
        close(fd);
        return rt_error(TILE_ERROR_IO, "cannot load bundle '%s': it is a directory", path);
    }
    unsigned char *data = NULL;
    size_t n = 0;
    long long fsize = stat_ok && S_ISREG(st.st_mode) ? (long long)st.st_size : -1;
    TileStatus s = read_bundle_fd(fd, path, fsize, &data, &n);
    close(fd);
    if (s) return s;
    char name[RT_ERRLEN / 4];
    snprintf(name, sizeof name, "'%s'", path);
    s = from_bytes(data, n, name, out);
    free(data);
    return s;
}

TileStatus tile_kernel_get(TileBundle *b, const char *name, TileKernel **out) {
    if (!b || !name || !out)
        return rt_error(TILE_ERROR_INVALID_VALUE, "tile_kernel_get: NULL argument");
    *out = NULL;
    for (uint32_t i = 0; i < b->tlb->nkernels; i++)
        if (strcmp(b->tlb->kernels[i].name, name) == 0) {
            *out = &b->kernels[i];
            return TILE_OK;
        }
    char list[256] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < b->tlb->nkernels && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s'%s'", i ? ", " : "",
                         b->tlb->kernels[i].name);
        if (w < 0) break;
        used += (size_t)w;
    }
    return rt_error(TILE_ERROR_NOT_FOUND, "no kernel '%s' in the bundle (it has %s)", name,
                    b->tlb->nkernels ? list : "none");
}

void tile_bundle_free(TileBundle *b) {
    if (!b) return;
    rt_unload_modules(b);
    free_kernels(b);
    pthread_mutex_destroy(&b->lock);
    tlb_free(b->tlb);
    free(b);
}

const char *tile_kernel_signature(const TileKernel *k) { return k ? k->signature : NULL; }
int tile_kernel_nparams(const TileKernel *k) { return k ? (int)k->k->nparams : 0; }

TileStatus tile_kernel_param(const TileKernel *k, int i, const char **name, const char **type) {
    if (!k || i < 0 || (uint32_t)i >= k->k->nparams)
        return rt_error(TILE_ERROR_INVALID_VALUE, "tile_kernel_param: no parameter %d", i);
    if (name) *name = k->k->params[i].name;
    if (type) *type = k->type_names[i];
    return TILE_OK;
}

int tile_bundle_nkernels(const TileBundle *b) { return b ? (int)b->tlb->nkernels : 0; }

const char *tile_bundle_kernel(const TileBundle *b, int i) {
    return b && i >= 0 && (uint32_t)i < b->tlb->nkernels ? b->tlb->kernels[i].name : NULL;
}
