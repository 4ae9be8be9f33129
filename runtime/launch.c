/*
 * launch.c — contexts, modules, functions and cuLaunchKernel.
 *
 * A launch runs in the calling thread's current context, as a CUDA
 * runtime launch does; a thread without one gets device 0's primary
 * context (retained once per process and made current), which is also
 * what the CUDA runtime and PyTorch use, so their streams and pointers
 * work unchanged.
 *
 * The steady-state path, after rt_plan: cuCtxGetCurrent, a scan of the
 * bundle's few RtModule entries for that context (atomic loads), an
 * atomic load of the cached CUfunction, and cuLaunchKernel with the
 * parameter pointers built on the stack. No lock, no allocation. The
 * first launch in a context loads the module (the cubin for the device's
 * architecture when the bundle has one, else the PTX, which the driver
 * compiles); the first launch of a variant resolves its function; both
 * under the bundle's mutex, rechecking after taking it.
 *
 * A variant with tensor maps (TMA descriptors) gets them encoded with
 * cuTensorMapEncodeTiled from the plan's evaluated fields (rt_plan_tmaps)
 * into 64-byte-aligned buffers on the stack, passed after the ordinary
 * parameters. Encoding costs host time, so each thread keeps the maps it
 * encoded last in a small direct-mapped cache (16 entries, keyed by every
 * input of the encoding: base, extents, strides, box, type, swizzle); a
 * relaunch with the same arguments copies 128 bytes per map instead.
 * Thread-local, it needs no lock, and it is bounded; since the key is
 * what the encoding depends on, an entry stays right whatever bundle it
 * came from.
 */
#include "runtime/rt.h"

#include <stdlib.h>
#include <string.h>

/* Device primary contexts retained for threads without a context. The
 * atomics are left to static zero-initialization: an explicit {0} for an
 * _Atomic pointer is an int-to-pointer conversion clang refuses. */
