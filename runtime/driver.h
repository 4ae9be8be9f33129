/*
 * driver.h — the slice of the CUDA Driver API libtile uses, loaded at run
 * time.
 *
 * libtile links nothing of CUDA and includes none of its headers: the few
 * types and constants below are the driver's stable ABI (opaque handles,
 * int results, the enum values named), written out so that libtile builds
 * where no toolkit is installed. The functions are resolved once per
 * process with cuGetProcAddress at CUDA 12.0 semantics, so each name gets
 * the versioned entry point (`cuMemAlloc` gives cuMemAlloc_v2,
 * `cuStreamBeginCapture` its _v2) without spelling the suffixes.
 *
 * Functions of RT_DRIVER_OPTIONAL are resolved alike but may be missing
 * (NULL): cuTensorMapEncodeTiled, which only launches of variants with
 * tensor maps need.
 *
 * The table also holds the calls the GPU tests and the launch benchmark
 * need (memory, streams, graphs), so that they load the driver the same
 * way instead of repeating this file.
 */
#ifndef TILE_RT_DRIVER_H
#define TILE_RT_DRIVER_H

#include "runtime/tile.h"

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_NOT_FOUND = 500,
};
enum {
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
};
enum {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
};
enum { CU_EVENT_DEFAULT = 0 };
enum { CU_STREAM_CAPTURE_STATUS_NONE = 0 };
enum { CU_STREAM_NON_BLOCKING = 1 };
enum {
    CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
    CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    CU_STREAM_CAPTURE_MODE_RELAXED = 2,
};

/* Tensor maps (TMA descriptors, sm_90): the opaque 128 bytes an entry
 * takes as a `.param .align 64 .b8 [128]`, and cuTensorMapEncodeTiled's
 * enums, with cuda.h's values (CUDA 12.0 on). */
typedef struct CUtensorMap {
    _Alignas(64) unsigned long long opaque[16];
} CUtensorMap;
_Static_assert(sizeof(CUtensorMap) == 128, "a tensor map is 128 bytes");
enum {
    CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0,
    CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1,
    CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2,
    CU_TENSOR_MAP_DATA_TYPE_INT32 = 3,
    CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4,
    CU_TENSOR_MAP_DATA_TYPE_INT64 = 5,
    CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6,
    CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7,
    CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8,
    CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9,
};
enum { CU_TENSOR_MAP_INTERLEAVE_NONE = 0 };
enum {
    CU_TENSOR_MAP_SWIZZLE_NONE = 0,
    CU_TENSOR_MAP_SWIZZLE_32B = 1,
    CU_TENSOR_MAP_SWIZZLE_64B = 2,
    CU_TENSOR_MAP_SWIZZLE_128B = 3,
};
enum { CU_TENSOR_MAP_L2_PROMOTION_NONE = 0, CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2 };
enum { CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0 };

#define RT_CUDA_VERSION 12000   /* the API semantics requested, and the
                                   oldest driver accepted */

