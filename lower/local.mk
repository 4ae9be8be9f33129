# lower: the code generator (LLVM C API, NVPTX). liblower.la carries the
# LLVM libraries chosen by configure (shared libLLVM-22, or the static
# components with --enable-static-llvm), so whatever links it gets them.
noinst_LTLIBRARIES += lower/liblower.la
lower_liblower_la_SOURCES = lower/lower.h lower/target.c
lower_liblower_la_CPPFLAGS = $(AM_CPPFLAGS) $(LLVM_CPPFLAGS)
lower_liblower_la_LIBADD = $(LLVM_LDFLAGS) $(LLVM_LIBS)

check_PROGRAMS += tests/unit/test_lower
TESTS += tests/unit/test_lower
tests_unit_test_lower_SOURCES = tests/unit/test_lower.c tests/unit/check.h
tests_unit_test_lower_LDADD = lower/liblower.la
