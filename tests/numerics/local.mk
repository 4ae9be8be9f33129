# tests/numerics: fragment of the top-level Makefile.am
