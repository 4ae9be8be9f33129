# tests/fuzz: the frontend under libFuzzer (run.sh builds fuzz_parse with
# clang and -fsanitize=fuzzer,address,undefined in a build tree of its own)
# and, in every build, `replay`, which runs the same target over the seed
# corpus as an ordinary test. Both need the parser: they are built once
# parser/libparser.la exists (configure's TILE_HAVE_PARSER).
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/replay-corpus.sh tests/fuzz/tile.dict \
	$(patsubst $(abs_top_srcdir)/%,%,$(wildcard $(abs_top_srcdir)/tests/fuzz/corpus/*))
if TILE_HAVE_PARSER
TILE_FUZZ_LIBS = parser/libparser.la base/libbase.la

# Linked with $(FUZZ_LDFLAGS) (-fsanitize=fuzzer) by run.sh only.
EXTRA_PROGRAMS += tests/fuzz/fuzz_parse
tests_fuzz_fuzz_parse_SOURCES = tests/fuzz/fuzz_parse.c
tests_fuzz_fuzz_parse_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_parse_LDADD = $(TILE_FUZZ_LIBS)
CLEANFILES += tests/fuzz/fuzz_parse$(EXEEXT)

check_PROGRAMS += tests/fuzz/replay
tests_fuzz_replay_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_parse.c
tests_fuzz_replay_LDADD = $(TILE_FUZZ_LIBS)
TESTS += tests/fuzz/replay-corpus.sh
endif