static struct {
    pthread_mutex_t lock;
    _Atomic(CUcontext) primary[RT_MAX_DEVICES];
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

static TileStatus cuda_fail(const RtDriver *d, CUresult r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static TileStatus cuda_fail(const RtDriver *d, CUresult r, const char *fmt, ...) {
    char what[RT_ERRLEN / 2], cu[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rt_error(TILE_ERROR_CUDA, "%s: %s", what, rt_cuda_error(d, r, cu, sizeof cu));
}

static TileStatus current_context(const RtDriver *d, CUcontext *ctx) {
    CUresult r = d->ctx_get_current(ctx);
    if (r != CUDA_SUCCESS) return cuda_fail(d, r, "cuCtxGetCurrent");
    if (*ctx) return TILE_OK;
    *ctx = atomic_load_explicit(&g.primary[0], memory_order_acquire);
    if (!*ctx) {
        pthread_mutex_lock(&g.lock);
        *ctx = atomic_load_explicit(&g.primary[0], memory_order_relaxed);
        CUdevice dev;
        if (!*ctx && (r = d->device_get(&dev, 0)) == CUDA_SUCCESS &&
            (r = d->primary_ctx_retain(ctx, dev)) == CUDA_SUCCESS)
            atomic_store_explicit(&g.primary[0], *ctx, memory_order_release);
        pthread_mutex_unlock(&g.lock);
        if (!*ctx) return cuda_fail(d, r, "cannot retain the primary context of device 0");
    }
    r = d->ctx_set_current(*ctx);
    return r == CUDA_SUCCESS ? TILE_OK : cuda_fail(d, r, "cuCtxSetCurrent");
}

static RtModule *find_module(TileBundle *b, CUcontext ctx) {
    int n = atomic_load_explicit(&b->nmodules, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (atomic_load_explicit(&b->modules[i].ctx, memory_order_relaxed) == ctx)
            return &b->modules[i];
    return NULL;
}

/* The image for a device of compute capability cc (90 = 9.0): a cubin
 * built for it (an `a` architecture only on exactly its own; otherwise
 * any of the same major version not newer than the device), else the PTX
 * when its target is not newer than the device. NULL: nothing fits. */
static const void *pick_image(const TlbBundle *t, int cc, const char **what) {
    for (uint32_t i = 0; i < t->ncubins; i++) {
        int spec, v = tlb_parse_arch(t->cubins[i].arch, &spec);
        if (spec ? v == cc : v / 10 == cc / 10 && v % 10 <= cc % 10) {
            *what = t->cubins[i].arch;
            return t->cubins[i].image;
        }
    }
    int spec, v = tlb_parse_arch(t->arch, &spec);
    *what = "PTX";
    return (spec ? v == cc : v <= cc) && t->ptx_size ? t->ptx : NULL;
}

/* Loads b's module into the current context ctx; called with b->lock. */
static TileStatus load_module(const RtDriver *d, TileBundle *b, CUcontext ctx,
                              RtModule **out) {
    int n = atomic_load_explicit(&b->nmodules, memory_order_relaxed);
    if (n == RT_MAX_CONTEXTS)
        return rt_error(TILE_ERROR_CUDA, "bundle used from more than %d CUDA contexts",
                        RT_MAX_CONTEXTS);
    RtModule *m = &b->modules[n];
    CUresult r;
    int major = 0, minor = 0;
    char name[128] = "?";
    if ((r = d->ctx_get_device(&m->dev)) ||
        (r = d->device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                     m->dev)) ||
        (r = d->device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                     m->dev)))
        return cuda_fail(d, r, "cannot query the current device");
    d->device_get_name(name, sizeof name, m->dev);
    snprintf(m->device_name, sizeof m->device_name, "%s", name);
    const char *what;
    const void *image = pick_image(b->tlb, major * 10 + minor, &what);
    if (!image)
        return rt_error(TILE_ERROR_UNSUPPORTED_DEVICE, "the bundle's code targets %s%s "
                        "and device %d (%s) is sm_%d%d: recompile with tilec --arch=sm_%d%d",
                        b->tlb->arch, b->tlb->ncubins ? " (and its cubins do not fit)" : "",
                        m->dev, name, major, minor, major, minor);
    m->funcs = calloc(b->nslots ? b->nslots : 1, sizeof *m->funcs);
    m->carve = calloc(b->nslots ? b->nslots : 1, sizeof *m->carve);
    if (d->device_get_attribute(&m->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, m->dev))
        m->sms = 0;
    m->tune = calloc(b->tlb->nkernels ? b->tlb->nkernels : 1, sizeof *m->tune);
    if (!m->funcs || !m->tune || !m->carve || (r = d->module_load_data(&m->mod, image))) {
        free(m->funcs);
        free(m->carve);
        free(m->tune);
        m->funcs = NULL;
        m->carve = NULL;
        m->tune = NULL;
        if (!r) return rt_error(TILE_ERROR_OUT_OF_MEMORY, "out of memory loading a module");
        return cuda_fail(d, r, "cannot load the bundle's %s on device %d (%s, sm_%d%d, "
                         "driver for CUDA %d.%d)", what, m->dev, name, major, minor,
                         d->version / 1000, d->version % 1000 / 10);
    }
    atomic_store_explicit(&m->ctx, ctx, memory_order_relaxed);
    atomic_store_explicit(&b->nmodules, n + 1, memory_order_release);
    *out = m;
    return TILE_OK;
}

/* Where the variant asks for fewer programs per SM than fit (its
 * l1_programs), finds the least carveout for which the driver's occupancy
 * calculator gives that many, the rest of the store staying L1, and
 * records it for launches of grids larger than a full wave and a quarter
 * (m->carve; rt_launch switches). A hint: where a driver call fails the
 * driver's own choice stays. */
static void prefer_l1(const RtDriver *d, const TileKernel *k, RtModule *m,
                      const RtVariant *v, CUfunction f) {
    int fit = 0, shared = 0, sm = 0, reserved = 0, got = 0;
    int threads = (int)v->threads;
    size_t dyn = v->v->dyn_smem;
    if (!v->v->l1_programs) return;
    if (d->occupancy_max_blocks(&fit, f, threads, dyn) ||
        d->func_get_attribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) ||
        d->device_get_attribute(&sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                                m->dev) ||
        d->device_get_attribute(&reserved, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
                                m->dev) ||
        sm <= 0 || shared < 0 || reserved < 0)
        return;
    uint32_t block = (uint32_t)shared + v->v->dyn_smem + (uint32_t)reserved;
    uint32_t want = v->v->l1_programs;
    if (fit <= 0 || want >= (uint32_t)fit) return;
    for (int pct = rt_carveout_percent(want, block, (uint32_t)sm); pct <= 100; pct++) {
        if (d->func_set_attribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, pct) ||
            d->occupancy_max_blocks(&got, f, threads, dyn))
            break;
        if (got >= (int)want) {
            RtCarve *cv = &m->carve[v->slot];
            cv->pct = pct;
            uint64_t wave = (uint64_t)fit * (uint64_t)(m->sms > 0 ? m->sms : 1);
            cv->past = wave + wave / 4;
            atomic_store_explicit(&cv->on, 1, memory_order_relaxed);
            rt_note(k->bundle, "kernel '%s': entry '%s' carves out %d%% of the SM's %d bytes "
                    "of shared memory (%d programs of %u bytes per SM, of the %d that fit) "
                    "for grids of more than %llu programs; the rest stays L1", k->k->name,
                    v->v->entry, pct, sm, got, block, fit, (unsigned long long)cv->past);
            return;
        }
    }
    d->func_set_attribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, -1);
}

