/*
 * libdevice.c — the table of libdevice functions Tile exposes.
 *
 * A function is listed when C99/POSIX libm has the same function of one
 * or two doubles returning a double, so that the interpreter (the
 * reference) computes it as the GPU does up to libdevice's documented
 * error: the host result in double rounded once to the element type.
 * exp10 is glibc-only and computed as pow(10, x) (exact in its operand;
 * glibc's pow is within 1 ulp). erfinv, erfcinv, erfcx, normcdf(inv),
 * sinpi/cospi, rcbrt and the like have no C library equivalent and are
 * absent; so are functions with integer operands or results (ilogb,
 * ldexp, frexp), which `libdevice` would type differently. Functions
 * Tile already has as builtins (log2, atan2, ...) are listed too, so that
 * a Triton `libdevice.*` call translates by its name alone.
 */
#define _XOPEN_SOURCE 700   /* j0, j1, y0, y1 */
#include "libdevice.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double exp10_pow(double x) { return pow(10.0, x); }

static const LdFn table[] = {
    {"acos", 1, acos, NULL, NULL},       {"acosh", 1, acosh, NULL, NULL},
    {"asin", 1, asin, NULL, NULL},       {"asinh", 1, asinh, NULL, NULL},
    {"atan", 1, atan, NULL, NULL},       {"atanh", 1, atanh, NULL, NULL},
    {"cbrt", 1, cbrt, NULL, NULL},       {"cosh", 1, cosh, NULL, NULL},
    {"erfc", 1, erfc, NULL, NULL},       {"exp10", 1, exp10_pow, NULL, NULL},
    {"expm1", 1, expm1, NULL, NULL},     {"j0", 1, j0, NULL, NULL},
    {"j1", 1, j1, NULL, NULL},           {"lgamma", 1, lgamma, NULL, NULL},
    {"log10", 1, log10, NULL, NULL},     {"log1p", 1, log1p, NULL, NULL},
    {"log2", 1, log2, NULL, NULL},       {"logb", 1, logb, NULL, NULL},
    {"sinh", 1, sinh, NULL, NULL},       {"tgamma", 1, tgamma, NULL, NULL},
    {"y0", 1, y0, NULL, NULL},           {"y1", 1, y1, NULL, NULL},
    {"atan2", 2, NULL, atan2, NULL},
    {"copysign", 2, NULL, copysign, NULL},
    {"fdim", 2, NULL, fdim, NULL},
    {"fmod", 2, NULL, fmod, NULL},
    {"hypot", 2, NULL, hypot, NULL},
    {"nextafter", 2, NULL, nextafter, nextafterf},
    {"remainder", 2, NULL, remainder, NULL},
};

const LdFn *ld_find(const char *name) {
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (strcmp(table[i].name, name) == 0) return &table[i];
    return NULL;
}

void ld_names(char *buf, int n) {
    int at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof table / sizeof *table && at < n; i++)
        at += snprintf(buf + at, (size_t)(n - at), "%s%s", i ? ", " : "",
                       table[i].name);
}
