/* Unit tests of the interpreter on IR built by hand: number formats,
 * element-wise semantics, memory and bounds checks, control flow,
 * reductions, scans, dot, atomics and the debug ops. */
#include "interp/interp.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ builders */

typedef struct Ctx {
    Arena *a;
    Diag *dg;
    IrKernel *k;
    IrBuilder b;
} Ctx;

static Ctx begin(const char *name, int np, const IrParam *ps) {
    Ctx c;
    c.a = ar_new();
    c.dg = dg_new(c.a, NULL, 0);
    c.k = ir_kernel(c.a, name, np, ps);
    c.b = (IrBuilder){c.a, c.k, c.k->body, {0}};
    return c;
}

static void end(Ctx *c) {
    dg_free(c->dg);
    ar_free(c->a);
}

static IrParam ptr_param(const char *name, ScalarKind k) {
    return (IrParam){name, ty_ptr(k), {0}, 0, 0};
}
static IrParam scalar_param(const char *name, ScalarKind k) {
    return (IrParam){name, ty_scalar(k), {0}, 0, 0};
}
static IrValue *param(Ctx *c, int i) { return c->k->body->args[i]; }
static Type sc(ScalarKind k) { return ty_scalar(k); }
static Type t1(ScalarKind k, int n) {
    int32_t d[1] = {n};
    return ty_tile(ty_scalar(k), 1, d);
}
static Type t2(ScalarKind k, int m, int n) {
    int32_t d[2] = {m, n};
    return ty_tile(ty_scalar(k), 2, d);
}
static IrValue *cint(Ctx *c, ScalarKind k, int64_t v) { return ir_const_int(&c->b, sc(k), v); }
static IrValue *cflt(Ctx *c, ScalarKind k, double v) { return ir_const_float(&c->b, sc(k), v); }
static IrValue *op2(Ctx *c, IrOpcode o, Type t, IrValue *a, IrValue *b) {
    return ir_op1(&c->b, o, t, a, b, NULL);
}
static IrValue *op1(Ctx *c, IrOpcode o, Type t, IrValue *a) {
    return ir_op1(&c->b, o, t, a, NULL);
}
static IrValue *attr(IrValue *v, int i, int64_t x) {
    v->def->iattr[i] = x;
    return v;
}
static IrValue *arange(Ctx *c, int lo, int hi) {
    IrValue *v = ir_op1(&c->b, IR_ARANGE, t1(SK_I32, hi - lo), NULL);
    v->def->iattr[0] = lo;
    v->def->iattr[1] = hi;
    return v;
}
static IrValue *splat(Ctx *c, Type t, IrValue *s) { return op1(c, IR_SPLAT, t, s); }
static IrValue *cmp(Ctx *c, CmpPred p, IrValue *a, IrValue *b) {
    Type t = a->ty;
    t.k = SK_BOOL;
    t.pointee = 0;
    return attr(op2(c, IR_CMP, t, a, b), 0, p);
}
/* ptr (scalar) + offs (tile or scalar) */
static IrValue *ptradd(Ctx *c, IrValue *p, IrValue *offs) {
    Type t = offs->ty;
    t.k = SK_PTR;
    t.pointee = p->ty.pointee;
    if (offs->ty.rank && !p->ty.rank) p = splat(c, t, p);
    return op2(c, IR_PTRADD, t, p, offs);
}
static IrValue *load(Ctx *c, IrValue *p, IrValue *mask, IrValue *other) {
    Type t = p->ty;
    t.k = p->ty.pointee;
    t.pointee = 0;
    IrValue *args[3] = {p, mask, other};
    int n = 1 + (mask != NULL) + (other != NULL);
    if (!mask) args[1] = other;
    IrOp *o = ir_emit(&c->b, IR_LOAD, 1, &t, n, args);
    o->iattr[0] = (mask ? LOAD_MASK : 0) | (other ? LOAD_OTHER : 0);
    return o->res[0];
}
static void store(Ctx *c, IrValue *p, IrValue *v, IrValue *mask) {
    IrValue *args[3] = {p, v, mask};
    ir_emit(&c->b, IR_STORE, 0, NULL, mask ? 3 : 2, args);
}
static IrOp *yield(Ctx *c, int n, IrValue **vals) {
    return ir_emit(&c->b, IR_YIELD, 0, NULL, n, vals);
}

static int run(Ctx *c, IpArg *args, uint32_t gx, uint32_t gy, FILE *print) {
    uint32_t grid[3] = {gx, gy, 1};
    return ip_run(c->k, args, grid, c->dg, print);
}
static IpArg buf(void *p, size_t bytes) { return (IpArg){p, bytes, 0, 0}; }
static IpArg ival(int64_t v) { return (IpArg){NULL, 0, v, 0}; }
static IpArg fval(double v) { return (IpArg){NULL, 0, 0, v}; }

/* ------------------------------------------------------ number formats */

static float f16_round(float x) { return (float)ip_f16_to_double(ip_f16_from_double(x)); }

