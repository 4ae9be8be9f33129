/* softmax.c — reference for examples/softmax.tile: max-subtracted, so it
 * is exact to double rounding for any finite input. */
#include "ref.h"

#include <math.h>

void ref_softmax(double *out, const double *x, long rows, long cols,
                 long stride) {
    for (long r = 0; r < rows; r++) {
        const double *v = x + r * stride;
        double mx = -INFINITY, s = 0;
        for (long c = 0; c < cols; c++)
            mx = fmax(mx, v[c]);
        for (long c = 0; c < cols; c++)
            s += exp(v[c] - mx);
        for (long c = 0; c < cols; c++)
            out[r * stride + c] = exp(v[c] - mx) / s;
    }
}
