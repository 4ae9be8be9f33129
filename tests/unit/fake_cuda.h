/* fake_cuda.h — what the driver test double (fake_libcuda.c) records of
 * tensor maps, shared by the double and the tests that read its records
 * (test_tmap): each cuTensorMapEncodeTiled call with its arguments, and,
 * per launch, the parameters and the maps it passed.
 *
 * The double "encodes" a map as FAKE_TMAP_MAGIC in its first 8 bytes and
 * the call's number (from 1) in the next 8, so a test finds in a launch's
 * parameters which call made each map; the rest of the 128 bytes is 0. */
#ifndef TILE_TEST_FAKE_CUDA_H
#define TILE_TEST_FAKE_CUDA_H

enum { FAKE_TMAP_MAGIC = 0x50414d54, FAKE_MAX_TMAP_CALLS = 256, FAKE_LAUNCH_LOG = 256 };

typedef struct FakeTmapCall {
    int type, interleave, swizzle, l2, oob;
    unsigned rank;
    unsigned long long addr, dim[5], stride[4];
    unsigned box[5], estride[5];
} FakeTmapCall;

/* A launch, with $FAKE_CUDA_NPARAMS ordinary parameters and
 * $FAKE_CUDA_NTMAPS maps after them (both 0 when unset: nothing but the
 * entry is recorded). */
typedef struct FakeLaunch {
    char entry[64];
    unsigned long long params[16];      /* each one's first 8 bytes */
    unsigned long long maps[8][16];     /* each map's 128 bytes */
    int aligned;                        /* every map at a multiple of 64 */
} FakeLaunch;

/* The functions the double exports, for dlsym:
 *   int fake_cuda_tmap_calls(void)                    calls so far
 *   const FakeTmapCall *fake_cuda_tmap_call(int n)    call n (from 1), or NULL
 *   const FakeLaunch *fake_cuda_launch_log(int n)     launch n (from 1; the
 *                                                     last FAKE_LAUNCH_LOG), or NULL
 * $FAKE_CUDA_TMAP_FAIL=1 makes the encoding fail with
 * CUDA_ERROR_INVALID_VALUE; FAKE_CUDA_MISSING=cuTensorMapEncodeTiled
 * makes it absent. */

#endif
