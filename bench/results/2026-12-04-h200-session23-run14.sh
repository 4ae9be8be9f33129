#!/bin/bash
# Session 23 device call 14: the bf16 training test (session 11's faster-
# than-eager case) with this tree's kernels, the cross-entropy split among them.
cd "$(dirname "$0")/../.."
E=build-exp
mkdir -p /tmp/tb-bf16
xz -dc $E/mlp-bf16.tlb.xz > /tmp/tb-bf16/mlp-bf16.tlb
xz -dc $E/cross_entropy-bf16.tlb.xz > /tmp/tb-bf16/cross_entropy-bf16.tlb
for i in 1 2; do
  TILE_LIBDIR=$PWD/$E timeout 200 python3 examples/torch/mlp_train.py --device cuda --dtype bf16 --bundle-dir /tmp/tb-bf16 --compile-mode reduce-overhead > $OUT/train-bf16-$i.txt 2>&1; echo "train bf16 rc=$?"
  grep -E "torch eager|tile eager|tile compiled|passed|FAIL" $OUT/train-bf16-$i.txt | head -6
done
