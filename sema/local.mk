# sema: semantic analysis (AST -> typed tile IR) and the IR itself.
# libsema holds both; libir holds only the IR (types, builder, printer,
# grid expressions) for code that consumes IR without compiling source.
# Both carry the middle end's analyses (plan/local.mk: plan_sources).
noinst_LTLIBRARIES += sema/libir.la sema/libsema.la
sema_libir_la_SOURCES = sema/ir.h sema/ir.c sema/ir_clone.c sema/libdevice.h sema/libdevice.c $(plan_sources)
sema_libsema_la_SOURCES = sema/ir.h sema/ir.c sema/ir_clone.c sema/libdevice.h sema/libdevice.c $(plan_sources) \
	sema/sema.h sema/sm.h \
	sema/sema.c sema/scope.c sema/config.c sema/grid.c sema/types.c \
	sema/expr.c sema/builtins.c sema/stmt.c sema/budget.c sema/stdlib_dir.c

check_PROGRAMS += tests/unit/test_sema
TESTS += tests/unit/test_sema
tests_unit_test_sema_SOURCES = tests/unit/test_sema.c tests/unit/check.h
tests_unit_test_sema_LDADD = sema/libsema.la parser/libparser.la base/libbase.la -lm
