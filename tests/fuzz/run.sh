#!/bin/sh
# tests/fuzz/run.sh [SECONDS] — fuzz the frontend for SECONDS (default 60).
# FUZZ_TARGET picks the target: fuzz_parse (the parser, the default) or
# fuzz_compile (parser and semantic analysis).
#
# Copies the source tree (tracked and untracked-but-not-ignored files, with
# their times, so rebuilds are incremental) to build-fuzz/src (or
# $FUZZ_BUILDDIR/src): a tree configured in place cannot also serve a VPATH
# build. Configures that copy with clang-14 and
# -fsanitize=fuzzer-no-link,address,undefined, builds the target linked
# with -fsanitize=fuzzer, and runs it from the seed corpus. New inputs go
# to build-fuzz/corpus-TARGET (never into the source tree); a crash leaves its input in build-fuzz/artifacts/ and makes
# this script fail. Memory is limited (-rss_limit_mb, and -malloc_limit_mb
# for one allocation): the compiler's budgets keep any input well under
# them, so passing them is a bug. An input at a budget's edge takes about a
# second natively, ten times that in this instrumented build: hence the
# 30 s timeout. Needs clang-14 and libclang-rt-14-dev.
set -eu
seconds=${1:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILDDIR:-$src/build-fuzz}
cc=${FUZZ_CC:-clang-14}
target=${FUZZ_TARGET:-fuzz_parse}
case $target in
  fuzz_parse|fuzz_compile) ;;
  *) echo "run.sh: unknown FUZZ_TARGET '$target' (fuzz_parse or fuzz_compile)" >&2; exit 2 ;;
esac
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"

command -v "$cc" >/dev/null || { echo "run.sh: $cc not found (Debian package: clang-14)" >&2; exit 2; }
command -v git >/dev/null && git -C "$src" rev-parse --git-dir >/dev/null 2>&1 ||
  { echo "run.sh: needs a git checkout of Tile" >&2; exit 2; }
mkdir -p "$build/src"
(cd "$src" && git ls-files -co --exclude-standard -z | tar -cf - --null -T -) |
  tar -xf - -C "$build/src"
if [ ! -f "$build/src/Makefile" ]; then
  (cd "$build/src" && autoreconf -fi >/dev/null 2>&1 &&
   ./configure -q --without-cuda CC="$cc" \
      CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $san")
fi
make -C "$build/src" -s -j"$(nproc)" "tests/fuzz/$target" FUZZ_LDFLAGS="-fsanitize=fuzzer"

mkdir -p "$build/corpus-$target" "$build/artifacts"
echo "run.sh: $target for $seconds s"
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
"$build/src/tests/fuzz/$target" -max_total_time="$seconds" -timeout=30 \
    -max_len=4096 -rss_limit_mb=2048 -malloc_limit_mb=256 -print_final_stats=1 \
    -dict="$src/tests/fuzz/tile.dict" -artifact_prefix="$build/artifacts/" \
    "$build/corpus-$target" "$src/tests/fuzz/corpus"