static void test_formats(void) {
    CHECK(ip_f16_from_double(1.0) == 0x3c00);
    CHECK(ip_f16_from_double(-2.0) == 0xc000);
    CHECK(ip_f16_from_double(65504.0) == 0x7bff);
    CHECK(ip_f16_from_double(65519.99) == 0x7bff);       /* below the tie */
    CHECK(ip_f16_from_double(65520.0) == 0x7c00);        /* tie: overflows */
    CHECK(ip_f16_from_double(1e6) == 0x7c00);
    CHECK(ip_f16_from_double(-INFINITY) == 0xfc00);
    CHECK(ip_f16_from_double(0x1p-24) == 0x0001);        /* min subnormal */
    CHECK(ip_f16_from_double(0x1p-25) == 0x0000);        /* tie to even 0 */
    CHECK(ip_f16_from_double(0x1.8p-25) == 0x0001);
    CHECK(ip_f16_from_double(0x3p-25) == 0x0002);        /* tie to even 2 */
    CHECK(ip_f16_from_double(0x1.ffcp-15) == 0x0400);    /* rounds up into
                                                            the normals */
    CHECK(ip_f16_from_double(1.0 + 0x1p-11) == 0x3c00);  /* tie to even */
    CHECK(ip_f16_from_double(1.0 + 0x3p-11) == 0x3c02);
    CHECK(ip_f16_from_double(2047.5) == 0x6800);        /* tie to even */
    CHECK(ip_f16_from_double(-0.0) == 0x8000);
    uint16_t nan = ip_f16_from_double(NAN);
    CHECK((nan & 0x7c00) == 0x7c00 && (nan & 0x3ff) != 0);
    CHECK(isnan(ip_f16_to_double(0x7e00)) && ip_f16_to_double(0xfc00) == -INFINITY);
    CHECK(ip_f16_to_double(0x0001) == 0x1p-24 && ip_f16_to_double(0x03ff) == 0x3ffp-24);
    CHECK(ip_f16_to_double(0x7bff) == 65504.0 && ip_f16_to_double(0x3555) == 0x1.554p-2);
    CHECK(f16_round(0.1f) == 0x1.998p-4f);
    /* every f16 bit pattern survives the round trip */
    int bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        double d = ip_f16_to_double((uint16_t)h);
        if (!isnan(d) && ip_f16_from_double(d) != h) bad++;
        double b = ip_bf16_to_double((uint16_t)h);
        if (!isnan(b) && ip_bf16_from_double(b) != h) bad++;
    }
    CHECK(bad == 0);

    CHECK(ip_bf16_from_double(1.0) == 0x3f80);
    CHECK(ip_bf16_from_double(1.0 + 0x1p-8) == 0x3f80);  /* tie to even */
    CHECK(ip_bf16_from_double(1.0 + 0x3p-8) == 0x3f82);
    CHECK(ip_bf16_from_double(0x1.fep127) == 0x7f7f);    /* max bf16 */
    CHECK(ip_bf16_from_double(3.4028234663852886e38) == 0x7f80); /* FLT_MAX */
    CHECK(ip_bf16_from_double(0x1p-133) == 0x0001);      /* min subnormal */
    CHECK(ip_bf16_from_double(0x1p-134) == 0x0000);
    CHECK(ip_bf16_from_double(-INFINITY) == 0xff80);
    CHECK(ip_bf16_to_double(0x0001) == 0x1p-133 && ip_bf16_to_double(0xc040) == -3.0);
    nan = ip_bf16_from_double(-NAN);
    CHECK((nan & 0x7f80) == 0x7f80 && (nan & 0x7f) != 0 && (nan & 0x8000));

    /* tf32: the low 13 bits dropped, toward zero whatever the sign */
    CHECK(ip_tf32_trunc(1.0f + 0x1p-11f) == 1.0f);
    CHECK(ip_tf32_trunc(-(1.0f + 0x1p-11f)) == -1.0f);
    CHECK(ip_tf32_trunc(1.0f + 0x1fffp-23f) == 1.0f);
    CHECK(ip_tf32_trunc(1.0f + 0x3p-11f) == 1.0f + 0x1p-10f);
    CHECK(ip_tf32_trunc(0x1p-149f) == 0.0f && ip_tf32_trunc(0x1p-136f) == 0x1p-136f);
    CHECK(isinf(ip_tf32_trunc(INFINITY)) && isnan(ip_tf32_trunc(NAN)));
    {   /* a NaN with its payload only in the dropped bits: an infinity */
        uint32_t b = 0x7f800001u;
        float x;
        memcpy(&x, &b, sizeof x);
        CHECK(isinf(ip_tf32_trunc(x)));
    }

    /* conversions between kinds */
    IpSlot s = {.f = 3.99};
    CHECK(ip_convert(SK_F32, SK_I32, s).i == 3);
    s.f = -3.99;
    CHECK(ip_convert(SK_F32, SK_I32, s).i == -3);
    CHECK(ip_convert(SK_F32, SK_U8, s).i == 0);
    s.f = 1e10;
    CHECK(ip_convert(SK_F32, SK_I32, s).i == INT32_MAX);
    CHECK(ip_convert(SK_F64, SK_U64, s).u == 10000000000u);
    s.f = -1e30;
    CHECK(ip_convert(SK_F32, SK_I64, s).i == INT64_MIN);
    s.f = NAN;
    CHECK(ip_convert(SK_F32, SK_I32, s).i == 0 && ip_convert(SK_F32, SK_BOOL, s).i == 1);
    s.i = 300;
    CHECK(ip_convert(SK_I32, SK_U8, s).i == 44 && ip_convert(SK_I32, SK_I8, s).i == 44);
    s.i = 200;
    CHECK(ip_convert(SK_I32, SK_I8, s).i == -56);
    s.i = -1;
    CHECK(ip_convert(SK_I32, SK_U32, s).i == 0xffffffff);
    CHECK(ip_convert(SK_I32, SK_U64, s).u == UINT64_MAX);
    CHECK(ip_convert(SK_U32, SK_F32, (IpSlot){.i = 0xffffffff}).f == 4294967296.0);
    s.i = 65519;
    CHECK(ip_convert(SK_I32, SK_F16, s).f == 65504.0);
    s.i = 65520;
    CHECK(isinf(ip_convert(SK_I32, SK_F16, s).f));
    /* 2^60 + 2^52 + 1 is just above a bf16 tie: it must round up, which a
     * plain conversion through double would get wrong */
    s.i = (INT64_C(1) << 60) + (INT64_C(1) << 52) + 1;
    CHECK(ip_convert(SK_I64, SK_BF16, s).f == 0x1.02p60);
    s.i = (INT64_C(1) << 60) + (INT64_C(1) << 52);
    CHECK(ip_convert(SK_I64, SK_BF16, s).f == 0x1p60);
    s.f = 0x1.0000000000001p0;  /* f64 -> f16 rounds once */
    CHECK(ip_convert(SK_F64, SK_F16, s).f == 1.0);
    s.f = 1.0 + 0x1p-11 + 0x1p-40;  /* above the f16 tie, below f32's ulp */
    CHECK(ip_convert(SK_F64, SK_F16, s).f == 1.0 + 0x1p-10);
}

/* ------------------------------------------------ element-wise kernels */

/* out[i] = a[i] OP b[i] over n elements (b unused for unary ops). */
static void elementwise(IrOpcode o, int64_t iattr, ScalarKind in, ScalarKind out,
                        int n, const void *a, const void *b, void *r, int *rc,
                        char **err) {
    IrParam ps[3] = {ptr_param("a", in), ptr_param("b", in), ptr_param("r", out)};
    Ctx c = begin("ew", 3, ps);
    IrValue *offs = arange(&c, 0, n);
    IrValue *x = load(&c, ptradd(&c, param(&c, 0), offs), NULL, NULL);
    IrValue *y = load(&c, ptradd(&c, param(&c, 1), offs), NULL, NULL);
    int unary = o == IR_NEG || o == IR_NOT || o == IR_ABS || o == IR_CAST ||
                (o >= IR_EXP && o <= IR_CEIL);
    IrValue *v = unary ? op1(&c, o, t1(out, n), x) : op2(&c, o, t1(out, n), x, y);
    v->def->iattr[0] = iattr;
    store(&c, ptradd(&c, param(&c, 2), offs), v, NULL);
    size_t ib = (size_t)(n * ty_bytes(in)), ob = (size_t)(n * ty_bytes(out));
    IpArg args[3] = {buf((void *)a, ib), buf((void *)(b ? b : a), ib), buf(r, ob)};
    *rc = run(&c, args, 1, 1, NULL);
    if (err) *err = strdup(dg_text(c.dg));
    end(&c);
}

