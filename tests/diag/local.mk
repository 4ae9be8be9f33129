# One test per diagnostic: every tests/diag/*.tile is a lit test whose CHECK
# lines hold the exact expected text (FileCheck --match-full-lines). The
# list is a make-time wildcard (TILE_DIAG_TESTS, from configure.ac).
TESTS += $(TILE_DIAG_TESTS)
EXTRA_DIST += $(patsubst $(abs_top_srcdir)/%,%,$(wildcard $(abs_top_srcdir)/tests/diag/*.tile $(abs_top_srcdir)/tests/diag/Inputs/*))
