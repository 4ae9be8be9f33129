/* random.c — reference for stdlib/std/random.tile: Philox-4x32-10 as in
 * Salmon et al. (SC'11) and Random123, keyed and counted the way
 * std/random (and Triton) do it. */
#include "ref.h"

#include <math.h>
#include <string.h>

enum {
    KEY_A = 0x9E3779B9u, KEY_B = 0xBB67AE85u,
    ROUND_A = 0xD2511F53u, ROUND_B = 0xCD9E8D57u,
};

void ref_philox4x32_10(const uint32_t ctr[4], uint32_t k0, uint32_t k1,
                       uint32_t out[4]) {
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    for (int r = 0; r < 10; r++) {
        uint64_t pa = (uint64_t)ROUND_A * c0, pb = (uint64_t)ROUND_B * c2;
        uint32_t n0 = (uint32_t)(pb >> 32) ^ c1 ^ k0;
        uint32_t n2 = (uint32_t)(pa >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)pb;
        c3 = (uint32_t)pa;
        c0 = n0;
        c2 = n2;
        k0 += KEY_A;
        k1 += KEY_B;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}

void ref_philox_key(int64_t seed, uint32_t *k0, uint32_t *k1) {
    uint64_t s = (uint64_t)seed;
    *k0 = (uint32_t)s;
    *k1 = (uint32_t)(s >> 32);
}

uint32_t ref_randint4x(int64_t seed, uint32_t offset, int word) {
    uint32_t ctr[4] = {offset, 0, 0, 0}, out[4], k0, k1;
    ref_philox_key(seed, &k0, &k1);
    ref_philox4x32_10(ctr, k0, k1, out);
    return out[word];
}

float ref_uint_to_uniform(uint32_t bits) {
    int32_t i;
    memcpy(&i, &bits, 4);
    int32_t v = i < 0 ? ~i : i;
    return (float)v * 4.6566127342e-10f;
}

float ref_rand(int64_t seed, uint32_t offset) {
    return ref_uint_to_uniform(ref_randint4x(seed, offset, 0));
}

double ref_randn(int64_t seed, uint32_t offset) {
    float u1 = ref_uint_to_uniform(ref_randint4x(seed, offset, 0));
    float u2 = ref_uint_to_uniform(ref_randint4x(seed, offset, 1));
    if (u1 < 1.0e-7f)
        u1 = 1.0e-7f;
    float th = 6.283185307179586f * u2;
    return sqrt(-2.0 * log((double)u1)) * cos((double)th);
}