/* X(field, "cuName", return-and-parameter list) */
#define RT_DRIVER_FUNCS(X)                                                         \
    X(init, "cuInit", (unsigned flags))                                           \
    X(device_get_count, "cuDeviceGetCount", (int *count))                         \
    X(device_get, "cuDeviceGet", (CUdevice * dev, int ordinal))                   \
    X(device_get_attribute, "cuDeviceGetAttribute", (int *v, int attr, CUdevice dev)) \
    X(device_get_name, "cuDeviceGetName", (char *name, int len, CUdevice dev))   \
    X(primary_ctx_retain, "cuDevicePrimaryCtxRetain", (CUcontext * ctx, CUdevice dev)) \
    X(primary_ctx_release, "cuDevicePrimaryCtxRelease", (CUdevice dev))           \
    X(ctx_get_current, "cuCtxGetCurrent", (CUcontext * ctx))                      \
    X(ctx_set_current, "cuCtxSetCurrent", (CUcontext ctx))                        \
    X(ctx_get_device, "cuCtxGetDevice", (CUdevice * dev))                         \
    X(ctx_push, "cuCtxPushCurrent", (CUcontext ctx))                              \
    X(ctx_pop, "cuCtxPopCurrent", (CUcontext * ctx))                              \
    X(ctx_synchronize, "cuCtxSynchronize", (void))                                \
    X(module_load_data, "cuModuleLoadData", (CUmodule * mod, const void *image))  \
    X(module_unload, "cuModuleUnload", (CUmodule mod))                            \
    X(module_get_function, "cuModuleGetFunction",                                 \
      (CUfunction * f, CUmodule mod, const char *name))                           \
    X(func_set_attribute, "cuFuncSetAttribute", (CUfunction f, int attr, int value)) \
    X(func_get_attribute, "cuFuncGetAttribute", (int *v, int attr, CUfunction f)) \
    X(occupancy_max_blocks, "cuOccupancyMaxActiveBlocksPerMultiprocessor",       \
      (int *blocks, CUfunction f, int threads, size_t dyn_smem))                  \
    X(launch_kernel, "cuLaunchKernel",                                            \
      (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,          \
       unsigned by, unsigned bz, unsigned smem, CUstream stream, void **params,   \
       void **extra))                                                             \
    X(get_error_name, "cuGetErrorName", (CUresult r, const char **s))            \
    X(get_error_string, "cuGetErrorString", (CUresult r, const char **s))        \
    X(mem_alloc, "cuMemAlloc", (CUdeviceptr * p, size_t bytes))                   \
    X(mem_free, "cuMemFree", (CUdeviceptr p))                                     \
    X(memcpy_htod, "cuMemcpyHtoD", (CUdeviceptr dst, const void *src, size_t n))  \
    X(memcpy_dtoh, "cuMemcpyDtoH", (void *dst, CUdeviceptr src, size_t n))        \
    X(memset_d8, "cuMemsetD8", (CUdeviceptr dst, unsigned char v, size_t n))      \
    X(memset_d8_async, "cuMemsetD8Async",                                         \
      (CUdeviceptr dst, unsigned char v, size_t n, CUstream s))                   \
    X(memcpy_dtod_async, "cuMemcpyDtoDAsync",                                     \
      (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s))                   \
    X(mem_get_address_range, "cuMemGetAddressRange",                              \
      (CUdeviceptr * base, size_t *size, CUdeviceptr p))                          \
    X(event_create, "cuEventCreate", (CUevent * e, unsigned flags))               \
    X(event_record, "cuEventRecord", (CUevent e, CUstream s))                     \
    X(event_synchronize, "cuEventSynchronize", (CUevent e))                       \
    X(event_elapsed_time, "cuEventElapsedTime", (float *ms, CUevent a, CUevent b)) \
    X(event_destroy, "cuEventDestroy", (CUevent e))                               \
    X(stream_is_capturing, "cuStreamIsCapturing", (CUstream s, int *status))      \
    X(stream_create, "cuStreamCreate", (CUstream * s, unsigned flags))            \
    X(stream_destroy, "cuStreamDestroy", (CUstream s))                            \
    X(stream_synchronize, "cuStreamSynchronize", (CUstream s))                    \
    X(stream_begin_capture, "cuStreamBeginCapture", (CUstream s, int mode))       \
    X(stream_end_capture, "cuStreamEndCapture", (CUstream s, CUgraph * g))        \
    X(graph_instantiate, "cuGraphInstantiateWithFlags",                           \
      (CUgraphExec * e, CUgraph g, unsigned long long flags))                     \
    X(graph_launch, "cuGraphLaunch", (CUgraphExec e, CUstream s))                 \
    X(graph_exec_destroy, "cuGraphExecDestroy", (CUgraphExec e))                  \
    X(graph_destroy, "cuGraphDestroy", (CUgraph g))

/* Functions a driver may lack (NULL then): what uses one fails with its
 * own message when it is absent, everything else works. The enums are
 * passed as int (a C enum's ABI). */
#define RT_DRIVER_OPTIONAL(X)                                                      \
    X(tensor_map_encode_tiled, "cuTensorMapEncodeTiled",                          \
      (CUtensorMap * map, int type, uint32_t rank, void *address, const uint64_t *dim, \
       const uint64_t *strides, const uint32_t *box, const uint32_t *element_strides, \
       int interleave, int swizzle, int l2_promotion, int oob_fill))

typedef struct RtDriver {
    int version;                 /* cuDriverGetVersion: 12040 = 12.4 */
    int ndevices;
#define X(field, name, params) CUresult (*field) params;
    RT_DRIVER_FUNCS(X)
    RT_DRIVER_OPTIONAL(X)
#undef X
} RtDriver;

/* Loads the driver once per process; the same result afterwards. On
 * failure returns NULL and sets *status and the thread's error. */
const RtDriver *rt_driver(TileStatus *status);

/* "CUDA_ERROR_INVALID_VALUE (invalid argument)" into buf. */
const char *rt_cuda_error(const RtDriver *d, CUresult r, char *buf, size_t n);

#endif
