/* End-to-end tests of tile_interp.h: the language brief's four example
 * kernels compiled from source and run against plain C loops, runtime
 * error texts, argument and configuration checking. */
#include "interp/tile_interp.h"
#include "interp/interp.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>

/* The examples of LANGUAGE.md, with gelu defined here instead of imported
 * from std/math so that the test depends on the compiler alone. */
#define GELU \
    "fn gelu(x) {\n" \
    "    return 0.5 * x * (1.0 + erf(x * 0.7071067811865476));\n" \
    "}\n"

#define VADD \
    "kernel vadd<BLOCK: i32 = 1024>(out: *f32, x: *f32, y: *f32, n: i32)\n" \
    "    grid(cdiv(n, BLOCK))\n" \
    "{\n" \
    "    let offs = program_id(0) * BLOCK + arange(0, BLOCK);\n" \
    "    let m = offs < n;\n" \
    "    store(out + offs, load(x + offs, mask=m) + load(y + offs, mask=m), mask=m);\n" \
    "}\n"

#define BIAS_GELU \
    "@tune(BLOCK = [1024, 2048, 4096], warps = [4, 8])\n" \
    "kernel bias_gelu<T: type = f32, BLOCK: i32>(out: *T, x: *T, a: f32, b: f32, n: i32)\n" \
    "    grid(cdiv(n, BLOCK))\n" \
    "{\n" \
    "    let offs = program_id(0) * BLOCK + arange(0, BLOCK);\n" \
    "    let m = offs < n;\n" \
    "    let z = load(x + offs, mask=m) as f32 * a + b;\n" \
    "    store(out + offs, gelu(z) as T, mask=m);\n" \
    "}\n"

#define SOFTMAX \
    "@tune(BLOCK = [256, 512, 1024, 2048, 4096, 8192, 16384], warps = [4, 8, 16])\n" \
    "@require(BLOCK >= cols)\n" \
    "kernel softmax<BLOCK: i32>(out: *f32, x: *f32, rows: i32, cols: i32, stride: i32)\n" \
    "    grid(rows)\n" \
    "{\n" \
    "    let row = program_id(0);\n" \
    "    let c = arange(0, BLOCK);\n" \
    "    let m = c < cols;\n" \
    "    let v = load(x + row * stride + c, mask=m, other=-inf);\n" \
    "    let e = exp(v - max(v, 0));\n" \
    "    store(out + row * stride + c, e / sum(e, 0), mask=m);\n" \
    "}\n"

#define MATMUL \
    "@tune(BM = [64, 128], BN = [64, 128, 256], BK = [32, 64], warps = [4, 8], stages = [3, 4])\n" \
    "@tune_key(M, N, K)\n" \
    "kernel matmul_bias_relu<BM: i32, BN: i32, BK: i32>(\n" \
    "    c: *f16, a: *f16, b: *f16, bias: *f16,\n" \
    "    M: i32, N: i32, K: i32, lda: i32, ldb: i32, ldc: i32)\n" \
    "    grid(cdiv(M, BM), cdiv(N, BN))\n" \
    "{\n" \
    "    let rm = program_id(0) * BM + arange(0, BM);\n" \
    "    let rn = program_id(1) * BN + arange(0, BN);\n" \
    "    let rk = arange(0, BK);\n" \
    "    var acc = zeros([BM, BN], f32);\n" \
    "    for k in range(0, K, BK) {\n" \
    "        let at = load(a + rm[:, None] * lda + (k + rk)[None, :],\n" \
    "                      mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0);\n" \
    "        let bt = load(b + (k + rk)[:, None] * ldb + rn[None, :],\n" \
    "                      mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0);\n" \
    "        acc = dot(at, bt, acc=acc);\n" \
    "    }\n" \
    "    let y = maximum(acc + load(bias + rn, mask=rn < N, other=0.0)[None, :] as f32, 0.0);\n" \
    "    store(c + rm[:, None] * ldc + rn[None, :], y as f16,\n" \
    "          mask=(rm[:, None] < M) & (rn[None, :] < N));\n" \
    "}\n"

