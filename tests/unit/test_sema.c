/* Unit tests of sema's type rules: promotion, implicit conversion, weak
 * literals, broadcasting, constant casts. */
#include "sema/sm.h"
#include "parser/parser.h"
#include "check.h"

#include <string.h>

static void test_promote(void) {
    CHECK(sm_promote(SK_F16, SK_BF16) == SK_F32);
    CHECK(sm_promote(SK_F16, SK_F32) == SK_F32);
    CHECK(sm_promote(SK_F64, SK_F16) == SK_F64);
    CHECK(sm_promote(SK_I32, SK_F16) == SK_F16);
    CHECK(sm_promote(SK_I64, SK_BF16) == SK_BF16);
    CHECK(sm_promote(SK_I8, SK_I32) == SK_I32);
    CHECK(sm_promote(SK_I32, SK_U32) == SK_U32);
    CHECK(sm_promote(SK_U8, SK_I16) == SK_I16);
    CHECK(sm_promote(SK_BOOL, SK_I8) == SK_I8);
    CHECK(sm_promote(SK_BOOL, SK_BOOL) == SK_BOOL);
    CHECK(sm_promote(SK_U64, SK_I64) == SK_U64);
}

static void test_weak(void) {
    Loc l = {0};
    SmVal two = sm_const_float(SK_F32, 2.0, 1, l);
    SmVal one = sm_const_int(SK_I32, 1, 1, l);
    SmVal big = sm_const_int(SK_I32, 300, 1, l);
    SmVal h = sm_const_float(SK_F16, 1.0, 0, l);
    SmVal i8 = sm_const_int(SK_I8, 1, 0, l);
    CHECK(sm_promote_weak(&h, &two) == SK_F16);
    CHECK(sm_promote_weak(&i8, &one) == SK_I8);
    CHECK(sm_promote_weak(&i8, &two) == SK_F32);
    CHECK(sm_promote_weak(&one, &two) == SK_F32);
    CHECK(!sm_const_fits(&big, SK_I8) && sm_const_fits(&big, SK_I16));
    CHECK(sm_const_int(SK_I32, (int64_t)1 << 40, 1, l).k == SK_I64);
    CHECK(sm_implicit_ok(&h, SK_F32) && !sm_implicit_ok(&two, SK_I32));
    SmVal f32 = sm_const_float(SK_F32, 1.5, 0, l);
    CHECK(!sm_implicit_ok(&f32, SK_F16) && !sm_implicit_ok(&f32, SK_I64));
    SmVal u32 = sm_const_int(SK_U32, 1, 0, l);
    CHECK(!sm_implicit_ok(&u32, SK_I32) && sm_implicit_ok(&u32, SK_U64));
}

static void test_casts(void) {
    Loc l = {0};
    SmVal f = sm_const_float(SK_F32, -3.75, 0, l);
    CHECK(sm_fold_cast(&f, SK_I32).i == -3);
    SmVal big = sm_const_int(SK_I32, 300, 0, l);
    CHECK(sm_fold_cast(&big, SK_I8).i == 44);
    CHECK(sm_fold_cast(&big, SK_U8).i == 44);
    SmVal neg = sm_const_int(SK_I32, -1, 0, l);
    CHECK(sm_fold_cast(&neg, SK_U32).i == 4294967295LL);
    CHECK(sm_fold_cast(&neg, SK_BOOL).i == 1);
    CHECK(sm_wrap_int(SK_I16, 40000) == 40000 - 65536);
}

static void test_broadcast(void) {
    int32_t a[2] = {64, 1}, b[1] = {32}, c[2] = {1, 16};
    Type ta = ty_tile(ty_scalar(SK_F32), 2, a), tb = ty_tile(ty_scalar(SK_F32), 1, b);
    Type tc = ty_tile(ty_scalar(SK_F32), 2, c), out;
    CHECK(sm_broadcast_shape(ta, tb, &out) && out.rank == 2 && out.dim[0] == 64 &&
          out.dim[1] == 32);
    CHECK(!sm_broadcast_shape(tb, tc, &out));
    CHECK(sm_broadcast_shape(ty_scalar(SK_F32), tc, &out) && out.rank == 2 &&
          out.dim[1] == 16);
}

