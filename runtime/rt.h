/*
 * rt.h — libtile's insides: what a loaded bundle and kernel hold, and the
 * launch plan.
 *
 * The launch path is split in two so that everything but the driver can be
 * tested on a machine without a GPU:
 *   rt_plan    (plan.c)   arguments → checked, packed parameter slots,
 *                          configuration (@require), variant, grid, the
 *                          variant's tensor maps evaluated. Pure C.
 *   rt_launch  (launch.c) context → module → CUfunction → cuLaunchKernel.
 *
 * What a launch would otherwise recompute is precomputed when the bundle
 * is loaded (load.c): per parameter its checking class and element size,
 * per configuration its variants in the bundle's order of preference, its
 * thread count, per variant its index in the per-context function table.
 *
 * Per CUDA context that launches the bundle, an RtModule holds the loaded
 * module and a table of CUfunctions, one per variant, resolved on first
 * use. Modules are published lock-free (the context handle is stored last,
 * with release semantics) and found by a linear scan of a few entries; the
 * bundle's mutex serializes only their creation and the first resolution
 * of each function.
 */
#ifndef TILE_RT_H
#define TILE_RT_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "bundle/bundle.h"
#include "bundle/choose.h"
#include "runtime/driver.h"
#include "runtime/tile.h"

#define RT_ERRLEN 1024
_Static_assert(RT_ERRLEN >= TLB_CHOOSE_ERRLEN, "the chooser's messages fit whole");
#define RT_MAX_DEVICES 64
#define RT_MAX_PARAMS 256     /* more than a PTX entry's parameter space */
#define RT_MAX_CONTEXTS 32
#define RT_MAX_TUNE_KEY 8     /* tune-key values kept verbatim (more: hashed) */
#define RT_TUNE_SLOTS 256     /* remembered keys per kernel and context */
#define RT_MAX_SELECTIONS 256 /* tile_kernel_select ids per kernel */

