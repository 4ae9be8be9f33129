/*
 * rt.h — libtile's insides: what a loaded bundle and kernel hold, and the
 * launch plan.
 *
 * The launch path is split in two so that everything but the driver can be
 * tested on a machine without a GPU:
 *   rt_plan    (plan.c)   arguments → checked, packed parameter slots,
 *                          configuration (@require), variant, grid. Pure C.
 *   rt_launch  (launch.c) context → module → CUfunction → cuLaunchKernel.
 *
 * What a launch would otherwise recompute is precomputed when the bundle
 * is loaded (load.c): per parameter its checking class and element size,
 * per configuration its variants sorted most specialized first and its
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
#include "runtime/driver.h"
#include "runtime/tile.h"

#define RT_ERRLEN 640
#define RT_MAX_DEVICES 64
#define RT_MAX_PARAMS 256     /* more than a PTX entry's parameter space */
#define RT_MAX_CONTEXTS 32

/* Sets the calling thread's error message; returns s. */
TileStatus rt_error(TileStatus s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

typedef enum { RT_PARAM_PTR, RT_PARAM_INT, RT_PARAM_BOOL, RT_PARAM_FLOAT } RtParamClass;

typedef struct RtParam {
    uint8_t cls;          /* RtParamClass */
    uint8_t type;         /* TlbType */
    uint8_t elem_bytes;   /* pointers: the pointee's size */
    uint8_t specialize;   /* integers: counts for TLB_ASSUME_DIV16 */
    int64_t min, max;     /* integers: the type's range */
} RtParam;

typedef struct RtVariant {
    const TlbVariant *v;
    uint32_t slot;        /* index into RtModule.funcs */
} RtVariant;

typedef struct RtConfig {
    const TlbConfig *c;
    uint32_t threads;     /* warps * 32 */
    uint32_t nvariants;
    RtVariant *variants;  /* most assumptions first */
} RtConfig;

struct TileKernel {
    TileBundle *bundle;
    const TlbKernel *k;
    RtParam *params;
    RtConfig *configs;
    int has_require;
    char *signature;
    const char **type_names;   /* per parameter: "*f32" */
};

typedef struct RtModule {
    _Atomic(CUcontext) ctx;    /* set last: the entry is ready */
    CUmodule mod;
    CUdevice dev;
    _Atomic(CUfunction) *funcs;
} RtModule;

struct TileBundle {
    TlbBundle *tlb;
    TileKernel *kernels;
    uint32_t nslots;           /* variants of all kernels and configs */
    pthread_mutex_t lock;
    atomic_int nmodules;
    RtModule modules[RT_MAX_CONTEXTS];
};

typedef struct RtPlan {
    const RtConfig *config;
    const RtVariant *variant;
    uint32_t grid[3];
    int empty;                     /* a zero grid dimension: no launch */
    uint64_t slots[RT_MAX_PARAMS]; /* the parameters, each in its low bytes */
} RtPlan;

/* Checks and packs the arguments, picks configuration and variant and
 * computes the grid (`grid` given: that grid). No driver involved. */
TileStatus rt_plan(const TileKernel *k, const uint32_t *grid, const TileLaunchArg *args,
                   int nargs, RtPlan *p);

/* Launches a plan in the calling thread's current context. */
TileStatus rt_launch(TileKernel *k, const RtPlan *p, TileStream stream);
/* Unloads b's modules from the contexts that loaded them. */
void rt_unload_modules(TileBundle *b);

/* IEEE binary16 / bfloat16 bits of x, rounded to nearest even. */
uint16_t rt_f16_bits(double x);
uint16_t rt_bf16_bits(double x);

#endif
