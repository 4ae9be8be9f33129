# sema: semantic analysis (AST -> typed tile IR) and the IR itself.
# libsema holds both; libir holds only the IR (types, builder, printer,
# grid expressions) for code that consumes IR without compiling source.
noinst_LTLIBRARIES += sema/libir.la sema/libsema.la
sema_libir_la_SOURCES = sema/ir.h sema/ir.c sema/ir_clone.c $(sema_layout_sources)
sema_libsema_la_SOURCES = sema/ir.h sema/ir.c sema/ir_clone.c $(sema_layout_sources) \
	sema/sema.h sema/sm.h \
	sema/sema.c sema/scope.c sema/config.c sema/grid.c sema/types.c \
	sema/expr.c sema/builtins.c sema/stmt.c sema/budget.c sema/stdlib_dir.c

check_PROGRAMS += tests/unit/test_sema
TESTS += tests/unit/test_sema
tests_unit_test_sema_SOURCES = tests/unit/test_sema.c tests/unit/check.h
tests_unit_test_sema_LDADD = sema/libsema.la parser/libparser.la base/libbase.la -lm

# Layouts (linear maps over F2), axis info and layout assignment: part of
# both libraries, since the IR printer prints layouts.
sema_layout_sources = sema/layout.h sema/linear.c sema/axis.c sema/layout_assign.c \
	sema/mma.c sema/pipeline.c

check_PROGRAMS += tests/unit/test_layout
TESTS += tests/unit/test_layout
tests_unit_test_layout_SOURCES = tests/unit/test_layout.c tests/unit/check.h
tests_unit_test_layout_LDADD = sema/libir.la base/libbase.la -lm

check_PROGRAMS += tests/unit/test_layout_assign
TESTS += tests/unit/test_layout_assign
tests_unit_test_layout_assign_SOURCES = tests/unit/test_layout_assign.c tests/unit/check.h
tests_unit_test_layout_assign_LDADD = sema/libsema.la parser/libparser.la base/libbase.la -lm

check_PROGRAMS += tests/unit/test_mma
TESTS += tests/unit/test_mma
tests_unit_test_mma_SOURCES = tests/unit/test_mma.c tests/unit/check.h
tests_unit_test_mma_LDADD = sema/libir.la base/libbase.la -lm
