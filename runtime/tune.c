/*
 * tune.c — autotuning: which of a kernel's configurations to run.
 *
 * The candidates of a launch are the configurations of its selection
 * (tile_kernel_select; all by default) whose @require holds for the
 * arguments. With one candidate there is nothing to decide. With more,
 * the launch's key — the @tune_key values rounded up to powers of two,
 * the specialization facts (how far each pointer is aligned and each
 * integer divisible: what decides each configuration's variant)
 * and a hash of the candidate set — is looked up in a table per kernel and
 * CUDA context (so per device; the dtypes are the kernel's signature,
 * fixed in a bundle). The table is open addressing over a fixed array
 * whose entries are published with a release store, so a launch whose key
 * was seen before takes no lock and allocates nothing: it hashes ~100
 * bytes and compares one entry.
 *
 * A key not in the table is tuned under the kernel's tune lock: first the
 * on-disk cache (cache.c) is asked (not with TILE_AUTOTUNE=force); then
 * every candidate is checked — its function must load, its threads fit
 * the registers it uses, its shared memory (static + the bundle's dynamic
 * bytes) fit the device's per-block limit; candidates that spill (local
 * memory per thread above $TILE_TUNE_MAX_SPILL, default 256 bytes) are
 * dropped when any candidate does not — and each one left is timed on the
 * caller's stream with CUDA events: one warm-up launch, one to estimate,
 * then 5 to 25 repeats (about 20 ms each), each after writing a buffer of
 * twice the L2 size so that no repeat finds its inputs in L2; the median
 * counts. Before timing, the allocations behind every pointer the kernel
 * stores through (the bundle's `stored` flag) are copied aside, found with
 * cuMemGetAddressRange, so the whole allocation is saved whatever the
 * kernel's extents are; afterwards they are copied back. Autotuning thus
 * never changes what the launch computes. When saving is impossible (no
 * memory, a pointer the driver does not know) or the stream is being
 * captured into a graph, the first usable candidate runs and nothing is
 * remembered.
 *
 * $TILE_VERBOSE prints every candidate's time or why it was skipped; on a
 * terminal a progress line on stderr shows otherwise (config i of N, best
 * so far).
 */
#include "runtime/rt.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MIN_REPEATS = 5, MAX_REPEATS = 25 };
#define BUDGET_MS 20.0           /* timed per candidate, roughly */

uint64_t rt_hash(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The table's hash of a key: its 64-bit words mixed (a key is a whole
 * number of words with no padding). */
