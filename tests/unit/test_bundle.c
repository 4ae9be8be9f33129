/* test_bundle.c — the .tlb format: round trips, every kind of damage
 * (each byte flipped, each truncation, foreign files, newer versions,
 * trailing bytes), crafted payloads with valid checksums (huge counts,
 * bad codes, bad expressions, every rule of tensor maps), version 1, 3
 * and 4 bundles, the expression evaluator against sema's
 * gx_eval, and bundles built from the spec's examples through sema. */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "bundle/bundle.h"
#include "bundle/choose.h"
#include "bundle/from_ir.h"
#include "parser/parser.h"
#include "sema/sema.h"
#include "tests/unit/check.h"

/* ----------------------------------------------------- a sample bundle */

static TlbInsn cdiv_n_1024[] = {{TLB_X_PARAM, 3, 0}, {TLB_X_CONST, 0, 1024},
                                {TLB_X_CDIV, 0, 0}};
static TlbInsn cdiv_n_2048[] = {{TLB_X_PARAM, 3, 0}, {TLB_X_CONST, 0, 2048},
                                {TLB_X_CDIV, 0, 0}};
static TlbInsn rows[] = {{TLB_X_PARAM, 2, 0}};
static TlbInsn block_ge_cols[] = {{TLB_X_CONST, 0, 256}, {TLB_X_PARAM, 3, 0},
                                  {TLB_X_GE, 0, 0}};
static TlbInsn sel[] = {{TLB_X_PARAM, 2, 0}, {TLB_X_CONST, 0, -7},
                        {TLB_X_CONST, 0, INT64_MIN}, {TLB_X_SELECT, 0, 0}};

static TlbParam vadd_params[] = {
    {"out", TLB_PTR, TLB_F32, TLB_PARAM_STORED}, {"x", TLB_PTR, TLB_F32, 0},
    {"y", TLB_PTR, TLB_F32, 0}, {"n", TLB_I32, TLB_VOID, 0}};
static TlbCparam vadd_cparams[] = {{"BLOCK", TLB_CPARAM_INT, TLB_I32},
                                   {"T", TLB_CPARAM_TYPE, TLB_VOID},
                                   {"EVEN", TLB_CPARAM_BOOL, TLB_VOID}};
static int64_t vadd_cv0[] = {1024, TLB_F32, 1}, vadd_cv1[] = {2048, TLB_BF16, 0};
static const uint8_t none[8], vadd_guard[] = {4, 4, 3, 2};
/* Tensor maps: vadd's x and y as [n] (rank 1); in configuration 1, whose
 * T is bf16, x as bf16 (its pointee in the signature is f32: a `*T`). */
static TlbInsn n_param[] = {{TLB_X_PARAM, 3, 0}};
static TlbTmap vadd_maps0[] = {
    {.param = 1, .elem = TLB_F32, .rank = 1, .box = {64}, .dim = {{1, n_param}}},
    {.param = 2, .elem = TLB_F32, .rank = 1, .swizzle = 32, .box = {8}, .dim = {{1, n_param}}}};
static TlbTmap vadd_maps1[] = {{.param = 1, .elem = TLB_BF16, .rank = 2, .swizzle = 128,
                                .box = {64, 256}, .dim = {{1, n_param}, {3, cdiv_n_1024}},
                                .stride = {{3, cdiv_n_2048}}}};
static TlbVariant vadd_v0[] = {{vadd_guard, 0, "vadd_c0_aligned16", 0, 2, vadd_maps0, 0},
                               {none, 0, "vadd_c0_generic", 0, 0, NULL, TLB_VARIANT_PERSISTENT}};
static TlbVariant vadd_v1[] = {{none, 49152, "vadd_c1_generic", 0, 1, vadd_maps1, 0}};
static uint32_t vadd_key[] = {3};
static TlbConfig vadd_configs[] = {
    {4, 1, vadd_cv0, {{3, cdiv_n_1024}}, 0, NULL, 2, vadd_v0},
    {8, 3, vadd_cv1, {{3, cdiv_n_2048}}, 0, NULL, 1, vadd_v1}};

static TlbParam sm_params[] = {
    {"out", TLB_PTR, TLB_BF16, TLB_PARAM_STORED}, {"x", TLB_PTR, TLB_BF16, 0},
    {"rows", TLB_I64, TLB_VOID, 0}, {"cols", TLB_U16, TLB_VOID, TLB_PARAM_NOSPECIALIZE},
    {"flag", TLB_BOOL, TLB_VOID, 0}, {"scale", TLB_F64, TLB_VOID, 0}};
static TlbExpr sm_req[] = {{3, block_ge_cols}, {4, sel}};
static const uint8_t sm_guard[] = {4, 30, 1, 0, 0, 0},
                     sm_unit[] = {4, 4, TLB_GUARD_ONE, 0, 0, 0};
/* softmax_a's maps: x as [2, rows, cols] (rank 3, swizzle 128), out as
 * [rows, cols] (swizzle 64), x again as i16 (as many bytes as bf16). */
static TlbInsn cols_param[] = {{TLB_X_PARAM, 3, 0}}, two[] = {{TLB_X_CONST, 0, 2}};
static TlbTmap sm_maps[] = {
    {.param = 1, .elem = TLB_BF16, .rank = 3, .swizzle = 128, .box = {64, 4, 2},
     .dim = {{1, cols_param}, {1, rows}, {1, two}},
     .stride = {{1, cols_param}, {3, block_ge_cols}}},
    {.param = 0, .elem = TLB_BF16, .rank = 2, .swizzle = 64, .box = {32, 256},
     .dim = {{1, cols_param}, {4, sel}}, .stride = {{1, cols_param}}},
    {.param = 1, .elem = TLB_I16, .rank = 1, .box = {256}, .dim = {{3, block_ge_cols}}}};
static TlbVariant sm_v[] = {{sm_unit, 0, "softmax_u1", 3, 0, NULL, 0},
                            {sm_guard, 16, "softmax_a", 0, 3, sm_maps, 0},
                            {none, 0, "softmax_g", 65535, 0, NULL, 0}};
static TlbConfig sm_configs[] = {{16, 2, NULL, {{1, rows}, {4, sel}}, 2, sm_req, 3, sm_v}};

static const uint8_t cubin_bytes[] = {0x7f, 'E', 'L', 'F', 0, 1, 2, 3, 0xff};
static TlbCubin cubins[] = {{"sm_90a", sizeof cubin_bytes, cubin_bytes},
                            {"sm_80", 1, cubin_bytes + 8}};

static TlbKernel kernels[] = {
    {"vadd", 4, vadd_params, 3, vadd_cparams, 1, vadd_key, 1, 2, vadd_configs},
    {"softmax", 6, sm_params, 0, NULL, 0, NULL, 2, 1, sm_configs}};

