# interp: fragment of the top-level Makefile.am
# The reference interpreter of the tile IR (ip_*) and the public API of
# tile_interp.h (interp/api.c, which drives the parser and sema).
noinst_LTLIBRARIES += interp/libinterp.la
interp_libinterp_la_SOURCES = interp/interp.h interp/tile_interp.h \
	interp/fp.c interp/memory.c interp/elementwise.c interp/tileops.c \
	interp/run.c interp/api.c

# test_interp runs IR built by hand (it needs only the IR library);
# test_tile_api compiles the language brief's examples from source.
check_PROGRAMS += tests/unit/test_interp tests/unit/test_tile_api
TESTS += tests/unit/test_interp tests/unit/test_tile_api
tests_unit_test_interp_SOURCES = tests/unit/test_interp.c tests/unit/check.h
tests_unit_test_interp_LDADD = interp/libinterp.la bundle/libtlbir.la \
	bundle/libtlb.la sema/libir.la base/libbase.la -lm
tests_unit_test_tile_api_SOURCES = tests/unit/test_tile_api.c tests/unit/check.h
tests_unit_test_tile_api_LDADD = interp/libinterp.la bundle/libtlbir.la \
	bundle/libtlb.la sema/libsema.la parser/libparser.la base/libbase.la -lm

# test_interp_limits: memory of unrolled kernels, out of memory, the step
# limit and the cancel flag.
check_PROGRAMS += tests/unit/test_interp_limits
TESTS += tests/unit/test_interp_limits
tests_unit_test_interp_limits_SOURCES = tests/unit/test_interp_limits.c \
	tests/unit/check.h
tests_unit_test_interp_limits_LDADD = interp/libinterp.la bundle/libtlbir.la \
	bundle/libtlb.la sema/libsema.la parser/libparser.la base/libbase.la -lm -lpthread

# test_tile_ops: issue 17's tile operations from source (scans, combiners,
# slicing, joins, gather, sort) against values worked out in C.
check_PROGRAMS += tests/unit/test_tile_ops
TESTS += tests/unit/test_tile_ops
tests_unit_test_tile_ops_SOURCES = tests/unit/test_tile_ops.c tests/unit/check.h
tests_unit_test_tile_ops_LDADD = interp/libinterp.la bundle/libtlbir.la \
	bundle/libtlb.la sema/libsema.la parser/libparser.la base/libbase.la -lm
