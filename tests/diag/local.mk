# tests/diag: fragment of the top-level Makefile.am