static uint64_t key_hash(const RtTuneKey *key) {
    uint64_t w[sizeof *key / 8], h = RT_HASH_SEED;
    memcpy(w, key, sizeof w);
    for (size_t i = 0; i < sizeof w / sizeof *w; i++) {
        h = (h ^ w[i]) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

static int64_t round_pow2(int64_t v) {
    if (v <= 1) return v;
    uint64_t p = 1;
    while (p < (uint64_t)v && p < (1ull << 62)) p <<= 1;
    return p < (uint64_t)v ? INT64_MAX : (int64_t)p;
}

void rt_tune_key(const TileKernel *k, const RtPlan *p, const uint32_t *cands, uint32_t n,
                 RtTuneKey *key) {
    memset(key, 0, sizeof *key);
    key->nvals = k->k->ntune_key;
    uint8_t capped[RT_MAX_PARAMS];
    for (uint32_t i = 0; i < k->k->nparams; i++) {
        uint8_t cap = k->params[i].guard_cap;
        capped[i] = p->mult[i] < cap ? p->mult[i] : cap;
        if (k->params[i].guard_one && p->ints[i] == 1) capped[i] = TLB_GUARD_ONE;
    }
    key->facts = rt_hash(RT_HASH_SEED, capped, k->k->nparams);
    key->candidates = rt_hash(RT_HASH_SEED, cands, n * sizeof *cands);
    key->rest = RT_HASH_SEED;
    for (uint32_t i = 0; i < k->k->ntune_key; i++) {
        int64_t v = round_pow2(p->ints[k->k->tune_key[i]]);
        if (i < RT_MAX_TUNE_KEY) key->vals[i] = v;
        else key->rest = rt_hash(key->rest, &v, sizeof v);
    }
}

void rt_key_text(const TileKernel *k, const RtTuneKey *key, char *buf, size_t n) {
    size_t used = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < key->nvals && i < RT_MAX_TUNE_KEY && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s=%lld,",
                                 k->k->params[k->k->tune_key[i]].name,
                                 (long long)key->vals[i]);
    if (used < n && key->nvals > RT_MAX_TUNE_KEY)
        used += (size_t)snprintf(buf + used, n - used, "rest=%016llx,",
                                 (unsigned long long)key->rest);
    if (used < n)
        snprintf(buf + used, n - used, "facts=%016llx,candidates=%016llx",
                 (unsigned long long)key->facts, (unsigned long long)key->candidates);
}

void rt_note(const TileBundle *b, const char *fmt, ...) {
    if (!b->verbose) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("tile: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void rt_warn(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("tile: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ------------------------------------------------------ the key table */

static int table_find(const RtTuneTable *t, const RtTuneKey *key, uint64_t h) {
    for (uint32_t i = 0; i < RT_TUNE_SLOTS; i++) {
        const RtTuneEntry *e = &t->e[(h + i) % RT_TUNE_SLOTS];
        if (!atomic_load_explicit(&e->ready, memory_order_acquire)) return -1;
        if (!memcmp(&e->key, key, sizeof *key)) return e->config;
    }
    return -1;
}

/* Called with the tune lock; a full table remembers nothing more (the
 * disk cache still answers). */
static void table_insert(RtTuneTable *t, const RtTuneKey *key, uint64_t h, int config) {
    for (uint32_t i = 0; i < RT_TUNE_SLOTS; i++) {
        RtTuneEntry *e = &t->e[(h + i) % RT_TUNE_SLOTS];
        if (atomic_load_explicit(&e->ready, memory_order_relaxed)) continue;
        e->key = *key;
        e->config = config;
        atomic_store_explicit(&e->ready, 1, memory_order_release);
        return;
    }
}

/* --------------------------------------------------------- candidates */

_Static_assert(sizeof(RtTuneKey) % 8 == 0, "RtTuneKey is whole words");

typedef struct Cand {
    uint32_t config;
    const RtVariant *variant;
    uint32_t grid[3];
    uint32_t ntmaps;             /* its variant's tensor maps, evaluated */
    RtTmapArgs tmap[TLB_MAX_TMAPS];
    const char *skip;            /* why it does not run; NULL: it does */
    char why[200];
    int local;                   /* local memory bytes per thread */
    double ms;                   /* median time */
} Cand;

typedef struct Saved {
    CUdeviceptr base, copy;
    size_t size;
} Saved;

typedef struct Tuner {
    const RtDriver *d;
    TileKernel *k;
    RtModule *m;
    RtPlan q;                    /* p with each candidate's config in turn */
    TileStream stream;
    Cand *c;
    uint32_t n;
    Saved *saved;
    uint32_t nsaved;
    CUevent ev[2 * MAX_REPEATS];
    int nev;
    char key[256];
} Tuner;

static void skip(Cand *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void skip(Cand *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    c->skip = c->why;
}

static void use(Tuner *t, const Cand *c) {
    t->q.config = &t->k->configs[c->config];
    t->q.variant = c->variant;
    memcpy(t->q.grid, c->grid, sizeof c->grid);
    t->q.ntmaps = c->ntmaps;
    memcpy(t->q.tmap, c->tmap, sizeof c->tmap);
}

/* Plans and loads candidate c; records why it cannot run. */
static void check_candidate(Tuner *t, Cand *c, const uint32_t *grid, int smem_max) {
    const RtDriver *d = t->d;
    if (rt_plan_config(t->k, c->config, grid, &t->q)) {
        skip(c, "%s", tile_last_error());
        return;
    }
    if (t->q.empty) {
        skip(c, "its grid is empty for these arguments");
        return;
    }
    c->variant = t->q.variant;
    memcpy(c->grid, t->q.grid, sizeof c->grid);
    c->ntmaps = t->q.ntmaps;
    memcpy(c->tmap, t->q.tmap, sizeof c->tmap);
    CUfunction f;
    if (rt_function(d, t->k, t->m, c->variant, &f)) {
        skip(c, "cannot load: %s", tile_last_error());
        return;
    }
    int threads = 0, shared = 0, regs = 0;
    uint32_t want = t->k->configs[c->config].threads;
    d->func_get_attribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
    d->func_get_attribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
    d->func_get_attribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
    d->func_get_attribute(&c->local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f);
    long long smem = (long long)shared + c->variant->v->dyn_smem;
    if (threads > 0 && (uint32_t)threads < want)
        skip(c, "uses %d registers per thread: at most %d threads per program, it runs %u",
             regs, threads, want);
    else if (smem_max > 0 && smem > smem_max)
        skip(c, "needs %lld bytes of shared memory, the device has %d per block", smem,
             smem_max);
}

/* Copies the allocations behind stored-through pointers aside; -1 (with
 * a note) when that is impossible. */
static int save_stored(Tuner *t) {
    const RtDriver *d = t->d;
    const TlbKernel *tk = t->k->k;
    t->saved = calloc(tk->nparams ? tk->nparams : 1, sizeof *t->saved);
    if (!t->saved) return -1;
    for (uint32_t i = 0; i < tk->nparams; i++) {
        if (!(tk->params[i].flags & TLB_PARAM_STORED) || !t->q.slots[i]) continue;
        CUdeviceptr base;
        size_t size;
        CUresult r = d->mem_get_address_range(&base, &size, t->q.slots[i]);
        if (r) {
            rt_note(t->k->bundle, "%s: cannot save '%s' for tuning: the driver knows no "
                    "allocation at 0x%llx", tk->name, tk->params[i].name,
                    (unsigned long long)t->q.slots[i]);
            return -1;
        }
        int seen = 0;
        for (uint32_t s = 0; s < t->nsaved; s++) seen |= t->saved[s].base == base;
        if (seen) continue;
        Saved *sv = &t->saved[t->nsaved];
        if (d->mem_alloc(&sv->copy, size) ||
            d->memcpy_dtod_async(sv->copy, base, size, t->stream)) {
            if (sv->copy) d->mem_free(sv->copy);
            rt_note(t->k->bundle, "%s: cannot save '%s' (%zu bytes) for tuning", tk->name,
                    tk->params[i].name, size);
            return -1;
        }
        sv->base = base;
        sv->size = size;
        t->nsaved++;
    }
    return 0;
}

/* Copies the saved allocations back and frees the copies. */
static TileStatus restore_stored(Tuner *t) {
    const RtDriver *d = t->d;
    CUresult r = CUDA_SUCCESS, r2;
    for (uint32_t s = 0; s < t->nsaved; s++)
        if ((r2 = d->memcpy_dtod_async(t->saved[s].base, t->saved[s].copy, t->saved[s].size,
                                       t->stream)) && !r)
            r = r2;
    if ((r2 = d->stream_synchronize(t->stream)) && !r) r = r2;
    for (uint32_t s = 0; s < t->nsaved; s++) d->mem_free(t->saved[s].copy);
    t->nsaved = 0;
    char buf[160];
    return r ? rt_error(TILE_ERROR_CUDA, "kernel '%s': restoring its outputs after tuning "
                        "failed: %s", t->k->k->name, rt_cuda_error(d, r, buf, sizeof buf))
             : TILE_OK;
}

/* The L2 flush buffer of module m (twice the L2 size), made once. */
static void flush_buffer(const RtDriver *d, TileBundle *b, RtModule *m) {
    pthread_mutex_lock(&b->lock);
    if (!m->flush) {
        int l2 = 0;
        d->device_get_attribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, m->dev);
        size_t size = 2 * (size_t)(l2 > 0 ? l2 : 1 << 20);
        if (d->mem_alloc(&m->flush, size) == CUDA_SUCCESS) m->flush_size = size;
        else m->flush = 0;
    }
    pthread_mutex_unlock(&b->lock);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Times candidate c: 0, or -1 when a launch failed (c skipped) or an
 * event call failed (*fatal set). */
static int time_candidate(Tuner *t, Cand *c, TileStatus *fatal) {
    const RtDriver *d = t->d;
    use(t, c);
    TileStatus s = rt_launch(t->k, t->m, &t->q, t->stream);   /* warm-up */
    CUresult r = CUDA_SUCCESS;
    float ms = 0;
    if (!s && !(r = d->event_record(t->ev[0], t->stream)) &&
        !(s = rt_launch(t->k, t->m, &t->q, t->stream)) &&
        !(r = d->event_record(t->ev[1], t->stream)) && !(r = d->event_synchronize(t->ev[1])))
        r = d->event_elapsed_time(&ms, t->ev[0], t->ev[1]);
    if (s) {
        skip(c, "launch failed: %s", tile_last_error());
        return -1;
    }
    int reps = ms > 0 ? (int)(BUDGET_MS / ms) : MAX_REPEATS;
    reps = reps < MIN_REPEATS ? MIN_REPEATS : reps > MAX_REPEATS ? MAX_REPEATS : reps;
    for (int i = 0; i < reps && !r && !s; i++) {
        if (t->m->flush)
            r = d->memset_d8_async(t->m->flush, (unsigned char)i, t->m->flush_size, t->stream);
        if (!r) r = d->event_record(t->ev[2 * i], t->stream);
        if (!r) s = rt_launch(t->k, t->m, &t->q, t->stream);
        if (!r && !s) r = d->event_record(t->ev[2 * i + 1], t->stream);
    }
    if (s) {
        skip(c, "launch failed: %s", tile_last_error());
        return -1;
    }
    double times[MAX_REPEATS];
    if (!r) r = d->event_synchronize(t->ev[2 * reps - 1]);
    for (int i = 0; i < reps && !r; i++) {
        r = d->event_elapsed_time(&ms, t->ev[2 * i], t->ev[2 * i + 1]);
        times[i] = ms;
    }
    if (r) {
        char buf[160];
        *fatal = rt_error(TILE_ERROR_CUDA, "kernel '%s': timing for autotuning failed: %s",
                          t->k->k->name, rt_cuda_error(d, r, buf, sizeof buf));
        return -1;
    }
    qsort(times, (size_t)reps, sizeof *times, cmp_double);
    c->ms = reps % 2 ? times[reps / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;
    return 0;
}

static void progress(const Tuner *t, uint32_t i, const Cand *best) {
    if (t->k->bundle->verbose || !isatty(2)) return;
    if (i == t->n) {
        fputs("\r\033[K", stderr);
        return;
    }
    fprintf(stderr, "\r\033[Ktile: tuning %s: configuration %u of %u", t->k->k->name, i + 1,
            t->n);
    if (best) fprintf(stderr, ", best %.1f us (%s)", best->ms * 1e3,
                      t->k->config_names[best->config]);
}

/* Times the usable candidates; *best the winner (NULL: none timed). */
static TileStatus time_all(Tuner *t, Cand **best) {
    const RtDriver *d = t->d;
    TileStatus fatal = TILE_OK;
    for (t->nev = 0; t->nev < 2 * MAX_REPEATS; t->nev++) {
        CUresult r = d->event_create(&t->ev[t->nev], CU_EVENT_DEFAULT);
        if (r) {
            char buf[160];
            return rt_error(TILE_ERROR_CUDA, "kernel '%s': cannot create CUDA events for "
                            "autotuning: %s", t->k->k->name,
                            rt_cuda_error(d, r, buf, sizeof buf));
        }
    }
    flush_buffer(d, t->k->bundle, t->m);
    *best = NULL;
    for (uint32_t i = 0; i < t->n && !fatal; i++) {
        Cand *c = &t->c[i];
        progress(t, i, *best);
        if (c->skip) continue;
        if (time_candidate(t, c, &fatal) == 0 && (!*best || c->ms < (*best)->ms)) *best = c;
    }
    progress(t, t->n, NULL);
    return fatal;
}

static void report(const Tuner *t, const Cand *best) {
    TileBundle *b = t->k->bundle;
    for (uint32_t i = 0; i < t->n; i++) {
        const Cand *c = &t->c[i];
        if (c->skip)
            rt_note(b, "  %-40s skipped: %s", t->k->config_names[c->config], c->skip);
        else if (c->ms > 0)
            rt_note(b, "  %-40s %10.2f us%s", t->k->config_names[c->config], c->ms * 1e3,
                    c == best ? "  <- chosen" : "");
        else if (c == best)
            rt_note(b, "  %-40s chosen without timing", t->k->config_names[c->config]);
    }
}

/* Tunes key on module m; *config the winner; *remember whether to keep
 * it. */
static TileStatus tune(Tuner *t, int selection, const uint32_t *grid, int *config,
                       int *remember) {
    const RtDriver *d = t->d;
    TileKernel *k = t->k;
    TileBundle *b = k->bundle;
    int smem_max = 0;
    d->device_get_attribute(&smem_max, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                            t->m->dev);
    t->c = calloc(k->k->nconfigs, sizeof *t->c);
    if (!t->c) return rt_error(TILE_ERROR_OUT_OF_MEMORY, "out of memory tuning '%s'", k->k->name);
    for (uint32_t c = 0; c < k->k->nconfigs; c++)
        if (rt_selected(k, selection, c) && rt_config_holds(k, c, &t->q) == 1)
            t->c[t->n++].config = c;
    rt_note(b, "tuning %s for %s on %s: %u candidates", k->k->name, t->key,
            t->m->device_name, t->n);
    int spill_max = 256, usable = 0, lean = 0;
    const char *env = getenv("TILE_TUNE_MAX_SPILL");
    if (env && *env) spill_max = atoi(env);
    for (uint32_t i = 0; i < t->n; i++) {
        check_candidate(t, &t->c[i], grid, smem_max);
        usable += !t->c[i].skip;
        lean += !t->c[i].skip && t->c[i].local <= spill_max;
    }
    for (uint32_t i = 0; i < t->n && lean; i++)
        if (!t->c[i].skip && t->c[i].local > spill_max)
            skip(&t->c[i], "spills: %d bytes of local memory per thread (more than "
                 "TILE_TUNE_MAX_SPILL=%d)", t->c[i].local, spill_max);
    Cand *first = NULL;
    for (uint32_t i = 0; i < t->n && !first; i++)
        if (!t->c[i].skip) first = &t->c[i];
    if (!first) {
        report(t, NULL);
        return rt_error(TILE_ERROR_NO_CONFIG, "kernel '%s': none of its %u candidate "
                        "configurations can run on device %d (%s); configuration %s: %s",
                        k->k->name, t->n, t->m->dev, t->m->device_name,
                        k->config_names[t->c[0].config], t->c[0].skip);
    }
    int capturing = CU_STREAM_CAPTURE_STATUS_NONE;
    d->stream_is_capturing(t->stream, &capturing);
    Cand *best = first;
    TileStatus s = TILE_OK;
    if (usable == 1 || lean == 1) {
        rt_note(b, "%s: one usable candidate", k->k->name);
    } else if (capturing != CU_STREAM_CAPTURE_STATUS_NONE) {
        rt_note(b, "%s: the stream is being captured: running %s untuned", k->k->name,
                k->config_names[first->config]);
        *remember = 0;
    } else if (save_stored(t)) {
        rt_note(b, "%s: running %s untuned", k->k->name, k->config_names[first->config]);
        *remember = 0;
    } else {
        s = time_all(t, &best);
        TileStatus r = restore_stored(t);
        if (!s) s = r;
        if (!best) best = first, *remember = 0;
    }
    for (int i = 0; i < t->nev; i++) d->event_destroy(t->ev[i]);
    if (t->nsaved) d->stream_synchronize(t->stream);   /* a failed save_stored */
    for (uint32_t i = 0; i < t->nsaved; i++) d->mem_free(t->saved[i].copy);
    if (s) return s;
    report(t, best);
    *config = (int)best->config;
    return TILE_OK;
}

/* The slow path: a key not in the table. */
static TileStatus choose_slow(const RtDriver *d, TileKernel *k, int selection,
                              const uint32_t *grid, const RtPlan *p, TileStream stream,
                              RtModule *m, const RtTuneKey *key, uint64_t h, int *config) {
    TileBundle *b = k->bundle;
    pthread_mutex_lock(&k->tune_lock);
    RtTuneTable *table = atomic_load_explicit(&m->tune[k->index], memory_order_acquire);
    if (!table && (table = calloc(1, sizeof *table)))
        atomic_store_explicit(&m->tune[k->index], table, memory_order_release);
    TileStatus s = table ? TILE_OK : rt_error(TILE_ERROR_OUT_OF_MEMORY, "out of memory "
                                              "tuning kernel '%s'", k->k->name);
    *config = table ? table_find(table, key, h) : 0;
    Tuner *t = NULL;
    if (!s && *config < 0 && !(t = calloc(1, sizeof *t)))
        s = rt_error(TILE_ERROR_OUT_OF_MEMORY, "out of memory tuning kernel '%s'", k->k->name);
    if (t) {
        *t = (Tuner){.d = d, .k = k, .m = m, .q = *p, .stream = stream};
        rt_key_text(k, key, t->key, sizeof t->key);
        int c = b->autotune == 1 ? rt_cache_lookup(k, m->device_name, d->version, key) : -1;
        if (c >= 0 && (!rt_selected(k, selection, (uint32_t)c) ||
                       rt_config_holds(k, (uint32_t)c, p) != 1))
            c = -1;
        int remember = 1;
        if (c >= 0) {
            rt_note(b, "%s: %s for %s from the tuning cache", k->k->name, k->config_names[c],
                    t->key);
        } else if (!(s = tune(t, selection, grid, &c, &remember)) && remember &&
                   t->n > 1) {
            const Cand *w = NULL;
            for (uint32_t i = 0; i < t->n; i++)
                if (t->c[i].config == (uint32_t)c) w = &t->c[i];
            rt_cache_store(k, m->device_name, d->version, key, c, w ? w->ms * 1e3 : 0);
        }
        if (!s && remember) table_insert(table, key, h, c);
        *config = c;
        free(t->c);
        free(t->saved);
        free(t);
    }
    pthread_mutex_unlock(&k->tune_lock);
    return s;
}

TileStatus rt_choose(TileKernel *k, int selection, const uint32_t *grid, RtPlan *p,
                     TileStream stream, RtModule **m) {
    const TlbKernel *tk = k->k;
    if (tk->nconfigs == 1 || !k->bundle->autotune) return TILE_OK;
    uint32_t n = 0;
    uint64_t ch = RT_HASH_SEED;
    for (uint32_t c = 0; c < tk->nconfigs; c++) {
        if (!rt_selected(k, selection, c)) continue;
        int h = rt_config_holds(k, c, p);
        if (h < 0) return TILE_ERROR_NO_CONFIG;
        if (h) {
            ch = rt_hash(ch, &c, sizeof c);
            n++;
        }
    }
    if (n < 2) return TILE_OK;           /* rt_plan chose the only one */
    RtTuneKey key;
    rt_tune_key(k, p, NULL, 0, &key);
    key.candidates = ch;
    TileStatus s;
    const RtDriver *d = rt_driver(&s);
    CUcontext ctx;
    if (!d || (s = rt_module(d, k, &ctx, m))) return s;
    uint64_t h = key_hash(&key);
    const RtTuneTable *table = atomic_load_explicit(&(*m)->tune[k->index], memory_order_acquire);
    int c = table ? table_find(table, &key, h) : -1;
    if (c < 0 && (s = choose_slow(d, k, selection, grid, p, stream, *m, &key, h, &c)))
        return s;
    if (p->config == &k->configs[c]) return TILE_OK;
    return rt_plan_config(k, (uint32_t)c, grid, p);
}
