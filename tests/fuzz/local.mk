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
TILE_FUZZ_COMPILE_LIBS = interp/libinterp.la bundle/libtlbir.la bundle/libtlb.la \
	sema/libsema.la parser/libparser.la base/libbase.la -lm
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

# The kernel generator (tilegen.py) and differential testing of what it
# generates: gen-check.sh runs a fixed seed range and the reduced
# reproducers of regress/ on simulated warps through gen-run.sh (77
# without llc, a C compiler or python3); npcheck.sh runs the interpreter
# against the numpy model (npsem.py) on generated element-wise and
# reduction programs (77 without numpy). docs/testing.md, "Generated
# kernels".
TESTS += tests/fuzz/gen-check.sh tests/fuzz/npcheck.sh
EXTRA_DIST += tests/fuzz/tilegen.py tests/fuzz/npsem.py tests/fuzz/npcheck.py \
	tests/fuzz/gen-run.sh tests/fuzz/gen-check.sh tests/fuzz/npcheck.sh \
	tests/fuzz/reduce.py tests/gpu/ops/sim/build.sh scripts/gpu-fuzz.sh \
	$(patsubst $(abs_top_srcdir)/%,%,$(wildcard $(abs_top_srcdir)/tests/fuzz/regress/*.tile))
clean-local: clean-fuzz-gen
clean-fuzz-gen:
	rm -rf tests/fuzz/gen-check tests/fuzz/gen-check-wg tests/fuzz/gen-check-row tests/fuzz/npcheck
.PHONY: clean-fuzz-gen
