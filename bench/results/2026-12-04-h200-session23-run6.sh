#!/bin/bash
# Session 23 device call 6: the weight-gradient tiles of 9603ab1's tilec
# against this one's (compiler-built, final form), then the f32 training
# test with mlp.tile / cross_entropy.tile built by each (old, new, old,
# new: each run beside its own torch eager), then where the new step's GPU
# time goes (bench/prof_mlp.py).
cd "$(dirname "$0")/../.."
E=build-exp
mkdir -p /tmp/g && tar xJf $E/gen.tar.xz -C /tmp/g && TILE_STDLIB=$PWD/stdlib $E/difftest -q /tmp/g/gen /tmp/g/gen/g*.tile > $OUT/gen.txt 2>&1; echo "generated rc=$?"; tail -1 $OUT/gen.txt
TILE_STDLIB=$PWD/stdlib timeout 200 compute-sanitizer --tool racecheck --error-exitcode 1 $E/difftest -q /tmp/g/gen /tmp/g/gen/g9973.tile /tmp/g/gen/g9987.tile > $OUT/gen-racecheck.txt 2>&1; echo "racecheck rc=$?"; tail -2 $OUT/gen-racecheck.txt
ENTRIES=entries3.txt python3 bench/results/2026-12-04-h200-session23-wgrad.py $E > $OUT/wgrad.txt 2>&1; echo "wgrad rc=$?"
for v in new old; do
  mkdir -p /tmp/tb-$v $E/xz-$v
  xz -dc $E/$v-mlp-f32.tlb.xz > /tmp/tb-$v/mlp-f32.tlb
  xz -dc $E/$v-cross_entropy.tlb.xz > /tmp/tb-$v/cross_entropy.tlb
done
for v in old new old new; do
  TILE_LIBDIR=$PWD/$E timeout 200 python3 examples/torch/mlp_train.py --device cuda --bundle-dir /tmp/tb-$v --compile-mode reduce-overhead > $OUT/train-$v.txt 2>&1; echo "train $v rc=$?"
  grep -E "torch eager|tile compiled|passed" $OUT/train-$v.txt | head -4
done
mkdir -p /tmp/px && cp $E/new-mlp-f32.tlb.xz /tmp/px/mlp-f32.tlb.xz && cp $E/new-cross_entropy.tlb.xz /tmp/px/cross_entropy.tlb.xz
TILE_LIBDIR=$PWD/$E timeout 200 python3 bench/prof_mlp.py /tmp/px f32 > $OUT/prof-new.txt 2>&1; echo "prof rc=$?"
grep -E "^\| " $OUT/wgrad.txt
