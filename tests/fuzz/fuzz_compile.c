/*
 * fuzz_compile.c — libFuzzer target over the whole frontend: parsing and
 * semantic analysis, through the public API (tile_compile_source).
 *
 * Inputs that parse reach sema: name resolution, imports (the tree's
 * stdlib, so `import "std/math"` works), configurations, types and shapes,
 * static_range unrolling and fn inlining up to their budgets (seeds
 * budget_*.tile hit them), constant folding and its overflow checks.
 * Whatever the bytes, compilation must end in a program or in diagnostics,
 * never in a crash, a hang, a leak or a sanitizer report. A program that
 * compiles is only freed: running kernels on fuzzed sizes is not the point.
 * Run it with `FUZZ_TARGET=fuzz_compile tests/fuzz/run.sh SECONDS`;
 * `make check` replays the corpus through it (tests/fuzz/replay_compile).
 */
#include <stdint.h>
#include <stdlib.h>

#include "interp/tile_interp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    TileCompileOptions opt = {0};
    opt.stdlib_dir = TILE_SRCDIR "/stdlib";
    char *messages = NULL;
    TileProgram *prog = tile_compile_source("fuzz.tile", (const char *)data,
                                            size, &opt, &messages);
    tile_program_free(prog);
    free(messages);
    return 0;
}
