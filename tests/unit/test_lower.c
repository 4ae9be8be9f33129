/* test_lower.c — the code generator's view of LLVM: the version linked in
 * and which GPU architectures it accepts; entries, and the shared-memory
 * budget down to the bundle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/bundle.h"
#include "bundle/from_ir.h"
#include "driver/compile.h"
#include "plan/layout.h"
#include "lower/lower.h"
#include "lower/lw.h"
#include "sema/sema.h"
#include "tests/unit/check.h"

static void test_version(void) {
    const char *v = lw_llvm_version();
    CHECK(v != NULL);
    CHECK(strncmp(v, "22.", 3) == 0);
}

static void test_archs(void) {
    const char *good[] = {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int ok = lw_arch_supported(good[i]);
        if (!ok)
            fprintf(stderr, "%s rejected\n", good[i]);
        CHECK(ok);
    }
    const char *bad[] = {"sm_99", "sm_70", "sm_9", "sm_90b", "", "SM_90",
                         "sm_90 ", "compute_90"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int ok = lw_arch_supported(bad[i]);
        if (ok)
            fprintf(stderr, "'%s' accepted\n", bad[i]);
        CHECK(!ok);
    }
    CHECK(!lw_arch_supported(NULL));
}

static void test_arch_list(void) {
    CHECK(lw_arch_count() >= 5);
    CHECK_STR(lw_arch_name(0), "sm_80");
    CHECK(lw_arch_name(lw_arch_count()) == NULL);
    /* Every listed architecture is one this LLVM 22 accepts. */
    for (size_t i = 0; i < lw_arch_count(); i++)
        CHECK(lw_arch_supported(lw_arch_name(i)));
}

static void test_ptx_versions(void) {
    CHECK(lw_arch_ptx_version("sm_80") == 80);
    CHECK(lw_arch_ptx_version("sm_90a") == 80);
    CHECK(lw_arch_ptx_version("sm_99") == 0);
    CHECK(lw_arch_ptx_version(NULL) == 0);
}

/* Compiles `src` through the one pipeline (driver/compile.c) as tilec
 * does; 0 on success. */
static int compile_src(Arena *ar, Diag *dg, const char *name, const char *src,
                       const char *arch, int opt_level, TcOutput *out) {
    size_t n = strlen(src);
    TcOptions o = {.arch = arch, .opt_level = opt_level};
    return tc_compile(ar, dg, dg_add_file(dg, name, src, n), src, n, &o, out);
}

/* Two configurations: at 4 warps two elements per thread, so a variant
 * with 8-byte accesses beside the generic one; at 8 warps one element per
 * thread, which no fact widens: the generic variant alone. */
static void test_compile(void) {
    static const char src[] =
        "@tune(warps = [4, 8])\n"
        "kernel s(out: *f32, x: *f32, n: i32) grid(1) {\n"
        "    let i = arange(0, 256);\n"
        "    let v = load(x + i, mask=i < n, other=0.0);\n"
        "    store(out + i, v / sum(v, 0), mask=i < n);\n"
        "}\n";
    Arena *ar = ar_new();
    Diag *dg = dg_new(ar, stderr, 0);
    TcOutput tc;
    CHECK(compile_src(ar, dg, "s.tile", src, "sm_80", 3, &tc) == 0);
    LwOutput out = tc.lw;
    CHECK(tc.nfiles == 1 && !strcmp(tc.files[0], "s.tile"));
    CHECK(out.nentries == 3);
    CHECK_STR(out.entries[0].name, "s__c0__a16");
    CHECK_STR(out.entries[1].name, "s__c0__g");
    CHECK_STR(out.entries[2].name, "s__c1__g");
    CHECK(out.entries[0].warps == 4 && out.entries[2].warps == 8);
    /* the guard: out and x 8-byte aligned, n a multiple of 2 (the mask of
     * a 2-element access), each needed by an access */
    const LyVariant *a = out.entries[0].variant;
    CHECK(ly_fact(&a->facts, 0) == 3 && ly_fact(&a->facts, 1) == 3);
    CHECK(ly_fact(&a->facts, 2) == 1);
    CHECK(a->needed_by[0] && a->needed_by[0]->op == IR_STORE);
    CHECK(a->needed_by[2] && a->needed_by[2]->op == IR_LOAD);
    CHECK(out.entries[1].variant->needed_by == NULL);
    /* the sum over 4 warps needs one partial per warp in shared memory */
    CHECK(out.entries[0].shared_bytes >= 16);
    CHECK(strstr(out.ptx, ".target sm_80") != NULL);
    CHECK(strstr(out.ptx, ".entry s__c0__a16(") != NULL);
    CHECK(strstr(out.ptx, "s__c1__a16") == NULL);
    CHECK(strstr(out.ptx, ".reqntid 256") != NULL);
    CHECK(out.llvm == NULL);
    CHECK(dg_errors(dg) == 0);
    dg_free(dg);
    ar_free(ar);
}

