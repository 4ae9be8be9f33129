# Golden tests of tilec's printed stages (--emit=tokens|ast|ir), one
# directory per stage: tests/lit/STAGE/*.tile. The list is a make-time
# wildcard (TILE_LIT_TESTS, from configure.ac).
TESTS += $(TILE_LIT_TESTS)
EXTRA_DIST += $(patsubst $(abs_top_srcdir)/%,%,$(wildcard $(abs_top_srcdir)/tests/lit/*/*.tile $(abs_top_srcdir)/tests/lit/*/Inputs/*))