static const char ptx[] = "//\n.version 8.0\n.target sm_90\n.address_size 64\n";

static TlbBundle sample(void) {
    return (TlbBundle){"tilec test", "sm_90", ptx, sizeof ptx - 1, 2, cubins,
                       2, kernels, NULL};
}

/* --------------------------------------------------------- comparison */

static int same_str(const char *a, const char *b) {
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static int same_expr(const TlbExpr *a, const TlbExpr *b) {
    if (a->n != b->n) return 0;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->code[i].op != b->code[i].op || a->code[i].param != b->code[i].param ||
            a->code[i].value != b->code[i].value)
            return 0;
    return 1;
}

static int same_tmaps(const TlbVariant *a, const TlbVariant *b) {
    if (a->ntmaps != b->ntmaps) return 0;
    for (uint32_t t = 0; t < a->ntmaps; t++) {
        const TlbTmap *x = &a->tmaps[t], *y = &b->tmaps[t];
        if (x->param != y->param || x->elem != y->elem || x->rank != y->rank ||
            x->swizzle != y->swizzle)
            return 0;
        for (uint32_t i = 0; i < x->rank; i++)
            if (x->box[i] != y->box[i] || !same_expr(&x->dim[i], &y->dim[i]) ||
                (i + 1 < x->rank && !same_expr(&x->stride[i], &y->stride[i])))
                return 0;
        for (uint32_t i = x->rank; i < TLB_TMAP_MAXRANK; i++)   /* unused: zero */
            if (y->box[i] || y->dim[i].n || (i > 0 && y->stride[i - 1].n)) return 0;
    }
    return 1;
}

static int same_config(const TlbKernel *k, const TlbConfig *a, const TlbConfig *b) {
    if (a->warps != b->warps || a->stages != b->stages || a->nrequire != b->nrequire ||
        a->nvariants != b->nvariants)
        return 0;
    for (uint32_t i = 0; i < k->ncparams; i++)
        if (a->cvalues[i] != b->cvalues[i]) return 0;
    for (uint32_t d = 0; d < k->ngrid; d++)
        if (!same_expr(&a->grid[d], &b->grid[d])) return 0;
    for (uint32_t i = 0; i < a->nrequire; i++)
        if (!same_expr(&a->require[i], &b->require[i])) return 0;
    for (uint32_t i = 0; i < a->nvariants; i++)
        if (memcmp(a->variants[i].guard, b->variants[i].guard, k->nparams) ||
            a->variants[i].dyn_smem != b->variants[i].dyn_smem ||
            a->variants[i].l1_programs != b->variants[i].l1_programs ||
            a->variants[i].flags != b->variants[i].flags ||
            !same_tmaps(&a->variants[i], &b->variants[i]) ||
            !same_str(a->variants[i].entry, b->variants[i].entry))
            return 0;
    return 1;
}

static int same_kernel(const TlbKernel *a, const TlbKernel *b) {
    if (!same_str(a->name, b->name) || a->nparams != b->nparams ||
        a->ncparams != b->ncparams || a->ntune_key != b->ntune_key ||
        a->ngrid != b->ngrid || a->nconfigs != b->nconfigs)
        return 0;
    for (uint32_t i = 0; i < a->nparams; i++)
        if (!same_str(a->params[i].name, b->params[i].name) ||
            a->params[i].type != b->params[i].type ||
            a->params[i].pointee != b->params[i].pointee ||
            a->params[i].flags != b->params[i].flags)
            return 0;
    for (uint32_t i = 0; i < a->ncparams; i++)
        if (!same_str(a->cparams[i].name, b->cparams[i].name) ||
            a->cparams[i].kind != b->cparams[i].kind ||
            a->cparams[i].type != b->cparams[i].type)
            return 0;
    for (uint32_t i = 0; i < a->ntune_key; i++)
        if (a->tune_key[i] != b->tune_key[i]) return 0;
    for (uint32_t i = 0; i < a->nconfigs; i++)
        if (!same_config(a, &a->configs[i], &b->configs[i])) return 0;
    return 1;
}

static int same_bundle(const TlbBundle *a, const TlbBundle *b) {
    if (!same_str(a->producer, b->producer) || !same_str(a->arch, b->arch) ||
        a->ptx_size != b->ptx_size || memcmp(a->ptx, b->ptx, a->ptx_size) ||
        b->ptx[b->ptx_size] != 0 || a->ncubins != b->ncubins ||
        a->nkernels != b->nkernels)
        return 0;
    for (uint32_t i = 0; i < a->ncubins; i++)
        if (!same_str(a->cubins[i].arch, b->cubins[i].arch) ||
            a->cubins[i].size != b->cubins[i].size ||
            memcmp(a->cubins[i].image, b->cubins[i].image, a->cubins[i].size))
            return 0;
    for (uint32_t i = 0; i < a->nkernels; i++)
        if (!same_kernel(&a->kernels[i], &b->kernels[i])) return 0;
    return 1;
}

/* ---------------------------------------------------------- helpers */

static char err[512];

static uint8_t *write_sample(const TlbBundle *b, size_t *size) {
    void *data;
    int rc = tlb_write(b, &data, size, err, sizeof err);
    if (rc) fprintf(stderr, "tlb_write: %s\n", err);
    CHECK(rc == 0);
    return data;
}

/* Reads and expects failure with a message starting with `prefix`. */
static void expect_reject(const uint8_t *d, size_t n, const char *prefix) {
    TlbBundle *b = (TlbBundle *)1;
    err[0] = 0;
    int rc = tlb_read(d, n, &b, err, sizeof err);
    CHECK(rc == -1 && b == NULL);
    if (strncmp(err, prefix, strlen(prefix)) != 0) {
        fprintf(stderr, "got '%s', expected '%s...'\n", err, prefix);
        CHECK(0);
    }
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> 8 * i);
}

/* Recomputes both checksums after an edit of the payload. */
static void reseal(uint8_t *d, size_t n) {
    put32(d + 24, tlb_crc32c(0, d + TLB_HEADER_SIZE, n - TLB_HEADER_SIZE));
    put32(d + 28, tlb_crc32c(0, d, 28));
}

/* ------------------------------------------------------------- tests */

static void test_crc(void) {
    CHECK(tlb_crc32c(0, "123456789", 9) == 0xE3069283u);
    CHECK(tlb_crc32c(0, "", 0) == 0);
}

