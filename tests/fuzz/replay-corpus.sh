#!/bin/sh
# make check: the fuzz target over every seed of tests/fuzz/corpus (run from
# the top build directory; TILE_SRCDIR comes from the test environment).
exec ./tests/fuzz/replay "${TILE_SRCDIR:-.}/tests/fuzz/corpus"
