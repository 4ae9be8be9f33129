/*
 * ref.h — C reference implementations of the examples and the stdlib.
 *
 * The numerics tests and the softmax demo check what the interpreter (and,
 * later, the GPU) computes against these. They are written for clarity,
 * not speed: plain loops in double precision over inputs already widened to
 * double, so that a reference's own rounding error is negligible beside the
 * float32/float16 results it judges. Where a kernel's semantics include a
 * rounding step that matters (the f16 output of matmul_bias_relu, the
 * f32 arithmetic of std/random) the reference reproduces it and says so.
 *
 * Also here: IEEE half and bfloat16 conversions (round to nearest even,
 * subnormals, inf and NaN kept) for building inputs and reading outputs
 * of f16/bf16 kernels, and Philox-4x32-10 for std/random.
 */
#ifndef TILE_REF_H
#define TILE_REF_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ f16 / bf16 */

uint16_t ref_f32_to_f16(float f);
float ref_f16_to_f32(uint16_t h);
uint16_t ref_f32_to_bf16(float f);
float ref_bf16_to_f32(uint16_t h);

/* -------------------------------------------------------------- examples */

/* out[i] = x[i] + y[i] */
void ref_vadd(double *out, const double *x, const double *y, long n);

/* out[i] = gelu(x[i] * a + b), gelu in its erf form */
void ref_bias_gelu(double *out, const double *x, double a, double b, long n);

/* Row-wise softmax of rows x cols values, rows `stride` apart. */
void ref_softmax(double *out, const double *x, long rows, long cols,
                 long stride);

/* c = relu(a @ b + bias): a M x K (lda), b K x N (ldb), c M x N (ldc).
 * In double; the caller compares with a tolerance for the kernel's f16
 * output. */
void ref_matmul_bias_relu(double *c, const double *a, const double *b,
                          const double *bias, long M, long N, long K,
                          long lda, long ldb, long ldc);

/* c = a @ b: a M x K (lda), b K x N (ldb), c M x N (ldc). */
void ref_matmul(double *c, const double *a, const double *b, long M, long N,
                long K, long lda, long ldb, long ldc);
/* c = gelu(a @ b + bias), gelu in its erf form. */
void ref_matmul_gelu(double *c, const double *a, const double *b,
                     const double *bias, long M, long N, long K, long lda,
                     long ldb, long ldc);
/* c[i] = a[i] @ b[i] for i < batch; matrix i of a at a + i * sa, etc. */
void ref_bmm(double *c, const double *a, const double *b, long batch, long M,
             long N, long K, long sa, long sb, long sc, long lda, long ldb,
             long ldc);
/* o = softmax(q k^T * scale) v per head (heads matrices of S x D, head h
 * at h * stride_h, rows stride_s apart); causal: query i sees keys <= i. */
void ref_attention(double *o, const double *q, const double *k,
                   const double *v, long heads, long S, long D, long stride_h,
                   long stride_s, double scale, int causal);

/* h = x + res; out = (h - mean) / sqrt(var + eps) * w + b per row, with the
 * biased variance; mean[r] and rstd[r] = 1/sqrt(var + eps) per row. */
void ref_add_layernorm(double *out, double *h, double *mean, double *rstd,
                       const double *x, const double *res, const double *w,
                       const double *b, long rows, long cols, long stride,
                       double eps);

/* loss[r] = logsumexp(logits[r]) - logits[r, target[r]];
 * grad[r, j] = (softmax(logits[r])[j] - (j == target[r])) * scale;
 * rows whose target is ignore_index get loss 0 and grad 0. */
void ref_cross_entropy(double *loss, double *grad, const double *logits,
                       const int32_t *target, long rows, long cols,
                       long stride, double scale, int32_t ignore_index);

/* `steps` explicit heat steps u += alpha * lap5(u) on rows x cols (stride),
 * zero outside the grid. out may not alias u. */
void ref_heat(double *out, const double *u, long rows, long cols, long stride,
              double alpha, int steps);
/* One heat step on the interior, the border cells kept (examples/stencil.tile
 * jacobi). */
void ref_jacobi(double *out, const double *u, long rows, long cols, long stride,
                double alpha);

/* out = x^T: x is rows x cols (row stride x_stride), out cols x rows
 * (row stride out_stride). */
void ref_transpose(double *out, const double *x, long rows, long cols,
                   long x_stride, long out_stride);

/* ------------------------------------------------------------ std/random */

/* Philox-4x32-10 of counter ctr under key (k0, k1). */
void ref_philox4x32_10(const uint32_t ctr[4], uint32_t k0, uint32_t k1,
                       uint32_t out[4]);
/* std/random's key from a seed: an integer seed sign-extended to 64 bits,
 * split into its low and high words. */
void ref_philox_key(int64_t seed, uint32_t *k0, uint32_t *k1);
/* randint4x(seed, offset, word) */
uint32_t ref_randint4x(int64_t seed, uint32_t offset, int word);
/* uint_to_uniform_float, in f32 exactly as std/random computes it. */
float ref_uint_to_uniform(uint32_t bits);
/* rand(seed, offset): f32 in [0, 1), bit-exact with std/random. */
float ref_rand(int64_t seed, uint32_t offset);
/* randn(seed, offset): Box-Muller from the same two uniforms std/random
 * uses, evaluated in double (the kernel's f32 log/sqrt/cos differ from it
 * by a few ulps). */
double ref_randn(int64_t seed, uint32_t offset);

/* out[i] = rand(seed, i) > p ? x[i] / (1 - p) : 0, the decision in f32
 * exactly as the kernel makes it, the scaling in double. */
void ref_dropout(double *out, const double *x, float p, int32_t seed, long n);

/* -------------------------------------------------------------- std/math */

double ref_sigmoid(double x);
double ref_silu(double x);
double ref_gelu(double x);      /* x Phi(x) */
double ref_gelu_tanh(double x);
double ref_softplus(double x);
double ref_relu(double x);
double ref_leaky_relu(double x, double slope);
double ref_elu(double x, double alpha);
double ref_mish(double x);
double ref_hardsigmoid(double x);
double ref_hardswish(double x);
double ref_log1p(double x);
double ref_expm1(double x);

#endif
