/*
 * tile.h — libtile: load Tile bundles (.tlb, written by `tilec -o`) and
 * launch their kernels on NVIDIA GPUs.
 *
 *     TileBundle *b;
 *     TileKernel *k;
 *     if (tile_bundle_load("softmax.tlb", &b) || tile_kernel_get(b, "softmax", &k))
 *         die(tile_last_error());
 *     TileLaunchArg args[] = {tile_ptr(out), tile_ptr(x), tile_int(rows),
 *                       tile_int(cols), tile_int(stride)};
 *     if (tile_launch(k, args, 5, stream))
 *         die(tile_last_error());
 *
 * libtile needs no CUDA headers or libraries at build time: it loads the
 * driver (libcuda.so.1) with dlopen on first use. A launch checks the
 * arguments against the kernel's signature, picks the configuration (among
 * those whose @require holds, the fastest: autotuned on the first launch
 * of each tuning key, remembered in memory and in a cache on disk) and the
 * most specialized variant the
 * arguments allow (16-byte aligned pointers, integers divisible by 16),
 * evaluates the kernel's grid and launches on the caller's stream in the
 * calling thread's current CUDA context (device 0's primary context when
 * the thread has none). Modules are loaded per context on first use.
 *
 * Every function returns TILE_OK (0) or an error status; the message of the
 * calling thread's last error, naming the kernel, the argument and the
 * CUDA error where there is one, is tile_last_error(). All functions are
 * thread-safe; a bundle and its kernels may be shared by threads.
 * docs/runtime.md is the reference.
 */
#ifndef TILE_H
#define TILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TileStatus {
    TILE_OK = 0,
    TILE_ERROR_INVALID_VALUE,      /* NULL where a value is needed, ... */
    TILE_ERROR_IO,                 /* the bundle file cannot be read */
    TILE_ERROR_INVALID_BUNDLE,     /* damaged, truncated or foreign file */
    TILE_ERROR_NOT_FOUND,          /* no kernel of that name */
    TILE_ERROR_ARGUMENT,           /* wrong count, kind or value */
    TILE_ERROR_NO_CONFIG,          /* no configuration's @require holds */
    TILE_ERROR_GRID,               /* grid out of range or not given */
    TILE_ERROR_NO_DRIVER,          /* libcuda.so.1 missing or unusable */
    TILE_ERROR_DRIVER_TOO_OLD,
    TILE_ERROR_NO_DEVICE,
    TILE_ERROR_UNSUPPORTED_DEVICE, /* the bundle has no code for it */
    TILE_ERROR_CUDA,               /* a driver call failed */
    TILE_ERROR_OUT_OF_MEMORY
} TileStatus;

typedef struct TileBundle TileBundle;
typedef struct TileKernel TileKernel;

/* A CUstream (or cudaStream_t: the same type); NULL is the default stream
 * of the current context. */
typedef struct CUstream_st *TileStream;

/* One launch argument. Pointers are device addresses (CUdeviceptr, or a
 * cudaMalloc'd pointer cast to uintptr_t); integers and bools are given as
 * int64_t and must fit the parameter's type; floats as double, converted
 * (rounding to nearest even) to the parameter's f16, bf16, f32 or f64.
 * (The names differ from tile_interp.h's TileArg, whose arguments are host
 * buffers, so that a program may use both.) */
typedef enum TileLaunchArgKind {
    TILE_LAUNCH_PTR = 1,
    TILE_LAUNCH_INT,
    TILE_LAUNCH_FLOAT
} TileLaunchArgKind;

typedef struct TileLaunchArg {
    TileLaunchArgKind kind;
    union {
        uint64_t ptr;
        int64_t i;
        double f;
    } v;
} TileLaunchArg;

static inline TileLaunchArg tile_ptr(uint64_t p) {
    TileLaunchArg a;
    a.kind = TILE_LAUNCH_PTR;
    a.v.ptr = p;
    return a;
}
static inline TileLaunchArg tile_int(int64_t i) {
    TileLaunchArg a;
    a.kind = TILE_LAUNCH_INT;
    a.v.i = i;
    return a;
}
static inline TileLaunchArg tile_float(double f) {
    TileLaunchArg a;
    a.kind = TILE_LAUNCH_FLOAT;
    a.v.f = f;
    return a;
}

/* Loads the CUDA driver and checks there is a usable device. Optional:
 * the first launch does it. Fails with TILE_ERROR_NO_DRIVER,
 * TILE_ERROR_DRIVER_TOO_OLD (libtile needs CUDA 12.0 or newer) or
 * TILE_ERROR_NO_DEVICE. $TILE_LIBCUDA, when set, names the driver library
 * to load instead of libcuda.so.1. */
