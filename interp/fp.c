/*
 * fp.c — number formats: half, bfloat16, tf32, and conversions between
 * every scalar kind.
 *
 * The narrow float formats are handled by one generic routine that rounds
 * a double to a binary format with `ebits` exponent and `mbits` mantissa
 * bits. It scales the magnitude so that the format's unit in the last place
 * (for the value's binade, or the subnormal quantum below the normal range)
 * becomes 1, rounds that to the nearest integer with ties to even, and
 * packs the result; a carry out of the mantissa moves to the next binade,
 * and from the largest binade to infinity, exactly as IEEE 754 rounding
 * with an unbounded exponent followed by the overflow rule. Going through
 * double is exact for every f32 input, and for f64 inputs the rounding is
 * still a single one, so f64 -> f16 never double-rounds.
 *
 * A NaN keeps its sign and payload through the narrow formats (made
 * quiet), so that bitcast round-trips every NaN the GPU would not have
 * produced by arithmetic. bitcast reads a float element's bits through
 * the same routines.
 *
 * Integer to narrow-float conversions go through a double only after
 * "sticky" rounding: an integer wider than 53 bits keeps its top 53 bits
 * and ORs the dropped ones into the last, so the second rounding (to at
 * most 24 bits) sees the same side of every tie as the exact value.
 */
#include "interp.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------ binary formats */

static uint32_t round_to_format(double x, int ebits, int mbits) {
    uint32_t sign = signbit(x) ? 1u << (ebits + mbits) : 0;
    uint32_t expmask = ((1u << ebits) - 1) << mbits;
    double a = fabs(x);
    if (isnan(x)) {
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        uint32_t payload = (uint32_t)(bits >> (52 - mbits)) & ((1u << mbits) - 1);
        return sign | expmask | (1u << (mbits - 1)) | payload;
    }
    if (isinf(a)) return sign | expmask;
    if (a == 0) return sign;
    int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias;
    int e;
    frexp(a, &e);
    e -= 1;                              /* a = 1.f * 2^e */
    int subnormal = e < emin;
    if (subnormal) e = emin;
    double q = ldexp(a, mbits - e);      /* exact: a power-of-two scaling */
    double r = floor(q), frac = q - r;
    if (frac > 0.5 || (frac == 0.5 && fmod(r, 2.0) != 0)) r += 1;
    uint32_t m = (uint32_t)r;
    if (subnormal)                       /* m == 2^mbits is the smallest
                                            normal: the packing works */
        return sign | m;
    if (m == 1u << (mbits + 1)) {        /* carried into the next binade */
        m >>= 1;
        e += 1;
    }
    if (e + bias >= (1 << ebits) - 1) return sign | expmask;
    return sign | ((uint32_t)(e + bias) << mbits) | (m - (1u << mbits));
}

