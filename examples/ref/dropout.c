/* dropout.c — reference for examples/dropout.tile. */
#include "ref.h"

void ref_dropout(double *out, const double *x, float p, int32_t seed, long n) {
    for (long i = 0; i < n; i++)
        out[i] = ref_rand(seed, (uint32_t)i) > p ? x[i] / (1.0 - (double)p)
                                                 : 0.0;
}