static void test_integers(void) {
    int rc;
    int32_t a[8] = {INT32_MAX, INT32_MIN, -7, 7, 1, -1, 5, -8};
    int32_t b[8] = {1, -1, 2, -2, 31, 32, 40, 1};
    int32_t r[8];
    elementwise(IR_ADD, 0, SK_I32, SK_I32, 8, a, b, r, &rc, NULL);
    CHECK(rc == 0 && r[0] == INT32_MIN && r[1] == INT32_MAX && r[2] == -5);
    elementwise(IR_MUL, 0, SK_I32, SK_I32, 8, a, b, r, &rc, NULL);
    CHECK(r[0] == INT32_MAX && r[1] == INT32_MIN && r[3] == -14);
    elementwise(IR_DIV, 0, SK_I32, SK_I32, 8, a, b, r, &rc, NULL);
    CHECK(rc == 0 && r[1] == INT32_MIN && r[2] == -3 && r[3] == -3 && r[7] == -8);
    elementwise(IR_REM, 0, SK_I32, SK_I32, 8, a, b, r, &rc, NULL);
    CHECK(rc == 0 && r[1] == 0 && r[2] == -1 && r[3] == 1);
    /* shifts: amounts >= 32 give 0, or the sign fill for signed >> */
    elementwise(IR_SHL, 0, SK_I32, SK_I32, 8, a, b, r, &rc, NULL);
    CHECK(r[4] == INT32_MIN && r[5] == 0 && r[6] == 0 && r[2] == -28);
    elementwise(IR_SHR, 0, SK_I32, SK_I32, 8, a, b, r, &rc, NULL);
    CHECK(r[4] == 0 && r[5] == -1 && r[6] == 0 && r[2] == -2 && r[3] == 0);
    elementwise(IR_SHR, 0, SK_U32, SK_U32, 8, a, b, r, &rc, NULL);
    CHECK(r[5] == 0 && r[4] == 0 && (uint32_t)r[2] == 0x3ffffffeu && r[0] == 0x3fffffff);
    elementwise(IR_MIN, 0, SK_I32, SK_I32, 8, a, b, r, &rc, NULL);
    CHECK(r[1] == INT32_MIN && r[2] == -7);
    elementwise(IR_MIN, 0, SK_U32, SK_U32, 8, a, b, r, &rc, NULL);
    CHECK(r[1] == INT32_MIN && r[2] == 2);          /* 0x80000000 < 0xffffffff */
    elementwise(IR_ABS, 0, SK_I32, SK_I32, 8, a, b, r, &rc, NULL);
    CHECK(r[1] == INT32_MIN && r[2] == 7);
    elementwise(IR_NEG, 0, SK_I32, SK_I32, 8, a, b, r, &rc, NULL);
    CHECK(r[1] == INT32_MIN && r[0] == -INT32_MAX);
    elementwise(IR_NOT, 0, SK_I32, SK_I32, 8, a, b, r, &rc, NULL);
    CHECK(r[2] == 6 && r[5] == 0);
    uint32_t ua[2] = {0xffffffffu, 0x12345678u}, ub[2] = {0xffffffffu, 0x10u}, ur[2];
    elementwise(IR_UMULHI, 0, SK_U32, SK_U32, 2, ua, ub, ur, &rc, NULL);
    CHECK(ur[0] == 0xfffffffeu && ur[1] == 0x1u);
    elementwise(IR_UMULHI, 0, SK_I32, SK_I32, 2, ua, ub, ur, &rc, NULL);
    CHECK(ur[0] == 0xfffffffeu);                    /* unsigned product */
    uint8_t u8a[4] = {250, 3, 0, 128}, u8b[4] = {10, 5, 1, 2}, u8r[4];
    elementwise(IR_ADD, 0, SK_U8, SK_U8, 4, u8a, u8b, u8r, &rc, NULL);
    CHECK(u8r[0] == 4 && u8r[1] == 8);
    elementwise(IR_SUB, 0, SK_U8, SK_U8, 4, u8a, u8b, u8r, &rc, NULL);
    CHECK(u8r[1] == 254 && u8r[2] == 255);
    elementwise(IR_MUL, 0, SK_U8, SK_U8, 4, u8a, u8b, u8r, &rc, NULL);
    CHECK(u8r[3] == 0 && u8r[0] == (uint8_t)2500);
    elementwise(IR_CMP, CMP_LT, SK_U8, SK_BOOL, 4, u8a, u8b, u8r, &rc, NULL);
    CHECK(u8r[0] == 0 && u8r[1] == 1 && u8r[2] == 1 && u8r[3] == 0);
    int64_t la[2] = {INT64_MIN, 9}, lb[2] = {-1, -4}, lr[2];
    elementwise(IR_DIV, 0, SK_I64, SK_I64, 2, la, lb, lr, &rc, NULL);
    CHECK(rc == 0 && lr[0] == INT64_MIN && lr[1] == -2);
    elementwise(IR_REM, 0, SK_I64, SK_I64, 2, la, lb, lr, &rc, NULL);
    CHECK(lr[0] == 0 && lr[1] == 1);
    uint64_t qa[1] = {UINT64_MAX}, qb[1] = {UINT64_MAX}, qr[1];
    elementwise(IR_UMULHI, 0, SK_U64, SK_U64, 1, qa, qb, qr, &rc, NULL);
    CHECK(qr[0] == UINT64_MAX - 1);

    /* division by zero stops the run, naming the element */
    int32_t z[4] = {1, 2, 3, 4}, zb[4] = {1, 1, 0, 1}, zr[4];
    char *err = NULL;
    elementwise(IR_DIV, 0, SK_I32, SK_I32, 4, z, zb, zr, &rc, &err);
    CHECK(rc == -1);
    CHECK_STR(err, "error: integer division by zero: index (2), program (0, 0, 0)\n");
    free(err);

    /* casts */
    float fa[6] = {1.5f, -1.5f, 3e9f, -3e9f, NAN, 255.9f};
    int32_t ir[6];
    elementwise(IR_CAST, 0, SK_F32, SK_I32, 6, fa, NULL, ir, &rc, NULL);
    CHECK(ir[0] == 1 && ir[1] == -1 && ir[2] == INT32_MAX && ir[3] == INT32_MIN && ir[4] == 0);
    uint8_t br[6];
    elementwise(IR_CAST, 0, SK_F32, SK_U8, 6, fa, NULL, br, &rc, NULL);
    CHECK(br[0] == 1 && br[1] == 0 && br[2] == 255 && br[5] == 255);
    int32_t wa[3] = {-1, 256, 129};
    int8_t wr[3];
    elementwise(IR_CAST, 0, SK_I32, SK_I8, 3, wa, NULL, wr, &rc, NULL);
    CHECK(wr[0] == -1 && wr[1] == 0 && wr[2] == -127);
}

static void test_floats(void) {
    int rc;
    float a[6] = {1.0f, NAN, -0.0f, 1e30f, 3.0f, -INFINITY};
    float b[6] = {0x1p-24f, 2.0f, 0.0f, 1e30f, NAN, 1.0f};
    float r[6];
    uint8_t br[6];
    elementwise(IR_ADD, 0, SK_F32, SK_F32, 6, a, b, r, &rc, NULL);
    CHECK(r[0] == 1.0f && isnan(r[1]) && isinf(r[3]) == 0 && r[3] == 2e30f);
    elementwise(IR_MAX, 0, SK_F32, SK_F32, 6, a, b, r, &rc, NULL);
    CHECK(r[1] == 2.0f && r[4] == 3.0f && r[5] == 1.0f);  /* NaN loses */
    elementwise(IR_MIN, 0, SK_F32, SK_F32, 6, a, b, r, &rc, NULL);
    CHECK(r[1] == 2.0f && r[4] == 3.0f && r[5] == -INFINITY);
    elementwise(IR_CMP, CMP_NE, SK_F32, SK_BOOL, 6, a, b, br, &rc, NULL);
    CHECK(br[1] == 1 && br[2] == 0 && br[3] == 0 && br[4] == 1);
    elementwise(IR_CMP, CMP_GE, SK_F32, SK_BOOL, 6, a, b, br, &rc, NULL);
    CHECK(br[0] == 1 && br[1] == 0 && br[2] == 1 && br[4] == 0);
    /* f32 arithmetic is done in float: 1 + 2^-24 rounds back to 1 */
    elementwise(IR_DIV, 0, SK_F32, SK_F32, 6, a, b, r, &rc, NULL);
    CHECK(r[0] == 16777216.0f && isnan(r[2]));
    float e[2] = {1.0f, -0.5f}, er[2];
    elementwise(IR_EXP, 0, SK_F32, SK_F32, 2, e, NULL, er, &rc, NULL);
    CHECK(er[0] == (float)exp(1.0) && er[1] == (float)exp(-0.5));
    elementwise(IR_ERF, 0, SK_F32, SK_F32, 2, e, NULL, er, &rc, NULL);
    CHECK(er[0] == (float)erf(1.0));
    elementwise(IR_RSQRT, 0, SK_F32, SK_F32, 1, e, NULL, er, &rc, NULL);
    CHECK(er[0] == 1.0f);
    /* f16: rounded after every op */
    uint16_t ha[2] = {ip_f16_from_double(1.0), ip_f16_from_double(65504.0)};
    uint16_t hb[2] = {ip_f16_from_double(0x1p-11), ip_f16_from_double(8.0)};
    uint16_t hr[2];
    elementwise(IR_ADD, 0, SK_F16, SK_F16, 2, ha, hb, hr, &rc, NULL);
    CHECK(hr[0] == 0x3c00 && hr[1] == 0x7bff);   /* 65512 < 65520: 65504 */
    elementwise(IR_MUL, 0, SK_F16, SK_F16, 2, ha, hb, hr, &rc, NULL);
    CHECK(hr[1] == 0x7c00);                        /* overflow to inf */
    uint16_t bfa[1] = {ip_bf16_from_double(1.0)}, bfb[1] = {ip_bf16_from_double(0x1.02p-8)},
             bfr[1];
    elementwise(IR_ADD, 0, SK_BF16, SK_BF16, 1, bfa, bfb, bfr, &rc, NULL);
    CHECK(bfr[0] == 0x3f81);                       /* above the tie */
    double da[1] = {0.1}, db[1] = {0.2}, dr[1];
    elementwise(IR_ADD, 0, SK_F64, SK_F64, 1, da, db, dr, &rc, NULL);
    CHECK(dr[0] == 0.1 + 0.2);
    elementwise(IR_CAST, 0, SK_F64, SK_F32, 1, da, NULL, r, &rc, NULL);
    CHECK(r[0] == 0.1f);
    elementwise(IR_CAST, 0, SK_F32, SK_F16, 2, e, NULL, hr, &rc, NULL);
    CHECK(hr[0] == 0x3c00 && hr[1] == 0xb800);
}

/* ------------------------------------------------------- vadd and memory */