TileStatus tile_init(void);

/* Reads and verifies a bundle (the file, or `size` bytes at `data`, which
 * are copied). Needs no driver and no device. */
TileStatus tile_bundle_load(const char *path, TileBundle **out);
TileStatus tile_bundle_load_memory(const void *data, size_t size, TileBundle **out);
/* Unloads the bundle's modules from every context that loaded them and
 * frees it. No launch of its kernels may be in progress or follow. */
void tile_bundle_free(TileBundle *b);

/* The kernel called `name`; TILE_ERROR_NOT_FOUND when there is none. The
 * kernel lives as long as its bundle. */
TileStatus tile_kernel_get(TileBundle *b, const char *name, TileKernel **out);

/* Launches k with its `grid(...)`. TILE_ERROR_GRID when the kernel has no
 * grid clause (use tile_launch_grid). A grid with a zero dimension
 * launches nothing and succeeds. */
TileStatus tile_launch(TileKernel *k, const TileLaunchArg *args, int nargs,
                       TileStream stream);
/* Launches k on an explicit grid (grid[0..2], each at least 1), for
 * kernels without a grid clause, or to override it. */
TileStatus tile_launch_grid(TileKernel *k, const uint32_t grid[3],
                            const TileLaunchArg *args, int nargs, TileStream stream);

/* Configurations and autotuning (docs/runtime.md, "Autotuning").
 *
 * A selection is a set of the kernel's configurations, named by a
 * "NAME=VALUE,..." string over its compile-time parameters, `warps` and
 * `stages` ("BLOCK=1024,warps=4"; values as tile_kernel_config_name prints
 * them): those that agree with every NAME=VALUE. Selection 0 is every
 * configuration; a NULL or "" spec gives 0; the same spec gives the same
 * id. TILE_ERROR_NOT_FOUND when no configuration agrees (the message
 * lists them), TILE_ERROR_INVALID_VALUE for an unknown name. */
TileStatus tile_kernel_select(TileKernel *k, const char *spec, int *selection);
/* Launches among the selection's configurations whose @require holds
 * (autotuning picks when there are several); grid NULL: the kernel's
 * grid(...). *chosen (when not NULL) gets the configuration's index. */
TileStatus tile_launch_select(TileKernel *k, int selection, const uint32_t *grid,
                              const TileLaunchArg *args, int nargs, TileStream stream,
                              int *chosen);
/* The configuration tile_launch_select would run with these arguments,
 * without launching it; autotunes first when this key was not tuned yet
 * (timing launches the candidates; outputs are restored afterwards). */
TileStatus tile_kernel_choose(TileKernel *k, int selection, const uint32_t *grid,
                              const TileLaunchArg *args, int nargs, TileStream stream,
                              int *config);
/* The number of configurations, and configuration i as
 * "BLOCK=1024,warps=4,stages=3" (NULL when out of range). */
int tile_kernel_nconfigs(const TileKernel *k);
const char *tile_kernel_config_name(const TileKernel *k, int i);
/* The number of dimensions of the kernel's grid(...) clause (1 to 3:
 * tile_launch works), 0 when it has none (the caller gives the grid), -1
 * for NULL. (tile_interp.h's tile_kernel_has_grid asks the same of a
 * compiled program.) */
int tile_kernel_grid_dims(const TileKernel *k);
/* 1 when the kernel stores (or atomically updates) through pointer
 * parameter i, 0 when not, -1 when i is out of range. */
int tile_kernel_param_stored(const TileKernel *k, int i);

/* The message of this thread's last failed call ("" when none). Valid
 * until the thread's next failing call. */
const char *tile_last_error(void);
/* "TILE_ERROR_ARGUMENT" */
const char *tile_status_name(TileStatus s);

/* Introspection, for bindings and tools. The signature reads
 * "vadd(out: *f32, x: *f32, y: *f32, n: i32)". Parameter i's name and type
 * ("*f32", "i32", "bool"): TILE_ERROR_INVALID_VALUE when out of range. */
const char *tile_kernel_signature(const TileKernel *k);
int tile_kernel_nparams(const TileKernel *k);
TileStatus tile_kernel_param(const TileKernel *k, int i, const char **name,
                             const char **type);
/* The bundle's kernels, in source order: their number and names. */
int tile_bundle_nkernels(const TileBundle *b);
const char *tile_bundle_kernel(const TileBundle *b, int i);

#ifdef __cplusplus
}
#endif
#endif
