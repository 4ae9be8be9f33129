#!/bin/sh
# tests/fuzz/run.sh [SECONDS] — fuzz the frontend for SECONDS (default 60).
#
# Configures a build tree of its own (build-fuzz/, or $FUZZ_BUILDDIR) with
# clang-14 and -fsanitize=fuzzer-no-link,address,undefined, builds
# tests/fuzz/fuzz_parse there linked with -fsanitize=fuzzer, and runs it
# from the seed corpus. New inputs go to build-fuzz/corpus (never into the
# source tree); a crash leaves its input in build-fuzz/artifacts/ and makes
# this script fail. Needs clang-14 and libclang-rt-14-dev.
set -eu
seconds=${1:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILDDIR:-$src/build-fuzz}
cc=${FUZZ_CC:-clang-14}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"

command -v "$cc" >/dev/null || { echo "run.sh: $cc not found (Debian package: clang-14)" >&2; exit 2; }
[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi)
mkdir -p "$build"
if [ ! -f "$build/Makefile" ]; then
  (cd "$build" && "$src/configure" -q --without-cuda CC="$cc" \
      CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $san")
fi
make -C "$build" -s -j"$(nproc)" tests/fuzz/fuzz_parse FUZZ_LDFLAGS="-fsanitize=fuzzer"

mkdir -p "$build/corpus" "$build/artifacts"
echo "fuzzing the parser for $seconds s"
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
"$build/tests/fuzz/fuzz_parse" -max_total_time="$seconds" -timeout=10 \
    -max_len=4096 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="$src/tests/fuzz/tile.dict" -artifact_prefix="$build/artifacts/" \
    "$build/corpus" "$src/tests/fuzz/corpus"
