/* test_layout_assign.c — the layout pass on whole kernels: its
 * postcondition (ly_verify_kernel) on kernels with every kind of op and
 * control flow, in both variants, and the vector widths the lowering will
 * use (ly_mem_vec). */
#include "../../parser/parser.h"
#include "../../plan/layout.h"
#include "../../sema/sema.h"
#include "check.h"

#include <string.h>

static const char *SRC =
    "kernel vadd(out: *f32, x: *f32, y: *f32, n: i32) {\n"
    "  let offs = program_id(0) * 1024 + arange(0, 1024);\n"
    "  let m = offs < n;\n"
    "  store(out + offs, load(x + offs, mask=m) + load(y + offs, mask=m), mask=m);\n"
    "}\n"
    "kernel rows(out: *f32, x: *f32, n: i32) {\n"
    "  let r = arange(0, 64);\n"
    "  let c = arange(0, 32);\n"
    "  let v = load(x + r[:, None] * n + c[None, :]);\n"
    "  let s = sum(v, 1);\n"
    "  var acc = zeros([64], f32);\n"
    "  for k in range(0, n, 4) { acc += s; if k > 3 { acc = acc * 2.0; } }\n"
    "  var i = 0;\n"
    "  var t = zeros([32], f32);\n"
    "  while i < n { t = t + max(v, 0); i += 1; }\n"
    "  store(out + r[:, None] + c[None, :] * n, v + acc[:, None] + t[None, :]);\n"
    "  store(out + arange(0, 64), cumsum(acc, 0));\n"
    "  let p = permute(v, [1, 0]);\n"
    "  store(out + arange(0, 2048), reshape(p, [2048]));\n"
    "  store(out + c, sum(trans(v), 1));\n"
    "}\n"
    "kernel mm(c: *f32, a: *f32, b: *f32) {\n"
    "  let i = arange(0, 32);\n"
    "  let at = load(a + i[:, None] * 32 + i[None, :]);\n"
    "  let bt = load(b + i[:, None] * 32 + i[None, :]);\n"
    "  store(c + i[:, None] * 32 + i[None, :], dot(at, bt));\n"
    "  atomic_add(c + i, sum(at, 0), mask=i < 7);\n"
    "}\n";

static IrModule *compile(Arena *ar, Diag *dg) {
    uint32_t f = dg_add_file(dg, "t.tile", SRC, strlen(SRC));
    AstFile *ast = ps_parse(ar, dg, f, SRC, strlen(SRC));
    SmOptions so = {0};
    return ast && !dg_errors(dg) ? sm_compile(ar, dg, ast, &so) : NULL;
}

static const IrOp *nth_op(const IrKernel *k, int opc, int n) {
    for (const IrOp *op = k->body->first; op; op = op->next)
        if (op->op == opc && n-- == 0) return op;
    return NULL;
}

int main(void) {
    for (int v = 0; v <= 1; v++) {   /* nothing assumed; every fact */
        Arena *ar = ar_new();
        Diag *dg = dg_new(ar, stderr, 0);
        IrModule *m = compile(ar, dg);
        CHECK(m != NULL);
        if (!m) return check_done("test_layout_assign");
        for (int i = 0; i < m->nkernels; i++) {
            LyFacts f = v ? ly_facts_full(ar, m->kernels[i], 1) : ly_facts_none(m->kernels[i]);
            LyResult *r = ly_assign_kernel(ar, m->kernels[i], &f, 0);
            CHECK(ly_verify_kernel(ar, m->kernels[i]) == 0);
            if (ly_verify_kernel(ar, m->kernels[i])) ir_print_kernel(stderr, m->kernels[i]);
            if (i == 0) {
                /* vadd: v4 in the aligned variant, scalar in the generic. */
                const IrOp *ld = nth_op(m->kernels[0], IR_LOAD, 0);
                const IrOp *st = nth_op(m->kernels[0], IR_STORE, 0);
                CHECK(ly_mem_vec(r, ld) == (v ? 4 : 1));
                CHECK(ly_mem_vec(r, st) == (v ? 4 : 1));
                CHECK(ly_vec_width(ld->res[0]->layout, 0) == (v ? 4 : 1));
            }
            if (i == 1 && v) {
                const IrOp *ld = nth_op(m->kernels[1], IR_LOAD, 0);
                CHECK(ld->res[0]->layout->order[0] == 1 && ly_mem_vec(r, ld) == 4);
            }
        }
        dg_free(dg);
        ar_free(ar);
    }
    return check_done("test_layout_assign");
}
