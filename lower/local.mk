# lower: the code generator (LLVM C API, NVPTX). liblower.la carries the
# LLVM libraries chosen by configure (shared libLLVM-22, or the static
# components with --enable-static-llvm), so whatever links it gets them.
# It uses the layout pass (plan/layout.h): link sema/libsema.la after it.
noinst_LTLIBRARIES += lower/liblower.la
lower_liblower_la_SOURCES = lower/lower.h lower/lw.h lower/lw_target.h \
	lower/target.c lower/base.c lower/lower.c lower/kernel.c lower/layout.c \
	lower/elementwise.c lower/memory.c lower/reduce.c lower/gather.c lower/sort.c lower/debug.c \
	lower/ptxas.c lower/dot.c lower/smem.c lower/scratch.c lower/pipeline.c lower/tma.c lower/pingpong.c \
	lower/narrow.c lower/regcap.c lower/divide.c lower/split.c lower/warpspec.c
lower_liblower_la_CPPFLAGS = $(AM_CPPFLAGS) $(LLVM_CPPFLAGS)
lower_liblower_la_LIBADD = $(LLVM_LDFLAGS) $(LLVM_LIBS)

check_PROGRAMS += tests/unit/test_lower
TESTS += tests/unit/test_lower
tests_unit_test_lower_SOURCES = tests/unit/test_lower.c tests/unit/check.h
tests_unit_test_lower_CPPFLAGS = $(AM_CPPFLAGS) $(TILE_TEST_CPPFLAGS) $(LLVM_CPPFLAGS)
tests_unit_test_lower_LDADD = driver/libcompile.la lower/liblower.la bundle/libtlbir.la \
	bundle/libtlb.la sema/libsema.la parser/libparser.la base/libbase.la -lm

check_PROGRAMS += tests/unit/test_divide
TESTS += tests/unit/test_divide
tests_unit_test_divide_SOURCES = tests/unit/test_divide.c tests/unit/check.h
tests_unit_test_divide_CPPFLAGS = $(AM_CPPFLAGS) $(LLVM_CPPFLAGS)
tests_unit_test_divide_LDADD = lower/liblower.la sema/libsema.la base/libbase.la -lm
