#!/bin/bash
cd "$(dirname "$0")/../.."
for v in 256 cur; do
  mkdir -p /tmp/tb-$v
  xz -dc build-exp/m256/mlp-f32-$v.tlb.xz > /tmp/tb-$v/mlp-f32.tlb
  xz -dc build-exp/m256/cross_entropy.tlb.xz > /tmp/tb-$v/cross_entropy.tlb
done
for v in 256 cur; do
  TILE_LIBDIR=$PWD/build-exp/m256 timeout 250 python3 examples/torch/mlp_train.py --device cuda --bundle-dir /tmp/tb-$v --compile-mode reduce-overhead > $OUT/train-$v.txt 2>&1; echo "train $v rc=$?"
  grep -E "ms/step|eager |compiled |vs torch|passed" $OUT/train-$v.txt | head -8
done
