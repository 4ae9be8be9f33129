#!/bin/bash
# Session 24 device call 3: the phases of a training step (-phases.py)
# with this tree's kernels under both compile modes; then the f32 training
# test, this tree (new) against 47d0d30's mlp_train.py and kernels (old,
# built by the same tilec), alternated, in torch.compile's default mode
# (scripts/gpu-python.sh's f32 run) and in reduce-overhead; then bf16.
cd "$(dirname "$0")/../.."
E=build-exp
for v in new old; do
  mkdir -p /tmp/tb-$v
  for b in mlp-f32 cross_entropy; do xz -dc $E/$v/$b.tlb.xz > /tmp/tb-$v/$b.tlb; done
done
for b in mlp-bf16 cross_entropy-bf16; do xz -dc $E/new/$b.tlb.xz > /tmp/tb-new/$b.tlb; done
cp $E/old/mlp_train_old.py examples/torch/mlp_train_old.py
for mode in default reduce-overhead; do
  TILE_LIBDIR=$PWD/$E timeout 200 python3 bench/results/2026-12-04-h200-session24-phases.py /tmp/tb-new f32 $mode > $OUT/phases-new-$mode.txt 2>&1; echo "phases $mode rc=$?"
  head -6 $OUT/phases-new-$mode.txt | grep -v Warn
done
for mode in default reduce-overhead; do
  m=""; [ $mode = default ] || m="--compile-mode $mode"
  for v in old new old new; do
    s=examples/torch/mlp_train.py; [ $v = old ] && s=examples/torch/mlp_train_old.py
    TILE_LIBDIR=$PWD/$E timeout 200 python3 $s --device cuda --bundle-dir /tmp/tb-$v $m > $OUT/train-$v-$mode.txt 2>&1; echo "train $v $mode rc=$?"
    grep -E "^torch eager|^tile compiled|passed" $OUT/train-$v-$mode.txt | tr '\n' ' '; echo
  done
done
rm -f examples/torch/mlp_train_old.py
TILE_LIBDIR=$PWD/$E timeout 200 python3 examples/torch/mlp_train.py --device cuda --bundle-dir /tmp/tb-new --dtype bf16 --compile-mode reduce-overhead > $OUT/train-new-bf16.txt 2>&1; echo "train bf16 rc=$?"
grep -E "^torch eager|^tile eager|^tile compiled|^torch compiled|passed" $OUT/train-new-bf16.txt
