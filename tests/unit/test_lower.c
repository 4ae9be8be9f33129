/* test_lower.c — the code generator's view of LLVM: the version linked in
 * and which GPU architectures it accepts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "parser/parser.h"
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

/* Two configurations, two variants: four entries, named and sized. */
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
    uint32_t file = dg_add_file(dg, "s.tile", src, sizeof src - 1);
    AstFile *ast = ps_parse(ar, dg, file, src, sizeof src - 1);
    SmOptions so = {0};
    IrModule *mods[LW_NVARIANTS] = {sm_compile(ar, dg, ast, &so),
                                    sm_compile(ar, dg, ast, &so)};
    CHECK(mods[0] && mods[1]);
    LwOptions opt = {.arch = "sm_80", .opt_level = 3};
    LwOutput out;
    CHECK(lw_compile(ar, dg, mods, &opt, &out) == 0);
    CHECK(out.nentries == 4);
    CHECK_STR(out.entries[0].name, "s__c0__g");
    CHECK_STR(out.entries[3].name, "s__c1__a16");
    CHECK(out.entries[0].warps == 4 && out.entries[2].warps == 8);
    CHECK(out.entries[1].variant == LW_ALIGNED16);
    /* the sum over 4 warps needs one partial per warp in shared memory */
    CHECK(out.entries[0].shared_bytes >= 16);
    CHECK(strstr(out.ptx, ".target sm_80") != NULL);
    CHECK(strstr(out.ptx, ".entry s__c1__a16(") != NULL);
    CHECK(strstr(out.ptx, ".reqntid 256") != NULL);
    CHECK(out.llvm == NULL);
    CHECK(dg_errors(dg) == 0);
    dg_free(dg);
    ar_free(ar);
}

int main(void) {
    test_ptx_versions();
    test_compile();
    test_version();
    test_archs();
    test_arch_list();
    return check_done("test_lower");
}
