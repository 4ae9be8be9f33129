# plan: the middle end, the per-variant analyses between sema and lower:
# layouts (linear maps over F2), axis info, layout assignment (after
# carried reductions are moved out of loops), the MMA choice and
# software pipelining. Compiled into sema's two libraries
# (sema/local.mk), since the IR printer prints layouts.
plan_sources = plan/layout.h plan/linear.c plan/axis.c plan/layout_assign.c \
	plan/induction.c plan/hoist.c plan/cse.c plan/carry_reduce.c plan/fold_trans.c plan/swap_dot.c plan/widen_f8.c plan/realign.c plan/mma.c plan/pipeline.c plan/tma.c plan/lowering.c plan/divisor.c plan/guard.c plan/persist.c plan/memorder.c

check_PROGRAMS += tests/unit/test_layout
TESTS += tests/unit/test_layout
tests_unit_test_layout_SOURCES = tests/unit/test_layout.c tests/unit/check.h
tests_unit_test_layout_LDADD = sema/libir.la base/libbase.la -lm

check_PROGRAMS += tests/unit/test_layout_assign
TESTS += tests/unit/test_layout_assign
tests_unit_test_layout_assign_SOURCES = tests/unit/test_layout_assign.c tests/unit/check.h
tests_unit_test_layout_assign_LDADD = sema/libsema.la parser/libparser.la base/libbase.la -lm

# test_memorder: plan/memorder.c's claims that leave a barrier out,
# against footprints enumerated by brute force.
check_PROGRAMS += tests/unit/test_memorder
TESTS += tests/unit/test_memorder
tests_unit_test_memorder_SOURCES = tests/unit/test_memorder.c tests/unit/check.h
tests_unit_test_memorder_LDADD = sema/libsema.la parser/libparser.la base/libbase.la -lm

# test_persist: plan/persist.c's rewrite against the kernels as written,
# on the interpreter, over shapes and numbers of programs.
check_PROGRAMS += tests/unit/test_persist
TESTS += tests/unit/test_persist
tests_unit_test_persist_SOURCES = tests/unit/test_persist.c tests/unit/check.h
tests_unit_test_persist_LDADD = interp/libinterp.la bundle/libtlbir.la bundle/libtlb.la \
	sema/libsema.la parser/libparser.la base/libbase.la -lm

check_PROGRAMS += tests/unit/test_mma
TESTS += tests/unit/test_mma
tests_unit_test_mma_SOURCES = tests/unit/test_mma.c tests/unit/check.h
tests_unit_test_mma_LDADD = sema/libir.la base/libbase.la -lm