static const char vadd_src[] =
    "kernel vadd<BLOCK: i32 = 1024>(out: *f32, x: *f32, y: *f32, n: i32)\n"
    "    grid(cdiv(n, BLOCK))\n"
    "{\n"
    "    let offs = program_id(0) * BLOCK + arange(0, BLOCK);\n"
    "    let m = offs < n;\n"
    "    store(out + offs, load(x + offs, mask=m) + load(y + offs, mask=m), mask=m);\n"
    "}\n";

/* vadd as sema would build it (BLOCK = 128); with masks or without. */
static Ctx build_vadd(int masked) {
    IrParam ps[4] = {ptr_param("out", SK_F32), ptr_param("x", SK_F32),
                     ptr_param("y", SK_F32), scalar_param("n", SK_I32)};
    Ctx c = begin("vadd", 4, ps);
    uint32_t file = dg_add_file(c.dg, "vadd.tile", vadd_src, sizeof vadd_src - 1);
    Type v = t1(SK_I32, 128);
    IrValue *pid = attr(ir_op1(&c.b, IR_PROGRAM_ID, sc(SK_I32), NULL), 0, 0);
    IrValue *base = op2(&c, IR_MUL, sc(SK_I32), pid, cint(&c, SK_I32, 128));
    IrValue *offs = op2(&c, IR_ADD, v, splat(&c, v, base), arange(&c, 0, 128));
    IrValue *m = masked ? cmp(&c, CMP_LT, offs, splat(&c, v, param(&c, 3))) : NULL;
    c.b.loc = (Loc){file, 6, 23, 6, 45};
    IrValue *x = load(&c, ptradd(&c, param(&c, 1), offs), m, NULL);
    c.b.loc = (Loc){file, 6, 48, 6, 70};
    IrValue *y = load(&c, ptradd(&c, param(&c, 2), offs), m, NULL);
    IrValue *s = op2(&c, IR_ADD, t1(SK_F32, 128), x, y);
    c.b.loc = (Loc){file, 6, 5, 6, 80};
    store(&c, ptradd(&c, param(&c, 0), offs), s, m);
    return c;
}

static void test_vadd(void) {
    enum { N = 1000, CAP = 1024 };
    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N),
          *out = malloc(sizeof(float) * CAP);
    for (int i = 0; i < N; i++) x[i] = (float)i * 0.5f, y[i] = 1.0f / (float)(i + 1);
    for (int i = 0; i < CAP; i++) out[i] = -1.0f;
    Ctx c = build_vadd(1);
    IpArg args[4] = {buf(out, sizeof(float) * N), buf(x, sizeof(float) * N),
                     buf(y, sizeof(float) * N), ival(N)};
    CHECK(run(&c, args, 8, 1, NULL) == 0);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += out[i] != x[i] + y[i];
    CHECK(bad == 0);
    for (int i = N; i < CAP; i++) bad += out[i] != -1.0f;   /* untouched */
    CHECK(bad == 0);
    CHECK_STR(dg_text(c.dg), "");
    end(&c);

    /* without the mask, the last program reads past x */
    c = build_vadd(0);
    CHECK(run(&c, args, 8, 1, NULL) == -1);
    CHECK_STR(dg_text(c.dg),
              "vadd.tile:6:23: error: out-of-bounds load of 'x': element 1000 of "
              "1000, program (7, 0, 0)\n"
              "    store(out + offs, load(x + offs, mask=m) + load(y + offs, mask=m), mask=m);\n"
              "                      ^~~~~~~~~~~~~~~~~~~~~~\n");
    end(&c);

    /* out too small: the store is reported, naming 'out' */
    c = build_vadd(1);
    args[0] = buf(out, sizeof(float) * 500);
    CHECK(run(&c, args, 8, 1, NULL) == -1);
    CHECK(strstr(dg_text(c.dg), "vadd.tile:6:5: error: out-of-bounds store to 'out': "
                                "element 500 of 500, program (3, 0, 0)\n") != NULL);
    end(&c);

    /* a zero-size grid does nothing */
    c = build_vadd(0);
    CHECK(run(&c, args, 0, 1, NULL) == 0);
    end(&c);
    free(x);
    free(y);
    free(out);
}

/* A masked-off load yields `other`, or poison; a scalar pointer loads a
 * scalar. */
static void test_load_other(void) {
    IrParam ps[2] = {ptr_param("out", SK_I32), ptr_param("x", SK_I32)};
    Ctx c = begin("other", 2, ps);
    IrValue *offs = arange(&c, 0, 8);
    IrValue *m = cmp(&c, CMP_LT, offs, splat(&c, t1(SK_I32, 8), cint(&c, SK_I32, 4)));
    IrValue *p = ptradd(&c, param(&c, 1), offs);
    IrValue *a = load(&c, p, m, splat(&c, t1(SK_I32, 8), cint(&c, SK_I32, -7)));
    IrValue *b = load(&c, p, m, NULL);
    IrValue *s = load(&c, ptradd(&c, param(&c, 1), cint(&c, SK_I32, 2)), NULL, NULL);
    IrValue *sum = op2(&c, IR_ADD, t1(SK_I32, 8), op2(&c, IR_ADD, t1(SK_I32, 8), a, b),
                       splat(&c, t1(SK_I32, 8), s));
    store(&c, ptradd(&c, param(&c, 0), offs), sum, NULL);
    int32_t x[4] = {10, 20, 30, 40}, out[8];
    IpArg args[2] = {buf(out, sizeof out), buf(x, sizeof x)};
    CHECK(run(&c, args, 1, 1, NULL) == 0);
    /* lanes 4..7: other (-7) + poison (0xA5A5A5A5) + x[2] (30), wrapped */
    int32_t garbage = (int32_t)(0xA5A5A5A5u + 23u);
    CHECK(out[0] == 50 && out[3] == 110 && out[4] == garbage && out[7] == garbage);
    end(&c);
}

/* out[0..8) = load(x + arange(0, 8), mask=arange < 3) of kind k, no
 * other: the masked-off lanes 3..7 hold the poison. */
static void load_masked(ScalarKind k, const void *x, void *out) {
    IrParam ps[2] = {ptr_param("out", k), ptr_param("x", k)};
    Ctx c = begin("poison", 2, ps);
    IrValue *offs = arange(&c, 0, 8);
    IrValue *m = cmp(&c, CMP_LT, offs, splat(&c, t1(SK_I32, 8), cint(&c, SK_I32, 3)));
    IrValue *v = load(&c, ptradd(&c, param(&c, 1), offs), m, NULL);
    store(&c, ptradd(&c, param(&c, 0), offs), v, NULL);
    IpArg a[2] = {buf(out, (size_t)(8 * ty_bytes(k))), buf((void *)x, (size_t)(3 * ty_bytes(k)))};
    CHECK(run(&c, a, 1, 1, NULL) == 0);
    end(&c);
}

/* Masked-off lanes of a load without `other` are unspecified on the GPU;
 * the interpreter makes them NaN, or 0xA5 repeated (true for bool), so
 * that a result depending on them shows it. */
static void test_load_poison(void) {
    uint64_t xi[3] = {1, 0, 1}, oi[8];   /* also valid bools */
    static const struct { ScalarKind k; uint64_t want; } ints[] = {
        {SK_I8, 0xA5}, {SK_U8, 0xA5}, {SK_I16, 0xA5A5}, {SK_U16, 0xA5A5},
        {SK_I32, 0xA5A5A5A5}, {SK_U32, 0xA5A5A5A5}, {SK_I64, 0xA5A5A5A5A5A5A5A5},
        {SK_U64, 0xA5A5A5A5A5A5A5A5}, {SK_BOOL, 1},
    };
    for (size_t t = 0; t < sizeof ints / sizeof *ints; t++) {
        int w = ty_bytes(ints[t].k);
        unsigned char in[24] = {0}, out[64];
        for (int i = 0; i < 3; i++) memcpy(in + i * w, &xi[i], (size_t)w);  /* little-endian */
        load_masked(ints[t].k, in, out);
        int ok = 1;
        for (int i = 0; i < 8; i++) {
            oi[i] = 0;
            memcpy(&oi[i], out + i * w, (size_t)w);
            ok &= oi[i] == (i < 3 ? xi[i] : ints[t].want);
        }
        CHECK(ok);
    }
    float xf[3] = {1, 2, 3}, of[8];
    load_masked(SK_F32, xf, of);
    CHECK(of[2] == 3 && isnan(of[3]) && isnan(of[7]));
    double xd[3] = {1, 2, 3}, od[8];
    load_masked(SK_F64, xd, od);
    CHECK(od[0] == 1 && isnan(od[3]) && isnan(od[7]));
    uint16_t xh[3], oh[8];
    for (int i = 0; i < 3; i++) xh[i] = ip_f16_from_double(i + 1);
    load_masked(SK_F16, xh, oh);
    CHECK(ip_f16_to_double(oh[1]) == 2 && isnan(ip_f16_to_double(oh[3])));
    load_masked(SK_BF16, xh, oh);
    CHECK(isnan(ip_bf16_to_double(oh[5])));
}