/* Gives function f (of slot `slot`) its L1 carveout for a grid of
 * `programs`, or the driver's own for a grid about one full wave holds; a
 * driver call only when that changes. Two threads launching the same
 * function at once may set it in either order: it is a preference, and
 * only speed depends on it. */
static void switch_carveout(const RtDriver *d, RtModule *m, uint32_t slot, CUfunction f,
                            uint64_t programs) {
    RtCarve *cv = &m->carve[slot];
    if (!cv->pct) return;
    int want = programs > cv->past;
    if (atomic_load_explicit(&cv->on, memory_order_relaxed) == want) return;
    if (!d->func_set_attribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                               want ? cv->pct : -1))
        atomic_store_explicit(&cv->on, want, memory_order_relaxed);
}

/* The function of variant v in module m; called with b->lock. */
static TileStatus resolve_function(const RtDriver *d, const TileKernel *k, RtModule *m,
                                   const RtVariant *v, CUfunction *f) {
    *f = atomic_load_explicit(&m->funcs[v->slot], memory_order_relaxed);
    if (*f) return TILE_OK;
    CUresult r = d->module_get_function(f, m->mod, v->v->entry);
    if (r)
        return cuda_fail(d, r, "kernel '%s': entry '%s' is missing from the bundle's code",
                         k->k->name, v->v->entry);
    if (v->v->dyn_smem > 48 * 1024 &&
        (r = d->func_set_attribute(*f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   (int)v->v->dyn_smem)))
        return cuda_fail(d, r, "kernel '%s': entry '%s' needs %u bytes of shared memory",
                         k->k->name, v->v->entry, v->v->dyn_smem);
    prefer_l1(d, k, m, v, *f);
    int fit = 0;
    if ((v->v->flags & TLB_VARIANT_PERSISTENT) &&
        !d->occupancy_max_blocks(&fit, *f, (int)v->threads, v->v->dyn_smem) && fit > 0 &&
        m->sms > 0)
        m->carve[v->slot].resident = (uint32_t)fit * (uint32_t)m->sms;
    atomic_store_explicit(&m->funcs[v->slot], *f, memory_order_release);
    return TILE_OK;
}

/* The error s, its message prefixed with "kernel 'NAME': ". */
static TileStatus for_kernel(TileStatus s, const TileKernel *k) {
    char msg[RT_ERRLEN];
    snprintf(msg, sizeof msg, "%s", tile_last_error());
    return rt_error(s, "kernel '%s': %s", k->k->name, msg);
}

TileStatus rt_module(const RtDriver *d, TileKernel *k, CUcontext *ctx, RtModule **m) {
    TileBundle *b = k->bundle;
    TileStatus s = current_context(d, ctx);
    if (s) return for_kernel(s, k);
    if ((*m = find_module(b, *ctx))) return TILE_OK;
    pthread_mutex_lock(&b->lock);
    *m = find_module(b, *ctx);
    if (!*m) s = load_module(d, b, *ctx, m);
    pthread_mutex_unlock(&b->lock);
    return s ? for_kernel(s, k) : TILE_OK;
}

