/* stencil.c — reference for examples/stencil.tile: `steps` explicit heat
 * steps on the whole grid, one after the other, zero outside (heat1,
 * heat2); one step with the border cells held (jacobi). */
#include "ref.h"

#include <stdlib.h>
#include <string.h>

static double at(const double *u, long i, long j, long rows, long cols,
                 long stride) {
    if (i < 0 || i >= rows || j < 0 || j >= cols)
        return 0;
    return u[i * stride + j];
}

void ref_heat(double *out, const double *u, long rows, long cols, long stride,
              double alpha, int steps) {
    size_t bytes = (size_t)(rows * stride) * sizeof(double);
    double *cur = malloc(bytes ? bytes : 1);
    memcpy(cur, u, bytes);
    for (int s = 0; s < steps; s++) {
        for (long i = 0; i < rows; i++)
            for (long j = 0; j < cols; j++) {
                double c = at(cur, i, j, rows, cols, stride);
                double lap = at(cur, i - 1, j, rows, cols, stride)
                           + at(cur, i + 1, j, rows, cols, stride)
                           + at(cur, i, j - 1, rows, cols, stride)
                           + at(cur, i, j + 1, rows, cols, stride) - 4 * c;
                out[i * stride + j] = c + alpha * lap;
            }
        for (long i = 0; i < rows; i++)
            memcpy(cur + i * stride, out + i * stride,
                   (size_t)cols * sizeof(double));
    }
    free(cur);
}

void ref_jacobi(double *out, const double *u, long rows, long cols, long stride,
                double alpha) {
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            double c = u[i * stride + j];
            int interior = i > 0 && i < rows - 1 && j > 0 && j < cols - 1;
            out[i * stride + j] = !interior ? c
                : c + alpha * (u[(i - 1) * stride + j] + u[(i + 1) * stride + j] +
                               u[i * stride + j - 1] + u[i * stride + j + 1] - 4 * c);
        }
}