static double from_format(uint32_t h, int ebits, int mbits) {
    int bias = (1 << (ebits - 1)) - 1;
    uint32_t e = (h >> mbits) & ((1u << ebits) - 1);
    uint32_t m = h & ((1u << mbits) - 1);
    double sign = (h >> (ebits + mbits)) & 1 ? -1.0 : 1.0;
    if (e == (1u << ebits) - 1) {        /* NaN: the payload kept, quiet */
        if (!m) return sign * INFINITY;
        uint64_t bits = (uint64_t)(sign < 0) << 63 | UINT64_C(0x7ff8) << 48 |
                        (uint64_t)m << (52 - mbits);
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    if (e == 0) return sign * ldexp((double)m, 1 - bias - mbits);
    return sign * ldexp((double)(m | (1u << mbits)), (int)e - bias - mbits);
}

uint16_t ip_f16_from_double(double x) { return (uint16_t)round_to_format(x, 5, 10); }
uint16_t ip_bf16_from_double(double x) { return (uint16_t)round_to_format(x, 8, 7); }
double ip_f16_to_double(uint16_t h) { return from_format(h, 5, 10); }
double ip_bf16_to_double(uint16_t h) { return from_format(h, 8, 7); }

/* The tensor cores read an f32 operand as TF32 by ignoring its low 13
 * bits (wgmma does so with f32 in shared memory, which Triton feeds it
 * unrounded; mma.sync is given the same bits, lower/dot.c): a
 * truncation toward zero, bit for bit — so a NaN whose payload lies only
 * in those bits reads as an infinity, here as there. (cuBLAS rounds to
 * nearest instead; rounding here would need a pass over each wgmma
 * buffer on the GPU.) */
float ip_tf32_trunc(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    b &= ~0x1fffu;
    memcpy(&x, &b, sizeof b);
    return x;
}

double ip_round(ScalarKind k, double x) {
    switch (k) {
    case SK_F16: return ip_f16_to_double(ip_f16_from_double(x));
    case SK_BF16: return ip_bf16_to_double(ip_bf16_from_double(x));
    case SK_F32: return (double)(float)x;
    case SK_F8E4M3: case SK_F8E5M2: return ty_f8_to_float(k, ty_f8_from_float(k, (float)x));
    default: return x;
    }
}

/* ------------------------------------------------------------ integers */

int64_t ip_wrap(ScalarKind k, uint64_t v) {
    switch (k) {
    case SK_BOOL: return (int64_t)(v & 1);
    case SK_I8: return (int8_t)(uint8_t)v;
    case SK_I16: return (int16_t)(uint16_t)v;
    case SK_I32: return (int32_t)(uint32_t)v;
    case SK_U8: return (uint8_t)v;
    case SK_U16: return (uint16_t)v;
    case SK_U32: return (uint32_t)v;
    default: return (int64_t)v;
    }
}

/* An integer's magnitude as a double with round-to-odd ("sticky") below
 * 53 bits, so that rounding it again to a narrower format is exact. */
static double sticky_double(uint64_t mag) {
    int shift = 0;
    while ((mag >> shift) >= (1ull << 53)) shift++;
    uint64_t top = mag >> shift;
    if (shift && (mag & ((1ull << shift) - 1))) top |= 1;
    return ldexp((double)top, shift);
}

static double int_to_float(ScalarKind to, int64_t v, int is_unsigned) {
    uint64_t u = (uint64_t)v;
    if (to == SK_F32) return is_unsigned ? (float)u : (float)v;
    if (to == SK_F64) return is_unsigned ? (double)u : (double)v;
    int neg = !is_unsigned && v < 0;
    double d = sticky_double(neg ? 0 - u : u);
    return ip_round(to, neg ? -d : d);
}

/* Truncates toward zero, saturating at the limits of `to` (as PTX's
 * cvt.rzi does); NaN gives 0. */
static int64_t float_to_int(ScalarKind to, double f) {
    if (isnan(f)) return 0;
    double t = trunc(f);
    if (to == SK_U64) {
        if (t <= 0) return 0;
        if (t >= 18446744073709551616.0) return (int64_t)UINT64_MAX;
        return (int64_t)(uint64_t)t;
    }
    if (to == SK_I64) {
        if (t >= 9223372036854775808.0) return INT64_MAX;
        if (t < -9223372036854775808.0) return INT64_MIN;
        return (int64_t)t;
    }
    int bits = ty_bits(to);
    double lo = ty_issigned(to) ? -ldexp(1, bits - 1) : 0;
    double hi = ty_issigned(to) ? ldexp(1, bits - 1) - 1 : ldexp(1, bits) - 1;
    if (t < lo) t = lo;
    if (t > hi) t = hi;
    return (int64_t)t;
}

IpSlot ip_convert(ScalarKind from, ScalarKind to, IpSlot s) {
    IpSlot r = {0};
    int ffloat = ty_isfloat(from);
    if (to == SK_BOOL)
        r.i = ffloat ? s.f != 0 : s.i != 0;
    else if (ty_isint(to))
        r.i = ffloat ? float_to_int(to, s.f) : ip_wrap(to, s.u);
    else if (ty_isfloat(to))
        r.f = ffloat ? ip_round(to, s.f)
                     : int_to_float(to, s.i, from == SK_BOOL || !ty_issigned(from));
    else
        r = s;
    return r;
}

/* ------------------------------------------------------------- bitcast */

/* The bits of a canonical float element of kind k. */
static uint64_t float_bits(ScalarKind k, double f) {
    switch (k) {
    case SK_F8E4M3: case SK_F8E5M2: return ty_f8_bits(k, (float)f);
    case SK_F16: return ip_f16_from_double(f);
    case SK_BF16: return ip_bf16_from_double(f);
    case SK_F32: {
        float x = (float)f;
        uint32_t b;
        memcpy(&b, &x, sizeof b);
        return b;
    }
    default: {
        uint64_t b;
        memcpy(&b, &f, sizeof b);
        return b;
    }
    }
}

static double bits_float(ScalarKind k, uint64_t b) {
    switch (k) {
    case SK_F8E4M3: case SK_F8E5M2: return ty_f8_to_float(k, (uint8_t)b);
    case SK_F16: return ip_f16_to_double((uint16_t)b);
    case SK_BF16: return ip_bf16_to_double((uint16_t)b);
    case SK_F32: {
        uint32_t w = (uint32_t)b;
        float x;
        memcpy(&x, &w, sizeof x);
        return x;
    }
    default: {
        double d;
        memcpy(&d, &b, sizeof d);
        return d;
    }
    }
}

IpSlot ip_bitcast(ScalarKind from, ScalarKind to, IpSlot s) {
    int bits = ty_bits(from);
    uint64_t b = ty_isfloat(from) ? float_bits(from, s.f) : s.u;
    if (bits < 64) b &= (UINT64_C(1) << bits) - 1;
    IpSlot r = {0};
    if (ty_isfloat(to)) r.f = bits_float(to, b);
    else r.i = ip_wrap(to, b);
    return r;
}