TileStatus rt_function(const RtDriver *d, TileKernel *k, RtModule *m, const RtVariant *v,
                       CUfunction *f) {
    *f = atomic_load_explicit(&m->funcs[v->slot], memory_order_acquire);
    if (*f) return TILE_OK;
    pthread_mutex_lock(&k->bundle->lock);
    TileStatus s = resolve_function(d, k, m, v, f);
    pthread_mutex_unlock(&k->bundle->lock);
    return s;
}

/* ------------------------------------------------------- tensor maps */

/* What one cuTensorMapEncodeTiled call depends on, whole: the key of the
 * encoding cache. Filled after a memset (no padding: compared as bytes). */
typedef struct TmapKey {
    uint64_t base, dim[TLB_TMAP_MAXRANK], stride[TLB_TMAP_MAXRANK - 1];
    uint32_t box[TLB_TMAP_MAXRANK];
    uint8_t type, rank, swizzle, zero;
} TmapKey;
_Static_assert(sizeof(TmapKey) == 64, "TmapKey has no padding");

enum { TMAP_CACHE = 16 };   /* entries per thread, direct-mapped */
_Static_assert(TMAP_CACHE == 16, "tmap_slot takes 4 bits");

/* The calling thread's encoded maps (thread-local, so no lock: a thread
 * relaunching a kernel with the same arguments encodes nothing). */
static _Thread_local struct {
    TmapKey key[TMAP_CACHE];
    CUtensorMap map[TMAP_CACHE];
    uint8_t valid[TMAP_CACHE];
} tmap_cache;

static TmapKey tmap_key(const TlbTmap *m, const RtTmapArgs *a) {
    TmapKey key;
    memset(&key, 0, sizeof key);
    key.base = a->base;
    memcpy(key.dim, a->dim, sizeof key.dim);
    memcpy(key.stride, a->stride, sizeof key.stride);
    memcpy(key.box, m->box, sizeof key.box);
    key.type = (uint8_t)rt_tmap_data_type((TlbType)m->elem);
    key.rank = m->rank;
    key.swizzle = (uint8_t)(m->swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                            : m->swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                            : m->swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                               : CU_TENSOR_MAP_SWIZZLE_NONE);
    return key;
}

/* The cache entry of key: a multiplicative hash of its 8 words (the
 * launch path's, so not byte by byte). */
static uint32_t tmap_slot(const TmapKey *key) {
    uint64_t w[sizeof *key / 8], h = 0;
    memcpy(w, key, sizeof w);
    for (size_t i = 0; i < sizeof w / sizeof *w; i++) h = (h ^ w[i]) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 60);
}

/* Encodes map t of plan p into *out (from the thread's cache when it
 * holds the same key). */
static TileStatus encode_tmap(const RtDriver *d, const TileKernel *k, const RtPlan *p,
                              uint32_t t, CUtensorMap *out) {
    const TlbTmap *m = &p->variant->v->tmaps[t];
    TmapKey key = tmap_key(m, &p->tmap[t]);
    uint32_t slot = tmap_slot(&key);
    if (tmap_cache.valid[slot] && !memcmp(&tmap_cache.key[slot], &key, sizeof key)) {
        *out = tmap_cache.map[slot];
        return TILE_OK;
    }
    static const uint32_t ones[TLB_TMAP_MAXRANK] = {1, 1, 1};
    CUresult r = d->tensor_map_encode_tiled(
        out, key.type, key.rank, (void *)(uintptr_t)key.base, key.dim, key.stride, key.box,
        ones, CU_TENSOR_MAP_INTERLEAVE_NONE, key.swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r) {
        unsigned i = m->param;
        return cuda_fail(d, r, "kernel '%s': entry '%s': cannot encode tensor map %u of "
                         "argument %u ('%s', base 0x%llx, dims [%llu, %llu, %llu], strides "
                         "[%llu, %llu] bytes, box [%u, %u, %u])", k->k->name,
                         p->variant->v->entry, t, i, k->k->params[i].name,
                         (unsigned long long)key.base, (unsigned long long)key.dim[0],
                         (unsigned long long)key.dim[1], (unsigned long long)key.dim[2],
                         (unsigned long long)key.stride[0], (unsigned long long)key.stride[1],
                         key.box[0], key.box[1], key.box[2]);
    }
    tmap_cache.key[slot] = key;
    tmap_cache.map[slot] = *out;
    tmap_cache.valid[slot] = 1;
    return TILE_OK;
}

