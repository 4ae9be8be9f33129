# bundle: the .tlb format (docs/bundle.md). libtlb is the reader and the
# writer over the format's own in-memory types, and the configuration
# chooser over them (choose.h); it depends on nothing else (libtile links
# it alone). libtlbir turns sema's IrModule plus the code generator's
# output into a bundle, for tilec, and into the code-less descriptor the
# interpreter chooses configurations on (libtilec links both).
noinst_LTLIBRARIES += bundle/libtlb.la bundle/libtlbir.la
bundle_libtlb_la_SOURCES = bundle/bundle.h bundle/format.c bundle/read.c \
	bundle/write.c bundle/choose.h bundle/choose.c bundle/text.h \
	bundle/expr_text.c
bundle_libtlbir_la_SOURCES = bundle/from_ir.h bundle/from_ir.c

check_PROGRAMS += tests/unit/test_bundle
TESTS += tests/unit/test_bundle
tests_unit_test_bundle_SOURCES = tests/unit/test_bundle.c tests/unit/check.h
tests_unit_test_bundle_CPPFLAGS = $(AM_CPPFLAGS) $(TILE_TEST_CPPFLAGS)
tests_unit_test_bundle_LDADD = bundle/libtlbir.la bundle/libtlb.la \
	sema/libsema.la parser/libparser.la base/libbase.la -lm
EXTRA_DIST += tests/unit/Inputs/bundle-kernels.tile

# The configuration chooser (choose.c) on a descriptor written by hand.
check_PROGRAMS += tests/unit/test_choose
TESTS += tests/unit/test_choose
tests_unit_test_choose_SOURCES = tests/unit/test_choose.c tests/unit/check.h
tests_unit_test_choose_LDADD = bundle/libtlb.la
