/* test_choose.c — bundle/choose.c, the configuration chooser libtile and
 * the interpreter share, on a kernel descriptor written by hand:
 * configuration names, agreement with NAME=VALUE for warps, stages and
 * int/bool/type parameters, selections and each of their errors, the
 * first configuration whose @require holds (in order, within a
 * selection), the messages when none holds (the failed condition of each
 * configuration, narrowed to the failing conjunct, grouped, bounded, with
 * the arguments), division by zero, and the expression printer
 * (precedence, `~`, calls, malformed and deep code, truncation). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/choose.h"
#include "tests/unit/check.h"

enum { N = 1, M = 2, FLAG = 3 };   /* parameter indices */

/* `n % B == 0 && n >= 2 * B` (2 * B folded, as sema folds it). */
#define REQ(B)                                                                       \
    {{TLB_X_PARAM, N, 0}, {TLB_X_CONST, 0, B}, {TLB_X_MOD, 0, 0}, {TLB_X_CONST, 0, 0}, \
     {TLB_X_EQ, 0, 0},    {TLB_X_PARAM, N, 0}, {TLB_X_CONST, 0, 2 * (B)},             \
     {TLB_X_GE, 0, 0},    {TLB_X_LAND, 0, 0}}
static TlbInsn r64[] = REQ(64), r128[] = REQ(128), r256[] = REQ(256), r512[] = REQ(512),
               r1024[] = REQ(1024);
/* m / (n - 128) >= 1 */
static TlbInsn rdiv[] = {{TLB_X_PARAM, M, 0}, {TLB_X_PARAM, N, 0}, {TLB_X_CONST, 0, 128},
                         {TLB_X_SUB, 0, 0},   {TLB_X_DIV, 0, 0},   {TLB_X_CONST, 0, 1},
                         {TLB_X_GE, 0, 0}};
static TlbExpr e64[] = {{9, r64}}, e64div[] = {{9, r64}, {7, rdiv}}, e128[] = {{9, r128}},
               e256[] = {{9, r256}}, e512[] = {{9, r512}}, e1024[] = {{9, r1024}};
static int64_t v0[] = {64, 0, TLB_F32}, v1[] = {64, 1, TLB_F16}, v2[] = {128, 0, TLB_F32},
               v3[] = {128, 1, TLB_F32}, v4[] = {256, 0, TLB_F32}, v5[] = {512, 0, TLB_F32},
               v6[] = {1024, 0, TLB_F32};
static TlbConfig configs[] = {
    {4, 3, v0, {{0}}, 1, e64, 0, NULL},   {8, 3, v1, {{0}}, 2, e64div, 0, NULL},
    {4, 3, v2, {{0}}, 1, e128, 0, NULL},  {4, 4, v3, {{0}}, 1, e128, 0, NULL},
    {4, 3, v4, {{0}}, 1, e256, 0, NULL},  {4, 3, v5, {{0}}, 1, e512, 0, NULL},
    {4, 3, v6, {{0}}, 1, e1024, 0, NULL}};
static TlbParam params[] = {{"out", TLB_PTR, TLB_F32, TLB_PARAM_STORED},
                            {"n", TLB_I32, 0, 0}, {"m", TLB_I64, 0, 0},
                            {"flag", TLB_BOOL, 0, 0}, {"x", TLB_F32, 0, 0}};
static TlbCparam cparams[] = {{"BLOCK", TLB_CPARAM_INT, TLB_I32},
                              {"SPLIT", TLB_CPARAM_BOOL, TLB_VOID},
                              {"T", TLB_CPARAM_TYPE, TLB_VOID}};
static const TlbKernel k = {"pick", 5, params, 3, cparams, 0, NULL, 0, 7, configs};

static char err[1024];

static void test_names(void) {
    char buf[128];
    tlb_config_name(&k, 1, buf, sizeof buf);
    CHECK_STR(buf, "BLOCK=64,SPLIT=true,T=f16,warps=8,stages=3");
    tlb_config_name(&k, 3, buf, sizeof buf);
    CHECK_STR(buf, "BLOCK=128,SPLIT=true,T=f32,warps=4,stages=4");
    tlb_config_name(&k, 1, buf, 12);   /* cut, and marked as cut */
    CHECK_STR(buf, "BLOCK=64...");
}