/* The plan's tensor maps, encoded into maps[], each passed as
 * params[nparams + t]. */
static TileStatus encode_tmaps(const RtDriver *d, const TileKernel *k, const RtPlan *p,
                               CUtensorMap *maps, void **params) {
    if (p->ntmaps && !d->tensor_map_encode_tiled)
        return rt_error(TILE_ERROR_DRIVER_TOO_OLD, "kernel '%s': variant '%s' uses TMA, "
                        "which this driver (cuTensorMapEncodeTiled) lacks", k->k->name,
                        p->variant->v->entry);
    for (uint32_t t = 0; t < p->ntmaps; t++) {
        TileStatus s = encode_tmap(d, k, p, t, &maps[t]);
        if (s) return s;
        params[k->k->nparams + t] = &maps[t];
    }
    return TILE_OK;
}

/* The first variant of p's configuration after p's whose guard the
 * arguments meet and that takes no tensor maps, or NULL. */
static const RtVariant *mapless_variant(const TileKernel *k, const RtPlan *p) {
    const RtConfig *rc = p->config;
    for (const RtVariant *v = p->variant + 1; v < rc->variants + rc->nvariants; v++)
        if (!v->v->ntmaps && rt_guard_fails(k, v->v, p) < 0) return v;
    return NULL;
}

TileStatus rt_persistent_grid(const TileKernel *k, const RtPlan *p, uint32_t cap,
                              uint32_t g[3]) {
    const RtVariant *v = p->variant;
    if (!(v->v->flags & TLB_VARIANT_PERSISTENT)) return TILE_OK;
    for (uint32_t d = 0; p->given && d < 3; d++) {
        int64_t want = 1;
        if (d < k->k->ngrid && tlb_eval(&p->config->c->grid[d], p->ints, &want)) want = -1;
        if (want != (int64_t)g[d])
            return rt_error(TILE_ERROR_GRID, "kernel '%s': entry '%s' is persistent (tilec "
                            "--persistent): it walks the programs of its grid clause, so a "
                            "grid given at launch (%ux%ux%u) cannot replace it", k->k->name,
                            v->v->entry, g[0], g[1], g[2]);
    }
    uint64_t n = (uint64_t)g[0] * g[1] * g[2];
    if (n > INT32_MAX)
        return rt_error(TILE_ERROR_GRID, "kernel '%s': the grid of persistent entry '%s' has "
                        "%llu programs (at most %d)", k->k->name, v->v->entry,
                        (unsigned long long)n, INT32_MAX);
    g[0] = (uint32_t)(cap && n > cap ? cap : n);
    g[1] = g[2] = 1;
    return TILE_OK;
}

TileStatus rt_launch(TileKernel *k, RtModule *m, const RtPlan *p, TileStream stream) {
    TileStatus s;
    const RtDriver *d = rt_driver(&s);
    if (!d) return s;
    CUcontext ctx;
    if (!m && (s = rt_module(d, k, &ctx, &m))) return s;
    void *params[RT_MAX_PARAMS + TLB_MAX_TMAPS];
    CUtensorMap maps[TLB_MAX_TMAPS];
    for (uint32_t i = 0; i < k->k->nparams; i++) params[i] = (void *)&p->slots[i];
    RtPlan alt;
    if (p->ntmaps && (s = encode_tmaps(d, k, p, maps, params))) {
        /* a driver without TMA, or one that refuses these maps: the
         * variant without them that the arguments meet runs instead */
        const RtVariant *v = mapless_variant(k, p);
        if (!v) return s;
        alt = *p;
        alt.variant = v;
        alt.ntmaps = 0;
        p = &alt;
    }
    CUfunction f;
    if ((s = rt_function(d, k, m, p->variant, &f))) return s;
    uint32_t g[3] = {p->grid[0], p->grid[1], p->grid[2]};
    uint32_t cap = k->bundle->persistent_cap ? k->bundle->persistent_cap
                                             : m->carve[p->variant->slot].resident;
    if ((s = rt_persistent_grid(k, p, cap, g))) return s;
    switch_carveout(d, m, p->variant->slot, f, (uint64_t)g[0] * g[1] * g[2]);
    CUresult r = d->launch_kernel(f, g[0], g[1], g[2], p->variant->threads,
                                  1, 1, p->variant->v->dyn_smem, stream, params, NULL);
    if (r)
        return cuda_fail(d, r, "kernel '%s': launch of '%s' (grid %ux%ux%u, %u threads) "
                         "failed", k->k->name, p->variant->v->entry, g[0], g[1], g[2],
                         p->variant->threads);
    return TILE_OK;
}

