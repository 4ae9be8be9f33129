/* bias_gelu.c — reference for examples/bias_gelu.tile. */
#include "ref.h"

void ref_bias_gelu(double *out, const double *x, double a, double b, long n) {
    for (long i = 0; i < n; i++)
        out[i] = ref_gelu(x[i] * a + b);
}
