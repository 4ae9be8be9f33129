# Unit tests: one program per stage, each exits non-zero on a failed check.
check_PROGRAMS += tests/unit/test_base tests/unit/test_ir tests/unit/test_axis_rules tests/unit/test_fp8
TESTS += tests/unit/test_base tests/unit/test_ir tests/unit/test_axis_rules tests/unit/test_fp8
tests_unit_test_base_SOURCES = tests/unit/test_base.c tests/unit/check.h
tests_unit_test_base_LDADD = base/libbase.la
tests_unit_test_ir_SOURCES = tests/unit/test_ir.c tests/unit/check.h
tests_unit_test_ir_LDADD = sema/libsema.la base/libbase.la -lm
tests_unit_test_fp8_SOURCES = tests/unit/test_fp8.c tests/unit/check.h
tests_unit_test_fp8_LDADD = sema/libir.la base/libbase.la -lm
tests_unit_test_axis_rules_SOURCES = tests/unit/test_axis_rules.c tests/unit/check.h
tests_unit_test_axis_rules_LDADD = sema/libsema.la bundle/libtlb.la base/libbase.la -lm