/* tc's entries as a bundle, written (*data: the bytes, for free) and
 * read back; NULL after a failed check. */
static TlbBundle *round_trip(Arena *ar, const TcOutput *tc, const char *arch, void **data) {
    TlbCode code = {"test", arch, tc->lw.ptx, tc->lw.nentries,
                    lw_code_variants(ar, &tc->lw), 0, NULL};
    TlbBundle b;
    char why[256];
    size_t size = 0;
    TlbBundle *rb = NULL;
    CHECK(tlb_from_ir(ar, tc->mod, &code, &b, why, sizeof why) == 0);
    CHECK(tlb_write(&b, data, &size, why, sizeof why) == 0);
    CHECK(*data && tlb_read(*data, size, &rb, why, sizeof why) == 0);
    return rb;
}

/* The budget: of two configurations of a matmul, BM=256 needs more shared
 * memory than sm_90 allows (its f32 accumulator's epilogue alone takes
 * 256 KiB): skipped, with a note; no entry, no kernel in the modules, no
 * configuration in the bundle built from them, after a write and a read. */
static void test_budget(void) {
    static const char src[] =
        "@tune(BM = [64, 256])\n"
        "@warps(8)\n"
        "kernel mm<BM: i32>(c: *f32, a: *f16, b: *f16, K: i32) {\n"
        "    let rm = arange(0, BM);\n"
        "    let rn = arange(0, 256);\n"
        "    let rk = arange(0, 32);\n"
        "    var acc = zeros([BM, 256], f32);\n"
        "    for k in range(0, K, 32) {\n"
        "        let at = load(a + rm[:, None] * K + (k + rk)[None, :]);\n"
        "        let bt = load(b + (k + rk)[:, None] * 256 + rn[None, :]);\n"
        "        acc = dot(at, bt, acc=acc);\n"
        "    }\n"
        "    store(c + rm[:, None] * 256 + rn[None, :], acc);\n"
        "}\n";
    Arena *ar = ar_new();
    char *msgs = NULL;
    size_t msgs_len = 0;
    FILE *err = open_memstream(&msgs, &msgs_len);
    Diag *dg = dg_new(ar, err, 0);
    TcOutput tc;
    CHECK(compile_src(ar, dg, "mm.tile", src, "sm_90", 1, &tc) == 0);
    LwOutput out = tc.lw;
    fflush(err);
    CHECK(strstr(msgs, "note: configuration BM=256, warps=8, stages=3 of kernel 'mm' "
                       "skipped: needs 256 KiB of shared memory, sm_90 allows 227 KiB") != NULL);
    CHECK(dg_errors(dg) == 0);
    /* a16: K a multiple of 8 too; p16: b and c aligned, K anything */
    CHECK(out.nentries == 3);
    CHECK_STR(out.entries[0].name, "mm__c0__a16");
    CHECK_STR(out.entries[1].name, "mm__c0__p16");
    CHECK_STR(out.entries[2].name, "mm__c0__g");
    for (int e = 0; e < out.nentries; e++)
        CHECK(out.entries[e].shared_bytes <= lw_arch_max_shared("sm_90"));
    CHECK(tc.mod->nkernels == 1);
    CHECK(strstr(out.ptx, "mm__c1") == NULL);
    void *data = NULL;
    TlbBundle *rb = round_trip(ar, &tc, "sm_90", &data);
    CHECK(rb && rb->nkernels == 1 && rb->kernels[0].nconfigs == 1);
    CHECK(rb && rb->kernels[0].configs[0].cvalues[0] == 64);
    CHECK(rb && rb->kernels[0].configs[0].nvariants == 3);
    CHECK(rb && strstr(rb->ptx, "mm__c1") == NULL);
    tlb_free(rb);
    free(data);
    dg_free(dg);
    fclose(err);
    free(msgs);
    ar_free(ar);
}