static void test_agrees(void) {
    CHECK(tlb_config_agrees(&k, 0, "warps", "4") == 1);
    CHECK(tlb_config_agrees(&k, 0, "warps", "0x4") == 1);
    CHECK(tlb_config_agrees(&k, 0, "warps", "8") == 0);
    CHECK(tlb_config_agrees(&k, 0, "warps", "four") == 0);
    CHECK(tlb_config_agrees(&k, 0, "warps", "") == 0);
    CHECK(tlb_config_agrees(&k, 3, "stages", "4") == 1);
    CHECK(tlb_config_agrees(&k, 0, "BLOCK", "64") == 1);
    CHECK(tlb_config_agrees(&k, 0, "BLOCK", "0100") == 1);   /* octal, as in C */
    CHECK(tlb_config_agrees(&k, 0, "BLOCK", "128") == 0);
    CHECK(tlb_config_agrees(&k, 0, "BLOCK", "99999999999999999999") == 0);
    CHECK(tlb_config_agrees(&k, 0, "SPLIT", "false") == 1);
    CHECK(tlb_config_agrees(&k, 0, "SPLIT", "0") == 1);
    CHECK(tlb_config_agrees(&k, 0, "SPLIT", "true") == 0);
    CHECK(tlb_config_agrees(&k, 1, "SPLIT", "1") == 1);
    CHECK(tlb_config_agrees(&k, 1, "SPLIT", "yes") == 0);
    CHECK(tlb_config_agrees(&k, 0, "T", "f32") == 1);
    CHECK(tlb_config_agrees(&k, 1, "T", "f16") == 1);
    CHECK(tlb_config_agrees(&k, 1, "T", "f32") == 0);
    CHECK(tlb_config_agrees(&k, 0, "NOPE", "1") == -1);
    CHECK(tlb_config_agrees(&k, 0, "block", "64") == -1);   /* names are exact */
}

/* The selection of `spec` as a string of 0/1, or the error code. */
static const char *selected(const char *spec, TlbChoice want) {
    static char bits[16];
    uint8_t in[7];
    TlbChoice r = tlb_select(&k, spec, in, err, sizeof err);
    CHECK(r == want);
    for (int c = 0; c < 7; c++) bits[c] = (char)('0' + in[c]);
    bits[7] = 0;
    return bits;
}

static void test_select(void) {
    CHECK_STR(selected("BLOCK=64", TLB_CHOICE_OK), "1100000");
    CHECK_STR(selected(" BLOCK = 64 , SPLIT=true ", TLB_CHOICE_OK), "0100000");
    CHECK_STR(selected("T=f32,warps=4", TLB_CHOICE_OK), "1011111");
    CHECK_STR(selected("stages=4,SPLIT=1", TLB_CHOICE_OK), "0001000");
    CHECK_STR(selected("BLOCK=64,,", TLB_CHOICE_OK), "1100000");
    selected("BLOCK", TLB_CHOICE_SYNTAX);
    CHECK_STR(err, "kernel 'pick': invalid configuration 'BLOCK' (expected NAME=VALUE,...)");
    selected("BLOCK=64, =4", TLB_CHOICE_SYNTAX);
    CHECK_STR(err, "kernel 'pick': invalid configuration 'BLOCK=64, =4' (expected "
              "NAME=VALUE,...)");
    selected("BLOCK=64,NOPE=1", TLB_CHOICE_UNKNOWN_NAME);
    CHECK_STR(err, "kernel 'pick': no compile-time parameter 'NOPE' (configurations set "
              "BLOCK, SPLIT, T, warps, stages)");
    selected("BLOCK=100", TLB_CHOICE_NONE_SELECTED);
    CHECK_STR(err, "kernel 'pick' has no configuration 'BLOCK=100'; available: "
              "BLOCK=64,SPLIT=false,T=f32,warps=4,stages=3; "
              "BLOCK=64,SPLIT=true,T=f16,warps=8,stages=3; "
              "BLOCK=128,SPLIT=false,T=f32,warps=4,stages=3; "
              "BLOCK=128,SPLIT=true,T=f32,warps=4,stages=4; "
              "BLOCK=256,SPLIT=false,T=f32,warps=4,stages=3; "
              "BLOCK=512,SPLIT=false,T=f32,warps=4,stages=3; "
              "BLOCK=1024,SPLIT=false,T=f32,warps=4,stages=3");
    /* A short buffer: cut, marked, never overrun. */
    char small[48];
    memset(small, 'x', sizeof small);
    uint8_t in[7];
    CHECK(tlb_select(&k, "T=bf16", in, small, 40) == TLB_CHOICE_NONE_SELECTED);
    CHECK_STR(small, "kernel 'pick' has no configuration '...");
    CHECK(small[40] == 'x');
}

