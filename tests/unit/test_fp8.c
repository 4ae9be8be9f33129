/*
 * test_fp8.c — the FP8 conversions (sema/ir.c: ty_f8_from_float,
 * ty_f8_to_float, ty_f8_bits), which the interpreter applies and the
 * GPU's code follows (tests/gpu/ops/fp8.tile checks that), by brute
 * force:
 *  - decoding: values fixed by the formats' definitions (OCP FP8), and
 *    the 127 non-negative finite codes strictly increasing, negatives
 *    their mirror, NaNs where the formats put them, e5m2's infinities;
 *  - encoding: every f16 value, every f8 value and each halfway point
 *    between neighbours (ties), a hair either side of them, and 200,000
 *    random f32 bit patterns, each against a search over all 256 codes
 *    for the nearest finite value (ties to the even code), saturating
 *    past the largest, NaN to 0x7f; stored values (ty_f8_bits) keep every
 *    code's value, e5m2's infinities included.
 */
#include "sema/ir.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static float f32_of(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The nearest finite value's code, ties to the even code, by search;
 * the largest past it (where distances to neighbours no longer differ in
 * a double). */
static uint8_t nearest(ScalarKind k, float x) {
    if (isnan(x)) return 0x7f;
    uint8_t top = k == SK_F8E4M3 ? 0x7e : 0x7b;
    if (fabsf(x) >= ty_f8_to_float(k, top)) return (uint8_t)(top | (signbit(x) ? 0x80 : 0));
    int best = -1;
    double bd = INFINITY;
    for (int c = 0; c < 256; c++) {
        float v = ty_f8_to_float(k, (uint8_t)c);
        if (!isfinite(v) || (signbit(v) != signbit(x))) continue;
        double d = fabs((double)v - (double)x);
        if (d < bd || (d == bd && (c & 1) == 0)) best = c, bd = d;
    }
    return (uint8_t)best;
}

static int check_encode(ScalarKind k, float x) {
    uint8_t got = ty_f8_from_float(k, x), want = nearest(k, x);
    if (got == want) return 1;
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    fprintf(stderr, "%s: %.9g (0x%08x) -> 0x%02x, nearest 0x%02x\n", ty_kind_name(k),
            (double)x, (unsigned)u, got, want);
    return 0;
}

static void test_decode(void) {
    ScalarKind e4 = SK_F8E4M3, e5 = SK_F8E5M2;
    CHECK(ty_f8_to_float(e4, 0x38) == 1.0f && ty_f8_to_float(e5, 0x3c) == 1.0f);
    CHECK(ty_f8_to_float(e4, 0x7e) == 448.0f && ty_f8_to_float(e5, 0x7b) == 57344.0f);
    CHECK(ty_f8_to_float(e4, 0x01) == ldexpf(1, -9) && ty_f8_to_float(e5, 0x01) == ldexpf(1, -16));
    CHECK(ty_f8_to_float(e4, 0x08) == ldexpf(1, -6) && ty_f8_to_float(e5, 0x04) == ldexpf(1, -14));
    CHECK(ty_f8_to_float(e4, 0xc4) == -3.0f && ty_f8_to_float(e5, 0xc2) == -3.0f);
    CHECK(isnan(ty_f8_to_float(e4, 0x7f)) && isnan(ty_f8_to_float(e4, 0xff)));
    CHECK(ty_f8_to_float(e5, 0x7c) == INFINITY && ty_f8_to_float(e5, 0xfc) == -INFINITY);
    CHECK(signbit(ty_f8_to_float(e4, 0x80)) && ty_f8_to_float(e4, 0x80) == 0.0f);
    for (int f = 0; f < 2; f++) {
        ScalarKind k = f ? e5 : e4;
        int finite = f ? 0x7c : 0x7f, nans = 0;
        for (int c = 1; c < finite; c++)
            CHECK(ty_f8_to_float(k, (uint8_t)c) > ty_f8_to_float(k, (uint8_t)(c - 1)));
        for (int c = 0; c < 128; c++) {
            float p = ty_f8_to_float(k, (uint8_t)c), n = ty_f8_to_float(k, (uint8_t)(c | 0x80));
            CHECK(isnan(p) ? isnan(n) : n == -p);
            nans += isnan(p);
        }
        CHECK(nans == (f ? 3 : 1));
    }
}

static void test_encode(void) {
    int bad = 0;
    for (int f = 0; f < 2; f++) {
        ScalarKind k = f ? SK_F8E5M2 : SK_F8E4M3;
        for (uint32_t h = 0; h < 65536; h++) {      /* every f16 value */
            uint32_t s = h >> 15 << 31, e = h >> 10 & 31, m = h & 1023;
            float x = e == 31 ? (m ? NAN : INFINITY) : e ? ldexpf((float)(m | 1024), (int)e - 25)
                                                         : ldexpf((float)m, -24);
            bad += !check_encode(k, s ? -x : x);
        }
        for (int c = 0; c < 256; c++) {             /* values, ties, around both */
            float v = ty_f8_to_float(k, (uint8_t)c), w = ty_f8_to_float(k, (uint8_t)(c + 1));
            if (!isfinite(v)) continue;
            float pts[5] = {v, nextafterf(v, INFINITY), nextafterf(v, -INFINITY), 0, 0};
            int np = 3;
            if ((c & 0x7f) != 0x7f && isfinite(w) && signbit(w) == signbit(v)) {
                float mid = (float)(((double)v + (double)w) / 2);
                pts[np++] = mid;
                pts[np++] = nextafterf(mid, w);
            }
            for (int i = 0; i < np; i++) bad += !check_encode(k, pts[i]);
            if (isfinite(v)) CHECK(ty_f8_bits(k, v) == c || (v == 0 && ty_f8_bits(k, v) == (c & 0x80)));
        }
        uint64_t r = 0x9e3779b97f4a7c15u + (uint64_t)f;
        for (int i = 0; i < 200000; i++) {          /* random bit patterns */
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            bad += !check_encode(k, f32_of((uint32_t)r));
        }
        CHECK(ty_f8_from_float(k, INFINITY) == (f ? 0x7b : 0x7e));
        CHECK(ty_f8_from_float(k, -INFINITY) == (f ? 0xfb : 0xfe));
        CHECK(ty_f8_from_float(k, NAN) == 0x7f && ty_f8_from_float(k, -NAN) == 0x7f);
    }
    CHECK(ty_f8_bits(SK_F8E5M2, INFINITY) == 0x7c && ty_f8_bits(SK_F8E5M2, -INFINITY) == 0xfc);
    CHECK(bad == 0);
}

int main(void) {
    test_decode();
    test_encode();
    printf("test_fp8: %d checks, %d failed\n", check_count, check_failures);
    return check_failures != 0;
}
