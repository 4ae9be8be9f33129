/* math.c — references for stdlib/std/math.tile, in double from the
 * textbook definitions (libm's erfc, tanh, log1p, expm1). */
#include "ref.h"

#include <math.h>

double ref_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
double ref_silu(double x) { return x * ref_sigmoid(x); }
/* 0.5 x (1 + erf(x / sqrt 2)) written with erfc, which does not cancel
 * for negative x (1 + erf loses every digit below x = -8.3 in double). */
double ref_gelu(double x) { return 0.5 * x * erfc(-x / sqrt(2.0)); }

double ref_gelu_tanh(double x) {
    const double k = sqrt(2.0 / 3.14159265358979323846);
    return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
}

double ref_softplus(double x) {
    return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

double ref_relu(double x) { return x < 0 ? 0.0 : x; }
double ref_leaky_relu(double x, double slope) { return x < 0 ? x * slope : x; }
double ref_elu(double x, double alpha) { return x > 0 ? x : alpha * expm1(x); }
double ref_mish(double x) { return x * tanh(ref_softplus(x)); }

double ref_hardsigmoid(double x) {
    double y = (x + 3.0) / 6.0;
    return y < 0 ? 0 : y > 1 ? 1 : y;
}

double ref_hardswish(double x) { return x * ref_hardsigmoid(x); }
double ref_log1p(double x) { return log1p(x); }
double ref_expm1(double x) { return expm1(x); }