/* Unit strides: x's row stride sr and column stride sc each widen the
 * load when equal to 1 (along columns, along rows: a transposed read),
 * so the one group of alternatives gives u1 (sc == 1, the last dimension
 * first) and u2 (sr == 1), most specialized first, each keeping the
 * other stride's divisibility; a16 widens only the store. The bundle
 * bytes say "equal to 1" (TLB_GUARD_ONE) and survive a write and read. */
static const char strided_copy[] =
    "kernel t(out: *f32, x: *f32, sr: i32, sc: i32) grid(1) {\n"
    "    let r = arange(0, 16);\n"
    "    let c = arange(0, 64);\n"
    "    store(out + r[:, None] * 64 + c[None, :], load(x + r[:, None] * sr + c[None, :] * sc));\n"
    "}\n";

static void test_units(void) {
    Arena *ar = ar_new();
    Diag *dg = dg_new(ar, stderr, 0);
    TcOutput tc;
    CHECK(compile_src(ar, dg, "t.tile", strided_copy, "sm_80", 3, &tc) == 0);
    LwOutput out = tc.lw;
    CHECK(out.nentries == 4);
    if (out.nentries != 4) goto done;
    static const char *const names[] = {"t__c0__u1", "t__c0__u2", "t__c0__a16", "t__c0__g"};
    for (int e = 0; e < 4; e++) CHECK_STR(out.entries[e].name, names[e]);
    const LyFacts *u1 = &out.entries[0].variant->facts, *u2 = &out.entries[1].variant->facts,
                  *a = &out.entries[2].variant->facts;
    CHECK(ly_fact_one(u1, 3) && !ly_fact_one(u1, 2) && ly_fact(u1, 2) == 2);
    CHECK(ly_fact_one(u2, 2) && !ly_fact_one(u2, 3) && ly_fact(u2, 3) == 2);
    CHECK(ly_fact(a, 0) == 4 && ly_fact_raw(a, 1) == 0 && ly_fact_raw(a, 2) == 0 &&
          ly_fact_raw(a, 3) == 0);
    CHECK(out.entries[0].variant->needed_by[3]->op == IR_LOAD);
    TlbCodeVariant *cv = lw_code_variants(ar, &out);
    CHECK(cv[0].guard[3] == TLB_GUARD_ONE && cv[0].guard[2] == 2 && cv[0].guard[1] == 4);
    CHECK(cv[1].guard[2] == TLB_GUARD_ONE && cv[1].guard[3] == 2);
    void *data = NULL;
    TlbBundle *rb = round_trip(ar, &tc, "sm_80", &data);
    const TlbConfig *c = rb ? &rb->kernels[0].configs[0] : NULL;
    CHECK(c && c->nvariants == 4 && c->variants[0].guard[3] == TLB_GUARD_ONE &&
          c->variants[1].guard[2] == TLB_GUARD_ONE);
    tlb_free(rb);
    free(data);
done:
    dg_free(dg);
    ar_free(ar);
}

/* The scratch slot of a register is pad(T) + pad(R) where the register
 * and thread bits of its layout lie apart (layout.c lw_scratch_slot):
 * pad(T ^ R) = pad(T) + pad(R) for every pair of disjoint 14-bit values
 * (3^14 pairs: each bit in T, in R or in neither), and not in general. */
static void test_scratch_slot(void) {
    enum { BITS = 14 };
    long bad = 0, pairs = 0;
    for (uint32_t t = 0; t < 1u << BITS; t++)
        for (uint32_t r = ~t & ((1u << BITS) - 1);; r = (r - 1) & ~t & ((1u << BITS) - 1)) {
            pairs++;
            bad += lw_padded_const(t ^ r) != lw_padded_const(t) + lw_padded_const(r);
            if (!r) break;
        }
    CHECK(pairs == 4782969);   /* 3^14 */
    CHECK(bad == 0);
    CHECK(lw_padded_const(16 ^ 16) != lw_padded_const(16) + lw_padded_const(16));
    CHECK(lw_padded_const(31) == 31 && lw_padded_const(32) == 33 && lw_padded_const(64) == 66);
    /* every padding lw_remap_pad may choose: additive over disjoint bits
     * and increasing (one to one) over 2^14 coordinates */
    static const int qs[] = {1, 2, 4, 8, 16};
    long wrong = 0;
    for (int p = 6; p < BITS; p++)
        for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
            LwPad d = {p, qs[i]};
            for (uint32_t y = 1; y < 1u << BITS; y++)
                wrong += lw_pad_const(d, y) <= lw_pad_const(d, y - 1);
            for (uint32_t t = 0; t < 1u << BITS; t += 7)
                for (uint32_t r = ~t & ((1u << BITS) - 1);; r = (r - 1) & ~t & ((1u << BITS) - 1)) {
                    wrong += lw_pad_const(d, t | r) != lw_pad_const(d, t) + lw_pad_const(d, r);
                    if (!r) break;
                }
        }
    CHECK(wrong == 0);
    CHECK(lw_pad_const((LwPad){10, 2}, 1024) == 1024 + 32 + 2);
}