/* A sum over a block of 8 with 5 elements: without other it is NaN (on
 * the GPU it happens to be right), with other=0 it is right. */
static void test_sum_poison(void) {
    IrParam ps[2] = {ptr_param("out", SK_F32), ptr_param("x", SK_F32)};
    Ctx c = begin("sum", 2, ps);
    IrValue *offs = arange(&c, 0, 8);
    IrValue *m = cmp(&c, CMP_LT, offs, splat(&c, t1(SK_I32, 8), cint(&c, SK_I32, 5)));
    IrValue *p = ptradd(&c, param(&c, 1), offs);
    IrValue *bare = load(&c, p, m, NULL);
    IrValue *zero = load(&c, p, m, splat(&c, t1(SK_F32, 8), cflt(&c, SK_F32, 0.0)));
    IrValue *s0 = attr(op1(&c, IR_REDUCE, sc(SK_F32), bare), 0, RED_SUM);
    IrValue *s1 = attr(op1(&c, IR_REDUCE, sc(SK_F32), zero), 0, RED_SUM);
    store(&c, param(&c, 0), s0, NULL);
    store(&c, ptradd(&c, param(&c, 0), cint(&c, SK_I32, 1)), s1, NULL);
    float x[5] = {1, 2, 3, 4, 5}, out[2] = {0, 0};
    IpArg args[2] = {buf(out, sizeof out), buf(x, sizeof x)};
    CHECK(run(&c, args, 1, 1, NULL) == 0);
    CHECK(isnan(out[0]));
    CHECK(out[1] == 15.0f);
    end(&c);
}

/* ---------------------------------------------------------- control flow */

/* for i in range(lo, hi, step): (a, b) = (b, a + b); s += i  — the swap
 * checks that carried values are copied as a whole. */
static void test_for(void) {
    IrParam ps[4] = {ptr_param("out", SK_I32), scalar_param("lo", SK_I32),
                     scalar_param("hi", SK_I32), scalar_param("step", SK_I32)};
    Ctx c = begin("fib", 4, ps);
    Type i32 = sc(SK_I32);
    IrValue *args[6] = {param(&c, 1), param(&c, 2), param(&c, 3), cint(&c, SK_I32, 0),
                        cint(&c, SK_I32, 1), cint(&c, SK_I32, 0)};
    Type rt[3] = {i32, i32, i32};
    IrOp *f = ir_emit(&c.b, IR_FOR, 3, rt, 6, args);
    ir_add_regions(&c.b, f, 1);
    Type at[4] = {i32, i32, i32, i32};
    IrBlock *body = f->regions[0] = ir_block(&c.b, 4, at);
    body->parent = f;
    IrBlock *outer = c.b.blk;
    c.b.blk = body;
    IrValue *ab = op2(&c, IR_ADD, i32, body->args[1], body->args[2]);
    IrValue *s = op2(&c, IR_ADD, i32, body->args[3], body->args[0]);
    IrValue *ys[3] = {body->args[2], ab, s};
    yield(&c, 3, ys);
    c.b.blk = outer;
    store(&c, param(&c, 0), f->res[0], NULL);
    store(&c, ptradd(&c, param(&c, 0), cint(&c, SK_I32, 1)), f->res[2], NULL);
    int32_t out[2];
    IpArg a[4] = {buf(out, sizeof out), ival(0), ival(10), ival(1)};
    CHECK(run(&c, a, 1, 1, NULL) == 0 && out[0] == 55 && out[1] == 45);
    a[3] = ival(3);   /* 0, 3, 6, 9 */
    CHECK(run(&c, a, 1, 1, NULL) == 0 && out[0] == 3 && out[1] == 18);
    a[1] = ival(10), a[2] = ival(0), a[3] = ival(-4);  /* 10, 6, 2 */
    CHECK(run(&c, a, 1, 1, NULL) == 0 && out[0] == 2 && out[1] == 18);
    a[1] = ival(5), a[2] = ival(5);                    /* no iteration */
    CHECK(run(&c, a, 1, 1, NULL) == 0 && out[0] == 0 && out[1] == 0);
    a[3] = ival(0);
    CHECK(run(&c, a, 1, 1, NULL) == -1);
    CHECK(strstr(dg_text(c.dg), "error: for loop with a step of zero, program (0, 0, 0)") != NULL);
    end(&c);
}

/* out = n > 0 ? n * 2 : -n, as an if with one result. */
static void test_if(void) {
    IrParam ps[2] = {ptr_param("out", SK_I32), scalar_param("n", SK_I32)};
    Ctx c = begin("iff", 2, ps);
    Type i32 = sc(SK_I32);
    IrValue *cond = cmp(&c, CMP_GT, param(&c, 1), cint(&c, SK_I32, 0));
    IrOp *o = ir_emit(&c.b, IR_IF, 1, &i32, 1, &cond);
    ir_add_regions(&c.b, o, 2);
    IrBlock *outer = c.b.blk;
    c.b.blk = o->regions[0] = ir_block(&c.b, 0, NULL);
    IrValue *v = op2(&c, IR_MUL, i32, param(&c, 1), cint(&c, SK_I32, 2));
    yield(&c, 1, &v);
    c.b.blk = o->regions[1] = ir_block(&c.b, 0, NULL);
    v = op1(&c, IR_NEG, i32, param(&c, 1));
    yield(&c, 1, &v);
    c.b.blk = outer;
    store(&c, param(&c, 0), o->res[0], NULL);
    int32_t out;
    IpArg a[2] = {buf(&out, sizeof out), ival(21)};
    CHECK(run(&c, a, 1, 1, NULL) == 0 && out == 42);
    a[1] = ival(-5);
    CHECK(run(&c, a, 1, 1, NULL) == 0 && out == 5);
    end(&c);
}

/* Collatz steps: while n != 1 { n = n even ? n/2 : 3n+1; steps++ } */
static void test_while(void) {
    IrParam ps[2] = {ptr_param("out", SK_I32), scalar_param("n", SK_I32)};
    Ctx c = begin("collatz", 2, ps);
    Type i32 = sc(SK_I32), two[2] = {i32, i32};
    IrValue *inits[2] = {param(&c, 1), cint(&c, SK_I32, 0)};
    IrOp *w = ir_emit(&c.b, IR_WHILE, 2, two, 2, inits);
    ir_add_regions(&c.b, w, 2);
    IrBlock *outer = c.b.blk;
    IrBlock *before = c.b.blk = w->regions[0] = ir_block(&c.b, 2, two);
    IrValue *cv[3] = {cmp(&c, CMP_NE, before->args[0], cint(&c, SK_I32, 1)),
                      before->args[0], before->args[1]};
    ir_emit(&c.b, IR_CONDITION, 0, NULL, 3, cv);
    IrBlock *after = c.b.blk = w->regions[1] = ir_block(&c.b, 2, two);
    IrValue *n = after->args[0];
    IrValue *even = cmp(&c, CMP_EQ, op2(&c, IR_REM, i32, n, cint(&c, SK_I32, 2)),
                        cint(&c, SK_I32, 0));
    IrValue *half = op2(&c, IR_DIV, i32, n, cint(&c, SK_I32, 2));
    IrValue *up = op2(&c, IR_ADD, i32, op2(&c, IR_MUL, i32, n, cint(&c, SK_I32, 3)),
                      cint(&c, SK_I32, 1));
    IrValue *next[2] = {ir_op1(&c.b, IR_SELECT, i32, even, half, up, NULL),
                        op2(&c, IR_ADD, i32, after->args[1], cint(&c, SK_I32, 1))};
    yield(&c, 2, next);
    c.b.blk = outer;
    store(&c, param(&c, 0), w->res[1], NULL);
    int32_t out;
    IpArg a[2] = {buf(&out, sizeof out), ival(27)};
    CHECK(run(&c, a, 1, 1, NULL) == 0 && out == 111);
    a[1] = ival(1);
    CHECK(run(&c, a, 1, 1, NULL) == 0 && out == 0);
    end(&c);
}

