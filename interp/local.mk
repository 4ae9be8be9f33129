# interp: fragment of the top-level Makefile.am
# The reference interpreter of the tile IR (ip_*). interp/api.c (the public
# API of tile_interp.h) needs the parser and sema, so it joins the library
# once they are merged.
EXTRA_DIST += interp/api.c interp/tile_interp.h
noinst_LTLIBRARIES += interp/libinterp.la
interp_libinterp_la_SOURCES = interp/interp.h interp/fp.c interp/memory.c \
	interp/elementwise.c interp/tileops.c interp/run.c

check_PROGRAMS += tests/unit/test_interp
TESTS += tests/unit/test_interp
tests_unit_test_interp_SOURCES = tests/unit/test_interp.c tests/unit/check.h
tests_unit_test_interp_LDADD = interp/libinterp.la sema/libir.la base/libbase.la -lm