static const char examples[] = GELU VADD BIAS_GELU SOFTMAX MATMUL;

static TileProgram *compile(const char *name, const char *src, const TileCompileOptions *o) {
    char *diags = NULL;
    TileProgram *p = tile_compile_source(name, src, strlen(src), o, &diags);
    if (diags) fprintf(stderr, "%s", diags);
    CHECK(p != NULL && diags == NULL);
    free(diags);
    return p;
}

static int starts_with(const char *s, const char *prefix) {
    if (s && strncmp(s, prefix, strlen(prefix)) == 0) return 1;
    fprintf(stderr, "got: %s\nexpected a prefix: %s\n", s ? s : "(null)", prefix);
    return 0;
}

static float frand(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static void test_listing(TileProgram *p) {
    CHECK(tile_kernel_count(p) == 4);
    CHECK_STR(tile_kernel_name(p, 0), "vadd");
    CHECK_STR(tile_kernel_name(p, 3), "matmul_bias_relu");
    CHECK(tile_kernel_name(p, 4) == NULL);
    char *c = tile_kernel_configs(p, "vadd");
    CHECK_STR(c, "BLOCK=1024,warps=4,stages=3\n");
    free(c);
    c = tile_kernel_configs(p, "bias_gelu");
    CHECK(starts_with(c, "T=f32,BLOCK=1024,warps=4,stages=3\nT=f32,BLOCK=1024,warps=8,"));
    free(c);
    CHECK(tile_kernel_configs(p, "nope") == NULL);
}

static void test_vadd(TileProgram *p) {
    enum { N = 1000003 };
    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N),
          *out = malloc(sizeof(float) * N);
    unsigned s = 1;
    for (int i = 0; i < N; i++) x[i] = frand(&s), y[i] = frand(&s), out[i] = NAN;
    TileArg args[4] = {tile_arg_buffer(out, sizeof(float) * N),
                       tile_arg_buffer(x, sizeof(float) * N),
                       tile_arg_buffer(y, sizeof(float) * N), tile_arg_int(N)};
    char *err = NULL;
    CHECK(tile_interp_run(p, "vadd", args, 4, NULL, &err) == 0 && err == NULL);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += out[i] != x[i] + y[i];
    CHECK(bad == 0);
    free(x);
    free(y);
    free(out);
}