/* ------------------------------------------------- reductions and scans */

/* x: [4, 8] loaded row-major; out = reduce(x, axis) */
static void reduce2d(ReduceKind rk, int axis, ScalarKind in, ScalarKind res,
                     const void *x, void *out) {
    IrParam ps[2] = {ptr_param("out", res), ptr_param("x", in)};
    Ctx c = begin("red", 2, ps);
    Type ti = t2(SK_I32, 4, 8);
    IrValue *r = op1(&c, IR_EXPAND_DIMS, t2(SK_I32, 4, 1), arange(&c, 0, 4));
    r->def->iattr[0] = 1;
    IrValue *cc = op1(&c, IR_EXPAND_DIMS, t2(SK_I32, 1, 8), arange(&c, 0, 8));
    IrValue *offs = op2(&c, IR_ADD, ti,
                        op2(&c, IR_MUL, ti, op1(&c, IR_BROADCAST, ti, r),
                            splat(&c, ti, cint(&c, SK_I32, 8))),
                        op1(&c, IR_BROADCAST, ti, cc));
    IrValue *v = load(&c, ptradd(&c, param(&c, 1), offs), NULL, NULL);
    int n = axis < 0 ? 1 : axis == 0 ? 8 : 4;
    Type rt = axis < 0 ? sc(res) : t1(res, n);
    IrValue *red = op1(&c, IR_REDUCE, rt, v);
    red->def->iattr[0] = rk;
    red->def->iattr[1] = axis < 0 ? 0 : axis;
    IrValue *o = axis < 0 ? param(&c, 0) : ptradd(&c, param(&c, 0), arange(&c, 0, n));
    store(&c, o, red, NULL);
    IpArg a[2] = {buf(out, (size_t)(n * ty_bytes(res))), buf((void *)x, (size_t)(32 * ty_bytes(in)))};
    CHECK(run(&c, a, 1, 1, NULL) == 0);
    end(&c);
}

static void test_reduce(void) {
    int32_t x[32], r[8];
    for (int i = 0; i < 32; i++) x[i] = (i * 7) % 11 - 5;
    reduce2d(RED_SUM, 1, SK_I32, SK_I32, x, r);
    int ok = 1;
    for (int i = 0; i < 4; i++) {
        int s = 0;
        for (int j = 0; j < 8; j++) s += x[i * 8 + j];
        ok &= r[i] == s;
    }
    CHECK(ok);
    reduce2d(RED_MAX, 0, SK_I32, SK_I32, x, r);
    for (int j = 0; j < 8; j++) {
        int m = x[j];
        for (int i = 1; i < 4; i++) m = x[i * 8 + j] > m ? x[i * 8 + j] : m;
        ok &= r[j] == m;
    }
    CHECK(ok);
    reduce2d(RED_MIN, -1, SK_I32, SK_I32, x, r);
    CHECK(r[0] == -5);
    /* argmax ties: lowest index */
    int32_t t[32] = {0};
    t[3] = t[5] = 9;
    t[8 + 7] = 4, t[8 + 2] = 4;
    reduce2d(RED_ARGMAX, 1, SK_I32, SK_I32, t, r);
    CHECK(r[0] == 3 && r[1] == 2 && r[2] == 0);
    reduce2d(RED_ARGMIN, -1, SK_I32, SK_I32, t, r);
    CHECK(r[0] == 0);
    /* floats: NaN is ignored by max and argmax alike */
    float f[32];
    for (int i = 0; i < 32; i++) f[i] = (float)i;
    f[9] = NAN, f[12] = NAN, f[2] = 100.0f;
    float fr[8];
    reduce2d(RED_MAX, 1, SK_F32, SK_F32, f, fr);
    CHECK(fr[0] == 100.0f && fr[1] == 15.0f);
    reduce2d(RED_ARGMAX, 1, SK_F32, SK_I32, f, r);
    CHECK(r[0] == 2 && r[1] == 7);
    reduce2d(RED_ARGMIN, 1, SK_F32, SK_I32, f, r);
    CHECK(r[0] == 0 && r[1] == 0);
    /* f16 sum accumulates in f32: 2048 + 1 + 1 ... is exact there */
    uint16_t h[32], hr[1];
    for (int i = 0; i < 32; i++) h[i] = ip_f16_from_double(i == 0 ? 2048.0 : 1.0);
    reduce2d(RED_SUM, -1, SK_F16, SK_F16, h, hr);
    CHECK(ip_f16_to_double(hr[0]) == 2080.0);
    /* i8 sums wrap at the result width */
    int8_t b[32];
    for (int i = 0; i < 32; i++) b[i] = 100;
    int8_t br[1];
    reduce2d(RED_SUM, -1, SK_I8, SK_I8, b, br);
    CHECK(br[0] == (int8_t)3200);
}

/* The first index of the extreme non-NaN element of n values (0 when all
 * are NaN): the rule argmax/argmin share with max/min. */
static int ref_arg(const float *x, int n, int want_max) {
    int bi = 0;
    for (int j = 1; j < n; j++) {
        if (isnan(x[j])) continue;
        if (isnan(x[bi]) || (want_max ? x[j] > x[bi] : x[j] < x[bi])) bi = j;
    }
    return bi;
}

/* Rows with NaNs at every kind of position: argmax/argmin name an element
 * equal to max/min (both NaN for an all-NaN row: index 0), the first on
 * ties, along either axis and over all elements. */
static void test_reduce_nan(void) {
    const float N = NAN, I = INFINITY;
    static const float rows[2][32] = {{
        N, 1, 5, 2, 5, 0, N, 3,        /* NaN first and inside; ties */
        N, N, N, N, N, N, N, N,        /* all NaN */
        3, 1, 1, 3, 2, 2, 2, N,        /* NaN last */
        N, N, N, N, N, N, 4, N,        /* one number */
    }, {
        N, N, N, -I, N, -I, N, N,      /* -inf only */
        I, N, I, -I, N, -I, 0, N,      /* infinities tie */
        -2, -2, N, -2, -2, -2, -2, -2, /* all equal */
        7, 6, 5, 4, 3, 2, 1, N,        /* descending */
    }};
    static const int want[2][2][4] = {{{2, 0, 0, 6}, {5, 0, 1, 6}},
                                      {{3, 0, 0, 0}, {3, 3, 0, 6}}};
    for (int s = 0; s < 2; s++) {
        const float *x = rows[s];
        float mx[8], mn[8];
        int32_t am[8], an[8];
        reduce2d(RED_MAX, 1, SK_F32, SK_F32, x, mx);
        reduce2d(RED_MIN, 1, SK_F32, SK_F32, x, mn);
        reduce2d(RED_ARGMAX, 1, SK_F32, SK_I32, x, am);
        reduce2d(RED_ARGMIN, 1, SK_F32, SK_I32, x, an);
        int ok = 1;
        for (int i = 0; i < 4; i++) {
            const float *row = x + i * 8;
            ok &= am[i] == want[s][0][i] && an[i] == want[s][1][i];
            ok &= am[i] == ref_arg(row, 8, 1) && an[i] == ref_arg(row, 8, 0);
            /* the value at the index is the max (bit for bit, or NaN) */
            ok &= isnan(mx[i]) ? isnan(row[am[i]]) : row[am[i]] == mx[i];
            ok &= isnan(mn[i]) ? isnan(row[an[i]]) : row[an[i]] == mn[i];
        }
        CHECK(ok);
        /* columns (axis 0) */
        reduce2d(RED_MAX, 0, SK_F32, SK_F32, x, mx);
        reduce2d(RED_ARGMAX, 0, SK_F32, SK_I32, x, am);
        ok = 1;
        for (int j = 0; j < 8; j++) {
            float col[4] = {x[j], x[8 + j], x[16 + j], x[24 + j]};
            ok &= am[j] == ref_arg(col, 4, 1);
            ok &= isnan(mx[j]) ? isnan(col[am[j]]) : col[am[j]] == mx[j];
        }
        CHECK(ok);
        /* all elements */
        reduce2d(RED_ARGMAX, -1, SK_F32, SK_I32, x, am);
        reduce2d(RED_MAX, -1, SK_F32, SK_F32, x, mx);
        CHECK(am[0] == ref_arg(x, 32, 1) && x[am[0]] == mx[0]);
    }
}