/* Compiles src; returns the module (NULL on errors, text in *diags). */
static IrModule *compile(Arena *a, const char *src, const SmOptions *opt,
                         const char **diags) {
    Diag *dg = dg_new(a, NULL, 0);
    uint32_t f = dg_add_file(dg, "t.tile", src, strlen(src));
    AstFile *ast = ps_parse(a, dg, f, src, strlen(src));
    IrModule *m = dg_errors(dg) ? NULL : sm_compile(a, dg, ast, opt);
    *diags = ar_strdup(a, dg_text(dg));
    dg_free(dg);
    return m;
}

/* What the IR carries beside the ops: stored pointers (through a
 * loop-carried pointer), the default tune key, @nospecialize, config
 * order and indices after @prune, @require. */
static void test_kernel_info(void) {
    Arena *a = ar_new();
    const char *diags;
    IrModule *m = compile(a,
        "@tune(B = [16, 32, 64], warps = [2, 4])\n"
        "@prune(B != 32)\n"
        "@nospecialize(x)\n"
        "@require(B >= n)\n"
        "kernel k<B: i32>(out: *f32, x: *f32, n: i32, scale: f32, m: u64) {\n"
        "    var p = out;\n"
        "    for i in range(0, n) { p = p + 1; }\n"
        "    store(p + arange(0, B), load(x) * scale);\n"
        "}\n", NULL, &diags);
    CHECK_STR(diags, "");
    CHECK(m && m->nkernels == 4);
    if (!m || m->nkernels != 4) goto done;
    IrKernel *k = m->kernels[2];
    CHECK(k->cparams[0].value == 64 && k->warps == 2 && k->config_index == 2);
    CHECK(k->params[0].stored && !k->params[1].stored);
    CHECK(!k->params[0].nospecialize && k->params[1].nospecialize);
    CHECK(k->ntune_key == 2 && k->tune_key[0] == 2 && k->tune_key[1] == 4);
    CHECK(k->nrequire == 1 && k->ngrid == 0);
    int64_t args[5] = {0, 0, 64, 0, 0}, ok = 0;
    CHECK(gx_eval(k->require[0], args, &ok) == 0 && ok == 1);
    args[2] = 65;
    CHECK(gx_eval(k->require[0], args, &ok) == 0 && ok == 0);
done:
    ar_free(a);
}

/* -D values take precedence over @tune and defaults. */
static void test_defines(void) {
    Arena *a = ar_new();
    const char *diags;
    SmDefine d[2] = {{"B", "0x20"}, {"F", "true"}};
    SmOptions opt = {d, 2, NULL, 0, NULL, 0};
    IrModule *m = compile(a,
        "@tune(B = [16, 64])\n"
        "kernel k<B: i32, F: bool = false>(out: *i32) {\n"
        "    static_assert(F, \"F\");\n"
        "    store(out + arange(0, B), 1);\n"
        "}\n", &opt, &diags);
    CHECK_STR(diags, "");
    CHECK(m && m->nkernels == 1 && m->kernels[0]->cparams[0].value == 32 &&
          m->kernels[0]->cparams[1].value == 1);
    ar_free(a);
}

/* Out of memory is an error, not an abort (base/arena.c): with an arena
 * limit, compiling a program that needs more reports "out of memory" once
 * and fails; memory handed out after the failure is still usable. */
static void test_out_of_memory(void) {
    Arena *ar = ar_new();
    Diag *dg = dg_new(ar, NULL, 0);
    const char *src =
        "kernel k(p: *f32) {\n    var x = load(p);\n"
        "    for i in static_range(0, 4096) { x = x * 2.0 + 1.0; }\n"
        "    store(p, x);\n}\n";
    size_t len = strlen(src);
    uint32_t f = dg_add_file(dg, "oom.tile", src, len);
    AstFile *ast = ps_parse(ar, dg, f, src, len);
    CHECK(dg_errors(dg) == 0);
    ar_set_limit(ar, ar_used(ar) + 256 * 1024);
    CHECK(sm_compile(ar, dg, ast, NULL) == NULL);
    CHECK(ar_failed(ar) && dg_errors(dg) == 1 && dg_full(dg));
    CHECK(strcmp(dg_text(dg), "tilec: error: out of memory\n") == 0);
    char *p = ar_alloc(ar, 1000);
    CHECK(p[0] == 0 && p[999] == 0);
    CHECK(ar_try_alloc(ar, (size_t)1 << 30) == NULL);
    dg_free(dg);
    ar_free(ar);
}

int main(void) {
    test_kernel_info();
    test_defines();
    test_out_of_memory();
    test_promote();
    test_weak();
    test_casts();
    test_broadcast();
    return check_done("test_sema");
}
