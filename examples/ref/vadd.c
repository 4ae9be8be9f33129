/* vadd.c — reference for examples/vadd.tile. */
#include "ref.h"

void ref_vadd(double *out, const double *x, const double *y, long n) {
    for (long i = 0; i < n; i++)
        out[i] = x[i] + y[i];
}