/* The same rule in f16: an all-NaN row gives 0. */
static void test_reduce_nan_f16(void) {
    uint16_t h[32];
    for (int i = 0; i < 32; i++) h[i] = ip_f16_from_double(i < 8 || i == 13 ? NAN : i % 5);
    int32_t r[4];
    reduce2d(RED_ARGMAX, 1, SK_F16, SK_I32, h, r);
    CHECK(r[0] == 0 && r[1] == 1 && r[2] == 3 && r[3] == 0);
    reduce2d(RED_ARGMIN, 1, SK_F16, SK_I32, h, r);
    CHECK(r[0] == 0 && r[1] == 2 && r[2] == 4 && r[3] == 1);
}

static void test_cumsum(void) {
    IrParam ps[2] = {ptr_param("out", SK_F16), ptr_param("x", SK_F16)};
    Ctx c = begin("cs", 2, ps);
    IrValue *offs = arange(&c, 0, 8);
    IrValue *v = load(&c, ptradd(&c, param(&c, 1), offs), NULL, NULL);
    IrValue *s = attr(op1(&c, IR_SCAN, t1(SK_F16, 8), v), 0, 0);
    store(&c, ptradd(&c, param(&c, 0), offs), s, NULL);
    uint16_t x[8], out[8];
    for (int i = 0; i < 8; i++) x[i] = ip_f16_from_double(i == 0 ? 2048.0 : 1.0);
    IpArg a[2] = {buf(out, sizeof out), buf(x, sizeof x)};
    CHECK(run(&c, a, 1, 1, NULL) == 0);
    /* the f32 running sum is rounded per output: 2049 -> 2048, 2050, ... */
    CHECK(ip_f16_to_double(out[0]) == 2048.0 && ip_f16_to_double(out[1]) == 2048.0 &&
          ip_f16_to_double(out[2]) == 2050.0 && ip_f16_to_double(out[7]) == 2056.0);
    end(&c);

    IrParam ps2[2] = {ptr_param("out", SK_I32), ptr_param("x", SK_I32)};
    c = begin("cs2", 2, ps2);
    Type ti = t2(SK_I32, 2, 4);
    IrValue *o = op1(&c, IR_RESHAPE, ti, arange(&c, 0, 8));
    IrValue *x2 = load(&c, ptradd(&c, param(&c, 1), o), NULL, NULL);
    store(&c, ptradd(&c, param(&c, 0), o), attr(op1(&c, IR_SCAN, ti, x2), 0, 1), NULL);
    int32_t xi[8] = {1, 2, 3, 4, 5, 6, INT32_MAX, 8}, oi[8];
    IpArg a2[2] = {buf(oi, sizeof oi), buf(xi, sizeof xi)};
    CHECK(run(&c, a2, 1, 1, NULL) == 0);
    CHECK(oi[3] == 10 && oi[4] == 5 && oi[5] == 11 && oi[6] == (int32_t)(11u + INT32_MAX));
    end(&c);
}

/* ------------------------------------------------------------------ dot */

/* out[M,N] = dot(a[M,K], b[K,N], acc) with acc = 0.5 everywhere */
static void run_dot(ScalarKind in, ScalarKind res, int ieee, int M, int N, int K,
                    const void *a, const void *b, void *out) {
    IrParam ps[3] = {ptr_param("out", res), ptr_param("a", in), ptr_param("b", in)};
    Ctx c = begin("dot", 3, ps);
    Type ta = t2(SK_I32, M, K), tb = t2(SK_I32, K, N), tr = t2(res, M, N);
    IrValue *oa = op1(&c, IR_RESHAPE, ta, arange(&c, 0, M * K));
    IrValue *ob = op1(&c, IR_RESHAPE, tb, arange(&c, 0, K * N));
    IrValue *oo = op1(&c, IR_RESHAPE, t2(SK_I32, M, N), arange(&c, 0, M * N));
    IrValue *x = load(&c, ptradd(&c, param(&c, 1), oa), NULL, NULL);
    IrValue *y = load(&c, ptradd(&c, param(&c, 2), ob), NULL, NULL);
    IrValue *acc = splat(&c, tr, ty_isfloat(res) ? cflt(&c, res, 0.5) : cint(&c, res, 3));
    IrValue *d = ir_op1(&c.b, IR_DOT, tr, x, y, acc, NULL);
    d->def->iattr[0] = ieee;
    store(&c, ptradd(&c, param(&c, 0), oo), d, NULL);
    IpArg args[3] = {buf(out, (size_t)(M * N * ty_bytes(res))),
                     buf((void *)a, (size_t)(M * K * ty_bytes(in))),
                     buf((void *)b, (size_t)(K * N * ty_bytes(in)))};
    CHECK(run(&c, args, 1, 1, NULL) == 0);
    end(&c);
}

static void test_dot(void) {
    enum { M = 4, N = 8, K = 16 };
    float a[M * K], b[K * N], out[M * N];
    uint16_t ha[M * K], hb[K * N], ba[M * K], bb[K * N];
    int8_t ia[M * K], ib[K * N];
    for (int i = 0; i < M * K; i++) {
        a[i] = 1.0f + (float)i * 0x1.0001p-9f;
        ha[i] = ip_f16_from_double(a[i]);
        ba[i] = ip_bf16_from_double(a[i]);
        ia[i] = (int8_t)(i * 37);
    }
    for (int i = 0; i < K * N; i++) {
        b[i] = 0.25f - (float)i * 0x1.0003p-11f;
        hb[i] = ip_f16_from_double(b[i]);
        bb[i] = ip_bf16_from_double(b[i]);
        ib[i] = (int8_t)(i * 11 - 100);
    }
    /* references, summing k in order from acc */
    float ref_ieee[M * N], ref_tf32[M * N], ref_h[M * N], ref_b[M * N];
    int32_t ref_i[M * N];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s1 = 0.5f, s2 = 0.5f, s3 = 0.5f, s4 = 0.5f;
            int32_t s5 = 3;
            for (int k = 0; k < K; k++) {
                s1 = fmaf(a[i * K + k], b[k * N + j], s1);
                s2 += ip_tf32_trunc(a[i * K + k]) * ip_tf32_trunc(b[k * N + j]);
                s3 += (float)ip_f16_to_double(ha[i * K + k]) * (float)ip_f16_to_double(hb[k * N + j]);
                s4 += (float)ip_bf16_to_double(ba[i * K + k]) * (float)ip_bf16_to_double(bb[k * N + j]);
                s5 += ia[i * K + k] * ib[k * N + j];
            }
            ref_ieee[i * N + j] = s1, ref_tf32[i * N + j] = s2;
            ref_h[i * N + j] = s3, ref_b[i * N + j] = s4, ref_i[i * N + j] = s5;
        }
    run_dot(SK_F32, SK_F32, 1, M, N, K, a, b, out);
    CHECK(memcmp(out, ref_ieee, sizeof out) == 0);
    run_dot(SK_F32, SK_F32, 0, M, N, K, a, b, out);
    CHECK(memcmp(out, ref_tf32, sizeof out) == 0);
    CHECK(memcmp(ref_tf32, ref_ieee, sizeof out) != 0);   /* modes differ */
    run_dot(SK_F16, SK_F32, 0, M, N, K, ha, hb, out);
    CHECK(memcmp(out, ref_h, sizeof out) == 0);
    run_dot(SK_BF16, SK_F32, 0, M, N, K, ba, bb, out);
    CHECK(memcmp(out, ref_b, sizeof out) == 0);
    int32_t iout[M * N];
    run_dot(SK_I8, SK_I32, 0, M, N, K, ia, ib, iout);
    CHECK(memcmp(iout, ref_i, sizeof iout) == 0);
}

