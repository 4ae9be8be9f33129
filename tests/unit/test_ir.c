/* Unit tests of sema/ir: types, the builder, the printer, grid exprs. */
#include "sema/ir.h"
#include "check.h"

#include <stdlib.h>

static void test_types(void) {
    Arena *a = ar_new();
    int32_t d[2] = {64, 32};
    Type t = ty_tile(ty_scalar(SK_F16), 2, d);
    CHECK_STR(ty_str(a, t), "f16[64, 32]");
    CHECK(ty_numel(t) == 2048);
    CHECK_STR(ty_str(a, ty_ptr(SK_F32)), "*f32");
    CHECK(ty_kind_by_name("bf16") == SK_BF16 && ty_kind_by_name("x") == SK_VOID);
    CHECK(ty_isfloat(SK_BF16) && !ty_isint(SK_BOOL) && ty_issigned(SK_I8));
    CHECK(ty_bytes(SK_PTR) == 8 && ty_bits(SK_BOOL) == 1);
    ar_free(a);
}

static char *print_to_string(const IrKernel *k) {
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    ir_print_kernel(f, k);
    fclose(f);
    return s;
}

static void test_vadd(void) {
    Arena *a = ar_new();
    IrParam ps[3] = {{"out", ty_ptr(SK_F32), {0}, 0, 1},
                     {"x", ty_ptr(SK_F32), {0}, 0, 0},
                     {"n", ty_scalar(SK_I32), {0}, 0, 0}};
    IrKernel *k = ir_kernel(a, "vadd", 3, ps);
    IrBuilder b = {a, k, k->body, {0}};
    Type i32 = ty_scalar(SK_I32);
    int32_t d = 128;
    Type v = ty_tile(i32, 1, &d);
    IrValue *pid = ir_op1(&b, IR_PROGRAM_ID, i32, NULL);
    pid->def->iattr[0] = 0;
    IrValue *base = ir_op1(&b, IR_MUL, i32, pid, ir_const_int(&b, i32, 128), NULL);
    IrOp *ar = ir_emit(&b, IR_ARANGE, 1, &v, 0, NULL);
    ar->iattr[1] = 128;
    IrValue *offs = ir_op1(&b, IR_ADD, v, ir_op1(&b, IR_SPLAT, v, base, NULL), ar->res[0], NULL);
    IrValue *m = ir_op1(&b, IR_CMP, ty_tile(ty_scalar(SK_BOOL), 1, &d), offs,
                        ir_op1(&b, IR_SPLAT, v, k->body->args[2], NULL), NULL);
    m->def->iattr[0] = CMP_LT;
    IrValue *px = ir_op1(&b, IR_PTRADD, ty_tile(ty_ptr(SK_F32), 1, &d), k->body->args[1], offs, NULL);
    IrValue *x = ir_op1(&b, IR_LOAD, ty_tile(ty_scalar(SK_F32), 1, &d), px, m, NULL);
    x->def->iattr[0] = LOAD_MASK;
    IrValue *po = ir_op1(&b, IR_PTRADD, ty_tile(ty_ptr(SK_F32), 1, &d), k->body->args[0], offs, NULL);
    IrValue *sargs[3] = {po, x, m};
    ir_emit(&b, IR_STORE, 0, NULL, 3, sargs);
    GExpr n = {GX_PARAM, 0, 2, 0, 0, 0}, blk = {GX_CONST, 128, 0, 0, 0, 0};
    GExpr g = {GX_CDIV, 0, 0, &n, &blk, 0};
    k->ngrid = 1;
    k->grid[0] = &g;
    char *s = print_to_string(k);
    CHECK_STR(s,
        "kernel @vadd<warps=4, stages=3>(%out: *f32, %x: *f32, %n: i32) grid(cdiv(%n, 128)) {\n"
        "  %0 = program_id 0 : i32\n"
        "  %1 = const 128 : i32\n"
        "  %2 = muli %0, %1 : i32\n"
        "  %3 = arange 0, 128 : i32[128]\n"
        "  %4 = splat %2 : i32[128]\n"
        "  %5 = addi %4, %3 : i32[128]\n"
        "  %6 = splat %n : i32[128]\n"
        "  %7 = cmplt %5, %6 : bool[128]\n"
        "  %8 = ptradd %x, %5 : *f32[128]\n"
        "  %9 = load %8, mask %7 : f32[128]\n"
        "  %10 = ptradd %out, %5 : *f32[128]\n"
        "  store %10, %9, mask %7\n"
        "}\n");
    free(s);
    int64_t args[3] = {0, 0, 1000}, out = 0;
    CHECK(gx_eval(&g, args, &out) == 0 && out == 8);
    args[2] = 1024;
    CHECK(gx_eval(&g, args, &out) == 0 && out == 8);
    GExpr z = {GX_CONST, 0, 0, 0, 0, 0}, dz = {GX_DIV, 0, 0, &n, &z, 0};
    CHECK(gx_eval(&dz, args, &out) == -1);
    ar_free(a);
}

int main(void) {
    test_types();
    test_vadd();
    return check_done("test_ir");
}
