# One test per diagnostic: every tests/diag/*.tile is a lit test whose CHECK
# lines hold the exact expected text (FileCheck --match-full-lines).
TESTS += $(wildcard $(srcdir)/tests/diag/*.tile)
EXTRA_DIST += $(wildcard $(srcdir)/tests/diag/*.tile $(srcdir)/tests/diag/Inputs/*)