/* Chooses among `spec` (NULL: all) for n, m; the configuration or -1. */
static int choose(const char *spec, int64_t n, int64_t m, TlbChoice want) {
    int64_t args[5] = {0, n, m, 1, 0};
    uint8_t in[7];
    if (spec) CHECK(tlb_select(&k, spec, in, err, sizeof err) == TLB_CHOICE_OK);
    uint32_t c = 99;
    TlbChoice r = tlb_choose(&k, spec ? in : NULL, spec, args, &c, err, sizeof err);
    CHECK(r == want);
    if (r != want) fprintf(stderr, "choice %d: %s\n", (int)r, err);
    return r ? -1 : (int)c;
}

static void test_choose(void) {
    CHECK(choose(NULL, 512, 5, TLB_CHOICE_OK) == 0);        /* the first that holds */
    CHECK(choose(NULL, 320, 5, TLB_CHOICE_OK) == 0);
    CHECK(choose("BLOCK=128", 320, 5, TLB_CHOICE_NONE_HOLDS) == -1);
    CHECK(choose("BLOCK=128", 512, 5, TLB_CHOICE_OK) == 2);
    /* c1 fails its second @require (5 / 384 < 1); c3 is next. */
    CHECK(choose("SPLIT=true", 512, 5, TLB_CHOICE_OK) == 3);
    CHECK(choose("SPLIT=true", 512, 400, TLB_CHOICE_OK) == 1);
    CHECK(choose("stages=4", 4096, 5, TLB_CHOICE_OK) == 3);
    int64_t args[5] = {0, 512, 5, 1, 0};
    CHECK(tlb_config_holds(&k, 0, args, NULL, 0) == 1);
    CHECK(tlb_config_holds(&k, 6, args, NULL, 0) == 0);
    args[N] = 128;   /* c1: 128 - 128 divides by zero */
    CHECK(tlb_config_holds(&k, 1, args, NULL, 0) == -1);
}

static void test_messages(void) {
    choose(NULL, 100, 5, TLB_CHOICE_NONE_HOLDS);
    CHECK_STR(err, "kernel 'pick': no configuration's @require holds for these arguments "
              "(n=100, m=5, flag=1; 7 configurations): "
              "BLOCK=64,SPLIT=false,T=f32,warps=4,stages=3 and 1 more need n % 64 == 0; "
              "BLOCK=128,SPLIT=false,T=f32,warps=4,stages=3 and 1 more need n % 128 == 0; "
              "BLOCK=256,SPLIT=false,T=f32,warps=4,stages=3 needs n % 256 == 0; "
              "BLOCK=512,SPLIT=false,T=f32,warps=4,stages=3 needs n % 512 == 0; "
              "and 1 more");
    /* The conjunct that failed, not the whole condition. */
    choose("SPLIT=true", 64, 5, TLB_CHOICE_NONE_HOLDS);
    CHECK_STR(err, "kernel 'pick': no configuration matching 'SPLIT=true' has its @require "
              "hold for these arguments (n=64, m=5, flag=1; 2 of 7 configurations "
              "selected): BLOCK=64,SPLIT=true,T=f16,warps=8,stages=3 needs n >= 128; "
              "BLOCK=128,SPLIT=true,T=f32,warps=4,stages=4 needs n % 128 == 0");
    /* The first @require that failed, the second here. */
    choose("BLOCK=64,SPLIT=1", 192, 5, TLB_CHOICE_NONE_HOLDS);
    CHECK_STR(err, "kernel 'pick': no configuration matching 'BLOCK=64,SPLIT=1' has its "
              "@require hold for these arguments (n=192, m=5, flag=1; 1 of 7 "
              "configurations selected): BLOCK=64,SPLIT=true,T=f16,warps=8,stages=3 needs "
              "m / (n - 128) >= 1");
    choose("SPLIT=true", 128, 5, TLB_CHOICE_DIV_ZERO);
    CHECK_STR(err, "kernel 'pick': division by zero in @require of configuration 1 "
              "(BLOCK=64,SPLIT=true,T=f16,warps=8,stages=3), in m / (n - 128) >= 1, for "
              "these arguments (n=128, m=5, flag=1)");
    /* The launch's order stops at the first that holds: c0 before c1's
     * division by zero. */
    CHECK(choose(NULL, 128, 5, TLB_CHOICE_OK) == 0);
}

