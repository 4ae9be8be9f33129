#!/bin/bash
# device call: ops difftest (+memcheck), swap A/B, f32 training test with the new and old bundles
cd "$(dirname "$0")/../.."
scripts/gpu-ops-check.sh run > $OUT/ops.log 2>&1; echo "ops rc=$?"; grep -E "passed|ERROR SUMMARY" $OUT/ops.log | tail -3
python3 bench/results/2026-12-04-h200-session22-autoswap.py build-exp/sw > $OUT/autoswap.txt 2>&1; echo "autoswap rc=$?"
for v in new old; do
  mkdir -p /tmp/tb-$v
  xz -dc build-exp/sw/mlp-f32-$v.tlb.xz > /tmp/tb-$v/mlp-f32.tlb
  xz -dc build-exp/sw/cross_entropy-$v.tlb.xz > /tmp/tb-$v/cross_entropy.tlb
done
for v in new old; do
  TILE_LIBDIR=$PWD/build-exp/sw timeout 200 python3 examples/torch/mlp_train.py --device cuda --bundle-dir /tmp/tb-$v --compile-mode reduce-overhead > $OUT/train-$v.txt 2>&1; echo "train $v rc=$?"
  grep -E "ms/step|eager|compiled|passed" $OUT/train-$v.txt | head -8
done
tail -9 $OUT/autoswap.txt
