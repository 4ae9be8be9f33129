# Golden tests of tilec's printed stages (--emit=tokens|ast|ir), one
# directory per stage: tests/lit/STAGE/*.tile.
TESTS += $(wildcard $(srcdir)/tests/lit/*/*.tile)
EXTRA_DIST += $(wildcard $(srcdir)/tests/lit/*/*.tile $(srcdir)/tests/lit/*/Inputs/*)