static void test_round_trip(void) {
    TlbBundle in = sample();
    size_t n;
    uint8_t *d = write_sample(&in, &n);
    TlbBundle *out;
    CHECK(tlb_read(d, n, &out, err, sizeof err) == 0);
    CHECK(same_bundle(&in, out));
    /* Writing what was read gives the same bytes. */
    size_t n2;
    uint8_t *d2 = write_sample(out, &n2);
    CHECK(n2 == n && memcmp(d, d2, n) == 0);
    int64_t args[6] = {0, 0, 5, 300, 0, 0}, v;
    CHECK(tlb_eval(&out->kernels[0].configs[0].grid[0], (int64_t[]){0, 0, 0, 3000}, &v) == 0 &&
          v == 3);
    CHECK(tlb_eval(&out->kernels[1].configs[0].require[0], args, &v) == 0 && v == 0);
    CHECK(tlb_eval(&out->kernels[1].configs[0].grid[1], args, &v) == 0 && v == -7);
    args[2] = 0;
    CHECK(tlb_eval(&out->kernels[1].configs[0].grid[1], args, &v) == 0 && v == INT64_MIN);
    tlb_free(out);
    free(d2);

    /* An empty bundle round-trips too. */
    TlbBundle empty = {NULL, "sm_80", NULL, 0, 0, NULL, 0, NULL, NULL};
    uint8_t *e = write_sample(&empty, &n2);
    CHECK(tlb_read(e, n2, &out, err, sizeof err) == 0);
    CHECK(out->nkernels == 0 && out->ptx_size == 0 && out->ptx[0] == 0 &&
          strcmp(out->producer, "") == 0);
    tlb_free(out);
    free(e);
    free(d);
}

/* Every single-byte change anywhere is rejected: in the header by the
 * magic, the version (or, where the change gives another version
 * readers know, the header checksum); in the payload by its checksum. */
static void test_each_byte_flipped(void) {
    TlbBundle in = sample();
    size_t n;
    uint8_t *d = write_sample(&in, &n);
    int rejected = 0;
    for (size_t i = 0; i < n; i++) {
        for (int bit = 0; bit < 8; bit += 7) {
            d[i] ^= (uint8_t)(1u << bit);
            uint32_t v = (uint32_t)d[8] | (uint32_t)d[9] << 8 | (uint32_t)d[10] << 16 |
                         (uint32_t)d[11] << 24;
            int known = v >= TLB_VERSION_OLDEST && v <= TLB_VERSION;  /* 3 ^ 1 */
            const char *prefix = i < 8 ? "not a Tile bundle"
                               : i < 12 && !known ? "unsupported Tile bundle format version"
                               : i < TLB_HEADER_SIZE ? "damaged Tile bundle: header checksum"
                                                     : "damaged Tile bundle: payload checksum";
            expect_reject(d, n, prefix);
            rejected++;
            d[i] ^= (uint8_t)(1u << bit);
        }
    }
    CHECK(rejected == (int)(2 * n));
    free(d);
}

static void test_truncation_and_trailing(void) {
    TlbBundle in = sample();
    size_t n;
    uint8_t *d = write_sample(&in, &n);
    expect_reject(d, 0, "not a Tile bundle");
    for (size_t len = 1; len < n; len++) expect_reject(d, len, "truncated Tile bundle");
    uint8_t *longer = malloc(n + 3);
    memcpy(longer, d, n);
    memset(longer + n, 0, 3);
    expect_reject(longer, n + 3, "damaged Tile bundle: 3 unexpected bytes after the payload");
    free(longer);
    free(d);
}

static void test_foreign_and_versions(void) {
    static const uint8_t elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    expect_reject(elf, sizeof elf, "not a Tile bundle (no bundle magic number)");
    expect_reject((const uint8_t *)"TLB", 3, "not a Tile bundle");
    TlbBundle in = sample();
    size_t n;
    uint8_t *d = write_sample(&in, &n);
    put32(d + 8, 7);
    reseal(d, n);
    expect_reject(d, n, "unsupported Tile bundle format version 7 (this reader "
                        "understands versions 1 to 6)");
    put32(d + 8, 0);
    reseal(d, n);
    expect_reject(d, n, "unsupported Tile bundle format version 0 (this reader "
                        "understands versions 1 to 6)");
    /* Version 2 has no "equal to 1" guard: read as one, softmax_u1's is
     * out of range (a bundle of softmax alone: its first variant is read
     * before version 4's additions could throw the reading off). */
    TlbBundle sm_only = in;
    sm_only.kernels = &kernels[1];
    sm_only.nkernels = 1;
    size_t n2;
    uint8_t *d2 = write_sample(&sm_only, &n2);
    put32(d2 + 8, 2);
    reseal(d2, n2);
    expect_reject(d2, n2, "invalid Tile bundle");
    CHECK(strstr(err, "variant 'softmax_u1' guards parameter 'rows' with 2^128 (at most 2^30)"));
    free(d2);
    put32(d + 8, TLB_VERSION);
    put32(d + 12, 4);
    reseal(d, n);
    expect_reject(d, n, "unsupported Tile bundle: unknown flags 0x4");
    free(d);
}

/* Payload layout of a bundle with producer "", arch "sm_90", no PTX, no
 * cubins: kernel count at payload offset 25. */
