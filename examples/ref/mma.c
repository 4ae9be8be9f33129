/* mma.c — references for the tensor-core examples: matmul.tile,
 * matmul_gelu.tile, bmm.tile and attention.tile. Plain loops in double
 * over inputs already rounded to the kernel's storage type. */
#include "ref.h"

#include <math.h>

void ref_matmul(double *c, const double *a, const double *b, long M, long N,
                long K, long lda, long ldb, long ldc) {
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            double acc = 0;
            for (long k = 0; k < K; k++) acc += a[i * lda + k] * b[k * ldb + j];
            c[i * ldc + j] = acc;
        }
}

void ref_matmul_gelu(double *c, const double *a, const double *b,
                     const double *bias, long M, long N, long K, long lda,
                     long ldb, long ldc) {
    ref_matmul(c, a, b, M, N, K, lda, ldb, ldc);
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++)
            c[i * ldc + j] = ref_gelu(c[i * ldc + j] + bias[j]);
}

void ref_bmm(double *c, const double *a, const double *b, long batch, long M,
             long N, long K, long sa, long sb, long sc, long lda, long ldb,
             long ldc) {
    for (long i = 0; i < batch; i++)
        ref_matmul(c + i * sc, a + i * sa, b + i * sb, M, N, K, lda, ldb, ldc);
}

void ref_attention(double *o, const double *q, const double *k,
                   const double *v, long heads, long S, long D, long stride_h,
                   long stride_s, double scale, int causal) {
    for (long h = 0; h < heads; h++) {
        const double *qh = q + h * stride_h, *kh = k + h * stride_h,
                     *vh = v + h * stride_h;
        double *oh = o + h * stride_h;
        for (long i = 0; i < S; i++) {
            long n = causal ? i + 1 : S;
            double mx = -INFINITY, l = 0;
            for (long j = 0; j < n; j++) {
                double s = 0;
                for (long d = 0; d < D; d++) s += qh[i * stride_s + d] * kh[j * stride_s + d];
                if (s * scale > mx) mx = s * scale;
            }
            for (long d = 0; d < D; d++) oh[i * stride_s + d] = 0;
            for (long j = 0; j < n; j++) {
                double s = 0;
                for (long d = 0; d < D; d++) s += qh[i * stride_s + d] * kh[j * stride_s + d];
                double p = exp(s * scale - mx);
                l += p;
                for (long d = 0; d < D; d++) oh[i * stride_s + d] += p * vh[j * stride_s + d];
            }
            for (long d = 0; d < D; d++) oh[i * stride_s + d] /= l;
        }
    }
}
