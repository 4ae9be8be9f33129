#!/bin/bash
# Session 24 device call 8: 47d0d30's training example and kernels (old)
# against this tree's (new: the backward kernels' column sums, linear_lse
# and cross_entropy_parts, BM = 256 tiles offered): the phases of a step
# and the GPU time of 5 compiled steps (-phases.py, reduce-overhead), then
# the f32 training test alternated, reduce-overhead.
cd "$(dirname "$0")/../.."
E=build-exp
for v in new old; do
  mkdir -p /tmp/tb-$v
  for b in mlp-f32 cross_entropy; do xz -dc $E/$v/$b.tlb.xz > /tmp/tb-$v/$b.tlb; done
done
cp $E/old/mlp_train_old.py examples/torch/mlp_train_old.py
for v in old new; do
  s=examples/torch/mlp_train.py; [ $v = old ] && s=examples/torch/mlp_train_old.py
  TILE_LIBDIR=$PWD/$E timeout 200 python3 bench/results/2026-12-04-h200-session24-phases.py /tmp/tb-$v f32 reduce-overhead $s > $OUT/phases-$v.txt 2>&1; echo "phases $v rc=$?"
  grep -v Warn $OUT/phases-$v.txt | head -5; grep "GPU" $OUT/phases-$v.txt
done
for v in old new old new; do
  s=examples/torch/mlp_train.py; [ $v = old ] && s=examples/torch/mlp_train_old.py
  TILE_LIBDIR=$PWD/$E timeout 200 python3 $s --device cuda --bundle-dir /tmp/tb-$v --compile-mode reduce-overhead > $OUT/train-$v.txt 2>&1; echo "train $v rc=$?"
  grep -E "^torch eager|^tile compiled|passed" $OUT/train-$v.txt | tr '\n' ' '; echo
done
rm -f examples/torch/mlp_train_old.py
