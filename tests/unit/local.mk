# Unit tests: one program per stage, each exits non-zero on a failed check.
check_PROGRAMS += tests/unit/test_base tests/unit/test_ir
TESTS += tests/unit/test_base tests/unit/test_ir
tests_unit_test_base_SOURCES = tests/unit/test_base.c tests/unit/check.h
tests_unit_test_base_LDADD = base/libbase.la
tests_unit_test_ir_SOURCES = tests/unit/test_ir.c tests/unit/check.h
tests_unit_test_ir_LDADD = sema/libsema.la base/libbase.la -lm