static void test_softmax(TileProgram *p) {
    enum { ROWS = 37, COLS = 1000, STRIDE = 1024 };
    float *x = malloc(sizeof(float) * ROWS * STRIDE), *out = malloc(sizeof(float) * ROWS * STRIDE);
    unsigned s = 7;
    for (int i = 0; i < ROWS * STRIDE; i++) x[i] = 4 * frand(&s), out[i] = -1;
    TileArg args[5] = {tile_arg_buffer(out, sizeof(float) * ROWS * STRIDE),
                       tile_arg_buffer(x, sizeof(float) * ROWS * STRIDE),
                       tile_arg_int(ROWS), tile_arg_int(COLS), tile_arg_int(STRIDE)};
    char *err = NULL;
    CHECK(tile_interp_run(p, "softmax", args, 5, NULL, &err) == 0 && err == NULL);
    free(err);
    /* the same operations in the same order: exact agreement */
    int bad = 0;
    for (int r = 0; r < ROWS; r++) {
        const float *v = x + r * STRIDE;
        float m = v[0], sum = 0, e[COLS];
        for (int j = 1; j < COLS; j++) m = fmaxf(m, v[j]);
        for (int j = 0; j < COLS; j++) sum += e[j] = (float)exp((double)(v[j] - m));
        for (int j = 0; j < COLS; j++) bad += out[r * STRIDE + j] != e[j] / sum;
        for (int j = COLS; j < STRIDE; j++) bad += out[r * STRIDE + j] != -1;
    }
    CHECK(bad == 0);

    /* an explicit configuration must still satisfy @require */
    TileRunOptions o = {.config = "BLOCK=512"};
    CHECK(tile_interp_run(p, "softmax", args, 5, &o, &err) == -1);
    CHECK_STR(err, "kernel 'softmax': no configuration matching 'BLOCK=512' has its "
              "@require hold for these arguments (rows=37, cols=1000, stride=1024; 3 of "
              "21 configurations selected): BLOCK=512,warps=4,stages=3 and 2 more need "
              "512 >= cols");
    free(err);
    o.config = "BLOCK=2048, warps=16";
    CHECK(tile_interp_run(p, "softmax", args, 5, &o, &err) == 0 && err == NULL);
    o.config = "BLOCK=3";
    CHECK(tile_interp_run(p, "softmax", args, 5, &o, &err) == -1);
    CHECK(starts_with(err, "kernel 'softmax' has no configuration 'BLOCK=3'; available: "
                              "BLOCK=256,warps=4,stages=3;"));
    free(err);
    o.config = "BLK=1024";
    CHECK(tile_interp_run(p, "softmax", args, 5, &o, &err) == -1);
    CHECK_STR(err, "kernel 'softmax': no compile-time parameter 'BLK' (configurations "
              "set BLOCK, warps, stages)");
    free(err);
    args[3] = tile_arg_int(20000);   /* wider than every BLOCK */
    CHECK(tile_interp_run(p, "softmax", args, 5, NULL, &err) == -1);
    CHECK(starts_with(err, "kernel 'softmax': no configuration's @require holds for "
                              "these arguments (rows=37, cols=20000, stride=1024; 21 "
                              "configurations): BLOCK=256,warps=4,stages=3 and 2 more "
                              "need 256 >= cols; "));
    free(err);
    free(x);
    free(out);
}

static void test_bias_gelu(void) {
    enum { N = 5000 };
    const char *defs[1] = {"T=f16"};
    TileCompileOptions opt = {defs, 1, NULL, 0, NULL, 0};
    TileProgram *p = compile("bias_gelu.tile", GELU BIAS_GELU, &opt);
    if (!p) return;
    uint16_t *x = malloc(2 * N), *out = malloc(2 * N);
    unsigned s = 3;
    for (int i = 0; i < N; i++) x[i] = ip_f16_from_double(3 * frand(&s));
    /* a: an integer for a float parameter is accepted */
    TileArg args[5] = {tile_arg_buffer(out, 2 * N), tile_arg_buffer(x, 2 * N),
                       tile_arg_int(2), tile_arg_float(-0.25), tile_arg_int(N)};
    char *err = NULL;
    CHECK(tile_interp_run(p, "bias_gelu", args, 5, NULL, &err) == 0 && err == NULL);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        float z = (float)ip_f16_to_double(x[i]) * 2.0f + -0.25f;
        float g = 0.5f * z * (1.0f + (float)erf((double)(z * 0.7071067811865476f)));
        bad += out[i] != ip_f16_from_double(g);
    }
    CHECK(bad == 0);
    free(x);
    free(out);
    tile_program_free(p);
}

static void test_matmul(TileProgram *p) {
    enum { M = 70, N = 90, K = 50 };
    uint16_t a[M * K], b[K * N], bias[N], c[M * N];
    unsigned s = 11;
    for (int i = 0; i < M * K; i++) a[i] = ip_f16_from_double(frand(&s));
    for (int i = 0; i < K * N; i++) b[i] = ip_f16_from_double(frand(&s));
    for (int i = 0; i < N; i++) bias[i] = ip_f16_from_double(frand(&s));
    TileArg args[10] = {tile_arg_buffer(c, sizeof c), tile_arg_buffer(a, sizeof a),
                        tile_arg_buffer(b, sizeof b), tile_arg_buffer(bias, sizeof bias),
                        tile_arg_int(M), tile_arg_int(N), tile_arg_int(K),
                        tile_arg_int(K), tile_arg_int(N), tile_arg_int(N)};
    char *err = NULL;
    CHECK(tile_interp_run(p, "matmul_bias_relu", args, 10, NULL, &err) == 0 && err == NULL);
    free(err);
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0;
            for (int k = 0; k < K; k++)
                acc += (float)ip_f16_to_double(a[i * K + k]) * (float)ip_f16_to_double(b[k * N + j]);
            float y = fmaxf(acc + (float)ip_f16_to_double(bias[j]), 0.0f);
            bad += c[i * N + j] != ip_f16_from_double(y);
        }
    CHECK(bad == 0);
}

