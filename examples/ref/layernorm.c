/* layernorm.c — reference for examples/layernorm.tile (two-pass
 * statistics in double). */
#include "ref.h"

#include <math.h>

void ref_add_layernorm(double *out, double *h, double *mean, double *rstd,
                       const double *x, const double *res, const double *w,
                       const double *b, long rows, long cols, long stride,
                       double eps) {
    for (long r = 0; r < rows; r++) {
        double *hr = h + r * stride;
        double s = 0, d2 = 0;
        for (long c = 0; c < cols; c++) {
            hr[c] = x[r * stride + c] + res[r * stride + c];
            s += hr[c];
        }
        double mu = s / (double)cols;
        for (long c = 0; c < cols; c++)
            d2 += (hr[c] - mu) * (hr[c] - mu);
        double rs = 1.0 / sqrt(d2 / (double)cols + eps);
        for (long c = 0; c < cols; c++)
            out[r * stride + c] = (hr[c] - mu) * rs * w[c] + b[c];
        mean[r] = mu;
        rstd[r] = rs;
    }
}