static void test_crafted_counts(void) {
    TlbBundle in = sample();
    in.producer = NULL;
    in.ptx = NULL;
    in.ptx_size = 0;
    in.ncubins = 0;
    size_t n;
    uint8_t *d = write_sample(&in, &n);
    uint8_t *p = d + TLB_HEADER_SIZE;
    CHECK(p[25] == 2);
    put32(p + 25, 0xffffffffu);
    reseal(d, n);
    expect_reject(d, n, "invalid Tile bundle (byte 57): kernel count 4294967295 "
                        "cannot fit in the");
    put32(p + 25, 2);
    memset(p + 13, 0xff, 8);                          /* PTX length */
    reseal(d, n);
    expect_reject(d, n, "invalid Tile bundle (byte 45): PTX module runs past the end");
    memset(p + 13, 0, 8);
    put32(p + 21, 0x10000000u);                        /* cubin count */
    reseal(d, n);
    expect_reject(d, n, "invalid Tile bundle (byte 53): cubin count 268435456 cannot fit");
    put32(p + 21, 0);
    /* Kernel "vadd": name at 29, parameter count at 37. */
    put32(p + 37, 0x7fffffffu);
    reseal(d, n);
    expect_reject(d, n, "invalid Tile bundle (byte 69): kernel 'vadd': parameter "
                        "count 2147483647 cannot fit");
    put32(p + 37, 4);
    reseal(d, n);
    TlbBundle *b;
    CHECK(tlb_read(d, n, &b, err, sizeof err) == 0);
    tlb_free(b);

    /* Every payload byte set to a few values in turn, checksums fixed up:
     * never a crash or a leak (the sanitizer build checks), and whatever
     * is accepted writes back to the same bytes. */
    int accepted = 0;
    static const uint8_t values[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    for (size_t i = TLB_HEADER_SIZE; i < n; i++) {
        uint8_t keep = d[i];
        for (size_t v = 0; v < sizeof values; v++) {
            d[i] = values[v];
            reseal(d, n);
            err[0] = 0;
            if (tlb_read(d, n, &b, err, sizeof err) == 0) {
                size_t n2;
                void *d2;
                CHECK(tlb_write(b, &d2, &n2, err, sizeof err) == 0);
                CHECK(n2 == n && memcmp(d2, d, n) == 0);
                free(d2);
                tlb_free(b);
                accepted++;
            } else {
                CHECK(strncmp(err, "invalid Tile bundle (byte ", 26) == 0);
            }
        }
        d[i] = keep;
    }
    CHECK(accepted > 0);
    free(d);
}

/* Bundles the writer refuses: the reader's rules, reported through it. */
static void expect_write_error(TlbBundle *b, const char *msg) {
    void *d;
    size_t n;
    err[0] = 0;
    CHECK(tlb_write(b, &d, &n, err, sizeof err) == -1 && d == NULL);
    if (!strstr(err, msg)) {
        fprintf(stderr, "got '%s', expected '...%s...'\n", err, msg);
        CHECK(0);
    }
}

static void test_invalid_content(void) {
    TlbBundle b = sample();
    TlbKernel k[2] = {kernels[0], kernels[1]};
    TlbConfig c = sm_configs[0];
    b.kernels = k;
    k[1].configs = &c;

    TlbInsn ptr_param[] = {{TLB_X_PARAM, 1, 0}};
    c.grid[0] = (TlbExpr){1, ptr_param};
    expect_write_error(&b, "kernel 'softmax': grid expression uses parameter 'x' of type ptr");
    TlbInsn far[] = {{TLB_X_PARAM, 6, 0}};
    c.grid[0] = (TlbExpr){1, far};
    expect_write_error(&b, "grid expression uses parameter 6 of 6");
    TlbInsn underflow[] = {{TLB_X_CONST, 0, 1}, {TLB_X_ADD, 0, 0}};
    c.grid[0] = (TlbExpr){2, underflow};
    expect_write_error(&b, "grid expression: operation 3 lacks operands");
    TlbInsn two[] = {{TLB_X_CONST, 0, 1}, {TLB_X_CONST, 0, 2}};
    c.grid[0] = (TlbExpr){2, two};
    expect_write_error(&b, "grid expression leaves 2 values, not 1");
    TlbInsn deep[TLB_EXPR_MAXDEPTH + 1];
    for (int i = 0; i <= TLB_EXPR_MAXDEPTH; i++) deep[i] = (TlbInsn){TLB_X_CONST, 0, i};
    c.grid[0] = (TlbExpr){TLB_EXPR_MAXDEPTH + 1, deep};
    expect_write_error(&b, "grid expression needs more than 32 stack slots");
    TlbInsn bad_op[] = {{99, 0, 0}};
    c.grid[0] = (TlbExpr){1, bad_op};
    expect_write_error(&b, "grid expression: unknown operation 99");
    c.grid[0] = (TlbExpr){0, NULL};
    expect_write_error(&b, "empty grid expression");
    c = sm_configs[0];

    c.warps = 33;
    expect_write_error(&b, "kernel 'softmax': 33 warps (expected 1 to 32)");
    c = sm_configs[0];
    c.nvariants = 0;
    expect_write_error(&b, "a configuration without variants");
    c = sm_configs[0];
    uint8_t g[6] = {31};
    TlbVariant v = {g, 0, "x", 0, 0, NULL, 0};
    c.variants = &v;
    c.nvariants = 1;
    expect_write_error(&b, "variant 'x' guards parameter 'out' with 2^31 (at most 2^30)");
    g[0] = 0;
    g[3] = 1;   /* cols: @nospecialize */
    expect_write_error(&b, "variant 'x' guards parameter 'cols', which cannot have a guard");
    g[3] = 0;
    g[5] = 1;   /* scale: f64 */
    expect_write_error(&b, "variant 'x' guards parameter 'scale', which cannot have a guard");
    g[5] = 0;
    const char *one = "to equal 1, which only an integer without @nospecialize can be";
    for (int i = 0; i < 6; i++) {
        if (i == 2) continue;   /* rows: i64, may be guarded to equal 1 */
        g[i] = TLB_GUARD_ONE;
        char want[160];
        snprintf(want, sizeof want, "variant 'x' guards parameter '%s' %s",
                 sm_params[i].name, one);
        expect_write_error(&b, want);
        g[i] = 0;
    }
    v = (TlbVariant){none, 0, "", 0, 0, NULL, 0};
    expect_write_error(&b, "empty variant entry name");
    c = sm_configs[0];

    TlbParam p[6];
    memcpy(p, sm_params, sizeof p);
    k[1].params = p;
    p[2].flags = TLB_PARAM_STORED;
    expect_write_error(&b, "parameter 'rows' is stored through but is not a pointer");
    p[2] = sm_params[2];
    p[0].pointee = TLB_PTR;
    expect_write_error(&b, "parameter 'out' has invalid pointee type code 14");
    p[0] = sm_params[0];
    p[3].type = 0;
    expect_write_error(&b, "parameter 'cols' has unknown type code 0");
    k[1].params = sm_params;

    k[1].name = "vadd";
    expect_write_error(&b, "kernel 'vadd' appears twice");
    k[1] = kernels[1];
    k[1].ngrid = 4;
    expect_write_error(&b, "grid of 4 dimensions (at most 3)");
    k[1] = kernels[1];
    k[1].nconfigs = 0;
    expect_write_error(&b, "kernel 'softmax': no configurations");
    k[1] = kernels[1];
    uint32_t key = 6;
    k[1].tune_key = &key;
    k[1].ntune_key = 1;
    expect_write_error(&b, "tune key names parameter 6 of 6");
    k[1] = kernels[1];

    TlbCparam cp[3];
    memcpy(cp, vadd_cparams, sizeof cp);
    k[0].cparams = cp;
    cp[0].type = TLB_F32;
    expect_write_error(&b, "compile-time parameter 'BLOCK' has invalid type code 12");
    memcpy(cp, vadd_cparams, sizeof cp);
    TlbConfig vc[2] = {vadd_configs[0], vadd_configs[1]};
    k[0].cparams = vadd_cparams;
    k[0].configs = vc;
    int64_t cv[3] = {1024, TLB_PTR, 0};
    vc[1].cvalues = cv;
    expect_write_error(&b, "type 'T' has unknown type code 14");
    cv[1] = TLB_F32;
    cv[2] = 2;
    expect_write_error(&b, "bool 'EVEN' = 2");
    cv[2] = 0;   /* a type parameter naming a storage type (f8) is valid */
    vc[1].variants = &vadd_v0[1];   /* (vadd_c1's map is of T = bf16) */
    for (int64_t t = TLB_F8E4M3; t <= TLB_F8E5M2; t++) {
        cv[1] = t;
        size_t n8 = 0;
        uint8_t *w8 = write_sample(&b, &n8);
        TlbBundle *r8 = NULL;
        CHECK(w8 && tlb_read(w8, n8, &r8, err, sizeof err) == 0);
        CHECK(r8 && r8->kernels[0].configs[1].cvalues[1] == t);
        tlb_free(r8);
        free(w8);
    }
    k[0] = kernels[0];

    b.arch = "sm_9";
    expect_write_error(&b, "unknown architecture 'sm_9'");
    b.arch = "sm_90";
    TlbCubin cb = {"sm_90", 0, cubin_bytes};
    b.cubins = &cb;
    b.ncubins = 1;
    expect_write_error(&b, "empty cubin for sm_90");
    b.ncubins = 0;
    b.ptx = "a\0b";
    b.ptx_size = 3;
    expect_write_error(&b, "PTX module contains a NUL byte");
}

/* Each rule of tensor maps, reported through the writer: a variant of
 * softmax (out, x: *bf16; rows: i64; cols: u16; flag; scale: f64) and
 * one of vadd's configuration 0 (x: *f32, T = f32). */
static void test_invalid_tmaps(void) {
    TlbBundle b = sample();
    TlbKernel k[2] = {kernels[0], kernels[1]};
    TlbConfig c = sm_configs[0];
    b.kernels = k;
    k[1].configs = &c;
    TlbTmap m[TLB_MAX_TMAPS + 1];
    for (int i = 0; i <= TLB_MAX_TMAPS; i++) m[i] = sm_maps[1];
    TlbVariant v = {none, 0, "x", 0, TLB_MAX_TMAPS, m, 0};
    c.variants = &v;
    c.nvariants = 1;
    size_t n;
    free(write_sample(&b, &n));   /* 8 maps: fine */
    v.ntmaps = TLB_MAX_TMAPS + 1;
    expect_write_error(&b, "kernel 'softmax': variant 'x' has 9 tensor maps (at most 8)");
    v.ntmaps = 1;
    static const struct { uint16_t param; uint8_t elem; const char *msg; } params[] = {
        {6, TLB_BF16, "variant 'x': tensor map 0 names parameter 6 of 6"},
        {2, TLB_BF16, "tensor map 0 is of parameter 'rows', which is not a pointer"},
        {1, TLB_BOOL, "tensor map 0 of 'x' has element type code 1, which a tensor map "
                      "cannot describe"},
        {1, TLB_VOID, "tensor map 0 of 'x' has element type code 0"},
        {1, TLB_PTR, "tensor map 0 of 'x' has element type code 14"},
        {1, TLB_NTYPES, "tensor map 0 of 'x' has element type code 17"},
        {1, TLB_F32, "tensor map 0 of 'x' has f32 elements, but 'x' points to bf16"},
        {0, TLB_U8, "tensor map 0 of 'out' has u8 elements, but 'out' points to bf16"},
    };
    for (size_t i = 0; i < sizeof params / sizeof *params; i++) {
        m[0] = sm_maps[1];
        m[0].param = params[i].param;
        m[0].elem = params[i].elem;
        expect_write_error(&b, params[i].msg);
    }
    static const struct { uint8_t rank, swizzle; uint32_t box0, box1; const char *msg; } boxes[] = {
        {0, 0, 32, 4, "tensor map 0 of 'out' has rank 0 (1 to 3)"},
        {4, 0, 32, 4, "tensor map 0 of 'out' has rank 4 (1 to 3)"},
        {2, 0, 32, 0, "has a box of 0 elements in dimension 1 (1 to 256)"},
        {2, 0, 32, 257, "has a box of 257 elements in dimension 1 (1 to 256)"},
        {2, 0, 0, 4, "has a box of 0 elements in dimension 0 (1 to 256)"},
        {2, 0, 4, 4, "its box's rows of 8 bytes are not a multiple of 16"},
        {2, 0, 36, 4, "its box's rows of 72 bytes are not a multiple of 16"},
        {2, 16, 8, 4, "tensor map 0 of 'out' has swizzle 16 (0, 32, 64 or 128)"},
        {2, 255, 8, 4, "has swizzle 255 (0, 32, 64 or 128)"},
        {2, 32, 24, 4, "its box's rows of 48 bytes exceed its 32-byte swizzle"},
        {2, 128, 72, 4, "its box's rows of 144 bytes exceed its 128-byte swizzle"},
    };
    v.ntmaps = 2;   /* a valid map after the bad one: bytes enough for 2 maps */
    for (size_t i = 0; i < sizeof boxes / sizeof *boxes; i++) {
        m[0] = sm_maps[1];
        m[0].rank = boxes[i].rank;
        m[0].swizzle = boxes[i].swizzle;
        m[0].box[0] = boxes[i].box0;
        m[0].box[1] = boxes[i].box1;
        if (boxes[i].rank == 4) m[0].box[2] = 1;
        expect_write_error(&b, boxes[i].msg);
    }
    m[0] = sm_maps[1];
    TlbInsn ptr_param[] = {{TLB_X_PARAM, 1, 0}}, far[] = {{TLB_X_PARAM, 9, 0}};
    m[0].dim[1] = (TlbExpr){1, ptr_param};
    expect_write_error(&b, "tensor map dimension expression uses parameter 'x' of type ptr");
    m[0].dim[1] = (TlbExpr){0, NULL};
    expect_write_error(&b, "empty tensor map dimension expression");
    m[0] = sm_maps[1];
    m[0].stride[0] = (TlbExpr){1, far};
    expect_write_error(&b, "tensor map stride expression uses parameter 9 of 6");
    m[0].stride[0] = (TlbExpr){2, (TlbInsn[]){{TLB_X_CONST, 0, 1}, {TLB_X_CONST, 0, 2}}};
    expect_write_error(&b, "tensor map stride expression leaves 2 values, not 1");

    /* vadd configuration 0: T = f32, so bf16 elements of x (*f32) are
     * wrong there; configuration 1 (T = bf16) has them (the sample). */
    TlbConfig vc[2] = {vadd_configs[0], vadd_configs[1]};
    k[1] = kernels[1];
    k[0].configs = vc;
    vc[0].variants = vadd_v1;
    vc[0].nvariants = 1;
    expect_write_error(&b, "kernel 'vadd': variant 'vadd_c1_generic': tensor map 0 of 'x' "
                           "has bf16 elements, but 'x' points to f32");
}

/* A map printed for printers of variants. */
static void test_tmap_text(void) {
    char buf[160];
    CHECK_STR(tlb_tmap_text(&kernels[1], &sm_maps[0], buf, sizeof buf),
              "tmap x: bf16 [cols, rows, 2] stride [cols, 256 >= cols] box [64, 4, 2] "
              "swizzle 128");
    CHECK_STR(tlb_tmap_text(&kernels[1], &sm_maps[2], buf, sizeof buf),
              "tmap x: i16 [256 >= cols] box [256] swizzle 0");
    CHECK_STR(tlb_tmap_text(&kernels[0], &vadd_maps1[0], buf, sizeof buf),
              "tmap x: bf16 [n, cdiv(n, 1024)] stride [cdiv(n, 2048)] box [64, 256] "
              "swizzle 128");
    CHECK_STR(tlb_tmap_text(&kernels[0], &vadd_maps0[0], buf, 20), "tmap x: f32 [n] ...");
}

static void test_arch(void) {
    int a = -1;
    CHECK(tlb_parse_arch("sm_90a", &a) == 90 && a == 1);
    CHECK(tlb_parse_arch("sm_80", &a) == 80 && a == 0);
    CHECK(tlb_parse_arch("sm_100", &a) == 100 && a == 0);
    CHECK(tlb_parse_arch("sm_9", NULL) == -1);
    CHECK(tlb_parse_arch("sm_90b", NULL) == -1);
    CHECK(tlb_parse_arch("compute_90", NULL) == -1);
    CHECK(tlb_parse_arch("sm_90a ", NULL) == -1);
    CHECK(tlb_parse_arch(NULL, NULL) == -1);
}

/* ------------------------------------------ the evaluator vs gx_eval */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static GExpr *random_gexpr(Arena *ar, int depth) {
    GExpr *g = ar_alloc(ar, sizeof *g);
    if (depth == 0 || next() % 4 == 0) {
        if (next() % 2) {
            g->kind = GX_PARAM;
            g->param = (int)(next() % 3);
        } else {
            static const int64_t interesting[] = {0, 1, -1, 2, 16, 1024, INT64_MIN,
                                                  INT64_MAX, 63, 64, -3};
            g->kind = GX_CONST;
            g->value = next() % 2 ? interesting[next() % 11] : (int64_t)(next() % 5000) - 100;
        }
        return g;
    }
    g->kind = (uint8_t)(GX_ADD + next() % (GX_SELECT - GX_ADD + 1));
    g->a = random_gexpr(ar, depth - 1);
    if (g->kind != GX_LNOT && g->kind != GX_NEG) g->b = random_gexpr(ar, depth - 1);
    if (g->kind == GX_SELECT) g->c = random_gexpr(ar, depth - 1);
    return g;
}

static void test_eval_matches_gx_eval(void) {
    Arena *ar = ar_new();
    int failures = 0, compared = 0;
    for (int i = 0; i < 20000; i++) {
        GExpr *g = random_gexpr(ar, 1 + i % 6);
        TlbExpr e;
        if (tlb_expr_from_gexpr(ar, g, &e)) continue;
        int64_t args[3] = {(int64_t)(next() % 100000) - 50, (int64_t)next(), 16};
        int64_t want = 0, got = 0;
        int wrc = gx_eval(g, args, &want), grc = tlb_eval(&e, args, &got);
        compared++;
        if (wrc != grc || (wrc == 0 && want != got)) failures++;
    }
    CHECK(failures == 0 && compared == 20000);
    /* Too deep for the stack: refused, not overflowed. */
    GExpr *chain = NULL;
    for (int i = 0; i < 40; i++) {
        GExpr *g = ar_alloc(ar, sizeof *g);
        GExpr *one = ar_alloc(ar, sizeof *one);
        one->kind = GX_CONST;
        one->value = 1;
        g->kind = GX_ADD;
        g->a = one;
        g->b = chain ? chain : one;
        chain = g;
    }
    TlbExpr e;
    CHECK(tlb_expr_from_gexpr(ar, chain, &e) == -1);
    ar_free(ar);
}

/* ------------------------------------------------ from the IR (sema) */

static IrModule *compile_file(Arena *ar, const char *path) {
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return NULL;
    char *text = ar_alloc(ar, 1 << 16);
    size_t len = fread(text, 1, (1 << 16) - 1, f);
    fclose(f);
    Diag *dg = dg_new(ar, stderr, 0);
    uint32_t file = dg_add_file(dg, path, text, len);
    AstFile *ast = ps_parse(ar, dg, file, text, len);
    SmOptions so = {0};
    so.stdlib_dir = TILE_SRCDIR "/stdlib";
    IrModule *m = ast && !dg_errors(dg) ? sm_compile(ar, dg, ast, &so) : NULL;
    CHECK(m != NULL);
    return m;
}

static const TlbKernel *find(const TlbBundle *b, const char *name) {
    for (uint32_t i = 0; i < b->nkernels; i++)
        if (strcmp(b->kernels[i].name, name) == 0) return &b->kernels[i];
    return NULL;
}

static void test_from_ir(void) {
    Arena *ar = ar_new();
    IrModule *m = compile_file(ar, TILE_SRCDIR "/tests/unit/Inputs/bundle-kernels.tile");
    if (!m) {
        ar_free(ar);
        return;
    }
    /* Two variants per IR kernel, listed backwards to check grouping; the
     * first's guard: every pointer 16-byte aligned. */
    TlbCodeVariant *vs = ar_alloc(ar, sizeof *vs * (size_t)m->nkernels * 2);
    int nv = 0;
    for (int i = m->nkernels - 1; i >= 0; i--)
        for (int a = 0; a < 2; a++) {
            const IrKernel *ik = m->kernels[i];
            uint8_t *g = ar_alloc(ar, (size_t)ik->nparams + 1);
            for (int p = 0; p < ik->nparams; p++)
                g[p] = (uint8_t)(a && ik->params[p].ty.k == SK_PTR ? 4 : 0);
            vs[nv++] = (TlbCodeVariant){i, g, 0,
                                        ar_printf(ar, "%s_%d_%s", m->kernels[i]->name,
                                                  m->kernels[i]->config_index,
                                                  a ? "aligned16" : "generic"), 0, 0, NULL, 0};
        }
    TlbCode code = {"tilec test", "sm_90", ".version 8.0\n", nv, vs, 0, NULL};
    TlbBundle b;
    CHECK(tlb_from_ir(ar, m, &code, &b, err, sizeof err) == 0);
    size_t n;
    uint8_t *d = write_sample(&b, &n);
    TlbBundle *r;
    CHECK(tlb_read(d, n, &r, err, sizeof err) == 0);
    CHECK(same_bundle(&b, r));

    const TlbKernel *vadd = find(r, "vadd"), *bg = find(r, "bias_gelu"),
                    *sm = find(r, "softmax"), *mm = find(r, "matmul_bias_relu");
    CHECK(vadd && bg && sm && mm);
    if (vadd && bg && sm && mm) {
        CHECK(vadd->nparams == 4 && vadd->params[0].type == TLB_PTR &&
              vadd->params[0].pointee == TLB_F32 &&
              vadd->params[0].flags == TLB_PARAM_STORED && vadd->params[1].flags == 0 &&
              vadd->params[3].type == TLB_I32 && strcmp(vadd->params[3].name, "n") == 0);
        CHECK(vadd->nconfigs == 1 && vadd->ncparams == 1 &&
              vadd->configs[0].cvalues[0] == 1024 && vadd->ngrid == 1);
        CHECK(vadd->ntune_key == 1 && vadd->tune_key[0] == 3);
        int64_t v, args[4] = {0, 0, 0, 1025};
        CHECK(tlb_eval(&vadd->configs[0].grid[0], args, &v) == 0 && v == 2);
        CHECK(vadd->configs[0].nvariants == 2 &&
              strcmp(vadd->configs[0].variants[0].entry, "vadd_0_generic") == 0 &&
              vadd->configs[0].variants[1].guard[0] == 4 &&
              vadd->configs[0].variants[1].guard[3] == 0);
        CHECK(bg->nconfigs == 6 && bg->ncparams == 2 &&
              bg->cparams[0].kind == TLB_CPARAM_TYPE && bg->configs[0].cvalues[0] == TLB_F32 &&
              bg->params[2].type == TLB_F32);
        for (uint32_t i = 0; i < bg->nconfigs; i++)
            CHECK(strcmp(bg->configs[i].variants[0].entry,
                         ar_printf(ar, "bias_gelu_%u_generic", i)) == 0);
        CHECK(sm->nconfigs == 21 && sm->configs[0].nrequire == 1);
        int64_t sargs[5] = {0, 0, 7, 300, 300};
        int admitted = 0;
        for (uint32_t i = 0; i < sm->nconfigs; i++) {
            CHECK(tlb_eval(&sm->configs[i].require[0], sargs, &v) == 0);
            admitted += v != 0;
        }
        CHECK(admitted == 6 * 3);   /* BLOCK >= 300: 512..16384, times 3 warps */
        CHECK(mm->ngrid == 2 && mm->ntune_key == 3 && mm->tune_key[0] == 4 &&
              mm->tune_key[2] == 6);
    }
    const TlbKernel *fill = find(r, "fill");
    CHECK(fill != NULL);
    if (fill) {
        CHECK(fill->ngrid == 0 && fill->nconfigs == 1 && fill->configs[0].warps == 2);
        CHECK(fill->params[1].type == TLB_I64 &&
              fill->params[1].flags == TLB_PARAM_NOSPECIALIZE &&
              fill->params[2].type == TLB_U32 && fill->params[3].type == TLB_BOOL);
        CHECK(fill->ncparams == 2 && fill->cparams[1].kind == TLB_CPARAM_BOOL &&
              fill->configs[0].cvalues[0] == 3 && fill->configs[0].cvalues[1] == 1);
        CHECK(fill->ntune_key == 2 && fill->tune_key[0] == 1 && fill->tune_key[1] == 2);
    }
    tlb_free(r);
    free(d);

    /* Without code: the descriptor alone, as the interpreter chooses
     * configurations on it; each IR kernel at its tlb_ir_config_rank. */
    TlbBundle dsc;
    CHECK(tlb_from_ir(ar, m, NULL, &dsc, err, sizeof err) == 0);
    CHECK(dsc.nkernels == 5 && dsc.ptx_size == 0 && dsc.ncubins == 0);
    for (int i = 0; i < m->nkernels; i++) {
        const IrKernel *ik = m->kernels[i];
        const TlbKernel *dk = find(&dsc, ik->name);
        int rank = tlb_ir_config_rank(m, i);
        CHECK(dk && rank >= 0 && (uint32_t)rank < dk->nconfigs);
        if (!dk || rank < 0 || (uint32_t)rank >= dk->nconfigs) continue;
        const TlbConfig *c = &dk->configs[rank];
        CHECK(c->nvariants == 0 && c->warps == (uint32_t)ik->warps &&
              c->stages == (uint32_t)ik->stages && c->nrequire == (uint32_t)ik->nrequire);
        for (int j = 0; j < ik->ncparams; j++)
            CHECK(ik->cparams[j].kind == CP_TYPE || c->cvalues[j] == ik->cparams[j].value);
    }
    const TlbKernel *dsm = find(&dsc, "softmax");
    uint32_t chosen = 99;
    int64_t rargs[5] = {0, 0, 7, 300, 300};
    CHECK(dsm && tlb_choose(dsm, NULL, NULL, rargs, &chosen, err, sizeof err) == 0 &&
          chosen == 3 && dsm->configs[3].cvalues[0] == 512);

    /* A configuration without code is an error. */
    code.nvariants = nv - 2;
    CHECK(tlb_from_ir(ar, m, &code, &b, err, sizeof err) == -1);
    CHECK_STR(err, "kernel 'vadd': no code for configuration 0");
    TlbCodeVariant bad = {m->nkernels, NULL, 0, "x", 0, 0, NULL, 0};
    code.variants = &bad;
    code.nvariants = 1;
    CHECK(tlb_from_ir(ar, m, &code, &b, err, sizeof err) == -1);
    CHECK(strncmp(err, "variant 'x' names kernel", 24) == 0);
    ar_free(ar);
}

/* The bytes of tests/unit/Inputs/NAME (at most 64 KiB) into buf; their
 * count, 0 when it cannot be read. */
static size_t read_input(const char *name, uint8_t *buf, size_t cap) {
    char path[512];
    snprintf(path, sizeof path, "%s/tests/unit/Inputs/%s", TILE_SRCDIR, name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return 0;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    CHECK(n > TLB_HEADER_SIZE && n < cap);
    return n;
}

/* A bundle of format version 1 (Inputs/v1-vadd.tlb: examples/vadd.tile
 * by the tilec of 2026-11, generic variant listed first, then the one
 * assuming 16-byte pointers and integers divisible by 16) still loads:
 * its assumption bits read as guards, most assumptions first. */
static void test_version1(void) {
    static uint8_t buf[1 << 16];
    size_t n = read_input("v1-vadd.tlb", buf, sizeof buf);
    if (!n) return;
    CHECK(buf[8] == 1);
    TlbBundle *r = NULL;
    CHECK(tlb_read(buf, n, &r, err, sizeof err) == 0);
    const TlbKernel *k = r ? find(r, "vadd") : NULL;
    CHECK(k && k->nparams == 4 && k->configs[0].nvariants == 2);
    if (k && k->configs[0].nvariants == 2) {
        const TlbVariant *a = &k->configs[0].variants[0], *g = &k->configs[0].variants[1];
        CHECK(strstr(a->entry, "__a16") && strstr(g->entry, "__g"));
        for (int i = 0; i < 4; i++) CHECK(a->guard[i] == 4 && g->guard[i] == 0);
    }
    tlb_free(r);
}

/* A bundle of format version 3 (Inputs/v3-transpose.tlb: examples/
 * transpose.tile at 32x32, 4 warps, PTX only, by the tilec of 2026-12-03)
 * still loads: its variants ask for no carveout (l1_programs 0), where
 * today's tilec asks for 5 programs per SM (20 warps). */
static void test_version3(void) {
    static uint8_t buf[1 << 16];
    size_t n = read_input("v3-transpose.tlb", buf, sizeof buf);
    if (!n) return;
    CHECK(buf[8] == 3);
    TlbBundle *r = NULL;
    CHECK(tlb_read(buf, n, &r, err, sizeof err) == 0);
    const TlbKernel *k = r ? find(r, "transpose") : NULL;
    CHECK(k && k->nparams == 6 && k->nconfigs == 1 && k->configs[0].nvariants == 2);
    if (k && k->configs[0].nvariants == 2) {
        const TlbVariant *a = &k->configs[0].variants[0], *g = &k->configs[0].variants[1];
        CHECK(strstr(a->entry, "__a16") && strstr(g->entry, "__g"));
        CHECK(a->l1_programs == 0 && g->l1_programs == 0);
        for (int i = 0; i < 6; i++) CHECK(a->guard[i] == (i < 2 ? 4 : 2) && g->guard[i] == 0);
    }
    tlb_free(r);
}

/* A bundle of format version 4 (Inputs/v4-vadd.tlb: examples/vadd.tile
 * by the tilec of 2026-12-05, before tensor maps) still loads: its
 * variants have no maps. */
static void test_version4(void) {
    static uint8_t buf[1 << 16];
    size_t n = read_input("v4-vadd.tlb", buf, sizeof buf);
    if (!n) return;
    CHECK(buf[8] == 4);
    TlbBundle *r = NULL;
    CHECK(tlb_read(buf, n, &r, err, sizeof err) == 0);
    const TlbKernel *k = r ? find(r, "vadd") : NULL;
    CHECK(k && k->nparams == 4 && k->nconfigs == 1 && k->configs[0].nvariants >= 2);
    for (uint32_t i = 0; k && i < k->configs[0].nvariants; i++)
        CHECK(k->configs[0].variants[i].ntmaps == 0 && k->configs[0].variants[i].tmaps == NULL);
    /* Rewritten, it is a version 6 bundle of the same content: each
     * variant gains its map count (4 bytes) and its flags (1). */
    if (r) {
        size_t n5;
        uint8_t *d5 = write_sample(r, &n5);
        TlbBundle *r5 = NULL;
        CHECK(d5[8] == 6 && n5 == n + 5 * k->configs[0].nvariants);
        CHECK(tlb_read(d5, n5, &r5, err, sizeof err) == 0 && same_bundle(r, r5));
        tlb_free(r5);
        free(d5);
    }
    tlb_free(r);
}

/* Version 6's variant flags: the sample's vadd_c0_generic is persistent
 * and reads back so (test_round_trip); a flag no reader knows, or a
 * persistent variant of a kernel without a grid clause, is refused,
 * naming the variant (by the writer, which reads what it wrote back). */
static void test_variant_flags(void) {
    TlbBundle in = sample();
    size_t n;
    uint8_t *d = write_sample(&in, &n);
    TlbBundle *r = NULL;
    CHECK(tlb_read(d, n, &r, err, sizeof err) == 0);
    CHECK(r && r->kernels[0].configs[0].variants[1].flags == TLB_VARIANT_PERSISTENT &&
          r->kernels[0].configs[0].variants[0].flags == 0);
    tlb_free(r);
    free(d);
    static TlbVariant v[3];
    static TlbConfig c[1];
    static TlbKernel k[2];
    memcpy(k, kernels, sizeof k);
    memcpy(c, k[1].configs, sizeof c);
    memcpy(v, c[0].variants, sizeof v);
    c[0].variants = v;
    k[1].configs = c;
    in.kernels = k;
    const uint8_t bad[2] = {4, TLB_VARIANT_PERSISTENT};
    k[1].ngrid = 0;
    const char *why[2] = {"variant 'softmax_a' has unknown flags 0x4",
                          "variant 'softmax_a' is persistent but its kernel has no grid clause"};
    for (int i = 0; i < 2; i++) {
        v[1].flags = bad[i];
        void *w = NULL;
        CHECK(tlb_write(&in, &w, &n, err, sizeof err) != 0 && w == NULL);
        CHECK(strstr(err, why[i]) != NULL);
    }
}

/* What a guard byte admits: multiples of 2^g (0 of everything), or, for
 * TLB_GUARD_ONE, 1 alone; a byte no reader accepts admits nothing. */
static void test_guard_holds(void) {
    for (unsigned g = 0; g <= TLB_GUARD_MAX; g++)
        for (int64_t v = -70; v <= 70; v++) {
            uint64_t bits = (uint64_t)v << (g > 2 ? g - 2 : 0);
            int multiple = g == 0 || (bits & ((UINT64_C(1) << g) - 1)) == 0;
            CHECK(tlb_guard_holds((uint8_t)g, bits) == multiple);
        }
    CHECK(tlb_guard_holds(TLB_GUARD_MAX, 0));
    for (int64_t v = -70; v <= 70; v++) {
        CHECK(tlb_guard_holds(TLB_GUARD_ONE, (uint64_t)v) == (v == 1));
        CHECK(!tlb_guard_holds(TLB_GUARD_MAX + 1, (uint64_t)v));
    }
    CHECK(!tlb_guard_holds(TLB_GUARD_ONE, UINT64_C(1) << 32 | 1));
}

int main(void) {
    test_guard_holds();
    test_version1();
    test_version3();
    test_version4();
    test_variant_flags();
    test_crc();
    test_arch();
    test_round_trip();
    test_each_byte_flipped();
    test_truncation_and_trailing();
    test_foreign_and_versions();
    test_crafted_counts();
    test_invalid_content();
    test_invalid_tmaps();
    test_tmap_text();
    test_eval_matches_gx_eval();
    test_from_ir();
    return check_done("test_bundle");
}