/* ------------------------------------------------------------- errors */

static const char oob_src[] =
    "kernel copy<BLOCK: i32 = 256>(out: *f32, x: *f32, n: i32)\n"
    "    grid(cdiv(n, BLOCK))\n"
    "{\n"
    "    let offs = program_id(0) * BLOCK + arange(0, BLOCK);\n"
    "    store(out + offs, load(x + offs), mask=offs < n);\n"
    "}\n";

static void test_errors(TileProgram *ex) {
    TileProgram *p = compile("k.tile", oob_src, NULL);
    if (!p) return;
    float x[300], out[300];
    for (int i = 0; i < 300; i++) x[i] = (float)i;
    TileArg args[3] = {tile_arg_buffer(out, sizeof out), tile_arg_buffer(x, sizeof x),
                       tile_arg_int(300)};
    char *err = NULL;
    CHECK(tile_interp_run(p, "copy", args, 3, NULL, &err) == -1);
    CHECK_STR(err, "k.tile:5:23: error: out-of-bounds load of 'x': element 300 of 300, "
                   "program (1, 0, 0)\n"
                   "    store(out + offs, load(x + offs), mask=offs < n);\n"
                   "                      ^~~~~~~~~~~~~~\n");
    free(err);
    /* the first program completed before the error */
    CHECK(out[0] == 0 && out[255] == 255);

    /* an explicit grid; zero programs do nothing */
    TileRunOptions o = {.grid = {1, 0, 0}};
    args[2] = tile_arg_int(256);
    CHECK(tile_interp_run(p, "copy", args, 3, &o, &err) == 0 && err == NULL);
    args[2] = tile_arg_int(0);
    CHECK(tile_interp_run(p, "copy", args, 3, NULL, &err) == 0 && err == NULL);

    /* argument checking */
    CHECK(tile_interp_run(p, "copy", args, 2, NULL, &err) == -1);
    CHECK_STR(err, "kernel 'copy' takes 3 arguments, got 2");
    free(err);
    TileArg wrong[3] = {tile_arg_buffer(out, sizeof out), tile_arg_int(1), tile_arg_int(3)};
    CHECK(tile_interp_run(p, "copy", wrong, 3, NULL, &err) == -1);
    CHECK_STR(err, "kernel 'copy': argument 1 ('x') must be a buffer, got an integer");
    free(err);
    wrong[1] = tile_arg_buffer(x, sizeof x);
    wrong[2] = tile_arg_float(3.0);
    CHECK(tile_interp_run(p, "copy", wrong, 3, NULL, &err) == -1);
    CHECK_STR(err, "kernel 'copy': argument 2 ('n') must be an integer, got a float");
    free(err);
    wrong[2] = tile_arg_int(INT64_C(3000000000));
    CHECK(tile_interp_run(p, "copy", wrong, 3, NULL, &err) == -1);
    CHECK_STR(err, "kernel 'copy': argument 2 ('n') is 3000000000, which does not fit in i32");
    free(err);
    CHECK(tile_interp_run(p, "vadd", wrong, 3, NULL, &err) == -1);
    CHECK_STR(err, "no kernel named 'vadd' (kernels: 'copy')");
    free(err);
    TileArg vargs[4] = {tile_arg_buffer(out, sizeof out), tile_arg_buffer(x, sizeof x),
                        tile_arg_float(1.0), tile_arg_int(3)};
    CHECK(tile_interp_run(ex, "vadd", vargs, 4, NULL, &err) == -1);
    CHECK_STR(err, "kernel 'vadd': argument 2 ('y') must be a buffer, got a float");
    free(err);
    tile_program_free(p);

    /* compile errors come back as text */
    char *diags = NULL;
    CHECK(tile_compile_source("bad.tile", "kernel k() { let x = ; }\n", 25, NULL, &diags) == NULL);
    CHECK(diags && strstr(diags, "bad.tile:1:") == diags);
    free(diags);
    CHECK(tile_compile_file("/nonexistent/x.tile", NULL, &diags) == NULL);
    CHECK(diags && strstr(diags, "cannot open '/nonexistent/x.tile'") != NULL);
    free(diags);
}

