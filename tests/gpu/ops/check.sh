#!/bin/sh
# make check's run of the differential GPU test: bundles of every
# tests/gpu/ops/*.tile into tests/gpu/ops/bundles/ (build tree) with the
# tree's tilec, then difftest against the interpreter: 0 pass, 1 fail.
# With a GPU the bundles run there. Without one, the same kernels run on
# simulated warps (tests/gpu/ops/sim: their LLVM IR rebuilt for the host
# with llc, one pthread per GPU thread), built here into
# tests/gpu/ops/bundles/sim/ where LLVM's llc, a C compiler and python3
# are at hand; failing that, every case runs on the interpreter only and
# the test skips (77).
set -eu
src=${TILE_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
out=tests/gpu/ops/bundles
mkdir -p "$out"
for f in "$src"/tests/gpu/ops/*.tile; do
    b=$(basename "$f" .tile)
    "${TILEC:-./tilec}" --arch=sm_90 -o "$out/$b.tlb" "$f"
done
llc=${LLVM_BIN:-/usr/lib/llvm-22/bin}/llc
cc=${CC:-cc}
sim=$out/sim

# The simulation's libraries; any step failing (no X86 target in llc, a C
# compiler without _Float16) leaves the run to the interpreter only.
build_sim() {
    [ -x "$llc" ] && command -v "$cc" >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 ||
        return 1
    mkdir -p "$sim" || return 1
    $cc -std=c11 -O1 -fPIC -ffp-contract=off -c "$src/tests/gpu/ops/sim/warpsim.c" \
        -o "$sim/warpsim.o" || return 1
    for f in "$src"/tests/gpu/ops/*.tile; do
        b=$(basename "$f" .tile)
        "${TILEC:-./tilec}" --emit=llvm -o "$sim/$b.ll" "$f" &&
            python3 "$src/tests/gpu/ops/sim/x86.py" "$sim/$b.ll" "$sim/$b.host.ll" &&
            "$llc" -O0 -relocation-model=pic -filetype=obj "$sim/$b.host.ll" -o "$sim/$b.o" &&
            $cc -shared -o "$sim/$b.so" "$sim/$b.o" "$sim/warpsim.o" -lpthread -lm || return 1
    done
}
build_sim || { echo "check.sh: simulated warps not built; interpreter only"; sim=; }
exec ./tests/gpu/ops/difftest ${sim:+-x "$sim"} "$out" "$src"/tests/gpu/ops/*.tile
