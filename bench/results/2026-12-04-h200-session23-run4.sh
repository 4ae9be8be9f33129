#!/bin/bash
# Session 23 device call 4: the weight-gradient tiles before/after (cubins of
# 9603ab1's tilec and this one), dot.tile on the GPU (+racecheck), and the
# f32 training test with this tilec's bundles.
cd "$(dirname "$0")/../.."
E=build-exp
python3 bench/results/2026-12-04-h200-session23-wgrad.py $E > $OUT/wgrad.txt 2>&1; echo "wgrad rc=$?"
TILE_STDLIB=$PWD/stdlib $E/ops/difftest $E/ops tests/gpu/ops/dot.tile > $OUT/dot.txt 2>&1; echo "dot rc=$?"; tail -1 $OUT/dot.txt
TILE_STDLIB=$PWD/stdlib timeout 300 compute-sanitizer --tool racecheck --error-exitcode 1 $E/ops/difftest -k wg_tf32_tn $E/ops tests/gpu/ops/dot.tile > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$?"; tail -2 $OUT/racecheck.txt
mkdir -p /tmp/tb
xz -dc $E/mlp-f32.tlb.xz > /tmp/tb/mlp-f32.tlb
xz -dc $E/cross_entropy.tlb.xz > /tmp/tb/cross_entropy.tlb
for mode in reduce-overhead default; do
  TILE_LIBDIR=$PWD/$E timeout 250 python3 examples/torch/mlp_train.py --device cuda --bundle-dir /tmp/tb --compile-mode $mode > $OUT/train-$mode.txt 2>&1; echo "train $mode rc=$?"
  grep -E "ms/step|eager |compiled |vs torch|passed|FAIL" $OUT/train-$mode.txt | head -10
done
grep -E "^\| (wgrad|[0-9])" $OUT/wgrad.txt | head -60
