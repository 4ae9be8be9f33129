/* cross_entropy.c — reference for examples/cross_entropy.tile. */
#include "ref.h"

#include <math.h>

void ref_cross_entropy(double *loss, double *grad, const double *logits,
                       const int32_t *target, long rows, long cols,
                       long stride, double scale, int32_t ignore_index) {
    for (long r = 0; r < rows; r++) {
        const double *v = logits + r * stride;
        double *g = grad + r * stride;
        if (target[r] == ignore_index) {
            loss[r] = 0;
            for (long c = 0; c < cols; c++)
                g[c] = 0;
            continue;
        }
        double mx = -INFINITY, s = 0;
        for (long c = 0; c < cols; c++)
            mx = fmax(mx, v[c]);
        for (long c = 0; c < cols; c++)
            s += exp(v[c] - mx);
        double lse = mx + log(s);
        loss[r] = lse - v[target[r]];
        for (long c = 0; c < cols; c++)
            g[c] = (exp(v[c] - lse) - (c == target[r] ? 1.0 : 0.0)) * scale;
    }
}
