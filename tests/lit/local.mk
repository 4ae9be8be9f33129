# tests/lit: fragment of the top-level Makefile.am
