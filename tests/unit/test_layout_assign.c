/* test_layout_assign.c — the layout pass on whole kernels: its
 * postcondition (ly_verify_kernel) on kernels with every kind of op and
 * control flow, in both variants, and the vector widths the lowering will
 * use (ly_mem_vec). `pad` has tiles whose extents are not powers of two:
 * layouts of the padded shape (ly_verify_kernel checks it), vectors no
 * wider than the largest power of two dividing the extent (the padding's
 * mask is constant over such runs only). */
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
    "}\n"
    "kernel pad(out: *f32, h: *f16, n: i32) {\n"
    "  let c = arange(0, 400);\n"
    "  store(out + c, load(out + c) + 1.0);\n"
    "  let d = arange(0, 1030);\n"
    "  store(out + d, load(out + d));\n"
    "  let e = arange(0, 5120);\n"
    "  store(h + e, load(h + e));\n"
    "  let r = arange(0, 96);\n"
    "  let k = arange(0, 80);\n"
    "  let t = load(out + r[:, None] * 80 + k[None, :]);\n"
    "  store(out + r, sum(t, 1));\n"
    "  store(out + k, max(t, 0) + cumsum(t, 0)[95, :]);\n"
    "  store(out + c, sort(load(out + c)) + cat(load(out + arange(0, 200)), load(out + arange(200, 400))));\n"
    "  let a = load(h + arange(0, 48)[:, None] * 64 + arange(0, 64)[None, :]);\n"
    "  let b = load(h + arange(0, 64)[:, None] * 80 + k[None, :]);\n"
    "  store(out + arange(0, 48)[:, None] * 80 + k[None, :], dot(a, b));\n"
    "}\n";

static IrModule *compile_src(Arena *ar, Diag *dg, const char *src) {
    uint32_t f = dg_add_file(dg, "t.tile", src, strlen(src));
    AstFile *ast = ps_parse(ar, dg, f, src, strlen(src));
    SmOptions so = {0};
    return ast && !dg_errors(dg) ? sm_compile(ar, dg, ast, &so) : NULL;
}

static IrModule *compile(Arena *ar, Diag *dg) { return compile_src(ar, dg, SRC); }

static const IrOp *nth_op(const IrKernel *k, int opc, int n) {
    for (const IrOp *op = k->body->first; op; op = op->next)
        if (op->op == opc && n-- == 0) return op;
    return NULL;
}

/* Every extent n from 1 to 300 (and 5000 to 5200), f16, f32 and f64, 1
 * and 4 warps, both variants: a copy's vectors never straddle the end of
 * the elements (n is a multiple of the width, so each aligned group is
 * all elements or all padding: one mask bit), and they are as wide as
 * the largest power of two dividing n allows (16 bytes and the elements
 * a thread holds permitting). */
static void test_padded_vectors(void) {
    static const char *const kinds[] = {"f16", "f32", "f64"};
    static const int bytes[] = {2, 4, 8};
    for (int n = 1; n <= 5200; n = n == 300 ? 5000 : n + 1)
        for (int t = 0; t < 3; t++)
            for (int w = 1; w <= 4; w *= 4) {
                char src[256];
                snprintf(src, sizeof src, "@warps(%d)\nkernel k(o: *%s, x: *%s) {\n"
                         "  let c = arange(0, %d);\n  store(o + c, load(x + c));\n}\n",
                         w, kinds[t], kinds[t], n);
                Arena *ar = ar_new();
                Diag *dg = dg_new(ar, stderr, 0);
                IrModule *m = compile_src(ar, dg, src);
                CHECK(m != NULL);
                for (int v = 0; m && v <= 1; v++) {
                    IrKernel *k = ir_clone_kernel(ar, m->kernels[0]);
                    LyFacts f = v ? ly_facts_full(ar, k, 1) : ly_facts_none(k);
                    LyResult *r = ly_assign_kernel(ar, k, &f, 0);
                    CHECK(ly_verify_kernel(ar, k) == 0);
                    int vec = ly_mem_vec(r, nth_op(k, IR_LOAD, 0)), want = 1;
                    int64_t held = pow2_ceil(n) / (32 * w);
                    while (v && n % (2 * want) == 0 && 2 * want * bytes[t] <= 16 &&
                           2 * want <= held)
                        want *= 2;
                    CHECK(n % vec == 0 && vec == want);
                    if (vec != want) fprintf(stderr, "n=%d %s warps=%d v=%d: vec %d, want %d\n",
                                             n, kinds[t], w, v, vec, want);
                }
                dg_free(dg);
                ar_free(ar);
            }
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
                /* vadd: v4 in the aligned variant; in the generic one
                 * 4 a thread too, realigned (plan/realign.c): groups
                 * tested at run time, none proven by axis info. */
                const IrOp *ld = nth_op(m->kernels[0], IR_LOAD, 0);
                const IrOp *st = nth_op(m->kernels[0], IR_STORE, 0);
                CHECK(ly_mem_vec(r, ld) == (v ? 4 : 1));
                CHECK(ly_mem_vec(r, st) == (v ? 4 : 1));
                CHECK(ly_vec_width(ld->res[0]->layout, 0) == 4);
                CHECK((ly_realigned(&r->realign, ld) != NULL) == !v);
                CHECK((ly_realigned(&r->realign, st) != NULL) == !v);
            }
            if (i == 3) {
                /* pad: [400] f32 in runs of 4, [1030] of 2, [5120] f16 of 8 */
                static const int want[] = {4, 2, 8};
                for (int j = 0; j < 3; j++) {
                    const IrOp *ld = nth_op(m->kernels[3], IR_LOAD, j);
                    CHECK(ly_mem_vec(r, ld) == (v ? want[j] : 1));
                    CHECK(ld->res[0]->layout->shape[0] == (j == 2 ? 8192 : j ? 2048 : 512));
                }
            }
            if (i == 1 && v) {
                const IrOp *ld = nth_op(m->kernels[1], IR_LOAD, 0);
                CHECK(ld->res[0]->layout->order[0] == 1 && ly_mem_vec(r, ld) == 4);
            }
        }
        dg_free(dg);
        ar_free(ar);
    }
    test_padded_vectors();
    return check_done("test_layout_assign");
}
