#!/bin/bash
# Session 27's device call, prepared (no GPU was lent in session 27): TMA
# copies (tilec --tma) on the H200 — correct first, then timed.
#
# Here, before the call (a built tree, LLVM 22; build-exp/ is carried,
# under 64 MiB):
#   scripts/gpu-bench.sh libtile build-exp/libtile.so
#   ARCH=sm_90a scripts/gpu-ops-check.sh prepare            # build-gpu-ops/ (tma.tile with --tma)
#   make check TESTS=                                         # builds tests/unit/test_gpu_tmap etc.
#   mkdir -p build-exp/tma && for t in "128 256 64 8 3" "128 128 64 8 4"; do set -- $t
#     n=$1x$2x$3-w$4-s$5 D="-DBM=$1 -DBN=$2 -DBK=$3 -Dwarps=$4 -Dstages=$5"
#     TILE_STDLIB=$PWD/stdlib ./tilec --arch=sm_90a $D -o build-exp/tma/mm-$n.tlb examples/matmul.tile
#     TILE_STDLIB=$PWD/stdlib ./tilec --arch=sm_90a $D --tma -o build-exp/tma/mm-tma-$n.tlb examples/matmul.tile
#     TILE_STDLIB=$PWD/stdlib ./tilec --arch=sm_90a $D -o build-exp/tma/pm-$n.tlb bench/results/2026-12-04-h200-session25-matmul_pers.tile
#     TILE_STDLIB=$PWD/stdlib ./tilec --arch=sm_90a $D --tma -o build-exp/tma/pm-tma-$n.tlb bench/results/2026-12-04-h200-session25-matmul_pers.tile
#   done
#   for D in 64 128; do for c in false true; do t=D$D; [ $c = true ] && t=$t-causal
#     A="-DD=$D -DCAUSAL=$c -DBM=128 -DBN=64 -Dwarps=8 -Dstages=2"
#     TILE_STDLIB=$PWD/stdlib ./tilec --arch=sm_90a $A -o build-exp/tma/att-$t.tlb examples/attention.tile
#     TILE_STDLIB=$PWD/stdlib ./tilec --arch=sm_90a $A --tma -o build-exp/tma/att-tma-$t.tlb examples/attention.tile
#   done; done
# then run: carry ["build-exp", "build-gpu-ops", "tests/unit/test_gpu_tmap",
# "tests/unit/test_gpu_runtime", "bench/launch_overhead"], command
#   bash bench/results/2026-12-05-h200-session27-run.sh
#
# 1. libtile's tensor maps on the driver (test_gpu_tmap: TMA loads of
#    boxes past the extents, encode and launch times);
# 2. the differential test of tests/gpu/ops (tma.tile's --tma entries
#    among them) against the interpreter, compute-sanitizer memcheck;
#    racecheck over tma.tile alone;
# 3. the A/B timing (-tma.py), last, its table printed at the end.
cd "$(dirname "$0")/../.."
R=bench/results/2026-12-05-h200-session27
out=${OUT:-/tmp/out}
mkdir -p "$out"
./tests/unit/test_gpu_tmap > "$out/test_gpu_tmap.txt" 2>&1; echo "test_gpu_tmap rc=$?"
tail -5 "$out/test_gpu_tmap.txt"
scripts/gpu-ops-check.sh run > "$out/ops.txt" 2>&1; echo "gpu-ops-check rc=$?"
grep -E "^FAIL|passed|ERROR SUMMARY" "$out/ops.txt" | tail -8
if command -v compute-sanitizer > /dev/null; then
  TILE_STDLIB=$PWD/stdlib compute-sanitizer --tool racecheck build-gpu-ops/difftest build-gpu-ops \
    tests/gpu/ops/tma.tile \
    > "$out/racecheck-tma.txt" 2>&1; echo "racecheck rc=$?"
  grep -E "ERROR SUMMARY|RACE" "$out/racecheck-tma.txt" | head -5
fi
TILE_LIBDIR=$PWD/build-exp PYTHONPATH=$PWD/python timeout 400 python3 $R-tma.py build-exp/tma \
  > "$out/tma.txt" 2>&1; echo "tma.py rc=$?"
cat "$out/tma.txt"