/* Sets the calling thread's error message; returns s. */
TileStatus rt_error(TileStatus s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

typedef enum { RT_PARAM_PTR, RT_PARAM_INT, RT_PARAM_BOOL, RT_PARAM_FLOAT } RtParamClass;

typedef struct RtParam {
    uint8_t cls;          /* RtParamClass */
    uint8_t type;         /* TlbType */
    uint8_t elem_bytes;   /* pointers: the pointee's size */
    uint8_t specialize;   /* integers: may have a guard (not @nospecialize) */
    uint8_t guard_cap;    /* its largest guard in any variant: beyond it,
                             divisibility decides nothing (tuning keys) */
    uint8_t guard_one;    /* some variant guards it to equal 1 */
    int64_t min, max;     /* integers: the type's range */
} RtParam;

typedef struct RtVariant {
    const TlbVariant *v;
    uint32_t slot;        /* index into RtModule.funcs */
    uint32_t threads;     /* its configuration's warps * 32, and a
                             producer warpgroup's (TLB_VARIANT_WARPSPEC) */
} RtVariant;

typedef struct RtConfig {
    const TlbConfig *c;
    uint32_t threads;     /* warps * 32 */
    uint32_t nvariants;
    RtVariant *variants;  /* the bundle's order: the first whose guard
                             holds is launched */
} RtConfig;

/* A set of configurations chosen by tile_kernel_select: in[c] != 0 when
 * configuration c belongs to it. */
typedef struct RtSelection {
    char *spec;                /* as given, for tile_kernel_select's reuse */
    uint8_t *in;               /* [nconfigs] */
} RtSelection;

struct TileKernel {
    TileBundle *bundle;
    const TlbKernel *k;
    RtParam *params;
    RtConfig *configs;
    int has_require;
    char *signature;
    const char **type_names;   /* per parameter: "*f32" */
    char **config_names;       /* per configuration: "BLOCK=1024,warps=4,stages=3" */
    uint32_t index;            /* in the bundle */
    pthread_mutex_t tune_lock; /* serializes tuning and selection creation */
    atomic_int nselections;    /* selection 0 (all) is implicit */
    RtSelection selections[RT_MAX_SELECTIONS];
};

/* A tuning key: the @tune_key values rounded up to powers of two, the
 * specialization facts of the arguments (what decides each
 * configuration's variant) and a hash of the candidate set
 * (which configurations are selected and pass @require). The device is
 * the module's (one table per context); the dtypes are the kernel's
 * signature, fixed in a bundle. */
typedef struct RtTuneKey {
    uint32_t nvals;
    uint32_t zero;             /* no padding: keys are compared as bytes */
    uint64_t facts;            /* hash of the arguments' mult, each capped at
                                  its parameter's largest guard, and of
                                  which equal 1 where a guard asks */
    uint64_t candidates;       /* hash of the candidate indices */
    uint64_t rest;             /* hash of values past RT_MAX_TUNE_KEY */
    int64_t vals[RT_MAX_TUNE_KEY];
} RtTuneKey;

typedef struct RtTuneEntry {
    atomic_uint ready;         /* set last, with release semantics */
    int32_t config;
    RtTuneKey key;
} RtTuneEntry;

typedef struct RtTuneTable {
    RtTuneEntry e[RT_TUNE_SLOTS];
} RtTuneTable;

/* A function's L1 carveout (launch.c, prefer_l1): `pct` (0: none) for
 * grids of more than `past` programs (a quarter more than one full wave,
 * every program that fits on every SM: a grid about one wave holds keeps
 * the driver's carveout, running at once being worth more than L1 then);
 * `on`: whether the function has it now. */
typedef struct RtCarve {
    int pct;
    uint64_t past;
    atomic_int on;
    uint32_t resident;   /* a persistent variant's programs resident at
                            once (the occupancy calculator's programs per
                            SM times the SMs; 0: unknown): what libtile
                            launches at most (rt_launch) */
} RtCarve;

typedef struct RtModule {
    _Atomic(CUcontext) ctx;    /* set last: the entry is ready */
    CUmodule mod;
    CUdevice dev;
    int sms;                   /* the device's multiprocessors */
    _Atomic(CUfunction) *funcs;
    RtCarve *carve;            /* by slot, as funcs; written before the
                                  function is published */
    _Atomic(RtTuneTable *) *tune;   /* [nkernels], made on first tuning */
    char device_name[128];
    CUdeviceptr flush;              /* L2 flush buffer for timing (lazy) */
    size_t flush_size;
} RtModule;

struct TileBundle {
    TlbBundle *tlb;
    TileKernel *kernels;
    uint32_t nslots;           /* variants of all kernels and configs */
    uint64_t hash;             /* of the bundle's bytes: the cache's key */
    int autotune;              /* $TILE_AUTOTUNE at load: 0, 1, 2 (force) */
    int verbose;               /* $TILE_VERBOSE at load */
    uint32_t persistent_cap;   /* $TILE_PERSISTENT_PROGRAMS at load: the
                                  programs a persistent variant is launched
                                  with at most (0: as many as are resident) */
    pthread_mutex_t lock;
    atomic_int nmodules;
    RtModule modules[RT_MAX_CONTEXTS];
};

/* A tensor map of the chosen variant (TlbVariant.tmaps[t]) evaluated for
 * the launch's arguments: what cuTensorMapEncodeTiled takes besides the
 * bundle's fields. dim: extents in elements, innermost first, each
 * clamped to [1, 2^32]; stride: of dimensions 1 .. rank-1, in BYTES (the
 * bundle's elements times the element size). Past the map's rank: 0. */
typedef struct RtTmapArgs {
    uint64_t base;
    uint64_t dim[TLB_TMAP_MAXRANK];
    uint64_t stride[TLB_TMAP_MAXRANK - 1];   /* bytes */
} RtTmapArgs;

typedef struct RtPlan {
    const RtConfig *config;
    const RtVariant *variant;
    uint32_t grid[3];
    int empty;                     /* a zero grid dimension: no launch */
    int given;                     /* the caller gave the grid */
    uint8_t mult[RT_MAX_PARAMS];   /* log2 of the largest power of two (at
                                      most TLB_GUARD_MAX) dividing a pointer
                                      argument's address or a specializable
                                      integer's value; 0 for others: the
                                      facts of the tuning key (tune.c) */
    uint64_t slots[RT_MAX_PARAMS]; /* the parameters, each in its low bytes
                                      (integers sign-extended): what
                                      variant guards are held against */
    int64_t ints[RT_MAX_PARAMS];   /* integer arguments' values (others 0) */
    uint32_t ntmaps;                    /* the chosen variant's maps */
    RtTmapArgs tmap[TLB_MAX_TMAPS];     /* evaluated from the arguments */
} RtPlan;

/* A persistent variant's programs walk the programs of the kernel's
 * grid clause (TlbVariant.flags), each visited once whatever their
 * number, on a 1-D launch: g (p's grid) becomes (n, 1, 1), n the grid's
 * programs or cap where there are more (0: no cap; rt_launch passes
 * those resident at once, or $TILE_PERSISTENT_PROGRAMS). The kernel
 * counts them in i32, and computes its grid from its clause: a grid the
 * caller gave (tile_launch_grid) must be that one. Other variants: g as
 * it is. TILE_ERROR_GRID otherwise. */
TileStatus rt_persistent_grid(const TileKernel *k, const RtPlan *p, uint32_t cap,
                              uint32_t g[3]);
/* Checks and packs the arguments, picks configuration and variant and
 * computes the grid (`grid` given: that grid). No driver involved. The
 * configuration is the first of the selection whose @require holds. */
TileStatus rt_plan(const TileKernel *k, const uint32_t *grid, const TileLaunchArg *args,
                   int nargs, RtPlan *p);
/* The same among the configurations of a selection (tile_kernel_select). */
TileStatus rt_plan_select(const TileKernel *k, int selection, const uint32_t *grid,
                          const TileLaunchArg *args, int nargs, RtPlan *p);
/* Only the argument check and packing of rt_plan. */
TileStatus rt_pack(const TileKernel *k, const TileLaunchArg *args, int nargs, RtPlan *p);
/* Sets configuration c, its variant and grid, for packed p, and
 * evaluates the variant's tensor maps (rt_plan_tmaps). */
TileStatus rt_plan_config(const TileKernel *k, uint32_t c, const uint32_t *grid, RtPlan *p);
/* Evaluates the tensor maps of p's variant into p->ntmaps, p->tmap:
 * TILE_ERROR_ARGUMENT (the message names the kernel, the entry, the map's
 * pointer argument and the value) for a base not 16-byte aligned, a
 * stride below 1 element, not a multiple of 16 bytes or of 2^40 bytes or
 * more, or a division by zero. */
TileStatus rt_plan_tmaps(const TileKernel *k, RtPlan *p);
/* cuTensorMapEncodeTiled's data type (CU_TENSOR_MAP_DATA_TYPE_*) for
 * elements of type t, -1 for none: f8 and 8-bit integers are UINT8 (the
 * bytes are copied, not converted). */
int rt_tmap_data_type(TlbType t);
/* The first parameter whose guard in variant v p's arguments fail; -1
 * when they meet it. */
int rt_guard_fails(const TileKernel *k, const TlbVariant *v, const RtPlan *p);
/* Does every @require of configuration c hold for p's arguments? 1 yes,
 * 0 no, -1 division by zero (error set). bundle/choose.c decides. */
int rt_config_holds(const TileKernel *k, uint32_t c, const RtPlan *p);
/* Is configuration c in the selection? */
static inline int rt_selected(const TileKernel *k, int selection, uint32_t c) {
    return selection == 0 || k->selections[selection].in[c];
}

/* Shared memory against L1 (docs/runtime.md, "Shared memory and L1"). An
 * SM's L1 and shared memory are one store; left alone, the driver carves
 * out as much shared memory as the most programs that fit take, which can
 * leave L1 at its minimum (28 KiB on sm_80 and sm_90). A variant whose
 * bundle asks for `want` programs per SM (l1_programs) fewer than the
 * `fit` the driver would run gets a carveout that holds `want`:
 * rt_carveout_percent is that carveout, in percent of `sm` (the most an
 * SM can carve out), for `blocks` programs of `block` bytes (the driver's
 * reserved part included). Pure. */
int rt_carveout_percent(uint32_t blocks, uint32_t block, uint32_t sm);

/* The calling thread's context and the module of k's bundle there
 * (loaded on first use); errors name k. */
TileStatus rt_module(const RtDriver *d, TileKernel *k, CUcontext *ctx, RtModule **m);
/* The function of the plan's variant in m (resolved on first use). */
TileStatus rt_function(const RtDriver *d, TileKernel *k, RtModule *m, const RtVariant *v,
                       CUfunction *f);
/* Launches a plan in module m (NULL: the calling thread's current
 * context's). */
TileStatus rt_launch(TileKernel *k, RtModule *m, const RtPlan *p, TileStream stream);

/* Autotuning (tune.c): the configuration to run for packed p, among the
 * selection's candidates; p is planned for it on return. */
TileStatus rt_choose(TileKernel *k, int selection, const uint32_t *grid, RtPlan *p,
                     TileStream stream, RtModule **m);
/* The key of p's arguments for candidate set `cands` (n of them). */
void rt_tune_key(const TileKernel *k, const RtPlan *p, const uint32_t *cands, uint32_t n,
                 RtTuneKey *key);
/* 64-bit hash of bytes, continuing from h (start with RT_HASH_SEED). */
#define RT_HASH_SEED 0xcbf29ce484222325ull
uint64_t rt_hash(uint64_t h, const void *data, size_t n);
/* "cols=512,aligned" for messages and the cache file. */
void rt_key_text(const TileKernel *k, const RtTuneKey *key, char *buf, size_t n);

/* The on-disk cache (cache.c). Its file for b: <dir>/<hash>.tune, dir
 * from $TILE_CACHE_DIR, else $XDG_CACHE_HOME/tile, else ~/.cache/tile;
 * 0, or -1 when there is no directory to use. */
int rt_cache_path(const TileBundle *b, char *buf, size_t n);
/* The configuration cached for (kernel, device, driver, key), or -1. */
int rt_cache_lookup(const TileKernel *k, const char *device, int driver,
                    const RtTuneKey *key);
/* Records a winner (merging with what the file holds; atomic rename). 0,
 * or -1 (the reason printed when verbose). */
int rt_cache_store(const TileKernel *k, const char *device, int driver,
                   const RtTuneKey *key, int config, double us);

/* Messages of the tuner and the cache on stderr: verbose ones only with
 * $TILE_VERBOSE, warnings always. */
void rt_note(const TileBundle *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Unloads b's modules from the contexts that loaded them. */
void rt_unload_modules(TileBundle *b);

/* IEEE binary16 / bfloat16 bits of x, rounded to nearest even. */
uint16_t rt_f16_bits(double x);
uint16_t rt_bf16_bits(double x);

#endif