/* Control flow, atomics, scans and reductions compiled from source. */
static const char features_src[] =
    "kernel k<B: i32 = 16>(out: *i32, f: *f32, n: i32)\n"
    "    grid(1)\n"
    "{\n"
    "    let i = arange(0, B);\n"
    "    var s = 0;\n"
    "    var j = 0;\n"
    "    while j < n { s += j; j += 1; }\n"
    "    var t = zeros([B], i32);\n"
    "    for q in range(0, 4) { t = t + i * q; }\n"
    "    if n > 5 { s = s * 2; } else { s = -s; }\n"
    "    let v = load(f + i);\n"
    "    let rs = sum(reshape(i, [4, 4]), 1, keepdims=true);\n"
    "    atomic_add(out + 20, 5);\n"
    "    let old = atomic_add(out + 21 + i % 2, 1);\n"
    "    store(out + i, where(i < 8, t, cumsum(i, 0)));\n"
    "    store(out + 16, s);\n"
    "    store(out + 17, argmax(v, 0));\n"
    "    store(out + 18, sum(rs) / (n - 10));\n"
    "    store(out + 19, max(old));\n"
    "    device_assert(s < 1000, \"s too large\");\n"
    "}\n";

static void test_features(void) {
    TileCompileOptions opt = {NULL, 0, NULL, 0, NULL, 1};
    TileProgram *p = compile("features.tile", features_src, &opt);
    if (!p) return;
    int32_t out[24] = {0};
    float f[16] = {1, 5, 2, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1};
    TileArg a[3] = {tile_arg_buffer(out, sizeof out), tile_arg_buffer(f, sizeof f),
                    tile_arg_int(12)};
    char *err = NULL;
    CHECK(tile_interp_run(p, "k", a, 3, NULL, &err) == 0 && err == NULL);
    int32_t want[23] = {0, 6, 12, 18, 24, 30, 36, 42, 36, 45, 55, 66, 78, 91, 105, 120,
                        132, 1, 60, 7, 5, 8, 8};
    CHECK(memcmp(out, want, sizeof want) == 0);
    a[2] = tile_arg_int(3);   /* else branch; sum(rs) / -7 */
    CHECK(tile_interp_run(p, "k", a, 3, NULL, &err) == 0 && out[16] == -3 && out[18] == -17);
    a[2] = tile_arg_int(10);  /* division by zero */
    CHECK(tile_interp_run(p, "k", a, 3, NULL, &err) == -1);
    CHECK_STR(err, "features.tile:18:21: error: integer division by zero: index (), "
                   "program (0, 0, 0)\n"
                   "    store(out + 18, sum(rs) / (n - 10));\n"
                   "                    ^~~~~~~~~~~~~~~~~~\n");
    free(err);
    a[2] = tile_arg_int(40);  /* s = 1560: the assertion fails */
    CHECK(tile_interp_run(p, "k", a, 3, NULL, &err) == -1);
    CHECK(starts_with(err, "features.tile:20:5: error: device assertion failed: s too large: "
                           "index (), program (0, 0, 0)\n"));
    free(err);
    tile_program_free(p);
}

int main(void) {
    TileProgram *p = compile("examples.tile", examples, NULL);
    if (p) {
        test_listing(p);
        test_vadd(p);
        test_softmax(p);
        test_matmul(p);
        test_errors(p);
        tile_program_free(p);
    }
    test_bias_gelu();
    test_features();
    return check_done("test_tile_api");
}
