/* matmul_bias_relu.c — reference for examples/matmul_bias_relu.tile. */
#include "ref.h"

void ref_matmul_bias_relu(double *c, const double *a, const double *b,
                          const double *bias, long M, long N, long K,
                          long lda, long ldb, long ldc) {
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            double acc = 0;
            for (long k = 0; k < K; k++)
                acc += a[i * lda + k] * b[k * ldb + j];
            acc += bias[j];
            c[i * ldc + j] = acc > 0 ? acc : 0;
        }
}
