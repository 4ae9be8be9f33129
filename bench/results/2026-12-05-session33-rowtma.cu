// Session 33 experiment: can TMA copy the rows of an operand whose rows
// are not 16-byte aligned (odd K or N), one 1-D box per row through a 1-D
// tensor map over the whole buffer, into wgmma's 128-byte-swizzled layout,
// and how fast does it stream beside 2-D boxes?
//
// Build (here): nvcc -O2 -arch=sm_90a -o rowtma 2026-12-05-session33-rowtma.cu -lcuda
// Run (GPU): ./rowtma   — prints the layout checks, then a timing table.
//
// A [M, K] (row stride lda), B [K, N] (ldb), f16 bits; a program copies the
// 128 x 64 tile of A and the 64 x 128 tile of B for each of its K steps
// into a 4-stage ring and reads one element of each stage (no product):
// the copies alone. ROW: 128 + 128 boxes of 128 bytes a step, issued by the
// 32 lanes of warp 0; 2D: 3 boxes a step from lane 0 (aligned shapes only).
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <vector>
#include <algorithm>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CU(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { const char *s_; \
    cuGetErrorString(e_, &s_); fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_); exit(1); } } while (0)

enum { STAGES = 4, STAGE_BYTES = 32768 };

__device__ static inline uint32_t s32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ static inline void tma1d(void *dst, const CUtensorMap *m, int c0, uint64_t *bar) {
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2}], [%3];" :: "r"(s32(dst)), "l"(m), "r"(c0), "r"(s32(bar)) : "memory");
}
__device__ static inline void tma2d(void *dst, const CUtensorMap *m, int c0, int c1, uint64_t *bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" :: "r"(s32(dst)), "l"(m), "r"(c0), "r"(c1), "r"(s32(bar)) : "memory");
}
__device__ static inline void expect(uint64_t *bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(s32(bar)), "r"(bytes) : "memory");
}
__device__ static inline void wait(uint64_t *bar, uint32_t parity) {
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }"
                 :: "r"(s32(bar)), "r"(parity) : "memory");
}

template <bool ROW>
__global__ void __launch_bounds__(128) stream(const __grid_constant__ CUtensorMap ta,
                                              const __grid_constant__ CUtensorMap tb, int M, int N,
                                              int K, int lda, int ldb, int dump_step,
                                              uint16_t *dump, float *out) {
    extern __shared__ unsigned char raw[];
    unsigned char *sm = (unsigned char *)(((uintptr_t)raw + 1023) & ~(uintptr_t)1023);
    __shared__ uint64_t full[STAGES];
    int tn = (N + 127) / 128, pm = blockIdx.x / tn, pn = blockIdx.x % tn;
    int steps = (K + 63) / 64, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(s32(&full[s])));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    auto issue = [&](int i) {
        int s = i % STAGES, k0 = i * 64;
        unsigned char *a = sm + s * STAGE_BYTES, *b = a + 16384;
        if (warp != 0) return;
        if (lane == 0) expect(&full[s], STAGE_BYTES);
        __syncwarp();
        if (ROW) {
            for (int j = 0; j < 4; j++) {
                int r = lane * 4 + j;
                tma1d(a + r * 128, &ta, (pm * 128 + r) * lda + k0, &full[s]);
            }
            for (int j = 0; j < 4; j++) {
                int kr = lane * 2 + (j >> 1), h = j & 1;
                tma1d(b + h * 8192 + kr * 128, &tb, (k0 + kr) * ldb + pn * 128 + h * 64, &full[s]);
            }
        } else if (lane == 0) {
            tma2d(a, &ta, k0, pm * 128, &full[s]);
            tma2d(b, &tb, pn * 128, k0, &full[s]);
            tma2d(b + 8192, &tb, pn * 128 + 64, k0, &full[s]);
        }
    };
    for (int i = 0; i < steps && i < STAGES; i++) issue(i);
    float acc = 0.f;
    for (int i = 0; i < steps; i++) {
        int s = i % STAGES;
        wait(&full[s], (i / STAGES) & 1);
        const uint16_t *st = (const uint16_t *)(sm + s * STAGE_BYTES);
        acc += (float)st[threadIdx.x * 97 % 16384];
        if (dump && i == dump_step && blockIdx.x == 0)
            for (int x = threadIdx.x; x < STAGE_BYTES / 2; x += 128) dump[x] = st[x];
        __syncthreads();
        if (i + STAGES < steps) issue(i + STAGES);
    }
    out[blockIdx.x * 128 + threadIdx.x] = acc;
}

#define encode cuTensorMapEncodeTiled

