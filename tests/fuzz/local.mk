# tests/fuzz: fragment of the top-level Makefile.am
