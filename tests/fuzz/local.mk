# tests/fuzz: the frontend under libFuzzer. Two targets:
#   fuzz_parse    ps_parse and the AST/token printers (parser only);
#   fuzz_compile  tile_compile_source: parsing and semantic analysis.
# run.sh builds one with clang and -fsanitize=fuzzer,address,undefined in a
# build tree of its own (linking it with $(FUZZ_LDFLAGS)); every build runs
# both over the seed corpus as ordinary tests (replay, replay_compile).
# They need the parser: built once parser/libparser.la exists (configure's
# TILE_HAVE_PARSER).
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/replay-corpus.sh tests/fuzz/tile.dict \
	$(patsubst $(abs_top_srcdir)/%,%,$(wildcard $(abs_top_srcdir)/tests/fuzz/corpus/*))
if TILE_HAVE_PARSER
TILE_FUZZ_PARSE_LIBS = parser/libparser.la base/libbase.la
TILE_FUZZ_COMPILE_LIBS = interp/libinterp.la sema/libsema.la \
	parser/libparser.la base/libbase.la -lm
TILE_FUZZ_COMPILE_CPPFLAGS = $(AM_CPPFLAGS) $(TILE_TEST_CPPFLAGS)

EXTRA_PROGRAMS += tests/fuzz/fuzz_parse tests/fuzz/fuzz_compile
tests_fuzz_fuzz_parse_SOURCES = tests/fuzz/fuzz_parse.c
tests_fuzz_fuzz_parse_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_parse_LDADD = $(TILE_FUZZ_PARSE_LIBS)
tests_fuzz_fuzz_compile_SOURCES = tests/fuzz/fuzz_compile.c
tests_fuzz_fuzz_compile_CPPFLAGS = $(TILE_FUZZ_COMPILE_CPPFLAGS)
tests_fuzz_fuzz_compile_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_compile_LDADD = $(TILE_FUZZ_COMPILE_LIBS)
CLEANFILES += tests/fuzz/fuzz_parse$(EXEEXT) tests/fuzz/fuzz_compile$(EXEEXT)

check_PROGRAMS += tests/fuzz/replay tests/fuzz/replay_compile
tests_fuzz_replay_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_parse.c
tests_fuzz_replay_LDADD = $(TILE_FUZZ_PARSE_LIBS)
tests_fuzz_replay_compile_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_compile.c
tests_fuzz_replay_compile_CPPFLAGS = $(TILE_FUZZ_COMPILE_CPPFLAGS)
tests_fuzz_replay_compile_LDADD = $(TILE_FUZZ_COMPILE_LIBS)
TESTS += tests/fuzz/replay-corpus.sh
endif