/* ------------------------------------------------------------- atomics */

static void test_atomics(void) {
    IrParam ps[3] = {ptr_param("old", SK_I32), ptr_param("x", SK_I32),
                     ptr_param("cas", SK_I32)};
    Ctx c = begin("atom", 3, ps);
    Type v = t1(SK_I32, 8);
    IrValue *offs = arange(&c, 0, 8);
    /* every lane adds 1 + lane to x[lane % 2], lanes 6 and 7 masked off */
    IrValue *idx = op2(&c, IR_REM, v, offs, splat(&c, v, cint(&c, SK_I32, 2)));
    IrValue *m = cmp(&c, CMP_LT, offs, splat(&c, v, cint(&c, SK_I32, 6)));
    IrValue *val = op2(&c, IR_ADD, v, offs, splat(&c, v, cint(&c, SK_I32, 1)));
    IrValue *args[3] = {ptradd(&c, param(&c, 1), idx), val, m};
    IrOp *a = ir_emit(&c.b, IR_ATOMIC, 1, &v, 3, args);
    a->iattr[0] = ATOM_ADD;
    store(&c, ptradd(&c, param(&c, 0), offs), a->res[0], NULL);
    /* max into x[2] (scalar), no mask */
    IrValue *p2 = ptradd(&c, param(&c, 1), cint(&c, SK_I32, 2));
    IrValue *margs[2] = {p2, cint(&c, SK_I32, 7)};
    IrOp *mx = ir_emit(&c.b, IR_ATOMIC, 1, (Type[]){sc(SK_I32)}, 2, margs);
    mx->iattr[0] = ATOM_MAX;
    /* cas: cas[i] == 0 ? 5 : unchanged */
    IrValue *cargs[3] = {ptradd(&c, param(&c, 2), op1(&c, IR_RESHAPE, t1(SK_I32, 4), arange(&c, 0, 4))),
                         splat(&c, t1(SK_I32, 4), cint(&c, SK_I32, 0)),
                         splat(&c, t1(SK_I32, 4), cint(&c, SK_I32, 5))};
    IrOp *cs = ir_emit(&c.b, IR_ATOMIC_CAS, 1, (Type[]){t1(SK_I32, 4)}, 3, cargs);
    store(&c, ptradd(&c, param(&c, 2), op2(&c, IR_ADD, t1(SK_I32, 4), arange(&c, 0, 4),
                                            splat(&c, t1(SK_I32, 4), cint(&c, SK_I32, 4)))),
          cs->res[0], NULL);
    int32_t old[8], x[3] = {100, 200, 3}, cas[8] = {0, 1, 0, 2, -1, -1, -1, -1};
    IpArg args2[3] = {buf(old, sizeof old), buf(x, sizeof x), buf(cas, sizeof cas)};
    CHECK(run(&c, args2, 1, 1, NULL) == 0);
    /* lanes in order: x0 += 1, x1 += 2, x0 += 3, x1 += 4, x0 += 5, x1 += 6 */
    CHECK(old[0] == 100 && old[1] == 200 && old[2] == 101 && old[3] == 202 &&
          old[4] == 104 && old[5] == 206 && old[6] == 0 && old[7] == 0);
    CHECK(x[0] == 109 && x[1] == 212 && x[2] == 7);
    CHECK(cas[0] == 5 && cas[1] == 1 && cas[2] == 5 && cas[3] == 2);
    CHECK(cas[4] == 0 && cas[5] == 1 && cas[6] == 0 && cas[7] == 2);
    end(&c);
}

/* ---------------------------------------------------------------- debug */

static void test_debug(void) {
    static const char src[] = "kernel k() {\n  device_assert(x < 3, \"x small\");\n}\n";
    IrParam ps[1] = {scalar_param("n", SK_I32)};
    Ctx c = begin("dbg", 1, ps);
    uint32_t file = dg_add_file(c.dg, "k.tile", src, sizeof src - 1);
    IrValue *r = op1(&c, IR_RESHAPE, t2(SK_I32, 2, 2), arange(&c, 0, 4));
    ir_emit(&c.b, IR_PRINT, 0, NULL, 1, (IrValue *[]){r});
    ir_emit(&c.b, IR_PRINT, 0, NULL, 1, (IrValue *[]){r})->sattr = "r:";
    c.b.loc = (Loc){file, 2, 3, 2, 34};
    IrValue *cond = cmp(&c, CMP_LT, r, splat(&c, t2(SK_I32, 2, 2), param(&c, 0)));
    ir_emit(&c.b, IR_ASSERT, 0, NULL, 1, &cond)->sattr = "x small";
    ir_emit(&c.b, IR_BARRIER, 0, NULL, 0, NULL);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    IpArg a[1] = {ival(10)};
    CHECK(run(&c, a, 2, 1, f) == 0);
    a[0] = ival(3);
    CHECK(run(&c, a, 1, 1, f) == -1);
    fclose(f);
    CHECK(strstr(text, "pid (1, 0, 0) idx (1, 0) r: 2\n") != NULL);
    CHECK(strstr(text, "pid (0, 0, 0) idx (0, 1) 1\n") != NULL);
    CHECK_STR(dg_text(c.dg),
              "k.tile:2:3: error: device assertion failed: x small: index (1, 1), "
              "program (0, 0, 0)\n"
              "  device_assert(x < 3, \"x small\");\n"
              "  ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
    free(text);
    end(&c);
}

/* broadcast/permute/expand_dims and floats in scalar parameters */
static void test_shapes(void) {
    IrParam ps[3] = {ptr_param("out", SK_F32), ptr_param("x", SK_F32), scalar_param("s", SK_F32)};
    Ctx c = begin("shapes", 3, ps);
    IrValue *o = op1(&c, IR_RESHAPE, t2(SK_I32, 2, 4), arange(&c, 0, 8));
    IrValue *x = load(&c, ptradd(&c, param(&c, 1), o), NULL, NULL);   /* [2, 4] */
    IrValue *tr = attr(attr(op1(&c, IR_PERMUTE, t2(SK_F32, 4, 2), x), 0, 1), 1, 0);
    IrValue *row = load(&c, ptradd(&c, param(&c, 1), arange(&c, 0, 2)), NULL, NULL);
    IrValue *rowe = attr(op1(&c, IR_EXPAND_DIMS, t2(SK_F32, 1, 2), row), 0, 0);
    IrValue *bc = op1(&c, IR_BROADCAST, t2(SK_F32, 4, 2), rowe);
    IrValue *sum = op2(&c, IR_ADD, t2(SK_F32, 4, 2), tr, bc);
    IrValue *scaled = op2(&c, IR_MUL, t2(SK_F32, 4, 2), sum, splat(&c, t2(SK_F32, 4, 2), param(&c, 2)));
    IrValue *oo = op1(&c, IR_RESHAPE, t2(SK_I32, 4, 2), arange(&c, 0, 8));
    store(&c, ptradd(&c, param(&c, 0), oo), scaled, NULL);
    float xs[8] = {0, 1, 2, 3, 4, 5, 6, 7}, out[8];
    IpArg a[3] = {buf(out, sizeof out), buf(xs, sizeof xs), fval(2.0)};
    CHECK(run(&c, a, 1, 1, NULL) == 0);
    /* tr = [[0,4],[1,5],[2,6],[3,7]] + [0,1] */
    CHECK(out[0] == 0 && out[1] == 10 && out[2] == 2 && out[3] == 12 && out[7] == 16);
    end(&c);
}

int main(void) {
    test_formats();
    test_integers();
    test_floats();
    test_vadd();
    test_load_other();
    test_load_poison();
    test_sum_poison();
    test_for();
    test_if();
    test_while();
    test_reduce();
    test_reduce_nan();
    test_reduce_nan_f16();
    test_cumsum();
    test_dot();
    test_atomics();
    test_debug();
    test_shapes();
    return check_done("test_interp");
}
