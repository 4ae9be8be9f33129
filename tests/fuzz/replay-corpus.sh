#!/bin/sh
# make check: both fuzz targets over every seed of tests/fuzz/corpus (run
# from the top build directory; TILE_SRCDIR comes from the test
# environment).
corpus=${TILE_SRCDIR:-.}/tests/fuzz/corpus
./tests/fuzz/replay "$corpus" && ./tests/fuzz/replay_compile "$corpus"