static TileStatus check_selection(const TileKernel *k, int selection, const char *fn) {
    if (!k) return rt_error(TILE_ERROR_INVALID_VALUE, "%s: the kernel is NULL", fn);
    if (selection < 0 ||
        selection >= atomic_load_explicit(&k->nselections, memory_order_acquire))
        return rt_error(TILE_ERROR_INVALID_VALUE, "%s: kernel '%s' has no selection %d",
                        fn, k->k->name, selection);
    return TILE_OK;
}

/* Plans (choosing the configuration: autotuning) and, unless `dry`,
 * launches. */
static TileStatus launch(TileKernel *k, int selection, const uint32_t *grid,
                         const TileLaunchArg *args, int nargs, TileStream stream, int dry,
                         int *chosen) {
    RtPlan p;
    RtModule *m = NULL;
    TileStatus s = rt_plan_select(k, selection, grid, args, nargs, &p);
    if (!s && !p.empty) s = rt_choose(k, selection, grid, &p, stream, &m);
    if (s) return s;
    if (chosen) *chosen = (int)(p.config - k->configs);
    return p.empty || dry ? TILE_OK : rt_launch(k, m, &p, stream);
}

TileStatus tile_launch(TileKernel *k, const TileLaunchArg *args, int nargs,
                       TileStream stream) {
    if (!k) return rt_error(TILE_ERROR_INVALID_VALUE, "tile_launch: the kernel is NULL");
    return launch(k, 0, NULL, args, nargs, stream, 0, NULL);
}

TileStatus tile_launch_grid(TileKernel *k, const uint32_t grid[3], const TileLaunchArg *args,
                            int nargs, TileStream stream) {
    if (!grid) return rt_error(TILE_ERROR_INVALID_VALUE, "tile_launch_grid: the grid is NULL");
    if (!k) return rt_error(TILE_ERROR_INVALID_VALUE, "tile_launch: the kernel is NULL");
    return launch(k, 0, grid, args, nargs, stream, 0, NULL);
}

TileStatus tile_launch_select(TileKernel *k, int selection, const uint32_t *grid,
                              const TileLaunchArg *args, int nargs, TileStream stream,
                              int *chosen) {
    TileStatus s = check_selection(k, selection, "tile_launch_select");
    return s ? s : launch(k, selection, grid, args, nargs, stream, 0, chosen);
}

TileStatus tile_kernel_choose(TileKernel *k, int selection, const uint32_t *grid,
                              const TileLaunchArg *args, int nargs, TileStream stream,
                              int *config) {
    TileStatus s = check_selection(k, selection, "tile_kernel_choose");
    if (!s && !config)
        s = rt_error(TILE_ERROR_INVALID_VALUE, "tile_kernel_choose: config is NULL");
    return s ? s : launch(k, selection, grid, args, nargs, stream, 1, config);
}

void rt_unload_modules(TileBundle *b) {
    int n = atomic_load_explicit(&b->nmodules, memory_order_acquire);
    TileStatus s;
    const RtDriver *d = n ? rt_driver(&s) : NULL;
    for (int i = 0; i < n && d; i++) {
        RtModule *m = &b->modules[i];
        CUcontext ctx = atomic_load_explicit(&m->ctx, memory_order_relaxed), popped;
        if (d->ctx_push(ctx) == CUDA_SUCCESS) {
            if (m->flush) d->mem_free(m->flush);
            d->module_unload(m->mod);
            d->ctx_pop(&popped);
        }
        for (uint32_t k = 0; k < b->tlb->nkernels; k++) free(atomic_load(&m->tune[k]));
        free(m->tune);
        free(m->funcs);
        free(m->carve);
    }
}