/* lw_sm_programs against programs added one at a time while every
 * resource of the SM still holds them, and against the occupancy the
 * H200's driver reported (cuOccupancyMaxActiveBlocksPerMultiprocessor,
 * session 21) for 256-thread softmax and layernorm entries. */
static void test_sm_programs(void) {
    for (size_t a = 0; a < lw_arch_count(); a++) {
        LwSm sm = lw_arch_sm(lw_arch_name(a));
        CHECK(sm.registers == 65536 && sm.warps >= 48 && sm.programs >= 16);
        CHECK(sm.shared == lw_arch_max_shared(lw_arch_name(a)) + 1024);
        const int64_t shareds[] = {0, 32, 4096, 16932, 50000, 100 * 1024};
        for (int t = 32; t <= 1024; t += 32)
            for (int r = 1; r <= 255; r++)
                for (size_t s = 0; s < sizeof shareds / sizeof shareds[0]; s++) {
                    int64_t w = t / 32, regs = 256 * w * ((r + 7) / 8), sh = shareds[s] + 1024;
                    int n = 0;
                    while (n + 1 <= sm.programs && (n + 1) * w <= sm.warps &&
                           (n + 1) * regs <= sm.registers && (n + 1) * sh <= sm.shared)
                        n++;
                    CHECK(lw_sm_programs(sm, r, t, shareds[s]) == n);
                }
    }
    LwSm h = lw_arch_sm("sm_90a");
    CHECK(lw_sm_programs(h, 79, 256, 32) == 3);
    CHECK(lw_sm_programs(h, 80, 256, 32) == 3);
    CHECK(lw_sm_programs(h, 64, 256, 32) == 4);
    CHECK(lw_sm_programs(h, 56, 256, 32) == 4);
    CHECK(lw_sm_programs(h, 62, 256, 32) == 4);
    CHECK(lw_sm_programs(h, 48, 256, 32) == 5);
    CHECK(lw_sm_programs(lw_arch_sm(NULL), 48, 256, 32) == 5);   /* sm_90 */
}

/* lw_register_cap is the most registers at which as many programs fit:
 * none above it does. */
static void test_register_cap(void) {
    const char *archs[] = {"sm_80", "sm_86", "sm_89", "sm_90a"};
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        LwSm sm = lw_arch_sm(archs[a]);
        for (int t = 32; t <= 1024; t += 32)
            for (int64_t sh = 0; sh <= 40000; sh += 10000)
                for (int want = 1; want <= 33; want++) {
                    int cap = lw_register_cap(sm, t, sh, want);
                    CHECK(cap == 0 || cap == 255 || cap % 8 == 0);
                    if (cap) CHECK(lw_sm_programs(sm, cap, t, sh) >= want);
                    for (int r = cap + 1; r <= 255; r++)
                        if (lw_sm_programs(sm, r, t, sh) >= want) {
                            CHECK(!"a larger cap fits as many");
                            break;
                        }
                }
    }
    LwSm h = lw_arch_sm("sm_90a");
    CHECK(lw_register_cap(h, 256, 32, 5) == 48);
    CHECK(lw_register_cap(h, 256, 32, 4) == 64);
    CHECK(lw_register_cap(h, 32, 0, 1) == 255);
    CHECK(lw_register_cap(h, 1024, 0, 2) == 32);
    CHECK(lw_register_cap(h, 1024, 0, 3) == 0);   /* 96 warps never fit */
}

/* .maxnreg in an entry's directives: put after .reqntid, replaced, taken
 * out; the other entry (whose name extends this one's) untouched. */
