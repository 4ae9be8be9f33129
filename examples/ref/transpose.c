/* transpose.c — reference for examples/transpose.tile. */
#include "ref.h"

void ref_transpose(double *out, const double *x, long rows, long cols,
                   long x_stride, long out_stride) {
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++)
            out[j * out_stride + i] = x[i * x_stride + j];
}