/* The text of `n` instructions. */
static const char *text(const TlbInsn *code, uint32_t n, size_t size) {
    static char buf[256];
    TlbExpr e = {n, (TlbInsn *)code};
    return tlb_expr_text(&k, &e, buf, size);
}
#define TEXT(...) text((TlbInsn[]){__VA_ARGS__}, \
                       sizeof (TlbInsn[]){__VA_ARGS__} / sizeof(TlbInsn), 256)

static void test_printer(void) {
    const TlbInsn n = {TLB_X_PARAM, N, 0}, m = {TLB_X_PARAM, M, 0},
                  f = {TLB_X_PARAM, FLAG, 0}, one = {TLB_X_CONST, 0, 1};
    const TlbInsn add = {TLB_X_ADD, 0, 0}, sub = {TLB_X_SUB, 0, 0}, mul = {TLB_X_MUL, 0, 0};
    CHECK_STR(TEXT(n, m, add, one, mul), "(n + m) * 1");
    CHECK_STR(TEXT(n, m, one, mul, add), "n + m * 1");
    CHECK_STR(TEXT(n, m, sub, one, sub), "n - m - 1");
    CHECK_STR(TEXT(n, m, one, sub, sub), "n - (m - 1)");
    CHECK_STR(TEXT(n, {TLB_X_CONST, 0, -1}, {TLB_X_XOR, 0, 0}), "~n");
    CHECK_STR(TEXT(n, {TLB_X_CONST, 0, 6}, {TLB_X_XOR, 0, 0}), "n ^ 6");
    CHECK_STR(TEXT(n, m, {TLB_X_LT, 0, 0}, {TLB_X_LNOT, 0, 0}), "!(n < m)");
    CHECK_STR(TEXT({TLB_X_CONST, 0, -5}, {TLB_X_NEG, 0, 0}), "-(-5)");
    CHECK_STR(TEXT(n, {TLB_X_CONST, 0, 128}, {TLB_X_CDIV, 0, 0}, m, {TLB_X_MIN, 0, 0}),
              "min(cdiv(n, 128), m)");
    CHECK_STR(TEXT(n, m, {TLB_X_ADD, 0, 0}, n, {TLB_X_MAX, 0, 0}), "max(n + m, n)");
    CHECK_STR(TEXT(f, n, m, {TLB_X_SELECT, 0, 0}), "(flag ? n : m)");
    CHECK_STR(TEXT(n, m, f, {TLB_X_LAND, 0, 0}, {TLB_X_LOR, 0, 0}), "n || m && flag");
    CHECK_STR(TEXT(n, m, {TLB_X_LOR, 0, 0}, f, {TLB_X_LAND, 0, 0}), "(n || m) && flag");
    CHECK_STR(TEXT(n, one, {TLB_X_SHL, 0, 0}, m, {TLB_X_AND, 0, 0}), "n << 1 & m");
    CHECK_STR(TEXT(n, m, one, {TLB_X_AND, 0, 0}, {TLB_X_SHL, 0, 0}), "n << (m & 1)");
    CHECK_STR(TEXT(n, m, {TLB_X_EQ, 0, 0}, f, {TLB_X_NE, 0, 0}), "n == m != flag");
    CHECK_STR(TEXT(n, m, {TLB_X_GE, 0, 0}, {TLB_X_NEG, 0, 0}), "-(n >= m)");
    /* Malformed code prints, as "?". */
    CHECK_STR(TEXT(add), "? + ?");
    CHECK_STR(TEXT({TLB_X_PARAM, 99, 0}), "?");
    CHECK_STR(TEXT({200, 0, 0}), "?");
    CHECK_STR(TEXT(n, {200, 0, 0}, add), "? + ?");
    CHECK_STR(text((TlbInsn[]){n, m, add, one, mul}, 5, 10), "(n + m...");
    /* A long chain prints its top and stops descending. */
    enum { LONG = 20001 };
    TlbInsn *chain = malloc(sizeof *chain * LONG);
    chain[0] = n;
    for (int i = 1; i < LONG; i += 2) chain[i] = one, chain[i + 1] = add;
    const char *t = text(chain, LONG, 256);
    CHECK(strstr(t, "...") != NULL && strlen(t) < 256);
    CHECK(strcmp(t + strlen(t) - 8, " + 1 + 1") == 0);
    free(chain);
}

int main(void) {
    test_names();
    test_agrees();
    test_select();
    test_choose();
    test_messages();
    test_printer();
    return check_done("test_choose");
}