static void test_ptx_maxnreg(void) {
    Arena *ar = ar_new();
    const char *ptx = ".visible .entry k__c0__g(\n\t.param .u32 k__c0__g_param_0\n)\n"
                      ".reqntid 256\n{\n\tret;\n}\n"
                      ".visible .entry k__c0__g2(\n)\n.reqntid 128\n{\n\tret;\n}\n";
    const char *one = ".visible .entry k__c0__g(\n\t.param .u32 k__c0__g_param_0\n)\n"
                      ".reqntid 256\n.maxnreg 48\n{\n\tret;\n}\n"
                      ".visible .entry k__c0__g2(\n)\n.reqntid 128\n{\n\tret;\n}\n";
    char *a = lw_ptx_set_maxnreg(ar, ptx, "k__c0__g", 48);
    CHECK_STR(a, one);
    char *b = lw_ptx_set_maxnreg(ar, a, "k__c0__g", 64);
    CHECK(b && strstr(b, ".maxnreg 64\n{") && !strstr(b, ".maxnreg 48"));
    CHECK_STR(lw_ptx_set_maxnreg(ar, b, "k__c0__g", 0), ptx);
    char *c = lw_ptx_set_maxnreg(ar, ptx, "k__c0__g2", 40);
    CHECK(c && strstr(c, ".reqntid 128\n.maxnreg 40\n{") && !strstr(c, "256\n.maxnreg"));
    CHECK(lw_ptx_set_maxnreg(ar, ptx, "k__c0", 40) == NULL);
    CHECK(lw_ptx_set_maxnreg(ar, ptx, "nope", 40) == NULL);
    const char *bare = ".visible .entry q(\n)\n{\n}\n";
    CHECK_STR(lw_ptx_set_maxnreg(ar, bare, "q", 32), ".visible .entry q(\n)\n.maxnreg 32\n{\n}\n");
    ar_free(ar);
}

/* lw_ptx_only_entries: the named entries stay, whole (an inline asm
 * block's braces inside a body, a name that extends another's, a .weak
 * entry); the rest goes; what lies outside entries is kept. */
static void test_ptx_only_entries(void) {
    Arena *ar = ar_new();
    const char *head = ".version 8.0\n.target sm_90a\n.global .align 4 .b8 tab[4];\n"
                       ".func (.reg .b32 r) f()\n{\n\tret;\n}\n";
    const char *a = "\t// .globl\tk\n.visible .entry k(\n)\n.reqntid 32\n{\n"
                    "\t// begin inline asm\n{\n.reg .pred p;\n}\n\t// end inline asm\n\tret;\n}\n";
    const char *b = ".extern .shared .align 16 .b8 k2_smem[];\n"
                    "\t// .globl\tk2\n.visible .entry k2(\n)\n{\n\tret;\n}\n";
    const char *c = ".weak .entry w(\n)\n{\n{\n}\n}\n";
    char *ptx = ar_printf(ar, "%s%s%s%s", head, a, b, c);
    const char *only_k[] = {"k"}, *k2_w[] = {"k2", "w"}, *all[] = {"w", "k", "k2"};
    /* b's declaration and comment lie outside entries: kept */
    CHECK_STR(lw_ptx_only_entries(ar, ptx, only_k, 1),
              ar_printf(ar, "%s%s%s", head, a,
                        ".extern .shared .align 16 .b8 k2_smem[];\n\t// .globl\tk2\n"));
    CHECK_STR(lw_ptx_only_entries(ar, ptx, k2_w, 2),
              ar_printf(ar, "%s\t// .globl\tk\n%s%s", head, b, c));
    CHECK_STR(lw_ptx_only_entries(ar, ptx, all, 3), ptx);
    CHECK_STR(lw_ptx_only_entries(ar, ptx, NULL, 0),
              ar_printf(ar, "%s\t// .globl\tk\n.extern .shared .align 16 .b8 k2_smem[];\n"
                            "\t// .globl\tk2\n", head));
    ar_free(ar);
}

int main(void) {
    test_sm_programs();
    test_register_cap();
    test_ptx_maxnreg();
    test_ptx_only_entries();
    test_scratch_slot();
    test_units();
    test_budget();
    test_ptx_versions();
    test_compile();
    test_version();
    test_archs();
    test_arch_list();
    return check_done("test_lower");
}
