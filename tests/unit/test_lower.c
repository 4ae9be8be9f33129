/* test_lower.c — the code generator's view of LLVM: the version linked in
 * and which GPU architectures it accepts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
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

int main(void) {
    test_version();
    test_archs();
    test_arch_list();
    return check_done("test_lower");
}
