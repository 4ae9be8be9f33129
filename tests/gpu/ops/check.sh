#!/bin/sh
# make check's run of the differential GPU test: bundles of every
# tests/gpu/ops/*.tile into tests/gpu/ops/bundles/ (build tree) with the
# tree's tilec, then difftest: 0 pass, 1 fail, 77 (skip) without a GPU once
# every case has run on the interpreter.
set -eu
src=${TILE_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
out=tests/gpu/ops/bundles
mkdir -p "$out"
for f in "$src"/tests/gpu/ops/*.tile; do
    b=$(basename "$f" .tile)
    "${TILEC:-./tilec}" --arch=sm_90 -o "$out/$b.tlb" "$f"
done
exec ./tests/gpu/ops/difftest "$out" "$src"/tests/gpu/ops/*.tile