static CUtensorMap map1d(void *p, uint64_t extent) {
    CUtensorMap m;
    cuuint64_t dim[1] = {extent};
    cuuint32_t box[1] = {64}, es[1] = {1};
    CU(encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 1, p, dim, NULL, box, es,
              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    return m;
}
static CUtensorMap map2d(void *p, uint64_t inner, uint64_t outer, uint64_t ld, uint32_t bo) {
    CUtensorMap m;
    cuuint64_t dim[2] = {inner, outer}, str[1] = {ld * 2};
    cuuint32_t box[2] = {64, bo}, es[2] = {1, 1};
    CU(encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, p, dim, str, box, es,
              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    return m;
}

// Where element (r, c) of a 64-wide (128-byte) box row lands: 16-byte unit
// c / 8 XORed with r % 8 (wgmma's 128-byte swizzle).
static size_t swz(int r, int c) { return (size_t)r * 64 + (((c >> 3) ^ (r & 7)) << 3) + (c & 7); }

struct Case { const char *name; bool row; int n; };

int main() {
    CU(cuInit(0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    CK(cudaFuncSetAttribute(stream<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, STAGES * STAGE_BYTES + 1024));
    CK(cudaFuncSetAttribute(stream<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, STAGES * STAGE_BYTES + 1024));
    int fails = 0;
    // Layout check: the dumped stage against the host's swizzled expectation.
    for (int n : {4093, 4096, 4097}) {
        for (int row = 1; row >= (n == 4096 ? 0 : 1); row--) {
            int M = n, N = n, K = n, lda = n, ldb = n, step = (K - 1) / 64; // last step: partial K
            std::vector<uint16_t> ha((size_t)M * lda), hb((size_t)K * ldb);
            for (size_t i = 0; i < ha.size(); i++) ha[i] = (uint16_t)(i * 2654435761u >> 7);
            for (size_t i = 0; i < hb.size(); i++) hb[i] = (uint16_t)(i * 40503u + 7);
            uint16_t *da, *db, *dd; float *dout;
            CK(cudaMalloc(&da, ha.size() * 2)); CK(cudaMalloc(&db, hb.size() * 2));
            CK(cudaMalloc(&dd, STAGE_BYTES)); CK(cudaMalloc(&dout, 1 << 22));
            CK(cudaMemcpy(da, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(db, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
            uint64_t ea = (uint64_t)(M - 1) * lda + K, eb = (uint64_t)(K - 1) * ldb + N;
            CUtensorMap ta = row ? map1d(da, ea) : map2d(da, K, M, lda, 128);
            CUtensorMap tb = row ? map1d(db, eb) : map2d(db, N, K, ldb, 64);
            for (int st : {0, step}) {
                CK(cudaMemset(dd, 0xff, STAGE_BYTES));
                if (row) stream<true><<<1, 128, STAGES * STAGE_BYTES + 1024>>>(ta, tb, M, N, K, lda, ldb, st, dd, dout);
                else stream<false><<<1, 128, STAGES * STAGE_BYTES + 1024>>>(ta, tb, M, N, K, lda, ldb, st, dd, dout);
                CK(cudaDeviceSynchronize());
                std::vector<uint16_t> got(STAGE_BYTES / 2);
                CK(cudaMemcpy(got.data(), dd, STAGE_BYTES, cudaMemcpyDeviceToHost));
                int bad = 0, k0 = st * 64;
                for (int r = 0; r < 128; r++)
                    for (int c = 0; c < 64; c++) {
                        uint64_t off = (uint64_t)r * lda + k0 + c;   // program 0: pm = 0
                        uint16_t want = row ? (off < ea ? ha[off] : 0) : (k0 + c < K ? ha[off] : 0);
                        if (got[swz(r, c)] != want) bad++;
                    }
                for (int kr = 0; kr < 64; kr++)
                    for (int h = 0; h < 2; h++)
                        for (int c = 0; c < 64; c++) {
                            uint64_t off = (uint64_t)(k0 + kr) * ldb + h * 64 + c;
                            uint16_t want = row ? (off < eb ? hb[off] : 0) : (k0 + kr < K ? hb[off] : 0);
                            if (got[8192 + h * 4096 + swz(kr, c)] != want) bad++;
                        }
                printf("layout %s n=%d step %d: %d of 16384 elements differ\n", row ? "row" : "2d", n, st, bad);
                fails += bad != 0;
            }
            cudaFree(da); cudaFree(db); cudaFree(dd); cudaFree(dout);
        }
    }
    // Timing: every program's copies, n^3, medians of 20 after 5.
    Case cases[] = {{"2d", false, 4096}, {"row", true, 4096}, {"row", true, 4093},
                    {"row", true, 4097}, {"2d", false, 8192}, {"row", true, 8191}};
    printf("\n| copies | n | programs | µs (median of 20) | GB/s into shared memory |\n| --- | ---: | ---: | ---: | ---: |\n");
    for (Case &cs : cases) {
        int n = cs.n, M = n, N = n, K = n;
        uint16_t *da, *db; float *dout;
        CK(cudaMalloc(&da, (size_t)n * n * 2)); CK(cudaMalloc(&db, (size_t)n * n * 2));
        CK(cudaMemset(da, 0x3c, (size_t)n * n * 2)); CK(cudaMemset(db, 0x3c, (size_t)n * n * 2));
        int programs = ((M + 127) / 128) * ((N + 127) / 128);
        CK(cudaMalloc(&dout, (size_t)programs * 128 * 4));
        uint64_t ea = (uint64_t)(M - 1) * n + K, eb = (uint64_t)(K - 1) * n + N;
        CUtensorMap ta = cs.row ? map1d(da, ea) : map2d(da, K, M, n, 128);
        CUtensorMap tb = cs.row ? map1d(db, eb) : map2d(db, N, K, n, 64);
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        std::vector<float> t;
        for (int it = 0; it < 25; it++) {
            cudaEventRecord(e0);
            if (cs.row) stream<true><<<programs, 128, STAGES * STAGE_BYTES + 1024>>>(ta, tb, M, N, K, n, n, -1, NULL, dout);
            else stream<false><<<programs, 128, STAGES * STAGE_BYTES + 1024>>>(ta, tb, M, N, K, n, n, -1, NULL, dout);
            cudaEventRecord(e1);
            CK(cudaEventSynchronize(e1));
            float ms; cudaEventElapsedTime(&ms, e0, e1);
            if (it >= 5) t.push_back(ms * 1000);
        }
        std::sort(t.begin(), t.end());
        double us = t[t.size() / 2];
        double bytes = (double)programs * ((K + 63) / 64) * STAGE_BYTES;
        printf("| %s | %d | %d | %.1f | %.0f |\n", cs.name, n, programs, us, bytes / us / 1e3);
        cudaFree(da); cudaFree(db); cudaFree(dout);
    }
    printf("\nlayout checks: %s\n", fails ? "FAILED" : "all passed");
    return fails != 0;
}
