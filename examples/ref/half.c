/*
 * half.c — IEEE binary16 and bfloat16 conversions, bit by bit.
 *
 * Written against the bit layouts rather than _Float16 so that they work
 * with any C11 compiler and give the same answers everywhere. float → f16
 * rounds to nearest, ties to even, through the normal and subnormal ranges;
 * overflow gives inf; NaN stays NaN (quiet). bf16 is the top half of an
 * f32, rounded to nearest even.
 */
#include "ref.h"

#include <string.h>

static uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Shifts m right by s bits, rounding to nearest even on the bits lost. */
static uint32_t shift_round_even(uint32_t m, int s) {
    if (s >= 32)
        return 0;
    uint32_t q = m >> s;
    uint32_t rest = m & ((1u << s) - 1);
    uint32_t half = 1u << (s - 1);
    if (rest > half || (rest == half && (q & 1)))
        q++;
    return q;
}

uint16_t ref_f32_to_f16(float f) {
    uint32_t u = f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    int exp = (int)((u >> 23) & 0xff);
    uint32_t man = u & 0x7fffff;
    if (exp == 0xff)                              /* inf or NaN */
        return sign | 0x7c00 | (man ? 0x200 : 0);
    if (exp == 0 && man == 0)
        return sign;
    /* value = 1.man * 2^(exp-127) (f32 subnormals are far below f16's
     * range and round to zero below, through the same path). */
    int e = exp - 127 + 15;                       /* f16 biased exponent */
    uint32_t full = man | (exp ? 0x800000u : 0);  /* 24-bit significand */
    if (e >= 1) {
        /* normal: keep 11 bits; rounding may carry into the exponent,
         * which the addition below handles (and turns 0x7bff+1 into inf). */
        uint32_t q = shift_round_even(full, 13);  /* 11-bit 1.xxx */
        uint32_t h = ((uint32_t)e << 10) + (q - 0x400);
        if (q == 0x800)                           /* carried out */
            h = ((uint32_t)(e + 1) << 10);
        if (h >= 0x7c00)
            return sign | 0x7c00;
        return (uint16_t)(sign | h);
    }
    /* subnormal: value / 2^-24 rounded; shift 13 + (1 - e) */
    int s = 13 + 1 - e;
    if (s > 25)
        return sign;
    uint32_t q = shift_round_even(full, s);       /* may reach 0x400: the
                                                     smallest normal */
    return (uint16_t)(sign | q);
}

float ref_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    int exp = (h >> 10) & 0x1f;
    uint32_t man = h & 0x3ff;
    if (exp == 0x1f)
        return bits_f32(sign | 0x7f800000 | (man << 13));
    if (exp == 0) {
        if (man == 0)
            return bits_f32(sign);
        /* subnormal: man * 2^-24, exact in f32 */
        float v = (float)man * 0x1p-24f;
        return sign ? -v : v;
    }
    return bits_f32(sign | ((uint32_t)(exp - 15 + 127) << 23) | (man << 13));
}

uint16_t ref_f32_to_bf16(float f) {
    uint32_t u = f32_bits(f);
    if ((u & 0x7f800000) == 0x7f800000 && (u & 0x7fffff))
        return (uint16_t)((u >> 16) | 0x40);      /* quiet NaN */
    uint32_t rest = u & 0xffff;
    uint32_t q = u >> 16;
    if (rest > 0x8000 || (rest == 0x8000 && (q & 1)))
        q++;                                      /* may round to inf */
    return (uint16_t)q;
}

float ref_bf16_to_f32(uint16_t h) {
    return bits_f32((uint32_t)h << 16);
}
